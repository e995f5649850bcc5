// The RSA operations of the security policies (Part 7): the policy's signature (PKCS#1 v1.5 or
// PSS with SHA-256) and its OAEP encryption, block by block. Used by asymmetric_context (OPN) and
// session_crypto (session signatures, user-token secrets); contexts are the caller's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "security/keys.hpp"
#include "security/openssl.hpp"
#include "security/policy.hpp"

namespace uactor::security {

// The largest RSA modulus handled, in bytes (16384 bits); rsa_key::generate's limit too.
inline constexpr std::size_t max_rsa_bytes = 2048;

// An EVP_PKEY_CTX set up for the policy's OAEP: encrypt with a public key or decrypt with a
// private one; null when OpenSSL refuses (not RSA, no private part).
evp_pkey_ctx_ptr make_rsa_encrypt_ctx(const security_policy&, const rsa_key&);
evp_pkey_ctx_ptr make_rsa_decrypt_ctx(const security_policy&, const rsa_key&);

// Plain bytes per RSA block: key bytes - OAEP overhead (0 when the key is too small).
std::size_t rsa_plain_block_size(const security_policy&, const rsa_key&) noexcept;

// Encrypts `in` (a whole number of plain blocks, or any length when `last_may_be_short`) block by
// block into `out`, which has room for every cipher block. False when OpenSSL fails.
bool rsa_encrypt_blocks(EVP_PKEY_CTX* ctx, std::size_t key_bytes, std::size_t plain_block,
                        std::span<const std::uint8_t> in, std::uint8_t* out, bool last_may_be_short = false);
// Decrypts one cipher block (key bytes) into `out` (room for key bytes); the plain length, or -1
// when the block does not decrypt (bad OAEP padding, wrong key).
long rsa_decrypt_block(EVP_PKEY_CTX* ctx, std::span<const std::uint8_t> block, std::uint8_t* out);

// The policy's asymmetric signature of `data` with `key` (private) into `out` (key bytes).
bool rsa_sign(const security_policy&, const rsa_key& key, std::span<const std::uint8_t> data, std::span<std::uint8_t> out);
bool rsa_verify(const security_policy&, const rsa_key& key, std::span<const std::uint8_t> data,
                std::span<const std::uint8_t> signature);

}  // namespace uactor::security
