#include "actors/common/native_socket.hpp"

#include <caf/io/broker.hpp>
#include <caf/io/network/default_multiplexer.hpp>

namespace uactor::actors {

int native_socket_of(caf::io::broker* self, caf::io::connection_handle hdl) {
  if (dynamic_cast<caf::io::network::default_multiplexer*>(&self->backend()) == nullptr) return -1;
  const auto fd = static_cast<caf::io::network::native_socket>(hdl.id());
  return caf::io::network::conn_hdl_from_socket(fd) == hdl ? fd : -1;
}

}  // namespace uactor::actors
