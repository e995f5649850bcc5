// A calculation's cron-like schedule (scripting/schedule.hpp): what it accepts, what it refuses
// with the field named, and which minute comes next.
#include <catch2/catch.hpp>

#include "scripting/schedule.hpp"
#include "scripting/script_set.hpp"

using namespace uactor;
using namespace uactor::scripting;
using namespace std::chrono;

namespace {

wall_time at(int y, unsigned mo, unsigned d, int h = 0, int mi = 0, int s = 0) {
  return wall_time(sys_days(year(y) / mo / d)) + hours(h) + minutes(mi) + seconds(s);
}

cron_schedule parsed(const char* text) {
  std::string error;
  auto s = cron_schedule::parse(text, error);
  INFO(text << ": " << error);
  REQUIRE(s);
  return *s;
}

std::string refusal(const char* text) {
  std::string error;
  REQUIRE_FALSE(cron_schedule::parse(text, error));
  return error;
}

}  // namespace

TEST_CASE("cron_schedule: the next minute of each form, strictly after the time given", "[scripts]") {
  CHECK(parsed("* * * * *").next_after(at(2026, 12, 2, 17, 5, 30)) == at(2026, 12, 2, 17, 6));
  CHECK(parsed("* * * * *").next_after(at(2026, 12, 2, 17, 5)) == at(2026, 12, 2, 17, 6));  // not the same minute
  CHECK(parsed("0 * * * *").next_after(at(2026, 12, 2, 17, 5)) == at(2026, 12, 2, 18, 0));
  CHECK(parsed("@hourly").next_after(at(2026, 12, 2, 23, 59)) == at(2026, 12, 3, 0, 0));
  CHECK(parsed("*/15 * * * *").next_after(at(2026, 12, 2, 17, 31)) == at(2026, 12, 2, 17, 45));
  CHECK(parsed("0-30/10 6-18 * * *").next_after(at(2026, 12, 2, 18, 31)) == at(2026, 12, 3, 6, 0));
  CHECK(parsed("5,45 12 * * *").next_after(at(2026, 12, 2, 12, 5)) == at(2026, 12, 2, 12, 45));
  CHECK(parsed("30 2 * * 1-5").next_after(at(2026, 12, 4, 3)) == at(2026, 12, 7, 2, 30));  // Friday -> Monday
  CHECK(parsed("0 0 * * 7").next_after(at(2026, 12, 2)) == at(2026, 12, 6));              // 7 is Sunday
  CHECK(parsed("@weekly").next_after(at(2026, 12, 2)) == at(2026, 12, 6));
  CHECK(parsed("@monthly").next_after(at(2026, 12, 2)) == at(2027, 1, 1));
  CHECK(parsed("@yearly").next_after(at(2026, 12, 2)) == at(2027, 1, 1));
  CHECK(parsed("0 0 29 2 *").next_after(at(2026, 12, 2)) == at(2028, 2, 29));             // the next leap day
  CHECK(parsed("0 0 31 * *").next_after(at(2026, 11, 1)) == at(2026, 12, 31));            // November has no 31st
  // Both day fields restricted: either matches (Vixie cron): the 15th, or a Monday.
  CHECK(parsed("0 0 15 * 1").next_after(at(2026, 12, 2)) == at(2026, 12, 7));
  CHECK(parsed("0 0 15 * 1").next_after(at(2026, 12, 14)) == at(2026, 12, 15));
  // A field that starts with * counts as unrestricted for that rule: both must match, so Mondays
  // on odd days only (the 7th, then the 21st; not the 14th).
  CHECK(parsed("0 0 */2 * 1").next_after(at(2026, 12, 2)) == at(2026, 12, 7));
  CHECK(parsed("0 0 */2 * 1").next_after(at(2026, 12, 8)) == at(2026, 12, 21));
}

TEST_CASE("cron_schedule: what is no schedule is refused with the field that is wrong", "[scripts]") {
  CHECK(refusal("* * * *").find("has 4 fields") != std::string::npos);
  CHECK(refusal("").find("has 0 fields") != std::string::npos);
  CHECK(refusal("60 * * * *") == "minute: 60 is out of range 0..59");
  CHECK(refusal("0 24 * * *") == "hour: 24 is out of range 0..23");
  CHECK(refusal("0 0 0 * *") == "day of month: 0 is out of range 1..31");
  CHECK(refusal("0 0 * 13 *") == "month: 13 is out of range 1..12");
  CHECK(refusal("0 0 * * 8") == "day of week: 8 is out of range 0..7");
  CHECK(refusal("*/0 * * * *") == "minute: '*/0' has no step of 1 or more after '/'");
  CHECK(refusal("5-1 * * * *") == "minute: the range 5-1 runs backwards");
  CHECK(refusal("a * * * *") == "minute: 'a' is no number, range or *");
  CHECK(refusal("1,,2 * * * *") == "minute: '' is no number, range or *");
  CHECK(refusal("0 0 30 2 *") == "names no minute that exists (such as the 30th of February)");
  CHECK(refusal("@often").find("has 1 fields") != std::string::npos);
  CHECK(refusal(std::string(300, '*').c_str()) == "longer than 256 characters");
}

namespace {
wall_time test_wall;
wall_time read_test_wall() { return test_wall; }
}  // namespace

TEST_CASE("script_set: a scheduled calculation runs at its minutes, not at once, and never twice in one", "[scripts]") {
  set_item c;
  c.spec.kind = item_kind::calculation;
  c.spec.name = "hourly";
  c.spec.source = "n = (n or 0) + 1 return n";
  c.spec.schedule = parsed("0 * * * *");
  set_policy policy;
  policy.wall_clock = read_test_wall;
  test_wall = at(2026, 12, 2, 17, 59, 30);
  const steady_time start{};
  script_set set({c}, 0, policy, start);
  std::vector<eval_request> ready;
  std::vector<output_value> out;
  set.take_ready(start, ready, out);
  CHECK(ready.empty());  // not at once: the first run is at 18:00
  REQUIRE(set.next_due() == start + seconds(30));

  // The timer fires 1 ms early on the wall clock (the clocks drift): it runs, and the next run is
  // 19:00, not 18:00 again.
  test_wall = at(2026, 12, 2, 17, 59, 59) + milliseconds(999);
  set.take_ready(start + seconds(30), ready, out);
  REQUIRE(ready.size() == 1);
  eval_result r;
  r.value = 1.0;
  std::string log;
  set.completed(0, r, start + seconds(30), out, log);
  REQUIRE(set.next_due() == start + seconds(30) + milliseconds(1) + hours(1));

  // The wall clock is stepped forward two hours (NTP): the next run is the next full hour of it.
  ready.clear();
  test_wall = at(2026, 12, 2, 20, 10);
  set.take_ready(start + minutes(40), ready, out);
  CHECK(ready.empty());  // the steady timer is not due yet
  const steady_time due = *set.next_due();  // set when the wall clock said 18:00
  set.take_ready(due, ready, out);
  REQUIRE(ready.size() == 1);
  CHECK(set.next_due() == due + minutes(50));  // 21:00 by the stepped wall clock
}
