#include "protocol/chunk_reader.hpp"

namespace uactor::ua {

// Part 6 §7.1.2.2: "verify the MessageType and make sure the MessageSize is less than the
// negotiated ReceiveBufferSize before passing any Message onto the SecureChannel layer".
expected<message_header> chunk_reader::check_header(const std::uint8_t* p) const noexcept {
  const auto h = parse_message_header(std::span<const std::uint8_t, message_header_size>(p, message_header_size));
  if (!h) return h;
  if (h->message_size < message_header_size) return status::bad_decoding_error;
  if (h->message_size > limit_) return status::bad_tcp_message_too_large;  // §7.1.5
  return h;
}

}  // namespace uactor::ua
