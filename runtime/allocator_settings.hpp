// How the `uactor` program's allocator holds freed memory (docs/decisions/0084). An embedding
// application keeps its own settings: only the program calls this, at the start of `uactor run`.
#pragma once

namespace uactor::app {

// glibc: blocks up to 32 MiB come from the heap rather than their own mmap, 128 MiB may lie free at
// a heap's top before it is given back, and a heap grows by 16 MiB more than it needs. Without
// this a HistoryRead page (10,000 DataValues, a PostgreSQL result of 10,001 rows) is mapped,
// faulted in and unmapped again for each page: 7x the CPU per value of a raw read from PostgreSQL.
// Must run before the threads start. A setting the allocator refuses (a sanitizer's) stays as it was.
void hold_freed_memory_for_reuse();

}  // namespace uactor::app
