// Part 14 §7.2.5 (1.05) JSON messages, field by field: the NetworkMessage header, DataSetMessages
// (key frames, delta frames, keep-alives), the three field encodings, DataSetMetaData; and the
// bounded reader refusing hostile text with the status and the place.
#include <catch2/catch.hpp>

#include <time.h>

#include <cmath>
#include <string>

#include "pubsub/json_messages.hpp"
#include "pubsub/writer_group.hpp"
#include "tests/support/alloc_counter.hpp"
#include "uactor/ua/status_codes.hpp"

using namespace uactor;
using namespace uactor::pubsub;

namespace {

ua::data_value dv(ua::variant v) {
  ua::data_value d;
  d.set_value(std::move(v));
  return d;
}

// 2026-12-04T09:10:11.5Z
constexpr ua::date_time t0 = ua::date_time::from_unix_ms(1796375411500);

std::string field_text(const ua::data_value& v, field_encoding e) {
  std::string s;
  append_field(s, v, e);
  return s;
}

}  // namespace

TEST_CASE("pubsub json: DateTime is ISO 8601 UTC both ways", "[pubsub]") {
  std::string s;
  append_date_time(s, t0);
  CHECK(s == "2026-12-04T09:10:11.5Z");
  ua::date_time back;
  REQUIRE(parse_date_time(s, back));
  CHECK(back == t0);
  s.clear();
  append_date_time(s, ua::date_time{t0.ticks + 1234567});
  CHECK(s == "2026-12-04T09:10:11.6234567Z");
  REQUIRE(parse_date_time("2026-12-04T10:10:11.5+01:00", back));
  CHECK(back == t0);
  CHECK_FALSE(parse_date_time("2026-13-04T09:10:11Z", back));
  CHECK_FALSE(parse_date_time("2026-12-04T09:10:11", back));
}

TEST_CASE("pubsub json: the field encodings of Part 14 §7.2.5.4", "[pubsub]") {
  SECTION("variant: the reversible (1.05 compact) form names its UaType") {
    CHECK(field_text(dv(1.5), field_encoding::variant) == R"({"UaType":11,"Value":1.5})");
    CHECK(field_text(dv(std::int32_t{-7}), field_encoding::variant) == R"({"UaType":6,"Value":-7})");
    CHECK(field_text(dv(true), field_encoding::variant) == R"({"UaType":1,"Value":true})");
    CHECK(field_text(dv(std::int64_t{1} << 60), field_encoding::variant) == R"({"UaType":8,"Value":"1152921504606846976"})");
    CHECK(field_text(dv(ua::ua_string("a\"b")), field_encoding::variant) == R"({"UaType":12,"Value":"a\"b"})");
    CHECK(field_text(dv(ua::ua_array<double>{1, 2.5}), field_encoding::variant) == R"({"UaType":11,"Value":[1,2.5]})");
    CHECK(field_text(dv(std::numeric_limits<double>::quiet_NaN()), field_encoding::variant) == R"({"UaType":11,"Value":"NaN"})");
    CHECK(field_text(dv(ua::node_id::string(1, "x")), field_encoding::variant) == R"({"UaType":17,"Value":"ns=1;s=x"})");
    CHECK(field_text(ua::data_value{}, field_encoding::variant) == "null");
  }
  SECTION("raw: the non-reversible form is the bare value") {
    CHECK(field_text(dv(1.5), field_encoding::raw) == "1.5");
    CHECK(field_text(dv(float{0.1f}), field_encoding::raw) == "0.1");
    CHECK(field_text(dv(std::uint16_t{7}), field_encoding::raw) == "7");
    ua::localized_text lt;
    lt.locale = "en";
    lt.text = "hi";
    CHECK(field_text(dv(lt), field_encoding::raw) == R"({"Locale":"en","Text":"hi"})");
  }
  SECTION("data_value: value, Status when not Good, timestamps") {
    auto v = dv(2.0);
    v.source_timestamp = t0;
    v.has_source_timestamp = true;
    CHECK(field_text(v, field_encoding::data_value) == R"({"UaType":11,"Value":2,"SourceTimestamp":"2026-12-04T09:10:11.5Z"})");
    v.status = ua::status::bad_no_communication;
    v.has_status = true;
    CHECK(field_text(v, field_encoding::data_value) ==
          R"({"UaType":11,"Value":2,"Status":2150694912,"SourceTimestamp":"2026-12-04T09:10:11.5Z"})");
  }
}

