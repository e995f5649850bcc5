#include "actors/pubsub/pubsub_actor.hpp"

#include <cstring>
#include <deque>
#include <span>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/common/self_send.hpp"
#include "actors/pubsub/mqtt_link.hpp"
#include "actors/pubsub/udp_link.hpp"
#include "pubsub/uadp_chunks.hpp"
#include "pubsub/uadp_messages.hpp"
#include "engine/common/clock.hpp"

namespace uactor::actors {

namespace {

enum class link_event : int { connected = 1, disconnected = 2, refused = 3 };

struct queued_message {
  std::uint32_t group = 0;
  std::string payload;
};

struct group_runtime {
  std::unique_ptr<pubsub::writer_group_state> state;
  std::string topic;  // data topic of the whole group (or of its one writer)
  std::vector<std::string> metadata_topics;
  std::chrono::steady_clock::time_point due{};
};

struct pubsub_state {
  pubsub_setup setup;
  std::shared_ptr<pubsub_connection_counters> counters;
  std::unique_ptr<mqtt_link> link;
  std::unique_ptr<udp_link> udp;
  std::vector<group_runtime> groups;
  std::vector<pubsub::dataset_reader_state> readers;
  std::deque<queued_message> queue;
  pubsub::json_reader json;
  pubsub::decoded_network_message decoded;
  std::vector<pubsub::target_write> writes;
  std::string metadata_text;
  // UADP in (docs/decisions/0059): the NetworkMessage's headers, and one DataSetMessage's fields
  // decoded per reader that takes it (RawData needs the reader's types).
  pubsub::uadp_network_message uadp_in;
  pubsub::decoded_network_message uadp_net;
  pubsub::decoded_dataset_message uadp_dsm;
  pubsub::uadp_limits uadp_limits;
  std::unique_ptr<pubsub::uadp_chunk_assembler> chunks;  // chunked DataSetMessages in (UDP readers)
  std::vector<bool> oversize_warned;  // per group: the first oversize NetworkMessage is a warning
  std::chrono::milliseconds retry_delay{0};
  bool up = false;
  bool ever_up = false;
  bool enabled = true;  // counters->enabled as the actor last followed it

