// The ECC policies' primitives (Part 6 §6.8.1) against vectors computed without uactor's code
// (tests/security/make_ecc_vectors.py, python3-cryptography): EphemeralKeys as X | Y, ECDH, the
// HKDF key derivation, ECDSA as r | s; and what a malformed EphemeralKey or a key of another
// curve gets.
#include <catch2/catch.hpp>

#include <string>

#include <openssl/ec.h>
#include <openssl/evp.h>

#include "security/certificate.hpp"
#include "security/ecc.hpp"
#include "security/policy.hpp"
#include "security/session_crypto.hpp"
#include "security/symmetric.hpp"
#include "uactor/ua/types.hpp"
#include "tests/security/crypto_test_support.hpp"
#include "tests/security/ecc_vectors.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace security_ecc_test {

using namespace uactor;
using namespace uactor::security;
using uactor::test::as_span;
using uactor::test::from_hex;
namespace ev = uactor::test::ecc_vectors;

namespace {

struct ecc_vector {
  std::string_view uri;
  std::string_view client_pem, server_pem, client_nonce, server_nonce, secret;
  std::string_view client_signing, client_encrypting, client_iv, server_signing, server_encrypting, server_iv;
  std::string_view signer_pem, signature;
};

#define UACTOR_ECC_VECTOR(uri, n)                                                                                   \
  ecc_vector {                                                                                                      \
    uri, ev::n##_client_private_pem, ev::n##_server_private_pem, ev::n##_client_nonce, ev::n##_server_nonce,         \
        ev::n##_shared_secret, ev::n##_client_signing, ev::n##_client_encrypting, ev::n##_client_iv,                \
        ev::n##_server_signing, ev::n##_server_encrypting, ev::n##_server_iv, ev::n##_signer_private_pem,           \
        ev::n##_signature                                                                                           \
  }

const ecc_vector ecc_vectors_all[] = {
    UACTOR_ECC_VECTOR(policy_uri_ecc_nistp256, nistp256),
    UACTOR_ECC_VECTOR(policy_uri_ecc_nistp384, nistp384),
    UACTOR_ECC_VECTOR(policy_uri_ecc_brainpoolp256r1, brainpoolp256r1),
    UACTOR_ECC_VECTOR(policy_uri_ecc_brainpoolp384r1, brainpoolp384r1),
};

rsa_key ecc_key_from_pem(std::string_view pem) {
  auto k = rsa_key::from_private_pem(pem);
  REQUIRE(k.has_value());
  return *k;
}

// An EphemeralKey from a fixed private key: what make_ephemeral_key would have made.
ephemeral_key fixed_ephemeral(std::string_view pem, std::string_view nonce_hex) {
  ephemeral_key e;
  e.key = ecc_key_from_pem(pem);
  const auto nonce = from_hex(nonce_hex);
  e.size = nonce.size();
  std::copy(nonce.begin(), nonce.end(), e.bytes.begin());
  return e;
}

std::string ecc_hex(std::span<const std::uint8_t> b) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (auto v : b) {
    s += digits[v >> 4];
    s += digits[v & 15];
  }
  return s;
}

}  // namespace

TEST_CASE("ecc: the policy table has the four ECC policies of Part 7 with their lengths", "[security][ecc]") {
  const auto* p256 = find_policy(policy_uri_ecc_nistp256);
  const auto* p384 = find_policy(policy_uri_ecc_nistp384);
  REQUIRE(p256);
  REQUIRE(p384);
  REQUIRE(find_policy(policy_uri_ecc_brainpoolp256r1));
  REQUIRE(find_policy(policy_uri_ecc_brainpoolp384r1));
  CHECK(p256->is_ecc());
  CHECK_FALSE(p256->is_none());
  CHECK(p256->nonce_length == 64);
  CHECK(p256->ecc_signature_size() == 64);
  CHECK(p256->encrypting_key_length == 16);  // AES128-CBC
  CHECK(p256->symmetric_signature_length == 32);
  CHECK(p384->nonce_length == 96);
  CHECK(p384->signing_key_length == 48);
  CHECK(p384->encrypting_key_length == 32);  // AES256-CBC
  CHECK(p384->symmetric_signature_length == 48);  // HMAC-SHA2-384
  CHECK_FALSE(find_policy(policy_uri_basic256sha256)->is_ecc());
}

