// Part 4 §5.4.5 RegisterServer, §5.4.6 RegisterServer2, as a Local Discovery Server.
#include "engine/server/services/register_server.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "uactor/ua/status_codes.hpp"

namespace uactor::services {

namespace {

void registration_header(const ua::request_header& req, ua::response_header& resp, ua::date_time now,
                         ua::status_code result) {
  resp.timestamp = now;
  resp.request_handle = req.request_handle;
  resp.service_result = result;
}

// Part 12 Annex A: capability identifiers are compared without case; kept upper case.
std::string upper_case_capability(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

}  // namespace

ua::status_code check_registration(const ua::registered_server& s, const registering_channel& channel, std::string& why) {
  // Part 4 §5.4.5.1: only over a SecureChannel that authenticates the client, and the ServerUri
  // must be the ApplicationUri of the certificate that opened it.
  if (channel.mode != ua::message_security_mode::sign && channel.mode != ua::message_security_mode::sign_and_encrypt) {
    why = "the channel is not secured (SecurityPolicy None): a registration must come from an authenticated server";
    return ua::status::bad_security_mode_insufficient;
  }
  if (s.server_uri.is_null() || s.server_uri.empty()) {
    why = "no ServerUri";
    return ua::status::bad_server_uri_invalid;
  }
  // A gateway registers the servers behind it under its own certificate (Part 4 §7.27
  // GatewayServerUri): its URI is the one the certificate must name then.
  const bool gateway = !s.gateway_server_uri.is_null() && !s.gateway_server_uri.empty();
  const std::string_view must_match = gateway ? s.gateway_server_uri.view() : s.server_uri.view();
  if (channel.certificate_application_uri != must_match) {
    why = "the client certificate's ApplicationUri '" + channel.certificate_application_uri + "' is not the " +
          (gateway ? "GatewayServerUri '" : "ServerUri '") + std::string(must_match) + "'";
    return ua::status::bad_server_uri_invalid;
  }
  // Part 4 §7.27: a Client may not register.
  if (s.server_type == ua::application_type::client) {
    why = "ServerType is Client";
    return ua::status::bad_invalid_argument;
  }
  const bool named = std::any_of(s.server_names.begin(), s.server_names.end(),
                                 [](const ua::localized_text& t) { return !t.text.is_null() && !t.text.empty(); });
  if (!named) {
    why = "no ServerName";
    return ua::status::bad_server_name_missing;
  }
  const bool has_url = std::any_of(s.discovery_urls.begin(), s.discovery_urls.end(),
                                   [](const ua::ua_string& u) { return !u.is_null() && !u.empty(); });
  if (!has_url) {
    why = "no DiscoveryUrl";
    return ua::status::bad_discovery_url_missing;
  }
  // Part 4 §7.27 SemaphoreFilePath: an automatically launched server names a file on this machine
  // that exists while it may be launched.
  if (!s.semaphore_file_path.is_null() && !s.semaphore_file_path.empty()) {
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::path(std::string(s.semaphore_file_path.view())), ec)) {
      why = "the semaphore file '" + std::string(s.semaphore_file_path.view()) + "' does not exist";
      return ua::status::bad_sempahore_file_missing;
    }
  }
  return ua::status::good;
}

void service_register_server(const ua::register_server_request& req, ua::register_server_response& resp,
                             server_registry& registry, const registering_channel& channel,
                             const actors::instant& now, std::string& why) {
  ua::status_code sc = check_registration(req.server, channel, why);
  if (sc.is_good()) {
    sc = registry.put(req.server, {}, {}, now);
    if (!sc.is_good()) why = "the registry is full (" + std::to_string(registry.limits().max_servers) + " servers)";
  }
  registration_header(req.request_header, resp.response_header, now.utc, sc);
}

void service_register_server2(const ua::register_server2_request& req, ua::register_server2_response& resp,
                              server_registry& registry, const registering_channel& channel,
                              const actors::instant& now, std::string& why) {
  resp.configuration_results.clear();
  resp.diagnostic_infos.clear();
  ua::status_code sc = check_registration(req.server, channel, why);
  std::string mdns_name;
  std::vector<std::string> capabilities;
  if (sc.is_good()) {
    for (const ua::extension_object& e : req.discovery_configuration) {
      if (const auto* mdns = e.get_if<ua::mdns_discovery_configuration>()) {
        mdns_name = std::string(mdns->mdns_server_name.view());
        for (const auto& c : mdns->server_capabilities) capabilities.push_back(upper_case_capability(c.view()));
        resp.configuration_results.push_back(ua::status::good);
      } else {
        resp.configuration_results.push_back(ua::status::bad_not_supported);
      }
    }
    sc = registry.put(req.server, std::move(mdns_name), std::move(capabilities), now);
    if (!sc.is_good()) {
      why = "the registry is full (" + std::to_string(registry.limits().max_servers) + " servers)";
      resp.configuration_results.clear();
    }
  }
  registration_header(req.request_header, resp.response_header, now.utc, sc);
}

}  // namespace uactor::services
