// The server's counters (include/uactor/metrics.hpp). Each actor counts in a block of its own with
// one writer: relaxed loads and stores, no lock and no read-modify-write on the service path (an
// uncontended `lock add` still costs what a Read's bookkeeping costs, docs/caf-0.17-measured.md).
// A scrape (server::metrics()) sums the blocks on its own thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "uactor/ua/builtin_types.hpp"
#include "uactor/metrics.hpp"

namespace uactor::ua {
class extension_object;
}

namespace uactor::actors {

// A counter with one writer at a time (its actor; CAF's mailbox orders successive threads), read
// from any thread.
class local_counter {
public:
  void add(std::uint64_t n = 1) noexcept { v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed); }
  void set(std::uint64_t n) noexcept { v_.store(n, std::memory_order_relaxed); }
  std::uint64_t get() const noexcept { return v_.load(std::memory_order_relaxed); }

private:
  std::atomic<std::uint64_t> v_{0};
};

// One connection's block (its broker writes it).
struct connection_counters {
  local_counter bytes_received;
  local_counter bytes_sent;
  local_counter renewals;
  local_counter certificates_rejected;
  local_counter mailbox_depth;  // sampled at the housekeeping tick
  local_counter wait_ns;        // answered batches: from the host's send to the broker's start
  local_counter waits;
  std::atomic<bool> closed{false};  // set last: the registry folds the block into its totals
  std::uint16_t endpoint = 0;       // the endpoint (listener) it came through; set before it is shared
};

// One reverse-connect target's block (its dialer writes it).
struct reverse_connect_counters {
  std::string client_url;  // set before it is shared
  local_counter dial_attempts;
  local_counter connections;
  local_counter failures;
  local_counter open;
};

// One opc.wss door's block (its Asio thread writes it; the connections it hands over count as the
// endpoint's accepted connections).
struct wss_door_counters {
  local_counter tls_failures;
  local_counter upgrades_refused;
  local_counter busy_refusals;
};

// The services counted by name: one per row of the service table (service_table.hpp), then
// "Other"; the index of a request's service (service_index: its row's position, "Other" for a
// request type not in the table).
std::span<const char* const> service_names() noexcept;
std::size_t service_index(const ua::extension_object& request) noexcept;
inline constexpr std::size_t max_services = 40;

// The session host's block.
class host_counters {
public:
  // One request and, once its response is encoded, the ServiceResult in it (`response`: the
  // message as ua::encode_message wrote it; empty when answered later).
  void count_request(std::size_t service, std::span<const std::uint8_t> response) noexcept;

  local_counter publish_cycles;
  local_counter session_moves;          // sessions moved to another channel (ActivateSession)
  local_counter session_moves_refused;  // ActivateSessions from another channel refused
  // The login guard (docs/security.md "Login attempts"): ActivateSessions refused without checking
  // their token, by reason; tokens checked and wrong; lockouts started (user names and addresses).
  local_counter login_refused_backoff;
  local_counter login_refused_user_locked;
  local_counter login_refused_address_locked;
  local_counter login_failures;
  local_counter login_lockouts;
  local_counter values_applied;
  local_counter wait_ns;
  local_counter waits;
  local_counter wait_max_ns;     // since the last housekeeping tick (reset there)
  local_counter wait_max_window;  // what the last tick saw
  local_counter mailbox_depth;
  local_counter sessions;
  local_counter subscriptions;
  local_counter monitored_items;
  // Part 9 §8.2 (the Server's AlarmMetrics, as of the last tick): alarms raised and chattering
  // activations since the start (counters), alarms in the last 10 minutes and its maximum (gauges).
  local_counter alarms_raised;
  local_counter alarms_chattering;
  local_counter alarm_rate;
  local_counter alarm_rate_max;

  void add_to(server_metrics& m) const;

private:
  std::array<local_counter, max_services> requests_;
  // Bad ServiceResults by (service, status): an open-addressing table filled by the one writer;
  // a key is published before its count (a scrape may see a count of 0, never a wrong key).
  static constexpr std::size_t result_slots = 128;
  std::array<std::atomic<std::uint64_t>, result_slots> result_keys_{};  // (service << 32 | status) + 1; 0 empty
  std::array<local_counter, result_slots> result_counts_;
  local_counter results_not_kept_;  // the table was full
};

