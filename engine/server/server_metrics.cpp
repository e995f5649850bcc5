#include "engine/server/server_metrics.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "engine/server/service_table.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "uactor/ua/variant.hpp"

namespace uactor::actors {

namespace {

// One counter per row of the service table (service_table.cpp), in its order, and "Other" last:
// "ReadRequest" -> "Read".
struct service_name_table {
  std::vector<std::string> names;
  std::vector<const char*> pointers;
  service_name_table() {
    for (const service_descriptor& d : service_table()) {
      std::string_view n = d.request_type->name;
      if (n.ends_with("Request")) n.remove_suffix(7);
      names.emplace_back(n);
    }
    names.emplace_back("Other");
    for (const std::string& n : names) pointers.push_back(n.c_str());
  }
};

const service_name_table& name_table() {
  static const service_name_table t;
  return t;
}

}  // namespace

std::span<const char* const> service_names() noexcept { return name_table().pointers; }

std::size_t service_index(const ua::extension_object& request) noexcept {
  return service_position(find_service(request));
}

ua::status_code service_result_of(std::span<const std::uint8_t> m) noexcept {
  // The encoding NodeId: TwoByte (2 bytes), FourByte (4), Numeric (7); a response type's id never
  // needs another form. Then Timestamp (8) and RequestHandle (4).
  static constexpr std::uint8_t id_size[3] = {2, 4, 7};
  if (m.empty() || m[0] > 2) return ua::status::good;
  const std::size_t at = id_size[m[0]] + 8 + 4;
  if (m.size() < at + 4) return ua::status::good;
  std::uint32_t v;
  std::memcpy(&v, m.data() + at, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);  // the wire is little endian
  return ua::status_code(v);
}

void host_counters::count_request(std::size_t service, std::span<const std::uint8_t> response) noexcept {
  requests_[service].add();
  const ua::status_code result = service_result_of(response);
  if (!result.is_bad()) return;
  const std::uint64_t key = ((static_cast<std::uint64_t>(service) << 32) | result.value()) + 1;
  std::size_t slot = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 57) % result_slots;
  for (std::size_t probe = 0; probe < result_slots; ++probe, slot = (slot + 1) % result_slots) {
    const std::uint64_t k = result_keys_[slot].load(std::memory_order_relaxed);
    if (k == key) return result_counts_[slot].add();
    if (k == 0) {
      result_keys_[slot].store(key, std::memory_order_release);
      return result_counts_[slot].add();
    }
  }
  results_not_kept_.add();
}

void host_counters::add_to(server_metrics& m) const {
  m.publish_cycles += publish_cycles.get();
  m.session_moves += session_moves.get();
  m.session_moves_refused += session_moves_refused.get();
  m.login_refused_backoff += login_refused_backoff.get();
  m.login_refused_user_locked += login_refused_user_locked.get();
  m.login_refused_address_locked += login_refused_address_locked.get();
  m.login_failures += login_failures.get();
  m.login_lockouts += login_lockouts.get();
  m.values_applied += values_applied.get();
  m.host_wait_ns += wait_ns.get();
  m.host_waits += waits.get();
  m.host_wait_max_ns = std::max({m.host_wait_max_ns, wait_max_ns.get(), wait_max_window.get()});
  m.host_mailbox_depth += mailbox_depth.get();
  m.sessions += sessions.get();
  m.subscriptions += subscriptions.get();
  m.monitored_items += monitored_items.get();
  m.alarms_raised += alarms_raised.get();
  m.alarms_chattering += alarms_chattering.get();
  m.alarm_rate += alarm_rate.get();
  m.alarm_rate_max += alarm_rate_max.get();
  const auto names = service_names();
  constexpr std::size_t none = ~std::size_t{0};
  std::array<std::size_t, max_services> by_index;  // into m.services (which grows: no pointers)
  by_index.fill(none);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::uint64_t n = requests_[i].get();
    if (n == 0) continue;
    by_index[i] = m.services.size();
    m.services.push_back(service_metrics{names[i], n, {}});
  }
  for (std::size_t s = 0; s < result_slots; ++s) {
    const std::uint64_t key = result_keys_[s].load(std::memory_order_acquire);
    if (key == 0) continue;
    const std::size_t service = static_cast<std::size_t>((key - 1) >> 32);
    const auto status = ua::status_code(static_cast<std::uint32_t>(key - 1));
    if (service < max_services && by_index[service] != none)
      m.services[by_index[service]].bad_results.emplace_back(status, result_counts_[s].get());
  }
}

