// Per-chunk crypto of each security policy (security/), one chunk at a time, no I/O.
//   symmetric.protect/<policy>/<mode>/<body>     HMAC-SHA256 (+ AES-CBC) of one MSG chunk in place
//   symmetric.unprotect/<policy>/<mode>/<body>   copy of the protected chunk + decrypt + HMAC check
//                                                (+ padding check); baseline.copy/<size> is the copy alone
//   asymmetric.protect/<policy>/2048             sign + RSA-OAEP encrypt of one OPN (2048-bit keys both sides)
//   asymmetric.unprotect/<policy>/2048           RSA-OAEP decrypt + verify of that OPN
// Bodies: 80 B (a one-value ReadResponse) and 8192 B. Unit: ns per chunk. allocs/op counts
// operator new (tests/support/alloc_counter), ossl_allocs/op OpenSSL's own mallocs (a
// CRYPTO_set_mem_functions hook installed before OpenSSL's first allocation).
// Run: build/bench/security/chunk_crypto_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <openssl/crypto.h>

#include "protocol/generated/type_codecs.hpp"
#include "protocol/message_chunker.hpp"
#include "security/asymmetric.hpp"
#include "security/ecc.hpp"
#include "security/key_derivation.hpp"
#include "security/symmetric.hpp"
#include "tests/support/alloc_counter.hpp"

using namespace uactor;
using namespace uactor::security;

namespace {

thread_local std::uint64_t ossl_allocs = 0;
void* counting_malloc(std::size_t n, const char*, int) { ++ossl_allocs; return std::malloc(n); }
void* counting_realloc(void* p, std::size_t n, const char*, int) { ++ossl_allocs; return std::realloc(p, n); }
void counting_free(void* p, const char*, int) { std::free(p); }
const bool ossl_hooked = CRYPTO_set_mem_functions(counting_malloc, counting_realloc, counting_free) == 1;

constexpr std::size_t msg_header = ua::secure_message_header_size + ua::symmetric_security_header_size;

struct counters {
  test::alloc_scope news;
  std::uint64_t ossl_start = ossl_allocs;
  void report(benchmark::State& st) const {
    const auto it = static_cast<double>(st.iterations());
    st.counters["allocs/op"] = static_cast<double>(news.counted().allocations) / it;
    st.counters["ossl_allocs/op"] = ossl_hooked ? static_cast<double>(ossl_allocs - ossl_start) / it : -1;
  }
};

ua::byte_buffer msg_chunk(const symmetric_context& ctx, std::size_t body_size) {
  ua::connection_limits limits;
  limits.send_buffer_size = 65535;
  const ua::message_chunker chunker(limits, ua::status::bad_response_too_large, ctx.chunk_security());
  std::vector<std::uint8_t> body(body_size, 0x5a);
  ua::chunk_target target;
  target.secure_channel_id = 1;
  target.token_id = 1;
  ua::sequence_counter seq;
  ua::byte_buffer out;
  if (!chunker.write(body, target, seq, out)) throw std::runtime_error("chunker");
  return out;
}

channel_keys keys_for(const security_policy& p) {
  std::vector<std::uint8_t> c(32, 1), s(32, 2);
  return derive_channel_keys(p, c, s);
}

void sym_protect(benchmark::State& st, const security_policy* p, ua::message_security_mode mode, std::size_t body) {
  symmetric_context ctx(*p, mode, keys_for(*p).server);
  auto chunk = msg_chunk(ctx, body);
  std::span<std::uint8_t> c(chunk.data(), chunk.size());
  ctx.protect(c, msg_header);  // first use outside the count
  const counters n;
  for (auto _ : st) {
    ctx.protect(c, msg_header);
    benchmark::DoNotOptimize(chunk.data());
  }
  n.report(st);
  st.counters["chunk_bytes"] = static_cast<double>(chunk.size());
}

void sym_unprotect(benchmark::State& st, const security_policy* p, ua::message_security_mode mode, std::size_t body) {
  const auto k = keys_for(*p).server;
  symmetric_context sender(*p, mode, k);
  symmetric_context receiver(*p, mode, k);
  auto chunk = msg_chunk(sender, body);
  sender.protect({chunk.data(), chunk.size()}, msg_header);
  std::vector<std::uint8_t> work(chunk.size());
  std::memcpy(work.data(), chunk.data(), chunk.size());
  // msg_chunk's one chunk carries SequenceNumber 1: what an AEAD receiver builds its nonce from.
  if (receiver.unprotect(work, msg_header, 1).is_bad()) st.SkipWithError("unprotect failed");
  const counters n;
  for (auto _ : st) {
    std::memcpy(work.data(), chunk.data(), chunk.size());
    const auto sc = receiver.unprotect(work, msg_header, 1);
    benchmark::DoNotOptimize(sc);
  }
  n.report(st);
  st.counters["chunk_bytes"] = static_cast<double>(chunk.size());
}

void baseline_copy(benchmark::State& st, std::size_t size) {
  std::vector<std::uint8_t> a(size, 1), b(size);
  for (auto _ : st) {
    std::memcpy(b.data(), a.data(), size);
    benchmark::DoNotOptimize(b.data());
    benchmark::ClobberMemory();
  }
}

struct opn_setup {
  rsa_key client, server;
  ua::asymmetric_security_header asym;
  ua::byte_buffer plain;
  std::size_t header_size = 0;
};

opn_setup& opn_keys() {
  static opn_setup s = [] {
    opn_setup o;
    o.client = *rsa_key::generate(2048);
    o.server = *rsa_key::generate(2048);
    return o;
  }();
  return s;
}

// The keys of an ECC policy's curve (Part 6 §6.8), made once per curve; RSA-2048 otherwise.
opn_setup& opn_keys(const security_policy& p) {
  if (!p.is_ecc()) return opn_keys();
  static std::map<std::string, opn_setup> made;
  auto [it, fresh] = made.try_emplace(std::string(p.curve));
  if (fresh) {
    it->second.client = *generate_ecc_key(p.curve);
    it->second.server = *generate_ecc_key(p.curve);
  }
  return it->second;
}

// What the key derivation of one OpenSecureChannel costs one side: P_SHA256 from the nonces for
// RSA; for ECC a new EphemeralKey, ECDH with the peer's and HKDF (Part 6 §6.8.1).
void opn_derive(benchmark::State& st, const security_policy* p) {
  const auto peer = p->is_ecc() ? *make_ephemeral_key(*p) : ephemeral_key{};
  std::vector<std::uint8_t> client_nonce(p->nonce_length, 0x11), server_nonce(p->nonce_length, 0x22);
  const counters n;
  for (auto _ : st) {
    if (p->is_ecc()) {
      auto own = make_ephemeral_key(*p);
      auto keys = ecc_channel_keys(*p, *own, peer.public_bytes(), peer.public_bytes(), own->public_bytes());
      if (!keys) st.SkipWithError("derivation failed");
      benchmark::DoNotOptimize(keys);
    } else {
      auto keys = derive_channel_keys(*p, client_nonce, server_nonce);
      benchmark::DoNotOptimize(keys);
    }
  }
  n.report(st);
}

// An OpenSecureChannelRequest-sized body (about 130 bytes) under a header with a 1 KB certificate.
ua::byte_buffer opn_chunk(const asymmetric_context& ctx, std::size_t& header_size) {
  ua::connection_limits limits;
  limits.send_buffer_size = 65535;
  const ua::message_chunker chunker(limits, ua::status::bad_request_too_large, ctx.send_security());
  ua::asymmetric_security_header asym;
  asym.security_policy_uri = ctx.policy().uri;
  asym.sender_certificate.assign(std::string(1000, 'c'));
  asym.receiver_certificate_thumbprint.assign(std::string(20, 't'));
  ua::chunk_target target;
  target.type = ua::message_type::open;
  target.asymmetric = &asym;
  std::vector<std::uint8_t> body(130, 0x33);
  ua::sequence_counter seq;
  ua::byte_buffer out;
  if (!chunker.write(body, target, seq, out)) throw std::runtime_error("chunker");
  header_size = ua::secure_message_header_size + ua::encoded_size(asym);
  return out;
}

void asym_protect(benchmark::State& st, const security_policy* p) {
  auto& k = opn_keys(*p);
  asymmetric_context c(*p, k.client, k.server.public_only());
  std::size_t header = 0;
  const auto plain = opn_chunk(c, header);
  ua::byte_buffer wire;
  (void)c.protect(plain.bytes(), header, wire);
  const counters n;
  for (auto _ : st) {
    wire.clear();
    if (c.protect(plain.bytes(), header, wire).is_bad()) st.SkipWithError("protect failed");
  }
  n.report(st);
  st.counters["chunk_bytes"] = static_cast<double>(wire.size());
}

void asym_unprotect(benchmark::State& st, const security_policy* p) {
  auto& k = opn_keys(*p);
  asymmetric_context c(*p, k.client, k.server.public_only());
  asymmetric_context s(*p, k.server, k.client.public_only());
  std::size_t header = 0;
  const auto plain = opn_chunk(c, header);
  ua::byte_buffer wire, out;
  (void)c.protect(plain.bytes(), header, wire);
  if (s.unprotect(wire.bytes(), header, out).is_bad()) st.SkipWithError("unprotect failed");
  const counters n;
  for (auto _ : st) {
    const auto sc = s.unprotect(wire.bytes(), header, out);
    benchmark::DoNotOptimize(sc);
  }
  n.report(st);
}

}  // namespace

