// Our client's event subscriptions against our server (docs/decisions/0030): a runtime with a
// server on port 0 raising events through server::raise_events, our client over real sockets with
// EventFilters built by event_filter_builder (docs/events.md "For clients").
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "uactor/runtime.hpp"

using namespace uactor;
using namespace std::chrono_literals;

namespace {

server_plan local_plan(std::uint16_t port = 0) {
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = port;
  plan.security = {"none"};
  return plan;
}

event make_event(std::uint16_t severity, const char* message) {
  event e;
  e.severity = severity;
  e.message = ua::localized_text{ua::ua_string("en"), ua::ua_string(message)};
  return e;
}

// What the client's thread hands over: each event's fields, rendered "Severity Message".
struct inbox {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<ua::event_field_list> events;
  std::vector<subscription_status> statuses;

  void take(std::span<const ua::event_field_list> in) {
    std::lock_guard lock(mutex);
    events.insert(events.end(), in.begin(), in.end());
    changed.notify_all();
  }
  void status(const subscription_status& s) {
    std::lock_guard lock(mutex);
    statuses.push_back(s);
    changed.notify_all();
  }
  // Bounded: false when `n` events have not come within `limit`.
  bool wait_events(std::size_t n, std::chrono::milliseconds limit = 10s) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, limit, [&] { return events.size() >= n; });
  }
  bool wait_status(subscription_event what, std::chrono::milliseconds limit = 15s) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, limit, [&] {
      return std::any_of(statuses.begin(), statuses.end(), [&](const subscription_status& s) { return s.what == what; });
    });
  }
  std::size_t count() {
    std::lock_guard lock(mutex);
    return events.size();
  }
};

subscription_handlers to(inbox& box) {
  subscription_handlers h;
  h.on_events = [&box](std::uint32_t, std::uint32_t, std::span<const ua::event_field_list> e) { box.take(e); };
  h.on_status = [&box](const subscription_status& s) { box.status(s); };
  return h;
}

std::string text(const ua::variant& v) {
  if (const auto* t = v.get_if<ua::localized_text>()) return std::string(t->text.view());
  if (const auto* s = v.get_if<ua::ua_string>()) return std::string(s->view());
  return "?";
}

std::uint16_t severity(const ua::variant& v) {
  const auto* s = v.get_if<std::uint16_t>();
  return s ? *s : 0;
}

client_options options_for(std::uint16_t port) {
  client_options o;
  o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(port);
  o.request_timeout = 10s;
  return o;
}

}  // namespace

TEST_CASE("client: events from our server reach on_events with the selected fields, filtered by the where clause",
          "[runtime][client-events]") {
  runtime rt;
  auto started = rt.start_server(local_plan());
  REQUIRE(started.has_value());
  server& srv = **started;
  inbox box;  // before the client: its handlers run until the client is gone
  auto c = rt.connect(options_for(srv.port()));
  REQUIRE(c.has_value());
  auto sub = c->create_subscription_sync(subscription_settings{}, to(box));
  REQUIRE(sub.has_value());
  event_filter_builder filter;
  filter.select("Severity").select("Message").select("SourceName").select("EventType").select("Time").select("NoSuchField");
  filter.min_severity(500);
  ua::create_monitored_items_request req;
  req.subscription_id = sub->subscription_id;
  req.items_to_create.push_back(monitor_events(ua::node_id(0, server_object_id), 42, filter.build()));
  auto items = c->create_monitored_items_sync(req);
  REQUIRE(items.has_value());
  REQUIRE(items->results.size() == 1);
  CHECK(items->results[0].status_code == ua::status::good);
  // Part 4 §7.22.3: with BaseEventType a path is not checked; every clause Good (or no result at all).
  if (const auto* fr = event_filter_result_of(items->results[0])) CHECK(first_refused_clause(*fr).empty());

  const auto before = ua::date_time::from_unix_ms(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count() - 1000);
  const std::vector<event> events{make_event(600, "pump 1 tripped"), make_event(100, "pump 1 low flow"),
                                  make_event(900, "valve 3 stuck")};
  REQUIRE(srv.raise_events(events) == ua::status::good);
  REQUIRE(box.wait_events(2));
  std::this_thread::sleep_for(300ms);  // a third (the filtered one) would have come by now
  std::lock_guard lock(box.mutex);
  REQUIRE(box.events.size() == 2);
  const std::vector<std::pair<std::uint16_t, std::string>> want{{600, "pump 1 tripped"}, {900, "valve 3 stuck"}};
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& e = box.events[i];
    CHECK(e.client_handle == 42);
    REQUIRE(e.event_fields.size() == 6);  // one per select clause, in their order
    CHECK(severity(e.event_fields[0]) == want[i].first);
    CHECK(text(e.event_fields[1]) == want[i].second);
    CHECK(text(e.event_fields[2]) == "Server");  // the source's BrowseName
    REQUIRE(e.event_fields[3].get_if<ua::node_id>());
    CHECK(*e.event_fields[3].get_if<ua::node_id>() == ua::node_id(0, base_event_type_id));
    REQUIRE(e.event_fields[4].get_if<ua::date_time>());
    CHECK(e.event_fields[4].get_if<ua::date_time>()->ticks > before.ticks);
    CHECK(e.event_fields[5].empty());  // a field the event lacks: a null Variant
  }
}

