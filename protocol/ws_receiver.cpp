#include "protocol/ws_receiver.hpp"

namespace uactor::ua {

namespace ws_receiver_rules {

// §7.4.1-§7.4.2: codes a peer may send in a close frame; the others fail the connection.
bool valid_close_code(std::uint16_t code) noexcept {
  if (code < 1000 || code >= 5000) return false;
  if (code == 1004 || code == 1005 || code == 1006 || code == 1015) return false;
  return code <= 1014 || code >= 3000;
}

}  // namespace ws_receiver_rules

std::uint16_t ws_receiver::put(std::span<std::uint8_t> in, ws_sink& sink) {
  std::size_t used = 0;
  bool stopped = false;
  if (carry_.empty()) {
    const auto fail = read_frames(in, sink, used, stopped);
    if (fail != 0) return fail;
    if (!stopped && used < in.size()) carry_.assign(in.begin() + static_cast<std::ptrdiff_t>(used), in.end());
    return 0;
  }
  carry_.insert(carry_.end(), in.begin(), in.end());
  const auto fail = read_frames(carry_, sink, used, stopped);
  if (fail != 0) return fail;
  if (stopped) carry_.clear();
  else carry_.erase(carry_.begin(), carry_.begin() + static_cast<std::ptrdiff_t>(used));
  return 0;
}

std::uint16_t ws_receiver::read_frames(std::span<std::uint8_t> data, ws_sink& sink, std::size_t& used, bool& stopped) {
  while (used < data.size()) {
    ws_frame_header h;
    const auto rest = data.subspan(used);
    switch (decode_ws_frame_header(rest, h)) {
      case ws_header_result::need_more: return 0;
      case ws_header_result::protocol_error: return ws_close::protocol_error;
      case ws_header_result::complete: break;
    }
    if (require_masked_ != h.masked) return ws_close::protocol_error;  // §5.1: masked from clients only
    const bool data_frame = (static_cast<std::uint8_t>(h.opcode) & 0x08) == 0;
    if (h.opcode == ws_opcode::text || (h.opcode == ws_opcode::continuation && !in_message_ && data_frame)) {
      // A text message is not ours (1003); a continuation of nothing is a protocol error.
      return h.opcode == ws_opcode::text && !in_message_ ? ws_close::unsupported_data : ws_close::protocol_error;
    }
    if (h.opcode == ws_opcode::binary && in_message_) return ws_close::protocol_error;  // §5.4: fragments interleaved
    // Bounded before the payload is waited for: a peer cannot make us hold more than a message.
    if (data_frame && h.payload_length > max_message_ - (h.opcode == ws_opcode::continuation ? message_.size() : 0))
      return ws_close::too_big;
    if (rest.size() - h.header_size < h.payload_length) return 0;  // the payload is not all here yet
    const auto payload = rest.subspan(h.header_size, static_cast<std::size_t>(h.payload_length));
    if (h.masked) ws_apply_mask(payload, h.mask);
    used += h.header_size + payload.size();
    bool go_on = true;
    switch (h.opcode) {
      case ws_opcode::binary:
        if (h.fin) {
          go_on = sink.on_message(payload);
        } else {
          message_.assign(payload.begin(), payload.end());
          in_message_ = true;
        }
        break;
      case ws_opcode::continuation:
        message_.insert(message_.end(), payload.begin(), payload.end());
        if (h.fin) {
          in_message_ = false;
          go_on = sink.on_message(message_);
          message_.clear();
        }
        break;
      case ws_opcode::ping: go_on = sink.on_ping(payload); break;
      case ws_opcode::pong: break;  // §5.5.3: an unsolicited pong needs no answer
      case ws_opcode::close: {
        if (payload.size() == 1) return ws_close::protocol_error;  // §5.5.1: a code is two bytes
        std::uint16_t code = ws_close::no_status;
        if (payload.size() >= 2) {
          code = static_cast<std::uint16_t>((payload[0] << 8) | payload[1]);
          if (!ws_receiver_rules::valid_close_code(code)) return ws_close::protocol_error;
        }
        go_on = sink.on_close(code);
        break;
      }
      case ws_opcode::text: break;  // refused above
    }
    if (!go_on) {
      stopped = true;
      return 0;
    }
  }
  return 0;
}

}  // namespace uactor::ua
