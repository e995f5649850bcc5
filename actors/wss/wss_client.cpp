#include "actors/wss/wss_client.hpp"

#include <sys/socket.h>

#include <cstring>
#include <future>
#include <thread>
#include <unordered_set>

#include <boost/asio/connect.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <caf/all.hpp>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>

#include "actors/client/tcp_connector.hpp"
#include "actors/wss/wss_bridge.hpp"
#include "protocol/ws_uacp.hpp"

namespace uactor::actors {

namespace {
namespace http = wss::beast::http;
namespace websocket = wss::beast::websocket;
namespace ssl = wss::asio::ssl;
using tcp = wss::asio::ip::tcp;
}  // namespace

struct wss_connector::impl : std::enable_shared_from_this<wss_connector::impl> {
  explicit impl(wss_client_options o) : options(std::move(o)) {
    SSL_CTX_set_min_proto_version(tls.native_handle(), TLS1_2_VERSION);
    // The certificate is checked after the handshake, against the PKI (options.verify), not
    // against OpenSSL's system store: OPC UA servers carry application certificates.
    tls.set_verify_mode(ssl::verify_none);
  }
  wss_client_options options;
  wss::asio::io_context io{1};
  wss::asio::executor_work_guard<wss::asio::io_context::executor_type> work{io.get_executor()};
  ssl::context tls{ssl::context::tls_client};
  std::unordered_set<wss::uacp_bridge*> bridges;  // on the thread
  std::thread thread;
};

namespace {

// One dial: resolve, TCP connect, TLS, the certificate check, the upgrade; then the bridge.
class wss_dial : public std::enable_shared_from_this<wss_dial> {
public:
  wss_dial(std::shared_ptr<wss_connector::impl> c, std::string host, std::uint16_t port, std::string path)
      : c_(std::move(c)), resolver_(c_->io), ws_(c_->io, c_->tls), host_(std::move(host)), port_(port), path_(std::move(path)) {}

  std::future<int> run() {
    auto f = done_.get_future();
    wss::beast::get_lowest_layer(ws_).expires_after(c_->options.handshake_timeout);
    resolver_.async_resolve(host_, std::to_string(port_),
                            [self = shared_from_this()](boost::system::error_code ec, tcp::resolver::results_type r) {
                              if (ec) return self->fail("cannot resolve", ec);
                              wss::beast::get_lowest_layer(self->ws_).async_connect(
                                  r, [self](boost::system::error_code e, const tcp::endpoint&) { self->on_connect(e); });
                            });
    return f;
  }

private:
  void fail(const char* what, boost::system::error_code ec) {
    spdlog::warn("opc.wss: {} {}:{}: {}", what, host_, port_, ec.message());
    done_.set_value(-1);
  }

  void on_connect(boost::system::error_code ec) {
    if (ec) return fail("cannot connect to", ec);
    boost::system::error_code ignored;
    wss::beast::get_lowest_layer(ws_).socket().set_option(tcp::no_delay(true), ignored);
    SSL_set_tlsext_host_name(ws_.next_layer().native_handle(), host_.c_str());  // SNI
    ws_.next_layer().async_handshake(ssl::stream_base::client,
                                     [self = shared_from_this()](boost::system::error_code e) { self->on_tls(e); });
  }

  void on_tls(boost::system::error_code ec) {
    if (ec) return fail("TLS handshake failed with", ec);
    if (c_->options.verify) {
      X509* peer = SSL_get_peer_certificate(ws_.next_layer().native_handle());  // a reference we free
      std::vector<std::uint8_t> der;
      if (peer) {
        const int n = i2d_X509(peer, nullptr);
        if (n > 0) {
          der.resize(static_cast<std::size_t>(n));
          unsigned char* p = der.data();
          i2d_X509(peer, &p);
        }
        X509_free(peer);
      }
      std::string why = "the server sent no certificate";
      if (der.empty() || !c_->options.verify(der, why)) {
        spdlog::warn("opc.wss: the TLS certificate of {}:{} is refused: {}", host_, port_, why);
        done_.set_value(-1);
        return;
      }
    }
    wss::beast::get_lowest_layer(ws_).expires_never();
    ws_.set_option(websocket::stream_base::timeout{c_->options.handshake_timeout, websocket::stream_base::none(), false});
    ws_.set_option(websocket::stream_base::decorator([](websocket::request_type& req) {
      req.set(http::field::sec_websocket_protocol, wss::beast_view(ua::ws_uacp_subprotocol));
      req.set(http::field::user_agent, "uactor");
    }));
    ws_.read_message_max(c_->options.max_frame);
    ws_.auto_fragment(false);
    ws_.binary(true);
    const std::string host_header = host_ + ":" + std::to_string(port_);
    ws_.async_handshake(res_, host_header, path_.empty() ? "/" : path_,
                        [self = shared_from_this()](boost::system::error_code e) {
                          wss::asio::post(self->c_->io, [self, e] { self->on_upgrade(e); });
                        });
  }

