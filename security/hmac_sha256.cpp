// The low-level SHA256_* functions are deprecated in OpenSSL 3, but they are the only SHA-256
// there that allocates nothing per use: in OpenSSL 3.0 every EVP_DigestInit_ex, EVP_MAC_init and
// EVP_MD_CTX_copy_ex creates a fresh provider context (1-2 mallocs per MAC, measured with
// CRYPTO_set_mem_functions), and a chunk's MAC must not allocate (hot paths allocate nothing). The
// state is a plain struct, so the precomputed key states are copied by value.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "security/hmac_sha256.hpp"

#include <cstring>
#include <type_traits>

#include <openssl/crypto.h>
#include <openssl/sha.h>

namespace uactor::security {

static_assert(sizeof(SHA256_CTX) <= 112, "hmac_sha256 keeps a SHA256_CTX in 112 bytes");
static_assert(std::is_trivially_copyable_v<SHA256_CTX>);

namespace {
// The states live in byte arrays (so that the header needs no OpenSSL type); they are copied in
// and out with memcpy, which is defined for a trivially copyable struct.
SHA256_CTX load(const std::array<std::uint8_t, 112>& a) noexcept {
  SHA256_CTX c;
  std::memcpy(&c, a.data(), sizeof c);
  return c;
}
void store(std::array<std::uint8_t, 112>& a, SHA256_CTX& c) noexcept {
  std::memcpy(a.data(), &c, sizeof c);
  OPENSSL_cleanse(&c, sizeof c);
}
}  // namespace

hmac_sha256::hmac_sha256() noexcept { set_key({}); }

hmac_sha256::~hmac_sha256() {
  OPENSSL_cleanse(inner_.data(), inner_.size());
  OPENSSL_cleanse(outer_.data(), outer_.size());
}

void hmac_sha256::set_key(std::span<const std::uint8_t> key) noexcept {
  constexpr std::size_t block = SHA256_CBLOCK;  // 64
  std::uint8_t k[block] = {};
  if (key.size() > block) SHA256(key.data(), key.size(), k);  // RFC 2104: long keys are hashed first
  else if (!key.empty()) std::memcpy(k, key.data(), key.size());
  std::uint8_t pad[block];
  for (std::size_t i = 0; i < block; ++i) pad[i] = k[i] ^ 0x36;
  SHA256_CTX c;
  SHA256_Init(&c);
  SHA256_Update(&c, pad, block);
  store(inner_, c);
  for (std::size_t i = 0; i < block; ++i) pad[i] = k[i] ^ 0x5c;
  SHA256_Init(&c);
  SHA256_Update(&c, pad, block);
  store(outer_, c);
  OPENSSL_cleanse(k, sizeof k);
  OPENSSL_cleanse(pad, sizeof pad);
}

void hmac_sha256::compute(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b,
                          std::uint8_t* out) const noexcept {
  SHA256_CTX c = load(inner_);
  SHA256_Update(&c, a.data(), a.size());
  if (!b.empty()) SHA256_Update(&c, b.data(), b.size());
  std::uint8_t inner_hash[SHA256_DIGEST_LENGTH];
  SHA256_Final(inner_hash, &c);
  c = load(outer_);
  SHA256_Update(&c, inner_hash, sizeof inner_hash);
  SHA256_Final(out, &c);
  OPENSSL_cleanse(&c, sizeof c);
}

}  // namespace uactor::security
