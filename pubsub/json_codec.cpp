#include "pubsub/json_codec.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <type_traits>

#include "protocol/base64.hpp"
#include "protocol/civil_date.hpp"
#include "protocol/guid_text.hpp"
#include "protocol/node_id_text.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::pubsub {

std::string_view field_encoding_name(field_encoding e) noexcept {
  switch (e) {
    case field_encoding::variant: return "variant";
    case field_encoding::raw: return "raw";
    case field_encoding::data_value: return "data_value";
  }
  return "?";
}

namespace {

template <class T>
void append_integer(std::string& out, T v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_floating(std::string& out, double v, bool single) {
  if (std::isnan(v)) return out.append("\"NaN\""), void();
  if (std::isinf(v)) return out.append(v > 0 ? "\"Infinity\"" : "\"-Infinity\""), void();
  char buf[40];
  // Shortest text that reads back to the same value (of the same width).
  const auto r = single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v)) : std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_2(std::string& out, unsigned v) {
  out += static_cast<char>('0' + v / 10);
  out += static_cast<char>('0' + v % 10);
}

void append_scalar(std::string& out, bool v) { out.append(v ? "true" : "false"); }
void append_scalar(std::string& out, std::int8_t v) { append_integer(out, v); }
void append_scalar(std::string& out, std::uint8_t v) { append_integer(out, v); }
void append_scalar(std::string& out, std::int16_t v) { append_integer(out, v); }
void append_scalar(std::string& out, std::uint16_t v) { append_integer(out, v); }
void append_scalar(std::string& out, std::int32_t v) { append_integer(out, v); }
void append_scalar(std::string& out, std::uint32_t v) { append_integer(out, v); }
// Part 6 §5.4.2.3: Int64 and UInt64 as JSON strings (JavaScript's numbers hold 53 bits).
void append_scalar(std::string& out, std::int64_t v) { out += '"'; append_integer(out, v); out += '"'; }
void append_scalar(std::string& out, std::uint64_t v) { out += '"'; append_integer(out, v); out += '"'; }
void append_scalar(std::string& out, float v) { append_floating(out, v, true); }
void append_scalar(std::string& out, double v) { append_floating(out, v, false); }
void append_scalar(std::string& out, const ua::ua_string& v) {
  if (v.is_null()) out.append("null");
  else append_json_string(out, v.view());
}
void append_scalar(std::string& out, ua::date_time v) { out += '"'; append_date_time(out, v); out += '"'; }
void append_scalar(std::string& out, const ua::guid& v) { append_json_string(out, v.to_string()); }
void append_scalar(std::string& out, const ua::byte_string& v) {
  if (v.is_null()) out.append("null");
  else append_json_string(out, ua::base64_encode(v.view()));
}
void append_scalar(std::string& out, const ua::xml_element& v) {
  if (v.is_null()) out.append("null");
  else append_json_string(out, v.view());
}
// Part 6 1.05 §5.4.2.10: a NodeId as its text form.
void append_scalar(std::string& out, const ua::node_id& v) { append_json_string(out, v.to_string()); }
void append_scalar(std::string& out, const ua::expanded_node_id& v) { append_json_string(out, ua::to_string(v)); }
void append_scalar(std::string& out, ua::status_code v) { append_integer(out, v.value()); }
// Part 6 1.05 §5.4.2.13: "<namespace index>:<name>", the index left out for namespace 0.
void append_scalar(std::string& out, const ua::qualified_name& v) {
  if (v.namespace_index == 0) return append_json_string(out, v.name.view());
  append_json_string(out, std::to_string(v.namespace_index) + ":" + std::string(v.name.view()));
}
void append_scalar(std::string& out, const ua::localized_text& v) {
  out += '{';
  bool any = false;
  if (!v.locale.is_null()) {
    out.append("\"Locale\":");
    append_json_string(out, v.locale.view());
    any = true;
  }
  if (!v.text.is_null()) {
    if (any) out += ',';
    out.append("\"Text\":");
    append_json_string(out, v.text.view());
  }
  out += '}';
}
template <class T>
void append_scalar(std::string& out, const T&) { out.append("null"); }  // not published yet

template <class T>
struct is_ua_array : std::false_type {};
template <class T>
struct is_ua_array<ua::ua_array<T>> : std::true_type {};

}  // namespace