  void on_upgrade(boost::system::error_code ec) {
    if (ec) return fail("the WebSocket upgrade failed with", ec);
    // Part 6 §7.5.2: a server that does not answer with the protocol requested is not used.
    if (wss::std_view(res_[http::field::sec_websocket_protocol]) != ua::ws_uacp_subprotocol) {
      spdlog::warn("opc.wss: {}:{} did not accept the opcua+uacp subprotocol", host_, port_);
      done_.set_value(-1);
      return;
    }
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
      spdlog::warn("opc.wss: no socket pair: {}", std::strerror(errno));
      done_.set_value(-1);
      return;
    }
    wss::pair_socket pair(c_->io);
    pair.assign(wss::asio::local::stream_protocol(), fds[0]);
    auto bridge = std::make_shared<wss::uacp_bridge>(std::move(ws_), std::move(pair),
                                                     wss::bridge_limits{c_->options.max_frame, c_->options.max_out_chunk}, nullptr);
    auto* raw = bridge.get();
    c_->bridges.insert(raw);
    bridge->set_on_end([c = std::weak_ptr<wss_connector::impl>(c_), raw] {
      if (auto p = c.lock()) p->bridges.erase(raw);
    });
    bridge->start();
    done_.set_value(fds[1]);
  }

  std::shared_ptr<wss_connector::impl> c_;
  tcp::resolver resolver_;
  wss::ws_stream ws_;
  websocket::response_type res_;
  std::string host_;
  std::uint16_t port_;
  std::string path_;
  std::promise<int> done_;
};

}  // namespace

wss_connector::wss_connector(wss_client_options options) : impl_(std::make_shared<impl>(std::move(options))) {
  impl_->thread = std::thread([p = impl_.get()] {
    for (;;) {
      try {
        p->io.run();
        return;
      } catch (const std::exception& e) {
        spdlog::error("opc.wss: {}", e.what());
      }
    }
  });
}

wss_connector::~wss_connector() {
  auto* p = impl_.get();
  wss::asio::post(p->io, [p] {
    for (auto* b : std::vector<wss::uacp_bridge*>(p->bridges.begin(), p->bridges.end())) b->abort();
    p->work.reset();
  });
  if (p->thread.joinable()) p->thread.join();
}

int wss_connector::connect(const std::string& host, std::uint16_t port, const std::string& path) {
  auto dial = std::make_shared<wss_dial>(impl_, host, port, path);
  auto f = dial->run();
  // The dial's own deadline (the TCP stream's expiry) answers first; this is a safety net.
  if (f.wait_for(impl_->options.handshake_timeout + std::chrono::seconds(2)) != std::future_status::ready) {
    spdlog::warn("opc.wss: no connection to {}:{} in time", host, port);
    return -1;
  }
  return f.get();
}

void connect_wss_off_thread(caf::actor_system& system, caf::actor target, std::shared_ptr<wss_connector> connector,
                            std::string host, std::uint16_t port, std::string path, std::uint32_t generation) {
  system.spawn<caf::detached>(
      [](caf::event_based_actor* me, caf::actor target, std::shared_ptr<wss_connector> c, std::string host, std::uint16_t port,
         std::string path, std::uint32_t gen) -> caf::behavior {
        auto h = std::make_shared<socket_handoff>();
        if (const int fd = c->connect(host, port, path); fd >= 0) h->fd = fd;
        me->send(target, client_socket_atom::value, gen, std::move(h));
        me->quit();
        return {};
      },
      std::move(target), std::move(connector), std::move(host), port, std::move(path), generation);
}

}  // namespace uactor::actors
