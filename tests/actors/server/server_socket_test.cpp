// The server over real sockets on 127.0.0.1 against hostile peers ("Bad input is expected
// input"): each test names the input and what the server must answer, then checks that the server
// still serves a well-behaved client (Hello, OPN, CreateSession, ActivateSession, Read of
// ns=1;s=the.answer = 43) and that the connection's actor is gone (nothing held for a dead peer).
// Every receive has a deadline; nothing sleeps for correctness.
#include <catch2/catch.hpp>

#include <sys/socket.h>

#include <cstring>
#include <vector>

#include "tests/support/raw_peer.hpp"
#include "tests/support/server_fixture.hpp"

using namespace uactor;
using namespace std::chrono_literals;
using test::io_result;
using test::raw_peer;
using test::ua_codec;
namespace status = ua::status;

namespace {

// A header of `type` (3 letters), chunk type, and a size, as on the wire (Part 6 §7.1.2.2).
test::bytes header(std::string_view type, char chunk, std::uint32_t size) {
  test::bytes b(type.begin(), type.end());
  b.push_back(static_cast<std::uint8_t>(chunk));
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(size >> (8 * i)));
  return b;
}

void put_u32(ua::byte_buffer& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.data()[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}

// HEL answered with an ACK on `peer`.
void say_hello(raw_peer& peer, ua_codec& codec) {
  REQUIRE(peer.connected());
  REQUIRE(peer.send(codec.hello()) == io_result::ok);
  const auto r = codec.next(peer);
  INFO(r.describe());
  REQUIRE(r.type == "ACK");
}

// The server's answer to a fatal error: an ERR with `expected`, then the connection closes.
void require_error_and_close(raw_peer& peer, ua::status_code expected) {
  const auto got = peer.read_error(3000ms);
  INFO("ERR " << got.name());
  REQUIRE(got == expected);
  REQUIRE(peer.wait_closed(3000ms) == io_result::closed);
}

// After a hostile peer: the server still serves, and holds no actor for the dead connection.
void require_server_healthy(test::server_fixture& f, std::size_t baseline) {
  REQUIRE(test::read_the_answer(f.port()) == "43");
  REQUIRE(f.wait_running_at_most(baseline) == baseline);
}

}  // namespace

TEST_CASE("server: a well-behaved client reads the.answer = 43 and its connection actor ends after CLO", "[server]") {
  test::server_fixture f;
  const auto baseline = f.running_actors();
  raw_peer peer(f.port());
  ua_codec codec;
  REQUIRE(test::open_session(peer, codec) == "");
  // One connection broker more while the connection is open: the count this file relies on.
  REQUIRE(f.running_actors() == baseline + 1);
  require_server_healthy(f, baseline + 1);
  peer.close();
  REQUIRE(f.wait_running_at_most(baseline) == baseline);
}

TEST_CASE("server: bytes before Hello (an HTTP request) get Bad_TcpMessageTypeInvalid and a close", "[server]") {
  test::server_fixture f;
  const auto baseline = f.running_actors();
  raw_peer peer(f.port());
  REQUIRE(peer.send(std::string_view("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")) == io_result::ok);
  // Part 6 §7.1.2.2: "GET" is no message type.
  require_error_and_close(peer, status::bad_tcp_message_type_invalid);
  require_server_healthy(f, baseline);
}

TEST_CASE("server: a first chunk other than HEL (an OPN) gets Bad_TcpMessageTypeInvalid and a close", "[server]") {
  test::server_fixture f;
  const auto baseline = f.running_actors();
  raw_peer peer(f.port());
  ua_codec codec;
  REQUIRE(peer.send(codec.open()) == io_result::ok);
  require_error_and_close(peer, status::bad_tcp_message_type_invalid);  // Part 6 §7.1.3
  require_server_healthy(f, baseline);
}

TEST_CASE("server: a Hello with ReceiveBufferSize 1 gets Bad_ConnectionRejected and a close", "[server]") {
  test::server_fixture f;
  const auto baseline = f.running_actors();
  raw_peer peer(f.port());
  ua_codec codec;
  codec.ours.receive_buffer_size = 1;  // Part 6 §7.1.2.3: at least 8192
  REQUIRE(peer.send(codec.hello()) == io_result::ok);
  require_error_and_close(peer, status::bad_connection_rejected);
  require_server_healthy(f, baseline);
}

