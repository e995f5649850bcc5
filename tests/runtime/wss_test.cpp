// opc.wss (Part 6 §7.5, docs/wss.md), our server and our client over 127.0.0.1 with ports the
// system picks: reads, a browse and a subscription over the WebSocket, SignAndEncrypt on top of
// TLS, the client's TLS check against its PKI, GetEndpoints' opc.wss endpoint; and a raw Beast
// peer for what the door refuses: no opcua+uacp, a foreign Origin, text frames, oversized frames,
// a frame that is not one chunk, unmasked frames, a handshake that never comes, more handshakes at
// once than allowed, and a storm of connections that close at once. After each the server serves.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <catch2/catch.hpp>

#include "protocol/uatcp.hpp"
#include "protocol/ws_uacp.hpp"
#include "security/pki_store.hpp"
#include "tests/support/temp_folder.hpp"
#include "runtime/http/prometheus_text.hpp"
#include "uactor/client.hpp"
#include "uactor/runtime.hpp"
#include "uactor/server_plan.hpp"
#include "uactor/ua/attribute_ids.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace runtime_wss_test {

using namespace uactor;
using namespace std::chrono_literals;
using test::temp_folder;
namespace wss_beast = boost::beast;
namespace wss_asio = boost::asio;
namespace wss_ws = boost::beast::websocket;
using wss_tcp = boost::asio::ip::tcp;

