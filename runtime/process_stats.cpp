#include "runtime/process_stats.hpp"

#include <sys/resource.h>

// Defined by runtime/alloc_hook.cpp in the executables that link uactor_alloc_hook; weak, so
// that a program without it links and reports allocations as not counted.
extern "C" void uactor_alloc_hook_counts(std::uint64_t* count, std::uint64_t* bytes) noexcept
    __attribute__((weak));

namespace uactor::app {

process_stats sample_process_stats() noexcept {
  process_stats s;
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) == 0) {
    const auto us = [](const timeval& t) {
      return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000u + static_cast<std::uint64_t>(t.tv_usec);
    };
    s.cpu_user_us = us(u.ru_utime);
    s.cpu_system_us = us(u.ru_stime);
    s.voluntary_switches = static_cast<std::uint64_t>(u.ru_nvcsw);
    s.involuntary_switches = static_cast<std::uint64_t>(u.ru_nivcsw);
    s.peak_rss_kb = static_cast<std::uint64_t>(u.ru_maxrss);  // Linux: kilobytes
  }
  if (uactor_alloc_hook_counts != nullptr) {
    s.allocations_counted = true;
    uactor_alloc_hook_counts(&s.allocations, &s.allocated_bytes);
  }
  return s;
}

}  // namespace uactor::app
