// What a server counts (include/uactor/metrics.hpp), its Prometheus text, and the HTTP door that
// serves it (runtime/http): routes, and hostile HTTP over a real socket.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/server/server_metrics.hpp"
#include "protocol/codec.hpp"
#include "uactor/ua/attribute_ids.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"
#include "protocol/message.hpp"
#include "runtime/http/http_service.hpp"
#include "runtime/http/prometheus_text.hpp"
#include "uactor/runtime.hpp"

using namespace uactor;
using namespace std::chrono_literals;

namespace {

template <class T>
std::vector<std::uint8_t> encoded(const T& message) {
  ua::byte_buffer b;
  ua::encoder e(b);
  ua::encode_message(e, message);
  return {b.data(), b.data() + b.size()};
}

std::uint64_t bad_count(const service_metrics& s, ua::status_code status) {
  for (const auto& [sc, n] : s.bad_results)
    if (sc == status) return n;
  return 0;
}

const service_metrics* find_service(const server_metrics& m, std::string_view name) {
  for (const auto& s : m.services)
    if (s.service == name) return &s;
  return nullptr;
}

// A TCP connection to 127.0.0.1:port; -1 when it cannot connect.
int dial(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

void send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const auto n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return;  // the server may close early (431): what it answered is read next
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

// Everything the server sends until it closes, or until `limit` passes (then `closed` is false).
struct reply {
  std::string bytes;
  bool closed = false;
};
reply read_until_closed(int fd, std::chrono::milliseconds limit) {
  reply r;
  const auto until = std::chrono::steady_clock::now() + limit;
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return r;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return r;
    const auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      r.closed = true;
      return r;
    }
    r.bytes.append(buf, static_cast<std::size_t>(n));
  }
}

reply ask(std::uint16_t port, std::string_view request, std::chrono::milliseconds limit = 3s) {
  const int fd = dial(port);
  REQUIRE(fd >= 0);
  send_all(fd, request);
  auto r = read_until_closed(fd, limit);
  ::close(fd);
  return r;
}

std::unique_ptr<app::http_service> start_http(app::http_options o) {
  o.listen_address = "127.0.0.1";
  o.port = 0;
  app::http_sources s;
  s.metrics = [] { return std::string("uactor_test 1\n"); };
  s.ready = [] { return true; };
  auto h = app::http_service::start(std::move(o), std::move(s));
  REQUIRE(h.has_value());
  return std::move(*h);
}

}  // namespace

TEST_CASE("metrics: the ServiceResult is read from an encoded response", "[metrics]") {
  ua::service_fault fault;
  fault.response_header.service_result = ua::status::bad_too_many_sessions;
  fault.response_header.request_handle = 77;
  CHECK(actors::service_result_of(encoded(fault)) == ua::status::bad_too_many_sessions);
  ua::read_response read;
  CHECK(actors::service_result_of(encoded(read)) == ua::status::good);
  const auto whole = encoded(fault);
  const std::vector<std::uint8_t> truncated(whole.begin(), whole.begin() + 10);
  CHECK(actors::service_result_of(truncated) == ua::status::good);  // not enough bytes: nothing to count
  CHECK(actors::service_result_of({}) == ua::status::good);
}