  pubsub_counters* metrics() { return setup.metrics ? &setup.metrics->pubsub() : nullptr; }
};

std::int64_t pubsub_steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Readers' timer: a quarter of the shortest MessageReceiveTimeout, within 50 ms .. 1 s.
std::chrono::milliseconds check_interval(const pubsub::connection_config& c) {
  std::int64_t shortest = 1000 * 4;
  for (const auto& r : c.readers)
    if (r.message_receive_timeout.count() > 0) shortest = std::min<std::int64_t>(shortest, r.message_receive_timeout.count());
  return std::chrono::milliseconds(std::clamp<std::int64_t>(shortest / 4, 50, 1000));
}

// A NetworkMessage of group g that did not go: FailedTransmissions of the group, a failed
// DataSetMessage of each of its writers (Part 14 §9.1.11.8, §9.1.11.10).
void count_group_failed(pubsub_state& st, std::uint32_t g) {
  auto& c = *st.counters;
  if (g >= c.groups.size()) return;
  c.groups[g].failed.fetch_add(1, std::memory_order_relaxed);
  const std::size_t end = g + 1 < c.writer_base.size() ? c.writer_base[g + 1] : c.writers.size();
  for (std::size_t i = c.writer_base[g]; i < end; ++i) c.writers[i].failed.fetch_add(1, std::memory_order_relaxed);
}

void drop_oldest(pubsub_state& st) {
  count_group_failed(st, st.queue.front().group);
  st.queue.pop_front();
  st.counters->dropped.fetch_add(1, std::memory_order_relaxed);
  if (auto* m = st.metrics()) m->messages_dropped.fetch_add(1, std::memory_order_relaxed);
}

void set_queued(pubsub_state& st) {
  const auto n = static_cast<std::int64_t>(st.queue.size());
  const auto before = st.counters->queued.exchange(n, std::memory_order_relaxed);
  if (auto* m = st.metrics()) m->queue_depth.fetch_add(n - before, std::memory_order_relaxed);
}

void enqueue_network_message(pubsub_state& st, std::uint32_t group, std::string_view payload) {
  const std::size_t limit = std::max<std::size_t>(1, st.setup.config.mqtt.queue_limit);
  if (st.queue.size() >= limit) {
    // Reuse the oldest entry's storage for the newest.
    auto old = std::move(st.queue.front());
    drop_oldest(st);
    old.group = group;
    old.payload.assign(payload);
    st.queue.push_back(std::move(old));
  } else {
    st.queue.push_back({group, std::string(payload)});
  }
  set_queued(st);
}

void count_sent(pubsub_state& st, std::uint32_t g, std::uint32_t values) {
  st.counters->messages_sent.fetch_add(1, std::memory_order_relaxed);
  if (g < st.counters->groups.size()) st.counters->groups[g].sent.fetch_add(1, std::memory_order_relaxed);
  st.counters->values_sent.fetch_add(values, std::memory_order_relaxed);
  if (auto* m = st.metrics()) {
    m->messages_sent.fetch_add(1, std::memory_order_relaxed);
    m->values_sent.fetch_add(values, std::memory_order_relaxed);
  }
}

// Sends what waited, in order, while the broker takes it.
void flush_queue(pubsub_state& st) {
  while (st.up && !st.queue.empty()) {
    auto& q = st.queue.front();
    const auto& g = st.groups[q.group];
    const int rc = st.link->publish(g.topic, q.payload, g.state->config().qos, false);
    if (rc == 4 /* MOSQ_ERR_NO_CONN */) {
      st.up = false;
      break;
    }
    if (rc != 0) {
      spdlog::warn("pubsub {}: a queued message was not taken: {}", st.setup.config.name, mqtt_link::error_text(rc));
      drop_oldest(st);
      continue;
    }
    count_sent(st, q.group, 0);
    st.queue.pop_front();
  }
  set_queued(st);
}

void publish_metadata(pubsub_state& st) {
  // UADP's metadata would be a discovery announcement (Part 14 §7.2.4.6), not written yet; the
  // JSON DataSetMetaData does not belong under an opcua/uadp topic.
  if (st.setup.config.encoding == pubsub::message_encoding::uadp) return;
  const auto now = utc_now();
  for (std::size_t g = 0; g < st.groups.size(); ++g) {
    auto& gr = st.groups[g];
    for (std::size_t w = 0; w < gr.state->writer_count(); ++w) {
      gr.state->metadata(w, now, st.metadata_text);
      // Part 14 §7.3.5.7: metadata retained, so that a subscriber that comes later gets it at once.
      if (const int rc = st.link->publish(gr.metadata_topics[w], st.metadata_text, 1, true); rc != 0)
        spdlog::warn("pubsub {}: metadata not published: {}", st.setup.config.name, mqtt_link::error_text(rc));
    }
  }
}

void subscribe_readers(pubsub_state& st) {
  const auto& c = st.setup.config;
  for (const auto& r : c.readers) {
    // One level per topic element; '+' for a filter left open (the DataSetWriter level may be
    // there or not: '#' takes both).
    const std::string topic = pubsub::data_topic(c.mqtt, r.publisher_id.empty() ? "+" : r.publisher_id,
                                                 r.writer_group.empty() ? "+" : r.writer_group) + "/#";
    if (const int rc = st.link->subscribe(topic, 1); rc != 0)
      spdlog::warn("pubsub {}: subscribing to {} failed: {}", c.name, topic, mqtt_link::error_text(rc));
  }
}

void count_dropped(pubsub_state& st, std::uint32_t g) {
  count_group_failed(st, g);
  st.counters->dropped.fetch_add(1, std::memory_order_relaxed);
  if (auto* m = st.metrics()) m->messages_dropped.fetch_add(1, std::memory_order_relaxed);
}

// One NetworkMessage of group g; `values`: the fields it carries for the counters (a cycle's
// first message counts the cycle's).
void send_network_message(pubsub_state& st, std::uint32_t g, std::string_view message, std::uint32_t values) {
  auto& gr = st.groups[g];
  // MaxNetworkMessageSize (Part 14 §6.2.6.5), and over UDP the datagram's limit: UADP splits and
  // chunks to fit it (writer_group_state::set_message_limit); a JSON message over it is dropped.
  const bool udp = st.setup.transport == pubsub::transport_kind::udp;
  std::size_t limit = gr.state->config().max_network_message_size;
  if (udp) limit = std::min(limit, st.setup.config.udp.max_datagram);
  if (message.size() > limit) {
    count_dropped(st, g);
    st.counters->oversize.fetch_add(1, std::memory_order_relaxed);
    const auto level = st.oversize_warned[g] ? spdlog::level::debug : spdlog::level::warn;
    st.oversize_warned[g] = true;
    spdlog::log(level, "pubsub {}: writer group {}: a NetworkMessage of {} bytes is over the limit of {} "
                "(MaxNetworkMessageSize{}): dropped; split its writers over several groups",
                st.setup.config.name, gr.state->config().name, message.size(), limit, udp ? ", the datagram" : "");
    return;
  }
  if (udp) {
    if (!st.udp) return count_dropped(st, g);  // the socket could not be opened (logged at start)
    const auto bytes = std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(message.data()), message.size());
    if (const int rc = st.udp->send(bytes); rc != 0) {
      count_dropped(st, g);
      spdlog::debug("pubsub {}: a datagram was not sent: {}", st.setup.config.name, std::strerror(rc));
      return;
    }
    return count_sent(st, g, values);
  }
  if (st.up && st.queue.empty()) {
    const int rc = st.link->publish(gr.topic, message, gr.state->config().qos, false);
    if (rc == 0) return count_sent(st, g, values);
    if (rc != 4 /* MOSQ_ERR_NO_CONN */) {
      count_dropped(st, g);
      spdlog::warn("pubsub {}: publish failed: {}", st.setup.config.name, mqtt_link::error_text(rc));
      return;
    }
    st.up = false;
  }
  enqueue_network_message(st, g, message);
  // The values count when the message leaves; a queued message counts its values now.
  st.counters->values_sent.fetch_add(values, std::memory_order_relaxed);
  if (auto* m = st.metrics()) m->values_sent.fetch_add(values, std::memory_order_relaxed);
}

void on_group_tick(pubsub_state& st, std::uint32_t g) {
  auto& gr = st.groups[g];
  const auto res = gr.state->cycle(utc_now());
  if (!res.error.empty()) {
    count_dropped(st, g);
    spdlog::warn("pubsub {}: writer group {}: a NetworkMessage was not written: {}", st.setup.config.name,
                 gr.state->config().name, res.error);
    return;
  }
  if (res.messages.empty()) return;
  for (std::size_t i = 0; i < res.messages.size(); ++i) {
    const auto m = res.messages[i];
    // UADP's ExtendedFlags1 bit 7 and ExtendedFlags2 bit 0 (Part 14 §7.2.4.4.2): a chunk.
    if (gr.state->encoding() == pubsub::message_encoding::uadp && m.size() > 2 && (m[0] & 0x80) && (m[1] & 0x80) &&
        (m[2] & 0x01)) {
      st.counters->chunks_sent.fetch_add(1, std::memory_order_relaxed);
      if (auto* mt = st.metrics()) mt->chunks_sent.fetch_add(1, std::memory_order_relaxed);
    }
    send_network_message(st, g, m, i == 0 ? res.values : 0);
  }
}

void deliver_target_writes(pubsub_state& st, std::size_t reader) {
  if (st.writes.empty()) return;
  if (st.setup.targets) st.setup.targets(reader, st.writes);
  st.writes.clear();
}

void count_decode_error(pubsub_state& st) {
  st.counters->decode_errors.fetch_add(1, std::memory_order_relaxed);
  if (auto* m = st.metrics()) m->decode_errors.fetch_add(1, std::memory_order_relaxed);
}

// What reader r took since `before`, into the counters and the metrics.
void count_taken(pubsub_state& st, const pubsub::reader_counters& before, const pubsub::reader_counters& after) {
  const auto taken = after.messages - before.messages;
  const auto values = after.values - before.values;
  const auto gaps = after.gaps - before.gaps;
  st.counters->received.fetch_add(taken, std::memory_order_relaxed);
  st.counters->values_received.fetch_add(values, std::memory_order_relaxed);
  st.counters->gaps.fetch_add(gaps, std::memory_order_relaxed);
  if (auto* m = st.metrics()) {
    m->messages_received.fetch_add(taken, std::memory_order_relaxed);
    m->values_received.fetch_add(values, std::memory_order_relaxed);
    m->sequence_gaps.fetch_add(gaps, std::memory_order_relaxed);
  }
}

void on_uadp(pubsub_state& st, std::span<const std::uint8_t> bytes, std::string_view from);

// Reader r took DataSetMessage m: its LiveValues (Part 14 §9.1.11.11).
void note_taken(pubsub_state& st, std::size_t r, const pubsub::decoded_dataset_message& m) {
  if (r >= st.counters->readers.size()) return;
  auto& l = st.counters->readers[r];
  if (m.sequence_number) l.sequence.store(*m.sequence_number, std::memory_order_relaxed);
  l.status.store(m.status.value(), std::memory_order_relaxed);
  if (m.version) {
    l.major.store(m.version->major, std::memory_order_relaxed);
    l.minor.store(m.version->minor, std::memory_order_relaxed);
  }
}

// Reader r's state as the PublishSubscribe object shows it (Part 14 §6.2.9): PreOperational
// until its first DataSetMessage, Error past MessageReceiveTimeout; transitions counted.
void update_reader_live(pubsub_state& st, std::size_t r) {
  if (r >= st.counters->readers.size()) return;
  auto& l = st.counters->readers[r];
  const auto& reader = st.readers[r];
  l.messages.store(reader.counters().messages, std::memory_order_relaxed);
  const auto now = reader.state() == pubsub::reader_state_kind::error ? pubsub_state_value::error
                   : reader.counters().messages > 0                   ? pubsub_state_value::operational
                                                                      : pubsub_state_value::pre_operational;
  const auto before = static_cast<pubsub_state_value>(l.state.exchange(static_cast<std::int32_t>(now), std::memory_order_relaxed));
  if (before == now) return;
  if (now == pubsub_state_value::error) l.to_error.fetch_add(1, std::memory_order_relaxed);
  if (before == pubsub_state_value::error && now == pubsub_state_value::operational) l.from_error.fetch_add(1, std::memory_order_relaxed);
}

void count_reader_failed(pubsub_state& st, std::size_t r) {
  if (r < st.counters->readers.size()) st.counters->readers[r].failed.fetch_add(1, std::memory_order_relaxed);
}

// The WriterGroup level of a data topic, <prefix>/data/<PublisherId>/<WriterGroup>[/...] (Part 14
// §7.3.5.7): UADP carries the WriterGroupId, the topic the name a reader may filter on.
std::string_view topic_writer_group(const pubsub::mqtt_settings& m, std::string_view topic) {
  const std::string head = m.topic_prefix + "/data/";
  if (topic.substr(0, head.size()) != head) return {};
  topic.remove_prefix(head.size());
  const auto slash = topic.find('/');
  if (slash == std::string_view::npos) return {};
  topic.remove_prefix(slash + 1);
  return topic.substr(0, topic.find('/'));
}

void on_inbound(pubsub_state& st, const pubsub_inbound& in) {
  // Part 14 §9.1.10.4: a disabled connection takes nothing.
  if (!st.counters->enabled.load(std::memory_order_relaxed)) return;
  st.counters->network_messages_in.fetch_add(1, std::memory_order_relaxed);
  if (st.setup.config.encoding == pubsub::message_encoding::uadp) {
    st.uadp_net.writer_group_name.assign(topic_writer_group(st.setup.config.mqtt, in.topic));
    return on_uadp(st, std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(in.payload.data()), in.payload.size()),
                   in.topic);
  }
  pubsub::json_error error;
  if (!pubsub::read_network_message(st.json, in.payload, {}, st.decoded, error)) {
    count_decode_error(st);
    spdlog::debug("pubsub {}: a message on {} did not decode: {} ({})", st.setup.config.name, in.topic, error.to_string(),
                  error.status.to_string());
    return;
  }
  const auto now = pubsub_steady_ms();
  for (std::size_t r = 0; r < st.readers.size(); ++r) {
    auto& reader = st.readers[r];
    const auto before = reader.counters();
    for (const auto& m : st.decoded.messages) {
      if (!reader.accepts(st.decoded, m)) continue;
      const auto taken = reader.counters().messages;
      reader.take(m, now, st.writes);
      if (reader.counters().messages != taken) note_taken(st, r, m);
    }
    count_taken(st, before, reader.counters());
    update_reader_live(st, r);
    deliver_target_writes(st, r);
  }
}

