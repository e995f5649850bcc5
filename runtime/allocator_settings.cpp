#include "runtime/allocator_settings.hpp"

#include <malloc.h>

namespace uactor::app {

void hold_freed_memory_for_reuse() {
  // M_MMAP_THRESHOLD's largest value on 64-bit glibc is 32 MiB (HEAP_MAX_SIZE / 2); a fixed value
  // also ends glibc's dynamic threshold, which M_TRIM_THRESHOLD alone would end with the default
  // 128 KiB threshold (every warm Average read then mapped its raw values anew: 160 ms, not 26).
  constexpr int mmap_threshold = 32 << 20, trim_threshold = 128 << 20, top_pad = 16 << 20;
  mallopt(M_MMAP_THRESHOLD, mmap_threshold);
  mallopt(M_TRIM_THRESHOLD, trim_threshold);
  mallopt(M_TOP_PAD, top_pad);
}

}  // namespace uactor::app
