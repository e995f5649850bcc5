#include "actors/wss/wss_server.hpp"

#include <sys/socket.h>

#include <atomic>
#include <thread>
#include <unordered_set>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/http.hpp>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>

#include "actors/wss/wss_bridge.hpp"
#include "actors/wss/wss_certificate.hpp"
#include "engine/server/server_metrics.hpp"
#include "protocol/ws_uacp.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors {

namespace {

namespace http = wss::beast::http;
namespace websocket = wss::beast::websocket;
namespace ssl = wss::asio::ssl;
using tcp = wss::asio::ip::tcp;
using wss::asio::io_context;

class wss_handshake;

// What the acceptor, the handshakes and the bridges of one door share; all on its one thread.
struct wss_door_shared {
  wss_server_options options;
  std::unique_ptr<wss_certificate> certificate;  // DefaultHttpsGroup's, once ApplyChanges replaced it
  wss_handoff handoff;
  std::unordered_set<wss_handshake*> handshakes;
  std::unordered_set<wss::uacp_bridge*> bridges;
  bool stopping = false;

  // A refusal before the hand-over, counted unless the door is stopping (its aborts are no refusals).
  void count(local_counter wss_door_counters::*which) {
    if (options.counters && !stopping) ((*options.counters).*which).add();
  }
};

bool use_wss_identity(ssl::context& ctx, const wss_tls_identity& id) {
  boost::system::error_code ec;
  if (!id.certificate_file.empty()) {
    ctx.use_certificate_chain_file(id.certificate_file, ec);
    if (!ec) ctx.use_private_key_file(id.private_key_file, ssl::context::pem, ec);
  } else {
    ctx.use_certificate(wss::asio::buffer(id.certificate_der), ssl::context::asn1, ec);
    for (const auto& der : id.issuers_der) {
      if (ec) break;
      const unsigned char* p = der.data();
      X509* x = d2i_X509(nullptr, &p, static_cast<long>(der.size()));
      if (!x || SSL_CTX_add_extra_chain_cert(ctx.native_handle(), x) != 1) {  // takes x
        X509_free(x);
        ec = make_error_code(boost::system::errc::invalid_argument);
      }
    }
    if (!ec) ctx.use_private_key(wss::asio::buffer(id.private_key_pem), ssl::context::pem, ec);
  }
  if (ec) {
    spdlog::error("opc.wss: the TLS certificate or key cannot be used: {}", ec.message());
    return false;
  }
  return true;
}

// From the TCP accept to the WebSocket handshake's end: TLS, the HTTP upgrade and its checks,
// within handshake_timeout from the accept (a slow peer is closed, however it trickles).
class wss_handshake : public std::enable_shared_from_this<wss_handshake> {
public:
  wss_handshake(tcp::socket s, ssl::context& ctx, std::shared_ptr<wss_door_shared> shared)
      : shared_(std::move(shared)), ws_(wss::beast::tcp_stream(std::move(s)), ctx) {
    shared_->handshakes.insert(this);
    if (shared_->certificate) shared_->certificate->use_current(ws_.next_layer().native_handle());
  }
  ~wss_handshake() { shared_->handshakes.erase(this); }

  void run() {
    boost::system::error_code ec;
    const auto remote = wss::beast::get_lowest_layer(ws_).socket().remote_endpoint(ec);
    if (!ec) peer_ = remote.address().to_string();
    wss::beast::get_lowest_layer(ws_).expires_after(shared_->options.handshake_timeout);
    ws_.next_layer().async_handshake(ssl::stream_base::server,
                                     [self = shared_from_this()](boost::system::error_code e) { self->on_tls(e); });
  }

  void abort() {
    boost::system::error_code ignored;
    wss::beast::get_lowest_layer(ws_).socket().close(ignored);
  }

private:
  void on_tls(boost::system::error_code ec) {
    if (ec) {
      shared_->count(&wss_door_counters::tls_failures);
      return spdlog::debug("opc.wss: TLS handshake with {} failed: {}", peer_, ec.message());
    }
    parser_.header_limit(static_cast<std::uint32_t>(shared_->options.max_header_bytes));
    parser_.body_limit(0);
    http::async_read(ws_.next_layer(), buffer_, parser_,
                     [self = shared_from_this()](boost::system::error_code e, std::size_t) { self->on_request(e); });
  }