// One DataSetMessage of a UADP NetworkMessage (or reassembled from chunks): its fields read for
// each reader that takes it (RawData needs the reader's types).
void take_uadp_dataset_message(pubsub_state& st, const pubsub::uadp_dataset_message& dsm, std::int64_t now) {
  if (!dsm.valid) return;  // Table 162, DataSetFlags1 bit 0: not to be processed
  auto& net = st.uadp_net;
  auto& m = st.uadp_dsm;
  m.writer_id = dsm.writer_id;
  m.sequence_number.reset();
  if (dsm.sequence_number) m.sequence_number = *dsm.sequence_number;
  m.sequence_bits = 16;
  m.timestamp = dsm.timestamp;
  m.status = dsm.status;
  m.type = dsm.type;
  m.version.reset();
  if (dsm.major_version && dsm.minor_version) m.version = pubsub::configuration_version{*dsm.major_version, *dsm.minor_version};
  m.has_payload = dsm.type != pubsub::dataset_message_type::keep_alive;
  pubsub::uadp_error error;
  for (std::size_t r = 0; r < st.readers.size(); ++r) {
    auto& reader = st.readers[r];
    if (!reader.accepts(net, m)) continue;
    if (!pubsub::read_uadp_fields(dsm, reader.raw_types(), st.uadp_limits, m.fields, error)) {
      count_decode_error(st);
      count_reader_failed(st, r);
      spdlog::debug("pubsub {}: reader {}: a DataSetMessage of writer {} did not decode: {} ({})", st.setup.config.name,
                    reader.config().name, dsm.writer_id, error.to_string(), error.status.to_string());
      continue;
    }
    const auto before = reader.counters();
    reader.take(m, now, st.writes);
    if (reader.counters().messages != before.messages) note_taken(st, r, m);
    count_taken(st, before, reader.counters());
    update_reader_live(st, r);
    deliver_target_writes(st, r);
  }
}

