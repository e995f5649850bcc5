#include "actors/server/server_actors.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <unordered_map>
#include <utility>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/io/network/default_multiplexer.hpp>
#include <spdlog/spdlog.h>

#include "actors/client/tcp_connector.hpp"
#include "actors/common/exit_a_turn_later.hpp"
#include "actors/common/native_socket.hpp"
#include "actors/common/self_send.hpp"
#include "actors/server/connection_actor.hpp"
#include "actors/server/exchange.hpp"
#include "actors/server/session_host_actor.hpp"
#include "actors/wss/wss_native.hpp"
#include "protocol/uatcp.hpp"

namespace uactor::actors {
namespace {

// Past the maximum number of connections: an ERR, then the close (Part 6 §7.1.2.5).
caf::behavior refused_connection(caf::io::broker* self, caf::io::connection_handle hdl) {
  ua::byte_buffer err;
  ua::write_message(err, ua::error_message{ua::status::bad_tcp_not_enough_resources, ua::ua_string("too many connections")});
  auto& wr = self->wr_buf(hdl);
  const auto* p = reinterpret_cast<const char*>(err.data());
  wr.insert(wr.end(), p, p + err.size());
  self->flush(hdl);
  self->close(hdl);
  self->quit();
  return {[](const caf::io::new_data_msg&) {}};
}

// A native opc.wss connection refused before TLS (handshakes at their maximum): closed at once,
// as the door closes it.
caf::behavior closed_at_once(caf::io::broker* self, caf::io::connection_handle hdl) {
  self->close(hdl);
  self->quit();
  return {[](const caf::io::new_data_msg&) {}};
}

// ---------------------------------------------------------------------------------------------
// The listeners, one per endpoint: each accepts on its own socket (spawn_server would bind every
// interface); together they admit up to max_connections and assign channel ids unique in the
// server (the session host tells channels apart by them, whichever endpoint they came through).

// What the listeners of one server share. The brokers run on the multiplexer thread, but
// open_server may wake them from elsewhere: atomics, relaxed (nothing else is ordered by them).
struct listeners_shared {
  std::atomic<std::uint32_t> next_channel_id{1};
  std::atomic<std::uint32_t> connections{0};
};

struct listener_state {
  std::unordered_map<caf::actor_addr, caf::actor> connections;
  std::shared_ptr<listeners_shared> shared;
};


using open_listener_atom = caf::atom_constant<caf::atom("lsnopen")>;
// An opc.wss connection from its door (actors/wss/): the socket pair's end, served as accepted.
using wss_socket_atom = caf::atom_constant<caf::atom("wsssock")>;

std::uint32_t next_channel_id(listeners_shared& shared) {
  std::uint32_t id = shared.next_channel_id.fetch_add(1, std::memory_order_relaxed);
  if (id == 0) id = shared.next_channel_id.fetch_add(1, std::memory_order_relaxed);  // 0 is not a channel id
  return id;
}

// Admits a connection (accepted, or handed over by an opc.wss door) or refuses it past the maximum.
void admit_connection(caf::io::broker* self, const std::shared_ptr<listener_state>& st, const server_options& options,
                      const session_host_ref& host, caf::io::connection_handle hdl, std::string peer_address) {
  if (options.connection.wss && options.connection.wss->too_busy()) {
    spdlog::debug("opc.wss: {} handshakes under way, the maximum: closing a new connection",
                  options.connection.wss->pending().load(std::memory_order_relaxed));
    self->fork(closed_at_once, hdl);
    return;
  }
  if (const auto open = st->shared->connections.load(std::memory_order_relaxed); open >= options.max_connections) {
    spdlog::warn("refusing a connection: {} open, the maximum", open);
    if (!options.connection.wss) {
      self->fork(refused_connection, hdl);
      return;
    }
    // opc.wss natively: the ERR goes inside TLS and a WebSocket frame, once the upgrade is done
    // (Part 6 §7.1.2.5, as the door answers); the pending-handshake bound holds these too.
    // Its channel state still needs an id (0 is reserved), though it never opens a channel.
    connection_links links{host, native_socket_of(self, hdl), false, std::move(peer_address)};
    links.refuse = true;
    self->fork(serving_connection_broker, hdl, options.connection, next_channel_id(*st->shared), std::move(links));
    return;
  }
  const std::uint32_t id = next_channel_id(*st->shared);
  connection_links links{host, native_socket_of(self, hdl), true, {}};
  links.peer_address = std::move(peer_address);
  auto conn = self->fork(serving_connection_broker, hdl, options.connection, id, std::move(links));
  self->monitor(conn);
  st->connections.emplace(conn.address(), conn);
  st->shared->connections.fetch_add(1, std::memory_order_relaxed);
}

// Accepting on the doorman just added.
caf::behavior accepting(caf::io::broker* self, const std::shared_ptr<listener_state>& st, const server_options& options,
                        const session_host_ref& host) {
  delayed_send_to_self(self, options.connection.housekeeping_interval, housekeeping_atom::value);
  return {
    [self, st, options, host](const caf::io::new_connection_msg& msg) { admit_connection(self, st, options, host, msg.handle, {}); },
    [self, st, options, host](wss_socket_atom, const std::shared_ptr<socket_handoff>& h) {
      std::string peer = h->peer_address;
      admit_connection(self, st, options, host, self->add_scribe(h->release()), std::move(peer));
    },
    // One timer for every connection's Hello timeout and token expiry (connection_links::
    // ticked_by_listener): the ticks go out from this thread, where CAF queues them without
    // waking the multiplexer through its pipe. Without a sender: a tick still queued at a
    // connection that ends would hold the listener (CAF 0.17's brokers keep their mailbox), and
    // the listener its connections (docs/decisions/0009).
    [self, st, options](housekeeping_atom) {
      for (const auto& [addr, conn] : st->connections) caf::anon_send(conn, housekeeping_atom::value);
      delayed_send_to_self(self, options.connection.housekeeping_interval, housekeeping_atom::value);
    },
    [self](const caf::io::acceptor_closed_msg&) { self->quit(); },
    [](open_listener_atom) { return ua::status::good.value(); },  // opened already
  };
}

// `fd` is bound; listening already when options.open_at_start, else from open_server on.
caf::behavior listener(caf::io::broker* self, int fd, server_options options, session_host_ref host,
                       std::shared_ptr<listeners_shared> shared) {
  auto st = std::make_shared<listener_state>();
  st->shared = std::move(shared);
  exit_a_turn_later(self);  // stop_server may come in the turn that added the doorman
  self->set_down_handler([st](const caf::down_msg& d) {
    if (st->connections.erase(d.source) > 0) st->shared->connections.fetch_sub(1, std::memory_order_relaxed);
  });
  // The connections end with the listener (stop_server, or the listener failing); the socket
  // closes with its doorman, or here when it never got one.
  auto handed_over = std::make_shared<bool>(options.open_at_start);
  // The handles go with the exits: the down handler (and `st` with it) lives as long as the
  // listener object, which outlives its end, and no down_msg is taken after it.
  self->attach_functor([st, fd, handed_over] {
    for (auto& [addr, conn] : st->connections) caf::anon_send_exit(conn, caf::exit_reason::user_shutdown);
    st->connections.clear();
    if (!*handed_over) ::close(fd);
  });
  if (fd < 0) return accepting(self, st, options, host);  // an opc.wss endpoint's: its door hands the sockets over
  if (options.open_at_start) {
    self->add_doorman(fd);
    return accepting(self, st, options, host);
  }
  return {
    [self, st, options, host, fd, handed_over](open_listener_atom) {
      if (::listen(fd, 512) != 0) {
        spdlog::error("cannot listen: {}", std::strerror(errno));
        return ua::status::bad_resource_unavailable.value();
      }
      *handed_over = true;
      self->add_doorman(fd);
      self->become(accepting(self, st, options, host));
      return ua::status::good.value();
    },
  };
}

// A socket bound to the configured address, listening when `listen_now` (TCP_NODELAY is inherited
// by accepted sockets). Not listening yet: a client's connect is refused, not queued in the backlog
// of a server without its nodes.
ua::expected<int> bind_listener(const std::string& address, std::uint16_t port, bool listen_now, std::uint16_t& bound) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (::inet_pton(AF_INET, address.c_str(), &a.sin_addr) != 1) return ua::status::bad_tcp_endpoint_url_invalid;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ua::status::bad_resource_unavailable;
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || (listen_now && ::listen(fd, 512) != 0) ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    spdlog::error("cannot listen on {}:{}: {}", address, port, std::strerror(errno));
    ::close(fd);
    return ua::status::bad_resource_unavailable;
  }
  bound = ntohs(a.sin_port);
  return fd;
}

}  // namespace

