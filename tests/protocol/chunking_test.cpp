// message_chunker and message_assembler together (Part 6 §6.7.2, §6.7.3): messages around chunk
// boundaries survive the trip through chunk_reader, limits are refused on both sides, abort chunks
// and sequence gaps.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "protocol/chunk_reader.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "protocol/message.hpp"
#include "protocol/message_assembler.hpp"
#include "protocol/message_chunker.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/bytes.hpp"

using namespace uactor;
namespace status = ua::status;

namespace {

constexpr ua::chunk_target msg_target{ua::message_type::message, 7, 3, nullptr, 42};

ua::connection_limits limits(std::uint32_t chunk_size = 8192, std::uint32_t max_message = 0, std::uint32_t max_chunks = 0) {
  ua::connection_limits l;
  l.send_buffer_size = l.receive_buffer_size = chunk_size;
  l.send_max_message_size = l.receive_max_message_size = max_message;
  l.send_max_chunk_count = l.receive_max_chunk_count = max_chunks;
  return l;
}

test::bytes pattern(std::size_t n) {
  test::bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(i * 31 + 7);
  return b;
}

struct trip {
  std::size_t chunks = 0;
  std::vector<ua::message_assembler::result> results;
  std::vector<test::bytes> bodies;  // copies of complete bodies
  std::vector<std::uint32_t> sizes;
  std::vector<ua::chunk_type> types;
  ua::status_code error;
};

// Sends the bytes through a chunk_reader (as one recv) and an assembler.
trip receive(std::span<const std::uint8_t> wire, ua::message_assembler& assembler, std::uint32_t chunk_limit = 8192) {
  trip t;
  ua::transport_limits tl;
  tl.receive_buffer_size = chunk_limit;
  ua::chunk_reader reader(tl);
  const auto used = reader.put(wire, [&](const ua::chunk_view& v) -> ua::status_code {
    ++t.chunks;
    t.sizes.push_back(static_cast<std::uint32_t>(v.bytes.size()));
    t.types.push_back(v.chunk);
    ua::secure_chunk c;
    if (const auto sc = ua::parse_secure_chunk(v.bytes, c); sc.is_bad()) return sc;
    const auto r = assembler.add(c);
    if (!r) return r.error();
    t.results.push_back(*r);
    if (r->what == ua::message_assembler::outcome::complete) t.bodies.emplace_back(r->body.begin(), r->body.end());
    return status::good;
  });
  if (!used) t.error = used.error();
  else CHECK(*used == wire.size());
  return t;
}

}  // namespace

TEST_CASE("chunking: messages around chunk boundaries survive chunker, reader and assembler", "[protocol]") {
  const auto l = limits();
  const ua::message_chunker chunker(l, status::bad_request_too_large);
  const std::size_t per = chunker.max_body_per_chunk(msg_target);
  CHECK(per == 8192 - 24);
  struct size_case {
    std::size_t size;
    std::size_t chunks;
  };
  const size_case cases[] = {{0, 1},           {1, 1},           {per - 1, 1},      {per, 1},
                             {per + 1, 2},     {2 * per, 2},     {10 * per - 1, 10}, {10 * per, 10},
                             {10 * per + 1, 11}};
  ua::sequence_counter seq;
  ua::message_assembler assembler(l);
  ua::byte_buffer wire;
  std::uint32_t expected_sequence = 1;
  for (const auto& sc : cases) {
    INFO("body of " << sc.size << " bytes");
    const auto body = pattern(sc.size);
    wire.clear();
    const auto n = chunker.write(body, msg_target, seq, wire);
    REQUIRE(n.has_value());
    CHECK(*n == sc.chunks);
    const auto t = receive(wire.bytes(), assembler);
    REQUIRE(t.error == status::good);
    REQUIRE(t.chunks == sc.chunks);
    for (std::size_t i = 0; i < t.chunks; ++i) {
      CHECK(t.sizes[i] <= 8192);
      CHECK(t.types[i] == (i + 1 == t.chunks ? ua::chunk_type::final_chunk : ua::chunk_type::intermediate));
      if (i + 1 < t.chunks) CHECK(t.sizes[i] == 8192);  // all but the last chunk are full
    }
    REQUIRE(t.bodies.size() == 1);
    CHECK(t.bodies[0] == body);
    CHECK(t.results.back().request_id == 42);
    expected_sequence += static_cast<std::uint32_t>(sc.chunks);
    CHECK(seq.peek() == expected_sequence);
  }
}

