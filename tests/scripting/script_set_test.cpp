// The host-side bookkeeping both runners share (scripting/script_set.hpp), driven with a test clock.
#include <catch2/catch.hpp>

#include "uactor/ua/status_codes.hpp"
#include "scripting/script_set.hpp"

using namespace uactor;
using namespace uactor::scripting;
using namespace std::chrono_literals;

namespace {

ua::data_value good(double v) {
  ua::data_value d;
  d.value = v;
  d.has_value = true;
  return d;
}

set_item item(item_kind kind, std::string source, std::vector<std::uint32_t> inputs, std::vector<std::string> names) {
  set_item it;
  it.spec.kind = kind;
  it.spec.name = "item";
  it.spec.source = std::move(source);
  it.spec.input_names = std::move(names);
  it.inputs = std::move(inputs);
  it.output_type = kind == item_kind::alarm ? ua::builtin_type::boolean : ua::builtin_type::double_;
  return it;
}

// Runs every ready item on a real engine, as the in-process runner does.
struct harness {
  engine eng;
  script_set set;
  steady_time now{};
  std::vector<output_value> out;
  std::size_t runs = 0;
  harness(std::vector<set_item> items, std::size_t slots, set_policy p = {})
      : set(items, slots, p, steady_time{}) {
    for (const auto& it : items) REQUIRE(eng.load(it.spec).empty());
  }
  void pass() {
    std::vector<eval_request> ready;
    set.take_ready(now, ready, out);
    for (const auto& r : ready) {
      ++runs;
      std::string log;
      set.completed(r.item, eng.evaluate(r.item, r.inputs, 0, r.active), now, out, log);
    }
  }
  const output_value& last() const { return out.back(); }
};

}  // namespace

TEST_CASE("script_set: many changes before a pass make one run and with the latest values", "[scripts]") {
  harness h({item(item_kind::virtual_tag, "a + b", {0, 1}, {"a", "b"})}, 2);
  h.set.input_changed(0, good(1));
  h.set.input_changed(1, good(2));
  h.set.input_changed(0, good(10));
  h.pass();
  REQUIRE(h.runs == 1);
  REQUIRE(h.out.size() == 1);
  REQUIRE(*h.last().value.get_if<double>() == 12);
  h.pass();
  REQUIRE(h.runs == 1);  // nothing changed: nothing runs
}

TEST_CASE("script_set: a missing input holds the run back and a bad one is passed on", "[scripts]") {
  harness h({item(item_kind::virtual_tag, "a * 2", {0}, {"a"})}, 1);
  h.pass();
  REQUIRE(h.runs == 0);
  REQUIRE(h.last().status == ua::status::bad_waiting_for_initial_data);
  ua::data_value bad;
  bad.has_value = true;
  bad.status = ua::status::bad_resource_unavailable;
  h.set.input_changed(0, bad);
  h.pass();
  REQUIRE(h.runs == 0);
  REQUIRE(h.last().status == ua::status::bad_resource_unavailable);
  h.set.input_changed(0, good(4));
  h.pass();
  REQUIRE(*h.last().value.get_if<double>() == 8);
}

TEST_CASE("script_set: a numeric predicate has hysteresis", "[scripts]") {
  auto a = item(item_kind::alarm, "p - 80", {0}, {"p"});
  a.spec.alarm.hysteresis = 5;
  harness h({a}, 1);
  const auto at = [&](double p) {
    h.set.input_changed(0, good(p));
    h.pass();
    return h.set.alarm_active(0);
  };
  REQUIRE_FALSE(at(79));
  REQUIRE(at(81));
  REQUIRE(at(77));  // within the band: still active
  REQUIRE_FALSE(at(74));
  REQUIRE_FALSE(at(79));
}

