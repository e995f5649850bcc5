// The connection broker under CAF's deterministic test coordinator and test multiplexer: no
// sockets, no threads, no timers that fire by themselves. The test plays the peer (bytes in with
// virtual_send, bytes out from the output buffer) and the session host (a test actor that keeps
// the batches until the test answers them), so every interleaving below is one the test chose.
//
// What the test multiplexer can and cannot show: its scribe's flush() does nothing and wr_buf() is
// the output buffer itself, so "one flush" is observed as "every byte appeared while the broker
// handled one mailbox message" (the broker flushes once at the end of each handler).
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/io/network/test_multiplexer.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include "actors/server/connection_actor.hpp"
#include "actors/server/exchange.hpp"
#include "tests/support/raw_peer.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace server_connection_actor_test {

using namespace uactor;
namespace status = ua::status;
using test::received;
using test::ua_codec;

namespace {

// What the host actor saw: each batch in arrival order, kept until the test answers it.
struct host_log {
  std::vector<actors::batch_ptr> batches;
  std::vector<std::uint32_t> closed_channels;  // channel_closed_atom: the host drops their deferred answers
};

caf::behavior test_host(caf::event_based_actor*, std::shared_ptr<host_log> log) {
  return {
      [log](actors::batch_ptr& b) { log->batches.push_back(b); },
      [log](actors::channel_closed_atom, std::uint32_t channel) { log->closed_channels.push_back(channel); },
  };
}

// A ReadResponse for each exchange, as the session host would encode it: the request's handle
// in the header, and the handle again as the value (so the order is visible in the bytes).
void answer_all(actors::exchange_batch& b) {
  for (std::size_t i = 0; i < b.size; ++i) {
    auto& x = b.items[i];
    ua::read_response resp;
    resp.response_header.request_handle = x.header.request_handle;
    ua::data_value v;
    v.set_value(ua::variant(static_cast<std::int32_t>(x.header.request_handle)));
    resp.results.push_back(v);
    x.response.clear();
    ua::encoder e(x.response);
    ua::encode_message(e, resp);
  }
}

std::uint32_t handle_of(const received& r) {
  if (const auto* resp = r.msg.get_if<ua::read_response>()) return resp->response_header.request_handle;
  return 0;
}

struct fixture {
  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  caf::io::network::test_multiplexer& mpx;
  std::shared_ptr<host_log> log = std::make_shared<host_log>();
  caf::actor host;
  std::vector<caf::actor> brokers;
  std::int64_t next_handle = 1;

  static caf::actor_system_config& configure(caf::actor_system_config& c) {
    c.load<caf::io::middleman>();
    // As CAF's own test_coordinator_fixture (caf/test/dsl.hpp) configures it.
    c.set("scheduler.policy", caf::atom("testing"));
    c.set("middleman.network-backend", caf::atom("testing"));
    c.set("middleman.manual-multiplexing", true);
    c.set("middleman.workers", size_t{0});
    c.set("middleman.heartbeat-interval", caf::timespan{0});
    return c;
  }

