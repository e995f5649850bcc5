// The worker protocol's frames (scripting/frames.hpp): round trips, any split, hostile input.
#include <catch2/catch.hpp>

#include "uactor/ua/status_codes.hpp"
#include "scripting/frames.hpp"

using namespace uactor;
using namespace uactor::scripting;

namespace {

std::vector<std::vector<std::byte>> feed(frame_reader& r, std::span<const std::byte> in, std::size_t cut,
                                         ua::status_code& sc) {
  std::vector<std::vector<std::byte>> frames;
  const auto take = [&](std::span<const std::byte> body) { frames.emplace_back(body.begin(), body.end()); };
  sc = r.put(in.first(cut), take);
  if (sc.is_good()) sc = r.put(in.subspan(cut), take);
  return frames;
}

std::vector<std::byte> sample_stream() {
  std::vector<std::byte> s;
  run_batch_frame b;
  b.batch = 7;
  b.now_seconds = 1.5e9;
  b.runs.push_back({3, true, {std::monostate{}, true, std::int64_t{-4}, 2.5, std::string("pump")}});
  b.runs.push_back({9, false, {}});
  encode(b, s);
  result_frame r;
  r.batch = 7;
  r.item = 3;
  r.result.how = outcome::script_error;
  r.result.error = "x:1: boom";
  r.result.value = 1.25;
  r.duration_ns = 1234;
  encode(r, s);
  encode(heartbeat_frame{42}, s);
  return s;
}

}  // namespace

TEST_CASE("frames: a stream split at any byte yields the same frames", "[scripts]") {
  const auto stream = sample_stream();
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    frame_reader reader;
    ua::status_code sc;
    const auto frames = feed(reader, stream, cut, sc);
    REQUIRE(sc.is_good());
    REQUIRE(frames.size() == 3);
    REQUIRE_FALSE(reader.mid_frame());
    const auto b = decode_run_batch(frames[0]);
    REQUIRE(b);
    REQUIRE(b->batch == 7);
    REQUIRE(b->runs.size() == 2);
    REQUIRE(b->runs[0].item == 3);
    REQUIRE(b->runs[0].active);
    REQUIRE(b->runs[0].inputs.size() == 5);
    REQUIRE(std::get<std::int64_t>(b->runs[0].inputs[2]) == -4);
    REQUIRE(std::get<std::string>(b->runs[0].inputs[4]) == "pump");
    const auto r = decode_result(frames[1]);
    REQUIRE(r);
    REQUIRE(r->result.how == outcome::script_error);
    REQUIRE(r->result.error == "x:1: boom");
    REQUIRE(r->duration_ns == 1234);
    REQUIRE(decode_heartbeat(frames[2])->sequence == 42);
  }
}

TEST_CASE("frames: a load frame round-trips every item kind", "[scripts]") {
  load_frame l;
  item_spec a;
  a.kind = item_kind::alarm;
  a.name = "alarms[0]";
  a.source = "p > 80";
  a.input_names = {"p"};
  l.items.push_back(a);
  std::vector<std::byte> s;
  encode(l, s);
  const auto back = decode_load(std::span(s).subspan(frame_header_size));
  REQUIRE(back);
  REQUIRE(back->items.size() == 1);
  REQUIRE(back->items[0].kind == item_kind::alarm);
  REQUIRE(back->items[0].input_names == std::vector<std::string>{"p"});
}

TEST_CASE("frames: a header of length 0 or over the limit gets Bad_EncodingLimitsExceeded before any body", "[scripts]") {
  for (const std::uint32_t n : {0u, 1025u, 0xFFFFFFFFu}) {
    frame_reader reader(1024);
    const std::byte h[4] = {std::byte(n & 0xFF), std::byte((n >> 8) & 0xFF), std::byte((n >> 16) & 0xFF),
                            std::byte(n >> 24)};
    int frames = 0;
    REQUIRE(reader.put(h, [&](auto) { ++frames; }) == ua::status::bad_encoding_limits_exceeded);
    REQUIRE(frames == 0);
    // It stays failed.
    REQUIRE(reader.put(h, [&](auto) { ++frames; }) == ua::status::bad_encoding_limits_exceeded);
  }
}

TEST_CASE("frames: every truncation of a body and trailing bytes and get Bad_DecodingError", "[scripts]") {
  const auto stream = sample_stream();
  frame_reader reader;
  std::vector<std::vector<std::byte>> frames;
  REQUIRE(reader.put(stream, [&](std::span<const std::byte> b) { frames.emplace_back(b.begin(), b.end()); }).is_good());
  for (std::size_t n = 0; n < frames[0].size(); ++n)
    REQUIRE(decode_run_batch(std::span(frames[0]).first(n)).error() == ua::status::bad_decoding_error);
  for (std::size_t n = 0; n < frames[1].size(); ++n)
    REQUIRE(decode_result(std::span(frames[1]).first(n)).error() == ua::status::bad_decoding_error);
  auto longer = frames[2];
  longer.push_back(std::byte{0});
  REQUIRE(decode_heartbeat(longer).error() == ua::status::bad_decoding_error);
  // The wrong decoder for a frame's type refuses it.
  REQUIRE(decode_result(frames[0]).error() == ua::status::bad_decoding_error);
}

TEST_CASE("frames: hostile counts and lengths are refused without allocating for them", "[scripts]") {
  // A batch claiming 2^32-1 runs in a few bytes.
  std::vector<std::byte> body{std::byte(frame_type::run_batch)};
  for (int i = 0; i < 16; ++i) body.push_back(std::byte{0});
  for (int i = 0; i < 4; ++i) body.push_back(std::byte{0xFF});
  REQUIRE(decode_run_batch(body).error() == ua::status::bad_decoding_error);
  // A result whose error string claims 4 GiB.
  std::vector<std::byte> r{std::byte(frame_type::result)};
  for (int i = 0; i < 12; ++i) r.push_back(std::byte{0});
  r.push_back(std::byte{1});  // outcome
  r.push_back(std::byte{0});  // nil value
  for (int i = 0; i < 4; ++i) r.push_back(std::byte{0xFF});
  REQUIRE(decode_result(r).error() == ua::status::bad_decoding_error);
  // An unknown value tag, an unknown outcome, an unknown item kind: a valid result patched.
  std::vector<std::byte> v;
  encode(result_frame{}, v);
  v.erase(v.begin(), v.begin() + frame_header_size);
  REQUIRE(decode_result(v));
  auto tag = v;
  tag[14] = std::byte{9};
  REQUIRE(decode_result(tag).error() == ua::status::bad_decoding_error);
  auto how = v;
  how[13] = std::byte{77};
  REQUIRE(decode_result(how).error() == ua::status::bad_decoding_error);
  std::vector<std::byte> l{std::byte(frame_type::load), std::byte{1}, std::byte{0}, std::byte{0}, std::byte{0},
                           std::byte{9}};
  for (int i = 0; i < 12; ++i) l.push_back(std::byte{0});
  REQUIRE(decode_load(l).error() == ua::status::bad_decoding_error);
}
