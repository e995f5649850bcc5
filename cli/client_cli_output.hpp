// How the client commands of the `uactor` CLI print: values and times as text for a person, or as
// JSON for a script (one object per line). Plain functions over values; the caller owns what they
// return. Private to runtime/ (and its tests).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/generated/type_codecs.hpp"
#include "protocol/json_string.hpp"

namespace uactor::app {

// A structure's fields by name, in their order (the names outlive the list: literals, or owned by
// the resolver that made it).
using field_list = std::vector<std::pair<std::string_view, ua::variant>>;
struct structure_view {
  std::string_view name;  // "Range", the DataType's BrowseName
  field_list fields;
};

// Decodes structures the client has no generated type for, by their DataTypeDefinition
// (client_cli_structures.cpp asks the server). nullopt: print it by TypeId.
class structure_resolver {
public:
  virtual ~structure_resolver() = default;
  virtual std::optional<structure_view> fields(const ua::extension_object& x) = 0;
};

struct output_style {
  bool json = false;        // --json: one JSON object per line on stdout
  bool local_time = false;  // --local-time: times in the local zone, with its offset
  // Text only: an array longer than this prints its first elements and a count (0: all of it).
  // The commands set it when stdout is a terminal.
  std::size_t max_elements = 0;
  structure_resolver* structures = nullptr;  // structures beyond the known ones; null: by TypeId
};

// ISO 8601: 2026-12-01T12:23:14.5Z (UTC, fraction to 100 ns with trailing zeros dropped), or with
// local_time 2026-12-01T13:23:14.5+01:00.
std::string format_time(ua::date_time t, bool local_time = false);

// Text: "Int32 43", "Double[] [-1.25, 0, 1.25]", "LocalizedText en \"text\"",
// "ExtensionObject Range {Low: 0, High: 100}", an array cut as "[1, 2, 3, ... 997 more (1000)]".
std::string format_value(const ua::variant& v, const output_style& style);

// The value without its type name, as a structure's field shows it: "43", "en \"text\"", a time in
// ISO 8601 (an event's field, beside its name).
std::string format_untyped(const ua::variant& v, const output_style& style);

// JSON (RFC 8259) of a value: {"type":"Int32","value":43}. Scalars as Part 6 §5.4.2 encodes them
// where a script gains from it: Int64/UInt64 as decimal strings, NaN and the infinities as strings,
// ByteString as base64, times as ISO 8601; NodeIds in their text form; LocalizedText
// {"locale":..,"text":..}; known structures by field; other ExtensionObjects by TypeId and base64
// body. Never cut.
std::string json_value(const ua::variant& v, const output_style& style);

using ua::json_string;

// One JSON object, built field by field: json_object().text("node", n).raw("value", v).str().
class json_object {
public:
  json_object& raw(std::string_view key, std::string_view json);
  json_object& text(std::string_view key, std::string_view value) { return raw(key, json_string(value)); }
  json_object& number(std::string_view key, std::int64_t value) { return raw(key, std::to_string(value)); }
  json_object& boolean(std::string_view key, bool value) { return raw(key, value ? "true" : "false"); }
  // "status":"BadNodeIdUnknown","statusCode":2150891520
  json_object& status(ua::status_code sc);
  std::string str() const { return body_ + "}"; }

private:
  std::string body_ = "{";
};

}  // namespace uactor::app
