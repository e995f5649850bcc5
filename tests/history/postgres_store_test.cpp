// The PostgreSQL history store against a real PostgreSQL (Debian's, started by the test in a temp
// folder on a Unix socket): batches in, ranges out in both directions, resumed pages, monthly
// partitions and retention, one value stored once when two servers (or a retried batch) write it,
// and the historian keeping every value through a database restart.
#include <catch2/catch.hpp>

#include <libpq-fe.h>

#include <atomic>
#include <filesystem>
#include <chrono>
#include <thread>

#include <caf/all.hpp>

#include "actors/server/historian_actor.hpp"
#include "engine/server/server_core.hpp"
#include "history/postgres_store.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "tests/history/postgres_server.hpp"
#include "tests/history/runtime_history.hpp"
#include "tests/support/temp_folder.hpp"
#include "tests/history/update_contract.hpp"

using namespace uactor;
using namespace std::chrono_literals;
using test::postgres_server;

namespace {

ua::data_value pg_value_at(double v, std::int64_t ticks, std::int64_t server_ticks) {
  ua::data_value d;
  d.set_value(v);
  d.source_timestamp.ticks = ticks;
  d.has_source_timestamp = true;
  d.server_timestamp.ticks = server_ticks;
  d.has_server_timestamp = true;
  return d;
}

std::vector<history::record> pg_ramp(const char* node, int count, std::int64_t first, std::int64_t step,
                                     std::int64_t server_offset = 1) {
  std::vector<history::record> batch;
  for (int i = 0; i < count; ++i) batch.push_back({node, pg_value_at(i, first + i * step, first + i * step + server_offset)});
  return batch;
}

std::vector<double> pg_doubles(const history::raw_page& p) {
  std::vector<double> out;
  for (const auto& v : p.values) out.push_back(*v.value.get_if<double>());
  return out;
}

// Every page of a query, each resumed after the last value of the one before.
std::vector<double> pg_all_pages(history::history_store& store, history::raw_query q) {
  std::vector<double> all;
  for (int pages = 0; pages < 10; ++pages) {
    const auto got = store.read_raw(q);
    for (double v : pg_doubles(got)) all.push_back(v);
    if (!got.more) break;
    q.after = got.last;
  }
  return all;
}

history::raw_query pg_range(const char* node, std::int64_t from, std::int64_t to) {
  history::raw_query q;
  q.node = node;
  q.from = from;
  q.to = to;
  return q;
}

// One PostgreSQL for the cases that do not stop it; each case gets a database of its own.
postgres_server& shared_server() {
  static postgres_server server;
  static const bool started = server.start();
  INFO(server.log());
  REQUIRE(started);
  return server;
}

std::string fresh_database(postgres_server& server) {
  static std::atomic<int> n{0};
  const std::string name = "t" + std::to_string(n++);
  PGconn* c = PQconnectdb(server.conninfo().c_str());
  PGresult* r = PQexec(c, ("CREATE DATABASE " + name).c_str());
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  INFO(PQerrorMessage(c));
  PQclear(r);
  PQfinish(c);
  REQUIRE(ok);
  return server.conninfo() + " dbname=" + name;
}

std::int64_t scalar(const std::string& conninfo, const std::string& sql) {
  PGconn* c = PQconnectdb(conninfo.c_str());
  PGresult* r = PQexec(c, sql.c_str());
  INFO(sql << ": " << PQerrorMessage(c));
  const bool ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
  const std::int64_t v = ok ? std::strtoll(PQgetvalue(r, 0, 0), nullptr, 10) : -1;
  PQclear(r);
  PQfinish(c);
  REQUIRE(ok);
  return v;
}

constexpr std::int64_t pg_day = 86'400LL * ua::date_time::ticks_per_second;
// 2026-01-01T00:00:00Z in DateTime ticks.
constexpr std::int64_t pg_jan_2026 = ua::date_time::unix_epoch_ticks + 1'767'225'600LL * ua::date_time::ticks_per_second;

}  // namespace

