// client_channel_state (Part 6 §7.1, §6.7, client side) against the real server side in memory:
// secure_channel_state + session_manager + services::service_read, bytes exchanged through two
// chunk_readers, no sockets.
#include <catch2/catch.hpp>

#include <span>
#include <string>
#include <vector>

#include "engine/client/channel_state.hpp"
#include "engine/server/secure_channel_state.hpp"
#include "engine/server/services/read.hpp"
#include "engine/server/session_manager.hpp"
#include "protocol/chunk_reader.hpp"
#include "tests/engine/read_fixture.hpp"
#include "tests/support/bytes.hpp"

using namespace uactor;
using actors::client_channel_state;
using cevent = client_channel_state::event;
using sevent = actors::secure_channel_state::event;
namespace status = ua::status;
using std::chrono::milliseconds;

namespace {

actors::instant at(std::int64_t ms) {
  return {std::chrono::steady_clock::time_point{} + milliseconds(ms), ua::date_time::from_unix_ms(1'767'225'600'000 + ms)};
}

actors::session_config sessions_config() {
  actors::session_config c;
  c.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = ++n;
  };
  ua::endpoint_description ep;
  ep.endpoint_url = "opc.tcp://localhost:4840";
  ep.security_policy_uri = ua::ua_string(actors::security_policy_none_uri);
  ep.security_mode = ua::message_security_mode::none;
  ua::user_token_policy anonymous;
  anonymous.policy_id = "anon";
  anonymous.token_type = ua::user_token_type::anonymous;
  ep.user_identity_tokens = {anonymous};
  c.endpoints.push_back(ep);
  return c;
}

// A chunk as it went over the wire, seen from outside: type and the token it was secured with.
struct wire_chunk {
  ua::message_type type;
  ua::chunk_type chunk;
  std::uint32_t token_id = 0;
};

std::vector<wire_chunk> parse_wire(const ua::byte_buffer& bytes) {
  std::vector<wire_chunk> out;
  ua::transport_limits big;
  big.receive_buffer_size = 1u << 24;
  ua::chunk_reader reader(big);
  const auto used = reader.put(bytes.bytes(), [&](const ua::chunk_view& v) {
    wire_chunk w{v.type, v.chunk, 0};
    if (v.type == ua::message_type::message || v.type == ua::message_type::close) {
      ua::secure_chunk c;
      REQUIRE(ua::parse_secure_chunk(v.bytes, c) == status::good);
      w.token_id = c.token_id;
    }
    out.push_back(w);
  });
  REQUIRE(used.has_value());
  return out;
}

struct received_response {
  std::uint32_t request_id = 0;
  ua::status_code status;
  ua::extension_object message;
};

// One client and one server connected by two chunk_readers.
struct loopback {
  ua::address_space space = test::demo_address_space();
  actors::secure_channel_config server_config;
  actors::secure_channel_state server;
  ua::chunk_reader server_reader;
  actors::session_manager sessions{sessions_config()};
  ua::read_response read_scratch;

  client_channel_state client;
  ua::chunk_reader client_reader;
  std::vector<cevent> events;
  std::vector<received_response> responses;
  std::vector<wire_chunk> last_to_server;
  std::vector<wire_chunk> last_to_client;
  ua::byte_buffer recorded;  // every byte the server sent

  static actors::secure_channel_config make_server_config(ua::transport_limits limits) {
    actors::secure_channel_config c;
    c.channel_id = 42;
    c.limits = limits;
    return c;
  }

  explicit loopback(actors::client_channel_config cc = {}, ua::transport_limits server_limits = {})
      : server_config(make_server_config(server_limits)),
        server(server_config, at(0)),
        server_reader(server_limits),
        client(std::move(cc)),
        client_reader(client.config().limits) {}

