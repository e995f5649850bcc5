// Part 14 §7.2.4.4.4 (1.05) chunk NetworkMessages and §7.2.4.5.3 several NetworkMessages per
// PublishingInterval: what the writer emits against byte vectors written out here from Tables 141
// and 142 (the chunked payload header and fields) and the NetworkMessage header (Table 154,
// ExtendedFlags2 bit 0), the reader's parse, and the reassembly's bounds (TotalSize past the
// limit, lying TotalSize / ChunkOffset / chunk sizes, payloads in flight, the timeout).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "pubsub/uadp_chunks.hpp"
#include "pubsub/uadp_messages.hpp"
#include "pubsub/writer_group.hpp"
#include "uactor/ua/status_codes.hpp"

namespace pubsub_uadp_chunks_test {

using namespace uactor;
using namespace uactor::pubsub;

using bytes = std::vector<std::uint8_t>;

struct vec {
  bytes b;
  vec& u8(std::uint8_t v) { b.push_back(v); return *this; }
  vec& u16(std::uint16_t v) { return u8(v & 0xFF).u8(v >> 8); }
  vec& u32(std::uint32_t v) { return u16(v & 0xFFFF).u16(v >> 16); }
  vec& u64(std::uint64_t v) { return u32(static_cast<std::uint32_t>(v)).u32(static_cast<std::uint32_t>(v >> 32)); }
  vec& f64(double d) { std::uint64_t v; std::memcpy(&v, &d, 8); return u64(v); }
  vec& text(const std::string& s) { b.insert(b.end(), s.begin(), s.end()); return *this; }
  vec& append(const bytes& x, std::size_t from, std::size_t n) {
    b.insert(b.end(), x.begin() + static_cast<std::ptrdiff_t>(from), x.begin() + static_cast<std::ptrdiff_t>(from + n));
    return *this;
  }
};

ua::data_value dv(ua::variant v) {
  ua::data_value d;
  d.set_value(std::move(v));
  return d;
}

constexpr ua::date_time t0 = ua::date_time::from_unix_ms(1796375411500);

// A writer group (WriterGroupId 7, PublisherId String "P") of writers with `fields` Double fields each.
writer_group_state make_group(std::initializer_list<std::uint16_t> ids, std::size_t fields, field_encoding e = field_encoding::variant) {
  writer_group_config g;
  g.name = "G";
  g.id = 7;
  std::vector<resolved_writer> ws;
  for (const auto id : ids) {
    resolved_writer w;
    w.config.name = "W" + std::to_string(id);
    w.config.id = id;
    w.config.key_frame_count = 1;
    w.config.encoding = e;
    for (std::size_t f = 0; f < fields; ++f) w.fields.push_back({"F" + std::to_string(f), ua::builtin_type::double_, -1, {}});
    ws.push_back(std::move(w));
  }
  return writer_group_state("P", g, ws, "run", message_encoding::uadp, publisher_id_type::string);
}

bytes as_bytes(std::string_view m) { return bytes(m.begin(), m.end()); }

// A key frame DataSetMessage of Variant Doubles (Table 162 header as the writer fills it, Table 163).
bytes key_frame(std::uint16_t sequence, std::initializer_list<double> values) {
  vec v;
  v.u8(0x01 | 0x08 | 0x10 | 0x20 | 0x40 | 0x80).u8(0x00 | 0x10);
  v.u16(sequence).u64(static_cast<std::uint64_t>(t0.ticks)).u16(0).u32(1).u32(0);
  v.u16(static_cast<std::uint16_t>(values.size()));
  for (double d : values) v.u8(11).f64(d);
  return v.b;
}

// Table 154 with ExtendedFlags1 (String PublisherId, ExtendedFlags2 on) and ExtendedFlags2 (bit 0:
// chunk), the GroupHeader, the chunked payload header (Table 141) and fields (Table 142).
vec chunk_message(std::uint16_t number, std::uint16_t group_sequence, std::uint16_t writer, std::uint16_t dsm_sequence,
                  std::uint32_t offset, std::uint32_t total, const bytes& data, std::size_t from, std::size_t n) {
  vec v;
  v.u8(0xF1).u8(0x84).u8(0x01).u32(1).text("P");
  v.u8(0x0F).u16(7).u32(1).u16(number).u16(group_sequence);
  v.u16(writer);
  v.u16(dsm_sequence).u32(offset).u32(total).u32(static_cast<std::uint32_t>(n)).append(data, from, n);
  return v;
}

TEST_CASE("pubsub uadp chunks: a DataSetMessage larger than the limit goes as chunks, byte by byte", "[pubsub]") {
  auto g = make_group({5}, 3);
  g.set(0, 0, dv(1.5));
  g.set(0, 1, dv(2.5));
  g.set(0, 2, dv(-4.0));
  // The chunk header with PublisherId "P": 3 + 5 + 11 + 2 + 14 = 35 bytes; 20 bytes of ChunkData each.
  g.set_message_limit(55);
  const auto res = g.cycle(t0);
  const auto dsm = key_frame(1, {1.5, 2.5, -4.0});
  REQUIRE(dsm.size() == 51);
  REQUIRE(res.messages.size() == 3);
  CHECK(as_bytes(res.messages[0]) == chunk_message(1, 1, 5, 1, 0, 51, dsm, 0, 20).b);
  CHECK(as_bytes(res.messages[1]) == chunk_message(2, 2, 5, 1, 20, 51, dsm, 20, 20).b);
  CHECK(as_bytes(res.messages[2]) == chunk_message(3, 3, 5, 1, 40, 51, dsm, 40, 11).b);
  for (const auto m : res.messages) CHECK(m.size() <= 55);
  CHECK(res.values == 3);
  // The next cycle goes on numbering the GroupHeader's SequenceNumber; NetworkMessageNumber starts again.
  const auto next = g.cycle(ua::date_time{t0.ticks + 1});
  REQUIRE(next.messages.size() == 3);
  const auto b = as_bytes(next.messages[0]);
  CHECK(b[15] == 1);   // NetworkMessageNumber 1
  CHECK(b[17] == 4);   // SequenceNumber 4
  CHECK(b[21] == 2);   // MessageSequenceNumber: the DataSetMessage's, 2
}

TEST_CASE("pubsub uadp chunks: DataSetMessages that do not fit one NetworkMessage go in several, numbered", "[pubsub]") {
  auto g = make_group({1, 2, 3}, 2);
  for (std::size_t w = 0; w < 3; ++w) {
    g.set(w, 0, dv(1.0 * static_cast<double>(w)));
    g.set(w, 1, dv(2.0));
  }
  // A DataSetMessage is 22 + 2 + 2 * 9 = 42 bytes; the header of two with their Sizes 18 + 5 + 4 = 27.
  g.set_message_limit(27 + 84);
  const auto res = g.cycle(t0);
  REQUIRE(res.messages.size() == 2);
  uadp_network_message n;
  uadp_error e;
  const auto first = as_bytes(res.messages[0]);
  REQUIRE(read_uadp_network_message(first, {}, n, e));
  CHECK(n.network_message_number == 1);
  CHECK(n.sequence_number == 1);
  REQUIRE(n.messages.size() == 2);
  CHECK(n.messages[0].writer_id == 1);
  CHECK(n.messages[1].writer_id == 2);
  const auto second = as_bytes(res.messages[1]);  // the DataSetMessages' spans point into it
  REQUIRE(read_uadp_network_message(second, {}, n, e));
  CHECK(n.network_message_number == 2);
  CHECK(n.sequence_number == 2);
  REQUIRE(n.messages.size() == 1);
  CHECK(n.messages[0].writer_id == 3);
  std::vector<decoded_field> fields;
  REQUIRE(read_uadp_fields(n.messages[0], {}, {}, fields, e));
  REQUIRE(fields.size() == 2);
  CHECK(fields[0].value.value == ua::variant(2.0));
  // Without a limit (1 MiB) it is the one NetworkMessage as before.
  g.set_message_limit(1 << 20);
  const auto one = g.cycle(t0);
  CHECK(one.messages.size() == 1);
  CHECK(one.dataset_messages == 3);
}

TEST_CASE("pubsub uadp chunks: a limit a chunk's header does not fit is an error, nothing sent", "[pubsub]") {
  auto g = make_group({5}, 3);
  g.set_message_limit(35);
  const auto res = g.cycle(t0);
  CHECK(res.messages.empty());
  CHECK(res.error.find("chunk") != std::string_view::npos);
}

TEST_CASE("pubsub uadp chunks: the reader's parse of a chunk NetworkMessage, and chunks that lie", "[pubsub]") {
  const auto dsm = key_frame(9, {1.5, 2.5, -4.0});
  uadp_network_message n;
  uadp_error e;
  const auto good = chunk_message(1, 1, 5, 9, 20, 51, dsm, 20, 20).b;
  REQUIRE(read_uadp_network_message(good, {}, n, e));
  REQUIRE(n.chunk);
  CHECK(n.messages.empty());
  CHECK(n.chunk->writer_id == 5);
  CHECK(n.chunk->message_sequence_number == 9);
  CHECK(n.chunk->offset == 20);
  CHECK(n.chunk->total_size == 51);
  CHECK(n.chunk->data.size() == 20);
  CHECK(n.chunk->data_offset == good.size() - 20);
  CHECK(n.publisher_id->text == "P");
  // Past TotalSize: refused where ChunkOffset is.
  const auto past = chunk_message(1, 1, 5, 9, 40, 51, dsm, 20, 20).b;
  CHECK_FALSE(read_uadp_network_message(past, {}, n, e));
  CHECK(e.status == ua::status::bad_decoding_error);
  CHECK(e.offset == 23);
  auto zero_total = chunk_message(1, 1, 5, 9, 0, 0, dsm, 0, 20).b;
  CHECK_FALSE(read_uadp_network_message(zero_total, {}, n, e));
  // A ChunkData length that is not what the datagram holds, either way.
  auto longer = good;
  longer[31] = 21;
  CHECK_FALSE(read_uadp_network_message(longer, {}, n, e));
  CHECK(e.offset == 31);
  auto shorter = good;
  shorter[31] = 19;
  CHECK_FALSE(read_uadp_network_message(shorter, {}, n, e));
  auto empty = chunk_message(1, 1, 5, 9, 0, 51, dsm, 0, 0).b;
  CHECK_FALSE(read_uadp_network_message(empty, {}, n, e));
  // Truncated at every byte: refused, never over-read.
  for (std::size_t k = 0; k < good.size(); ++k) {
    const bytes cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(k));
    CHECK_FALSE(read_uadp_network_message(cut, {}, n, e));
    CHECK(e.offset <= k);
  }
  // A chunk of a discovery message (no payload header) is not read.
  const bytes discovery = {0x91, 0x81, 0x01, 0x05, 0x00};
  CHECK_FALSE(read_uadp_network_message(discovery, {}, n, e));
  CHECK(e.status == ua::status::bad_not_supported);
}

