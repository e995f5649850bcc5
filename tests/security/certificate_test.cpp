// Tests of security/certificate: parsing (DER, PEM, chains, garbage) and the self-signed
// application instance certificate of Part 6 §6.2.2, read back by our parser, by `openssl x509`
// and, when tests/interop/node_modules is there, by node-opcua-crypto.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "uactor/ua/status_codes.hpp"
#include "security/certificate.hpp"
#include "tests/security/pki_test_support.hpp"

using namespace uactor;
using namespace uactor::security;
using namespace uactor::security::testing;

namespace {

// 2026-11-30T00:00:00Z: fixed, so that validity checks do not depend on the machine's clock.
constexpr ua::date_time t0 = ua::date_time::from_unix_ms(1'795'996'800'000);

const application_identity& shared_identity() {
  static const application_identity id = [] {
    certificate_request r;
    r.application_uri = "urn:test-host:uactor:server";
    r.host_names = {"test-host", "127.0.0.1", "::1"};
    auto made = create_self_signed(r, t0);
    REQUIRE(made.has_value());
    return *made;
  }();
  return id;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("create_self_signed: v3, SHA-256, SAN URI/DNS/IP, the usages and identifiers of Part 6 §6.2.2",
          "[security]") {
  const auto& id = shared_identity();
  const certificate& c = id.cert;
  X509* x = c.native();
  REQUIRE(x != nullptr);
  CHECK(X509_get_version(x) == X509_VERSION_3);
  CHECK(X509_get_signature_nid(x) == NID_sha256WithRSAEncryption);
  CHECK(c.key_bits() == 2048);
  CHECK(id.private_key.has_private());
  CHECK(EVP_PKEY_eq(c.public_key().native(), id.private_key.native()) == 1);
  CHECK(c.application_uri() == "urn:test-host:uactor:server");
  CHECK(c.host_names() == std::vector<std::string>{"test-host", "127.0.0.1", "::1"});
  CHECK(c.subject() == "CN = uactor, O = uactor");
  CHECK(c.common_name() == "uactor");
  CHECK(c.self_signed());

  // Validity: an hour of clock skew before `now`, five years after.
  CHECK(c.valid_from().to_unix_ms() == t0.to_unix_ms() - 3'600'000);
  CHECK(c.valid_to().to_unix_ms() == t0.to_unix_ms() + 5LL * 365 * day_ms);

  const auto flags = X509_get_extension_flags(x);
  REQUIRE((flags & EXFLAG_KUSAGE) != 0);
  CHECK(X509_get_key_usage(x) == (KU_DIGITAL_SIGNATURE | KU_NON_REPUDIATION | KU_KEY_ENCIPHERMENT |
                                  KU_DATA_ENCIPHERMENT | KU_KEY_CERT_SIGN));
  REQUIRE((flags & EXFLAG_XKUSAGE) != 0);
  CHECK(X509_get_extended_key_usage(x) == (XKU_SSL_SERVER | XKU_SSL_CLIENT));
  CHECK((flags & EXFLAG_BCONS) != 0);
  CHECK((flags & EXFLAG_CA) == 0);
  CHECK(X509_get0_subject_key_id(x) != nullptr);
  CHECK(X509_get0_authority_key_id(x) != nullptr);
  CHECK(ASN1_OCTET_STRING_cmp(X509_get0_subject_key_id(x), X509_get0_authority_key_id(x)) == 0);

  // Serial: random, 16 bytes, positive.
  const ASN1_INTEGER* serial = X509_get0_serialNumber(x);
  CHECK(ASN1_STRING_length(serial) == 16);
  CHECK(ASN1_STRING_type(serial) == V_ASN1_INTEGER);
}

TEST_CASE("create_self_signed: two certificates differ in serial and key, bad requests are refused", "[security]") {
  certificate_request r;
  r.application_uri = "urn:a";
  auto a = create_self_signed(r, t0);
  REQUIRE(a.has_value());
  const auto& b = shared_identity();
  CHECK(ASN1_INTEGER_cmp(X509_get0_serialNumber(a->cert.native()), X509_get0_serialNumber(b.cert.native())) != 0);
  CHECK(EVP_PKEY_eq(a->cert.public_key().native(), b.cert.public_key().native()) != 1);
  CHECK(a->cert.host_names().empty());

  certificate_request no_uri;
  CHECK(create_self_signed(no_uri, t0).error() == ua::status::bad_invalid_argument);
  certificate_request tiny = r;
  tiny.key_bits = 512;
  CHECK(create_self_signed(tiny, t0).error() == ua::status::bad_invalid_argument);
}

TEST_CASE("certificate: der() round-trips, the thumbprint is the SHA-1 of the DER, copies share", "[security]") {
  const auto& c = shared_identity().cert;
  auto again = certificate::from_der(c.der());
  REQUIRE(again.has_value());
  CHECK(*again == c);
  CHECK(again->thumbprint() == c.thumbprint());
  std::array<std::uint8_t, 20> sha1{};
  unsigned n = 0;
  REQUIRE(EVP_Digest(c.der().data(), c.der().size(), sha1.data(), &n, EVP_sha1(), nullptr) == 1);
  CHECK(c.thumbprint() == sha1);
  CHECK(c.thumbprint_hex().size() == 40);
  const certificate copy = c;  // NOLINT: the copy is the point
  CHECK(copy.native() == c.native());
  CHECK(contains(c.describe(), c.thumbprint_hex()));
  CHECK(contains(c.describe(), "CN = uactor"));
}

TEST_CASE("certificate: garbage, truncated and trailing bytes get Bad_CertificateInvalid", "[security]") {
  const auto der = shared_identity().cert.der();
  const std::vector<std::uint8_t> bytes(der.begin(), der.end());
  CHECK(certificate::from_der({}).error() == ua::status::bad_certificate_invalid);
  const std::vector<std::uint8_t> garbage{0x30, 0x82, 0xFF, 0xFF, 0x01, 0x02, 0x03};
  CHECK(certificate::from_der(garbage).error() == ua::status::bad_certificate_invalid);
  for (std::size_t cut = 0; cut < bytes.size(); cut += 7)
    CHECK(certificate::from_der({bytes.data(), cut}).error() == ua::status::bad_certificate_invalid);
  auto trailing = bytes;
  trailing.push_back(0);
  CHECK(certificate::from_der(trailing).error() == ua::status::bad_certificate_invalid);
  // Every byte flipped: a parse failure or a certificate, never a crash (ASan/UBSan watch).
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    auto flipped = bytes;
    flipped[i] ^= 0xFF;
    auto c = certificate::from_der(flipped);
    if (c) CHECK(c->der().size() == bytes.size());
  }
}

TEST_CASE("certificate: a chain of leaf and issuer back to back splits into both, garbage after it fails",
          "[security]") {
  const auto& a = shared_identity().cert;
  auto ca = make_cert({.common_name = "ca", .uri = "", .not_before = t0, .not_after = t0, .ca = true});
  std::vector<std::uint8_t> both(a.der().begin(), a.der().end());
  both.insert(both.end(), ca.cert.der().begin(), ca.cert.der().end());
  auto chain = certificate::chain_from_der(both);
  REQUIRE(chain.has_value());
  REQUIRE(chain->size() == 2);
  CHECK((*chain)[0] == a);
  CHECK((*chain)[1] == ca.cert);
  CHECK(certificate::from_der(both).error() == ua::status::bad_certificate_invalid);
  both.push_back(0x30);
  CHECK(certificate::chain_from_der(both).error() == ua::status::bad_certificate_invalid);
}

namespace {

std::vector<std::uint8_t> concat(std::initializer_list<std::span<const std::uint8_t>> parts) {
  std::vector<std::uint8_t> out;
  for (auto p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// A CA certificate, made once per process (key generation is the slow part of these tests).
const issued& shared_ca() {
  static const issued ca = make_cert({.common_name = "ca", .uri = "", .not_before = t0, .not_after = t0, .ca = true});
  return ca;
}

// chain_from_der's verdict on hostile bytes: Bad_CertificateInvalid and a reason containing `says`.
void refused(std::span<const std::uint8_t> bytes, const std::string& says) {
  std::string why;
  auto chain = certificate::chain_from_der(bytes, &why);
  INFO(why);
  REQUIRE_FALSE(chain.has_value());
  CHECK(chain.error() == ua::status::bad_certificate_invalid);
  CHECK(why.find(says) != std::string::npos);
}

}  // namespace

TEST_CASE("certificate: chain splitting refuses truncated, lying, oversized, too many and trailing parts with a reason",
          "[security][chain]") {
  const auto leaf = shared_identity().cert.der();
  const auto issuer = shared_ca().cert.der();
  const auto good = concat({leaf, issuer});
  REQUIRE(certificate::chain_from_der(good)->size() == 2);

  refused({}, "empty");
  SECTION("the second certificate cut at any byte") {
    for (std::size_t cut = 1; cut < issuer.size(); cut += 7) {
      const std::span<const std::uint8_t> part(good.data(), leaf.size() + cut);
      std::string why;
      CHECK_FALSE(certificate::chain_from_der(part, &why).has_value());
      CHECK(why.find("certificate 2 of the chain") != std::string::npos);
    }
    refused(std::span<const std::uint8_t>(good.data(), leaf.size() + 1), "truncated ASN.1 header");
    refused(std::span<const std::uint8_t>(good.data(), leaf.size() + 3), "truncated ASN.1 length");
    refused(std::span<const std::uint8_t>(good.data(), leaf.size() + 100), "are left");
  }
  SECTION("a length that claims more than is left, or more than a certificate may be") {
    auto lying = good;
    lying[leaf.size() + 1] = 0x84;  // four length bytes follow: 0x7FFFFFFF-ish
    lying[leaf.size() + 2] = 0x7F;
    refused(lying, "at most");
    auto longer = good;
    // The issuer's own length (0x82 hi lo) one larger than its contents.
    REQUIRE(longer[leaf.size() + 1] == 0x82);
    const unsigned len = (longer[leaf.size() + 2] << 8 | longer[leaf.size() + 3]) + 1u;
    longer[leaf.size() + 2] = static_cast<std::uint8_t>(len >> 8);
    longer[leaf.size() + 3] = static_cast<std::uint8_t>(len);
    refused(longer, "are left");
    auto indefinite = good;
    indefinite[leaf.size() + 1] = 0x80;
    refused(indefinite, "indefinite");
    auto wide = good;
    wide[leaf.size() + 1] = 0x85;
    refused(wide, "length bytes");
  }
  SECTION("a part that is framed right but is no certificate") {
    std::vector<std::uint8_t> seq{0x30, 0x03, 0x02, 0x01, 0x05};  // SEQUENCE { INTEGER 5 }
    refused(concat({leaf, seq}), "not an X.509 certificate");
    refused(concat({seq, leaf}), "certificate 1 of the chain");
  }
  SECTION("garbage after the chain, a tag that is not a SEQUENCE") {
    refused(concat({good, std::vector<std::uint8_t>{0x00}}), "truncated ASN.1 header");
    refused(concat({good, std::vector<std::uint8_t>{0x04, 0x00}}), "not an ASN.1 SEQUENCE (tag 0x04)");
    refused(concat({good, std::vector<std::uint8_t>{0x30, 0x00}}), "not an X.509 certificate");
  }
  SECTION("ten certificates are a chain, eleven or a hundred are not") {
    std::vector<std::uint8_t> many;
    for (std::size_t i = 0; i < certificate::max_chain_certificates; ++i) many.insert(many.end(), issuer.begin(), issuer.end());
    REQUIRE(certificate::chain_from_der(many)->size() == certificate::max_chain_certificates);
    many.insert(many.end(), issuer.begin(), issuer.end());
    refused(many, "more than 10 certificates");
    std::vector<std::uint8_t> hundred;
    for (int i = 0; i < 100; ++i) hundred.insert(hundred.end(), issuer.begin(), issuer.end());
    refused(hundred, "more than 10 certificates");
  }
}

TEST_CASE("certificate: chain_from_file reads a chain as DER back to back or as PEM blocks", "[security][chain]") {
  temp_dir dir;
  const auto& leaf = shared_identity().cert;
  const auto& ca = shared_ca();
  write_file(dir.path() / "chain.der", chain_der(leaf, std::vector<certificate>{ca.cert}));
  auto der = certificate::chain_from_file(dir.path() / "chain.der");
  REQUIRE(der.has_value());
  REQUIRE(der->size() == 2);
  CHECK((*der)[0] == leaf);
  CHECK((*der)[1] == ca.cert);
  std::string pem;
  for (const certificate* c : {&leaf, static_cast<const certificate*>(&ca.cert)}) {
    bio_ptr bio(BIO_new(BIO_s_mem()));
    REQUIRE(PEM_write_bio_X509(bio.get(), c->native()) == 1);
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio.get(), &data);
    pem.append(data, static_cast<std::size_t>(n));
  }
  write_file(dir.path() / "chain.pem", std::span(reinterpret_cast<const std::uint8_t*>(pem.data()), pem.size()));
  auto from_pem = certificate::chain_from_file(dir.path() / "chain.pem");
  REQUIRE(from_pem.has_value());
  REQUIRE(from_pem->size() == 2);
  CHECK((*from_pem)[1] == ca.cert);
  // One certificate is a chain of one; from_file still reads the leaf of a chain file's PEM.
  CHECK(certificate::chain_from_file(dir.path() / "missing.der").error() == ua::status::bad_not_found);
  auto first = certificate::from_file(dir.path() / "chain.pem");
  REQUIRE(first.has_value());
  CHECK(*first == leaf);
  auto first_der = certificate::from_file(dir.path() / "chain.der");
  REQUIRE(first_der.has_value());
  CHECK(*first_der == leaf);
}

TEST_CASE("certificate: from_file reads DER and PEM, a missing file is Bad_NotFound", "[security]") {
  temp_dir dir;
  const auto& c = shared_identity().cert;
  write_file(dir.path() / "c.der", c.der());
  auto der = certificate::from_file(dir.path() / "c.der");
  REQUIRE(der.has_value());
  CHECK(*der == c);

  bio_ptr bio(BIO_new(BIO_s_mem()));
  REQUIRE(PEM_write_bio_X509(bio.get(), c.native()) == 1);
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio.get(), &data);
  write_file(dir.path() / "c.pem", {reinterpret_cast<const std::uint8_t*>(data), static_cast<std::size_t>(len)});
  auto pem = certificate::from_file(dir.path() / "c.pem");
  REQUIRE(pem.has_value());
  CHECK(*pem == c);