void append_date_time(std::string& out, ua::date_time t) {
  const std::int64_t rel = t.ticks - ua::date_time::unix_epoch_ticks;
  std::int64_t secs = rel / ua::date_time::ticks_per_second;
  std::int64_t frac = rel % ua::date_time::ticks_per_second;
  if (frac < 0) frac += ua::date_time::ticks_per_second, --secs;
  std::int64_t days = secs / 86400;
  std::int64_t sod = secs % 86400;
  if (sod < 0) sod += 86400, --days;
  std::int64_t y = 0;
  unsigned m = 0, d = 0;
  ua::civil_from_days(days, y, m, d);
  if (y < 0 || y > 9999) y = y < 0 ? 0 : 9999;
  const auto year = static_cast<unsigned>(y);
  out += static_cast<char>('0' + year / 1000);
  out += static_cast<char>('0' + year / 100 % 10);
  append_2(out, year % 100);
  out += '-';
  append_2(out, m);
  out += '-';
  append_2(out, d);
  out += 'T';
  append_2(out, static_cast<unsigned>(sod / 3600));
  out += ':';
  append_2(out, static_cast<unsigned>(sod / 60 % 60));
  out += ':';
  append_2(out, static_cast<unsigned>(sod % 60));
  if (frac != 0) {
    char digits[7];
    for (int i = 6; i >= 0; --i) {
      digits[i] = static_cast<char>('0' + frac % 10);
      frac /= 10;
    }
    int n = 7;
    while (n > 1 && digits[n - 1] == '0') --n;
    out += '.';
    out.append(digits, static_cast<std::size_t>(n));
  }
  out += 'Z';
}

bool parse_date_time(std::string_view s, ua::date_time& out) noexcept {
  const auto num = [&](std::size_t at, std::size_t n, unsigned& v) {
    if (at + n > s.size()) return false;
    v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      v = v * 10 + static_cast<unsigned>(s[i] - '0');
    }
    return true;
  };
  unsigned y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  if (!num(0, 4, y) || s.size() < 19 || s[4] != '-' || !num(5, 2, mo) || s[7] != '-' || !num(8, 2, d) ||
      (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !num(11, 2, h) || s[13] != ':' || !num(14, 2, mi) || s[16] != ':' ||
      !num(17, 2, se))
    return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return false;
  std::size_t i = 19;
  std::int64_t frac = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    std::size_t n = 0;
    std::int64_t scale = 1'000'000;  // the first digit is 10^6 ticks (100 ms)
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (n < 7) frac += (s[i] - '0') * scale, scale /= 10;
      ++i;
      if (++n > 9) return false;
    }
    if (n == 0) return false;
  }
  std::int64_t offset = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    unsigned oh = 0, om = 0;
    if (!num(i + 1, 2, oh) || i + 3 >= s.size() || s[i + 3] != ':' || !num(i + 4, 2, om) || oh > 23 || om > 59) return false;
    offset = (s[i] == '+' ? 1 : -1) * static_cast<std::int64_t>(oh * 3600 + om * 60);
    i += 6;
  } else {
    return false;
  }
  if (i != s.size()) return false;
  const std::int64_t days = ua::days_from_civil(y, mo, d);
  const std::int64_t secs = days * 86400 + h * 3600 + mi * 60 + se - offset;
  out.ticks = ua::date_time::unix_epoch_ticks + secs * ua::date_time::ticks_per_second + frac;
  return true;
}

void append_variant_value(std::string& out, const ua::variant& v) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          out.append("null");
        } else if constexpr (is_ua_array<T>::value) {
          out += '[';
          bool first = true;
          for (const auto& e : x) {
            if (!first) out += ',';
            first = false;
            if constexpr (std::is_same_v<typename T::value_type, bool>) append_scalar(out, static_cast<bool>(e));
            else append_scalar(out, e);
          }
          out += ']';
        } else {
          append_scalar(out, x);
        }
      },
      v.value());
}

