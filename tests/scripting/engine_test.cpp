// The script engine alone: the sandbox, the limits, the errors (docs/scripts.md).
#include <catch2/catch.hpp>

#include "scripting/engine.hpp"

using namespace uactor::scripting;

namespace {

item_spec tag(std::string source, std::vector<std::string> inputs = {}) {
  item_spec s;
  s.kind = item_kind::virtual_tag;
  s.name = "virtual_tags[0] (Flow)";
  s.source = std::move(source);
  s.input_names = std::move(inputs);
  return s;
}

eval_result run(engine& e, std::size_t i, std::vector<script_value> in = {}) {
  return e.evaluate(i, in, 0, false);
}

}  // namespace

TEST_CASE("engine: a virtual tag is an expression of its inputs", "[scripts]") {
  engine e;
  REQUIRE(e.load(tag("math.sqrt(p1 - p2) * 2", {"p1", "p2"})).empty());
  auto r = run(e, 0, {std::int64_t{13}, 4.0});
  REQUIRE(r.how == outcome::ok);
  REQUIRE(std::get<double>(r.value) == Approx(6.0));
  // A chunk with a return works as well; integers stay integers.
  REQUIRE(e.load(tag("local s = a + b\nreturn s * 2", {"a", "b"})).empty());
  r = run(e, 1, {std::int64_t{2}, std::int64_t{3}});
  REQUIRE(std::get<std::int64_t>(r.value) == 10);
  // Strings and booleans both ways.
  REQUIRE(e.load(tag("name .. (on and '!' or '?')", {"name", "on"})).empty());
  r = run(e, 2, {std::string("pump"), true});
  REQUIRE(std::get<std::string>(r.value) == "pump!");
}

TEST_CASE("engine: a syntax error at load names the item and Lua's message", "[scripts]") {
  engine e;
  const auto error = e.load(tag("p1 +* 2", {"p1"}));
  REQUIRE(error.find("virtual_tags[0] (Flow): syntax error: virtual_tags[0] (Flow):1:") == 0);
  REQUIRE(error.find("unexpected symbol") != std::string::npos);
  // The item keeps its index and answers not_loaded; the next one loads.
  REQUIRE(run(e, 0).how == outcome::not_loaded);
  REQUIRE(e.load(tag("1")).empty());
  REQUIRE(std::get<std::int64_t>(run(e, 1).value) == 1);
}

TEST_CASE("engine: a runtime error is a script error with Lua's message and the state goes on", "[scripts]") {
  engine e;
  REQUIRE(e.load(tag("x.y + 1", {"x"})).empty());
  auto r = run(e, 0, {std::int64_t{1}});
  REQUIRE(r.how == outcome::script_error);
  REQUIRE(r.error.find("attempt to index") != std::string::npos);
  REQUIRE(e.load(tag("error('valve stuck')")).empty());
  r = run(e, 1);
  REQUIRE(r.how == outcome::script_error);
  REQUIRE(r.error.find("valve stuck") != std::string::npos);
  REQUIRE(e.load(tag("{1, 2}")).empty());
  r = run(e, 2);
  REQUIRE(r.how == outcome::script_error);
  REQUIRE(r.error.find("returned a table") != std::string::npos);
  REQUIRE(e.load(tag("7")).empty());
  REQUIRE(run(e, 3).how == outcome::ok);
}

TEST_CASE("engine: the sandbox has no io and os and package and debug and dofile and loadfile or bytecode load", "[scripts]") {
  engine e;
  const char* absent[] = {"io", "os", "package", "debug", "dofile", "loadfile", "require", "collectgarbage",
                          "string.dump", "coroutine"};
  for (std::size_t i = 0; i < std::size(absent); ++i) {
    INFO(absent[i]);
    REQUIRE(e.load(tag(std::string(absent[i]) + " == nil")).empty());
    const auto r = run(e, i);
    REQUIRE(r.how == outcome::ok);
    REQUIRE(std::get<bool>(r.value));
  }
  // load takes text, never bytecode (a precompiled chunk starts with ESC "Lua").
  REQUIRE(e.load(tag("select(2, load('\\27Lua'))")).empty());
  auto r = run(e, std::size(absent));
  REQUIRE(r.how == outcome::ok);
  REQUIRE(std::get<std::string>(r.value).find("attempt to load a binary chunk") != std::string::npos);
  REQUIRE(e.load(tag("load('return 1 + 1')()")).empty());
  REQUIRE(std::get<std::int64_t>(run(e, std::size(absent) + 1).value) == 2);
}

