// Push certificate management (Part 12 §7.10, §7.8): the TrustList as a TrustListDataType file,
// its refusals that change nothing, CreateSigningRequest's content (parsed back with OpenSSL),
// UpdateCertificate's checks, ApplyChanges, and who may call any of it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include <openssl/pkcs12.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "engine/server/certificates/server_configuration.hpp"
#include "engine/server/certificates/user_token_trust.hpp"
#include "engine/server/access/roles.hpp"
#include "protocol/byte_buffer.hpp"
#include "protocol/codec.hpp"
#include "security/csr.hpp"
#include "security/ecc.hpp"
#include "security/policy.hpp"
#include "security/pki_store.hpp"
#include "security/trust_list.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "tests/security/pki_test_support.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::test {
namespace {

namespace ids = ua::ids;
using security::testing::make_cert;
using security::testing::cert_spec;

constexpr const char* server_uri = "urn:test:uactor:server";

ua::byte_string bytes_of_der(std::span<const std::uint8_t> der) {
  ua::byte_string b;
  b.assign(der.data(), der.size());
  return b;
}

security::testing::issued config_cert(const char* cn, const char* uri, const security::testing::issued* ca = nullptr,
                                      security::rsa_key key = {}) {
  cert_spec s;
  s.common_name = cn;
  s.uri = uri;
  s.key = std::move(key);
  s.not_before = ua::date_time::from_unix_ms(1'700'000'000'000);
  s.not_after = ua::date_time::from_unix_ms(1'900'000'000'000);
  s.ca = uri[0] == '\0';
  return make_cert(s, ca);
}

struct config_fixture {
  security::testing::temp_dir pki;
  std::shared_ptr<actors::server_security> sec = std::make_shared<actors::server_security>();
  actors::server_core core = make_core();
  std::unique_ptr<actors::server_configuration> config;
  actors::config_caller admin;
  actors::config_caller other_admin;  // another SecurityAdmin session (transactions are per session)

  std::int64_t now_ms = 1000;  // the time of the next call

  explicit config_fixture(std::uint32_t max_size = 1u << 20, std::vector<security::der_bytes> default_trust = {},
                          std::vector<actors::server_security::curve_identity> ecc = {}, bool https = false) {
    auto store = std::make_shared<security::pki_store>(pki.path());
    security::certificate_request r;
    r.application_uri = server_uri;
    r.host_names = {"localhost", "127.0.0.1"};
    const auto own = store->load_or_create_own(r);
    REQUIRE(own);
    sec->certificate = own->cert;
    sec->private_key = own->private_key;
    sec->store = store;
    sec->ecc_identities = std::move(ecc);
    if (https) {
      // The opc.wss TLS certificate (DefaultHttpsGroup), as the runtime sets it before any push:
      // the application's, to be written to own/certs/uactor-https.der.
      sec->https = std::make_shared<actors::https_certificate>();
      sec->https->current.set(sec->own());
      sec->https->certificate_file = (pki.path() / "own" / "certs" / "uactor-https.der").string();
      sec->https->key_file = (pki.path() / "own" / "private" / "uactor-https.pem").string();
    }
    actors::certificate_management_config c;
    c.security = sec;
    c.application_uri = server_uri;
    c.max_trust_list_size = max_size;
    c.default_trust = std::move(default_trust);
    config = std::make_unique<actors::server_configuration>(c);
    REQUIRE(config->install(core.space(), core.files(), at(0).utc) == ua::status::good);
    admin.session = 7;
    admin.roles.add(actors::authz::well_known::security_admin);
    admin.mode = ua::message_security_mode::sign_and_encrypt;
    other_admin = admin;
    other_admin.session = 9;
  }
  ua::status_code apply(const actors::config_caller* who = nullptr) {
    std::vector<ua::variant> out;
    return call(ids::server_configuration, ids::server_configuration_apply_changes, {}, out, who);
  }
  ua::status_code cancel(const actors::config_caller* who = nullptr) {
    std::vector<ua::variant> out;
    return call(ids::server_configuration, ids::server_configuration_cancel_changes, {}, out, who);
  }

  ua::status_code call(std::uint32_t object, std::uint32_t method, std::vector<ua::variant> in,
                       std::vector<ua::variant>& out, const actors::config_caller* who = nullptr) {
    out.clear();
    auto& as = core.space();
    return config->call(who ? *who : admin, as.find(ua::node_id(0, object)), as.find(ua::node_id(0, method)), in, out,
                        as, core.files(), at(now_ms).utc);
  }
  ua::status_code on_trust_list(std::uint32_t method, std::vector<ua::variant> in, std::vector<ua::variant>& out,
                                const actors::config_caller* who = nullptr) {
    return call(ids::server_configuration_certificate_groups_default_application_group_trust_list, method,
                std::move(in), out, who);
  }
  // The TrustList of another group (its own method NodeIds).
  ua::status_code on_group_trust_list(std::uint32_t trust_list, std::uint32_t method, std::vector<ua::variant> in,
                                      std::vector<ua::variant>& out) {
    return call(trust_list, method, std::move(in), out);
  }
  static constexpr std::uint32_t tl_open = ids::server_configuration_certificate_groups_default_application_group_trust_list_open;
  static constexpr std::uint32_t tl_read = ids::server_configuration_certificate_groups_default_application_group_trust_list_read;
  static constexpr std::uint32_t tl_write = ids::server_configuration_certificate_groups_default_application_group_trust_list_write;
  static constexpr std::uint32_t tl_close = ids::server_configuration_certificate_groups_default_application_group_trust_list_close;
  static constexpr std::uint32_t tl_open_masks =
      ids::server_configuration_certificate_groups_default_application_group_trust_list_open_with_masks;
  static constexpr std::uint32_t tl_close_update =
      ids::server_configuration_certificate_groups_default_application_group_trust_list_close_and_update;
  static constexpr std::uint32_t tl_add = ids::server_configuration_certificate_groups_default_application_group_trust_list_add_certificate;
  static constexpr std::uint32_t tl_remove =
      ids::server_configuration_certificate_groups_default_application_group_trust_list_remove_certificate;

  // The whole TrustList as OpenWithMasks(masks) and Read return it.
  ua::trust_list_data_type read_list(std::uint32_t masks = 15) {
    std::vector<ua::variant> out;
    REQUIRE(on_trust_list(tl_open_masks, {ua::variant(masks)}, out) == ua::status::good);
    const auto h = *out.at(0).get_if<std::uint32_t>();
    std::string bytes;
    for (;;) {
      REQUIRE(on_trust_list(tl_read, {ua::variant(h), ua::variant(std::int32_t{4096})}, out) == ua::status::good);
      const auto& chunk = *out.at(0).get_if<ua::byte_string>();
      if (chunk.empty()) break;
      bytes += chunk.view();
    }
    REQUIRE(on_trust_list(tl_close, {ua::variant(h)}, out) == ua::status::good);
    ua::decoder d({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()});
    ua::trust_list_data_type t;
    ua::decode(d, t);
    REQUIRE(d.ok());
    REQUIRE(d.remaining() == 0);
    return t;
  }
  // Open(Write+EraseExisting), Write `bytes`, CloseAndUpdate: its status (CloseAndUpdate's
  // applyChangesRequired must be true: the lists wait for ApplyChanges).
  ua::status_code write_list(std::string_view bytes, const actors::config_caller* who = nullptr) {
    std::vector<ua::variant> out;
    REQUIRE(on_trust_list(tl_open, {ua::variant(std::uint8_t{6})}, out, who) == ua::status::good);
    const auto h = *out.at(0).get_if<std::uint32_t>();
    ua::byte_string data;
    data.assign(bytes);
    if (const auto sc = on_trust_list(tl_write, {ua::variant(h), ua::variant(data)}, out, who); sc.is_bad()) {
      REQUIRE(on_trust_list(tl_close, {ua::variant(h)}, out, who) == ua::status::good);
      return sc;
    }
    const auto sc = on_trust_list(tl_close_update, {ua::variant(h)}, out, who);
    if (sc.is_good()) CHECK(*out.at(0).get_if<bool>());
    return sc;
  }
  std::size_t trusted_files() const {
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(pki.path() / "trusted" / "certs"))
      n += e.path().filename().string()[0] != '.';
    return n;
  }
};

std::string encode_list(const ua::trust_list_data_type& t) {
  ua::byte_buffer buf;
  ua::encoder e(buf);
  ua::encode(e, t);
  return std::string(reinterpret_cast<const char*>(buf.bytes().data()), buf.bytes().size());
}

}  // namespace

