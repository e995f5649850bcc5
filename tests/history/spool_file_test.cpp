// The historian's on-disk spool (history/spool_file.hpp): batches back in the order they went in,
// the bound, a file an earlier run left (its damaged tail cut off), and the frame parser's answers
// to bytes that are no frame.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "history/spool_file.hpp"
#include "tests/support/temp_folder.hpp"
#include "uactor/ua/status_codes.hpp"

namespace history_spool_file_test {

using namespace uactor;
using history::record;
namespace status = ua::status;

std::vector<record> batch(int from, int count, const char* node = "ns=2;s=Line1.Flow") {
  std::vector<record> out;
  for (int i = from; i < from + count; ++i) {
    record r;
    r.node = node;
    r.value.set_value(static_cast<double>(i));
    r.value.source_timestamp.ticks = 134'000'000'000'000'000 + i;
    r.value.has_source_timestamp = true;
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<double> numbers(const std::vector<record>& b) {
  std::vector<double> out;
  for (const auto& r : b) out.push_back(*r.value.value.get_if<double>());
  return out;
}

TEST_CASE("spool: batches come back in order, the file is emptied, the bound holds", "[history][spool]") {
  test::temp_folder folder{"spool-test"};
  const auto path = folder.file("h.spool");
  history::spool_file s(path, 4'000);
  CHECK(s.empty());
  CHECK(s.pop().empty());
  REQUIRE(s.push(batch(0, 3)));
  REQUIRE(s.push(batch(3, 2, "i=2253")));
  CHECK(s.batches() == 2);
  CHECK(s.values() == 5);
  CHECK(s.bytes() == std::filesystem::file_size(path));
  auto first = s.pop();
  CHECK(numbers(first) == std::vector<double>{0, 1, 2});
  CHECK(first[0].node == "ns=2;s=Line1.Flow");
  CHECK(first[2].value.source_timestamp.ticks == 134'000'000'000'000'002);
  REQUIRE(s.push(batch(5, 1)));  // behind the one still waiting
  auto second = s.pop();
  CHECK(numbers(second) == std::vector<double>{3, 4});
  CHECK(second[0].node == "i=2253");
  CHECK(numbers(s.pop()) == std::vector<double>{5});
  CHECK(s.empty());
  CHECK(std::filesystem::file_size(path) == 0);  // all read back: emptied
  // The bound: a batch that would pass it is refused whole.
  while (s.push(batch(0, 10))) {
  }
  CHECK(s.bytes() <= 4'000);
  CHECK(s.bytes() + history::spool_frame(batch(0, 10)).size() > 4'000);
  CHECK(s.take_notes().empty());
}

TEST_CASE("spool: a file an earlier run left is read back, its damaged tail cut off", "[history][spool]") {
  test::temp_folder folder{"spool-test"};
  const auto path = folder.file("h.spool");
  {
    history::spool_file s(path, 1 << 20);
    REQUIRE(s.push(batch(0, 2)));
    REQUIRE(s.push(batch(2, 2)));
  }
  const auto whole = std::filesystem::file_size(path);
  {
    std::ofstream f(path, std::ios::app | std::ios::binary);
    f << "UASB\x10\x00";  // a frame cut short by a crash
  }
  history::spool_file s(path, 1 << 20);
  CHECK(s.batches() == 2);
  CHECK(s.values() == 4);
  CHECK(s.take_notes().find("cut off") != std::string::npos);
  CHECK(std::filesystem::file_size(path) == whole);
  CHECK(numbers(s.pop()) == std::vector<double>{0, 1});
  REQUIRE(s.push(batch(4, 1)));
  CHECK(numbers(s.pop()) == std::vector<double>{2, 3});
  CHECK(numbers(s.pop()) == std::vector<double>{4});
}

TEST_CASE("spool: a frame damaged on disk ends the spool, counted", "[history][spool]") {
  test::temp_folder folder{"spool-test"};
  const auto path = folder.file("h.spool");
  history::spool_file s(path, 1 << 20);
  REQUIRE(s.push(batch(0, 2)));
  REQUIRE(s.push(batch(2, 3)));
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(20);
    f.put('\x7f');  // inside the first frame's payload: its checksum no longer holds
  }
  CHECK(s.pop().empty());
  CHECK(s.empty());
  CHECK(s.damaged_values() == 5);
  CHECK(s.take_notes().find("damaged") != std::string::npos);
}

TEST_CASE("spool: the frame parser refuses what is no frame", "[history][spool]") {
  const auto good = history::spool_frame(batch(0, 2));
  std::vector<record> out;
  std::size_t used = 0;
  REQUIRE(history::parse_spool_frame(good, out, used) == status::good);
  CHECK(used == good.size());
  CHECK(out.size() == 2);
  const auto parse = [&](std::vector<std::uint8_t> bytes, history::spool_limits limits = {}) {
    out.clear();
    const auto sc = history::parse_spool_frame(bytes, out, used, limits);
    if (sc.is_bad()) {
      CHECK(out.empty());
      CHECK(used == 0);
    }
    return sc;
  };
  // Cut short anywhere: the rest of the frame is still to come.
  for (std::size_t n = 0; n < good.size(); ++n)
    CHECK(parse(std::vector<std::uint8_t>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n))) == status::bad_end_of_stream);
  auto bad = good;
  bad[0] = 'X';
  CHECK(parse(bad) == status::bad_decoding_error);  // magic
  bad = good;
  bad.back() ^= 1;
  CHECK(parse(bad) == status::bad_decoding_error);  // checksum
  CHECK(parse(good, {.max_payload_bytes = 16}) == status::bad_decoding_error);
  CHECK(parse(good, {.max_records = 1}) == status::bad_decoding_error);
  CHECK(parse(good, {.max_node_length = 4}) == status::bad_decoding_error);
  // A payload whose count, lengths or value do not hold (with a checksum that does).
  const auto framed = [](std::vector<std::uint8_t> payload) {
    std::vector<std::uint8_t> f{'U', 'A', 'S', 'B'};
    std::uint32_t h = 2'166'136'261u;
    for (const auto b : payload) {
      h ^= b;
      h *= 16'777'619u;
    }
    const auto n = static_cast<std::uint32_t>(payload.size());
    for (int i = 0; i < 4; ++i) f.push_back(static_cast<std::uint8_t>(n >> (8 * i)));
    for (int i = 0; i < 4; ++i) f.push_back(static_cast<std::uint8_t>(h >> (8 * i)));
    f.insert(f.end(), payload.begin(), payload.end());
    return f;
  };
  CHECK(parse(framed({0, 0, 0, 0})) == status::good);                                  // no records
  CHECK(parse(framed({0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0})) == status::bad_decoding_error);  // 4 billion records
  CHECK(parse(framed({1, 0, 0, 0, 9, 0, 'a', 0, 0, 0, 0})) == status::bad_decoding_error);  // node past the payload
  CHECK(parse(framed({1, 0, 0, 0, 1, 0, 'a', 9, 0, 0, 0, 1})) == status::bad_decoding_error);  // value past it
  CHECK(parse(framed({1, 0, 0, 0, 1, 0, 'a', 1, 0, 0, 0, 0xff})) == status::bad_decoding_error);  // no DataValue
  CHECK(parse(framed({1, 0, 0, 0, 1, 0, 'a', 1, 0, 0, 0, 0, 7})) == status::bad_decoding_error);  // a byte left over
  CHECK(parse(framed({1, 0, 0})) == status::bad_decoding_error);  // shorter than its count
}

}  // namespace history_spool_file_test
