// Values and times printed by the client commands: text for a person, JSON for a script
// (client_cli_output.hpp).
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cli/client_cli.hpp"
#include "cli/client_cli_output.hpp"
#include "protocol/base64.hpp"
#include "protocol/civil_date.hpp"

namespace uactor::app {

namespace {

std::string format_double(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string hex_bytes(std::string_view bytes) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string s = "0x";
  for (unsigned char c : bytes) {
    s += digits[c >> 4];
    s += digits[c & 15];
  }
  return s;
}

// The fields of the structures a person meets most (a Variable's EURange and EngineeringUnits,
// a method's Arguments, the Server's status and build info, enumerations' EnumValues), by their
// Part 5 names; the others through the style's resolver, or by TypeId.
std::optional<structure_view> known_fields(const ua::extension_object& x) {
  if (const auto* r = x.get_if<ua::range>()) return {{"Range", {{"Low", r->low}, {"High", r->high}}}};
  if (const auto* e = x.get_if<ua::eu_information>())
    return {{"EUInformation",
             {{"NamespaceUri", e->namespace_uri}, {"UnitId", e->unit_id}, {"DisplayName", e->display_name},
              {"Description", e->description}}}};
  if (const auto* a = x.get_if<ua::argument>())
    return {{"Argument",
             {{"Name", a->name}, {"DataType", a->data_type}, {"ValueRank", a->value_rank},
              {"ArrayDimensions", a->array_dimensions}, {"Description", a->description}}}};
  if (const auto* b = x.get_if<ua::build_info>())
    return {{"BuildInfo",
             {{"ProductUri", b->product_uri}, {"ManufacturerName", b->manufacturer_name}, {"ProductName", b->product_name},
              {"SoftwareVersion", b->software_version}, {"BuildNumber", b->build_number}, {"BuildDate", b->build_date}}}};
  if (const auto* s = x.get_if<ua::server_status_data_type>())
    return {{"ServerStatusDataType",
             {{"StartTime", s->start_time}, {"CurrentTime", s->current_time},
              {"State", static_cast<std::int32_t>(s->state)}, {"BuildInfo", ua::extension_object(s->build_info)},
              {"SecondsTillShutdown", s->seconds_till_shutdown}, {"ShutdownReason", s->shutdown_reason}}}};
  if (const auto* v = x.get_if<ua::enum_value_type>())
    return {{"EnumValueType", {{"Value", v->value}, {"DisplayName", v->display_name}, {"Description", v->description}}}};
  if (const auto* t = x.get_if<ua::time_zone_data_type>())
    return {{"TimeZoneDataType", {{"Offset", t->offset}, {"DaylightSavingInOffset", t->daylight_saving_in_offset}}}};
  return std::nullopt;
}

std::optional<structure_view> structure_fields(const ua::extension_object& x, const output_style& style) {
  if (auto known = known_fields(x)) return known;
  if (style.structures && !x.empty()) return style.structures->fields(x);
  return std::nullopt;
}

// A string for a line of text: quoted, with the characters that would break the line (or the
// tab-separated columns) escaped as C does.
std::string quoted_text(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

template <class T>
constexpr bool is_array_type = requires(const T& x) {
  typename T::value_type;
  x.is_null();
  x.begin();
} && !std::is_same_v<T, ua::ua_string> && !std::is_same_v<T, ua::byte_string> && !std::is_same_v<T, ua::xml_element>;

// ---- text

std::string text_untyped(const ua::variant& v, const output_style& style);

template <class T>
std::string text_one(const T& x, const output_style& style) {
  if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
  else if constexpr (std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint8_t>) return std::to_string(static_cast<int>(x));
  else if constexpr (std::is_integral_v<T>) return std::to_string(x);
  else if constexpr (std::is_floating_point_v<T>) return format_double(x);
  else if constexpr (std::is_same_v<T, ua::ua_string> || std::is_same_v<T, ua::xml_element>)
    return x.is_null() ? "null" : quoted_text(x.view());
  else if constexpr (std::is_same_v<T, ua::date_time>) return format_time(x, style.local_time);
  else if constexpr (std::is_same_v<T, ua::guid>) return x.to_string();
  else if constexpr (std::is_same_v<T, ua::byte_string>) return x.is_null() ? "null" : hex_bytes(x.view());
  else if constexpr (std::is_same_v<T, ua::node_id>) return x.to_string();
  else if constexpr (std::is_same_v<T, ua::expanded_node_id>) return ua::to_string(x);
  else if constexpr (std::is_same_v<T, ua::status_code>) return x.to_string();
  else if constexpr (std::is_same_v<T, ua::qualified_name>) return std::to_string(x.namespace_index) + ":" + std::string(x.name.view());
  else if constexpr (std::is_same_v<T, ua::localized_text>) {
    std::string s;
    if (!x.locale.is_null() && !x.locale.empty()) s += std::string(x.locale.view()) + " ";
    return s + quoted_text(x.text.view());
  } else if constexpr (std::is_same_v<T, ua::extension_object>) {
    if (auto fields = structure_fields(x, style)) {
      std::string s = std::string(fields->name) + " {";
      bool first = true;
      for (const auto& [name, value] : fields->fields) {
        s += (first ? "" : ", ") + std::string(name) + ": " + text_untyped(value, style);
        first = false;
      }
      return s + "}";
    }
    if (x.empty()) return "null";
    if (x.body()) return std::string(x.body()->type().name) + " {...}";
    return x.type_id().to_string() + " " + hex_bytes(x.raw_body().view());
  } else if constexpr (std::is_same_v<T, ua::boxed<ua::variant>>) return format_value(*x, style);
  else if constexpr (std::is_same_v<T, ua::variant>) return format_value(x, style);
  else if constexpr (std::is_same_v<T, ua::boxed<ua::data_value>> || std::is_same_v<T, ua::data_value>) {
    const ua::data_value& dv = [&]() -> const ua::data_value& {
      if constexpr (std::is_same_v<T, ua::data_value>) return x; else return *x;
    }();
    return "{" + (dv.has_value ? format_value(dv.value, style) : std::string("-")) + ", " +
           (dv.has_status ? dv.status : ua::status_code{}).to_string() + "}";
  } else return "...";
}

// The value without its type name: what a structure's field or an array's element shows.
std::string text_untyped(const ua::variant& v, const output_style& style) {
  return std::visit(
      [&](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) return "null";
        else if constexpr (is_array_type<T>) {
          if (x.is_null()) return "null";
          const std::size_t n = x.size();
          const std::size_t shown = style.max_elements && n > style.max_elements ? style.max_elements : n;
          std::string s = "[";
          for (std::size_t i = 0; i < shown; ++i) {
            if (i) s += ", ";
            s += text_one(static_cast<const typename T::value_type&>(x[i]), style);
          }
          if (shown < n) s += ", ... " + std::to_string(n - shown) + " more (" + std::to_string(n) + ")";
          return s + "]";
        } else {
          return text_one(x, style);
        }
      },
      v.value());
}

// ---- JSON

std::string json_untyped(const ua::variant& v, const output_style& style);

std::string json_double(double d) {
  if (std::isnan(d)) return "\"NaN\"";
  if (std::isinf(d)) return d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  return format_double(d);
}

template <class T>
std::string json_one(const T& x, const output_style& style) {
  if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
  // Part 6 §5.4.2.3: 64-bit integers as strings (JSON numbers lose them past 2^53).
  else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>) return "\"" + std::to_string(x) + "\"";
  else if constexpr (std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint8_t>) return std::to_string(static_cast<int>(x));
  else if constexpr (std::is_integral_v<T>) return std::to_string(x);
  else if constexpr (std::is_floating_point_v<T>) return json_double(static_cast<double>(x));
  else if constexpr (std::is_same_v<T, ua::ua_string> || std::is_same_v<T, ua::xml_element>)
    return x.is_null() ? "null" : json_string(x.view());
  else if constexpr (std::is_same_v<T, ua::date_time>) return json_string(format_time(x, style.local_time));
  else if constexpr (std::is_same_v<T, ua::guid>) return json_string(x.to_string());
  else if constexpr (std::is_same_v<T, ua::byte_string>) return x.is_null() ? "null" : json_string(ua::base64_encode(x.view()));
  else if constexpr (std::is_same_v<T, ua::node_id>) return json_string(x.to_string());
  else if constexpr (std::is_same_v<T, ua::expanded_node_id>) return json_string(ua::to_string(x));
  else if constexpr (std::is_same_v<T, ua::status_code>) return json_object().status(x).str();
  else if constexpr (std::is_same_v<T, ua::qualified_name>)
    return json_object().number("namespaceIndex", x.namespace_index).text("name", x.name.view()).str();
  else if constexpr (std::is_same_v<T, ua::localized_text>) {
    json_object o;
    if (!x.locale.is_null()) o.text("locale", x.locale.view());
    return o.text("text", x.text.view()).str();
  } else if constexpr (std::is_same_v<T, ua::extension_object>) {
    if (x.empty()) return "null";
    json_object o;
    o.text("typeId", x.type_id().to_string());
    if (auto fields = structure_fields(x, style)) {
      json_object f;
      for (const auto& [name, value] : fields->fields) f.raw(name, json_untyped(value, style));
      return o.text("dataType", fields->name).raw("fields", f.str()).str();
    }
    if (x.body()) return o.text("dataType", x.body()->type().name).str();
    return o.text("body", ua::base64_encode(x.raw_body().view())).str();
  } else if constexpr (std::is_same_v<T, ua::boxed<ua::variant>>) return json_value(*x, style);
  else if constexpr (std::is_same_v<T, ua::variant>) return json_value(x, style);
  else if constexpr (std::is_same_v<T, ua::boxed<ua::data_value>> || std::is_same_v<T, ua::data_value>) {
    const ua::data_value& dv = [&]() -> const ua::data_value& {
      if constexpr (std::is_same_v<T, ua::data_value>) return x; else return *x;
    }();
    return json_object()
        .raw("value", dv.has_value ? json_value(dv.value, style) : "null")
        .status(dv.has_status ? dv.status : ua::status_code{})
        .str();
  } else return "null";
}

std::string json_untyped(const ua::variant& v, const output_style& style) {
  return std::visit(
      [&](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) return "null";
        else if constexpr (is_array_type<T>) {
          if (x.is_null()) return "null";
          std::string s = "[";
          for (std::size_t i = 0; i < x.size(); ++i) {
            if (i) s += ",";
            s += json_one(static_cast<const typename T::value_type&>(x[i]), style);
          }
          return s + "]";
        } else {
          return json_one(x, style);
        }
      },
      v.value());
}


}  // namespace

