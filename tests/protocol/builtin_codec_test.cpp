// The built-in types of Part 6 §5.2.2: exact bytes, null versus empty, masks, and limits.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "protocol/codec.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "tests/support/bytes.hpp"

using namespace uactor;
using namespace uactor::ua;
using test::from_hex;
using test::to_hex;

namespace {

template <class T>
std::string hex_of(const T& v) { return to_hex(encode_to_bytes(v)); }

// Decodes `hex` as T, checks it re-encodes to the same bytes, and returns the value.
template <class T>
T round_trip(std::string_view hex) {
  const auto in = from_hex(hex);
  T v{};
  REQUIRE(decode_from_bytes(in, v) == status::good);
  REQUIRE(to_hex(encode_to_bytes(v)) == to_hex(in));
  return v;
}

template <class T>
status_code decode_status(std::string_view hex, const decode_limits& limits = {}) {
  T v{};
  return decode_from_bytes(from_hex(hex), v, limits);
}

}  // namespace

TEST_CASE("codec: integers and floats are little-endian IEEE 754", "[protocol]") {
  CHECK(hex_of(std::int32_t{-2}) == "fe ff ff ff");
  CHECK(hex_of(std::uint16_t{0x1234}) == "34 12");
  CHECK(hex_of(std::int64_t{std::numeric_limits<std::int64_t>::min()}) == "00 00 00 00 00 00 00 80");
  CHECK(hex_of(1.0) == "00 00 00 00 00 00 f0 3f");
  CHECK(hex_of(-0.0f) == "00 00 00 80");
  const auto nan = round_trip<double>("01 00 00 00 00 00 f8 7f");  // a NaN payload survives
  CHECK(std::isnan(nan));
}

TEST_CASE("codec: Boolean reads any non-zero byte as true and writes 1", "[protocol]") {
  bool b = false;
  REQUIRE(decode_from_bytes(from_hex("07"), b) == status::good);
  CHECK(b);
  CHECK(hex_of(true) == "01");
}

TEST_CASE("codec: a null String, an empty String and a String differ on the wire", "[protocol]") {
  CHECK(hex_of(ua_string{}) == "ff ff ff ff");
  CHECK(hex_of(ua_string{""}) == "00 00 00 00");
  CHECK(hex_of(ua_string{"abc"}) == "03 00 00 00 61 62 63");
  CHECK(round_trip<ua_string>("ff ff ff ff").is_null());
  CHECK(!round_trip<ua_string>("00 00 00 00").is_null());
  CHECK(round_trip<byte_string>("02 00 00 00 00 ff").size() == 2);
}

TEST_CASE("codec: a length below -1 is malformed", "[protocol]") {
  CHECK(decode_status<ua_string>("fe ff ff ff") == status::bad_decoding_error);
  CHECK(decode_status<ua_array<std::int32_t>>("fe ff ff ff") == status::bad_decoding_error);
}

TEST_CASE("codec: lengths beyond the limits get BadEncodingLimitsExceeded", "[protocol]") {
  decode_limits small;
  small.max_string_length = 3;
  small.max_byte_string_length = 2;
  small.max_array_length = 2;
  CHECK(decode_status<ua_string>("03 00 00 00 61 62 63", small) == status::good);
  CHECK(decode_status<ua_string>("04 00 00 00 61 62 63 64", small) == status::bad_encoding_limits_exceeded);
  CHECK(decode_status<byte_string>("03 00 00 00 61 62 63", small) == status::bad_encoding_limits_exceeded);
  CHECK(decode_status<ua_array<std::uint8_t>>("03 00 00 00 01 02 03", small) == status::bad_encoding_limits_exceeded);
  // The default limits: 16 MiB strings, 1,000,000 array elements.
  CHECK(decode_status<ua_string>("01 00 00 01") == status::bad_encoding_limits_exceeded);
  CHECK(decode_status<ua_array<std::uint8_t>>("41 42 0f 00") == status::bad_encoding_limits_exceeded);
}

TEST_CASE("codec: a length the input cannot hold is truncation, refused before allocating", "[protocol]") {
  CHECK(decode_status<ua_string>("10 00 00 00 61") == status::bad_decoding_error);
  // 1,000,000 Int64s claimed in 8 bytes: no 8 MB vector is made for them.
  CHECK(decode_status<ua_array<std::int64_t>>("40 42 0f 00 01 02 03 04 05 06 07 08") == status::bad_decoding_error);
}

