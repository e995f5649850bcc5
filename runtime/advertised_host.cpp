#include "runtime/advertised_host.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "uactor/server_plan.hpp"

namespace uactor {

namespace {

// An address as bytes, so that "127.0.0.1" and a resolver's spelling of it compare equal (and
// "::1" and "0:0:0:0:0:0:0:1").
struct ip {
  int family = 0;
  std::array<unsigned char, 16> bytes{};
  bool operator==(const ip&) const = default;
};

std::optional<ip> parse_ip(std::string_view text) {
  const std::string s(text);
  ip a;
  if (inet_pton(AF_INET, s.c_str(), a.bytes.data()) == 1) {
    a.family = AF_INET;
    return a;
  }
  if (inet_pton(AF_INET6, s.c_str(), a.bytes.data()) == 1) {
    a.family = AF_INET6;
    return a;
  }
  return std::nullopt;
}

bool is_any(std::string_view listen, const std::optional<ip>& a) {
  if (listen.empty()) return true;
  return a && std::all_of(a->bytes.begin(), a->bytes.end(), [](unsigned char b) { return b == 0; });
}

bool is_loopback(std::string_view listen, const std::optional<ip>& a) {
  if (listen == "localhost") return true;
  if (!a) return false;
  if (a->family == AF_INET) return a->bytes[0] == 127;  // 127.0.0.0/8 (RFC 1122 §3.2.1.3)
  static constexpr std::array<unsigned char, 16> v6_loopback{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  return a->bytes == v6_loopback;
}

std::string join(std::span<const std::string> items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

}  // namespace

advertised_host choose_advertised_host(std::string_view listen_address, std::string_view host_name,
                                       std::string_view machine_host_name, std::span<const std::string> resolved) {
  if (!host_name.empty()) return {std::string(host_name), advertised_because::set_by_plant};
  const auto listen = parse_ip(listen_address);
  if (is_any(listen_address, listen)) return {std::string(machine_host_name), advertised_because::any_address};
  if (is_loopback(listen_address, listen)) return {std::string(listen_address), advertised_because::loopback};
  const bool reaches = listen && std::any_of(resolved.begin(), resolved.end(), [&](const std::string& r) {
                         return parse_ip(r) == listen;
                       });
  if (reaches) return {std::string(machine_host_name), advertised_because::host_name_resolves};
  return {std::string(listen_address), advertised_because::host_name_elsewhere};
}

std::string explain(const advertised_host& a, std::string_view listen_address, std::string_view machine_host_name,
                    std::span<const std::string> resolved) {
  const std::string to = resolved.empty() ? std::string("resolves to nothing here")
                                          : "resolves to " + join(resolved);
  switch (a.why) {
    case advertised_because::set_by_plant:
      return fmt::format("the endpoint on {} advertises {}: the plant's host_name", listen_address, a.host);
    case advertised_because::any_address:
      return fmt::format("the endpoint on {} advertises {}: it listens on every address, the host name is one of them",
                         listen_address, a.host);
    case advertised_because::loopback:
      return fmt::format("the endpoint on {} advertises {}: a loopback address, which the host name {} need not reach "
                         "(set host_name to advertise a name)",
                         listen_address, a.host, machine_host_name);
    case advertised_because::host_name_resolves:
      return fmt::format("the endpoint on {} advertises {}: the host name resolves to {} here", listen_address, a.host,
                         listen_address);
    case advertised_because::host_name_elsewhere:
      return fmt::format("the endpoint on {} advertises {}: the host name {} {}, not to the listen address "
                         "(set host_name to advertise a name)",
                         listen_address, a.host, machine_host_name, to);
  }
  return {};
}

std::string machine_host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  return gethostname(name, sizeof name) == 0 && name[0] ? std::string(name) : std::string("localhost");
}

std::vector<std::string> resolve_host(const std::string& name) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::vector<std::string> out;
  if (getaddrinfo(name.c_str(), nullptr, &hints, &found) != 0) return out;
  for (const addrinfo* i = found; i; i = i->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* where = i->ai_family == AF_INET ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(i->ai_addr)->sin_addr)
                        : i->ai_family == AF_INET6 ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(i->ai_addr)->sin6_addr)
                                                   : nullptr;
    if (!where || !inet_ntop(i->ai_family, where, text, sizeof text)) continue;
    if (std::find(out.begin(), out.end(), text) == out.end()) out.emplace_back(text);
  }
  freeaddrinfo(found);
  return out;
}

namespace {

// The decision for one of the plan's endpoints; `resolved` caches the machine's addresses (looked
// up once, and only when an endpoint bound to a specific non-loopback address needs them).
advertised_host advertise(const server_plan& plan, const endpoint_plan& e, const std::string& machine,
                          std::optional<std::vector<std::string>>& resolved, bool log) {
  // default_server_plan() fills host_name with the machine's: that one is no choice of the plant.
  const std::string server_given = plan.host_name == machine ? std::string() : plan.host_name;
  const std::string default_name = plan.host_name.empty() ? machine : plan.host_name;
  const std::string& given = e.host_name.empty() ? server_given : e.host_name;
  const auto listen = parse_ip(e.listen_address);
  const bool specific = given.empty() && !is_any(e.listen_address, listen) && !is_loopback(e.listen_address, listen);
  if (specific && !resolved) resolved = resolve_host(default_name);
  static const std::vector<std::string> none;
  const auto& addresses = resolved ? *resolved : none;
  auto a = choose_advertised_host(e.listen_address, given, default_name, addresses);
  if (log && a.why != advertised_because::set_by_plant && a.why != advertised_because::any_address)
    spdlog::info("{}", explain(a, e.listen_address, default_name, addresses));
  return a;
}

}  // namespace

advertised_host advertised_host_of(const server_plan& plan, const endpoint_plan& endpoint) {
  std::optional<std::vector<std::string>> resolved;
  return advertise(plan, endpoint, machine_host_name(), resolved, false);
}

std::vector<advertised_host> advertised_hosts(const server_plan& plan, bool log) {
  const std::string machine = machine_host_name();
  std::optional<std::vector<std::string>> resolved;
  std::vector<advertised_host> out;
  for (const auto& e : plan.resolved_endpoints()) out.push_back(advertise(plan, e, machine, resolved, log));
  return out;
}

std::string url_host(std::string_view host) {
  if (host.find(':') != std::string_view::npos && (host.empty() || host.front() != '['))
    return "[" + std::string(host) + "]";
  return std::string(host);
}

std::string endpoint_url(const std::string& host, std::uint16_t port, bool wss) {
  if (wss) return "opc.wss://" + url_host(host) + ":" + std::to_string(port) + "/";
  return "opc.tcp://" + url_host(host) + ":" + std::to_string(port);
}

}  // namespace uactor