TEST_CASE("chunking: a ReadRequest split into chunks decodes after assembly", "[protocol]") {
  ua::read_request req;
  req.request_header.request_handle = 77;
  req.max_age = 100;
  for (std::uint32_t i = 0; i < 3000; ++i) {
    ua::read_value_id id;
    id.node_id = ua::node_id{1, i};
    id.attribute_id = 13;
    req.nodes_to_read.push_back(id);
  }
  ua::byte_buffer encoded;
  ua::encoder e(encoded);
  ua::encode_message(e, req);
  REQUIRE(encoded.size() > 3 * 8192);

  const auto l = limits();
  const ua::message_chunker chunker(l, status::bad_request_too_large);
  ua::sequence_counter seq;
  ua::byte_buffer wire;
  const auto n = chunker.write(encoded.bytes(), msg_target, seq, wire);
  REQUIRE(n.has_value());
  CHECK(*n > 3);

  ua::message_assembler assembler(l);
  const auto t = receive(wire.bytes(), assembler);
  REQUIRE(t.bodies.size() == 1);
  ua::extension_object msg;
  REQUIRE(ua::decode_message(t.bodies[0], msg) == status::good);
  const auto* back = msg.get_if<ua::read_request>();
  REQUIRE(back != nullptr);
  CHECK(*back == req);
}

TEST_CASE("chunking: the sender refuses a message over the peer's MaxChunkCount", "[protocol]") {
  const auto l = limits(8192, 0, 3);
  ua::message_chunker client(l, status::bad_request_too_large);
  ua::message_chunker server(l, status::bad_response_too_large);
  const std::size_t per = client.max_body_per_chunk(msg_target);
  ua::sequence_counter seq;
  ua::byte_buffer wire;
  CHECK(client.write(pattern(3 * per), msg_target, seq, wire).value() == 3);
  const auto sequence_before = seq.peek();
  const auto size_before = wire.size();
  CHECK(client.write(pattern(3 * per + 1), msg_target, seq, wire).error() == status::bad_request_too_large);
  CHECK(server.write(pattern(3 * per + 1), msg_target, seq, wire).error() == status::bad_response_too_large);
  CHECK(seq.peek() == sequence_before);  // no number taken
  CHECK(wire.size() == size_before);     // nothing written
}

TEST_CASE("chunking: the sender refuses a message over the peer's MaxMessageSize", "[protocol]") {
  const auto l = limits(8192, 20000, 0);
  ua::message_chunker client(l, status::bad_request_too_large);
  ua::message_chunker server(l, status::bad_response_too_large);
  ua::sequence_counter seq;
  ua::byte_buffer wire;
  CHECK(client.write(pattern(20000), msg_target, seq, wire).has_value());
  CHECK(client.write(pattern(20001), msg_target, seq, wire).error() == status::bad_request_too_large);
  CHECK(server.write(pattern(20001), msg_target, seq, wire).error() == status::bad_response_too_large);
}

TEST_CASE("chunking: OPN and CLO must fit one chunk", "[protocol]") {
  const auto l = limits();
  ua::message_chunker chunker(l, status::bad_request_too_large);
  ua::sequence_counter seq;
  ua::byte_buffer wire;
  ua::chunk_target opn{ua::message_type::open, 0, 0, nullptr, 1};
  CHECK(chunker.write(pattern(8000), opn, seq, wire).value() == 1);
  CHECK(chunker.write(pattern(9000), opn, seq, wire).error() == status::bad_request_too_large);
  ua::chunk_target clo{ua::message_type::close, 7, 3, nullptr, 2};
  CHECK(chunker.write(pattern(9000), clo, seq, wire).error() == status::bad_request_too_large);
}

