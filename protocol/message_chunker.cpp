#include "protocol/message_chunker.hpp"

#include <algorithm>
#include <cstring>

namespace uactor::ua {

std::size_t message_chunker::header_size(const chunk_target& target) const noexcept {
  if (target.type == message_type::open)
    return secure_message_header_size + (target.asymmetric ? encoded_size(*target.asymmetric) : 12);
  return secure_message_header_size + symmetric_security_header_size;
}

std::size_t message_chunker::max_body_per_chunk(const chunk_target& target) const noexcept {
  return max_body_size(chunk_size_, header_size(target), security_);
}

void message_chunker::write_chunk(std::span<const std::uint8_t> part, chunk_type chunk, const chunk_target& target,
                                  std::uint32_t sequence_number, byte_buffer& out) const {
  const std::size_t start = out.size();
  const std::size_t wire = wire_chunk_size(part.size(), header_size(target), security_);
  encoder e(out);
  e.write(std::uint64_t{0});  // message header, patched below
  e.write(target.secure_channel_id);
  if (target.type == message_type::open) {
    if (target.asymmetric) encode(e, *target.asymmetric);
    else for (int i = 0; i < 3; ++i) e.write(std::int32_t{-1});  // null policy URI, certificate, thumbprint
  } else {
    e.write(target.token_id);
  }
  e.write(sequence_number);
  e.write(target.request_id);
  e.write(part.data(), part.size());
  if (security_.encrypted) {
    // §6.7.2.5: PaddingSize, Padding (each byte = PaddingSize), ExtraPaddingSize (high byte).
    const std::size_t pad = padding_size(part.size(), security_);
    std::memset(out.extend(pad + 1), static_cast<int>(pad & 0xFF), pad + 1);
    if (security_.extra_padding_size) e.write(static_cast<std::uint8_t>(pad >> 8));
  }
  // The signature, and the room encryption needs when cipher blocks are larger than plain
  // blocks: for the policy to fill.
  const std::size_t rest = wire - (out.size() - start);
  if (rest) std::memset(out.extend(rest), 0, rest);
  write_message_header(out.data() + start, {target.type, chunk, static_cast<std::uint32_t>(wire)});
}

expected<std::size_t> message_chunker::write(std::span<const std::uint8_t> body, const chunk_target& target,
                                             sequence_counter& sequence, byte_buffer& out) const {
  const std::size_t per_chunk = max_body_per_chunk(target);
  if (per_chunk == 0) return too_large_;
  if (max_message_size_ != 0 && body.size() > max_message_size_) return too_large_;
  const std::size_t chunks = body.empty() ? 1 : (body.size() + per_chunk - 1) / per_chunk;
  if (max_chunk_count_ != 0 && chunks > max_chunk_count_) return too_large_;
  if (target.type != message_type::message && chunks > 1) return too_large_;

  const std::size_t h = header_size(target);
  const std::size_t last = body.size() - (chunks - 1) * per_chunk;
  out.reserve(out.size() + (chunks - 1) * wire_chunk_size(per_chunk, h, security_) + wire_chunk_size(last, h, security_));
  for (std::size_t i = 0; i < chunks; ++i) {
    const std::size_t at = i * per_chunk;
    const auto part = body.subspan(at, std::min(per_chunk, body.size() - at));
    write_chunk(part, i + 1 == chunks ? chunk_type::final_chunk : chunk_type::intermediate, target,
                sequence.next(), out);
  }
  return chunks;
}

void message_chunker::write_abort(status_code error, std::string_view reason, const chunk_target& target,
                                  sequence_counter& sequence, byte_buffer& out) const {
  chunk_target t = target;
  t.type = message_type::message;
  const std::size_t room = max_body_per_chunk(t);
  const std::size_t fixed = 8;  // Error, Reason length
  std::size_t n = std::min(reason.size(), max_reason_length);
  n = room > fixed ? std::min(n, room - fixed) : 0;
  std::uint8_t body[8];
  const std::uint32_t code = error.value();
  const auto len = static_cast<std::int32_t>(n);
  std::memcpy(body, &code, 4);
  std::memcpy(body + 4, &len, 4);
  // Error and Reason are written as one body: a small scratch area keeps the chunk one write.
  byte_buffer scratch;
  if (n == 0) {
    write_chunk(std::span<const std::uint8_t>(body, 8), chunk_type::abort, t, sequence.next(), out);
    return;
  }
  scratch.reserve(8 + n);
  scratch.append(body, 8);
  scratch.append(reason.data(), n);
  write_chunk(scratch.bytes(), chunk_type::abort, t, sequence.next(), out);
}

}  // namespace uactor::ua
