// The asymmetric crypto of CreateSession / ActivateSession (Part 4 §5.7.2, §5.7.3): the
// application signatures, X509 user-token signatures and the encrypted secret of a
// UserNameIdentityToken (Part 4 §7.41.2.2). Stateless functions; results are the caller's.
#pragma once

#include <cstdint>
#include <span>

#include "uactor/ua/builtin_types.hpp"
#include "uactor/ua/expected.hpp"
#include "uactor/ua/status_codes.hpp"
#include "security/keys.hpp"
#include "security/policy.hpp"

namespace uactor::security {

// The policy's asymmetric signature (Part 4 §7.36 SignatureData.signature; algorithm URI =
// policy.signature_algorithm_uri) of `data` with our private key: ServerSignature = sign(client
// certificate DER + client nonce), ClientSignature = sign(server certificate DER + server nonce).
// Null when the policy is None or the key cannot sign.
ua::byte_string sign(const security_policy&, const rsa_key& own_private, std::span<const std::uint8_t> data);
bool verify(const security_policy&, const rsa_key& peer_public, std::span<const std::uint8_t> data,
            std::span<const std::uint8_t> signature);

// Part 4 §7.41.2.2, the legacy encrypted secret: Length (UInt32, of secret + nonce) | secret |
// server nonce, encrypted with the policy's asymmetric encryption (encryption_algorithm_uri) and
// the server's public key, in as many RSA blocks as needed. Null when the policy is None or
// OpenSSL fails.
ua::byte_string encrypt_secret(const security_policy&, const rsa_key& server_public,
                               std::span<const std::uint8_t> secret, std::span<const std::uint8_t> server_nonce);
// Decrypts and checks the length field, that the nonce after the secret is `server_nonce` (the
// last one the server sent on this session) and that what may follow it (a client's padding) is
// all zeros. Bad_IdentityTokenInvalid otherwise; the secret's bytes (the password) when good.
ua::expected<ua::byte_string> decrypt_secret(const security_policy&, const rsa_key& server_private,
                                             std::span<const std::uint8_t> cipher,
                                             std::span<const std::uint8_t> server_nonce);

}  // namespace uactor::security
