// The historian's door in the engine: the values the address space stored for historizing
// Variables (ua::value_observer::historized_value_changed), collected while the host handles one
// message and handed on, in batches of at most batch_size records, to a sink that must not block
// (the historian actor's bounded queue, actors/server/historian_actor.hpp). The session host never
// waits on storage: a batch the sink refuses is dropped and counted.
// Each Variable's collection settings (Part 11 §5.2.2, history_collection.hpp) decide which of its
// values go in, and MaxTimeInterval repeats a held value (docs/history.md "Collection").
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/server/history_collection.hpp"
#include "history/history_store.hpp"
#include "protocol/address_space.hpp"

namespace uactor::actors {

class history_recorder {
public:
  // Takes a full batch, or refuses it (false: the queue is full). Called on the host's thread.
  using sink = std::function<bool(std::vector<history::record>&&)>;

  explicit history_recorder(std::size_t batch_size = 1'000) : batch_size_(batch_size == 0 ? 1 : batch_size) {}

  // No sink: nothing is collected (history is off).
  void set_sink(sink s) { sink_ = std::move(s); }
  bool recording() const noexcept { return static_cast<bool>(sink_); }

  // A historizing Variable's new value: judged by its collection settings when flushed.
  void value_changed(ua::node_index n, const ua::data_value& v) {
    if (sink_) pending_.push_back({n, v, false});
  }
  // A record that goes in as it is (an event of a notifier with event history).
  void record(ua::node_index n, const ua::data_value& v) {
    if (sink_) pending_.push_back({n, v, true});
  }
  // The collection settings changed (the HA Configuration nodes were set): each Variable's are
  // read again from the nodes (collection_for) at its next value.
  void settings_changed() noexcept { ++generation_; }
  // The housekeeping tick: the next flush stores again the held value of each Variable whose
  // MaxTimeInterval has passed since its last stored value (at most max_repeats_per_tick each).
  void tick(ua::date_time now) noexcept { repeat_at_ = now; }
  static constexpr int max_repeats_per_tick = 100;

  // Hands what was collected to the sink (the host calls it after each message); the node ids
  // are turned into text here, once per node.
  void flush(const ua::address_space& as);

  std::uint64_t dropped() const noexcept { return dropped_; }  // values refused by the sink
  std::uint64_t filtered() const noexcept { return filtered_; }  // values the settings kept out
  std::uint64_t repeated() const noexcept { return repeated_; }  // values MaxTimeInterval stored again

private:
  struct change {
    ua::node_index node;
    ua::data_value value;
    bool as_is;  // not judged (an event record, a MaxTimeInterval repeat)
  };
  struct node_entry {
    std::string name;
    std::uint64_t generation = 0;  // of the settings it was configured with; 0: not yet
    collection_state collection;
  };
  node_entry& entry(const ua::address_space& as, ua::node_index n);
  void repeat_due(const ua::address_space& as);

  sink sink_;
  std::size_t batch_size_;
  std::vector<change> pending_;
  std::unordered_map<ua::node_index, node_entry> nodes_;
  std::vector<ua::node_index> with_max_interval_;  // the Variables whose MaxTimeInterval is set
  std::uint64_t generation_ = 1;
  ua::date_time repeat_at_{};  // ticks 0: no tick since the last flush
  std::uint64_t dropped_ = 0;
  std::uint64_t drops_logged_at_ = 0;
  std::uint64_t filtered_ = 0;
  std::uint64_t repeated_ = 0;
};

}  // namespace uactor::actors
