#include "actors/wss/wss_native.hpp"

#include <array>
#include <cstring>
#include <string_view>

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>

#include "actors/wss/tls_memory_pipe.hpp"
#include "actors/wss/ws_accept_key.hpp"
#include "engine/server/server_metrics.hpp"
#include "protocol/uatcp.hpp"
#include "protocol/ws_frame.hpp"
#include "protocol/ws_receiver.hpp"
#include "protocol/ws_uacp.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors {

// File-local helpers (the wss sources share a unity batch).
namespace wss_native_detail {

namespace http = boost::beast::http;

std::string_view sv(boost::beast::string_view s) noexcept { return {s.data(), s.size()}; }

const char* reason_of(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    default: return "Error";
  }
}

// What the receiver finds, in the transport's terms: chunk bytes, or a pong / close to answer.
struct frame_sink final : ua::ws_sink {
  ua::byte_buffer* chunks = nullptr;
  std::uint32_t max_frame = 0;
  std::uint16_t fail = 0;          // a message that is not one chunk: 1002 / 1009
  bool closed = false;             // the peer's close frame
  std::uint16_t close_code = 0;
  ua::byte_buffer* replies = nullptr;  // pongs, framed, to encrypt

  bool on_message(std::span<const std::uint8_t> payload) override {
    // Part 6 §7.5.2: one frame, one MessageChunk; as the door checks it (ua::check_ws_chunk).
    if (const auto sc = ua::check_ws_chunk(payload, max_frame); sc.is_bad()) {
      spdlog::debug("opc.wss: a frame is not one MessageChunk ({}); closing", sc.to_string());
      fail = sc == ua::status::bad_tcp_message_too_large ? ua::ws_close::too_big : ua::ws_close::protocol_error;
      return false;
    }
    chunks->append(payload.data(), payload.size());
    return true;
  }
  bool on_ping(std::span<const std::uint8_t> payload) override {
    std::array<std::uint8_t, ua::ws_max_header_size> h{};  // §5.5.3: the pong carries the ping's data
    replies->append(h.data(), ua::encode_ws_frame_header(h, true, ua::ws_opcode::pong, payload.size()));
    replies->append(payload.data(), payload.size());
    return true;
  }
  bool on_close(std::uint16_t code) override {
    closed = true;
    close_code = code;
    return false;
  }
};

}  // namespace wss_native_detail

// ---------------------------------------------------------------------------------------------

ua::expected<std::shared_ptr<wss_native_endpoint>> wss_native_endpoint::make(wss_server_options options) {
  std::shared_ptr<wss_native_endpoint> e(new wss_native_endpoint());
  SSL_CTX* ctx = make_wss_tls_context(options.tls);
  if (!ctx) return ua::status::bad_certificate_invalid;
  e->ctx_ = ctx;
  e->certificate_ = std::make_unique<wss_certificate>(options.https);
  e->options_ = std::move(options);
  return e;
}

wss_native_endpoint::~wss_native_endpoint() { SSL_CTX_free(static_cast<SSL_CTX*>(ctx_)); }

bool wss_native_endpoint::too_busy() noexcept {
  if (pending_.load(std::memory_order_relaxed) < options_.max_pending_handshakes) return false;
  if (options_.counters) options_.counters->busy_refusals.add();
  return true;
}

// ---------------------------------------------------------------------------------------------

struct wss_native_transport::impl {
  tls_memory_pipe tls;
  std::array<std::uint8_t, 16384> plain{};  // one SSL_read: at most a TLS record's plaintext
  std::unique_ptr<wss_native_detail::http::request_parser<wss_native_detail::http::empty_body>> parser;
  std::string header;  // the upgrade request so far (at most max_header_bytes)
  ua::ws_receiver receiver;
  wss_native_detail::frame_sink sink;
  ua::byte_buffer replies;

  explicit impl(std::size_t max_frame) : receiver(max_frame, true) {}
};

wss_native_transport::wss_native_transport(std::shared_ptr<wss_native_endpoint> endpoint, std::string peer)
    : endpoint_(std::move(endpoint)),
      peer_(std::move(peer)),
      impl_(std::make_unique<impl>(endpoint_->options().max_frame)),
      deadline_(std::chrono::steady_clock::now() + endpoint_->options().handshake_timeout),
      out_(16384 + 512),
      plain_(16384) {
  endpoint_->pending().fetch_add(1, std::memory_order_relaxed);
  auto& i = *impl_;
  if (!i.tls.open(static_cast<SSL_CTX*>(endpoint_->tls_context()))) {
    phase_ = phase::closed;
    return;
  }
  endpoint_->certificate().use_current(i.tls.ssl());  // DefaultHttpsGroup's, when ApplyChanges replaced it
  SSL_set_accept_state(i.tls.ssl());
  i.sink.max_frame = endpoint_->options().max_frame;
  i.sink.replies = &i.replies;
}

wss_native_transport::~wss_native_transport() { leave_handshake(); }

