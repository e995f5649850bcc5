#include "protocol/ws_uacp.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "protocol/uatcp.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::ua {

namespace {

std::string_view trim_ws_token(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool same_without_case(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

status_code check_ws_chunk(std::span<const std::uint8_t> frame, std::uint32_t max_chunk) noexcept {
  if (frame.size() < message_header_size) return status::bad_decoding_error;
  const auto h = parse_message_header(frame.first<message_header_size>());
  if (!h) return h.error();
  if (h->message_size > max_chunk) return status::bad_tcp_message_too_large;
  if (h->message_size != frame.size()) return status::bad_decoding_error;
  return status::good;
}

std::size_t complete_chunk_length(std::span<const std::uint8_t> in, std::uint32_t max_chunk, status_code& bad) noexcept {
  if (in.size() < message_header_size) return 0;
  std::uint32_t size;
  std::memcpy(&size, in.data() + 4, 4);  // little endian on the wire and on the machines we build for (uatcp.cpp does the same)
  if (size < message_header_size) {
    bad = status::bad_decoding_error;
    return 0;
  }
  if (size > max_chunk) {
    bad = status::bad_tcp_message_too_large;
    return 0;
  }
  return in.size() >= size ? size : 0;
}

bool requests_uacp_subprotocol(std::string_view header) noexcept {
  while (!header.empty()) {
    const auto comma = header.find(',');
    const auto token = trim_ws_token(header.substr(0, comma));
    if (token == ws_uacp_subprotocol) return true;  // subprotocol names are case sensitive (RFC 6455 §4.1)
    if (comma == std::string_view::npos) break;
    header.remove_prefix(comma + 1);
  }
  return false;
}

bool origin_allowed(std::string_view origin, std::span<const std::string> allowed) noexcept {
  if (origin.empty()) return true;
  origin = trim_ws_token(origin);
  return std::ranges::any_of(allowed, [origin](const std::string& a) { return a == "*" || same_without_case(a, origin); });
}

}  // namespace uactor::ua
