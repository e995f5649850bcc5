// A Guid's text both ways (guid_text.hpp).
#include "protocol/guid_text.hpp"

#include <cstdio>

#include "uactor/ua/status_codes.hpp"
#include "protocol/hex_digit.hpp"

namespace uactor::ua {

namespace {

constexpr std::size_t guid_text_size = 36;
constexpr std::size_t hyphens[] = {8, 13, 18, 23};

bool is_hyphen_position(std::size_t at) {
  for (const std::size_t h : hyphens)
    if (at == h) return true;
  return false;
}

}  // namespace

std::string guid::to_string() const {
  char buf[guid_text_size + 1];
  std::snprintf(buf, sizeof buf, "%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X", data1, data2, data3,
                data4[0], data4[1], data4[2], data4[3], data4[4], data4[5], data4[6], data4[7]);
  return buf;
}

expected<guid> parse_guid(std::string_view text, std::string* why) {
  const auto refuse = [&](std::string what) {
    if (why) *why = "Guid: " + std::move(what) + " (the form is 72962B91-FA75-4AE6-8D28-B404DC7DAF63)";
    return status::bad_decoding_error;
  };
  if (text.size() != guid_text_size)
    return refuse(std::to_string(text.size()) + " characters, not " + std::to_string(guid_text_size));
  // The 16 bytes in text order: Data1 to Data3 are written as numbers, most significant first,
  // Data4 byte by byte (Part 6 §5.1.3).
  std::uint8_t bytes[16];
  std::size_t n = 0;
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (is_hyphen_position(at)) {
      if (text[at] != '-') return refuse("a '-' is missing at offset " + std::to_string(at));
      continue;
    }
    const int hi = hex_digit(text[at]), lo = at + 1 < text.size() ? hex_digit(text[at + 1]) : -1;
    if (hi < 0 || lo < 0 || is_hyphen_position(at + 1))
      return refuse("a character at offset " + std::to_string(hi < 0 ? at : at + 1) + " is not a hex digit");
    bytes[n++] = static_cast<std::uint8_t>(hi << 4 | lo);
    ++at;
  }
  guid g;
  g.data1 = std::uint32_t{bytes[0]} << 24 | std::uint32_t{bytes[1]} << 16 | std::uint32_t{bytes[2]} << 8 | bytes[3];
  g.data2 = static_cast<std::uint16_t>(bytes[4] << 8 | bytes[5]);
  g.data3 = static_cast<std::uint16_t>(bytes[6] << 8 | bytes[7]);
  for (std::size_t i = 0; i < 8; ++i) g.data4[i] = bytes[8 + i];
  return g;
}

}  // namespace uactor::ua
