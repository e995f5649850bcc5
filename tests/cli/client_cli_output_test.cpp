// What the client commands print (cli/client_cli_output.hpp): ISO 8601 times, values as text
// with arrays cut for a terminal, and JSON that a parser takes whatever bytes the server sent.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "cli/client_cli.hpp"
#include "cli/client_cli_output.hpp"

using namespace uactor;
using app::output_style;

namespace {

// 2026-12-01T12:23:14.5Z in 100 ns ticks since 1601.
constexpr ua::date_time sample_time{ua::date_time::unix_epoch_ticks + 1'796'127'794'500LL * 10'000};

// Sets TZ for one test and puts it back.
struct time_zone {
  std::string old;
  bool had;
  explicit time_zone(const char* tz) {
    const char* o = std::getenv("TZ");
    had = o != nullptr;
    if (o) old = o;
    setenv("TZ", tz, 1);
    tzset();
  }
  ~time_zone() {
    if (had) setenv("TZ", old.c_str(), 1);
    else unsetenv("TZ");
    tzset();
  }
};

}  // namespace

TEST_CASE("client_cli: times print as ISO 8601, UTC or local with the zone's offset", "[runtime][cli]") {
  CHECK(app::format_time(sample_time) == "2026-12-01T12:23:14.5Z");
  CHECK(app::format_time(ua::date_time::from_unix_ms(0)) == "1970-01-01T00:00:00Z");
  CHECK(app::format_time(ua::date_time{ua::date_time::unix_epoch_ticks + 1}) == "1970-01-01T00:00:00.0000001Z");
  CHECK(app::format_time(ua::date_time{0}) == "1601-01-01T00:00:00Z");
  {
    time_zone tz("CET-1CEST,M3.5.0,M10.5.0/3");  // Central Europe: +01:00 in December, +02:00 in July
    CHECK(app::format_time(sample_time, true) == "2026-12-01T13:23:14.5+01:00");
    CHECK(app::format_time(ua::date_time::from_unix_ms(1'783'000'000'000LL), true) == "2026-07-02T15:46:40+02:00");
  }
  {
    time_zone tz("<-0330>3:30");  // Newfoundland-like: a negative offset with minutes
    CHECK(app::format_time(sample_time, true) == "2026-12-01T08:53:14.5-03:30");
  }
}

TEST_CASE("client_cli: values print with their type, structures by field, LocalizedText with its locale",
          "[runtime][cli]") {
  const output_style plain;
  CHECK(app::format_value(ua::variant(std::int32_t{43}), plain) == "Int32 43");
  CHECK(app::format_value(ua::variant(ua::localized_text{ua::ua_string("de"), ua::ua_string("Druck")}), plain) ==
        "LocalizedText de \"Druck\"");
  CHECK(app::format_value(ua::variant(sample_time), plain) == "DateTime 2026-12-01T12:23:14.5Z");
  // A line per item: what would break the line or its tab-separated columns is escaped.
  CHECK(app::format_value(ua::variant(ua::ua_string("a\tb\nc \"q\" \\ \x01")), plain) ==
        "String \"a\\tb\\nc \\\"q\\\" \\\\ \\x01\"");
  CHECK(app::format_value(ua::variant(ua::extension_object(ua::range{0, 100.5})), plain) ==
        "ExtensionObject Range {Low: 0, High: 100.5}");
  ua::eu_information eu;
  eu.namespace_uri = "http://www.opcfoundation.org/UA/units/un/cefact";
  eu.unit_id = 4408652;
  eu.display_name = ua::localized_text{ua::ua_string("en"), ua::ua_string("°C")};
  CHECK(app::format_value(ua::variant(ua::extension_object(eu)), plain) ==
        "ExtensionObject EUInformation {NamespaceUri: \"http://www.opcfoundation.org/UA/units/un/cefact\", UnitId: "
        "4408652, DisplayName: en \"°C\", Description: \"\"}");
  // A structure inside a structure.
  ua::server_status_data_type st;
  st.start_time = sample_time;
  st.build_info.product_name = "uactor";
  const auto text = app::format_value(ua::variant(ua::extension_object(st)), plain);
  CHECK(text.find("ServerStatusDataType {StartTime: 2026-12-01T12:23:14.5Z") != std::string::npos);
  CHECK(text.find("BuildInfo: BuildInfo {ProductUri: null, ManufacturerName: null, ProductName: \"uactor\"") != std::string::npos);
}

TEST_CASE("client_cli: on a terminal a long array shows its first elements and the count", "[runtime][cli]") {
  ua::ua_array<std::int32_t> big;
  for (int i = 0; i < 1000; ++i) big.push_back(i);
  output_style terminal;
  terminal.max_elements = 3;
  CHECK(app::format_value(ua::variant(big), terminal) == "Int32[] [0, 1, 2, ... 997 more (1000)]");
  CHECK(app::format_value(ua::variant(ua::ua_array<std::int32_t>{1, 2, 3}), terminal) == "Int32[] [1, 2, 3]");
  // A pipe (max_elements 0) and JSON get everything.
  CHECK(app::format_value(ua::variant(big), output_style{}).find("999]") != std::string::npos);
  terminal.json = true;
  CHECK(app::json_value(ua::variant(big), terminal).find(",999]") != std::string::npos);
}

TEST_CASE("client_cli: JSON strings escape quotes, backslashes, control characters and bad UTF-8", "[runtime][cli]") {
  CHECK(app::json_string("plain") == "\"plain\"");
  CHECK(app::json_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(app::json_string("line\nnext\ttab\r") == "\"line\\nnext\\ttab\\r\"");
  CHECK(app::json_string(std::string_view("\x00\x01\x1f\x7f", 4)) == "\"\\u0000\\u0001\\u001f\\u007f\"");
  CHECK(app::json_string("°C ✓ 😀") == "\"°C ✓ 😀\"");  // valid UTF-8 passes as it is
  // Not UTF-8: a lone continuation byte, a truncated sequence, an overlong '/', a surrogate, > U+10FFFF.
  CHECK(app::json_string("\x80") == "\"\\ufffd\"");
  CHECK(app::json_string("x\xE2\x82") == "\"x\\ufffd\\ufffd\"");
  CHECK(app::json_string("\xC0\xAF") == "\"\\ufffd\\ufffd\"");
  CHECK(app::json_string("\xED\xA0\x80") == "\"\\ufffd\\ufffd\\ufffd\"");
  CHECK(app::json_string("\xF4\x90\x80\x80") == "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
}

TEST_CASE("client_cli: JSON of values follows Part 6 where a script gains from it", "[runtime][cli]") {
  const output_style json{true, false, 0};
  CHECK(app::json_value(ua::variant(std::int32_t{-5}), json) == R"({"type":"Int32","value":-5})");
  CHECK(app::json_value(ua::variant(std::uint64_t{18'446'744'073'709'551'615ULL}), json) ==
        R"({"type":"UInt64","value":"18446744073709551615"})");
  CHECK(app::json_value(ua::variant(std::numeric_limits<double>::quiet_NaN()), json) == R"({"type":"Double","value":"NaN"})");
  CHECK(app::json_value(ua::variant(-std::numeric_limits<double>::infinity()), json) ==
        R"({"type":"Double","value":"-Infinity"})");
  CHECK(app::json_value(ua::variant(ua::byte_string(std::string_view("\x01\x02\x03\x04", 4))), json) ==
        R"({"type":"ByteString","value":"AQIDBA=="})");
  CHECK(app::json_value(ua::variant(ua::localized_text{ua::ua_string("en"), ua::ua_string("Hi \"x\"")}), json) ==
        R"({"type":"LocalizedText","value":{"locale":"en","text":"Hi \"x\""}})");
  CHECK(app::json_value(ua::variant(ua::qualified_name{1, ua::ua_string("Demo")}), json) ==
        R"({"type":"QualifiedName","value":{"namespaceIndex":1,"name":"Demo"}})");
  CHECK(app::json_value(ua::variant(ua::status_code{0x80340000}), json) ==
        R"({"type":"StatusCode","value":{"status":"BadNodeIdUnknown","statusCode":2150891520}})");
  CHECK(app::json_value(ua::variant(ua::ua_array<ua::ua_string>{ua::ua_string("a"), ua::ua_string::null()}), json) ==
        R"({"type":"String[]","value":["a",null]})");
  CHECK(app::json_value(ua::variant(ua::extension_object(ua::range{-1, 1})), json) ==
        R"({"type":"ExtensionObject","value":{"typeId":"i=886","dataType":"Range","fields":{"Low":-1,"High":1}}})");
  CHECK(app::json_value(ua::variant(ua::extension_object::raw(ua::node_id(2, 5001), ua::extension_object::encoding::byte_string,
                                                              std::string_view("\xff", 1))),
                        json) == R"({"type":"ExtensionObject","value":{"typeId":"ns=2;i=5001","body":"/w=="}})");
  CHECK(app::json_value(ua::variant{}, json) == R"({"type":"Null","value":null})");
  CHECK(app::json_value(ua::variant(sample_time), json) == R"({"type":"DateTime","value":"2026-12-01T12:23:14.5Z"})");
}
