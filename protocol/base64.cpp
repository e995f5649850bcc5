// Base64 both ways (base64.hpp).
#include "protocol/base64.hpp"

#include "uactor/ua/status_codes.hpp"

namespace uactor::ua {

namespace {

constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

status_code refuse(status_code sc, std::string* why, std::string what) {
  if (why) *why = std::move(what);
  return sc;
}

std::string printable(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7F) return std::string("'") + c + "'";
  static constexpr char hex[] = "0123456789ABCDEF";
  return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

}  // namespace

std::string base64_encode(std::span<const std::uint8_t> in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const std::uint32_t v = std::uint32_t{in[i]} << 16 | std::uint32_t{in[i + 1]} << 8 | in[i + 2];
    out += {alphabet[v >> 18], alphabet[v >> 12 & 63], alphabet[v >> 6 & 63], alphabet[v & 63]};
  }
  if (const std::size_t left = in.size() - i) {
    const std::uint32_t v = std::uint32_t{in[i]} << 16 | (left == 2 ? std::uint32_t{in[i + 1]} << 8 : 0);
    out += {alphabet[v >> 18], alphabet[v >> 12 & 63], left == 2 ? alphabet[v >> 6 & 63] : '=', '='};
  }
  return out;
}

std::string base64_encode(std::string_view bytes) {
  return base64_encode(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
}

expected<std::string> base64_decode(std::string_view text, std::size_t max_bytes, base64_whitespace whitespace,
                                    std::string* why) {
  // First pass: check every character and count the significant ones, so that the limit is
  // checked before anything is allocated.
  std::size_t chars = 0, padding = 0;
  for (std::size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (whitespace == base64_whitespace::skip && is_space(c)) continue;
    if (c == '=') {
      ++padding;
    } else if (sextet(c) < 0) {
      return refuse(status::bad_decoding_error, why, "base64: " + printable(c) + " at offset " + std::to_string(at) +
                                                         " is not of the base64 alphabet");
    } else if (padding) {
      return refuse(status::bad_decoding_error, why,
                    "base64: data after the '=' padding at offset " + std::to_string(at));
    }
    ++chars;
  }
  if (chars % 4 != 0)
    return refuse(status::bad_decoding_error, why,
                  "base64: " + std::to_string(chars) + " characters, not a multiple of 4 (missing '=' padding?)");
  if (padding > 2) return refuse(status::bad_decoding_error, why, "base64: more than two '=' of padding");
  const std::size_t size = chars / 4 * 3 - padding;
  if (size > max_bytes)
    return refuse(status::bad_encoding_limits_exceeded, why,
                  "base64: " + std::to_string(size) + " bytes, more than the limit of " + std::to_string(max_bytes));

  std::string out;
  out.reserve(size);
  std::uint32_t group = 0;
  int in_group = 0;
  for (const char c : text) {
    if (c == '=' || (whitespace == base64_whitespace::skip && is_space(c))) continue;
    group = group << 6 | static_cast<std::uint32_t>(sextet(c));
    if (++in_group == 4) {
      out += {static_cast<char>(group >> 16), static_cast<char>(group >> 8 & 0xFF), static_cast<char>(group & 0xFF)};
      group = 0;
      in_group = 0;
    }
  }
  // The last group, short by the padding: 2 characters carry one byte (4 bits over), 3 carry two
  // (2 bits over). RFC 4648 §3.5: those bits must be zero, or two texts would mean one value.
  if (in_group == 2) {
    if (group & 0xF) return refuse(status::bad_decoding_error, why, "base64: the bits before '==' are not zero");
    out += static_cast<char>(group >> 4);
  } else if (in_group == 3) {
    if (group & 0x3) return refuse(status::bad_decoding_error, why, "base64: the bits before '=' are not zero");
    out += {static_cast<char>(group >> 10), static_cast<char>(group >> 2 & 0xFF)};
  }
  return out;
}

}  // namespace uactor::ua
