// Tests of security/pki_store: the folders, the own identity, and each check of Part 4 §6.1.3
// with the status the spec names for it, on certificates made by tests/security/pki_test_support.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "uactor/ua/status_codes.hpp"
#include "security/pki_store.hpp"
#include "tests/security/pki_test_support.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace security_pki_store_test {

using namespace uactor;
using namespace uactor::security;
using namespace uactor::security::testing;
namespace fs = std::filesystem;

namespace {

constexpr ua::date_time t0 = ua::date_time::from_unix_ms(1'795'996'800'000);  // 2026-11-30
constexpr ua::date_time year_ago = ua::date_time::from_unix_ms(t0.to_unix_ms() - 365 * day_ms);
constexpr ua::date_time in_a_year = ua::date_time::from_unix_ms(t0.to_unix_ms() + 365 * day_ms);

// Key generation is the slow part; the tests share a few keys.
const rsa_key& key(int which) {
  static const std::vector<rsa_key> keys = [] {
    std::vector<rsa_key> k;
    for (int i = 0; i < 5; ++i) k.push_back(*rsa_key::generate(2048));
    return k;
  }();
  return keys.at(static_cast<std::size_t>(which));
}

cert_spec leaf_spec(std::string cn, int which_key, long serial = 1) {
  cert_spec s;
  s.common_name = std::move(cn);
  s.uri = "urn:test:" + s.common_name;
  s.key = key(which_key);
  s.not_before = year_ago;
  s.not_after = in_a_year;
  s.serial = serial;
  return s;
}

cert_spec ca_spec(std::string cn, int which_key) {
  auto s = leaf_spec(std::move(cn), which_key, 1000);
  s.uri.clear();
  s.ca = true;
  return s;
}

validation_options opts() { return {}; }

bool has_file(const fs::path& dir, const std::string& name) { return fs::exists(dir / name); }

void put(const fs::path& file, const certificate& c) { write_file(file, c.der()); }

}  // namespace

TEST_CASE("pki_store: creates node-opcua's folders", "[security]") {
  temp_dir dir;
  pki_store store(dir.path() / "pki");
  for (const char* sub : {"own/certs", "own/private", "trusted/certs", "trusted/crl", "issuers/certs", "issuers/crl",
                          "rejected/certs"})
    CHECK(fs::is_directory(dir.path() / "pki" / sub));
  CHECK(store.root() == dir.path() / "pki");
}