  // `wire` as the server's next bytes: the client's events for them.
  std::vector<cevent> from_server(std::span<const std::uint8_t> wire, const actors::instant& now) {
    events.clear();
    const auto used = client_reader.put(wire, [&](const ua::chunk_view& v) { events.push_back(client.on_chunk(v, now)); });
    REQUIRE(used.has_value());
    return events;
  }

  // Client output to the server, the server's answers back to the client; repeated until quiet.
  void pump(const actors::instant& now) {
    while (!client.output().empty() || !server.output().empty()) {
      if (!client.output().empty()) {
        last_to_server = parse_wire(client.output());
        ua::byte_buffer wire = std::move(client.output());
        client.clear_output();
        const auto used = server_reader.put(wire.bytes(), [&](const ua::chunk_view& v) {
          const auto ev = server.on_chunk(v, now);
          if (ev == sevent::acknowledged) server_reader.set_receive_buffer_size(server.limits().receive_buffer_size);
          if (ev == sevent::request) serve(now);
        });
        REQUIRE(used.has_value());
      }
      if (!server.output().empty()) {
        last_to_client = parse_wire(server.output());
        ua::byte_buffer wire = std::move(server.output());
        server.clear_output();
        recorded.append(wire.data(), wire.size());
        const auto used = client_reader.put(wire.bytes(), [&](const ua::chunk_view& v) {
          const auto ev = client.on_chunk(v, now);
          events.push_back(ev);
          if (ev == cevent::acknowledged) {
            client_reader.set_receive_buffer_size(client.limits().receive_buffer_size);
            REQUIRE(client.write_open(now) == status::good);
          }
          if (ev == cevent::response) {
            received_response r{client.response().request_id, client.response().status, {}};
            if (client.response().message) r.message = std::move(*client.response().message);
            responses.push_back(std::move(r));
          }
        });
        REQUIRE(used.has_value());
      }
    }
  }

  void serve(const actors::instant& now) {
    const auto& req = server.request();
    const auto routed = sessions.route(req, now);
    if (routed.what == actors::session_manager::routed::action::respond) {
      REQUIRE(server.send_response(req.request_id, *routed.response) == status::good);
      return;
    }
    const auto* read = req.message->get_if<ua::read_request>();
    REQUIRE(read);
    services::service_read(*read, read_scratch, space, now.utc);
    read_scratch.response_header.request_handle = req.header->request_handle;
    (void)server.send_response(req.request_id, read_scratch);
  }

  template <class T>
  std::uint32_t send(T request, const actors::instant& now) {
    request.request_header.authentication_token = token;
    request.request_header.timestamp = now.utc;
    request.request_header.request_handle = ++handle;
    auto id = client.send_request(request);
    REQUIRE(id.has_value());
    return *id;
  }

  const received_response& last() const {
    REQUIRE(!responses.empty());
    return responses.back();
  }

  // HEL/ACK, OPN, CreateSession, ActivateSession.
  void connect(const actors::instant& now) {
    client.write_hello();
    pump(now);
    REQUIRE(client.is_open());
    REQUIRE(events == std::vector{cevent::acknowledged, cevent::opened});
    ua::create_session_request cs;
    cs.session_name = "test";
    cs.requested_session_timeout = 60'000;
    send(cs, now);
    pump(now);
    const auto* created = last().message.get_if<ua::create_session_response>();
    REQUIRE(created);
    token = created->authentication_token;
    ua::activate_session_request as;
    as.user_identity_token = ua::anonymous_identity_token{ua::ua_string("anon")};
    send(as, now);
    pump(now);
    REQUIRE(last().message.get_if<ua::activate_session_response>());
    REQUIRE(last().message.get_if<ua::activate_session_response>()->response_header.service_result == status::good);
  }

  ua::node_id token;
  std::uint32_t handle = 0;
};

ua::read_request read_of(std::string_view name, std::size_t times = 1) {
  ua::read_request r;
  for (std::size_t i = 0; i < times; ++i) {
    ua::read_value_id id;
    id.node_id = test::demo(name);
    id.attribute_id = 13;  // Value
    r.nodes_to_read.push_back(id);
  }
  return r;
}

}  // namespace

