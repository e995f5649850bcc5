#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "scenarios/agent_protocol.hpp"
#include "scenarios/agent_wire.hpp"
#include "scenarios/coordinator.hpp"

using namespace uactor::scenarios;

namespace {

agent_job sample_job() {
  agent_job j;
  j.scenario = "sub";
  j.client_kind = "classic";
  j.sessions = 7;
  j.inflight = 2;
  j.nodes = 10;
  j.endpoint = "opc.tcp://127.0.0.1:4840";
  j.subs = 3;
  j.publishing_ms = 50;
  j.sampling_us = 2500;
  j.per_item = true;
  j.variables = 200;
  j.first_item = 140;
  j.queue_size = 2;
  j.write_interval_ms = 100;
  j.security_mode = 2;
  j.policy = "Basic256Sha256";
  j.application_uri = "urn:host:uactor:client";
  j.pki = {{"own/cert.der", std::string("\x30\x82\x01\x00", 4)}, {"trusted/certs/uactor [AB12].der", "abc"}};
  j.warmup_ns = 1'000'000'000;
  j.duration_ns = 2'000'000'000;
  return j;
}

agent_report sample_report() {
  agent_report r;
  r.complete = true;
  for (std::uint64_t v : {10u, 70u, 1000u, 1000u, 123456u}) r.latency.record(v);
  r.requests = 5;
  r.errors = 1;
  r.client.cpu_user_us = 11;
  r.client.allocations_counted = true;
  r.client.allocations = 99;
  r.window_open_ns = 100;
  r.window_close_ns = 200;
  r.has_completeness = true;
  r.lost_changes = 3;
  return r;
}

// Little-endian u32 at `at`.
void put_u32(std::string& s, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s[at + i] = static_cast<char>(v >> (8 * i));
}

}  // namespace

TEST_CASE("agent_wire: a job and a report survive encode and decode", "[scenarios]") {
  std::string error;
  const auto job = sample_job();
  const auto decoded = decode_job(encode(job), error);
  INFO(error);
  REQUIRE(decoded);
  REQUIRE(*decoded == job);

  const auto report = sample_report();
  const auto back = decode_report(encode(report), error);
  INFO(error);
  REQUIRE(back);
  REQUIRE(back->requests == 5);
  REQUIRE(back->errors == 1);
  REQUIRE(back->latency.count() == 5);
  REQUIRE(back->latency.min() == 10);
  REQUIRE(back->latency.max() == 123456);
  REQUIRE(back->latency.percentile(50) == report.latency.percentile(50));
  REQUIRE(back->client == report.client);
  REQUIRE(back->lost_changes == 3);
}

