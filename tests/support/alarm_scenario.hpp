// Our client's Part 9 helpers (client::acknowledge, confirm, add_comment, condition_refresh,
// condition_refresh2) against a server with an ExclusiveLimitAlarmType condition on a writable
// Double input (High at 70, HighHigh at 90, the value 50 at first): node-opcua's own alarm
// (tests/interop/node_server.js --alarms) and ours (tests/runtime/client_alarms_test.cpp). The
// client subscribes to the Server object's events with the condition fields, drives the input
// with Writes and answers each step with one line of a transcript, which each test compares with
// what its server answers: both servers implement Part 9, and their differences show there.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "uactor/ua/status_codes.hpp"
#include "uactor/client.hpp"

namespace uactor::testing {

struct alarm_scenario_ids {
  ua::node_id input;      // the Double the alarm watches
  ua::node_id condition;  // its ConditionId
};

// The select clauses, in this order (Part 9 §5.5.2 and §5.8.2; ConditionId by the NodeId attribute).
enum alarm_field : std::size_t { f_event_id, f_event_type, f_condition_id, f_active, f_acked, f_confirmed, f_retain,
                                 f_comment, f_count };

inline ua::event_filter alarm_scenario_filter() {
  event_filter_builder f;
  f.select("EventId").select("EventType").select(event_field("", ua::node_id(0, 2782), 1));
  f.select("ActiveState/Id").select("AckedState/Id").select("ConfirmedState/Id").select("Retain").select("Comment");
  return f.build();
}

// What the subscription delivers, handed from the client's thread to the test's.
class alarm_event_inbox {
public:
  void take(std::span<const ua::event_field_list> in) {
    std::lock_guard lock(mutex_);
    for (const auto& e : in) events_.push_back(e);
    changed_.notify_all();
  }
  // The first event at or after `from` that `match` accepts, its position in `at`; bounded.
  std::optional<ua::event_field_list> wait(std::size_t& at, const std::function<bool(const ua::event_field_list&)>& match,
                                           std::chrono::milliseconds limit = std::chrono::milliseconds(10'000)) {
    std::unique_lock lock(mutex_);
    std::optional<ua::event_field_list> found;
    changed_.wait_for(lock, limit, [&] {
      for (; at < events_.size(); ++at)
        if (events_[at].event_fields.size() == f_count && match(events_[at])) {
          found = events_[at++];
          return true;
        }
      return false;
    });
    return found;
  }
  std::size_t size() {
    std::lock_guard lock(mutex_);
    return events_.size();
  }

private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<ua::event_field_list> events_;
};

namespace alarm_detail {

inline bool flag(const ua::event_field_list& e, std::size_t i) {
  const bool* b = e.event_fields[i].get_if<bool>();
  return b && *b;
}
inline std::string yes(bool b) { return b ? "true" : "false"; }
inline std::uint32_t type_of(const ua::event_field_list& e) {
  const auto* t = e.event_fields[f_event_type].get_if<ua::node_id>();
  return t && t->namespace_index() == 0 && t->type() == ua::node_id_type::numeric ? t->numeric() : 0;
}
inline ua::byte_string event_id(const ua::event_field_list& e) {
  const auto* b = e.event_fields[f_event_id].get_if<ua::byte_string>();
  return b ? *b : ua::byte_string();
}
inline std::string name(ua::status_code sc) { return std::string(sc.name()); }

inline std::string states(const ua::event_field_list& e) {
  return "active=" + yes(flag(e, f_active)) + " acked=" + yes(flag(e, f_acked)) + " confirmed=" +
         yes(flag(e, f_confirmed)) + " retain=" + yes(flag(e, f_retain));
}

inline ua::status_code write_double(client& c, const ua::node_id& node, double v) {
  ua::write_request w;
  ua::write_value wv;
  wv.node_id = node;
  wv.attribute_id = 13;
  wv.value.set_value(v);
  w.nodes_to_write.push_back(std::move(wv));
  auto r = c.write_sync(std::move(w));
  return r && r->results.size() == 1 ? r->results[0] : ua::status::bad_unexpected_error;
}

// A 50 ms subscription with one event item (client handle 7) on the Server object, its events into
// `box`. Its id and the item's, or a line that says what failed; `out` gets a refused clause.
struct alarm_subscription {
  std::uint32_t subscription_id = 0;
  std::uint32_t item_id = 0;
  std::string failed;
};
inline alarm_subscription subscribe_alarm_events(client& c, alarm_event_inbox& box, std::vector<std::string>& out) {
  subscription_handlers h;
  h.on_events = [&box](std::uint32_t, std::uint32_t, std::span<const ua::event_field_list> e) { box.take(e); };
  subscription_settings settings;
  settings.publishing_interval = std::chrono::milliseconds(50);
  auto sub = c.create_subscription_sync(settings, std::move(h));
  if (!sub) return {0, 0, "create_subscription " + name(sub.error())};
  ua::create_monitored_items_request req;
  req.subscription_id = sub->subscription_id;
  req.items_to_create.push_back(monitor_events(ua::node_id(0, server_object_id), 7, alarm_scenario_filter()));
  auto items = c.create_monitored_items_sync(req);
  if (!items || items->results.size() != 1 || items->results[0].status_code.is_bad())
    return {sub->subscription_id, 0, "create_monitored_items failed"};
  if (const auto* fr = event_filter_result_of(items->results[0]))
    if (auto bad = first_refused_clause(*fr); !bad.empty()) out.push_back("refused " + bad);
  return {sub->subscription_id, items->results[0].monitored_item_id, {}};
}

}  // namespace alarm_detail

// A scenario's lines, one a line, for a failed check's message.
inline std::string transcript(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  return all;
}

// Runs the scenario; every line is the client's view of one step. `c` must be connected.
inline std::vector<std::string> run_alarm_scenario(client& c, const alarm_scenario_ids& ids) {
  using namespace alarm_detail;
  constexpr std::uint32_t refresh_start = 2787, refresh_end = 2788;
  std::vector<std::string> out;
  alarm_event_inbox box;
  const auto sub = subscribe_alarm_events(c, box, out);
  if (!sub.failed.empty()) return {sub.failed};
  const std::uint32_t item = sub.item_id;

  const auto write_input = [&](double v) { return write_double(c, ids.input, v); };
  const auto of_condition = [&](const ua::event_field_list& e) {
    const auto* id = e.event_fields[f_condition_id].get_if<ua::node_id>();
    return id && *id == ids.condition;
  };
  const auto comment = [](const char* s) { return ua::localized_text{ua::ua_string("en"), ua::ua_string(s)}; };
  std::size_t at = 0;
  ua::byte_string latest;  // the EventId of the condition's latest state event
  const auto state = [&](const char* what, const std::function<bool(const ua::event_field_list&)>& match) {
    auto e = box.wait(at, [&](const ua::event_field_list& x) { return of_condition(x) && match(x); });
    if (!e) return out.push_back(std::string(what) + ": no event"), false;
    latest = event_id(*e);
    out.push_back(std::string(what) + " " + states(*e));
    return true;
  };
  // RefreshStart, the retained conditions, RefreshEnd (Part 9 §5.5.7), as this item got them.
  const auto refreshed = [&](const char* what) {
    if (!box.wait(at, [&](const ua::event_field_list& x) { return type_of(x) == refresh_start; }))
      return out.push_back(std::string(what) + ": no RefreshStart");
    out.push_back(std::string(what) + "-start");
    for (;;) {
      auto e = box.wait(at, [](const ua::event_field_list&) { return true; });
      if (!e) return out.push_back(std::string(what) + ": no RefreshEnd");
      if (type_of(*e) == refresh_end) return out.push_back(std::string(what) + "-end");
      if (of_condition(*e))
        out.push_back(std::string(what) + " condition " + states(*e));
    }
  };

  out.push_back("write 80 " + name(write_input(80)));
  if (!state("active", [](const ua::event_field_list& e) { return flag(e, f_active); })) return out;
  const ua::byte_string first = latest;
  out.push_back("acknowledge " + name(c.acknowledge_sync(ids.condition, latest, comment("seen"))));
  if (!state("acked", [](const ua::event_field_list& e) { return flag(e, f_acked); })) return out;
  out.push_back("acknowledge again " + name(c.acknowledge_sync(ids.condition, latest, comment("seen twice"))));
  out.push_back("acknowledge the first event " + name(c.acknowledge_sync(ids.condition, first, comment("old"))));
  ua::byte_string bogus;
  bogus.assign(std::string(16, '\xee'));
  out.push_back("acknowledge an unknown event " + name(c.acknowledge_sync(ids.condition, bogus, comment("who"))));
  out.push_back("confirm " + name(c.confirm_sync(ids.condition, latest, comment("done"))));
  if (!state("confirmed", [](const ua::event_field_list& e) { return flag(e, f_confirmed); })) return out;
  out.push_back("confirm again " + name(c.confirm_sync(ids.condition, latest, comment("done twice"))));
  out.push_back("comment " + name(c.add_comment_sync(ids.condition, latest, comment("look at the pump"))));
  if (auto e = box.wait(at, of_condition)) {
    latest = event_id(*e);
    const auto* t = e->event_fields[f_comment].get_if<ua::localized_text>();
    out.push_back("commented " + (t ? std::string(t->text.view()) : std::string("(no comment field)")));
  } else {
    out.push_back("commented: no event");
  }
  out.push_back("refresh " + name(c.condition_refresh_sync(sub.subscription_id)));
  refreshed("refresh");
  out.push_back("refresh2 " + name(c.condition_refresh2_sync(sub.subscription_id, item)));
  refreshed("refresh2");
  out.push_back("refresh an unknown subscription " + name(c.condition_refresh_sync(sub.subscription_id + 1000)));
  out.push_back("refresh2 an unknown item " + name(c.condition_refresh2_sync(sub.subscription_id, item + 1000)));
  out.push_back("write 50 " + name(write_input(50)));
  if (!state("normal", [](const ua::event_field_list& e) { return !flag(e, f_active); })) return out;
  out.push_back("refresh " + name(c.condition_refresh_sync(sub.subscription_id)));
  refreshed("refresh");
  return out;
}

// ConditionRefresh after a reconnect (Part 9 §5.5.7): three limit alarms, named A, B and C in the
// transcript, on connection `first`: all three High (the inputs written 80); B back to normal (50)
// unacknowledged, so still retained (Part 9 §5.5.2); C acknowledged, confirmed and back to normal,
// so no longer retained. A line per condition as last seen, `first` closed; on `second` (a new
// connection) a new subscription and ConditionRefresh: a line per event between RefreshStart and
// RefreshEnd, sorted (one of an unknown condition names its ConditionId).
inline std::vector<std::string> run_refresh_after_reconnect_scenario(client& first,
                                                                    const std::function<ua::expected<client>()>& connect,
                                                                    const std::vector<alarm_scenario_ids>& alarms) {
  using namespace alarm_detail;
  constexpr std::uint32_t refresh_start = 2787, refresh_end = 2788;
  const char* names[] = {"A", "B", "C"};
  if (alarms.size() != 3) return {"three alarms wanted"};
  std::vector<std::string> out;
  const auto condition_of = [&](const ua::event_field_list& e) -> int {
    const auto* id = e.event_fields[f_condition_id].get_if<ua::node_id>();
    for (std::size_t i = 0; id && i < alarms.size(); ++i)
      if (*id == alarms[i].condition) return static_cast<int>(i);
    return -1;
  };
  {
    alarm_event_inbox box;
    const auto sub = subscribe_alarm_events(first, box, out);
    if (!sub.failed.empty()) return out.push_back(sub.failed), out;
    std::size_t at = 0;
    std::vector<ua::event_field_list> last(alarms.size());
    // Until condition i's latest event matches (the events of the others noted on the way).
    const auto until = [&](int i, const char* what, const std::function<bool(const ua::event_field_list&)>& match) {
      if (!last[i].event_fields.empty() && match(last[i])) return true;
      auto e = box.wait(at, [&](const ua::event_field_list& x) {
        const int k = condition_of(x);
        if (k >= 0) last[k] = x;
        return k == i && match(x);
      });
      if (!e) out.push_back(std::string(names[i]) + " " + what + ": no event");
      return e.has_value();
    };
    for (int i = 0; i < 3; ++i) out.push_back(std::string("write ") + names[i] + " 80 " + name(write_double(first, alarms[i].input, 80)));
    for (int i = 0; i < 3; ++i)
      if (!until(i, "active", [](const ua::event_field_list& e) { return flag(e, f_active); })) return out;
    out.push_back("write B 50 " + name(write_double(first, alarms[1].input, 50)));
    if (!until(1, "normal", [](const ua::event_field_list& e) { return !flag(e, f_active); })) return out;
    const auto comment = ua::localized_text{ua::ua_string("en"), ua::ua_string("seen")};
    out.push_back("acknowledge C " + name(first.acknowledge_sync(alarms[2].condition, event_id(last[2]), comment)));
    if (!until(2, "acked", [](const ua::event_field_list& e) { return flag(e, f_acked); })) return out;
    out.push_back("confirm C " + name(first.confirm_sync(alarms[2].condition, event_id(last[2]), comment)));
    if (!until(2, "confirmed", [](const ua::event_field_list& e) { return flag(e, f_confirmed); })) return out;
    out.push_back("write C 50 " + name(write_double(first, alarms[2].input, 50)));
    if (!until(2, "normal", [](const ua::event_field_list& e) { return !flag(e, f_active); })) return out;
    for (int i = 0; i < 3; ++i) out.push_back(std::string("before ") + names[i] + " " + states(last[i]));
    first.close();
  }
  auto second = connect();
  if (!second) return out.push_back("reconnect " + name(second.error())), out;
  alarm_event_inbox box;
  const auto sub = subscribe_alarm_events(*second, box, out);
  if (!sub.failed.empty()) return out.push_back(sub.failed), out;
  out.push_back("refresh " + name(second->condition_refresh_sync(sub.subscription_id)));
  std::size_t at = 0;
  std::vector<std::string> refreshed;  // sorted: Part 9 §5.5.7 leaves the order to the server
  for (bool started = false;;) {
    auto e = box.wait(at, [](const ua::event_field_list&) { return true; });
    if (!e) {
      out.push_back(started ? "no RefreshEnd" : "no RefreshStart");
      break;
    }
    if (!started) {
      started = type_of(*e) == refresh_start;
      out.push_back(started ? "refresh-start" : "before RefreshStart: an event of type " + std::to_string(type_of(*e)));
      continue;
    }
    if (type_of(*e) == refresh_end) {
      std::sort(refreshed.begin(), refreshed.end());
      out.insert(out.end(), refreshed.begin(), refreshed.end());
      out.push_back("refresh-end");
      break;
    }
    const int k = condition_of(*e);
    const auto* id = e->event_fields[f_condition_id].get_if<ua::node_id>();
    refreshed.push_back("refreshed " + (k >= 0 ? std::string(names[k]) : "unknown " + (id ? id->to_string() : "null")) +
                        " " + states(*e));
  }
  second->close();
  return out;
}

}  // namespace uactor::testing