void append_field(std::string& out, const ua::data_value& dv, field_encoding e) {
  const auto type = static_cast<unsigned>(dv.value.type());
  const auto type_and_value = [&] {
    out.append("\"UaType\":");
    append_integer(out, type);
    if (!dv.value.empty()) {
      out.append(",\"Value\":");
      append_variant_value(out, dv.value);
    }
    if (!dv.value.dimensions().empty()) {
      out.append(",\"Dimensions\":[");
      for (std::size_t i = 0; i < dv.value.dimensions().size(); ++i) {
        if (i) out += ',';
        append_integer(out, dv.value.dimensions()[i]);
      }
      out += ']';
    }
  };
  switch (e) {
    case field_encoding::raw:
      append_variant_value(out, dv.value);
      return;
    case field_encoding::variant:
      if (dv.value.empty()) return out.append("null"), void();
      out += '{';
      type_and_value();
      out += '}';
      return;
    case field_encoding::data_value:
      out += '{';
      if (!dv.value.empty()) type_and_value();
      // Part 6 §5.4.2.18: Status left out when Good, timestamps when not set.
      const auto sep = [&] { if (out.back() != '{') out += ','; };
      if (!dv.status.is_good() || dv.status.value() != 0) {
        sep();
        out.append("\"Status\":");
        append_integer(out, dv.status.value());
      }
      if (dv.source_timestamp.ticks != 0) {
        sep();
        out.append("\"SourceTimestamp\":\"");
        append_date_time(out, dv.source_timestamp);
        out += '"';
      }
      if (dv.server_timestamp.ticks != 0) {
        sep();
        out.append("\"ServerTimestamp\":\"");
        append_date_time(out, dv.server_timestamp);
        out += '"';
      }
      out += '}';
      return;
  }
}

// ------------------------------------------------------------------------------------------
// Reading

