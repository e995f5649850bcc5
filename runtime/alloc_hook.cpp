// The process-wide allocation counter of the `uactor` and `uactor-load` executables: replaces the
// global operator new/delete and counts every allocation and its bytes with relaxed atomics, so
// that the load harness can report allocations per operation for both processes (docs/performance.md).
// Linked into those executables only, never into uactor_runtime: an application that embeds the
// runtime keeps its own allocator. runtime/process_stats.cpp reads the counts through a weak
// symbol, so a program without this library reports "not counted" instead of failing to link.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

// Sanitizers bring their own operator new/delete (CMake sets UACTOR_ALLOC_HOOK=0 when
// UACTOR_SANITIZE is set; the checks below catch a sanitizer added by hand).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#undef UACTOR_ALLOC_HOOK
#define UACTOR_ALLOC_HOOK 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#undef UACTOR_ALLOC_HOOK
#define UACTOR_ALLOC_HOOK 0
#endif
#endif
#ifndef UACTOR_ALLOC_HOOK
#define UACTOR_ALLOC_HOOK 1
#endif

#if UACTOR_ALLOC_HOOK
namespace {

// Relaxed: the figures are read seconds apart, never used to order anything else.
std::atomic<std::uint64_t> allocations{0};
std::atomic<std::uint64_t> allocated_bytes{0};

void* counted_alloc(std::size_t n, std::size_t align) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  allocated_bytes.fetch_add(n, std::memory_order_relaxed);
  void* p = align > alignof(std::max_align_t) ? std::aligned_alloc(align, (n + align - 1) / align * align)
                                               : std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  return p;
}

void* counted_alloc_nothrow(std::size_t n, std::size_t align) noexcept {
  try {
    return counted_alloc(n, align);
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

// Read by runtime/process_stats.cpp (declared weak there). C linkage: one plain symbol name.
extern "C" void uactor_alloc_hook_counts(std::uint64_t* count, std::uint64_t* bytes) noexcept {
  *count = allocations.load(std::memory_order_relaxed);
  *bytes = allocated_bytes.load(std::memory_order_relaxed);
}

void* operator new(std::size_t n) { return counted_alloc(n, 0); }
void* operator new[](std::size_t n) { return counted_alloc(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_alloc(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_alloc(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc_nothrow(n, 0); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc_nothrow(n, 0); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc_nothrow(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc_nothrow(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
#endif