TEST_CASE("chunking: the receiver refuses more chunks than its MaxChunkCount with Bad_TcpMessageTooLarge", "[protocol]") {
  ua::message_chunker peer(limits(8192, 0, 0), status::bad_request_too_large);  // a peer ignoring our limit
  ua::sequence_counter seq;
  ua::byte_buffer wire;
  const std::size_t per = peer.max_body_per_chunk(msg_target);
  REQUIRE(peer.write(pattern(3 * per + 1), msg_target, seq, wire).value() == 4);
  ua::message_assembler assembler(0, 3);
  const auto t = receive(wire.bytes(), assembler);
  CHECK(t.error == status::bad_tcp_message_too_large);
  CHECK(t.chunks == 3);  // refused at the third intermediate chunk: a final one must follow
  CHECK_FALSE(assembler.collecting());

  // Exactly MaxChunkCount chunks are fine.
  wire.clear();
  ua::sequence_counter seq2;
  REQUIRE(peer.write(pattern(3 * per), msg_target, seq2, wire).value() == 3);
  ua::message_assembler ok(0, 3);
  const auto t2 = receive(wire.bytes(), ok);
  CHECK(t2.error == status::good);
  REQUIRE(t2.bodies.size() == 1);
  CHECK(t2.bodies[0] == pattern(3 * per));
}

TEST_CASE("chunking: the receiver refuses more bytes than its MaxMessageSize with Bad_TcpMessageTooLarge", "[protocol]") {
  ua::message_chunker peer(limits(), status::bad_request_too_large);
  ua::sequence_counter seq;
  ua::byte_buffer wire;
  REQUIRE(peer.write(pattern(20001), msg_target, seq, wire).has_value());
  ua::message_assembler assembler(20000, 0);
  CHECK(receive(wire.bytes(), assembler).error == status::bad_tcp_message_too_large);

  wire.clear();
  ua::sequence_counter seq2;
  REQUIRE(peer.write(pattern(20000), msg_target, seq2, wire).has_value());
  ua::message_assembler ok(20000, 0);
  const auto t = receive(wire.bytes(), ok);
  CHECK(t.error == status::good);
  CHECK(t.bodies.size() == 1);
  // A single chunk over the limit is refused too (the fast path checks the same way).
  wire.clear();
  ua::sequence_counter seq3;
  REQUIRE(peer.write(pattern(101), msg_target, seq3, wire).has_value());
  ua::message_assembler small(100, 0);
  CHECK(receive(wire.bytes(), small).error == status::bad_tcp_message_too_large);
}

TEST_CASE("chunking: an abort chunk drops what was collected and reports Error and Reason", "[protocol]") {
  const auto l = limits();
  ua::message_chunker chunker(l, status::bad_response_too_large);
  const std::size_t per = chunker.max_body_per_chunk(msg_target);
  ua::sequence_counter seq;
  ua::byte_buffer wire;
  // The first two chunks of a message, then the sender gives up on it (§6.7.3).
  REQUIRE(chunker.write(pattern(3 * per), msg_target, seq, wire).value() == 3);
  wire.extend(0);
  std::uint32_t first_two = 0;
  for (int i = 0; i < 2; ++i) {
    std::uint32_t size;
    std::memcpy(&size, wire.data() + first_two + 4, 4);
    first_two += size;
  }
  ua::byte_buffer stream;
  stream.append(wire.data(), first_two);
  ua::sequence_counter seq2;  // renumber: the third chunk was never sent
  for (int i = 0; i < 2; ++i) seq2.next();
  chunker.write_abort(status::bad_response_too_large, "response too large", msg_target, seq2, stream);
  // Then a next message of another request on the same channel.
  ua::chunk_target next = msg_target;
  next.request_id = 43;
  REQUIRE(chunker.write(pattern(10), next, seq2, stream).has_value());

  ua::message_assembler assembler(l);
  const auto t = receive(stream.bytes(), assembler);
  REQUIRE(t.error == status::good);
  REQUIRE(t.results.size() == 4);
  CHECK(t.results[2].what == ua::message_assembler::outcome::aborted);
  CHECK(t.results[2].request_id == 42);
  CHECK(t.results[2].abort_error == status::bad_response_too_large);
  CHECK(t.results[2].abort_reason == "response too large");
  CHECK(t.types[2] == ua::chunk_type::abort);
  REQUIRE(t.bodies.size() == 1);
  CHECK(t.bodies[0] == pattern(10));
  CHECK(t.results[3].request_id == 43);
}