TEST_CASE("server: a Hello with 0xFFFFFFFF everywhere is accepted with the server's sizes", "[server]") {
  test::server_fixture f;
  const auto baseline = f.running_actors();
  raw_peer peer(f.port());
  ua_codec codec;
  codec.ours = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
  REQUIRE(peer.send(codec.hello()) == io_result::ok);
  const auto r = codec.next(peer);
  INFO(r.describe());
  REQUIRE(r.type == "ACK");
  REQUIRE(r.problem.empty());
  // Part 6 §7.1.2.4: revised down to what the server offers.
  const auto ours = f.options().connection.channel.limits;
  CHECK(r.ack.receive_buffer_size == ours.receive_buffer_size);
  CHECK(r.ack.send_buffer_size == ours.send_buffer_size);
  CHECK(r.ack.max_message_size == ours.max_message_size);
  CHECK(r.ack.max_chunk_count == ours.max_chunk_count);
  // The rest of the conversation works on this connection.
  REQUIRE(peer.send(codec.open()) == io_result::ok);
  const auto opened = codec.next(peer);
  INFO(opened.describe());
  REQUIRE(opened.type == "OPN");
  peer.close();
  require_server_healthy(f, baseline);
}

TEST_CASE("server: a Hello with an EndpointUrl over 4096 bytes gets Bad_TcpEndpointUrlInvalid (Part 6 §7.1.2.3)",
          "[server]") {
  test::server_fixture f;
  const auto baseline = f.running_actors();
  raw_peer peer(f.port());
  ua_codec codec("opc.tcp://127.0.0.1/" + std::string(5000, 'x'));
  REQUIRE(peer.send(codec.hello()) == io_result::ok);
  require_error_and_close(peer, status::bad_tcp_endpoint_url_invalid);
  require_server_healthy(f, baseline);
}

TEST_CASE("server: a Hello header claiming 1 MB gets Bad_TcpMessageTooLarge before anything is buffered", "[server]") {
  test::server_fixture f;
  const auto baseline = f.running_actors();
  raw_peer peer(f.port());
  REQUIRE(peer.send(header("HEL", 'F', 1u << 20)) == io_result::ok);
  // Part 6 §7.1.2.3: above the ReceiveBufferSize the server offers (65535).
  require_error_and_close(peer, status::bad_tcp_message_too_large);
  require_server_healthy(f, baseline);
}

TEST_CASE("server: a chunk larger than the negotiated ReceiveBufferSize gets Bad_TcpMessageTooLarge and a close",
          "[server]") {
  auto o = test::small_server_options();
  o.connection.channel.limits.receive_buffer_size = 8192;
  test::server_fixture f(o);
  const auto baseline = f.running_actors();
  raw_peer peer(f.port());
  ua_codec codec;
  REQUIRE(test::open_session(peer, codec) == "");
  REQUIRE(codec.limits.send_buffer_size == 8192);
  // One byte over: only the header is sent, the server must refuse it from the header alone.
  REQUIRE(peer.send(header("MSG", 'F', 8193)) == io_result::ok);
  require_error_and_close(peer, status::bad_tcp_message_too_large);
  require_server_healthy(f, baseline);
}

TEST_CASE("server: a MSG before OPN gets Bad_TcpSecureChannelUnknown and a close", "[server]") {
  test::server_fixture f;
  const auto baseline = f.running_actors();
  raw_peer peer(f.port());
  ua_codec codec;
  say_hello(peer, codec);
  REQUIRE(peer.send(codec.request(test::read_of_the_answer())) == io_result::ok);
  // Part 6 §6.7.2.3 (what secure_channel_state answers: no channel yet).
  require_error_and_close(peer, status::bad_tcp_secure_channel_unknown);
  require_server_healthy(f, baseline);
}

TEST_CASE("server: a MSG with another SecureChannelId gets Bad_TcpSecureChannelUnknown and a close", "[server]") {
  test::server_fixture f;
  const auto baseline = f.running_actors();
  raw_peer peer(f.port());
  ua_codec codec;
  REQUIRE(test::open_session(peer, codec) == "");
  auto msg = codec.request(test::read_of_the_answer());
  put_u32(msg, 8, codec.channel_id + 1000);  // SecureChannelId follows the 8-byte header
  REQUIRE(peer.send(msg) == io_result::ok);
  require_error_and_close(peer, status::bad_tcp_secure_channel_unknown);
  require_server_healthy(f, baseline);
}