namespace {

template <class T>
bool integer_in_range(const json_value& v, T& out) {
  std::int64_t n = 0;
  if (v.type == json_type::number && v.integral) {
    n = v.integer;
  } else if (v.type == json_type::string) {  // Int64 as text, and leniently any integer as text
    const auto r = std::from_chars(v.text.data(), v.text.data() + v.text.size(), n);
    if (r.ec != std::errc() || r.ptr != v.text.data() + v.text.size()) {
      if constexpr (std::is_same_v<T, std::uint64_t>) {
        std::uint64_t u = 0;
        const auto ru = std::from_chars(v.text.data(), v.text.data() + v.text.size(), u);
        if (ru.ec == std::errc() && ru.ptr == v.text.data() + v.text.size()) return out = u, true;
      }
      return false;
    }
  } else if (v.type == json_type::number && std::isfinite(v.number) && std::floor(v.number) == v.number &&
             std::fabs(v.number) < 9.2e18) {
    n = static_cast<std::int64_t>(v.number);
  } else {
    return false;
  }
  if constexpr (std::is_same_v<T, std::uint64_t>) {
    if (n < 0) return false;
  } else {
    if (n < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
        n > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
      return false;
  }
  out = static_cast<T>(n);
  return true;
}

bool floating(const json_value& v, double& out) {
  if (v.type == json_type::number) return out = v.number, true;
  if (v.type != json_type::string) return false;
  if (v.text == "NaN") return out = std::numeric_limits<double>::quiet_NaN(), true;
  if (v.text == "Infinity") return out = std::numeric_limits<double>::infinity(), true;
  if (v.text == "-Infinity") return out = -std::numeric_limits<double>::infinity(), true;
  return false;
}

template <class T>
bool scalar_of(const json_value& v, T& out, std::string& why);

template <>
bool scalar_of(const json_value& v, bool& out, std::string&) {
  if (v.type != json_type::boolean) return false;
  out = v.boolean;
  return true;
}
#define UACTOR_PUBSUB_INT(T) \
  template <> bool scalar_of(const json_value& v, T& out, std::string&) { return integer_in_range(v, out); }
UACTOR_PUBSUB_INT(std::int8_t)
UACTOR_PUBSUB_INT(std::uint8_t)
UACTOR_PUBSUB_INT(std::int16_t)
UACTOR_PUBSUB_INT(std::uint16_t)
UACTOR_PUBSUB_INT(std::int32_t)
UACTOR_PUBSUB_INT(std::uint32_t)
UACTOR_PUBSUB_INT(std::int64_t)
UACTOR_PUBSUB_INT(std::uint64_t)
#undef UACTOR_PUBSUB_INT
template <>
bool scalar_of(const json_value& v, float& out, std::string&) {
  double d = 0;
  if (!floating(v, d)) return false;
  out = static_cast<float>(d);
  return true;
}
template <>
bool scalar_of(const json_value& v, double& out, std::string&) { return floating(v, out); }
template <>
bool scalar_of(const json_value& v, ua::ua_string& out, std::string&) {
  if (v.type == json_type::null) return out.set_null(), true;
  if (v.type != json_type::string) return false;
  out.assign(v.text);
  return true;
}
template <>
bool scalar_of(const json_value& v, ua::xml_element& out, std::string&) {
  if (v.type != json_type::string) return false;
  out.assign(v.text);
  return true;
}
template <>
bool scalar_of(const json_value& v, ua::date_time& out, std::string&) {
  return v.type == json_type::string && parse_date_time(v.text, out);
}
template <>
bool scalar_of(const json_value& v, ua::guid& out, std::string& why) {
  if (v.type != json_type::string) return false;
  auto g = ua::parse_guid(v.text, &why);
  if (!g) return false;
  out = *g;
  return true;
}
template <>
bool scalar_of(const json_value& v, ua::byte_string& out, std::string&) {
  if (v.type == json_type::null) return out.set_null(), true;
  if (v.type != json_type::string) return false;
  auto b = ua::base64_decode(v.text, v.text.size());
  if (!b) return false;
  out.assign(*b);
  return true;
}
template <>
bool scalar_of(const json_value& v, ua::node_id& out, std::string& why) {
  if (v.type != json_type::string) return false;
  auto id = ua::parse_node_id(v.text, &why);
  if (!id) return false;
  out = std::move(*id);
  return true;
}
template <>
bool scalar_of(const json_value& v, ua::expanded_node_id& out, std::string& why) {
  if (v.type != json_type::string) return false;
  auto id = ua::parse_expanded_node_id(v.text, &why);
  if (!id) return false;
  out = std::move(*id);
  return true;
}
template <>
bool scalar_of(const json_value& v, ua::status_code& out, std::string&) {
  std::uint32_t n = 0;
  if (!integer_in_range(v, n)) return false;
  out = ua::status_code(n);
  return true;
}
template <>
bool scalar_of(const json_value& v, ua::qualified_name& out, std::string&) {
  if (v.type != json_type::string) return false;
  const auto colon = v.text.find(':');
  std::uint16_t ns = 0;
  if (colon != std::string::npos) {
    const auto r = std::from_chars(v.text.data(), v.text.data() + colon, ns);
    if (r.ec == std::errc() && r.ptr == v.text.data() + colon) {
      out.namespace_index = ns;
      out.name.assign(std::string_view(v.text).substr(colon + 1));
      return true;
    }
  }
  out.namespace_index = 0;
  out.name.assign(v.text);
  return true;
}

const json_value* member_of(const json_reader& r, const json_value& obj, std::string_view name) { return r.member(obj, name); }

template <class T>
bool read_typed(const json_reader& r, const json_value& v, ua::variant& out, std::string& why) {
  const auto one = [&](const json_value& e, T& x) {
    if constexpr (std::is_same_v<T, ua::localized_text>) {
      if (e.type == json_type::string) return x.text.assign(e.text), x.locale.set_null(), true;
      if (e.type != json_type::object) return false;
      const auto* l = member_of(r, e, "Locale");
      const auto* t = member_of(r, e, "Text");
      if (l && l->type == json_type::string) x.locale.assign(l->text); else x.locale.set_null();
      if (t && t->type == json_type::string) x.text.assign(t->text); else x.text.set_null();
      return true;
    } else {
      return scalar_of(e, x, why);
    }
  };
  if (v.type == json_type::array) {
    ua::ua_array<T> a;
    a.reserve(v.count);
    for (auto i = r.first(v); i != 0; i = r.next(i)) {
      T x{};
      if (!one(r.at(i), x)) return false;
      a.push_back(std::move(x));
    }
    out = std::move(a);
    return true;
  }
  T x{};
  if (!one(v, x)) return false;
  out = std::move(x);
  return true;
}

}  // namespace

ua::status_code read_value(const json_reader& r, const json_value& v, ua::builtin_type type, ua::variant& out,
                           std::string& why) {
  using B = ua::builtin_type;
  if (v.type == json_type::null) {
    out.clear();
    return ua::status::good;
  }
  bool ok = false;
  switch (type) {
    case B::boolean: ok = read_typed<bool>(r, v, out, why); break;
    case B::sbyte: ok = read_typed<std::int8_t>(r, v, out, why); break;
    case B::byte: ok = read_typed<std::uint8_t>(r, v, out, why); break;
    case B::int16: ok = read_typed<std::int16_t>(r, v, out, why); break;
    case B::uint16: ok = read_typed<std::uint16_t>(r, v, out, why); break;
    case B::int32: ok = read_typed<std::int32_t>(r, v, out, why); break;
    case B::uint32: ok = read_typed<std::uint32_t>(r, v, out, why); break;
    case B::int64: ok = read_typed<std::int64_t>(r, v, out, why); break;
    case B::uint64: ok = read_typed<std::uint64_t>(r, v, out, why); break;
    case B::float_: ok = read_typed<float>(r, v, out, why); break;
    case B::double_: ok = read_typed<double>(r, v, out, why); break;
    case B::string: ok = read_typed<ua::ua_string>(r, v, out, why); break;
    case B::date_time: ok = read_typed<ua::date_time>(r, v, out, why); break;
    case B::guid: ok = read_typed<ua::guid>(r, v, out, why); break;
    case B::byte_string: ok = read_typed<ua::byte_string>(r, v, out, why); break;
    case B::xml_element: ok = read_typed<ua::xml_element>(r, v, out, why); break;
    case B::node_id: ok = read_typed<ua::node_id>(r, v, out, why); break;
    case B::expanded_node_id: ok = read_typed<ua::expanded_node_id>(r, v, out, why); break;
    case B::status_code: ok = read_typed<ua::status_code>(r, v, out, why); break;
    case B::qualified_name: ok = read_typed<ua::qualified_name>(r, v, out, why); break;
    case B::localized_text: ok = read_typed<ua::localized_text>(r, v, out, why); break;
    case B::null: {
      // No type known: JSON's own (a raw field without metadata).
      if (v.type == json_type::boolean) return out = v.boolean, ua::status::good;
      if (v.type == json_type::number) {
        if (v.integral) out = v.integer;
        else out = v.number;
        return ua::status::good;
      }
      if (v.type == json_type::string) return out = ua::ua_string(v.text), ua::status::good;
      why = "a raw field that is an object or array needs its type (DataSetMetaData)";
      return ua::status::bad_decoding_error;
    }
    default:
      why = "built-in type " + std::to_string(static_cast<unsigned>(type)) + " is not read from PubSub JSON";
      return ua::status::bad_decoding_error;
  }
  if (!ok) {
    if (why.empty()) why = "the value does not match built-in type " + std::to_string(static_cast<unsigned>(type));
    return ua::status::bad_decoding_error;
  }
  return ua::status::good;
}

ua::status_code read_field(const json_reader& r, const json_value& v, ua::builtin_type type, ua::data_value& out,
                           std::string& why) {
  out = ua::data_value{};
  // An object with UaType (1.05) or Type (1.04's reversible form) carries its own type; a
  // DataValue may also carry Status and timestamps. LocalizedText objects have neither.
  const json_value* ua_type = nullptr;
  const json_value* value = nullptr;
  if (v.type == json_type::object) {
    ua_type = r.member(v, "UaType");
    value = r.member(v, "Value");
    if (!ua_type) {
      if (const auto* t = r.member(v, "Type")) ua_type = t, value = r.member(v, "Body");
    }
    // 1.04's DataValue: {"Value":{"Type":..,"Body":..},"Status":..}
    if (!ua_type && value && value->type == json_type::object) {
      ua_type = r.member(*value, "UaType");
      const json_value* inner = r.member(*value, "Value");
      if (!ua_type) ua_type = r.member(*value, "Type"), inner = r.member(*value, "Body");
      if (ua_type) value = inner;
    }
  }
  // A DataValue or Variant object: one of its members, or {} (a DataValue of defaults, Part 6
  // §5.4.2.18: what a field without value or status encodes to).
  const bool wrapped = v.type == json_type::object &&
                       (ua_type || value || v.count == 0 || r.member(v, "Status") || r.member(v, "SourceTimestamp") ||
                        r.member(v, "ServerTimestamp"));
  if (wrapped) {
    std::uint8_t t = 0;
    if (ua_type && !integer_in_range(*ua_type, t)) {
      why = "UaType is not a built-in type id";
      return ua::status::bad_decoding_error;
    }
    if (t > static_cast<std::uint8_t>(ua::builtin_type::diagnostic_info)) {
      why = "UaType " + std::to_string(t) + " is not a built-in type";
      return ua::status::bad_decoding_error;
    }
    // Without a UaType the value is read as the caller's type (metadata, the target), else JSON's.
    if (value && (t != 0 || !ua_type)) {
      const auto sc = read_value(r, *value, t != 0 ? static_cast<ua::builtin_type>(t) : type, out.value, why);
      if (sc.is_bad()) return sc;
      out.has_value = !out.value.empty();
      if (const auto* dims = r.member(v, "Dimensions"); dims && dims->type == json_type::array) {
        auto& d = out.value.dimensions();
        for (auto i = r.first(*dims); i != 0; i = r.next(i)) {
          std::int32_t n = 0;
          if (!integer_in_range(r.at(i), n)) return why = "Dimensions holds a non-integer", ua::status::bad_decoding_error;
          d.push_back(n);
        }
      }
    }
    if (const auto* s = r.member(v, "Status")) {
      std::uint32_t code = 0;
      if (s->type == json_type::object) {  // the VerboseEncoding: {"Code":..,"Symbol":..}
        const auto* c = r.member(*s, "Code");
        if (!c || !integer_in_range(*c, code)) return why = "Status.Code is not a UInt32", ua::status::bad_decoding_error;
      } else if (!integer_in_range(*s, code)) {
        return why = "Status is not a UInt32", ua::status::bad_decoding_error;
      }
      out.status = ua::status_code(code);
      out.has_status = true;
    }
    if (const auto* ts = r.member(v, "SourceTimestamp")) {
      if (ts->type != json_type::string || !parse_date_time(ts->text, out.source_timestamp))
        return why = "SourceTimestamp is not a DateTime", ua::status::bad_decoding_error;
      out.has_source_timestamp = true;
    }
    if (const auto* ts = r.member(v, "ServerTimestamp")) {
      if (ts->type != json_type::string || !parse_date_time(ts->text, out.server_timestamp))
        return why = "ServerTimestamp is not a DateTime", ua::status::bad_decoding_error;
      out.has_server_timestamp = true;
    }
    return ua::status::good;
  }
  const auto sc = read_value(r, v, type, out.value, why);
  out.has_value = sc.is_good() && !out.value.empty();
  return sc;
}

namespace {

template <class To>
bool convert_number(ua::variant& v) {
  bool ok = false;
  To result{};
  std::visit(
      [&](const auto& x) {
        using From = std::decay_t<decltype(x)>;
        if constexpr (std::is_arithmetic_v<From>) {
          if constexpr (std::is_same_v<To, bool>) {
            if (x == From(0) || x == From(1)) result = x != From(0), ok = true;
          } else if constexpr (std::is_floating_point_v<To>) {
            result = static_cast<To>(x);
            ok = true;
          } else if constexpr (std::is_floating_point_v<From>) {
            if (std::isfinite(x) && std::floor(x) == x && x >= static_cast<From>(std::numeric_limits<To>::min()) &&
                x <= static_cast<From>(std::numeric_limits<To>::max()))
              result = static_cast<To>(x), ok = true;
          } else if constexpr (std::is_same_v<From, bool>) {
            result = static_cast<To>(x);
            ok = true;
          } else {
            if (std::in_range<To>(x)) result = static_cast<To>(x), ok = true;
          }
        }
      },
      v.value());
  if (ok) v = result;
  return ok;
}

}  // namespace

ua::status_code convert_to(ua::variant& v, ua::builtin_type to) {
  using B = ua::builtin_type;
  if (v.empty() || v.type() == to) return ua::status::good;
  if (v.is_array()) return ua::status::bad_type_mismatch;
  bool ok = false;
  switch (to) {
    case B::boolean: ok = convert_number<bool>(v); break;
    case B::sbyte: ok = convert_number<std::int8_t>(v); break;
    case B::byte: ok = convert_number<std::uint8_t>(v); break;
    case B::int16: ok = convert_number<std::int16_t>(v); break;
    case B::uint16: ok = convert_number<std::uint16_t>(v); break;
    case B::int32: ok = convert_number<std::int32_t>(v); break;
    case B::uint32: ok = convert_number<std::uint32_t>(v); break;
    case B::int64: ok = convert_number<std::int64_t>(v); break;
    case B::uint64: ok = convert_number<std::uint64_t>(v); break;
    case B::float_: ok = convert_number<float>(v); break;
    case B::double_: ok = convert_number<double>(v); break;
    default: break;
  }
  return ok ? ua::status::good : ua::status::bad_type_mismatch;
}

}  // namespace uactor::pubsub
