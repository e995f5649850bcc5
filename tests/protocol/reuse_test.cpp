// Decoding into a reused message object allocates nothing once it has the message's shape:
// the property the actors' hot paths rely on (hot paths allocate nothing: docs/performance.md).
#include <catch2/catch.hpp>

#include "protocol/message.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/samples.hpp"

using namespace uactor;

#define REQUIRE_ALLOCATION_COUNTING() \
  if (!test::counts_allocations) { WARN("skipped: allocations are not counted in a sanitizer build"); return; }

TEST_CASE("reuse: decoding the same messages again into the same object allocates nothing", "[protocol]") {
  REQUIRE_ALLOCATION_COUNTING();
  std::vector<test::sample> messages;
  for (auto& s : test::node_opcua_vectors())
    if (s.kind == "message") messages.push_back(std::move(s));
  for (auto& s : test::built_samples()) messages.push_back(std::move(s));
  REQUIRE(messages.size() > 10);

  for (const auto& s : messages) {
    INFO(s.name);
    ua::extension_object reused;
    REQUIRE(ua::decode_message(s.encoded, reused) == ua::status::good);
    test::alloc_scope scope;
    REQUIRE(ua::decode_message(s.encoded, reused) == ua::status::good);
    CHECK(scope.counted().allocations == 0);
  }
}

TEST_CASE("reuse: encoding into a buffer with capacity allocates nothing", "[protocol]") {
  REQUIRE_ALLOCATION_COUNTING();
  for (const auto& s : test::built_samples()) {
    INFO(s.name);
    ua::extension_object msg;
    REQUIRE(ua::decode_message(s.encoded, msg) == ua::status::good);
    ua::byte_buffer buffer(s.encoded.size());
    test::alloc_scope scope;
    ua::encoder e(buffer);
    ua::encode_message(e, *msg.body());
    CHECK(scope.counted().allocations == 0);
    CHECK(buffer.to_vector() == s.encoded);
  }
}
