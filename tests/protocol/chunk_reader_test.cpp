// chunk_reader: framing chunks out of a byte stream however it is cut (Part 6 §7.1.2), and
// refusing hostile headers before buffering anything.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "protocol/chunk_reader.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/bytes.hpp"

using namespace uactor;
namespace status = ua::status;

namespace {

struct seen_chunk {
  ua::message_type type;
  ua::chunk_type chunk;
  test::bytes bytes;
  friend bool operator==(const seen_chunk&, const seen_chunk&) = default;
};

// A chunk of `size` bytes: a valid header, then a counting pattern.
test::bytes make_chunk(const char* type_and_chunk, std::uint32_t size, std::uint8_t seed) {
  test::bytes b(size);
  std::memcpy(b.data(), type_and_chunk, 4);
  std::memcpy(b.data() + 4, &size, 4);
  for (std::size_t i = 8; i < size; ++i) b[i] = static_cast<std::uint8_t>(seed + i);
  return b;
}

struct fixture_stream {
  test::bytes stream;
  std::vector<seen_chunk> chunks;
};

// Hello, then a 3-chunk message (C, C, F) of mixed sizes, then an empty-bodied CLO.
fixture_stream three_chunk_stream() {
  fixture_stream f;
  auto add = [&](const char* tc, std::uint32_t size, std::uint8_t seed) {
    auto c = make_chunk(tc, size, seed);
    const auto h = ua::parse_message_header(std::span<const std::uint8_t, 8>(c.data(), 8));
    f.chunks.push_back({h->type, h->chunk, c});
    f.stream.insert(f.stream.end(), c.begin(), c.end());
  };
  add("HELF", 40, 1);
  add("MSGC", 300, 2);
  add("MSGC", 9, 3);
  add("MSGF", 1000, 4);
  add("CLOF", 8, 5);
  return f;
}

// Feeds the parts as a transport would: unused bytes stay at the front of its buffer.
std::vector<seen_chunk> feed(ua::chunk_reader& reader, const std::vector<test::bytes>& parts) {
  std::vector<seen_chunk> out;
  test::bytes pending;
  for (const auto& part : parts) {
    pending.insert(pending.end(), part.begin(), part.end());
    const auto used = reader.put(pending, [&](const ua::chunk_view& c) {
      out.push_back({c.type, c.chunk, test::bytes(c.bytes.begin(), c.bytes.end())});
    });
    REQUIRE(used.has_value());
    REQUIRE(*used <= pending.size());
    pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(*used));
  }
  CHECK(pending.empty());
  return out;
}

std::vector<seen_chunk> feed_in_two_parts(const test::bytes& stream, std::size_t cut) {
  ua::chunk_reader reader({});
  return feed(reader, {test::bytes(stream.begin(), stream.begin() + static_cast<std::ptrdiff_t>(cut)),
                       test::bytes(stream.begin() + static_cast<std::ptrdiff_t>(cut), stream.end())});
}

}  // namespace

TEST_CASE("chunk_reader: several whole chunks in one put are handed out in place", "[protocol]") {
  const auto f = three_chunk_stream();
  ua::chunk_reader reader({});
  std::vector<seen_chunk> seen;
  bool all_in_place = true;
  const auto used = reader.put(f.stream, [&](const ua::chunk_view& c) {
    all_in_place = all_in_place && c.bytes.data() >= f.stream.data() &&
                   c.bytes.data() + c.bytes.size() <= f.stream.data() + f.stream.size();
    seen.push_back({c.type, c.chunk, test::bytes(c.bytes.begin(), c.bytes.end())});
  });
  REQUIRE(used.has_value());
  CHECK(*used == f.stream.size());
  CHECK(seen == f.chunks);
  CHECK(all_in_place);  // no copy for chunks that lie whole in the input
  CHECK_FALSE(reader.holds_partial_chunk());
}

