// The host an endpoint names in its URL (GetEndpoints, FindServers' DiscoveryUrls, /metrics,
// "listening on"): one a client following that URL reaches. Part 4 §7.14: the
// EndpointUrl is where a client connects, so a name that resolves elsewhere is a broken endpoint.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace uactor {

struct server_plan;
struct endpoint_plan;

enum class advertised_because {
  set_by_plant,        // host_name given (server or endpoint): the plant knows its network
  any_address,         // 0.0.0.0 / ::: every address of the machine listens, its name reaches one
  loopback,            // 127.0.0.0/8, ::1: only this machine reaches it, by that address
  host_name_resolves,  // a specific address the machine's host name resolves to
  host_name_elsewhere, // a specific address the host name does not resolve to (or not at all)
};

struct advertised_host {
  std::string host;  // a name or an address (IPv6 without brackets)
  advertised_because why = advertised_because::set_by_plant;
};

// The decision, pure (no resolver, no clock). `listen_address`: where the endpoint is bound;
// `host_name`: the name the plant set for it, empty when it set none; `machine_host_name`: this
// machine's host name; `resolved`: the addresses machine_host_name resolves to here (only read for
// a specific, non-loopback address).
advertised_host choose_advertised_host(std::string_view listen_address, std::string_view host_name,
                                       std::string_view machine_host_name, std::span<const std::string> resolved);

// One line for the start log: what the endpoint bound to `listen_address` advertises and why.
std::string explain(const advertised_host& a, std::string_view listen_address, std::string_view machine_host_name,
                    std::span<const std::string> resolved);

// gethostname(), or "localhost" when it has none.
std::string machine_host_name();

// The numeric addresses `name` resolves to (getaddrinfo: /etc/hosts, then DNS). Blocking: start-up
// work, never on an actor's request path.
std::vector<std::string> resolve_host(const std::string& name);

// What each of the plan's endpoints (server_plan::resolved_endpoints() order) advertises. The
// plant set a host name when the endpoint has its own, or when the server's differs from the
// machine's (default_server_plan() puts the machine's there). Resolves the machine's host name
// when an endpoint is bound to a specific non-loopback address (start-up work). `log`: one info
// line per endpoint whose listen address decided.
std::vector<advertised_host> advertised_hosts(const server_plan& plan, bool log = false);

// The same for one endpoint of the plan.
advertised_host advertised_host_of(const server_plan& plan, const endpoint_plan& endpoint);

// opc.tcp://<host>:<port>, the host bracketed when it is an IPv6 address; with `wss`
// opc.wss://<host>:<port>/ (Part 6 §7.5: an HTTP request target, "/").
std::string endpoint_url(const std::string& host, std::uint16_t port, bool wss = false);

// "host" or "[host]" for an IPv6 address, as a URL's authority needs it (RFC 3986 §3.2.2).
std::string url_host(std::string_view host);

}  // namespace uactor
