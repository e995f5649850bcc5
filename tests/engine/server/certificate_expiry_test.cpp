// Certificates about to expire (docs/security.md "Certificate expiry"): days left, the warning
// window, each certificate announced once, and the figures /metrics shows.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "engine/server/certificates/certificate_expiry.hpp"
#include "engine/server/server_metrics.hpp"
#include "security/pki_store.hpp"
#include "tests/engine/server/core_fixture.hpp"
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
  actors::server_core_config c;
  c.description.application_uri = "urn:test:uactor:server";
  c.description.endpoint_url = "opc.tcp://localhost:4840";
  c.sessions.random = [](std::span<std::uint8_t> out) { std::fill(out.begin(), out.end(), std::uint8_t{7}); };
  c.sessions.security = sec;
  auto core = actors::make_server_core(std::move(c), "test", now.utc, "urn:test");
  auto metrics = std::make_shared<actors::metrics_registry>();
  core.set_metrics(metrics);
  actors::certificate_management_config management;
  management.security = sec;
  management.application_uri = "urn:test:uactor:server";
  REQUIRE(core.set_certificate_management(management, now) == ua::status::good);
  core.on_tick(now);
  const auto m = metrics->snapshot();
  REQUIRE(m.certificates.size() == 2);
  CHECK(m.certificates[0].group == "own");
  CHECK(m.certificates[0].thumbprint == own->cert.thumbprint_hex());
  CHECK(m.certificates[0].days_left > 300);
  CHECK(m.certificates[1].group == "trusted");
  CHECK(m.certificates[1].days_left == Approx(20).margin(0.01));
}

}  // namespace uactor::test