  void on_request(boost::system::error_code ec) {
    if (ec) {
      shared_->count(&wss_door_counters::upgrades_refused);
      return spdlog::debug("opc.wss: no upgrade request from {}: {}", peer_, ec.message());
    }
    const auto& req = parser_.get();
    if (!websocket::is_upgrade(req)) return refuse(http::status::bad_request, "opc.wss: a WebSocket upgrade is expected\n");
    // Part 6 §7.5.2: the client requests the protocol; a server that does not serve it refuses.
    if (!ua::requests_uacp_subprotocol(wss::std_view(req[http::field::sec_websocket_protocol])))
      return refuse(http::status::bad_request, "opc.wss: the opcua+uacp subprotocol is required\n");
    if (!ua::origin_allowed(wss::std_view(req[http::field::origin]), shared_->options.allowed_origins)) {
      spdlog::info("opc.wss: refusing a browser from origin {} ({}): not in wss_allowed_origins",
                   std::string(req[http::field::origin]), peer_);
      return refuse(http::status::forbidden, "opc.wss: origin not allowed\n");
    }
    wss::beast::get_lowest_layer(ws_).expires_never();  // the WebSocket's own timeouts from here on
    ws_.set_option(websocket::stream_base::timeout{shared_->options.handshake_timeout, websocket::stream_base::none(), false});
    ws_.set_option(websocket::stream_base::decorator([](websocket::response_type& res) {
      res.set(http::field::sec_websocket_protocol, wss::beast_view(ua::ws_uacp_subprotocol));
      res.set(http::field::server, "uactor");
    }));
    ws_.read_message_max(shared_->options.max_frame);
    ws_.auto_fragment(false);
    ws_.binary(true);
    ws_.async_accept(req, [self = shared_from_this()](boost::system::error_code e) {
      // Out of the accept's completion before the stream moves into its bridge.
      wss::asio::post(wss::beast::get_lowest_layer(self->ws_).get_executor(), [self, e] { self->on_accept(e); });
    });
  }

  void refuse(http::status status, const char* why) {
    shared_->count(&wss_door_counters::upgrades_refused);
    auto res = std::make_shared<http::response<http::string_body>>(status, parser_.get().version());
    res->set(http::field::server, "uactor");
    res->set(http::field::content_type, "text/plain");
    res->body() = why;
    res->keep_alive(false);
    res->prepare_payload();
    http::async_write(ws_.next_layer(), *res, [self = shared_from_this(), res](boost::system::error_code, std::size_t) {
      self->abort();
    });
  }

  void on_accept(boost::system::error_code ec) {
    if (ec) {
      shared_->count(&wss_door_counters::upgrades_refused);
      return spdlog::debug("opc.wss: WebSocket handshake with {} failed: {}", peer_, ec.message());
    }
    if (shared_->stopping) return;
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
      spdlog::warn("opc.wss: no socket pair for {}: {}", peer_, std::strerror(errno));
      return;
    }
    wss::pair_socket pair(wss::beast::get_lowest_layer(ws_).get_executor());
    pair.assign(wss::asio::local::stream_protocol(), fds[0]);
    auto shared = shared_;
    auto bridge = std::make_shared<wss::uacp_bridge>(std::move(ws_), std::move(pair),
                                                     wss::bridge_limits{shared->options.max_frame, shared->options.max_out_chunk},
                                                     nullptr);
    wss::uacp_bridge* raw = bridge.get();
    shared->bridges.insert(raw);
    bridge->set_on_end([shared, raw] { shared->bridges.erase(raw); });
    shared->handoff(fds[1], peer_);
    bridge->start();
  }

  std::shared_ptr<wss_door_shared> shared_;
  wss::ws_stream ws_;
  wss::beast::flat_buffer buffer_;
  http::request_parser<http::empty_body> parser_;
  std::string peer_;
};

}  // namespace

struct wss_server::impl {
  io_context io{1};
  wss::asio::executor_work_guard<io_context::executor_type> work{io.get_executor()};
  ssl::context tls{ssl::context::tls_server};
  tcp::acceptor acceptor{io};
  wss::asio::steady_timer pause{io};
  std::shared_ptr<wss_door_shared> shared = std::make_shared<wss_door_shared>();
  std::thread thread;
  std::uint16_t port = 0;
  bool started = false;
  bool stopped = false;