TEST_CASE("chunking: an abort reason over 4096 bytes is cut by the sender", "[protocol]") {
  ua::message_chunker chunker(limits(), status::bad_request_too_large);
  ua::sequence_counter seq;
  ua::byte_buffer wire;
  chunker.write_abort(status::bad_request_too_large, std::string(10000, 'r'), msg_target, seq, wire);
  ua::message_assembler assembler(limits());
  const auto t = receive(wire.bytes(), assembler);
  REQUIRE(t.results.size() == 1);
  CHECK(t.results[0].what == ua::message_assembler::outcome::aborted);
  CHECK(t.results[0].abort_reason.size() == 4096);
}

TEST_CASE("chunking: a sequence number gap gets Bad_SequenceNumberInvalid", "[protocol]") {
  ua::message_chunker chunker(limits(), status::bad_request_too_large);
  ua::sequence_counter seq;
  ua::byte_buffer a;
  ua::byte_buffer b;
  REQUIRE(chunker.write(pattern(10), msg_target, seq, a).has_value());  // number 1
  seq.next();                                                            // number 2 is lost
  REQUIRE(chunker.write(pattern(10), msg_target, seq, b).has_value());  // number 3
  ua::message_assembler assembler(limits());
  CHECK(receive(a.bytes(), assembler).error == status::good);
  CHECK(receive(b.bytes(), assembler).error == status::bad_sequence_number_invalid);
}

TEST_CASE("chunking: a chunk of another request while one is collected is refused", "[protocol]") {
  ua::message_chunker chunker(limits(), status::bad_request_too_large);
  const std::size_t per = chunker.max_body_per_chunk(msg_target);
  ua::sequence_counter seq;
  ua::byte_buffer wire;
  REQUIRE(chunker.write(pattern(2 * per), msg_target, seq, wire).has_value());
  // Keep the first (C) chunk only, then a complete message of request 43.
  ua::byte_buffer stream;
  stream.append(wire.data(), 8192);
  ua::sequence_counter seq2;
  seq2.next();
  ua::chunk_target other = msg_target;
  other.request_id = 43;
  REQUIRE(chunker.write(pattern(5), other, seq2, stream).has_value());
  ua::message_assembler assembler(limits());
  CHECK(receive(stream.bytes(), assembler).error == status::bad_decoding_error);
}

TEST_CASE("chunking: chunker and assembler allocate nothing once their buffers have grown", "[protocol]") {
  if (!test::counts_allocations) { WARN("skipped: allocations are not counted in a sanitizer build"); return; }
  const auto l = limits();
  ua::message_chunker chunker(l, status::bad_request_too_large);
  ua::message_assembler assembler(l);
  ua::sequence_counter seq;
  ua::byte_buffer wire;
  const auto body = pattern(5 * 8192);
  auto once = [&] {
    wire.clear();
    REQUIRE(chunker.write(body, msg_target, seq, wire).has_value());
    std::size_t at = 0;
    std::size_t complete = 0;
    while (at < wire.size()) {
      std::uint32_t size;
      std::memcpy(&size, wire.data() + at + 4, 4);
      ua::secure_chunk c;
      REQUIRE(ua::parse_secure_chunk(wire.bytes().subspan(at, size), c) == status::good);
      const auto r = assembler.add(c);
      REQUIRE(r.has_value());
      if (r->what == ua::message_assembler::outcome::complete) complete = r->body.size();
      at += size;
    }
    CHECK(complete == body.size());
  };
  once();
  test::alloc_scope scope;
  once();
  once();
  CHECK(scope.counted().allocations == 0);
}