struct reverse_context {
  caf::actor_system* system = nullptr;
  session_host_ref host;
  connection_options connection;  // the first endpoint's, with the server's metrics and crypto pool
  std::shared_ptr<listeners_shared> shared;
  std::shared_ptr<metrics_registry> metrics;
};

ua::expected<server_handle> spawn_server(caf::actor_system& sys, const server_options& options,
                                         const core_factory& make_core) {
  return spawn_server(sys, options, endpoints_core_factory([&](const std::vector<std::uint16_t>& ports) {
                        return make_core(ports.front());
                      }));
}

ua::expected<server_handle> spawn_server(caf::actor_system& sys, const server_options& options,
                                         const endpoints_core_factory& make_core) {
  server_handle h;
  std::vector<listen_endpoint> endpoints = options.endpoints;
  if (endpoints.empty()) endpoints.push_back({options.listen_address, options.port, nullptr});
  if (endpoints.size() > std::numeric_limits<std::uint16_t>::max()) return ua::status::bad_configuration_error;
  std::vector<int> fds;
  std::vector<std::shared_ptr<wss_server>> doors(endpoints.size());
  std::vector<std::shared_ptr<wss_native_endpoint>> natives(endpoints.size());
  h.metrics = std::make_shared<metrics_registry>();
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    const auto& e = endpoints[i];
    if (e.wss && e.wss->native) {
      // Served in the connection brokers (docs/decisions/0073): a TCP listener like opc.tcp's.
      wss_server_options wo = *e.wss;
      wo.counters = h.metrics->add_wss_door(static_cast<std::uint16_t>(i));
      auto ep = wss_native_endpoint::make(std::move(wo));
      if (!ep) {
        for (const int f : fds) if (f >= 0) ::close(f);
        return ep.error();
      }
      natives[i] = *ep;
    } else if (e.wss) {
      wss_server_options wo = *e.wss;
      wo.listen_address = e.listen_address;
      wo.port = e.port;
      wo.counters = h.metrics->add_wss_door(static_cast<std::uint16_t>(i));
      auto door = wss_server::bind(std::move(wo));
      if (!door) {
        for (const int f : fds) if (f >= 0) ::close(f);
        return door.error();
      }
      doors[i] = *door;
      fds.push_back(-1);
      h.ports.push_back(doors[i]->port());
      continue;
    }
    std::uint16_t bound = 0;
    const auto fd = bind_listener(e.listen_address, e.port, options.open_at_start, bound);
    if (!fd) {
      for (const int f : fds) if (f >= 0) ::close(f);
      return fd.error();
    }
    fds.push_back(*fd);
    h.ports.push_back(bound);
  }
  h.port = h.ports.front();
  auto core = make_core(h.ports);
  core.set_metrics(h.metrics);
  if (options.connection.channel.security && options.crypto.workers > 0)
    h.crypto = std::make_shared<crypto_pool>(sys, options.crypto);
  auto host = spawn_session_host_ref(sys, std::move(core), options.connection.housekeeping_interval, options.session_host,
                                     h.crypto);
  h.host = host.actor;
  if (h.crypto) h.crypto->bind_lifetime(h.host);  // the workers end with the host
  server_options counted = options;
  counted.connection.metrics = h.metrics;
  counted.connection.crypto = h.crypto;
  auto shared = std::make_shared<listeners_shared>();
  for (std::size_t i = 0; i < fds.size(); ++i) {
    server_options own = counted;
    own.connection.channel.endpoint = static_cast<std::uint16_t>(i);  // the channels know their endpoint
    own.connection.wss = natives[i];
    h.listeners.push_back(sys.middleman().spawn_broker(listener, fds[i], std::move(own), host, shared));
  }
  h.listener = h.listeners.front();
  for (std::size_t i = 0; i < doors.size(); ++i)
    if (doors[i]) {
      h.wss.push_back(doors[i]);
      h.wss_listeners.push_back(h.listeners[i]);
    }
  if (options.open_at_start)
    if (const auto sc = start_wss_doors(h); sc.is_bad()) {
      stop_server(h);
      return sc;
    }
  h.reverse = std::make_shared<reverse_context>(reverse_context{&sys, host, counted.connection, shared, h.metrics});
  h.reverse->connection.channel.endpoint = 0;
  return h;
}