TEST_CASE("pubsub json: a NetworkMessage's header and DataSetMessage, field by field", "[pubsub]") {
  json_message_writer w;
  w.begin("m-1", "plant-7", "Fast");
  dataset_message_header h;
  h.writer_id = 3;
  h.writer_name = "Ramp";
  h.sequence_number = 42;
  h.version = {1, 0};
  h.timestamp = t0;
  h.type = dataset_message_type::key_frame;
  w.begin_dataset(h);
  w.field("Ramp", dv(1.5), field_encoding::variant);
  w.field("Count", dv(std::uint32_t{9}), field_encoding::variant);
  w.end_dataset();
  h.writer_id = 4;
  h.writer_name = "";
  h.sequence_number = 7;
  h.status = ua::status::uncertain;
  h.type = dataset_message_type::keep_alive;
  w.begin_dataset(h);
  w.field("ignored", dv(1.0), field_encoding::variant);
  w.end_dataset();
  const std::string text(w.finish());
  CHECK(text ==
        R"({"MessageId":"m-1","MessageType":"ua-data","PublisherId":"plant-7","WriterGroupName":"Fast","Messages":[)"
        R"({"DataSetWriterId":3,"DataSetWriterName":"Ramp","SequenceNumber":42,"MetaDataVersion":{"MajorVersion":1,"MinorVersion":0},)"
        R"("Timestamp":"2026-12-04T09:10:11.5Z","MessageType":"ua-keyframe","Payload":{"Ramp":{"UaType":11,"Value":1.5},"Count":{"UaType":7,"Value":9}}},)"
        R"({"DataSetWriterId":4,"SequenceNumber":7,"MetaDataVersion":{"MajorVersion":1,"MinorVersion":0},)"
        R"("Timestamp":"2026-12-04T09:10:11.5Z","Status":1073741824,"MessageType":"ua-keepalive"}]})");

  json_reader r;
  decoded_network_message n;
  json_error e;
  REQUIRE(read_network_message(r, text, {}, n, e));
  CHECK(n.message_id == "m-1");
  CHECK(n.message_type == "ua-data");
  CHECK(n.publisher_id == "plant-7");
  CHECK(n.writer_group_name == "Fast");
  REQUIRE(n.messages.size() == 2);
  const auto& m = n.messages[0];
  CHECK(m.writer_id == std::optional<std::uint16_t>(3));
  CHECK(m.writer_name == "Ramp");
  CHECK(m.sequence_number == std::optional<std::uint32_t>(42));
  CHECK(m.version == std::optional<configuration_version>(configuration_version{1, 0}));
  CHECK(m.timestamp == std::optional<ua::date_time>(t0));
  CHECK(m.status == ua::status::good);
  CHECK(m.type == dataset_message_type::key_frame);
  REQUIRE(m.fields.size() == 2);
  CHECK(m.fields[0].name == "Ramp");
  CHECK(m.fields[0].value.value == ua::variant(1.5));
  CHECK(m.fields[1].name == "Count");
  CHECK(m.fields[1].value.value == ua::variant(std::uint32_t{9}));
  CHECK(n.messages[1].type == dataset_message_type::keep_alive);
  CHECK_FALSE(n.messages[1].has_payload);
  CHECK(n.messages[1].status == ua::status::uncertain);
}

