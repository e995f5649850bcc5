// Symmetric keys of a secure channel from the OpenSecureChannel nonces (Part 6 §6.7.5): P_SHA256
// and the cut of its output into signing key, encrypting key and IV. Plain values; no OpenSSL.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "security/policy.hpp"

namespace uactor::security {

// P_SHA256(secret, seed) of RFC 5246 §5 (the PRF of Part 6 §6.7.5), `out.size()` bytes:
// A(0) = seed, A(i) = HMAC(secret, A(i-1)), out = HMAC(secret, A(1) + seed) | HMAC(secret, A(2) + seed) | ...
void p_sha256(std::span<const std::uint8_t> secret, std::span<const std::uint8_t> seed, std::span<std::uint8_t> out);

// The keys of one direction. Lengths from the policy; unused trailing bytes stay zero.
struct symmetric_keys {
  std::array<std::uint8_t, 48> signing{};  // 48: the 384-bit ECC policies
  std::array<std::uint8_t, 32> encrypting{};
  std::array<std::uint8_t, 16> iv{};
  std::size_t signing_length = 0, encrypting_length = 0;

  std::span<const std::uint8_t> signing_key() const noexcept { return {signing.data(), signing_length}; }
  std::span<const std::uint8_t> encrypting_key() const noexcept { return {encrypting.data(), encrypting_length}; }
  friend bool operator==(const symmetric_keys&, const symmetric_keys&) = default;
};

// signing | encrypting | iv, cut in that order from P_SHA256(secret, seed) (§6.7.5 table of
// offsets: signing at 0, encrypting at SigningKeyLength, IV after both). All zero for policy None.
symmetric_keys derive_keys(const security_policy&, std::span<const std::uint8_t> secret,
                           std::span<const std::uint8_t> seed);

// Part 6 §6.7.5: the keys the CLIENT sends with come from secret = ServerNonce, seed = ClientNonce;
// the keys the SERVER sends with from secret = ClientNonce, seed = ServerNonce. A server signs and
// encrypts with `server` and checks with `client`; a client the other way round.
struct channel_keys {
  symmetric_keys client;
  symmetric_keys server;
};
channel_keys derive_channel_keys(const security_policy&, std::span<const std::uint8_t> client_nonce,
                                 std::span<const std::uint8_t> server_nonce);

}  // namespace uactor::security
