// The socket under a connection handle, for a connection's own sends (connection_links::
// native_socket, docs/decisions/0013): CAF's default multiplexer uses the socket as the handle's
// id (conn_hdl_from_socket); with any other backend (the test multiplexer) there is none.
#pragma once

#include <string>

#include <caf/io/fwd.hpp>

namespace uactor::actors {

// The socket of `hdl`, a scribe of `self`'s backend; -1 when the backend is not CAF's default
// multiplexer.
int native_socket_of(caf::io::broker* self, caf::io::connection_handle hdl);

// The IP address of the peer of socket `fd` ("127.0.0.1", "::1"), without the port; empty for
// -1 or when the socket has none (the login guard's source address).
std::string peer_address_of(int fd);

}  // namespace uactor::actors
