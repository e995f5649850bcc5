// The SQLite history store: batches in, ranges out in both directions, resumed pages, retention,
// reopening, and a clear error for a file that is not a history database.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <sqlite3.h>

#include "history/sqlite_store.hpp"
#include "tests/history/update_contract.hpp"
#include "tests/support/temp_folder.hpp"

using namespace uactor;
using test::temp_folder;

namespace {

ua::data_value value_at(double v, std::int64_t ticks) {
  ua::data_value d;
  d.set_value(v);
  d.source_timestamp.ticks = ticks;
  d.has_source_timestamp = true;
  d.server_timestamp.ticks = ticks + 1;
  d.has_server_timestamp = true;
  return d;
}

std::vector<history::record> ramp(const char* node, int count, std::int64_t first = 1000, std::int64_t step = 10) {
  std::vector<history::record> batch;
  for (int i = 0; i < count; ++i) batch.push_back({node, value_at(i, first + i * step)});
  return batch;
}

std::vector<double> doubles(const history::raw_page& p) {
  std::vector<double> out;
  for (const auto& v : p.values) out.push_back(*v.value.get_if<double>());
  return out;
}

history::raw_query range(const char* node, std::int64_t from, std::int64_t to) {
  history::raw_query q;
  q.node = node;
  q.from = from;
  q.to = to;
  return q;
}

}  // namespace

TEST_CASE("sqlite_store: a batch comes back in time order, forwards and backwards", "[history]") {
  temp_folder dir{"history-test"};
  history::sqlite_store store(dir.file("h.sqlite"));
  store.append(ramp("ns=1;s=A", 10));
  store.append(ramp("ns=1;s=B", 3));
  auto q = range("ns=1;s=A", 1000, 1050);  // [1000, 1050): 5 values
  auto page = store.read_raw(q);
  CHECK(doubles(page) == std::vector<double>{0, 1, 2, 3, 4});
  CHECK_FALSE(page.more);
  CHECK(page.values[0].server_timestamp.ticks == 1001);  // the whole DataValue is kept
  q.reverse = true;
  CHECK(doubles(store.read_raw(q)) == std::vector<double>{4, 3, 2, 1, 0});
  q.to_inclusive = true;
  CHECK(doubles(store.read_raw(q)).front() == 5);
  CHECK(store.read_raw(range("ns=1;s=C", 0, 1'000'000)).values.empty());  // an unknown node: nothing
}

TEST_CASE("sqlite_store: pages resume after the last record, also with equal times", "[history]") {
  temp_folder dir{"history-test"};
  history::sqlite_store store(dir.file("h.sqlite"));
  store.append(ramp("n", 7, 1000, 0));  // seven values at the same time
  auto q = range("n", 0, 2000);
  q.limit = 3;
  std::vector<double> all;
  for (int pages = 0; pages < 10; ++pages) {
    const auto page = store.read_raw(q);
    for (double v : doubles(page)) all.push_back(v);
    if (!page.more) break;
    q.after = page.last;
  }
  CHECK(all == std::vector<double>{0, 1, 2, 3, 4, 5, 6});
  q.reverse = true;
  q.after.reset();
  all.clear();
  for (int pages = 0; pages < 10; ++pages) {
    const auto page = store.read_raw(q);
    for (double v : doubles(page)) all.push_back(v);
    if (!page.more) break;
    q.after = page.last;
  }
  CHECK(all == std::vector<double>{6, 5, 4, 3, 2, 1, 0});
}

