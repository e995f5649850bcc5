// The PubSub configuration's helpers: the broker URL, the MQTT topics of Part 14 §7.3.5.7. The
// model itself is public: include/uactor/pubsub.hpp.
#pragma once

#include <string>
#include <string_view>

#include "uactor/pubsub.hpp"

namespace uactor::pubsub {

// "mqtt://host[:port]" into host and port; false with `why` for anything else (mqtts:// is not
// there yet).
bool parse_mqtt_url(std::string_view url, std::string& host, std::uint16_t& port, std::string& why);
// "opc.udp://host:port" (Part 14 §7.3.2: the port is required; IPv4 or a host name) into host and
// port; false with `why`.
bool parse_udp_url(std::string_view url, std::string& host, std::uint16_t& port, std::string& why);

enum class transport_kind : std::uint8_t { mqtt, udp };
// Either of the two, by its scheme.
bool parse_pubsub_url(std::string_view url, transport_kind& kind, std::string& host, std::uint16_t& port, std::string& why);

// Part 14 §7.3.5.7: <prefix>/data/<PublisherId>/<WriterGroup>/<DataSetWriter>, and the writer's
// metadata under <prefix>/metadata/<PublisherId>/<WriterGroup>/<DataSetWriter> (retained). The
// group's NetworkMessage carries all its writers: its topic ends at the WriterGroup.
std::string data_topic(const mqtt_settings& m, std::string_view publisher, std::string_view group,
                       std::string_view writer = {});
std::string metadata_topic(const mqtt_settings& m, std::string_view publisher, std::string_view group,
                           std::string_view writer);

}  // namespace uactor::pubsub
