// The client's Publish requests as plain state (engine/client/publish_pump.hpp): how many go out,
// which answers are ours, what an answer says, and when an unanswered one is given up.
#include <catch2/catch.hpp>

#include <functional>
#include <vector>

#include "engine/client/publish_pump.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace client_publish_pump_test {

using namespace uactor;
using namespace uactor::actors;
using namespace std::chrono_literals;

namespace {

const std::chrono::steady_clock::time_point t0{std::chrono::seconds(1000)};

instant at(std::chrono::milliseconds after) { return {t0 + after, ua::date_time::from_unix_ms(1'767'225'600'000)}; }

// An engine with `n` subscriptions (1 s publishing interval, keep-alive count 10).
subscription_engine engine_with(std::size_t n) {
  subscription_engine e;
  for (std::uint32_t id = 1; id <= n; ++id) e.add(id, 1000.0, 10, {}, t0);
  return e;
}

// What the pump sent: the RequestHandles and TimeoutHints, each given the next RequestId.
struct sent_publishes {
  std::vector<std::uint32_t> handles;
  std::vector<std::uint32_t> hints;
  std::uint32_t next_id = 100;
  ua::expected<std::uint32_t> operator()(const ua::publish_request& p) {
    handles.push_back(p.request_header.request_handle);
    hints.push_back(p.request_header.timeout_hint);
    return next_id++;
  }
};

}  // namespace

TEST_CASE("publish_pump: keeps two Publish requests per subscription at the server, each stamped", "[client][publish_pump]") {
  auto e = engine_with(2);
  request_headers headers;
  headers.set_session_token(ua::node_id(1, 77));
  publish_pump pump(50ms);
  sent_publishes sent;
  pump.pump(e, headers, at(0ms), 10'000ms, std::ref(sent));
  REQUIRE(sent.handles == std::vector<std::uint32_t>{1, 2, 3, 4});
  CHECK(pump.outstanding() == 4);
  CHECK(e.publish_wanted() == 0);
  // The hint is the engine's (three silence periods) when that is longer than the request timeout.
  CHECK(sent.hints.front() == e.publish_timeout(10'000ms).count());
  pump.pump(e, headers, at(1ms), 10'000ms, std::ref(sent));
  CHECK(sent.handles.size() == 4);  // none more while all are out
}

TEST_CASE("publish_pump: a Publish that cannot go out is the engine's failure, and the pump stops", "[client][publish_pump]") {
  auto e = engine_with(1);
  request_headers headers;
  publish_pump pump;
  int calls = 0;
  pump.pump(e, headers, at(0ms), 1000ms, [&](const ua::publish_request&) -> ua::expected<std::uint32_t> {
    ++calls;
    return ua::status::bad_request_too_large;
  });
  CHECK(calls == 1);
  CHECK(pump.empty());
}

TEST_CASE("publish_pump: only its own RequestIds are taken, each once", "[client][publish_pump]") {
  auto e = engine_with(1);
  request_headers headers;
  publish_pump pump;
  sent_publishes sent;
  pump.pump(e, headers, at(0ms), 1000ms, std::ref(sent));
  REQUIRE(pump.outstanding() == 2);
  CHECK_FALSE(pump.take(7));
  CHECK(pump.take(101));
  CHECK_FALSE(pump.take(101));
  CHECK(pump.outstanding() == 1);
  pump.clear();
  CHECK_FALSE(pump.take(100));
}

TEST_CASE("publish_pump: a Publish unanswered past its hint and the grace is given up as Bad_Timeout", "[client][publish_pump]") {
  auto e = engine_with(1);
  request_headers headers;
  publish_pump pump(50ms);
  sent_publishes sent;
  pump.pump(e, headers, at(0ms), 1000ms, std::ref(sent));
  const auto hint = std::chrono::milliseconds(sent.hints.front());
  pump.expire(e, t0 + hint + 49ms);
  CHECK(pump.outstanding() == 2);
  pump.expire(e, t0 + hint + 50ms);
  CHECK(pump.empty());
  CHECK(e.publish_wanted() == 2);  // Bad_Timeout is not an error: the engine wants them again
}

TEST_CASE("publish_pump: an answer is the PublishResponse, or the status of the abort, the fault or the wrong type",
          "[client][publish_pump]") {
  client_response r;
  r.status = ua::status::bad_timeout;
  CHECK(read_publish_answer(r).failed == ua::status::bad_timeout);

  r.status = ua::status::good;  // Good without a message: not an answer
  CHECK(read_publish_answer(r).failed == ua::status::bad_unknown_response);

  ua::extension_object message(ua::publish_response{});
  r.message = &message;
  auto a = read_publish_answer(r);
  CHECK(a.failed.is_good());
  CHECK(a.response == message.get_if<ua::publish_response>());

  message.get_if<ua::publish_response>()->response_header.service_result = ua::status::bad_session_id_invalid;
  a = read_publish_answer(r);
  CHECK(a.failed == ua::status::bad_session_id_invalid);
  CHECK(a.response == nullptr);

  ua::service_fault fault;
  fault.response_header.service_result = ua::status::bad_too_many_publish_requests;
  message = ua::extension_object(fault);
  CHECK(read_publish_answer(r).failed == ua::status::bad_too_many_publish_requests);
  message = ua::extension_object(ua::read_response{});
  CHECK(read_publish_answer(r).failed == ua::status::bad_unknown_response);
}

TEST_CASE("request_headers: handles count from 1, skip 0 on the wrap, and carry the session's token", "[client][publish_pump]") {
  request_headers headers;
  ua::request_header h;
  headers.stamp(h, ua::date_time{}, 1500ms);
  CHECK(h.request_handle == 1);
  CHECK(h.timeout_hint == 1500);
  CHECK(h.authentication_token == ua::node_id());
  headers.set_session_token(ua::node_id(3, 9));
  const ua::node_id other(4, 1);
  headers.stamp(h, other, ua::date_time{}, 10ms);
  CHECK(h.request_handle == 2);
  CHECK(h.authentication_token == other);
  headers.stamp(h, ua::date_time{}, 10ms);
  CHECK(h.authentication_token == ua::node_id(3, 9));
}

}  // namespace client_publish_pump_test
