#include "protocol/message_assembler.hpp"

#include <cstring>

namespace uactor::ua {

expected<message_assembler::result> message_assembler::add(const secure_chunk& c) {
  if (const auto sc = sequence_.check(c.sequence.sequence_number); sc.is_bad()) {
    drop();
    return sc;
  }
  const std::uint32_t id = c.sequence.request_id;
  if (collecting() && (id != request_id_ || c.type != type_)) {
    drop();
    return status::bad_decoding_error;
  }

  result r;
  r.type = c.type;
  r.request_id = id;

  if (c.chunk == chunk_type::abort) {
    // §6.7.3, abort body: Error (UInt32), Reason (String, at most 4096 bytes, else ignored).
    drop();
    const auto b = c.body;
    if (b.size() < 8) return status::bad_decoding_error;
    std::uint32_t code;
    std::int32_t len;
    std::memcpy(&code, b.data(), 4);
    std::memcpy(&len, b.data() + 4, 4);
    if (len < -1 || (len > 0 && static_cast<std::size_t>(len) > b.size() - 8)) return status::bad_decoding_error;
    r.what = outcome::aborted;
    r.abort_error = status_code{code};
    if (len > 0 && static_cast<std::size_t>(len) <= max_reason_length)
      r.abort_reason = std::string_view(reinterpret_cast<const char*>(b.data() + 8), static_cast<std::size_t>(len));
    return r;
  }

  // Limits first, before a byte is copied. MaxChunkCount counts the final chunk too, so an
  // intermediate chunk that is already the last allowed one is refused at once.
  const std::size_t count = chunks_ + 1;
  if (max_chunk_count_ != 0 &&
      (count > max_chunk_count_ || (c.chunk == chunk_type::intermediate && count >= max_chunk_count_))) {
    drop();
    return status::bad_tcp_message_too_large;
  }
  if (max_message_size_ != 0 && body_.size() + c.body.size() > max_message_size_) {
    drop();
    return status::bad_tcp_message_too_large;
  }

  if (c.chunk == chunk_type::final_chunk) {
    r.what = outcome::complete;
    if (!collecting()) {
      r.body = c.body;  // one chunk: no copy
    } else {
      body_.append(c.body.data(), c.body.size());
      r.body = body_.bytes();
      chunks_ = 0;  // the next add() starts a new message; body_ stays valid until then
    }
    return r;
  }

  // Intermediate.
  if (!collecting()) {
    body_.clear();
    request_id_ = id;
    type_ = c.type;
  }
  body_.append(c.body.data(), c.body.size());
  chunks_ = count;
  return r;
}

}  // namespace uactor::ua
