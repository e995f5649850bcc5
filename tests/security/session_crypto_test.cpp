#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "security/rsa.hpp"
#include "security/session_crypto.hpp"
#include "tests/security/crypto_test_support.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace security_session_crypto_test {

using namespace uactor;
using namespace uactor::security;
using uactor::test::bytes;
using uactor::test::test_rsa_key;

namespace {

std::span<const std::uint8_t> span_of(const ua::byte_string& b) {
  return {reinterpret_cast<const std::uint8_t*>(b.data()), b.size()};
}
std::span<const std::uint8_t> span_of(std::string_view s) { return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}; }

bytes nonce(std::uint8_t seed) {
  bytes n(32);
  for (std::size_t i = 0; i < n.size(); ++i) n[i] = static_cast<std::uint8_t>(seed + i * 3);
  return n;
}

const char* const rsa_policies[] = {"Basic256Sha256", "Aes128_Sha256_RsaOaep", "Aes256_Sha256_RsaPss"};

const security_policy& policy(std::string_view name) {
  for (const auto& p : all_policies())
    if (p.name == name) return p;
  throw std::logic_error("no such policy");
}

}  // namespace

TEST_CASE("session_crypto: sign and verify with each policy, tampered data, signature or key fail", "[security]") {
  const auto& own = test_rsa_key(2048, 0);
  const auto& other = test_rsa_key(2048, 1);
  std::string data(900, 'd');  // certificate DER + nonce stand-in
  for (const auto* name : rsa_policies) {
    INFO(name);
    const auto& p = policy(name);
    const auto sig = sign(p, own, span_of(data));
    REQUIRE(sig.size() == 256);
    CHECK(verify(p, own.public_only(), span_of(data), span_of(sig)));
    auto tampered = data;
    tampered[450] ^= 1;
    CHECK(!verify(p, own.public_only(), span_of(tampered), span_of(sig)));
    auto bad_sig = std::string(sig.view());
    bad_sig[10] ^= 1;
    CHECK(!verify(p, own.public_only(), span_of(data), span_of(bad_sig)));
    CHECK(!verify(p, other.public_only(), span_of(data), span_of(sig)));
    CHECK(!verify(p, own.public_only(), span_of(data), span_of(sig).first(255)));
    CHECK(!verify(p, own.public_only(), span_of(data), {}));
  }
  // PKCS#1 v1.5 is deterministic and PSS is not; each policy reads only its own algorithm.
  const auto a = sign(policy("Basic256Sha256"), own, span_of(data));
  CHECK(a == sign(policy("Basic256Sha256"), own, span_of(data)));
  const auto pss = sign(policy("Aes256_Sha256_RsaPss"), own, span_of(data));
  CHECK(pss != sign(policy("Aes256_Sha256_RsaPss"), own, span_of(data)));
  CHECK(!verify(policy("Aes256_Sha256_RsaPss"), own.public_only(), span_of(data), span_of(a)));
  CHECK(!verify(policy("Basic256Sha256"), own.public_only(), span_of(data), span_of(pss)));
  // Policy None or a public key cannot sign.
  CHECK(sign(policy_none(), own, span_of(data)).is_null());
  CHECK(sign(policy("Basic256Sha256"), own.public_only(), span_of(data)).is_null());
  CHECK(!verify(policy_none(), own, span_of(data), span_of(a)));
}

TEST_CASE("session_crypto: encrypt_secret and decrypt_secret round-trip passwords of any length", "[security]") {
  for (const auto* name : rsa_policies) {
    for (const unsigned bits : {2048u, 4096u}) {
      INFO(name << " " << bits);
      const auto& p = policy(name);
      const auto& server = test_rsa_key(bits, 1);
      const auto n = nonce(9);
      for (const std::size_t len : {0u, 1u, 8u, 300u}) {  // 300 + 4 + 32 needs two blocks at 2048 bits
        std::string password(len, 'p');
        for (std::size_t i = 0; i < len; ++i) password[i] = static_cast<char>('a' + i % 26);
        const auto cipher = encrypt_secret(p, server.public_only(), span_of(password), n);
        REQUIRE(!cipher.is_null());
        CHECK(cipher.size() % server.size_bytes() == 0);
        const auto back = decrypt_secret(p, server, span_of(cipher), n);
        REQUIRE(back);
        CHECK(back->view() == password);
      }
    }
  }
}

