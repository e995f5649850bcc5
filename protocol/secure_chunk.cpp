#include "protocol/secure_chunk.hpp"

#include <algorithm>
#include <cstring>

namespace uactor::ua {

void encode(encoder& e, const asymmetric_security_header& h) {
  encode(e, h.security_policy_uri);
  encode(e, h.sender_certificate);
  encode(e, h.receiver_certificate_thumbprint);
}

std::size_t encoded_size(const asymmetric_security_header& h) noexcept {
  return 12 + h.security_policy_uri.size() + h.sender_certificate.size() + h.receiver_certificate_thumbprint.size();
}

// ---------------------------------------------------------------------------------------
// Sizes, Part 6 §6.7.2.5.

std::size_t plaintext_size(std::size_t body_size, const chunk_security& s) noexcept {
  return sequence_header_size + body_size + s.padding_size_bytes() + padding_size(body_size, s) + s.signature_size;
}

std::size_t padding_size(std::size_t body_size, const chunk_security& s) noexcept {
  if (!s.encrypted) return 0;
  const std::size_t used = sequence_header_size + body_size + s.padding_size_bytes() + s.signature_size;
  const std::size_t r = used % s.plain_block_size;
  return r == 0 ? 0 : s.plain_block_size - r;
}

std::size_t wire_chunk_size(std::size_t body_size, std::size_t header_size, const chunk_security& s) noexcept {
  const std::size_t plain = plaintext_size(body_size, s);
  if (!s.encrypted) return header_size + plain;
  return header_size + plain / s.plain_block_size * s.cipher_block_size;
}

std::size_t max_body_size(std::size_t chunk_size, std::size_t header_size, const chunk_security& s) noexcept {
  if (chunk_size <= header_size) return 0;
  const std::size_t room = chunk_size - header_size;
  // Encrypted: as many whole cipher blocks as fit, each carrying a plain block.
  const std::size_t plain = s.encrypted ? room / s.cipher_block_size * s.plain_block_size : room;
  const std::size_t overhead = sequence_header_size + s.padding_size_bytes() + s.signature_size;
  return plain > overhead ? plain - overhead : 0;
}

std::size_t spec_max_body_size(std::size_t chunk_size, std::size_t header_size, const chunk_security& s) noexcept {
  // MaxBodySize = PlainTextBlockSize * Floor((MessageChunkSize - MessageHeaderSize - SecurityHeaderSize
  //               - SignatureSize - 1) / CipherTextBlockSize) - SequenceHeaderSize
  const std::size_t minus = header_size + s.signature_size + 1;
  if (chunk_size <= minus) return 0;
  const std::size_t v = s.plain_block_size * ((chunk_size - minus) / s.cipher_block_size);
  return v > sequence_header_size ? v - sequence_header_size : 0;
}

// ---------------------------------------------------------------------------------------
// Parsing.

namespace {

std::uint32_t load_u32(const std::uint8_t* p) noexcept {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace

expected<std::size_t> parse_security_part(std::span<const std::uint8_t> chunk, secure_chunk& out,
                                          asymmetric_security_header* asym, const security_header_limits& limits) {
  if (chunk.size() < message_header_size) return status::bad_decoding_error;
  const auto h = parse_message_header(chunk.first<message_header_size>());
  if (!h) return h.error();
  if (!is_secure_conversation(h->type)) return status::bad_tcp_message_type_invalid;
  if (h->message_size != chunk.size()) return status::bad_decoding_error;
  if (chunk.size() < secure_message_header_size) return status::bad_decoding_error;
  out.type = h->type;
  out.chunk = h->chunk;
  out.secure_channel_id = load_u32(chunk.data() + 8);
  out.token_id = 0;
  out.body = {};

  if (h->type != message_type::open) {
    if (chunk.size() < secure_message_header_size + symmetric_security_header_size) return status::bad_decoding_error;
    out.token_id = load_u32(chunk.data() + secure_message_header_size);
    return secure_message_header_size + symmetric_security_header_size;
  }

  decode_limits dl;
  dl.max_string_length = limits.max_policy_uri_length;
  dl.max_byte_string_length = std::max(limits.max_sender_certificate_length, limits.max_thumbprint_length);
  dl.max_array_length = 0;
  decoder d(chunk.subspan(secure_message_header_size), dl);
  asymmetric_security_header scratch;
  auto& a = asym ? *asym : scratch;
  decode(d, a.security_policy_uri);
  decode(d, a.sender_certificate);
  decode(d, a.receiver_certificate_thumbprint);
  if (!d.ok()) return d.status();
  if (a.sender_certificate.size() > limits.max_sender_certificate_length ||
      a.receiver_certificate_thumbprint.size() > limits.max_thumbprint_length)
    return status::bad_encoding_limits_exceeded;
  return secure_message_header_size + d.position();
}

status_code parse_sequence_part(std::span<const std::uint8_t> plaintext, const chunk_security& s, secure_chunk& out) {
  std::size_t end = plaintext.size();
  if (end < sequence_header_size + s.signature_size + s.padding_size_bytes()) return status::bad_decoding_error;
  end -= s.signature_size;
  if (s.encrypted) {
    // Every padding byte and PaddingSize hold the low byte of the padding size; ExtraPaddingSize,
    // when present, the high byte and comes last (§6.7.2.5). Checking the padding bytes
    // themselves is the security policy's job, in constant time.
    std::size_t pad = 0;
    if (s.extra_padding_size) pad = std::size_t{plaintext[--end]} << 8;
    pad |= plaintext[end - 1];
    end -= 1;
    if (pad > end - sequence_header_size) return status::bad_decoding_error;
    end -= pad;
  }
  out.sequence.sequence_number = load_u32(plaintext.data());
  out.sequence.request_id = load_u32(plaintext.data() + 4);
  out.body = plaintext.subspan(sequence_header_size, end - sequence_header_size);
  return status::good;
}

status_code parse_secure_chunk(std::span<const std::uint8_t> chunk, secure_chunk& out,
                               asymmetric_security_header* asym, const security_header_limits& limits) {
  const auto at = parse_security_part(chunk, out, asym, limits);
  if (!at) return at.error();
  return parse_sequence_part(chunk.subspan(*at), chunk_security::none(), out);
}

// ---------------------------------------------------------------------------------------
// Sequence numbers, Part 6 §6.7.2.4.

std::uint32_t sequence_counter::next() noexcept {
  const std::uint32_t n = next_;
  if (legacy_) next_ = n > legacy_wrap_threshold ? 1 : n + 1;
  else next_ = n + 1;  // UInt32.MaxValue wraps to 0
  return n;
}

std::uint32_t sequence_checker::expected() const noexcept {
  if (first_) return 0;
  if (legacy_ && last_ > legacy_wrap_threshold) return 1;  // sequence_counter's legacy wrap
  return last_ + 1;
}

status_code sequence_checker::check(std::uint32_t n) noexcept {
  if (first_) {
    if (!legacy_ && n != 0) return status::bad_sequence_number_invalid;
    first_ = false;
    last_ = n;
    return status::good;
  }
  // Accepting a legacy wrap once the last number reached the threshold (not only above it)
  // also admits senders that wrap right after UInt32.MaxValue - 1024.
  const bool ok = n == static_cast<std::uint32_t>(last_ + 1) ||
                  (legacy_ && last_ >= legacy_wrap_threshold && n < legacy_wrap_limit);
  if (!ok) return status::bad_sequence_number_invalid;
  last_ = n;
  return status::good;
}

}  // namespace uactor::ua