TEST_CASE("pki_store: load_or_create_own creates own/ once (key 0600) and loads it after", "[security]") {
  temp_dir dir;
  certificate_request r;
  r.application_uri = "urn:host:uactor:server";
  r.host_names = {"host"};
  application_identity first;
  {
    pki_store store(dir.path());
    auto id = store.load_or_create_own(r);
    REQUIRE(id.has_value());
    first = *id;
  }
  const auto key_file = dir.path() / "own/private/uactor.pem";
  REQUIRE(fs::exists(dir.path() / "own/certs/uactor.der"));
  REQUIRE(fs::exists(key_file));
  struct stat st {};
  REQUIRE(::stat(key_file.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  pki_store again(dir.path());
  auto loaded = again.load_or_create_own(r);
  REQUIRE(loaded.has_value());
  CHECK(loaded->cert == first.cert);
  CHECK(loaded->private_key.has_private());
  CHECK(EVP_PKEY_eq(loaded->private_key.native(), first.private_key.native()) == 1);
  CHECK(again.list("own").size() == 1);

  // A certificate whose key is not the one in private/: refused, nothing overwritten.
  auto other = make_cert(leaf_spec("other", 0));
  put(dir.path() / "own/certs/uactor.der", other.cert);
  CHECK(again.load_or_create_own(r).error() == ua::status::bad_certificate_invalid);
  // Half an identity: refused, the key is kept.
  fs::remove(dir.path() / "own/certs/uactor.der");
  CHECK(again.load_or_create_own(r).error() == ua::status::bad_certificate_invalid);
  CHECK(fs::exists(key_file));
  CHECK(again.load_or_create_own(r, "../escape").error() == ua::status::bad_invalid_argument);
}

TEST_CASE("pki_store: a trusted self-signed certificate is Good", "[security]") {
  temp_dir dir;
  pki_store store(dir.path());
  auto peer = make_cert(leaf_spec("peer", 0));
  REQUIRE(store.trust(peer.cert).is_good());
  CHECK(has_file(dir.path() / "trusted/certs", pki_store::file_name_for(peer.cert)));
  const auto r = store.validate(peer.cert, opts(), t0);
  INFO(r.detail);
  CHECK(r.ok());
  CHECK(store.list("trusted").size() == 1);
  CHECK(store.list("rejected").empty());
}

TEST_CASE("pki_store: an unknown certificate gets Bad_CertificateUntrusted and lands in rejected/certs", "[security]") {
  temp_dir dir;
  pki_store store(dir.path());
  auto peer = make_cert(leaf_spec("stranger", 0));
  const auto r = store.validate(peer.cert, opts(), t0);
  CHECK(r.status == ua::status::bad_certificate_untrusted);
  CHECK(r.check == "trust list");
  const auto name = "stranger[" + peer.cert.thumbprint_hex() + "].der";
  CHECK(pki_store::file_name_for(peer.cert) == name);
  CHECK(has_file(dir.path() / "rejected/certs", name));
  CHECK(r.detail.find("move rejected/certs/" + name + " to trusted/certs/") != std::string::npos);
  CHECK(store.find("rejected", peer.cert.thumbprint_hex()) == dir.path() / "rejected/certs" / name);
  REQUIRE(store.list("rejected").size() == 1);
  CHECK(store.list("rejected")[0] == peer.cert);

  // Trusting it removes it from rejected/ and the next validation is Good.
  REQUIRE(store.trust(peer.cert).is_good());
  CHECK_FALSE(has_file(dir.path() / "rejected/certs", name));
  CHECK(store.validate(peer.cert, opts(), t0).ok());
  // Rejecting it again: out of trusted/, into rejected/.
  REQUIRE(store.reject(peer.cert).is_good());
  CHECK(store.list("trusted").empty());
  CHECK(store.validate(peer.cert, opts(), t0).status == ua::status::bad_certificate_untrusted);
}

TEST_CASE("pki_store: a certificate moved into trusted/ by an operator is picked up without a restart",
          "[security]") {
  temp_dir dir;
  pki_store store(dir.path());
  auto peer = make_cert(leaf_spec("moved", 0));
  REQUIRE(store.validate(peer.cert, opts(), t0).status == ua::status::bad_certificate_untrusted);
  const auto name = pki_store::file_name_for(peer.cert);
  fs::rename(dir.path() / "rejected/certs" / name, dir.path() / "trusted/certs" / name);
  CHECK(store.validate(peer.cert, opts(), t0).ok());
  fs::remove(dir.path() / "trusted/certs" / name);
  CHECK(store.validate(peer.cert, opts(), t0).status == ua::status::bad_certificate_untrusted);
}

TEST_CASE("pki_store: the same subject with another key is not trusted", "[security]") {
  temp_dir dir;
  pki_store store(dir.path());
  auto real = make_cert(leaf_spec("plc", 0));
  auto impostor = make_cert(leaf_spec("plc", 1));
  REQUIRE(store.trust(real.cert).is_good());
  CHECK(impostor.cert.subject() == real.cert.subject());
  const auto r = store.validate(impostor.cert, opts(), t0);
  CHECK(r.status == ua::status::bad_certificate_untrusted);
  CHECK(store.validate(real.cert, opts(), t0).ok());
}

TEST_CASE("pki_store: a tampered signature is refused with Bad_SecurityChecksFailed", "[security]") {
  temp_dir dir;
  pki_store store(dir.path());
  auto peer = make_cert(leaf_spec("peer", 0));
  REQUIRE(store.trust(peer.cert).is_good());
  std::vector<std::uint8_t> der(peer.cert.der().begin(), peer.cert.der().end());
  der[der.size() - 10] ^= 0x01;  // inside the signature BIT STRING, the last field
  auto tampered = certificate::from_der(der);
  REQUIRE(tampered.has_value());
  const auto r = store.validate(*tampered, opts(), t0);
  CHECK(r.status == ua::status::bad_security_checks_failed);
  CHECK(r.check == "signature");

  // A CA-issued leaf whose signature was changed, with its CA trusted.
  auto ca = make_cert(ca_spec("ca", 2));
  REQUIRE(store.trust(ca.cert).is_good());
  write_file(dir.path() / "trusted/crl/ca.crl", make_crl(ca, {}, t0));
  auto leaf = make_cert(leaf_spec("leaf", 0, 7), &ca);
  REQUIRE(store.validate(leaf.cert, opts(), t0).ok());
  std::vector<std::uint8_t> leaf_der(leaf.cert.der().begin(), leaf.cert.der().end());
  leaf_der[leaf_der.size() - 10] ^= 0x01;
  CHECK(store.validate(*certificate::from_der(leaf_der), opts(), t0).status == ua::status::bad_security_checks_failed);

  // A leaf naming the trusted CA as issuer but signed by another key: its authority key
  // identifier names the forger's key, so the trusted CA is not its issuer and the chain stops.
  auto forger = make_cert(ca_spec("ca", 3));
  auto forged = make_cert(leaf_spec("forged", 0, 8), &forger);
  CHECK(store.validate(forged.cert, opts(), t0).status == ua::status::bad_certificate_chain_incomplete);
}

TEST_CASE("pki_store: expired and not-yet-valid trusted certificates get Bad_CertificateTimeInvalid", "[security]") {
  temp_dir dir;
  pki_store store(dir.path());
  auto spec = leaf_spec("old", 0);
  spec.not_after = ua::date_time::from_unix_ms(t0.to_unix_ms() - day_ms);
  auto expired = make_cert(spec);
  spec = leaf_spec("young", 1);
  spec.not_before = ua::date_time::from_unix_ms(t0.to_unix_ms() + day_ms);
  auto not_yet = make_cert(spec);
  REQUIRE(store.trust(expired.cert).is_good());
  REQUIRE(store.trust(not_yet.cert).is_good());
  auto r = store.validate(expired.cert, opts(), t0);
  CHECK(r.status == ua::status::bad_certificate_time_invalid);
  CHECK(r.check == "validity period");
  CHECK(store.validate(not_yet.cert, opts(), t0).status == ua::status::bad_certificate_time_invalid);
  // Trusted already: not copied to rejected/ (trusting it again would not help).
  CHECK(store.list("rejected").empty());
  // The same certificates at a time inside their validity are Good.
  CHECK(store.validate(expired.cert, opts(), ua::date_time::from_unix_ms(t0.to_unix_ms() - 2 * day_ms)).ok());
}

TEST_CASE("pki_store: an application uri other than the certificate's gets Bad_CertificateUriInvalid",
          "[security]") {
  temp_dir dir;
  pki_store store(dir.path());
  auto peer = make_cert(leaf_spec("client", 0));
  REQUIRE(store.trust(peer.cert).is_good());
  auto o = opts();
  o.expected_application_uri = "urn:test:someone-else";
  const auto r = store.validate(peer.cert, o, t0);
  CHECK(r.status == ua::status::bad_certificate_uri_invalid);
  CHECK(r.check == "application uri");
  o.expected_application_uri = "urn:test:client";
  CHECK(store.validate(peer.cert, o, t0).ok());
}

TEST_CASE("pki_store: a 1024-bit key gets Bad_CertificatePolicyCheckFailed", "[security]") {
  temp_dir dir;
  pki_store store(dir.path());
  auto spec = leaf_spec("small", 0);
  spec.key = *rsa_key::generate(1024);
  auto small = make_cert(spec);
  REQUIRE(store.trust(small.cert).is_good());
  const auto r = store.validate(small.cert, opts(), t0);
  CHECK(r.status == ua::status::bad_certificate_policy_check_failed);
  CHECK(r.check == "key size");
  auto o = opts();
  o.min_key_bits = 1024;
  CHECK(store.validate(small.cert, o, t0).ok());
  o.max_key_bits = 1024;
  CHECK(store.validate(make_cert(leaf_spec("big", 1)).cert, o, t0).status ==
        ua::status::bad_certificate_policy_check_failed);
}

TEST_CASE("pki_store: a SHA-1 signature gets Bad_CertificatePolicyCheckFailed", "[security]") {
  temp_dir dir;
  pki_store store(dir.path());
  auto spec = leaf_spec("sha1", 0);
  spec.sha1 = true;
  auto old = make_cert(spec);
  REQUIRE(store.trust(old.cert).is_good());
  const auto r = store.validate(old.cert, opts(), t0);
  CHECK(r.status == ua::status::bad_certificate_policy_check_failed);
  CHECK(r.check == "signature algorithm");
}

TEST_CASE("pki_store: a host name the server certificate does not name gets Bad_CertificateHostNameInvalid",
          "[security]") {
  temp_dir dir;
  pki_store store(dir.path());
  certificate_request req;
  req.application_uri = "urn:plc:server";
  req.host_names = {"plc.example", "10.1.2.3"};
  auto server = create_self_signed(req, t0);
  REQUIRE(server.has_value());
  REQUIRE(store.trust(server->cert).is_good());
  auto o = opts();
  for (const char* good : {"plc.example", "PLC.example", "10.1.2.3"}) {
    o.expected_host_name = good;
    INFO(good);
    CHECK(store.validate(server->cert, o, t0).ok());
  }
  // "uactor", the subject's common name, is not a host name of the certificate.
  for (const char* bad : {"other.example", "10.1.2.4", "uactor", "example"}) {
    o.expected_host_name = bad;
    INFO(bad);
    const auto r = store.validate(server->cert, o, t0);
    CHECK(r.status == ua::status::bad_certificate_host_name_invalid);
    CHECK(r.check == "host name");
  }
}

TEST_CASE("pki_store: a CA-issued leaf: trusted CA with CRL Good, revoked, no CRL, missing issuer", "[security]") {
  temp_dir dir;
  pki_store store(dir.path());
  auto ca = make_cert(ca_spec("Test CA", 2));
  auto leaf = make_cert(leaf_spec("device", 0, 42), &ca);

  SECTION("missing issuer: Bad_CertificateChainIncomplete") {
    const auto r = store.validate(leaf.cert, opts(), t0);
    CHECK(r.status == ua::status::bad_certificate_chain_incomplete);
    CHECK(r.detail.find("Test CA") != std::string::npos);
  }
  SECTION("CA trusted, no CRL: Bad_CertificateRevocationUnknown; without the check: Good") {
    REQUIRE(store.trust(ca.cert).is_good());
    const auto r = store.validate(leaf.cert, opts(), t0);
    CHECK(r.status == ua::status::bad_certificate_revocation_unknown);
    CHECK(r.check == "revocation list");
    auto o = opts();
    o.check_revocation = false;
    CHECK(store.validate(leaf.cert, o, t0).ok());
  }
  SECTION("CA trusted with a CRL that does not list the leaf: Good") {
    REQUIRE(store.trust(ca.cert).is_good());
    write_file(dir.path() / "trusted/crl/ca.crl", make_crl(ca, {41, 43}, t0));
    const auto r = store.validate(leaf.cert, opts(), t0);
    INFO(r.detail);
    CHECK(r.ok());
  }
  SECTION("CA trusted, its CRL lists the leaf: Bad_CertificateRevoked") {
    REQUIRE(store.trust(ca.cert).is_good());
    write_file(dir.path() / "trusted/crl/ca.crl", make_crl(ca, {42}, t0));
    const auto r = store.validate(leaf.cert, opts(), t0);
    CHECK(r.status == ua::status::bad_certificate_revoked);
  }
  SECTION("a CRL past its nextUpdate: Bad_CertificateRevocationUnknown naming the date; a current one beside it: Good") {
    REQUIRE(store.trust(ca.cert).is_good());
    write_file(dir.path() / "trusted/crl/old.crl", make_crl(ca, {}, t0));  // valid for 30 days from t0
    const auto later = ua::date_time::from_unix_ms(t0.to_unix_ms() + 31 * day_ms);
    const auto r = store.validate(leaf.cert, opts(), later);
    CHECK(r.status == ua::status::bad_certificate_revocation_unknown);
    CHECK(r.detail.find("out of date (nextUpdate ") != std::string::npos);
    write_file(dir.path() / "issuers/crl/new.crl", make_crl(ca, {}, later));
    const auto current = store.validate(leaf.cert, opts(), later);
    INFO(current.detail);
    CHECK(current.ok());
  }
  SECTION("a CRL signed by another key than the CA's counts as no CRL") {
    REQUIRE(store.trust(ca.cert).is_good());
    auto impostor = make_cert(ca_spec("Test CA", 3));
    write_file(dir.path() / "trusted/crl/fake.crl", make_crl(impostor, {}, t0));
    CHECK(store.validate(leaf.cert, opts(), t0).status == ua::status::bad_certificate_revocation_unknown);
  }
  SECTION("CA only in issuers/: the chain is complete but nothing in it is trusted") {
    put(dir.path() / "issuers/certs/ca.der", ca.cert);
    write_file(dir.path() / "issuers/crl/ca.crl", make_crl(ca, {}, t0));
    CHECK(store.validate(leaf.cert, opts(), t0).status == ua::status::bad_certificate_untrusted);
    // The leaf itself trusted, its CA in issuers/: Good.
    REQUIRE(store.trust(leaf.cert).is_good());
    CHECK(store.validate(leaf.cert, opts(), t0).ok());
  }
  SECTION("the issuer sent with the leaf completes the chain but does not make it trusted") {
    const std::vector<certificate> sent{ca.cert};
    CHECK(store.validate(leaf.cert, sent, opts(), t0).status == ua::status::bad_certificate_untrusted);
    REQUIRE(store.trust(ca.cert).is_good());
    write_file(dir.path() / "trusted/crl/ca.crl", make_crl(ca, {}, t0));
    CHECK(store.validate(leaf.cert, sent, opts(), t0).ok());
  }
}

TEST_CASE("pki_store: root, intermediate and leaf: issuer time, issuer revocation, issuer use", "[security]") {
  temp_dir dir;
  pki_store store(dir.path());
  auto root = make_cert(ca_spec("Root CA", 2));
  auto inter_spec = ca_spec("Intermediate CA", 3);
  inter_spec.serial = 5;
  auto inter = make_cert(inter_spec, &root);
  auto leaf = make_cert(leaf_spec("device", 0, 9), &inter);
  REQUIRE(store.trust(root.cert).is_good());
  put(dir.path() / "issuers/certs/inter.der", inter.cert);
  write_file(dir.path() / "issuers/crl/inter.crl", make_crl(inter, {}, t0));

  SECTION("both CRLs present: Good") {
    write_file(dir.path() / "trusted/crl/root.crl", make_crl(root, {}, t0));
    const auto r = store.validate(leaf.cert, opts(), t0);
    INFO(r.detail);
    CHECK(r.ok());
  }
  SECTION("no CRL of the root: Bad_CertificateIssuerRevocationUnknown") {
    CHECK(store.validate(leaf.cert, opts(), t0).status == ua::status::bad_certificate_issuer_revocation_unknown);
  }
  SECTION("the intermediate revoked by the root: Bad_CertificateIssuerRevoked") {
    write_file(dir.path() / "trusted/crl/root.crl", make_crl(root, {5}, t0));
    CHECK(store.validate(leaf.cert, opts(), t0).status == ua::status::bad_certificate_issuer_revoked);
  }
  SECTION("an expired intermediate: Bad_CertificateIssuerTimeInvalid") {
    write_file(dir.path() / "trusted/crl/root.crl", make_crl(root, {}, t0));
    auto old_spec = inter_spec;
    old_spec.not_after = ua::date_time::from_unix_ms(t0.to_unix_ms() - day_ms);
    auto old_inter = make_cert(old_spec, &root);
    put(dir.path() / "issuers/certs/inter.der", old_inter.cert);
    CHECK(store.validate(leaf.cert, opts(), t0).status == ua::status::bad_certificate_issuer_time_invalid);
  }
  SECTION("an issuer that is not a CA: Bad_CertificateIssuerUseNotAllowed") {
    write_file(dir.path() / "trusted/crl/root.crl", make_crl(root, {}, t0));
    auto not_ca_spec = leaf_spec("Intermediate CA", 3, 5);
    not_ca_spec.key_usage = "critical,digitalSignature,keyCertSign";
    auto not_ca = make_cert(not_ca_spec, &root);
    put(dir.path() / "issuers/certs/inter.der", not_ca.cert);
    CHECK(store.validate(leaf.cert, opts(), t0).status == ua::status::bad_certificate_issuer_use_not_allowed);
  }
}

TEST_CASE("pki_store: an intermediate sent only with the leaf completes the chain to a trusted root, with its CRL",
          "[security][chain]") {
  temp_dir dir;
  pki_store store(dir.path());
  auto root = make_cert(ca_spec("Root CA", 2));
  auto inter_spec = ca_spec("Intermediate CA", 3);
  inter_spec.serial = 5;
  auto inter = make_cert(inter_spec, &root);
  auto leaf = make_cert(leaf_spec("device", 0, 9), &inter);
  const std::vector<certificate> sent{inter.cert};
  write_file(dir.path() / "trusted/crl/root.crl", make_crl(root, {}, t0));
  write_file(dir.path() / "issuers/crl/inter.crl", make_crl(inter, {}, t0));

  // Without what the peer sent, nothing in our folders names the intermediate.
  CHECK(store.validate(leaf.cert, opts(), t0).status == ua::status::bad_certificate_chain_incomplete);
  SECTION("root unknown: Bad_CertificateChainIncomplete; root in issuers/ or sent: Bad_CertificateUntrusted") {
    CHECK(store.validate(leaf.cert, sent, opts(), t0).status == ua::status::bad_certificate_chain_incomplete);
    // A self-signed root in the message completes the chain, and trusts nothing.
    const std::vector<certificate> with_root{inter.cert, root.cert};
    CHECK(store.validate(leaf.cert, with_root, opts(), t0).status == ua::status::bad_certificate_untrusted);
    put(dir.path() / "issuers/certs/root.der", root.cert);
    const auto r = store.validate(leaf.cert, sent, opts(), t0);
    CHECK(r.status == ua::status::bad_certificate_untrusted);
    CHECK(has_file(dir.path() / "rejected/certs", pki_store::file_name_for(leaf.cert)));
  }
  SECTION("root trusted: Good, and the intermediate is not copied anywhere") {
    REQUIRE(store.trust(root.cert).is_good());
    const auto r = store.validate(leaf.cert, sent, opts(), t0);
    INFO(r.detail);
    CHECK(r.ok());
    CHECK(store.list("issuers").empty());
  }
  SECTION("the intermediate itself trusted: Good once the chain reaches a root, ours or sent") {
    REQUIRE(store.trust(inter.cert).is_good());
    // pki_store builds the whole chain before it looks at trust (Part 4 §6.1.3's order).
    CHECK(store.validate(leaf.cert, sent, opts(), t0).status == ua::status::bad_certificate_chain_incomplete);
    const std::vector<certificate> with_root{inter.cert, root.cert};
    const auto r = store.validate(leaf.cert, with_root, opts(), t0);
    INFO(r.detail);
    CHECK(r.ok());
    put(dir.path() / "issuers/certs/root.der", root.cert);
    CHECK(store.validate(leaf.cert, sent, opts(), t0).ok());
  }
  SECTION("the intermediate's CRL revokes the leaf, or is missing: the checks of a stored intermediate") {
    REQUIRE(store.trust(root.cert).is_good());
    write_file(dir.path() / "issuers/crl/inter.crl", make_crl(inter, {9}, t0));
    CHECK(store.validate(leaf.cert, sent, opts(), t0).status == ua::status::bad_certificate_revoked);
    fs::remove(dir.path() / "issuers/crl/inter.crl");
    CHECK(store.validate(leaf.cert, sent, opts(), t0).status == ua::status::bad_certificate_revocation_unknown);
  }
  SECTION("the root revokes the sent intermediate: Bad_CertificateIssuerRevoked") {
    REQUIRE(store.trust(root.cert).is_good());
    write_file(dir.path() / "trusted/crl/root.crl", make_crl(root, {5}, t0));
    CHECK(store.validate(leaf.cert, sent, opts(), t0).status == ua::status::bad_certificate_issuer_revoked);
  }
  SECTION("a sent intermediate of the same name but another key: Bad_SecurityChecksFailed") {
    REQUIRE(store.trust(root.cert).is_good());
    auto forged_spec = inter_spec;
    forged_spec.key = key(4);
    auto forged = make_cert(forged_spec, &root);
    const std::vector<certificate> wrong{forged.cert};
    CHECK_FALSE(store.validate(leaf.cert, wrong, opts(), t0).ok());
  }
}

TEST_CASE("pki_store: usages an application certificate may not have get Bad_CertificateUseNotAllowed",
          "[security]") {
  temp_dir dir;
  pki_store store(dir.path());
  auto ca = make_cert(ca_spec("CA", 2));
  REQUIRE(store.trust(ca.cert).is_good());
  write_file(dir.path() / "trusted/crl/ca.crl", make_crl(ca, {}, t0));

  auto code_signing = leaf_spec("signer", 0, 2);
  code_signing.ext_key_usage = "codeSigning";
  CHECK(store.validate(make_cert(code_signing, &ca).cert, opts(), t0).status ==
        ua::status::bad_certificate_use_not_allowed);
  auto no_signature = leaf_spec("encrypt-only", 0, 3);
  no_signature.key_usage = "critical,keyEncipherment";
  CHECK(store.validate(make_cert(no_signature, &ca).cert, opts(), t0).status ==
        ua::status::bad_certificate_use_not_allowed);
  auto sub_ca = ca_spec("sub CA", 1);
  sub_ca.uri = "urn:test:sub";
  CHECK(store.validate(make_cert(sub_ca, &ca).cert, opts(), t0).status ==
        ua::status::bad_certificate_use_not_allowed);
}

TEST_CASE("pki_store: no certificate and a v1 certificate get Bad_CertificateInvalid", "[security]") {
  temp_dir dir;
  pki_store store(dir.path());
  CHECK(store.validate(certificate{}, opts(), t0).status == ua::status::bad_certificate_invalid);
  auto spec = leaf_spec("v1", 0);
  spec.v3 = false;
  auto v1 = make_cert(spec);
  REQUIRE(store.trust(v1.cert).is_good());
  CHECK(store.validate(v1.cert, opts(), t0).status == ua::status::bad_certificate_invalid);
  // Garbage never becomes a certificate to validate.
  const std::vector<std::uint8_t> garbage(100, 0x30);
  CHECK(certificate::from_der(garbage).error() == ua::status::bad_certificate_invalid);
}

TEST_CASE("pki_store: garbage files in the folders are skipped, not fatal", "[security]") {
  temp_dir dir;
  pki_store store(dir.path());
  const std::string junk = "not a certificate";
  for (const char* f : {"trusted/certs/junk.der", "trusted/crl/junk.crl", "issuers/certs/junk.pem"})
    write_file(dir.path() / f, {reinterpret_cast<const std::uint8_t*>(junk.data()), junk.size()});
  fs::create_directories(dir.path() / "trusted/certs/a-directory");
  auto peer = make_cert(leaf_spec("peer", 0));
  REQUIRE(store.trust(peer.cert).is_good());
  CHECK(store.validate(peer.cert, opts(), t0).ok());
  CHECK(store.list("trusted").size() == 1);
  CHECK(store.list("nonsense").empty());
}

TEST_CASE("pki_store: the folders are read again only when their modification time changes", "[security]") {
  temp_dir dir;
  pki_store store(dir.path());
  auto a = make_cert(leaf_spec("a", 0));
  auto b = make_cert(leaf_spec("b", 1));
  const auto trusted = dir.path() / "trusted/certs";
  put(trusted / "peer.der", a.cert);
  // An old modification time: the store's cache counts as settled (a folder changed in the last
  // two seconds is read on every call, see folder_stamp).
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const char* sub : {"trusted/certs", "trusted/crl", "issuers/certs", "issuers/crl"})
    fs::last_write_time(dir.path() / sub, old);
  REQUIRE(store.validate(a.cert, opts(), t0).ok());

  // The file's contents change in place and the folder's time is put back: the cache holds.
  put(trusted / "peer.der", b.cert);
  fs::last_write_time(trusted, old);
  CHECK(store.validate(b.cert, opts(), t0).status == ua::status::bad_certificate_untrusted);
  CHECK(store.validate(a.cert, opts(), t0).ok());

  // The folder's time moves: read again.
  fs::last_write_time(trusted, old + std::chrono::seconds(1));
  CHECK(store.validate(b.cert, opts(), t0).ok());
  CHECK(store.validate(a.cert, opts(), t0).status == ua::status::bad_certificate_untrusted);
}

}  // namespace security_pki_store_test
