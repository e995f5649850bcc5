#include "tests/support/alloc_counter.hpp"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#if UACTOR_COUNT_ALLOCATIONS
namespace {
thread_local uactor::test::alloc_counts counts;
// Relaxed: read by a test after the work it counts has been waited for.
std::atomic<std::uint64_t> process_allocations{0};
std::atomic<std::uint64_t> process_bytes{0};

void* counted_alloc(std::size_t n, std::size_t align) {
  ++counts.allocations;
  counts.bytes += n;
  process_allocations.fetch_add(1, std::memory_order_relaxed);
  process_bytes.fetch_add(n, std::memory_order_relaxed);
  void* p = align > alignof(std::max_align_t) ? std::aligned_alloc(align, (n + align - 1) / align * align)
                                               : std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  return p;
}
}  // namespace

namespace uactor::test {
alloc_counts thread_alloc_counts() noexcept { return counts; }
alloc_counts process_alloc_counts() noexcept {
  return {process_allocations.load(std::memory_order_relaxed), process_bytes.load(std::memory_order_relaxed)};
}
}  // namespace uactor::test

void* operator new(std::size_t n) { return counted_alloc(n, 0); }
void* operator new[](std::size_t n) { return counted_alloc(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_alloc(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_alloc(n, static_cast<std::size_t>(a)); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
#else
namespace uactor::test {
alloc_counts thread_alloc_counts() noexcept { return {}; }
alloc_counts process_alloc_counts() noexcept { return {}; }
}  // namespace uactor::test
#endif
