// Part 4 §5.4 Discovery: GetEndpoints and FindServers.
#include "engine/server/services/discovery.hpp"

#include "protocol/ws_uacp.hpp"

#include <algorithm>

#include "engine/common/channel_crypto.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::services {

using namespace uactor::ua;

namespace {

// Where the host of "scheme://host:port/path" is: [first, last) in `url`; first == last when it
// has none. An IPv6 host keeps its brackets.
struct host_span {
  std::size_t first = 0, last = 0;
};

host_span find_host(std::string_view url) {
  const std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return {};
  const std::size_t begin = scheme_end + 3;
  const std::size_t end = std::min(url.find('/', begin), url.size());
  std::size_t first = begin;
  if (const std::size_t at = url.substr(begin, end - begin).rfind('@'); at != std::string_view::npos)
    first = begin + at + 1;
  std::size_t last = end;
  if (first < end && url[first] == '[') {
    const std::size_t close = url.find(']', first);
    if (close == std::string_view::npos || close >= end) return {};
    last = close + 1;
  } else if (const std::size_t colon = url.find(':', first); colon != std::string_view::npos && colon < end) {
    last = colon;
  }
  return {first, last};
}

void header(const request_header& req, response_header& resp, date_time now) {
  resp.timestamp = now;
  resp.request_handle = req.request_handle;
  resp.service_result = status::good;
}

bool contains(const ua_array<ua_string>& list, std::string_view s) {
  return std::any_of(list.begin(), list.end(), [s](const ua_string& x) { return x.view() == s; });
}

}  // namespace

std::string with_host_of(std::string_view url, std::string_view reached) {
  const host_span ours = find_host(url);
  const host_span theirs = find_host(reached);
  if (ours.first == ours.last || theirs.first == theirs.last) return std::string(url);
  std::string out(url.substr(0, ours.first));
  out += reached.substr(theirs.first, theirs.last - theirs.first);
  out += url.substr(ours.last);
  return out;
}

std::vector<std::string> server_description::discovery_urls() const {
  if (endpoint_urls.empty()) return {endpoint_url};
  std::vector<std::string> out;
  for (const auto& u : endpoint_urls)
    if (std::find(out.begin(), out.end(), u) == out.end()) out.push_back(u);
  return out;
}

application_description make_application_description(const server_description& d) {
  application_description a;
  a.application_uri = ua_string(d.application_uri);
  a.product_uri = ua_string(d.product_uri);
  a.application_name.text = ua_string(d.application_name);
  a.application_type = application_type::server;
  // Part 4 §7.2: the DiscoveryUrls of every endpoint (each answers GetEndpoints with all of them).
  for (const auto& url : d.discovery_urls()) a.discovery_urls.push_back(ua_string(url));
  return a;
}

ua_array<endpoint_description> make_endpoints(const server_description& d) {
  actors::server_security none_only;
  none_only.offers = {actors::security_offer{}};
  return make_endpoints(d, none_only);
}

ua_array<endpoint_description> make_endpoints(const server_description& d, const actors::server_security& security) {
  const auto token = [](std::string_view id, user_token_type type) {
    user_token_policy p;
    p.policy_id = ua_string(id);
    p.token_type = type;
    return p;  // SecurityPolicyUri null: the endpoint's policy secures the token (Part 4 §7.42)
  };
  ua_array<endpoint_description> out;
  const application_description server = make_application_description(d);
  const auto& ids = security.identities;
  for (std::size_t i = 0; i < security.endpoint_count(); ++i) {
    const auto& offers = security.endpoints.empty() ? security.offers : security.endpoints[i].offers;
    const actors::user_token_set tokens = security.tokens_at(i);
    for (const auto& offer : offers) {
      endpoint_description& e = out.emplace_back();
      e.endpoint_url = ua_string(d.url_of(i));
      e.server = server;
      e.security_mode = offer.mode;
      e.security_policy_uri = ua_string(offer.policy->uri);
      if (!offer.policy->is_none()) e.server_certificate = actors::to_byte_string(security.certificate_chain());
      if (tokens.anonymous) e.user_identity_tokens.push_back(token(anonymous_policy_id, user_token_type::anonymous));
      // UserName and X509 identities need a policy that encrypts the password and signs the token:
      // not offered over None.
      if (!offer.policy->is_none()) {
        if (tokens.user_name && ids.user_name)
          e.user_identity_tokens.push_back(token(user_name_policy_id, user_token_type::user_name));
        if (tokens.x509 && ids.x509) e.user_identity_tokens.push_back(token(x509_policy_id, user_token_type::certificate));
      }
      // Part 6 §7.5.1: an opc.wss endpoint names its WebSocket mapping's profile (Part 7).
      e.transport_profile_uri = ua_string(std::string_view(d.url_of(i)).starts_with("opc.wss://") ? wss_uacp_binary_profile
                                                                                                 : uatcp_binary_profile);
      e.security_level = actors::security_level(offer);
    }
  }
  return out;
}

void service_get_endpoints(const get_endpoints_request& req, get_endpoints_response& resp,
                           const ua_array<endpoint_description>& endpoints, date_time now) {
  header(req.request_header, resp.response_header, now);
  resp.endpoints.clear();
  for (const endpoint_description& e : endpoints) {
    // Part 4 §5.4.4.2: ProfileUris, when given, filter by the transport profile.
    if (!req.profile_uris.empty() && !contains(req.profile_uris, e.transport_profile_uri.view())) continue;
    endpoint_description& out = resp.endpoints.emplace_back(e);
    if (req.endpoint_url.is_null() || req.endpoint_url.empty()) continue;
    out.endpoint_url = ua_string(with_host_of(e.endpoint_url.view(), req.endpoint_url.view()));
    for (ua_string& url : out.server.discovery_urls) url = ua_string(with_host_of(url.view(), req.endpoint_url.view()));
  }
}

void service_find_servers(const find_servers_request& req, find_servers_response& resp, const server_description& d,
                          date_time now) {
  header(req.request_header, resp.response_header, now);
  resp.servers.clear();
  // Part 4 §5.4.2.2: ServerUris, when given, name the servers to return.
  if (!req.server_uris.empty() && !contains(req.server_uris, d.application_uri)) return;
  application_description& a = resp.servers.emplace_back(make_application_description(d));
  if (req.endpoint_url.is_null() || req.endpoint_url.empty()) return;
  for (ua_string& url : a.discovery_urls) url = ua_string(with_host_of(url.view(), req.endpoint_url.view()));
}

}  // namespace uactor::services