void count_chunks_dropped(pubsub_state& st, std::uint64_t before) {
  if (const auto n = st.chunks->counters().dropped - before; n > 0) {
    st.counters->chunked_dropped.fetch_add(n, std::memory_order_relaxed);
    if (auto* m = st.metrics()) m->chunked_dropped.fetch_add(n, std::memory_order_relaxed);
    spdlog::debug("pubsub {}: {} chunked DataSetMessages dropped incomplete", st.setup.config.name, n);
  }
}

// A chunk NetworkMessage (Part 14 §7.2.4.4.4): into the assembler when a reader takes its writer;
// the whole DataSetMessage, once its chunks are in, is read like any other.
void on_chunk(pubsub_state& st, const pubsub::uadp_chunk& chunk, std::int64_t now) {
  auto& m = st.uadp_dsm;
  m.writer_id = chunk.writer_id;
  bool wanted = false;
  for (const auto& reader : st.readers) wanted = wanted || reader.accepts(st.uadp_net, m);
  if (!wanted) return;  // Table 141: a Subscriber skips the writers it does not expect
  if (!st.chunks) {
    const auto& u = st.setup.config.udp;
    pubsub::uadp_chunk_limits limits;
    limits.max_total_size = u.max_chunked_message_size;
    limits.per_writer = u.chunks_in_flight;
    limits.timeout_ms = u.chunk_timeout.count();
    st.chunks = std::make_unique<pubsub::uadp_chunk_assembler>(limits);
  }
  pubsub::uadp_error error;
  const auto dropped = st.chunks->counters().dropped;
  const auto got = st.chunks->add(st.uadp_net.publisher_id, st.uadp_net.writer_group_id.value_or(0), chunk, now, error);
  count_chunks_dropped(st, dropped);
  if (got == pubsub::uadp_chunk_assembler::outcome::refused) {
    count_decode_error(st);
    st.counters->chunks_refused.fetch_add(1, std::memory_order_relaxed);
    if (auto* m = st.metrics()) m->chunks_refused.fetch_add(1, std::memory_order_relaxed);
    spdlog::debug("pubsub {}: a chunk of writer {} refused: {} ({})", st.setup.config.name, chunk.writer_id,
                  error.to_string(), error.status.to_string());
    return;
  }
  if (got != pubsub::uadp_chunk_assembler::outcome::complete) return;
  st.counters->chunked_received.fetch_add(1, std::memory_order_relaxed);
  if (auto* m = st.metrics()) m->chunked_received.fetch_add(1, std::memory_order_relaxed);
  pubsub::uadp_dataset_message dsm;
  if (!pubsub::read_uadp_dataset_message(st.chunks->payload(), chunk.writer_id, dsm, error)) {
    count_decode_error(st);
    spdlog::debug("pubsub {}: a reassembled DataSetMessage of writer {} did not decode: {} ({})", st.setup.config.name,
                  chunk.writer_id, error.to_string(), error.status.to_string());
    return;
  }
  take_uadp_dataset_message(st, dsm, now);
}