TEST_CASE("session_crypto: decrypt_secret refuses another nonce, another key, another policy and damaged cipher text", "[security]") {
  const auto& p = policy("Basic256Sha256");
  const auto& server = test_rsa_key(2048, 1);
  const auto n = nonce(9);
  const std::string password = "secret password";
  const auto cipher = encrypt_secret(p, server.public_only(), span_of(password), n);
  REQUIRE(!cipher.is_null());
  CHECK(decrypt_secret(p, server, span_of(cipher), nonce(10)).error() == ua::status::bad_identity_token_invalid);
  CHECK(decrypt_secret(p, server, span_of(cipher), std::span(n).first(31)).error() == ua::status::bad_identity_token_invalid);
  CHECK(decrypt_secret(p, test_rsa_key(2048, 0), span_of(cipher), n).error() == ua::status::bad_identity_token_invalid);
  CHECK(decrypt_secret(policy("Aes256_Sha256_RsaPss"), server, span_of(cipher), n).error() ==
        ua::status::bad_identity_token_invalid);
  CHECK(decrypt_secret(p, server, span_of(cipher).first(255), n).error() == ua::status::bad_identity_token_invalid);
  CHECK(decrypt_secret(p, server, {}, n).error() == ua::status::bad_identity_token_invalid);
  CHECK(decrypt_secret(p, server.public_only(), span_of(cipher), n).error() == ua::status::bad_identity_token_invalid);
  for (std::size_t i = 0; i < cipher.size(); i += 17) {
    auto bad = std::string(cipher.view());
    bad[i] ^= 0x20;
    if (decrypt_secret(p, server, span_of(bad), n)) FAIL("offset " << i);
  }
  // The length field must be exactly what follows it: one more, one less, or huge.
  for (const std::int64_t delta : {1, -1, 0x7fffffff}) {
    INFO("length delta " << delta);
    std::string raw(4 + password.size() + n.size(), '\0');
    const auto l = static_cast<std::uint32_t>(static_cast<std::int64_t>(password.size() + n.size()) + delta);
    std::memcpy(raw.data(), &l, 4);
    std::memcpy(raw.data() + 4, password.data(), password.size());
    std::memcpy(raw.data() + 4 + password.size(), n.data(), n.size());
    const auto ctx = make_rsa_encrypt_ctx(p, server.public_only());
    REQUIRE(ctx);
    std::string c(256, '\0');
    REQUIRE(rsa_encrypt_blocks(ctx.get(), 256, 256 - 42, span_of(raw), reinterpret_cast<std::uint8_t*>(c.data()), true));
    CHECK(decrypt_secret(p, server, span_of(c), n).error() == ua::status::bad_identity_token_invalid);
  }
  // Shorter than the nonce it must end with.
  std::string tiny(4 + 3, '\0');
  const std::uint32_t three = 3;
  std::memcpy(tiny.data(), &three, 4);
  const auto ctx = make_rsa_encrypt_ctx(p, server.public_only());
  std::string c(256, '\0');
  REQUIRE(rsa_encrypt_blocks(ctx.get(), 256, 256 - 42, span_of(tiny), reinterpret_cast<std::uint8_t*>(c.data()), true));
  CHECK(decrypt_secret(p, server, span_of(c), n).error() == ua::status::bad_identity_token_invalid);
  CHECK(decrypt_secret(p, server, span_of(c), {}));  // with no nonce to match, the same bytes are a 3-byte secret
}

// Part 4 §7.36.2.2 (1.05): a client may pad the legacy secret's plaintext, with zeros only (open62541
// 1.5 pads to the RSA block). The plaintexts are built by hand from the spec's layout:
// Length (UInt32, of secret + nonce) | secret | nonce | padding.
TEST_CASE("session_crypto: decrypt_secret takes zero padding after the nonce and refuses any other", "[security]") {
  const auto& p = policy("Basic256Sha256");
  const auto& server = test_rsa_key(2048, 1);
  const auto n = nonce(9);
  const std::string password = "user1-password";
  const std::size_t plain_block = rsa_plain_block_size(p, server.public_only());
  REQUIRE(plain_block == 256 - 42);  // OAEP with SHA-1
  const auto encrypt = [&](std::size_t padded_to, std::size_t poke) {
    std::string raw(std::max(padded_to, 4 + password.size() + n.size()), '\0');
    const auto l = static_cast<std::uint32_t>(password.size() + n.size());
    std::memcpy(raw.data(), &l, 4);
    std::memcpy(raw.data() + 4, password.data(), password.size());
    std::memcpy(raw.data() + 4 + password.size(), n.data(), n.size());
    if (poke < raw.size()) raw[poke] = 1;
    const std::size_t blocks = (raw.size() + plain_block - 1) / plain_block;
    std::string c(blocks * 256, '\0');
    const auto ctx = make_rsa_encrypt_ctx(p, server.public_only());
    REQUIRE(ctx);
    REQUIRE(rsa_encrypt_blocks(ctx.get(), 256, plain_block, span_of(raw), reinterpret_cast<std::uint8_t*>(c.data()), true));
    return c;
  };
  const std::size_t none = ~std::size_t{0};
  for (const std::size_t padded_to : {std::size_t{0}, plain_block, plain_block + 1, 2 * plain_block}) {
    INFO("padded to " << padded_to);
    const auto back = decrypt_secret(p, server, span_of(encrypt(padded_to, none)), n);
    REQUIRE(back.has_value());
    CHECK(back->view() == password);
  }
  const std::size_t unpadded = 4 + password.size() + n.size();
  for (const std::size_t poke : {unpadded, plain_block - 1, plain_block + 10}) {
    INFO("a non-zero padding byte at " << poke);
    CHECK(decrypt_secret(p, server, span_of(encrypt(2 * plain_block, poke)), n).error() ==
          ua::status::bad_identity_token_invalid);
  }
}

}  // namespace security_session_crypto_test
