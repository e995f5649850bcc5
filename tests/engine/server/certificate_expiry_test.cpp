// Certificates about to expire (docs/security.md "Certificate expiry"): days left, the warning
// window, each certificate announced once, the figures /metrics shows, and each certificate a
// CertificateExpirationAlarmType condition (Part 9 §5.8.24.7, docs/decisions/0081).
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "engine/server/certificates/certificate_expiry.hpp"
#include "engine/server/server_metrics.hpp"
#include "security/pki_store.hpp"
#include "tests/engine/server/condition_client.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "uactor/ua/node_ids.hpp"
#include "tests/security/pki_test_support.hpp"

namespace uactor::test {
namespace {

using security::testing::day_ms;

security::certificate expiring_at(const char* cn, std::int64_t end_ms) {
  security::testing::cert_spec s;
  s.common_name = cn;
  s.uri = std::string("urn:test:") + cn;
  s.not_before = ua::date_time::from_unix_ms(end_ms - 400 * day_ms);
  s.not_after = ua::date_time::from_unix_ms(end_ms);
  return security::testing::make_cert(s).cert;
}

// A server core whose certificates are `sec`'s, with ServerConfiguration and so the expiry check.
actors::server_core managed_core(const std::shared_ptr<actors::server_security>& sec, const actors::instant& now) {
  actors::server_core_config c;
  c.description.application_uri = "urn:test:uactor:server";
  c.description.endpoint_url = "opc.tcp://localhost:4840";
  c.sessions.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = ++n;
  };
  c.sessions.security = sec;
  auto core = actors::make_server_core(std::move(c), "test", now.utc, "urn:test");
  actors::certificate_management_config management;
  management.security = sec;
  management.application_uri = "urn:test:uactor:server";
  REQUIRE(core.set_certificate_management(management, now) == ua::status::good);
  return core;
}

}  // namespace

TEST_CASE("certificate expiry: days left, the warning window, one announcement each", "[engine][certificates]") {
  const auto now = at(0);
  const std::int64_t t0 = now.utc.to_unix_ms();
  std::vector<actors::watched_certificate> certs = {{"own", expiring_at("soon", t0 + 10 * day_ms)},
                                                    {"trusted", expiring_at("later", t0 + 100 * day_ms)},
                                                    {"issuer", expiring_at("gone", t0 - 2 * day_ms)}};
  actors::certificate_expiry watch;
  CHECK(watch.due(now.steady));
  auto found = watch.check(certs, now.utc, now.steady);
  REQUIRE(found.size() == 3);
  CHECK(found[0].days_left == Approx(10).margin(0.01));
  CHECK(found[0].warning);
  CHECK(found[0].newly);
  CHECK_FALSE(found[1].warning);
  CHECK(found[2].days_left == Approx(-2).margin(0.01));
  CHECK(found[2].warning);
  CHECK(found[2].group == "issuer");
  // Not due again before the interval; when it is, the same certificates are not new any more.
  CHECK_FALSE(watch.due(now.steady + std::chrono::minutes(59)));
  CHECK(watch.due(now.steady + std::chrono::minutes(60)));
  found = watch.check(certs, ua::date_time::from_unix_ms(t0 + 3'600'000), now.steady + std::chrono::minutes(60));
  CHECK_FALSE(found[0].newly);
  CHECK_FALSE(found[2].newly);
  // A certificate that left the window (renewed) and came back is new again.
  certs[0].cert = expiring_at("soon", t0 + 300 * day_ms);
  watch.check(certs, now.utc, now.steady);
  certs[0].cert = expiring_at("soon", t0 + 5 * day_ms);
  CHECK(watch.check(certs, now.utc, now.steady)[0].newly);
}

TEST_CASE("certificate expiry: the server's own and trusted certificates in its metrics", "[engine][certificates]") {
  security::testing::temp_dir pki;
  auto store = std::make_shared<security::pki_store>(pki.path());
  security::certificate_request r;
  r.application_uri = "urn:test:uactor:server";
  const auto own = store->load_or_create_own(r, "uactor");
  REQUIRE(own);
  const auto now = at(0);
  REQUIRE(store->trust(expiring_at("peer", now.utc.to_unix_ms() + 20 * day_ms)).is_good());
  auto sec = std::make_shared<actors::server_security>();
  sec->certificate = own->cert;
  sec->private_key = own->private_key;
  sec->store = store;
  auto core = managed_core(sec, now);
  auto metrics = std::make_shared<actors::metrics_registry>();
  core.set_metrics(metrics);
  core.on_tick(now);
  const auto m = metrics->snapshot();
  REQUIRE(m.certificates.size() == 2);
  CHECK(m.certificates[0].group == "own");
  CHECK(m.certificates[0].thumbprint == own->cert.thumbprint_hex());
  CHECK(m.certificates[0].days_left > 300);
  CHECK(m.certificates[1].group == "trusted");
  CHECK(m.certificates[1].days_left == Approx(20).margin(0.01));
}

