// ECC_curve25519 and ECC_curve448 (docs/decisions/0082): the primitives against the published
// vectors (RFC 8032 Ed25519 / Ed448, RFC 7748 X25519 / X448, RFC 8439 ChaCha20-Poly1305, RFC 5869
// HKDF), then what the policies build of them: raw EphemeralKeys, the §6.8.1 derivation with
// no signing key, the AEAD chunk (Part 6 §6.7.2.1 Figure 12, §6.8.1 Table 69) and its refusals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <string>

#include <openssl/evp.h>

#include "protocol/message_chunker.hpp"
#include "protocol/secure_chunk.hpp"
#include "security/aead.hpp"
#include "security/certificate.hpp"
#include "security/ecc.hpp"
#include "security/ecc_edwards.hpp"
#include "security/policy.hpp"
#include "security/session_crypto.hpp"
#include "security/symmetric.hpp"
#include "uactor/ua/types.hpp"
#include "tests/security/chunk_test_support.hpp"
#include "tests/security/crypto_test_support.hpp"

// A namespace of its own: this file shares a unity batch with neighbours (docs/decisions/0050).
namespace security_ecc_edwards_test {

using namespace uactor;
using namespace uactor::security;
using uactor::test::as_span;
using uactor::test::bytes;
using uactor::test::from_hex;

namespace {

const security_policy& curve25519() { return *find_policy(policy_uri_ecc_curve25519); }
const security_policy& curve448() { return *find_policy(policy_uri_ecc_curve448); }

rsa_key raw_private(int type, const bytes& k) {
  EVP_PKEY* p = EVP_PKEY_new_raw_private_key(type, nullptr, k.data(), k.size());
  REQUIRE(p != nullptr);
  return rsa_key(p);
}

bytes raw_public(const rsa_key& k) {
  bytes out(64);
  std::size_t len = out.size();
  REQUIRE(EVP_PKEY_get_raw_public_key(k.native(), out.data(), &len) == 1);
  out.resize(len);
  return out;
}

constexpr std::size_t msg_header_size = ua::secure_message_header_size + ua::symmetric_security_header_size;
const ua::message_security_mode modes[] = {ua::message_security_mode::sign, ua::message_security_mode::sign_and_encrypt};

// A message as the chunker lays it out, SequenceNumbers from 5 (chunks of 8 KiB by default).
ua::byte_buffer chunked(const symmetric_context& ctx, std::size_t body_size, std::uint32_t chunk_size = 8192) {
  return test::chunked(ctx, body_size, chunk_size);
}

channel_keys test_keys(const security_policy& p) {
  auto c = make_ephemeral_key(p);
  auto s = make_ephemeral_key(p);
  REQUIRE(c);
  REQUIRE(s);
  auto keys = ecc_channel_keys(p, *c, s->public_bytes(), c->public_bytes(), s->public_bytes());
  REQUIRE(keys);
  return *keys;
}

}  // namespace

TEST_CASE("ecc edwards: the policy table has ECC_curve25519 and ECC_curve448 with their Part 7 lengths",
          "[security][ecc]") {
  for (const auto* p : {&curve25519(), &curve448()}) {
    CAPTURE(p->name);
    CHECK(p->is_ecc());
    CHECK(p->is_edwards());
    CHECK(p->is_aead());
    CHECK(p->signing_key_length == 0);  // the AEAD signs: no DerivedSignatureKey
    CHECK(p->encrypting_key_length == 32);
    CHECK(p->iv_length() == 12);
    CHECK(p->symmetric_signature_length == 16);  // the Poly1305 tag
    CHECK(p->hash == policy_hash::sha256);       // HKDF-SHA2-256 for both
    CHECK(p->signature_algorithm_uri.empty());   // Part 4 §7.36: no URI for ECC policies
    CHECK(p->accepts_signature_algorithm(""));
    CHECK(p->accepts_signature_algorithm("http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256"));  // ignored
  }
  CHECK(curve25519().nonce_length == 32);
  CHECK(curve25519().ecc_signature_size() == 64);
  CHECK(curve448().nonce_length == 56);
  CHECK(curve448().ecc_signature_size() == 114);
  CHECK(curve_label(curve25519().curve) == "curve25519");
  CHECK(curve_label(curve448().curve) == "curve448");
  CHECK(own_identity_name("uactor", curve448()) == "uactor-ecc-curve448");
  CHECK_FALSE(find_policy(policy_uri_ecc_nistp256)->is_aead());
}

TEST_CASE("ecc edwards: Ed25519 and Ed448 sign the RFC 8032 test vectors byte for byte", "[security][ecc]") {
  struct vector {
    int type;
    const security_policy* policy;
    std::string_view secret, pub, message, signature;
  };
  const vector vectors[] = {
      // RFC 8032 §7.1 TEST 1 (empty message) and TEST 2 (one byte).
      {EVP_PKEY_ED25519, &curve25519(), "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
       "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
       "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f059"
       "5bbe24655141438e7a100b"},
      {EVP_PKEY_ED25519, &curve25519(), "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
       "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
       "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eae"
       "b4302aeeb00d291612bb0c00"},
      // RFC 8032 §7.4 "Blank" (Ed448, empty message, empty context).
      {EVP_PKEY_ED448, &curve448(),
       "6c82a562cb808d10d632be89c8513ebf6c929f34ddfa8c9f63c9960ef6e348a3528c8a3fcc2f044e39a3fc5b94492f8f032e7549a2"
       "0098f95b",
       "5fd7449b59b461fd2ce787ec616ad46a1da1342485a70e1f8a0ea75d80e96778edf124769b46c7061bd6783df1e50f6cd1fa1abea"
       "fe8256180",
       "",
       "533a37f6bbe457251f023c0d88f976ae2dfb504a843e34d2074fd823d41a591f2b233f034f628281f2fd7a22ddd47d7828c59bd0a"
       "21bfd3980ff0d2028d4b18a9df63e006c5d1c2d345b925d8dc00b4104852db99ac5c7cdda8530a113a0f4dbb61149f05a7363268c7"
       "1d95808ff2e652600"},
  };
  for (const auto& v : vectors) {
    CAPTURE(v.pub);
    const auto key = raw_private(v.type, from_hex(v.secret));
    CHECK(raw_public(key) == from_hex(v.pub));
    CHECK(key_fits_policy(*v.policy, key));
    const auto message = from_hex(v.message);
    bytes sig(v.policy->ecc_signature_size());
    REQUIRE(ecc_sign(*v.policy, key, as_span(message), {sig.data(), sig.size()}));
    CHECK(sig == from_hex(v.signature));  // PureEdDSA is deterministic
    CHECK(ecc_verify(*v.policy, key.public_only(), as_span(message), as_span(sig)));
    // The session signatures (CreateSession / ActivateSession, X509 user tokens) are the same.
    const auto session_sig = sign(*v.policy, key, as_span(message));
    const auto* ss = reinterpret_cast<const std::uint8_t*>(session_sig.data());
    CHECK(bytes(ss, ss + session_sig.size()) == sig);
    auto bad = sig;
    bad[bad.size() / 2] ^= 0x01;
    CHECK_FALSE(ecc_verify(*v.policy, key.public_only(), as_span(message), as_span(bad)));
    bad.pop_back();
    CHECK_FALSE(ecc_verify(*v.policy, key.public_only(), as_span(message), as_span(bad)));
  }
}

TEST_CASE("ecc edwards: X25519 and X448 agree on the RFC 7748 §6 shared secrets through raw EphemeralKeys",
          "[security][ecc]") {
  struct vector {
    int type;
    const security_policy* policy;
    std::string_view alice, alice_pub, bob, bob_pub, shared;
  };
  const vector vectors[] = {
      {EVP_PKEY_X25519, &curve25519(), "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a",
       "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a",
       "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb",
       "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f",
       "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"},
      {EVP_PKEY_X448, &curve448(),
       "9a8f4925d1519f5775cf46b04b5800d4ee9ee8bae8bc5565d498c28dd9c9baf574a9419744897391006382a6f127ab1d9ac2d8c0a598726b",
       "9b08f7cc31b7e3e67d22d5aea121074a273bd2b83de09c63faa73d2c22c5d9bbc836647241d953d40c5b12da88120d53177f80e532c41fa0",
       "1c306a7ac2a0e2e0990b294470cba339e6453772b075811d8fad0d1d6927c120bb5ee8972b0d3e21374c9c921b09d1b0366f10b65173992d",
       "3eb7a829b0cd20f5bcfc0b599b6feccf6da4627107bdb0d4f345b43027d8b972fc3e34fb4232a13ca706dcb57aec3dae07bdc1c67bf33609",
       "07fff4181ac6cc95ec1c16a94a0f74d12da232ce40a77552281d282bb60c0b56fd2464c335543936521c24403085d59a449a5037514a879d"},
  };
  for (const auto& v : vectors) {
    CAPTURE(v.policy->name);
    auto alice = ephemeral_key_of(*v.policy, raw_private(v.type, from_hex(v.alice)));
    auto bob = ephemeral_key_of(*v.policy, raw_private(v.type, from_hex(v.bob)));
    REQUIRE(alice);
    REQUIRE(bob);
    // The nonce is the raw public key (RFC 7748 §5), not X | Y.
    CHECK(bytes(alice->public_bytes().begin(), alice->public_bytes().end()) == from_hex(v.alice_pub));
    CHECK(bytes(bob->public_bytes().begin(), bob->public_bytes().end()) == from_hex(v.bob_pub));
    const auto bob_public = ecc_public_from_bytes(*v.policy, bob->public_bytes());
    REQUIRE(bob_public);
    bytes secret(v.policy->coordinate_size);
    REQUIRE(ecdh_shared_secret(alice->key, *bob_public, {secret.data(), secret.size()}));
    CHECK(secret == from_hex(v.shared));
    // Both sides derive the same channel keys from the two EphemeralKeys.
    const auto a = ecc_channel_keys(*v.policy, *alice, bob->public_bytes(), alice->public_bytes(), bob->public_bytes());
    const auto b = ecc_channel_keys(*v.policy, *bob, alice->public_bytes(), alice->public_bytes(), bob->public_bytes());
    REQUIRE(a);
    REQUIRE(b);
    CHECK(a->client == b->client);
    CHECK(a->server == b->server);
  }
}

TEST_CASE("ecc edwards: ChaCha20-Poly1305 gives the RFC 8439 §2.8.2 ciphertext and tag, and refuses a changed byte",
          "[security][ecc]") {
  const auto key = from_hex("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f");
  aead_nonce nonce;
  const auto n = from_hex("070000004041424344454647");
  std::copy(n.begin(), n.end(), nonce.begin());
  const auto aad = from_hex("50515253c0c1c2c3c4c5c6c7");
  const std::string text = "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, "
                           "sunscreen would be it.";
  const auto cipher = from_hex(
      "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b1a71de0a9e060b29"
      "05d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b"
      "6116");
  const auto tag = from_hex("1ae10b594f09e26a7e902ecbd0600691");
  chacha20_poly1305 aead(as_span(key));
  for (int round = 0; round < 2; ++round) {  // the context is reused: each seal starts from its nonce
    bytes buf(text.begin(), text.end());
    std::array<std::uint8_t, aead_tag_size> t{};
    REQUIRE(aead.seal(nonce, as_span(aad), {buf.data(), buf.size()}, t));
    CHECK(buf == cipher);
    CHECK(bytes(t.begin(), t.end()) == tag);
    REQUIRE(aead.open(nonce, as_span(aad), {buf.data(), buf.size()}, t));
    CHECK(std::string(buf.begin(), buf.end()) == text);
  }
  bytes buf = cipher;
  std::array<std::uint8_t, aead_tag_size> t{};
  std::copy(tag.begin(), tag.end(), t.begin());
  buf[10] ^= 0x20;
  CHECK_FALSE(aead.open(nonce, as_span(aad), {buf.data(), buf.size()}, t));
  buf = cipher;
  t[15] ^= 0x01;
  CHECK_FALSE(aead.open(nonce, as_span(aad), {buf.data(), buf.size()}, t));
  CHECK_THROWS_AS(chacha20_poly1305(std::span(key).first(16)), std::invalid_argument);
}

TEST_CASE("ecc edwards: HKDF-SHA256 gives RFC 5869 test case 1, and the AEAD keys are cut from L = 44", "[security][ecc]") {
  const auto ikm = bytes(22, 0x0b);
  const auto salt = from_hex("000102030405060708090a0b0c");
  const auto info = from_hex("f0f1f2f3f4f5f6f7f8f9");
  bytes okm(42);
  REQUIRE(hkdf(policy_hash::sha256, as_span(salt), as_span(ikm), as_span(info), {okm.data(), okm.size()}));
  CHECK(okm == from_hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"));

  // §6.8.1: ClientSalt = L | "opcua-client" | ClientNonce | ServerNonce with L = 0 + 32 + 12 = 44.
  const auto& p = curve25519();
  const bytes secret(32, 0x42), cn(32, 0x11), sn(32, 0x22);
  const auto keys = derive_ecc_channel_keys(p, as_span(secret), as_span(cn), as_span(sn));
  bytes client_salt = {44, 0};
  const std::string label = "opcua-client";
  client_salt.insert(client_salt.end(), label.begin(), label.end());
  client_salt.insert(client_salt.end(), cn.begin(), cn.end());
  client_salt.insert(client_salt.end(), sn.begin(), sn.end());
  bytes material(44);
  REQUIRE(hkdf(policy_hash::sha256, as_span(client_salt), as_span(secret), as_span(client_salt),
               {material.data(), material.size()}));
  CHECK(keys.client.signing_length == 0);
  CHECK(bytes(keys.client.encrypting_key().begin(), keys.client.encrypting_key().end()) ==
        bytes(material.begin(), material.begin() + 32));
  CHECK(bytes(keys.client.iv.begin(), keys.client.iv.begin() + 12) == bytes(material.begin() + 32, material.end()));
  CHECK_FALSE(keys.client == keys.server);
}

TEST_CASE("ecc edwards: the AEAD nonce is the IV with TokenId and SequenceNumber XORed in (Part 6 Table 69)",
          "[security][ecc]") {
  const auto iv = from_hex("000102030405060708090a0b");
  const auto n = aead_chunk_nonce(as_span(iv), 0x11223344, 0xA0B0C0D0);
  CHECK(bytes(n.begin(), n.end()) == from_hex("44 32 20 12  d4 c5 b6 a7  08 09 0a 0b"));
}

TEST_CASE("ecc edwards: an AEAD chunk has no padding, the tag last, the header in the clear, both modes round-trip",
          "[security][ecc]") {
  for (const auto* p : {&curve25519(), &curve448()}) {
    const auto keys = test_keys(*p);
    for (const auto mode : modes) {
      for (const std::size_t body_size : {0u, 1u, 15u, 80u, 20000u}) {
        CAPTURE(p->name, static_cast<int>(mode), body_size);
        symmetric_context sender(*p, mode, keys.client);
        symmetric_context receiver(*p, mode, keys.client);
        const auto cs = sender.chunk_security();
        CHECK(cs.signature_size == 16);
        CHECK_FALSE(cs.encrypted);  // no PaddingSize, no blocks
        auto out = chunked(sender, body_size);
        std::size_t at = 0, total = 0;
        std::uint32_t expect_seq = 5;
        while (at < out.size()) {
          std::uint32_t size;
          std::memcpy(&size, out.data() + at + 4, 4);
          const std::span<std::uint8_t> chunk(out.data() + at, size);
          const bytes plain(chunk.begin(), chunk.end());
          sender.protect(chunk, msg_header_size);
          CHECK(std::equal(chunk.begin(), chunk.begin() + msg_header_size, plain.begin()));  // the AAD stays clear
          const bool body_clear = std::equal(chunk.begin(), chunk.end() - 16, plain.begin());
          CHECK(body_clear == (mode == ua::message_security_mode::sign));
          REQUIRE(receiver.unprotect(chunk, msg_header_size, expect_seq) == ua::status::good);
          CHECK(std::equal(chunk.begin(), chunk.end() - 16, plain.begin()));
          ua::secure_chunk sc;
          REQUIRE(ua::parse_sequence_part(chunk.subspan(msg_header_size), receiver.chunk_security(), sc) == ua::status::good);
          CHECK(sc.sequence.sequence_number == expect_seq++);
          total += sc.body.size();
          at += size;
        }
        CHECK(total == body_size);
      }
    }
  }
}

TEST_CASE("ecc edwards: a flipped byte in the header, ciphertext or tag of an AEAD chunk gets Bad_SecurityChecksFailed",
          "[security][ecc]") {
  for (const auto* p : {&curve25519(), &curve448()}) {
    const auto keys = test_keys(*p);
    for (const auto mode : modes) {
      symmetric_context sender(*p, mode, keys.server);
      symmetric_context receiver(*p, mode, keys.server);
      auto out = chunked(sender, 40);
      sender.protect({out.data(), out.size()}, msg_header_size);
      const auto good = out.to_vector();
      for (std::size_t i = 0; i < good.size(); ++i) {
        auto bad = good;
        bad[i] ^= 0x01;
        if (receiver.unprotect(bad, msg_header_size, 5) != ua::status::bad_security_checks_failed)
          FAIL(p->name << " mode " << static_cast<int>(mode) << " offset " << i);
      }
      auto copy = good;
      REQUIRE(receiver.unprotect(copy, msg_header_size, 5) == ua::status::good);
      // Another SequenceNumber than the one the nonce was made with: refused in both modes (Sign
      // reads it from the chunk, and the chunk says 5; SignAndEncrypt builds the nonce from 6).
      if (mode == ua::message_security_mode::sign_and_encrypt) {
        copy = good;
        CHECK(receiver.unprotect(copy, msg_header_size, 6) == ua::status::bad_security_checks_failed);
      }
      // The other direction's keys do not open it.
      symmetric_context other(*p, mode, keys.client);
      copy = good;
      CHECK(other.unprotect(copy, msg_header_size, 5) == ua::status::bad_security_checks_failed);
      // Too short for a sequence header and a tag, or a header size past the end: refused, no read.
      for (const std::size_t cut : {std::size_t{0}, msg_header_size, msg_header_size + 23}) {
        bytes shorter(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut));
        CHECK(receiver.unprotect(shorter, msg_header_size, 5) == ua::status::bad_security_checks_failed);
      }
      copy = good;
      CHECK(receiver.unprotect(copy, good.size() + 1, 5) == ua::status::bad_security_checks_failed);
      CHECK(receiver.unprotect(copy, 2, 5) == ua::status::bad_security_checks_failed);
    }
  }
}

TEST_CASE("ecc edwards: keys of the wrong curve or type are refused, malformed EphemeralKeys get a Bad_ status",
          "[security][ecc]") {
  const auto ed25519 = generate_ecc_key("ED25519");
  const auto ed448 = generate_ecc_key("ED448");
  const auto p256 = generate_ecc_key("prime256v1");
  REQUIRE(ed25519);
  REQUIRE(ed448);
  REQUIRE(p256);
  CHECK(key_fits_policy(curve25519(), *ed25519));
  CHECK_FALSE(key_fits_policy(curve25519(), *ed448));
  CHECK_FALSE(key_fits_policy(curve25519(), *p256));
  CHECK_FALSE(key_fits_policy(curve448(), *ed25519));
  CHECK_FALSE(key_fits_policy(*find_policy(policy_uri_ecc_nistp256), *ed25519));
  CHECK_FALSE(key_fits_policy(*find_policy(policy_uri_basic256sha256), *ed25519));
  CHECK(ed25519->has_private());
  CHECK_FALSE(ed25519->public_only().has_private());
  // A signature with a key of the other curve fails instead of signing.
  bytes sig(64);
  CHECK_FALSE(ecc_sign(curve25519(), *ed448, {}, {sig.data(), sig.size()}));
  CHECK_FALSE(ecc_sign(curve25519(), *p256, {}, {sig.data(), sig.size()}));

  for (const auto* p : {&curve25519(), &curve448()}) {
    CAPTURE(p->name);
    const auto own = make_ephemeral_key(*p);
    REQUIRE(own);
    // Wrong lengths: Bad_NonceInvalid.
    for (const std::size_t n : {std::size_t{0}, std::size_t{31}, p->nonce_length - 1, p->nonce_length + 1, std::size_t{64}}) {
      const bytes b(n, 0x09);
      CHECK(ecc_public_from_bytes(*p, as_span(b)).error() == ua::status::bad_nonce_invalid);
    }
    // A point of small order (all zeros, or 1): an all-zero secret, refused (RFC 7748 §6.1).
    bytes zero(p->nonce_length, 0), one(p->nonce_length, 0);
    one[0] = 1;
    for (const auto& b : {zero, one}) {
      const auto keys = ecc_channel_keys(*p, *own, as_span(b), as_span(b), own->public_bytes());
      REQUIRE_FALSE(keys.has_value());
      CHECK(keys.error() == ua::status::bad_security_checks_failed);
    }
    // The EphemeralKey of another policy's length is refused before any ECDH.
    const auto other = make_ephemeral_key(p == &curve25519() ? curve448() : curve25519());
    REQUIRE(other);
    CHECK(ecc_channel_keys(*p, *own, other->public_bytes(), other->public_bytes(), own->public_bytes()).error() ==
          ua::status::bad_nonce_invalid);
  }
}

TEST_CASE("ecc edwards: create_self_signed makes Ed25519 and Ed448 application certificates that verify",
          "[security][ecc]") {
  for (const auto* p : {&curve25519(), &curve448()}) {
    CAPTURE(p->name);
    certificate_request r;
    r.application_uri = "urn:uactor:test:edwards";
    r.common_name = "edwards";
    r.host_names = {"localhost"};
    r.curve = std::string(p->curve);
    const auto id = create_self_signed(r, system_now());
    REQUIRE(id.has_value());
    CHECK(key_fits_policy(*p, id->cert.public_key()));
    CHECK(key_fits_policy(*p, id->private_key));
    CHECK(id->cert.application_uri() == "urn:uactor:test:edwards");
    CHECK(id->cert.key_bits() >= p->min_key_bits);
    CHECK(id->cert.key_bits() <= p->max_key_bits);
    // Signed by its own Ed key (PureEdDSA, no digest): the DER reads back and the key signs.
    const auto again = certificate::from_der(id->cert.der());
    REQUIRE(again.has_value());
    const bytes data = {1, 2, 3};
    const auto s = sign(*p, id->private_key, as_span(data));
    CHECK(s.size() == p->ecc_signature_size());
    CHECK(verify(*p, again->public_key(), as_span(data), {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}));
  }
}

}  // namespace security_ecc_edwards_test