std::string format_time(ua::date_time t, bool local_time) {
  const std::int64_t ticks = t.ticks - ua::date_time::unix_epoch_ticks;
  std::int64_t secs = ticks / ua::date_time::ticks_per_second;
  std::int64_t frac = ticks % ua::date_time::ticks_per_second;
  if (frac < 0) {
    frac += ua::date_time::ticks_per_second;
    --secs;
  }
  long offset = 0;  // seconds east of UTC
  if (local_time) {
    std::tm tm{};
    const std::time_t tt = static_cast<std::time_t>(secs);
    if (localtime_r(&tt, &tm)) offset = tm.tm_gmtoff;
  }
  const std::int64_t shown = secs + offset;
  std::int64_t days = shown / 86400;
  std::int64_t rem = shown % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  std::int64_t y;
  unsigned m, d;
  ua::civil_from_days(days, y, m, d);
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
  if (!local_time) return out + "Z";
  const long a = offset < 0 ? -offset : offset;
  std::snprintf(buf, sizeof buf, "%c%02ld:%02ld", offset < 0 ? '-' : '+', a / 3600, a / 60 % 60);
  return out + buf;
}

std::string format_value(const ua::variant& v, const output_style& style) {
  if (v.empty()) return "Null";
  std::string out(ua::builtin_type_name(v.type()));
  if (v.is_array()) out += "[]";
  return out + " " + text_untyped(v, style);
}

std::string format_value(const ua::variant& v) { return format_value(v, output_style{}); }

std::string format_untyped(const ua::variant& v, const output_style& style) { return text_untyped(v, style); }

std::string json_value(const ua::variant& v, const output_style& style) {
  if (v.empty()) return R"({"type":"Null","value":null})";
  std::string type(ua::builtin_type_name(v.type()));
  if (v.is_array()) type += "[]";
  return json_object().text("type", type).raw("value", json_untyped(v, style)).str();
}


json_object& json_object::raw(std::string_view key, std::string_view json) {
  if (body_.size() > 1) body_ += ',';
  body_ += json_string(key);
  body_ += ':';
  body_ += json;
  return *this;
}

json_object& json_object::status(ua::status_code sc) {
  const auto name = sc.name();
  return text("status", name.empty() ? sc.to_string() : std::string(name)).number("statusCode", sc.value());
}

}  // namespace uactor::app
