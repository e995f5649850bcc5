// Branches (Part 9 §4.4, §5.5.2) through server_core with a passed-in clock: a condition active
// again while its earlier state waits for Acknowledge or Confirm keeps that state as a branch with a
// BranchId of its own; the branch's events carry it, ConditionRefresh reports it, Acknowledge and
// Confirm act on the branch the EventId names, and a bound drops the oldest.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/server/server_core.hpp"
#include "tests/engine/server/condition_client.hpp"

// Everything in a namespace of its own (docs/decisions/0050).
namespace server_condition_branches_test {

using namespace uactor;
namespace status = ua::status;
using test::at;

const ua::node_id br_alarm = ua::node_id::string(1, "Alarm.Double");
const ua::node_id br_input = ua::node_id::string(1, "Demo.Static.Scalar.Double");
constexpr std::uint32_t br_acknowledge = 9111, br_confirm = 9113, br_add_comment = 9029, br_refresh = 3875,
                        br_disable = 9028, br_refresh_start = 2787, br_refresh_end = 2788;

limit_alarm br_limit_alarm(std::uint32_t max_branches = 16) {
  limit_alarm a;
  a.id = br_alarm;
  a.input = br_input;
  a.name = "TankLevel";
  a.high = 70;
  a.max_branches = max_branches;
  return a;
}

std::vector<std::string> br_briefs(const std::vector<test::condition_note>& v) {
  std::vector<std::string> out;
  for (const auto& n : v) out.push_back(n.brief());
  return out;
}

struct br_setup {
  actors::server_core core = test::make_core();
  test::condition_client c{core};
  std::uint32_t sub = 0;
  std::int64_t ms = 0;

  explicit br_setup(std::uint32_t max_branches = 16) {
    test::apply_value(core, br_input, 50, 0);
    REQUIRE(core.add_limit_alarm(br_limit_alarm(max_branches), at(0)) == status::good);
    sub = c.subscribe();
    REQUIRE(c.monitor_events(sub, 1) == status::good);
    c.events(ms);
  }
  std::vector<test::condition_note> value(double v) {
    test::apply_value(core, br_input, v, ms + 10);
    return c.events(ms);
  }
  ua::status_code call(std::uint32_t method, const ua::byte_string& event_id, const char* comment) {
    return c.call_method(br_alarm, method, {ua::variant(event_id), ua::variant(test::condition_comment(comment))}, ms + 10);
  }
};

// Each row an input value and the events it causes ("trunk|branch active|inactive acked|unacked
// confirmed|unconfirmed retain|gone"): §4.4's figure of a condition that comes back before its
// first occurrence was acknowledged.
TEST_CASE("branches: a condition active again before its earlier state was acknowledged, through a table",
          "[events][alarms][branches]") {
  struct row {
    double v;
    std::vector<std::string> events;
  };
  const std::vector<row> table{
      {80, {"trunk active unacked confirmed retain"}},
      {50, {"trunk inactive unacked confirmed retain"}},  // back to normal, not acknowledged
      {80, {"branch inactive unacked confirmed retain", "trunk active unacked confirmed retain"}},
      {85, {}},                                            // still High: nothing
      {50, {"trunk inactive unacked confirmed retain"}},
      {80, {"branch inactive unacked confirmed retain", "trunk active unacked confirmed retain"}},
  };
  br_setup s;
  for (std::size_t i = 0; i < table.size(); ++i) {
    INFO("row " << i);
    CHECK(br_briefs(s.value(table[i].v)) == table[i].events);
  }
  REQUIRE(s.core.conditions().branch_count(0) == 2);
  CHECK_FALSE(s.core.conditions().branch_id(0, 0).is_null());
  CHECK_FALSE(s.core.conditions().branch_id(0, 0) == s.core.conditions().branch_id(0, 1));
  // The condition's Variables are the trunk's: its BranchId stays null.
  CHECK(s.c.read(ua::node_id::string(1, "Alarm.Double.BranchId")) == ua::variant(ua::node_id()));

  // An earlier state acknowledged and confirmed makes no branch.
  br_setup t;
  t.value(80);
  const auto inactive = t.value(50);
  REQUIRE(inactive.size() == 1);
  REQUIRE(t.call(br_acknowledge, inactive[0].event_id, "seen") == status::good);
  const auto confirmed_wait = t.c.events(t.ms);
  REQUIRE(confirmed_wait.size() == 1);
  REQUIRE(t.call(br_confirm, confirmed_wait[0].event_id, "done") == status::good);
  t.c.events(t.ms);
  CHECK(br_briefs(t.value(80)) == std::vector<std::string>{"trunk active unacked confirmed retain"});
  CHECK(t.core.conditions().branch_count(0) == 0);
}

TEST_CASE("branches: Acknowledge and Confirm by the branch's EventId act on the branch, the trunk goes on",
          "[events][alarms][branches]") {
  br_setup s;
  s.value(80);
  s.value(50);
  const auto again = s.value(80);
  REQUIRE(again.size() == 2);
  const auto branch = again[0];
  const auto trunk = again[1];
  REQUIRE_FALSE(branch.branch_id.is_null());

  // The branch's EventId: the branch is acknowledged, its event carries its BranchId.
  REQUIRE(s.call(br_acknowledge, branch.event_id, "earlier one seen") == status::good);
  auto seen = s.c.events(s.ms);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].branch_id == branch.branch_id);
  CHECK(seen[0].brief() == "branch inactive acked unconfirmed retain");
  CHECK(seen[0].comment == "earlier one seen");
  CHECK_FALSE(s.core.conditions().acked(0));  // the trunk is not
  // An EventId the branch has replaced is no longer one to act on.
  CHECK(s.call(br_confirm, branch.event_id, "old") == status::bad_event_id_unknown);
  CHECK(s.call(br_acknowledge, seen[0].event_id, "again") == status::bad_condition_branch_already_acked);
  // AddComment on the branch: an event of the branch, the state unchanged.
  REQUIRE(s.call(br_add_comment, seen[0].event_id, "note") == status::good);
  auto commented = s.c.events(s.ms);
  REQUIRE(commented.size() == 1);
  CHECK(commented[0].brief() == "branch inactive acked unconfirmed retain");
  // Confirmed: its last event (Retain False), then gone.
  REQUIRE(s.call(br_confirm, commented[0].event_id, "done") == status::good);
  auto done = s.c.events(s.ms);
  REQUIRE(done.size() == 1);
  CHECK(done[0].branch_id == branch.branch_id);
  CHECK(done[0].brief() == "branch inactive acked confirmed gone");
  CHECK(s.core.conditions().branch_count(0) == 0);

  // The trunk, acknowledged with its own EventId.
  REQUIRE(s.call(br_acknowledge, trunk.event_id, "now") == status::good);
  auto t = s.c.events(s.ms);
  REQUIRE(t.size() == 1);
  CHECK(t[0].brief() == "trunk active acked unconfirmed retain");
}