void start_reverse_connect(server_handle& server, const std::vector<reverse_connect_target>& targets) {
  if (!server.reverse) return;
  const auto& ctx = *server.reverse;
  for (const auto& t : targets) {
    reverse_dialer_links links;
    links.host = ctx.host;
    links.connection = ctx.connection;
    links.next_channel_id = [shared = ctx.shared] { return next_channel_id(*shared); };
    links.counters = ctx.metrics ? ctx.metrics->add_reverse_target(t.client_url) : nullptr;
    server.dialers.push_back(ctx.system->middleman().spawn_broker(reverse_dialer, t, std::move(links)));
  }
}

ua::status_code start_wss_doors(const server_handle& server) {
  for (std::size_t i = 0; i < server.wss.size(); ++i) {
    const auto sc = server.wss[i]->start([listener = server.wss_listeners[i]](int fd, std::string peer) {
      auto h = std::make_shared<socket_handoff>();
      h->fd = fd;
      h->peer_address = std::move(peer);
      caf::anon_send(listener, wss_socket_atom::value, std::move(h));  // dropped (and closed) when the listener is gone
    });
    if (sc.is_bad()) return sc;
  }
  return ua::status::good;
}

ua::status_code open_server(const server_handle& server) {
  caf::scoped_actor self{server.listener->home_system()};
  const auto one = [&](const caf::actor& listener) {
    ua::status_code result = ua::status::bad_server_halted;
    self->request(listener, std::chrono::seconds(30), open_listener_atom::value)
        .receive([&](std::uint32_t sc) { result = ua::status_code(sc); }, [](const caf::error&) {});
    return result;
  };
  for (const auto& l : server.listeners)
    if (const auto sc = one(l); sc.is_bad()) return sc;
  return start_wss_doors(server);
}

void stop_server(const server_handle& server) {
  for (const auto& w : server.wss) w->stop();  // their connections' brokers see the socket pairs close
  for (const auto& d : server.dialers) caf::anon_send_exit(d, caf::exit_reason::user_shutdown);
  for (const auto& l : server.listeners) caf::anon_send_exit(l, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(server.host, caf::exit_reason::user_shutdown);
}

}  // namespace uactor::actors
