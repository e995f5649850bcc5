// The load namespace of `uactor run --load-variables N` (docs/demo-namespace.md, "Load
// variables"): N UInt32 variables that one writer step changes all at once, so that the harness
// (`uactor load --scenario sub --variables N`) can monitor many distinct nodes and check that
// every change reached it (each value is the writer's tick).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/address_space.hpp"
#include "uactor/nodes.hpp"
#include "uactor/server.hpp"

namespace uactor::actors {

// ns=1;s=Load.V<i>: the NodeId string of load variable i (0 <= i < N).
std::string load_variable_name(std::size_t i);

// Which load variable of `count` a NodeId names (the i of load_variable_name), if any: what a
// plant file's checker asks without building a million nodes.
std::optional<std::size_t> load_variable_index(const ua::node_id& id, std::size_t count);

// The folder and the variables below as the embedding API takes them: `uactor run` adds them
// through uactor::server::apply like any application. load_folder() is the first of them and
// load_variable(i) the variable of index i.
std::vector<node_change> load_nodes(std::size_t count);
object_node load_folder();
variable_node load_variable(std::size_t i);

// Adds the folder ns=1;s=Load (Organizes from Objects) and `count` read-only UInt32 variables
// ns=1;s=Load.V0 .. V<count-1> (HasComponent from Load, value 0, timestamps `now`). Throws
// std::logic_error when namespace 0 is missing or the nodes exist already (a start-up error).
void add_load_namespace(ua::address_space& as, std::size_t count, ua::date_time now);

// The writer's step for the load variables: every one of them = tick (UInt32, wrapping), source
// and server timestamp `now`. The nodes are found once, at construction; a step allocates nothing.
class load_writer {
public:
  // Throws std::logic_error when a load variable is missing (add_load_namespace first).
  load_writer(const ua::address_space& as, std::size_t count);
  // The variables as the embedding API resolved them, in order.
  explicit load_writer(std::span<const value_handle> handles);
  // The tick's values as a value batch (out keeps its capacity: nothing allocated once warm).
  void values(std::uint64_t tick, ua::date_time now, std::vector<value_update>& out) const;
  void step(ua::address_space& as, std::uint64_t tick, ua::date_time now) const;
  std::size_t size() const noexcept { return nodes_.size(); }

private:
  std::vector<ua::node_index> nodes_;
};

}  // namespace uactor::actors