// The chunks of `g`'s cycle, parsed.
std::vector<uadp_chunk> chunks_of(const cycle_result& res, std::vector<bytes>& keep) {
  keep.clear();
  for (const auto m : res.messages) keep.push_back(as_bytes(m));
  std::vector<uadp_chunk> out;
  for (const auto& b : keep) {
    uadp_network_message n;
    uadp_error e;
    REQUIRE(read_uadp_network_message(b, {}, n, e));
    REQUIRE(n.chunk);
    out.push_back(*n.chunk);
  }
  return out;
}

TEST_CASE("pubsub uadp chunks: 1,000 fields in chunks of a 1 KiB limit reassemble in any order to every value", "[pubsub]") {
  auto g = make_group({5}, 1000);
  for (std::size_t f = 0; f < 1000; ++f) g.set(0, f, dv(static_cast<double>(f) * 0.5));
  g.set_message_limit(1024);
  const auto res = g.cycle(t0);
  REQUIRE(res.messages.size() == 10);  // 9,024 bytes in pieces of 989
  std::vector<bytes> keep;
  auto chunks = chunks_of(res, keep);
  std::mt19937 rng(7);
  std::shuffle(chunks.begin(), chunks.end(), rng);
  uadp_chunk_assembler a;
  uadp_error e;
  for (std::size_t i = 0; i + 1 < chunks.size(); ++i) REQUIRE(a.add("P", 7, chunks[i], 0, e) == uadp_chunk_assembler::outcome::partial);
  REQUIRE(a.add("P", 7, chunks.back(), 0, e) == uadp_chunk_assembler::outcome::complete);
  CHECK(a.in_flight() == 0);
  uadp_dataset_message m;
  REQUIRE(read_uadp_dataset_message(a.payload(), 5, m, e));
  CHECK(m.writer_id == 5);
  CHECK(m.sequence_number == 1);
  std::vector<decoded_field> fields;
  REQUIRE(read_uadp_fields(m, {}, {}, fields, e));
  REQUIRE(fields.size() == 1000);
  for (std::size_t f = 0; f < 1000; ++f) CHECK(fields[f].value.value == ua::variant(static_cast<double>(f) * 0.5));
  CHECK(a.counters().completed == 1);
  CHECK(a.counters().chunks == 10);
}

