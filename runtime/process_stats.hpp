// What a process has spent so far: CPU (user, system), context switches, peak RSS (getrusage)
// and heap allocations (the counter of runtime/alloc_hook.cpp, when the executable links it).
// Plain values; the load harness samples both processes at the edges of its measurement window
// and subtracts. The text form is one line of `key=value` fields, which `uactor run` prints after
// `stats ` on SIGUSR1 and the harness parses back.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace uactor::app {

struct process_stats {
  std::uint64_t cpu_user_us = 0;
  std::uint64_t cpu_system_us = 0;
  std::uint64_t voluntary_switches = 0;    // the process waited (recv, futex, epoll_wait, sleep)
  std::uint64_t involuntary_switches = 0;  // the kernel took the CPU away
  std::uint64_t peak_rss_kb = 0;           // a high-water mark: not subtracted
  bool allocations_counted = false;        // false: the executable does not link uactor_alloc_hook
  std::uint64_t allocations = 0;
  std::uint64_t allocated_bytes = 0;

  friend bool operator==(const process_stats&, const process_stats&) = default;
};

// This process, now (getrusage(RUSAGE_SELF), every thread).
process_stats sample_process_stats() noexcept;

// What was spent between two samples of the same process; the peak RSS is the later one's.
inline process_stats operator-(const process_stats& later, const process_stats& earlier) noexcept {
  process_stats d;
  d.cpu_user_us = later.cpu_user_us - earlier.cpu_user_us;
  d.cpu_system_us = later.cpu_system_us - earlier.cpu_system_us;
  d.voluntary_switches = later.voluntary_switches - earlier.voluntary_switches;
  d.involuntary_switches = later.involuntary_switches - earlier.involuntary_switches;
  d.peak_rss_kb = later.peak_rss_kb;
  d.allocations_counted = later.allocations_counted && earlier.allocations_counted;
  d.allocations = later.allocations - earlier.allocations;
  d.allocated_bytes = later.allocated_bytes - earlier.allocated_bytes;
  return d;
}

// One line: `cpu_user_us=1 cpu_system_us=2 vcsw=3 ivcsw=4 peak_rss_kb=5 allocs=6 alloc_bytes=7`;
// allocs and alloc_bytes are `-` when not counted.
inline std::string to_line(const process_stats& s) {
  std::string out;
  const auto field = [&out](std::string_view key, std::uint64_t v) {
    if (!out.empty()) out += ' ';
    out.append(key).append("=").append(std::to_string(v));
  };
  field("cpu_user_us", s.cpu_user_us);
  field("cpu_system_us", s.cpu_system_us);
  field("vcsw", s.voluntary_switches);
  field("ivcsw", s.involuntary_switches);
  field("peak_rss_kb", s.peak_rss_kb);
  if (s.allocations_counted) {
    field("allocs", s.allocations);
    field("alloc_bytes", s.allocated_bytes);
  } else {
    out += " allocs=- alloc_bytes=-";
  }
  return out;
}

// The inverse of to_line; nullopt when a field is missing or not a number. Unknown keys are
// skipped, so that a later server may add fields.
inline std::optional<process_stats> parse_line(std::string_view line) {
  process_stats s;
  unsigned seen = 0;
  bool allocs_dash = false;
  while (!line.empty()) {
    const auto space = line.find(' ');
    const auto token = line.substr(0, space);
    line = space == std::string_view::npos ? std::string_view{} : line.substr(space + 1);
    const auto eq = token.find('=');
    if (eq == std::string_view::npos) continue;
    const auto key = token.substr(0, eq);
    const auto value = token.substr(eq + 1);
    struct field {
      std::string_view key;
      std::uint64_t* target;
      unsigned bit;
    };
    const field fields[] = {{"cpu_user_us", &s.cpu_user_us, 1},       {"cpu_system_us", &s.cpu_system_us, 2},
                            {"vcsw", &s.voluntary_switches, 4},       {"ivcsw", &s.involuntary_switches, 8},
                            {"peak_rss_kb", &s.peak_rss_kb, 16},      {"allocs", &s.allocations, 32},
                            {"alloc_bytes", &s.allocated_bytes, 64}};
    for (const auto& f : fields) {
      if (key != f.key) continue;
      if (value == "-" && f.bit >= 32) {
        allocs_dash = true;
        seen |= f.bit;
        break;
      }
      const auto r = std::from_chars(value.data(), value.data() + value.size(), *f.target);
      if (r.ec != std::errc{} || r.ptr != value.data() + value.size()) return std::nullopt;
      seen |= f.bit;
      break;
    }
  }
  if (seen != 127) return std::nullopt;
  s.allocations_counted = !allocs_dash;
  if (allocs_dash) s.allocations = s.allocated_bytes = 0;
  return s;
}

}  // namespace uactor::app
