// NumericRange (Part 4 §7.27): parse, apply on Read, write on Write.
#include "engine/server/services/index_range.hpp"

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "uactor/ua/status_codes.hpp"

namespace uactor::services {

using ua::status_code;
namespace status = ua::status;

namespace {

// Decimal digits only (no sign, no white space), within UInt32.
bool parse_index(std::string_view s, std::uint32_t& out) noexcept {
  if (s.empty() || s.size() > 10) return false;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (v > 0xFFFF'FFFFu) return false;
  out = static_cast<std::uint32_t>(v);
  return true;
}

template <class T> struct is_ua_array : std::false_type {};
template <class E> struct is_ua_array<ua::ua_array<E>> : std::true_type { using element = E; };

template <class T>
constexpr bool is_bytes_v = std::is_same_v<T, ua::ua_string> || std::is_same_v<T, ua::byte_string>;

// Keeps elements [lo, min(hi, size-1)] of a sequence; Bad_IndexRangeNoData when lo is past the end.
template <class Vec>
status_code slice(Vec& v, numeric_range::dimension d) {
  if (d.lo >= v.size()) return status::bad_index_range_no_data;
  const std::size_t end = std::min<std::size_t>(std::size_t{d.hi} + 1, v.size());
  v.erase(v.begin() + static_cast<std::ptrdiff_t>(end), v.end());
  v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(d.lo));
  return status::good;
}

template <class Bytes>
status_code slice_bytes(Bytes& b, numeric_range::dimension d) {
  if (b.is_null() || d.lo >= b.size()) return status::bad_index_range_no_data;
  const std::size_t end = std::min<std::size_t>(std::size_t{d.hi} + 1, b.size());
  b.assign(b.data() + d.lo, end - d.lo);  // std::string::assign copes with its own characters
  return status::good;
}

// A matrix (Part 6 §5.2.2.16: the last index varies fastest), one range per dimension.
template <class E>
status_code slice_matrix(ua::ua_array<E>& a, ua::ua_array<std::int32_t>& dims, const numeric_range& r) {
  if (r.size != dims.size()) return status::bad_index_range_no_data;
  std::array<std::size_t, numeric_range::max_dimensions> lo{}, count{};
  std::size_t total = 1, expected_size = 1;
  for (std::size_t k = 0; k < r.size; ++k) {
    const auto n = static_cast<std::size_t>(std::max(dims[k], 0));
    expected_size *= n;
    if (r.dims[k].lo >= n) return status::bad_index_range_no_data;
    lo[k] = r.dims[k].lo;
    count[k] = std::min<std::size_t>(std::size_t{r.dims[k].hi} + 1, n) - lo[k];
    total *= count[k];
  }
  if (expected_size != a.size()) return status::bad_index_range_no_data;  // inconsistent value
  ua::ua_array<E> out;
  out.reserve(total);
  std::array<std::size_t, numeric_range::max_dimensions> idx{};
  for (std::size_t i = 0; i < total; ++i) {
    std::size_t src = 0;
    for (std::size_t k = 0; k < r.size; ++k) src = src * static_cast<std::size_t>(dims[k]) + lo[k] + idx[k];
    out.push_back(a[src]);
    for (std::size_t k = r.size; k-- > 0;) {  // odometer, last dimension fastest
      if (++idx[k] < count[k]) break;
      idx[k] = 0;
    }
  }
  a = std::move(out);
  for (std::size_t k = 0; k < r.size; ++k) dims[k] = static_cast<std::int32_t>(count[k]);
  return status::good;
}

}  // namespace

ua::expected<numeric_range> parse_numeric_range(std::string_view s) noexcept {
  numeric_range r;
  if (s.empty()) return r;
  for (;;) {
    const auto comma = s.find(',');
    const std::string_view part = s.substr(0, comma);
    if (r.size == numeric_range::max_dimensions) return status::bad_index_range_invalid;
    auto& d = r.dims[r.size++];
    const auto colon = part.find(':');
    if (colon == std::string_view::npos) {
      if (!parse_index(part, d.lo)) return status::bad_index_range_invalid;
      d.hi = d.lo;
    } else {
      // "The first integer shall always have a lower value than the second": "5:5", "7:5" are invalid.
      if (!parse_index(part.substr(0, colon), d.lo) || !parse_index(part.substr(colon + 1), d.hi) ||
          d.lo >= d.hi)
        return status::bad_index_range_invalid;
    }
    if (comma == std::string_view::npos) return r;
    s.remove_prefix(comma + 1);
  }
}

status_code apply_numeric_range(ua::variant& v, const numeric_range& r) {
  if (r.empty()) return status::good;
  return std::visit(
      [&](auto& x) -> status_code {
        using T = std::decay_t<decltype(x)>;
        if constexpr (is_bytes_v<T>) {
          if (r.size != 1) return status::bad_index_range_no_data;
          return slice_bytes(x, r.dims[0]);
        } else if constexpr (is_ua_array<T>::value) {
          using E = typename is_ua_array<T>::element;
          if (!v.dimensions().empty()) return slice_matrix(x, v.dimensions(), r);
          if (r.size == 1) return slice(x, r.dims[0]);
          if constexpr (is_bytes_v<E>) {
            // Part 4 §7.27: an array of Strings/ByteStrings takes one more range for the bytes.
            if (r.size != 2) return status::bad_index_range_no_data;
            if (const auto sc = slice(x, r.dims[0]); sc.is_bad()) return sc;
            for (auto& e : x) {
              if (e.is_null() || r.dims[1].lo >= e.size()) e.assign(std::string_view{});
              else (void)slice_bytes(e, r.dims[1]);
            }
            return status::good;
          }
          return status::bad_index_range_no_data;
        } else {
          return status::bad_index_range_no_data;  // a scalar or an empty value
        }
      },
      v.value());
}

status_code write_numeric_range(ua::variant& dst, const ua::variant& src, const numeric_range& r) {
  if (r.empty()) return status::good;
  if (r.size != 1 || !dst.dimensions().empty()) return status::bad_write_not_supported;
  if (dst.value().index() != src.value().index()) return status::bad_type_mismatch;
  const auto d = r.dims[0];
  return std::visit(
      [&](auto& x) -> status_code {
        using T = std::decay_t<decltype(x)>;
        const T& s = *std::get_if<T>(&src.value());
        if constexpr (is_bytes_v<T>) {
          if (x.is_null() || d.hi >= x.size()) return status::bad_index_range_no_data;
          if (s.size() != d.count()) return status::bad_index_range_data_mismatch;
          std::string bytes(x.view());
          bytes.replace(d.lo, s.size(), s.view());
          x.assign(bytes);
          return status::good;
        } else if constexpr (is_ua_array<T>::value) {
          if (d.hi >= x.size()) return status::bad_index_range_no_data;
          if (s.size() != d.count()) return status::bad_index_range_data_mismatch;
          std::copy(s.begin(), s.end(), x.begin() + static_cast<std::ptrdiff_t>(d.lo));
          return status::good;
        } else {
          return status::bad_index_range_no_data;  // a scalar
        }
      },
      dst.value());
}

}  // namespace uactor::services