TEST_CASE("pubsub uadp chunks: reassembly refuses lies and stays within its bounds", "[pubsub]") {
  const bytes data(100, 0xAB);
  const auto piece = [&](std::uint16_t seq, std::uint32_t offset, std::uint32_t total, std::size_t n, std::uint16_t writer = 5) {
    uadp_chunk c;
    c.writer_id = writer;
    c.message_sequence_number = seq;
    c.offset = offset;
    c.total_size = total;
    c.data = std::span<const std::uint8_t>(data.data(), n);
    return c;
  };
  using out = uadp_chunk_assembler::outcome;
  uadp_error e;
  SECTION("a TotalSize past the limit") {
    uadp_chunk_limits l;
    l.max_total_size = 1024;
    uadp_chunk_assembler a(l);
    CHECK(a.add("P", 7, piece(1, 0, 1025, 10), 0, e) == out::refused);
    CHECK(e.status == ua::status::bad_encoding_limits_exceeded);
    CHECK(a.in_flight() == 0);
  }
  SECTION("another TotalSize than the earlier chunks': the payload is dropped") {
    uadp_chunk_assembler a;
    CHECK(a.add("P", 7, piece(1, 0, 30, 10), 0, e) == out::partial);
    CHECK(a.add("P", 7, piece(1, 10, 40, 10), 0, e) == out::refused);
    CHECK(e.what.find("TotalSize 40") != std::string::npos);
    CHECK(a.in_flight() == 0);
    CHECK(a.counters().dropped == 1);
  }
  SECTION("a ChunkOffset on bytes already received") {
    uadp_chunk_assembler a;
    CHECK(a.add("P", 7, piece(1, 0, 30, 10), 0, e) == out::partial);
    CHECK(a.add("P", 7, piece(1, 0, 30, 10), 0, e) == out::refused);  // the same chunk twice
    CHECK(e.what.find("overlap") != std::string::npos);
    CHECK(a.add("P", 7, piece(1, 20, 30, 10), 0, e) == out::partial);
    CHECK(a.add("P", 7, piece(1, 10, 30, 10), 0, e) == out::complete);
    CHECK(a.payload().size() == 30);
  }
  SECTION("a ChunkOffset off the chunks' size, a chunk of another size") {
    uadp_chunk_assembler a;
    CHECK(a.add("P", 7, piece(1, 0, 30, 10), 0, e) == out::partial);
    CHECK(a.add("P", 7, piece(1, 5, 30, 10), 0, e) == out::refused);
    CHECK(a.add("P", 7, piece(1, 10, 30, 8), 0, e) == out::refused);
    CHECK(e.what.find("siblings") != std::string::npos);
    CHECK(a.add("P", 7, piece(1, 10, 30, 10), 0, e) == out::partial);
    CHECK(a.add("P", 7, piece(1, 20, 30, 10), 0, e) == out::complete);
    CHECK(a.counters().refused == 2);
  }
  SECTION("past ChunkOffset + size > TotalSize, or empty") {
    uadp_chunk_assembler a;
    CHECK(a.add("P", 7, piece(1, 25, 30, 10), 0, e) == out::refused);
    CHECK(a.add("P", 7, piece(1, 0, 30, 0), 0, e) == out::refused);
    CHECK(a.in_flight() == 0);
  }
  SECTION("payloads in flight per writer: the oldest goes") {
    uadp_chunk_limits l;
    l.per_writer = 2;
    uadp_chunk_assembler a(l);
    CHECK(a.add("P", 7, piece(1, 0, 30, 10), 0, e) == out::partial);
    CHECK(a.add("P", 7, piece(2, 0, 30, 10), 1, e) == out::partial);
    CHECK(a.add("P", 7, piece(1, 0, 30, 10, 6), 1, e) == out::partial);  // another writer: its own
    CHECK(a.add("Q", 7, piece(1, 0, 30, 10), 1, e) == out::partial);     // another publisher: its own
    CHECK(a.in_flight() == 4);
    CHECK(a.add("P", 7, piece(3, 0, 30, 10), 2, e) == out::partial);
    CHECK(a.in_flight() == 4);
    CHECK(a.counters().dropped == 1);
    // Sequence 1 of P's writer 5 is gone: its last chunks start a new payload.
    CHECK(a.add("P", 7, piece(2, 10, 30, 10), 2, e) == out::partial);
    CHECK(a.add("P", 7, piece(2, 20, 30, 10), 2, e) == out::complete);
  }
  SECTION("payloads in flight in all") {
    uadp_chunk_limits l;
    l.max_assemblies = 3;
    uadp_chunk_assembler a(l);
    for (std::uint16_t w = 1; w <= 5; ++w) CHECK(a.add("P", 7, piece(1, 0, 30, 10, w), w, e) == out::partial);
    CHECK(a.in_flight() == 3);
    CHECK(a.counters().dropped == 2);
  }
  SECTION("an incomplete payload past the timeout is dropped") {
    uadp_chunk_limits l;
    l.timeout_ms = 100;
    uadp_chunk_assembler a(l);
    CHECK(a.add("P", 7, piece(1, 0, 30, 10), 1'000, e) == out::partial);
    CHECK(a.expire(1'100) == 0);
    CHECK(a.expire(1'101) == 1);
    CHECK(a.in_flight() == 0);
    // A late chunk of it starts over, and so never completes with the old bytes.
    CHECK(a.add("P", 7, piece(1, 10, 30, 10), 1'200, e) == out::partial);
    CHECK(a.add("P", 7, piece(1, 20, 30, 10), 1'400, e) == out::partial);  // the add expires the first
    CHECK(a.in_flight() == 1);
    CHECK(a.counters().dropped == 2);
  }
}

}  // namespace pubsub_uadp_chunks_test
