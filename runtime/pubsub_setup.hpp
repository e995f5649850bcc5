// The runtime's side of PubSub (docs/pubsub.md): a [pubsub] connection's variables found in the
// address space (PublishedDataSets by NodeId or prefix, TargetVariables by NodeId), into what its
// actor (actors/pubsub/pubsub_actor.hpp) and the value watch need. Runs on the session host.
#pragma once

#include <string>
#include <vector>

#include "actors/pubsub/pubsub_actor.hpp"
#include "protocol/address_space.hpp"
#include "uactor/pubsub.hpp"

namespace uactor {

struct pubsub_resolution {
  std::vector<std::vector<pubsub::resolved_writer>> groups;     // per writer group
  std::vector<actors::pubsub_field_slot> slots;                 // the watch's slots
  std::vector<ua::node_index> watched;                          // slot i's variable
  std::vector<std::vector<ua::builtin_type>> reader_types;      // per reader, per target
  std::vector<std::vector<bool>> reader_arrays;                 // per reader, per target: ValueRank >= 1
  std::vector<std::vector<ua::node_index>> reader_targets;      // per reader, per target
  std::vector<std::string> errors;                              // what did not resolve
  std::vector<std::string> warnings;                            // patterns that matched nothing
};

// Each writer's patterns (a NodeId text, or a prefix ending in '*') over the Variables in store
// order; a field is named by the variable's BrowseName (its NodeId text when two share one).
pubsub_resolution resolve_pubsub(const ua::address_space& as, const pubsub::connection_config& c);

}  // namespace uactor
