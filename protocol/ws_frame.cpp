#include "protocol/ws_frame.hpp"

#include <cstring>

namespace uactor::ua {

ws_header_result decode_ws_frame_header(std::span<const std::uint8_t> in, ws_frame_header& out) noexcept {
  if (in.size() < 2) return ws_header_result::need_more;
  const std::uint8_t b0 = in[0];
  const std::uint8_t b1 = in[1];
  if ((b0 & 0x70) != 0) return ws_header_result::protocol_error;  // RSV1-3 without an extension (§5.2)
  const auto op = static_cast<std::uint8_t>(b0 & 0x0F);
  const bool control = (op & 0x08) != 0;
  switch (op) {
    case 0x0: case 0x1: case 0x2: case 0x8: case 0x9: case 0xA: break;
    default: return ws_header_result::protocol_error;  // reserved opcodes (§5.2: fail the connection)
  }
  out.fin = (b0 & 0x80) != 0;
  out.opcode = static_cast<ws_opcode>(op);
  out.masked = (b1 & 0x80) != 0;
  std::size_t at = 2;
  std::uint64_t len = b1 & 0x7F;
  if (len == 126) {
    if (in.size() < at + 2) return ws_header_result::need_more;
    len = (std::uint64_t{in[2]} << 8) | in[3];
    at += 2;
  } else if (len == 127) {
    if (in.size() < at + 8) return ws_header_result::need_more;
    len = 0;
    for (std::size_t i = 0; i < 8; ++i) len = (len << 8) | in[2 + i];
    if (len >> 63) return ws_header_result::protocol_error;  // §5.2: the most significant bit MUST be 0
    at += 8;
  }
  // §5.5: control frames are not fragmented and carry at most 125 bytes.
  if (control && (!out.fin || len > ws_max_control_payload)) return ws_header_result::protocol_error;
  if (out.masked) {
    if (in.size() < at + 4) return ws_header_result::need_more;
    std::memcpy(out.mask.data(), in.data() + at, 4);
    at += 4;
  } else {
    out.mask = {};
  }
  out.payload_length = len;
  out.header_size = at;
  return ws_header_result::complete;
}

std::size_t encode_ws_frame_header(std::span<std::uint8_t, ws_max_header_size> out, bool fin, ws_opcode opcode,
                                   std::uint64_t payload_length, const std::array<std::uint8_t, 4>* mask) noexcept {
  out[0] = static_cast<std::uint8_t>((fin ? 0x80 : 0x00) | static_cast<std::uint8_t>(opcode));
  const std::uint8_t mask_bit = mask ? 0x80 : 0x00;
  std::size_t at = 2;
  if (payload_length < 126) {
    out[1] = static_cast<std::uint8_t>(mask_bit | payload_length);
  } else if (payload_length <= 0xFFFF) {
    out[1] = static_cast<std::uint8_t>(mask_bit | 126);
    out[2] = static_cast<std::uint8_t>(payload_length >> 8);
    out[3] = static_cast<std::uint8_t>(payload_length);
    at = 4;
  } else {
    out[1] = static_cast<std::uint8_t>(mask_bit | 127);
    for (std::size_t i = 0; i < 8; ++i) out[2 + i] = static_cast<std::uint8_t>(payload_length >> (56 - 8 * i));
    at = 10;
  }
  if (mask) {
    std::memcpy(out.data() + at, mask->data(), 4);
    at += 4;
  }
  return at;
}

void ws_apply_mask(std::span<std::uint8_t> data, const std::array<std::uint8_t, 4>& mask, std::size_t offset) noexcept {
  // Eight bytes at a time with the key rotated to the payload position, then the tail.
  std::uint8_t key[8];
  for (std::size_t i = 0; i < 8; ++i) key[i] = mask[(offset + i) & 3];
  std::uint64_t k8;
  std::memcpy(&k8, key, 8);
  std::size_t i = 0;
  for (; i + 8 <= data.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, data.data() + i, 8);
    w ^= k8;
    std::memcpy(data.data() + i, &w, 8);
  }
  for (; i < data.size(); ++i) data[i] ^= key[i & 7];
}

}  // namespace uactor::ua
