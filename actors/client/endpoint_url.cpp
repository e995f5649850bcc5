#include "actors/client/endpoint_url.hpp"

#include <charconv>
#include <system_error>

#include "protocol/uatcp.hpp"

namespace uactor::actors {

ua::expected<endpoint_address> parse_endpoint_url(std::string_view url) {
  constexpr std::string_view scheme = "opc.tcp://";
  constexpr std::string_view wss_scheme = "opc.wss://";
  endpoint_address a;
  if (url.size() > ua::max_endpoint_url_length) return ua::status::bad_tcp_endpoint_url_invalid;
  if (url.substr(0, wss_scheme.size()) == wss_scheme) {
    a.wss = true;
    a.port = 4843;
  } else if (url.substr(0, scheme.size()) != scheme) {
    return ua::status::bad_tcp_endpoint_url_invalid;
  }
  std::string_view rest = url.substr(scheme.size());  // both schemes are 10 characters
  if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
    if (a.wss) a.path = std::string(rest.substr(slash));
    rest = rest.substr(0, slash);
  }
  if (a.wss && a.path.empty()) a.path = "/";
  std::string_view host = rest;
  std::string_view port;
  if (!rest.empty() && rest.front() == '[') {  // [IPv6]:port
    const auto close = rest.find(']');
    if (close == std::string_view::npos) return ua::status::bad_tcp_endpoint_url_invalid;
    host = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') return ua::status::bad_tcp_endpoint_url_invalid;
      port = rest.substr(close + 2);
    }
  } else if (const auto colon = rest.rfind(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (host.empty()) return ua::status::bad_tcp_endpoint_url_invalid;
  a.host = std::string(host);
  if (!port.empty()) {
    unsigned value = 0;
    const auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc{} || p != port.data() + port.size() || value == 0 || value > 65535)
      return ua::status::bad_tcp_endpoint_url_invalid;
    a.port = static_cast<std::uint16_t>(value);
  }
  return a;
}

}  // namespace uactor::actors
