// One Lua 5.4 state with a set of compiled items: sandboxed (base without dofile/loadfile and with a
// text-only load, string, table, math, utf8; no io, os, package, debug), its memory bounded by its
// allocator, every evaluation bounded by an instruction count and an optional deadline checked
// from the count hook. Single-threaded: one owner calls it (an in-process runner, or a worker).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scripting/item.hpp"
#include "scripting/value.hpp"

struct lua_State;

namespace uactor::scripting {

// How an evaluation ended.
enum class outcome : std::uint8_t {
  ok = 0,
  script_error = 1,   // a Lua error (the message says where), a bad result
  memory = 2,         // the state's memory limit
  instructions = 3,   // the instruction budget
  deadline = 4,       // the deadline given to evaluate()
  not_loaded = 5,     // no such item (a load that failed)
};

const char* to_string(outcome o) noexcept;

struct eval_result {
  outcome how = outcome::ok;
  script_value value;
  std::string error;  // empty when ok
};

class engine {
public:
  explicit engine(engine_limits limits = {});
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  // Compiles an item; its index is the number of items loaded before. The error names the item
  // and Lua's message: `virtual_tags[0] (Flow): syntax error: [string "..."]:1: unexpected symbol`.
  // A failed item keeps its index and answers not_loaded.
  std::string load(const item_spec& spec);
  std::size_t size() const noexcept { return items_.size(); }

  // Runs item `index` with `inputs` (one per input name) and the globals `now` (seconds since
  // 1970, a number) and, for an alarm, `active` (its current state). `deadline`: a steady-clock
  // time the count hook stops it at (max(): none, as in a worker, whose host kills it instead).
  eval_result evaluate(std::size_t index, std::span<const script_value> inputs, double now_seconds, bool active,
                       std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

  std::size_t memory_used() const noexcept;
  const engine_limits& limits() const noexcept { return limits_; }

  struct state;  // the allocator's and the hook's bookkeeping

private:
  struct item {
    int function = -2;  // LUA_NOREF: not loaded
    int env = -2;
    std::vector<std::string> input_names;
    item_kind kind = item_kind::virtual_tag;
  };
  engine_limits limits_;
  std::unique_ptr<state> state_;
  lua_State* L_ = nullptr;
  std::vector<item> items_;
};

}  // namespace uactor::scripting