TEST_CASE("server: a MSG with an unknown TokenId gets Bad_SecureChannelTokenUnknown and a close", "[server]") {
  test::server_fixture f;
  const auto baseline = f.running_actors();
  raw_peer peer(f.port());
  ua_codec codec;
  REQUIRE(test::open_session(peer, codec) == "");
  auto msg = codec.request(test::read_of_the_answer());
  put_u32(msg, 12, codec.token_id + 77);  // TokenId: the symmetric security header after the channel id
  REQUIRE(peer.send(msg) == io_result::ok);
  require_error_and_close(peer, status::bad_secure_channel_token_unknown);  // Part 6 §6.7.2.3
  require_server_healthy(f, baseline);
}

TEST_CASE("server: a request in more chunks than MaxChunkCount gets Bad_TcpMessageTooLarge and a close", "[server]") {
  auto o = test::small_server_options();
  o.connection.channel.limits.max_chunk_count = 3;
  test::server_fixture f(o);
  const auto baseline = f.running_actors();
  raw_peer peer(f.port());
  ua_codec codec;
  REQUIRE(test::open_session(peer, codec) == "");
  REQUIRE(codec.limits.send_max_chunk_count == 3);  // the ACK told us

  SECTION("C, C, C, then the fourth chunk") {
    // A Read of 20 nodes in 64-byte chunks: many more than 3.
    auto req = test::read_of_the_answer();
    for (int i = 0; i < 19; ++i) req.nodes_to_read.push_back(req.nodes_to_read[0]);
    const auto chunks = codec.request(req, 64);
    REQUIRE(chunks.size() > 4 * 64);
    REQUIRE(peer.send(chunks) == io_result::ok);
  }
  SECTION("intermediate chunks only, never a final one") {
    // Whole requests re-labelled 'C', with the next sequence numbers and one RequestId (Part 6
    // §6.7.2.4): the assembler collects them as one message. All in one send, so that the
    // server's close cannot race a later send.
    ua::byte_buffer all;
    const std::uint32_t request_id = codec.last_request_id + 1;
    for (int i = 0; i < 4; ++i) {
      auto c = codec.request(test::read_of_the_answer());
      c.data()[3] = 'C';
      put_u32(c, 20, request_id);  // after header, channel id, token id, sequence number
      all.append(c.data(), c.size());
    }
    REQUIRE(peer.send(all) == io_result::ok);
  }
  // Part 6 §7.1.5 / message_assembler: over MaxChunkCount the channel ends with an ERR.
  require_error_and_close(peer, status::bad_tcp_message_too_large);
  require_server_healthy(f, baseline);
}

TEST_CASE("server: half a header, then silence: closed by the Hello timeout with Bad_Timeout", "[server]") {
  test::server_fixture f;  // Hello timeout 500 ms
  const auto baseline = f.running_actors();
  raw_peer peer(f.port());
  REQUIRE(peer.send(std::string_view("HELF")) == io_result::ok);
  require_error_and_close(peer, status::bad_timeout);
  require_server_healthy(f, baseline);
}

TEST_CASE("server: a connection that never sends anything is closed by the Hello timeout", "[server]") {
  test::server_fixture f;
  const auto baseline = f.running_actors();
  raw_peer peer(f.port());
  REQUIRE(peer.connected());
  require_error_and_close(peer, status::bad_timeout);
  require_server_healthy(f, baseline);
}

TEST_CASE("server: a Hello and then no OPN is closed by the same timeout", "[server]") {
  test::server_fixture f;
  const auto baseline = f.running_actors();
  raw_peer peer(f.port());
  ua_codec codec;
  say_hello(peer, codec);
  require_error_and_close(peer, status::bad_timeout);
  require_server_healthy(f, baseline);
}

