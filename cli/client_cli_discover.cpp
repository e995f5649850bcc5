// uactor discover ENDPOINT: what a (Local) Discovery Server knows (Part 4 §5.4.2 FindServers,
// §5.4.3 FindServersOnNetwork; docs/discovery.md). Over a channel without a session (Part 4 §5.4:
// the Discovery services need none), policy None unless --security or --policy asks for more.
#include <cstdio>
#include <string>

#include "cli/client_cli_internal.hpp"
#include "cli/client_cli_output.hpp"
#include "uactor/client.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::app::client_cli {

namespace {

const char* application_type_word(ua::application_type t) {
  switch (t) {
    case ua::application_type::server: return "Server";
    case ua::application_type::client: return "Client";
    case ua::application_type::client_and_server: return "ClientAndServer";
    case ua::application_type::discovery_server: return "DiscoveryServer";
  }
  return "?";
}

std::string joined_strings(const ua::ua_array<ua::ua_string>& list, const char* separator) {
  std::string out;
  for (const auto& s : list) out += (out.empty() ? "" : separator) + std::string(s.view());
  return out;
}

std::string json_string_array(const ua::ua_array<ua::ua_string>& list) {
  std::string out = "[";
  for (const auto& s : list) out += (out.size() > 1 ? "," : "") + json_string(s.view());
  return out + "]";
}

}  // namespace

int run_discover(const common_args& a) {
  auto c = connect_or_exit(a, {}, false);
  const auto style = a.style();
  ua::find_servers_request fs;
  fs.endpoint_url = ua::ua_string(a.endpoint);
  auto servers = c.find_servers_sync(std::move(fs));
  if (!servers) service_failed(c, "FindServers", servers.error());
  if (servers->response_header.service_result.is_bad())
    service_failed(c, "FindServers", servers->response_header.service_result);
  for (const auto& s : servers->servers) {
    if (style.json) {
      json_object line;
      line.text("kind", "server")
          .text("applicationUri", s.application_uri.view())
          .text("applicationName", s.application_name.text.view())
          .text("applicationType", application_type_word(s.application_type))
          .text("productUri", s.product_uri.view())
          .raw("discoveryUrls", json_string_array(s.discovery_urls));
      std::printf("%s\n", line.str().c_str());
    } else {
      std::printf("server\t%s\t%s\t%s\t%s\n", std::string(s.application_uri.view()).c_str(),
                  application_type_word(s.application_type), std::string(s.application_name.text.view()).c_str(),
                  joined_strings(s.discovery_urls, ",").c_str());
    }
  }
  // FindServersOnNetwork is an LDS-ME's (Part 12 §4.3.4); a plain server or LDS answers
  // Bad_ServiceUnsupported, which is said on stderr and is not a failure.
  ua::find_servers_on_network_request fn;
  auto records = c.find_servers_on_network_sync(std::move(fn));
  const ua::status_code sc = records ? records->response_header.service_result : records.error();
  if (sc.is_bad()) {
    std::fprintf(stderr, "uactor: FindServersOnNetwork: %s\n", std::string(sc.name()).c_str());
  } else {
    for (const auto& r : records->servers) {
      if (style.json) {
        json_object line;
        line.text("kind", "record")
            .number("recordId", r.record_id)
            .text("serverName", r.server_name.view())
            .text("discoveryUrl", r.discovery_url.view())
            .raw("capabilities", json_string_array(r.server_capabilities));
        std::printf("%s\n", line.str().c_str());
      } else {
        std::printf("record\t%u\t%s\t%s\t%s\n", static_cast<unsigned>(r.record_id),
                    std::string(r.server_name.view()).c_str(), std::string(r.discovery_url.view()).c_str(),
                    r.server_capabilities.empty() ? "-" : joined_strings(r.server_capabilities, ",").c_str());
      }
    }
  }
  c.close();
  return exit_good;
}

}  // namespace uactor::app::client_cli
