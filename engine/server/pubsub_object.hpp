// The PublishSubscribe Object under the Server (Part 14 §9.1.3, ns0 i=14443) showing the [pubsub]
// connections that run: each one a PubSubConnectionType Object (HasPubSubConnection) with its
// WriterGroups and DataSetWriters, one ReaderGroup with its DataSetReaders and their
// TargetVariables, each with its Status (PubSubStatusType, the State the connection's actor sees)
// and Diagnostics (PubSubDiagnostics*Type counters); each writer's PublishedDataSet under
// PublishedDataSets. The values come from the actors' live state (engine/server/pubsub_live.hpp) on
// the host's housekeeping tick. A connection's Status Enable/Disable and every Diagnostics Reset
// are answered here. docs/pubsub.md "The PublishSubscribe object", docs/decisions/0079. Plain
// state in the session host, no CAF.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/server/pubsub_live.hpp"
#include "protocol/address_space.hpp"
#include "uactor/pubsub.hpp"

namespace uactor::actors {

// One field of a writer's PublishedDataSet, as the runtime resolved it.
struct pubsub_published_field {
  std::string name;
  ua::node_id variable;
  std::uint8_t built_in_type = 0;
  ua::node_id data_type;
  std::int32_t value_rank = -1;
};

struct pubsub_object_connection {
  pubsub::connection_config config;
  std::vector<std::vector<std::vector<pubsub_published_field>>> fields;  // per writer group, per writer
  std::string resolved_address;                                          // host:port, the connection's LiveValues
  std::shared_ptr<pubsub_connection_counters> live;                       // never null
};

class pubsub_object {
public:
  // PubSubStatusType's Enable and Disable (Part 14 §9.1.10.3/4) and PubSubDiagnosticsType's
  // Reset (§9.1.11.3), which the instances reference.
  static constexpr std::uint32_t enable_method = 14645, disable_method = 14646, reset_method = 19689;

  // Adds connection `c` under PublishSubscribe, its nodes String NodeIds "PubSub.<name>..." of
  // namespace `ns`; the first one also makes the root's Status Operational. Bad_NodeIdUnknown when
  // namespace 0 has no PublishSubscribe, Bad_NodeIdExists when a NodeId is taken (nothing added then).
  ua::status_code add_connection(ua::address_space& as, std::uint16_t ns, pubsub_object_connection c, ua::date_time now);
  std::size_t connection_count() const noexcept { return connections_.size(); }

  // The States, counters and live values from the actors' live state (the housekeeping tick).
  void sync(ua::address_space& as, ua::date_time now);

  // Whether `object` is a connection's Status (Enable, Disable) or a Diagnostics Object (Reset).
  bool handles(ua::node_index object) const noexcept;
  // Enable, Disable or Reset on `object` (Part 14 §9.1.10.3/4: Bad_InvalidState when the
  // component is already enabled, resp. disabled; §9.1.11.3). Bad_MethodInvalid for another method.
  ua::status_code call(ua::node_index object, ua::node_index method, ua::address_space& as, ua::date_time now);

private:
  enum class classification : std::int32_t { information = 0, error = 1 };
  struct counter {
    ua::node_index var = ua::no_node, time_first_change = ua::no_node;
    classification cls = classification::information;
    std::function<std::uint64_t()> read;
    std::uint64_t base = 0;  // the value at the last Reset
    bool changed = false;    // TimeFirstChange set since the last Reset
  };
  struct live_value {
    ua::node_index var = ua::no_node;
    std::function<ua::variant()> read;
  };
  struct diagnostics {
    ua::node_index object = ua::no_node;
    ua::node_index total_information = ua::no_node, total_error = ua::no_node, sub_error = ua::no_node;
    std::vector<counter> counters;
    std::vector<live_value> live;
    std::vector<std::size_t> children;  // the next layer's diagnostics (SubError)
    std::uint64_t errors = 0;           // TotalError at the last sync
  };
  struct status_entry {
    ua::node_index object = ua::no_node, state = ua::no_node;
    std::function<pubsub_state_value()> read;
    std::shared_ptr<pubsub_connection_counters> connection;  // set for a connection's Status (Enable/Disable)
  };

  // The nodes of one Diagnostics Object of `type` under `parent`; its place in diags_.
  std::size_t add_diagnostics(ua::address_space& as, const ua::node_id& parent_id, ua::node_index parent,
                              std::uint32_t type, std::vector<std::pair<const char*, counter>> counters,
                              std::vector<std::pair<const char*, std::pair<std::uint32_t, std::function<ua::variant()>>>> live,
                              ua::date_time now);
  void add_status(ua::address_space& as, const ua::node_id& parent_id, ua::node_index parent, std::function<pubsub_state_value()> read,
                  std::shared_ptr<pubsub_connection_counters> connection, ua::date_time now);
  void install_root(ua::address_space& as, ua::date_time now);
  void sync_diagnostics(ua::address_space& as, diagnostics& d, ua::date_time now);

  std::vector<pubsub_object_connection> connections_;
  std::vector<status_entry> statuses_;
  std::vector<diagnostics> diags_;
  ua::status_code failed_;                 // add_connection's first failure
  std::vector<ua::node_index> added_;      // add_connection's nodes, removed when it fails
  ua::node_index root_state_ = ua::no_node;
  std::array<ua::node_index, 4> root_live_{ua::no_node, ua::no_node, ua::no_node, ua::no_node};
  bool root_installed_ = false;
  std::size_t root_diags_ = 0;
};

}  // namespace uactor::actors