TEST_CASE("certificate expiry: each certificate a CertificateExpirationAlarmType condition", "[engine][certificates][alarms]") {
  security::testing::temp_dir pki;
  auto store = std::make_shared<security::pki_store>(pki.path());
  security::certificate_request r;
  r.application_uri = "urn:test:uactor:server";
  const auto own = store->load_or_create_own(r, "uactor");
  REQUIRE(own);
  const auto now = at(0);
  const auto peer = expiring_at("peer", now.utc.to_unix_ms() + 20 * day_ms);
  REQUIRE(store->trust(peer).is_good());
  auto sec = std::make_shared<actors::server_security>();
  sec->certificate = own->cert;
  sec->private_key = own->private_key;
  sec->store = store;
  // None offered: the test's client session reads, subscribes and calls over it.
  sec->offers = {{security::find_policy(security::policy_uri_none), ua::message_security_mode::none}};
  auto core = managed_core(sec, now);
  // Looked at every 30 s here, so that the session and the subscription live through the test while
  // the UTC clock runs days ahead.
  core.set_expiry(actors::expiry_config{30, std::chrono::seconds(30)});
  core.on_tick(now);
  const auto& conditions = core.conditions();
  const auto later = [&](std::int64_t steady_ms, std::int64_t days) {
    return actors::instant{now.steady + std::chrono::milliseconds(steady_ms),
                           ua::date_time::from_unix_ms(now.utc.to_unix_ms() + days * day_ms)};
  };
  REQUIRE(conditions.size() == 2);
  const auto own_id = ua::node_id::string(1, "Server.Certificates.own." + own->cert.thumbprint_hex());
  const auto peer_id = ua::node_id::string(1, "Server.Certificates.trusted." + peer.thumbprint_hex());
  const auto child = [&](const char* path) {
    return ua::node_id::string(1, "Server.Certificates.trusted." + peer.thumbprint_hex() + "." + path);
  };
  auto& space = core.space();
  REQUIRE(space.find(own_id) != ua::no_node);
  REQUIRE(space.find(peer_id) != ua::no_node);
  // The own certificate has a year: inactive, not retained; the peer's 20 days are within the
  // ExpirationLimit (30 days): active and waiting for Acknowledge.
  CHECK_FALSE(conditions.active(0));
  CHECK_FALSE(conditions.retain(0));
  CHECK(conditions.active(1));
  CHECK_FALSE(conditions.acked(1));
  CHECK(conditions.retain(1));
  // The Server object is the source: HasCondition to each, and each its component.
  const auto server = space.find(ua::node_id(0, ua::ids::server));
  std::size_t has_condition = 0;
  for (const auto& ref : space.forward_references(server))
    if (ref.type == space.find(ua::node_id(0, ua::ids::has_condition))) ++has_condition;
  CHECK(has_condition == 2);
  test::condition_client cl(core);
  // §5.8.24.7: ExpirationDate, ExpirationLimit, CertificateType, Certificate as properties, equal to the events'.
  CHECK(cl.read(child("EventType")) == ua::variant(ua::node_id(0, ua::ids::certificate_expiration_alarm_type)));
  CHECK(cl.read(child("ExpirationDate")) == ua::variant(peer.valid_to()));
  CHECK(cl.read(child("ExpirationLimit")) == ua::variant(30.0 * day_ms));
  CHECK(cl.read(child("CertificateType")) == ua::variant(ua::node_id(0, ua::ids::rsa_sha256_application_certificate_type)));
  ua::byte_string der;
  der.assign(peer.der().data(), peer.der().size());
  CHECK(cl.read(child("Certificate")) == ua::variant(der));
  CHECK(cl.read(child("NormalState")) == ua::variant(ua::node_id()));
  CHECK(cl.read(child("SourceNode")) == ua::variant(ua::node_id(0, ua::ids::server)));
  CHECK(cl.read(child("Severity")) == ua::variant(std::uint16_t{600}));
  CHECK(cl.read(child("Message")) ==
        ua::variant(ua::localized_text{ua::ua_string("en"), ua::ua_string("the trusted certificate " + peer.subject() +
                                                                            " expires in 20 days")}));
  // ConditionRefresh reports the retained one between RefreshStart and RefreshEnd.
  const auto sub = cl.subscribe();
  REQUIRE(cl.monitor_events(sub, 1) == ua::status::good);
  std::int64_t ms = 0;
  cl.events(ms);
  REQUIRE(cl.call_method(ua::node_id(0, 2782), 3875, {ua::variant(sub)}, ms) == ua::status::good);
  const auto refreshed = cl.events(ms);
  REQUIRE(refreshed.size() == 3);
  CHECK(refreshed[0].type == ua::ids::refresh_start_event_type);
  CHECK(refreshed[1].type == ua::ids::certificate_expiration_alarm_type);
  CHECK(refreshed[1].brief() == "trunk active unacked confirmed retain");
  CHECK(refreshed[2].type == ua::ids::refresh_end_event_type);
  // Acknowledged as any condition, with the EventId of its latest event.
  REQUIRE(cl.call_method(peer_id, 9111, {ua::variant(conditions.last_event_id(1)), ua::variant(test::condition_comment("renewing"))},
                         ms) == ua::status::good);
  CHECK(conditions.acked(1));
  cl.events(ms);
  // 25 days on it has expired: more severe, the same occurrence (still acknowledged).
  core.on_tick(later(40'000, 25));
  CHECK(conditions.active(1));
  CHECK(conditions.acked(1));
  CHECK(cl.read(child("Severity")) == ua::variant(std::uint16_t{900}));
  CHECK(cl.read(child("LastSeverity")) == ua::variant(std::uint16_t{600}));
  ms = 40'000;
  auto seen = cl.events(ms);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].brief() == "trunk active acked unconfirmed retain");
  // No longer trusted: a last event (inactive, Retain False), then the Object is gone.
  REQUIRE(store->reject(peer).is_good());
  core.on_tick(later(80'000, 26));
  CHECK(conditions.removed(1));
  CHECK_FALSE(conditions.retain(1));
  CHECK(space.find(peer_id) == ua::no_node);
  CHECK(space.find(child("ExpirationDate")) == ua::no_node);
  CHECK(space.find(child("ShelvingState")) == ua::no_node);
  ms = 80'000;
  seen = cl.events(ms);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].brief() == "trunk inactive acked confirmed gone");
  CHECK(cl.call_method(peer_id, 9111, {ua::variant(conditions.last_event_id(1)), ua::variant(test::condition_comment("x"))},
                       ms) == ua::status::bad_node_id_unknown);
  CHECK_FALSE(conditions.removed(0));
  CHECK(space.find(own_id) != ua::no_node);
}