// The historian's block (docs/history.md): the queue between the session host and the historian
// actor, and what the actor wrote. `queued` has two writers (the host adds, the actor takes away):
// an atomic read-modify-write, once per batch of up to 1,000 values, not per request.
struct history_counters {
  std::atomic<std::int64_t> queued{0};  // batches handed to the historian and not yet written
  local_counter values_written;   // historian
  local_counter batches_written;  // historian
  local_counter write_ns;         // historian: the time in the store's append, summed
  local_counter write_max_ns;     // historian: the longest append
  local_counter write_errors;     // historian: batches the store refused (their values are lost)
  local_counter values_dropped;   // host: values refused because the queue was full
  local_counter spool_dropped;    // historian: values past the spool's bound (or in a damaged spool)
  local_counter spool_values;     // historian: values waiting in the on-disk spool (a gauge)
  local_counter spool_bytes;      // historian: the spool's bytes waiting (a gauge)

  void add_to(server_metrics& m) const;
};

// PubSub's block (docs/pubsub.md): written by the [pubsub] connections' actors, one writer per
// field per connection, hence atomic adds (once per NetworkMessage, not per value).
struct pubsub_counters {
  std::atomic<std::uint64_t> messages_sent{0};
  std::atomic<std::uint64_t> values_sent{0};
  std::atomic<std::uint64_t> messages_dropped{0};
  std::atomic<std::uint64_t> reconnects{0};
  std::atomic<std::int64_t> queue_depth{0};
  std::atomic<std::int64_t> connections_up{0};
  std::atomic<std::uint64_t> messages_received{0};
  std::atomic<std::uint64_t> values_received{0};
  std::atomic<std::uint64_t> decode_errors{0};
  std::atomic<std::uint64_t> reader_timeouts{0};
  std::atomic<std::uint64_t> sequence_gaps{0};
  std::atomic<std::uint64_t> chunks_sent{0};
  std::atomic<std::uint64_t> chunked_received{0};
  std::atomic<std::uint64_t> chunks_refused{0};
  std::atomic<std::uint64_t> chunked_dropped{0};

  void add_to(server_metrics& m) const;
};

// The server's blocks: the host's, and one per connection (kept until the next scrape or the
// next sweep at an accept after it closed, then folded into the totals of closed connections).
class metrics_registry {
public:
  // A connection accepted by endpoint `endpoint` (server_options::endpoints' order).
  std::shared_ptr<connection_counters> open_connection(std::uint16_t endpoint = 0);
  host_counters& host() noexcept { return host_; }
  history_counters& history() noexcept { return history_; }
  pubsub_counters& pubsub() noexcept { return pubsub_; }
  // A reverse-connect target's block, listed in snapshot() from now on (in the order added).
  std::shared_ptr<reverse_connect_counters> add_reverse_target(std::string client_url);
  // The opc.wss door of endpoint `endpoint`: its block, in snapshot()'s endpoints from now on.
  std::shared_ptr<wss_door_counters> add_wss_door(std::uint16_t endpoint);
  server_metrics snapshot();
  // The certificates watched for expiry, replaced whole at each look (the host's).
  void set_certificates(std::vector<certificate_expiry_metrics> c) {
    std::lock_guard lock(mutex_);
    certificates_ = std::move(c);
  }

private:
  void fold_closed();  // mutex_ held

  std::mutex mutex_;
  std::vector<std::shared_ptr<connection_counters>> open_;
  // open_connection sweeps once open_ reaches this: without scrapes (no metrics endpoint) the
  // closed connections' blocks would otherwise pile up, one per connection ever accepted.
  std::size_t sweep_at_ = 64;
  std::uint64_t accepted_ = 0;
  std::vector<std::uint64_t> accepted_by_endpoint_;
  std::uint64_t closed_received_ = 0, closed_sent_ = 0, closed_renewals_ = 0, closed_rejected_ = 0;
  std::uint64_t closed_wait_ns_ = 0, closed_waits_ = 0;
  host_counters host_;
  history_counters history_;
  pubsub_counters pubsub_;
  std::vector<std::shared_ptr<reverse_connect_counters>> reverse_;
  std::vector<std::pair<std::uint16_t, std::shared_ptr<wss_door_counters>>> wss_doors_;
  std::vector<certificate_expiry_metrics> certificates_;
};

// The ServiceResult of an encoded response message (encoding NodeId, then the ResponseHeader:
// Timestamp, RequestHandle, ServiceResult; Part 6 §5.2.2.9, Part 4 §7.33); Good when it is too short.
ua::status_code service_result_of(std::span<const std::uint8_t> message) noexcept;

}  // namespace uactor::actors
