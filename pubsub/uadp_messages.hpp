// Part 14 §7.2.4 (1.05): the UADP NetworkMessage, its GroupHeader and PayloadHeader, and its
// DataSetMessages (key frames, delta frames, keep-alives; Variant, RawData and DataValue fields),
// written by `uadp_message_writer` into reused buffers and read back by a bounded decoder that
// never reads past the datagram. Chunked NetworkMessages (ExtendedFlags2 bit 0), message security
// (ExtendedFlags1 bit 4) and the discovery message types are refused with their reason. No CAF,
// no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/byte_buffer.hpp"
#include "protocol/codec.hpp"
#include "pubsub/json_messages.hpp"
#include "uactor/pubsub.hpp"

namespace uactor::pubsub {

// Part 14 §7.2.4.4.2, Table 154: the UADPVersion in bits 0-3 of the first byte.
inline constexpr std::uint8_t uadp_version = 1;

// The PublisherId as the wire carries it: a number of a given width, or a String.
struct uadp_publisher_id {
  publisher_id_type type = publisher_id_type::string;
  std::uint64_t number = 0;  // Byte, UInt16, UInt32, UInt64
  std::string text;          // String
  // The String, or the number without leading zeros (Part 14 §7.2.5.3 converts it so too).
  std::string to_text() const;
};
// `text` as a PublisherId of `type` (a number must fit the type). False when it does not.
bool make_publisher_id(std::string_view text, publisher_id_type type, uadp_publisher_id& out);

// A field's type for the RawData encoding (Part 14 §7.2.4.5.11): the DataSetMetaData's built-in
// type and whether it is a one-dimensional array. `null` is BaseDataType: the field is a Variant.
struct uadp_raw_type {
  ua::builtin_type type = ua::builtin_type::null;
  bool array = false;
};

// Writes one NetworkMessage: begin, then per DataSetMessage begin_dataset, field..., end_dataset,
// then finish. Both buffers keep their capacity between messages: nothing is allocated per value
// once they have grown to the largest message.
//
// What it emits (the flags are fixed by the configuration, Part 14 §7.2.4.4.2): UADPFlags with the
// PublisherId, the GroupHeader and the PayloadHeader; ExtendedFlags1 when the PublisherId is not a
// Byte; the GroupHeader with WriterGroupId, GroupVersion, NetworkMessageNumber and SequenceNumber;
// no network Timestamp, PicoSeconds, DataSetClassId, PromotedFields or security. Each
// DataSetMessage has DataSetFlags1 (valid, the field encoding, SequenceNumber, Status, Major and
// Minor version) and DataSetFlags2 (the message type, Timestamp).
class uadp_message_writer {
public:
  struct group_header {
    std::uint16_t writer_group_id = 0;
    std::uint32_t group_version = 0;
    std::uint16_t network_message_number = 1;
    std::uint16_t sequence_number = 0;
  };
  void begin(const uadp_publisher_id& publisher, const group_header& group);
  // `field_count`: the fields that follow (a key frame's all; a delta frame's changed ones).
  void begin_dataset(const dataset_message_header& h, field_encoding e);
  // The field at `index` of the DataSet; `raw` is its metadata type (used by RawData only).
  void field(std::uint16_t index, const ua::data_value& v, const uadp_raw_type& raw);
  void end_dataset();
  // The NetworkMessage, or empty with `error()` set: more than 255 DataSetMessages, or one larger
  // than 65,535 bytes among several (the Sizes array is UInt16, Part 14 §7.2.4.5.3).
  std::span<const std::uint8_t> finish();
  const std::string& error() const noexcept { return error_; }

private:
  ua::byte_buffer out_;
  ua::byte_buffer payload_;  // the DataSetMessages, behind the header once their ids are known
  std::vector<std::uint16_t> writer_ids_;
  std::vector<std::size_t> sizes_;
  uadp_publisher_id publisher_;
  group_header group_;
  std::size_t dataset_start_ = 0;
  std::size_t count_at_ = 0;  // where the FieldCount goes (patched at end_dataset)
  std::uint16_t fields_ = 0;
  field_encoding encoding_ = field_encoding::variant;
  dataset_message_type type_ = dataset_message_type::key_frame;
  std::string error_;
};

// One DataSetMessage as the decoder found it: its header, and its fields still encoded (RawData
// needs the reader's metadata to be read: read_uadp_fields).
struct uadp_dataset_message {
  std::uint16_t writer_id = 0;  // 0 when the NetworkMessage has no PayloadHeader
  bool valid = true;            // DataSetFlags1 bit 0
  field_encoding encoding = field_encoding::variant;
  dataset_message_type type = dataset_message_type::key_frame;
  std::optional<std::uint16_t> sequence_number;
  std::optional<ua::date_time> timestamp;
  std::uint16_t picoseconds = 0;
  ua::status_code status;       // the UInt16 on the wire is its high half
  std::optional<std::uint32_t> major_version, minor_version;
  std::span<const std::uint8_t> body;  // the fields (FieldCount included)
  std::size_t body_offset = 0;         // where `body` starts in the NetworkMessage
};

struct uadp_network_message {
  std::optional<uadp_publisher_id> publisher_id;
  std::optional<ua::guid> dataset_class_id;
  std::optional<std::uint16_t> writer_group_id;
  std::optional<std::uint32_t> group_version;
  std::optional<std::uint16_t> network_message_number;
  std::optional<std::uint16_t> sequence_number;
  std::optional<ua::date_time> timestamp;
  std::optional<std::uint16_t> picoseconds;
  std::vector<uadp_dataset_message> messages;
};

struct uadp_limits {
  std::size_t max_message_size = 65'535;   // bytes of one NetworkMessage
  std::size_t max_dataset_messages = 255;  // the Count is a Byte
  std::size_t max_fields = 65'535;         // per DataSetMessage (the FieldCount is a UInt16)
  std::size_t max_string = 64 * 1024;      // a String PublisherId, a String or ByteString field
  std::size_t max_array = 100'000;         // elements of an array field
  int max_depth = 16;                      // Variants in Variants
};

struct uadp_error {
  ua::status_code status;     // Bad_DecodingError, Bad_EncodingLimitsExceeded, Bad_NotSupported
  std::size_t offset = 0;     // where in the NetworkMessage
  std::string what;
  std::string to_string() const;
};

// Reads a NetworkMessage's headers and splits its DataSetMessages. False with `error` set when it
// is truncated, of another UADPVersion, chunked, secured, not a DataSetMessage payload, past a
// limit, or its Count / Sizes do not fit the bytes there are.
bool read_uadp_network_message(std::span<const std::uint8_t> in, const uadp_limits& limits, uadp_network_message& out,
                               uadp_error& error);

// Reads the fields of `m` into `out` (its size and capacity reused): a key frame's all (index =
// position), a delta frame's by FieldIndex, none for a keep-alive. RawData fields are read as
// `raw_types` says (a key frame needs all of them; a delta frame those it names). Trailing zero
// bytes are padding (Part 14 §7.2.4.5.5); any other byte left over is an error.
bool read_uadp_fields(const uadp_dataset_message& m, std::span<const uadp_raw_type> raw_types, const uadp_limits& limits,
                      std::vector<decoded_field>& out, uadp_error& error);

}  // namespace uactor::pubsub