TEST_CASE("chunk_reader: pause() after a chunk returns the bytes used so far, the rest, put again, yields the others",
          "[protocol]") {
  const auto f = three_chunk_stream();
  // Pausing after each chunk in turn (as a connection does behind an OpenSecureChannel), at every
  // cut of the stream into two receives: the chunks come out the same and in order.
  for (std::size_t pause_after = 0; pause_after < f.chunks.size(); ++pause_after) {
    for (std::size_t cut = 1; cut < f.stream.size(); cut += 7) {
      ua::chunk_reader reader({});
      std::vector<seen_chunk> seen;
      test::bytes pending;
      const test::bytes parts[] = {test::bytes(f.stream.begin(), f.stream.begin() + static_cast<std::ptrdiff_t>(cut)),
                                   test::bytes(f.stream.begin() + static_cast<std::ptrdiff_t>(cut), f.stream.end())};
      std::size_t paused = 0;
      const auto put_all = [&] {
        for (int round = 0; round < 10; ++round) {
          const auto before = seen.size();
          const auto used = reader.put(pending, [&](const ua::chunk_view& c) {
            seen.push_back({c.type, c.chunk, test::bytes(c.bytes.begin(), c.bytes.end())});
            if (seen.size() - 1 == pause_after) {
              reader.pause();
              ++paused;
            }
          });
          REQUIRE(used.has_value());
          pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(*used));
          if (seen.size() == before) return;  // nothing more in what is pending
        }
      };
      for (const auto& part : parts) {
        pending.insert(pending.end(), part.begin(), part.end());
        put_all();
      }
      INFO("pause after chunk " << pause_after << ", cut at " << cut);
      CHECK(paused == 1);
      CHECK(seen == f.chunks);
      CHECK(pending.empty());
    }
  }
}

TEST_CASE("chunk_reader: a stream split at any byte yields the same chunks", "[protocol]") {
  const auto f = three_chunk_stream();
  for (std::size_t cut = 1; cut < f.stream.size(); ++cut) {
    INFO("cut at " << cut);
    REQUIRE(feed_in_two_parts(f.stream, cut) == f.chunks);
  }
}

TEST_CASE("chunk_reader: a stream fed byte by byte yields the same chunks", "[protocol]") {
  const auto f = three_chunk_stream();
  std::vector<test::bytes> parts;
  for (auto b : f.stream) parts.push_back({b});
  ua::chunk_reader reader({});
  CHECK(feed(reader, parts) == f.chunks);
}

TEST_CASE("chunk_reader: fewer than 8 bytes are left to the caller: zero used means give me more", "[protocol]") {
  const auto f = three_chunk_stream();
  ua::chunk_reader reader({});
  int calls = 0;
  for (std::size_t n = 0; n < 8; ++n) {
    const auto used = reader.put(std::span(f.stream.data(), n), [&](const ua::chunk_view&) { ++calls; });
    REQUIRE(used.has_value());
    CHECK(*used == 0);
  }
  CHECK(calls == 0);
}

TEST_CASE("chunk_reader: a header that says 4 GB gets Bad_TcpMessageTooLarge without allocating", "[protocol]") {
  auto chunk = make_chunk("MSGF", 64, 0);
  const std::uint32_t huge = 0xFFFFFFFFu;
  std::memcpy(chunk.data() + 4, &huge, 4);
  ua::chunk_reader reader({});
  test::alloc_scope scope;
  const auto used = reader.put(chunk, [](const ua::chunk_view&) {});
  const auto allocations = scope.counted().allocations;
  REQUIRE_FALSE(used.has_value());
  CHECK(used.error() == status::bad_tcp_message_too_large);
  if (test::counts_allocations) CHECK(allocations == 0);
  CHECK_FALSE(reader.holds_partial_chunk());
  // The error is sticky: the connection is over.
  CHECK(reader.put(make_chunk("HELF", 40, 0), [](const ua::chunk_view&) {}).error() == status::bad_tcp_message_too_large);
}

TEST_CASE("chunk_reader: the limit is the configured size before Hello, the negotiated one after", "[protocol]") {
  ua::transport_limits limits;
  limits.receive_buffer_size = 9000;
  {
    ua::chunk_reader reader(limits);
    CHECK(reader.put(make_chunk("MSGF", 9000, 0), [](const ua::chunk_view&) {}).has_value());
    CHECK(reader.put(make_chunk("MSGF", 9001, 0), [](const ua::chunk_view&) {}).error() ==
          status::bad_tcp_message_too_large);
  }
  {
    ua::chunk_reader reader(limits);
    reader.set_receive_buffer_size(8192);
    CHECK(reader.put(make_chunk("MSGF", 8193, 0), [](const ua::chunk_view&) {}).error() ==
          status::bad_tcp_message_too_large);
  }
  {
    // Only the header is needed to refuse: the body never arrives.
    ua::chunk_reader reader(limits);
    const auto c = make_chunk("OPNF", 9001, 0);
    CHECK(reader.put(std::span(c.data(), 8), [](const ua::chunk_view&) {}).error() ==
          status::bad_tcp_message_too_large);
  }
}