TEST_CASE("pubsub json: DataSetMessages without the network header, and 1.04's Type/Body", "[pubsub]") {
  json_reader r;
  decoded_network_message n;
  json_error e;
  REQUIRE(read_network_message(
      r, R"({"DataSetWriterId":5,"PublisherId":"p","SequenceNumber":1,"Payload":{"a":{"Type":6,"Body":12},"b":2.5}})", {}, n, e));
  REQUIRE(n.messages.size() == 1);
  CHECK(n.publisher_id == "p");
  CHECK(n.messages[0].fields[0].value.value == ua::variant(std::int32_t{12}));
  CHECK(n.messages[0].fields[1].value.value == ua::variant(2.5));
  REQUIRE(read_network_message(r, R"([{"DataSetWriterId":1,"Payload":{"x":true}},{"DataSetWriterId":2}])", {}, n, e));
  REQUIRE(n.messages.size() == 2);
  CHECK(n.messages[0].fields[0].value.value == ua::variant(true));
  CHECK(n.messages[1].type == dataset_message_type::keep_alive);
}

TEST_CASE("pubsub json: a field without value or status is {} as a DataValue and reads back as one", "[pubsub]") {
  // Found by pubsub_json_fuzz: {"Type":12} without its Body read as an empty DataValue, which
  // writes as {}, which must read again.
  json_reader r;
  decoded_network_message n;
  json_error e;
  REQUIRE(read_network_message(r, R"({"Payload":{"a":{"Value":{"Type":12}},"b":{},"c":{"Value":5}}})", {}, n, e));
  REQUIRE(n.messages[0].fields.size() == 3);
  const auto& a = n.messages[0].fields[0].value;
  CHECK_FALSE(a.has_value);
  CHECK(field_text(a, field_encoding::data_value) == "{}");
  CHECK_FALSE(n.messages[0].fields[1].value.has_value);
  CHECK(n.messages[0].fields[2].value.value == ua::variant(std::int64_t{5}));  // no UaType: JSON's type
}

TEST_CASE("pubsub json: DataSetMetaData (ua-metadata) both ways", "[pubsub]") {
  metadata_message m;
  m.message_id = "md-1";
  m.publisher_id = "plant-7";
  m.writer_id = 3;
  m.writer_group_name = "Fast";
  m.writer_name = "Ramp";
  m.timestamp = t0;
  m.dataset_name = "Dynamic";
  m.fields = {{"Ramp", ua::builtin_type::double_, -1, {}}, {"Count", ua::builtin_type::uint32, -1, {}}};
  m.version = {1, 0};
  std::string text;
  write_metadata_message(text, m);
  CHECK(text ==
        R"({"MessageId":"md-1","MessageType":"ua-metadata","PublisherId":"plant-7","DataSetWriterId":3,)"
        R"("WriterGroupName":"Fast","DataSetWriterName":"Ramp","Timestamp":"2026-12-04T09:10:11.5Z",)"
        R"("MetaData":{"Name":"Dynamic","Fields":[{"Name":"Ramp","BuiltInType":11,"DataType":"i=11","ValueRank":-1},)"
        R"({"Name":"Count","BuiltInType":7,"DataType":"i=7","ValueRank":-1}],"ConfigurationVersion":{"MajorVersion":1,"MinorVersion":0}}})");
  json_reader r;
  metadata_message back;
  json_error e;
  REQUIRE(read_metadata_message(r, text, back, e));
  CHECK(back.writer_id == 3);
  CHECK(back.dataset_name == "Dynamic");
  REQUIRE(back.fields.size() == 2);
  CHECK(back.fields[1].type == ua::builtin_type::uint32);
  CHECK(back.version == configuration_version{1, 0});
}