TEST_CASE("server: connections past max_connections get Bad_TcpNotEnoughResources, a slot freed admits a new one",
          "[server]") {
  test::server_fixture f;  // max_connections 4
  const auto baseline = f.running_actors();
  std::vector<raw_peer> held;
  std::vector<ua_codec> codecs(4);
  for (std::size_t i = 0; i < 4; ++i) {
    held.emplace_back(f.port());
    // Whole sessions, so that the Hello timeout does not free the slots during the test.
    REQUIRE(test::open_session(held.back(), codecs[i]) == "");
  }
  for (int i = 0; i < 3; ++i) {
    raw_peer extra(f.port());
    REQUIRE(extra.connected());
    require_error_and_close(extra, status::bad_tcp_not_enough_resources);  // Part 6 §7.1.2.5
  }
  // The held connections are untouched by the refusals.
  REQUIRE(held[0].send(codecs[0].request(test::read_of_the_answer())) == io_result::ok);
  const auto r = codecs[0].next(held[0]);
  INFO(r.describe());
  REQUIRE(r.msg.get_if<ua::read_response>() != nullptr);

  held[3].close();
  // The listener learns of the closed connection asynchronously (its down message): poll, each
  // attempt bounded, until a new client is admitted.
  std::string answer;
  const auto deadline = std::chrono::steady_clock::now() + 3s;
  do answer = test::read_the_answer(f.port(), 2s);
  while (answer != "43" && std::chrono::steady_clock::now() < deadline);
  REQUIRE(answer == "43");
  held.clear();
  REQUIRE(f.wait_running_at_most(baseline) == baseline);
}

TEST_CASE("server: a peer that sends requests and never reads is stopped at a bound, others are still served",
          "[server]") {
  test::server_fixture f;
  const auto baseline = f.running_actors();
  raw_peer flooder(f.port(), 2000ms, 4096);  // a small receive window: the server's writes back up
  // A small send buffer too, so that what the kernels hold stays well below the bound checked.
  const int send_buffer = 64 * 1024;
  ::setsockopt(flooder.fd(), SOL_SOCKET, SO_SNDBUF, &send_buffer, sizeof send_buffer);
  ua_codec codec;
  REQUIRE(test::open_session(flooder, codec) == "");

  // Requests in batches of 100 (about 8 KB of ReadRequests), never reading a response. The server
  // must stop reading this connection once its answers cannot leave: then send() blocks, and a
  // send that makes no progress for 300 ms ends the loop. Without that bound the server would
  // read (and answer into memory) all 64 MiB.
  constexpr std::size_t cap = 64u << 20;
  ua::byte_buffer batch;
  bool blocked = false;
  while (flooder.sent() < cap) {
    batch.clear();
    for (int i = 0; i < 100; ++i) {
      const auto one = codec.request(test::read_of_the_answer());
      batch.append(one.data(), one.size());
    }
    const auto r = flooder.send(batch, 300ms);
    if (r == io_result::timeout) {
      blocked = true;
      break;
    }
    REQUIRE(r == io_result::ok);
  }
  INFO("sent " << flooder.sent() << " bytes before the server stopped reading");
  REQUIRE(blocked);
  CHECK(flooder.sent() < (16u << 20));

  // The flooder holds one connection; everyone else is served meanwhile.
  REQUIRE(test::read_the_answer(f.port()) == "43");
  REQUIRE(f.wait_running_at_most(baseline + 1) == baseline + 1);
  flooder.close(true);
  REQUIRE(f.wait_running_at_most(baseline) == baseline);
  require_server_healthy(f, baseline);
}

TEST_CASE("server: a peer that vanishes mid-chunk leaves nothing behind", "[server]") {
  test::server_fixture f;
  const auto baseline = f.running_actors();
  const bool reset = GENERATE(false, true);
  INFO((reset ? "RST" : "FIN"));

  SECTION("before the Hello is whole") {
    raw_peer peer(f.port());
    ua_codec codec;
    const auto hel = codec.hello();
    REQUIRE(peer.send(hel.bytes().first(hel.size() / 2)) == io_result::ok);
    peer.close(reset);
  }
  SECTION("half a MSG chunk into an open session") {
    raw_peer peer(f.port());
    ua_codec codec;
    REQUIRE(test::open_session(peer, codec) == "");
    const auto msg = codec.request(test::read_of_the_answer());
    REQUIRE(peer.send(msg.bytes().first(msg.size() / 2)) == io_result::ok);
    peer.close(reset);
  }
  SECTION("with requests at the session host") {
    raw_peer peer(f.port());
    ua_codec codec;
    REQUIRE(test::open_session(peer, codec) == "");
    ua::byte_buffer many;
    for (int i = 0; i < 200; ++i) {
      const auto one = codec.request(test::read_of_the_answer());
      many.append(one.data(), one.size());
    }
    const auto half = codec.request(test::read_of_the_answer());
    many.append(half.data(), half.size() / 2);
    REQUIRE(peer.send(many) == io_result::ok);
    peer.close(reset);
  }
  // The broker ends when its socket closes; an ASan/LSan build checks that nothing leaked.
  REQUIRE(f.wait_running_at_most(baseline) == baseline);
  require_server_healthy(f, baseline);
}