  void accept() {
    acceptor.async_accept([this](boost::system::error_code ec, tcp::socket s) {
      if (ec == wss::asio::error::operation_aborted || shared->stopping) return;
      if (ec) {
        // Out of descriptors, most likely: a pause instead of a loop that spins.
        spdlog::warn("opc.wss: accept failed: {}", ec.message());
        pause.expires_after(std::chrono::milliseconds(100));
        pause.async_wait([this](boost::system::error_code e) {
          if (!e) accept();
        });
        return;
      }
      if (shared->handshakes.size() >= shared->options.max_pending_handshakes) {
        spdlog::debug("opc.wss: {} handshakes under way, the maximum: closing a new connection", shared->handshakes.size());
        shared->count(&wss_door_counters::busy_refusals);
        boost::system::error_code ignored;
        s.close(ignored);
      } else {
        s.set_option(tcp::no_delay(true), ec);
        std::make_shared<wss_handshake>(std::move(s), tls, shared)->run();
      }
      accept();
    });
  }
};

wss_server::wss_server(std::unique_ptr<impl> i) : impl_(std::move(i)) {}

wss_server::~wss_server() { stop(); }

ua::expected<std::shared_ptr<wss_server>> wss_server::bind(wss_server_options options) {
  auto p = std::make_unique<impl>();
  SSL_CTX_set_min_proto_version(p->tls.native_handle(), TLS1_2_VERSION);
  p->tls.set_options(ssl::context::default_workarounds | ssl::context::single_dh_use);
  if (!use_wss_identity(p->tls, options.tls)) return ua::status::bad_certificate_invalid;
  boost::system::error_code ec;
  const auto address = wss::asio::ip::make_address_v4(options.listen_address, ec);
  if (ec) return ua::status::bad_tcp_endpoint_url_invalid;
  const tcp::endpoint at(address, options.port);
  p->acceptor.open(at.protocol(), ec);
  if (!ec) p->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) p->acceptor.bind(at, ec);
  if (ec) {
    spdlog::error("opc.wss: cannot bind {}:{}: {}", options.listen_address, options.port, ec.message());
    return ua::status::bad_resource_unavailable;
  }
  p->port = p->acceptor.local_endpoint().port();
  p->shared->certificate = std::make_unique<wss_certificate>(options.https);
  p->shared->options = std::move(options);
  return std::shared_ptr<wss_server>(new wss_server(std::move(p)));
}

std::uint16_t wss_server::port() const noexcept { return impl_->port; }

ua::status_code wss_server::start(wss_handoff handoff) {
  auto& p = *impl_;
  if (p.started || p.stopped) return ua::status::good;
  boost::system::error_code ec;
  p.acceptor.listen(512, ec);
  if (ec) {
    spdlog::error("opc.wss: cannot listen: {}", ec.message());
    return ua::status::bad_resource_unavailable;
  }
  p.shared->handoff = std::move(handoff);
  p.started = true;
  p.accept();
  p.thread = std::thread([&p] {
    for (;;) {
      try {
        p.io.run();
        return;
      } catch (const std::exception& e) {
        spdlog::error("opc.wss: {}", e.what());  // one connection's trouble: the door goes on
      }
    }
  });
  return ua::status::good;
}

void wss_server::stop() {
  auto& p = *impl_;
  if (p.stopped) return;
  p.stopped = true;
  if (!p.started) return;
  // On the door's thread: no new connection, every handshake and bridge ended; the thread's run()
  // returns once their handlers have run.
  wss::asio::post(p.io, [&p] {
    p.shared->stopping = true;
    boost::system::error_code ignored;
    p.acceptor.close(ignored);
    p.pause.cancel();
    for (auto* h : std::vector<wss_handshake*>(p.shared->handshakes.begin(), p.shared->handshakes.end())) h->abort();
    for (auto* b : std::vector<wss::uacp_bridge*>(p.shared->bridges.begin(), p.shared->bridges.end())) b->abort();
    p.work.reset();
  });
  if (p.thread.joinable()) p.thread.join();
}

}  // namespace uactor::actors