  CHECK(certificate::from_file(dir.path() / "none.der").error() == ua::status::bad_not_found);
  const std::string junk = "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n";
  write_file(dir.path() / "junk.pem", {reinterpret_cast<const std::uint8_t*>(junk.data()), junk.size()});
  CHECK(certificate::from_file(dir.path() / "junk.pem").error() == ua::status::bad_certificate_invalid);
}

TEST_CASE("create_self_signed: `openssl x509` reads the certificate and finds the same fields", "[security]") {
  if (run("command -v openssl >/dev/null 2>&1").first != 0) { WARN(std::string("skipped: ") + "no openssl command"); return; }
  temp_dir dir;
  const auto& c = shared_identity().cert;
  write_file(dir.path() / "c.der", c.der());
  const auto [status, text] =
      run("openssl x509 -inform DER -in '" + (dir.path() / "c.der").string() + "' -noout -text -fingerprint -sha1");
  REQUIRE(status == 0);
  CHECK(contains(text, "Version: 3 (0x2)"));
  CHECK(contains(text, "Signature Algorithm: sha256WithRSAEncryption"));
  CHECK(contains(text, "Public-Key: (2048 bit)"));
  CHECK(contains(text, "URI:urn:test-host:uactor:server"));
  CHECK(contains(text, "DNS:test-host"));
  CHECK(contains(text, "IP Address:127.0.0.1"));
  CHECK(contains(text, "CA:FALSE"));
  CHECK(contains(text, "Digital Signature, Non Repudiation, Key Encipherment, Data Encipherment, Certificate Sign"));
  CHECK(contains(text, "TLS Web Server Authentication, TLS Web Client Authentication"));
  CHECK(contains(text, "X509v3 Subject Key Identifier"));
  CHECK(contains(text, "X509v3 Authority Key Identifier"));
  // openssl prints the SHA-1 fingerprint as colon-separated hex.
  std::string colon_hex;
  const auto hex = c.thumbprint_hex();
  for (std::size_t i = 0; i < hex.size(); i += 2) colon_hex += (i ? ":" : "") + hex.substr(i, 2);
  CHECK(contains(text, colon_hex));
}

TEST_CASE("create_self_signed: node-opcua-crypto parses the certificate and verifies its signature", "[security]") {
  const std::filesystem::path modules = std::filesystem::path(UACTOR_SOURCE_DIR) / "tests/interop/node_modules";
  if (run("command -v node >/dev/null 2>&1").first != 0 || !std::filesystem::exists(modules / "node-opcua-crypto"))
    { WARN(std::string("skipped: ") + "no node or node-opcua-crypto"); return; }
  temp_dir dir;
  const auto& c = shared_identity().cert;
  write_file(dir.path() / "c.der", c.der());
  const std::string script = R"(
const crypto = require('node-opcua-crypto');
const fs = require('fs');
const der = fs.readFileSync(process.argv[2]);
const info = crypto.exploreCertificate(der);
const ext = info.tbsCertificate.extensions;
console.log('uri=' + ext.subjectAltName.uniformResourceIdentifier[0]);
console.log('dns=' + ext.subjectAltName.dNSName.join(','));
console.log('ca=' + ext.basicConstraints.cA);
console.log('signature=' + crypto.verifyCertificateSignature(der, der));
console.log('bits=' + crypto.exploreCertificateInfo(der).publicKeyLength * 8);
)";
  write_file(dir.path() / "check.js", {reinterpret_cast<const std::uint8_t*>(script.data()), script.size()});
  const auto [status, out] = run("NODE_PATH='" + modules.string() + "' node '" +
                                 (dir.path() / "check.js").string() + "' '" + (dir.path() / "c.der").string() +
                                 "' 2>&1");
  INFO(out);
  REQUIRE(status == 0);
  CHECK(contains(out, "uri=urn:test-host:uactor:server"));
  CHECK(contains(out, "dns=test-host"));
  CHECK(contains(out, "ca=false"));
  CHECK(contains(out, "signature=true"));
  CHECK(contains(out, "bits=2048"));
}

