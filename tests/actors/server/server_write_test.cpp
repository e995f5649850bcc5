// The server's write path over real sockets (docs/decisions/0013): a connection sends its output
// with its own send() while CAF's write buffer is empty, and hands what the kernel does not take
// (a partial send, or none at all) to CAF's buffer, after which everything goes through CAF until
// it has drained. These tests make the kernel refuse most of the output (a peer with a 4 KB receive
// buffer that does not read while megabytes of responses are due) and check that every response
// arrives whole, decodable and in request order, in several rounds (back to direct sends after
// each drain), and that one connection's backlog does not hold up another's.
#include <catch2/catch.hpp>

#include <sys/socket.h>

#include <cstdint>
#include <vector>

#include "tests/support/raw_peer.hpp"
#include "tests/support/server_fixture.hpp"

using namespace uactor;
using namespace std::chrono_literals;
using test::io_result;
using test::raw_peer;
using test::ua_codec;

namespace {

// A Read of ns=1;s=the.answer `n` times: a response of about 14 bytes per value.
ua::read_request read_many(std::size_t n) {
  ua::read_request req;
  const auto one = test::read_of_the_answer().nodes_to_read[0];
  req.nodes_to_read.assign(n, one);
  return req;
}

// Reads `count` responses; each must be a ReadResponse with `values` results of 43 and the next
// request handle after `first_handle`. "" or what was wrong.
std::string read_in_order(raw_peer& peer, ua_codec& codec, std::uint32_t first_handle, int count, std::size_t values) {
  for (int i = 0; i < count; ++i) {
    const auto r = codec.next(peer, 10'000ms);
    if (r.result != io_result::ok || r.type != "MSG") return "response " + std::to_string(i) + ": " + r.describe();
    const auto* resp = r.msg.get_if<ua::read_response>();
    if (!resp) return "response " + std::to_string(i) + " is not a ReadResponse: " + r.describe();
    const auto expected_handle = first_handle + static_cast<std::uint32_t>(i);
    if (resp->response_header.request_handle != expected_handle)
      return "response " + std::to_string(i) + " has handle " + std::to_string(resp->response_header.request_handle) +
             ", expected " + std::to_string(expected_handle);
    if (resp->results.size() != values) return "response " + std::to_string(i) + ": " + std::to_string(resp->results.size()) + " results";
    for (const auto& v : resp->results) {
      const auto* x = v.value.get_if<std::int32_t>();
      if (!x || *x != 43) return "response " + std::to_string(i) + ": a value is not 43";
    }
  }
  return "";
}

}  // namespace

TEST_CASE("server: responses the kernel takes only in part leave whole and in order, round after round", "[server]") {
  test::server_fixture f;
  raw_peer peer(f.port(), 2000ms, 4096);  // a small receive window: most of each burst waits at the server
  REQUIRE(peer.connected());
  ua_codec codec;
  REQUIRE(test::open_session(peer, codec) == "");

  // 40 Reads of 5,000 values (about 70 KB each, 2.8 MB in all) sent before reading anything: the
  // first response fills the kernel's buffers (a partial send), the rest queue in CAF's buffer,
  // and past 1 MiB unsent the server stops reading until the peer catches up.
  constexpr int requests = 40;
  constexpr std::size_t values = 5000;
  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    const std::uint32_t first = codec.handle + 1;
    ua::byte_buffer burst;
    for (int i = 0; i < requests; ++i) {
      const auto one = codec.request(read_many(values));
      burst.append(one.data(), one.size());
    }
    REQUIRE(peer.send(burst, 10'000ms) == io_result::ok);
    REQUIRE(read_in_order(peer, codec, first, requests, values) == "");
    // Drained: a small Read goes out directly again, and is answered at once.
    const std::uint32_t next = codec.handle + 1;
    REQUIRE(peer.send(codec.request(read_many(1))) == io_result::ok);
    REQUIRE(read_in_order(peer, codec, next, 1, 1) == "");
  }
}

TEST_CASE("server: small responses interleaved with large ones keep the request order", "[server]") {
  test::server_fixture f;
  raw_peer peer(f.port(), 2000ms, 4096);
  REQUIRE(peer.connected());
  ua_codec codec;
  REQUIRE(test::open_session(peer, codec) == "");

  // Large, small, large, small, ... in one burst: a small response written directly while a large
  // one still sits in CAF's buffer would arrive first.
  const std::uint32_t first = codec.handle + 1;
  ua::byte_buffer burst;
  std::vector<std::size_t> sizes;
  for (int i = 0; i < 30; ++i) {
    const std::size_t n = i % 2 == 0 ? 8000 : 1;
    sizes.push_back(n);
    const auto one = codec.request(read_many(n));
    burst.append(one.data(), one.size());
  }
  REQUIRE(peer.send(burst, 10'000ms) == io_result::ok);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    INFO("response " << i);
    REQUIRE(read_in_order(peer, codec, first + static_cast<std::uint32_t>(i), 1, sizes[i]) == "");
  }
}

TEST_CASE("server: a peer that stopped reading does not hold up another connection's direct writes", "[server]") {
  test::server_fixture f;
  raw_peer slow(f.port(), 2000ms, 4096);
  REQUIRE(slow.connected());
  ua_codec slow_codec;
  REQUIRE(test::open_session(slow, slow_codec) == "");
  ua::byte_buffer burst;
  for (int i = 0; i < 20; ++i) {
    const auto one = slow_codec.request(read_many(5000));
    burst.append(one.data(), one.size());
  }
  const std::uint32_t slow_first = slow_codec.handle - 19;
  REQUIRE(slow.send(burst, 10'000ms) == io_result::ok);

  // Meanwhile a well-behaved client is served, many times.
  for (int i = 0; i < 20; ++i) REQUIRE(test::read_the_answer(f.port()) == "43");

  REQUIRE(read_in_order(slow, slow_codec, slow_first, 20, 5000) == "");
}
