// Part 4 §5.4 Discovery: GetEndpoints and FindServers.
#include "engine/server/services/discovery.hpp"

#include "protocol/ws_uacp.hpp"

#include <algorithm>
#include <cctype>

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
      // The certificate of the offer's policy: the RSA one, or the ECC one of its curve.
      if (!offer.policy->is_none())
        if (const auto own = security.identity_for(*offer.policy)) e.server_certificate = actors::to_byte_string(own->chain());
      if (tokens.anonymous) e.user_identity_tokens.push_back(token(anonymous_policy_id, user_token_type::anonymous));
      // UserName and X509 identities need a policy that encrypts the password and signs the token:
      // not offered over None.
      if (!offer.policy->is_none()) {
        // Over an ECC policy the password travels as an EccEncryptedSecret (Part 4 §7.41.2.5) for
        // the EphemeralKey the server gives in CreateSession's response (Part 6 §6.8.2): the token
        // policy names no other policy, so in Sign mode too.
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
                          date_time now, const server_registry* registry) {
  header(req.request_header, resp.response_header, now);
  resp.servers.clear();
  // Part 4 §5.4.2.2: ServerUris, when given, name the servers to return.
  if (req.server_uris.empty() || contains(req.server_uris, d.application_uri)) {
    application_description& a = resp.servers.emplace_back(make_application_description(d));
    if (!req.endpoint_url.is_null() && !req.endpoint_url.empty())
      for (ua_string& url : a.discovery_urls) url = ua_string(with_host_of(url.view(), req.endpoint_url.view()));
  }
  if (!registry) return;
  for (const registration& r : registry->servers()) {
    const registered_server& s = r.server;
    if (s.server_uri.view() == d.application_uri) continue;  // ourselves, registered with ourselves
    if (!req.server_uris.empty() && !contains(req.server_uris, s.server_uri.view())) continue;
    application_description& a = resp.servers.emplace_back();
    a.application_uri = s.server_uri;
    a.product_uri = s.product_uri;
    a.application_type = s.server_type;
    a.gateway_server_uri = s.gateway_server_uri;
    a.discovery_urls = s.discovery_urls;
    // Part 4 §5.4.2.2 LocaleIds: the name in the first requested locale the server has.
    const localized_text* name = nullptr;
    for (const ua_string& locale : req.locale_ids) {
      for (const localized_text& t : s.server_names)
        if (t.locale.view() == locale.view()) { name = &t; break; }
      if (name) break;
    }
    if (!name && !s.server_names.empty()) name = &s.server_names.front();
    if (name) a.application_name = *name;
  }
}

namespace {

bool equal_without_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool has_every_capability(const ua_array<ua_string>& filter, const std::vector<std::string>& capabilities) {
  return std::all_of(filter.begin(), filter.end(), [&](const ua_string& f) {
    return std::any_of(capabilities.begin(), capabilities.end(),
                       [&](const std::string& c) { return equal_without_case(c, f.view()); });
  });
}

}  // namespace

void service_find_servers_on_network(const find_servers_on_network_request& req, find_servers_on_network_response& resp,
                                     const server_description& d, const own_network_record& own,
                                     const server_registry& registry, date_time now) {
  header(req.request_header, resp.response_header, now);
  resp.last_counter_reset_time = registry.counter_reset_time();
  resp.servers.clear();
  const auto add = [&](std::uint32_t id, std::string_view name, std::string_view url, const std::vector<std::string>& caps) {
    if (id <= req.starting_record_id || !has_every_capability(req.server_capability_filter, caps)) return;
    server_on_network& r = resp.servers.emplace_back();
    r.record_id = id;
    r.server_name = ua_string(name);
    r.discovery_url = ua_string(url);
    for (const auto& c : caps) r.server_capabilities.push_back(ua_string(c));
  };
  const auto own_urls = d.discovery_urls();
  for (std::size_t i = 0; i < own_urls.size(); ++i)
    add(own.first_record_id + static_cast<std::uint32_t>(i), d.application_name, own_urls[i], own.capabilities);
  for (const registration& r : registry.servers()) {
    // Part 12 §4.3.4: the record's name is the mDNS server name it registered, else its own name.
    std::string_view name = r.mdns_server_name;
    if (name.empty() && !r.server.server_names.empty()) name = r.server.server_names.front().text.view();
    for (std::size_t i = 0; i < r.server.discovery_urls.size(); ++i)
      add(r.first_record_id + static_cast<std::uint32_t>(i), name, r.server.discovery_urls[i].view(), r.capabilities);
  }
  std::sort(resp.servers.begin(), resp.servers.end(),
            [](const server_on_network& a, const server_on_network& b) { return a.record_id < b.record_id; });
  if (req.max_records_to_return != 0 && resp.servers.size() > req.max_records_to_return)
    resp.servers.resize(req.max_records_to_return);
}

}  // namespace uactor::services
