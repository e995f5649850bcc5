// The text forms of values that people type: the CLI's arguments, the plant file's values
// (value_text.hpp).
#include "protocol/value_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "protocol/civil_date.hpp"
#include "protocol/guid_text.hpp"
#include "protocol/hex_digit.hpp"
#include "protocol/node_id_text.hpp"

namespace uactor::ua {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string_view unquote(std::string_view s) {
  s = trim(s);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
  return s;
}

template <class T>
std::optional<T> parse_integer(std::string_view s) {
  s = trim(s);
  T v{};
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc{} || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<double> parse_double(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  const std::string text(s);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

// 2026-01-01T00:00:00Z, with optional fractional seconds.
std::optional<ua::date_time> parse_date_time(std::string_view s) {
  s = unquote(s);
  int y = 0, mo = 0, d = 0, h = 0, mi = 0;
  double sec = 0;
  char z = 0;
  const std::string text(s);
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%lf%c", &y, &mo, &d, &h, &mi, &sec, &z) != 7 || z != 'Z')
    return std::nullopt;
  const std::int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  const std::int64_t unix_seconds = days * 86400 + h * 3600 + mi * 60;
  const std::int64_t ticks = ua::date_time::unix_epoch_ticks + unix_seconds * ua::date_time::ticks_per_second +
                             static_cast<std::int64_t>(std::llround(sec * 1e7));
  return ua::date_time{ticks};
}

std::optional<std::string> parse_hex_bytes(std::string_view s) {
  s = trim(s);
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.size() % 2) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < s.size(); i += 2) {
    const int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi << 4 | lo);
  }
  return out;
}

}  // namespace

std::string_view builtin_type_name(ua::builtin_type t) noexcept {
  static constexpr std::string_view names[] = {
      "Null", "Boolean", "SByte", "Byte", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64", "Float", "Double",
      "String", "DateTime", "Guid", "ByteString", "XmlElement", "NodeId", "ExpandedNodeId", "StatusCode",
      "QualifiedName", "LocalizedText", "ExtensionObject", "DataValue", "Variant", "DiagnosticInfo"};
  const auto i = static_cast<std::size_t>(t);
  return i < std::size(names) ? names[i] : "?";
}