// A UADP NetworkMessage (Part 14 §7.2.4), a datagram or an MQTT payload (§7.3.5): the headers
// once, then each DataSetMessage (or the chunk).
void on_uadp(pubsub_state& st, std::span<const std::uint8_t> bytes, std::string_view from) {
  pubsub::uadp_error error;
  // Part 14 §9.1.10.4: a disabled connection takes nothing.
  if (!st.counters->enabled.load(std::memory_order_relaxed)) return;
  if (from.empty()) st.counters->network_messages_in.fetch_add(1, std::memory_order_relaxed);  // MQTT's counted in on_inbound
  if (!pubsub::read_uadp_network_message(bytes, st.uadp_limits, st.uadp_in, error)) {
    count_decode_error(st);
    spdlog::debug("pubsub {}: a UADP NetworkMessage of {} bytes{}{} did not decode: {} ({})", st.setup.config.name, bytes.size(),
                  from.empty() ? "" : " on ", from, error.to_string(), error.status.to_string());
    return;
  }
  auto& net = st.uadp_net;
  net.publisher_id = st.uadp_in.publisher_id ? st.uadp_in.publisher_id->to_text() : std::string();
  net.writer_group_id = st.uadp_in.writer_group_id;
  const auto now = pubsub_steady_ms();
  if (st.uadp_in.chunk) return on_chunk(st, *st.uadp_in.chunk, now);
  for (const auto& dsm : st.uadp_in.messages) take_uadp_dataset_message(st, dsm, now);
}