TEST_CASE("pubsub json: key frames every KeyFrameCount cycles, delta frames of the changes between", "[pubsub]") {
  writer_group_config g;
  g.name = "Fast";
  resolved_writer w;
  w.config.name = "W";
  w.config.id = 1;
  w.config.key_frame_count = 3;
  w.fields = {{"a", ua::builtin_type::double_, -1, {}}, {"b", ua::builtin_type::double_, -1, {}}};
  writer_group_state s("pub", g, {w}, "run");
  s.set(0, 0, dv(1.0));
  s.set(0, 1, dv(2.0));
  json_reader r;
  decoded_network_message n;
  json_error e;
  const auto read = [&](ua::date_time t) {
    const auto res = s.cycle(t);
    if (res.message.empty()) return false;
    REQUIRE(read_network_message(r, res.message, {}, n, e));
    return true;
  };
  REQUIRE(read(t0));  // cycle 0: key frame
  CHECK(n.messages[0].type == dataset_message_type::key_frame);
  CHECK(n.messages[0].sequence_number == std::optional<std::uint32_t>(1));
  CHECK(n.messages[0].fields.size() == 2);
  CHECK_FALSE(read(t0));  // cycle 1: nothing changed, no keep-alive configured
  s.set(0, 1, dv(3.0));
  REQUIRE(read(t0));  // cycle 2: a delta frame with b only
  CHECK(n.messages[0].type == dataset_message_type::delta_frame);
  CHECK(n.messages[0].sequence_number == std::optional<std::uint32_t>(2));
  REQUIRE(n.messages[0].fields.size() == 1);
  CHECK(n.messages[0].fields[0].name == "b");
  REQUIRE(read(t0));  // cycle 3: key frame again, every field
  CHECK(n.messages[0].type == dataset_message_type::key_frame);
  CHECK(n.messages[0].fields.size() == 2);
  CHECK(n.messages[0].sequence_number == std::optional<std::uint32_t>(3));
  CHECK(n.message_id != "");
}

TEST_CASE("pubsub json: a writer group's cycle allocates nothing once its first key frame is written", "[pubsub]") {
  if (!test::counts_allocations) return;  // ASan brings its own operator new
  writer_group_config g;
  g.name = "G";
  std::vector<resolved_writer> writers(2);
  for (std::size_t w = 0; w < 2; ++w) {
    writers[w].config.name = "W" + std::to_string(w);
    writers[w].config.id = static_cast<std::uint16_t>(w + 1);
    writers[w].config.key_frame_count = 4;
    for (std::size_t f = 0; f < 100; ++f) writers[w].fields.push_back({"v" + std::to_string(f), ua::builtin_type::double_, -1, {}});
  }
  writer_group_state s("pub", g, writers, "run");
  // The first key frame, with values as long as the later ones, sizes the buffer: steady state.
  ua::data_value v = dv(99999.25);
  for (std::size_t w = 0; w < 2; ++w)
    for (std::size_t f = 0; f < 100; ++f) s.set(w, f, v);
  REQUIRE_FALSE(s.cycle(t0).message.empty());
  std::uint64_t allocations = 0;
  std::size_t sent = 0;
  for (int cycle = 1; cycle <= 20; ++cycle) {
    test::alloc_scope scope;
    for (std::size_t f = 0; f < 100; f += 3) {  // a third of the fields change
      *v.value.get_if<double>() = cycle * 1000.0 + static_cast<double>(f) + 0.25;
      s.set(0, f, v);
      s.set(1, f, v);
    }
    sent += s.cycle(t0).message.empty() ? 0 : 1;
    allocations += scope.counted().allocations;
  }
  CHECK(sent == 20);  // key frames and delta frames alike
  CHECK(allocations == 0);
}