  fixture()
      : sys(configure(cfg)),
        sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())),
        mpx(dynamic_cast<caf::io::network::test_multiplexer&>(sys.middleman().backend())) {
    host = sys.spawn(test_host, log);
    run();
  }

  ~fixture() {
    for (auto& b : brokers) caf::anon_send_exit(b, caf::exit_reason::kill);
    caf::anon_send_exit(host, caf::exit_reason::kill);
    run();
    // Ended brokers are released: a message one sent itself and never took must not keep it alive
    // (CAF 0.17's brokers keep their mailbox when they end; docs/decisions/0009). Timers still
    // pending hold their receiver until they fire: fired here.
    std::vector<caf::weak_actor_ptr> ended;
    for (auto& b : brokers) ended.push_back(caf::actor_cast<caf::weak_actor_ptr>(b));
    brokers.clear();
    sched.trigger_timeouts();
    run();
    for (const auto& b : ended) CHECK_FALSE(b.lock());
  }

  // Until neither the scheduler nor the multiplexer has anything to run.
  void run() {
    for (;;) {
      const auto ran = sched.run();
      bool any = false;
      while (mpx.try_exec_runnable()) any = true;
      if (ran == 0 && !any) return;
    }
  }

  static actors::connection_options options() {
    actors::connection_options o;
    o.channel.limits.receive_buffer_size = 8192;
    return o;
  }

  // A connection broker on a fresh handle, initialised.
  caf::io::connection_handle connect(const actors::connection_options& o = options(), caf::actor* broker = nullptr) {
    const auto hdl = caf::io::connection_handle::from_int(next_handle++);
    mpx.provide_scribe("localhost", 4840, hdl);
    auto b = sys.middleman().spawn_client(actors::connection_broker, "localhost", 4840, o, std::uint32_t{7}, host);
    REQUIRE(b);
    brokers.push_back(*b);
    if (broker) *broker = *b;
    run();
    return hdl;
  }

  // The same, linked to a socket of its own for direct sends (serving_connection_broker).
  caf::io::connection_handle connect_direct(int native_socket, caf::actor* broker) {
    const auto hdl = caf::io::connection_handle::from_int(next_handle++);
    mpx.provide_scribe("localhost", 4840, hdl);
    const actors::connection_links links{{host, nullptr}, native_socket, false, {}};
    auto b = sys.middleman().spawn_client(actors::serving_connection_broker, "localhost", 4840, options(),
                                          std::uint32_t{7}, links);
    REQUIRE(b);
    brokers.push_back(*b);
    *broker = *b;
    run();
    return hdl;
  }

  void send(caf::io::connection_handle hdl, std::span<const std::uint8_t> bytes) {
    mpx.virtual_send(hdl, std::vector<char>(bytes.begin(), bytes.end()));
    run();
  }
  void send(caf::io::connection_handle hdl, const ua::byte_buffer& b) { send(hdl, b.bytes()); }

  std::size_t output_size(caf::io::connection_handle hdl) { return mpx.output_buffer(hdl).size(); }

  // What the broker wrote since the last call, parsed; the buffer is cleared.
  std::vector<received> output(caf::io::connection_handle hdl, ua_codec& codec) {
    auto& out = mpx.output_buffer(hdl);
    std::vector<std::uint8_t> bytes(out.begin(), out.end());
    out.clear();
    return codec.read_all(bytes);
  }

  // HEL/ACK and OPN on `hdl`.
  void open_channel(caf::io::connection_handle hdl, ua_codec& codec) {
    send(hdl, codec.hello());
    auto acked = output(hdl, codec);
    REQUIRE(acked.size() == 1);
    REQUIRE(acked[0].type == "ACK");
    send(hdl, codec.open());
    auto opened = output(hdl, codec);
    REQUIRE(opened.size() == 1);
    INFO(opened[0].describe());
    REQUIRE(opened[0].type == "OPN");
    REQUIRE(codec.channel_id == 7);
  }

  // `n` ReadRequests in MSG chunks, back to back.
  ua::byte_buffer requests(ua_codec& codec, int n) {
    ua::byte_buffer all;
    for (int i = 0; i < n; ++i) {
      const auto one = codec.request(test::read_of_the_answer());
      all.append(one.data(), one.size());
    }
    return all;
  }

  // The host answers its batch `i`: the broker gets it back as one mailbox message, which the
  // test lets it handle (and nothing else: exactly one runnable of the multiplexer).
  void answer(std::size_t i, caf::actor broker) {
    answer_all(*log->batches.at(i));
    caf::anon_send(broker, log->batches.at(i));
    REQUIRE(mpx.try_exec_runnable());
  }
};

}  // namespace

TEST_CASE("connection broker: a Hello split at every byte (inside its header too) gets one ACK", "[actors]") {
  fixture f;
  ua_codec codec;
  const auto hel = codec.hello();
  for (std::size_t cut = 1; cut < hel.size(); ++cut) {
    INFO("cut at " << cut);
    const auto hdl = f.connect();
    f.send(hdl, hel.bytes().first(cut));
    REQUIRE(f.output_size(hdl) == 0);  // nothing to answer yet
    f.send(hdl, hel.bytes().subspan(cut));
    auto out = f.output(hdl, codec);
    REQUIRE(out.size() == 1);
    INFO(out[0].describe());
    REQUIRE(out[0].type == "ACK");
    REQUIRE(out[0].problem.empty());
  }
}

