// Base64 (protocol/base64.hpp): RFC 4648's vectors both ways, and every malformed text refused with
// a reason, never decoded to something else.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/base64.hpp"
#include "uactor/ua/status_codes.hpp"

using namespace uactor::ua;

namespace {

constexpr std::size_t no_limit = 1u << 20;

status_code decode_error(std::string_view text, std::string& why, std::size_t max_bytes = no_limit,
                         base64_whitespace ws = base64_whitespace::refuse) {
  why.clear();
  return base64_decode(text, max_bytes, ws, &why).error();
}

}  // namespace

TEST_CASE("base64: the test vectors of RFC 4648 §10, both ways", "[protocol]") {
  const std::pair<std::string_view, std::string_view> vectors[] = {
      {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"}};
  for (const auto& [bytes, text] : vectors) {
    CAPTURE(bytes);
    CHECK(base64_encode(bytes) == text);
    const auto decoded = base64_decode(text, no_limit);
    REQUIRE(decoded);
    CHECK(*decoded == bytes);
  }
}

TEST_CASE("base64: every byte value and every length remainder round-trips", "[protocol]") {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  for (std::size_t n = 0; n <= all.size(); n += 1 + n / 16) {
    const std::string_view bytes(all.data() + (256 - n), n);  // the high bytes first: sign bugs show
    const auto decoded = base64_decode(base64_encode(bytes), n);
    REQUIRE(decoded);
    CHECK(*decoded == bytes);
  }
  const std::vector<std::uint8_t> span_bytes{0xFB, 0xFF, 0x00};
  CHECK(base64_encode(span_bytes) == "+/8A");
}

TEST_CASE("base64: malformed texts are refused with a reason", "[protocol]") {
  std::string why;
  SECTION("a character outside the alphabet") {
    CHECK(decode_error("Zm9v!A==", why) == status::bad_decoding_error);
    CHECK(why == "base64: '!' at offset 4 is not of the base64 alphabet");
    CHECK(decode_error("Zm9v-_==", why) == status::bad_decoding_error);  // base64url is not base64
    CHECK(decode_error(std::string_view("Zm\0v", 4), why) == status::bad_decoding_error);
    CHECK(why == "base64: byte 0x00 at offset 2 is not of the base64 alphabet");
  }
  SECTION("white space, unless the caller skips it") {
    CHECK(decode_error("Zm9v YmFy", why) == status::bad_decoding_error);
    CHECK(decode_error("Zm9v\nYmFy", why) == status::bad_decoding_error);
    const auto skipped = base64_decode(" Zm9v\n\tYmE=\r\n", no_limit, base64_whitespace::skip);
    REQUIRE(skipped);
    CHECK(*skipped == "fooba");
  }
  SECTION("wrong padding") {
    CHECK(decode_error("Zg", why) == status::bad_decoding_error);  // missing
    CHECK(why == "base64: 2 characters, not a multiple of 4 (missing '=' padding?)");
    CHECK(decode_error("Zg=", why) == status::bad_decoding_error);
    CHECK(decode_error("Zg===", why) == status::bad_decoding_error);
    CHECK(decode_error("Z===", why) == status::bad_decoding_error);
    CHECK(why == "base64: more than two '=' of padding");
    CHECK(decode_error("====", why) == status::bad_decoding_error);
    CHECK(decode_error("Zg==Zg==", why) == status::bad_decoding_error);  // padding inside
    CHECK(why == "base64: data after the '=' padding at offset 4");
    CHECK(decode_error("Z=g=", why) == status::bad_decoding_error);
  }
  SECTION("bits the padding drops that are not zero (RFC 4648 §3.5)") {
    CHECK(decode_error("Zh==", why) == status::bad_decoding_error);
    CHECK(why == "base64: the bits before '==' are not zero");
    CHECK(decode_error("Zm9=", why) == status::bad_decoding_error);
    CHECK(why == "base64: the bits before '=' are not zero");
  }
  SECTION("more bytes than the caller's limit, checked before decoding") {
    CHECK(decode_error("Zm9vYmFy", why, 5) == status::bad_encoding_limits_exceeded);
    CHECK(why == "base64: 6 bytes, more than the limit of 5");
    CHECK(base64_decode("Zm9vYmFy", 6));
    CHECK(decode_error("Zm9vYg==", why, 0) == status::bad_encoding_limits_exceeded);
    CHECK(base64_decode("", 0));
  }
}
