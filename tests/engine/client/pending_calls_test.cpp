// The client's table of pending requests (engine/client/pending_calls.hpp): the same answers as a
// std::map under a random mix of inserts and removals, wrap-around of the probe sequence included,
// and no allocation once it has grown to the most entries it held.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <vector>

#include "engine/client/pending_calls.hpp"
#include "tests/support/alloc_counter.hpp"

using uactor::actors::pending_table;

TEST_CASE("pending_table: agrees with a std::map under random inserts, takes and lookups", "[actors][client]") {
  std::minstd_rand rng(19);
  for (const std::uint32_t spread : {8u, 64u, 100'000u}) {  // ids close together (collisions) and far apart
    CAPTURE(spread);
    pending_table<int> t;
    std::map<std::uint32_t, int> m;
    for (int step = 0; step < 20'000; ++step) {
      const std::uint32_t id = 1 + rng() % spread;
      const int op = static_cast<int>(rng() % 3);
      if (op == 0 && !m.count(id)) {
        t.insert(id, step);
        m[id] = step;
      } else if (op == 1) {
        int out = -1;
        const bool took = t.take(id, out);
        REQUIRE(took == (m.count(id) == 1));
        if (took) {
          REQUIRE(out == m[id]);
          m.erase(id);
        }
      } else {
        const int* v = t.find(id);
        REQUIRE((v != nullptr) == (m.count(id) == 1));
        if (v) REQUIRE(*v == m[id]);
      }
      REQUIRE(t.size() == m.size());
    }
    std::map<std::uint32_t, int> seen;
    t.for_each([&](std::uint32_t id, int& v) { seen[id] = v; });
    REQUIRE(seen == m);
    std::vector<int> all;
    t.take_all(all);
    REQUIRE(all.size() == m.size());
    REQUIRE(t.empty());
    REQUIRE(t.find(m.empty() ? 1 : m.begin()->first) == nullptr);
  }
}

TEST_CASE("pending_table: sequential request ids in flight allocate nothing once grown", "[actors][client]") {
  if (!uactor::test::counts_allocations) return;
  pending_table<int> t;
  std::uint32_t next = 1;
  for (int i = 0; i < 16; ++i) t.insert(next++, i);  // 16 in flight: grown once
  const uactor::test::alloc_scope allocs;
  std::uint32_t oldest = 1;
  for (int i = 0; i < 100'000; ++i) {  // answered in order, a new one each time: ids wrap the slots
    int v = 0;
    REQUIRE(t.take(oldest++, v));
    t.insert(next++, i);
  }
  REQUIRE(allocs.counted().allocations == 0);
  REQUIRE(t.size() == 16);
}