TEST_CASE("certificate expiry: the ECC application certificates too, each condition naming its certificate's type",
          "[engine][certificates][alarms]") {
  security::testing::temp_dir pki;
  auto store = std::make_shared<security::pki_store>(pki.path());
  security::certificate_request r;
  r.application_uri = "urn:test:uactor:server";
  const auto own = store->load_or_create_own(r, "uactor");
  REQUIRE(own);
  auto sec = std::make_shared<actors::server_security>();
  sec->certificate = own->cert;
  sec->private_key = own->private_key;
  sec->store = store;
  // The ECC policies' certificates (Part 12 §7.8.4), as the runtime makes them per curve; the
  // curve25519 one also trusted, as a peer's would be.
  for (const char* curve : {"prime256v1", "ED25519"}) {
    security::certificate_request e = r;
    e.curve = curve;
    const auto made = store->load_or_create_own(e, std::string("uactor-") + curve);
    REQUIRE(made);
    sec->ecc_identities.push_back({curve, made->cert, {}, made->private_key});
  }
  REQUIRE(store->trust(sec->ecc_identities[1].certificate).is_good());
  sec->offers = {{security::find_policy(security::policy_uri_none), ua::message_security_mode::none}};  // the reads' session
  const auto now = at(0);
  auto core = managed_core(sec, now);
  core.on_tick(now);
  test::condition_client cl(core);
  const auto type_of = [&](const char* group, const security::certificate& cert) {
    return cl.read(ua::node_id::string(1, std::string("Server.Certificates.") + group + "." + cert.thumbprint_hex() +
                                              ".CertificateType"));
  };
  using ua::node_id;
  CHECK(type_of("own", own->cert) == ua::variant(node_id(0, ua::ids::rsa_sha256_application_certificate_type)));
  CHECK(type_of("own", sec->ecc_identities[0].certificate) ==
        ua::variant(node_id(0, ua::ids::ecc_nist_p256_application_certificate_type)));
  CHECK(type_of("own", sec->ecc_identities[1].certificate) ==
        ua::variant(node_id(0, ua::ids::ecc_curve25519_application_certificate_type)));
  CHECK(type_of("trusted", sec->ecc_identities[1].certificate) ==
        ua::variant(node_id(0, ua::ids::ecc_curve25519_application_certificate_type)));
  CHECK(core.conditions().size() == 4);
}

}  // namespace uactor::test
