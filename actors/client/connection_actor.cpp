#include "actors/client/connection_actor.hpp"

#include <spdlog/spdlog.h>

#include "actors/client/client_session.hpp"

namespace uactor::actors {

namespace {

caf::behavior client_broker_fun(client_broker* self, caf::io::connection_handle hdl, client_actor_config config,
                                connected_handler connected) {
  self->state.config = std::move(config);
  self->state.connected = std::move(connected);
  self->state.inbox = self->state.config.inbox;
  self->set_exception_handler([self](std::exception_ptr& e) -> caf::error {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      spdlog::error("uactor client: exception in a handler: {}", x.what());
    } catch (...) {
      spdlog::error("uactor client: unknown exception in a handler");
    }
    client_session(self).shutdown(ua::status::bad_internal_error, "exception");
    return caf::exit_reason::unhandled_exception;
  });
  client_session(self).start(hdl);
  return {
      [self](const caf::io::new_data_msg& msg) { client_session(self).handle([&](client_session& cs) { cs.on_data(msg); }); },
      [self](const caf::io::connection_closed_msg& msg) {
        client_session cs(self);
        auto& s = cs.st();
        if (!s.link.carries(msg.handle)) return;  // a link given up already
        s.link.closed_by_peer();
        const auto& ch = s.link.channel();
        cs.lose(ch.closed() && ch.close_status().is_bad() ? ch.close_status() : ua::status::bad_connection_closed,
                "connection lost");
      },
      [self](client_inbox_wake_atom) { client_session(self).handle([](client_session&) {}); },
      [self](client_close_atom, const std::shared_ptr<client_close>& c) { client_session(self).on_close(c); },
      [self](client_open_session_atom, const std::shared_ptr<client_open_session>& o) {
        client_session(self).on_open_session(o);
      },
      [self](client_timeout_atom, std::int64_t at) {
        client_session(self).handle([&](client_session& cs) { cs.on_sweep_timer(at); });
      },
      [self](client_renew_atom, std::uint32_t gen) { client_session(self).on_renew(gen); },
      [self](client_deadline_atom, std::uint32_t gen) { client_session(self).on_deadline(gen); },
      [self](client_reconnect_atom, std::uint32_t gen) { client_session(self).on_reconnect_timer(gen); },
      [self](client_socket_atom, std::uint32_t gen, const std::shared_ptr<socket_handoff>& h) {
        client_session(self).on_socket(gen, h);
      },
  };
}

// A broker over a socket made already: it becomes the broker's scribe first.
caf::behavior client_broker_on_socket(client_broker* self, std::shared_ptr<socket_handoff> socket, client_actor_config config,
                                      connected_handler connected) {
  const auto hdl = self->add_scribe(socket->release());
  return client_broker_fun(self, hdl, std::move(config), std::move(connected));
}

}  // namespace

ua::expected<caf::actor> spawn_client_actor_on_socket(caf::actor_system& system, std::shared_ptr<socket_handoff> socket,
                                                      client_actor_config config, connected_handler connected) {
  if (!socket || socket->fd == caf::io::network::invalid_native_socket) return ua::status::bad_connection_rejected;
  if (!config.inbox) config.inbox = std::make_shared<client_inbox>();
  return system.middleman().spawn_broker(client_broker_on_socket, std::move(socket), std::move(config), std::move(connected));
}

ua::expected<caf::actor> spawn_client_actor(caf::actor_system& system, const std::string& host, std::uint16_t port,
                                            client_actor_config config, connected_handler connected) {
  config.host = host;
  config.port = port;
  if (!config.inbox) config.inbox = std::make_shared<client_inbox>();
  if (config.wss) {
    auto socket = std::make_shared<socket_handoff>();
    socket->fd = config.wss->connect(host, port, config.wss_path);
    if (socket->fd == caf::io::network::invalid_native_socket) return ua::status::bad_connection_rejected;
    return system.middleman().spawn_broker(client_broker_on_socket, std::move(socket), std::move(config), std::move(connected));
  }
  auto a = system.middleman().spawn_client(client_broker_fun, host, port, std::move(config), std::move(connected));
  if (!a) {
    spdlog::debug("uactor client: cannot connect to {}:{}: {}", host, port, system.render(a.error()));
    return ua::status::bad_connection_rejected;
  }
  return *a;
}

}  // namespace uactor::actors
