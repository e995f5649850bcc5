// NumericRange (Part 4 §7.27, formerly §7.22): parsing the IndexRange string of Read and Write, and
// applying it to a Variant. Plain values, no allocation in parse; apply works on the caller's value.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "uactor/ua/expected.hpp"
#include "uactor/ua/variant.hpp"

namespace uactor::services {

// One range per dimension, inclusive bounds ("5" is {5, 5}, "5:7" is {5, 7}).
struct numeric_range {
  struct dimension {
    std::uint32_t lo = 0;
    std::uint32_t hi = 0;
    std::uint64_t count() const noexcept { return std::uint64_t{hi} - lo + 1; }
  };
  static constexpr std::size_t max_dimensions = 8;
  std::array<dimension, max_dimensions> dims{};
  std::size_t size = 0;  // dimensions in use; 0 for a null or empty string ("no range")

  bool empty() const noexcept { return size == 0; }
};

// Bad_IndexRangeInvalid for a malformed range ("3:1", "1:1", "-1", "1:", "a", white space,
// more than max_dimensions); an empty range for an empty string.
ua::expected<numeric_range> parse_numeric_range(std::string_view s) noexcept;

// Reduces `v` in place to the part the range selects (Read): a one-dimensional array, a matrix
// (one range per dimension), a String or ByteString as an array of bytes, and an array of
// Strings/ByteStrings with one more range for the bytes of each element. Ends past the data are
// clamped; Bad_IndexRangeNoData when a range starts beyond the data or the value has no such
// dimensions (a scalar, a null value). Returns Good or that status.
ua::status_code apply_numeric_range(ua::variant& v, const numeric_range& r);

// Writes `src` into the part of `dst` the range selects (Write): one-dimensional arrays of the
// same type (and String/ByteString as bytes). Bad_IndexRangeNoData when the range is not inside
// `dst`, Bad_IndexRangeDataMismatch when `src` does not have exactly the range's length,
// Bad_TypeMismatch for different types, Bad_WriteNotSupported for more than one dimension.
ua::status_code write_numeric_range(ua::variant& dst, const ua::variant& src, const numeric_range& r);

}  // namespace uactor::services