TEST_CASE("server configuration: the trust list reads and writes as a TrustListDataType", "[engine][certificates]") {
  config_fixture f;
  const auto peer = config_cert("peer", "urn:test:peer");
  const auto ca = config_cert("ca", "");
  std::vector<ua::variant> out;
  REQUIRE(f.on_trust_list(config_fixture::tl_add, {ua::variant(bytes_of_der(peer.cert.der())), ua::variant(true)}, out) ==
          ua::status::good);
  // Each change tells the core to have the open channels check their certificates (Part 12 §7.8.2.5).
  CHECK(f.config->take_trust_changed());
  CHECK_FALSE(f.config->take_trust_changed());
  auto t = f.read_list();
  CHECK_FALSE(f.config->take_trust_changed());  // reading changes nothing
  CHECK(t.specified_lists == 15);
  REQUIRE(t.trusted_certificates.size() == 1);
  CHECK(t.trusted_certificates[0].view() ==
        std::string_view(reinterpret_cast<const char*>(peer.cert.der().data()), peer.cert.der().size()));
  // Masks: only the issuers asked for.
  CHECK(f.read_list(4).trusted_certificates.empty());
  CHECK(f.read_list(4).specified_lists == 4);

  // A new list: two trusted certificates, one issuer; the issuer lists are replaced, nothing else is named.
  const auto other = config_cert("other", "urn:test:other");
  ua::trust_list_data_type next;
  next.specified_lists = 1 | 4;
  next.trusted_certificates = {bytes_of_der(peer.cert.der()), bytes_of_der(other.cert.der())};
  next.issuer_certificates = {bytes_of_der(ca.cert.der())};
  CHECK(f.write_list(encode_list(next)) == ua::status::good);
  // Part 12 §7.8.2.5: it waits for ApplyChanges; until then readers see the list as it was.
  CHECK_FALSE(f.config->take_trust_changed());
  CHECK(f.read_list().trusted_certificates.size() == 1);
  CHECK(f.config->transaction_session() == f.admin.session);
  REQUIRE(f.apply() == ua::status::good);
  CHECK(f.config->transaction_session() == 0);
  CHECK(f.config->take_trust_changed());
  t = f.read_list();
  CHECK(t.trusted_certificates.size() == 2);
  CHECK(t.issuer_certificates.size() == 1);
  // The pki_store validates against it: the new one is trusted now.
  security::validation_options o;
  o.check_revocation = false;
  CHECK(f.sec->store->validate(other.cert, o, ua::date_time::from_unix_ms(1'800'000'000'000)).ok());
  // LastUpdateTime moved to the call's time.
  const auto last = f.core.space().find(
      ua::node_id(0, ids::server_configuration_certificate_groups_default_application_group_trust_list_last_update_time));
  CHECK(*f.core.space().variable(last)->value.value.get_if<ua::date_time>() == at(f.now_ms).utc);

  // RemoveCertificate by thumbprint.
  REQUIRE(f.on_trust_list(config_fixture::tl_remove, {ua::variant(ua::ua_string(other.cert.thumbprint_hex())), ua::variant(true)},
                          out) == ua::status::good);
  CHECK(f.config->take_trust_changed());
  CHECK(f.read_list().trusted_certificates.size() == 1);
}

TEST_CASE("server configuration: bad trust lists are refused and nothing changes", "[engine][certificates]") {
  config_fixture f(8192);
  const auto peer = config_cert("peer", "urn:test:peer");
  std::vector<ua::variant> out;
  REQUIRE(f.on_trust_list(config_fixture::tl_add, {ua::variant(bytes_of_der(peer.cert.der())), ua::variant(true)}, out) ==
          ua::status::good);

  // Not a TrustListDataType: Bad_DecodingError; with bytes after it too.
  CHECK(f.write_list("\x01\x02\x03") == ua::status::bad_decoding_error);
  ua::trust_list_data_type t;
  t.specified_lists = 1;
  t.trusted_certificates = {bytes_of_der(peer.cert.der())};
  CHECK(f.write_list(encode_list(t) + "x") == ua::status::bad_decoding_error);
  // A certificate that is none: Bad_CertificateInvalid.
  t.trusted_certificates = {ua::byte_string("not a certificate")};
  CHECK(f.write_list(encode_list(t)) == ua::status::bad_certificate_invalid);
  // Over MaxTrustListSize (8192 bytes here): the Write is refused.
  t.trusted_certificates.clear();
  for (int i = 0; i < 10; ++i) t.trusted_certificates.push_back(bytes_of_der(peer.cert.der()));
  CHECK(f.write_list(encode_list(t)) == ua::status::bad_out_of_range);
  // AddCertificate past it.
  const auto big = config_cert("big", "urn:test:big");
  for (int i = 0; i < 20; ++i) {
    const auto sc = f.on_trust_list(config_fixture::tl_add,
                                    {ua::variant(bytes_of_der(config_cert("n", "urn:test:n").cert.der())), ua::variant(true)}, out);
    if (sc.is_bad()) {
      CHECK(sc == ua::status::bad_encoding_limits_exceeded);
      break;
    }
  }
  // Other modes than Read and Write+EraseExisting.
  CHECK(f.on_trust_list(config_fixture::tl_open, {ua::variant(std::uint8_t{3})}, out) == ua::status::bad_invalid_argument);
  // Add and Remove while it is open: Bad_InvalidState.
  REQUIRE(f.on_trust_list(config_fixture::tl_open, {ua::variant(std::uint8_t{1})}, out) == ua::status::good);
  const auto h = *out.at(0).get_if<std::uint32_t>();
  CHECK(f.on_trust_list(config_fixture::tl_add, {ua::variant(bytes_of_der(big.cert.der())), ua::variant(true)}, out) ==
        ua::status::bad_invalid_state);
  // CloseAndUpdate of a handle opened for reading.
  CHECK(f.on_trust_list(config_fixture::tl_close_update, {ua::variant(h)}, out) == ua::status::bad_invalid_state);
  CHECK(f.on_trust_list(config_fixture::tl_close, {ua::variant(h)}, out) == ua::status::good);
  (void)f.config->take_trust_changed();  // the additions before the limit changed it
  // An unknown thumbprint, garbage to add.
  CHECK(f.on_trust_list(config_fixture::tl_remove, {ua::variant(ua::ua_string(std::string(40, 'A'))), ua::variant(true)}, out) ==
        ua::status::bad_invalid_argument);
  CHECK(f.on_trust_list(config_fixture::tl_add, {ua::variant(ua::byte_string("junk")), ua::variant(true)}, out) ==
        ua::status::bad_certificate_invalid);
  CHECK_FALSE(f.config->take_trust_changed());  // a refusal changes nothing: no channel is checked again
  // The refusals above left the list as it was (the additions before the limit aside).
  const auto after = f.read_list();
  CHECK(std::ranges::find(after.trusted_certificates, bytes_of_der(peer.cert.der())) != after.trusted_certificates.end());
  CHECK(after.issuer_certificates.empty());
  CHECK(after.trusted_crls.empty());
}

TEST_CASE("server configuration: only SecurityAdmin over SignAndEncrypt may call", "[engine][certificates]") {
  config_fixture f;
  std::vector<ua::variant> out;
  actors::config_caller user;
  user.session = 8;
  user.roles.add(actors::authz::well_known::authenticated_user);
  user.roles.add(actors::authz::well_known::configure_admin);
  user.mode = ua::message_security_mode::sign_and_encrypt;
  actors::config_caller signing_admin = f.admin;
  signing_admin.mode = ua::message_security_mode::sign;
  for (const auto* who : {&user, &signing_admin}) {
    const auto expected = who == &user ? ua::status::bad_user_access_denied : ua::status::bad_security_mode_insufficient;
    CHECK(f.call(ids::server_configuration, ids::server_configuration_get_rejected_list, {}, out, who) == expected);
    CHECK(f.call(ids::server_configuration, ids::server_configuration_apply_changes, {}, out, who) == expected);
    CHECK(f.call(ids::server_configuration_certificate_groups_default_application_group_trust_list,
                 config_fixture::tl_open, {ua::variant(std::uint8_t{1})}, out, who) == expected);
    // The refusal is audited too (who tried).
    CHECK(f.config->last_audit().event_type == ids::trust_list_updated_audit_event_type);
    CHECK(f.config->last_audit().result == expected);
    CHECK(f.config->last_audit().name == "TrustList/Open");
  }
  // Through the Call service (a server of its own): an anonymous session over None.
  auto core = make_core();
  actors::certificate_management_config management;
  management.security = f.sec;
  management.application_uri = server_uri;
  REQUIRE(core.set_certificate_management(management, at(0)) == ua::status::good);
  core_session s(core, 1);
  ua::call_request req;
  ua::call_method_request m;
  m.object_id = ua::node_id(0, ids::server_configuration);
  m.method_id = ua::node_id(0, ids::server_configuration_get_rejected_list);
  req.methods_to_call.push_back(m);
  const auto& resp = s.call_as<ua::call_response>(req);
  REQUIRE(resp.results.size() == 1);
  CHECK(resp.results[0].status_code == ua::status::bad_user_access_denied);
  // The admin gets the rejected list.
  CHECK(f.call(ids::server_configuration, ids::server_configuration_get_rejected_list, {}, out) == ua::status::good);
  CHECK(out.at(0).get_if<ua::ua_array<ua::byte_string>>());
}

