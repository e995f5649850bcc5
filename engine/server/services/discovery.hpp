// The discovery services a server answers without a session (Part 4 §5.4): GetEndpoints and
// FindServers, as plain functions. The caller owns the requests, the responses and the endpoints.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/server/server_security.hpp"
#include "engine/server/services/server_registry.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::services {

// What the server says about itself in ApplicationDescriptions and EndpointDescriptions.
struct server_description {
  std::string application_uri;       // urn:<host name>:uactor:server by default
  std::string product_uri = "urn:uactor";
  std::string application_name = "uactor";
  std::string product_name = "uactor";       // the Server object's BuildInfo (Part 5 §12.4)
  std::string manufacturer_name = "uactor";
  std::string build_number;                  // BuildInfo: the commit built, when known
  ua::date_time build_date{};                // BuildInfo: when it was made
  std::string endpoint_url;          // opc.tcp://<host name>:4840
  // One URL per endpoint (server_security::endpoints' order) when the server has several; empty:
  // endpoint_url for its one endpoint.
  std::vector<std::string> endpoint_urls;

  // The URL of endpoint `i`; every URL, once each, in endpoint order (the DiscoveryUrls).
  const std::string& url_of(std::size_t i) const noexcept {
    return i < endpoint_urls.size() ? endpoint_urls[i] : endpoint_url;
  }
  std::vector<std::string> discovery_urls() const;
};

inline constexpr std::string_view security_policy_none = "http://opcfoundation.org/UA/SecurityPolicy#None";
inline constexpr std::string_view uatcp_binary_profile =
    "http://opcfoundation.org/UA-Profile/Transport/uatcp-uasc-uabinary";
inline constexpr std::string_view anonymous_policy_id = "anonymous";
inline constexpr std::string_view user_name_policy_id = "username";
inline constexpr std::string_view x509_policy_id = "x509";

// The ApplicationDescription of this server (Part 4 §7.2): a Server, discovered at each of its
// endpoints' URLs.
ua::application_description make_application_description(const server_description& d);

// The endpoints this server offers (Part 4 §7.14): for each endpoint of `security` (its listener,
// its URL), one per policy and mode it offers, with the server certificate, UA-TCP binary, and the
// UserTokenPolicies "anonymous", "username" and "x509" as that endpoint's token types and
// `security.identities` allow (UserName and X509 not over None). Without `security`: None only,
// anonymous. The session manager's config echoes them in CreateSession (Part 4 §5.7.2.2: all
// of the server's endpoints, whichever the client came through).
ua::ua_array<ua::endpoint_description> make_endpoints(const server_description& d);
ua::ua_array<ua::endpoint_description> make_endpoints(const server_description& d, const actors::server_security& security);

// Part 4 §5.4.4. The endpoints whose TransportProfileUri is one of the request's ProfileUris (all
// when it names none), with the host of their URLs replaced by the host of the request's
// EndpointUrl, the address the client reached us by (a server behind NAT or with several names is
// then reachable at what the client already uses). `now` is the response's timestamp.
void service_get_endpoints(const ua::get_endpoints_request& req, ua::get_endpoints_response& resp,
                           const ua::ua_array<ua::endpoint_description>& endpoints, ua::date_time now);

// Part 4 §5.4.2. This server's ApplicationDescription, unless the request's ServerUris name others
// only (then none); its DiscoveryUrls with the host the client used, as in GetEndpoints. With a
// registry (the server acts as an LDS, docs/discovery.md), then every registered server the
// ServerUris name (all when none), its ApplicationName in the first of the request's LocaleIds it
// registered a name in (its first name otherwise).
void service_find_servers(const ua::find_servers_request& req, ua::find_servers_response& resp,
                          const server_description& d, ua::date_time now, const server_registry* registry = nullptr);

// What an LDS says about itself in FindServersOnNetwork: its records' first id (one record per
// DiscoveryUrl) and its ServerCapabilities (Part 12 Annex A, e.g. "LDS").
struct own_network_record {
  std::uint32_t first_record_id = 0;
  std::vector<std::string> capabilities;
};

// Part 4 §5.4.3, answered from what the LDS knows (no multicast, docs/decisions/0058): its own
// records and one per DiscoveryUrl of each registered server, in RecordId order, those above
// StartingRecordId that have every capability of ServerCapabilityFilter (case-insensitive), at
// most MaxRecordsToReturn (0: all). LastCounterResetTime is the registry's.
void service_find_servers_on_network(const ua::find_servers_on_network_request& req,
                                     ua::find_servers_on_network_response& resp, const server_description& d,
                                     const own_network_record& own, const server_registry& registry, ua::date_time now);

// `url` with its host replaced by the host of `reached` ("opc.tcp://host:port/path"); `url`
// unchanged when either has no host.
std::string with_host_of(std::string_view url, std::string_view reached);

}  // namespace uactor::services