namespace {

ua::expected<ua::variant> parse_scalar(ua::builtin_type type, std::string_view s) {
  using bt = ua::builtin_type;
  const ua::status_code bad = ua::status::bad_type_mismatch;
  auto integer = [&]<class T>(T) -> ua::expected<ua::variant> {
    auto v = parse_integer<T>(s);
    if (!v) return bad;
    return ua::variant(*v);
  };
  switch (type) {
    case bt::boolean: {
      const auto t = trim(s);
      if (t == "true" || t == "1") return ua::variant(true);
      if (t == "false" || t == "0") return ua::variant(false);
      return bad;
    }
    case bt::sbyte: return integer(std::int8_t{});
    case bt::byte: return integer(std::uint8_t{});
    case bt::int16: return integer(std::int16_t{});
    case bt::uint16: return integer(std::uint16_t{});
    case bt::int32: return integer(std::int32_t{});
    case bt::uint32: return integer(std::uint32_t{});
    case bt::int64: return integer(std::int64_t{});
    case bt::uint64: return integer(std::uint64_t{});
    case bt::float_: {
      auto d = parse_double(s);
      if (!d) return bad;
      return ua::variant(static_cast<float>(*d));
    }
    case bt::double_: {
      auto d = parse_double(s);
      if (!d) return bad;
      return ua::variant(*d);
    }
    case bt::string: return ua::variant(ua::ua_string(unquote(s)));
    case bt::xml_element: return ua::variant(ua::xml_element(unquote(s)));
    case bt::date_time: {
      auto t = parse_date_time(s);
      if (!t) return bad;
      return ua::variant(*t);
    }
    // White space around a typed Guid or NodeId is passed over, as around the other values here;
    // the parsers themselves read the exact text form.
    case bt::guid: {
      auto g = ua::parse_guid(trim(s));
      if (!g) return bad;
      return ua::variant(*g);
    }
    case bt::byte_string: {
      auto b = parse_hex_bytes(s);
      if (!b) return bad;
      return ua::variant(ua::byte_string(*b));
    }
    case bt::node_id: {
      auto n = ua::parse_node_id(trim(s));
      if (!n) return bad;
      return ua::variant(*n);
    }
    case bt::expanded_node_id: {
      auto n = ua::parse_expanded_node_id(trim(s));
      if (!n) return bad;
      return ua::variant(*n);
    }
    case bt::status_code: {
      auto n = parse_integer<std::uint32_t>(s);
      if (!n) return bad;
      return ua::variant(ua::status_code{*n});
    }
    case bt::qualified_name: {
      const auto t = unquote(s);
      const auto colon = t.find(':');
      if (colon != std::string_view::npos) {
        if (auto ns = parse_integer<std::uint16_t>(t.substr(0, colon)))
          return ua::variant(ua::qualified_name{*ns, ua::ua_string(t.substr(colon + 1))});
      }
      return ua::variant(ua::qualified_name{0, ua::ua_string(t)});
    }
    case bt::localized_text: {
      const auto t = trim(s);
      ua::localized_text lt;
      const auto space = t.find(' ');
      if (space != std::string_view::npos && t.back() == '"' && t[space + 1] == '"') {
        lt.locale = ua::ua_string(t.substr(0, space));
        lt.text = ua::ua_string(unquote(t.substr(space + 1)));
      } else {
        lt.text = ua::ua_string(unquote(t));
      }
      return ua::variant(lt);
    }
    default:
      return bad;
  }
}

// The split of "[a, b, c]" (brackets optional) at commas outside quotes.
std::vector<std::string_view> split_array(std::string_view s) {
  s = trim(s);
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
  std::vector<std::string_view> parts;
  if (trim(s).empty()) return parts;
  bool in_quotes = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') in_quotes = !in_quotes;
    if (s[i] == ',' && !in_quotes) {
      parts.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  parts.push_back(trim(s.substr(start)));
  return parts;
}

}  // namespace

namespace {

template <class T>
ua::expected<ua::variant> parse_array_of(ua::builtin_type type, std::string_view text) {
  ua::ua_array<T> arr;
  for (auto part : split_array(text)) {
    auto scalar = parse_scalar(type, part);
    if (!scalar) return scalar.error();
    arr.push_back(std::move(*scalar->template get_if<T>()));
  }
  return ua::variant(std::move(arr));
}

}  // namespace

ua::expected<ua::variant> parse_value(ua::builtin_type type, bool array, std::string_view text) {
  if (!array) return parse_scalar(type, text);
  using bt = ua::builtin_type;
  switch (type) {
    case bt::boolean: return parse_array_of<bool>(type, text);
    case bt::sbyte: return parse_array_of<std::int8_t>(type, text);
    case bt::byte: return parse_array_of<std::uint8_t>(type, text);
    case bt::int16: return parse_array_of<std::int16_t>(type, text);
    case bt::uint16: return parse_array_of<std::uint16_t>(type, text);
    case bt::int32: return parse_array_of<std::int32_t>(type, text);
    case bt::uint32: return parse_array_of<std::uint32_t>(type, text);
    case bt::int64: return parse_array_of<std::int64_t>(type, text);
    case bt::uint64: return parse_array_of<std::uint64_t>(type, text);
    case bt::float_: return parse_array_of<float>(type, text);
    case bt::double_: return parse_array_of<double>(type, text);
    case bt::string: return parse_array_of<ua::ua_string>(type, text);
    case bt::date_time: return parse_array_of<ua::date_time>(type, text);
    case bt::guid: return parse_array_of<ua::guid>(type, text);
    case bt::byte_string: return parse_array_of<ua::byte_string>(type, text);
    case bt::xml_element: return parse_array_of<ua::xml_element>(type, text);
    case bt::node_id: return parse_array_of<ua::node_id>(type, text);
    case bt::expanded_node_id: return parse_array_of<ua::expanded_node_id>(type, text);
    case bt::status_code: return parse_array_of<ua::status_code>(type, text);
    case bt::qualified_name: return parse_array_of<ua::qualified_name>(type, text);
    case bt::localized_text: return parse_array_of<ua::localized_text>(type, text);
    default: return ua::status::bad_type_mismatch;
  }
}

}  // namespace uactor::ua