TEST_CASE("ecc: ECDH and the Part 6 §6.8.1 key derivation give the independently computed keys", "[security][ecc]") {
  for (const auto& v : ecc_vectors_all) {
    CAPTURE(v.uri);
    const auto& p = *find_policy(v.uri);
    const auto client = fixed_ephemeral(v.client_pem, v.client_nonce);
    const auto server = fixed_ephemeral(v.server_pem, v.server_nonce);

    // The nonces the keys would send: X | Y of each public key.
    std::uint8_t point[1 + max_ecc_point_size];
    std::size_t len = 0;
    REQUIRE(EVP_PKEY_get_octet_string_param(client.key.native(), "encoded-pub-key", point, sizeof point, &len) == 1);
    CHECK(ecc_hex({point + 1, len - 1}) == v.client_nonce);

    const auto server_public = ecc_public_from_bytes(p, from_hex(v.server_nonce));
    REQUIRE(server_public.has_value());
    std::vector<std::uint8_t> secret(p.coordinate_size);
    REQUIRE(ecdh_shared_secret(client.key, *server_public, secret));
    CHECK(ecc_hex(secret) == v.secret);

    const auto cn = from_hex(v.client_nonce);
    const auto sn = from_hex(v.server_nonce);
    // Both sides derive the same keys, equal to the vector's.
    const auto at_client = ecc_channel_keys(p, client, as_span(sn), as_span(cn), as_span(sn));
    const auto at_server = ecc_channel_keys(p, server, as_span(cn), as_span(cn), as_span(sn));
    REQUIRE(at_client.has_value());
    REQUIRE(at_server.has_value());
    CHECK(at_client->client == at_server->client);
    CHECK(at_client->server == at_server->server);
    const auto& k = *at_client;
    CHECK(ecc_hex(k.client.signing_key()) == v.client_signing);
    CHECK(ecc_hex(k.client.encrypting_key()) == v.client_encrypting);
    CHECK(ecc_hex(k.client.iv) == v.client_iv);
    CHECK(ecc_hex(k.server.signing_key()) == v.server_signing);
    CHECK(ecc_hex(k.server.encrypting_key()) == v.server_encrypting);
    CHECK(ecc_hex(k.server.iv) == v.server_iv);
    // The keys fit the policy's symmetric context.
    CHECK_NOTHROW(symmetric_context(p, ua::message_security_mode::sign_and_encrypt, k.client));
  }
}

TEST_CASE("ecc: an ECDSA signature is r | s of two coordinates and verifies both ways with the vectors",
          "[security][ecc]") {
  const auto data = from_hex(ev::signed_data);
  for (const auto& v : ecc_vectors_all) {
    CAPTURE(v.uri);
    const auto& p = *find_policy(v.uri);
    const auto signer = ecc_key_from_pem(v.signer_pem);
    // The vector's signature (made by python3-cryptography) verifies; one flipped bit does not.
    auto sig = from_hex(v.signature);
    REQUIRE(sig.size() == p.ecc_signature_size());
    CHECK(ecc_verify(p, signer, as_span(data), as_span(sig)));
    sig[5] ^= 0x01;
    CHECK_FALSE(ecc_verify(p, signer, as_span(data), as_span(sig)));
    sig[5] ^= 0x01;
    // A DER signature (what OpenSSL makes) is not what OPC UA sends: refused by length.
    CHECK_FALSE(ecc_verify(p, signer, as_span(data), std::span(sig).first(sig.size() - 1)));

    // Ours, re-encoded as DER, verifies with OpenSSL directly (not with the code under test).
    std::vector<std::uint8_t> mine(p.ecc_signature_size());
    REQUIRE(ecc_sign(p, signer, as_span(data), mine));
    const int c = static_cast<int>(p.coordinate_size);
    ECDSA_SIG* es = ECDSA_SIG_new();
    REQUIRE(ECDSA_SIG_set0(es, BN_bin2bn(mine.data(), c, nullptr), BN_bin2bn(mine.data() + c, c, nullptr)) == 1);
    unsigned char* der = nullptr;
    const int der_len = i2d_ECDSA_SIG(es, &der);
    ECDSA_SIG_free(es);
    REQUIRE(der_len > 0);
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    const EVP_MD* digest = p.hash == policy_hash::sha384 ? EVP_sha384() : EVP_sha256();
    CHECK(EVP_DigestVerifyInit(md, nullptr, digest, nullptr, signer.native()) == 1);
    CHECK(EVP_DigestVerify(md, der, static_cast<std::size_t>(der_len), data.data(), data.size()) == 1);
    EVP_MD_CTX_free(md);
    OPENSSL_free(der);
    // session_crypto signs and verifies with ECDSA for an ECC policy.
    const auto s = sign(p, signer, as_span(data));
    CHECK(s.size() == p.ecc_signature_size());
    CHECK(verify(p, signer.public_only(), as_span(data),
                 {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}));
  }
}

