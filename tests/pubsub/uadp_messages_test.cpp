// Part 14 §7.2.4 (1.05) UADP NetworkMessages against byte vectors written out here from the
// spec's layout tables (Table 154 NetworkMessage, §7.2.4.4.3 GroupHeader, Table 160/161 payload
// header and Sizes, Table 162 DataSetMessage header, Tables 163/164 key and delta frames,
// §7.2.4.5.8 keep-alive), one per flag combination the publisher emits; then hostile datagrams
// (truncated at every byte, another version, counts and sizes the datagram cannot hold, chunks).
#include <catch2/catch.hpp>

#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "pubsub/dataset_reader.hpp"
#include "pubsub/uadp_messages.hpp"
#include "pubsub/writer_group.hpp"
#include "tests/support/alloc_counter.hpp"
#include "uactor/ua/status_codes.hpp"

namespace pubsub_uadp_messages_test {

using namespace uactor;
using namespace uactor::pubsub;

using bytes = std::vector<std::uint8_t>;

// Little-endian pieces (Part 6 §5.2.2), appended by hand.
struct vec {
  bytes b;
  vec& u8(std::uint8_t v) { b.push_back(v); return *this; }
  vec& u16(std::uint16_t v) { return u8(v & 0xFF).u8(v >> 8); }
  vec& u32(std::uint32_t v) { return u16(v & 0xFFFF).u16(v >> 16); }
  vec& u64(std::uint64_t v) { return u32(static_cast<std::uint32_t>(v)).u32(static_cast<std::uint32_t>(v >> 32)); }
  vec& f64(double d) { std::uint64_t v; std::memcpy(&v, &d, 8); return u64(v); }
  vec& raw(std::initializer_list<std::uint8_t> xs) { b.insert(b.end(), xs); return *this; }
  vec& text(const std::string& s) { b.insert(b.end(), s.begin(), s.end()); return *this; }
};

ua::data_value dv(ua::variant v) {
  ua::data_value d;
  d.set_value(std::move(v));
  return d;
}

constexpr ua::date_time t0 = ua::date_time::from_unix_ms(1796375411500);

// One writer group (WriterGroupId 7) of writers with UInt32 and Double fields.
writer_group_state make_group(std::vector<std::pair<std::uint16_t, field_encoding>> writers, std::uint32_t key_frame_count,
                              publisher_id_type id_type = publisher_id_type::string, std::string publisher = "P") {
  writer_group_config g;
  g.name = "G";
  g.id = 7;
  std::vector<resolved_writer> ws;
  for (const auto& [id, e] : writers) {
    resolved_writer w;
    w.config.name = "W" + std::to_string(id);
    w.config.id = id;
    w.config.key_frame_count = key_frame_count;
    w.config.encoding = e;
    w.fields.push_back({"Counter", ua::builtin_type::uint32, -1, {}});
    w.fields.push_back({"Sine", ua::builtin_type::double_, -1, {}});
    ws.push_back(std::move(w));
  }
  return writer_group_state(std::move(publisher), g, ws, "run", message_encoding::uadp, id_type);
}

bytes as_bytes(std::string_view m) { return bytes(m.begin(), m.end()); }

// The NetworkMessage header the group writes with a String PublisherId "P" (Table 154: UADPVersion
// 1, PublisherId + GroupHeader + PayloadHeader + ExtendedFlags1; ExtendedFlags1 = String), its
// GroupHeader (all four fields) and a PayloadHeader of `ids`.
vec header_p(std::uint16_t group_sequence, std::initializer_list<std::uint16_t> ids) {
  vec v;
  v.u8(0xF1).u8(0x04).u32(1).text("P");
  v.u8(0x0F).u16(7).u32(1).u16(1).u16(group_sequence);
  v.u8(static_cast<std::uint8_t>(ids.size()));
  for (auto id : ids) v.u16(id);
  return v;
}

// A DataSetMessage header (Table 162) as the writer fills it: valid, encoding, SequenceNumber,
// Status, Major and Minor version, DataSetFlags2 with the type and Timestamp.
vec& dsm_header(vec& v, std::uint8_t encoding_bits, std::uint8_t type, std::uint16_t sequence, std::uint16_t status_high = 0,
                ua::date_time timestamp = t0) {
  v.u8(static_cast<std::uint8_t>(0x01 | (encoding_bits << 1) | 0x08 | 0x10 | 0x20 | 0x40 | 0x80));
  v.u8(static_cast<std::uint8_t>(type | 0x10));
  v.u16(sequence).u64(static_cast<std::uint64_t>(timestamp.ticks)).u16(status_high).u32(1).u32(0);
  return v;
}

TEST_CASE("pubsub uadp: a key frame of Variant fields, byte by byte", "[pubsub]") {
  auto g = make_group({{5, field_encoding::variant}}, 10);
  g.set(0, 0, dv(std::uint32_t{42}));
  g.set(0, 1, dv(1.5));
  const auto res = g.cycle(t0);
  REQUIRE(res.key_frames == 1);
  auto want = header_p(1, {5});
  dsm_header(want, 0, 0, 1);
  want.u16(2);                     // FieldCount (Table 163)
  want.u8(7).u32(42);              // Variant UInt32 (Part 6 §5.2.2.16)
  want.u8(11).f64(1.5);            // Variant Double
  CHECK(as_bytes(res.message) == want.b);
}

TEST_CASE("pubsub uadp: a key frame of DataValue fields, byte by byte", "[pubsub]") {
  auto g = make_group({{5, field_encoding::data_value}}, 10);
  ua::data_value a = dv(std::uint32_t{42});
  a.status = ua::status_code(0x40000000u);  // Uncertain
  a.has_status = true;
  a.source_timestamp = t0;
  a.has_source_timestamp = true;
  g.set(0, 0, a);
  g.set(0, 1, dv(1.5));
  const auto res = g.cycle(t0);
  auto want = header_p(1, {5});
  dsm_header(want, 2, 0, 1, 0x4000);  // the DataSet's status: its worst field's, high half
  want.u16(2);
  want.u8(0x07).u8(7).u32(42).u32(0x40000000u).u64(static_cast<std::uint64_t>(t0.ticks));  // DataValue (Part 6 §5.2.2.17)
  want.u8(0x01).u8(11).f64(1.5);
  CHECK(as_bytes(res.message) == want.b);
}

TEST_CASE("pubsub uadp: a key frame of RawData fields has no FieldCount, byte by byte", "[pubsub]") {
  auto g = make_group({{5, field_encoding::raw}}, 10);
  g.set(0, 0, dv(std::uint32_t{42}));
  // Sine never set: its place is kept by the type's default (§7.2.4.5.11 fixed offsets).
  const auto res = g.cycle(t0);
  auto want = header_p(1, {5});
  dsm_header(want, 1, 0, 1);
  want.u32(42).f64(0.0);
  CHECK(as_bytes(res.message) == want.b);
}

TEST_CASE("pubsub uadp: a delta frame names its fields by FieldIndex, byte by byte", "[pubsub]") {
  auto g = make_group({{5, field_encoding::variant}}, 10);
  g.set(0, 0, dv(std::uint32_t{1}));
  g.set(0, 1, dv(0.5));
  REQUIRE(g.cycle(t0).key_frames == 1);
  g.set(0, 1, dv(2.0));
  const auto res = g.cycle(t0);
  REQUIRE(res.delta_frames == 1);
  auto want = header_p(2, {5});
  dsm_header(want, 0, 1, 2);
  want.u16(1);                   // FieldCount (Table 164)
  want.u16(1).u8(11).f64(2.0);   // FieldIndex 1, its Variant
  CHECK(as_bytes(res.message) == want.b);

  SECTION("every field changed: the key frame goes instead (§7.2.4.5.6)") {
    g.set(0, 0, dv(std::uint32_t{2}));
    g.set(0, 1, dv(3.0));
    CHECK(g.cycle(t0).key_frames == 1);
  }
}

TEST_CASE("pubsub uadp: a keep-alive carries the next expected sequence number and no fields", "[pubsub]") {
  writer_group_config gc;
  gc.name = "G";
  gc.id = 7;
  gc.keep_alive_time = std::chrono::milliseconds(1000);
  resolved_writer w;
  w.config.id = 5;
  w.config.key_frame_count = 100;
  w.fields.push_back({"Counter", ua::builtin_type::uint32, -1, {}});
  writer_group_state g("P", gc, {w}, "run", message_encoding::uadp, publisher_id_type::string);
  g.set(0, 0, dv(std::uint32_t{1}));
  REQUIRE(g.cycle(t0).key_frames == 1);  // sequence 1
  CHECK(g.cycle(t0).message.empty());     // nothing changed, keep-alive not due
  const ua::date_time t1{t0.ticks + 10'000'000};
  const auto res = g.cycle(t1);
  REQUIRE(res.keep_alives == 1);
  auto want = header_p(2, {5});
  dsm_header(want, 0, 3, 2, 0, t1);  // §7.2.4.5.8: the next expected, 2
  CHECK(as_bytes(res.message) == want.b);
  // The keep-alive did not use 2 up: the next data message is 2.
  g.set(0, 0, dv(std::uint32_t{2}));
  const auto next = as_bytes(g.cycle(ua::date_time{t0.ticks + 10'000'001}).message);
  REQUIRE(next.size() > want.b.size());
  CHECK(next[want.b.size() - 20] == 2);  // the DataSetMessageSequenceNumber's low byte (after the 2 flag bytes)
}

TEST_CASE("pubsub uadp: several DataSetMessages carry the Sizes array, byte by byte", "[pubsub]") {
  auto g = make_group({{5, field_encoding::raw}, {6, field_encoding::variant}}, 10);
  g.set(0, 0, dv(std::uint32_t{42}));
  g.set(0, 1, dv(1.5));
  g.set(1, 0, dv(std::uint32_t{43}));
  g.set(1, 1, dv(2.5));
  const auto res = g.cycle(t0);
  REQUIRE(res.dataset_messages == 2);
  vec a, b;
  dsm_header(a, 1, 0, 1);
  a.u32(42).f64(1.5);
  dsm_header(b, 0, 0, 1);
  b.u16(2).u8(7).u32(43).u8(11).f64(2.5);
  auto want = header_p(1, {5, 6});
  want.u16(static_cast<std::uint16_t>(a.b.size())).u16(static_cast<std::uint16_t>(b.b.size()));  // Table 161
  want.b.insert(want.b.end(), a.b.begin(), a.b.end());
  want.b.insert(want.b.end(), b.b.begin(), b.b.end());
  CHECK(as_bytes(res.message) == want.b);
}

TEST_CASE("pubsub uadp: each PublisherId type in ExtendedFlags1, byte by byte", "[pubsub]") {
  struct expected_start {
    publisher_id_type type;
    std::string text;
    bytes start;
  };
  const std::vector<expected_start> cases = {
      // Byte: the default when ExtendedFlags1 is left out (Table 154): bit 7 of UADPFlags clear.
      {publisher_id_type::byte, "200", {0x71, 200}},
      {publisher_id_type::uint16, "513", {0xF1, 0x01, 0x01, 0x02}},
      {publisher_id_type::uint32, "16909060", {0xF1, 0x02, 0x04, 0x03, 0x02, 0x01}},
      {publisher_id_type::uint64, "1", {0xF1, 0x03, 1, 0, 0, 0, 0, 0, 0, 0}},
      {publisher_id_type::string, "ab", {0xF1, 0x04, 2, 0, 0, 0, 'a', 'b'}},
  };
  for (const auto& c : cases) {
    auto g = make_group({{5, field_encoding::variant}}, 1, c.type, c.text);
    const auto m = as_bytes(g.cycle(t0).message);
    REQUIRE(m.size() > c.start.size());
    CHECK(bytes(m.begin(), m.begin() + static_cast<std::ptrdiff_t>(c.start.size())) == c.start);
    CHECK(m[c.start.size()] == 0x0F);  // the GroupFlags follow
    uadp_network_message n;
    uadp_error e;
    REQUIRE(read_uadp_network_message(m, {}, n, e));
    REQUIRE(n.publisher_id);
    CHECK(n.publisher_id->type == c.type);
    CHECK(n.publisher_id->to_text() == c.text);
  }
  uadp_publisher_id p;
  CHECK_FALSE(make_publisher_id("256", publisher_id_type::byte, p));
  CHECK_FALSE(make_publisher_id("x", publisher_id_type::uint16, p));
}

TEST_CASE("pubsub uadp: what the writer emits reads back, header and fields", "[pubsub]") {
  auto g = make_group({{5, field_encoding::data_value}, {6, field_encoding::raw}}, 10);
  ua::data_value bad;
  bad.status = ua::status::bad_no_communication;
  bad.has_status = true;
  g.set(0, 0, bad);
  g.set(0, 1, dv(1.5));
  g.set(1, 0, dv(std::uint32_t{43}));
  g.set(1, 1, dv(2.5));
  const auto m = as_bytes(g.cycle(t0).message);
  uadp_network_message n;
  uadp_error e;
  REQUIRE(read_uadp_network_message(m, {}, n, e));
  CHECK(n.writer_group_id == std::uint16_t{7});
  CHECK(n.group_version == std::uint32_t{1});
  CHECK(n.sequence_number == std::uint16_t{1});
  REQUIRE(n.messages.size() == 2);
  CHECK(n.messages[0].writer_id == 5);
  CHECK(n.messages[0].status.value() == (ua::status::bad_no_communication.value() & 0xFFFF0000u));
  CHECK(n.messages[0].timestamp == t0);
  CHECK(n.messages[0].major_version == std::uint32_t{1});
  std::vector<decoded_field> fields;
  REQUIRE(read_uadp_fields(n.messages[0], {}, {}, fields, e));
  REQUIRE(fields.size() == 2);
  CHECK(fields[0].value.status == ua::status::bad_no_communication);
  CHECK_FALSE(fields[0].value.has_value);
  CHECK(fields[1].value.value == ua::variant(1.5));
  // RawData needs the types; without them it is refused with its reason.
  CHECK_FALSE(read_uadp_fields(n.messages[1], {}, {}, fields, e));
  CHECK(e.status == ua::status::bad_not_supported);
  const std::vector<uadp_raw_type> types = {{ua::builtin_type::uint32, false}, {ua::builtin_type::double_, false}};
  REQUIRE(read_uadp_fields(n.messages[1], types, {}, fields, e));
  CHECK(fields[0].value.value == ua::variant(std::uint32_t{43}));
  CHECK(fields[1].value.value == ua::variant(2.5));
}

TEST_CASE("pubsub uadp: a Variant field holds a Bad field's StatusCode, an Uncertain one's DataValue", "[pubsub]") {
  auto g = make_group({{5, field_encoding::variant}}, 10);
  ua::data_value bad;
  bad.status = ua::status::bad_no_communication;
  bad.has_status = true;
  ua::data_value uncertain = dv(std::uint32_t{9});
  uncertain.status = ua::status_code(0x40000000u);
  uncertain.has_status = true;
  g.set(0, 0, uncertain);
  g.set(0, 1, bad);
  const auto res = g.cycle(t0);
  auto want = header_p(1, {5});
  dsm_header(want, 0, 0, 1, 0x8031);  // worst: Bad_NoCommunication's high half
  want.u16(2);
  want.u8(23).u8(0x03).u8(7).u32(9).u32(0x40000000u);  // Variant of DataValue (value, status)
  want.u8(19).u32(ua::status::bad_no_communication.value());  // Variant of StatusCode
  CHECK(as_bytes(res.message) == want.b);
  uadp_network_message n;
  uadp_error e;
  const auto bytes_read = as_bytes(res.message);  // the DataSetMessages' spans point into it
  REQUIRE(read_uadp_network_message(bytes_read, {}, n, e));
  std::vector<decoded_field> fields;
  REQUIRE(read_uadp_fields(n.messages[0], {}, {}, fields, e));
  CHECK(fields[0].value.value == ua::variant(std::uint32_t{9}));
  CHECK(fields[0].value.status.value() == 0x40000000u);
  CHECK(fields[1].value.status == ua::status::bad_no_communication);
}

TEST_CASE("pubsub uadp: headers the publisher does not emit are read (Timestamp, PicoSeconds, DataSetClassId, PromotedFields, no PayloadHeader)", "[pubsub]") {
  vec v;
  v.u8(0x91);              // version 1, PublisherId, ExtendedFlags1; no GroupHeader, no PayloadHeader
  v.u8(0x01 | 0x08 | 0x20 | 0x40 | 0x80);  // UInt16 PublisherId, DataSetClassId, Timestamp, PicoSeconds, ExtendedFlags2
  v.u8(0x02);              // ExtendedFlags2: PromotedFields
  v.u16(77);
  v.u32(0x01020304).u16(0x0506).u16(0x0708).raw({1, 2, 3, 4, 5, 6, 7, 8});
  v.u64(static_cast<std::uint64_t>(t0.ticks)).u16(12);
  v.u16(5).raw({7, 1, 0, 0, 0});  // PromotedFields: Size, one Variant
  v.u8(0x01);              // DataSetFlags1: valid, Variant, nothing else: a key frame
  v.u16(1).u8(6).u32(static_cast<std::uint32_t>(-3));
  uadp_network_message n;
  uadp_error e;
  REQUIRE(read_uadp_network_message(v.b, {}, n, e));
  CHECK(n.publisher_id->to_text() == "77");
  CHECK(n.dataset_class_id->data1 == 0x01020304u);
  CHECK(n.timestamp == t0);
  CHECK(n.picoseconds == std::uint16_t{12});
  REQUIRE(n.messages.size() == 1);
  CHECK(n.messages[0].writer_id == 0);
  CHECK_FALSE(n.messages[0].sequence_number);
  std::vector<decoded_field> fields;
  REQUIRE(read_uadp_fields(n.messages[0], {}, {}, fields, e));
  REQUIRE(fields.size() == 1);
  CHECK(fields[0].value.value == ua::variant(std::int32_t{-3}));
}

// A valid NetworkMessage with a delta frame and a raw key frame, for the hostile cases.
bytes sample_message() {
  auto g = make_group({{5, field_encoding::variant}, {6, field_encoding::raw}}, 1);
  g.set(0, 0, dv(std::uint32_t{42}));
  g.set(0, 1, dv(ua::ua_string("hello")));
  g.set(1, 0, dv(std::uint32_t{43}));
  g.set(1, 1, dv(2.5));
  return as_bytes(g.cycle(t0).message);
}

bool reads_whole(std::span<const std::uint8_t> m, uadp_error& e) {
  uadp_network_message n;
  if (!read_uadp_network_message(m, {}, n, e)) return false;
  const std::vector<uadp_raw_type> types = {{ua::builtin_type::uint32, false}, {ua::builtin_type::double_, false}};
  std::vector<decoded_field> fields;
  for (const auto& dsm : n.messages)
    if (!read_uadp_fields(dsm, types, {}, fields, e)) return false;
  return true;
}

TEST_CASE("pubsub uadp: a datagram truncated at any byte is refused, never over-read", "[pubsub]") {
  const auto m = sample_message();
  uadp_error e;
  REQUIRE(reads_whole(m, e));
  for (std::size_t cut = 0; cut < m.size(); ++cut) {
    // A copy of exactly `cut` bytes: ASan sees any read past it.
    const bytes prefix(m.begin(), m.begin() + static_cast<std::ptrdiff_t>(cut));
    INFO("cut at " << cut);
    e = {};
    CHECK_FALSE(reads_whole(prefix, e));
    CHECK(e.status.is_bad());
    CHECK(e.offset <= cut);
    CHECK_FALSE(e.what.empty());
  }
  // The single-DataSetMessage form (no Sizes) too.
  auto g = make_group({{5, field_encoding::data_value}}, 1);
  g.set(0, 0, dv(std::uint32_t{1}));
  g.set(0, 1, dv(ua::ua_string("x")));
  const auto one = as_bytes(g.cycle(t0).message);
  for (std::size_t cut = 0; cut < one.size(); ++cut) {
    const bytes prefix(one.begin(), one.begin() + static_cast<std::ptrdiff_t>(cut));
    INFO("cut at " << cut);
    CHECK_FALSE(reads_whole(prefix, e));
  }
}

TEST_CASE("pubsub uadp: another UADPVersion gets Bad_ProtocolVersionUnsupported", "[pubsub]") {
  auto m = sample_message();
  m[0] = static_cast<std::uint8_t>((m[0] & 0xF0) | 2);
  uadp_error e;
  CHECK_FALSE(reads_whole(m, e));
  CHECK(e.status == ua::status::bad_protocol_version_unsupported);
  CHECK(e.offset == 1);
}

TEST_CASE("pubsub uadp: counts and sizes the datagram cannot hold are refused before anything is sized by them", "[pubsub]") {
  const auto m = sample_message();
  uadp_error e;
  // The PayloadHeader's Count sits after the 18-byte header of "P" (1+1+5 + GroupHeader 11).
  const std::size_t count_at = 1 + 1 + 5 + 11;
  REQUIRE(m[count_at] == 2);
  SECTION("a Count of 200") {
    auto bad = m;
    bad[count_at] = 200;
    CHECK_FALSE(reads_whole(bad, e));
    CHECK(e.status == ua::status::bad_decoding_error);
  }
  SECTION("a Count of 0") {
    auto bad = m;
    bad[count_at] = 0;
    CHECK_FALSE(reads_whole(bad, e));
  }
  SECTION("Sizes that add up to more than the payload") {
    auto bad = m;
    bad[count_at + 1 + 4] = 0xFF;  // the first Size's low byte
    bad[count_at + 1 + 5] = 0x7F;
    CHECK_FALSE(reads_whole(bad, e));
    CHECK(e.what.find("Sizes add up") != std::string::npos);
  }
  SECTION("a FieldCount of 60000 in a few bytes") {
    // The first DataSetMessage (Variant) starts after the ids and the Sizes; its FieldCount
    // follows its 22-byte header.
    auto bad = m;
    const std::size_t field_count_at = count_at + 1 + 4 + 4 + 22;
    REQUIRE(bad[field_count_at] == 2);
    bad[field_count_at] = 0x60;
    bad[field_count_at + 1] = 0xEA;
    CHECK_FALSE(reads_whole(bad, e));
    CHECK(e.what.find("FieldCount of 60000") != std::string::npos);
  }
  SECTION("a String PublisherId longer than the datagram") {
    auto bad = m;
    bad[2] = 0xFF;
    bad[3] = 0xFF;
    CHECK_FALSE(reads_whole(bad, e));
  }
  SECTION("a NetworkMessage over the configured maximum") {
    uadp_limits small;
    small.max_message_size = 16;
    uadp_network_message n;
    CHECK_FALSE(read_uadp_network_message(m, small, n, e));
    CHECK(e.status == ua::status::bad_encoding_limits_exceeded);
  }
  SECTION("more fields than the reader's maximum") {
    uadp_limits small;
    small.max_fields = 1;
    uadp_network_message n;
    REQUIRE(read_uadp_network_message(m, small, n, e));
    std::vector<decoded_field> fields;
    CHECK_FALSE(read_uadp_fields(n.messages[0], {}, small, fields, e));
    CHECK(e.status == ua::status::bad_encoding_limits_exceeded);
  }
}

TEST_CASE("pubsub uadp: discovery chunks, secured and discovery NetworkMessages are refused with Bad_NotSupported", "[pubsub]") {
  uadp_network_message n;
  uadp_error e;
  // ExtendedFlags2 bit 0: a chunk, without a payload header: of a discovery message
  // (uadp_chunks_test.cpp has the chunks of DataSetMessages).
  const bytes chunk = {0x91, 0x81, 0x01, 0x05, 0x00};
  CHECK_FALSE(read_uadp_network_message(chunk, {}, n, e));
  CHECK(e.status == ua::status::bad_not_supported);
  CHECK(e.what.find("discovery") != std::string::npos);
  const bytes secured = {0x91, 0x11, 0x05, 0x00};
  CHECK_FALSE(read_uadp_network_message(secured, {}, n, e));
  CHECK(e.status == ua::status::bad_not_supported);
  const bytes probe = {0x91, 0x81, 0x04, 0x05, 0x00};  // NetworkMessage type 001
  CHECK_FALSE(read_uadp_network_message(probe, {}, n, e));
  CHECK(e.status == ua::status::bad_not_supported);
  const bytes reserved_encoding = {0x01, 0x07};  // DataSetFlags1 field encoding 11
  CHECK_FALSE(read_uadp_network_message(reserved_encoding, {}, n, e));
}

TEST_CASE("pubsub uadp: a reader takes fields by position, 16-bit sequence numbers wrap, a keep-alive is not a gap", "[pubsub]") {
  dataset_reader_config rc;
  rc.writer_group_id = 7;
  rc.writer_id = 5;
  rc.fields = {"Counter", "Sine"};
  rc.targets = {{"Sine", "ns=1;s=S"}, {"Counter", "ns=1;s=C"}};
  rc.message_receive_timeout = std::chrono::milliseconds(1000);
  dataset_reader_state reader(rc, {ua::builtin_type::double_, ua::builtin_type::uint32});
  REQUIRE(reader.raw_types().size() == 2);
  CHECK(reader.raw_types()[0].type == ua::builtin_type::uint32);

  decoded_network_message net;
  net.writer_group_id = 7;
  decoded_dataset_message m;
  m.writer_id = 5;
  m.sequence_bits = 16;
  m.has_payload = true;
  m.fields.resize(2);
  m.fields[0].index = 0;
  m.fields[0].value = dv(std::uint32_t{1});
  m.fields[1].index = 1;
  m.fields[1].value = dv(0.5);
  REQUIRE(reader.accepts(net, m));
  net.writer_group_id = 8;
  CHECK_FALSE(reader.accepts(net, m));
  net.writer_group_id = 7;

  std::vector<target_write> out;
  m.sequence_number = 0xFFFF;
  reader.take(m, 0, out);
  REQUIRE(out.size() == 2);
  CHECK(out[0].target == 1);  // Counter, field 0
  CHECK(out[1].target == 0);  // Sine, field 1
  out.clear();
  m.sequence_number = 0;      // wrapped: new
  reader.take(m, 1, out);
  CHECK(out.size() == 2);
  CHECK(reader.counters().gaps == 0);
  m.sequence_number = 0xFFFF;  // behind: dropped
  out.clear();
  reader.take(m, 2, out);
  CHECK(out.empty());
  CHECK(reader.counters().out_of_order == 1);
  decoded_dataset_message ka;
  ka.type = dataset_message_type::keep_alive;
  ka.sequence_bits = 16;
  ka.sequence_number = 1;  // the next expected
  reader.take(ka, 3, out);
  m.sequence_number = 1;
  reader.take(m, 4, out);
  CHECK(out.size() == 2);
  CHECK(reader.counters().out_of_order == 1);
  CHECK(reader.counters().gaps == 0);
}

TEST_CASE("pubsub uadp: a writer group's cycle allocates nothing once its first key frame is written", "[pubsub]") {
  if (!test::counts_allocations) return;  // ASan brings its own operator new
  writer_group_config g;
  g.name = "G";
  std::vector<resolved_writer> writers(3);
  const field_encoding encodings[] = {field_encoding::variant, field_encoding::raw, field_encoding::data_value};
  for (std::size_t w = 0; w < 3; ++w) {
    writers[w].config.id = static_cast<std::uint16_t>(w + 1);
    writers[w].config.key_frame_count = 4;
    writers[w].config.encoding = encodings[w];
    for (std::size_t f = 0; f < 100; ++f) writers[w].fields.push_back({"v" + std::to_string(f), ua::builtin_type::double_, -1, {}});
  }
  writer_group_state s("pub", g, writers, "run", message_encoding::uadp, publisher_id_type::string);
  ua::data_value v = dv(1.0);
  for (std::size_t w = 0; w < 3; ++w)
    for (std::size_t f = 0; f < 100; ++f) s.set(w, f, v);
  REQUIRE_FALSE(s.cycle(t0).message.empty());
  std::uint64_t allocations = 0;
  std::size_t sent = 0;
  for (int cycle = 1; cycle <= 20; ++cycle) {
    test::alloc_scope scope;
    for (std::size_t f = 0; f < 100; f += 3) {
      *v.value.get_if<double>() = cycle * 1000.0 + static_cast<double>(f);
      for (std::size_t w = 0; w < 3; ++w) s.set(w, f, v);
    }
    sent += s.cycle(t0).message.empty() ? 0 : 1;
    allocations += scope.counted().allocations;
  }
  CHECK(sent == 20);
  CHECK(allocations == 0);
}

}  // namespace pubsub_uadp_messages_test