void on_datagram(pubsub_state& st, const pubsub_datagram& in) { on_uadp(st, in.bytes, {}); }

// The connection's state from the link and the Status methods (Part 14 §6.2.1): Disabled while
// disabled; else Operational with the link up, Error without it (a broker down, a socket that
// would not open); transitions counted.
void update_connection_state(pubsub_state& st) {
  auto& c = *st.counters;
  const auto now = !c.enabled.load(std::memory_order_relaxed) ? pubsub_state_value::disabled
                   : st.up                                      ? pubsub_state_value::operational
                                                                : pubsub_state_value::error;
  const auto before = static_cast<pubsub_state_value>(c.state.exchange(static_cast<std::int32_t>(now), std::memory_order_relaxed));
  if (before == now) return;
  if (now == pubsub_state_value::error) c.to_error.fetch_add(1, std::memory_order_relaxed);
  if (before == pubsub_state_value::error && now == pubsub_state_value::operational) c.from_error.fetch_add(1, std::memory_order_relaxed);
}

void set_link_up(pubsub_state& st, bool up) {
  if (st.counters->up.exchange(up) != up)
    if (auto* m = st.metrics()) m->connections_up.fetch_add(up ? 1 : -1, std::memory_order_relaxed);
  st.up = up;
  update_connection_state(st);
}

// After the Status's Enable (Part 14 §9.1.10.3): the readers' MessageReceiveTimeout starts again,
// as at start; nothing sent or taken while disabled is made up for.
void follow_enabled(pubsub_state& st) {
  const bool enabled = st.counters->enabled.load(std::memory_order_relaxed);
  if (enabled == st.enabled) return;
  st.enabled = enabled;
  if (enabled) {
    const auto now = pubsub_steady_ms();
    for (auto& r : st.readers) r.start(now);
  }
  update_connection_state(st);
}

