// Collects the chunks of one secure channel into whole messages (Part 6 §6.7.2, §6.7.3): C chunks
// then the final F of the same request, or an abort A. Checks sequence numbers and our
// MaxChunkCount / MaxMessageSize. The body it returns is a view: into the last chunk when the
// message came in one chunk (no copy), else into the assembler's reused buffer; valid until the
// next add().
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "protocol/byte_buffer.hpp"
#include "uactor/ua/expected.hpp"
#include "protocol/secure_chunk.hpp"
#include "protocol/uatcp.hpp"

namespace uactor::ua {

class message_assembler {
public:
  // Our limits (0: no limit): connection_limits::receive_max_message_size and receive_max_chunk_count.
  message_assembler(std::uint32_t max_message_size, std::uint32_t max_chunk_count,
                    bool legacy_sequence_numbers = true) noexcept
      : max_message_size_(max_message_size), max_chunk_count_(max_chunk_count), sequence_(legacy_sequence_numbers) {}
  explicit message_assembler(const connection_limits& l, bool legacy_sequence_numbers = true) noexcept
      : message_assembler(l.receive_max_message_size, l.receive_max_chunk_count, legacy_sequence_numbers) {}

  enum class outcome : std::uint8_t {
    incomplete,  // a C chunk was kept; more to come
    complete,    // `body` is a whole message, ready for decode_message
    aborted,     // the sender aborted the message (§6.7.3): what was collected is dropped
  };

  struct result {
    outcome what = outcome::incomplete;
    message_type type = message_type::message;
    std::uint32_t request_id = 0;
    std::span<const std::uint8_t> body;  // complete: the message body
    status_code abort_error;             // aborted: the Error the sender gave
    std::string_view abort_reason;       // aborted: its Reason (empty when null or over 4096 bytes)
  };

  // Takes one parsed chunk (secure_chunk, after the security checks). Errors end the channel:
  // Bad_SequenceNumberInvalid when the number is not the previous plus one (§6.7.2.4);
  // Bad_TcpMessageTooLarge when the message needs more than MaxChunkCount chunks or more than
  // MaxMessageSize body bytes (§7.1.5, see docs/decisions/0003); Bad_DecodingError for a chunk
  // of another request while one is collected (chunks of a message are sent in sequence, §6.7.3)
  // or a malformed abort body.
  expected<result> add(const secure_chunk& c);

  bool collecting() const noexcept { return chunks_ != 0; }
  const sequence_checker& sequence() const noexcept { return sequence_; }

private:
  void drop() noexcept {
    body_.clear();
    chunks_ = 0;
  }

  std::uint32_t max_message_size_;
  std::uint32_t max_chunk_count_;
  sequence_checker sequence_;
  byte_buffer body_;            // bodies of the chunks collected so far (capacity kept)
  std::size_t chunks_ = 0;      // chunks collected so far
  std::uint32_t request_id_ = 0;
  message_type type_ = message_type::message;
};

}  // namespace uactor::ua
