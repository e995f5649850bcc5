// The operator's HTTP door of `uactor run` (docs/configuration.md "Metrics"): GET /metrics,
// /health/live and /health/ready over Boost.Beast, on a thread and io_context of its own, never
// on an OPC UA path. Bounded: header size, one request's time (slowloris), connections at once;
// no request bodies. No Boost in this header.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "uactor/ua/expected.hpp"

namespace uactor::app {

struct http_options {
  std::string listen_address = "127.0.0.1";
  std::uint16_t port = 9464;  // 0: any free port (http_service::port says which)
  std::size_t max_connections = 16;
  std::size_t max_header_bytes = 8192;                    // beyond: 431
  std::chrono::milliseconds request_timeout{5'000};       // a request's header must arrive within it
  std::size_t max_requests_per_connection = 100;          // keep-alive, then the connection closes
};

// What the routes answer with. Called on the HTTP thread.
struct http_sources {
  std::function<std::string()> metrics;  // the Prometheus text exposition
  std::function<bool()> ready;           // /health/ready: 200 or 503
};

struct http_answer {
  unsigned status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  bool allow_header = false;  // 405: "Allow: GET, HEAD"
};

// The routing, without sockets (tests call it directly): GET or HEAD of /metrics, /health/live,
// /health/ready (a query string is ignored); 404 for another path, 405 for another method.
http_answer route_http(std::string_view method, std::string_view target, const http_sources& sources);

// One request as the service answers it when a peer sends `bytes` and closes: the same parser
// and limits as the socket path. Empty when there is nothing to answer (an incomplete request).
// For tests and the fuzzer (tests/fuzz/http_fuzz.cpp).
std::optional<http_answer> answer_request_bytes(std::string_view bytes, const http_options& options,
                                                const http_sources& sources);

class http_service {
public:
  // Binds and starts serving; Bad_ResourceUnavailable (with the reason logged) when it cannot bind.
  static ua::expected<std::unique_ptr<http_service>> start(http_options options, http_sources sources);
  ~http_service();  // stops: open connections are closed
  http_service(const http_service&) = delete;
  http_service& operator=(const http_service&) = delete;

  std::uint16_t port() const noexcept;

private:
  struct impl;
  explicit http_service(std::unique_ptr<impl> i);
  std::unique_ptr<impl> impl_;
};

}  // namespace uactor::app
