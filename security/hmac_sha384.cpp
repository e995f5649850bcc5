// The deprecated SHA384_* functions for the reason hmac_sha256.cpp gives: in OpenSSL 3.0 the EVP
// digest and MAC interfaces allocate per use, and a chunk's MAC must not (hot paths allocate nothing).
#define OPENSSL_SUPPRESS_DEPRECATED
#include "security/hmac_sha384.hpp"

#include <cstring>
#include <type_traits>

#include <openssl/crypto.h>
#include <openssl/sha.h>

namespace uactor::security {

static_assert(sizeof(SHA512_CTX) <= 224, "hmac_sha384 keeps a SHA512_CTX in 224 bytes");
static_assert(std::is_trivially_copyable_v<SHA512_CTX>);

namespace {
SHA512_CTX load_sha384_state(const std::array<std::uint8_t, 224>& a) noexcept {
  SHA512_CTX c;
  std::memcpy(&c, a.data(), sizeof c);
  return c;
}
void store_sha384_state(std::array<std::uint8_t, 224>& a, SHA512_CTX& c) noexcept {
  std::memcpy(a.data(), &c, sizeof c);
  OPENSSL_cleanse(&c, sizeof c);
}
}  // namespace

hmac_sha384::hmac_sha384() noexcept { set_key({}); }

hmac_sha384::~hmac_sha384() {
  OPENSSL_cleanse(inner_.data(), inner_.size());
  OPENSSL_cleanse(outer_.data(), outer_.size());
}

void hmac_sha384::set_key(std::span<const std::uint8_t> key) noexcept {
  constexpr std::size_t block = SHA512_CBLOCK;  // 128, SHA-384's block too
  std::uint8_t k[block] = {};
  if (key.size() > block) SHA384(key.data(), key.size(), k);  // RFC 2104: long keys are hashed first
  else if (!key.empty()) std::memcpy(k, key.data(), key.size());
  std::uint8_t pad[block];
  for (std::size_t i = 0; i < block; ++i) pad[i] = k[i] ^ 0x36;
  SHA512_CTX c;
  SHA384_Init(&c);
  SHA384_Update(&c, pad, block);
  store_sha384_state(inner_, c);
  for (std::size_t i = 0; i < block; ++i) pad[i] = k[i] ^ 0x5c;
  SHA384_Init(&c);
  SHA384_Update(&c, pad, block);
  store_sha384_state(outer_, c);
  OPENSSL_cleanse(k, sizeof k);
  OPENSSL_cleanse(pad, sizeof pad);
}

void hmac_sha384::compute(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b,
                          std::uint8_t* out) const noexcept {
  SHA512_CTX c = load_sha384_state(inner_);
  SHA384_Update(&c, a.data(), a.size());
  if (!b.empty()) SHA384_Update(&c, b.data(), b.size());
  std::uint8_t inner_hash[SHA384_DIGEST_LENGTH];
  SHA384_Final(inner_hash, &c);
  c = load_sha384_state(outer_);
  SHA384_Update(&c, inner_hash, sizeof inner_hash);
  SHA384_Final(out, &c);
  OPENSSL_cleanse(&c, sizeof c);
}

}  // namespace uactor::security
