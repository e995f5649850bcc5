// Shadow mode's rule (docs/decisions/0043): what a published (in-process) run and its shadow
// (out-of-process) run of the same item with the same inputs are to each other. Pure: both results
// in, a verdict out; the shard supervisor counts and logs what it says.
#pragma once

#include <string>

#include "scripting/engine.hpp"

namespace uactor::scripting {

enum class shadow_verdict : std::uint8_t {
  same,      // the same outcome and, when ok, the same value
  mismatch,  // a different value or outcome (a status the output would show)
  timeout,   // not compared: a run passed its deadline (the shadow's soft one, or either's hard one)
};

// Values are the same when they are of the same Lua type and equal; numbers bit for bit (0.0 and
// -0.0 differ, as do 1 and 1.0: an integer and a float), except that any NaN equals any NaN (the
// sign and payload of a NaN are the FPU's, not the script's).
bool same_value(const script_value& a, const script_value& b) noexcept;

// `shadow_late`: the shadow's result came after its soft deadline. Failures compare by outcome
// only (a script error is a script error; Lua's message may name addresses or sizes).
shadow_verdict compare_runs(const eval_result& published, const eval_result& shadow, bool shadow_late) noexcept;

// A result as a log line shows it: `ok 3.5`, `ok "text"`, `script_error`.
std::string describe(const eval_result& r);

}  // namespace uactor::scripting