TEST_CASE("pubsub json: hostile text is refused with a status and its place", "[pubsub]") {
  json_reader r({.max_bytes = 4096, .max_depth = 8, .max_values = 200, .max_string_bytes = 64});
  decoded_network_message n;
  json_error e;
  SECTION("truncated") {
    REQUIRE_FALSE(read_network_message(r, R"({"MessageId":"x","Messages":[)", {}, n, e));
    CHECK(e.status == ua::status::bad_decoding_error);
    CHECK(e.line == 1);
  }
  SECTION("nested past the depth limit") {
    REQUIRE_FALSE(read_network_message(r, std::string(20, '[') + std::string(20, ']'), {}, n, e));
    CHECK(e.status == ua::status::bad_encoding_limits_exceeded);
    CHECK(e.offset == 8);
  }
  SECTION("too many values") {
    std::string text = "[";
    for (int i = 0; i < 300; ++i) text += (i ? ",1" : "1");
    text += "]";
    REQUIRE_FALSE(read_network_message(r, text, {}, n, e));
    CHECK(e.status == ua::status::bad_encoding_limits_exceeded);
  }
  SECTION("a string past its limit") {
    REQUIRE_FALSE(read_network_message(r, "\"" + std::string(100, 'a') + "\"", {}, n, e));
    CHECK(e.status == ua::status::bad_encoding_limits_exceeded);
  }
  SECTION("too large") {
    REQUIRE_FALSE(read_network_message(r, std::string(5000, ' '), {}, n, e));
    CHECK(e.status == ua::status::bad_encoding_limits_exceeded);
  }
  SECTION("a wrong type, named with line and column") {
    REQUIRE_FALSE(read_network_message(r, "{\"MessageId\":\"x\",\"MessageType\":\"ua-data\",\n\"Messages\":[{\"SequenceNumber\":-1}]}", {}, n, e));
    CHECK(e.status == ua::status::bad_decoding_error);
    CHECK(e.line == 2);
    CHECK(e.what == "SequenceNumber is not a UInt32");
  }
  SECTION("a wrong MessageType") {
    REQUIRE_FALSE(read_network_message(r, R"({"MessageId":"x","MessageType":"ua-metadata","Messages":[]})", {}, n, e));
    CHECK(e.what.find("is not ua-data") != std::string::npos);
  }
  SECTION("more fields than the limit") {
    decode_limits limits;
    limits.max_fields = 2;
    REQUIRE_FALSE(read_network_message(r, R"({"Payload":{"a":1,"b":2,"c":3}})", limits, n, e));
    CHECK(e.status == ua::status::bad_encoding_limits_exceeded);
  }
  SECTION("bad escapes and lone surrogates") {
    REQUIRE_FALSE(read_network_message(r, R"("\x")", {}, n, e));
    REQUIRE_FALSE(read_network_message(r, R"("\udc00")", {}, n, e));
    REQUIRE_FALSE(read_network_message(r, R"("\ud800")", {}, n, e));
  }
}

// Hidden: the encoder's and the decoder's cost per value, alone (no broker, no threads).
// `uactor_pubsub_tests "[.pubsub-codec-cost]"`.
TEST_CASE("pubsub json: encoding and decoding cost of a 10,000-field key frame", "[.pubsub-codec-cost]") {
  constexpr std::size_t fields = 10'000;
  writer_group_config g;
  g.name = "G";
  resolved_writer w;
  w.config.name = "W";
  w.config.key_frame_count = 1;
  for (std::size_t f = 0; f < fields; ++f) w.fields.push_back({"v" + std::to_string(f), ua::builtin_type::double_, -1, {}});
  writer_group_state s("pub", g, {w}, "run");
  for (std::size_t f = 0; f < fields; ++f) s.set(0, f, dv(double(f) * 1.25));
  std::size_t bytes = 0;
  constexpr int rounds = 50;
  const ua::date_time t0_utc = ::t0;
  // The thread's CPU time: the machine is shared, wall time would count the others' work.
  const auto cpu_us = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e6 + double(ts.tv_nsec) / 1e3;
  };
  auto t0 = cpu_us();
  for (int i = 0; i < rounds; ++i) bytes = s.cycle(t0_utc).message.size();
  const double enc = (cpu_us() - t0) / rounds;
  const std::string text(s.cycle(t0_utc).message);
  json_reader r;
  decoded_network_message n;
  json_error e;
  t0 = cpu_us();
  for (int i = 0; i < rounds; ++i) REQUIRE(read_network_message(r, text, {}, n, e));
  const double dec = (cpu_us() - t0) / rounds;
  WARN("10,000 Double fields (variant encoding), " << bytes << " bytes: encode " << enc << " us (" << enc * 1000 / fields
                                                    << " ns/value), decode " << dec << " us (" << dec * 1000 / fields
                                                    << " ns/value)");
}