namespace {

// Every case runs against both transports of the server (GENERATE in each: "door", the door with
// its socket pairs, and "native", TLS and the WebSocket in the connection brokers, docs/decisions/0073).
server_plan wss_test_plan(const temp_folder& dir, const std::string& transport) {
  auto plan = default_server_plan();
  plan.host_name = "127.0.0.1";
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.demo = true;
  plan.writer_interval = 100ms;
  plan.pki_dir = (dir.path / "server-pki").string();
  wss_plan w;
  w.port = 0;
  w.allowed_origins = {"https://hmi.test"};
  w.handshake_timeout = 500ms;
  w.transport = transport;
  plan.wss = w;
  return plan;
}

std::uint16_t wss_port_of(server& s) { return s.ports().back(); }  // the opc.wss endpoint comes last

// The opc.wss door's counters (/metrics' uactor_wss_*): the last endpoint's.
endpoint_metrics wss_door_metrics(server& s) {
  const auto m = s.metrics();
  return m.endpoints.size() == s.ports().size() ? m.endpoints.back() : endpoint_metrics{};
}

std::string wss_url(std::uint16_t port) { return "opc.wss://127.0.0.1:" + std::to_string(port) + "/"; }

// `client_transport`: our client's ("native", "door"; empty: the default, native).
client_options wss_client_options(std::uint16_t port, const temp_folder& dir, const std::string& client_transport = {}) {
  client_options o;
  o.wss_transport = client_transport;
  o.endpoint_url = wss_url(port);
  o.connect_timeout = 10s;
  o.request_timeout = 10s;
  o.security.pki_dir = (dir.path / "client-pki").string();
  o.wss_accept_any_certificate = true;
  return o;
}

ua::expected<ua::read_response> wss_read(client& c, ua::node_id node) {
  ua::read_request r;
  r.nodes_to_read.resize(1);
  r.nodes_to_read[0].node_id = std::move(node);
  r.nodes_to_read[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
  return c.read_sync(r);
}

void wss_read_browse_subscribe(client& c) {
  auto value = wss_read(c, ua::node_id::string(1, "Demo.Static.Scalar.Double"));
  REQUIRE(value.has_value());
  REQUIRE(value->results.size() == 1);
  CHECK(value->results[0].status.is_good());
  CHECK(value->results[0].value.get_if<double>() != nullptr);

  ua::browse_request b;
  b.nodes_to_browse.resize(1);
  b.nodes_to_browse[0].node_id = ua::node_id(0, 85);  // Objects
  b.nodes_to_browse[0].browse_direction = ua::browse_direction::forward;
  b.nodes_to_browse[0].include_subtypes = true;
  b.nodes_to_browse[0].result_mask = 63;
  auto browsed = c.browse_sync(b);
  REQUIRE(browsed.has_value());
  REQUIRE(browsed->results.size() == 1);
  CHECK(browsed->results[0].references.size() >= 2);  // Server and the demo's folder at least

  std::atomic<int> changes{0};
  subscription_settings settings;
  settings.publishing_interval = 50ms;
  auto sub = c.create_subscription_sync(settings, subscription_handlers{
      [&changes](std::uint32_t, std::uint32_t, std::span<const ua::monitored_item_notification> n) {
        changes += static_cast<int>(n.size());
      },
      {}});
  REQUIRE(sub.has_value());
  ua::create_monitored_items_request items;
  items.subscription_id = sub->subscription_id;
  items.items_to_create.push_back(monitor_value(ua::node_id::string(1, "Demo.Dynamic.Counter"), 7, 0));
  auto created = c.create_monitored_items_sync(items);
  REQUIRE(created.has_value());
  REQUIRE(created->results.size() == 1);
  CHECK(created->results[0].status_code.is_good());
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (changes.load() < 2 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(20ms);
  CHECK(changes.load() >= 2);
}

// The server still serves a client over opc.wss (after what a hostile peer did).
void wss_still_serves(std::uint16_t port, const temp_folder& dir) {
  auto c = client::connect(wss_client_options(port, dir));
  REQUIRE(c.has_value());
  auto v = wss_read(*c, ua::node_id(0, 2258));  // Server_ServerStatus_CurrentTime
  REQUIRE(v.has_value());
  CHECK(v->results.at(0).status.is_good());
  c->close();
}

// A raw peer: TLS (any certificate) and, when asked, the WebSocket upgrade with the headers given.
struct raw_wss_peer {
  wss_asio::io_context io;
  wss_asio::ssl::context tls{wss_asio::ssl::context::tls_client};
  wss_ws::stream<wss_beast::ssl_stream<wss_beast::tcp_stream>> ws{io, tls};

  explicit raw_wss_peer(std::uint16_t port) {
    tls.set_verify_mode(wss_asio::ssl::verify_none);
    wss_beast::get_lowest_layer(ws).connect(wss_tcp::endpoint(wss_asio::ip::make_address("127.0.0.1"), port));
    ws.next_layer().handshake(wss_asio::ssl::stream_base::client);
  }

  // The HTTP status of an upgrade request with these headers, read as plain HTTP.
  unsigned upgrade_status(const char* subprotocol, const char* origin) {
    namespace http = wss_beast::http;
    http::request<http::empty_body> req{http::verb::get, "/", 11};
    req.set(http::field::host, "127.0.0.1");
    req.set(http::field::upgrade, "websocket");
    req.set(http::field::connection, "upgrade");
    req.set(http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
    req.set(http::field::sec_websocket_version, "13");
    if (subprotocol) req.set(http::field::sec_websocket_protocol, subprotocol);
    if (origin) req.set(http::field::origin, origin);
    http::write(ws.next_layer(), req);
    wss_beast::flat_buffer b;
    http::response<http::string_body> res;
    wss_beast::error_code ec;
    http::read(ws.next_layer(), b, res, ec);
    return res.result_int();
  }

  wss_beast::error_code upgrade(const char* subprotocol, const char* origin) {
    ws.set_option(wss_ws::stream_base::decorator([subprotocol, origin](wss_ws::request_type& req) {
      if (subprotocol) req.set(wss_beast::http::field::sec_websocket_protocol, subprotocol);
      if (origin) req.set(wss_beast::http::field::origin, origin);
    }));
    wss_ws::response_type res;
    wss_beast::error_code ec;
    ws.handshake(res, "127.0.0.1", "/", ec);
    return ec;
  }

  // The next frame, or the error that ended the connection (a close from the server included).
  wss_beast::error_code read(std::string& out) {
    wss_beast::flat_buffer b;
    wss_beast::error_code ec;
    ws.read(b, ec);
    out = wss_beast::buffers_to_string(b.data());
    return ec;
  }
};

std::vector<std::uint8_t> hello_bytes() {
  ua::byte_buffer out;
  ua::hello h;
  h.receive_buffer_size = h.send_buffer_size = 65535;
  h.endpoint_url = ua::ua_string("opc.wss://127.0.0.1/");
  ua::write_message(out, h);
  return std::vector<std::uint8_t>(out.data(), out.data() + out.size());
}

}  // namespace

TEST_CASE("opc.wss: our client reads, browses and subscribes over our server's WebSocket endpoint, None", "[wss]") {
  const std::string transport = GENERATE(as<std::string>{}, "door", "native");
  const std::string client_transport = GENERATE(as<std::string>{}, "door", "native");  // docs/decisions/0077
  INFO("transport " << transport << ", client " << client_transport);
  temp_folder dir("wss-none");
  runtime rt;
  auto srv = rt.start_server(wss_test_plan(dir, transport));
  REQUIRE(srv.has_value());
  const auto port = wss_port_of(**srv);
  REQUIRE(port != 0);
  auto c = client::connect(wss_client_options(port, dir, client_transport));
  REQUIRE(c.has_value());
  wss_read_browse_subscribe(*c);

  // GetEndpoints names the opc.wss endpoint with the WebSocket transport profile (Part 6 §7.5.1).
  ua::get_endpoints_request req;
  req.endpoint_url = ua::ua_string(wss_url(port));
  auto eps = c->get_endpoints_sync(req);
  REQUIRE(eps.has_value());
  bool found = false;
  for (const auto& e : eps->endpoints)
    if (e.endpoint_url.view().starts_with("opc.wss://")) {
      found = true;
      CHECK(e.transport_profile_uri.view() == ua::wss_uacp_binary_profile);
    } else {
      CHECK(e.endpoint_url.view().starts_with("opc.tcp://"));
    }
  CHECK(found);
  c->close();
}

TEST_CASE("opc.wss: SignAndEncrypt on top of TLS, the client's certificate trusted by the server", "[wss]") {
  const std::string transport = GENERATE(as<std::string>{}, "door", "native");
  const std::string client_transport = GENERATE(as<std::string>{}, "door", "native");  // docs/decisions/0077
  INFO("transport " << transport << ", client " << client_transport);
  temp_folder dir("wss-secure");
  security::pki_store client_store(dir.path / "client-pki");
  security::certificate_request creq;
  creq.application_uri = "urn:uactor:test:wss-client";
  creq.common_name = "uactor wss client";
  creq.host_names = {"localhost"};
  auto own = client_store.load_or_create_own(creq, "uactor-client");
  REQUIRE(own.has_value());
  const auto der = own->cert.der();
  const auto cert_file = dir.path / "client.der";
  std::ofstream(cert_file, std::ios::binary).write(reinterpret_cast<const char*>(der.data()), static_cast<std::streamsize>(der.size()));
  auto plan = wss_test_plan(dir, transport);
  plan.wss->security = {"Basic256Sha256:SignAndEncrypt"};
  plan.trust = {cert_file.string()};
  runtime rt;
  auto srv = rt.start_server(plan);
  REQUIRE(srv.has_value());
  auto o = wss_client_options(wss_port_of(**srv), dir, client_transport);
  o.security.application_uri = "urn:uactor:test:wss-client";
  o.security.policy = "Basic256Sha256";
  o.security.mode = ua::message_security_mode::sign_and_encrypt;
  o.security.accept_untrusted_server_certificate = true;
  auto c = client::connect(o);
  REQUIRE(c.has_value());
  wss_read_browse_subscribe(*c);
  c->close();
}

TEST_CASE("opc.wss: the client checks the server's TLS certificate against its PKI", "[wss]") {
  const std::string transport = GENERATE(as<std::string>{}, "door", "native");
  const std::string client_transport = GENERATE(as<std::string>{}, "door", "native");  // docs/decisions/0077
  INFO("transport " << transport << ", client " << client_transport);
  temp_folder dir("wss-trust");
  runtime rt;
  auto srv = rt.start_server(wss_test_plan(dir, transport));
  REQUIRE(srv.has_value());
  const auto port = wss_port_of(**srv);
  auto o = wss_client_options(port, dir, client_transport);
  o.wss_accept_any_certificate = false;
  auto refused = client::connect(o);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error() == ua::status::bad_connection_rejected);
  // Trusted (the server's application certificate in the client's trusted/): accepted.
  security::pki_store server_store(dir.path / "server-pki");
  const auto own = server_store.list("own");
  REQUIRE_FALSE(own.empty());
  security::pki_store client_store(dir.path / "client-pki");
  REQUIRE(client_store.trust(own.front()).is_good());
  auto c = client::connect(o);
  REQUIRE(c.has_value());
  CHECK(wss_read(*c, ua::node_id(0, 2258)).has_value());
  c->close();
}

TEST_CASE("opc.wss: the door refuses what is not opcua+uacp from an allowed origin, frame by frame", "[wss]") {
  const std::string transport = GENERATE(as<std::string>{}, "door", "native");
  INFO("transport " << transport);
  temp_folder dir("wss-hostile");
  runtime rt;
  auto srv = rt.start_server(wss_test_plan(dir, transport));
  REQUIRE(srv.has_value());
  const auto port = wss_port_of(**srv);
  std::string got;

  SECTION("HEL and ACK, each one frame; a Hello in two fragments is one message; a ping gets its pong") {
    raw_wss_peer p(port);
    REQUIRE_FALSE(p.upgrade("opcua+uacp", nullptr));
    std::string pong;
    p.ws.control_callback([&pong](wss_ws::frame_type kind, wss_beast::string_view payload) {
      if (kind == wss_ws::frame_type::pong) pong = std::string(payload);
    });
    p.ws.ping("are you there");  // RFC 6455 §5.5.2-3: answered with the same application data
    p.ws.binary(true);
    const auto hel = hello_bytes();
    p.ws.write(wss_asio::buffer(hel.data(), hel.size()));
    REQUIRE_FALSE(p.read(got));
    REQUIRE(got.size() >= 8);
    CHECK(got.substr(0, 4) == "ACKF");
    CHECK(pong == "are you there");
    raw_wss_peer f(port);
    REQUIRE_FALSE(f.upgrade("opcua+uacp", "https://hmi.test"));
    f.ws.binary(true);
    f.ws.write_some(false, wss_asio::buffer(hel.data(), 10));
    f.ws.write_some(true, wss_asio::buffer(hel.data() + 10, hel.size() - 10));
    REQUIRE_FALSE(f.read(got));
    CHECK(got.substr(0, 4) == "ACKF");
  }
  SECTION("no subprotocol, another subprotocol, a foreign origin: refused at the upgrade") {
    CHECK(raw_wss_peer(port).upgrade_status(nullptr, nullptr) == 400);
    CHECK(raw_wss_peer(port).upgrade_status("opcua+uajson", nullptr) == 400);
    CHECK(raw_wss_peer(port).upgrade_status("opcua+uacp", "https://evil.test") == 403);
    CHECK(raw_wss_peer(port).upgrade_status("opcua+uacp", "https://hmi.test") == 101);
    raw_wss_peer a(port);
    CHECK(a.upgrade(nullptr, nullptr) == wss_ws::error::upgrade_declined);
    // Counted before each answer went out.
    CHECK(wss_door_metrics(**srv).wss_upgrades_refused == 4);
    CHECK(wss_door_metrics(**srv).wss_tls_failures == 0);
    const auto urls = (*srv)->endpoint_urls();
    const auto text = app::prometheus_text({{urls.front(), (*srv)->metrics(), {}, urls}}, {});
    CHECK(text.find("uactor_wss_upgrades_refused_total{endpoint=\"" + urls.back() + "\"} 4") != std::string::npos);
    CHECK(text.find("uactor_wss_busy_refusals_total{endpoint=\"" + urls.front() + "\"}") == std::string::npos);  // opc.tcp's
  }
  SECTION("a text frame, an oversized frame, two chunks in one frame, garbage: closed") {
    for (int kind = 0; kind < 4; ++kind) {
      raw_wss_peer p(port);
      REQUIRE_FALSE(p.upgrade("opcua+uacp", nullptr));
      const auto hel = hello_bytes();
      if (kind == 0) {
        p.ws.text(true);
        p.ws.write(wss_asio::buffer(hel.data(), hel.size()));
      } else if (kind == 1) {
        std::vector<std::uint8_t> big(70'000, 0);
        std::memcpy(big.data(), hel.data(), 8);
        p.ws.binary(true);
        p.ws.write(wss_asio::buffer(big));
      } else if (kind == 2) {
        auto two = hel;
        two.insert(two.end(), hel.begin(), hel.end());
        p.ws.binary(true);
        p.ws.write(wss_asio::buffer(two.data(), two.size()));
      } else {
        const std::string junk = "GET / HTTP/1.1\r\n\r\n";
        p.ws.binary(true);
        p.ws.write(wss_asio::buffer(junk));
      }
      INFO("kind " << kind);
      CHECK(p.read(got));  // the server closed, with the code of docs/wss.md's table
      const std::uint16_t expected[] = {1003, 1009, 1002, 1002};
      // The door's Beast checks a text frame's UTF-8 before we see it: a Hello is not UTF-8 (1007).
      if (kind == 0 && transport == "door") CHECK((p.ws.reason().code == 1003 || p.ws.reason().code == 1007));
      else CHECK(p.ws.reason().code == expected[kind]);
    }
  }
  SECTION("an unmasked client frame breaks RFC 6455 §5.1: closed") {
    raw_wss_peer p(port);
    REQUIRE_FALSE(p.upgrade("opcua+uacp", nullptr));
    const auto hel = hello_bytes();
    std::vector<std::uint8_t> frame{0x82, static_cast<std::uint8_t>(hel.size())};  // FIN, binary, no mask bit
    frame.insert(frame.end(), hel.begin(), hel.end());
    wss_asio::write(p.ws.next_layer(), wss_asio::buffer(frame));
    CHECK(p.read(got));
  }
  wss_still_serves(port, dir);
}

TEST_CASE("opc.wss: a handshake that never comes is closed, handshakes at once are bounded, a close storm leaves the "
          "server serving", "[wss]") {
  const std::string transport = GENERATE(as<std::string>{}, "door", "native");
  INFO("transport " << transport);
  temp_folder dir("wss-slow");
  auto plan = wss_test_plan(dir, transport);
  plan.wss->max_pending_handshakes = 4;
  runtime rt;
  auto srv = rt.start_server(plan);
  REQUIRE(srv.has_value());
  const auto port = wss_port_of(**srv);
  const auto dial = [port] {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    timeval tv{20, 0};  // a safety net: the door closes them long before
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
  };
  const auto closed = [](int fd) {
    char ch;
    const auto n = ::recv(fd, &ch, 1, 0);
    return n == 0 || (n < 0 && errno == ECONNRESET);
  };
  // Silent peers (slowloris): each is closed by the handshake deadline; the fifth at once.
  std::vector<int> silent;
  for (int i = 0; i < 5; ++i) silent.push_back(dial());
  for (const int fd : silent) {
    CHECK(closed(fd));
    ::close(fd);
  }
  CHECK(wss_door_metrics(**srv).wss_busy_refusals == 1);  // counted before the close
  // No TLS before the deadline: the timeout closes the socket, then its handler counts (bounded wait).
  for (int i = 0; i < 250 && wss_door_metrics(**srv).wss_tls_failures < 4; ++i) std::this_thread::sleep_for(20ms);
  CHECK(wss_door_metrics(**srv).wss_tls_failures == 4);
  // A storm: TLS and upgrade done, then gone without a close frame, or with one; and TCP resets.
  for (int i = 0; i < 30; ++i) {
    raw_wss_peer p(port);
    REQUIRE_FALSE(p.upgrade("opcua+uacp", nullptr));
    if (i % 3 == 0) p.ws.close(wss_ws::close_code::normal);
    else if (i % 3 == 1) wss_beast::get_lowest_layer(p.ws).socket().close();
  }
  for (int i = 0; i < 10; ++i) {
    const int fd = dial();
    linger l{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    ::close(fd);  // RST
  }
  wss_still_serves(port, dir);
}

TEST_CASE("opc.wss: past max_connections an ERR Bad_TcpNotEnoughResources after the upgrade, then the close", "[wss]") {
  const std::string transport = GENERATE(as<std::string>{}, "door", "native");
  INFO("transport " << transport);
  temp_folder dir("wss-max-connections");
  auto plan = wss_test_plan(dir, transport);
  plan.max_connections = 1;
  runtime rt;
  auto srv = rt.start_server(plan);
  REQUIRE(srv.has_value());
  const auto port = wss_port_of(**srv);
  auto held = client::connect(wss_client_options(port, dir));  // the one connection
  REQUIRE(held.has_value());
  {
    raw_wss_peer p(port);
    REQUIRE_FALSE(p.upgrade("opcua+uacp", nullptr));  // TLS and the upgrade as for any
    std::string got;
    REQUIRE_FALSE(p.read(got));
    REQUIRE(got.size() >= 12);
    CHECK(got.substr(0, 4) == "ERRF");  // Part 6 §7.1.2.5, one frame
    std::uint32_t code = 0;
    for (int i = 3; i >= 0; --i) code = code << 8 | static_cast<std::uint8_t>(got[8 + static_cast<std::size_t>(i)]);
    CHECK(code == ua::status::bad_tcp_not_enough_resources.value());
    CHECK(p.read(got));  // then the end
  }
  // Not counted as a connection: the one held still works, and once it is gone another comes in.
  CHECK(wss_read(*held, ua::node_id(0, 2258)).has_value());
  held->close();
  bool served = false;
  for (int i = 0; i < 50 && !served; ++i) {  // the server sees the close a moment later
    auto c = client::connect(wss_client_options(port, dir));
    if (c) {
      served = wss_read(*c, ua::node_id(0, 2258)).has_value();
      c->close();
    } else {
      std::this_thread::sleep_for(100ms);
    }
  }
  CHECK(served);
}

TEST_CASE("opc.wss: the Hello timeout runs from the upgrade, not from the TCP accept", "[wss]") {
  const std::string transport = GENERATE(as<std::string>{}, "door", "native");
  INFO("transport " << transport);
  temp_folder dir("wss-hello-timeout");
  auto plan = wss_test_plan(dir, transport);
  plan.hello_timeout = 3s;
  plan.wss->handshake_timeout = 6s;
  runtime rt;
  auto srv = rt.start_server(plan);
  REQUIRE(srv.has_value());
  raw_wss_peer p(wss_port_of(**srv));  // TCP and TLS now
  std::this_thread::sleep_for(3500ms);  // past the Hello timeout counted from the accept
  REQUIRE_FALSE(p.upgrade("opcua+uacp", nullptr));
  std::this_thread::sleep_for(1500ms);  // within it counted from the upgrade
  p.ws.binary(true);
  const auto hel = hello_bytes();
  p.ws.write(wss_asio::buffer(hel.data(), hel.size()));
  std::string got;
  REQUIRE_FALSE(p.read(got));
  CHECK(got.substr(0, 4) == "ACKF");
}

}  // namespace runtime_wss_test
