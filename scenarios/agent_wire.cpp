#include "scenarios/agent_wire.hpp"

#include <cctype>
#include <cstring>

namespace uactor::scenarios {
namespace {

constexpr std::string_view job_magic = "UAJ1";
constexpr std::string_view report_magic = "UAR1";

class writer {
public:
  void raw(std::string_view s) { out_.append(s); }
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void str(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    out_.append(s);
  }
  std::string take() { return std::move(out_); }

private:
  std::string out_;
};

// Reads little-endian fields; the first failure sticks and names the field.
class reader {
public:
  explicit reader(std::string_view in) : in_(in) {}
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  void fail(const std::string& why) {
    if (error_.empty()) error_ = why;
  }
  bool magic(std::string_view m) {
    if (in_.substr(0, m.size()) != m) {
      fail("not a " + std::string(m) + " blob (wrong magic or version)");
      return false;
    }
    pos_ = m.size();
    return true;
  }
  std::uint8_t u8(const char* what) {
    if (!need(1, what)) return 0;
    return static_cast<std::uint8_t>(in_[pos_++]);
  }
  std::uint32_t u32(const char* what) {
    if (!need(4, what)) return 0;
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(in_[pos_++])) << (8 * i);
    return v;
  }
  std::uint64_t u64(const char* what) {
    if (!need(8, what)) return 0;
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(in_[pos_++])) << (8 * i);
    return v;
  }
  std::int64_t i64(const char* what) { return static_cast<std::int64_t>(u64(what)); }
  bool boolean(const char* what) {
    const auto v = u8(what);
    if (v > 1) fail(std::string(what) + ": not a boolean");
    return v == 1;
  }
  // A length-prefixed string of at most `limit` bytes.
  std::string str(const char* what, std::size_t limit) {
    const auto n = u32(what);
    if (!ok()) return {};
    if (n > limit) {
      fail(std::string(what) + ": " + std::to_string(n) + " bytes, more than the limit of " + std::to_string(limit));
      return {};
    }
    if (!need(n, what)) return {};
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  // A value in [lo, hi].
  template <class T>
  T in_range(T v, T lo, T hi, const char* what) {
    if (v < lo || v > hi) fail(std::string(what) + ": " + std::to_string(v) + " outside [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "]");
    return v;
  }
  void end() {
    if (ok() && pos_ != in_.size()) fail(std::to_string(in_.size() - pos_) + " bytes after the last field");
  }

private:
  bool need(std::size_t n, const char* what) {
    if (!ok()) return false;
    if (in_.size() - pos_ < n) {
      fail(std::string(what) + ": truncated");
      return false;
    }
    return true;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
  std::string error_;
};

bool one_of(const std::string& v, std::initializer_list<std::string_view> set) {
  for (auto s : set)
    if (v == s) return true;
  return false;
}

// A path inside the PKI folder: relative, no "." or ".." component, no empty one, printable ASCII
// without a backslash (the store's names are like "uactor [thumbprint].der", Part 12 §7.3).
bool safe_relative_path(std::string_view p) {
  if (p.empty() || p.front() == '/' || p.back() == '/') return false;
  std::size_t start = 0;
  while (start <= p.size()) {
    const auto slash = p.find('/', start);
    const auto part = p.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    for (char c : part)
      if (c < 0x20 || c > 0x7e || c == '\\') return false;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return true;
}

constexpr std::int64_t one_day_ns = 86'400'000'000'000;

void put_stats(writer& w, const app::process_stats& s) {
  w.u64(s.cpu_user_us);
  w.u64(s.cpu_system_us);
  w.u64(s.voluntary_switches);
  w.u64(s.involuntary_switches);
  w.u64(s.peak_rss_kb);
  w.u8(s.allocations_counted ? 1 : 0);
  w.u64(s.allocations);
  w.u64(s.allocated_bytes);
}

app::process_stats get_stats(reader& r) {
  app::process_stats s;
  s.cpu_user_us = r.u64("client cpu_user_us");
  s.cpu_system_us = r.u64("client cpu_system_us");
  s.voluntary_switches = r.u64("client vcsw");
  s.involuntary_switches = r.u64("client ivcsw");
  s.peak_rss_kb = r.u64("client peak_rss_kb");
  s.allocations_counted = r.boolean("client allocations_counted");
  s.allocations = r.u64("client allocs");
  s.allocated_bytes = r.u64("client alloc_bytes");
  return s;
}

// Sparse: the non-empty buckets in increasing index order, then min and max.
void put_histogram(writer& w, const latency_histogram& h) {
  std::uint32_t n = 0;
  for (std::size_t i = 0; i < latency_histogram::bucket_count; ++i) n += h.bucket(i) ? 1 : 0;
  w.u32(n);
  for (std::size_t i = 0; i < latency_histogram::bucket_count; ++i)
    if (const auto c = h.bucket(i)) {
      w.u32(static_cast<std::uint32_t>(i));
      w.u64(c);
    }
  w.u64(h.min());
  w.u64(h.max());
}

latency_histogram get_histogram(reader& r) {
  latency_histogram h;
  const auto n = r.u32("histogram buckets");
  if (n > latency_histogram::bucket_count) {
    r.fail("histogram: " + std::to_string(n) + " buckets, more than " + std::to_string(latency_histogram::bucket_count));
    return h;
  }
  std::int64_t last = -1;
  std::size_t lowest = 0, highest = 0;
  std::uint64_t total = 0;
  // A bound on the total that no run reaches and that keeps the sum from wrapping.
  constexpr std::uint64_t max_total = std::uint64_t{1} << 56;
  for (std::uint32_t k = 0; k < n && r.ok(); ++k) {
    const auto index = r.u32("histogram bucket index");
    const auto count = r.u64("histogram bucket count");
    if (!r.ok()) break;
    if (static_cast<std::int64_t>(index) <= last || index >= latency_histogram::bucket_count) {
      r.fail("histogram: bucket index " + std::to_string(index) + " out of order or out of range");
      break;
    }
    if (count == 0 || count > max_total - total) {
      r.fail("histogram: a bucket count of 0 or a total past 2^56");
      break;
    }
    if (last < 0) lowest = index;
    highest = index;
    last = index;
    total += count;
    h.restore(index, count);
  }
  const auto min = r.u64("histogram min");
  const auto max = r.u64("histogram max");
  if (!r.ok()) return h;
  if (n == 0) {
    if (min != 0 || max != 0) r.fail("histogram: an empty histogram with a min or max");
    return h;
  }
  if (latency_histogram::index_of(min) != lowest || latency_histogram::index_of(max) != highest)
    r.fail("histogram: min or max outside the lowest and highest buckets");
  h.restore_extremes(min, max);
  return h;
}

}  // namespace

bool agent_runs_scenario(std::string_view scenario) {
  for (std::string_view s : {"read", "write", "browse", "sub", "floor"})
    if (scenario == s) return true;
  return false;
}

std::string encode(const agent_job& j) {
  writer w;
  w.raw(job_magic);
  w.str(j.scenario);
  w.str(j.client_kind);
  w.u32(j.sessions);
  w.u32(j.inflight);
  w.u32(j.nodes);
  w.str(j.endpoint);
  w.u32(j.subs);
  w.u32(j.publishing_ms);
  w.u64(j.sampling_us);
  w.u8(j.per_item ? 1 : 0);
  w.u64(j.variables);
  w.u64(j.first_item);
  w.u32(j.queue_size);
  w.u32(j.write_interval_ms);
  w.u64(j.request_bytes);
  w.u64(j.response_bytes);
  w.u8(j.security_mode);
  w.str(j.policy);
  w.str(j.application_uri);
  w.u32(static_cast<std::uint32_t>(j.pki.size()));
  for (const auto& f : j.pki) {
    w.str(f.path);
    w.str(f.content);
  }
  w.i64(j.warmup_ns);
  w.i64(j.duration_ns);
  return w.take();
}

std::optional<agent_job> decode_job(std::string_view bytes, std::string& error) {
  if (bytes.size() > max_agent_blob) {
    error = "job: " + std::to_string(bytes.size()) + " bytes, more than the limit of " + std::to_string(max_agent_blob);
    return std::nullopt;
  }
  reader r(bytes);
  agent_job j;
  if (r.magic(job_magic)) {
    j.scenario = r.str("scenario", 16);
    if (r.ok() && !agent_runs_scenario(j.scenario))
      r.fail("scenario: unknown '" + j.scenario + "'");
    j.client_kind = r.str("client", 16);
    if (r.ok() && !one_of(j.client_kind, {"classic", "shared"})) r.fail("client: unknown '" + j.client_kind + "'");
    // The ranges of uactor load's options.
    j.sessions = r.in_range<std::uint32_t>(r.u32("sessions"), 1, 10000, "sessions");
    j.inflight = r.in_range<std::uint32_t>(r.u32("inflight"), 1, 1000, "inflight");
    j.nodes = r.in_range<std::uint32_t>(r.u32("nodes"), 1, 10000, "nodes");
    j.endpoint = r.str("endpoint", 1024);
    if (r.ok() && !(j.endpoint.starts_with("opc.tcp://") || j.endpoint.starts_with("tcp://")))
      r.fail("endpoint: not opc.tcp:// or tcp://");
    j.subs = r.in_range<std::uint32_t>(r.u32("subs"), 0, 1000, "subs");
    j.publishing_ms = r.in_range<std::uint32_t>(r.u32("publishing interval"), 0, 3'600'000, "publishing interval");
    j.sampling_us = r.in_range<std::uint64_t>(r.u64("sampling interval"), 0, 3'600'000'000, "sampling interval");
    j.per_item = r.boolean("per item");
    j.variables = r.in_range<std::uint64_t>(r.u64("variables"), 0, 1'000'000, "variables");
    j.first_item = r.in_range<std::uint64_t>(r.u64("first item"), 0, std::uint64_t{1} << 40, "first item");
    j.queue_size = r.in_range<std::uint32_t>(r.u32("queue size"), 0, 1000, "queue size");
    j.write_interval_ms = r.in_range<std::uint32_t>(r.u32("write interval"), 0, 3'600'000, "write interval");
    j.request_bytes = r.in_range<std::uint64_t>(r.u64("request bytes"), 0, 16u << 20, "request bytes");
    j.response_bytes = r.in_range<std::uint64_t>(r.u64("response bytes"), 0, 16u << 20, "response bytes");
    j.security_mode = r.in_range<std::uint8_t>(r.u8("security mode"), 0, 2, "security mode");
    j.policy = r.str("policy", 64);
    j.application_uri = r.str("application uri", 1024);
    const auto files = r.u32("pki files");
    if (r.ok() && files > max_pki_files)
      r.fail("pki files: " + std::to_string(files) + ", more than " + std::to_string(max_pki_files));
    for (std::uint32_t i = 0; i < files && r.ok(); ++i) {
      pki_file f;
      f.path = r.str("pki file path", 256);
      if (r.ok() && !safe_relative_path(f.path)) r.fail("pki file path: '" + f.path + "' is not a plain relative path");
      f.content = r.str("pki file content", max_pki_file_bytes);
      j.pki.push_back(std::move(f));
    }
    j.warmup_ns = r.in_range<std::int64_t>(r.i64("warm-up"), 0, one_day_ns, "warm-up");
    j.duration_ns = r.in_range<std::int64_t>(r.i64("duration"), 1, one_day_ns, "duration");
    r.end();
  }
  if (!r.ok()) {
    error = "job: " + r.error();
    return std::nullopt;
  }
  return j;
}

std::string encode(const agent_report& rep) {
  writer w;
  w.raw(report_magic);
  w.u8(rep.complete ? 1 : 0);
  w.str(rep.failure);
  w.u64(rep.requests);
  w.u64(rep.errors);
  put_histogram(w, rep.latency);
  put_stats(w, rep.client);
  w.i64(rep.window_open_ns);
  w.i64(rep.window_close_ns);
  w.u8(rep.has_completeness ? 1 : 0);
  w.u64(rep.lost_changes);
  w.u64(rep.repeated_changes);
  w.u64(rep.overflows);
  w.u64(rep.items_behind);
  return w.take();
}

std::optional<agent_report> decode_report(std::string_view bytes, std::string& error) {
  if (bytes.size() > max_agent_blob) {
    error = "report: " + std::to_string(bytes.size()) + " bytes, more than the limit of " + std::to_string(max_agent_blob);
    return std::nullopt;
  }
  reader r(bytes);
  agent_report rep;
  if (r.magic(report_magic)) {
    rep.complete = r.boolean("complete");
    rep.failure = r.str("failure", 4096);
    rep.requests = r.u64("requests");
    rep.errors = r.u64("errors");
    rep.latency = get_histogram(r);
    if (r.ok() && rep.latency.count() != rep.requests)
      r.fail("histogram: " + std::to_string(rep.latency.count()) + " values for " + std::to_string(rep.requests) +
             " requests");
    rep.client = get_stats(r);
    rep.window_open_ns = r.i64("window open");
    rep.window_close_ns = r.i64("window close");
    if (r.ok() && rep.window_close_ns < rep.window_open_ns) r.fail("window: closes before it opens");
    rep.has_completeness = r.boolean("has completeness");
    rep.lost_changes = r.u64("lost changes");
    rep.repeated_changes = r.u64("repeated changes");
    rep.overflows = r.u64("overflows");
    rep.items_behind = r.u64("items behind");
    r.end();
  }
  if (!r.ok()) {
    error = "report: " + r.error();
    return std::nullopt;
  }
  return rep;
}

}  // namespace uactor::scenarios