TEST_CASE("connection broker: three MSG chunks in one receive become one batch, the answers leave together, in order",
          "[actors]") {
  fixture f;
  caf::actor broker;
  const auto hdl = f.connect(fixture::options(), &broker);
  ua_codec codec;
  f.open_channel(hdl, codec);
  const std::uint32_t first_id = codec.last_request_id + 1;
  const std::uint32_t first_handle = codec.handle + 1;

  f.send(hdl, f.requests(codec, 3));  // one virtual_send: one new_data_msg with three chunks
  REQUIRE(f.log->batches.size() == 1);
  const auto& batch = *f.log->batches[0];
  REQUIRE(batch.size == 3);
  REQUIRE(batch.channel_id == 7);
  for (std::uint32_t i = 0; i < 3; ++i) {
    CHECK(batch.items[i].request_id == first_id + i);
    CHECK(batch.items[i].header.request_handle == first_handle + i);
    CHECK(batch.items[i].request.get_if<ua::read_request>() != nullptr);
  }
  REQUIRE(f.output_size(hdl) == 0);  // nothing written while the batch is at the host

  // One mailbox message back: all three responses are in the output after it, none before.
  f.answer(0, broker);
  auto out = f.output(hdl, codec);
  REQUIRE(out.size() == 3);
  for (std::uint32_t i = 0; i < 3; ++i) {
    INFO(out[i].describe());
    CHECK(out[i].type == "MSG");
    CHECK(out[i].request_id == first_id + i);  // Part 6 §6.7.2.2: the RequestId of the request
    CHECK(handle_of(out[i]) == first_handle + i);
  }
  f.run();
  REQUIRE(f.log->batches.size() == 1);  // nothing else went to the host
}

TEST_CASE("connection broker: requests arriving while a batch is at the host leave as the next batch", "[actors]") {
  fixture f;
  caf::actor broker;
  const auto hdl = f.connect(fixture::options(), &broker);
  ua_codec codec;
  f.open_channel(hdl, codec);
  const std::uint32_t first_id = codec.last_request_id + 1;

  f.send(hdl, f.requests(codec, 3));
  REQUIRE(f.log->batches.size() == 1);
  // Two more, split across two receives, the second cut inside a chunk header.
  const auto more = f.requests(codec, 2);
  const std::size_t cut = more.size() / 2 + 3;
  f.send(hdl, more.bytes().first(cut));
  f.send(hdl, more.bytes().subspan(cut));
  REQUIRE(f.log->batches.size() == 1);  // one batch at a time: the others wait in the broker
  REQUIRE(f.output_size(hdl) == 0);

  f.answer(0, broker);
  auto out = f.output(hdl, codec);
  REQUIRE(out.size() == 3);
  f.run();
  REQUIRE(f.log->batches.size() == 2);  // the queued requests went out as soon as the first came back
  const auto& second = *f.log->batches[1];
  REQUIRE(second.size == 2);
  CHECK(second.items[0].request_id == first_id + 3);
  CHECK(second.items[1].request_id == first_id + 4);

  f.answer(1, broker);
  auto out2 = f.output(hdl, codec);
  REQUIRE(out2.size() == 2);
  std::vector<std::uint32_t> ids;
  for (const auto& r : out) ids.push_back(r.request_id);
  for (const auto& r : out2) ids.push_back(r.request_id);
  REQUIRE(ids == std::vector<std::uint32_t>{first_id, first_id + 1, first_id + 2, first_id + 3, first_id + 4});
}

TEST_CASE("connection broker: past max_pending_requests it stops reading, and reads again once the host answers",
          "[actors]") {
  fixture f;
  auto o = fixture::options();
  o.max_pending_requests = 2;
  caf::actor broker;
  const auto hdl = f.connect(o, &broker);
  ua_codec codec;
  f.open_channel(hdl, codec);
  const std::uint32_t first_id = codec.last_request_id + 1;

  f.send(hdl, f.requests(codec, 1));  // batch 0 (one request) at the host
  REQUIRE(f.log->batches.size() == 1);
  REQUIRE_FALSE(f.mpx.passive_mode(hdl));
  f.send(hdl, f.requests(codec, 3));  // three waiting: over the bound of 2
  REQUIRE(f.mpx.passive_mode(hdl));   // halted: the socket is out of the read loop

  f.send(hdl, f.requests(codec, 1));  // stays in the network
  REQUIRE_FALSE(f.mpx.virtual_network_buffer(hdl).empty());

  f.answer(0, broker);
  f.run();
  REQUIRE(f.log->batches.size() == 2);
  REQUIRE(f.log->batches[1]->size == 3);
  REQUIRE_FALSE(f.mpx.passive_mode(hdl));  // triggered again
  REQUIRE(f.mpx.read_data(hdl));           // what waited in the network is read now
  f.run();
  REQUIRE(f.mpx.virtual_network_buffer(hdl).empty());

  f.answer(1, broker);
  f.run();
  REQUIRE(f.log->batches.size() == 3);
  REQUIRE(f.log->batches[2]->size == 1);
  f.answer(2, broker);

  std::vector<std::uint32_t> ids;
  for (const auto& r : f.output(hdl, codec)) ids.push_back(r.request_id);
  REQUIRE(ids == std::vector<std::uint32_t>{first_id, first_id + 1, first_id + 2, first_id + 3, first_id + 4});
}