TEST_CASE("client: a select clause our server refuses is in the EventFilterResult, a bad where clause fails the item",
          "[runtime][client-events]") {
  runtime rt;
  auto started = rt.start_server(local_plan());
  REQUIRE(started.has_value());
  server& srv = **started;
  inbox box;
  auto c = rt.connect(options_for(srv.port()));
  REQUIRE(c.has_value());
  auto sub = c->create_subscription_sync(subscription_settings{}, to(box));
  REQUIRE(sub.has_value());

  ua::create_monitored_items_request req;
  req.subscription_id = sub->subscription_id;
  // Item 1: the second select clause names the Objects folder (i=85) as its type, not an event type.
  event_filter_builder bad_select;
  bad_select.select("Severity").select("Severity", ua::node_id(0, 85));
  req.items_to_create.push_back(monitor_events(ua::node_id(0, server_object_id), 1, bad_select.build()));
  // Item 2: OfType with a node that is no event type (Part 4 §7.7.3).
  event_filter_builder bad_where;
  bad_where.select("Severity").min_severity(1).of_type(ua::node_id(0, 85));
  req.items_to_create.push_back(monitor_events(ua::node_id(0, server_object_id), 2, bad_where.build()));
  auto items = c->create_monitored_items_sync(req);
  REQUIRE(items.has_value());
  REQUIRE(items->results.size() == 2);

  CHECK(items->results[0].status_code == ua::status::good);  // a refused select clause leaves a null field
  const auto* select_result = event_filter_result_of(items->results[0]);
  REQUIRE(select_result);
  REQUIRE(select_result->select_clause_results.size() == 2);
  CHECK(select_result->select_clause_results[0] == ua::status::good);
  CHECK(select_result->select_clause_results[1] == ua::status::bad_type_definition_invalid);
  CHECK(first_refused_clause(*select_result) == "select clause 1: " + ua::status_code(ua::status::bad_type_definition_invalid).to_string());

  CHECK(items->results[1].status_code == ua::status::bad_event_filter_invalid);
  const auto* where_result = event_filter_result_of(items->results[1]);
  REQUIRE(where_result);
  const auto& elements = where_result->where_clause_result.element_results;
  REQUIRE(elements.size() == 3);  // And, Severity >= 1, OfType
  CHECK(elements[bad_where.where_element(0)].status_code == ua::status::good);
  CHECK(elements[bad_where.where_element(1)].status_code == ua::status::bad_filter_operand_invalid);
  CHECK(first_refused_clause(*where_result).rfind("where element 2: BadFilterOperandInvalid", 0) == 0);

  // The item with the refused clause still reports, its field null.
  REQUIRE(srv.raise_event(make_event(700, "still here")) == ua::status::good);
  REQUIRE(box.wait_events(1));
  std::lock_guard lock(box.mutex);
  REQUIRE(box.events[0].event_fields.size() == 2);
  CHECK(severity(box.events[0].event_fields[0]) == 700);
  CHECK(box.events[0].event_fields[1].empty());
}

TEST_CASE("client: per-item event handlers get their own item's events", "[runtime][client-events]") {
  runtime rt;
  auto started = rt.start_server(local_plan());
  REQUIRE(started.has_value());
  server& srv = **started;
  inbox all, severe;
  auto c = rt.connect(options_for(srv.port()));
  REQUIRE(c.has_value());
  auto sub = c->create_subscription_sync(subscription_settings{}, subscription_handlers{});
  REQUIRE(sub.has_value());
  ua::create_monitored_items_request req;
  req.subscription_id = sub->subscription_id;
  req.items_to_create.push_back(monitor_events(ua::node_id(0, server_object_id), 0, event_filter_builder().select("Message").build()));
  req.items_to_create.push_back(
      monitor_events(ua::node_id(0, server_object_id), 0, event_filter_builder().select("Message").min_severity(800).build()));
  std::vector<event_item_handler> handlers{
      [&all](const ua::event_field_list& e) { all.take(std::span(&e, 1)); },
      [&severe](const ua::event_field_list& e) { severe.take(std::span(&e, 1)); }};
  auto items = c->create_monitored_items_sync(req, std::move(handlers));
  REQUIRE(items.has_value());
  for (const auto& r : items->results) REQUIRE(r.status_code == ua::status::good);
  REQUIRE(srv.raise_events(std::vector<event>{make_event(300, "minor"), make_event(850, "major")}) == ua::status::good);
  REQUIRE(all.wait_events(2));
  REQUIRE(severe.wait_events(1));
  std::this_thread::sleep_for(200ms);
  CHECK(all.count() == 2);
  CHECK(severe.count() == 1);
  std::lock_guard lock(severe.mutex);
  CHECK(text(severe.events[0].event_fields.at(0)) == "major");
}