TEST_CASE("codec: NodeId takes the shortest of its numeric encodings", "[protocol]") {
  CHECK(hex_of(node_id{0, 85}) == "00 55");
  CHECK(hex_of(node_id{0, 256}) == "01 00 00 01");
  CHECK(hex_of(node_id{1, 1000}) == "01 01 e8 03");
  CHECK(hex_of(node_id{256, 1}) == "02 00 01 01 00 00 00");
  CHECK(hex_of(node_id{2, 100000}) == "02 02 00 a0 86 01 00");
  // A longer encoding than needed is accepted; it is re-encoded in the shortest form.
  node_id n;
  REQUIRE(decode_from_bytes(from_hex("02 00 00 55 00 00 00"), n) == status::good);
  CHECK(n == node_id{0, 85});
}

TEST_CASE("codec: NodeId string, guid and opaque identifiers", "[protocol]") {
  const auto s = round_trip<node_id>("03 01 00 0a 00 00 00 74 68 65 2e 61 6e 73 77 65 72");
  CHECK(s == node_id::string(1, "the.answer"));
  CHECK(s.to_string() == "ns=1;s=the.answer");
  const auto g = round_trip<node_id>("04 02 00 91 2b 96 72 75 fa e6 4a 8d 28 b4 04 dc 7d af 63");
  CHECK(g.to_string() == "ns=2;g=72962B91-FA75-4AE6-8D28-B404DC7DAF63");
  const auto b = round_trip<node_id>("05 03 00 03 00 00 00 01 02 03");
  CHECK(b.to_string() == "ns=3;b=AQID");
  CHECK(decode_status<node_id>("06 00") == status::bad_decoding_error);
  CHECK(node_id{}.is_null());
}

TEST_CASE("codec: ExpandedNodeId carries a namespace URI and a server index only when set", "[protocol]") {
  expanded_node_id x{node_id{0, 85}, {}, 0};
  CHECK(hex_of(x) == "00 55");
  x.namespace_uri = "urn:a";
  x.server_index = 2;
  // With either flag the NodeId takes its full numeric form (as node-opcua writes it).
  CHECK(hex_of(x) == "c2 00 00 55 00 00 00 05 00 00 00 75 72 6e 3a 61 02 00 00 00");
  CHECK(round_trip<expanded_node_id>("c2 00 00 55 00 00 00 05 00 00 00 75 72 6e 3a 61 02 00 00 00") == x);
}

TEST_CASE("codec: LocalizedText and QualifiedName", "[protocol]") {
  CHECK(hex_of(localized_text{}) == "00");
  CHECK(hex_of(localized_text{"en", "hi"}) == "03 02 00 00 00 65 6e 02 00 00 00 68 69");
  localized_text text_only;
  text_only.text = "hi";
  CHECK(hex_of(text_only) == "02 02 00 00 00 68 69");
  CHECK(round_trip<localized_text>("01 02 00 00 00 65 6e").text.is_null());
  CHECK(hex_of(qualified_name{1, "x"}) == "01 00 01 00 00 00 78");
}

TEST_CASE("codec: Guid is Data1-3 little-endian then Data4 bytes", "[protocol]") {
  guid g{0x72962B91, 0xFA75, 0x4AE6, {0x8D, 0x28, 0xB4, 0x04, 0xDC, 0x7D, 0xAF, 0x63}};
  CHECK(hex_of(g) == "91 2b 96 72 75 fa e6 4a 8d 28 b4 04 dc 7d af 63");
}

TEST_CASE("codec: DataValue writes exactly the fields its mask names", "[protocol]") {
  data_value v;
  CHECK(hex_of(v) == "00");
  v.set_value(std::int32_t{7});
  CHECK(hex_of(v) == "01 06 07 00 00 00");
  v.has_status = true;
  v.status = status::bad_node_id_unknown;
  v.has_source_timestamp = v.has_source_picoseconds = v.has_server_timestamp = v.has_server_picoseconds = true;
  v.source_timestamp = date_time{1};
  v.source_picoseconds = 2;
  v.server_timestamp = date_time{3};
  v.server_picoseconds = 4;
  CHECK(hex_of(v) ==
        "3f 06 07 00 00 00 00 00 34 80 01 00 00 00 00 00 00 00 02 00 03 00 00 00 00 00 00 00 04 00");
  CHECK(round_trip<data_value>(hex_of(v)) == v);
}

