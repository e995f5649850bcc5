// Part 14 §7.2.4 (1.05): the UADP NetworkMessage, its GroupHeader and PayloadHeader, and its
// DataSetMessages (key frames, delta frames, keep-alives; Variant, RawData and DataValue fields),
// written by `uadp_message_writer` into reused buffers and read back by a bounded decoder that
// never reads past the datagram. A writer group's DataSetMessages are spread over as many
// NetworkMessages as a size limit needs, and one DataSetMessage larger than that goes as chunk
// NetworkMessages (§7.2.4.4.4; reassembled by pubsub/uadp_chunks.hpp). Message security
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
  // The DataSetMessages as NetworkMessages of at most `limit` bytes each (Part 14 §7.2.4.5.3):
  // in order, as many in each as fit (255 at most, the Sizes' UInt16 permitting), a
  // DataSetMessage that does not fit alone as chunk NetworkMessages (§7.2.4.4.4) of the same size
  // but the last. Each NetworkMessage takes the next GroupHeader SequenceNumber (`sequence` is
  // the last used, and is advanced) and NetworkMessageNumber 1, 2, ... in this call. `out` gets
  // one span per NetworkMessage, valid until the next begin. False with `error()` set when a
  // chunk could not carry a byte within `limit`.
  bool finish_within(std::size_t limit, std::uint16_t& sequence, std::vector<std::span<const std::uint8_t>>& out);
  const std::string& error() const noexcept { return error_; }

private:
  std::size_t header_size(std::size_t count) const noexcept;  // a NetworkMessage of `count` DataSetMessages
  std::size_t chunk_header_size() const noexcept;             // a chunk NetworkMessage, ChunkData's length included
  void put_header(std::uint16_t number, std::uint16_t sequence, bool chunk);
  void put_messages(std::size_t first, std::size_t last, std::uint16_t number, std::uint16_t sequence);

  ua::byte_buffer out_;
  ua::byte_buffer payload_;  // the DataSetMessages, behind the header once their ids are known
  std::vector<std::uint16_t> writer_ids_;
  std::vector<std::size_t> sizes_;
  std::vector<std::uint16_t> dsm_sequences_;  // each DataSetMessage's sequence number (a chunk's MessageSequenceNumber)
  std::vector<std::size_t> starts_;           // each DataSetMessage's offset in payload_
  std::vector<std::pair<std::size_t, std::size_t>> parts_;  // finish_within: each NetworkMessage in out_
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

// One chunk NetworkMessage's payload (Part 14 §7.2.4.4.4, Tables 141 and 142): a piece of one
// DataSetMessage of writer `writer_id`.
struct uadp_chunk {
  std::uint16_t writer_id = 0;                // the chunked payload header
  std::uint16_t message_sequence_number = 0;  // the DataSetMessage's sequence number
  std::uint32_t offset = 0;                   // ChunkOffset in the whole DataSetMessage
  std::uint32_t total_size = 0;               // TotalSize of the whole DataSetMessage
  std::span<const std::uint8_t> data;         // ChunkData
  std::size_t data_offset = 0;                // where `data` starts in the NetworkMessage
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
  std::vector<uadp_dataset_message> messages;  // empty for a chunk
  std::optional<uadp_chunk> chunk;             // a chunk NetworkMessage (ExtendedFlags2 bit 0)
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

// Reads a NetworkMessage's headers and splits its DataSetMessages, or reads its chunk. False with
// `error` set when it is truncated, of another UADPVersion, secured, not a DataSetMessage payload
// (or a chunk of one), past a limit, its Count / Sizes do not fit the bytes there are, or a
// chunk's ChunkData is empty, does not fill the rest of the datagram or lies past its TotalSize.
bool read_uadp_network_message(std::span<const std::uint8_t> in, const uadp_limits& limits, uadp_network_message& out,
                               uadp_error& error);

// Reads one DataSetMessage's header from `in` (a reassembled chunked payload, §7.2.4.4.4): `out`'s
// body spans the rest of `in`. False with `error` set (offsets within `in`).
bool read_uadp_dataset_message(std::span<const std::uint8_t> in, std::uint16_t writer_id, uadp_dataset_message& out,
                               uadp_error& error);

// Reads the fields of `m` into `out` (its size and capacity reused): a key frame's all (index =
// position), a delta frame's by FieldIndex, none for a keep-alive. RawData fields are read as
// `raw_types` says (a key frame needs all of them; a delta frame those it names). Trailing zero
// bytes are padding (Part 14 §7.2.4.5.5); any other byte left over is an error.
bool read_uadp_fields(const uadp_dataset_message& m, std::span<const uadp_raw_type> raw_types, const uadp_limits& limits,
                      std::vector<decoded_field>& out, uadp_error& error);

}  // namespace uactor::pubsub