TEST_CASE("server configuration: CreateSigningRequest names the subject, the URI and the hosts", "[engine][certificates]") {
  config_fixture f;
  std::vector<ua::variant> out;
  const ua::node_id group(0, ids::server_configuration_certificate_groups_default_application_group);
  const ua::node_id type(0, ids::rsa_sha256_application_certificate_type);
  REQUIRE(f.call(ids::server_configuration, ids::server_configuration_create_signing_request,
                 {ua::variant(group), ua::variant(type), ua::variant(ua::ua_string("CN=plant server, O=Site")),
                  ua::variant(false), ua::variant(ua::byte_string{})},
                 out) == ua::status::good);
  const auto& der = *out.at(0).get_if<ua::byte_string>();
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  std::unique_ptr<X509_REQ, decltype(&X509_REQ_free)> req(d2i_X509_REQ(nullptr, &p, static_cast<long>(der.size())),
                                                           X509_REQ_free);
  REQUIRE(req);
  EVP_PKEY* key = X509_REQ_get0_pubkey(req.get());
  CHECK(X509_REQ_verify(req.get(), key) == 1);
  // The current key.
  CHECK(EVP_PKEY_eq(key, f.sec->certificate.public_key().native()) == 1);
  char cn[64] = {};
  X509_NAME_get_text_by_NID(X509_REQ_get_subject_name(req.get()), NID_commonName, cn, sizeof cn);
  CHECK(std::string(cn) == "plant server");
  std::unique_ptr<STACK_OF(X509_EXTENSION), void (*)(STACK_OF(X509_EXTENSION)*)> exts(
      X509_REQ_get_extensions(req.get()), [](STACK_OF(X509_EXTENSION)* s) { sk_X509_EXTENSION_pop_free(s, X509_EXTENSION_free); });
  REQUIRE(exts);
  auto* names = static_cast<GENERAL_NAMES*>(X509V3_get_d2i(exts.get(), NID_subject_alt_name, nullptr, nullptr));
  REQUIRE(names);
  std::vector<std::string> found;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* gn = sk_GENERAL_NAME_value(names, i);
    if (gn->type == GEN_URI || gn->type == GEN_DNS)
      found.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(gn->d.ia5)), ASN1_STRING_length(gn->d.ia5));
    if (gn->type == GEN_IPADD) found.emplace_back("ip");
  }
  GENERAL_NAMES_free(names);
  CHECK(found == std::vector<std::string>{server_uri, "localhost", "ip"});

  // A new key: another public key; a malformed subject is refused.
  REQUIRE(f.call(ids::server_configuration, ids::server_configuration_create_signing_request,
                 {ua::variant(group), ua::variant(type), ua::variant(ua::ua_string("")), ua::variant(true),
                  ua::variant(ua::byte_string(std::string(32, 'n')))},
                 out) == ua::status::good);
  const auto& der2 = *out.at(0).get_if<ua::byte_string>();
  p = reinterpret_cast<const unsigned char*>(der2.data());
  std::unique_ptr<X509_REQ, decltype(&X509_REQ_free)> req2(d2i_X509_REQ(nullptr, &p, static_cast<long>(der2.size())),
                                                            X509_REQ_free);
  REQUIRE(req2);
  CHECK(EVP_PKEY_eq(X509_REQ_get0_pubkey(req2.get()), f.sec->certificate.public_key().native()) != 1);
  CHECK(f.call(ids::server_configuration, ids::server_configuration_create_signing_request,
               {ua::variant(group), ua::variant(type), ua::variant(ua::ua_string("no equals sign")), ua::variant(false),
                ua::variant(ua::byte_string{})},
               out) == ua::status::bad_invalid_argument);
}

TEST_CASE("server configuration: UpdateCertificate checks, ApplyChanges installs for new channels", "[engine][certificates]") {
  config_fixture f;
  std::vector<ua::variant> out;
  const ua::node_id group(0, ids::server_configuration_certificate_groups_default_application_group);
  const ua::node_id type(0, ids::rsa_sha256_application_certificate_type);
  const auto ca = config_cert("site ca", "");
  const auto update = [&](const security::certificate& c, std::string format = "", std::string key = "") {
    return f.call(ids::server_configuration, ids::server_configuration_update_certificate,
                  {ua::variant(group), ua::variant(type), ua::variant(bytes_of_der(c.der())),
                   ua::variant(ua::ua_array<ua::byte_string>{bytes_of_der(ca.cert.der())}), ua::variant(ua::ua_string(format)),
                   ua::variant(ua::byte_string(key))},
                  out);
  };
  const auto old = f.sec->own();
  // Another ApplicationUri; a key that is not ours; garbage; a format we do not take.
  CHECK(update(config_cert("x", "urn:elsewhere", &ca, f.sec->private_key).cert) == ua::status::bad_certificate_uri_invalid);
  CHECK(update(config_cert("x", server_uri, &ca).cert) == ua::status::bad_security_checks_failed);
  const auto foreign = config_cert("x", server_uri, &ca);
  CHECK(update(foreign.cert, "XYZ", "k") == ua::status::bad_not_supported);
  CHECK(update(foreign.cert, "PEM", "not a key") == ua::status::bad_security_checks_failed);
  CHECK(f.call(ids::server_configuration, ids::server_configuration_update_certificate,
               {ua::variant(group), ua::variant(type), ua::variant(ua::byte_string("junk")),
                ua::variant(ua::ua_array<ua::byte_string>{}), ua::variant(ua::ua_string("")), ua::variant(ua::byte_string{})},
               out) == ua::status::bad_certificate_invalid);
  // An issuer that did not issue it.
  const auto stranger_ca = config_cert("stranger", "");
  CHECK(f.call(ids::server_configuration, ids::server_configuration_update_certificate,
               {ua::variant(group), ua::variant(type), ua::variant(bytes_of_der(foreign.cert.der())),
                ua::variant(ua::ua_array<ua::byte_string>{bytes_of_der(stranger_ca.cert.der())}),
                ua::variant(ua::ua_string("PEM")), ua::variant(ua::byte_string(foreign.key.to_private_pem()))},
               out) == ua::status::bad_security_checks_failed);
  CHECK_FALSE(f.config->pending());
  // Part 12 §7.10.9: nothing waits (the refusals opened no transaction): Bad_NothingToDo.
  CHECK(f.apply() == ua::status::bad_nothing_to_do);
  CHECK(f.sec->own()->certificate == old->certificate);

  // With the current key (signed by the CA from a CSR of it), then ApplyChanges.
  const auto renewed = config_cert("uactor", server_uri, &ca, f.sec->private_key);
  REQUIRE(update(renewed.cert) == ua::status::good);
  CHECK(*out.at(0).get_if<bool>());
  CHECK(f.config->pending());
  CHECK(f.sec->own()->certificate == old->certificate);  // not before ApplyChanges
  // CancelChanges (Part 12 §7.10.11) drops it; with nothing waiting, Bad_NothingToDo.
  CHECK(f.call(ids::server_configuration, ids::server_configuration_cancel_changes, {}, out) == ua::status::good);
  CHECK_FALSE(f.config->pending());
  CHECK(f.call(ids::server_configuration, ids::server_configuration_cancel_changes, {}, out) == ua::status::bad_nothing_to_do);
  CHECK(f.apply() == ua::status::bad_nothing_to_do);
  CHECK(f.sec->own()->certificate == old->certificate);
  REQUIRE(update(renewed.cert) == ua::status::good);
  REQUIRE(f.call(ids::server_configuration, ids::server_configuration_apply_changes, {}, out) == ua::status::good);
  CHECK(f.config->last_audit().event_type == ids::certificate_updated_audit_event_type);
  CHECK(f.config->last_audit().method == ids::server_configuration_apply_changes);
  CHECK(f.config->last_audit().result == ua::status::good);
  CHECK(f.config->last_audit().certificate_types ==
        std::vector<std::uint32_t>{ids::rsa_sha256_application_certificate_type});
  CHECK(f.sec->own()->certificate == renewed.cert);
  CHECK(f.sec->own()->issuers.size() == 1);
  CHECK(f.config->take_identity_changed());
  // own/ holds it (a restart keeps it), the old one beside it.
  const auto on_disk = security::certificate::chain_from_file(f.pki.path() / "own" / "certs" / "uactor.der");
  REQUIRE(on_disk);
  CHECK(on_disk->front() == renewed.cert);
  CHECK(std::filesystem::exists(f.pki.path() / "own" / "certs" / "uactor.der.previous"));
  // What a running channel holds stays valid: the old identity object is untouched.
  CHECK(old->certificate.application_uri() == server_uri);

  // A new private key given as PEM.
  const auto with_key = config_cert("uactor", server_uri, &ca);
  REQUIRE(update(with_key.cert, "PEM", with_key.key.to_private_pem()) == ua::status::good);
  REQUIRE(f.call(ids::server_configuration, ids::server_configuration_apply_changes, {}, out) == ua::status::good);
  CHECK(security::key_matches(f.sec->own()->certificate, f.sec->own()->private_key));
  CHECK(f.sec->own()->certificate == with_key.cert);
  // A restart loads what ApplyChanges wrote.
  security::pki_store again(f.pki.path());
  security::certificate_request r;
  r.application_uri = server_uri;
  const auto reloaded = again.load_or_create_own(r);
  REQUIRE(reloaded);
  CHECK(reloaded->cert == with_key.cert);
}

