#include "tests/support/alloc_counter.hpp"

#include <cstddef>
#include <cstdlib>
#include <new>

#if UACTOR_COUNT_ALLOCATIONS
namespace {
thread_local uactor::test::alloc_counts counts;

void* counted_alloc(std::size_t n, std::size_t align) {
  ++counts.allocations;
  counts.bytes += n;
  void* p = align > alignof(std::max_align_t) ? std::aligned_alloc(align, (n + align - 1) / align * align)
                                               : std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  return p;
}
}  // namespace

namespace uactor::test {
alloc_counts thread_alloc_counts() noexcept { return counts; }
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
}  // namespace uactor::test
#endif
