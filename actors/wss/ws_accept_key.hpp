// RFC 6455 §4.2.2 (and §4.1 for the client's check): Sec-WebSocket-Accept is
// base64(SHA-1(Sec-WebSocket-Key + the protocol's GUID)). The native server writes it in its 101,
// the native client checks the server's against it.
#pragma once

#include <string>
#include <string_view>

namespace uactor::actors {

std::string ws_accept_key(std::string_view key);

}  // namespace uactor::actors
