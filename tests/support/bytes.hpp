// Test helpers: byte vectors from hex, hex from bytes, and files of the source tree.
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace uactor::test {

using bytes = std::vector<std::uint8_t>;

// "01 00 77 02" or "01007702" -> bytes.
inline bytes from_hex(std::string_view hex) {
  bytes out;
  int hi = -1;
  for (char c : hex) {
    int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (v < 0) continue;
    if (hi < 0) hi = v;
    else { out.push_back(static_cast<std::uint8_t>(hi << 4 | v)); hi = -1; }
  }
  return out;
}

inline std::string to_hex(const bytes& b) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  for (auto x : b) { if (!s.empty()) s += ' '; s += digits[x >> 4]; s += digits[x & 15]; }
  return s;
}

inline std::string source_dir() { return UACTOR_SOURCE_DIR; }

inline bytes read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace uactor::test