TEST_CASE("codec: DiagnosticInfo fields follow the mask, inner infos nest", "[protocol]") {
  diagnostic_info d;
  CHECK(hex_of(d) == "00");
  d.symbolic_id = 1;
  d.locale = 2;
  d.additional_info = "x";
  d.inner_status_code = status::bad_internal_error;
  d.inner_diagnostic_info = std::make_unique<diagnostic_info>();
  d.inner_diagnostic_info->namespace_uri = 3;
  CHECK(hex_of(d) == "79 01 00 00 00 02 00 00 00 01 00 00 00 78 00 00 02 80 02 03 00 00 00");
  CHECK(round_trip<diagnostic_info>(hex_of(d)) == d);
}

TEST_CASE("codec: Variant scalars, arrays and matrices", "[protocol]") {
  CHECK(hex_of(variant{}) == "00");
  CHECK(hex_of(variant{std::int32_t{43}}) == "06 2b 00 00 00");
  CHECK(hex_of(variant{ua_string{"a"}}) == "0c 01 00 00 00 61");
  CHECK(hex_of(variant{ua_array<std::uint16_t>{1, 2}}) == "85 02 00 00 00 01 00 02 00");

  variant m{ua_array<std::int32_t>{1, 2, 3, 4, 5, 6}};
  m.dimensions() = {2, 3};
  const auto matrix_hex = "c6 06 00 00 00 01 00 00 00 02 00 00 00 03 00 00 00 04 00 00 00 05 00 00 00 06 00 00 00 "
                          "02 00 00 00 02 00 00 00 03 00 00 00";
  CHECK(hex_of(m) == matrix_hex);
  const auto back = round_trip<variant>(matrix_hex);
  CHECK(back == m);
  CHECK(back.type() == builtin_type::int32);
  CHECK(back.is_array());

  variant nested{ua_array<variant>{variant{true}, variant{ua_array<double>{}}}};
  CHECK(round_trip<variant>(hex_of(nested)) == nested);
  const variant dv{data_value{}};
  CHECK(round_trip<variant>(hex_of(dv)) == dv);
}

TEST_CASE("codec: a Variant whose dimensions do not match its elements is malformed", "[protocol]") {
  // Two elements, dimensions 2x2.
  CHECK(decode_status<variant>("c6 02 00 00 00 01 00 00 00 02 00 00 00 02 00 00 00 02 00 00 00 02 00 00 00") ==
        status::bad_decoding_error);
  // Dimensions without an array, and a type id beyond the 25 built-ins.
  CHECK(decode_status<variant>("46 01 00 00 00") == status::bad_decoding_error);
  CHECK(decode_status<variant>("1a") == status::bad_decoding_error);
  // A negative dimension.
  CHECK(decode_status<variant>("c6 00 00 00 00 01 00 00 00 ff ff ff ff") == status::bad_decoding_error);
  // 65536 x 65536 passes Int32: no element count can match it.
  CHECK(decode_status<variant>("c6 00 00 00 00 02 00 00 00 00 00 01 00 00 00 01 00") == status::bad_decoding_error);
  // A dimension of 0 makes an empty matrix, whatever the others are; an encoder sends it as an
  // empty array (Part 6 §5.2.2.16: ArrayDimensions only when every dimension is above 0).
  variant empty;
  REQUIRE(decode_from_bytes(from_hex("c6 00 00 00 00 03 00 00 00 00 00 01 00 00 00 01 00 00 00 00 00"), empty) ==
          status::good);
  CHECK(empty.dimensions() == ua_array<std::int32_t>{65536, 65536, 0});
  CHECK(hex_of(empty) == "86 00 00 00 00");
  variant one_dimension{ua_array<std::int32_t>{1, 2}};
  one_dimension.dimensions() = {2};
  CHECK(hex_of(one_dimension) == "86 02 00 00 00 01 00 00 00 02 00 00 00");
  CHECK(decode_status<variant>("c6 01 00 00 00 07 00 00 00 03 00 00 00 00 00 01 00 00 00 01 00 00 00 00 00") ==
        status::bad_decoding_error);
}