int main(int argc, char** argv) {
  const struct {
    ua::message_security_mode mode;
    const char* name;
  } modes[] = {{ua::message_security_mode::sign, "Sign"}, {ua::message_security_mode::sign_and_encrypt, "SignAndEncrypt"}};
  for (const auto& p : all_policies()) {
    if (p.is_none()) continue;
    const std::string name(p.name);
    for (const auto& m : modes)
      for (const std::size_t body : {std::size_t{80}, std::size_t{8192}}) {
        const auto suffix = name + "/" + m.name + "/" + std::to_string(body);
        benchmark::RegisterBenchmark(("symmetric.protect/" + suffix).c_str(), sym_protect, &p, m.mode, body);
        benchmark::RegisterBenchmark(("symmetric.unprotect/" + suffix).c_str(), sym_unprotect, &p, m.mode, body);
      }
  }
  for (const std::size_t size : {std::size_t{144}, std::size_t{8256}})
    benchmark::RegisterBenchmark(("baseline.copy/" + std::to_string(size)).c_str(), baseline_copy, size);
  for (const auto& p : all_policies()) {
    if (p.is_none()) continue;
    const std::string name(p.name);
    // RSA-2048 keys, or the ECC policy's curve (the ECC OPN is signed, not encrypted).
    const std::string key = p.is_ecc() ? std::string(curve_label(p.curve)) : "2048";
    benchmark::RegisterBenchmark(("asymmetric.protect/" + name + "/" + key).c_str(), asym_protect, &p);
    benchmark::RegisterBenchmark(("asymmetric.unprotect/" + name + "/" + key).c_str(), asym_unprotect, &p);
    benchmark::RegisterBenchmark(("opn.derive/" + name).c_str(), opn_derive, &p);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