TEST_CASE("server configuration: a transaction belongs to the session that made it", "[engine][certificates]") {
  config_fixture f;
  std::vector<ua::variant> out;
  const ua::node_id group(0, ids::server_configuration_certificate_groups_default_application_group);
  const ua::node_id type(0, ids::rsa_sha256_application_certificate_type);
  const auto ca = config_cert("site ca", "");
  const auto renewed = config_cert("uactor", server_uri, &ca, f.sec->private_key);
  const auto peer = config_cert("peer", "urn:test:peer");
  const auto update = [&](const actors::config_caller* who) {
    return f.call(ids::server_configuration, ids::server_configuration_update_certificate,
                  {ua::variant(group), ua::variant(type), ua::variant(bytes_of_der(renewed.cert.der())),
                   ua::variant(ua::ua_array<ua::byte_string>{bytes_of_der(ca.cert.der())}), ua::variant(ua::ua_string("")),
                   ua::variant(ua::byte_string{})},
                  out, who);
  };
  const auto old = f.sec->own();
  REQUIRE(update(&f.admin) == ua::status::good);
  CHECK(f.config->transaction_session() == f.admin.session);

  // Part 12 §7.10.2, §7.8.2.1, §7.8.2.6-7: another session may not add to it, write the TrustList,
  // nor Add/Remove certificates (nobody may while it waits); reading stays open to it.
  CHECK(update(&f.other_admin) == ua::status::bad_transaction_pending);
  CHECK(f.on_trust_list(config_fixture::tl_open, {ua::variant(std::uint8_t{6})}, out, &f.other_admin) ==
        ua::status::bad_transaction_pending);
  REQUIRE(f.on_trust_list(config_fixture::tl_open, {ua::variant(std::uint8_t{1})}, out, &f.other_admin) == ua::status::good);
  REQUIRE(f.on_trust_list(config_fixture::tl_close, {ua::variant(*out.at(0).get_if<std::uint32_t>())}, out, &f.other_admin) ==
          ua::status::good);
  for (const auto* who : {&f.admin, &f.other_admin}) {
    CHECK(f.on_trust_list(config_fixture::tl_add, {ua::variant(bytes_of_der(peer.cert.der())), ua::variant(true)}, out, who) ==
          ua::status::bad_transaction_pending);
    CHECK(f.on_trust_list(config_fixture::tl_remove, {ua::variant(ua::ua_string(std::string(40, 'A'))), ua::variant(true)}, out,
                          who) == ua::status::bad_transaction_pending);
  }
  // Part 12 §7.10.11 (and ApplyChanges alike): not that session's transaction.
  CHECK(f.apply(&f.other_admin) == ua::status::bad_session_id_invalid);
  CHECK(f.cancel(&f.other_admin) == ua::status::bad_session_id_invalid);
  CHECK(f.config->pending());
  CHECK(f.sec->own()->certificate == old->certificate);
  // The other session ending takes nothing of it.
  f.config->session_closed(f.other_admin.session);
  CHECK(f.config->transaction_session() == f.admin.session);

  // The same session continues it with a trust list (CloseAndUpdate joins the transaction).
  ua::trust_list_data_type next;
  next.specified_lists = 1;
  next.trusted_certificates = {bytes_of_der(peer.cert.der())};
  REQUIRE(f.write_list(encode_list(next)) == ua::status::good);
  CHECK(f.trusted_files() == 0);
  CHECK_FALSE(f.config->take_trust_changed());
  // Part 12 §7.10.9: not while a TrustList is open for writing; the transaction stays.
  REQUIRE(f.on_trust_list(config_fixture::tl_open, {ua::variant(std::uint8_t{6})}, out) == ua::status::good);
  const auto h = *out.at(0).get_if<std::uint32_t>();
  CHECK(f.apply() == ua::status::bad_invalid_state);
  CHECK(f.config->transaction_session() == f.admin.session);
  REQUIRE(f.on_trust_list(config_fixture::tl_close, {ua::variant(h)}, out) == ua::status::good);
  // ApplyChanges applies both: the certificate and the trust list.
  REQUIRE(f.apply() == ua::status::good);
  CHECK(f.config->transaction_session() == 0);
  CHECK(f.sec->own()->certificate == renewed.cert);
  CHECK(f.trusted_files() == 1);
  CHECK(f.config->take_trust_changed());
  CHECK(f.config->take_identity_changed());
  CHECK(f.apply() == ua::status::bad_nothing_to_do);

  // A transaction ends with its session (Part 12 §7.10.9): nothing of it applied, and another
  // session may start one.
  const auto again = config_cert("uactor again", server_uri, &ca, f.sec->private_key);
  REQUIRE(f.call(ids::server_configuration, ids::server_configuration_update_certificate,
                 {ua::variant(group), ua::variant(type), ua::variant(bytes_of_der(again.cert.der())),
                  ua::variant(ua::ua_array<ua::byte_string>{}), ua::variant(ua::ua_string("")), ua::variant(ua::byte_string{})},
                 out) == ua::status::good);
  REQUIRE(f.write_list(encode_list(ua::trust_list_data_type{})) == ua::status::good);
  f.config->session_closed(f.admin.session);
  CHECK_FALSE(f.config->pending());
  CHECK(f.config->transaction_session() == 0);
  CHECK(f.sec->own()->certificate == renewed.cert);
  CHECK(f.trusted_files() == 1);
  REQUIRE(update(&f.other_admin) == ua::status::good);
  CHECK(f.cancel(&f.other_admin) == ua::status::good);
  CHECK(f.cancel(&f.other_admin) == ua::status::bad_nothing_to_do);
}

TEST_CASE("server configuration: TransactionDiagnostics tells the current or last transaction (Part 12 §7.10.17)",
          "[engine][certificates]") {
  config_fixture f;
  std::vector<ua::variant> out;
  auto& as = f.core.space();
  const ua::node_index object = as.find(ua::node_id(0, 32336));
  REQUIRE(object != ua::no_node);
  const auto value = [&](std::uint32_t id) -> const ua::data_value& {
    const auto n = as.find(ua::node_id(0, id));
    REQUIRE(n != ua::no_node);
    return as.variable(n)->value;
  };
  constexpr std::uint32_t start = 32337, end = 32338, result = 32339, trust_lists = 32340, groups = 32341, errors = 32342;
  // No transaction yet: every Property Bad_OutOfService.
  for (const auto id : {start, end, result, trust_lists, groups, errors}) CHECK(value(id).status == ua::status::bad_out_of_service);
  // UpdateCertificate starts one: StartTime, EndTime MinValue, Result Bad_InvalidState, the group named.
  const ua::node_id group(0, ids::server_configuration_certificate_groups_default_application_group);
  const auto ca = config_cert("site ca", "");
  const auto renewed = config_cert("uactor", server_uri, &ca, f.sec->private_key);
  const auto update = [&] {
    return f.call(ids::server_configuration, ids::server_configuration_update_certificate,
                  {ua::variant(group), ua::variant(ua::node_id{}), ua::variant(bytes_of_der(renewed.cert.der())),
                   ua::variant(ua::ua_array<ua::byte_string>{bytes_of_der(ca.cert.der())}), ua::variant(ua::ua_string("")),
                   ua::variant(ua::byte_string{})},
                  out);
  };
  REQUIRE(update() == ua::status::good);
  CHECK(value(start).status == ua::status::good);
  CHECK(value(start).value.get_if<ua::date_time>()->ticks > 0);
  CHECK(value(end).value.get_if<ua::date_time>()->ticks == 0);
  CHECK(value(result).status == ua::status::bad_invalid_state);
  REQUIRE(value(groups).value.get_if<ua::ua_array<ua::node_id>>());
  CHECK(*value(groups).value.get_if<ua::ua_array<ua::node_id>>() == ua::ua_array<ua::node_id>{group});
  CHECK(value(trust_lists).value.get_if<ua::ua_array<ua::node_id>>()->empty());
  // ApplyChanges ends it: Good, an EndTime, no errors.
  REQUIRE(f.apply() == ua::status::good);
  CHECK(*value(result).value.get_if<ua::status_code>() == ua::status::good);
  CHECK(value(result).status == ua::status::good);
  CHECK(value(end).value.get_if<ua::date_time>()->ticks > 0);
  CHECK(value(errors).value.get_if<ua::ua_array<ua::extension_object>>()->empty());
  // A new one drops those results; CancelChanges ends it with Bad_RequestCancelledByClient.
  REQUIRE(update() == ua::status::good);
  CHECK(value(end).value.get_if<ua::date_time>()->ticks == 0);
  CHECK(value(result).status == ua::status::bad_invalid_state);
  REQUIRE(f.call(ids::server_configuration, ids::server_configuration_cancel_changes, {}, out) == ua::status::good);
  CHECK(*value(result).value.get_if<ua::status_code>() == ua::status::bad_request_cancelled_by_client);
  // One dropped with its session: Bad_SessionClosed.
  REQUIRE(update() == ua::status::good);
  f.config->session_closed(f.admin.session);
  CHECK(*value(result).value.get_if<ua::status_code>() == ua::status::bad_session_closed);
  CHECK(value(end).value.get_if<ua::date_time>()->ticks > 0);
}

TEST_CASE("server configuration: GetCertificates lists the certificates in use with their types", "[engine][certificates]") {
  security::certificate_request r;
  r.application_uri = server_uri;
  r.curve = "prime256v1";
  const auto ecc = security::create_self_signed(r, ua::date_time::from_unix_ms(1'767'225'600'000));
  REQUIRE(ecc);
  config_fixture f(1u << 20, {}, {{"prime256v1", ecc->cert, {}, ecc->private_key}});
  std::vector<ua::variant> out;
  const ua::node_id group(0, ids::server_configuration_certificate_groups_default_application_group);
  for (const auto& g : {group, ua::node_id{}}) {  // a null NodeId names the default group
    REQUIRE(f.call(ids::server_configuration, ids::server_configuration_get_certificates, {ua::variant(g)}, out) ==
            ua::status::good);
    REQUIRE(out.size() == 2);
    const auto* types = out[0].get_if<ua::ua_array<ua::node_id>>();
    const auto* certs = out[1].get_if<ua::ua_array<ua::byte_string>>();
    REQUIRE(types);
    REQUIRE(certs);
    REQUIRE(types->size() == 2);
    REQUIRE(certs->size() == 2);
    CHECK((*types)[0] == ua::node_id(0, ids::rsa_sha256_application_certificate_type));
    CHECK((*certs)[0] == bytes_of_der(f.sec->certificate.der()));
    CHECK((*types)[1] == ua::node_id(0, ids::ecc_nist_p256_application_certificate_type));
    CHECK((*certs)[1] == bytes_of_der(ecc->cert.der()));
  }
  // CertificateTypes names both too.
  const auto types_node = f.core.space().find(
      ua::node_id(0, ids::server_configuration_certificate_groups_default_application_group_certificate_types));
  const auto* listed = f.core.space().variable(types_node)->value.value.get_if<ua::ua_array<ua::node_id>>();
  REQUIRE(listed);
  CHECK(listed->size() == 2);
  // A NodeId that is no group of the server, or no NodeId at all: Bad_InvalidArgument (Part 12 §7.10.8).
  CHECK(f.call(ids::server_configuration, ids::server_configuration_get_certificates,
               {ua::variant(ua::node_id(0, ids::server_configuration))}, out) == ua::status::bad_invalid_argument);
  CHECK(f.call(ids::server_configuration, ids::server_configuration_get_certificates, {ua::variant(std::uint32_t{1})}, out) ==
        ua::status::bad_invalid_argument);
  // Only SecurityAdmin.
  actors::config_caller user = f.admin;
  user.roles = {};
  CHECK(f.call(ids::server_configuration, ids::server_configuration_get_certificates, {ua::variant(group)}, out, &user) ==
        ua::status::bad_user_access_denied);
}