// Some clients send an X509IdentityToken's certificateData as PEM: the session check reads
// it with from_der_or_pem; the certificate is the same, and garbage is still refused.
TEST_CASE("certificate: from_der_or_pem reads DER and PEM alike and refuses anything else", "[security]") {
  const auto& cert = shared_identity().cert;
  const auto der = cert.der();
  BIO* bio = BIO_new(BIO_s_mem());
  REQUIRE(PEM_write_bio_X509(bio, cert.native()) == 1);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  const std::string pem(data, static_cast<std::size_t>(n));
  BIO_free(bio);
  const auto bytes = [](std::string_view s) { return std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()); };

  const auto from_der = certificate::from_der_or_pem(der);
  const auto from_pem = certificate::from_der_or_pem(bytes(pem));
  REQUIRE(from_der.has_value());
  REQUIRE(from_pem.has_value());
  CHECK(from_pem->thumbprint_hex() == cert.thumbprint_hex());
  CHECK(from_der->thumbprint_hex() == cert.thumbprint_hex());
  CHECK(certificate::from_der_or_pem(bytes("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n")).error() ==
        ua::status::bad_certificate_invalid);
  CHECK(certificate::from_der_or_pem(bytes(pem.substr(0, pem.size() / 2))).error() == ua::status::bad_certificate_invalid);
  CHECK(certificate::from_der_or_pem(der.first(der.size() - 1)).error() == ua::status::bad_certificate_invalid);
  CHECK(certificate::from_der_or_pem({}).error() == ua::status::bad_certificate_invalid);
}