TEST_CASE("engine: a runaway stops at its instruction budget and also when it catches the error", "[scripts]") {
  engine_limits limits;
  limits.max_instructions = 1'000'000;
  engine e(limits);
  REQUIRE(e.load(tag("(function() while true do end end)()")).empty());
  auto r = run(e, 0);
  REQUIRE(r.how == outcome::instructions);
  REQUIRE(r.error.find("instruction limit") != std::string::npos);
  // pcall in the script cannot keep it going: after the limit every instruction raises.
  REQUIRE(e.load(tag("(function() while true do pcall(function() while true do end end) end end)()")).empty());
  r = run(e, 1);
  REQUIRE(r.how == outcome::instructions);
  REQUIRE(e.load(tag("40 + 2")).empty());
  REQUIRE(std::get<std::int64_t>(run(e, 2).value) == 42);
}

TEST_CASE("engine: a deadline given to evaluate stops a runaway", "[scripts]") {
  engine_limits limits;
  limits.max_instructions = 0;
  engine e(limits);
  REQUIRE(e.load(tag("(function() while true do end end)()")).empty());
  // A deadline already past: the first look of the hook stops it (no wall-clock wait).
  const auto r = e.evaluate(0, {}, 0, false, std::chrono::steady_clock::now());
  REQUIRE(r.how == outcome::deadline);
}

TEST_CASE("engine: a memory bomb hits the state's limit and the memory comes back", "[scripts]") {
  engine_limits limits;
  limits.memory_bytes = 4u << 20;
  engine e(limits);
  REQUIRE(e.load(tag("(function() local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(100) .. i end end)()")).empty());
  REQUIRE(e.load(tag("#string.rep('x', 64 * 1024 * 1024)")).empty());
  REQUIRE(e.load(tag("1 + 1")).empty());
  const auto before = e.memory_used();
  auto r = run(e, 0);
  REQUIRE(r.how == outcome::memory);
  REQUIRE(r.error.find("memory limit") != std::string::npos);
  REQUIRE(e.memory_used() < before + (1u << 20));
  r = run(e, 1);
  REQUIRE(r.how == outcome::memory);
  REQUIRE(std::get<std::int64_t>(run(e, 2).value) == 2);
}

TEST_CASE("engine: a calculation keeps its globals between runs and items do not share theirs", "[scripts]") {
  engine e;
  item_spec calc;
  calc.kind = item_kind::calculation;
  calc.name = "calculations[0]";
  calc.source = "total = (total or 0) + x\nreturn total";
  calc.input_names = {"x"};
  REQUIRE(e.load(calc).empty());
  REQUIRE(e.load(tag("total")).empty());
  for (int i = 1; i <= 3; ++i) REQUIRE(std::get<std::int64_t>(run(e, 0, {std::int64_t{i}}).value) == i * (i + 1) / 2);
  REQUIRE(std::holds_alternative<std::monostate>(run(e, 1).value));
}

TEST_CASE("engine: an alarm sees its state as `active`", "[scripts]") {
  engine e;
  item_spec a;
  a.kind = item_kind::alarm;
  a.name = "alarms[0]";
  a.source = "p > 80 or (active and p > 75)";
  a.input_names = {"p"};
  REQUIRE(e.load(a).empty());
  REQUIRE_FALSE(std::get<bool>(e.evaluate(0, std::vector<script_value>{78.0}, 0, false).value));
  REQUIRE(std::get<bool>(e.evaluate(0, std::vector<script_value>{78.0}, 0, true).value));
}
