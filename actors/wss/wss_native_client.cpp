#include "actors/wss/wss_native_client.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/rfc7230.hpp>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>

#include "actors/wss/tls_memory_pipe.hpp"
#include "actors/wss/ws_accept_key.hpp"
#include "protocol/base64.hpp"
#include "protocol/uatcp.hpp"
#include "protocol/ws_frame.hpp"
#include "protocol/ws_receiver.hpp"
#include "protocol/ws_uacp.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors {

// File-local helpers (the wss sources share a unity batch).
namespace wss_native_client_detail {

namespace http = boost::beast::http;

std::string_view sv(boost::beast::string_view s) noexcept { return {s.data(), s.size()}; }

// RFC 6066 §3: SNI carries a DNS name, never an address literal.
bool is_address_literal(const std::string& host) {
  unsigned char buf[16];
  return ::inet_pton(AF_INET, host.c_str(), buf) == 1 || ::inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

// What the receiver finds, in the client's terms: chunk bytes, or a pong / close to answer.
struct client_frame_sink final : ua::ws_sink {
  ua::byte_buffer* chunks = nullptr;
  std::uint32_t max_frame = 0;
  ua::status_code fail;        // a message that is not one chunk
  bool closed = false;         // the server's close frame
  std::uint16_t close_code = 0;
  std::vector<std::uint8_t> pings;  // payloads to answer (each at most 125 bytes, §5.5)
  std::vector<std::uint16_t> ping_sizes;

  bool on_message(std::span<const std::uint8_t> payload) override {
    // Part 6 §7.5.2: one frame, one MessageChunk, as the server checks ours.
    if (const auto sc = ua::check_ws_chunk(payload, max_frame); sc.is_bad()) {
      spdlog::debug("opc.wss: the server sent a frame that is not one MessageChunk ({})", sc.to_string());
      fail = sc == ua::status::bad_tcp_message_too_large ? sc : ua::status::bad_communication_error;
      return false;
    }
    chunks->append(payload.data(), payload.size());
    return true;
  }
  bool on_ping(std::span<const std::uint8_t> payload) override {
    pings.insert(pings.end(), payload.begin(), payload.end());
    ping_sizes.push_back(static_cast<std::uint16_t>(payload.size()));
    return true;
  }
  bool on_close(std::uint16_t code) override {
    closed = true;
    close_code = code;
    return false;
  }
};

}  // namespace wss_native_client_detail

// ---------------------------------------------------------------------------------------------

ua::expected<std::shared_ptr<wss_client_endpoint>> wss_client_endpoint::make(wss_client_options options, std::string host,
                                                                              std::uint16_t port, std::string path) {
  std::shared_ptr<wss_client_endpoint> e(new wss_client_endpoint());
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (!ctx) return ua::status::bad_out_of_memory;
  e->ctx_ = ctx;
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  // The certificate is checked after the handshake against the PKI (options.verify), as the door
  // checks it, not against OpenSSL's system store: OPC UA servers carry application certificates.
  SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  e->options_ = std::move(options);
  e->host_ = std::move(host);
  e->port_ = port;
  e->path_ = path.empty() ? std::string("/") : std::move(path);
  return e;
}

wss_client_endpoint::~wss_client_endpoint() { SSL_CTX_free(static_cast<SSL_CTX*>(ctx_)); }

bool ws_mask_source::next(std::array<std::uint8_t, 4>& key) noexcept {
  if (at_ + key.size() > pool_.size()) {
    if (RAND_bytes(pool_.data(), static_cast<int>(pool_.size())) != 1) return false;
    at_ = 0;
  }
  std::memcpy(key.data(), pool_.data() + at_, key.size());
  at_ += key.size();
  return true;
}

// ---------------------------------------------------------------------------------------------

struct wss_client_transport::impl {
  tls_memory_pipe tls;
  std::array<std::uint8_t, 16384> plain{};  // one SSL_read: at most a TLS record's plaintext
  std::unique_ptr<wss_native_client_detail::http::response_parser<wss_native_client_detail::http::empty_body>> parser;
  std::string header;  // the 101 answer so far (at most max_header_bytes)
  std::string accept;  // the Sec-WebSocket-Accept the answer must carry
  ua::ws_receiver receiver;
  wss_native_client_detail::client_frame_sink sink;