TEST_CASE("metrics: requests count by service, bad ServiceResults by service and status", "[metrics]") {
  actors::metrics_registry registry;
  auto& host = registry.host();
  const ua::extension_object read{ua::read_request{}};
  const ua::extension_object browse{ua::browse_request{}};
  ua::service_fault fault;
  fault.response_header.service_result = ua::status::bad_session_id_invalid;
  const auto good = encoded(ua::read_response{});
  const auto bad = encoded(fault);
  for (int i = 0; i < 5; ++i) host.count_request(actors::service_index(read), good);
  host.count_request(actors::service_index(read), bad);
  host.count_request(actors::service_index(browse), bad);
  host.count_request(actors::service_index(browse), {});  // answered later: counted, no result
  const auto m = registry.snapshot();
  const auto* r = find_service(m, "Read");
  const auto* b = find_service(m, "Browse");
  REQUIRE(r);
  REQUIRE(b);
  CHECK(r->requests == 6);
  CHECK(bad_count(*r, ua::status::bad_session_id_invalid) == 1);
  CHECK(b->requests == 2);
  CHECK(bad_count(*b, ua::status::bad_session_id_invalid) == 1);
  CHECK(find_service(m, "Write") == nullptr);  // never asked: not listed
  CHECK(actors::service_index(ua::extension_object{}) == actors::service_names().size() - 1);  // "Other"
}

TEST_CASE("metrics: a closed connection's counts stay in the totals", "[metrics]") {
  actors::metrics_registry registry;
  auto a = registry.open_connection();
  auto b = registry.open_connection();
  a->bytes_received.add(100);
  b->bytes_sent.add(7);
  a->renewals.add(2);
  a->wait_ns.add(500);
  a->waits.add(2);
  b->waits.add();
  b->mailbox_depth.set(4);
  a->mailbox_depth.set(9);
  a->closed.store(true);
  a.reset();
  auto m = registry.snapshot();
  CHECK(m.connections_accepted == 2);
  CHECK(m.connections_open == 1);
  CHECK(m.bytes_received == 100);
  CHECK(m.bytes_sent == 7);
  CHECK(m.channel_renewals == 2);
  CHECK(m.connection_wait_ns == 500);
  CHECK(m.connection_waits == 3);
  CHECK(m.connection_mailbox_depth == 4);  // a gauge: the open connections only
  m = registry.snapshot();  // folded once, not twice
  CHECK(m.bytes_received == 100);
  CHECK(m.connection_waits == 3);
}

