// PubSub (Part 14 §6.2, docs/pubsub.md) as an application or the plant file's [pubsub] describes it:
// connections to an MQTT broker (JSON) or over UDP (UADP), WriterGroups, DataSetWriters over PublishedDataSets of variables,
// DataSetReaders with TargetVariables. Plain values; server_plan::pubsub takes them.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace uactor::pubsub {

// How a DataSetMessage carries a field (Part 14 §6.2.4.2 DataSetFieldContentMask, §7.2.5.4):
// - variant: the reversible (1.05 compact) Variant, {"UaType":11,"Value":1.5}: the type travels;
// - raw: the non-reversible form, the bare value (1.5): the type comes from the DataSetMetaData;
// - data_value: a DataValue, {"UaType":11,"Value":1.5,"Status":..,"SourceTimestamp":..}: value,
//   status (when not Good) and timestamps.
enum class field_encoding : std::uint8_t { variant, raw, data_value };

// A PublishedDataSet of variables (Part 14 §6.2.3): each pattern is a NodeId text, or a prefix of
// one ending in '*' (as [history] historize); the field name is the variable's BrowseName.
struct dataset_writer_config {
  std::string name;
  std::uint16_t id = 1;                     // DataSetWriterId, unique in the connection
  std::uint32_t key_frame_count = 10;       // a key frame every N cycles, delta frames between (1: key frames only)
  field_encoding encoding = field_encoding::variant;
  std::vector<std::string> variables;       // NodeId texts or prefixes ending in '*'
  std::string dataset_name;                 // DataSetMetaData Name; the writer's name when empty
};

struct writer_group_config {
  std::string name;
  std::uint16_t id = 1;                             // WriterGroupId
  std::chrono::milliseconds publishing_interval{1000};
  std::chrono::milliseconds keep_alive_time{0};     // 0: PublishingInterval x KeyFrameCount's largest
  std::uint32_t max_network_message_size = 1 << 20; // bytes; a larger message is dropped and counted
  int qos = 0;                                      // MQTT QoS 0 or 1 (Part 14 §7.3.5.2: BrokerTransportQualityOfService)
  std::vector<dataset_writer_config> writers;
};

// A DataSetReader (Part 14 §6.2.9) with TargetVariables (§6.2.10.2): fields by name into variables.
struct reader_target {
  std::string field;  // the field's name in the Payload
  std::string node;   // the target variable's NodeId text
};
struct dataset_reader_config {
  std::string name;
  std::string publisher_id;           // empty: any publisher (a numeric PublisherId by its decimal text)
  std::string writer_group;           // the WriterGroupName (the topic's level); empty: any
  std::uint16_t writer_group_id = 0;  // the WriterGroupId (UADP's GroupHeader); 0: any
  std::uint16_t writer_id = 0;        // DataSetWriterId; 0: any
  std::chrono::milliseconds message_receive_timeout{5000};
  // UADP carries no field names (Part 14 §7.2.4.5.5): the DataSet's field names in the order of
  // the publisher's DataSetMetaData, so that targets can name them. Empty for JSON.
  std::vector<std::string> fields;
  std::vector<reader_target> targets;
};

struct mqtt_settings {
  std::string host = "127.0.0.1";
  std::uint16_t port = 1883;
  std::string client_id;              // empty: "uactor-<publisher id>-<pid>"
  std::string username, password;     // MQTT user/password, when set
  std::string topic_prefix = "opcua/json";  // Part 14 §7.3.5.7: opcua/json/data/..., opcua/json/metadata/...
  std::chrono::milliseconds keep_alive{10'000};
  std::chrono::milliseconds reconnect_min{250};    // first retry after a loss, doubling to max
  std::chrono::milliseconds reconnect_max{10'000};
  std::size_t queue_limit = 1'000;    // NetworkMessages kept while the broker is away; the oldest dropped past it
};

// The message mapping of a connection's NetworkMessages: JSON (Part 14 §7.2.5) over MQTT, UADP
// (§7.2.4) over UDP.
enum class message_encoding : std::uint8_t { json, uadp };

// The DataType of the PublisherId (Part 14 §6.2.7.1; UADP's ExtendedFlags1 bits 0-2 name it).
enum class publisher_id_type : std::uint8_t { byte = 0, uint16 = 1, uint32 = 2, uint64 = 3, string = 4 };

// UDP (Part 14 §7.3.2): "opc.udp://host:port", a unicast or a multicast address. A writer group
// sends its datagrams there; readers bind the port (and join the group when it is multicast).
struct udp_settings {
  std::string multicast_interface;    // IPv4 address of the interface for multicast; empty: the default route's
  int multicast_ttl = 1;              // IP_MULTICAST_TTL: 1 stays on the local network
  bool multicast_loop = true;         // IP_MULTICAST_LOOP: this host's own readers hear it too
  std::size_t max_datagram = 65'507;  // the largest NetworkMessage sent or received (IPv4's UDP maximum)
  int receive_buffer = 4 << 20;       // SO_RCVBUF asked for, bytes
  // Chunked DataSetMessages received (Part 14 §7.2.4.4.4, docs/decisions/0072): the largest one
  // reassembled, how long its chunks may take, and how many per publisher's writer at once.
  std::size_t max_chunked_message_size = 1 << 20;
  std::chrono::milliseconds chunk_timeout{1000};
  std::size_t chunks_in_flight = 2;
};

struct connection_config {
  std::string name;
  std::string url;                    // "mqtt://host:port" or "opc.udp://host:port"
  std::string publisher_id;           // the PublisherId: a String, or a number's decimal text
  publisher_id_type publisher_id_kind = publisher_id_type::string;
  message_encoding encoding = message_encoding::json;  // uadp for opc.udp://
  mqtt_settings mqtt;
  udp_settings udp;
  std::vector<writer_group_config> writer_groups;
  std::vector<dataset_reader_config> readers;
};

struct pubsub_config {
  std::vector<connection_config> connections;
};

}  // namespace uactor::pubsub