  explicit impl(std::size_t max_frame) : receiver(max_frame, false) {}
};

namespace wss_native_client_detail {
// The 101 answer's header is bounded like the server's upgrade request (docs/wss.md).
constexpr std::size_t max_header_bytes = 8192;
}  // namespace wss_native_client_detail

wss_client_transport::wss_client_transport(std::shared_ptr<const wss_client_endpoint> endpoint)
    : endpoint_(std::move(endpoint)),
      impl_(std::make_unique<impl>(endpoint_->options().max_frame)),
      out_(16384 + 512),
      plain_(16384) {
  impl_->sink.max_frame = endpoint_->options().max_frame;
}

wss_client_transport::~wss_client_transport() = default;

bool wss_client_transport::fail(ua::status_code why) {
  failure_ = why;
  phase_ = phase::closed;
  return false;
}

bool wss_client_transport::start() {
  auto& i = *impl_;
  if (!i.tls.open(static_cast<SSL_CTX*>(endpoint_->tls_context()))) return fail(ua::status::bad_out_of_memory);
  SSL_set_connect_state(i.tls.ssl());
  if (!wss_native_client_detail::is_address_literal(endpoint_->host()))
    SSL_set_tlsext_host_name(i.tls.ssl(), endpoint_->host().c_str());  // SNI
  ua::byte_buffer none;  // nothing can be received before the ClientHello
  return on_bytes({}, none);
}

void wss_client_transport::flush_tls() {
  impl_->tls.flush(out_);
}

void wss_client_transport::write_plain(std::span<const std::uint8_t> plain) {
  impl_->tls.write(plain, out_);
}

bool wss_client_transport::on_bytes(std::span<const std::uint8_t> in, ua::byte_buffer& chunks) {
  auto& i = *impl_;
  if (phase_ == phase::closed) return false;
  i.tls.feed(in);
  if (phase_ == phase::tls) {
    const int r = SSL_do_handshake(i.tls.ssl());
    if (r != 1) {
      const int e = SSL_get_error(i.tls.ssl(), r);
      flush_tls();  // the handshake's next flight, or an alert
      if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return true;
      spdlog::warn("opc.wss: TLS handshake failed with {}:{}: {}", endpoint_->host(), endpoint_->port(),
                   ERR_reason_error_string(ERR_peek_error()) ? ERR_reason_error_string(ERR_peek_error()) : "closed");
      ERR_clear_error();
      return fail(ua::status::bad_connection_rejected);
    }
    if (!on_tls_done()) return false;
  }
  while (i.tls.has_input()) {
    const int n = SSL_read(i.tls.ssl(), i.plain.data(), static_cast<int>(i.plain.size()));
    if (n <= 0) {
      const int e = SSL_get_error(i.tls.ssl(), n);
      if (e == SSL_ERROR_WANT_READ) break;
      if (e != SSL_ERROR_ZERO_RETURN)  // not the server's close_notify: a broken record
        spdlog::info("opc.wss: TLS with {}:{} failed: {}", endpoint_->host(), endpoint_->port(),
                     ERR_reason_error_string(ERR_peek_error()) ? ERR_reason_error_string(ERR_peek_error()) : "?");
      ERR_clear_error();
      flush_tls();
      return fail(phase_ == phase::upgrade ? ua::status::bad_connection_rejected : ua::status::bad_connection_closed);
    }
    const std::span<std::uint8_t> plain(i.plain.data(), static_cast<std::size_t>(n));
    const bool go_on = phase_ == phase::upgrade ? on_upgrade_bytes(plain, chunks) : on_frames(plain, chunks);
    if (!go_on) {
      flush_tls();
      return false;
    }
  }
  flush_tls();
  return true;
}

// TLS is up: the server's certificate checked as the door checks it, then the upgrade request
// (RFC 6455 §4.1) with a fresh key and the subprotocol Part 6 §7.5.2 requires.
bool wss_client_transport::on_tls_done() {
  auto& i = *impl_;
  const auto& o = endpoint_->options();
  if (o.verify) {
    std::vector<std::uint8_t> der;
    if (X509* peer = SSL_get1_peer_certificate(i.tls.ssl())) {
      const int n = i2d_X509(peer, nullptr);
      if (n > 0) {
        der.resize(static_cast<std::size_t>(n));
        unsigned char* p = der.data();
        i2d_X509(peer, &p);
      }
      X509_free(peer);
    }
    std::string why = "the server sent no certificate";
    if (der.empty() || !o.verify(der, why)) {
      spdlog::warn("opc.wss: the TLS certificate of {}:{} is refused: {}", endpoint_->host(), endpoint_->port(), why);
      SSL_shutdown(i.tls.ssl());
      flush_tls();
      return fail(ua::status::bad_connection_rejected);
    }
  }
  std::array<std::uint8_t, 16> nonce{};
  if (RAND_bytes(nonce.data(), static_cast<int>(nonce.size())) != 1) return fail(ua::status::bad_internal_error);
  const std::string key = ua::base64_encode(std::span<const std::uint8_t>(nonce.data(), nonce.size()));
  i.accept = ws_accept_key(key);
  const std::string host = endpoint_->host().find(':') != std::string::npos ? "[" + endpoint_->host() + "]" : endpoint_->host();
  const std::string req = "GET " + endpoint_->path() + " HTTP/1.1\r\nHost: " + host + ":" + std::to_string(endpoint_->port()) +
                          "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
                          "\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: opcua+uacp\r\nUser-Agent: uactor\r\n\r\n";
  write_plain({reinterpret_cast<const std::uint8_t*>(req.data()), req.size()});
  phase_ = phase::upgrade;
  i.parser = std::make_unique<wss_native_client_detail::http::response_parser<wss_native_client_detail::http::empty_body>>();
  i.parser->header_limit(static_cast<std::uint32_t>(wss_native_client_detail::max_header_bytes));
  i.parser->body_limit(0);
  return true;
}

bool wss_client_transport::on_upgrade_bytes(std::span<std::uint8_t> plain, ua::byte_buffer& chunks) {
  namespace http = wss_native_client_detail::http;
  using wss_native_client_detail::sv;
  auto& i = *impl_;
  const auto refused = [&](const std::string& why) {
    spdlog::warn("opc.wss: {}:{} refused the WebSocket upgrade: {}", endpoint_->host(), endpoint_->port(), why);
    SSL_shutdown(i.tls.ssl());
    return fail(ua::status::bad_connection_rejected);
  };
  // The answer is parsed from what has arrived so far, as a whole (bounded by the header limit):
  // Beast's parser wants the header in one buffer.
  const std::size_t before = i.header.size();
  i.header.append(reinterpret_cast<const char*>(plain.data()), plain.size());
  boost::beast::error_code ec;
  const std::size_t used = i.parser->put(boost::asio::buffer(i.header.data(), i.header.size()), ec);
  if (ec == http::error::need_more) {
    if (i.header.size() > wss_native_client_detail::max_header_bytes) return refused("an answer header over 8 KB");
    return true;
  }
  if (ec || !i.parser->is_done()) return refused(ec ? "not HTTP: " + ec.message() : std::string("a body"));
  const auto& res = i.parser->get();
  // RFC 6455 §4.1, the client's checks of the server's handshake, and Part 6 §7.5.2's protocol.
  if (res.result() != http::status::switching_protocols)
    return refused("HTTP " + std::to_string(res.result_int()) + " " + std::string(sv(res.reason())));
  if (!boost::beast::iequals(res[http::field::upgrade], "websocket")) return refused("no Upgrade: websocket");
  if (!http::token_list(res[http::field::connection]).exists("upgrade")) return refused("no Connection: Upgrade");
  if (sv(res[http::field::sec_websocket_accept]) != i.accept) return refused("a wrong Sec-WebSocket-Accept");
  if (sv(res[http::field::sec_websocket_protocol]) != ua::ws_uacp_subprotocol)
    return refused("not the opcua+uacp subprotocol");
  if (res.count(http::field::sec_websocket_extensions) != 0) return refused("an extension that was not asked for");
  phase_ = phase::open;
  const std::size_t rest_at = used > before ? used - before : 0;
  std::string().swap(i.header);
  std::string().swap(i.accept);
  i.parser.reset();
  // The chunks written meanwhile (the Hello) go now, then the frames that came behind the 101.
  if (!held_.empty()) {
    if (!send_chunks(held_.bytes())) return fail(ua::status::bad_tcp_internal_error);
    held_ = ua::byte_buffer();
  }
  if (rest_at >= plain.size()) return true;
  return on_frames(plain.subspan(rest_at), chunks);
}

bool wss_client_transport::on_frames(std::span<std::uint8_t> plain, ua::byte_buffer& chunks) {
  auto& i = *impl_;
  i.sink.chunks = &chunks;
  const std::uint16_t bad = i.receiver.put(plain, i.sink);
  if (!i.sink.ping_sizes.empty()) {
    // §5.5.3: each ping gets a pong with its data, masked like every client frame.
    plain_.clear();
    std::size_t at = 0;
    for (const auto n : i.sink.ping_sizes) {
      std::array<std::uint8_t, 4> key{};
      if (!masks_.next(key)) return fail(ua::status::bad_internal_error);
      std::array<std::uint8_t, ua::ws_max_header_size> h{};
      plain_.append(h.data(), ua::encode_ws_frame_header(h, true, ua::ws_opcode::pong, n, &key));
      auto* p = plain_.extend(n);
      if (n) std::memcpy(p, i.sink.pings.data() + at, n);
      ua::ws_apply_mask({p, n}, key);
      at += n;
    }
    i.sink.pings.clear();
    i.sink.ping_sizes.clear();
    write_plain(plain_.bytes());
  }
  if (bad != 0 || i.sink.fail.is_bad()) {
    const bool too_big = bad == ua::ws_close::too_big || i.sink.fail == ua::status::bad_tcp_message_too_large;
    const std::uint16_t code = bad != 0 ? bad : (too_big ? ua::ws_close::too_big : ua::ws_close::protocol_error);
    spdlog::info("opc.wss: {}:{} sent a frame that breaks the rules; closing with {}", endpoint_->host(), endpoint_->port(), code);
    close(code);
    return fail(too_big ? ua::status::bad_tcp_message_too_large : ua::status::bad_communication_error);
  }
  if (i.sink.closed) {
    // §5.5.1: the close answered with a close (the server's code, or 1000); the server then ends
    // the TCP connection (§7.1.1), and so do we.
    close(i.sink.close_code == ua::ws_close::no_status ? ua::ws_close::normal : i.sink.close_code);
    return fail(ua::status::bad_connection_closed);
  }
  return true;
}

// Each chunk one binary frame with a fresh masking key (§5.3), the payload masked as it is copied.
bool wss_client_transport::frame_into(std::span<const std::uint8_t> chunks, ua::byte_buffer& plain) {
  const auto max_out = endpoint_->options().max_out_chunk;
  while (!chunks.empty()) {
    ua::status_code bad;
    const std::size_t len = ua::complete_chunk_length(chunks, std::max<std::uint32_t>(max_out, ua::min_buffer_size), bad);
    if (len == 0) {
      spdlog::error("opc.wss: the client wrote a chunk that cannot be framed ({})",
                    bad.is_bad() ? bad.to_string() : std::string("a partial chunk"));
      return false;
    }
    std::array<std::uint8_t, 4> key{};
    if (!masks_.next(key)) return false;
    std::array<std::uint8_t, ua::ws_max_header_size> h{};
    plain.append(h.data(), ua::encode_ws_frame_header(h, true, ua::ws_opcode::binary, len, &key));
    auto* p = plain.extend(len);
    std::memcpy(p, chunks.data(), len);
    ua::ws_apply_mask({p, len}, key);
    chunks = chunks.subspan(len);
  }
  return true;
}

bool wss_client_transport::send_chunks(std::span<const std::uint8_t> chunks) {
  if (chunks.empty()) return phase_ != phase::closed;
  if (phase_ == phase::closed) return false;
  if (phase_ != phase::open) {
    held_.append(chunks.data(), chunks.size());  // the Hello, until the upgrade is done
    return true;
  }
  plain_.clear();
  if (!frame_into(chunks, plain_)) return false;
  write_plain(plain_.bytes());
  return true;
}

void wss_client_transport::close(std::uint16_t code) {
  if (phase_ == phase::closed) return;
  if (phase_ == phase::open) {
    std::array<std::uint8_t, ua::ws_max_header_size + 2> f{};
    std::array<std::uint8_t, 4> key{};
    if (masks_.next(key)) {
      const auto n = ua::encode_ws_frame_header(std::span<std::uint8_t, ua::ws_max_header_size>(f.data(), ua::ws_max_header_size),
                                                true, ua::ws_opcode::close, 2, &key);
      f[n] = static_cast<std::uint8_t>(code >> 8);
      f[n + 1] = static_cast<std::uint8_t>(code);
      ua::ws_apply_mask({f.data() + n, 2}, key);
      write_plain({f.data(), n + 2});
    }
  }
  if (phase_ != phase::tls) SSL_shutdown(impl_->tls.ssl());
  flush_tls();
  phase_ = phase::closed;
}

}  // namespace uactor::actors
