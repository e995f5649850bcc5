// Hostile input: every valid encoding of the test set, cut at every byte offset, fails cleanly
// with Bad_DecodingError; and a corrupted byte anywhere never crashes or over-reads (the
// sanitizer build of CI runs this too).
#include <catch2/catch.hpp>

#include "tests/support/samples.hpp"

using namespace uactor;

namespace {

std::vector<test::sample> test_set() {
  auto all = test::node_opcua_vectors();
  for (auto& s : test::built_samples()) all.push_back(std::move(s));
  return all;
}

}  // namespace

TEST_CASE("grind: every valid encoding cut at every byte offset gets Bad_DecodingError", "[protocol][grind]") {
  const auto samples = test_set();
  REQUIRE(samples.size() > 50);
  test::bytes out;
  std::size_t cuts = 0;
  for (const auto& s : samples) {
    INFO(s.name);
    REQUIRE(test::decode_and_reencode(s, s.encoded, out) == ua::status::good);
    for (std::size_t cut = 0; cut < s.encoded.size(); ++cut) {
      // A copy of exactly `cut` bytes, so that a read past it is an error the sanitizers see.
      const test::bytes prefix(s.encoded.begin(), s.encoded.begin() + static_cast<std::ptrdiff_t>(cut));
      INFO("cut at " << cut << " of " << s.encoded.size());
      REQUIRE(test::decode_and_reencode(s, prefix, out) == ua::status::bad_decoding_error);
      ++cuts;
    }
  }
  CHECK(cuts > 1000);
}

TEST_CASE("grind: a flipped byte anywhere decodes or fails, never crashes", "[protocol][grind]") {
  test::bytes out;
  for (const auto& s : test_set()) {
    for (std::size_t at = 0; at < s.encoded.size(); ++at) {
      for (std::uint8_t flip : {0x01, 0x80, 0xFF}) {
        auto corrupted = s.encoded;
        corrupted[at] ^= flip;
        const auto sc = test::decode_and_reencode(s, corrupted, out);
        // Whatever it decodes to, a good result re-encodes to something it decodes again.
        if (sc.is_good()) {
          test::bytes again;
          REQUIRE(test::decode_and_reencode(s, out, again).is_good());
        }
      }
    }
  }
}