// Without a metrics endpoint nothing scrapes: closed connections' blocks must still go (else one
// per connection ever accepted stays, ~100 bytes each, measured with heaptrack on `uactor run`).
TEST_CASE("metrics: closed connections' blocks are released at later accepts when nothing scrapes", "[metrics]") {
  actors::metrics_registry registry;
  std::vector<std::weak_ptr<actors::connection_counters>> blocks;
  auto held = registry.open_connection();  // one stays open throughout
  for (int i = 0; i < 10'000; ++i) {
    auto c = registry.open_connection();
    c->bytes_received.add(3);
    c->closed.store(true);
    blocks.push_back(c);
  }
  const auto kept = std::ranges::count_if(blocks, [](const auto& w) { return !w.expired(); });
  CHECK(kept <= 128);  // the sweep runs when twice the blocks of the last sweep (at least 64) are held
  const auto m = registry.snapshot();
  CHECK(m.connections_accepted == 10'001);
  CHECK(m.connections_open == 1);
  CHECK(m.bytes_received == 30'000);  // folded, not lost
}

TEST_CASE("metrics: the Prometheus text has one sample per endpoint, service and status", "[metrics]") {
  server_metrics m;
  m.connections_open = 3;
  m.connection_mailbox_depth = 2;
  m.connection_waits = 4;
  m.connection_wait_ns = 2'000'000'000;
  m.services.push_back({"Read", 11, {{ua::status::bad_nothing_to_do, 2}}});
  m.session_moves = 5;
  m.session_moves_refused = 6;
  script_metrics sm;
  sm.kills = 2;
  sm.eval_ns = 1'500'000'000;
  sm.shadow_compared = 40;
  sm.shadow_mismatches = 3;
  sm.shadow_timeouts = 2;
  sm.shadow_unavailable = 1;
  sm.shards = {{.evaluations = 5}, {.evaluations = 7, .kills = 1, .eval_ns = 250'000'000}};
  const auto text = app::prometheus_text({{"opc.tcp://h:4840", m, sm, {}}}, {1.5, 4096, 9, 750'000'000, 3});
  CHECK_THAT(text, Catch::Contains("uactor_actor_mailbox_depth{actor=\"connections\",endpoint=\"opc.tcp://h:4840\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("uactor_actor_message_wait_seconds_count{actor=\"connections\",endpoint=\"opc.tcp://h:4840\"} 4\n"));
  CHECK_THAT(text, Catch::Contains("uactor_actor_message_wait_seconds_sum{actor=\"connections\",endpoint=\"opc.tcp://h:4840\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("uactor_actor_message_wait_seconds_count{actor=\"writers\"} 3\n"));
  CHECK_THAT(text, Catch::Contains("uactor_actor_message_wait_seconds_sum{actor=\"writers\"} 0.75\n"));
  CHECK_THAT(text, Catch::Contains("uactor_script_kills_total{endpoint=\"opc.tcp://h:4840\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("uactor_script_evaluation_seconds_total{endpoint=\"opc.tcp://h:4840\"} 1.5\n"));
  CHECK_THAT(text, Catch::Contains("uactor_script_shard_evaluations_total{endpoint=\"opc.tcp://h:4840\",shard=\"1\"} 7\n"));
  CHECK_THAT(text, Catch::Contains("uactor_script_shadow_compared_total{endpoint=\"opc.tcp://h:4840\"} 40\n"));
  CHECK_THAT(text, Catch::Contains("uactor_script_shadow_mismatches_total{endpoint=\"opc.tcp://h:4840\"} 3\n"));
  CHECK_THAT(text, Catch::Contains("uactor_script_shadow_timeouts_total{endpoint=\"opc.tcp://h:4840\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("uactor_script_shadow_unavailable_total{endpoint=\"opc.tcp://h:4840\"} 1\n"));
  CHECK_THAT(text, Catch::Contains("uactor_script_shard_kills_total{endpoint=\"opc.tcp://h:4840\",shard=\"0\"} 0\n"));
  CHECK_THAT(text,
             Catch::Contains("uactor_script_shard_evaluation_seconds_total{endpoint=\"opc.tcp://h:4840\",shard=\"1\"} 0.25\n"));
  CHECK_THAT(text, Catch::Contains("# TYPE uactor_requests_total counter"));
  CHECK_THAT(text, Catch::Contains("uactor_requests_total{endpoint=\"opc.tcp://h:4840\",service=\"Read\"} 11\n"));
  CHECK_THAT(text, Catch::Contains(
                       "uactor_service_results_total{endpoint=\"opc.tcp://h:4840\",service=\"Read\",status=\"BadNothingToDo\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("uactor_connections_open{endpoint=\"opc.tcp://h:4840\"} 3\n"));
  CHECK_THAT(text, Catch::Contains("uactor_session_channel_moves_total{endpoint=\"opc.tcp://h:4840\"} 5\n"));
  CHECK_THAT(text, Catch::Contains("uactor_session_channel_moves_refused_total{endpoint=\"opc.tcp://h:4840\"} 6\n"));
  CHECK_THAT(text, Catch::Contains("uactor_writer_cycles_total 9\n"));
  CHECK_THAT(text, Catch::Contains("process_resident_memory_bytes 4096\n"));
}

TEST_CASE("http: the routes and their status codes", "[http]") {
  bool ready = false;
  app::http_sources s;
  s.metrics = [] { return std::string("m 1\n"); };
  s.ready = [&ready] { return ready; };
  auto a = app::route_http("GET", "/metrics", s);
  CHECK(a.status == 200);
  CHECK(a.body == "m 1\n");
  CHECK_THAT(a.content_type, Catch::Contains("version=0.0.4"));
  CHECK(app::route_http("HEAD", "/metrics?x=1", s).status == 200);
  CHECK(app::route_http("GET", "/health/live", s).status == 200);
  CHECK(app::route_http("GET", "/health/ready", s).status == 503);
  ready = true;
  CHECK(app::route_http("GET", "/health/ready", s).status == 200);
  CHECK(app::route_http("GET", "/", s).status == 404);
  CHECK(app::route_http("GET", "/metrics/../etc/passwd", s).status == 404);
  const auto post = app::route_http("POST", "/metrics", s);
  CHECK(post.status == 405);
  CHECK(post.allow_header);
}

TEST_CASE("http: bytes a peer sends, answered with the service's parser and limits", "[http]") {
  app::http_sources s;
  s.metrics = [] { return std::string("m 1\n"); };
  const app::http_options o;
  auto status_of = [&](const std::string& bytes) {
    const auto a = app::answer_request_bytes(bytes, o, s);
    return a ? static_cast<int>(a->status) : 0;  // 0: nothing answered
  };
  CHECK(status_of("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n") == 200);
  CHECK(status_of("GET /metrics HTTP/1.1\r\nHost: a\r\nX: " + std::string(o.max_header_bytes, 'x') + "\r\n\r\n") ==
        431);
  CHECK(status_of("POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc") == 413);
  CHECK(status_of("GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n") == 413);
  CHECK(status_of("\x01\x02 nonsense\r\n\r\n") == 400);
  CHECK(status_of("GET /metrics HTTP/1.1\r\nHost: a\r\n") == 0);  // the peer closed mid-header
  CHECK(status_of("") == 0);
}

TEST_CASE("http: requests over a socket, and what is refused", "[http]") {
  app::http_options o;
  o.request_timeout = 400ms;
  o.max_connections = 3;
  auto http = start_http(o);
  const auto port = http->port();

  const auto ok = ask(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(ok.closed);
  CHECK_THAT(ok.bytes, Catch::StartsWith("HTTP/1.1 200 OK\r\n"));
  CHECK_THAT(ok.bytes, Catch::EndsWith("\r\n\r\nuactor_test 1\n"));

  // Keep-alive: two requests on one connection, both answered.
  const auto two = ask(port, "GET /health/live HTTP/1.1\r\nHost: x\r\n\r\nGET /health/ready HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK_THAT(two.bytes, Catch::Contains("live\n"));
  CHECK_THAT(two.bytes, Catch::Contains("ready\n"));

  const auto head = ask(port, "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK_THAT(head.bytes, Catch::Contains("Content-Length: 14\r\n"));
  CHECK_THAT(head.bytes, Catch::EndsWith("\r\n\r\n"));

  const auto post = ask(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  CHECK_THAT(post.bytes, Catch::StartsWith("HTTP/1.1 405"));
  CHECK_THAT(post.bytes, Catch::Contains("Allow: GET, HEAD\r\n"));

  CHECK_THAT(ask(port, "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").bytes, Catch::StartsWith("HTTP/1.1 404"));
  const auto body = ask(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
  CHECK_THAT(body.bytes, Catch::StartsWith("HTTP/1.1 413"));
  CHECK(body.closed);
  const auto garbage = ask(port, "\x01\x02 not http at all\r\n\r\n");
  CHECK_THAT(garbage.bytes, Catch::StartsWith("HTTP/1.1 400"));
  CHECK(garbage.closed);

  // A header beyond the limit: 431, and the connection closes (the rest is never buffered).
  const std::string huge = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(64 * 1024, 'a') + "\r\n\r\n";
  const auto big = ask(port, huge);
  CHECK_THAT(big.bytes, Catch::StartsWith("HTTP/1.1 431"));
  CHECK(big.closed);

  // Slowloris: a header that never ends is dropped once the request timeout has passed.
  const int slow = dial(port);
  REQUIRE(slow >= 0);
  send_all(slow, "GET /metrics HTTP/1.1\r\nHost: x\r\n");
  const auto started = std::chrono::steady_clock::now();
  const auto dropped = read_until_closed(slow, 5s);
  CHECK(dropped.closed);
  CHECK(dropped.bytes.empty());
  CHECK(std::chrono::steady_clock::now() - started < 4s);
  ::close(slow);
}

TEST_CASE("http: connections beyond the limit are closed at once, the others are served", "[http]") {
  app::http_options o;
  o.request_timeout = 3s;
  o.max_connections = 2;
  auto http = start_http(o);
  const int a = dial(http->port());
  const int b = dial(http->port());
  REQUIRE(a >= 0);
  REQUIRE(b >= 0);
  send_all(a, "GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n");  // both held open (keep-alive)
  send_all(b, "GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK_THAT(read_until_closed(a, 500ms).bytes, Catch::Contains("live\n"));
  CHECK_THAT(read_until_closed(b, 500ms).bytes, Catch::Contains("live\n"));
  const int c = dial(http->port());
  REQUIRE(c >= 0);
  const auto refused = read_until_closed(c, 2s);
  CHECK(refused.closed);
  CHECK(refused.bytes.empty());
  ::close(c);
  ::close(a);
  ::close(b);
  // Once they are gone, a new connection is served again (bounded wait: the server notices the
  // closes asynchronously).
  bool served = false;
  for (int i = 0; i < 50 && !served; ++i) {
    served = ask(http->port(), "GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 1s).bytes.find("live\n") !=
             std::string::npos;
    if (!served) std::this_thread::sleep_for(50ms);
  }
  CHECK(served);
}

TEST_CASE("embedded server: metrics count what a client asked and answered", "[runtime]") {
  runtime rt;
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  plan.session_host = "scheduler";  // the batches cross to the host and back: both waits counted
  server& srv = **rt.start_server(plan);
  client_options o;
  o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(srv.port());
  auto c = rt.connect(o);
  REQUIRE(c.has_value());
  ua::read_request r;
  r.nodes_to_read.resize(1);
  r.nodes_to_read[0].node_id = ua::node_id(0, ua::ids::server_server_status_state);
  r.nodes_to_read[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
  for (int i = 0; i < 10; ++i) REQUIRE(c->read_sync(r).has_value());
  CHECK(c->read_sync(ua::read_request{}).error() == ua::status::bad_nothing_to_do);  // a whole-request failure

  const auto m = srv.metrics();
  const auto* read = find_service(m, "Read");
  REQUIRE(read);
  CHECK(read->requests == 11);
  CHECK(bad_count(*read, ua::status::bad_nothing_to_do) == 1);
  REQUIRE(find_service(m, "CreateSession"));
  CHECK(find_service(m, "CreateSession")->requests == 1);
  CHECK(m.connections_accepted == 1);
  CHECK(m.connections_open == 1);
  CHECK(m.bytes_received > 11 * 50);
  CHECK(m.bytes_sent > 11 * 50);
  // One request at a time: each Read a batch of its own, measured at the host and back at its
  // connection.
  CHECK(m.host_waits >= 11);
  CHECK(m.connection_waits >= 11);
  c->close();
  bool closed = false;
  for (int i = 0; i < 100 && !closed; ++i) {
    closed = srv.metrics().connections_open == 0;
    if (!closed) std::this_thread::sleep_for(20ms);
  }
  CHECK(closed);
  CHECK(srv.metrics().bytes_received >= m.bytes_received);  // the closed connection's bytes stay counted
}

TEST_CASE("embedded server: a reload with an unreadable users file changes nothing", "[runtime]") {
  runtime rt;
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  server& srv = **rt.start_server(plan);
  auto bad = plan;
  bad.users_file = "/nonexistent/users";
  const auto errors = srv.reload(bad);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::Contains("/nonexistent/users"));
  auto trust = plan;
  trust.trust = {"/nonexistent/cert.der"};
  CHECK(srv.reload(trust).size() == 1);
  CHECK(srv.reload(plan).empty());  // the same plan again: fine
}
