#include "actors/client/tcp_connector.hpp"

#include <caf/io/network/default_multiplexer.hpp>

namespace uactor::actors {

socket_handoff::~socket_handoff() {
  if (fd != caf::io::network::invalid_native_socket) caf::io::network::close_socket(fd);
}

void connect_off_thread(caf::actor_system& system, caf::actor target, std::string host, std::uint16_t port,
                        std::uint32_t generation) {
  system.spawn<caf::detached>(
      [](caf::event_based_actor* me, caf::actor target, std::string host, std::uint16_t port, std::uint32_t gen) -> caf::behavior {
        auto h = std::make_shared<socket_handoff>();
        if (auto fd = caf::io::network::new_tcp_connection(host, port)) h->fd = *fd;
        me->send(target, client_socket_atom::value, gen, std::move(h));
        me->quit();
        return {};
      },
      std::move(target), std::move(host), port, generation);
}

}  // namespace uactor::actors
