// Splits one encoded message (encoding NodeId + body, as protocol/message.hpp writes it) into
// OPN/MSG/CLO chunks no larger than the peer's receive buffer (Part 6 §6.7.2, §7.1.2.3-4). Writes
// complete chunks back to back into the caller's buffer; the caller owns buffer and sequence counter.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "protocol/byte_buffer.hpp"
#include "uactor/ua/expected.hpp"
#include "protocol/secure_chunk.hpp"
#include "protocol/uatcp.hpp"

namespace uactor::ua {

// The chunk headers of one message.
struct chunk_target {
  message_type type = message_type::message;
  std::uint32_t secure_channel_id = 0;
  std::uint32_t token_id = 0;                              // MSG, CLO
  const asymmetric_security_header* asymmetric = nullptr;  // OPN (null: an empty header)
  std::uint32_t request_id = 0;
};

class message_chunker {
public:
  // `limits.send_*` are the peer's: chunk size (its ReceiveBufferSize as negotiated),
  // MaxMessageSize and MaxChunkCount (0: no limit). `too_large` is what a refusal says:
  // Bad_RequestTooLarge on the client side (§7.1.2.4), Bad_ResponseTooLarge on the server side
  // (§7.1.2.3). `security` reserves padding and signature in each chunk (policy None: nothing).
  message_chunker(const connection_limits& limits, status_code too_large,
                  chunk_security security = chunk_security::none()) noexcept
      : chunk_size_(limits.send_buffer_size),
        max_message_size_(limits.send_max_message_size),
        max_chunk_count_(limits.send_max_chunk_count),
        too_large_(too_large),
        security_(security) {}

  // Appends every chunk of `body` to `out`, taking one sequence number per chunk, and returns
  // how many chunks were written. Refuses, with `too_large` and nothing written and no number
  // taken, a body over the peer's MaxMessageSize (the unencrypted body, §7.1.2.3), one needing
  // more than its MaxChunkCount chunks, and an OPN or CLO needing more than one chunk (§6.7.2.2).
  // Allocates nothing when `out` has the capacity. With a policy other than None the padding is
  // written and the signature left zero, MessageSize already the size after encryption, for the
  // policy to sign and encrypt each chunk in place.
  expected<std::size_t> write(std::span<const std::uint8_t> body, const chunk_target& target,
                              sequence_counter& sequence, byte_buffer& out) const;

  // The abort chunk of §6.7.3 (MSG, 'A'): Error and Reason (cut to what fits, at most 4096 bytes),
  // for a message of which chunks were already sent.
  void write_abort(status_code error, std::string_view reason, const chunk_target& target,
                   sequence_counter& sequence, byte_buffer& out) const;

  // The body bytes one chunk of `target` carries.
  std::size_t max_body_per_chunk(const chunk_target& target) const noexcept;

private:
  std::size_t header_size(const chunk_target& target) const noexcept;
  void write_chunk(std::span<const std::uint8_t> part, chunk_type chunk, const chunk_target& target,
                   std::uint32_t sequence_number, byte_buffer& out) const;

  std::uint32_t chunk_size_;
  std::uint32_t max_message_size_;
  std::uint32_t max_chunk_count_;
  status_code too_large_;
  chunk_security security_;
};

}  // namespace uactor::ua
