// secure_channel_state (Part 6 §7.1, §6.7): the test plays the client with the protocol layer's own
// chunker and reader, feeds real chunks to the server state, and reads back what it would send.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/server/secure_channel_state.hpp"
#include "engine/server/session_manager.hpp"
#include "protocol/chunk_reader.hpp"
#include "protocol/message.hpp"
#include "protocol/message_assembler.hpp"
#include "protocol/message_chunker.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/bytes.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace server_secure_channel_state_test {

using namespace uactor;
using actors::secure_channel_state;
using event = secure_channel_state::event;
namespace status = ua::status;
using std::chrono::milliseconds;

namespace {

constexpr std::uint32_t channel_id = 4711;

actors::instant at(std::int64_t ms) {
  return {std::chrono::steady_clock::time_point{} + milliseconds(ms), ua::date_time::from_unix_ms(1'767'225'600'000 + ms)};
}

actors::secure_channel_config config() {
  actors::secure_channel_config c;
  c.channel_id = channel_id;
  return c;
}

// What the client reads back from the server.
struct received {
  ua::message_type type = ua::message_type::message;
  std::uint32_t channel_id = 0;
  std::uint32_t token_id = 0;
  std::uint32_t request_id = 0;
  std::size_t chunks = 0;
  ua::acknowledge ack;
  ua::error_message err;
  ua::extension_object msg;

  std::uint32_t request_handle() const {
    if (const auto* f = msg.get_if<ua::service_fault>()) return f->response_header.request_handle;
    return 0;
  }
};

// A client over the protocol layer: builds the chunks it sends, reads the server's output.
struct client {
  ua::transport_limits ours;
  ua::connection_limits limits;  // send_*: the server's (after the Acknowledge)
  ua::sequence_counter sequence;
  ua::message_assembler assembler{0, 0};
  std::uint32_t channel_id = 0;
  std::uint32_t token_id = 0;
  std::uint32_t last_request_id = 0;
  std::uint32_t handle = 100;

  client() {
    limits.send_buffer_size = limits.receive_buffer_size = 65535;
  }

  test::bytes hello() {
    ua::byte_buffer b;
    ua::write_message(b, ua::make_hello(ours, "opc.tcp://localhost:4840"));
    return b.to_vector();
  }

  template <class T>
  test::bytes chunks(ua::message_type type, const T& body, const ua::asymmetric_security_header* asym = nullptr) {
    ua::byte_buffer encoded;
    ua::encoder e(encoded);
    ua::encode_message(e, body);
    const ua::message_chunker chunker(limits, status::bad_request_too_large);
    const ua::chunk_target target{type, channel_id, token_id, asym, ++last_request_id};
    ua::byte_buffer out;
    const auto n = chunker.write(encoded.bytes(), target, sequence, out);
    REQUIRE(n.has_value());
    return out.to_vector();
  }

  test::bytes open(ua::security_token_request_type type = ua::security_token_request_type::issue,
                   std::uint32_t lifetime_ms = 600'000, std::string_view policy = actors::security_policy_none_uri,
                   ua::message_security_mode mode = ua::message_security_mode::none) {
    ua::open_secure_channel_request req;
    req.request_header.request_handle = ++handle;
    req.request_type = type;
    req.security_mode = mode;
    req.requested_lifetime = lifetime_ms;
    ua::asymmetric_security_header asym;
    asym.security_policy_uri = ua::ua_string(policy);
    return chunks(ua::message_type::open, req, &asym);
  }

  template <class T>
  test::bytes msg(T req) {
    req.request_header.request_handle = ++handle;
    return chunks(ua::message_type::message, req);
  }

  test::bytes clo() {
    ua::close_secure_channel_request req;
    return chunks(ua::message_type::close, req);
  }

  // Everything the server wrote, parsed; the server's output is cleared.
  std::vector<received> read(secure_channel_state& server) {
    std::vector<received> out;
    ua::transport_limits big;
    big.receive_buffer_size = 1u << 24;
    ua::chunk_reader reader(big);
    std::size_t pending_chunks = 0;
    const auto used = reader.put(server.output().bytes(), [&](const ua::chunk_view& v) {
      received r;
      r.type = v.type;
      if (v.type == ua::message_type::acknowledge) {
        REQUIRE(ua::read_message(v.bytes, r.ack) == status::good);
        auto accepted = ua::accept_acknowledge(r.ack, ua::make_hello(ours, "opc.tcp://localhost:4840"));
        REQUIRE(accepted.has_value());
        limits = *accepted;
        out.push_back(std::move(r));
        return;
      }
      if (v.type == ua::message_type::error) {
        REQUIRE(ua::read_message(v.bytes, r.err) == status::good);
        out.push_back(std::move(r));
        return;
      }
      ua::secure_chunk c;
      REQUIRE(ua::parse_secure_chunk(v.bytes, c) == status::good);
      ++pending_chunks;
      auto a = assembler.add(c);
      REQUIRE(a.has_value());
      if (a->what != ua::message_assembler::outcome::complete) return;
      r.channel_id = c.secure_channel_id;
      r.token_id = c.token_id;
      r.request_id = a->request_id;
      r.chunks = pending_chunks;
      pending_chunks = 0;
      REQUIRE(ua::decode_message(a->body, r.msg) == status::good);
      if (const auto* resp = r.msg.get_if<ua::open_secure_channel_response>()) {
        channel_id = resp->security_token.channel_id;
        token_id = resp->security_token.token_id;
      }
      out.push_back(std::move(r));
    });
    REQUIRE(used.has_value());
    REQUIRE(*used == server.output().size());
    server.clear_output();
    return out;
  }
};

struct captured_request {
  std::uint32_t request_id = 0;
  std::uint32_t request_handle = 0;
  std::string type;
};

// The server side of one connection: a chunk_reader in front of the state, as the actor will have.
struct server {
  secure_channel_state state;
  ua::chunk_reader reader;
  std::vector<captured_request> requests;

