// Reverse connect (Part 6 §7.1.3, docs/reverse-connect.md), both sides ours over 127.0.0.1 with
// ports the system picks: the server dials the client's listener, sends a ReverseHello, and the
// client runs Hello, the channel and the session over that socket; a read, a subscription's data
// changes, the listener restarted (the server dials again), None and SignAndEncrypt; and what a
// listener does with sockets that are not a good reverse connection.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/uatcp.hpp"
#include "security/pki_store.hpp"
#include "tests/support/secured_client.hpp"
#include "tests/support/temp_folder.hpp"
#include "uactor/client.hpp"
#include "uactor/reverse_listener.hpp"
#include "uactor/runtime.hpp"
#include "uactor/server_plan.hpp"
#include "uactor/ua/attribute_ids.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace runtime_reverse_connect_test {

using namespace uactor;
using namespace std::chrono_literals;
using test::temp_folder;

namespace {

constexpr const char* server_uri = "urn:uactor:test:reverse-server";
constexpr const char* client_uri = "urn:uactor:test:reverse-client";

server_plan reverse_plan(std::uint16_t client_port, const temp_folder& dir) {
  auto plan = default_server_plan();
  plan.host_name = "127.0.0.1";
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.demo = true;
  plan.writer_interval = 100ms;
  plan.application_uri = server_uri;
  plan.pki_dir = (dir.path / "server-pki").string();
  reverse_connect_plan r;
  r.client_url = "opc.tcp://127.0.0.1:" + std::to_string(client_port);
  r.backoff_min = 50ms;
  r.backoff_max = 400ms;
  plan.reverse_connect = {r};
  return plan;
}

client_options reverse_options(const std::shared_ptr<reverse_listener>& l, const temp_folder& dir) {
  client_options o;
  o.reverse_listener = l;
  o.connect_timeout = 10s;
  o.request_timeout = 10s;
  o.security.pki_dir = (dir.path / "client-pki").string();
  o.security.application_uri = client_uri;
  o.security.accept_untrusted_server_certificate = true;  // the server's certificate is made at start
  return o;
}

std::shared_ptr<reverse_listener> listen_on(std::uint16_t port) {
  reverse_listen_options lo;
  lo.listen = "127.0.0.1:" + std::to_string(port);
  lo.expected_server_uri = server_uri;
  lo.hello_timeout = 1s;
  lo.max_pending = 4;
  auto l = reverse_listener::open(lo);
  REQUIRE(l.has_value());
  return *l;
}

ua::expected<ua::read_response> read_value(client& c, ua::node_id node) {
  ua::read_request r;
  r.nodes_to_read.resize(1);
  r.nodes_to_read[0].node_id = std::move(node);
  r.nodes_to_read[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
  return c.read_sync(r);
}

// A read of a demo value and data changes of a changing one, over the reverse connection.
void read_and_subscribe(client& c) {
  auto value = read_value(c, ua::node_id::string(1, "Demo.Static.Scalar.Double"));
  REQUIRE(value.has_value());
  REQUIRE(value->results.size() == 1);
  CHECK(value->results[0].status.is_good());
  CHECK(value->results[0].value.get_if<double>() != nullptr);

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
  INFO(created->results[0].status_code.to_string());
  CHECK(created->results[0].status_code.is_good());
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (changes.load() < 2 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(20ms);
  CHECK(changes.load() >= 2);
}

}  // namespace

TEST_CASE("reverse connect: our server dials our client's listener, read, subscribe, the listener restarted, None",
          "[runtime][reverse]") {
  temp_folder dir("reverse-none");
  auto listener = listen_on(0);
  const auto port = listener->port();
  REQUIRE(port != 0);
  runtime rt;
  auto srv = rt.start_server(reverse_plan(port, dir));
  REQUIRE(srv.has_value());
  {
    auto c = client::connect(reverse_options(listener, dir));
    REQUIRE(c.has_value());
    // The client used the EndpointUrl of the ReverseHello: the server's first endpoint.
    CHECK(c->options().endpoint_url == (*srv)->endpoint_url());
    read_and_subscribe(*c);
    c->close();
  }
  // The listener goes away and comes back on the same port: the server dials until it is there.
  listener->close();
  listener.reset();
  std::this_thread::sleep_for(300ms);  // a few refused dials (backoff)
  listener = listen_on(port);
  {
    auto c = client::connect(reverse_options(listener, dir));
    REQUIRE(c.has_value());
    read_and_subscribe(*c);
    c->close();
  }
  const auto m = (*srv)->metrics();
  REQUIRE(m.reverse_connects.size() == 1);
  CHECK(m.reverse_connects[0].client_url == "opc.tcp://127.0.0.1:" + std::to_string(port));
  CHECK(m.reverse_connects[0].connections >= 2);
  CHECK(m.reverse_connects[0].failures >= 1);
  CHECK(m.reverse_connects[0].dial_attempts >= m.reverse_connects[0].connections + m.reverse_connects[0].failures);
}

TEST_CASE("reverse connect: a supervised client waits for the next ReverseHello after a loss (the server restarted)",
          "[runtime][reverse]") {
  temp_folder dir("reverse-supervised");
  auto listener = listen_on(0);
  const auto plan = reverse_plan(listener->port(), dir);
  auto first = std::make_unique<runtime>();
  REQUIRE(first->start_server(plan).has_value());
  std::atomic<int> reconnected{0};
  auto o = reverse_options(listener, dir);
  o.reconnect.enabled = true;
  o.reconnect.initial_delay = 50ms;
  o.reconnect.max_delay = 500ms;
  o.connect_timeout = 2s;  // each attempt waits this long for the server's next socket
  o.reconnect.on_event = [&reconnected](const connection_event& e) {
    if (e.what == connection_event_kind::reconnected) ++reconnected;
  };
  auto c = client::connect(o);
  REQUIRE(c.has_value());
  REQUIRE(read_value(*c, ua::node_id::string(1, "Demo.Static.Scalar.Double")).has_value());
  first.reset();  // the server goes: its connection with it
  std::this_thread::sleep_for(500ms);  // attempts that find no server
  runtime second;
  REQUIRE(second.start_server(plan).has_value());
  const auto until = std::chrono::steady_clock::now() + 15s;
  while (reconnected.load() == 0 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(20ms);
  REQUIRE(reconnected.load() >= 1);
  read_and_subscribe(*c);
  c->close();
}

TEST_CASE("reverse connect: SignAndEncrypt, the endpoints fetched over a reverse connection of their own",
          "[runtime][reverse]") {
  temp_folder dir("reverse-secure");
  // The client's certificate first, so that the server starts trusting it.
  const auto cert_file = test::make_client_certificate(dir.path, client_uri, "uactor client");
  auto listener = listen_on(0);
  runtime rt;
  auto plan = reverse_plan(listener->port(), dir);
  plan.security = {"Basic256Sha256:SignAndEncrypt"};
  plan.trust = {cert_file.string()};
  auto srv = rt.start_server(plan);
  REQUIRE(srv.has_value());
  auto o = reverse_options(listener, dir);
  o.security.policy = "Basic256Sha256";
  o.security.mode = ua::message_security_mode::sign_and_encrypt;
  auto c = client::connect(o);
  REQUIRE(c.has_value());
  read_and_subscribe(*c);
  c->close();
}

namespace {

int dial(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  return fd;
}

void send_all(int fd, const ua::byte_buffer& b) {
  REQUIRE(::send(fd, b.data(), b.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(b.size()));
}

// True when the listener closed the socket within `within` (recv sees the end, or a reset).
bool closed_by_peer(int fd, std::chrono::milliseconds within) {
  timeval tv{static_cast<time_t>(within.count() / 1000), static_cast<suseconds_t>((within.count() % 1000) * 1000)};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char c;
  const auto n = ::recv(fd, &c, 1, 0);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

std::size_t open_descriptors() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

}  // namespace

TEST_CASE("reverse connect: the listener closes what is not a good ReverseHello, and leaks nothing", "[runtime][reverse]") {
  const auto before = open_descriptors();
  {
    auto listener = listen_on(0);
    const auto port = listener->port();

    SECTION("a Hello where the ReverseHello belongs") {
      const int fd = dial(port);
      ua::byte_buffer b;
      ua::hello h;
      h.receive_buffer_size = h.send_buffer_size = 65535;
      h.endpoint_url = ua::ua_string("opc.tcp://x:1");
      ua::write_message(b, h);
      send_all(fd, b);
      CHECK(closed_by_peer(fd, 2s));
      ::close(fd);
    }
    SECTION("a ServerUri over 4096 bytes") {
      const int fd = dial(port);
      ua::byte_buffer b;
      ua::write_message(b, ua::reverse_hello{ua::ua_string(std::string(5000, 'u')), ua::ua_string("opc.tcp://x:1")});
      send_all(fd, b);
      CHECK(closed_by_peer(fd, 2s));
      ::close(fd);
    }
    SECTION("a size past the largest ReverseHello") {
      const int fd = dial(port);
      const std::uint8_t header[8] = {'R', 'H', 'E', 'F', 0xff, 0xff, 0xff, 0x7f};
      REQUIRE(::send(fd, header, sizeof header, MSG_NOSIGNAL) == 8);
      CHECK(closed_by_peer(fd, 2s));
      ::close(fd);
    }
    SECTION("another server's ServerUri") {
      const int fd = dial(port);
      ua::byte_buffer b;
      ua::write_message(b, ua::reverse_hello{ua::ua_string("urn:someone:else"), ua::ua_string("opc.tcp://x:1")});
      send_all(fd, b);
      CHECK(closed_by_peer(fd, 2s));
      ::close(fd);
    }
    SECTION("a silent socket: closed after the RHE timeout (1 s here)") {
      const int fd = dial(port);
      const auto t0 = std::chrono::steady_clock::now();
      CHECK(closed_by_peer(fd, 3s));
      CHECK(std::chrono::steady_clock::now() - t0 >= 900ms);
      ::close(fd);
    }
    SECTION("many sockets at once: past max_pending (4) each newcomer is closed at once") {
      std::vector<int> fds;
      for (int i = 0; i < 40; ++i) fds.push_back(dial(port));
      std::this_thread::sleep_for(200ms);
      int closed_at_once = 0;
      for (const int fd : fds)
        if (closed_by_peer(fd, 50ms)) ++closed_at_once;
      CHECK(closed_at_once >= 36);
      for (const int fd : fds) ::close(fd);
      // A good one still gets through once the four pending ones are gone (their RHE timeout).
      std::this_thread::sleep_for(1200ms);
      const int fd = dial(port);
      ua::byte_buffer b;
      ua::write_message(b, ua::reverse_hello{ua::ua_string(server_uri), ua::ua_string("opc.tcp://x:1")});
      send_all(fd, b);
      CHECK_FALSE(closed_by_peer(fd, 300ms));
      ::close(fd);
    }
  }
  // Give the kernel a moment to drop closed sockets from /proc.
  std::this_thread::sleep_for(50ms);
  CHECK(open_descriptors() == before);
}

}  // namespace runtime_reverse_connect_test
