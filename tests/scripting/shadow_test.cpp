// Shadow mode's comparison rule (scripting/shadow.hpp, docs/decisions/0043).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "scripting/shadow.hpp"

using namespace uactor::scripting;

namespace {

eval_result ok(script_value v) {
  eval_result r;
  r.value = std::move(v);
  return r;
}

eval_result failed(outcome how, std::string error = "boom") {
  eval_result r;
  r.how = how;
  r.error = std::move(error);
  return r;
}

}  // namespace

TEST_CASE("shadow: equal values of each type are the same and any other value a mismatch", "[scripting]") {
  CHECK(compare_runs(ok(3.5), ok(3.5), false) == shadow_verdict::same);
  CHECK(compare_runs(ok(std::int64_t{7}), ok(std::int64_t{7}), false) == shadow_verdict::same);
  CHECK(compare_runs(ok(true), ok(true), false) == shadow_verdict::same);
  CHECK(compare_runs(ok(std::string("a")), ok(std::string("a")), false) == shadow_verdict::same);
  CHECK(compare_runs(ok(std::monostate{}), ok(std::monostate{}), false) == shadow_verdict::same);
  CHECK(compare_runs(ok(3.5), ok(3.25), false) == shadow_verdict::mismatch);
  CHECK(compare_runs(ok(true), ok(false), false) == shadow_verdict::mismatch);
  CHECK(compare_runs(ok(std::string("a")), ok(std::string("b")), false) == shadow_verdict::mismatch);
  CHECK(compare_runs(ok(std::monostate{}), ok(false), false) == shadow_verdict::mismatch);
}

TEST_CASE("shadow: numbers compare bit for bit and any NaN equals any NaN", "[scripting]") {
  // The last bit: 0.1 + 0.2 against 0.3.
  CHECK(compare_runs(ok(0.1 + 0.2), ok(0.3), false) == shadow_verdict::mismatch);
  CHECK(compare_runs(ok(0.0), ok(-0.0), false) == shadow_verdict::mismatch);
  // An integer and a float of the same magnitude are two Lua values (math.type differs).
  CHECK(compare_runs(ok(std::int64_t{1}), ok(1.0), false) == shadow_verdict::mismatch);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(compare_runs(ok(nan), ok(-nan), false) == shadow_verdict::same);
  CHECK(compare_runs(ok(nan), ok(1.0), false) == shadow_verdict::mismatch);
  CHECK(compare_runs(ok(std::numeric_limits<double>::infinity()), ok(std::numeric_limits<double>::infinity()), false) ==
        shadow_verdict::same);
}

TEST_CASE("shadow: failures compare by outcome and a deadline on either side is a timeout, not a mismatch",
          "[scripting]") {
  CHECK(compare_runs(failed(outcome::script_error, "a"), failed(outcome::script_error, "b"), false) ==
        shadow_verdict::same);
  CHECK(compare_runs(failed(outcome::script_error), ok(1.0), false) == shadow_verdict::mismatch);
  CHECK(compare_runs(ok(1.0), failed(outcome::memory), false) == shadow_verdict::mismatch);
  CHECK(compare_runs(ok(1.0), failed(outcome::instructions), false) == shadow_verdict::mismatch);
  CHECK(compare_runs(ok(1.0), failed(outcome::not_loaded), false) == shadow_verdict::mismatch);
  CHECK(compare_runs(ok(1.0), failed(outcome::deadline), false) == shadow_verdict::timeout);
  CHECK(compare_runs(failed(outcome::deadline), ok(1.0), false) == shadow_verdict::timeout);
  // Late past the shadow's soft deadline: its value is not compared even when it equals.
  CHECK(compare_runs(ok(1.0), ok(1.0), true) == shadow_verdict::timeout);
  CHECK(compare_runs(ok(1.0), ok(2.0), true) == shadow_verdict::timeout);
}

TEST_CASE("shadow: a result as the log shows it", "[scripting]") {
  CHECK(describe(ok(3.5)) == "ok 3.5");
  CHECK(describe(ok(0.1 + 0.2)) == "ok 0.30000000000000004");
  CHECK(describe(ok(std::int64_t{3})) == "ok 3");
  CHECK(describe(ok(std::string("x"))) == "ok \"x\"");
  CHECK(describe(ok(std::monostate{})) == "ok nil");
  CHECK(describe(failed(outcome::memory)) == std::string(to_string(outcome::memory)));
}