TEST_CASE("script_set: an alarm's on-delay and off-delay run on the clock given", "[scripts]") {
  auto a = item(item_kind::alarm, "p > 80", {0}, {"p"});
  a.spec.alarm.on_delay = 100ms;
  a.spec.alarm.off_delay = 50ms;
  harness h({a}, 1);
  h.set.input_changed(0, good(90));
  h.pass();
  REQUIRE_FALSE(h.set.alarm_active(0));
  REQUIRE(h.set.next_due() == steady_time{} + 100ms);
  h.now += 99ms;
  h.pass();
  REQUIRE_FALSE(h.set.alarm_active(0));
  h.now += 1ms;
  h.pass();  // no new value: the delay alone makes it active
  REQUIRE(h.set.alarm_active(0));
  REQUIRE(*h.last().value.get_if<bool>());
  // A blip shorter than the off-delay does not clear it.
  h.set.input_changed(0, good(70));
  h.pass();
  h.now += 20ms;
  h.set.input_changed(0, good(95));
  h.pass();
  h.now += 100ms;
  h.pass();
  REQUIRE(h.set.alarm_active(0));
  h.set.input_changed(0, good(70));
  h.pass();
  h.now += 50ms;
  h.pass();
  REQUIRE_FALSE(h.set.alarm_active(0));
}

TEST_CASE("script_set: a calculation runs on its period and keeps its state", "[scripts]") {
  auto c = item(item_kind::calculation, "n = (n or 0) + 1 return n", {}, {});
  c.spec.period = 1000ms;
  harness h({c}, 0);
  h.pass();
  REQUIRE(*h.last().value.get_if<double>() == 1);
  h.now += 999ms;
  h.pass();
  REQUIRE(h.runs == 1);
  h.now += 1ms;
  h.pass();
  REQUIRE(*h.last().value.get_if<double>() == 2);
  h.now += 5000ms;  // late: one run, not five
  h.pass();
  REQUIRE(h.runs == 3);
  REQUIRE(h.set.next_due() > h.now);
}

TEST_CASE("script_set: runs stopped by a limit strike and the third quarantines and a script error does not", "[scripts]") {
  harness h({item(item_kind::virtual_tag, "a.b", {0}, {"a"})}, 1, set_policy{3});
  h.set.input_changed(0, good(1));
  h.pass();
  REQUIRE(h.last().status == ua::status::bad_internal_error);
  REQUIRE(h.set.strikes(0) == 0);
  eval_result limit;
  limit.how = outcome::deadline;
  limit.error = "deadline exceeded";
  for (int i = 1; i <= 3; ++i) {
    std::vector<eval_request> ready;
    h.set.input_changed(0, good(i));
    h.set.take_ready(h.now, ready, h.out);
    REQUIRE(ready.size() == 1);
    std::string log;
    h.set.completed(0, limit, h.now, h.out, log);
    REQUIRE(h.set.strikes(0) == static_cast<std::uint32_t>(i));
    REQUIRE(h.last().status == (i < 3 ? ua::status::bad_timeout : ua::status::bad_out_of_service));
    if (i == 3) REQUIRE(log.find("quarantined after 3") != std::string::npos);
  }
  std::vector<eval_request> ready;
  h.set.input_changed(0, good(9));
  h.set.take_ready(h.now, ready, h.out);
  REQUIRE(ready.empty());  // never again
}

TEST_CASE("script_set: a runner fault never clears an active alarm and a victim runs again unstruck", "[scripts]") {
  harness h({item(item_kind::alarm, "p > 80", {0}, {"p"})}, 1);
  h.set.input_changed(0, good(90));
  h.pass();
  REQUIRE(h.set.alarm_active(0));
  std::vector<eval_request> ready;
  h.set.input_changed(0, good(10));
  h.set.take_ready(h.now, ready, h.out);
  REQUIRE(ready.size() == 1);
  h.set.runner_down(0, h.out);
  REQUIRE(h.set.alarm_active(0));
  REQUIRE(*h.last().value.get_if<bool>());
  REQUIRE(h.last().status == ua::status::bad_resource_unavailable);
  ready.clear();
  h.set.take_ready(h.now, ready, h.out);  // due again (a recovery runs it)
  REQUIRE(ready.size() == 1);
  h.set.victim(0);
  REQUIRE(h.set.strikes(0) == 0);
  h.pass();
  REQUIRE_FALSE(h.set.alarm_active(0));
  REQUIRE(h.last().status == ua::status::good);
}
