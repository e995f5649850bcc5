// The demo namespace that `uactor run` serves (docs/demo-namespace.md is the contract; the
// node-opcua interop scripts expect the same nodes), and the step of the writer that changes its
// dynamic values. Plain functions over the address space: the store owns the nodes they add.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/server/server_core.hpp"
#include "engine/server/services/call.hpp"
#include "protocol/address_space.hpp"
#include "uactor/nodes.hpp"
#include "uactor/server.hpp"

namespace uactor::actors {

inline constexpr std::uint16_t demo_namespace_index = 1;

struct demo_options {
  // What the server's NamespaceArray lists at index 1 (init_server_object's namespace_uris); the
  // nodes themselves are in namespace index 1 whatever it is called.
  std::string namespace_uri = "urn:uactor:demo";
};

// The nodes of docs/demo-namespace.md as the embedding API takes them (include/uactor/nodes.hpp):
// `uactor run` adds them through uactor::server::apply like any application.
std::vector<node_change> demo_nodes(ua::date_time now);

// The demo methods' implementations (their inputs checked by the Call service already).
struct demo_method {
  ua::node_id method;
  services::method_function run;
};
std::vector<demo_method> demo_methods();

// Adds namespace 1 of docs/demo-namespace.md to a store that already holds namespace 0
// (ua::load_namespace0): the Demo folders, the static scalar and array variables, the dynamic
// variables, the.answer, the methods Add, Echo and InteropTests/HelloWorld with their argument
// properties, each node with its HasTypeDefinition. Registers the methods' implementations in
// `methods`. Initial values carry source and server timestamp `now`. Throws std::logic_error when
// namespace 0 is missing or the demo nodes are already there (a start-up error).
void add_demo_namespace(ua::address_space& as, services::method_table& methods, ua::date_time now,
                        const demo_options& options = {});

// The writer's step (a writer actor calls it on a timer): Demo.Dynamic.Counter = tick (UInt32,
// wrapping), Sine = sin(2π·tick/60), Time = now, each with source and server timestamp `now`.
// The nodes are found once, at construction; a step allocates nothing.
class demo_writer {
public:
  // Throws std::logic_error when the store lacks the dynamic variables (add_demo_namespace first).
  explicit demo_writer(const ua::address_space& as);
  // The variables as the embedding API resolved them (variables(), in that order).
  demo_writer(value_handle counter, value_handle sine, value_handle time);
  static std::array<ua::node_id, 3> variables();
  // The tick's values, as a value batch for uactor::server::write_values.
  std::array<value_update, 3> values(std::uint64_t tick, ua::date_time now) const;
  void step(ua::address_space& as, std::uint64_t tick, ua::date_time now) const;

private:
  ua::node_index counter_;
  ua::node_index sine_;
  ua::node_index time_;
};

// The server uactor run serves: namespace 0 with the Server object filled in (its
// ApplicationUri and limits from `config`, `software_version` in its BuildInfo) and the demo
// namespace. One place for the runtime, the tests and the benchmarks.
server_core make_demo_server_core(server_core_config config, const std::string& software_version, ua::date_time now,
                                  const demo_options& options = {});

}  // namespace uactor::actors
