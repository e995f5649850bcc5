#include "runtime/http/http_service.hpp"

#include <atomic>
#include <optional>
#include <thread>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>

#include "uactor/ua/status_codes.hpp"

namespace uactor::app {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr std::string_view plain_text = "text/plain; charset=utf-8";

http_answer text(unsigned status, std::string body) { return {status, std::string(plain_text), std::move(body), false}; }

}  // namespace

http_answer route_http(std::string_view method, std::string_view target, const http_sources& sources) {
  if (method != "GET" && method != "HEAD") {
    auto a = text(405, "method not allowed: GET or HEAD\n");
    a.allow_header = true;
    return a;
  }
  const std::string_view path = target.substr(0, target.find('?'));
  if (path == "/metrics")
    // The Prometheus text exposition format, version 0.0.4.
    return {200, "text/plain; version=0.0.4; charset=utf-8", sources.metrics ? sources.metrics() : std::string(), false};
  if (path == "/health/live") return text(200, "live\n");
  if (path == "/health/ready") {
    const bool ready = sources.ready && sources.ready();
    return ready ? text(200, "ready\n") : text(503, "not ready\n");
  }
  return text(404, "not found: /metrics, /health/live, /health/ready\n");
}

namespace {

using request_parser = http::request_parser<http::empty_body>;

// The service's limits on one request (no body: Beast refuses one with unexpected_body).
void apply_limits(request_parser& p, const http_options& options) {
  p.header_limit(static_cast<std::uint32_t>(options.max_header_bytes));
}

// What the service answers when reading one request ended with `ec` (no error: the route's
// answer). Empty: nothing to answer, the peer left or was too slow.
std::optional<http_answer> answer_for(beast::error_code ec, const request_parser& parser, const http_sources& sources) {
  if (ec == http::error::end_of_stream || ec == http::error::partial_message || ec == beast::error::timeout ||
      ec == asio::error::operation_aborted || ec == asio::error::connection_reset || ec == asio::error::eof)
    return std::nullopt;  // the peer left, or was too slow (slowloris): nothing to answer
  if (ec == http::error::header_limit || ec == http::error::buffer_overflow)
    return text(431, "request header too large\n");
  if (ec == http::error::unexpected_body || ec == http::error::body_limit)
    return text(413, "no request body is accepted\n");
  if (ec) return text(400, "bad request: " + ec.message() + "\n");
  const auto& req = parser.get();
  return route_http(std::string_view(req.method_string().data(), req.method_string().size()),
                    std::string_view(req.target().data(), req.target().size()), sources);
}

}  // namespace

std::optional<http_answer> answer_request_bytes(std::string_view bytes, const http_options& options,
                                                const http_sources& sources) {
  request_parser parser;
  apply_limits(parser, options);
  beast::error_code ec;
  while (!ec && !parser.is_done() && !bytes.empty()) {
    const auto used = parser.put(asio::buffer(bytes.data(), bytes.size()), ec);
    if (ec == http::error::need_more) ec = {};
    if (used == 0 && !ec) break;  // Beast needs more than is there
    bytes.remove_prefix(used);
  }
  if (!parser.got_some()) return std::nullopt;       // connected and left
  if (!ec && !parser.is_done()) parser.put_eof(ec);  // the peer closed here
  if (!ec && !parser.is_done()) ec = http::error::partial_message;
  return answer_for(ec, parser, sources);
}

namespace {

struct shared_settings {
  http_options options;
  http_sources sources;
  std::atomic<std::size_t> active{0};
};

// One HTTP connection: requests read one at a time, each within the request timeout, answered,
// then the next (keep-alive) up to max_requests_per_connection.
class session : public std::enable_shared_from_this<session> {
public:
  session(tcp::socket socket, shared_settings& s)
      : stream_(std::move(socket)), settings_(s), buffer_(s.options.max_header_bytes + 1024) {}
  ~session() { settings_.active.fetch_sub(1, std::memory_order_relaxed); }

  void read() {
    apply_limits(parser_.emplace(), settings_.options);
    stream_.expires_after(settings_.options.request_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

private:
  void on_read(beast::error_code ec) {
    auto a = answer_for(ec, *parser_, settings_.sources);
    if (!a) return close();
    if (ec) return answer(std::move(*a), false, false);
    const auto& req = parser_->get();
    const bool head = req.method() == http::verb::head;
    const bool keep = req.keep_alive() && ++served_ < settings_.options.max_requests_per_connection;
    answer(std::move(*a), keep, head);
  }

  void answer(http_answer a, bool keep, bool head) {
    response_ = {};
    response_.version(11);
    response_.result(a.status);
    response_.set(http::field::server, "uactor");
    response_.set(http::field::content_type, a.content_type);
    if (a.allow_header) response_.set(http::field::allow, "GET, HEAD");
    response_.body() = std::move(a.body);
    response_.keep_alive(keep);
    response_.prepare_payload();
    if (head) response_.body().clear();  // Content-Length stays that of the GET
    stream_.expires_after(settings_.options.request_timeout);  // a peer that never reads its answer
    http::async_write(stream_, response_, [self = shared_from_this(), keep](beast::error_code ec, std::size_t) {
      if (ec || !keep) return self->close();
      self->read();
    });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  shared_settings& settings_;
  beast::flat_buffer buffer_;  // bounded: header limit and a little more
  std::optional<request_parser> parser_;
  http::response<http::string_body> response_;
  std::size_t served_ = 0;
};

}  // namespace

struct http_service::impl {
  shared_settings settings;  // before the io_context: pending sessions refer to it as they go
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  std::uint16_t port = 0;
  std::thread thread;

  void accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (!ec) {
        if (settings.active.load(std::memory_order_relaxed) >= settings.options.max_connections) {
          beast::error_code ignored;
          socket.close(ignored);  // over the limit: closed at once, nothing held
        } else {
          settings.active.fetch_add(1, std::memory_order_relaxed);
          std::make_shared<session>(std::move(socket), settings)->read();
        }
      }
      accept();
    });
  }
};

http_service::http_service(std::unique_ptr<impl> i) : impl_(std::move(i)) {}

http_service::~http_service() {
  asio::post(impl_->io, [i = impl_.get()] {
    beast::error_code ignored;
    i->acceptor.close(ignored);
    i->io.stop();
  });
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::uint16_t http_service::port() const noexcept { return impl_->port; }

ua::expected<std::unique_ptr<http_service>> http_service::start(http_options options, http_sources sources) {
  auto i = std::make_unique<impl>();
  i->settings.options = std::move(options);
  i->settings.sources = std::move(sources);
  beast::error_code ec;
  const auto address = asio::ip::make_address(i->settings.options.listen_address, ec);
  const tcp::endpoint at{address, i->settings.options.port};
  if (!ec) i->acceptor.open(at.protocol(), ec);
  if (!ec) i->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) i->acceptor.bind(at, ec);
  if (!ec) i->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    spdlog::error("metrics: cannot listen on {}:{}: {}", i->settings.options.listen_address, i->settings.options.port,
                  ec.message());
    return ua::status::bad_resource_unavailable;
  }
  i->port = i->acceptor.local_endpoint().port();
  i->accept();
  i->thread = std::thread([io = &i->io] { io->run(); });
  return std::unique_ptr<http_service>(new http_service(std::move(i)));
}

}  // namespace uactor::app