caf::behavior pubsub_actor(caf::event_based_actor* self, std::shared_ptr<pubsub_state> st) {
  self->set_down_handler([self](const caf::down_msg&) { self->quit(); });
  self->set_exception_handler([st](caf::scheduled_actor*, std::exception_ptr& e) -> caf::error {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      spdlog::error("pubsub {}: {}", st->setup.config.name, x.what());
    }
    return caf::exit_reason::unhandled_exception;
  });
  self->attach_functor([st] {
    // End the link (and its thread) here, with the actor: nothing is sent to it afterwards.
    st->link.reset();
    st->udp.reset();
    if (st->counters->up.exchange(false))
      if (auto* m = st->metrics()) m->connections_up.fetch_sub(1, std::memory_order_relaxed);
    if (auto* m = st->metrics()) m->queue_depth.fetch_sub(st->counters->queued.exchange(0), std::memory_order_relaxed);
  });
  const auto& c = st->setup.config;
  const auto weak = caf::actor_cast<caf::weak_actor_ptr>(self);
  const auto tell = [weak](auto&&... xs) {
    if (auto strong = weak.lock()) caf::anon_send(caf::actor_cast<caf::actor>(strong), std::forward<decltype(xs)>(xs)...);
  };
  st->oversize_warned.assign(st->groups.size(), false);
  if (st->setup.transport == pubsub::transport_kind::udp) {
    udp_link::events uev;
    if (!c.readers.empty())
      uev.datagram = [tell](std::vector<std::uint8_t> bytes) {
        tell(std::make_shared<const pubsub_datagram>(pubsub_datagram{std::move(bytes)}));
      };
    uev.oversize = [counters = st->counters, name = c.name](std::size_t size) {
      counters->decode_errors.fetch_add(1, std::memory_order_relaxed);
      spdlog::debug("pubsub {}: a datagram of {} bytes is larger than max_datagram: dropped", name, size);
    };
    st->udp = std::make_unique<udp_link>(c.udp, st->setup.host, st->setup.port, std::move(uev));
    st->uadp_limits.max_message_size = c.udp.max_datagram;
    std::string why;
    if (!st->udp->open(!c.writer_groups.empty(), !c.readers.empty(), why)) {
      spdlog::error("pubsub {}: {} cannot be used: {}", c.name, c.url, why);
      st->udp.reset();
      update_connection_state(*st);
    } else {
      st->counters->udp_port.store(st->udp->bound_port());
      set_link_up(*st, true);
      spdlog::info("pubsub {}: UDP {} {}:{}{}", c.name, st->udp->multicast() ? "multicast" : "unicast", st->setup.host,
                   st->setup.port, c.readers.empty() ? "" : fmt::format(" (readers bound to port {})", st->udp->bound_port()));
    }
  } else {
    mqtt_link::events ev;
    ev.connected = [tell] { tell(pubsub_link_atom::value, static_cast<int>(link_event::connected), 0); };
    ev.disconnected = [tell](int rc) { tell(pubsub_link_atom::value, static_cast<int>(link_event::disconnected), rc); };
    ev.refused = [tell](int rc) { tell(pubsub_link_atom::value, static_cast<int>(link_event::refused), rc); };
    if (!c.readers.empty())
      ev.message = [tell](std::string topic, std::string payload) {
        tell(std::make_shared<const pubsub_inbound>(pubsub_inbound{std::move(topic), std::move(payload)}));
      };
    st->link = std::make_unique<mqtt_link>(c.mqtt, st->setup.host, st->setup.port, std::move(ev));
    // UADP payloads through the broker: as large as JSON's are allowed (docs/pubsub.md).
    st->uadp_limits.max_message_size = 1 << 20;
    st->retry_delay = c.mqtt.reconnect_min;
    if (!st->link->start()) {
      update_connection_state(*st);  // Error: the broker is not there
      spdlog::warn("pubsub {}: broker {}:{} not reachable; retrying", c.name, st->setup.host, st->setup.port);
      delayed_send_to_self(self, st->retry_delay, pubsub_retry_atom::value);
    }
  }
  const auto start = std::chrono::steady_clock::now();
  for (std::uint32_t g = 0; g < st->groups.size(); ++g) {
    st->groups[g].due = start + st->groups[g].state->config().publishing_interval;
    delayed_send_to_self(self, st->groups[g].state->config().publishing_interval, pubsub_tick_atom::value, g);
  }
  const auto now = pubsub_steady_ms();
  for (auto& r : st->readers) r.start(now);
  if (!st->readers.empty()) delayed_send_to_self(self, check_interval(c), pubsub_check_atom::value);
  return {
      [st](const pubsub_changes_ptr& p) {
        for (const auto& ch : p->changes) {
          if (ch.slot >= st->setup.slots.size()) continue;
          const auto& s = st->setup.slots[ch.slot];
          st->groups[s.group].state->set(s.writer, s.field, ch.value);
        }
      },
      [self, st](pubsub_tick_atom, std::uint32_t g) {
        if (g >= st->groups.size()) return;
        follow_enabled(*st);
        if (st->enabled) on_group_tick(*st, g);
        // The next cycle on the group's own grid: a late tick does not push the later ones back.
        auto& gr = st->groups[g];
        const auto interval = gr.state->config().publishing_interval;
        const auto now = std::chrono::steady_clock::now();
        gr.due += interval;
        if (gr.due < now) gr.due = now + interval;  // fell behind by more than a cycle: skip, do not burst
        delayed_send_to_self(self, std::chrono::duration_cast<std::chrono::microseconds>(gr.due - now), pubsub_tick_atom::value, g);
      },
      [st](pubsub_link_atom, int event, int rc) {
        const auto& name = st->setup.config.name;
        switch (static_cast<link_event>(event)) {
          case link_event::connected:
            if (st->ever_up) {
              st->counters->reconnects.fetch_add(1, std::memory_order_relaxed);
              if (auto* m = st->metrics()) m->reconnects.fetch_add(1, std::memory_order_relaxed);
            }
            st->counters->connects.fetch_add(1, std::memory_order_relaxed);
            spdlog::info("pubsub {}: connected to {}:{}{}", name, st->setup.host, st->setup.port,
                         st->queue.empty() ? "" : fmt::format(" ({} messages waited)", st->queue.size()));
            st->ever_up = true;
            set_link_up(*st, true);
            publish_metadata(*st);
            subscribe_readers(*st);
            flush_queue(*st);
            break;
          case link_event::disconnected:
            if (st->up) spdlog::warn("pubsub {}: lost the broker ({}); reconnecting", name, rc);
            set_link_up(*st, false);
            break;
          case link_event::refused:
            spdlog::error("pubsub {}: the broker refused the connection (CONNACK {})", name, rc);
            set_link_up(*st, false);
            break;
        }
      },
      [self, st](pubsub_retry_atom) {
        if (!st->link || st->link->start()) return;
        st->retry_delay = std::min(st->retry_delay * 2, st->setup.config.mqtt.reconnect_max);
        delayed_send_to_self(self, st->retry_delay, pubsub_retry_atom::value);
      },
      [st](const pubsub_inbound_ptr& in) { on_inbound(*st, *in); },
      [st](const pubsub_datagram_ptr& in) { on_datagram(*st, *in); },
      [self, st](pubsub_check_atom) {
        follow_enabled(*st);
        if (!st->enabled) return delayed_send_to_self(self, check_interval(st->setup.config), pubsub_check_atom::value);
        const auto now = pubsub_steady_ms();
        const auto utc = utc_now();
        if (st->chunks) {
          const auto dropped = st->chunks->counters().dropped;
          st->chunks->expire(now);
          count_chunks_dropped(*st, dropped);
        }
        for (std::size_t r = 0; r < st->readers.size(); ++r) {
          const auto before = st->readers[r].counters().timeouts;
          st->readers[r].check_timeout(now, utc, st->writes);
          if (st->readers[r].counters().timeouts != before) {
            spdlog::warn("pubsub {}: reader {} heard nothing for {} ms: its targets are Bad_NoCommunication",
                         st->setup.config.name, st->setup.config.readers[r].name,
                         st->setup.config.readers[r].message_receive_timeout.count());
            st->counters->timeouts.fetch_add(1, std::memory_order_relaxed);
            if (auto* m = st->metrics()) m->reader_timeouts.fetch_add(1, std::memory_order_relaxed);
          }
          update_reader_live(*st, r);
          deliver_target_writes(*st, r);
        }
        delayed_send_to_self(self, check_interval(st->setup.config), pubsub_check_atom::value);
      },
      [self](pubsub_bind_atom, const caf::actor& owner) { self->monitor(owner); },
  };
}

}  // namespace

