// The AggregateExamples.csv reader refuses text that does not fit the file's layout or its
// limits, naming the line, instead of guessing.
#include <catch2/catch.hpp>

#include <string>

#include "tests/engine/server/history/aggregate_examples_csv.hpp"

namespace ex = uactor::test::aggregate_examples;

namespace {

const std::string good_file =
    "Generate Test Data for Part 13 Spec\n"
    "Start of Raw Data Tables\n"
    "\n"
    "Historian1\n"
    "Stepped ,false\n"
    "Timestamp,Value,StatusCode,Notes\n"
    "12:00:00,,\"Bad_NoData\",\"First, entry\"\n"
    "12:00:10,10,\"Good\",\"\"\n"
    ",,\"No Data\",\"end\"\n"
    "End of Raw Data Tables\n"
    "Start of Processed Data Tables\n"
    "Aggregate,Average\n"
    "Historian1\n"
    "Processing Interval ,5000\n"
    "Timestamp,Value,StatusCode,Notes\n"
    "12:00:10.000,10,\"Good, Calculated\",\"\"\n"
    "End of Processed Data Tables\n";

std::string with_line(std::size_t line, const std::string& text) {
  std::string out;
  std::size_t n = 0, pos = 0;
  while (pos < good_file.size()) {
    const auto nl = good_file.find('\n', pos);
    ++n;
    out += n == line ? text : good_file.substr(pos, nl - pos);
    out += '\n';
    pos = nl + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("aggregate examples csv: a well-formed file is read whole", "[history][aggregates]") {
  const auto r = ex::parse(good_file);
  INFO(r.error);
  REQUIRE(r.error.empty());
  REQUIRE(r.data.raw.size() == 1);
  CHECK(r.data.raw[0].values.size() == 2);
  REQUIRE(r.data.processed.size() == 1);
  CHECK(r.data.processed[0].interval_ms == 5000);
  REQUIRE(r.data.processed[0].rows.size() == 1);
  CHECK(r.data.processed[0].rows[0].line == 16);
}

TEST_CASE("aggregate examples csv: malformed lines fail with their line number", "[history][aggregates]") {
  struct bad { std::size_t line; const char* text; };
  const bad cases[] = {
      {5, "Stepped ,maybe"},                              // not a Boolean
      {5, "Wobble ,true"},                                // unknown setting
      {7, "12:00:00,,\"Bad_NoData"},                      // unterminated quote
      {7, "25:00:00,1,\"Good\",\"\""},                    // hour out of range
      {8, "12:00:10,ten,\"Good\",\"\""},                  // not a number
      {8, "12:00:10,10,\"Splendid\",\"\""},               // unknown status
      {14, "Processing Interval ,-5"},                    // not positive
      {16, "12:00:10.000,10,\"Good, Sparkly\",\"\""},     // unknown info bit
      {16, "12:00:10.000,1,2,3,4,5,6,7,8,9"},             // too many fields
      {2, "Some other preamble"},                         // text outside the tables
  };
  for (const auto& c : cases) {
    INFO(c.text);
    const auto r = ex::parse(with_line(c.line, c.text));
    CHECK(r.error.rfind("line " + std::to_string(c.line) + ":", 0) == 0);
  }
}

TEST_CASE("aggregate examples csv: limits are enforced", "[history][aggregates]") {
  ex::limits small;
  small.max_rows = 1;
  CHECK(ex::parse(good_file, small).error.rfind("line 8:", 0) == 0);
  small = {};
  small.max_line = 36;  // line 7, 37 characters, is the first longer
  CHECK(ex::parse(good_file, small).error.rfind("line 7:", 0) == 0);
  small = {};
  small.max_bytes = 100;
  CHECK(!ex::parse(good_file, small).error.empty());
  // Truncated: the processed tables never end.
  CHECK(!ex::parse(good_file.substr(0, good_file.size() - 30)).error.empty());
  CHECK(!ex::parse("").error.empty());
}
