// Part 12 §4.3: the registrations of a Local Discovery Server.
#include "engine/server/services/server_registry.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "uactor/ua/status_codes.hpp"

namespace uactor::services {

namespace {

// Strings from the wire are kept no longer than the limit (a registering server is trusted, but
// its registration lives in our memory until it expires).
ua::ua_string clipped(const ua::ua_string& s, std::size_t max) {
  if (s.is_null() || s.size() <= max) return s;
  return ua::ua_string(s.view().substr(0, max));
}

ua::registered_server kept_copy(const ua::registered_server& s, const registry_limits& l) {
  ua::registered_server k;
  k.server_uri = clipped(s.server_uri, l.max_string_length);
  k.product_uri = clipped(s.product_uri, l.max_string_length);
  for (const auto& n : s.server_names) {
    if (k.server_names.size() >= l.max_urls_per_server) break;
    k.server_names.push_back({clipped(n.locale, l.max_string_length), clipped(n.text, l.max_string_length)});
  }
  k.server_type = s.server_type;
  k.gateway_server_uri = clipped(s.gateway_server_uri, l.max_string_length);
  for (const auto& u : s.discovery_urls) {
    if (k.discovery_urls.size() >= l.max_urls_per_server) break;
    k.discovery_urls.push_back(clipped(u, l.max_string_length));
  }
  k.semaphore_file_path = clipped(s.semaphore_file_path, l.max_string_length);
  k.is_online = true;
  return k;
}

}  // namespace

std::uint32_t server_registry::take_record_ids(std::uint32_t count) noexcept {
  const std::uint32_t first = next_record_id_;
  next_record_id_ += count;
  return first;
}

const registration* server_registry::find(std::string_view server_uri) const noexcept {
  const auto it = std::find_if(servers_.begin(), servers_.end(),
                               [server_uri](const registration& r) { return r.server.server_uri.view() == server_uri; });
  return it == servers_.end() ? nullptr : &*it;
}

ua::status_code server_registry::put(const ua::registered_server& s, std::string mdns_server_name,
                                     std::vector<std::string> capabilities, const actors::instant& now) {
  expire(now);
  auto it = std::find_if(servers_.begin(), servers_.end(),
                         [&s](const registration& r) { return r.server.server_uri == s.server_uri; });
  const bool has_semaphore = !s.semaphore_file_path.is_null() && !s.semaphore_file_path.empty();
  if (!s.is_online && !has_semaphore) {
    // Part 4 §5.4.5.2: IsOnline false, the server is no longer returned by FindServers.
    if (it != servers_.end()) servers_.erase(it);
    return ua::status::good;
  }
  if (it == servers_.end()) {
    if (servers_.size() >= limits_.max_servers) return ua::status::bad_too_many_operations;
    it = servers_.emplace(servers_.end());
  }
  it->server = kept_copy(s, limits_);
  if (mdns_server_name.size() > limits_.max_string_length) mdns_server_name.resize(limits_.max_string_length);
  it->mdns_server_name = std::move(mdns_server_name);
  if (capabilities.size() > limits_.max_urls_per_server) capabilities.resize(limits_.max_urls_per_server);
  it->capabilities = std::move(capabilities);
  it->first_record_id = take_record_ids(static_cast<std::uint32_t>(std::max<std::size_t>(1, it->server.discovery_urls.size())));
  it->renewed = now.steady;
  return ua::status::good;
}

void server_registry::expire(const actors::instant& now) {
  std::erase_if(servers_, [&](const registration& r) { return now.steady - r.renewed >= limits_.expiry; });
}

void server_registry::drop_missing_semaphores() {
  std::erase_if(servers_, [](const registration& r) {
    const auto& path = r.server.semaphore_file_path;
    if (path.is_null() || path.empty()) return false;
    std::error_code ec;
    return !std::filesystem::exists(std::filesystem::path(std::string(path.view())), ec);
  });
}

}  // namespace uactor::services