TEST_CASE("server configuration: ResetToServerDefaults leaves the configured trust list and a new self-signed certificate",
          "[engine][certificates]") {
  const auto configured = config_cert("configured client", "urn:test:configured");
  config_fixture f(1u << 20, {security::der_bytes(configured.cert.der().begin(), configured.cert.der().end())});
  std::vector<ua::variant> out;
  const auto extra = config_cert("extra", "urn:test:extra");
  const auto ca = config_cert("site ca", "");
  REQUIRE(f.on_trust_list(config_fixture::tl_add, {ua::variant(bytes_of_der(extra.cert.der())), ua::variant(true)}, out) ==
          ua::status::good);
  REQUIRE(f.on_trust_list(config_fixture::tl_add, {ua::variant(bytes_of_der(ca.cert.der())), ua::variant(false)}, out) ==
          ua::status::good);
  (void)f.config->take_trust_changed();
  // A transaction waits, and a TrustList is open: both end.
  const auto renewed = config_cert("uactor", server_uri, &ca, f.sec->private_key);
  REQUIRE(f.call(ids::server_configuration, ids::server_configuration_update_certificate,
                 {ua::variant(ua::node_id{}), ua::variant(ua::node_id{}), ua::variant(bytes_of_der(renewed.cert.der())),
                  ua::variant(ua::ua_array<ua::byte_string>{}), ua::variant(ua::ua_string("")), ua::variant(ua::byte_string{})},
                 out) == ua::status::good);
  REQUIRE(f.on_trust_list(config_fixture::tl_open, {ua::variant(std::uint8_t{1})}, out) == ua::status::good);
  const auto old = f.sec->own();
  // Any SecurityAdmin session may (it is no transaction of its own); it ends the other's.
  REQUIRE(f.call(ids::server_configuration, ids::server_configuration_reset_to_server_defaults, {}, out, &f.other_admin) ==
          ua::status::good);
  CHECK(f.config->last_audit().name == "ServerConfiguration/ResetToServerDefaults");
  CHECK(f.config->last_audit().event_type == ids::audit_update_method_event_type);
  CHECK(f.core.files().open_count(f.core.space().find(
            ua::node_id(0, ids::server_configuration_certificate_groups_default_application_group_trust_list))) == 0);
  CHECK_FALSE(f.config->pending());
  CHECK(f.config->transaction_session() == 0);
  // The trust list is the configured one alone.
  const auto t = f.read_list();
  REQUIRE(t.trusted_certificates.size() == 1);
  CHECK(t.trusted_certificates[0] == bytes_of_der(configured.cert.der()));
  CHECK(t.issuer_certificates.empty());
  CHECK(f.config->take_trust_changed());
  // A new self-signed certificate for the same ApplicationUri and hosts, on disk too.
  const auto now = f.sec->own();
  CHECK_FALSE(now->certificate == old->certificate);
  CHECK_FALSE(now->certificate == renewed.cert);
  CHECK(now->certificate.self_signed());
  CHECK(now->certificate.application_uri() == server_uri);
  CHECK(now->certificate.host_names() == old->certificate.host_names());
  CHECK(security::key_matches(now->certificate, now->private_key));
  CHECK(f.config->take_identity_changed());
  const auto on_disk = security::certificate::chain_from_file(f.pki.path() / "own" / "certs" / "uactor.der");
  REQUIRE(on_disk);
  CHECK(on_disk->front() == now->certificate);
  // Without SecurityAdmin, or over Sign: refused, nothing changes.
  actors::config_caller user = f.admin;
  user.roles = {};
  CHECK(f.call(ids::server_configuration, ids::server_configuration_reset_to_server_defaults, {}, out, &user) ==
        ua::status::bad_user_access_denied);
  actors::config_caller signing = f.admin;
  signing.mode = ua::message_security_mode::sign;
  CHECK(f.call(ids::server_configuration, ids::server_configuration_reset_to_server_defaults, {}, out, &signing) ==
        ua::status::bad_security_mode_insufficient);
  CHECK(f.sec->own()->certificate == now->certificate);
}

