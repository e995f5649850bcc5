// WebSocket frames (RFC 6455 §5.2): the header's encoding and decoding and the masking of a
// payload (§5.3). Pure functions, no I/O: the native opc.wss transport (actors/wss/wss_native,
// docs/decisions/0073) frames and reads with them, ws_receiver reassembles messages from them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace uactor::ua {

enum class ws_opcode : std::uint8_t { continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA };

// The close codes we send (RFC 6455 §7.4.1).
namespace ws_close {
inline constexpr std::uint16_t normal = 1000;
inline constexpr std::uint16_t protocol_error = 1002;
inline constexpr std::uint16_t unsupported_data = 1003;  // a text frame: opcua+uacp is binary (Part 6 §7.5.2)
inline constexpr std::uint16_t no_status = 1005;         // a close frame without a code (never sent)
inline constexpr std::uint16_t too_big = 1009;
}  // namespace ws_close

inline constexpr std::size_t ws_max_header_size = 14;       // 2 + 8 (64-bit length) + 4 (mask)
inline constexpr std::size_t ws_max_control_payload = 125;  // §5.5

struct ws_frame_header {
  bool fin = true;
  ws_opcode opcode = ws_opcode::binary;
  bool masked = false;
  std::array<std::uint8_t, 4> mask{};
  std::uint64_t payload_length = 0;
  std::size_t header_size = 0;  // bytes of the header on the wire
};

enum class ws_header_result : std::uint8_t {
  complete,        // `out` holds the header; the payload follows (maybe not all of it yet)
  need_more,       // fewer bytes than the header has
  protocol_error,  // reserved bits set (no extension is negotiated), an unknown opcode, a control
                   // frame fragmented or over 125 bytes, a 64-bit length with its top bit set (§5.2)
};

// Decodes the header at the front of `in`.
ws_header_result decode_ws_frame_header(std::span<const std::uint8_t> in, ws_frame_header& out) noexcept;

// Writes a header with the shortest length encoding (§5.2: the minimal number of bytes) and,
// when `mask` is given, the masking key; returns its size (2 to 14).
std::size_t encode_ws_frame_header(std::span<std::uint8_t, ws_max_header_size> out, bool fin, ws_opcode opcode,
                                   std::uint64_t payload_length, const std::array<std::uint8_t, 4>* mask = nullptr) noexcept;

// XORs `data` with the masking key (§5.3), `offset` the position of data[0] in the payload (a
// payload unmasked in pieces). Masking and unmasking are the same operation.
void ws_apply_mask(std::span<std::uint8_t> data, const std::array<std::uint8_t, 4>& mask, std::size_t offset = 0) noexcept;

}  // namespace uactor::ua