TEST_CASE("ecc: a malformed EphemeralKey gets Bad_NonceInvalid or Bad_SecurityChecksFailed, never a crash",
          "[security][ecc]") {
  const auto& p = *find_policy(policy_uri_ecc_nistp256);
  const auto good = from_hex(ev::nistp256_server_nonce);
  REQUIRE(ecc_public_from_bytes(p, as_span(good)).has_value());
  SECTION("wrong length") {
    for (std::size_t n : {0, 1, 32, 63, 65, 96}) {
      std::vector<std::uint8_t> b(n, 0x11);
      CHECK(ecc_public_from_bytes(p, b).error() == ua::status::bad_nonce_invalid);
    }
  }
  SECTION("not on the curve") {
    auto b = good;
    b.back() ^= 0x01;  // Y + or - 1
    CHECK(ecc_public_from_bytes(p, as_span(b)).error() == ua::status::bad_security_checks_failed);
  }
  SECTION("all zeros, all ones") {
    std::vector<std::uint8_t> zeros(64, 0x00), ones(64, 0xFF);
    CHECK(ecc_public_from_bytes(p, zeros).error() == ua::status::bad_security_checks_failed);
    CHECK(ecc_public_from_bytes(p, ones).error() == ua::status::bad_security_checks_failed);
  }
  SECTION("a point of another curve of the same size") {
    const auto brainpool = from_hex(ev::brainpoolp256r1_server_nonce);
    CHECK(ecc_public_from_bytes(p, as_span(brainpool)).error() == ua::status::bad_security_checks_failed);
  }
  SECTION("the whole derivation refuses it too") {
    auto own = make_ephemeral_key(p);
    REQUIRE(own.has_value());
    auto b = good;
    b[10] ^= 0x40;
    const auto cn = own->public_bytes();
    CHECK(ecc_channel_keys(p, *own, as_span(b), cn, as_span(b)).error() == ua::status::bad_security_checks_failed);
  }
}

TEST_CASE("ecc: a key of another curve or type does not fit the policy", "[security][ecc]") {
  const auto p256 = ecc_key_from_pem(ev::nistp256_signer_private_pem);
  const auto bp256 = ecc_key_from_pem(ev::brainpoolp256r1_signer_private_pem);
  const auto& nist = *find_policy(policy_uri_ecc_nistp256);
  const auto& brainpool = *find_policy(policy_uri_ecc_brainpoolp256r1);
  const auto& rsa_policy = *find_policy(policy_uri_basic256sha256);
  CHECK(key_fits_policy(nist, p256));
  CHECK_FALSE(key_fits_policy(nist, bp256));
  CHECK(key_fits_policy(brainpool, bp256));
  CHECK_FALSE(key_fits_policy(rsa_policy, p256));
  CHECK_FALSE(key_fits_policy(nist, test::test_rsa_key(2048)));
  CHECK(key_fits_policy(rsa_policy, test::test_rsa_key(2048)));
  // Signatures refuse a key of the wrong curve rather than sign with it.
  const auto data = from_hex(ev::signed_data);
  CHECK(sign(nist, bp256, as_span(data)).empty());
  CHECK(sign(nist, test::test_rsa_key(2048), as_span(data)).empty());
}

TEST_CASE("ecc: create_self_signed makes an EC certificate on each policy's curve", "[security][ecc]") {
  for (const auto& p : all_policies()) {
    if (!p.is_ecc()) continue;
    CAPTURE(p.name);
    certificate_request r;
    r.application_uri = "urn:test:ecc";
    r.curve = std::string(p.curve);
    auto id = create_self_signed(r, system_now());
    REQUIRE(id.has_value());
    CHECK(key_fits_policy(p, id->cert.public_key()));
    CHECK(key_fits_policy(p, id->private_key));
    CHECK(id->cert.key_bits() == p.min_key_bits);
    CHECK(id->cert.self_signed());
    // It parses back from its DER, and its key from its PEM.
    CHECK(certificate::from_der(id->cert.der()).has_value());
    CHECK(rsa_key::from_private_pem(id->private_key.to_private_pem()).has_value());
  }
}

}  // namespace security_ecc_test