TEST_CASE("client: a supervised client's event items come back with their filter when the server restarts",
          "[runtime][client-events]") {
  // The first server, then a new one on the same port that knows nothing of the session: the
  // client recreates the session, the subscription and its event item (Part 4 §6.7).
  std::optional<runtime> first(std::in_place);
  auto s1 = first->start_server(local_plan());
  REQUIRE(s1.has_value());
  const std::uint16_t port = (*s1)->port();

  auto o = options_for(port);
  o.reconnect.enabled = true;
  o.reconnect.initial_delay = 50ms;
  o.reconnect.max_delay = 500ms;
  inbox box;
  auto c = client::connect(o);
  REQUIRE(c.has_value());
  auto sub = c->create_subscription_sync(subscription_settings{}, to(box));
  REQUIRE(sub.has_value());
  ua::create_monitored_items_request req;
  req.subscription_id = sub->subscription_id;
  req.items_to_create.push_back(
      monitor_events(ua::node_id(0, server_object_id), 7, event_filter_builder().select("Message").select("Severity").min_severity(500).build()));
  auto items = c->create_monitored_items_sync(req);
  REQUIRE(items.has_value());
  REQUIRE(items->results.at(0).status_code == ua::status::good);
  REQUIRE((*s1)->raise_events(std::vector<event>{make_event(100, "before, minor"), make_event(600, "before")}) == ua::status::good);
  REQUIRE(box.wait_events(1));

  first.reset();  // the server goes, with the session and the subscription
  runtime second;
  std::optional<server*> s2;
  for (int i = 0; i < 50 && !s2; ++i) {  // the port may take a moment to be free again
    auto s = second.start_server(local_plan(port));
    if (s.has_value()) s2 = *s;
    else std::this_thread::sleep_for(100ms);
  }
  REQUIRE(s2.has_value());
  REQUIRE(box.wait_status(subscription_event::recreated));
  REQUIRE((*s2)->raise_events(std::vector<event>{make_event(200, "after, minor"), make_event(700, "after")}) == ua::status::good);
  REQUIRE(box.wait_events(2));
  std::this_thread::sleep_for(300ms);
  std::lock_guard lock(box.mutex);
  REQUIRE(box.events.size() == 2);  // the where clause still holds
  const auto& e = box.events[1];
  CHECK(e.client_handle == 7);  // the same client handle
  REQUIRE(e.event_fields.size() == 2);  // the same select clauses
  CHECK(text(e.event_fields[0]) == "after");
  CHECK(severity(e.event_fields[1]) == 700);
}

