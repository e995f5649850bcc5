// The receiving side of a WebSocket (RFC 6455 §5.4-§5.5, §6.2): frames read from a byte stream
// that may split them anywhere, unmasked in place (§5.3), fragmented messages reassembled up to a
// limit, control frames passed on between fragments. Text frames are refused (opcua+uacp is
// binary, Part 6 §7.5.2). Pure: no I/O; the native opc.wss transport feeds it what TLS decrypted
// (actors/wss/wss_native, docs/decisions/0073). Bounded: it holds at most one frame's bytes and
// one message, both at most `max_message` (plus a header).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "protocol/ws_frame.hpp"

namespace uactor::ua {

// What the receiver finds; each returns false to stop reading (the rest stays unread).
class ws_sink {
public:
  virtual ~ws_sink() = default;
  virtual bool on_message(std::span<const std::uint8_t> payload) = 0;  // a whole binary message
  virtual bool on_ping(std::span<const std::uint8_t> payload) = 0;
  virtual bool on_close(std::uint16_t code) = 0;  // ws_close::no_status when the frame had no code
};

class ws_receiver {
public:
  // `require_masked`: a server's receiver (§5.1: a client masks every frame, a server none).
  ws_receiver(std::size_t max_message, bool require_masked) : max_message_(max_message), require_masked_(require_masked) {}

  void set_max_message(std::size_t n) noexcept { max_message_ = n; }
  std::size_t max_message() const noexcept { return max_message_; }

  // Reads every whole frame of what was kept plus `in` (unmasked in place), keeps a partial one.
  // 0, or the close code to fail the connection with: ws_close::protocol_error (a bad header, an
  // unmasked frame, a continuation without a start, a new message inside a fragmented one, a bad
  // close payload), ws_close::unsupported_data (a text message), ws_close::too_big (a message
  // over max_message). After a sink's false the rest is dropped: the caller stops reading.
  std::uint16_t put(std::span<std::uint8_t> in, ws_sink& sink);

  // Bytes held: a partial frame and a partial fragmented message.
  std::size_t held() const noexcept { return carry_.size() + message_.size(); }

private:
  std::uint16_t read_frames(std::span<std::uint8_t> data, ws_sink& sink, std::size_t& used, bool& stopped);

  std::size_t max_message_;
  bool require_masked_;
  bool in_message_ = false;             // a fragmented binary message under way
  std::vector<std::uint8_t> carry_;     // a frame not yet whole
  std::vector<std::uint8_t> message_;   // the fragments so far
};

}  // namespace uactor::ua