TEST_CASE("server configuration: a TrustList left open past ActivityTimeout is closed, its writes dropped",
          "[engine][certificates]") {
  config_fixture f;
  std::vector<ua::variant> out;
  auto& as = f.core.space();
  const auto tl = as.find(ua::node_id(0, ids::server_configuration_certificate_groups_default_application_group_trust_list));
  // The property says how long (Part 12 §7.8.2.1), in ms.
  const auto timeout = as.find(
      ua::node_id(0, ids::server_configuration_certificate_groups_default_application_group_trust_list_activity_timeout));
  REQUIRE(timeout != ua::no_node);
  CHECK(*as.variable(timeout)->value.value.get_if<double>() == 60'000.0);
  REQUIRE(f.on_trust_list(config_fixture::tl_open, {ua::variant(std::uint8_t{6})}, out) == ua::status::good);
  const auto h = *out.at(0).get_if<std::uint32_t>();
  // A call on the TrustList 50 s later starts the count again.
  f.now_ms += 50'000;
  ua::byte_string data("x");
  REQUIRE(f.on_trust_list(config_fixture::tl_write, {ua::variant(h), ua::variant(data)}, out) == ua::status::good);
  CHECK(f.config->expire(as, f.core.files(), at(f.now_ms + 59'999).utc) == 0);
  CHECK(f.core.files().open_count(tl) == 1);
  CHECK(f.config->expire(as, f.core.files(), at(f.now_ms + 60'000).utc) == 1);
  CHECK(f.core.files().open_count(tl) == 0);
  // The handle is gone: CloseAndUpdate of it changes nothing.
  CHECK(f.on_trust_list(config_fixture::tl_close_update, {ua::variant(h)}, out) == ua::status::bad_invalid_argument);
  CHECK(f.config->transaction_session() == 0);
  // Nothing open: nothing to close.
  CHECK(f.config->expire(as, f.core.files(), at(f.now_ms + 600'000).utc) == 0);
}

TEST_CASE("server configuration: the ECC certificate of a curve the server has is renewed with its certificate type",
          "[engine][certificates]") {
  security::certificate_request r;
  r.application_uri = server_uri;
  r.host_names = {"localhost"};
  r.curve = "prime256v1";
  const auto p256 = security::create_self_signed(r, ua::date_time::from_unix_ms(1'767'225'600'000));
  REQUIRE(p256);
  config_fixture f(1u << 20, {}, {{"prime256v1", p256->cert, {}, p256->private_key}});
  std::vector<ua::variant> out;
  const ua::node_id group(0, ids::server_configuration_certificate_groups_default_application_group);
  const ua::node_id p256_type(0, ids::ecc_nist_p256_application_certificate_type);
  const ua::node_id p384_type(0, ids::ecc_nist_p384_application_certificate_type);
  const auto& nist_p256 = *security::find_policy(security::policy_uri_ecc_nistp256);
  const auto ca = config_cert("site ca", "");
  const auto csr = [&](const ua::node_id& type, bool regenerate) {
    return f.call(ids::server_configuration, ids::server_configuration_create_signing_request,
                  {ua::variant(group), ua::variant(type), ua::variant(ua::ua_string("")), ua::variant(regenerate),
                   ua::variant(ua::byte_string(std::string(32, 'n')))},
                  out);
  };
  const auto update = [&](const ua::node_id& type, const security::certificate& c, std::string key_pem = "") {
    return f.call(ids::server_configuration, ids::server_configuration_update_certificate,
                  {ua::variant(group), ua::variant(type), ua::variant(bytes_of_der(c.der())),
                   ua::variant(ua::ua_array<ua::byte_string>{bytes_of_der(ca.cert.der())}),
                   ua::variant(ua::ua_string(key_pem.empty() ? "" : "PEM")), ua::variant(ua::byte_string(key_pem))},
                  out);
  };
  const auto request_key = [&]() {
    const auto& der = *out.at(0).get_if<ua::byte_string>();
    const auto* p = reinterpret_cast<const unsigned char*>(der.data());
    std::unique_ptr<X509_REQ, decltype(&X509_REQ_free)> req(d2i_X509_REQ(nullptr, &p, static_cast<long>(der.size())),
                                                             X509_REQ_free);
    REQUIRE(req);
    CHECK(X509_REQ_verify(req.get(), X509_REQ_get0_pubkey(req.get())) == 1);
    EVP_PKEY* k = X509_REQ_get0_pubkey(req.get());
    EVP_PKEY_up_ref(k);
    return std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>(k, EVP_PKEY_free);
  };
  // CreateSigningRequest for the P-256 type: signed with the P-256 key; a new one is on P-256 too.
  REQUIRE(csr(p256_type, false) == ua::status::good);
  CHECK(EVP_PKEY_eq(request_key().get(), p256->cert.public_key().native()) == 1);
  REQUIRE(csr(p256_type, true) == ua::status::good);
  const auto fresh = request_key();
  CHECK(EVP_PKEY_get_base_id(fresh.get()) == EVP_PKEY_EC);
  CHECK(EVP_PKEY_eq(fresh.get(), p256->cert.public_key().native()) != 1);
  // A curve the server has no certificate for: Bad_InvalidArgument.
  CHECK(csr(p384_type, false) == ua::status::bad_invalid_argument);

  // UpdateCertificate: a CA-signed certificate of the current P-256 key.
  cert_spec spec;
  spec.common_name = "uactor ecc";
  spec.uri = server_uri;
  spec.key = p256->private_key;
  spec.not_before = ua::date_time::from_unix_ms(1'700'000'000'000);
  spec.not_after = ua::date_time::from_unix_ms(1'900'000'000'000);
  const auto renewed = make_cert(spec, &ca);
  // An RSA certificate for the ECC type (even with its key), the ECC one for the RSA type: refused.
  const auto rsa = config_cert("uactor", server_uri, &ca);
  CHECK(update(p256_type, rsa.cert, rsa.key.to_private_pem()) == ua::status::bad_certificate_invalid);
  CHECK(update(ua::node_id(0, ids::rsa_sha256_application_certificate_type), renewed.cert,
               p256->private_key.to_private_pem()) == ua::status::bad_certificate_invalid);
  CHECK(update(p384_type, renewed.cert) == ua::status::bad_invalid_argument);
  CHECK_FALSE(f.config->pending());
  REQUIRE(update(p256_type, renewed.cert) == ua::status::good);
  // CertificateUpdatedAuditEventType names the ECC certificate type (Part 12 §7.10.12).
  CHECK(f.config->last_audit().event_type == ids::certificate_updated_audit_event_type);
  CHECK(f.config->last_audit().certificate_types ==
        std::vector<std::uint32_t>{ids::ecc_nist_p256_application_certificate_type});
  CHECK(f.sec->identity_for(nist_p256)->certificate == p256->cert);  // not before ApplyChanges
  REQUIRE(f.apply() == ua::status::good);
  CHECK(f.config->last_audit().certificate_types ==
        std::vector<std::uint32_t>{ids::ecc_nist_p256_application_certificate_type});
  // New ECC channels use it; the RSA one is untouched; GetCertificates and own/ say so.
  CHECK(f.sec->identity_for(nist_p256)->certificate == renewed.cert);
  CHECK(f.sec->identity_for(nist_p256)->issuers.size() == 1);
  CHECK(f.sec->own()->certificate == f.sec->certificate);
  CHECK(f.config->take_identity_changed());
  REQUIRE(f.call(ids::server_configuration, ids::server_configuration_get_certificates, {ua::variant(group)}, out) ==
          ua::status::good);
  CHECK((*out.at(1).get_if<ua::ua_array<ua::byte_string>>())[1] == bytes_of_der(renewed.cert.der()));
  const auto on_disk = security::certificate::chain_from_file(f.pki.path() / "own" / "certs" / "uactor-ecc-nistP256.der");
  REQUIRE(on_disk);
  CHECK(on_disk->front() == renewed.cert);
  CHECK(std::filesystem::exists(f.pki.path() / "own" / "private" / "uactor-ecc-nistP256.pem"));
  // A new P-256 key given as PEM.
  spec.key = *security::generate_ecc_key("prime256v1");
  const auto with_key = make_cert(spec, &ca);
  REQUIRE(update(p256_type, with_key.cert, spec.key.to_private_pem()) == ua::status::good);
  REQUIRE(f.apply() == ua::status::good);
  CHECK(f.sec->identity_for(nist_p256)->certificate == with_key.cert);
  CHECK(security::key_matches(with_key.cert, f.sec->identity_for(nist_p256)->private_key));

  // A new P-256 key given as PFX (PKCS#12 without a password), as a certificate tool exports it.
  spec.key = *security::generate_ecc_key("prime256v1");
  const auto with_pfx = make_cert(spec, &ca);
  std::unique_ptr<PKCS12, decltype(&PKCS12_free)> p12(
      PKCS12_create("", "uactor", spec.key.native(), with_pfx.cert.native(), nullptr, 0, 0, 0, 0, 0), PKCS12_free);
  REQUIRE(p12);
  unsigned char* der = nullptr;
  const int der_len = i2d_PKCS12(p12.get(), &der);
  REQUIRE(der_len > 0);
  const std::string pfx(reinterpret_cast<const char*>(der), static_cast<std::size_t>(der_len));
  OPENSSL_free(der);
  const auto pfx_update = [&](const security::certificate& c) {
    return f.call(ids::server_configuration, ids::server_configuration_update_certificate,
                  {ua::variant(group), ua::variant(p256_type), ua::variant(bytes_of_der(c.der())),
                   ua::variant(ua::ua_array<ua::byte_string>{bytes_of_der(ca.cert.der())}), ua::variant(ua::ua_string("PFX")),
                   ua::variant(ua::byte_string(pfx))},
                  out);
  };
  CHECK(pfx_update(with_key.cert) == ua::status::bad_security_checks_failed);  // the PFX's key is not this one's
  REQUIRE(pfx_update(with_pfx.cert) == ua::status::good);
  REQUIRE(f.apply() == ua::status::good);
  CHECK(f.sec->identity_for(nist_p256)->certificate == with_pfx.cert);
  CHECK(security::key_matches(with_pfx.cert, f.sec->identity_for(nist_p256)->private_key));

  // ResetToServerDefaults makes a new self-signed certificate on each curve too, on disk as well.
  const auto before_rsa = f.sec->own()->certificate;
  REQUIRE(f.call(ids::server_configuration, ids::server_configuration_reset_to_server_defaults, {}, out) ==
          ua::status::good);
  const auto reset = f.sec->identity_for(nist_p256);
  CHECK_FALSE(reset->certificate == with_key.cert);
  CHECK(reset->certificate.self_signed());
  CHECK(reset->certificate.application_uri() == server_uri);
  CHECK(security::key_fits_policy(nist_p256, reset->private_key));
  CHECK(security::key_matches(reset->certificate, reset->private_key));
  CHECK_FALSE(f.sec->own()->certificate == before_rsa);
  const auto reset_on_disk =
      security::certificate::chain_from_file(f.pki.path() / "own" / "certs" / "uactor-ecc-nistP256.der");
  REQUIRE(reset_on_disk);
  CHECK(reset_on_disk->front() == reset->certificate);
}

// ---------------------------------------------------------------------------------------------
// DefaultHttpsGroup and DefaultUserTokenGroup (Part 12 §7.8.3.3; docs/decisions/0078).

namespace {

// Every DER file of a folder (not the temporary ones).
std::size_t certificate_files(const std::filesystem::path& dir) {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) n += e.path().filename().string()[0] != '.';
  return n;
}

// A TrustListDataType read through OpenWithMasks/Read/Close of the TrustList `tl` (its methods'
// NodeIds follow the TrustList's: Open +6, Read +11, Close +9, OpenWithMasks +22).
ua::trust_list_data_type read_group_list(config_fixture& f, std::uint32_t tl, std::uint32_t open_with_masks,
                                         std::uint32_t read, std::uint32_t close) {
  std::vector<ua::variant> out;
  REQUIRE(f.on_group_trust_list(tl, open_with_masks, {ua::variant(std::uint32_t{15})}, out) == ua::status::good);
  const auto h = *out.at(0).get_if<std::uint32_t>();
  std::string bytes;
  for (;;) {
    REQUIRE(f.on_group_trust_list(tl, read, {ua::variant(h), ua::variant(std::int32_t{4096})}, out) == ua::status::good);
    const auto& chunk = *out.at(0).get_if<ua::byte_string>();
    if (chunk.empty()) break;
    bytes += chunk.view();
  }
  REQUIRE(f.on_group_trust_list(tl, close, {ua::variant(h)}, out) == ua::status::good);
  ua::decoder d({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()});
  ua::trust_list_data_type t;
  ua::decode(d, t);
  REQUIRE(d.ok());
  return t;
}

}  // namespace

TEST_CASE("server configuration: DefaultHttpsGroup renews the opc.wss TLS certificate at ApplyChanges",
          "[engine][certificates]") {
  config_fixture f(1u << 20, {}, {}, true);
  std::vector<ua::variant> out;
  auto& as = f.core.space();
  const ua::node_id https_group(0, ids::server_configuration_certificate_groups_default_https_group);
  const ua::node_id https_type(0, ids::https_certificate_type);
  // CertificateTypes: HttpsCertificateType (Part 12 §7.8.3.3).
  const auto types = as.find(ua::node_id(0, ids::server_configuration_certificate_groups_default_https_group_certificate_types));
  REQUIRE(types != ua::no_node);
  const auto* listed = as.variable(types)->value.value.get_if<ua::ua_array<ua::node_id>>();
  REQUIRE(listed);
  CHECK(*listed == ua::ua_array<ua::node_id>{https_type});
  // GetCertificates of the group: the TLS certificate in use.
  REQUIRE(f.call(ids::server_configuration, ids::server_configuration_get_certificates, {ua::variant(https_group)}, out) ==
          ua::status::good);
  CHECK(*out.at(0).get_if<ua::ua_array<ua::node_id>>() == ua::ua_array<ua::node_id>{https_type});
  CHECK((*out.at(1).get_if<ua::ua_array<ua::byte_string>>())[0] == bytes_of_der(f.sec->certificate.der()));

  // CreateSigningRequest with a new key: an RSA key, kept for the certificate to come.
  REQUIRE(f.call(ids::server_configuration, ids::server_configuration_create_signing_request,
                 {ua::variant(https_group), ua::variant(https_type), ua::variant(ua::ua_string("CN=plant gateway")),
                  ua::variant(true), ua::variant(ua::byte_string(std::string(32, 'n')))},
                 out) == ua::status::good);
  const auto& der = *out.at(0).get_if<ua::byte_string>();
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  std::unique_ptr<X509_REQ, decltype(&X509_REQ_free)> req(d2i_X509_REQ(nullptr, &p, static_cast<long>(der.size())),
                                                           X509_REQ_free);
  REQUIRE(req);
  EVP_PKEY* requested = X509_REQ_get0_pubkey(req.get());
  CHECK(X509_REQ_verify(req.get(), requested) == 1);
  CHECK(EVP_PKEY_get_base_id(requested) == EVP_PKEY_RSA);
  CHECK(EVP_PKEY_eq(requested, f.sec->certificate.public_key().native()) != 1);
  // DefaultUserTokenGroup has no certificate of its own.
  CHECK(f.call(ids::server_configuration, ids::server_configuration_create_signing_request,
               {ua::variant(ua::node_id(0, ids::server_configuration_certificate_groups_default_user_token_group)),
                ua::variant(ua::node_id{}), ua::variant(ua::ua_string("")), ua::variant(false), ua::variant(ua::byte_string{})},
               out) == ua::status::bad_invalid_argument);

  const auto ca = config_cert("site ca", "");
  const auto update = [&](const ua::node_id& type, const security::certificate& c, std::string key_pem = "") {
    return f.call(ids::server_configuration, ids::server_configuration_update_certificate,
                  {ua::variant(https_group), ua::variant(type), ua::variant(bytes_of_der(c.der())),
                   ua::variant(ua::ua_array<ua::byte_string>{bytes_of_der(ca.cert.der())}),
                   ua::variant(ua::ua_string(key_pem.empty() ? "" : "PEM")), ua::variant(ua::byte_string(key_pem))},
                  out);
  };
  const auto old = f.sec->https->current.get();
  // Refusals that change nothing: a key that is neither the new one nor the current, an ECC
  // certificate type, garbage, an ECC key.
  const auto foreign = config_cert("gateway", "urn:any", &ca);
  CHECK(update(https_type, foreign.cert) == ua::status::bad_security_checks_failed);
  CHECK(update(ua::node_id(0, ids::ecc_nist_p256_application_certificate_type), foreign.cert,
               foreign.key.to_private_pem()) == ua::status::bad_invalid_argument);
  CHECK(f.call(ids::server_configuration, ids::server_configuration_update_certificate,
               {ua::variant(https_group), ua::variant(https_type), ua::variant(ua::byte_string("junk")),
                ua::variant(ua::ua_array<ua::byte_string>{}), ua::variant(ua::ua_string("")), ua::variant(ua::byte_string{})},
               out) == ua::status::bad_certificate_invalid);
  cert_spec ecc_spec;
  ecc_spec.common_name = "gateway ecc";
  ecc_spec.key = *security::generate_ecc_key("prime256v1");
  ecc_spec.not_before = ua::date_time::from_unix_ms(1'700'000'000'000);
  ecc_spec.not_after = ua::date_time::from_unix_ms(1'900'000'000'000);
  const auto ecc = make_cert(ecc_spec, &ca);
  CHECK(update(https_type, ecc.cert, ecc_spec.key.to_private_pem()) == ua::status::bad_certificate_invalid);
  CHECK_FALSE(f.config->pending());

  // A certificate the site's tool made with a key of its own (given as PEM); the URI is no HTTPS
  // certificate's business.
  cert_spec signed_spec;
  signed_spec.common_name = "plant gateway";
  signed_spec.uri = "urn:somewhere:else";
  signed_spec.not_before = ua::date_time::from_unix_ms(1'700'000'000'000);
  signed_spec.not_after = ua::date_time::from_unix_ms(1'900'000'000'000);
  signed_spec.key = security::rsa_key::generate(2048).value();
  const auto renewed = make_cert(signed_spec, &ca);
  REQUIRE(update(https_type, renewed.cert, signed_spec.key.to_private_pem()) == ua::status::good);
  CHECK(*out.at(0).get_if<bool>());
  CHECK(f.config->last_audit().certificate_types == std::vector<std::uint32_t>{ids::https_certificate_type});
  CHECK(f.config->last_audit().certificate_groups ==
        std::vector<std::uint32_t>{ids::server_configuration_certificate_groups_default_https_group});
  CHECK(f.sec->https->current.get() == old);  // not before ApplyChanges
  REQUIRE(f.apply() == ua::status::good);
  CHECK(f.config->last_audit().certificate_types == std::vector<std::uint32_t>{ids::https_certificate_type});
  // New TLS connections take it; the application certificate is untouched.
  CHECK(f.sec->https->current.get()->certificate == renewed.cert);
  CHECK(f.sec->https->current.get()->issuers.size() == 1);
  CHECK(f.sec->own()->certificate == f.sec->certificate);
  CHECK(old->certificate == f.sec->certificate);  // a running connection's stays as it was
  const auto on_disk = security::certificate::chain_from_file(f.pki.path() / "own" / "certs" / "uactor-https.der");
  REQUIRE(on_disk);
  CHECK(on_disk->size() == 2);
  CHECK(on_disk->front() == renewed.cert);
  CHECK(std::filesystem::exists(f.pki.path() / "own" / "private" / "uactor-https.pem"));
  REQUIRE(f.call(ids::server_configuration, ids::server_configuration_get_certificates, {ua::variant(https_group)}, out) ==
          ua::status::good);
  CHECK((*out.at(1).get_if<ua::ua_array<ua::byte_string>>())[0] == bytes_of_der(renewed.cert.der()));
  // The default group's GetCertificates does not list it.
  REQUIRE(f.call(ids::server_configuration, ids::server_configuration_get_certificates, {ua::variant(ua::node_id{})}, out) ==
          ua::status::good);
  CHECK(out.at(1).get_if<ua::ua_array<ua::byte_string>>()->size() == 1);
  CHECK((*out.at(1).get_if<ua::ua_array<ua::byte_string>>())[0] == bytes_of_der(f.sec->certificate.der()));
}

TEST_CASE("server configuration: the HTTPS group's certificate in the plant file's PEM files is renewed there",
          "[engine][certificates]") {
  config_fixture f(1u << 20, {}, {}, true);
  std::vector<ua::variant> out;
  f.sec->https->certificate_file = (f.pki.path() / "wss-cert.pem").string();
  f.sec->https->key_file = (f.pki.path() / "wss-key.pem").string();
  f.sec->https->pem = true;
  const auto ca = config_cert("site ca", "");
  const auto renewed = config_cert("gateway", "urn:any", &ca);
  REQUIRE(f.call(ids::server_configuration, ids::server_configuration_update_certificate,
                 {ua::variant(ua::node_id(0, ids::server_configuration_certificate_groups_default_https_group)),
                  ua::variant(ua::node_id{}), ua::variant(bytes_of_der(renewed.cert.der())),
                  ua::variant(ua::ua_array<ua::byte_string>{bytes_of_der(ca.cert.der())}), ua::variant(ua::ua_string("PEM")),
                  ua::variant(ua::byte_string(renewed.key.to_private_pem()))},
                 out) == ua::status::good);
  REQUIRE(f.apply() == ua::status::good);
  // PEM blocks, leaf first, that OpenSSL (and a web server) reads back; the key beside it.
  const auto chain = security::certificate::chain_from_file(f.pki.path() / "wss-cert.pem");
  REQUIRE(chain);
  REQUIRE(chain->size() == 2);
  CHECK(chain->front() == renewed.cert);
  CHECK((*chain)[1] == ca.cert);
  std::ifstream in(f.pki.path() / "wss-key.pem");
  const std::string pem((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto key = security::rsa_key::from_private_pem(pem);
  REQUIRE(key);
  CHECK(security::key_matches(renewed.cert, *key));
}

TEST_CASE("server configuration: without an opc.wss endpoint DefaultHttpsGroup has no certificate", "[engine][certificates]") {
  config_fixture f;
  std::vector<ua::variant> out;
  auto& as = f.core.space();
  const auto types = as.find(ua::node_id(0, ids::server_configuration_certificate_groups_default_https_group_certificate_types));
  REQUIRE(types != ua::no_node);
  CHECK(as.variable(types)->value.value.get_if<ua::ua_array<ua::node_id>>()->empty());
  const auto renewed = config_cert("gateway", "urn:any");
  CHECK(f.call(ids::server_configuration, ids::server_configuration_update_certificate,
               {ua::variant(ua::node_id(0, ids::server_configuration_certificate_groups_default_https_group)),
                ua::variant(ua::node_id(0, ids::https_certificate_type)), ua::variant(bytes_of_der(renewed.cert.der())),
                ua::variant(ua::ua_array<ua::byte_string>{}), ua::variant(ua::ua_string("PEM")),
                ua::variant(ua::byte_string(renewed.key.to_private_pem()))},
               out) == ua::status::bad_invalid_argument);
  REQUIRE(f.call(ids::server_configuration, ids::server_configuration_get_certificates,
                 {ua::variant(ua::node_id(0, ids::server_configuration_certificate_groups_default_https_group))},
                 out) == ua::status::good);
  CHECK(out.at(1).get_if<ua::ua_array<ua::byte_string>>()->empty());
  // A group that is none of the three: Bad_InvalidArgument.
  CHECK(f.call(ids::server_configuration, ids::server_configuration_get_certificates, {ua::variant(ua::node_id(1, 42))},
               out) == ua::status::bad_invalid_argument);
}

TEST_CASE("server configuration: DefaultHttpsGroup's TrustList is a list of its own", "[engine][certificates]") {
  config_fixture f(1u << 20, {}, {}, true);
  std::vector<ua::variant> out;
  constexpr std::uint32_t tl = ids::server_configuration_certificate_groups_default_https_group_trust_list;
  const auto client = config_cert("browser client", "urn:any");
  REQUIRE(f.on_group_trust_list(tl, ids::server_configuration_certificate_groups_default_https_group_trust_list_add_certificate,
                                {ua::variant(bytes_of_der(client.cert.der())), ua::variant(true)}, out) == ua::status::good);
  CHECK(certificate_files(f.pki.path() / "https" / "trusted" / "certs") == 1);
  CHECK(f.trusted_files() == 0);  // the application trust list is not touched
  CHECK_FALSE(f.config->take_trust_changed());  // no channel or session depends on it
  CHECK(f.config->last_audit().event_type == ids::trust_list_updated_audit_event_type);
  const auto t = read_group_list(f, tl, ids::server_configuration_certificate_groups_default_https_group_trust_list_open_with_masks,
                                 ids::server_configuration_certificate_groups_default_https_group_trust_list_read,
                                 ids::server_configuration_certificate_groups_default_https_group_trust_list_close);
  REQUIRE(t.trusted_certificates.size() == 1);
  CHECK(t.trusted_certificates[0] == bytes_of_der(client.cert.der()));
  CHECK(f.read_list().trusted_certificates.empty());
}

TEST_CASE("server configuration: DefaultUserTokenGroup's trust list is the application's until it is first written",
          "[engine][certificates]") {
  config_fixture f;
  std::vector<ua::variant> out;
  constexpr std::uint32_t tl = ids::server_configuration_certificate_groups_default_user_token_group_trust_list;
  const auto read_user_list = [&] {
    return read_group_list(f, tl, ids::server_configuration_certificate_groups_default_user_token_group_trust_list_open_with_masks,
                           ids::server_configuration_certificate_groups_default_user_token_group_trust_list_read,
                           ids::server_configuration_certificate_groups_default_user_token_group_trust_list_close);
  };
  const auto before = config_cert("old user", "urn:user:old");
  const auto after = config_cert("new user", "urn:user:new");
  const auto application_only = config_cert("late app", "urn:app:late");
  // An X509 user trusted the way every plant before the group trusted them: in the application list.
  REQUIRE(f.on_trust_list(config_fixture::tl_add, {ua::variant(bytes_of_der(before.cert.der())), ua::variant(true)}, out) ==
          ua::status::good);
  actors::user_token_checker checker(f.sec->store);
  security::validation_options o;
  o.check_revocation = false;
  const auto now = ua::date_time::from_unix_ms(1'800'000'000'000);
  CHECK(checker.check(before.cert, o, now).ok());
  CHECK_FALSE(actors::user_token_trust_separate(f.pki.path()));
  // Reading it shows what is in effect: the application list.
  CHECK(read_user_list().trusted_certificates.size() == 1);

  // The first change copies the application list into <pki>/user and changes the copy.
  REQUIRE(f.on_group_trust_list(tl, ids::server_configuration_certificate_groups_default_user_token_group_trust_list_add_certificate,
                                {ua::variant(bytes_of_der(after.cert.der())), ua::variant(true)}, out) == ua::status::good);
  CHECK(f.config->take_trust_changed());  // X509 user sessions are checked again
  CHECK(actors::user_token_trust_separate(f.pki.path()));
  CHECK(certificate_files(f.pki.path() / "user" / "trusted" / "certs") == 2);
  CHECK(f.trusted_files() == 1);  // the application list did not get the user
  CHECK(checker.check(before.cert, o, now).ok());
  CHECK(checker.check(after.cert, o, now).ok());
  // From now on the lists part: what only the application list trusts is no user.
  REQUIRE(f.on_trust_list(config_fixture::tl_add, {ua::variant(bytes_of_der(application_only.cert.der())), ua::variant(true)},
                          out) == ua::status::good);
  CHECK_FALSE(checker.check(application_only.cert, o, now).ok());
  CHECK(read_user_list().trusted_certificates.size() == 2);

  // CloseAndUpdate + ApplyChanges on it: the user list only.
  ua::trust_list_data_type t;
  t.specified_lists = security::trust_masks::trusted_certificates;
  t.trusted_certificates.push_back(bytes_of_der(after.cert.der()));
  std::vector<ua::variant> opened;
  REQUIRE(f.on_group_trust_list(tl, ids::server_configuration_certificate_groups_default_user_token_group_trust_list_open,
                                {ua::variant(std::uint8_t{6})}, opened) == ua::status::good);
  const auto h = *opened.at(0).get_if<std::uint32_t>();
  ua::byte_string data;
  data.assign(encode_list(t));
  REQUIRE(f.on_group_trust_list(tl, ids::server_configuration_certificate_groups_default_user_token_group_trust_list_write,
                                {ua::variant(h), ua::variant(data)}, out) == ua::status::good);
  REQUIRE(f.on_group_trust_list(tl, ids::server_configuration_certificate_groups_default_user_token_group_trust_list_close_and_update,
                                {ua::variant(h)}, out) == ua::status::good);
  CHECK(checker.check(before.cert, o, now).ok());  // not before ApplyChanges
  REQUIRE(f.apply() == ua::status::good);
  CHECK_FALSE(checker.check(before.cert, o, now).ok());
  CHECK(checker.check(after.cert, o, now).ok());
  CHECK(f.trusted_files() == 2);  // the application list unchanged
}

TEST_CASE("server configuration: CreateSelfSignedCertificate makes a certificate that ApplyChanges installs (Part 12 §7.10.6)",
          "[engine][certificates]") {
  config_fixture f(1u << 20, {}, {}, true);
  std::vector<ua::variant> out;
  const ua::node_id app_group(0, ids::server_configuration_certificate_groups_default_application_group);
  const ua::node_id https_group(0, ids::server_configuration_certificate_groups_default_https_group);
  const ua::node_id rsa(0, ids::rsa_sha256_application_certificate_type);
  const auto create = [&](const ua::node_id& group, const ua::node_id& type, std::string subject,
                          ua::ua_array<ua::ua_string> dns, std::uint16_t days, std::uint16_t bits,
                          const actors::config_caller* who = nullptr) {
    return f.call(ids::server_configuration, ids::server_configuration_type_create_self_signed_certificate,
                  {ua::variant(group), ua::variant(type), ua::variant(ua::ua_string(subject)), ua::variant(std::move(dns)),
                   ua::variant(ua::ua_array<ua::ua_string>{ua::ua_string("10.0.0.7")}), ua::variant(days), ua::variant(bits)},
                  out, who);
  };
  const auto old = f.sec->own();
  // Refusals that open no transaction: a key size outside the policy's, a malformed subject, the
  // user token group, a type the server has no certificate for, another session's transaction.
  CHECK(create(app_group, rsa, "", {}, 0, 1024) == ua::status::bad_invalid_argument);
  CHECK(create(app_group, rsa, "no equals sign", {}, 0, 0) == ua::status::bad_invalid_argument);
  CHECK(create(ua::node_id(0, ids::server_configuration_certificate_groups_default_user_token_group), ua::node_id{}, "", {}, 0,
               0) == ua::status::bad_invalid_argument);
  CHECK(create(app_group, ua::node_id(0, ids::ecc_nist_p256_application_certificate_type), "", {}, 0, 0) ==
        ua::status::bad_invalid_argument);
  CHECK_FALSE(f.config->pending());

  REQUIRE(create(app_group, rsa, "CN=line 4 server, O=Plant", {ua::ua_string("line4.plant")}, 30, 3072) == ua::status::good);
  const auto made = security::certificate::from_der(
      std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(out.at(0).get_if<ua::byte_string>()->data()),
                                    out.at(0).get_if<ua::byte_string>()->size()));
  REQUIRE(made);
  CHECK(made->self_signed());
  CHECK(made->application_uri() == server_uri);
  CHECK(made->subject().find("line 4 server") != std::string::npos);
  const auto hosts = made->host_names();
  CHECK(std::find(hosts.begin(), hosts.end(), "line4.plant") != hosts.end());
  CHECK(std::find(hosts.begin(), hosts.end(), "10.0.0.7") != hosts.end());
  CHECK(made->public_key().bits() == 3072);
  CHECK(f.config->last_audit().event_type == ids::certificate_updated_audit_event_type);
  CHECK(f.config->pending());
  CHECK(f.sec->own()->certificate == old->certificate);  // not before ApplyChanges
  // Another session: Bad_TransactionPending.
  CHECK(create(https_group, ua::node_id{}, "", {}, 0, 0, &f.other_admin) == ua::status::bad_transaction_pending);
  // The HTTPS certificate in the same transaction.
  REQUIRE(create(https_group, ua::node_id(0, ids::https_certificate_type), "CN=gateway", {}, 0, 0) == ua::status::good);
  REQUIRE(f.apply() == ua::status::good);
  CHECK(f.sec->own()->certificate == *made);
  CHECK(security::key_matches(f.sec->own()->certificate, f.sec->own()->private_key));
  CHECK(f.sec->https->current.get()->certificate.subject().find("gateway") != std::string::npos);
  CHECK(std::filesystem::exists(f.pki.path() / "own" / "certs" / "uactor-https.der"));
}

TEST_CASE("server configuration: DeleteCertificate of a certificate an endpoint uses is refused at ApplyChanges "
          "(Part 12 §7.10.7)", "[engine][certificates]") {
  config_fixture f(1u << 20, {}, {}, true);
  std::vector<ua::variant> out;
  const auto del = [&](std::uint32_t group, std::uint32_t type) {
    return f.call(ids::server_configuration, ids::server_configuration_type_delete_certificate,
                  {ua::variant(ua::node_id(0, group)), ua::variant(ua::node_id(0, type))}, out);
  };
  // A slot with no certificate: Bad_InvalidState at once (§7.10.7); a group without one: Bad_InvalidArgument.
  CHECK(del(ids::server_configuration_certificate_groups_default_application_group,
            ids::ecc_nist_p256_application_certificate_type) == ua::status::bad_invalid_argument);
  CHECK(del(ids::server_configuration_certificate_groups_default_user_token_group, ids::user_credential_certificate_type) ==
        ua::status::bad_invalid_argument);
  const auto old = f.sec->own();
  REQUIRE(del(ids::server_configuration_certificate_groups_default_application_group,
              ids::rsa_sha256_application_certificate_type) == ua::status::good);
  CHECK(f.config->transaction_session() == f.admin.session);
  // "Certificates that are referenced by EndpointDescriptions shall not be deleted. This
  // determination happens when ApplyChanges is called": nothing changes, the transaction stays.
  CHECK(f.apply() == ua::status::bad_invalid_state);
  CHECK(f.sec->own()->certificate == old->certificate);
  CHECK(std::filesystem::exists(f.pki.path() / "own" / "certs" / "uactor.der"));
  CHECK(f.config->transaction_session() == f.admin.session);
  CHECK(f.cancel() == ua::status::good);
  CHECK(f.config->transaction_session() == 0);
}

}  // namespace uactor::test
