// What every history store does with HistoryUpdate's changes (Part 11 §6.9): insert, replace and
// update by time, deletes by range and at times, and the modified records kept with their
// ModificationInfo for IsReadModified. The same checks run against SQLite (sqlite_store_test.cpp)
// and PostgreSQL (postgres_store_test.cpp).
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "history/history_store.hpp"

namespace uactor::test {

inline ua::data_value update_contract_value(double v, std::int64_t ticks) {
  ua::data_value d;
  d.set_value(v);
  d.source_timestamp.ticks = ticks;
  d.has_source_timestamp = true;
  d.server_timestamp.ticks = ticks + 1;
  d.has_server_timestamp = true;
  return d;
}

// (value, time) of each record of a page, in its order.
inline std::vector<std::pair<double, std::int64_t>> update_contract_rows(const history::raw_page& p) {
  std::vector<std::pair<double, std::int64_t>> out;
  for (const auto& v : p.values) out.emplace_back(*v.value.get_if<double>(), v.source_timestamp.ticks);
  return out;
}

inline history::raw_query update_contract_range(const char* node, bool modified) {
  history::raw_query q;
  q.node = node;
  q.from = 0;
  q.to = 1'000'000;
  q.modified = modified;
  return q;
}

inline void check_history_updates(history::history_store& store) {
  using history::write_mode;
  using history::write_outcome;
  using rows = std::vector<std::pair<double, std::int64_t>>;
  const char* node = "ns=1;s=Updated";
  const history::change who{777, 0, "operator"};
  std::vector<history::record> batch;
  for (int i = 0; i < 3; ++i) batch.push_back({node, update_contract_value(i, 1000 + 10 * i)});
  store.append(batch);  // 0 at 1000, 1 at 1010, 2 at 1020

  const std::vector<ua::data_value> inserts{update_contract_value(5, 1005), update_contract_value(9, 1010)};
  CHECK(store.update(node, inserts, write_mode::insert, who) == std::vector{write_outcome::inserted, write_outcome::exists});
  const std::vector<ua::data_value> replaces{update_contract_value(20, 1020), update_contract_value(30, 1030)};
  CHECK(store.update(node, replaces, write_mode::replace, who) == std::vector{write_outcome::replaced, write_outcome::missing});
  const std::vector<ua::data_value> upserts{update_contract_value(100, 1000), update_contract_value(40, 1040)};
  CHECK(store.update(node, upserts, write_mode::upsert, who) == std::vector{write_outcome::replaced, write_outcome::inserted});

  CHECK(update_contract_rows(store.read_raw(update_contract_range(node, false))) ==
        rows{{100, 1000}, {5, 1005}, {1, 1010}, {20, 1020}, {40, 1040}});
  // The modified records: the old value of a replaced one, the new value of an inserted one.
  auto modified = store.read_raw(update_contract_range(node, true));
  CHECK(update_contract_rows(modified) == rows{{0, 1000}, {5, 1005}, {2, 1020}, {40, 1040}});
  REQUIRE(modified.changes.size() == 4);
  CHECK(modified.changes[0].type == 3);  // Update
  CHECK(modified.changes[1].type == 1);  // Insert
  CHECK(modified.changes[2].type == 2);  // Replace
  CHECK(modified.changes[3].type == 1);  // Update that inserted: the new value
  CHECK(modified.changes[2].time == 777);
  CHECK(modified.changes[2].user == "operator");
  CHECK(modified.values[2].server_timestamp.ticks == 1021);  // the whole DataValue is kept

  const std::vector<std::int64_t> times{1005, 1006};
  CHECK(store.remove_at(node, times, who) == std::vector<bool>{true, false});
  CHECK(store.remove_range(node, 1010, 1030, false, who) == 2);
  CHECK(store.remove_range(node, 1010, 1030, false, who) == 0);
  CHECK(update_contract_rows(store.read_raw(update_contract_range(node, false))) == rows{{100, 1000}, {40, 1040}});
  modified = store.read_raw(update_contract_range(node, true));
  CHECK(update_contract_rows(modified) == rows{{0, 1000}, {5, 1005}, {5, 1005}, {1, 1010}, {2, 1020}, {20, 1020}, {40, 1040}});
  REQUIRE(modified.changes.size() == 7);
  CHECK(modified.changes[2].type == 4);  // Delete: the old value
  CHECK(modified.changes[5].type == 4);

  // Modified records in pages, latest first.
  auto q = update_contract_range(node, true);
  q.reverse = true;
  q.limit = 3;
  auto first = store.read_raw(q);
  CHECK(update_contract_rows(first) == rows{{40, 1040}, {20, 1020}, {2, 1020}});
  CHECK(first.more);
  q.after = first.last;
  CHECK(update_contract_rows(store.read_raw(q)) == rows{{1, 1010}, {5, 1005}, {5, 1005}});

  // Deleting modified records removes them for good; raw ones stay.
  CHECK(store.remove_range(node, 1000, 1010, true, who) == 4);
  CHECK(update_contract_rows(store.read_raw(update_contract_range(node, true))) == rows{{2, 1020}, {20, 1020}, {40, 1040}});
  CHECK(update_contract_rows(store.read_raw(update_contract_range(node, false))) == rows{{100, 1000}, {40, 1040}});

  // A node the store has never seen: nothing to delete; an insert creates it.
  CHECK(store.remove_range("ns=1;s=Never", 0, 10'000, false, who) == 0);
  CHECK(store.remove_at("ns=1;s=Never", times, who) == std::vector<bool>{false, false});
  CHECK(store.update("ns=1;s=Never", inserts, write_mode::replace, who) ==
        std::vector{write_outcome::missing, write_outcome::missing});
  CHECK(store.update("ns=1;s=New", inserts, write_mode::insert, who) ==
        std::vector{write_outcome::inserted, write_outcome::inserted});
  CHECK(update_contract_rows(store.read_raw(update_contract_range("ns=1;s=New", false))) == rows{{5, 1005}, {9, 1010}});
  // One update naming one time twice: the second finds the first.
  const std::vector<ua::data_value> twice{update_contract_value(1, 2000), update_contract_value(2, 2000)};
  CHECK(store.update(node, twice, write_mode::insert, who) == std::vector{write_outcome::inserted, write_outcome::exists});
}

// An event record as the server stores it (docs/history.md "Event history"): [name, value, ...],
// SourceTimestamp its Time.
inline ua::data_value update_contract_event(std::string_view id, std::int64_t ticks, std::uint16_t severity,
                                            std::string_view message = "m") {
  ua::ua_array<ua::variant> fields;
  const auto add = [&](std::string_view name, ua::variant v) {
    fields.push_back(ua::variant(ua::ua_string(name)));
    fields.push_back(std::move(v));
  };
  if (!id.empty()) add("EventId", ua::variant(ua::byte_string(id)));
  add("Time", ua::variant(ua::date_time{ticks}));
  add("Severity", ua::variant(severity));
  add("Message", ua::variant(ua::ua_string(message)));
  ua::data_value d;
  d.value = ua::variant(std::move(fields));
  d.has_value = true;
  d.source_timestamp.ticks = ticks;
  d.has_source_timestamp = true;
  d.server_timestamp.ticks = ticks + 1;
  d.has_server_timestamp = true;
  return d;
}

// (EventId, Severity, Message) of each event of a page, in its order.
inline std::vector<std::tuple<std::string, int, std::string>> update_contract_events(const history::raw_page& p) {
  std::vector<std::tuple<std::string, int, std::string>> out;
  for (const auto& v : p.values) {
    const auto* f = v.value.get_if<ua::ua_array<ua::variant>>();
    REQUIRE(f);
    std::tuple<std::string, int, std::string> row;
    for (std::size_t i = 0; i + 1 < f->size(); i += 2) {
      const auto name = (*f)[i].get_if<ua::ua_string>()->view();
      if (name == "EventId") std::get<0>(row) = (*f)[i + 1].get_if<ua::byte_string>()->str();
      if (name == "Severity") std::get<1>(row) = *(*f)[i + 1].get_if<std::uint16_t>();
      if (name == "Message") std::get<2>(row) = (*f)[i + 1].get_if<ua::ua_string>()->str();
    }
    out.push_back(std::move(row));
  }
  return out;
}

// Event history by EventId (Part 11 §6.9.4 UpdateEventDetails, §6.9.7 DeleteEventDetails).
inline void check_event_history_updates(history::history_store& store) {
  using history::write_mode;
  using history::write_outcome;
  using rows = std::vector<std::tuple<std::string, int, std::string>>;
  const char* node = "i=2253";
  const history::change who{888, 0, "operator"};
  const std::vector<history::record> recorded{{node, update_contract_event("e1", 1000, 100)},
                                              {node, update_contract_event("e2", 1010, 200)},
                                              {node, update_contract_event("e3", 1020, 300)},
                                              {"ns=1;s=Other", update_contract_event("e2", 1010, 999)}};
  store.append(recorded);

  // Insert: a new EventId goes in (at its Time), a known one is refused, one without EventId is missing.
  const std::vector<ua::data_value> inserts{update_contract_event("e0", 995, 50), update_contract_event("e2", 1011, 1),
                                            update_contract_event("", 1012, 1)};
  CHECK(store.update_events(node, inserts, write_mode::insert, who) ==
        std::vector{write_outcome::inserted, write_outcome::exists, write_outcome::missing});
  // Replace: the given fields change, the others stay (the Message, the Time); an unknown EventId is missing.
  ua::data_value severity_only;
  {
    ua::ua_array<ua::variant> f;
    f.push_back(ua::variant(ua::ua_string("EventId")));
    f.push_back(ua::variant(ua::byte_string("e1")));
    f.push_back(ua::variant(ua::ua_string("Severity")));
    f.push_back(ua::variant(std::uint16_t{111}));
    f.push_back(ua::variant(ua::ua_string("Comment")));
    f.push_back(ua::variant(ua::ua_string("sensor fixed")));
    severity_only.value = ua::variant(std::move(f));
    severity_only.has_value = true;
  }
  const std::vector<ua::data_value> replaces{severity_only, update_contract_event("nope", 1030, 1)};
  CHECK(store.update_events(node, replaces, write_mode::replace, who) ==
        std::vector{write_outcome::replaced, write_outcome::missing});
  // Update: the whole event replaced (its new Message, its new Time), or inserted.
  const std::vector<ua::data_value> upserts{update_contract_event("e3", 1025, 333, "new"), update_contract_event("e4", 1040, 400)};
  CHECK(store.update_events(node, upserts, write_mode::upsert, who) ==
        std::vector{write_outcome::replaced, write_outcome::inserted});

  CHECK(update_contract_events(store.read_raw(update_contract_range(node, false))) ==
        rows{{"e0", 50, "m"}, {"e1", 111, "m"}, {"e2", 200, "m"}, {"e3", 333, "new"}, {"e4", 400, "m"}});
  const auto all = store.read_raw(update_contract_range(node, false));
  CHECK(all.values[1].source_timestamp.ticks == 1000);  // Replace kept e1's Time
  CHECK(all.values[3].source_timestamp.ticks == 1025);  // Update moved e3's
  const auto* e1 = all.values[1].value.get_if<ua::ua_array<ua::variant>>();
  REQUIRE(e1);
  CHECK(e1->size() == 10);  // EventId, Time, Severity, Message and the added Comment
  // The modified records: the inserted events as they are, the replaced ones as they were.
  auto modified = store.read_raw(update_contract_range(node, true));
  CHECK(update_contract_events(modified) == rows{{"e0", 50, "m"}, {"e1", 100, "m"}, {"e3", 300, "m"}, {"e4", 400, "m"}});
  REQUIRE(modified.changes.size() == 4);
  CHECK(modified.changes[0].type == 1);
  CHECK(modified.changes[1].type == 2);
  CHECK(modified.changes[2].type == 3);
  CHECK(modified.changes[3].type == 1);
  CHECK(modified.changes[1].user == "operator");

  // Delete by EventId: per id whether it was there; kept as modified (Delete); other notifiers' untouched.
  const std::vector<ua::byte_string> ids{ua::byte_string("e2"), ua::byte_string("nope"), ua::byte_string("e0"), ua::byte_string()};
  CHECK(store.remove_events(node, ids, who) == std::vector<bool>{true, false, true, false});
  CHECK(store.remove_events(node, ids, who) == std::vector<bool>{false, false, false, false});
  CHECK(update_contract_events(store.read_raw(update_contract_range(node, false))) ==
        rows{{"e1", 111, "m"}, {"e3", 333, "new"}, {"e4", 400, "m"}});
  CHECK(update_contract_events(store.read_raw(update_contract_range("ns=1;s=Other", false))) == rows{{"e2", 999, "m"}});
  modified = store.read_raw(update_contract_range(node, true));
  REQUIRE(modified.changes.size() == 6);
  CHECK(update_contract_events(modified)[0] == std::tuple<std::string, int, std::string>{"e0", 50, "m"});
  CHECK(modified.changes[1].type == 4);  // e0 deleted (the insert's record is [0])
  CHECK(store.remove_events("ns=1;s=Never", ids, who) == std::vector<bool>{false, false, false, false});
  // Values have no EventId: a value's node is never matched.
  const std::vector<history::record> values{{"ns=1;s=V", update_contract_value(1, 1000)}};
  store.append(values);
  CHECK(store.remove_events("ns=1;s=V", ids, who) == std::vector<bool>{false, false, false, false});
}

}  // namespace uactor::test