namespace {

// A command's stdout as lines, its stderr apart (LeakSanitizer's report of the suppressions it
// used goes there, so it must not count as an event line), and its exit code. Bounded by `timeout`.
struct command_result {
  int rc = -1;
  std::vector<std::string> lines;
  std::string errors;
  std::string all() const {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s + errors;
  }
};

command_result run_command(const std::string& cmd) {
  command_result r;
  char err_path[] = "/tmp/uactor-cli-stderr-XXXXXX";
  const int err_fd = ::mkstemp(err_path);
  REQUIRE(err_fd >= 0);
  ::close(err_fd);
  FILE* p = popen(("timeout -k 5 30 " + cmd + " 2>" + err_path).c_str(), "r");
  REQUIRE(p);
  char buf[2048];
  while (std::fgets(buf, sizeof buf, p)) {
    std::string l(buf);
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
    r.lines.push_back(std::move(l));
  }
  const int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_path);
  r.errors.assign(std::istreambuf_iterator<char>(err), std::istreambuf_iterator<char>());
  std::filesystem::remove(err_path);
  return r;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

// The `uactor` binary (UACTOR_BIN) as a child process against an embedded server that raises an
// event every 50 ms (Severity 300 and 800 in turn). Hidden: ctest runs it with UACTOR_BIN set.
TEST_CASE("client: uactor subscribe --events against our server, text, --json, a refused where clause",
          "[.cli-events]") {
  const char* bin = std::getenv("UACTOR_BIN");
  REQUIRE(bin);
  runtime rt;
  auto started = rt.start_server(local_plan());
  REQUIRE(started.has_value());
  server& srv = **started;
  std::atomic<bool> stop{false};
  std::thread raiser([&] {
    for (std::uint32_t n = 1; !stop.load(); ++n) {
      const bool major = n % 2 == 0;
      auto e = make_event(major ? 800 : 300, major ? "major event" : "minor event");
      e.source_name = "uactor-test";
      srv.raise_event(e);
      std::this_thread::sleep_for(50ms);
    }
  });
  struct joiner {
    std::atomic<bool>& stop;
    std::thread& t;
    ~joiner() {
      stop.store(true);
      t.join();
    }
  } join{stop, raiser};
  const std::string cmd = std::string(bin) + " subscribe opc.tcp://127.0.0.1:" + std::to_string(srv.port()) + " --events";

  SECTION("text: one line per event, the default fields") {
    const auto r = run_command(cmd + " --count 3 --interval 50");
    INFO(r.all());
    REQUIRE(r.rc == 0);
    REQUIRE(r.lines.size() == 3);
    for (const auto& l : r.lines) {
      CHECK(l.rfind("i=2253\tTime=20", 0) == 0);
      CHECK(contains(l, "\tSourceName=\"uactor-test\"\tEventType=i=2041\tSeverity="));
      CHECK(contains(l, "\tMessage=en \""));
    }
  }
  SECTION("--json with --min-severity and --reconnect: only the major events, fields by path") {
    const auto r = run_command(cmd + " --count 2 --interval 50 --json --min-severity 500 --reconnect --select Severity,Message,Time");
    INFO(r.all());
    REQUIRE(r.rc == 0);
    REQUIRE(r.lines.size() == 2);
    for (const auto& l : r.lines) {
      CHECK(l.rfind("{\"node\":\"i=2253\",\"fields\":{\"Severity\":{\"type\":\"UInt16\",\"value\":800},"
                    "\"Message\":{\"type\":\"LocalizedText\",\"value\":{\"locale\":\"en\",\"text\":\"major event\"}},"
                    "\"Time\":{\"type\":\"DateTime\",\"value\":\"20",
                    0) == 0);
    }
  }
  SECTION("select clauses of a type that is no event type: named, exit 1") {
    const auto r = run_command(cmd + " --select-type i=85 --select Severity --seconds 5");
    INFO(r.all());
    CHECK(r.rc == 1);
    CHECK(contains(r.all(), "refused --select Severity (select clause 0): BadTypeDefinitionInvalid"));
  }
  SECTION("a where clause the server refuses: named, exit 1") {
    const auto r = run_command(cmd + " --event-type i=85 --seconds 5");
    INFO(r.all());
    CHECK(r.rc == 1);
    CHECK(contains(r.all(), "BadEventFilterInvalid"));
    CHECK(contains(r.all(), "refused --event-type i=85 (where element 0): BadFilterOperandInvalid"));
  }
  SECTION("--where twice, ANDed: Severity and Like") {
    const auto r = run_command(cmd + " --count 3 --interval 50 --select Severity,Message --where 'Severity >= 500'"
                                     " --where 'Message like %major%'");
    INFO(r.all());
    REQUIRE(r.rc == 0);
    REQUIRE(r.lines.size() == 3);
    for (const auto& l : r.lines) CHECK(l == "i=2253\tSeverity=800\tMessage=en \"major event\"");
  }
  SECTION("--where != (a Not over Equals), == on a String, < with --min-severity") {
    const auto r = run_command(cmd + " --count 3 --interval 50 --select Severity,SourceName --where 'Severity != 800'"
                                     " --where 'SourceName == uactor-test' --where 'Severity<301' --min-severity 300");
    INFO(r.all());
    REQUIRE(r.rc == 0);
    REQUIRE(r.lines.size() == 3);
    for (const auto& l : r.lines) CHECK(l == "i=2253\tSeverity=300\tSourceName=\"uactor-test\"");
  }
  SECTION("a --where on a field AlarmConditionType lacks: named by its text, exit 1") {
    // Part 4 §7.22.3: paths are checked against a type other than BaseEventType.
    const auto r = run_command(cmd + " --select-type i=2915 --where 'Severity > 1' --where 'NoSuchField != true' --seconds 5");
    INFO(r.all());
    CHECK(r.rc == 1);
    // The Equals under the Not is refused: named as the --where it came from.
    CHECK(contains(r.all(), "refused --where 'NoSuchField != true' (where element 3): BadFilterOperandInvalid (0x80490000), "
                            "operand 0: BadBrowseNameInvalid"));
  }
  SECTION("a malformed --where: named, exit 2") {
    const auto r = run_command(cmd + " --where 'Severity => 500' --seconds 5");
    INFO(r.all());
    CHECK(r.rc == 2);
    CHECK(contains(r.all(), "--where 'Severity => 500': no operator"));
  }
}
