// The curve25519 / curve448 half of the ECC policies (Part 7 ECC_curve25519, ECC_curve448;
// docs/decisions/0082): Ed25519 / Ed448 keys and PureEdDSA signatures (RFC 8032) for certificates,
// OPNs and session signatures, and X25519 / X448 EphemeralKeys (RFC 7748) that travel as their
// raw public key (32 / 56 bytes), not as X | Y. Stateless functions over rsa_key (any EVP_PKEY).
// security/ecc.hpp dispatches here for a policy whose is_edwards() is true.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "uactor/ua/expected.hpp"
#include "security/keys.hpp"

namespace uactor::security {

enum class edwards_curve : std::uint8_t { c25519, c448 };

// OpenSSL's names: "ED25519" / "ED448" (signatures), "X25519" / "X448" (key agreement).
std::string_view eddsa_key_type(edwards_curve) noexcept;
std::string_view xdh_key_type(edwards_curve) noexcept;
// Raw public key and shared secret length: 32 / 56 (RFC 7748 §5); signature 64 / 114 (RFC 8032).
std::size_t xdh_key_size(edwards_curve) noexcept;
std::size_t eddsa_signature_size(edwards_curve) noexcept;

// Whether `key` is an Ed25519 / Ed448 key (what a certificate of the policy must hold).
bool is_eddsa_key(edwards_curve, const rsa_key& key) noexcept;

// A fresh X25519 / X448 key pair; Bad_InternalError when OpenSSL fails.
ua::expected<rsa_key> generate_xdh_key(edwards_curve);
// The raw public key of an X25519 / X448 key into `out` (xdh_key_size bytes). False for another key.
bool xdh_public_bytes(edwards_curve, const rsa_key& key, std::span<std::uint8_t> out) noexcept;
// A peer's raw public key. Bad_NonceInvalid when the length is not the curve's. Every 32 / 56-byte
// string is a valid X25519 / X448 input (RFC 7748 §5); a low-order point shows as an all-zero
// shared secret, which ecdh_shared_secret (security/ecc.hpp) refuses (RFC 7748 §6.1).
ua::expected<rsa_key> xdh_public_from_bytes(edwards_curve, std::span<const std::uint8_t> raw);

// PureEdDSA over `data` (no pre-hash, empty context: RFC 8032 §5.1.6 / §5.2.6) into `out`
// (eddsa_signature_size bytes). False when the key cannot sign.
bool eddsa_sign(edwards_curve, const rsa_key& key, std::span<const std::uint8_t> data, std::span<std::uint8_t> out) noexcept;
// False for a signature of another length or one that does not verify.
bool eddsa_verify(edwards_curve, const rsa_key& key, std::span<const std::uint8_t> data,
                  std::span<const std::uint8_t> signature) noexcept;

}  // namespace uactor::security
