// How a client's inbox wakes its connection actor (client_options::inbox_wake_up,
// docs/decisions/0032). Plain: the application's options name it without CAF.
#pragma once

#include <cstdint>

namespace uactor {

enum class inbox_wake_up : std::uint8_t {
  socket_pair,  // one byte on a socket pair: no allocation per wake-up, two file descriptors
  message,      // a CAF message (one allocation per wake-up), no file descriptor
};

}  // namespace uactor