TEST_CASE("client_channel: Hello, OPN, CreateSession, ActivateSession and a Read against the server state", "[actors][client]") {
  actors::client_channel_config cc;
  cc.endpoint_url = "opc.tcp://localhost:4840";
  loopback lb(cc);
  lb.connect(at(0));
  REQUIRE(lb.client.channel_id() == 42);
  REQUIRE(lb.client.limits().send_buffer_size == 65535);

  const auto id = lb.send(read_of("demo.int32"), at(1));
  lb.pump(at(1));
  REQUIRE(lb.last().request_id == id);
  REQUIRE(lb.last().status == status::good);
  const auto* resp = lb.last().message.get_if<ua::read_response>();
  REQUIRE(resp);
  REQUIRE(resp->response_header.request_handle == lb.handle);
  REQUIRE(lb.client.response().request_handle == lb.handle);
  REQUIRE(resp->results.size() == 1);
  REQUIRE(resp->results[0].value == ua::variant(std::int32_t{7}));

  // Part 6 §7.1.4: CLO, after which the server closes; nothing more goes out from us.
  lb.client.write_close(at(2));
  REQUIRE(parse_wire(lb.client.output()).at(0).type == ua::message_type::close);
  lb.pump(at(2));
  REQUIRE(lb.server.closed());
  REQUIRE(lb.server.close_status() == status::good);
  REQUIRE(lb.client.closed());
  REQUIRE(lb.client.send_request(read_of("demo.int32")).error() == status::bad_secure_channel_closed);
}

TEST_CASE("client_channel: several requests in flight are answered each with its own request id", "[actors][client]") {
  loopback lb;
  lb.connect(at(0));
  lb.responses.clear();
  const auto a = lb.send(read_of("demo.int32"), at(1));
  const auto b = lb.send(read_of("demo.double"), at(1));
  const auto c = lb.send(read_of("demo.string"), at(1));
  REQUIRE(a != b);
  REQUIRE(b != c);
  lb.pump(at(1));
  REQUIRE(lb.responses.size() == 3);
  REQUIRE(lb.responses[0].request_id == a);
  REQUIRE(lb.responses[1].request_id == b);
  REQUIRE(lb.responses[2].request_id == c);
  REQUIRE(lb.responses[1].message.get_if<ua::read_response>()->results[0].value == ua::variant(3.5));
}

