// The parts of an OPN/MSG/CLO chunk (Part 6 §6.7.2): SecureChannelId, security header, sequence
// header, body, and the sizes of padding and signature a security policy adds. Parsing gives views
// into the caller's chunk bytes; only the asymmetric header (OPN) is copied, into a caller's object.
#pragma once

#include <cstdint>
#include <span>

#include "protocol/codec.hpp"
#include "uactor/ua/expected.hpp"
#include "protocol/uatcp.hpp"

namespace uactor::ua {

inline constexpr std::size_t secure_message_header_size = 12;  // §6.7.2.2: 8-byte header + SecureChannelId
inline constexpr std::size_t symmetric_security_header_size = 4;  // §6.7.2.3: TokenId
inline constexpr std::size_t sequence_header_size = 8;           // §6.7.2.4

// Part 6 §6.7.2.3, asymmetric algorithm security header (OPN).
struct asymmetric_security_header {
  ua_string security_policy_uri;
  byte_string sender_certificate;
  byte_string receiver_certificate_thumbprint;
  friend bool operator==(const asymmetric_security_header&, const asymmetric_security_header&) = default;
};

struct security_header_limits {
  std::size_t max_policy_uri_length = 255;        // §6.7.2.3
  std::size_t max_sender_certificate_length = 65535;  // MaxSenderCertificateSize; a chunk bounds it anyway
  std::size_t max_thumbprint_length = 64;         // SHA-1 is 20 bytes; room for longer digests
};

// Part 6 §6.7.2.4.
struct sequence_header {
  std::uint32_t sequence_number = 0;
  std::uint32_t request_id = 0;
  friend bool operator==(const sequence_header&, const sequence_header&) = default;
};

void encode(encoder& e, const asymmetric_security_header& h);
std::size_t encoded_size(const asymmetric_security_header& h) noexcept;

// What a security policy adds to a chunk (§6.7.2.5). policy None: nothing. A policy that signs
// sets signature_size; one that encrypts also sets the block sizes and `encrypted` (padding
// present), and `extra_padding_size` when its key is longer than 2048 bits.
struct chunk_security {
  std::size_t signature_size = 0;
  std::size_t plain_block_size = 1;
  std::size_t cipher_block_size = 1;
  bool encrypted = false;
  bool extra_padding_size = false;

  static constexpr chunk_security none() noexcept { return {}; }
  // PaddingSize (and ExtraPaddingSize) bytes.
  constexpr std::size_t padding_size_bytes() const noexcept { return encrypted ? (extra_padding_size ? 2 : 1) : 0; }
};

// `header_size`: the bytes before the sequence header (12 + security header). The plaintext
// after them is SequenceHeader, body, [PaddingSize, Padding, ExtraPaddingSize], Signature; when
// encrypted it is a whole number of plain blocks, each becoming a cipher block on the wire.

// The largest body a chunk of `chunk_size` bytes can carry; 0 when not even an empty body fits.
// Exact (the next byte would not fit), so it differs from the formula printed in §6.7.2.5, which
// is conservative for symmetric block ciphers and too large when plain and cipher blocks differ
// in size (RSA); see docs/decisions/0003.
std::size_t max_body_size(std::size_t chunk_size, std::size_t header_size, const chunk_security& s) noexcept;
// The MaxBodySize formula as §6.7.2.5 prints it (v1.05), for comparison in tests.
std::size_t spec_max_body_size(std::size_t chunk_size, std::size_t header_size, const chunk_security& s) noexcept;
// Padding bytes after PaddingSize, so that the plaintext fills whole blocks (0 unless encrypted).
std::size_t padding_size(std::size_t body_size, const chunk_security& s) noexcept;
// The plaintext after the header: sequence header, body, padding fields, signature.
std::size_t plaintext_size(std::size_t body_size, const chunk_security& s) noexcept;
// The chunk's size on the wire, MessageSize.
std::size_t wire_chunk_size(std::size_t body_size, std::size_t header_size, const chunk_security& s) noexcept;

// The parsed view of one OPN/MSG/CLO chunk; `body` points into the chunk given to the parser.
struct secure_chunk {
  message_type type = message_type::message;
  chunk_type chunk = chunk_type::final_chunk;
  std::uint32_t secure_channel_id = 0;
  std::uint32_t token_id = 0;  // MSG and CLO
  sequence_header sequence;
  std::span<const std::uint8_t> body;
};

// Step 1, before any crypto: message header, SecureChannelId and security header (decoded into
// `asym` for OPN; `asym` may be null to skip keeping it). Returns where the sequence header
// starts, i.e. where decryption starts. Bad_TcpMessageTypeInvalid for HEL/ACK/ERR/RHE,
// Bad_DecodingError when truncated or the header's size is not the chunk's,
// Bad_EncodingLimitsExceeded when a security header field is over its limit.
expected<std::size_t> parse_security_part(std::span<const std::uint8_t> chunk, secure_chunk& out,
                                          asymmetric_security_header* asym,
                                          const security_header_limits& limits = {});

// Step 2, on the plaintext (decrypted, signature verified) from the sequence header to the end:
// drops signature and padding as `s` says and reads the sequence header; out.body is what is
// left. Bad_DecodingError when the sizes do not fit.
status_code parse_sequence_part(std::span<const std::uint8_t> plaintext, const chunk_security& s, secure_chunk& out);

// Both steps for policy None.
status_code parse_secure_chunk(std::span<const std::uint8_t> chunk, secure_chunk& out,
                               asymmetric_security_header* asym = nullptr,
                               const security_header_limits& limits = {});

// Sender side, Part 6 §6.7.2.4: one counter per channel, never reset on a new token.
// LegacySequenceNumbers (the RSA policies and None): starts below 1024 and, once a number above
// UInt32.MaxValue - 1024 was sent, wraps to 1. Otherwise: starts at 0, wraps from UInt32.MaxValue to 0.
class sequence_counter {
public:
  explicit sequence_counter(bool legacy = true, std::uint32_t first = 1) noexcept
      : next_(legacy ? first : 0), legacy_(legacy) {}
  std::uint32_t next() noexcept;
  std::uint32_t peek() const noexcept { return next_; }

private:
  std::uint32_t next_;
  bool legacy_;
};

// Receiver side: every chunk of a channel carries the previous number plus one (§6.7.2.4), with
// the wrap the counter above makes. The first number is taken as it comes (legacy) or must be 0.
class sequence_checker {
public:
  explicit sequence_checker(bool legacy = true) noexcept : legacy_(legacy) {}
  // Good, or Bad_SequenceNumberInvalid (the channel is then closed).
  status_code check(std::uint32_t n) noexcept;
  // The number the next chunk carries when it comes from a sender like ours (sequence_counter):
  // what an AEAD receiver builds its nonce from before it can read the encrypted number
  // (docs/decisions/0082). 0 before the first chunk (non-legacy senders start there).
  std::uint32_t expected() const noexcept;

private:
  std::uint32_t last_ = 0;
  bool first_ = true;
  bool legacy_;
};

inline constexpr std::uint32_t legacy_wrap_threshold = 0xFFFFFFFFu - 1024;  // 4 294 966 271
inline constexpr std::uint32_t legacy_wrap_limit = 1024;                    // first number after the wrap is below

}  // namespace uactor::ua