TEST_CASE("agent_wire: merged histograms give the percentiles of the union of the samples", "[scenarios]") {
  // Known data: three agents with different latency shapes, each histogram through the wire form.
  std::mt19937_64 rng(18);
  std::vector<std::vector<std::uint64_t>> samples(3);
  std::lognormal_distribution<double> fast(11.0, 0.4), slow(13.0, 0.8);
  for (int i = 0; i < 20000; ++i) samples[0].push_back(static_cast<std::uint64_t>(fast(rng)));
  for (int i = 0; i < 5000; ++i) samples[1].push_back(static_cast<std::uint64_t>(slow(rng)));
  for (int i = 0; i < 777; ++i) samples[2].push_back(static_cast<std::uint64_t>(i) * 1000 + 5);
  latency_histogram merged, of_union;
  std::vector<std::uint64_t> all;
  for (const auto& s : samples) {
    agent_report r;
    for (auto v : s) {
      r.latency.record(v);
      of_union.record(v);
      all.push_back(v);
    }
    r.requests = s.size();
    std::string error;
    const auto back = decode_report(encode(r), error);
    INFO(error);
    REQUIRE(back);
    merged.merge(back->latency);
  }
  std::sort(all.begin(), all.end());
  REQUIRE(merged.count() == all.size());
  REQUIRE(merged.min() == all.front());
  REQUIRE(merged.max() == all.back());
  for (double p : {0.0, 1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    // The same as one histogram of every sample, bucket for bucket ...
    REQUIRE(merged.percentile(p) == of_union.percentile(p));
    // ... so within the histogram's resolution (1/32) of the exact percentile of the union.
    auto rank = static_cast<std::uint64_t>(p / 100.0 * static_cast<double>(all.size()) + 0.5);
    rank = std::clamp<std::uint64_t>(rank, 1, all.size());
    const auto exact = all[rank - 1];
    REQUIRE(merged.percentile(p) >= exact);
    REQUIRE(static_cast<double>(merged.percentile(p)) <= static_cast<double>(exact) * (1.0 + 1.0 / 32) + 1);
  }
  // An average of the agents' p99 is not the union's p99 on this data (why the merge is bucket-wise).
  std::vector<latency_histogram> each(3);
  for (std::size_t i = 0; i < 3; ++i)
    for (auto v : samples[i]) each[i].record(v);
  const auto averaged = (each[0].percentile(99) + each[1].percentile(99) + each[2].percentile(99)) / 3;
  REQUIRE(averaged != merged.percentile(99));
}

TEST_CASE("agent_wire: hostile or malformed blobs are refused with the reason", "[scenarios]") {
  std::string error;
  const auto job = encode(sample_job());
  SECTION("every truncation of a job") {
    for (std::size_t cut = 0; cut < job.size(); ++cut) {
      error.clear();
      REQUIRE_FALSE(decode_job(std::string_view(job).substr(0, cut), error));
      REQUIRE_FALSE(error.empty());
    }
  }
  SECTION("every truncation of a report") {
    const auto report = encode(sample_report());
    for (std::size_t cut = 0; cut < report.size(); ++cut) REQUIRE_FALSE(decode_report(std::string_view(report).substr(0, cut), error));
  }
  SECTION("bytes after the last field") {
    REQUIRE_FALSE(decode_job(job + "x", error));
    REQUIRE(error.find("after the last field") != std::string::npos);
  }
  SECTION("a blob over the limit") {
    REQUIRE_FALSE(decode_job(std::string(max_agent_blob + 1, 'U'), error));
    REQUIRE(error.find("limit") != std::string::npos);
  }
  SECTION("a wrong magic") {
    REQUIRE_FALSE(decode_job("UAR1", error));
    REQUIRE_FALSE(decode_report(job, error));
  }
  SECTION("a string length of 4 GiB") {
    auto bad = job;
    put_u32(bad, 4, 0xffffffffu);  // the scenario's length
    REQUIRE_FALSE(decode_job(bad, error));
    REQUIRE(error.find("scenario") != std::string::npos);
  }
  SECTION("an unknown scenario, sessions out of range, a path out of the folder") {
    auto j = sample_job();
    j.scenario = "rm -rf";
    REQUIRE_FALSE(decode_job(encode(j), error));
    j = sample_job();
    j.sessions = 0;
    REQUIRE_FALSE(decode_job(encode(j), error));
    REQUIRE(error.find("sessions") != std::string::npos);
    j.sessions = 10001;
    REQUIRE_FALSE(decode_job(encode(j), error));
    for (const char* path : {"../etc/passwd", "/etc/passwd", "own/../../x", "own//x", "own/", "", "own/./x", "a\\..\\b",
                             "own/\x01x"}) {
      j = sample_job();
      j.pki[0].path = path;
      INFO(path);
      REQUIRE_FALSE(decode_job(encode(j), error));
    }
    j = sample_job();
    j.pki.resize(max_pki_files + 1, {"f", "x"});
    REQUIRE_FALSE(decode_job(encode(j), error));
    j = sample_job();
    j.pki[0].content.assign(max_pki_file_bytes + 1, 'x');
    REQUIRE_FALSE(decode_job(encode(j), error));
    j = sample_job();
    j.endpoint = "file:///etc/passwd";
    REQUIRE_FALSE(decode_job(encode(j), error));
  }
  SECTION("a histogram that does not add up") {
    auto r = sample_report();
    r.requests = 6;  // one more than the histogram holds
    REQUIRE_FALSE(decode_report(encode(r), error));
    REQUIRE(error.find("histogram") != std::string::npos);
    // A bucket index past the end: the first bucket entry follows magic, complete, failure, counts.
    auto bytes = encode(sample_report());
    const std::size_t first_index = 4 + 1 + 4 + 8 + 8 + 4;
    put_u32(bytes, first_index, static_cast<std::uint32_t>(latency_histogram::bucket_count));
    REQUIRE_FALSE(decode_report(bytes, error));
    REQUIRE(error.find("bucket index") != std::string::npos);
    // A max outside the highest bucket.
    r = sample_report();
    r.latency.restore_extremes(10, 5'000'000);
    REQUIRE_FALSE(decode_report(encode(r), error));
  }
}

TEST_CASE("agent_protocol: the proofs need the secret, and each side's is its own", "[scenarios]") {
  const std::string secret = "0123456789abcdef-secret";
  const auto cn = random_nonce(), an = random_nonce();
  REQUIRE(cn.size() == agent_nonce_size);
  REQUIRE(cn != an);
  const auto agent = agent_proof(secret, cn, an);
  REQUIRE(same_proof(agent, agent_proof(secret, cn, an)));
  REQUIRE_FALSE(same_proof(agent, agent_proof(secret + "x", cn, an)));
  REQUIRE_FALSE(same_proof(agent, coordinator_proof(secret, cn, an)));  // no reflection
  REQUIRE_FALSE(same_proof(agent, agent_proof(secret, cn, random_nonce())));
  REQUIRE_FALSE(same_proof("", ""));
  std::string host;
  std::uint16_t port = 0;
  REQUIRE(split_host_port("127.0.0.1:4001", host, port));
  REQUIRE((host == "127.0.0.1" && port == 4001));
  REQUIRE_FALSE(split_host_port("127.0.0.1:65536", host, port));
  REQUIRE_FALSE(split_host_port("127.0.0.1", host, port));
  REQUIRE_FALSE(split_host_port(":80", host, port));
  REQUIRE_FALSE(split_host_port("h:80x", host, port));
}

TEST_CASE("coordinator: the sessions are split as evenly as they go", "[scenarios]") {
  std::uint32_t total = 0;
  for (std::size_t i = 0; i < 4; ++i) total += sessions_of_agent(22, 4, i);
  REQUIRE(total == 22);
  REQUIRE(sessions_of_agent(22, 4, 0) == 6);
  REQUIRE(sessions_of_agent(22, 4, 3) == 5);
  REQUIRE(sessions_of_agent(20, 4, 2) == 5);
}
