// The native opc.wss transport (Part 6 §7.5, docs/decisions/0073): TLS through OpenSSL memory BIOs,
// the HTTP upgrade and WebSocket framing inside the connection broker itself, on the multiplexer
// thread, with no socket pair and no thread of its own. The broker hands it the socket's bytes and
// gets back the chunk bytes of the received binary messages (each checked to be exactly one
// MessageChunk, as for the door), which it reads as an opc.tcp stream; its output chunks go out as
// one binary frame each, all of one drain encrypted with one SSL_write (as few TLS records as fit)
// and sent with one write. The rules are the door's (docs/wss.md): subprotocol opcua+uacp, the
// Origin check, 8 KB of header, no body, masked client frames, text -> 1003, not one chunk -> 1002,
// too big -> 1009, ping -> pong, the close handshake; the same wss_door_counters. No Boost, no
// OpenSSL in this header.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "actors/wss/wss_certificate.hpp"
#include "actors/wss/wss_server.hpp"
#include "protocol/byte_buffer.hpp"
#include "uactor/ua/expected.hpp"

namespace uactor::actors {

// What the connections of one native opc.wss endpoint share: its options, the TLS context made
// from its identity, the handshakes under way. Used on the multiplexer thread.
class wss_native_endpoint {
public:
  // Bad_CertificateInvalid when the certificate or key cannot be used.
  static ua::expected<std::shared_ptr<wss_native_endpoint>> make(wss_server_options options);
  ~wss_native_endpoint();
  wss_native_endpoint(const wss_native_endpoint&) = delete;
  wss_native_endpoint& operator=(const wss_native_endpoint&) = delete;

  const wss_server_options& options() const noexcept { return options_; }
  // Past wss_max_pending_handshakes: a new connection is closed at once (counted as busy).
  bool too_busy() noexcept;
  void* tls_context() const noexcept { return ctx_; }  // SSL_CTX*
  // DefaultHttpsGroup's certificate for a new connection's SSL (docs/decisions/0078).
  wss_certificate& certificate() noexcept { return *certificate_; }
  std::atomic<std::size_t>& pending() noexcept { return pending_; }

private:
  wss_native_endpoint() = default;
  wss_server_options options_;
  void* ctx_ = nullptr;
  std::unique_ptr<wss_certificate> certificate_;
  std::atomic<std::size_t> pending_{0};
};

class wss_native_transport {
public:
  enum class phase : std::uint8_t { tls, upgrade, open, closed };

  explicit wss_native_transport(std::shared_ptr<wss_native_endpoint> endpoint, std::string peer);
  ~wss_native_transport();
  wss_native_transport(const wss_native_transport&) = delete;
  wss_native_transport& operator=(const wss_native_transport&) = delete;

  // The socket's bytes. Appends the chunk bytes of every whole binary message to `chunks`; what
  // is to be sent (TLS handshake, the HTTP answer, pongs, a close) is in out(). false: the
  // connection ends once out() is sent (TLS failed, the upgrade was refused, a frame broke a rule,
  // the peer closed).
  bool on_bytes(std::span<const std::uint8_t> in, ua::byte_buffer& chunks);
  // Whole chunks (the channel's output), one unmasked binary frame each (§7.5.2), encrypted with
  // one SSL_write, into out(). false when they cannot be framed (a chunk over the send buffer).
  bool send_chunks(std::span<const std::uint8_t> chunks);
  // A close frame with `code` (when open) and TLS's close_notify into out(); nothing is read or
  // sent after it.
  void close(std::uint16_t code);
  // From the TCP accept, the handshake (TLS and upgrade) may take wss_handshake_timeout; past it
  // true (counted), and the caller closes.
  bool handshake_expired(std::chrono::steady_clock::time_point now);
  // The TCP connection ended: a handshake under way is counted as the door counts it.
  void peer_gone();

  phase current_phase() const noexcept { return phase_; }
  bool open() const noexcept { return phase_ == phase::open; }
  const std::string& peer() const noexcept { return peer_; }
  ua::byte_buffer& out() noexcept { return out_; }

private:
  struct impl;
  bool on_plain(std::span<std::uint8_t> plain, ua::byte_buffer& chunks);
  bool on_upgrade_bytes(std::span<std::uint8_t> plain, ua::byte_buffer& chunks);
  bool on_frames(std::span<std::uint8_t> plain, ua::byte_buffer& chunks);
  void write_plain(std::span<const std::uint8_t> plain);
  void flush_tls();
  void leave_handshake();
  void refuse(int status, const char* why);

  std::shared_ptr<wss_native_endpoint> endpoint_;
  std::string peer_;
  std::unique_ptr<impl> impl_;
  phase phase_ = phase::tls;
  bool pending_counted_ = true;
  std::chrono::steady_clock::time_point deadline_;
  ua::byte_buffer out_;    // ciphertext to send
  ua::byte_buffer plain_;  // frames to encrypt (headers and chunks of one drain)
};

}  // namespace uactor::actors
