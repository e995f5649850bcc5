// What a [pubsub] connection's actor (actors/pubsub/) tells the rest of the server while it runs:
// its counters and the states of its PubSub components (Part 14 §6.2.1 PubSubState), as atomics
// the actor writes and others read (the /metrics log, tests, the PublishSubscribe object's
// Status and Diagnostics on the host's housekeeping tick), and the Enable/Disable the Status
// methods ask of it. One per connection, shared; no CAF, no locks.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace uactor::actors {

// PubSubState (Part 14 §6.2.1, the enumeration i=14647).
enum class pubsub_state_value : std::int32_t { disabled = 0, paused = 1, operational = 2, error = 3, pre_operational = 4 };

// One WriterGroup's NetworkMessages (Part 14 §9.1.11.8 PubSubDiagnosticsWriterGroupType).
struct pubsub_group_live {
  std::atomic<std::uint64_t> sent{0};    // SentNetworkMessages
  std::atomic<std::uint64_t> failed{0};  // FailedTransmissions: dropped (oversize, not sent, the queue's oldest)
};

// One DataSetWriter (§9.1.11.10): a NetworkMessage of its group that failed counts as a failed
// DataSetMessage of each of its writers.
struct pubsub_writer_live {
  std::atomic<std::uint64_t> failed{0};  // FailedDataSetMessages
};

// One DataSetReader (§9.1.11.11) and its state (§6.2.9: PreOperational until its first
// DataSetMessage, Error past MessageReceiveTimeout, Operational again with the next one).
struct pubsub_reader_live {
  std::atomic<std::int32_t> state{static_cast<std::int32_t>(pubsub_state_value::pre_operational)};
  std::atomic<std::uint64_t> messages{0};     // DataSetMessages taken
  std::atomic<std::uint64_t> failed{0};       // FailedDataSetMessages: taken by its filters, not decodable
  std::atomic<std::uint64_t> to_error{0};     // StateError: MessageReceiveTimeout expiries
  std::atomic<std::uint64_t> from_error{0};   // StateOperationalFromError
  std::atomic<std::uint32_t> sequence{0};     // LiveValues MessageSequenceNumber: the last taken
  std::atomic<std::uint32_t> status{0};       // LiveValues StatusCode: the last DataSetMessage's
  std::atomic<std::uint32_t> major{0}, minor{0};  // its ConfigurationVersion, when it carried one
};

// The counters of one connection (the metrics block sums them) and its components' live state.
struct pubsub_connection_counters {
  pubsub_connection_counters() = default;
  // Sized for `writers_per_group` (one entry per WriterGroup) and `readers` DataSetReaders.
  pubsub_connection_counters(const std::vector<std::size_t>& writers_per_group, std::size_t readers)
      : groups(writers_per_group.size()), writer_base(writers_per_group.size()), readers(readers) {
    std::size_t n = 0;
    for (std::size_t g = 0; g < writers_per_group.size(); ++g) {
      writer_base[g] = n;
      n += writers_per_group[g];
    }
    writers = std::vector<pubsub_writer_live>(n);
  }

  std::atomic<std::uint64_t> messages_sent{0}, values_sent{0}, dropped{0}, reconnects{0}, connects{0};
  std::atomic<std::uint64_t> received{0}, values_received{0}, decode_errors{0}, timeouts{0}, gaps{0};
  std::atomic<std::int64_t> queued{0};
  std::atomic<bool> up{false};
  std::atomic<std::uint64_t> oversize{0};     // NetworkMessages over MaxNetworkMessageSize / the datagram limit
  std::atomic<std::uint16_t> udp_port{0};     // the port the UDP readers are bound to (0: none yet)
  // Chunked DataSetMessages in (Part 14 §7.2.4.4.4): reassembled, chunks refused (also in
  // decode_errors), incomplete ones dropped (timed out or pushed out).
  std::atomic<std::uint64_t> chunked_received{0}, chunks_refused{0}, chunked_dropped{0};
  std::atomic<std::uint64_t> chunks_sent{0};  // chunk NetworkMessages sent (in messages_sent too)
  std::atomic<std::uint64_t> network_messages_in{0};  // NetworkMessages (payloads, datagrams) that came for the readers

  // The connection's state (Part 14 §6.2.7): PreOperational until the broker first answers,
  // Operational while the broker (or the UDP socket) is there, Error while it is not, Disabled
  // after the Status's Disable.
  std::atomic<std::int32_t> state{static_cast<std::int32_t>(pubsub_state_value::pre_operational)};
  std::atomic<std::uint64_t> to_error{0};            // StateError
  std::atomic<std::uint64_t> from_error{0};          // StateOperationalFromError
  std::atomic<std::uint64_t> enabled_by_method{0};   // StateOperationalByMethod
  std::atomic<std::uint64_t> disabled_by_method{0};  // StateDisabledByMethod
  // Part 14 §9.1.10.3/4 Enable and Disable: the actor sends and takes nothing while false.
  std::atomic<bool> enabled{true};

  std::vector<pubsub_group_live> groups;
  std::vector<std::size_t> writer_base;  // per group: its first writer in `writers`
  std::vector<pubsub_writer_live> writers;
  std::vector<pubsub_reader_live> readers;

  pubsub_state_value connection_state() const noexcept { return static_cast<pubsub_state_value>(state.load(std::memory_order_relaxed)); }
  pubsub_writer_live* writer(std::size_t g, std::size_t w) noexcept {
    return g < writer_base.size() && writer_base[g] + w < writers.size() ? &writers[writer_base[g] + w] : nullptr;
  }
};

}  // namespace uactor::actors