void wss_native_transport::leave_handshake() {
  if (!pending_counted_) return;
  pending_counted_ = false;
  endpoint_->pending().fetch_sub(1, std::memory_order_relaxed);
}

void wss_native_transport::flush_tls() {
  impl_->tls.flush(out_);
}

void wss_native_transport::write_plain(std::span<const std::uint8_t> plain) {
  impl_->tls.write(plain, out_);
}

bool wss_native_transport::on_bytes(std::span<const std::uint8_t> in, ua::byte_buffer& chunks) {
  auto& i = *impl_;
  if (phase_ == phase::closed) return false;
  i.tls.feed(in);
  const auto& counters = endpoint_->options().counters;
  if (phase_ == phase::tls) {
    const int r = SSL_do_handshake(i.tls.ssl());
    if (r != 1) {
      const int e = SSL_get_error(i.tls.ssl(), r);
      flush_tls();  // the handshake's next flight, or an alert
      if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return true;
      spdlog::debug("opc.wss: TLS handshake with {} failed: {}", peer_, ERR_reason_error_string(ERR_peek_error()));
      ERR_clear_error();
      if (counters) counters->tls_failures.add();
      phase_ = phase::closed;
      return false;
    }
    phase_ = phase::upgrade;
    i.parser = std::make_unique<wss_native_detail::http::request_parser<wss_native_detail::http::empty_body>>();
    i.parser->header_limit(static_cast<std::uint32_t>(endpoint_->options().max_header_bytes));
    i.parser->body_limit(0);
  }
  while (i.tls.has_input()) {
    const int n = SSL_read(i.tls.ssl(), i.plain.data(), static_cast<int>(i.plain.size()));
    if (n <= 0) {
      const int e = SSL_get_error(i.tls.ssl(), n);
      if (e == SSL_ERROR_WANT_READ) break;
      if (e != SSL_ERROR_ZERO_RETURN) {  // not the peer's close_notify: a broken record
        spdlog::debug("opc.wss: TLS with {} failed: {}", peer_, ERR_reason_error_string(ERR_peek_error()));
        if (phase_ == phase::upgrade && counters) counters->upgrades_refused.add();
      } else if (phase_ == phase::upgrade && counters) {
        counters->upgrades_refused.add();  // gone before the upgrade
      }
      ERR_clear_error();
      flush_tls();
      phase_ = phase::closed;
      return false;
    }
    if (!on_plain({i.plain.data(), static_cast<std::size_t>(n)}, chunks)) {
      flush_tls();
      return false;
    }
  }
  flush_tls();
  return true;
}

bool wss_native_transport::on_plain(std::span<std::uint8_t> plain, ua::byte_buffer& chunks) {
  if (phase_ == phase::upgrade) return on_upgrade_bytes(plain, chunks);
  if (phase_ == phase::open) return on_frames(plain, chunks);
  return false;
}

void wss_native_transport::refuse(int status, const char* why) {
  if (const auto& c = endpoint_->options().counters) c->upgrades_refused.add();
  const std::string body = why;
  std::string res = "HTTP/1.1 " + std::to_string(status) + " " + wss_native_detail::reason_of(status) +
                    "\r\nServer: uactor\r\nContent-Type: text/plain\r\nConnection: close\r\n";
  if (status == 400) res += "Sec-WebSocket-Version: 13\r\n";
  res += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  write_plain({reinterpret_cast<const std::uint8_t*>(res.data()), res.size()});
  SSL_shutdown(impl_->tls.ssl());
  flush_tls();
  phase_ = phase::closed;
  leave_handshake();
}