TEST_CASE("postgres_store: a batch comes back in time order, forwards, backwards and in pages", "[history][postgres]") {
  auto& server = shared_server();
  history::postgres_store store(fresh_database(server));
  store.connect();
  store.append(pg_ramp("ns=1;s=A", 10, 1000, 10));
  store.append(pg_ramp("ns=1;s=B", 3, 1000, 10));
  auto q = pg_range("ns=1;s=A", 1000, 1050);  // [1000, 1050): 5 values
  auto page = store.read_raw(q);
  CHECK(pg_doubles(page) == std::vector<double>{0, 1, 2, 3, 4});
  CHECK_FALSE(page.more);
  CHECK(page.values[0].server_timestamp.ticks == 1001);  // the whole DataValue is kept
  q.reverse = true;
  CHECK(pg_doubles(store.read_raw(q)) == std::vector<double>{4, 3, 2, 1, 0});
  q.to_inclusive = true;
  CHECK(pg_doubles(store.read_raw(q)).front() == 5);
  CHECK(store.read_raw(pg_range("ns=1;s=C", 0, 1'000'000)).values.empty());  // an unknown node

  // Seven values at one time, in pages of three: each once, in the order they came.
  store.append(pg_ramp("same", 7, 5000, 0, 0));
  auto p = pg_range("same", 0, 10'000);
  p.limit = 3;
  CHECK(pg_all_pages(store, p) == std::vector<double>{0, 1, 2, 3, 4, 5, 6});
  p.reverse = true;
  CHECK(pg_all_pages(store, p) == std::vector<double>{6, 5, 4, 3, 2, 1, 0});
}

TEST_CASE("postgres_store: a value is stored once, whichever server or retry writes it", "[history][postgres]") {
  auto& server = shared_server();
  const auto db = fresh_database(server);
  history::postgres_store first(db), second(db);
  first.connect();
  second.connect();
  // The two servers of a redundant pair record the same source values, each with its own
  // ServerTimestamp, and one batch goes in twice (a COMMIT whose answer was lost).
  first.append(pg_ramp("tag", 100, pg_jan_2026, ua::date_time::ticks_per_second, 3));
  second.append(pg_ramp("tag", 100, pg_jan_2026, ua::date_time::ticks_per_second, 7));
  first.append(pg_ramp("tag", 100, pg_jan_2026, ua::date_time::ticks_per_second, 3));
  const auto page = second.read_raw(pg_range("tag", 0, pg_jan_2026 + pg_day));
  REQUIRE(page.values.size() == 100);
  CHECK(page.values[0].server_timestamp.ticks == pg_jan_2026 + 3);  // the first writer's
  // A different value at the same time is another record.
  auto other = pg_ramp("tag", 1, pg_jan_2026, 0, 9);
  other[0].value.set_value(42.0);
  second.append(other);
  CHECK(first.read_raw(pg_range("tag", 0, pg_jan_2026 + pg_day)).values.size() == 101);
}

TEST_CASE("postgres_store: a batch over many nodes goes in over both appending connections, each node's values whole and in order",
          "[history][postgres]") {
  auto& server = shared_server();
  const auto db = fresh_database(server);
  history::postgres_store store(db);
  store.connect();
  // 40 nodes interleaved, 25 values each at the same times: the nodes split by id over the two
  // connections, which insert at once.
  std::vector<history::record> batch;
  std::vector<std::string> names;
  for (int n = 0; n < 40; ++n) names.push_back("ns=1;s=Many." + std::to_string(n));
  for (int i = 0; i < 25; ++i)
    for (const auto& name : names) batch.push_back({name, pg_value_at(i, pg_jan_2026 + i, pg_jan_2026 + i + 1)});
  store.append(batch);
  CHECK(scalar(db, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'uactor historian' "
                   "AND datname = current_database()") == 3);  // two appending, one reading
  CHECK(scalar(db, "SELECT count(DISTINCT node) FROM uactor_history_values") == 40);
  store.append(batch);  // again, as after a lost answer: both halves already there
  CHECK(scalar(db, "SELECT count(*) FROM uactor_history_values") == 1000);
  std::vector<double> ramp;
  for (int i = 0; i < 25; ++i) ramp.push_back(i);
  for (const auto& name : names) {
    INFO(name);
    CHECK(pg_doubles(store.read_raw(pg_range(name.c_str(), 0, pg_jan_2026 + pg_day))) == ramp);
  }
}

TEST_CASE("postgres_store: months are partitions, and retention drops old ones whole and trims by count", "[history][postgres]") {
  auto& server = shared_server();
  const auto db = fresh_database(server);
  history::postgres_store store(db);
  store.connect();
  // Ten values a day for 90 days from 2026-01-01: January, February, March, plus a value without
  // any timestamp (DateTime 0, January 1601) and one past year 9999 (the catch-all partition).
  std::vector<history::record> batch;
  for (int d = 0; d < 90; ++d)
    for (int i = 0; i < 10; ++i) batch.push_back({"n", pg_value_at(d * 10 + i, pg_jan_2026 + d * pg_day + i, 0)});
  ua::data_value untimed;
  untimed.set_value(-1.0);
  batch.push_back({"n", untimed});
  batch.push_back({"n", pg_value_at(-2, std::numeric_limits<std::int64_t>::max() - 5, 0)});
  store.append(batch);
  CHECK(scalar(db, "SELECT count(*) FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent "
                   "WHERE p.relname = 'uactor_history_values'") == 5);  // 1601-01, 2026-01..03, other
  CHECK(scalar(db, "SELECT count(*) FROM uactor_history_values_y2026m02") == 280);
  CHECK(scalar(db, "SELECT count(*) FROM uactor_history_values_other") == 1);

  // Keep 40 days as of 2026-03-31: January and 1601 go as partitions, February's first days by rows.
  const std::int64_t now = pg_jan_2026 + 89 * pg_day;
  const auto removed = store.apply_retention({40, 0}, now);
  CHECK(removed == 1 + 310 + (49 - 31) * 10);
  CHECK(scalar(db, "SELECT count(*) FROM pg_class WHERE relname = 'uactor_history_values_y2026m01'") == 0);
  const auto left = store.read_raw(pg_range("n", 0, std::numeric_limits<std::int64_t>::max()));
  CHECK(left.values.size() == 900 - 490 + 1);
  CHECK(*left.values.front().value.get_if<double>() == 490);
  // By count: each node keeps its newest 5.
  CHECK(store.apply_retention({0, 5}, now) == 900 - 490 + 1 - 5);
  CHECK(pg_doubles(store.read_raw(pg_range("n", 0, std::numeric_limits<std::int64_t>::max()))).front() == 896);
  // A value for January again: its partition comes back.
  store.append(pg_ramp("n", 1, pg_jan_2026, 0));
  CHECK(store.read_raw(pg_range("n", pg_jan_2026, pg_jan_2026 + 1)).values.size() == 1);
}

TEST_CASE("postgres_store: a database that is down is unavailable, and the store reconnects when it is back", "[history][postgres]") {
  postgres_server server;
  REQUIRE(server.initialized());
  history::postgres_store never(server.conninfo());
  CHECK_THROWS_AS(never.connect(), history::store_unavailable);  // not started yet
  REQUIRE(server.start());
  history::postgres_store store(server.conninfo());
  store.connect();
  store.append(pg_ramp("n", 3, 1000, 10));
  server.stop();
  CHECK_THROWS_AS(store.append(pg_ramp("n", 3, 2000, 10)), history::store_unavailable);
  CHECK_THROWS_AS(store.read_raw(pg_range("n", 0, 5000)), history::store_unavailable);
  REQUIRE(server.start());
  store.append(pg_ramp("n", 3, 2000, 10));
  CHECK(store.read_raw(pg_range("n", 0, 5000)).values.size() == 6);
}

TEST_CASE("historian: values wait while PostgreSQL restarts, then every one arrives once", "[history][postgres]") {
  postgres_server server;
  INFO(server.log());
  REQUIRE(server.start());
  auto store = std::make_shared<history::postgres_store>(server.conninfo());
  store->connect();
  caf::actor_system_config cfg;
  caf::actor_system sys(cfg);
  actors::historian_options options;
  options.max_queued_batches = 1'000;
  options.retry_min = 50ms;
  options.retry_max = 400ms;
  auto h = actors::spawn_historian(sys, store, options, nullptr);
  // Its actors end with the case, also one that fails (else the system's end waits for them).
  struct stop_on_exit {
    actors::historian& h;
    ~stop_on_exit() {
      caf::anon_send_exit(h.actor, caf::exit_reason::user_shutdown);
      caf::anon_send_exit(h.reader, caf::exit_reason::user_shutdown);
    }
  } stop{h};
  // 60 batches of 10 values, one every 20 ms; the database is down from the 15th to the 40th.
  int sent = 0;
  for (int b = 0; b < 60; ++b) {
    if (b == 15) server.stop();
    if (b == 40) REQUIRE(server.start());
    std::vector<history::record> batch;
    for (int i = 0; i < 10; ++i, ++sent)
      batch.push_back({"ns=1;s=Flow", pg_value_at(sent, pg_jan_2026 + sent * ua::date_time::ticks_per_second, 0)});
    REQUIRE(h.sink(std::move(batch)));
    std::this_thread::sleep_for(20ms);
  }
  // Bounded: the retries are at most 400 ms apart.
  std::size_t stored = 0;
  for (int i = 0; i < 200 && stored < 600; ++i) {
    std::this_thread::sleep_for(25ms);
    stored = store->read_raw(pg_range("ns=1;s=Flow", 0, std::numeric_limits<std::int64_t>::max())).values.size();
  }
  const auto page = store->read_raw(pg_range("ns=1;s=Flow", 0, std::numeric_limits<std::int64_t>::max()));
  REQUIRE(page.values.size() == 600);
  for (std::size_t i = 0; i < page.values.size(); ++i) REQUIRE(*page.values[i].value.get_if<double>() == static_cast<double>(i));
}

// The on-disk spool (docs/history.md "When storage is down"): 4 batches of up to 100 values
// waiting in memory, and batches of 10 values every 5 ms while PostgreSQL is down for 130 of 200
// batches: without the spool most would be dropped; with it the host's sink takes every batch,
// the spool holds them meanwhile (the gauges say so) and every value arrives once, in order.
// A spool too small for the outage drops what does not fit, counted; what arrives is in order.
TEST_CASE("historian: past the memory queue, batches wait in the spool while PostgreSQL is down", "[history][postgres][spool]") {
  postgres_server server;
  INFO(server.log());
  REQUIRE(server.start());
  test::temp_folder folder{"spool-historian"};
  for (const bool small : {false, true}) {
    DYNAMIC_SECTION((small ? "a spool too small for the outage" : "a spool large enough")) {
      auto store = std::make_shared<history::postgres_store>(server.conninfo());
      store->connect();
      const std::string node = small ? "ns=1;s=Small" : "ns=1;s=Large";
      caf::actor_system_config cfg;
      caf::actor_system sys(cfg);
      auto metrics = std::make_shared<actors::metrics_registry>();
      actors::historian_options options;
      options.spool_after = 4;
      options.max_waiting_batch_values = 100;
      options.retry_min = 50ms;
      options.retry_max = 400ms;
      options.spool_path = folder.file(small ? "small.spool" : "large.spool");
      options.spool_max_bytes = small ? 8'000 : 64u << 20;
      auto h = actors::spawn_historian(sys, store, options, metrics);
      struct stop_on_exit {
        actors::historian& h;
        ~stop_on_exit() {
          caf::anon_send_exit(h.actor, caf::exit_reason::user_shutdown);
          caf::anon_send_exit(h.reader, caf::exit_reason::user_shutdown);
        }
      } stop{h};
      int sent = 0;
      std::uint64_t most_spooled = 0;
      for (int b = 0; b < 200; ++b) {
        if (b == 20) server.stop();
        if (b == 150) REQUIRE(server.start());
        std::vector<history::record> batch;
        for (int i = 0; i < 10; ++i, ++sent)
          batch.push_back({node, pg_value_at(sent, pg_jan_2026 + sent * ua::date_time::ticks_per_second, 0)});
        CHECK(h.sink(std::move(batch)));  // the host's queue never refuses: the spool takes the overflow
        most_spooled = std::max(most_spooled, metrics->snapshot().history_spool_values);
        std::this_thread::sleep_for(5ms);
      }
      std::size_t stored = 0;
      std::uint64_t dropped = 0;
      for (int i = 0; i < 400; ++i) {
        std::this_thread::sleep_for(25ms);
        const auto m = metrics->snapshot();
        dropped = m.history_values_dropped;
        stored = store->read_raw(pg_range(node.c_str(), 0, std::numeric_limits<std::int64_t>::max())).values.size();
        const std::uint64_t spooled = m.history_spool_values;
        if (stored + dropped >= 2'000 && spooled == 0) break;
      }
      history::raw_query all = pg_range(node.c_str(), 0, std::numeric_limits<std::int64_t>::max());
      all.limit = 10'000;
      const auto page = store->read_raw(all);
      CHECK(stored + dropped == 2'000);
      for (std::size_t i = 1; i < page.values.size(); ++i)
        REQUIRE(*page.values[i].value.get_if<double>() > *page.values[i - 1].value.get_if<double>());  // in order, once
      CHECK(std::filesystem::file_size(options.spool_path) == 0);  // all written back: emptied
      if (small) {
        CHECK(dropped > 0);
        CHECK(page.values.size() < 2'000);
      } else {
        CHECK(dropped == 0);
        CHECK(page.values.size() == 2'000);
        CHECK(most_spooled > 500);  // the outage's values were in the file meanwhile
      }
    }
  }
}

TEST_CASE("postgres_store: HistoryUpdate inserts, replaces and deletes, keeping what it changed", "[history][postgres]") {
  auto& server = shared_server();
  history::postgres_store store(fresh_database(server));
  store.connect();
  test::check_history_updates(store);
}

TEST_CASE("postgres_store: event history updated and deleted by EventId", "[history][postgres][events]") {
  auto& server = shared_server();
  history::postgres_store store(fresh_database(server));
  store.connect();
  test::check_event_history_updates(store);
}

// A database made before the event_id column (dropped here): the next connection adds it and fills
// it in for the events recorded then, so that they can be deleted by EventId.
TEST_CASE("postgres_store: a database without the event_id column gets it, with the recorded events' ids",
          "[history][postgres][events]") {
  auto& server = shared_server();
  const std::string db = fresh_database(server);
  {
    history::postgres_store store(db);
    store.connect();
    const std::vector<history::record> events{{"i=2253", test::update_contract_event("old1", pg_jan_2026, 100)},
                                              {"i=2253", test::update_contract_event("old2", pg_jan_2026 + 10, 200)},
                                              {"ns=1;s=V", test::update_contract_value(1, pg_jan_2026)}};
    store.append(events);
  }
  REQUIRE(scalar(db, "SELECT count(*) FROM uactor_history_values WHERE event_id IS NOT NULL") == 2);
  {
    PGconn* c = PQconnectdb(db.c_str());
    PGresult* r = PQexec(c, "ALTER TABLE uactor_history_values DROP COLUMN event_id");
    INFO(PQerrorMessage(c));
    CHECK(PQresultStatus(r) == PGRES_COMMAND_OK);
    PQclear(r);
    PQfinish(c);
  }
  history::postgres_store store(db);
  store.connect();
  CHECK(scalar(db, "SELECT count(*) FROM uactor_history_values WHERE event_id IS NOT NULL") == 2);
  const std::vector<ua::byte_string> ids{ua::byte_string("old2")};
  CHECK(store.remove_events("i=2253", ids, {1, 0, ""}) == std::vector<bool>{true});
  CHECK(test::update_contract_events(store.read_raw(pg_range("i=2253", 0, pg_jan_2026 + pg_day))).size() == 1);
}

// The historical configuration over PostgreSQL (engine/server/history_configuration.hpp): a
// variable's HA Configuration reports the first value the database holds as StartOfArchive, a
// deletion moves it, and its Stepped decides an at-time read.
TEST_CASE("postgres_store: StartOfArchive and Stepped of a variable's HA Configuration", "[history][postgres][configuration]") {
  auto& server = shared_server();
  auto store = std::make_shared<history::postgres_store>(fresh_database(server));
  store->connect();
  auto core = test::make_core();
  core.set_history(store, [store](std::vector<history::record>&& b) {
    store->append(b);
    return true;
  });
  const ua::node_id valve = ua::node_id::string(1, "Demo.Static.Scalar.Double");
  const ua::node_index n = core.space().find(valve);
  REQUIRE(core.space().set_historizing(n, true) == ua::status::good);
  REQUIRE(core.space().set_history_writable(n, true) == ua::status::good);
  const std::int64_t t0 = test::at(0).utc.ticks, second = ua::date_time::ticks_per_second;
  store->append(pg_ramp(valve.to_string().c_str(), 3, t0 + 10 * second, 10 * second));  // 0, 1, 2 at +10, +20, +30 s
  actors::historical_configuration c;
  c.aggregate.stepped = true;
  REQUIRE(core.set_history_configuration({}, 0, 0, {{valve, c}}, test::at(0)).empty());
  const auto start = [&] {
    ua::data_value v;
    core.space().read(ua::node_id::string(1, "Demo.Static.Scalar.Double.HA Configuration.StartOfArchive"), ua::attribute_id::value, v);
    return v.value;
  };
  CHECK(start() == ua::variant(ua::date_time{t0 + 10 * second}));

  test::core_session s(core, 4);
  ua::delete_at_time_details del;
  del.node_id = valve;
  del.req_times.push_back(ua::date_time{t0 + 10 * second});
  ua::history_update_request up;
  up.history_update_details.push_back(ua::extension_object(del));
  REQUIRE(s.call_as<ua::history_update_response>(up).results.at(0).status_code == ua::status::good);
  CHECK(start() == ua::variant(ua::date_time{t0 + 20 * second}));

  ua::read_at_time_details at;
  at.req_times.push_back(ua::date_time{t0 + 25 * second});  // between 1 and 2: stepped holds 1
  at.use_simple_bounds = true;
  ua::history_read_request req;
  req.history_read_details = ua::extension_object(at);
  req.timestamps_to_return = ua::timestamps_to_return::both;
  req.nodes_to_read.resize(1);
  req.nodes_to_read[0].node_id = valve;
  const auto& r = s.call_as<ua::history_read_response>(req);
  REQUIRE(r.results.at(0).status_code == ua::status::good);
  const auto* d = r.results[0].history_data.get_if<ua::history_data>();
  REQUIRE(d);
  REQUIRE(d->data_values.size() == 1);
  CHECK(d->data_values[0].value == ua::variant(1.0));
}

// The embedding API's collection settings and continuation points of processed and at-time reads
// through a server whose history is a PostgreSQL database (tests/history/runtime_history.hpp; the
// same checks as SQLite's in history_runtime_test.cpp).
TEST_CASE("postgres_store: the plan's collection settings, processed and at-time reads in pages through a server",
          "[history][postgres][runtime][collection]") {
  auto& server = shared_server();
  runtime rt;
  history_plan h;
  h.backend = "postgresql";
  h.connection = fresh_database(server);
  h.spool_max_mb = 0;  // not what this case is about (and no file in the working folder)
  test::check_collection_and_paging(rt, h);
  rt.stop();
}
