// The symmetric crypto of one secure channel (Part 6 §6.7.2, §6.7.5): a sign/encrypt context and a
// verify/decrypt context per token, built once when the token is issued, and the walk over the
// chunks a message_chunker wrote. Shared by the server's and the client's channel state.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "protocol/byte_buffer.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "security/key_derivation.hpp"
#include "security/policy.hpp"
#include "security/symmetric.hpp"

namespace uactor::actors {

class token_crypto {
public:
  // The current token and two predecessors: a peer may still use a token replaced twice since
  // (Part 4 §5.5.2.1, renewals without traffic in between; docs/decisions/0024).
  static constexpr std::size_t kept_tokens = 3;

  // The contexts of a new token; the oldest of the kept ones makes room.
  void install(std::uint32_t token_id, const security::security_policy& policy, ua::message_security_mode mode,
               const security::symmetric_keys& send, const security::symmetric_keys& receive);
  // Null when the token is not (or no longer) kept.
  security::symmetric_context* sender(std::uint32_t token_id) noexcept;
  security::symmetric_context* receiver(std::uint32_t token_id) noexcept;

private:
  struct entry {
    std::uint32_t token_id = 0;
    std::optional<security::symmetric_context> send;
    std::optional<security::symmetric_context> receive;
  };
  entry* find(std::uint32_t token_id) noexcept;

  std::array<entry, kept_tokens> entries_;
  std::size_t next_ = 0;
};

// Signs (and encrypts) in place each chunk of `out` from byte `from` on, as message_chunker wrote
// them with ctx.chunk_security(). `header_size`: the symmetric header, 12 + 4 bytes.
void protect_chunks(security::symmetric_context& ctx, ua::byte_buffer& out, std::size_t from);

// ByteStrings hold chars; the crypto works on bytes.
inline std::span<const std::uint8_t> bytes_of(const ua::byte_string& b) noexcept {
  return {reinterpret_cast<const std::uint8_t*>(b.data()), b.size()};
}
inline ua::byte_string to_byte_string(std::span<const std::uint8_t> s) {
  ua::byte_string b;
  b.assign(s.data(), s.size());
  return b;
}
// Certificate followed by nonce: what ServerSignature, ClientSignature and a user token signature
// sign (Part 4 §5.7.2.2, §5.7.3.2).
std::vector<std::uint8_t> signed_data(std::span<const std::uint8_t> certificate, std::span<const std::uint8_t> nonce);

// A fresh nonce of `length` random bytes (Part 4 §5.5.2.2, §5.7.2.2).
ua::byte_string random_nonce(std::size_t length);

inline constexpr std::size_t symmetric_header_size = 16;  // Part 6 §6.7.2.2-3: header, channel id, token id

}  // namespace uactor::actors