TEST_CASE("connection broker: a failed socket ends the broker, queued requests are dropped, a late answer too",
          "[actors]") {
  fixture f;
  caf::actor broker;
  const auto hdl = f.connect(fixture::options(), &broker);
  ua_codec codec;
  f.open_channel(hdl, codec);
  // The registry's count of running actors: the host and this broker.
  const auto running = f.sys.registry().running();

  f.send(hdl, f.requests(codec, 3));  // at the host
  f.send(hdl, f.requests(codec, 2));  // queued in the broker
  REQUIRE(f.log->batches.size() == 1);

  const auto op = GENERATE(caf::io::network::operation::read, caf::io::network::operation::write);
  f.mpx.impl_ptr(hdl)->io_failure(&f.mpx, op);  // what the multiplexer does on a failed recv/send
  f.run();

  // The host's late answer goes nowhere; nothing more is written or sent to the host.
  answer_all(*f.log->batches[0]);
  caf::anon_send(broker, f.log->batches[0]);
  f.run();
  REQUIRE(f.sys.registry().running() == running - 1);  // the broker ended
  REQUIRE(f.output_size(hdl) == 0);
  REQUIRE(f.log->batches.size() == 1);
  // The host heard that the channel is gone (its deferred answers have nowhere to go).
  REQUIRE(f.log->closed_channels.size() == 1);
  // The batch is held by the test alone now: the broker released its reference when it ended.
  f.log->batches.clear();
}

TEST_CASE("connection broker: a framing error is answered with an ERR and the broker ends", "[actors]") {
  fixture f;
  caf::actor broker;
  const auto hdl = f.connect(fixture::options(), &broker);
  const auto running = f.sys.registry().running();
  ua_codec codec;
  const std::string http = "GET / HTTP/1.1\r\n\r\n";
  f.send(hdl, std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(http.data()), http.size()));
  auto out = f.output(hdl, codec);
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].type == "ERR");
  REQUIRE(out[0].err.error == status::bad_tcp_message_type_invalid);
  f.run();
  REQUIRE(f.sys.registry().running() == running - 1);  // the broker ended
}

TEST_CASE("connection broker: no Hello before the timeout: ERR Bad_Timeout at the housekeeping tick", "[actors]") {
  fixture f;
  auto o = fixture::options();
  o.channel.hello_timeout = std::chrono::milliseconds(100);
  o.housekeeping_interval = std::chrono::milliseconds(50);
  caf::actor broker;
  const auto hdl = f.connect(o, &broker);
  ua_codec codec;
  // The broker reads the steady clock itself (actors/clock.hpp), the timer is the coordinator's:
  // ticks fire only when the test triggers them, and a tick before the deadline does nothing.
  REQUIRE(f.sched.trigger_timeouts() >= 1);
  f.run();
  // Ticks until the wall-clock deadline passes (bounded: the timeout is 100 ms).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (f.output_size(hdl) == 0 && std::chrono::steady_clock::now() < deadline) {
    f.sched.trigger_timeouts();
    f.run();
  }
  auto out = f.output(hdl, codec);
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].type == "ERR");
  REQUIRE(out[0].err.error == status::bad_timeout);
}


