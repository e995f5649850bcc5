#include <catch2/catch.hpp>

#include "runtime/process_stats.hpp"

using uactor::app::process_stats;

TEST_CASE("process_stats: the stats line parses back to the same figures", "[scenarios]") {
  process_stats s;
  s.cpu_user_us = 1234567;
  s.cpu_system_us = 89;
  s.voluntary_switches = 10;
  s.involuntary_switches = 3;
  s.peak_rss_kb = 20480;
  s.allocations_counted = true;
  s.allocations = 18446744073709551615u;
  s.allocated_bytes = 42;
  const auto line = to_line(s);
  REQUIRE(line == "cpu_user_us=1234567 cpu_system_us=89 vcsw=10 ivcsw=3 peak_rss_kb=20480 allocs=18446744073709551615 alloc_bytes=42");
  REQUIRE(uactor::app::parse_line(line) == s);

  s.allocations_counted = false;
  s.allocations = s.allocated_bytes = 0;
  REQUIRE(uactor::app::parse_line(to_line(s)) == s);
}

TEST_CASE("process_stats: a line with a missing or malformed field is refused, unknown keys are skipped", "[scenarios]") {
  using uactor::app::parse_line;
  REQUIRE_FALSE(parse_line("cpu_user_us=1 cpu_system_us=2 vcsw=3 ivcsw=4 peak_rss_kb=5 allocs=6"));
  REQUIRE_FALSE(parse_line("cpu_user_us=1 cpu_system_us=x vcsw=3 ivcsw=4 peak_rss_kb=5 allocs=6 alloc_bytes=7"));
  REQUIRE_FALSE(parse_line("cpu_user_us=-1 cpu_system_us=2 vcsw=3 ivcsw=4 peak_rss_kb=5 allocs=6 alloc_bytes=7"));
  REQUIRE_FALSE(parse_line(""));
  const auto s = parse_line("cpu_user_us=1 later=9 cpu_system_us=2 vcsw=3 ivcsw=4 peak_rss_kb=5 allocs=6 alloc_bytes=7");
  REQUIRE(s);
  REQUIRE(s->allocations == 6);
  REQUIRE(s->allocated_bytes == 7);
}

TEST_CASE("process_stats: a window is the difference of its edges, the peak RSS is the later one", "[scenarios]") {
  process_stats a, b;
  a.cpu_user_us = 100; b.cpu_user_us = 350;
  a.cpu_system_us = 10; b.cpu_system_us = 20;
  a.voluntary_switches = 5; b.voluntary_switches = 9;
  a.involuntary_switches = 1; b.involuntary_switches = 2;
  a.peak_rss_kb = 1000; b.peak_rss_kb = 1200;
  a.allocations_counted = b.allocations_counted = true;
  a.allocations = 7; b.allocations = 7;
  a.allocated_bytes = 64; b.allocated_bytes = 64;
  const auto d = b - a;
  REQUIRE(d.cpu_user_us == 250);
  REQUIRE(d.cpu_system_us == 10);
  REQUIRE(d.voluntary_switches == 4);
  REQUIRE(d.involuntary_switches == 1);
  REQUIRE(d.peak_rss_kb == 1200);
  REQUIRE(d.allocations_counted);
  REQUIRE(d.allocations == 0);
  REQUIRE(d.allocated_bytes == 0);
}
