// The historian's door in the engine: the values the address space stored for historizing
// Variables (ua::value_observer::historized_value_changed), collected while the host handles one
// message and handed on, in batches of at most batch_size records, to a sink that must not block
// (the historian actor's bounded queue, actors/server/historian_actor.hpp). The session host never
// waits on storage: a batch the sink refuses is dropped and counted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

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

  void value_changed(ua::node_index n, const ua::data_value& v) {
    if (sink_) pending_.push_back({n, v});
  }
  // Hands what was collected to the sink (the host calls it after each message); the node ids
  // are turned into text here, once per node.
  void flush(const ua::address_space& as);

  std::uint64_t dropped() const noexcept { return dropped_; }  // values refused by the sink

private:
  struct change {
    ua::node_index node;
    ua::data_value value;
  };
  sink sink_;
  std::size_t batch_size_;
  std::vector<change> pending_;
  std::unordered_map<ua::node_index, std::string> names_;
  std::uint64_t dropped_ = 0;
  std::uint64_t drops_logged_at_ = 0;
};

}  // namespace uactor::actors
