// The load namespace of `uactor run --load-variables N` (docs/demo-namespace.md, "Load
// variables") and its writer step, which the sub scenario's completeness check relies on: every
// variable set to the tick in one step, observed once per monitored variable, without allocating.
#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "runtime/namespaces/demo_namespace.hpp"
#include "runtime/namespaces/load_namespace.hpp"
#include "tests/support/alloc_counter.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace scenarios_load_namespace_test {

using namespace uactor;
using namespace uactor::ua;

namespace {

constexpr date_time now{133'000'000'000'000'000};

struct load_fixture {
  address_space as;
  services::method_table methods;
  explicit load_fixture(std::size_t n) {
    load_namespace0(as);
    actors::add_demo_namespace(as, methods, now);
    actors::add_load_namespace(as, n, now);
  }
};

bool has_reference(const address_space& as, node_index s, std::uint32_t type, node_index t) {
  const node_index r = as.find(node_id(0, type));
  for (const reference& x : as.forward_references(s))
    if (x.type == r && x.target == t) return true;
  return false;
}

// Counts the changes set_value reports per node.
struct counting_observer final : value_observer {
  std::vector<std::uint32_t> seen;
  std::vector<std::uint32_t> last;
  explicit counting_observer(std::size_t n) : seen(n), last(n) {}
  void value_changed(node_index n, const data_value& v) override {
    ++seen[n];
    last[n] = *v.value.get_if<std::uint32_t>();
  }
};

}  // namespace

TEST_CASE("load namespace: N UInt32 variables Load.V<i> in the Load folder under Objects", "[scenarios][load]") {
  load_fixture f(1000);
  const node_index folder = f.as.find(node_id::string(1, "Load"));
  REQUIRE(folder != no_node);
  CHECK(f.as.at(folder).cls == node_class::object);
  CHECK(has_reference(f.as, f.as.find(node_id(0, 85)), 35, folder));  // Objects Organizes Load
  for (std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{999}}) {
    INFO(i);
    const node_index n = f.as.find(node_id::string(1, actors::load_variable_name(i)));
    REQUIRE(n != no_node);
    CHECK(f.as.at(n).cls == node_class::variable);
    CHECK(f.as.at(n).browse_name == "V" + std::to_string(i));
    CHECK(f.as.at(n).browse_ns == 1);
    CHECK(has_reference(f.as, folder, 47, n));  // HasComponent
    const auto* v = f.as.variable(n);
    CHECK(v->data_type.matches(node_id(0, 7)));
    CHECK(v->access_level == 1);
    CHECK(*v->value.value.get_if<std::uint32_t>() == 0);
  }
  CHECK(f.as.find(node_id::string(1, "Load.V1000")) == no_node);
  // Twice is a start-up error, as without namespace 0.
  CHECK_THROWS_AS(actors::add_load_namespace(f.as, 10, now), std::logic_error);
  address_space empty;
  CHECK_THROWS_AS(actors::add_load_namespace(empty, 10, now), std::logic_error);
  CHECK_THROWS_AS(actors::load_writer(f.as, 1001), std::logic_error);
}

TEST_CASE("load writer: a step sets every variable to the tick, each change observed once, no allocation",
          "[scenarios][load]") {
  constexpr std::size_t n = 10'000;
  load_fixture f(n);
  const actors::load_writer writer(f.as, n);
  REQUIRE(writer.size() == n);
  counting_observer obs(f.as.size());
  f.as.set_observer(&obs);
  std::vector<node_index> nodes;
  for (std::size_t i = 0; i < n; ++i) {
    nodes.push_back(f.as.find(node_id::string(1, actors::load_variable_name(i))));
    f.as.set_monitored(nodes.back(), true);
  }
  writer.step(f.as, 1, now);
  const test::alloc_scope scope;
  const date_time t5{now.ticks + 5};
  for (std::uint64_t tick = 2; tick <= 5; ++tick) writer.step(f.as, tick, t5);
  if (test::counts_allocations) CHECK(scope.counted().allocations == 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto* v = f.as.variable(nodes[i]);
    REQUIRE(*v->value.value.get_if<std::uint32_t>() == 5);
    REQUIRE(v->value.source_timestamp == t5);
    REQUIRE(obs.seen[nodes[i]] == 5);
    REQUIRE(obs.last[nodes[i]] == 5);
  }
  f.as.set_observer(nullptr);
}

}  // namespace scenarios_load_namespace_test