pubsub_connection spawn_pubsub_connection(caf::actor_system& sys, pubsub_setup setup) {
  auto st = std::make_shared<pubsub_state>();
  const auto& c = setup.config;
  std::vector<std::size_t> writers_per_group;
  for (const auto& g : c.writer_groups) writers_per_group.push_back(g.writers.size());
  st->counters = std::make_shared<pubsub_connection_counters>(writers_per_group, c.readers.size());
  for (std::size_t g = 0; g < c.writer_groups.size() && g < setup.groups.size(); ++g) {
    const auto& gc = c.writer_groups[g];
    group_runtime gr;
    // One writer: its topic names it; several: the group's topic (Part 14 §7.3.5.7).
    gr.topic = pubsub::data_topic(c.mqtt, c.publisher_id, gc.name, gc.writers.size() == 1 ? gc.writers[0].name : "");
    for (const auto& w : gc.writers) gr.metadata_topics.push_back(pubsub::metadata_topic(c.mqtt, c.publisher_id, gc.name, w.name));
    gr.state = std::make_unique<pubsub::writer_group_state>(c.publisher_id, gc, setup.groups[g],
                                                            setup.message_id_prefix + "-" + gc.name, c.encoding,
                                                            c.publisher_id_kind);
    // UADP over UDP: NetworkMessages within the datagram too (split and chunked to fit).
    if (setup.transport == pubsub::transport_kind::udp)
      gr.state->set_message_limit(std::min<std::size_t>(gc.max_network_message_size, c.udp.max_datagram));
    st->groups.push_back(std::move(gr));
  }
  for (std::size_t r = 0; r < c.readers.size(); ++r)
    st->readers.emplace_back(c.readers[r], r < setup.reader_types.size() ? setup.reader_types[r] : std::vector<ua::builtin_type>{},
                             r < setup.reader_arrays.size() ? setup.reader_arrays[r] : std::vector<bool>{});
  st->setup = std::move(setup);
  pubsub_connection out;
  out.counters = st->counters;
  out.actor = sys.spawn<caf::detached>(pubsub_actor, st);
  out.sink = [a = out.actor](watched_changes&& changes) {
    auto p = std::make_shared<pubsub_changes>();
    p->changes = std::move(changes);
    caf::anon_send(a, pubsub_changes_ptr(std::move(p)));
  };
  return out;
}

}  // namespace uactor::actors
