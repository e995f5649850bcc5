// Two servers of a redundant pair record into one PostgreSQL (Debian's, started by the test), the
// database goes down for 10 s in the middle of the recording and comes back: a client's HistoryRead
// through either server returns every value once. A server started again on the same database
// continues the same history.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "tests/history/postgres_server.hpp"
#include "uactor/runtime.hpp"
#include "uactor/ua/node_ids.hpp"

using namespace uactor;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t pair_second = ua::date_time::ticks_per_second;
// 2026-06-01T00:00:00Z: the recording's first source time.
constexpr std::int64_t pair_start = ua::date_time::unix_epoch_ticks + 1'780'272'000LL * pair_second;

struct pair_member {
  server* srv = nullptr;
  std::uint16_t ns = 0;
  value_handle flow;
};

pair_member start_member(runtime& rt, const std::string& conninfo) {
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  plan.history.backend = "postgresql";
  plan.history.connection = conninfo;
  plan.history.historize.clear();
  auto s = rt.start_server(plan);
  REQUIRE(s.has_value());
  pair_member m;
  m.srv = *s;
  m.ns = m.srv->register_namespace("urn:test:pair");
  variable_node v;
  v.id = node_id::string(m.ns, "Flow");
  v.parent = node_id(0, ua::ids::objects_folder);
  v.browse_name = qualified_name{m.ns, ua::ua_string("Flow")};
  v.data_type = node_id(0, ua::ids::double_);
  v.access_level = access::read | access::history_read;
  v.historizing = true;
  v.value.set_value(0.0);
  REQUIRE(m.srv->apply(node_change(std::move(v))) == ua::status::good);
  auto h = m.srv->resolve(node_id::string(m.ns, "Flow"));
  REQUIRE(h.has_value());
  m.flow = *h;
  return m;
}

// The values of Flow from pair_start on, through a client of `srv`, following continuation points.
std::vector<double> history_of(runtime& rt, server& srv, std::uint16_t ns) {
  client_options o;
  o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(srv.port());
  o.request_timeout = 10s;
  auto c = rt.connect(o);
  REQUIRE(c.has_value());
  ua::read_raw_modified_details d;
  d.start_time.ticks = pair_start;
  d.end_time.ticks = pair_start + 86'400 * pair_second;
  ua::history_read_request req;
  req.history_read_details = ua::extension_object(d);
  req.timestamps_to_return = ua::timestamps_to_return::source;
  req.nodes_to_read.resize(1);
  req.nodes_to_read[0].node_id = node_id::string(ns, "Flow");
  std::vector<double> out;
  for (int page = 0; page < 100; ++page) {
    auto r = c->history_read_sync(req);
    REQUIRE(r.has_value());
    REQUIRE(r->results.size() == 1);
    const auto& result = r->results[0];
    if (result.status_code.is_bad()) return {};  // the database is not there (yet)
    if (const auto* data = result.history_data.get_if<ua::history_data>())
      for (const auto& v : data->data_values) out.push_back(*v.value.get_if<double>());
    if (result.continuation_point.empty()) break;
    req.nodes_to_read[0].continuation_point = result.continuation_point;
  }
  return out;
}

void write_value(pair_member& m, int i) {
  value_update u{m.flow, variant(static_cast<double>(i)), {}, date_time{pair_start + i * pair_second}};
  REQUIRE(m.srv->write_values(std::span(&u, 1)) == ua::status::good);
}

}  // namespace

TEST_CASE("history on PostgreSQL: a redundant pair records through a 10 s outage, each value once, and a restart continues",
          "[history][postgres][runtime]") {
  test::postgres_server pg;
  INFO(pg.log());
  REQUIRE(pg.start());
  runtime rt;
  auto a = start_member(rt, pg.conninfo());
  auto b = start_member(rt, pg.conninfo());

  // Both servers get the same device values (a value a second of source time, 20 per real second):
  // 40 before the outage, 200 during its 10 s, 40 after.
  int sent = 0;
  const auto send = [&](int count) {
    for (int i = 0; i < count; ++i, ++sent) {
      write_value(a, sent);
      write_value(b, sent);
      std::this_thread::sleep_for(50ms);
    }
  };
  send(40);
  pg.stop();
  send(200);
  REQUIRE(pg.start());
  send(40);

  // The historians retry at most 10 s apart (historian_options::retry_max).
  std::vector<double> through_b;
  for (int i = 0; i < 60 && through_b.size() < static_cast<std::size_t>(sent); ++i) {
    std::this_thread::sleep_for(500ms);
    through_b = history_of(rt, *b.srv, b.ns);
  }
  std::vector<double> expected;
  for (int i = 0; i < sent; ++i) expected.push_back(i);
  CHECK(through_b == expected);
  CHECK(history_of(rt, *a.srv, a.ns) == expected);

  // Server a restarts on the same database: its history is there and goes on.
  a.srv->stop();
  auto again = start_member(rt, pg.conninfo());
  write_value(again, sent++);
  expected.push_back(sent - 1);
  std::vector<double> after;
  for (int i = 0; i < 40 && after.size() < expected.size(); ++i) {
    std::this_thread::sleep_for(250ms);
    after = history_of(rt, *again.srv, again.ns);
  }
  CHECK(after == expected);
  rt.stop();
}
