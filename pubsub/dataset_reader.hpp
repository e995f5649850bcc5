// A DataSetReader as plain state (Part 14 §6.2.9): which DataSetMessages it takes (PublisherId,
// WriterGroupName, DataSetWriterId filters), which Payload fields go to which TargetVariables, the
// SequenceNumber order, and MessageReceiveTimeout: silent past it, the targets are set Bad
// (Bad_NoCommunication) once, until the next message. The subscriber actor feeds it decoded
// messages and its timer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pubsub/json_messages.hpp"
#include "pubsub/pubsub_config.hpp"
#include "pubsub/uadp_messages.hpp"

namespace uactor::pubsub {

// One value for the local address space: target slot (the reader's targets order) and value.
struct target_write {
  std::uint32_t target = 0;
  ua::data_value value;
};

struct reader_counters {
  std::uint64_t messages = 0;        // DataSetMessages taken
  std::uint64_t values = 0;          // values written to targets
  std::uint64_t out_of_order = 0;    // SequenceNumber not after the last (dropped)
  std::uint64_t gaps = 0;            // DataSetMessages missed by SequenceNumber
  std::uint64_t bad_values = 0;      // fields whose value did not fit the target
  std::uint64_t timeouts = 0;        // MessageReceiveTimeout expiries
};

enum class reader_state_kind : std::uint8_t { operational, error };

class dataset_reader_state {
public:
  // `target_types`: the built-in type of each target variable (config.targets' order);
  // `target_arrays`: whether it is an array (ValueRank >= 1), for RawData.
  dataset_reader_state(dataset_reader_config config, std::vector<ua::builtin_type> target_types,
                       std::vector<bool> target_arrays = {});

  const dataset_reader_config& config() const noexcept { return config_; }
  // Whether this reader takes DataSetMessage `m` of network message `n`.
  bool accepts(const decoded_network_message& n, const decoded_dataset_message& m) const noexcept;
  // Takes an accepted message at `now_ms` (a monotonic clock in ms); appends the writes.
  void take(const decoded_dataset_message& m, std::int64_t now_ms, std::vector<target_write>& out);
  // On the timer: past MessageReceiveTimeout without a message, once, every target Bad_NoCommunication.
  void check_timeout(std::int64_t now_ms, ua::date_time now, std::vector<target_write>& out);
  // The types UADP's RawData fields are read by (config.fields' order): a target's variable's
  // type for the fields that have a target; empty when a field has none (RawData cannot be read).
  std::span<const uadp_raw_type> raw_types() const noexcept { return raw_types_; }
  // The reader's clock starts when it becomes operational (Part 14 §6.2.9.6).
  void start(std::int64_t now_ms) noexcept { last_ms_ = now_ms; }

  reader_state_kind state() const noexcept { return state_; }
  const reader_counters& counters() const noexcept { return counters_; }

private:
  // One field's value into target `t`, converted to its type, with the message's status and time.
  target_write to_target(std::uint32_t t, const decoded_dataset_message& m, const ua::data_value& value);

  dataset_reader_config config_;
  std::vector<ua::builtin_type> types_;
  // Which targets a field goes to, found per field rather than per field x target (a 1,000-field
  // DataSetMessage into 1,000 targets was 10^6 comparisons: docs/performance.md "PubSub subscriber
  // into TargetVariables"). UADP by position: targets_at_[f] lists the targets of config.fields[f];
  // JSON by name: (field name, target) sorted by name, targets ascending within a name.
  std::vector<std::vector<std::uint32_t>> targets_at_;
  std::vector<std::pair<std::string, std::uint32_t>> targets_by_name_;
  std::vector<uadp_raw_type> raw_types_;
  std::int64_t last_ms_ = 0;
  std::optional<std::uint32_t> last_sequence_;
  reader_state_kind state_ = reader_state_kind::operational;
  reader_counters counters_;
};

}  // namespace uactor::pubsub