TEST_CASE("sqlite_store: the values are there after reopening the file", "[history]") {
  temp_folder dir{"history-test"};
  {
    history::sqlite_store store(dir.file("h.sqlite"));
    store.append(ramp("n", 4));
  }
  history::sqlite_store again(dir.file("h.sqlite"));
  again.append(ramp("n", 2, 5000));
  CHECK(doubles(again.read_raw(range("n", 0, 10'000))) == std::vector<double>{0, 1, 2, 3, 0, 1});
}

TEST_CASE("sqlite_store: retention by age and by count per node", "[history]") {
  temp_folder dir{"history-test"};
  history::sqlite_store store(dir.file("h.sqlite"));
  const std::int64_t day = 86'400 * ua::date_time::ticks_per_second;
  const std::int64_t now = 100 * day;
  store.append(ramp("old", 5, now - 3 * day, 1));   // three days old
  store.append(ramp("new", 5, now - day / 2, 1));   // half a day old
  CHECK(store.apply_retention({2, 0}, now) == 5);
  CHECK(store.read_raw(range("old", 0, now)).values.empty());
  CHECK(store.read_raw(range("new", 0, now)).values.size() == 5);
  CHECK(store.apply_retention({0, 2}, now) == 3);  // the newest two stay
  CHECK(doubles(store.read_raw(range("new", 0, now))) == std::vector<double>{3, 4});
  CHECK(store.apply_retention({0, 2}, now) == 0);
}

TEST_CASE("sqlite_store: a file that is not a database is refused by name", "[history]") {
  temp_folder dir{"history-test"};
  const auto path = dir.file("corrupt.sqlite");
  {
    std::ofstream f(path, std::ios::binary);
    for (int i = 0; i < 512; ++i) f << "not a database, just text ";
  }
  try {
    history::sqlite_store store(path);
    FAIL("a corrupt file was opened");
  } catch (const history::store_error& e) {
    const std::string what = e.what();
    CHECK(what.find(path) != std::string::npos);
    CHECK(what.find("not a database") != std::string::npos);
  }
  // A folder that does not exist: the same kind of error, with the path.
  CHECK_THROWS_AS(history::sqlite_store(dir.file("no/such/folder/h.sqlite")), history::store_error);
}

TEST_CASE("sqlite_store: HistoryUpdate inserts, replaces and deletes, keeping what it changed", "[history]") {
  temp_folder dir{"history-test"};
  history::sqlite_store store(dir.file("h.sqlite"));
  test::check_history_updates(store);
}

TEST_CASE("sqlite_store: the modified records survive a reopen and go with retention", "[history]") {
  temp_folder dir{"history-test"};
  const std::vector<ua::data_value> one{value_at(1, 5000)};
  {
    history::sqlite_store store(dir.file("h.sqlite"));
    CHECK(store.update("n", one, history::write_mode::insert, {1, 0, "u"}) ==
          std::vector{history::write_outcome::inserted});
  }
  history::sqlite_store store(dir.file("h.sqlite"));
  auto q = range("n", 0, 10'000);
  q.modified = true;
  CHECK(store.read_raw(q).values.size() == 1);
  // Retention by age: a day's ticks past the value's time removes it and its modified record.
  store.apply_retention({1, 0}, 5000 + 2 * 86'400LL * ua::date_time::ticks_per_second);
  CHECK(store.read_raw(q).values.empty());
  CHECK(store.read_raw(range("n", 0, 10'000)).values.empty());
}

TEST_CASE("sqlite_store: event history updated and deleted by EventId", "[history][events]") {
  temp_folder dir{"history-test"};
  history::sqlite_store store(dir.file("h.sqlite"));
  test::check_event_history_updates(store);
}

// A file made before the event_id column (dropped here, as the older schema had it): opening it
// adds the column and fills it in for the events recorded then.
TEST_CASE("sqlite_store: a file without the event_id column gets it, with the recorded events' ids", "[history][events]") {
  temp_folder dir{"history-test"};
  const std::string path = dir.file("h.sqlite");
  {
    history::sqlite_store store(path);
    const std::vector<history::record> events{{"i=2253", test::update_contract_event("old1", 1000, 100)},
                                              {"i=2253", test::update_contract_event("old2", 1010, 200)},
                                              {"ns=1;s=V", value_at(1, 1000)}};
    store.append(events);
  }
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(db, "DROP INDEX uactor_history_by_event; ALTER TABLE uactor_history_values DROP COLUMN event_id",
                                nullptr, nullptr, &err);
    INFO((err ? err : ""));
    CHECK(rc == SQLITE_OK);
    sqlite3_free(err);
    sqlite3_close(db);
  }
  history::sqlite_store store(path);
  const std::vector<ua::byte_string> ids{ua::byte_string("old2"), ua::byte_string("old1"), ua::byte_string("none")};
  CHECK(store.remove_events("i=2253", ids, {1, 0, ""}) == std::vector<bool>{true, true, false});
  CHECK(store.read_raw(range("i=2253", 0, 10'000)).values.empty());
  CHECK(store.read_raw(range("ns=1;s=V", 0, 10'000)).values.size() == 1);
}
