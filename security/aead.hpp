// ChaCha20-Poly1305 (RFC 8439 §2.8), the authenticated encryption of ECC_curve25519 and
// ECC_curve448 (Part 7; Part 6 §6.7.2.1 Figure 12): one key, a 12-byte nonce per message, a
// 16-byte tag. The key is set up once; seal/open allocate nothing, so a channel keeps one per
// direction and token.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "security/openssl.hpp"

namespace uactor::security {

inline constexpr std::size_t aead_key_size = 32;
inline constexpr std::size_t aead_nonce_size = 12;
inline constexpr std::size_t aead_tag_size = 16;
using aead_nonce = std::array<std::uint8_t, aead_nonce_size>;

// Part 6 §6.8.1 Table 69: a chunk's nonce is the derived InitializationVector with its first 8
// bytes XORed with TokenId and then the chunk's SequenceNumber, each UInt32 little endian.
aead_nonce aead_chunk_nonce(std::span<const std::uint8_t> iv, std::uint32_t token_id, std::uint32_t sequence_number) noexcept;

class chacha20_poly1305 {
public:
  // Throws std::invalid_argument for a key that is not 32 bytes, std::runtime_error when OpenSSL
  // has no ChaCha20-Poly1305.
  explicit chacha20_poly1305(std::span<const std::uint8_t> key);

  // Encrypts `text` in place (may be empty: then the tag authenticates `aad` alone) and writes
  // the tag. False when OpenSSL fails.
  bool seal(const aead_nonce& nonce, std::span<const std::uint8_t> aad, std::span<std::uint8_t> text,
            std::span<std::uint8_t, aead_tag_size> tag) noexcept;
  // Decrypts `text` in place and checks the tag over `aad` and the ciphertext. False when the tag
  // does not match: `text` then holds garbage the caller must not use.
  bool open(const aead_nonce& nonce, std::span<const std::uint8_t> aad, std::span<std::uint8_t> text,
            std::span<const std::uint8_t, aead_tag_size> tag) noexcept;

private:
  evp_cipher_ctx_ptr encrypt_;
  evp_cipher_ctx_ptr decrypt_;
};

}  // namespace uactor::security
