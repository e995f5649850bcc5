// A WriterGroup as plain state (Part 14 §6.2.6): its DataSetWriters' last sampled values, their
// sequence numbers and key-frame counters, and the one NetworkMessage per PublishingInterval that
// carries their DataSetMessages, as JSON (Part 14 §7.2.5) or UADP (§7.2.4). The publisher actor (actors/pubsub/) sets values as the server's
// change path hands them over and calls cycle() on its timer. Nothing is allocated per value or per
// cycle once the first key frame has been written.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pubsub/json_messages.hpp"
#include "pubsub/pubsub_config.hpp"
#include "pubsub/uadp_messages.hpp"

namespace uactor::pubsub {

// One field of a writer's PublishedDataSet, resolved by the runtime.
struct resolved_field {
  std::string name;                 // the variable's BrowseName (unique in the writer)
  ua::builtin_type type = ua::builtin_type::null;
  std::int32_t value_rank = -1;
  ua::node_id data_type;
};
struct resolved_writer {
  dataset_writer_config config;
  std::vector<resolved_field> fields;
};

struct cycle_result {
  std::string_view message;         // the (first) NetworkMessage (JSON text or UADP bytes); empty: nothing to send
  // Every NetworkMessage of the cycle, `message` first: JSON's one; UADP's as many as the
  // message size limit needs, chunks included (Part 14 §7.2.4.4.4). Valid until the next cycle.
  std::span<const std::string_view> messages;
  std::string_view error;           // why a due NetworkMessage could not be written (UADP's limits)
  std::uint32_t dataset_messages = 0;
  std::uint32_t key_frames = 0, delta_frames = 0, keep_alives = 0;
  std::uint32_t values = 0;         // fields written
};

class writer_group_state {
public:
  // `publisher_id` is the PublisherId's text (a number's decimal for a numeric `id_type`, which
  // the configuration has checked).
  writer_group_state(std::string publisher_id, writer_group_config group, std::vector<resolved_writer> writers,
                     std::string message_id_prefix, message_encoding encoding = message_encoding::json,
                     publisher_id_type id_type = publisher_id_type::string);

  std::size_t writer_count() const noexcept { return writers_.size(); }
  const resolved_writer& writer(std::size_t w) const noexcept { return writers_[w].spec; }
  const writer_group_config& config() const noexcept { return group_; }
  const std::string& publisher_id() const noexcept { return publisher_; }
  message_encoding encoding() const noexcept { return encoding_; }

  // UADP: the largest NetworkMessage (MaxNetworkMessageSize, and over UDP the datagram's limit);
  // the group's max_network_message_size until set.
  void set_message_limit(std::size_t bytes) noexcept { limit_ = bytes; }
  std::size_t message_limit() const noexcept { return limit_; }
  // The latest value of field f of writer w (from the change path).
  void set(std::size_t w, std::size_t f, const ua::data_value& v);
  // One PublishingInterval: a DataSetMessage per writer whose key frame is due (every
  // KeyFrameCount cycles), that has changed fields (a delta frame), or whose keep-alive is due
  // (KeepAliveTime without a message); all in one NetworkMessage, or nothing.
  cycle_result cycle(ua::date_time now);
  // The writer's DataSetMetaData message (ua-metadata, JSON).
  void metadata(std::size_t w, ua::date_time now, std::string& out);

private:
  struct writer_state {
    resolved_writer spec;
    std::vector<ua::data_value> values;
    std::vector<bool> changed;
    std::uint32_t sequence = 0;       // the last SequenceNumber sent
    std::uint64_t cycles = 0;         // cycles run, for the key-frame count
    std::int64_t last_sent_ticks = 0; // for the keep-alive
    std::size_t changed_count = 0;
    bool any_changed = false;
    std::vector<uadp_raw_type> raw_types;  // the fields' metadata types, for RawData
  };
  // Which DataSetMessage writer `s` sends this cycle, if any.
  bool due(writer_state& s, ua::date_time now, dataset_message_type& type) const;
  cycle_result cycle_json(ua::date_time now);
  cycle_result cycle_uadp(ua::date_time now);

  std::string publisher_;
  writer_group_config group_;
  std::vector<writer_state> writers_;
  std::string id_prefix_;
  configuration_version version_{1, 0};  // MetaDataVersion: the configuration is fixed at start
  std::uint64_t message_counter_ = 0;
  std::string message_id_;
  json_message_writer out_;
  message_encoding encoding_ = message_encoding::json;
  uadp_publisher_id uadp_publisher_;
  uadp_message_writer uadp_;
  std::uint16_t uadp_sequence_ = 0;  // the GroupHeader's SequenceNumber, one per NetworkMessage
  std::size_t limit_ = 0;
  std::vector<std::span<const std::uint8_t>> uadp_parts_;
  std::vector<std::string_view> messages_;
};

}  // namespace uactor::pubsub
