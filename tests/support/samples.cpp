#include "tests/support/samples.hpp"

#include <map>
#include <regex>
#include <stdexcept>

#include "protocol/generated/type_codecs.hpp"
#include "protocol/message.hpp"

namespace uactor::test {

using namespace ua;

std::vector<sample> node_opcua_vectors() {
  const auto dir = source_dir() + "/tests/interop/vectors/";
  const auto manifest = read_file(dir + "manifest.json");
  if (manifest.empty()) throw std::runtime_error("cannot read " + dir + "manifest.json");
  // One flat object per line (make_vectors.js writes it so): no general JSON parser needed.
  static const std::regex field(R"re("(name|kind|type)"\s*:\s*"([^"]*)")re");
  std::vector<sample> out;
  const std::string text(manifest.begin(), manifest.end());
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    sample s;
    for (std::sregex_iterator it(line.begin(), line.end(), field), last; it != last; ++it) {
      const auto key = (*it)[1].str();
      (key == "name" ? s.name : key == "kind" ? s.kind : s.type) = (*it)[2].str();
    }
    if (s.name.empty()) continue;
    s.encoded = read_file(dir + s.name + ".bin");
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

request_header fixed_request_header() {
  request_header h;
  h.authentication_token = node_id::opaque(0, "0123456789abcdef");
  h.timestamp = date_time::from_unix_ms(1'700'000'000'000);
  h.request_handle = 42;
  h.timeout_hint = 10000;
  return h;
}

response_header fixed_response_header() {
  response_header h;
  h.timestamp = date_time::from_unix_ms(1'700'000'000'001);
  h.request_handle = 42;
  return h;
}

template <class T>
sample message_sample(std::string name, const T& msg) {
  byte_buffer b;
  encoder e(b);
  encode_message(e, msg);
  return {std::move(name), "message", T::extension_type_info.name, b.to_vector()};
}

}  // namespace

std::vector<sample> built_samples() {
  std::vector<sample> out;
  for (std::size_t n : {1u, 100u}) {
    read_request req;
    req.request_header = fixed_request_header();
    req.timestamps_to_return = timestamps_to_return::both;
    for (std::size_t i = 0; i < n; ++i) {
      read_value_id rv;
      rv.node_id = i % 2 ? node_id{1, static_cast<std::uint32_t>(1000 + i)} : node_id::string(1, "demo.v" + std::to_string(i));
      rv.attribute_id = 13;
      req.nodes_to_read.push_back(rv);
    }
    out.push_back(message_sample("read_request_" + std::to_string(n), req));

    read_response resp;
    resp.response_header = fixed_response_header();
    for (std::size_t i = 0; i < n; ++i) {
      data_value v;
      if (i % 3 == 0) v.set_value(static_cast<double>(i) / 3);
      else if (i % 3 == 1) v.set_value(ua_string{"value " + std::to_string(i)});
      else { v.has_status = true; v.status = status::bad_node_id_unknown; }
      v.has_source_timestamp = true;
      v.source_timestamp = date_time::from_unix_ms(1'700'000'000'000 + static_cast<std::int64_t>(i));
      resp.results.push_back(std::move(v));
    }
    out.push_back(message_sample("read_response_" + std::to_string(n), resp));
  }
  return out;
}

namespace {

template <class T>
status_code reencode_as(std::span<const std::uint8_t> in, bytes& out, const decode_limits& limits) {
  T v{};
  const auto sc = decode_from_bytes(in, v, limits);
  if (sc.is_good()) out = encode_to_bytes(v);
  return sc;
}

using reencoder = status_code (*)(std::span<const std::uint8_t>, bytes&, const decode_limits&);

const std::map<std::string, reencoder>& builtin_reencoders() {
  static const std::map<std::string, reencoder> table{
      {"Boolean", &reencode_as<bool>}, {"SByte", &reencode_as<std::int8_t>}, {"Byte", &reencode_as<std::uint8_t>},
      {"Int16", &reencode_as<std::int16_t>}, {"UInt16", &reencode_as<std::uint16_t>},
      {"Int32", &reencode_as<std::int32_t>}, {"UInt32", &reencode_as<std::uint32_t>},
      {"Int64", &reencode_as<std::int64_t>}, {"UInt64", &reencode_as<std::uint64_t>},
      {"Float", &reencode_as<float>}, {"Double", &reencode_as<double>}, {"String", &reencode_as<ua_string>},
      {"DateTime", &reencode_as<date_time>}, {"Guid", &reencode_as<guid>},
      {"ByteString", &reencode_as<byte_string>}, {"XmlElement", &reencode_as<xml_element>},
      {"NodeId", &reencode_as<node_id>}, {"ExpandedNodeId", &reencode_as<expanded_node_id>},
      {"StatusCode", &reencode_as<status_code>}, {"QualifiedName", &reencode_as<qualified_name>},
      {"LocalizedText", &reencode_as<localized_text>}, {"ExtensionObject", &reencode_as<extension_object>},
      {"DataValue", &reencode_as<data_value>}, {"Variant", &reencode_as<variant>},
      {"DiagnosticInfo", &reencode_as<diagnostic_info>},
  };
  return table;
}

}  // namespace

status_code decode_and_reencode(const sample& s, std::span<const std::uint8_t> in, bytes& out,
                                const decode_limits& limits) {
  if (s.kind == "builtin") {
    const auto it = builtin_reencoders().find(s.type);
    if (it == builtin_reencoders().end()) throw std::runtime_error("unknown built-in type " + s.type);
    return it->second(in, out, limits);
  }
  extension_object msg;
  const auto sc = decode_message(in, msg, limits);
  if (sc.is_good()) {
    byte_buffer b;
    encoder e(b);
    encode_message(e, *msg.body());
    out = b.to_vector();
  }
  return sc;
}

}  // namespace uactor::test