  explicit server(const actors::secure_channel_config& c = config(), const actors::instant& created = at(0))
      : state(c, created), reader(c.limits) {}

  std::vector<event> feed(const test::bytes& wire, const actors::instant& now) {
    std::vector<event> events;
    const auto used = reader.put(wire, [&](const ua::chunk_view& v) {
      const auto ev = state.on_chunk(v, now);
      events.push_back(ev);
      if (ev == event::acknowledged) reader.set_receive_buffer_size(state.limits().receive_buffer_size);
      if (ev == event::request) {
        const auto& r = state.request();
        requests.push_back({r.request_id, r.header->request_handle, r.message->body()->type().name});
      }
    });
    REQUIRE(used.has_value());
    return events;
  }
};

// HEL -> ACK -> OPN -> response: a channel ready for MSG.
void open_channel(server& s, client& c, std::uint32_t lifetime_ms = 600'000, std::int64_t ms = 0) {
  REQUIRE(s.feed(c.hello(), at(ms)) == std::vector{event::acknowledged});
  auto ack = c.read(s.state);
  REQUIRE(ack.size() == 1);
  REQUIRE(ack[0].type == ua::message_type::acknowledge);
  REQUIRE(s.feed(c.open(ua::security_token_request_type::issue, lifetime_ms), at(ms)) == std::vector{event::none});
  auto opn = c.read(s.state);
  REQUIRE(opn.size() == 1);
  REQUIRE(opn[0].type == ua::message_type::open);
  REQUIRE(c.channel_id == channel_id);
}

ua::read_request read_request(std::size_t items) {
  ua::read_request req;
  for (std::size_t i = 0; i < items; ++i) {
    ua::read_value_id id;
    id.node_id = ua::node_id(0, static_cast<std::uint32_t>(2255 + i));
    id.attribute_id = 13;
    req.nodes_to_read.push_back(id);
  }
  return req;
}

void check_error(const std::vector<received>& out, ua::status_code expected) {
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].type == ua::message_type::error);
  CHECK(out[0].err.error == expected);
}

}  // namespace

