#include "security/key_derivation.hpp"

#include <algorithm>
#include <cstring>

#include <openssl/crypto.h>

#include "security/hmac_sha256.hpp"

namespace uactor::security {

void p_sha256(std::span<const std::uint8_t> secret, std::span<const std::uint8_t> seed, std::span<std::uint8_t> out) {
  const hmac_sha256 mac(secret);
  std::uint8_t a[hmac_sha256_size];
  std::uint8_t block[hmac_sha256_size];
  mac.compute(seed, a);  // A(1)
  for (std::size_t at = 0; at < out.size(); at += hmac_sha256_size) {
    mac.compute(a, seed, block);
    std::memcpy(out.data() + at, block, std::min(hmac_sha256_size, out.size() - at));
    mac.compute(a, a);  // A(i+1) = HMAC(secret, A(i)); in place is fine: the input is read first
  }
  OPENSSL_cleanse(a, sizeof a);
  OPENSSL_cleanse(block, sizeof block);
}

symmetric_keys derive_keys(const security_policy& policy, std::span<const std::uint8_t> secret,
                           std::span<const std::uint8_t> seed) {
  symmetric_keys k;
  if (policy.is_none()) return k;
  k.signing_length = policy.signing_key_length;
  k.encrypting_length = policy.encrypting_key_length;
  const std::size_t iv_length = policy.block_size;
  std::array<std::uint8_t, 48 + 32 + 16> material{};  // the largest signing key (48) of any policy
  const std::size_t total = k.signing_length + k.encrypting_length + iv_length;
  p_sha256(secret, seed, std::span(material).first(total));
  std::memcpy(k.signing.data(), material.data(), k.signing_length);
  std::memcpy(k.encrypting.data(), material.data() + k.signing_length, k.encrypting_length);
  std::memcpy(k.iv.data(), material.data() + k.signing_length + k.encrypting_length, iv_length);
  OPENSSL_cleanse(material.data(), material.size());
  return k;
}

channel_keys derive_channel_keys(const security_policy& policy, std::span<const std::uint8_t> client_nonce,
                                 std::span<const std::uint8_t> server_nonce) {
  return {derive_keys(policy, server_nonce, client_nonce), derive_keys(policy, client_nonce, server_nonce)};
}

}  // namespace uactor::security
