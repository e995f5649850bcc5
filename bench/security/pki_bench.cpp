// Certificate checks a channel or session makes per connection (security/pki_store,
// security/certificate, security/password_hash), with the store's folders cached.
//   certificate.from_der/2048              parse a peer's DER certificate (X509 + SHA-1 thumbprint)
//   pki.validate/self_signed_trusted       Part 4 §6.1.3 checks of a trusted self-signed leaf
//   pki.validate/ca_issued_crl             a leaf issued by a trusted CA, with the CA's CRL
//   pki.validate/untrusted                 a refused leaf (already in rejected/, so no write)
//   password.verify/<iterations>           PBKDF2-HMAC-SHA256 of one ActivateSession user token
// Unit: ns per operation; allocs/op counts operator new (tests/support/alloc_counter).
// Run: build/bench/security/pki_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>

#include "security/password_hash.hpp"
#include "security/pki_store.hpp"
#include "tests/security/pki_test_support.hpp"
#include "tests/support/alloc_counter.hpp"

using namespace uactor;
using namespace uactor::security;
using namespace uactor::security::testing;
namespace fs = std::filesystem;

namespace {

constexpr ua::date_time t0 = ua::date_time::from_unix_ms(1'795'996'800'000);  // 2026-11-30

cert_spec spec(std::string cn, bool ca = false, long serial = 1) {
  cert_spec s;
  s.common_name = std::move(cn);
  s.uri = ca ? "" : "urn:bench:" + s.common_name;
  s.not_before = ua::date_time::from_unix_ms(t0.to_unix_ms() - 365 * day_ms);
  s.not_after = ua::date_time::from_unix_ms(t0.to_unix_ms() + 365 * day_ms);
  s.ca = ca;
  s.serial = serial;
  return s;
}

struct fixture {
  temp_dir dir;
  pki_store store{dir.path()};
  issued self = make_cert(spec("self"));
  issued ca = make_cert(spec("ca", true, 100));
  issued leaf = make_cert(spec("leaf", false, 7), &ca);
  issued stranger = make_cert(spec("stranger"));
  fixture() {
    store.trust(self.cert);
    store.trust(ca.cert);
    write_file(dir.path() / "trusted/crl/ca.crl", make_crl(ca, {1, 2, 3}, t0));
    (void)store.validate(stranger.cert, {}, t0);  // now in rejected/
    // Folders changed more than two seconds ago count as settled: no re-read per call.
    const auto old = fs::file_time_type::clock::now() - std::chrono::hours(1);
    for (const char* sub : {"trusted/certs", "trusted/crl", "issuers/certs", "issuers/crl", "rejected/certs"})
      fs::last_write_time(dir.path() / sub, old);
  }
};

fixture& shared() {
  static fixture f;
  return f;
}

void report(benchmark::State& st, const test::alloc_scope& scope) {
  st.counters["allocs/op"] = static_cast<double>(scope.counted().allocations) / static_cast<double>(st.iterations());
}

void certificate_from_der(benchmark::State& st) {
  const auto der = shared().self.cert.der();
  test::alloc_scope scope;
  for (auto _ : st) benchmark::DoNotOptimize(certificate::from_der(der));
  report(st, scope);
}
BENCHMARK(certificate_from_der)->Name("certificate.from_der/2048");

void validate(benchmark::State& st, const certificate& c, bool expect_ok) {
  auto& f = shared();
  if (f.store.validate(c, {}, t0).ok() != expect_ok) {
    st.SkipWithError("unexpected validation result");
    return;
  }
  test::alloc_scope scope;
  for (auto _ : st) benchmark::DoNotOptimize(f.store.validate(c, {}, t0));
  report(st, scope);
}
BENCHMARK_CAPTURE(validate, self_signed_trusted, shared().self.cert, true)->Name("pki.validate/self_signed_trusted");
BENCHMARK_CAPTURE(validate, ca_issued_crl, shared().leaf.cert, true)->Name("pki.validate/ca_issued_crl");
BENCHMARK_CAPTURE(validate, untrusted, shared().stranger.cert, false)->Name("pki.validate/untrusted");

void password_verify(benchmark::State& st) {
  const auto iterations = static_cast<std::uint32_t>(st.range(0));
  const auto stored = hash_password("correct horse", iterations);
  for (auto _ : st) benchmark::DoNotOptimize(verify_password(stored, "correct horse"));
}
BENCHMARK(password_verify)->Name("password.verify")->Arg(10'000)->Arg(default_password_iterations)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