void pubsub_counters::add_to(server_metrics& m) const {
  constexpr auto r = std::memory_order_relaxed;
  m.pubsub_messages_sent = messages_sent.load(r);
  m.pubsub_values_sent = values_sent.load(r);
  m.pubsub_messages_dropped = messages_dropped.load(r);
  m.pubsub_reconnects = reconnects.load(r);
  m.pubsub_queue_depth = static_cast<std::uint64_t>(std::max<std::int64_t>(0, queue_depth.load(r)));
  m.pubsub_connections_up = static_cast<std::uint64_t>(std::max<std::int64_t>(0, connections_up.load(r)));
  m.pubsub_messages_received = messages_received.load(r);
  m.pubsub_values_received = values_received.load(r);
  m.pubsub_decode_errors = decode_errors.load(r);
  m.pubsub_reader_timeouts = reader_timeouts.load(r);
  m.pubsub_sequence_gaps = sequence_gaps.load(r);
  m.pubsub_chunks_sent = chunks_sent.load(r);
  m.pubsub_chunked_received = chunked_received.load(r);
  m.pubsub_chunks_refused = chunks_refused.load(r);
  m.pubsub_chunked_dropped = chunked_dropped.load(r);
}

void history_counters::add_to(server_metrics& m) const {
  m.history_queue_depth = static_cast<std::uint64_t>(std::max<std::int64_t>(0, queued.load(std::memory_order_relaxed)));
  m.history_values_written = values_written.get();
  m.history_batches_written = batches_written.get();
  m.history_write_ns = write_ns.get();
  m.history_write_max_ns = write_max_ns.get();
  m.history_write_errors = write_errors.get();
  m.history_values_dropped = values_dropped.get() + spool_dropped.get();
  m.history_spool_values = spool_values.get();
  m.history_spool_bytes = spool_bytes.get();
}

std::shared_ptr<connection_counters> metrics_registry::open_connection(std::uint16_t endpoint) {
  auto c = std::make_shared<connection_counters>();
  c->endpoint = endpoint;
  std::lock_guard lock(mutex_);
  ++accepted_;
  if (endpoint >= accepted_by_endpoint_.size()) accepted_by_endpoint_.resize(endpoint + 1u, 0);
  ++accepted_by_endpoint_[endpoint];
  if (open_.size() >= sweep_at_) {
    fold_closed();
    sweep_at_ = std::max<std::size_t>(64, 2 * open_.size());  // amortized: O(1) per accept
  }
  open_.push_back(c);
  return c;
}

void metrics_registry::fold_closed() {
  // Closed connections' counts move into the totals (the broker wrote its last before `closed`).
  std::erase_if(open_, [this](const std::shared_ptr<connection_counters>& c) {
    if (!c->closed.load(std::memory_order_acquire)) return false;
    closed_received_ += c->bytes_received.get();
    closed_sent_ += c->bytes_sent.get();
    closed_renewals_ += c->renewals.get();
    closed_rejected_ += c->certificates_rejected.get();
    closed_wait_ns_ += c->wait_ns.get();
    closed_waits_ += c->waits.get();
    return true;
  });
}

server_metrics metrics_registry::snapshot() {
  server_metrics m;
  std::lock_guard lock(mutex_);
  fold_closed();
  m.connections_accepted = accepted_;
  m.connections_open = open_.size();
  m.bytes_received = closed_received_;
  m.bytes_sent = closed_sent_;
  m.channel_renewals = closed_renewals_;
  m.certificates_rejected = closed_rejected_;
  m.connection_wait_ns = closed_wait_ns_;
  m.connection_waits = closed_waits_;
  m.endpoints.resize(accepted_by_endpoint_.size());
  for (std::size_t i = 0; i < accepted_by_endpoint_.size(); ++i) m.endpoints[i].connections_accepted = accepted_by_endpoint_[i];
  for (const auto& c : open_) {
    if (c->endpoint < m.endpoints.size()) ++m.endpoints[c->endpoint].connections_open;
    m.bytes_received += c->bytes_received.get();
    m.bytes_sent += c->bytes_sent.get();
    m.channel_renewals += c->renewals.get();
    m.certificates_rejected += c->certificates_rejected.get();
    m.connection_mailbox_depth += c->mailbox_depth.get();
    m.connection_wait_ns += c->wait_ns.get();
    m.connection_waits += c->waits.get();
  }
  for (const auto& [endpoint, d] : wss_doors_) {
    if (endpoint >= m.endpoints.size()) m.endpoints.resize(endpoint + 1u);
    auto& e = m.endpoints[endpoint];
    e.wss_tls_failures = d->tls_failures.get();
    e.wss_upgrades_refused = d->upgrades_refused.get();
    e.wss_busy_refusals = d->busy_refusals.get();
  }
  for (const auto& r : reverse_)
    m.reverse_connects.push_back({r->client_url, r->dial_attempts.get(), r->connections.get(), r->failures.get(), r->open.get()});
  m.certificates = certificates_;
  host_.add_to(m);
  history_.add_to(m);
  pubsub_.add_to(m);
  return m;
}

std::shared_ptr<reverse_connect_counters> metrics_registry::add_reverse_target(std::string client_url) {
  auto c = std::make_shared<reverse_connect_counters>();
  c->client_url = std::move(client_url);
  std::lock_guard lock(mutex_);
  reverse_.push_back(c);
  return c;
}

std::shared_ptr<wss_door_counters> metrics_registry::add_wss_door(std::uint16_t endpoint) {
  auto c = std::make_shared<wss_door_counters>();
  std::lock_guard lock(mutex_);
  wss_doors_.emplace_back(endpoint, c);
  return c;
}

}  // namespace uactor::actors
