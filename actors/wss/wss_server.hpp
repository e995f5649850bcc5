// The server's opc.wss door (Part 6 §7.5, docs/wss.md, docs/decisions/0057): a TLS + WebSocket
// acceptor on an Asio thread of its own (Boost.Beast) that terminates TLS and the WebSocket
// handshake and hands each connection to the ordinary connection path as a socket pair's end
// (the listener forks a connection broker for it, as for an accepted TCP socket): Hello, the
// security policy on top of TLS, sessions, the login guard and every limit are those of opc.tcp.
// Bounded: handshakes at once, the handshake's time (TLS and the HTTP upgrade, slowloris), the
// upgrade's header size, a frame's size. No Boost in this header.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "uactor/ua/expected.hpp"

namespace uactor::actors {

struct wss_door_counters;  // engine/server/server_metrics.hpp
struct https_certificate;  // engine/server/server_security.hpp

// The TLS certificate: the application's (DER, with its issuers and its key as PEM), or PEM files.
struct wss_tls_identity {
  std::vector<std::uint8_t> certificate_der;
  std::vector<std::vector<std::uint8_t>> issuers_der;
  std::string private_key_pem;
  std::string certificate_file;  // PEM, the chain after the leaf; used when set
  std::string private_key_file;  // PEM
};

struct wss_server_options {
  std::string listen_address = "0.0.0.0";  // an IPv4 address
  std::uint16_t port = 4843;               // 0: an ephemeral port
  std::chrono::milliseconds handshake_timeout{10'000};  // TLS and the HTTP upgrade, from the TCP accept
  std::size_t max_pending_handshakes = 64;               // beyond: a new TCP connection is closed at once
  std::size_t max_header_bytes = 8192;                   // the upgrade request's header
  std::uint32_t max_frame = 65535;        // a received frame: one chunk of the receive buffer we offer
  std::uint32_t max_out_chunk = 65535;    // a chunk we send: our send buffer
  // Origins a browser may connect from (ua::origin_allowed): "*", "null", "https://host[:port]".
  // Empty: no browser (requests without Origin, which are not a browser's, pass).
  std::vector<std::string> allowed_origins;
  wss_tls_identity tls;
  // DefaultHttpsGroup's certificate (docs/decisions/0078): once ApplyChanges replaced the one `tls`
  // names, each new TLS connection presents the new one. Null: `tls` for good.
  std::shared_ptr<const https_certificate> https;
  std::shared_ptr<wss_door_counters> counters;  // refusals before the hand-over (/metrics); may be null
  // The native transport (wss_native.hpp, docs/decisions/0073): TLS and WebSocket inside the
  // connection broker, no door; false: this door and its socket pairs (0057).
  bool native = false;
};

// Hands a connection's socket-pair end (with the peer's IP address) to the connection path. Runs
// on the transport's thread; takes ownership of the descriptor.
using wss_handoff = std::function<void(int fd, std::string peer_address)>;

class wss_server {
public:
  // Binds (the port is known after it) without listening yet. Bad_ResourceUnavailable when the
  // port cannot be bound, Bad_CertificateInvalid when the TLS certificate or key cannot be used.
  static ua::expected<std::shared_ptr<wss_server>> bind(wss_server_options options);
  ~wss_server();  // stop()
  wss_server(const wss_server&) = delete;
  wss_server& operator=(const wss_server&) = delete;

  std::uint16_t port() const noexcept;
  // Listens and accepts from now on; every connection that passes the handshake goes to `handoff`.
  // Bad_ResourceUnavailable when listen() fails. Once only.
  ua::status_code start(wss_handoff handoff);
  // Stops accepting, ends every connection and joins the thread. Idempotent.
  void stop();

private:
  struct impl;
  explicit wss_server(std::unique_ptr<impl> i);
  std::unique_ptr<impl> impl_;
};

}  // namespace uactor::actors
