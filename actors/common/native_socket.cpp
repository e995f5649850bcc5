#include "actors/common/native_socket.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <caf/io/broker.hpp>
#include <caf/io/network/default_multiplexer.hpp>

namespace uactor::actors {

int native_socket_of(caf::io::broker* self, caf::io::connection_handle hdl) {
  if (dynamic_cast<caf::io::network::default_multiplexer*>(&self->backend()) == nullptr) return -1;
  const auto fd = static_cast<caf::io::network::native_socket>(hdl.id());
  return caf::io::network::conn_hdl_from_socket(fd) == hdl ? fd : -1;
}

std::string peer_address_of(int fd) {
  if (fd < 0) return {};
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return {};
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    if (!::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(a).sin_addr, text, sizeof text)) return {};
  } else if (a.ss_family == AF_INET6) {
    if (!::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(a).sin6_addr, text, sizeof text)) return {};
  } else {
    return {};
  }
  return text;
}

}  // namespace uactor::actors
