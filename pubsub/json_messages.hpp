// Part 14 §7.2.5 (1.05): the JSON NetworkMessage ("ua-data"), its DataSetMessages (key frames,
// delta frames, keep-alives) and the DataSetMetaData message ("ua-metadata"), written by
// `json_message_writer` into one reused string and read back by `read_network_message` /
// `read_metadata_message` over a bounded json_reader. No CAF, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pubsub/json_codec.hpp"
#include "pubsub/json_reader.hpp"
#include "uactor/ua/variant.hpp"

namespace uactor::pubsub {

// The MessageType of a DataSetMessage (Part 14 §7.2.5.4).
enum class dataset_message_type : std::uint8_t { key_frame, delta_frame, keep_alive };
std::string_view message_type_text(dataset_message_type t) noexcept;  // "ua-keyframe", ...

// ConfigurationVersionDataType (Part 14 §6.2.3.2.6): MetaDataVersion.
struct configuration_version {
  std::uint32_t major = 0;
  std::uint32_t minor = 0;
  friend bool operator==(const configuration_version&, const configuration_version&) = default;
};

// The header of one DataSetMessage as the writer fills it.
struct dataset_message_header {
  std::uint16_t writer_id = 0;
  std::string_view writer_name;  // written when not empty
  std::uint32_t sequence_number = 0;
  configuration_version version;
  ua::date_time timestamp;
  ua::status_code status;        // written when not Good
  dataset_message_type type = dataset_message_type::key_frame;
};

// Writes one NetworkMessage: begin, then per DataSetMessage begin_dataset, field..., end_dataset,
// then finish. The string keeps its capacity between messages.
class json_message_writer {
public:
  void begin(std::string_view message_id, std::string_view publisher_id, std::string_view writer_group_name);
  void begin_dataset(const dataset_message_header& h);
  void field(std::string_view name, const ua::data_value& v, field_encoding e);
  void end_dataset();
  std::string_view finish();
  std::string_view text() const noexcept { return out_; }
  std::string& buffer() noexcept { return out_; }

private:
  std::string out_;
  bool first_message_ = true;
  bool first_field_ = true;
  bool keep_alive_ = false;
};

// DataSetMetaDataType's field (Part 14 §6.2.3.2.3, FieldMetaData) as far as we describe it.
struct field_metadata {
  std::string name;
  ua::builtin_type type = ua::builtin_type::null;
  std::int32_t value_rank = -1;
  ua::node_id data_type;  // ns=0 built-in type id when not set
};

struct metadata_message {
  std::string message_id;
  std::string publisher_id;
  std::uint16_t writer_id = 0;
  std::string writer_group_name;
  std::string writer_name;
  ua::date_time timestamp;
  std::string dataset_name;
  std::vector<field_metadata> fields;
  configuration_version version;
};
// A "ua-metadata" message (Part 14 §7.2.5.5.2) into `out` (cleared first).
void write_metadata_message(std::string& out, const metadata_message& m);

// What a subscriber read. Optional header fields are std::nullopt when absent.
struct decoded_field {
  std::string name;               // empty in UADP, which carries positions (Part 14 §7.2.4.5.5)
  ua::data_value value;
  std::uint32_t index = 0;        // the field's position in the DataSet
};
struct decoded_dataset_message {
  std::optional<std::uint16_t> writer_id;
  std::string writer_name;
  std::string publisher_id;       // 1.05: in the DataSetMessage when there is no network header
  std::optional<std::uint32_t> sequence_number;
  std::uint8_t sequence_bits = 32;  // JSON's SequenceNumber is a UInt32, UADP's a UInt16
  std::optional<configuration_version> version;
  std::optional<ua::date_time> timestamp;
  ua::status_code status;         // Good when absent
  dataset_message_type type = dataset_message_type::key_frame;
  bool has_payload = false;
  std::vector<decoded_field> fields;
};
struct decoded_network_message {
  std::string message_id;
  std::string message_type;       // "ua-data"; empty for DataSetMessages without network header
  std::string publisher_id;
  std::string writer_group_name;
  std::optional<std::uint16_t> writer_group_id;  // UADP's GroupHeader
  std::vector<decoded_dataset_message> messages;
};

struct decode_limits {
  json_limits json;
  std::size_t max_dataset_messages = 1'000;  // per NetworkMessage
  std::size_t max_fields = 10'000;           // per DataSetMessage
};

// Reads a NetworkMessage (an object with Messages), or DataSetMessages sent without the network
// header (one object, or an array of them: Part 14 §7.2.5.3). Raw fields are read by JSON's own
// type (the reader converts to its target's). False with `error` set (text errors with line and
// column, schema errors with the member's path).
bool read_network_message(json_reader& r, std::string_view text, const decode_limits& limits,
                          decoded_network_message& out, json_error& error);
bool read_metadata_message(json_reader& r, std::string_view text, metadata_message& out, json_error& error);

}  // namespace uactor::pubsub
