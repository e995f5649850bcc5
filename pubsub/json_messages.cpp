#include "pubsub/json_messages.hpp"

#include <charconv>
#include <limits>

#include "uactor/ua/status_codes.hpp"

namespace uactor::pubsub {

std::string_view message_type_text(dataset_message_type t) noexcept {
  switch (t) {
    case dataset_message_type::key_frame: return "ua-keyframe";
    case dataset_message_type::delta_frame: return "ua-deltaframe";
    case dataset_message_type::keep_alive: return "ua-keepalive";
  }
  return "?";
}

namespace {

template <class T>
void append_number(std::string& out, T v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_version(std::string& out, const configuration_version& v) {
  out.append("{\"MajorVersion\":");
  append_number(out, v.major);
  out.append(",\"MinorVersion\":");
  append_number(out, v.minor);
  out += '}';
}

}  // namespace

void json_message_writer::begin(std::string_view message_id, std::string_view publisher_id,
                                std::string_view writer_group_name) {
  out_.clear();
  out_.append("{\"MessageId\":");
  append_json_string(out_, message_id);
  out_.append(",\"MessageType\":\"ua-data\",\"PublisherId\":");
  append_json_string(out_, publisher_id);
  if (!writer_group_name.empty()) {
    out_.append(",\"WriterGroupName\":");
    append_json_string(out_, writer_group_name);
  }
  out_.append(",\"Messages\":[");
  first_message_ = true;
}

void json_message_writer::begin_dataset(const dataset_message_header& h) {
  if (!first_message_) out_ += ',';
  first_message_ = false;
  out_.append("{\"DataSetWriterId\":");
  append_number(out_, h.writer_id);
  if (!h.writer_name.empty()) {
    out_.append(",\"DataSetWriterName\":");
    append_json_string(out_, h.writer_name);
  }
  out_.append(",\"SequenceNumber\":");
  append_number(out_, h.sequence_number);
  out_.append(",\"MetaDataVersion\":");
  append_version(out_, h.version);
  out_.append(",\"Timestamp\":\"");
  append_date_time(out_, h.timestamp);
  out_ += '"';
  // Part 14 §7.2.5.4: Status is left out when Good.
  if (h.status.value() != 0) {
    out_.append(",\"Status\":");
    append_number(out_, h.status.value());
  }
  out_.append(",\"MessageType\":\"");
  out_.append(message_type_text(h.type));
  out_ += '"';
  keep_alive_ = h.type == dataset_message_type::keep_alive;
  // A keep-alive has no Payload (Part 14 §7.2.5.4).
  if (!keep_alive_) out_.append(",\"Payload\":{");
  first_field_ = true;
}

void json_message_writer::field(std::string_view name, const ua::data_value& v, field_encoding e) {
  if (keep_alive_) return;
  if (!first_field_) out_ += ',';
  first_field_ = false;
  append_json_string(out_, name);
  out_ += ':';
  append_field(out_, v, e);
}

void json_message_writer::end_dataset() { out_.append(keep_alive_ ? "}" : "}}"); }

std::string_view json_message_writer::finish() {
  out_.append("]}");
  return out_;
}

void write_metadata_message(std::string& out, const metadata_message& m) {
  out.clear();
  out.append("{\"MessageId\":");
  append_json_string(out, m.message_id);
  out.append(",\"MessageType\":\"ua-metadata\",\"PublisherId\":");
  append_json_string(out, m.publisher_id);
  out.append(",\"DataSetWriterId\":");
  append_number(out, m.writer_id);
  out.append(",\"WriterGroupName\":");
  append_json_string(out, m.writer_group_name);
  out.append(",\"DataSetWriterName\":");
  append_json_string(out, m.writer_name);
  out.append(",\"Timestamp\":\"");
  append_date_time(out, m.timestamp);
  out.append("\",\"MetaData\":{\"Name\":");
  append_json_string(out, m.dataset_name);
  out.append(",\"Fields\":[");
  for (std::size_t i = 0; i < m.fields.size(); ++i) {
    const auto& f = m.fields[i];
    if (i) out += ',';
    out.append("{\"Name\":");
    append_json_string(out, f.name);
    out.append(",\"BuiltInType\":");
    append_number(out, static_cast<unsigned>(f.type));
    out.append(",\"DataType\":");
    const ua::node_id dt = f.data_type.is_null() ? ua::node_id(0, static_cast<std::uint32_t>(f.type)) : f.data_type;
    append_json_string(out, dt.to_string());
    out.append(",\"ValueRank\":");
    append_number(out, f.value_rank);
    out += '}';
  }
  out.append("],\"ConfigurationVersion\":");
  append_version(out, m.version);
  out.append("}}");
}

// ------------------------------------------------------------------------------------------
// Reading

namespace {

struct schema {
  const json_reader& r;
  json_error& error;