TEST_CASE("connection broker: over 1 MiB of unsent answers it stops reading, and reads again below half",
          "[actors]") {
  fixture f;
  caf::actor broker;
  const auto hdl = f.connect(fixture::options(), &broker);
  ua_codec codec;
  f.open_channel(hdl, codec);
  // Answers of 1.2 MB each; the test multiplexer never writes them out, so they stay "unsent"
  // until the test reports a write with a data_transferred_msg, as CAF's stream does.
  auto answer_big = [&](std::size_t i) {
    auto& b = *f.log->batches.at(i);
    for (std::size_t k = 0; k < b.size; ++k) {
      ua::read_response resp;
      resp.response_header.request_handle = b.items[k].header.request_handle;
      ua::data_value v;
      v.set_value(ua::variant(ua::ua_string(std::string(50'000, 'x'))));
      for (int n = 0; n < 24; ++n) resp.results.push_back(v);
      b.items[k].response.clear();
      ua::encoder e(b.items[k].response);
      ua::encode_message(e, resp);
      REQUIRE(b.items[k].response.size() > 1'200'000);
    }
    caf::anon_send(broker, f.log->batches.at(i));
    f.run();
  };

  f.send(hdl, f.requests(codec, 1));  // batch 0 at the host
  f.send(hdl, f.requests(codec, 1));  // waits in the broker
  answer_big(0);                      // 1.2 MB out, and the waiting request goes as batch 1
  REQUIRE(f.log->batches.size() == 2);
  REQUIRE(f.output_size(hdl) > (1u << 20));
  REQUIRE(f.mpx.passive_mode(hdl));  // halted: the peer has not read 1 MiB of answers

  // The socket wrote all but 600 kB: still above half of the bound, still halted.
  caf::anon_send(broker, caf::io::data_transferred_msg{hdl, 600'000, 600'000});
  f.run();
  REQUIRE(f.mpx.passive_mode(hdl));
  // Down to 100 kB: reading again.
  caf::anon_send(broker, caf::io::data_transferred_msg{hdl, 500'000, 100'000});
  f.run();
  REQUIRE_FALSE(f.mpx.passive_mode(hdl));

  // Another 1.2 MB before any data has arrived since reading resumed: the halt waits (in CAF 0.17
  // a halt queued in the same multiplexer round as the trigger would cancel it for good; see
  // update_reading) ...
  answer_big(1);
  REQUIRE_FALSE(f.mpx.passive_mode(hdl));
  // ... until data arrives, which proves the read event is registered.
  f.send(hdl, f.requests(codec, 1));
  REQUIRE(f.mpx.passive_mode(hdl));
}

namespace {

// Everything readable on a non-blocking socket now.
std::vector<std::uint8_t> drain(int fd) {
  std::vector<std::uint8_t> all;
  std::uint8_t buf[65536];
  for (;;) {
    const auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return all;
    all.insert(all.end(), buf, buf + n);
  }
}

// Writes junk into `fd` until the kernel takes no more: how much it took.
std::size_t fill(int fd) {
  std::size_t total = 0;
  const std::vector<std::uint8_t> junk(4096, 0xAB);
  for (;;) {
    const auto n = ::send(fd, junk.data(), junk.size(), MSG_DONTWAIT);
    if (n <= 0) return total;
    total += static_cast<std::size_t>(n);
  }
}

}  // namespace

TEST_CASE("connection broker: output goes straight to its socket while CAF holds none, and waits behind CAF's "
          "buffer from a refused send until CAF reports it written", "[actors]") {
  fixture f;
  int sv[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
  caf::actor broker;
  const auto hdl = f.connect_direct(sv[0], &broker);  // sv[0]: the connection's socket; sv[1]: the peer
  ua_codec codec;

  // HEL and OPN: their answers go out directly; CAF's buffer (the test multiplexer's output) stays empty.
  f.send(hdl, codec.hello());
  REQUIRE(f.output_size(hdl) == 0);
  auto got = codec.read_all(drain(sv[1]));
  REQUIRE(got.size() == 1);
  REQUIRE(got[0].type == "ACK");
  f.send(hdl, codec.open());
  REQUIRE(f.output_size(hdl) == 0);
  got = codec.read_all(drain(sv[1]));
  REQUIRE(got.size() == 1);
  REQUIRE(got[0].type == "OPN");

  // The socket is full: the response of request 1 is refused by the kernel and goes to CAF's buffer.
  const std::size_t junk = fill(sv[0]);
  REQUIRE(junk > 0);
  const std::uint32_t first = codec.handle + 1;
  f.send(hdl, f.requests(codec, 1));
  f.answer(0, broker);
  const std::size_t one = f.output_size(hdl);
  REQUIRE(one > 0);

  // The peer reads everything (only the junk was on the socket): room again, but CAF still holds
  // response 1, so response 2 must queue behind it, not overtake it on the socket.
  REQUIRE(drain(sv[1]).size() == junk);
  f.send(hdl, f.requests(codec, 1));
  f.answer(1, broker);
  REQUIRE(drain(sv[1]).empty());
  auto queued = f.output(hdl, codec);
  REQUIRE(queued.size() == 2);
  CHECK(handle_of(queued[0]) == first);
  CHECK(handle_of(queued[1]) == first + 1);

  // CAF reports its buffer written: direct sends again.
  caf::anon_send(broker, caf::io::data_transferred_msg{hdl, one, 0});
  f.run();
  f.send(hdl, f.requests(codec, 1));
  f.answer(2, broker);
  REQUIRE(f.output_size(hdl) == 0);
  got = codec.read_all(drain(sv[1]));
  REQUIRE(got.size() == 1);
  CHECK(handle_of(got[0]) == first + 2);
  ::close(sv[0]);
  ::close(sv[1]);
}

}  // namespace server_connection_actor_test