TEST_CASE("secure_channel: HEL, OPN, MSG and CLO of a whole conversation", "[actors]") {
  server s;
  client c;
  REQUIRE(s.feed(c.hello(), at(0)) == std::vector{event::acknowledged});
  CHECK(s.reader.receive_buffer_size() == s.state.limits().receive_buffer_size);
  auto out = c.read(s.state);
  REQUIRE(out.size() == 1);
  CHECK(out[0].ack.receive_buffer_size == 65535);
  CHECK(out[0].ack.max_chunk_count == 4096);
  CHECK(s.state.endpoint_url() == "opc.tcp://localhost:4840");

  REQUIRE(s.feed(c.open(ua::security_token_request_type::issue, 600'000), at(5)) == std::vector{event::none});
  out = c.read(s.state);
  REQUIRE(out.size() == 1);
  const auto* opn = out[0].msg.get_if<ua::open_secure_channel_response>();
  REQUIRE(opn);
  CHECK(out[0].type == ua::message_type::open);
  CHECK(out[0].request_id == c.last_request_id);
  CHECK(opn->response_header.request_handle == c.handle);
  CHECK(opn->response_header.service_result == status::good);
  CHECK(opn->security_token.channel_id == channel_id);
  CHECK(opn->security_token.token_id == 1);
  CHECK(opn->security_token.created_at == at(5).utc);
  CHECK(opn->security_token.revised_lifetime == 600'000);
  CHECK(s.state.current_phase() == secure_channel_state::phase::open);

  ua::create_session_request create;
  create.session_name = "test";
  create.requested_session_timeout = 60'000;
  REQUIRE(s.feed(c.msg(create), at(10)) == std::vector{event::request});
  REQUIRE(s.requests.size() == 1);
  CHECK(s.requests[0].type == "CreateSessionRequest");
  CHECK(s.requests[0].request_id == c.last_request_id);
  CHECK(s.requests[0].request_handle == c.handle);
  const auto& req = s.state.request();
  CHECK(req.channel_id == channel_id);
  REQUIRE(req.message->get_if<ua::create_session_request>());
  CHECK(req.message->get_if<ua::create_session_request>()->session_name.view() == "test");

  ua::create_session_response resp;
  resp.response_header.request_handle = req.header->request_handle;
  resp.revised_session_timeout = 60'000;
  REQUIRE(s.state.send_response(req.request_id, resp) == status::good);
  out = c.read(s.state);
  REQUIRE(out.size() == 1);
  CHECK(out[0].type == ua::message_type::message);
  CHECK(out[0].channel_id == channel_id);
  CHECK(out[0].token_id == 1);
  CHECK(out[0].request_id == c.last_request_id);
  REQUIRE(out[0].msg.get_if<ua::create_session_response>());
  CHECK(out[0].msg.get_if<ua::create_session_response>()->revised_session_timeout == 60'000);

  // A type-erased body goes out the same way.
  REQUIRE(s.feed(c.msg(read_request(3)), at(20)) == std::vector{event::request});
  ua::read_response read;
  read.response_header.request_handle = s.state.request().header->request_handle;
  read.results.resize(3);
  const ua::extension_object wrapped(read);
  REQUIRE(s.state.send_response(s.state.request().request_id, *wrapped.body()) == status::good);
  out = c.read(s.state);
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].msg.get_if<ua::read_response>());
  CHECK(out[0].msg.get_if<ua::read_response>()->results.size() == 3);

  // Part 6 §7.1.4: CloseSecureChannel gets no answer; the connection closes.
  REQUIRE(s.feed(c.clo(), at(30)) == std::vector{event::close});
  CHECK(s.state.output().empty());
  CHECK(s.state.closed());
  CHECK(s.state.close_status() == status::good);
  CHECK(s.state.send_response(1, resp) == status::bad_secure_channel_closed);
  CHECK(s.state.output().empty());
}

TEST_CASE("secure_channel: a first message other than HEL gets Bad_TcpMessageTypeInvalid and a close", "[actors]") {
  server s;
  client c;
  CHECK(s.feed(c.open(), at(0)) == std::vector{event::close});
  check_error(c.read(s.state), status::bad_tcp_message_type_invalid);
  CHECK(s.state.close_status() == status::bad_tcp_message_type_invalid);
  // Nothing more is read once closed.
  CHECK(s.feed(c.hello(), at(1)) == std::vector{event::close});
  CHECK(s.state.output().empty());
}

TEST_CASE("secure_channel: a second HEL gets Bad_TcpMessageTypeInvalid and a close", "[actors]") {
  server s;
  client c;
  open_channel(s, c);
  CHECK(s.feed(c.hello(), at(1)) == std::vector{event::close});
  check_error(c.read(s.state), status::bad_tcp_message_type_invalid);
}

TEST_CASE("secure_channel: a Hello with a receive buffer below 8192 gets Bad_ConnectionRejected and a close", "[actors]") {
  server s;
  client c;
  c.ours.receive_buffer_size = 1024;
  CHECK(s.feed(c.hello(), at(0)) == std::vector{event::close});
  c.ours.receive_buffer_size = 65535;  // so that read() does not check the ACK against it
  check_error(c.read(s.state), status::bad_connection_rejected);
}

TEST_CASE("secure_channel: a MSG before OPN gets Bad_TcpSecureChannelUnknown and a close", "[actors]") {
  server s;
  client c;
  REQUIRE(s.feed(c.hello(), at(0)) == std::vector{event::acknowledged});
  c.read(s.state);
  c.channel_id = channel_id;
  c.token_id = 1;
  CHECK(s.feed(c.msg(read_request(1)), at(1)) == std::vector{event::close});
  check_error(c.read(s.state), status::bad_tcp_secure_channel_unknown);
}

TEST_CASE("secure_channel: a CLO before OPN gets Bad_TcpSecureChannelUnknown and a close", "[actors]") {
  server s;
  client c;
  REQUIRE(s.feed(c.hello(), at(0)) == std::vector{event::acknowledged});
  c.read(s.state);
  CHECK(s.feed(c.clo(), at(1)) == std::vector{event::close});
  check_error(c.read(s.state), status::bad_tcp_secure_channel_unknown);
}

TEST_CASE("secure_channel: an OPN with another security policy gets Bad_SecurityPolicyRejected and a close", "[actors]") {
  server s;
  client c;
  REQUIRE(s.feed(c.hello(), at(0)) == std::vector{event::acknowledged});
  c.read(s.state);
  CHECK(s.feed(c.open(ua::security_token_request_type::issue, 600'000,
                      "http://opcfoundation.org/UA/SecurityPolicy#Basic256Sha256"),
               at(1)) == std::vector{event::close});
  check_error(c.read(s.state), status::bad_security_policy_rejected);
}

TEST_CASE("secure_channel: an OPN asking for Sign gets Bad_SecurityModeRejected and a close", "[actors]") {
  server s;
  client c;
  REQUIRE(s.feed(c.hello(), at(0)) == std::vector{event::acknowledged});
  c.read(s.state);
  CHECK(s.feed(c.open(ua::security_token_request_type::issue, 600'000, actors::security_policy_none_uri,
                      ua::message_security_mode::sign),
               at(1)) == std::vector{event::close});
  check_error(c.read(s.state), status::bad_security_mode_rejected);
}

TEST_CASE("secure_channel: a Renew before Issue gets Bad_TcpSecureChannelUnknown, a second Issue Bad_RequestTypeInvalid", "[actors]") {
  {
    server s;
    client c;
    REQUIRE(s.feed(c.hello(), at(0)) == std::vector{event::acknowledged});
    c.read(s.state);
    CHECK(s.feed(c.open(ua::security_token_request_type::renew), at(1)) == std::vector{event::close});
    check_error(c.read(s.state), status::bad_tcp_secure_channel_unknown);
  }
  {
    server s;
    client c;
    open_channel(s, c);
    CHECK(s.feed(c.open(ua::security_token_request_type::issue), at(1)) == std::vector{event::close});
    check_error(c.read(s.state), status::bad_request_type_invalid);
  }
}

TEST_CASE("secure_channel: an OPN carrying another request gets Bad_TcpMessageTypeInvalid and a close", "[actors]") {
  server s;
  client c;
  REQUIRE(s.feed(c.hello(), at(0)) == std::vector{event::acknowledged});
  c.read(s.state);
  ua::asymmetric_security_header asym;
  asym.security_policy_uri = ua::ua_string(actors::security_policy_none_uri);
  CHECK(s.feed(c.chunks(ua::message_type::open, read_request(1), &asym), at(1)) == std::vector{event::close});
  check_error(c.read(s.state), status::bad_tcp_message_type_invalid);
}

TEST_CASE("secure_channel: a MSG for another channel gets Bad_TcpSecureChannelUnknown and a close", "[actors]") {
  server s;
  client c;
  open_channel(s, c);
  c.channel_id = channel_id + 1;
  CHECK(s.feed(c.msg(read_request(1)), at(1)) == std::vector{event::close});
  check_error(c.read(s.state), status::bad_tcp_secure_channel_unknown);
}

TEST_CASE("secure_channel: a MSG with an unknown token gets Bad_SecureChannelTokenUnknown and a close", "[actors]") {
  server s;
  client c;
  open_channel(s, c);
  c.token_id = 99;
  CHECK(s.feed(c.msg(read_request(1)), at(1)) == std::vector{event::close});
  check_error(c.read(s.state), status::bad_secure_channel_token_unknown);
}

TEST_CASE("secure_channel: a gap in sequence numbers gets Bad_SequenceNumberInvalid and a close", "[actors]") {
  server s;
  client c;
  open_channel(s, c);
  (void)c.sequence.next();  // one number skipped
  CHECK(s.feed(c.msg(read_request(1)), at(1)) == std::vector{event::close});
  check_error(c.read(s.state), status::bad_sequence_number_invalid);
}

TEST_CASE("secure_channel: a message over our MaxChunkCount gets Bad_TcpMessageTooLarge and a close", "[actors]") {
  auto cfg = config();
  cfg.limits.max_chunk_count = 2;
  server s(cfg);
  client c;
  open_channel(s, c);
  CHECK(c.limits.send_max_chunk_count == 2);
  c.limits.send_max_chunk_count = 0;  // a client that ignores the limit
  const auto wire = c.msg(read_request(10'000));
  const auto events = s.feed(wire, at(1));
  REQUIRE(!events.empty());
  CHECK(events.back() == event::close);
  check_error(c.read(s.state), status::bad_tcp_message_too_large);
}

TEST_CASE("secure_channel: a request in many chunks is assembled", "[actors]") {
  server s;
  client c;
  c.ours.receive_buffer_size = c.ours.send_buffer_size = 8192;
  open_channel(s, c);
  CHECK(c.limits.send_buffer_size == 8192);
  const auto req = read_request(2000);  // ~ 2000 * 13 bytes: several 8 KB chunks
  const auto wire = c.msg(req);
  const auto events = s.feed(wire, at(1));
  REQUIRE(events.size() > 2);
  CHECK(events.back() == event::request);
  for (std::size_t i = 0; i + 1 < events.size(); ++i) CHECK(events[i] == event::none);
  const auto* got = s.state.request().message->get_if<ua::read_request>();
  REQUIRE(got);
  CHECK(got->nodes_to_read == req.nodes_to_read);

  // And a response larger than the client's chunk size goes back in many chunks.
  ua::read_response resp;
  resp.response_header.request_handle = s.state.request().header->request_handle;
  resp.results.resize(2000);
  for (auto& r : resp.results) r.set_value(ua::variant(std::int32_t{42}));
  REQUIRE(s.state.send_response(s.state.request().request_id, resp) == status::good);
  const auto out = c.read(s.state);
  REQUIRE(out.size() == 1);
  CHECK(out[0].chunks > 1);
  REQUIRE(out[0].msg.get_if<ua::read_response>());
  CHECK(out[0].msg.get_if<ua::read_response>()->results == resp.results);
}

TEST_CASE("secure_channel: an aborted request is dropped and the channel stays up", "[actors]") {
  server s;
  client c;
  c.ours.receive_buffer_size = c.ours.send_buffer_size = 8192;
  open_channel(s, c);
  // The first chunk of a large message, then an abort chunk (§6.7.3).
  auto wire = c.msg(read_request(2000));
  ua::chunk_reader r(c.ours);
  test::bytes first;
  (void)r.put(wire, [&](const ua::chunk_view& v) {
    if (first.empty()) first.assign(v.bytes.begin(), v.bytes.end());
  });
  ua::byte_buffer abort;
  const ua::message_chunker chunker(c.limits, status::bad_request_too_large);
  // The abort chunk follows the first chunk's sequence number.
  ua::secure_chunk parsed;
  REQUIRE(ua::parse_secure_chunk(first, parsed) == status::good);
  ua::sequence_counter seq(true, parsed.sequence.sequence_number + 1);
  chunker.write_abort(status::bad_request_interrupted, "gave up",
                      {ua::message_type::message, c.channel_id, c.token_id, nullptr, c.last_request_id}, seq, abort);
  c.sequence = ua::sequence_counter(true, seq.peek());
  CHECK(s.feed(first, at(1)) == std::vector{event::none});
  CHECK(s.feed(abort.to_vector(), at(1)) == std::vector{event::none});
  CHECK(s.state.output().empty());
  CHECK(s.feed(c.msg(read_request(1)), at(2)) == std::vector{event::request});
}

TEST_CASE("secure_channel: an unknown service type gets a ServiceFault Bad_ServiceUnsupported and the channel stays up", "[actors]") {
  server s;
  client c;
  open_channel(s, c);
  // A response where a request belongs: a known type, but no service request.
  ua::read_response not_a_request;
  CHECK(s.feed(c.chunks(ua::message_type::message, not_a_request), at(1)) == std::vector{event::none});
  auto out = c.read(s.state);
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].msg.get_if<ua::service_fault>());
  CHECK(out[0].msg.get_if<ua::service_fault>()->response_header.service_result == status::bad_service_unsupported);
  CHECK(out[0].request_id == c.last_request_id);

  // An encoding id nobody knows, followed by a RequestHeader: the fault carries its handle.
  ua::byte_buffer body;
  ua::encoder e(body);
  ua::encode(e, ua::node_id(0, 999'999));
  ua::request_header header;
  header.request_handle = 4242;
  ua::encode(e, header);
  ua::byte_buffer wire;
  const ua::message_chunker chunker(c.limits, status::bad_request_too_large);
  REQUIRE(chunker.write(body.bytes(), {ua::message_type::message, c.channel_id, c.token_id, nullptr, 555}, c.sequence, wire));
  CHECK(s.feed(wire.to_vector(), at(2)) == std::vector{event::none});
  out = c.read(s.state);
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].msg.get_if<ua::service_fault>());
  CHECK(out[0].msg.get_if<ua::service_fault>()->response_header.service_result == status::bad_service_unsupported);
  CHECK(out[0].request_handle() == 4242);
  CHECK(out[0].request_id == 555);

  // The channel still serves.
  CHECK(s.feed(c.msg(read_request(1)), at(3)) == std::vector{event::request});
  CHECK(s.state.current_phase() == secure_channel_state::phase::open);
}

TEST_CASE("secure_channel: a request that fails to decode gets a ServiceFault when its header was read, else a close", "[actors]") {
  server s;
  client c;
  open_channel(s, c);
  const ua::message_chunker chunker(c.limits, status::bad_request_too_large);
  {
    // A ReadRequest cut after its header: Bad_DecodingError for that request.
    ua::read_request req = read_request(1);
    req.request_header.request_handle = 31;
    ua::byte_buffer body;
    ua::encoder e(body);
    ua::encode_message(e, req);
    const auto cut = body.bytes().first(body.size() - 6);
    ua::byte_buffer wire;
    REQUIRE(chunker.write(cut, {ua::message_type::message, c.channel_id, c.token_id, nullptr, 77}, c.sequence, wire));
    CHECK(s.feed(wire.to_vector(), at(1)) == std::vector{event::none});
    const auto out = c.read(s.state);
    REQUIRE(out.size() == 1);
    REQUIRE(out[0].msg.get_if<ua::service_fault>());
    CHECK(out[0].msg.get_if<ua::service_fault>()->response_header.service_result == status::bad_decoding_error);
    CHECK(out[0].request_handle() == 31);
    CHECK(out[0].request_id == 77);
  }
  {
    // A ReadRequest cut inside its header: nothing to answer, the connection closes.
    ua::byte_buffer body;
    ua::encoder e(body);
    ua::encode(e, ua::node_id(0, ua::read_request::binary_encoding_id));
    ua::encode(e, std::uint8_t{0});  // half a NodeId
    ua::byte_buffer wire;
    REQUIRE(chunker.write(body.bytes(), {ua::message_type::message, c.channel_id, c.token_id, nullptr, 78}, c.sequence, wire));
    CHECK(s.feed(wire.to_vector(), at(2)) == std::vector{event::close});
    check_error(c.read(s.state), status::bad_decoding_error);
  }
}

TEST_CASE("secure_channel: a response over the client's MaxMessageSize becomes a ServiceFault Bad_ResponseTooLarge", "[actors]") {
  server s;
  client c;
  c.ours.max_message_size = 8192;
  open_channel(s, c);
  REQUIRE(s.feed(c.msg(read_request(1)), at(1)) == std::vector{event::request});
  ua::read_response resp;
  resp.response_header.request_handle = s.state.request().header->request_handle;
  resp.results.resize(10'000);  // 10 KB of empty DataValues
  CHECK(s.state.send_response(s.state.request().request_id, resp) == status::bad_response_too_large);
  const auto out = c.read(s.state);
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].msg.get_if<ua::service_fault>());
  CHECK(out[0].msg.get_if<ua::service_fault>()->response_header.service_result == status::bad_response_too_large);
  CHECK(out[0].request_handle() == c.handle);
  CHECK(out[0].request_id == c.last_request_id);
  CHECK(!s.state.closed());
}

TEST_CASE("secure_channel: the Hello timeout closes a connection that never says Hello", "[actors]") {
  server s(config(), at(1000));
  CHECK_FALSE(s.state.hello_overdue(at(10'999).steady));
  CHECK(s.state.on_tick(at(10'999)) == event::none);
  CHECK(s.state.hello_overdue(at(11'000).steady));
  CHECK(s.state.on_tick(at(11'000)) == event::close);
  client c;
  check_error(c.read(s.state), status::bad_timeout);
}

TEST_CASE("secure_channel: a connection that says Hello but never opens a channel times out too", "[actors]") {
  server s;
  client c;
  REQUIRE(s.feed(c.hello(), at(5'000)) == std::vector{event::acknowledged});
  c.read(s.state);
  CHECK_FALSE(s.state.hello_overdue(at(20'000).steady));
  CHECK(s.state.on_tick(at(14'999)) == event::none);
  CHECK(s.state.on_tick(at(15'000)) == event::close);
  check_error(c.read(s.state), status::bad_timeout);
}

TEST_CASE("secure_channel: the requested token lifetime is revised into [10 s, 1 h]", "[actors]") {
  for (auto [requested, revised] : {std::pair<std::uint32_t, std::uint32_t>{0, 3'600'000}, {1'000, 10'000},
                                    {60'000, 60'000}, {36'000'000, 3'600'000}}) {
    INFO(requested);
    server s;
    client c;
    open_channel(s, c, requested);
    CHECK(s.state.current_token().revised_lifetime == revised);
  }
}

TEST_CASE("secure_channel: Renew gives a new token, the old one stays valid until it expires", "[actors]") {
  server s;
  client c;
  open_channel(s, c, 100'000);  // token 1: expires at 125 s (25 % grace)
  REQUIRE(s.feed(c.open(ua::security_token_request_type::renew, 100'000), at(75'000)) == std::vector{event::none});
  auto out = c.read(s.state);
  REQUIRE(out.size() == 1);
  const auto* renewed = out[0].msg.get_if<ua::open_secure_channel_response>();
  REQUIRE(renewed);
  CHECK(renewed->security_token.token_id == 2);
  CHECK(renewed->security_token.channel_id == channel_id);
  CHECK(renewed->security_token.created_at == at(75'000).utc);
  CHECK(s.state.current_token().token_id == 2);

  // A request still on the old token is served, and answered with the old token.
  c.token_id = 1;
  REQUIRE(s.feed(c.msg(read_request(1)), at(80'000)) == std::vector{event::request});
  ua::read_response resp;
  REQUIRE(s.state.send_response(s.state.request().request_id, resp) == status::good);
  out = c.read(s.state);
  REQUIRE(out.size() == 1);
  CHECK(out[0].token_id == 1);

  // Once the client uses the new token, so does the server (Part 4 §5.5.2.1).
  c.token_id = 2;
  REQUIRE(s.feed(c.msg(read_request(1)), at(90'000)) == std::vector{event::request});
  REQUIRE(s.state.send_response(s.state.request().request_id, resp) == status::good);
  out = c.read(s.state);
  REQUIRE(out.size() == 1);
  CHECK(out[0].token_id == 2);

  // The old token is still accepted before it expires...
  c.token_id = 1;
  REQUIRE(s.feed(c.msg(read_request(1)), at(124'999)) == std::vector{event::request});
  c.read(s.state);
  // ...and refused after.
  CHECK(s.feed(c.msg(read_request(1)), at(125'000)) == std::vector{event::close});
  check_error(c.read(s.state), status::bad_secure_channel_token_unknown);
}

namespace {

// A Read sent with `token`, answered: the token id the response went out with.
std::uint32_t answered_with(server& s, client& c, std::uint32_t token, std::int64_t ms) {
  c.token_id = token;
  REQUIRE(s.feed(c.msg(read_request(1)), at(ms)) == std::vector{event::request});
  ua::read_response resp;
  REQUIRE(s.state.send_response(s.state.request().request_id, resp) == status::good);
  const auto out = c.read(s.state);
  REQUIRE(out.size() == 1);
  return out[0].token_id;
}

void renew(server& s, client& c, std::uint32_t lifetime_ms, std::int64_t ms, std::uint32_t expected_token) {
  REQUIRE(s.feed(c.open(ua::security_token_request_type::renew, lifetime_ms), at(ms)) == std::vector{event::none});
  const auto out = c.read(s.state);
  REQUIRE(out.size() == 1);
  const auto* renewed = out[0].msg.get_if<ua::open_secure_channel_response>();
  REQUIRE(renewed);
  REQUIRE(renewed->security_token.token_id == expected_token);
}

}  // namespace

// docs/decisions/0024: Part 4 §5.5.2.1 (the server sends with the existing token until it expires
// or the client uses a new one) and Part 6 §6.7.4 (an old token is accepted until it expires).
TEST_CASE("secure_channel: two renewals without traffic keep every unexpired token and answer with the newest one used",
          "[actors]") {
  server s;
  client c;
  open_channel(s, c, 100'000);   // token 1: expires at 125 s
  renew(s, c, 100'000, 10'000, 2);  // token 2: 135 s
  renew(s, c, 100'000, 20'000, 3);  // token 3: 145 s
  CHECK(s.state.current_token().token_id == 3);
  // No message since: we still send with the token the client last had in use.
  CHECK(s.state.sending_token_id() == 1);

  SECTION("the client goes on with token 1, then 2, then 3") {
    CHECK(answered_with(s, c, 1, 30'000) == 1);
    CHECK(answered_with(s, c, 2, 40'000) == 2);  // a new token used: so do we
    CHECK(answered_with(s, c, 1, 50'000) == 2);  // still accepted, but we do not go back
    CHECK(answered_with(s, c, 3, 60'000) == 3);
    CHECK(answered_with(s, c, 2, 70'000) == 3);
  }
  SECTION("the client uses token 3 at once, tokens 1 and 2 stay accepted until they expire") {
    CHECK(answered_with(s, c, 3, 30'000) == 3);
    CHECK(answered_with(s, c, 2, 40'000) == 3);
    CHECK(answered_with(s, c, 1, 124'999) == 3);
    c.token_id = 1;
    CHECK(s.feed(c.msg(read_request(1)), at(125'000)) == std::vector{event::close});
    check_error(c.read(s.state), status::bad_secure_channel_token_unknown);
  }
  SECTION("token 2 is accepted until it expires, then refused, while token 3 goes on") {
    CHECK(answered_with(s, c, 2, 100'000) == 2);
    CHECK(answered_with(s, c, 2, 134'999) == 2);
    CHECK(answered_with(s, c, 3, 135'000) == 3);
    c.token_id = 2;
    CHECK(s.feed(c.msg(read_request(1)), at(135'000)) == std::vector{event::close});
    check_error(c.read(s.state), status::bad_secure_channel_token_unknown);
  }
  SECTION("the token we send with expires: the current one takes over") {
    CHECK(s.state.on_tick(at(124'999)) == event::none);
    CHECK(s.state.sending_token_id() == 1);
    CHECK(s.state.on_tick(at(125'000)) == event::none);
    CHECK(s.state.sending_token_id() == 3);
    CHECK(answered_with(s, c, 2, 130'000) == 3);
  }
}

TEST_CASE("secure_channel: a third renewal without traffic drops the oldest token and sends with the oldest one kept",
          "[actors]") {
  server s;
  client c;
  open_channel(s, c, 100'000);
  renew(s, c, 100'000, 10'000, 2);
  renew(s, c, 100'000, 20'000, 3);
  renew(s, c, 100'000, 30'000, 4);
  // Three kept (4, 3, 2): token 1 has no keys any more, so nothing goes out with it.
  CHECK(s.state.sending_token_id() == 2);
  CHECK(answered_with(s, c, 2, 40'000) == 2);
  CHECK(answered_with(s, c, 4, 50'000) == 4);
  c.token_id = 1;
  CHECK(s.feed(c.msg(read_request(1)), at(60'000)) == std::vector{event::close});
  check_error(c.read(s.state), status::bad_secure_channel_token_unknown);
}

TEST_CASE("secure_channel: a token that expired without a renewal closes the channel", "[actors]") {
  SECTION("on the tick") {
    server s;
    client c;
    open_channel(s, c, 100'000);
    CHECK_FALSE(s.state.token_expired(at(124'999).steady));
    CHECK(s.state.on_tick(at(124'999)) == event::none);
    CHECK(s.state.token_expired(at(125'000).steady));
    CHECK(s.state.on_tick(at(125'000)) == event::close);
    check_error(c.read(s.state), status::bad_secure_channel_token_unknown);
  }
  SECTION("on a request") {
    server s;
    client c;
    open_channel(s, c, 100'000);
    CHECK(s.feed(c.msg(read_request(1)), at(130'000)) == std::vector{event::close});
    check_error(c.read(s.state), status::bad_secure_channel_token_unknown);
  }
}

TEST_CASE("secure_channel: a MSG request and its response allocate nothing in steady state", "[actors]") {
  if (!uactor::test::counts_allocations) {
    WARN("skipped: allocations are not counted in a sanitizer build");
    return;
  }
  server s;
  client c;
  open_channel(s, c);
  ua::read_request req = read_request(10);
  req.request_header.authentication_token = ua::node_id::guid_id(1, ua::guid{1, 2, 3, {4, 5, 6, 7, 8, 9, 10, 11}});
  std::vector<test::bytes> wires;
  for (int i = 0; i < 8; ++i) wires.push_back(c.msg(req));
  ua::read_response resp;
  resp.results.resize(10);
  for (auto& r : resp.results) r.set_value(ua::variant(3.25));

  ua::chunk_reader& reader = s.reader;
  std::size_t served = 0;
  auto serve = [&](const test::bytes& wire) {
    (void)reader.put(wire, [&](const ua::chunk_view& v) {
      if (s.state.on_chunk(v, at(1)) != event::request) return;
      resp.response_header.request_handle = s.state.request().header->request_handle;
      (void)s.state.send_response(s.state.request().request_id, resp);
      ++served;
    });
    s.state.clear_output();
  };
  serve(wires[0]);  // warm-up: buffers and the decoded request take their shape
  serve(wires[1]);
  test::alloc_scope scope;
  for (std::size_t i = 2; i < wires.size(); ++i) serve(wires[i]);
  CHECK(scope.counted().allocations == 0);
  CHECK(served == wires.size());
}

TEST_CASE("secure_channel: with a session_manager, CreateSession, ActivateSession, Read, CloseSession end to end", "[actors]") {
  server s;
  client c;
  open_channel(s, c);

  actors::session_config sc;
  std::uint8_t counter = 0;
  sc.random = [&](std::span<std::uint8_t> out) { for (auto& b : out) b = ++counter; };
  ua::endpoint_description ep;
  ep.endpoint_url = "opc.tcp://localhost:4840";
  ep.security_policy_uri = ua::ua_string(actors::security_policy_none_uri);
  ep.security_mode = ua::message_security_mode::none;
  ua::user_token_policy anonymous;
  anonymous.policy_id = "anonymous";
  anonymous.token_type = ua::user_token_type::anonymous;
  ep.user_identity_tokens.push_back(anonymous);
  sc.endpoints.push_back(ep);
  actors::session_manager sessions(sc);

  // One request through channel and session manager; answers what the manager answers.
  auto round_trip = [&](const test::bytes& wire, const actors::instant& now) {
    REQUIRE(s.feed(wire, now) == std::vector{event::request});
    const auto routed = sessions.route(s.state.request(), now);
    if (routed.what == actors::session_manager::routed::action::respond)
      REQUIRE(s.state.send_response(s.state.request().request_id, *routed.response) == status::good);
    return routed;
  };

  ua::create_session_request create;
  create.requested_session_timeout = 30'000;
  auto routed = round_trip(c.msg(create), at(10));
  REQUIRE(routed.what == actors::session_manager::routed::action::respond);
  auto out = c.read(s.state);
  REQUIRE(out.size() == 1);
  const auto* created = out[0].msg.get_if<ua::create_session_response>();
  REQUIRE(created);
  CHECK(created->response_header.service_result == status::good);
  CHECK(created->response_header.request_handle == c.handle);
  CHECK(created->server_endpoints.size() == 1);
  const ua::node_id token = created->authentication_token;
  const ua::node_id session_id = created->session_id;  // `out` is reused below

  ua::activate_session_request activate;
  activate.request_header.authentication_token = token;
  activate.user_identity_token = ua::extension_object(ua::anonymous_identity_token{"anonymous"});
  round_trip(c.msg(activate), at(20));
  out = c.read(s.state);
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].msg.get_if<ua::activate_session_response>());
  CHECK(out[0].msg.get_if<ua::activate_session_response>()->response_header.service_result == status::good);

  auto read = read_request(1);
  read.request_header.authentication_token = token;
  routed = round_trip(c.msg(read), at(30));
  REQUIRE(routed.what == actors::session_manager::routed::action::dispatch);
  REQUIRE(routed.target);
  CHECK(routed.target->session_id == session_id);

  ua::close_session_request close;
  close.request_header.authentication_token = token;
  routed = round_trip(c.msg(close), at(40));
  REQUIRE(routed.closed);
  out = c.read(s.state);
  REQUIRE(out.size() == 1);
  CHECK(out[0].msg.get_if<ua::close_session_response>());
  CHECK(sessions.size() == 0);

  CHECK(s.feed(c.clo(), at(50)) == std::vector{event::close});
}

TEST_CASE("secure_channel: a conversation split at any byte gives the same answers and requests", "[actors]") {
  client c;
  test::bytes wire = c.hello();
  const auto opn = c.open();
  wire.insert(wire.end(), opn.begin(), opn.end());
  c.channel_id = channel_id;
  c.token_id = 1;
  const auto msg = c.msg(read_request(3));
  wire.insert(wire.end(), msg.begin(), msg.end());
  const auto clo = c.clo();
  wire.insert(wire.end(), clo.begin(), clo.end());

  const std::vector expected{event::acknowledged, event::none, event::request, event::close};
  for (std::size_t cut = 1; cut < wire.size(); ++cut) {
    INFO("cut at " << cut);
    server s;
    std::vector<event> events;
    auto put = [&](std::span<const std::uint8_t> in) {
      const auto used = s.reader.put(in, [&](const ua::chunk_view& v) {
        const auto ev = s.state.on_chunk(v, at(1));
        events.push_back(ev);
        if (ev == event::acknowledged) s.reader.set_receive_buffer_size(s.state.limits().receive_buffer_size);
      });
      REQUIRE(used.has_value());
      return *used;
    };
    const std::span<const std::uint8_t> all(wire);
    const std::size_t used = put(all.first(cut));
    REQUIRE(put(all.subspan(used)) == wire.size() - used);  // what was left, then the rest
    CHECK(events == expected);
  }
}

}  // namespace server_secure_channel_state_test