bool wss_native_transport::on_upgrade_bytes(std::span<std::uint8_t> plain, ua::byte_buffer& chunks) {
  namespace http = wss_native_detail::http;
  using wss_native_detail::sv;
  auto& i = *impl_;
  const auto& o = endpoint_->options();
  // The request is parsed from what has arrived so far, as a whole (bounded by the header limit):
  // Beast's parser wants the header in one buffer.
  const std::size_t before = i.header.size();
  i.header.append(reinterpret_cast<const char*>(plain.data()), plain.size());
  boost::beast::error_code ec;
  const std::size_t used = i.parser->put(boost::asio::buffer(i.header.data(), i.header.size()), ec);
  if (ec == http::error::need_more) {
    if (i.header.size() > o.max_header_bytes) return refuse(400, "opc.wss: the upgrade request's header is too large\n"), false;
    return true;
  }
  if (ec || !i.parser->is_done()) {
    // A header over the limit, a body, or not HTTP (RFC 7230 §3): 400, as the door's parser.
    spdlog::debug("opc.wss: no upgrade request from {}: {}", peer_, ec ? ec.message() : "a body");
    if (const auto& c = o.counters) c->upgrades_refused.add();
    SSL_shutdown(i.tls.ssl());
    flush_tls();
    phase_ = phase::closed;
    leave_handshake();
    return false;
  }
  const auto& req = i.parser->get();
  if (!boost::beast::websocket::is_upgrade(req)) return refuse(400, "opc.wss: a WebSocket upgrade is expected\n"), false;
  const auto key = sv(req[http::field::sec_websocket_key]);
  if (sv(req[http::field::sec_websocket_version]) != "13" || key.empty() || key.size() > 64)
    return refuse(400, "opc.wss: a WebSocket version 13 upgrade is expected\n"), false;
  // Part 6 §7.5.2: the client requests the protocol; a server that does not serve it refuses.
  if (!ua::requests_uacp_subprotocol(sv(req[http::field::sec_websocket_protocol])))
    return refuse(400, "opc.wss: the opcua+uacp subprotocol is required\n"), false;
  if (!ua::origin_allowed(sv(req[http::field::origin]), o.allowed_origins)) {
    spdlog::info("opc.wss: refusing a browser from origin {} ({}): not in wss_allowed_origins",
                 std::string(sv(req[http::field::origin])), peer_);
    return refuse(403, "opc.wss: origin not allowed\n"), false;
  }
  const std::string res = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Accept: " + ws_accept_key(key) +
                          "\r\nSec-WebSocket-Protocol: opcua+uacp\r\nServer: uactor\r\n\r\n";
  write_plain({reinterpret_cast<const std::uint8_t*>(res.data()), res.size()});
  phase_ = phase::open;
  leave_handshake();
  // Frames the client sent behind its request (it may not wait for our answer's arrival).
  const std::size_t rest_at = used > before ? used - before : 0;
  std::string().swap(i.header);
  i.parser.reset();
  if (rest_at >= plain.size()) return true;
  return on_frames(plain.subspan(rest_at), chunks);
}

bool wss_native_transport::on_frames(std::span<std::uint8_t> plain, ua::byte_buffer& chunks) {
  auto& i = *impl_;
  i.sink.chunks = &chunks;
  const std::uint16_t fail = i.receiver.put(plain, i.sink);
  if (!i.replies.empty()) {
    write_plain(i.replies.bytes());
    i.replies.clear();
  }
  if (fail != 0 || i.sink.fail != 0) {
    close(fail != 0 ? fail : i.sink.fail);
    return false;
  }
  if (i.sink.closed) {
    // §5.5.1: answer with a close (the peer's code, or 1000), then end the TCP connection (the
    // server closes first, §7.1.1).
    close(i.sink.close_code == ua::ws_close::no_status ? ua::ws_close::normal : i.sink.close_code);
    return false;
  }
  return true;
}

bool wss_native_transport::send_chunks(std::span<const std::uint8_t> chunks) {
  if (phase_ != phase::open) return phase_ != phase::closed;
  plain_.clear();
  const auto max_out = endpoint_->options().max_out_chunk;
  while (!chunks.empty()) {
    ua::status_code bad;
    const std::size_t len = ua::complete_chunk_length(chunks, std::max<std::uint32_t>(max_out, ua::min_buffer_size), bad);
    if (len == 0) {
      spdlog::error("opc.wss: the connection wrote a chunk that cannot be framed ({}); closing",
                    bad.is_bad() ? bad.to_string() : std::string("a partial chunk"));
      return false;
    }
    std::array<std::uint8_t, ua::ws_max_header_size> h{};
    plain_.append(h.data(), ua::encode_ws_frame_header(h, true, ua::ws_opcode::binary, len));
    plain_.append(chunks.data(), len);
    chunks = chunks.subspan(len);
  }
  write_plain(plain_.bytes());
  return true;
}

void wss_native_transport::close(std::uint16_t code) {
  if (phase_ == phase::closed) return;
  if (phase_ == phase::open) {
    std::array<std::uint8_t, ua::ws_max_header_size + 2> f{};
    const auto n = ua::encode_ws_frame_header(std::span<std::uint8_t, ua::ws_max_header_size>(f.data(), ua::ws_max_header_size),
                                              true, ua::ws_opcode::close, 2);
    f[n] = static_cast<std::uint8_t>(code >> 8);
    f[n + 1] = static_cast<std::uint8_t>(code);
    write_plain({f.data(), n + 2});
  }
  if (phase_ != phase::tls) SSL_shutdown(impl_->tls.ssl());
  flush_tls();
  phase_ = phase::closed;
  leave_handshake();
}

bool wss_native_transport::handshake_expired(std::chrono::steady_clock::time_point now) {
  if (phase_ != phase::tls && phase_ != phase::upgrade) return false;
  if (now < deadline_) return false;
  spdlog::debug("opc.wss: the handshake with {} was not done in time", peer_);
  if (const auto& c = endpoint_->options().counters)
    (phase_ == phase::tls ? c->tls_failures : c->upgrades_refused).add();
  phase_ = phase::closed;
  leave_handshake();
  return true;
}

void wss_native_transport::peer_gone() {
  if (phase_ == phase::tls || phase_ == phase::upgrade)
    if (const auto& c = endpoint_->options().counters) (phase_ == phase::tls ? c->tls_failures : c->upgrades_refused).add();
  phase_ = phase::closed;
  leave_handshake();
}

}  // namespace uactor::actors