TEST_CASE("chunking: a chunked message split at any byte assembles to the same body", "[protocol]") {
  const auto l = limits();
  const ua::message_chunker chunker(l, status::bad_request_too_large);
  const std::size_t per = chunker.max_body_per_chunk(msg_target);
  const auto body = pattern(2 * per + 100);
  ua::sequence_counter seq;
  ua::byte_buffer wire;
  REQUIRE(chunker.write(body, msg_target, seq, wire).value() == 3);
  const auto stream = wire.to_vector();
  for (std::size_t cut = 1; cut < stream.size(); ++cut) {
    INFO("cut at " << cut);
    ua::chunk_reader reader(ua::transport_limits{});
    ua::message_assembler assembler(l);
    std::vector<test::bytes> bodies;
    auto on = [&](const ua::chunk_view& v) -> ua::status_code {
      ua::secure_chunk c;
      if (const auto sc = ua::parse_secure_chunk(v.bytes, c); sc.is_bad()) return sc;
      const auto r = assembler.add(c);
      if (!r) return r.error();
      if (r->what == ua::message_assembler::outcome::complete) bodies.emplace_back(r->body.begin(), r->body.end());
      return status::good;
    };
    test::bytes pending(stream.begin(), stream.begin() + static_cast<std::ptrdiff_t>(cut));
    auto used = reader.put(pending, on);
    REQUIRE(used.has_value());
    pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(*used));
    pending.insert(pending.end(), stream.begin() + static_cast<std::ptrdiff_t>(cut), stream.end());
    used = reader.put(pending, on);
    REQUIRE(used.has_value());
    CHECK(*used == pending.size());
    REQUIRE(bodies.size() == 1);
    CHECK(bodies[0] == body);
  }
}

TEST_CASE("chunking: random chunks never crash reader, parser or assembler", "[protocol]") {
  // Plausible headers (known types, sizes within the limit) over random contents: every stage
  // must answer with a status, never read outside its input (the sanitizer build checks).
  std::uint32_t state = 12345;
  auto rnd = [&] { state = state * 1664525u + 1013904223u; return state >> 8; };
  const char* types[] = {"MSGF", "MSGC", "MSGA", "OPNF", "CLOF"};
  for (int round = 0; round < 300; ++round) {
    test::bytes stream;
    for (int k = 0; k < 4; ++k) {
      const std::uint32_t size = 8 + rnd() % 120;
      test::bytes c(size);
      for (auto& b : c) b = static_cast<std::uint8_t>(rnd());
      std::memcpy(c.data(), types[rnd() % 5], 4);
      std::memcpy(c.data() + 4, &size, 4);
      if (size >= 24 && rnd() % 2) {  // often a small, plausible length for strings and padding
        const std::int32_t small = static_cast<std::int32_t>(rnd() % 8) - 1;
        std::memcpy(c.data() + 12, &small, 4);
      }
      stream.insert(stream.end(), c.begin(), c.end());
    }
    ua::chunk_reader reader(ua::transport_limits{});
    ua::message_assembler assembler(1000, 3);
    const ua::chunk_security padded{16, 16, 16, true, true};
    const auto used = reader.put(stream, [&](const ua::chunk_view& v) -> ua::status_code {
      ua::secure_chunk c;
      ua::asymmetric_security_header a;
      const auto at = ua::parse_security_part(v.bytes, c, &a);
      if (!at) return at.error();
      ua::secure_chunk p = c;
      (void)ua::parse_sequence_part(v.bytes.subspan(*at), padded, p);
      if (const auto sc = ua::parse_sequence_part(v.bytes.subspan(*at), ua::chunk_security::none(), c); sc.is_bad()) return sc;
      const auto r = assembler.add(c);
      return r ? ua::status_code{} : r.error();
    });
    if (used) CHECK(*used <= stream.size());
  }
}
