#include "scripting/value.hpp"

#include <cmath>
#include <limits>

#include "uactor/ua/status_codes.hpp"

namespace uactor::scripting {

script_value from_variant(const ua::variant& v) {
  return std::visit(
      [](const auto& x) -> script_value {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) return x;
        else if constexpr (std::is_same_v<T, std::uint64_t>) {
          if (x > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return static_cast<double>(x);
          return static_cast<std::int64_t>(x);
        } else if constexpr (std::is_integral_v<T>) return static_cast<std::int64_t>(x);
        else if constexpr (std::is_floating_point_v<T>) return static_cast<double>(x);
        else if constexpr (std::is_same_v<T, ua::ua_string>) return x.str();
        else return std::monostate{};
      },
      v.value());
}

namespace {

template <class T>
ua::status_code put_number(const script_value& v, ua::variant& out) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    if constexpr (std::is_floating_point_v<T>) {
      out = static_cast<T>(*i);
    } else {
      if (*i < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
          (*i > 0 && static_cast<std::uint64_t>(*i) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())))
        return ua::status::bad_out_of_range;
      out = static_cast<T>(*i);
    }
    return ua::status::good;
  }
  if (const auto* d = std::get_if<double>(&v)) {
    if constexpr (std::is_floating_point_v<T>) {
      out = static_cast<T>(*d);
    } else {
      if (!std::isfinite(*d) || std::trunc(*d) != *d) return ua::status::bad_type_mismatch;
      if (*d < static_cast<double>(std::numeric_limits<T>::min()) || *d > static_cast<double>(std::numeric_limits<T>::max()))
        return ua::status::bad_out_of_range;
      out = static_cast<T>(*d);
    }
    return ua::status::good;
  }
  return ua::status::bad_type_mismatch;
}

}  // namespace

ua::status_code to_variant(const script_value& v, ua::builtin_type type, ua::variant& out) {
  using bt = ua::builtin_type;
  switch (type) {
    case bt::boolean:
      if (const bool* b = std::get_if<bool>(&v)) { out = *b; return ua::status::good; }
      return ua::status::bad_type_mismatch;
    case bt::string:
      if (const auto* s = std::get_if<std::string>(&v)) { out = ua::ua_string(*s); return ua::status::good; }
      return ua::status::bad_type_mismatch;
    case bt::sbyte: return put_number<std::int8_t>(v, out);
    case bt::byte: return put_number<std::uint8_t>(v, out);
    case bt::int16: return put_number<std::int16_t>(v, out);
    case bt::uint16: return put_number<std::uint16_t>(v, out);
    case bt::int32: return put_number<std::int32_t>(v, out);
    case bt::uint32: return put_number<std::uint32_t>(v, out);
    case bt::int64: return put_number<std::int64_t>(v, out);
    case bt::uint64: return put_number<std::uint64_t>(v, out);
    case bt::float_: return put_number<float>(v, out);
    case bt::double_: return put_number<double>(v, out);
    default: return ua::status::bad_type_mismatch;
  }
}

}  // namespace uactor::scripting
