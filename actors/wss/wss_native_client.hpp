// The client's native opc.wss transport (Part 6 §7.5, docs/decisions/0077): what
// wss_native_transport is for the server (docs/decisions/0073), on the client's side of the
// connection. TLS through OpenSSL memory BIOs (SSL_connect's flights and the records go through
// the client's ordinary scribe), the HTTP upgrade request written and its 101 answer checked
// (bounded: 8 KB of header; Sec-WebSocket-Accept, RFC 6455 §4.2.2; the opcua+uacp subprotocol,
// Part 6 §7.5.2; no extension), then WebSocket frames: every chunk the channel writes is one
// masked binary frame (RFC 6455 §5.3, a fresh key per frame), all of one flush in one SSL_write;
// received frames must be unmasked (§5.1) and each exactly one MessageChunk (ua::check_ws_chunk),
// pings are answered, a close ends the connection. The server's TLS certificate is checked after
// the handshake with the same callback as the door's (wss_client_options::verify). No thread, no
// socket pair: the client's connection broker calls it on its own thread. No Boost, no OpenSSL here.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "actors/wss/wss_client.hpp"
#include "protocol/byte_buffer.hpp"
#include "uactor/ua/expected.hpp"
#include "uactor/ua/status_code.hpp"

namespace uactor::actors {

// What the connections of one client share (the first and every reconnect's): the options, where
// to, and the TLS context.
class wss_client_endpoint {
public:
  // Bad_OutOfMemory when OpenSSL cannot make a context.
  static ua::expected<std::shared_ptr<wss_client_endpoint>> make(wss_client_options options, std::string host,
                                                                 std::uint16_t port, std::string path);
  ~wss_client_endpoint();
  wss_client_endpoint(const wss_client_endpoint&) = delete;
  wss_client_endpoint& operator=(const wss_client_endpoint&) = delete;

  const wss_client_options& options() const noexcept { return options_; }
  const std::string& host() const noexcept { return host_; }
  std::uint16_t port() const noexcept { return port_; }
  const std::string& path() const noexcept { return path_; }
  void* tls_context() const noexcept { return ctx_; }  // SSL_CTX*

private:
  wss_client_endpoint() = default;
  wss_client_options options_;
  std::string host_;
  std::uint16_t port_ = 0;
  std::string path_;
  void* ctx_ = nullptr;
};

// Masking keys (RFC 6455 §5.3: "unpredictable", from "a strong source of entropy"): OpenSSL's
// DRBG read 512 bytes at a time, 128 keys per call, not one RAND_bytes per frame.
class ws_mask_source {
public:
  // false when OpenSSL's generator fails (then no frame is sent).
  bool next(std::array<std::uint8_t, 4>& key) noexcept;

private:
  std::array<std::uint8_t, 512> pool_{};
  std::size_t at_ = pool_.size();
};

class wss_client_transport {
public:
  enum class phase : std::uint8_t { tls, upgrade, open, closed };

  explicit wss_client_transport(std::shared_ptr<const wss_client_endpoint> endpoint);
  ~wss_client_transport();
  wss_client_transport(const wss_client_transport&) = delete;
  wss_client_transport& operator=(const wss_client_transport&) = delete;

  // The TLS ClientHello into out(). false: no TLS session could be made.
  bool start();
  // The socket's bytes. Appends the chunk bytes of every whole binary message to `chunks`; what is
  // to be sent (TLS flights, the upgrade request, held chunks once the upgrade is done, pongs, a
  // close) is in out(). false: the connection ends once out() is sent; failure() says why.
  bool on_bytes(std::span<const std::uint8_t> in, ua::byte_buffer& chunks);
  // Whole chunks (the channel's output): one masked binary frame each, encrypted with one
  // SSL_write into out(); held until the upgrade is done (the Hello is written at once). false when
  // they cannot be framed (a chunk over the send buffer) or no masking key could be drawn.
  bool send_chunks(std::span<const std::uint8_t> chunks);
  // A (masked) close frame with `code` when open, and TLS's close_notify, into out().
  void close(std::uint16_t code);

  phase current_phase() const noexcept { return phase_; }
  bool open() const noexcept { return phase_ == phase::open; }
  // Why on_bytes() ended the connection: Bad_ConnectionRejected for the handshake (TLS, the
  // certificate, the upgrade: the connection was never made, as for the door), Bad_ConnectionClosed
  // for the server's close frame or TLS close, Bad_TcpMessageTooLarge / Bad_TcpInternalError for a
  // frame that breaks the rules.
  ua::status_code failure() const noexcept { return failure_; }
  ua::byte_buffer& out() noexcept { return out_; }

private:
  struct impl;
  bool on_tls_done();
  bool on_upgrade_bytes(std::span<std::uint8_t> plain, ua::byte_buffer& chunks);
  bool on_frames(std::span<std::uint8_t> plain, ua::byte_buffer& chunks);
  bool frame_into(std::span<const std::uint8_t> chunks, ua::byte_buffer& plain);
  void write_plain(std::span<const std::uint8_t> plain);
  void flush_tls();
  bool fail(ua::status_code why);

  std::shared_ptr<const wss_client_endpoint> endpoint_;
  std::unique_ptr<impl> impl_;
  phase phase_ = phase::tls;
  ua::status_code failure_;
  ua::byte_buffer out_;    // ciphertext to send
  ua::byte_buffer plain_;  // frames to encrypt (headers and masked chunks of one flush)
  ua::byte_buffer held_;   // chunks written before the upgrade was done (the Hello)
  ws_mask_source masks_;
};

}  // namespace uactor::actors
