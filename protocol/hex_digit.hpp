// The value of one hexadecimal digit, for the text forms that carry them (Guids, percent-encoded
// URIs, 0x byte strings).
#pragma once

namespace uactor::ua {

// 0 to 15, or -1 when `c` is no hex digit (either case).
constexpr int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace uactor::ua