  bool fail(const json_value& at, std::string what) {
    error.status = ua::status::bad_decoding_error;
    error.offset = at.offset;
    r.locate(at.offset, error.line, error.column);
    error.what = std::move(what);
    return false;
  }
  bool limit(const json_value& at, std::string what) {
    fail(at, std::move(what));
    error.status = ua::status::bad_encoding_limits_exceeded;
    return false;
  }
  // A member that must be a string when present.
  bool text(const json_value& obj, std::string_view name, std::string& out, bool required = false) {
    const auto* v = r.member(obj, name);
    if (!v) return !required || fail(obj, std::string(name) + " is missing");
    if (v->type != json_type::string) return fail(*v, std::string(name) + " is not a string");
    out = v->text;
    return true;
  }
  template <class T>
  bool unsigned_number(const json_value& obj, std::string_view name, std::optional<T>& out) {
    const auto* v = r.member(obj, name);
    if (!v) return true;
    if (v->type != json_type::number || !v->integral || v->integer < 0 ||
        static_cast<std::uint64_t>(v->integer) > std::numeric_limits<T>::max())
      return fail(*v, std::string(name) + " is not a " + (sizeof(T) == 2 ? "UInt16" : "UInt32"));
    out = static_cast<T>(v->integer);
    return true;
  }
  bool version(const json_value& v, configuration_version& out) {
    if (v.type != json_type::object) return fail(v, "MetaDataVersion is not an object");
    std::optional<std::uint32_t> major, minor;
    if (!unsigned_number(v, "MajorVersion", major) || !unsigned_number(v, "MinorVersion", minor)) return false;
    out.major = major.value_or(0);
    out.minor = minor.value_or(0);
    return true;
  }
};

bool read_dataset_message(schema& s, const json_value& m, const decode_limits& limits, decoded_dataset_message& out) {
  const auto& r = s.r;
  if (m.type != json_type::object) return s.fail(m, "a DataSetMessage is not an object");
  if (!s.unsigned_number(m, "DataSetWriterId", out.writer_id)) return false;
  if (!s.text(m, "DataSetWriterName", out.writer_name) || !s.text(m, "PublisherId", out.publisher_id)) return false;
  if (!s.unsigned_number(m, "SequenceNumber", out.sequence_number)) return false;
  if (const auto* v = r.member(m, "MetaDataVersion")) {
    configuration_version cv;
    if (!s.version(*v, cv)) return false;
    out.version = cv;
  }
  if (const auto* v = r.member(m, "Timestamp")) {
    ua::date_time t;
    if (v->type != json_type::string || !parse_date_time(v->text, t)) return s.fail(*v, "Timestamp is not a DateTime");
    out.timestamp = t;
  }
  if (const auto* v = r.member(m, "Status")) {
    std::optional<std::uint32_t> code;
    if (v->type == json_type::object) {
      if (!s.unsigned_number(*v, "Code", code)) return false;
    } else if (!s.unsigned_number(m, "Status", code)) {
      return false;
    }
    out.status = ua::status_code(code.value_or(0));
  }
  std::string type = "ua-keyframe";
  if (!s.text(m, "MessageType", type)) return false;
  const auto* payload = r.member(m, "Payload");
  if (type == "ua-keyframe") out.type = dataset_message_type::key_frame;
  else if (type == "ua-deltaframe") out.type = dataset_message_type::delta_frame;
  else if (type == "ua-keepalive") out.type = dataset_message_type::keep_alive;
  else return s.fail(*r.member(m, "MessageType"), "MessageType \"" + type + "\" is not ua-keyframe, ua-deltaframe or ua-keepalive");
  if (!payload) {
    // Part 14 §7.2.5.4: a DataSetMessage without Payload is a keep-alive.
    out.type = dataset_message_type::keep_alive;
    return true;
  }
  if (payload->type != json_type::object) return s.fail(*payload, "Payload is not an object");
  if (payload->count > limits.max_fields)
    return s.limit(*payload, "Payload has " + std::to_string(payload->count) + " fields, more than " + std::to_string(limits.max_fields));
  out.has_payload = true;
  out.fields.resize(payload->count);
  std::size_t k = 0;
  std::string why;
  for (auto i = r.first(*payload); i != 0; i = r.next(i), ++k) {
    const auto& f = r.at(i);
    out.fields[k].name = f.name;
    out.fields[k].index = static_cast<std::uint32_t>(k);
    if (const auto sc = read_field(r, f, ua::builtin_type::null, out.fields[k].value, why); sc.is_bad())
      return s.fail(f, "Payload." + f.name + ": " + why);
  }
  return true;
}

}  // namespace

bool read_network_message(json_reader& r, std::string_view text, const decode_limits& limits,
                          decoded_network_message& out, json_error& error) {
  out.message_id.clear();
  out.message_type.clear();
  out.publisher_id.clear();
  out.writer_group_name.clear();
  out.messages.clear();
  if (!r.parse(text)) return error = r.error(), false;
  schema s{r, error};
  const auto& root = r.root();
  const auto read_list = [&](const json_value& list) {
    if (list.count > limits.max_dataset_messages)
      return s.limit(list, "Messages has " + std::to_string(list.count) + " DataSetMessages, more than " +
                               std::to_string(limits.max_dataset_messages));
    out.messages.resize(list.count);
    std::size_t k = 0;
    for (auto i = r.first(list); i != 0; i = r.next(i), ++k)
      if (!read_dataset_message(s, r.at(i), limits, out.messages[k])) return false;
    return true;
  };
  if (root.type == json_type::array) return read_list(root);
  if (root.type != json_type::object) return s.fail(root, "a NetworkMessage is a JSON object");
  const auto* messages = r.member(root, "Messages");
  if (!messages) {
    // One DataSetMessage without the network header.
    out.messages.resize(1);
    if (!read_dataset_message(s, root, limits, out.messages[0])) return false;
    out.publisher_id = out.messages[0].publisher_id;
    return true;
  }
  if (!s.text(root, "MessageId", out.message_id, true) || !s.text(root, "MessageType", out.message_type, true)) return false;
  if (out.message_type != "ua-data")
    return s.fail(*r.member(root, "MessageType"), "MessageType \"" + out.message_type + "\" is not ua-data");
  // PublisherId: a String (1.05), or a number from an older publisher.
  if (const auto* p = r.member(root, "PublisherId")) {
    if (p->type == json_type::string) out.publisher_id = p->text;
    else if (p->type == json_type::number && p->integral && p->integer >= 0) out.publisher_id = std::to_string(p->integer);
    else return s.fail(*p, "PublisherId is not a string");
  }
  if (!s.text(root, "WriterGroupName", out.writer_group_name)) return false;
  if (messages->type == json_type::object) {  // a single DataSetMessage as an object
    out.messages.resize(1);
    return read_dataset_message(s, *messages, limits, out.messages[0]);
  }
  if (messages->type != json_type::array) return s.fail(*messages, "Messages is not an array");
  return read_list(*messages);
}

bool read_metadata_message(json_reader& r, std::string_view text, metadata_message& out, json_error& error) {
  out = metadata_message{};
  if (!r.parse(text)) return error = r.error(), false;
  schema s{r, error};
  const auto& root = r.root();
  if (root.type != json_type::object) return s.fail(root, "a DataSetMetaData message is a JSON object");
  std::string type;
  if (!s.text(root, "MessageType", type, true)) return false;
  if (type != "ua-metadata") return s.fail(*r.member(root, "MessageType"), "MessageType \"" + type + "\" is not ua-metadata");
  if (!s.text(root, "MessageId", out.message_id, true) || !s.text(root, "PublisherId", out.publisher_id, true) ||
      !s.text(root, "WriterGroupName", out.writer_group_name) || !s.text(root, "DataSetWriterName", out.writer_name))
    return false;
  std::optional<std::uint16_t> id;
  if (!s.unsigned_number(root, "DataSetWriterId", id)) return false;
  if (!id) return s.fail(root, "DataSetWriterId is missing");
  out.writer_id = *id;
  if (const auto* v = r.member(root, "Timestamp")) {
    if (v->type != json_type::string || !parse_date_time(v->text, out.timestamp)) return s.fail(*v, "Timestamp is not a DateTime");
  }
  const auto* md = r.member(root, "MetaData");
  if (!md || md->type != json_type::object) return s.fail(md ? *md : root, "MetaData is missing or not an object");
  if (!s.text(*md, "Name", out.dataset_name)) return false;
  if (const auto* v = r.member(*md, "ConfigurationVersion"); v && !s.version(*v, out.version)) return false;
  const auto* fields = r.member(*md, "Fields");
  if (!fields) return true;
  if (fields->type != json_type::array) return s.fail(*fields, "MetaData.Fields is not an array");
  for (auto i = r.first(*fields); i != 0; i = r.next(i)) {
    const auto& f = r.at(i);
    if (f.type != json_type::object) return s.fail(f, "a field of MetaData.Fields is not an object");
    field_metadata fm;
    if (!s.text(f, "Name", fm.name, true)) return false;
    std::optional<std::uint32_t> bt;
    if (!s.unsigned_number(f, "BuiltInType", bt)) return false;
    if (bt.value_or(0) > static_cast<std::uint32_t>(ua::builtin_type::diagnostic_info))
      return s.fail(*r.member(f, "BuiltInType"), "BuiltInType is not a built-in type id");
    fm.type = static_cast<ua::builtin_type>(bt.value_or(0));
    if (const auto* vr = r.member(f, "ValueRank")) {
      if (vr->type != json_type::number || !vr->integral || vr->integer < -3 || vr->integer > 32)
        return s.fail(*vr, "ValueRank is not an Int32 of -3..32");
      fm.value_rank = static_cast<std::int32_t>(vr->integer);
    }
    out.fields.push_back(std::move(fm));
  }
  return true;
}

}  // namespace uactor::pubsub
