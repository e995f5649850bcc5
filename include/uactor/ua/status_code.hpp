// StatusCode as a value type (Part 4 §7.39, Part 6 §5.2.2.11) that knows its symbolic name.
// The named constants are generated from StatusCode.csv into protocol/generated/status_codes.hpp.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace uactor::ua {

class status_code {
public:
  constexpr status_code() noexcept = default;
  constexpr explicit status_code(std::uint32_t value) noexcept : value_(value) {}

  constexpr std::uint32_t value() const noexcept { return value_; }
  // Severity lives in the top two bits: 00 good, 01 uncertain, 10 bad.
  constexpr bool is_good() const noexcept { return (value_ >> 30) == 0; }
  constexpr bool is_uncertain() const noexcept { return (value_ >> 30) == 1; }
  constexpr bool is_bad() const noexcept { return (value_ >> 30) >= 2; }
  // The code without the info bits (the low 16 bits carry flags, not identity).
  constexpr std::uint32_t code() const noexcept { return value_ & 0xFFFF0000u; }

  // "BadNodeIdUnknown" as StatusCode.csv spells it; empty when the code is not known.
  std::string_view name() const noexcept;
  // "BadNodeIdUnknown (0x80340000)".
  std::string to_string() const;

  friend constexpr bool operator==(status_code, status_code) noexcept = default;

private:
  std::uint32_t value_ = 0;
};

// The symbolic name of a code, ignoring its info bits; empty when unknown.
std::string_view status_code_name(std::uint32_t code) noexcept;

std::ostream& operator<<(std::ostream&, status_code);

}  // namespace uactor::ua