TEST_CASE("branches: the EventId the operator saw before the branch was made acknowledges the branch",
          "[events][alarms][branches]") {
  br_setup s;
  s.value(80);
  const auto normal = s.value(50);  // the operator sees this state (inactive, unacknowledged) ...
  REQUIRE(normal.size() == 1);
  const auto again = s.value(80);  // ... which becomes a branch before the Acknowledge arrives
  REQUIRE(again.size() == 2);
  REQUIRE(s.call(br_acknowledge, normal[0].event_id, "the one I saw") == status::good);
  const auto seen = s.c.events(s.ms);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].branch_id == again[0].branch_id);
  CHECK(seen[0].acked);
  CHECK_FALSE(s.core.conditions().acked(0));  // the trunk's new occurrence waits
  // Once the branch changed, only its latest EventId names it.
  CHECK(s.call(br_confirm, normal[0].event_id, "old") == status::bad_event_id_unknown);
}

TEST_CASE("branches: ConditionRefresh reports the trunk and each branch with its latest EventId",
          "[events][alarms][branches]") {
  br_setup s;
  s.value(80);
  s.value(50);
  s.value(80);
  s.value(50);
  s.value(80);  // two branches, the trunk active
  REQUIRE(s.core.conditions().branch_count(0) == 2);
  REQUIRE(s.c.call_method(ua::node_id(0, 2782), br_refresh, {ua::variant(s.sub)}, s.ms + 10) == status::good);
  const auto refresh = s.c.events(s.ms);
  REQUIRE(refresh.size() == 5);
  CHECK(refresh.front().type == br_refresh_start);
  CHECK(refresh.back().type == br_refresh_end);
  CHECK(refresh[1].brief() == "trunk active unacked confirmed retain");
  CHECK(refresh[1].event_id == s.core.conditions().last_event_id(0));
  CHECK(refresh[2].branch_id == s.core.conditions().branch_id(0, 0));
  CHECK(refresh[2].event_id == s.core.conditions().branch_event_id(0, 0));
  CHECK(refresh[3].branch_id == s.core.conditions().branch_id(0, 1));
  CHECK(refresh[3].event_id == s.core.conditions().branch_event_id(0, 1));
  // Acknowledge by the EventId the refresh gave (the client missed the original events).
  REQUIRE(s.call(br_acknowledge, refresh[2].event_id, "from the refresh") == status::good);
  const auto acked = s.c.events(s.ms);
  REQUIRE(acked.size() == 1);
  CHECK(acked[0].branch_id == refresh[2].branch_id);
  CHECK(acked[0].acked);
}

TEST_CASE("branches: past max_branches the oldest is dropped with a last event and counted, 0 keeps none",
          "[events][alarms][branches]") {
  br_setup s(2);
  s.value(80);
  for (int i = 0; i < 2; ++i) {
    s.value(50);
    s.value(80);
  }
  REQUIRE(s.core.conditions().branch_count(0) == 2);
  const ua::node_id oldest = s.core.conditions().branch_id(0, 0);
  const ua::node_id second = s.core.conditions().branch_id(0, 1);
  s.value(50);
  const auto third = s.value(80);
  REQUIRE(third.size() == 3);
  CHECK(third[0].branch_id == oldest);
  CHECK(third[0].brief() == "branch inactive unacked confirmed gone");
  CHECK(third[1].brief() == "branch inactive unacked confirmed retain");
  CHECK(third[2].brief() == "trunk active unacked confirmed retain");
  CHECK(s.core.conditions().branch_count(0) == 2);
  CHECK(s.core.conditions().branch_id(0, 0) == second);
  CHECK(s.core.conditions().branches_dropped() == 1);

  br_setup none(0);
  none.value(80);
  none.value(50);
  CHECK(br_briefs(none.value(80)) == std::vector<std::string>{"trunk active unacked confirmed retain"});
  CHECK(none.core.conditions().branch_count(0) == 0);
}

TEST_CASE("branches: Disable ends every branch with a last event", "[events][alarms][branches]") {
  br_setup s;
  s.value(80);
  s.value(50);
  s.value(80);
  REQUIRE(s.core.conditions().branch_count(0) == 1);
  REQUIRE(s.c.call_method(br_alarm, br_disable, {}, s.ms + 10) == status::good);
  const auto seen = s.c.events(s.ms);
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].brief() == "branch inactive unacked confirmed gone");
  CHECK(seen[1].brief() == "trunk active unacked confirmed gone");
  CHECK(s.core.conditions().branch_count(0) == 0);
}

}  // namespace server_condition_branches_test