TEST_CASE("codec: an ExtensionObject of an unknown type keeps its body as bytes", "[protocol]") {
  const auto x = round_trip<extension_object>("01 02 39 30 01 03 00 00 00 0a 0b 0c");
  CHECK(x.body() == nullptr);
  CHECK(x.type_id() == node_id{2, 12345});
  CHECK(x.raw_body().size() == 3);
  CHECK(round_trip<extension_object>("00 00 00").empty());
  const auto xml = round_trip<extension_object>("01 00 01 02 02 02 00 00 00 3c 61");
  CHECK(xml.body_encoding() == extension_object::encoding::xml_element);
  CHECK(decode_status<extension_object>("00 00 03") == status::bad_decoding_error);
}

TEST_CASE("codec: an ExtensionObject of a known type is decoded, and its length is checked", "[protocol]") {
  read_value_id rv;
  rv.node_id = node_id::string(1, "the.answer");
  rv.attribute_id = 13;
  const extension_object x{rv};
  const auto wire = encode_to_bytes(x);
  extension_object back;
  REQUIRE(decode_from_bytes(wire, back) == status::good);
  REQUIRE(back.get_if<read_value_id>() != nullptr);
  CHECK(*back.get_if<read_value_id>() == rv);
  CHECK(back == x);

  // A body length one byte longer than the body: the extra byte is inside it, so it is malformed.
  auto longer = wire;
  longer[4] += 1;  // type id 01 00 xx xx, encoding, then the length's low byte
  longer.push_back(0);
  CHECK(decode_from_bytes(longer, back) == status::bad_decoding_error);
}

namespace {

// A Variant nested `levels` deep: arrays of one Variant around an Int32.
test::bytes nested_variants(int levels) {
  test::bytes out;
  for (int i = 1; i < levels; ++i) {
    for (auto b : from_hex("98 01 00 00 00")) out.push_back(b);
  }
  for (auto b : from_hex("06 01 00 00 00")) out.push_back(b);
  return out;
}

// DiagnosticInfos nested `levels` deep through InnerDiagnosticInfo.
test::bytes nested_diagnostics(int levels) {
  test::bytes out(static_cast<std::size_t>(levels - 1), 0x40);
  out.push_back(0x00);
  return out;
}

// ExtensionObject (KeyValuePair) -> Variant -> ExtensionObject ...: `levels` in all, counting
// both kinds; the innermost level is an ExtensionObject of an unknown type or a null Variant.
test::bytes nested_extension_objects(int levels) {
  if (levels == 1) return from_hex("01 02 00 00 00");  // ns=2;i=0, no body
  test::bytes body = from_hex("00 00 00 00 00 00");     // KeyValuePair.Key: ns 0, empty name
  if (levels == 2) {
    body.push_back(0x00);  // a null Variant
  } else {
    body.push_back(0x16);  // a Variant holding an ExtensionObject
    const auto inner = nested_extension_objects(levels - 2);
    body.insert(body.end(), inner.begin(), inner.end());
  }
  test::bytes x = encode_to_bytes(node_id{0, key_value_pair::binary_encoding_id});
  x.push_back(0x01);
  const auto len = encode_to_bytes(static_cast<std::int32_t>(body.size()));
  x.insert(x.end(), len.begin(), len.end());
  x.insert(x.end(), body.begin(), body.end());
  return x;
}

}  // namespace

TEST_CASE("codec: 100 levels of nesting are accepted, the 101st is refused", "[protocol]") {
  variant v;
  CHECK(decode_from_bytes(nested_variants(100), v) == status::good);
  CHECK(decode_from_bytes(nested_variants(101), v) == status::bad_encoding_limits_exceeded);
  diagnostic_info d;
  CHECK(decode_from_bytes(nested_diagnostics(100), d) == status::good);
  CHECK(decode_from_bytes(nested_diagnostics(101), d) == status::bad_encoding_limits_exceeded);
  extension_object x;
  CHECK(decode_from_bytes(nested_extension_objects(100), x) == status::good);
  CHECK(decode_from_bytes(nested_extension_objects(101), x) == status::bad_encoding_limits_exceeded);
  // Far deeper input fails the same way, without exhausting the stack.
  CHECK(decode_from_bytes(nested_variants(100000), v) == status::bad_encoding_limits_exceeded);
}