TEST_CASE("client_channel: a response in several chunks is assembled into one", "[actors][client]") {
  actors::client_channel_config cc;
  cc.limits.receive_buffer_size = 8192;  // the server sends chunks of at most 8192 bytes
  loopback lb(cc);
  lb.connect(at(0));
  REQUIRE(lb.client.limits().receive_buffer_size == 8192);
  // 1000 times Int32[10]: some 50 KB of response.
  const auto id = lb.send(read_of("demo.int32_array", 1000), at(1));
  lb.responses.clear();
  lb.pump(at(1));
  REQUIRE(lb.last_to_client.size() >= 4);
  for (std::size_t i = 0; i + 1 < lb.last_to_client.size(); ++i)
    REQUIRE(lb.last_to_client[i].chunk == ua::chunk_type::intermediate);
  REQUIRE(lb.last_to_client.back().chunk == ua::chunk_type::final_chunk);
  REQUIRE(lb.responses.size() == 1);
  REQUIRE(lb.last().request_id == id);
  const auto* resp = lb.last().message.get_if<ua::read_response>();
  REQUIRE(resp);
  REQUIRE(resp->results.size() == 1000);
  REQUIRE(resp->results[999].value == ua::variant(ua::ua_array<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST_CASE("client_channel: a request over the server's MaxMessageSize gets Bad_RequestTooLarge and the channel stays usable", "[actors][client]") {
  ua::transport_limits server_limits;
  server_limits.max_message_size = 8192;
  loopback lb({}, server_limits);
  lb.connect(at(0));
  REQUIRE(lb.client.limits().send_max_message_size == 8192);
  auto big = read_of("demo.int32", 1000);  // some 40 KB of request
  big.request_header.authentication_token = lb.token;
  REQUIRE(lb.client.send_request(big).error() == status::bad_request_too_large);
  REQUIRE(lb.client.output().empty());  // nothing written, no sequence number taken
  const auto id = lb.send(read_of("demo.int32"), at(1));
  lb.pump(at(1));
  REQUIRE(lb.last().request_id == id);
  REQUIRE(lb.last().message.get_if<ua::read_response>()->results[0].value == ua::variant(std::int32_t{7}));
}

TEST_CASE("client_channel: a request needing more chunks than MaxChunkCount gets Bad_RequestTooLarge", "[actors][client]") {
  ua::transport_limits server_limits;
  server_limits.receive_buffer_size = 8192;
  server_limits.max_chunk_count = 2;
  loopback lb({}, server_limits);
  lb.connect(at(0));
  auto big = read_of("demo.int32", 1000);
  REQUIRE(lb.client.send_request(big).error() == status::bad_request_too_large);
  REQUIRE(lb.client.is_open());
}

TEST_CASE("client_channel: an ERR from the server ends the channel with its status", "[actors][client]") {
  actors::client_channel_config cc;
  cc.limits.receive_buffer_size = 1024;  // below the 8192 the server takes (Part 6 §7.1.2.3)
  loopback lb(cc);
  lb.client.write_hello();
  lb.pump(at(0));
  REQUIRE(lb.events == std::vector{cevent::closed});
  REQUIRE(lb.client.closed());
  REQUIRE(lb.client.close_status() == status::bad_connection_rejected);
  REQUIRE(lb.client.send_request(read_of("demo.int32")).error() == status::bad_secure_channel_closed);
  REQUIRE(lb.client.write_open(at(0)) == status::bad_invalid_state);
}

TEST_CASE("client_channel: an ERR in the middle of a conversation ends it too", "[actors][client]") {
  loopback lb;
  lb.connect(at(0));
  ua::byte_buffer wire;
  ua::error_message err;
  err.error = status::bad_too_many_sessions;
  err.reason = "going away";
  ua::write_message(wire, err);
  REQUIRE(lb.from_server(wire.bytes(), at(1)) == std::vector{cevent::closed});
  REQUIRE(lb.client.close_status() == status::bad_too_many_sessions);
  REQUIRE(lb.client.close_reason() == "going away");
}

TEST_CASE("client_channel: node-opcua's ERR carrying a ServiceFault ends the channel with the fault's ServiceResult", "[actors][client]") {
  // Captured from node-opcua 2.163's server (tests/interop/node_secure_server.js) answering an OPN
  // for SecurityPolicy None in SignAndEncrypt, an endpoint it does not have: "ERRF", SecureChannelId
  // 1, the request's asymmetric security header (None, no certificates), sequence number 1, request
  // id 1, then ServiceFault (i=397) with Bad_SecurityPolicyRejected and a two-string StringTable.
  const auto wire = test::from_hex(
        "45525246ec000000010000002f000000687474703a2f2f6f7063666f756e646174696f6e2e6f72672f55412f53656375"
        "72697479506f6c696379234e6f6e65ffffffffffffffff010000000100000001008d01200537db7a82dd010700000000"
        "00558000020000005300000020546869732073657276657220646f65736e2774206e6f7420737570706f727420206874"
        "74703a2f2f6f7063666f756e646174696f6e2e6f72672f55412f5365637572697479506f6c696379234e6f6e65203326"
        "0000004261645365637572697479506f6c69637952656a656374656420283078383035353030303029000000");
  loopback lb;
  lb.connect(at(0));
  REQUIRE(lb.from_server(wire, at(1)) == std::vector{cevent::closed});
  REQUIRE(lb.client.close_status() == status::bad_security_policy_rejected);
  REQUIRE(std::string(lb.client.close_reason()).find("doesn't not support") != std::string::npos);
}

TEST_CASE("client_channel: an ERR that is neither an Error nor node-opcua's ServiceFault is Bad_DecodingError", "[actors][client]") {
  // The Error's Reason claims 100 bytes and 2 follow.
  const auto wire = test::from_hex("455252461200000000005580640000006869");
  loopback lb;
  lb.connect(at(0));
  REQUIRE(lb.from_server(wire, at(1)) == std::vector{cevent::closed});
  REQUIRE(lb.client.close_status() == status::bad_decoding_error);
}

TEST_CASE("client_channel: the token is renewed at 75 % of its lifetime and the old one is still accepted", "[actors][client]") {
  actors::client_channel_config cc;
  cc.requested_lifetime = milliseconds(20'000);
  loopback lb(cc);
  lb.connect(at(0));
  const auto first = lb.client.token().token_id;
  REQUIRE(lb.client.token().revised_lifetime == 20'000);
  REQUIRE_FALSE(lb.client.needs_renewal(at(14'999).steady));
  REQUIRE(lb.client.needs_renewal(at(15'000).steady));

  // The Renew, then a Read still under the old token before the response is in.
  REQUIRE(lb.client.write_open(at(15'000)) == status::good);
  REQUIRE_FALSE(lb.client.needs_renewal(at(15'000).steady));  // one Renew in flight
  const auto id = lb.send(read_of("demo.int32"), at(15'000));
  REQUIRE(parse_wire(lb.client.output()).back().token_id == first);
  lb.events.clear();
  lb.responses.clear();
  lb.pump(at(15'000));
  REQUIRE(lb.events == std::vector{cevent::renewed, cevent::response});
  const auto second = lb.client.token().token_id;
  REQUIRE(second != first);
  // Part 4 §5.5.2.1: the server answers with the old token until we use the new one.
  REQUIRE(lb.last_to_client.back().token_id == first);
  REQUIRE(lb.last().request_id == id);
  REQUIRE(lb.last().message.get_if<ua::read_response>()->results[0].value == ua::variant(std::int32_t{7}));

  // The next request goes under the new token, and so does its answer.
  lb.send(read_of("demo.double"), at(15'001));
  REQUIRE(parse_wire(lb.client.output()).back().token_id == second);
  lb.pump(at(15'001));
  REQUIRE(lb.last_to_client.back().token_id == second);
  REQUIRE(lb.last().message.get_if<ua::read_response>()->results[0].value == ua::variant(3.5));
  REQUIRE_FALSE(lb.client.needs_renewal(at(29'999).steady));
  REQUIRE(lb.client.needs_renewal(at(30'000).steady));
}

TEST_CASE("client_channel: an abort chunk gives its status to that request only", "[actors][client]") {
  loopback lb;
  lb.connect(at(0));
  const auto id = lb.send(read_of("demo.int32"), at(1));
  // Let the server answer, but keep its answer: its sequence number gives the next one.
  ua::byte_buffer to_server = std::move(lb.client.output());
  lb.client.clear_output();
  std::uint32_t seq = 0;
  (void)lb.server_reader.put(to_server.bytes(), [&](const ua::chunk_view& v) {
    REQUIRE(lb.server.on_chunk(v, at(1)) == sevent::request);
    lb.serve(at(1));
  });
  REQUIRE(!lb.server.output().empty());
  // Instead of the answer, an abort for the same request from the server's channel.
  {
    ua::transport_limits big;
    big.receive_buffer_size = 1u << 24;
    ua::chunk_reader r(big);
    (void)r.put(lb.server.output().bytes(), [&](const ua::chunk_view& v) {
      ua::secure_chunk c;
      (void)ua::parse_secure_chunk(v.bytes, c);
      seq = c.sequence.sequence_number;
    });
  }
  // The abort takes the place of that answer, with its sequence number.
  ua::connection_limits l;
  l.send_buffer_size = 65535;
  const ua::message_chunker chunker(l, status::bad_response_too_large);
  ua::sequence_counter counter(true, seq);
  ua::byte_buffer wire;
  chunker.write_abort(status::bad_too_many_operations, "too much", {ua::message_type::message, 42,
                      lb.client.token().token_id, nullptr, id}, counter, wire);
  lb.responses.clear();
  (void)lb.client_reader.put(wire.bytes(), [&](const ua::chunk_view& v) {
    REQUIRE(lb.client.on_chunk(v, at(1)) == cevent::response);
    lb.responses.push_back({lb.client.response().request_id, lb.client.response().status, {}});
  });
  REQUIRE(lb.responses.size() == 1);
  REQUIRE(lb.last().request_id == id);
  REQUIRE(lb.last().status == status::bad_too_many_operations);
  REQUIRE(lb.client.is_open());
}

TEST_CASE("client_channel: a MSG under an unknown token closes the channel", "[actors][client]") {
  loopback lb;
  lb.connect(at(0));
  ua::connection_limits l;
  l.send_buffer_size = 65535;
  const ua::message_chunker chunker(l, status::bad_response_too_large);
  ua::sequence_counter counter(true, 500);
  ua::byte_buffer body;
  ua::encoder e(body);
  ua::encode_message(e, ua::read_response{});
  ua::byte_buffer wire;
  REQUIRE(chunker.write(body.bytes(), {ua::message_type::message, 42, 999, nullptr, 1}, counter, wire).has_value());
  (void)lb.client_reader.put(wire.bytes(), [&](const ua::chunk_view& v) {
    REQUIRE(lb.client.on_chunk(v, at(1)) == cevent::closed);
  });
  REQUIRE(lb.client.close_status() == status::bad_secure_channel_token_unknown);
}

TEST_CASE("client_channel: the server's bytes split at any offset give the same events and responses", "[actors][client]") {
  actors::client_channel_config cc;
  cc.limits.receive_buffer_size = 8192;
  loopback lb(cc);
  lb.connect(at(0));
  lb.send(read_of("demo.int32_array", 200), at(1));  // a response of 2 chunks
  lb.pump(at(1));
  REQUIRE(lb.last_to_client.size() == 2);
  const auto stream = lb.recorded.to_vector();
  std::vector<std::uint32_t> want_ids;
  for (const auto& r : lb.responses) want_ids.push_back(r.request_id);

  for (std::size_t cut = 1; cut < stream.size(); ++cut) {
    client_channel_state c(cc);
    c.write_hello();
    ua::chunk_reader reader(cc.limits);
    std::vector<cevent> events;
    std::vector<std::uint32_t> ids;
    std::size_t results = 0;
    auto on_chunk = [&](const ua::chunk_view& v) {
      const auto ev = c.on_chunk(v, at(1));
      events.push_back(ev);
      if (ev == cevent::acknowledged) {
        reader.set_receive_buffer_size(c.limits().receive_buffer_size);
        (void)c.write_open(at(1));
      }
      if (ev == cevent::response) {
        ids.push_back(c.response().request_id);
        if (const auto* r = c.response().message->get_if<ua::read_response>()) results = r->results.size();
      }
    };
    const std::span<const std::uint8_t> all(stream);
    auto used = reader.put(all.first(cut), on_chunk);
    REQUIRE(used.has_value());
    // Bytes not taken (a header not yet whole) are passed again with the rest.
    used = reader.put(all.subspan(*used), on_chunk);
    REQUIRE(used.has_value());
    REQUIRE(events == lb.events);
    REQUIRE(ids == want_ids);
    REQUIRE(results == 200);
  }
}
