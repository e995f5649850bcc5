#include "uactor/server_plan.hpp"

#include "engine/server/server_security.hpp"
#include "runtime/advertised_host.hpp"
#include "security/pki_store.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace uactor {

server_plan default_server_plan() {
  server_plan p;
  p.host_name = machine_host_name();
  p.application_uri = "urn:" + p.host_name + ":uactor:server";
  return p;
}

std::string default_pki_dir() { return security::default_pki_dir(); }

std::vector<endpoint_plan> server_plan::resolved_endpoints() const {
  std::vector<endpoint_plan> out = endpoints;
  if (out.empty()) {
    endpoint_plan e;
    e.listen_address = listen_address;
    e.port = port;
    e.security = security;
    if (!anonymous) std::erase(e.user_tokens, "anonymous");
    out.push_back(std::move(e));
  }
  if (wss) {
    // The opc.wss endpoint (docs/wss.md): the first endpoint's security and token types unless it
    // says otherwise, its own address and port.
    endpoint_plan w = out.front();
    w.wss = true;
    w.port = wss->port;
    if (!wss->listen_address.empty()) w.listen_address = wss->listen_address;
    if (!wss->security.empty()) w.security = wss->security;
    out.push_back(std::move(w));
  }
  return out;
}

std::string endpoint_url(const server_plan& server, const endpoint_plan& endpoint) {
  return endpoint_url(advertised_host_of(server, endpoint).host, endpoint.port, endpoint.wss);
}

std::string server_plan::endpoint_url() const { return uactor::endpoint_url(*this, resolved_endpoints().front()); }

namespace {
std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}
}  // namespace

// The user token types an endpoint offers, as GetEndpoints lists them (services/discovery.cpp,
// runtime.cpp's make_security): UserName only when the server has users (or a users file a reload
// may fill), UserName and X509 only with a secured policy (never over None).
std::vector<std::string> offered_user_tokens(const server_plan& p, const endpoint_plan& e) {
  const auto offers = actors::parse_security_offers(e.security);
  const bool secured = offers && std::ranges::any_of(*offers, [](const auto& o) { return !o.policy->is_none(); });
  const bool users = !p.users.empty() || !p.user_hashes.empty() || !p.users_file.empty();
  std::vector<std::string> out;
  for (const auto& t : e.user_tokens)
    if (t == "anonymous" || (secured && (t == "x509" || (t == "username" && users)))) out.push_back(t);
  return out;
}

std::string describe(const server_plan& p) {
  std::ostringstream out;
  const auto endpoints = p.resolved_endpoints();
  const auto hosts = advertised_hosts(p);
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    const auto& e = endpoints[i];
    const auto tokens = offered_user_tokens(p, e);
    out << "endpoint          " << endpoint_url(hosts[i].host, e.port, e.wss) << " (to listen on " << e.listen_address << ":" << e.port
        << "; security " << join(e.security) << "; user tokens " << (tokens.empty() ? "none" : join(tokens)) << ")\n";
  }
  if (p.wss)
    out << "opc.wss           TLS certificate " << (p.wss->certificate.empty() ? "the application's (pki own/)" : p.wss->certificate)
        << "; browser origins " << (p.wss->allowed_origins.empty() ? "none" : join(p.wss->allowed_origins)) << "; handshake within "
        << p.wss->handshake_timeout.count() << " ms, " << p.wss->max_pending_handshakes << " at once\n";
  out << "application uri   " << p.application_uri << "\n";
  for (const auto& r : p.reverse_connect)
    out << "reverse connect   " << r.client_url << " (announcing " << (r.endpoint_url.empty() ? "the first endpoint" : r.endpoint_url)
        << "; " << r.max_connections << " connection(s); backoff " << r.backoff_min.count() << ".." << r.backoff_max.count()
        << " ms)\n";
  if (p.load_variables)
    out << "load variables    " << p.load_variables << " (ns=1;s=Load.V0..V" << p.load_variables - 1
        << "), every one changed each " << p.writer_interval.count() << " ms\n";
  if (p.redundancy.support != redundancy_support::none) {
    out << "redundancy        " << to_string(p.redundancy.support) << " (ServerUriArray " << join(p.redundancy.server_uris)
        << "); ServiceLevel " << unsigned{p.redundancy.service_level} << ", 0 for " << p.redundancy.shutdown_delay.count()
        << " ms before a stop\n";
  }
  out << "pki               " << (p.pki_dir.empty() ? default_pki_dir() : p.pki_dir) << "\n"
      << "limits            " << p.max_connections << " connections, " << p.max_sessions << " sessions, buffers "
      << p.receive_buffer_size << "/" << p.send_buffer_size << " B, message " << p.max_message_size << " B in at most "
      << p.max_chunk_count << " chunks, " << p.max_nodes_per_operation << " nodes per operation\n"
      << "                  Hello within " << p.hello_timeout.count() << " ms, tokens and sessions at most "
      << p.max_token_lifetime.count() << "/" << p.max_session_timeout.count() << " ms, "
      << p.max_browse_continuation_points << " continuation points per session; strings " << p.max_string_length
      << " B, arrays " << p.max_array_length << " elements, nesting " << p.max_nesting_depth << " deep\n";
  return out.str();
}

std::string describe_namespaces(const std::vector<std::string>& namespace_array) {
  std::string line = "namespaces       ";
  for (std::size_t i = 0; i < namespace_array.size(); ++i)
    line += (i ? ", " : " ") + std::to_string(i) + " " + namespace_array[i];
  return line + "\n";
}

}  // namespace uactor
