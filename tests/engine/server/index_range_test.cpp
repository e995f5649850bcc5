// Tests of NumericRange (Part 4 §7.27): the syntax, and applying a range to arrays, matrices,
// Strings/ByteStrings and arrays of them, for Read and for Write.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/server/services/index_range.hpp"
#include "uactor/ua/status_codes.hpp"

using namespace uactor;
using namespace uactor::ua;
using services::apply_numeric_range;
using services::numeric_range;
using services::parse_numeric_range;
using services::write_numeric_range;

namespace {

numeric_range parsed(std::string_view s) {
  auto r = parse_numeric_range(s);
  REQUIRE(r.has_value());
  return *r;
}

std::vector<std::int32_t> ints(const variant& v) {
  const auto* a = v.get_if<ua_array<std::int32_t>>();
  REQUIRE(a);
  return {a->begin(), a->end()};
}

}  // namespace

TEST_CASE("index_range: a number, a range and one per dimension parse", "[services]") {
  CHECK(parsed("").empty());
  const auto one = parsed("6");
  REQUIRE(one.size == 1);
  CHECK(one.dims[0].lo == 6);
  CHECK(one.dims[0].hi == 6);
  const auto range = parsed("1:3");
  REQUIRE(range.size == 1);
  CHECK(range.dims[0].lo == 1);
  CHECK(range.dims[0].hi == 3);
  const auto two = parsed("0:1,2:3");
  REQUIRE(two.size == 2);
  CHECK(two.dims[1].lo == 2);
  CHECK(two.dims[1].hi == 3);
  CHECK(parsed("1,1").size == 2);
  CHECK(parsed("4294967294:4294967295").dims[0].hi == 4294967295u);
}

TEST_CASE("index_range: malformed ranges get Bad_IndexRangeInvalid", "[services]") {
  for (std::string_view bad : {"3:1", "1:1", "-1", "-1:2", "1:", ":1", "a", "1:a", " 1", "1 ", "1,", ",1", "1::2",
                               "1:2:3", "4294967296", "+1", "0x1", "1,2,3,4,5,6,7,8,9"}) {
    INFO(bad);
    const auto r = parse_numeric_range(bad);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == status::bad_index_range_invalid);
  }
}

TEST_CASE("index_range: applied to an array it keeps the range, clamps the end, and has no data past it", "[services]") {
  const variant ten = ua_array<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  variant v = ten;
  CHECK(apply_numeric_range(v, parsed("1:3")) == status::good);
  CHECK(ints(v) == std::vector<std::int32_t>{1, 2, 3});
  v = ten;
  CHECK(apply_numeric_range(v, parsed("9:100")) == status::good);
  CHECK(ints(v) == std::vector<std::int32_t>{9});
  v = ten;
  CHECK(apply_numeric_range(v, parsed("10")) == status::bad_index_range_no_data);
  v = ten;
  CHECK(apply_numeric_range(v, parsed("0,0")) == status::bad_index_range_no_data);
  variant scalar = std::int32_t{5};
  CHECK(apply_numeric_range(scalar, parsed("0")) == status::bad_index_range_no_data);
  variant empty;
  CHECK(apply_numeric_range(empty, parsed("0")) == status::bad_index_range_no_data);
}

TEST_CASE("index_range: a String or ByteString is an array of bytes, an array of them takes two ranges", "[services]") {
  variant s = ua_string("hello");
  CHECK(apply_numeric_range(s, parsed("1:2")) == status::good);
  CHECK(s.get_if<ua_string>()->view() == "el");
  variant b = byte_string("\x01\x02\x03");
  CHECK(apply_numeric_range(b, parsed("2:9")) == status::good);
  CHECK(b.get_if<byte_string>()->view() == "\x03");
  variant null_string = ua_string::null();
  CHECK(apply_numeric_range(null_string, parsed("0")) == status::bad_index_range_no_data);
  variant strings = ua_array<ua_string>{"alpha", "beta", "gamma"};
  CHECK(apply_numeric_range(strings, parsed("1:2,0:1")) == status::good);
  const auto& a = *strings.get_if<ua_array<ua_string>>();
  REQUIRE(a.size() == 2);
  CHECK(a[0].view() == "be");
  CHECK(a[1].view() == "ga");
}

TEST_CASE("index_range: a matrix takes one range per dimension", "[services]") {
  // 3 x 4, row-major: element [i][j] = 10 * i + j
  variant m = ua_array<std::int32_t>{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23};
  m.dimensions() = ua_array<std::int32_t>{3, 4};
  variant block = m;
  CHECK(apply_numeric_range(block, parsed("1:2,0:1")) == status::good);
  CHECK(ints(block) == std::vector<std::int32_t>{10, 11, 20, 21});
  CHECK(block.dimensions() == ua_array<std::int32_t>{2, 2});
  variant one = m;
  CHECK(apply_numeric_range(one, parsed("2,3")) == status::good);
  CHECK(ints(one) == std::vector<std::int32_t>{23});
  variant clamped = m;
  CHECK(apply_numeric_range(clamped, parsed("2:9,2:9")) == status::good);
  CHECK(ints(clamped) == std::vector<std::int32_t>{22, 23});
  variant outside = m;
  CHECK(apply_numeric_range(outside, parsed("3,0")) == status::bad_index_range_no_data);
  variant wrong_rank = m;
  CHECK(apply_numeric_range(wrong_rank, parsed("1")) == status::bad_index_range_no_data);
}

TEST_CASE("index_range: a write replaces exactly the range, of the same type and length", "[services]") {
  const variant ten = ua_array<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  variant v = ten;
  CHECK(write_numeric_range(v, ua_array<std::int32_t>{70, 80}, parsed("7:8")) == status::good);
  CHECK(ints(v) == std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 70, 80, 9});
  v = ten;
  CHECK(write_numeric_range(v, ua_array<std::int32_t>{70}, parsed("7:8")) == status::bad_index_range_data_mismatch);
  CHECK(write_numeric_range(v, ua_array<std::int32_t>{1, 2}, parsed("9:10")) == status::bad_index_range_no_data);
  CHECK(write_numeric_range(v, ua_array<double>{1, 2}, parsed("1:2")) == status::bad_type_mismatch);
  CHECK(write_numeric_range(v, ua_array<std::int32_t>{1}, parsed("1,1")) == status::bad_write_not_supported);
  CHECK(ints(v) == ints(ten));  // nothing written by a refused write
  variant s = ua_string("hello");
  CHECK(write_numeric_range(s, ua_string("EL"), parsed("1:2")) == status::good);
  CHECK(s.get_if<ua_string>()->view() == "hELlo");
}
