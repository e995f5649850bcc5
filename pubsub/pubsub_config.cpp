#include "pubsub/pubsub_config.hpp"

#include <charconv>

namespace uactor::pubsub {

bool parse_mqtt_url(std::string_view url, std::string& host, std::uint16_t& port, std::string& why) {
  constexpr std::string_view scheme = "mqtt://";
  if (!url.starts_with(scheme)) {
    why = url.starts_with("mqtts://") ? "mqtts:// (TLS to the broker) is not there yet: use mqtt://"
                                      : "expected mqtt://host[:port]";
    return false;
  }
  std::string_view rest = url.substr(scheme.size());
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.find('/') != std::string_view::npos) return why = "a path after the host and port", false;
  port = 1883;
  std::string_view h = rest;
  if (!rest.empty() && rest.front() == '[') {  // [IPv6]:port
    const auto close = rest.find(']');
    if (close == std::string_view::npos) return why = "an IPv6 address without its ']'", false;
    h = rest.substr(1, close - 1);
    rest = rest.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return why = "expected ':' and a port after ']'", false;
  } else if (const auto colon = rest.rfind(':'); colon != std::string_view::npos) {
    h = rest.substr(0, colon);
    rest = rest.substr(colon);
  } else {
    rest = {};
  }
  if (!rest.empty()) {
    const auto digits = rest.substr(1);
    unsigned p = 0;
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), p);
    if (digits.empty() || r.ec != std::errc() || r.ptr != digits.data() + digits.size() || p == 0 || p > 65535)
      return why = "the port is not a number of 1..65535", false;
    port = static_cast<std::uint16_t>(p);
  }
  if (h.empty()) return why = "no host", false;
  host = std::string(h);
  return true;
}

bool parse_udp_url(std::string_view url, std::string& host, std::uint16_t& port, std::string& why) {
  constexpr std::string_view scheme = "opc.udp://";
  if (!url.starts_with(scheme)) return why = "expected opc.udp://host:port", false;
  std::string_view rest = url.substr(scheme.size());
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.find('/') != std::string_view::npos) return why = "a path after the host and port", false;
  if (rest.starts_with('[')) return why = "IPv6 addresses are not supported over UDP yet", false;
  const auto colon = rest.rfind(':');
  if (colon == std::string_view::npos) return why = "no port (opc.udp://host:port)", false;
  const auto digits = rest.substr(colon + 1);
  unsigned p = 0;
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), p);
  if (digits.empty() || r.ec != std::errc() || r.ptr != digits.data() + digits.size() || p == 0 || p > 65535)
    return why = "the port is not a number of 1..65535", false;
  if (colon == 0) return why = "no host", false;
  host = std::string(rest.substr(0, colon));
  port = static_cast<std::uint16_t>(p);
  return true;
}

bool parse_pubsub_url(std::string_view url, transport_kind& kind, std::string& host, std::uint16_t& port, std::string& why) {
  if (url.starts_with("opc.udp://")) {
    kind = transport_kind::udp;
    return parse_udp_url(url, host, port, why);
  }
  kind = transport_kind::mqtt;
  if (!parse_mqtt_url(url, host, port, why)) {
    if (!url.starts_with("mqtt://") && !url.starts_with("mqtts://")) why = "expected mqtt://host[:port] or opc.udp://host:port";
    return false;
  }
  return true;
}

std::string data_topic(const mqtt_settings& m, std::string_view publisher, std::string_view group, std::string_view writer) {
  std::string t = m.topic_prefix + "/data/" + std::string(publisher) + "/" + std::string(group);
  if (!writer.empty()) t += "/" + std::string(writer);
  return t;
}

std::string metadata_topic(const mqtt_settings& m, std::string_view publisher, std::string_view group,
                           std::string_view writer) {
  return m.topic_prefix + "/metadata/" + std::string(publisher) + "/" + std::string(group) + "/" + std::string(writer);
}

}  // namespace uactor::pubsub
