#include "runtime/client_cli.hpp"

#include <CLI/CLI.hpp>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include <spdlog/spdlog.h>

#include "uactor/client.hpp"

namespace uactor::app {

namespace {

constexpr std::uint32_t attr_value = 13;
constexpr std::uint32_t attr_data_type = 14;
constexpr std::uint32_t attr_value_rank = 15;

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

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<ua::guid> parse_guid(std::string_view s) {
  s = trim(s);
  std::string hex;
  for (char c : s) {
    if (c == '-') continue;
    if (hex_digit(c) < 0) return std::nullopt;
    hex += c;
  }
  if (hex.size() != 32 || s.size() != 36) return std::nullopt;
  auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(hex_digit(hex[2 * i]) << 4 | hex_digit(hex[2 * i + 1])); };
  ua::guid g;
  g.data1 = static_cast<std::uint32_t>(byte(0)) << 24 | static_cast<std::uint32_t>(byte(1)) << 16 |
            static_cast<std::uint32_t>(byte(2)) << 8 | byte(3);
  g.data2 = static_cast<std::uint16_t>(byte(4) << 8 | byte(5));
  g.data3 = static_cast<std::uint16_t>(byte(6) << 8 | byte(7));
  for (std::size_t i = 0; i < 8; ++i) g.data4[i] = byte(8 + i);
  return g;
}

constexpr std::string_view base64_chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::optional<std::string> base64_decode(std::string_view s) {
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    if (c == '=') break;
    const auto i = base64_chars.find(c);
    if (i == std::string_view::npos) return std::nullopt;
    acc = acc << 6 | static_cast<std::uint32_t>(i);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
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

std::string format_date_time(ua::date_time t) {
  const std::int64_t ticks = t.ticks - ua::date_time::unix_epoch_ticks;
  std::int64_t secs = ticks / ua::date_time::ticks_per_second;
  std::int64_t frac = ticks % ua::date_time::ticks_per_second;
  if (frac < 0) { frac += ua::date_time::ticks_per_second; --secs; }
  std::int64_t days = secs / 86400;
  std::int64_t rem = secs % 86400;
  if (rem < 0) { rem += 86400; --days; }
  std::int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld", static_cast<long long>(y), m, d,
                static_cast<long long>(rem / 3600), static_cast<long long>(rem / 60 % 60), static_cast<long long>(rem % 60));
  std::string out = buf;
  if (frac) {  // 100 ns ticks, trailing zeros dropped: .5, .123
    std::snprintf(buf, sizeof buf, ".%07lld", static_cast<long long>(frac));
    std::string f = buf;
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  return out + "Z";
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

std::string format_double(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

template <class T>
std::string format_one(const T& x) {
  if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
  else if constexpr (std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint8_t>) return std::to_string(static_cast<int>(x));
  else if constexpr (std::is_integral_v<T>) return std::to_string(x);
  else if constexpr (std::is_floating_point_v<T>) return format_double(x);
  else if constexpr (std::is_same_v<T, ua::ua_string>) return x.is_null() ? "null" : quoted(x.view());
  else if constexpr (std::is_same_v<T, ua::xml_element>) return x.is_null() ? "null" : quoted(x.view());
  else if constexpr (std::is_same_v<T, ua::date_time>) return format_date_time(x);
  else if constexpr (std::is_same_v<T, ua::guid>) return x.to_string();
  else if constexpr (std::is_same_v<T, ua::byte_string>) {
    if (x.is_null()) return "null";
    static constexpr char digits[] = "0123456789ABCDEF";
    std::string s = "0x";
    for (unsigned char c : x.view()) { s += digits[c >> 4]; s += digits[c & 15]; }
    return s;
  } else if constexpr (std::is_same_v<T, ua::node_id>) return x.to_string();
  else if constexpr (std::is_same_v<T, ua::expanded_node_id>) {
    std::string s;
    if (x.server_index) s += "svr=" + std::to_string(x.server_index) + ";";
    if (!x.namespace_uri.is_null()) s += "nsu=" + std::string(x.namespace_uri.view()) + ";";
    return s + x.id.to_string();
  } else if constexpr (std::is_same_v<T, ua::status_code>) return x.to_string();
  else if constexpr (std::is_same_v<T, ua::qualified_name>) return std::to_string(x.namespace_index) + ":" + std::string(x.name.view());
  else if constexpr (std::is_same_v<T, ua::localized_text>) {
    std::string s;
    if (!x.locale.is_null() && !x.locale.empty()) s += std::string(x.locale.view()) + " ";
    return s + quoted(x.text.view());
  } else if constexpr (std::is_same_v<T, ua::extension_object>) {
    if (const auto* a = x.template get_if<ua::argument>())
      return std::string(a->name.view()) + ": " + a->data_type.to_string() + (a->value_rank >= 1 ? "[]" : "");
    if (x.body()) return std::string(x.body()->type().name) + " {...}";
    return "ExtensionObject " + x.type_id().to_string();
  } else if constexpr (std::is_same_v<T, ua::boxed<ua::variant>>) return format_value(*x);
  else if constexpr (std::is_same_v<T, ua::variant>) return format_value(x);
  else return "...";
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

std::string format_value(const ua::variant& v) {
  if (v.empty()) return "Null";
  std::string out(builtin_type_name(v.type()));
  if (v.is_array()) out += "[]";
  out += ' ';
  out += std::visit(
      [&](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) return "";
        else if constexpr (requires { typename T::value_type; x.is_null(); x.size(); x.begin(); } &&
                           !std::is_same_v<T, ua::ua_string> && !std::is_same_v<T, ua::byte_string> &&
                           !std::is_same_v<T, ua::xml_element>) {
          std::string s = "[";
          bool first = true;
          for (const auto& e : x) {
            if (!first) s += ", ";
            first = false;
            s += format_one(static_cast<const typename T::value_type&>(e));
          }
          return s + "]";
        } else {
          return format_one(x);
        }
      },
      v.value());
  return out;
}

ua::expected<ua::node_id> parse_node_id(std::string_view text) {
  text = trim(text);
  std::uint16_t ns = 0;
  if (text.substr(0, 3) == "ns=") {
    const auto semi = text.find(';');
    if (semi == std::string_view::npos) return ua::status::bad_node_id_invalid;
    auto n = parse_integer<std::uint16_t>(text.substr(3, semi - 3));
    if (!n) return ua::status::bad_node_id_invalid;
    ns = *n;
    text.remove_prefix(semi + 1);
  }
  if (text.size() < 2 || text[1] != '=') return ua::status::bad_node_id_invalid;
  const auto id = text.substr(2);
  switch (text[0]) {
    case 'i': {
      auto n = parse_integer<std::uint32_t>(id);
      if (!n) return ua::status::bad_node_id_invalid;
      return ua::node_id(ns, *n);
    }
    case 's':
      return ua::node_id::string(ns, id);
    case 'g': {
      auto g = parse_guid(id);
      if (!g) return ua::status::bad_node_id_invalid;
      return ua::node_id::guid_id(ns, *g);
    }
    case 'b': {
      auto b = base64_decode(id);
      if (!b) return ua::status::bad_node_id_invalid;
      return ua::node_id::opaque(ns, *b);
    }
    default:
      return ua::status::bad_node_id_invalid;
  }
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
    case bt::guid: {
      auto g = parse_guid(s);
      if (!g) return bad;
      return ua::variant(*g);
    }
    case bt::byte_string: {
      auto b = parse_hex_bytes(s);
      if (!b) return bad;
      return ua::variant(ua::byte_string(*b));
    }
    case bt::node_id: {
      auto n = parse_node_id(s);
      if (!n) return bad;
      return ua::variant(*n);
    }
    case bt::expanded_node_id: {
      auto n = parse_node_id(s);
      if (!n) return bad;
      return ua::variant(ua::expanded_node_id{*n, {}, 0});
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

namespace {

// Exit codes of the client commands.
constexpr int exit_good = 0;
constexpr int exit_bad = 1;
constexpr int exit_usage = 2;

[[noreturn]] void finish(int code) { throw CLI::RuntimeError(code); }

[[noreturn]] void usage(const std::string& message) {
  std::fprintf(stderr, "uactor: %s\n", message.c_str());
  finish(exit_usage);
}

struct common_args {
  std::string endpoint;
  int timeout_ms = 10'000;
};

client connect_or_exit(const common_args& a) {
  // The terminal shows results and errors; the client's own log lines only when they warn.
  spdlog::set_level(spdlog::level::warn);
  client_options o;
  o.endpoint_url = a.endpoint;
  o.request_timeout = std::chrono::milliseconds(a.timeout_ms);
  o.connect_timeout = std::chrono::milliseconds(a.timeout_ms);
  o.session_name = "uactor cli";
  auto c = client::connect(std::move(o));
  if (!c) {
    std::fprintf(stderr, "uactor: cannot connect to %s: %s\n", a.endpoint.c_str(), c.error().to_string().c_str());
    finish(exit_usage);
  }
  return std::move(*c);
}

ua::node_id node_or_exit(const std::string& text) {
  auto n = parse_node_id(text);
  if (!n) usage("not a NodeId: " + text + " (e.g. ns=1;s=the.answer or i=85)");
  return *n;
}

[[noreturn]] void service_failed(client& c, std::string_view what, ua::status_code sc) {
  std::fprintf(stderr, "uactor: %.*s failed: %s\n", static_cast<int>(what.size()), what.data(), sc.to_string().c_str());
  c.close();
  finish(sc == ua::status::bad_connection_closed || sc == ua::status::bad_timeout ? exit_usage : exit_bad);
}

std::string_view node_class_name(ua::node_class c) {
  switch (c) {
    case ua::node_class::object: return "Object";
    case ua::node_class::variable: return "Variable";
    case ua::node_class::method: return "Method";
    case ua::node_class::object_type: return "ObjectType";
    case ua::node_class::variable_type: return "VariableType";
    case ua::node_class::reference_type: return "ReferenceType";
    case ua::node_class::data_type: return "DataType";
    case ua::node_class::view: return "View";
    default: return "Unspecified";
  }
}

int run_read(const common_args& a, const std::vector<std::string>& nodes) {
  if (nodes.empty()) usage("read: give at least one NodeId");
  ua::read_request req;
  req.timestamps_to_return = ua::timestamps_to_return::neither;
  for (const auto& n : nodes) {
    ua::read_value_id id;
    id.node_id = node_or_exit(n);
    id.attribute_id = attr_value;
    req.nodes_to_read.push_back(std::move(id));
  }
  auto c = connect_or_exit(a);
  auto r = c.read_sync(req);
  if (!r) service_failed(c, "Read", r.error());
  int code = exit_good;
  for (std::size_t i = 0; i < req.nodes_to_read.size(); ++i) {
    const ua::data_value* dv = i < r->results.size() ? &r->results[i] : nullptr;
    const ua::status_code sc = dv ? dv->status : ua::status::bad_unknown_response;
    if (sc.is_bad()) code = exit_bad;
    std::printf("%s\t%s\t%s\n", req.nodes_to_read[i].node_id.to_string().c_str(),
                dv && dv->has_value ? format_value(dv->value).c_str() : "-", sc.to_string().c_str());
  }
  c.close();
  return code;
}

// The built-in type a value of this DataType is written as: its own id for i=1..i=21, else the
// type of the value the node holds now (Part 4 §5.10.4.1: subtypes and enumerations).
std::optional<ua::builtin_type> write_type(const ua::node_id& data_type, const ua::variant& current) {
  if (data_type.namespace_index() == 0 && data_type.type() == ua::node_id_type::numeric && data_type.numeric() >= 1 &&
      data_type.numeric() <= 21)
    return static_cast<ua::builtin_type>(data_type.numeric());
  if (!current.empty()) return current.type();
  return std::nullopt;
}

int run_write(const common_args& a, const std::string& node, const std::string& value) {
  const auto id = node_or_exit(node);
  auto c = connect_or_exit(a);
  ua::read_request rr;
  for (const auto attr : {attr_data_type, attr_value_rank, attr_value}) {
    ua::read_value_id rv;
    rv.node_id = id;
    rv.attribute_id = attr;
    rr.nodes_to_read.push_back(rv);
  }
  auto r = c.read_sync(rr);
  if (!r) service_failed(c, "Read", r.error());
  if (r->results.size() != 3 || r->results[0].status.is_bad()) {
    const auto sc = r->results.empty() ? ua::status::bad_unknown_response : r->results[0].status;
    std::printf("%s\t-\t%s\n", id.to_string().c_str(), sc.to_string().c_str());
    c.close();
    return exit_bad;
  }
  const auto* dt = r->results[0].value.get_if<ua::node_id>();
  const auto* rank = r->results[1].value.get_if<std::int32_t>();
  const auto& current = r->results[2].value;
  const auto type = write_type(dt ? *dt : ua::node_id{}, current);
  if (!type) {
    c.close();
    usage("write: cannot tell the type to write for " + id.to_string());
  }
  const bool array = (rank && *rank >= 1) || current.is_array();
  auto v = parse_value(*type, array, value);
  if (!v) {
    c.close();
    usage("write: '" + value + "' is not a " + std::string(builtin_type_name(*type)) + (array ? " array" : ""));
  }
  ua::write_request wr;
  ua::write_value wv;
  wv.node_id = id;
  wv.attribute_id = attr_value;
  wv.value.set_value(*v);
  wr.nodes_to_write.push_back(std::move(wv));
  auto w = c.write_sync(std::move(wr));
  if (!w) service_failed(c, "Write", w.error());
  const ua::status_code sc = w->results.empty() ? ua::status::bad_unknown_response : w->results[0];
  std::printf("%s\t%s\t%s\n", id.to_string().c_str(), format_value(*v).c_str(), sc.to_string().c_str());
  c.close();
  return sc.is_bad() ? exit_bad : exit_good;
}

int run_browse(const common_args& a, const std::string& node) {
  const auto id = node_or_exit(node.empty() ? "i=85" : node);
  auto c = connect_or_exit(a);
  ua::browse_request req;
  ua::browse_description d;
  d.node_id = id;
  d.browse_direction = ua::browse_direction::forward;
  d.reference_type_id = ua::node_id(0, 33);  // HierarchicalReferences
  d.include_subtypes = true;
  d.result_mask = 63;  // everything
  req.nodes_to_browse.push_back(d);
  auto r = c.browse_sync(req);
  if (!r) service_failed(c, "Browse", r.error());
  if (r->results.empty()) service_failed(c, "Browse", ua::status::bad_unknown_response);
  ua::browse_result result = std::move(r->results[0]);
  int code = result.status_code.is_bad() ? exit_bad : exit_good;
  for (;;) {
    for (const auto& ref : result.references)
      std::printf("%u:%s\t%s\t%s\n", ref.browse_name.namespace_index, std::string(ref.browse_name.name.view()).c_str(),
                  ref.node_id.id.to_string().c_str(), std::string(node_class_name(ref.node_class)).c_str());
    if (result.status_code.is_bad()) {
      std::fprintf(stderr, "uactor: browse %s: %s\n", id.to_string().c_str(), result.status_code.to_string().c_str());
      break;
    }
    if (result.continuation_point.is_null() || result.continuation_point.empty()) break;
    ua::browse_next_request next;
    next.continuation_points.push_back(result.continuation_point);
    auto n = c.browse_next_sync(std::move(next));
    if (!n) service_failed(c, "BrowseNext", n.error());
    if (n->results.empty()) break;
    result = std::move(n->results[0]);
    if (result.status_code.is_bad()) code = exit_bad;
  }
  c.close();
  return code;
}

// The InputArguments of a method: its HasProperty target named InputArguments, read.
ua::ua_array<ua::argument> input_arguments(client& c, const ua::node_id& method) {
  ua::browse_request req;
  ua::browse_description d;
  d.node_id = method;
  d.browse_direction = ua::browse_direction::forward;
  d.reference_type_id = ua::node_id(0, 46);  // HasProperty
  d.include_subtypes = true;
  d.result_mask = 63;
  req.nodes_to_browse.push_back(d);
  ua::ua_array<ua::argument> out;
  auto r = c.browse_sync(req);
  if (!r || r->results.empty()) return out;
  for (const auto& ref : r->results[0].references) {
    if (ref.browse_name.name.view() != "InputArguments") continue;
    ua::read_request rr;
    ua::read_value_id rv;
    rv.node_id = ref.node_id.id;
    rv.attribute_id = attr_value;
    rr.nodes_to_read.push_back(rv);
    auto v = c.read_sync(rr);
    if (!v || v->results.empty()) return out;
    if (const auto* arr = v->results[0].value.get_if<ua::ua_array<ua::extension_object>>())
      for (const auto& e : *arr)
        if (const auto* arg = e.get_if<ua::argument>()) out.push_back(*arg);
  }
  return out;
}

int run_call(const common_args& a, const std::string& object, const std::string& method,
             const std::vector<std::string>& args) {
  const auto object_id = node_or_exit(object);
  const auto method_id = node_or_exit(method);
  auto c = connect_or_exit(a);
  const auto declared = input_arguments(c, method_id);
  ua::call_method_request m;
  m.object_id = object_id;
  m.method_id = method_id;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::optional<ua::builtin_type> type;
    bool array = false;
    if (i < declared.size()) {
      type = write_type(declared[i].data_type, {});
      array = declared[i].value_rank >= 1;
    }
    // Without a declaration the text goes as a String; the server then says what it thinks.
    auto v = parse_value(type.value_or(ua::builtin_type::string), array, args[i]);
    if (!v) {
      c.close();
      usage("call: argument " + std::to_string(i + 1) + " '" + args[i] + "' is not a " +
            std::string(builtin_type_name(type.value_or(ua::builtin_type::string))));
    }
    m.input_arguments.push_back(std::move(*v));
  }
  ua::call_request req;
  req.methods_to_call.push_back(std::move(m));
  auto r = c.call_sync(std::move(req));
  if (!r) service_failed(c, "Call", r.error());
  if (r->results.empty()) service_failed(c, "Call", ua::status::bad_unknown_response);
  const auto& result = r->results[0];
  for (const auto& out : result.output_arguments) std::printf("%s\n", format_value(out).c_str());
  for (std::size_t i = 0; i < result.input_argument_results.size(); ++i)
    if (result.input_argument_results[i].is_bad())
      std::printf("input %zu\t%s\n", i + 1, result.input_argument_results[i].to_string().c_str());
  std::printf("%s\n", result.status_code.to_string().c_str());
  c.close();
  return result.status_code.is_bad() ? exit_bad : exit_good;
}

// ---- subscribe: prints each data change until --count, --seconds or Ctrl-C

struct subscribe_args {
  std::uint64_t count = 0;       // 0: no limit
  double seconds = 0;            // 0: no limit
  unsigned interval_ms = 250;    // publishing interval
  double sampling_ms = -1;       // -1: the publishing interval
};

std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) { interrupted.store(true); }

int run_subscribe(const common_args& a, const subscribe_args& sa, const std::vector<std::string>& nodes) {
  if (nodes.empty()) usage("subscribe: give at least one NodeId");
  std::vector<ua::node_id> ids;
  for (const auto& n : nodes) ids.push_back(node_or_exit(n));
  auto c = connect_or_exit(a);

  struct shared {
    std::mutex mutex;
    std::condition_variable changed;
    std::uint64_t seen = 0;
    bool failed = false;
    bool ended = false;  // the subscription closed
  };
  auto sh = std::make_shared<shared>();
  subscription_settings settings;
  settings.publishing_interval = std::chrono::milliseconds(sa.interval_ms);
  subscription_handlers h;
  // Each change as read prints a value: NODE, value, status, SourceTimestamp (ms since 1970).
  h.on_data = [sh, ids, limit = sa.count](std::uint32_t, std::uint32_t, std::span<const ua::monitored_item_notification> changes) {
    for (const auto& ch : changes) {
      std::unique_lock lock(sh->mutex);
      if (limit && sh->seen >= limit) return;
      ++sh->seen;
      lock.unlock();
      const auto& dv = ch.value;
      const std::size_t i = ch.client_handle - 1;
      std::printf("%s\t%s\t%s\t%lld\n", i < ids.size() ? ids[i].to_string().c_str() : "?",
                  dv.has_value ? format_value(dv.value).c_str() : "-",
                  (dv.has_status ? dv.status : ua::status_code(ua::status::good)).to_string().c_str(),
                  dv.has_source_timestamp ? static_cast<long long>(dv.source_timestamp.to_unix_ms()) : 0LL);
      std::fflush(stdout);
    }
    sh->changed.notify_all();
  };
  h.on_status = [sh](const subscription_status& st) {
    if (st.what == subscription_event::closed && st.status.is_good()) return;  // our own close()
    const char* what = st.what == subscription_event::silent      ? "silent"
                       : st.what == subscription_event::recovered ? "recovered"
                       : st.what == subscription_event::data_lost ? "data lost"
                       : st.what == subscription_event::closed    ? "closed"
                                                                  : "status change";
    std::fprintf(stderr, "uactor: subscription %u: %s: %s\n", st.subscription_id, what, st.status.to_string().c_str());
    std::lock_guard lock(sh->mutex);
    if (st.what == subscription_event::data_lost || st.what == subscription_event::closed) sh->failed = true;
    if (st.what == subscription_event::closed) sh->ended = true;
    sh->changed.notify_all();
  };
  auto created = c.create_subscription_sync(settings, std::move(h));
  if (!created) service_failed(c, "CreateSubscription", created.error());
  ua::create_monitored_items_request req;
  req.subscription_id = created->subscription_id;
  req.timestamps_to_return = ua::timestamps_to_return::both;
  for (std::size_t i = 0; i < ids.size(); ++i)
    req.items_to_create.push_back(monitor_value(ids[i], static_cast<std::uint32_t>(i + 1), sa.sampling_ms, 10, true));
  auto items = c.create_monitored_items_sync(std::move(req));
  if (!items) service_failed(c, "CreateMonitoredItems", items.error());
  int code = exit_good;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto sc = i < items->results.size() ? items->results[i].status_code : ua::status::bad_unknown_response;
    if (sc.is_bad()) {
      std::printf("%s\t-\t%s\n", ids[i].to_string().c_str(), sc.to_string().c_str());
      code = exit_bad;
    }
  }

  interrupted.store(false);
  auto previous = std::signal(SIGINT, on_interrupt);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(sa.seconds));
  {
    std::unique_lock lock(sh->mutex);
    // A signal handler cannot notify a condition variable: wake up now and then to look.
    while (!interrupted.load() && !sh->ended && !(sa.count && sh->seen >= sa.count) &&
           !(sa.seconds > 0 && std::chrono::steady_clock::now() >= deadline))
      sh->changed.wait_for(lock, std::chrono::milliseconds(100));
    if (sh->failed) code = exit_bad;
  }
  std::signal(SIGINT, previous);
  c.close();
  return code;
}

void add_common(CLI::App* cmd, common_args& a) {
  cmd->add_option("endpoint", a.endpoint, "server endpoint, e.g. opc.tcp://localhost:4840");
  cmd->add_option("--timeout", a.timeout_ms, "connect and request timeout in ms");
}

}  // namespace

void add_client_commands(CLI::App& app) {
  // The parsed arguments live as long as the app (until main returns).
  struct args {
    common_args common;
    std::vector<std::string> nodes;
    std::string node;
    std::string value;
    std::string object;
    std::string method;
    std::vector<std::string> rest;
  };
  auto a = std::make_shared<args>();

  auto* read = app.add_subcommand("read", "read the Value of nodes: uactor read ENDPOINT NODE...");
  add_common(read, a->common);
  read->add_option("nodes", a->nodes, "NodeIds, e.g. ns=1;s=the.answer");
  read->callback([a] {
    if (a->common.endpoint.empty()) usage("read: give an endpoint");
    finish(run_read(a->common, a->nodes));
  });

  auto* write = app.add_subcommand("write", "write the Value of a node: uactor write ENDPOINT NODE VALUE");
  add_common(write, a->common);
  write->add_option("node", a->node, "NodeId");
  write->add_option("value", a->value, "the value, parsed to the node's DataType; arrays as [a, b]");
  write->callback([a] {
    if (a->common.endpoint.empty() || a->node.empty()) usage("write: give ENDPOINT NODE VALUE");
    finish(run_write(a->common, a->node, a->value));
  });

  auto* browse = app.add_subcommand("browse", "list a node's hierarchical references: uactor browse ENDPOINT [NODE]");
  add_common(browse, a->common);
  browse->add_option("node", a->node, "NodeId (default i=85, Objects)");
  browse->callback([a] {
    if (a->common.endpoint.empty()) usage("browse: give an endpoint");
    finish(run_browse(a->common, a->node));
  });

  auto* call = app.add_subcommand("call", "call a method: uactor call ENDPOINT OBJECT METHOD [ARG...]");
  add_common(call, a->common);
  call->add_option("object", a->object, "NodeId of the object");
  call->add_option("method", a->method, "NodeId of the method");
  call->add_option("args", a->rest, "input arguments, parsed to the InputArguments' types");
  call->callback([a] {
    if (a->common.endpoint.empty() || a->object.empty() || a->method.empty()) usage("call: give ENDPOINT OBJECT METHOD");
    finish(run_call(a->common, a->object, a->method, a->rest));
  });

  auto sub = std::make_shared<subscribe_args>();
  auto* subscribe = app.add_subcommand(
      "subscribe", "print each change of nodes' Values until Ctrl-C: uactor subscribe ENDPOINT NODE... [--count N] [--seconds S]");
  add_common(subscribe, a->common);
  subscribe->add_option("nodes", a->nodes, "NodeIds, e.g. ns=1;s=Demo.Dynamic.Counter");
  subscribe->add_option("--count", sub->count, "stop after this many changes");
  subscribe->add_option("--seconds", sub->seconds, "stop after this many seconds");
  subscribe->add_option("--interval", sub->interval_ms, "publishing interval in ms")->capture_default_str();
  subscribe->add_option("--sampling", sub->sampling_ms, "sampling interval in ms (-1: the publishing interval)")
      ->capture_default_str();
  subscribe->callback([a, sub] {
    if (a->common.endpoint.empty()) usage("subscribe: give an endpoint");
    finish(run_subscribe(a->common, *sub, a->nodes));
  });
}

}  // namespace uactor::app