TEST_CASE("chunk_reader: an unknown message type gets Bad_TcpMessageTypeInvalid", "[protocol]") {
  for (const char* bad : {"GET ", "XYZF", "HELC", "ACKA", "OPNC", "CLOA", "MSGZ", "msgF"}) {
    INFO(bad);
    ua::chunk_reader reader({});
    const auto c = make_chunk(bad, 16, 0);
    CHECK(reader.put(c, [](const ua::chunk_view&) {}).error() == status::bad_tcp_message_type_invalid);
  }
}

TEST_CASE("chunk_reader: a size below the header's 8 bytes is malformed", "[protocol]") {
  auto c = make_chunk("MSGF", 16, 0);
  const std::uint32_t seven = 7;
  std::memcpy(c.data() + 4, &seven, 4);
  ua::chunk_reader reader({});
  CHECK(reader.put(c, [](const ua::chunk_view&) {}).error() == status::bad_decoding_error);
}

TEST_CASE("chunk_reader: chunks after a bad one in the same input are not handed out", "[protocol]") {
  auto stream = make_chunk("MSGF", 20, 0);
  const auto bad = make_chunk("BAD!", 20, 0);
  stream.insert(stream.end(), bad.begin(), bad.end());
  const auto after = make_chunk("MSGF", 20, 0);
  stream.insert(stream.end(), after.begin(), after.end());
  ua::chunk_reader reader({});
  int calls = 0;
  CHECK(reader.put(stream, [&](const ua::chunk_view&) { ++calls; }).error() == status::bad_tcp_message_type_invalid);
  CHECK(calls == 1);
}

TEST_CASE("chunk_reader: a callback returning a bad status stops the reader", "[protocol]") {
  const auto f = three_chunk_stream();
  ua::chunk_reader reader({});
  int calls = 0;
  const auto used = reader.put(f.stream, [&](const ua::chunk_view&) -> ua::status_code {
    ++calls;
    return calls == 2 ? status::bad_sequence_number_invalid : status::good;
  });
  CHECK(used.error() == status::bad_sequence_number_invalid);
  CHECK(calls == 2);
}

TEST_CASE("chunk_reader: a split chunk is copied once into a buffer that is reused", "[protocol]") {
  const auto c = make_chunk("MSGF", 5000, 7);
  ua::chunk_reader reader({});
  auto split_feed = [&] {
    std::size_t seen = 0;
    auto on = [&](const ua::chunk_view& v) {
      seen = v.bytes.size();
      CHECK(std::equal(v.bytes.begin(), v.bytes.end(), c.begin()));
    };
    REQUIRE(reader.put(std::span(c.data(), 100), on).value() == 100);
    CHECK(reader.holds_partial_chunk());
    REQUIRE(reader.put(std::span(c.data() + 100, c.size() - 100), on).value() == c.size() - 100);
    CHECK(seen == c.size());
  };
  split_feed();
  test::alloc_scope scope;
  split_feed();
  if (test::counts_allocations) CHECK(scope.counted().allocations == 0);
}

TEST_CASE("chunk_reader: missing() says how much of a chunk held in pieces is still to come", "[protocol]") {
  ua::chunk_reader reader{ua::transport_limits{}};
  const auto chunk = make_chunk("MSGF", 20'000, 7);
  CHECK(reader.missing() == 0);
  int seen = 0;
  const auto count = [&](const ua::chunk_view&) { ++seen; };
  REQUIRE(reader.put(std::span(chunk.data(), 8192), count).value() == 8192);
  CHECK(reader.missing() == 20'000 - 8192);
  // The rest in one receive of exactly that size completes it.
  REQUIRE(reader.put(std::span(chunk.data() + 8192, reader.missing()), count).value() == 20'000 - 8192);
  CHECK(seen == 1);
  CHECK(reader.missing() == 0);
}
