// The client's side of a ReverseHello (Part 6 §7.1.2.6, §7.1.3): what a socket accepted on the
// reverse-connect listener must send first, read from the bytes received so far, and whether the
// server it names is the one the application wants. Apart from the listener because the rules
// (the first message is an RHE, both strings at most 4096 bytes, the expected ServerUri and
// EndpointUrl) are plain and testable, and fuzzed (tests/fuzz/message_fuzz.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "protocol/uatcp.hpp"

namespace uactor::actors {

// The largest RHE: header, and two strings of 4096 bytes with their lengths (Part 6 §7.1.2.6).
inline constexpr std::size_t max_reverse_hello_size = ua::message_header_size + 2 * (4 + 4096);

enum class reverse_hello_progress { need_more, complete, refused };

struct reverse_hello_read {
  reverse_hello_progress progress = reverse_hello_progress::need_more;
  ua::status_code status;     // why it was refused
  std::string why;            // for the log line
  ua::reverse_hello hello;    // when complete
  std::size_t message_size = 0;  // the bytes the RHE took (what follows belongs to the channel)
};

// Reads the RHE at the start of `received`: need_more until its header and whole body are in;
// refused for another message type first (Bad_TcpMessageTypeInvalid), a size past
// max_reverse_hello_size (Bad_TcpMessageTooLarge) or a body that does not decode (strings over
// 4096 bytes: Bad_EncodingLimitsExceeded).
reverse_hello_read read_reverse_hello(std::span<const std::uint8_t> received);

// Whether the RHE names the server the application expects: its ServerUri equal to
// `expected_server_uri` and its EndpointUrl to `expected_endpoint_url`, each when not empty.
// Bad_TcpEndpointUrlInvalid / Bad_ServerUriInvalid otherwise, with `why` saying which.
ua::status_code check_reverse_hello(const ua::reverse_hello& hello, std::string_view expected_server_uri,
                                    std::string_view expected_endpoint_url, std::string& why);

}  // namespace uactor::actors
