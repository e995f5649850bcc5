// opc.wss with the opcua+uacp subprotocol (Part 6 §7.5.2, Table 75): every WebSocket frame carries
// exactly one MessageChunk (§6.7.2), binary (opcode 0x2, RFC 6455 §5.6). What the WebSocket
// transport checks of a received frame and how it cuts the chunks of our own byte stream back into
// frames, with the handshake's header rules. No sockets, no Beast: the transport feeds bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "uactor/ua/status_code.hpp"

namespace uactor::ua {

inline constexpr std::string_view ws_uacp_subprotocol = "opcua+uacp";
// Part 7's TransportProfileUri of opc.wss with UA Secure Conversation and UA Binary.
inline constexpr std::string_view wss_uacp_binary_profile = "http://opcfoundation.org/UA-Profile/Transport/wss-uasc-uabinary";

// One received frame: a valid message header (§7.1.2.2) whose MessageSize is the frame's length
// and at most `max_chunk` (the receive buffer we offer, the negotiated one after the Hello).
// Bad_TcpMessageTypeInvalid for an unknown type, Bad_TcpMessageTooLarge past the limit,
// Bad_DecodingError when the frame is not exactly one chunk (shorter, longer, or under 8 bytes).
status_code check_ws_chunk(std::span<const std::uint8_t> frame, std::uint32_t max_chunk) noexcept;

// The length of the first complete chunk at the front of `in` (our own output, which is well
// formed), 0 when its header or its rest has not arrived yet. A header whose size is below 8 or
// above `max_chunk` cannot be framed: Bad_TcpMessageTooLarge / Bad_DecodingError via `bad`.
std::size_t complete_chunk_length(std::span<const std::uint8_t> in, std::uint32_t max_chunk, status_code& bad) noexcept;

// Whether a Sec-WebSocket-Protocol header value (comma separated tokens, RFC 6455 §4.1) asks for
// opcua+uacp. The client shall request a protocol (§7.5.2): without it the upgrade is refused.
bool requests_uacp_subprotocol(std::string_view header) noexcept;

// The Origin check for browsers (RFC 6455 §10.2). A request without Origin is not a browser's and
// passes. With one: allowed when `allowed` (a comma-separated list of origins such as
// "https://hmi.plant.example", "null" for file: pages, or "*" for every origin) names it; the
// scheme and host compare without case. An empty list allows no browser.
bool origin_allowed(std::string_view origin, std::span<const std::string> allowed) noexcept;

}  // namespace uactor::ua
