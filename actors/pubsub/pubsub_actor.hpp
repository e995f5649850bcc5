// One [pubsub] connection (Part 14 §6.2.7) as a detached actor (docs/decisions/0051, 0059): its
// WriterGroups' state (pubsub/writer_group.hpp), sampled from the server's change path (a value
// watch whose sink sends pubsub_changes_ptr), one NetworkMessage per WriterGroup per
// PublishingInterval handed to the MQTT link (libmosquitto's thread does the socket) as JSON, or
// sent as a UADP datagram (actors/pubsub/udp_link.hpp, whose thread receives); a bounded
// queue while the broker is away (the oldest dropped and counted); its DataSetReaders, whose
// TargetVariables are written through `targets` (the server's value door). Never on the request
// path: the session host only appends to a vector and sends one message per host turn.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>

#include "engine/server/pubsub_live.hpp"
#include "engine/server/server_metrics.hpp"
#include "engine/server/value_watch.hpp"
#include "pubsub/dataset_reader.hpp"
#include "pubsub/pubsub_config.hpp"
#include "pubsub/writer_group.hpp"

namespace uactor::actors {

// A watched slot's place: writer group, writer, field.
struct pubsub_field_slot {
  std::uint32_t group = 0, writer = 0, field = 0;
};

// Writes for reader `reader`'s targets (their order in its config). Called on the actor's thread.
using pubsub_target_sink = std::function<void(std::size_t reader, std::span<const pubsub::target_write>)>;

struct pubsub_setup {
  pubsub::connection_config config;
  pubsub::transport_kind transport = pubsub::transport_kind::mqtt;
  std::string host;
  std::uint16_t port = 1883;
  std::vector<std::vector<pubsub::resolved_writer>> groups;  // per writer group of config
  std::vector<pubsub_field_slot> slots;                      // the watch's slots
  std::vector<std::vector<ua::builtin_type>> reader_types;   // per reader, its targets' types
  std::vector<std::vector<bool>> reader_arrays;              // per reader, whether a target is an array
  pubsub_target_sink targets;
  std::shared_ptr<metrics_registry> metrics;                 // may be null
  std::string message_id_prefix;                             // unique per start
};

struct pubsub_changes {
  watched_changes changes;
};
using pubsub_changes_ptr = std::shared_ptr<const pubsub_changes>;

struct pubsub_inbound {
  std::string topic;
  std::string payload;
};
using pubsub_inbound_ptr = std::shared_ptr<const pubsub_inbound>;

// A UADP datagram from the UDP link's receiving thread.
struct pubsub_datagram {
  std::vector<std::uint8_t> bytes;
};
using pubsub_datagram_ptr = std::shared_ptr<const pubsub_datagram>;

using pubsub_tick_atom = caf::atom_constant<caf::atom("pstick")>;    // (group index): a PublishingInterval
using pubsub_link_atom = caf::atom_constant<caf::atom("pslink")>;    // (event, rc) from libmosquitto's thread
using pubsub_retry_atom = caf::atom_constant<caf::atom("psretry")>;  // the first connect, again
using pubsub_check_atom = caf::atom_constant<caf::atom("pscheck")>;  // the readers' MessageReceiveTimeout
using pubsub_bind_atom = caf::atom_constant<caf::atom("psbind")>;    // (actor): end with it

struct pubsub_connection {
  caf::actor actor;
  std::shared_ptr<pubsub_connection_counters> counters;
  // The sink for server_core::watches().add over `slots`: one message per host turn.
  watch_sink sink;
};

// Spawns the connection's actor (detached) and starts connecting.
pubsub_connection spawn_pubsub_connection(caf::actor_system& sys, pubsub_setup setup);

}  // namespace uactor::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::pubsub_changes_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::pubsub_inbound_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::pubsub_datagram_ptr)
