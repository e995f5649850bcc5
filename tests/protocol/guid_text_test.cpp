// A Guid's text (protocol/guid_text.hpp, Part 6 §5.1.3): both ways, and malformed texts refused.
#include <catch2/catch.hpp>

#include <string>

#include "uactor/ua/status_codes.hpp"
#include "protocol/guid_text.hpp"

using namespace uactor::ua;

namespace {

// Part 6 §5.1.3's example: Data1 = 0x72962B91, Data2 = 0xFA75, Data3 = 0x4AE6, Data4 = 8D 28 B4 04 DC 7D AF 63.
guid sample() { return guid{0x72962B91, 0xFA75, 0x4AE6, {0x8D, 0x28, 0xB4, 0x04, 0xDC, 0x7D, 0xAF, 0x63}}; }

}  // namespace

TEST_CASE("guid text: written in upper case, read in either case", "[protocol]") {
  CHECK(sample().to_string() == "72962B91-FA75-4AE6-8D28-B404DC7DAF63");
  const auto upper = parse_guid("72962B91-FA75-4AE6-8D28-B404DC7DAF63");
  REQUIRE(upper);
  CHECK(*upper == sample());
  const auto lower = parse_guid("72962b91-fa75-4ae6-8d28-b404dc7daf63");
  REQUIRE(lower);
  CHECK(*lower == sample());
  for (const guid& g : {guid{}, sample(), guid{0xFFFFFFFF, 0xFFFF, 0xFFFF, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}}}) {
    const auto back = parse_guid(g.to_string());
    REQUIRE(back);
    CHECK(*back == g);
  }
}

TEST_CASE("guid text: malformed texts are refused with a reason", "[protocol]") {
  std::string why;
  const auto refused = [&](std::string_view text) {
    why.clear();
    return parse_guid(text, &why).error() == status::bad_decoding_error && !why.empty();
  };
  CHECK(refused(""));
  CHECK(refused("72962B91-FA75-4AE6-8D28"));
  CHECK(why == "Guid: 23 characters, not 36 (the form is 72962B91-FA75-4AE6-8D28-B404DC7DAF63)");
  CHECK(refused("72962B91-FA75-4AE6-8D28-B404DC7DAF6"));
  CHECK(refused("72962B91-FA75-4AE6-8D28-B404DC7DAF633"));
  CHECK(refused("{72962B91-FA75-4AE6-8D28-B404DC7DAF63}"));  // the registry form is the caller's to strip
  CHECK(refused(" 72962B91-FA75-4AE6-8D28-B404DC7DAF6"));
  CHECK(refused("72962B91FA75-4AE6-8D28-B404DC7DAF63-"));  // the hyphens where they belong
  CHECK(why.find("a '-' is missing at offset 8") != std::string::npos);
  CHECK(refused("72962B91-FA75-4AE6-8D28-B404DC7DAF6G"));
  CHECK(why.find("offset 35 is not a hex digit") != std::string::npos);
  CHECK(refused("+2962B91-FA75-4AE6-8D28-B404DC7DAF63"));
  CHECK(refused("72962B91-FA75-4AE6-8D28-B404DC7DAF\xC3\xA9"));
}
