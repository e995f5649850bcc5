// Counts heap allocations of the calling thread and of the whole process: linking
// alloc_counter.cpp replaces the global operator new/delete. Tests pin "no allocation" guarantees with it; benchmarks report it.
#pragma once

#include <cstdint>

// AddressSanitizer brings its own operator new/delete; counting is off in such a build.
#if defined(__SANITIZE_ADDRESS__)
#define UACTOR_COUNT_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UACTOR_COUNT_ALLOCATIONS 0
#endif
#endif
#ifndef UACTOR_COUNT_ALLOCATIONS
#define UACTOR_COUNT_ALLOCATIONS 1
#endif

namespace uactor::test {

inline constexpr bool counts_allocations = UACTOR_COUNT_ALLOCATIONS;

struct alloc_counts {
  std::uint64_t allocations = 0;
  std::uint64_t bytes = 0;
};

// Allocations made by this thread since it started.
alloc_counts thread_alloc_counts() noexcept;
// Allocations made by every thread of the process since it started (for work that other threads
// do: a client's actor runs on CAF's threads).
alloc_counts process_alloc_counts() noexcept;

// Allocations made by this thread while the scope lives.
class alloc_scope {
public:
  alloc_scope() noexcept : start_(thread_alloc_counts()) {}
  alloc_counts counted() const noexcept {
    const auto now = thread_alloc_counts();
    return {now.allocations - start_.allocations, now.bytes - start_.bytes};
  }

private:
  alloc_counts start_;
};

}  // namespace uactor::test
