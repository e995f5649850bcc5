// `uactor alarms ENDPOINT list|ack|confirm|comment|shelve|unshelve|suppress|unsuppress|
// out-of-service|in-service`: an operator's alarm commands (Part 9; docs/decisions/0053, 0061).
// `list` subscribes to the Server object's events and calls ConditionRefresh (§5.5.7): one line per
// retained condition and per branch (§5.5.2), with the EventId the methods take. `list --browse`
// instead walks the hierarchy for Objects that have an ActiveState/Id (conditions as nodes) and
// reads their state Variables. The others call the Part 9 methods with the ConditionId as the
// ObjectId (§5.7.3, §5.8.8-5.8.17), which any server exposing conditions takes.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "cli/client_cli_internal.hpp"
#include "uactor/client.hpp"

namespace uactor::app::client_cli {

namespace {

constexpr std::uint32_t alarms_hierarchical = 33, alarms_objects_folder = 85;
constexpr std::uint32_t alarms_acknowledge = 9111, alarms_timed_shelve = 2949, alarms_one_shot_shelve = 2948,
                        alarms_unshelve = 2947, alarms_timed_shelve2 = 24756, alarms_one_shot_shelve2 = 24760,
                        alarms_unshelve2 = 24758, alarms_confirm = 9113, alarms_add_comment = 9029,
                        alarms_suppress = 16403, alarms_unsuppress = 17868, alarms_remove_from_service = 17869,
                        alarms_place_in_service = 17870, alarms_suppress2 = 24316, alarms_unsuppress2 = 24318,
                        alarms_remove_from_service2 = 24320, alarms_place_in_service2 = 24322;
constexpr std::uint32_t alarms_condition_type = 2782, alarms_acknowledgeable_type = 2881, alarms_alarm_type = 2915,
                        alarms_refresh_start = 2787, alarms_refresh_end = 2788;

void alarms_print(const std::string& line) {
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
}

ua::relative_path alarms_path(std::initializer_list<const char*> names) {
  ua::relative_path p;
  for (const char* n : names) {
    ua::relative_path_element e;
    e.reference_type_id = ua::node_id(0, alarms_hierarchical);
    e.include_subtypes = true;
    e.target_name = ua::qualified_name{0, ua::ua_string(n)};
    p.elements.push_back(std::move(e));
  }
  return p;
}

// The node at `path` below each of `starts` (null where there is none), in one request.
std::vector<ua::node_id> alarms_resolve(client& c, const std::vector<ua::node_id>& starts,
                                        std::initializer_list<const char*> path) {
  std::vector<ua::node_id> out(starts.size());
  constexpr std::size_t batch = 1000;
  for (std::size_t from = 0; from < starts.size(); from += batch) {
    ua::translate_browse_paths_to_node_ids_request req;
    const std::size_t to = std::min(starts.size(), from + batch);
    for (std::size_t i = from; i < to; ++i) {
      ua::browse_path bp;
      bp.starting_node = starts[i];
      bp.relative_path = alarms_path(path);
      req.browse_paths.push_back(std::move(bp));
    }
    auto r = c.translate_sync(std::move(req));
    if (!r) service_failed(c, "TranslateBrowsePathsToNodeIds", r.error());
    for (std::size_t i = 0; i < r->results.size() && from + i < to; ++i)
      if (r->results[i].status_code.is_good() && !r->results[i].targets.empty())
        out[from + i] = r->results[i].targets[0].target_id.id;
  }
  return out;
}

// The Objects below `root` (breadth first over hierarchical references), at most `max_nodes`.
std::vector<ua::node_id> alarms_objects(client& c, const ua::node_id& root, std::size_t max_nodes) {
  std::vector<ua::node_id> found;
  std::deque<ua::node_id> todo{root};
  std::unordered_set<std::string> seen{root.to_string()};
  while (!todo.empty() && found.size() < max_nodes) {
    ua::browse_request req;
    ua::browse_description d;
    d.node_id = todo.front();
    todo.pop_front();
    d.browse_direction = ua::browse_direction::forward;
    d.reference_type_id = ua::node_id(0, alarms_hierarchical);
    d.include_subtypes = true;
    d.node_class_mask = 1;  // Objects
    d.result_mask = 63;
    req.nodes_to_browse.push_back(d);
    auto r = c.browse_sync(std::move(req));
    if (!r) service_failed(c, "Browse", r.error());
    if (r->results.empty()) continue;
    auto refs = r->results[0].references;
    auto cp = r->results[0].continuation_point;
    while (true) {
      for (const auto& ref : refs) {
        if (ref.node_id.server_index != 0 || !ref.node_id.namespace_uri.is_null()) continue;
        if (ref.node_id.id.namespace_index() == 0) continue;  // namespace 0 holds no plant conditions
        if (!seen.insert(ref.node_id.id.to_string()).second) continue;
        found.push_back(ref.node_id.id);
        todo.push_back(ref.node_id.id);
      }
      if (cp.is_null() || cp.view().empty() || found.size() >= max_nodes) break;
      ua::browse_next_request next;
      next.continuation_points.push_back(cp);
      auto n = c.browse_next_sync(std::move(next));
      if (!n) service_failed(c, "BrowseNext", n.error());
      if (n->results.empty()) break;
      refs = n->results[0].references;
      cp = n->results[0].continuation_point;
    }
  }
  return found;
}

std::string alarms_text(const ua::data_value& v) {
  if (const auto* t = v.value.get_if<ua::localized_text>()) return std::string(t->text.view());
  if (const auto* s = v.value.get_if<ua::ua_string>()) return std::string(s->view());
  if (const auto* b = v.value.get_if<bool>()) return *b ? "true" : "false";
  if (const auto* n = v.value.get_if<std::uint16_t>()) return std::to_string(*n);
  return "-";
}

std::string alarms_hex(const ua::byte_string& b) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (const char ch : b.view()) {
    const auto x = static_cast<unsigned char>(ch);
    out += digits[x >> 4];
    out += digits[x & 15];
  }
  return out.empty() ? "-" : out;
}

// An EventId as `list` prints it (hex), or the end of the command.
ua::byte_string alarms_event_id_or_exit(const std::string& text) {
  const auto value = [](char ch) -> int {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
  };
  if (text.empty() || text.size() % 2 != 0 || text.size() > 512)
    usage("alarms: --event-id takes the EventId as `alarms list` prints it (hex digits)");
  std::string bytes;
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int hi = value(text[i]), lo = value(text[i + 1]);
    if (hi < 0 || lo < 0) usage("alarms: --event-id '" + text + "' is not hex");
    bytes += static_cast<char>(hi * 16 + lo);
  }
  return ua::byte_string(bytes);
}

std::string alarms_field_text(const ua::variant& v) {
  if (const auto* t = v.get_if<ua::localized_text>()) return std::string(t->text.view());
  if (const auto* s = v.get_if<ua::ua_string>()) return std::string(s->view());
  if (const auto* n = v.get_if<std::uint16_t>()) return std::to_string(*n);
  if (const auto* id = v.get_if<ua::node_id>()) return id->is_null() ? "-" : id->to_string();
  if (const auto* b = v.get_if<ua::byte_string>()) return alarms_hex(*b);
  return "-";
}

// `list`: ConditionRefresh through a subscription of our own (§5.5.7). The columns: ConditionId,
// ConditionName, ActiveState, AckedState, ShelvingState, Severity, then ConfirmedState,
// SuppressedState, OutOfServiceState, SourceName, BranchId ("-": the trunk), EventId, Message.
int alarms_refresh_list(client& c, const common_args& a) {
  struct collected {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::string> lines;
    bool started = false, ended = false;
  };
  auto got = std::make_shared<collected>();
  const auto type = [](std::uint32_t t) { return ua::node_id(0, t); };
  event_filter_builder filter;
  filter.select("EventType");
  filter.select(event_field("", type(alarms_condition_type), 1));  // the ConditionId
  filter.select("ConditionName", type(alarms_condition_type));
  filter.select("ActiveState", type(alarms_alarm_type));
  filter.select("AckedState", type(alarms_acknowledgeable_type));
  filter.select("ShelvingState/CurrentState", type(alarms_alarm_type));
  filter.select("Severity");
  filter.select("ConfirmedState", type(alarms_acknowledgeable_type));
  filter.select("SuppressedState", type(alarms_alarm_type));
  filter.select("OutOfServiceState", type(alarms_alarm_type));
  filter.select("SourceName");
  filter.select("BranchId", type(alarms_condition_type));
  filter.select("EventId");
  filter.select("Message");
  subscription_settings settings;
  settings.publishing_interval = std::chrono::milliseconds(100);
  subscription_handlers h;
  h.on_events = [got](std::uint32_t, std::uint32_t, std::span<const ua::event_field_list> events) {
    std::lock_guard lock(got->mutex);
    for (const auto& ev : events) {
      const auto& f = ev.event_fields;
      if (f.size() < 14) continue;
      const auto* t = f[0].get_if<ua::node_id>();
      const std::uint32_t event_type = t && t->namespace_index() == 0 && t->type() == ua::node_id_type::numeric ? t->numeric() : 0;
      if (event_type == alarms_refresh_start) got->started = true;
      if (event_type == alarms_refresh_end && got->started) got->ended = true;
      if (!got->started || got->ended || event_type == alarms_refresh_start) continue;
      if (f[1].get_if<ua::node_id>() == nullptr) continue;  // no condition
      std::string line = alarms_field_text(f[1]);
      for (std::size_t i = 2; i < 14; ++i) line += "\t" + alarms_field_text(f[i]);
      got->lines.push_back(std::move(line));
    }
    got->changed.notify_all();
  };
  auto created = c.create_subscription_sync(settings, std::move(h));
  if (!created) service_failed(c, "CreateSubscription", created.error());
  ua::create_monitored_items_request req;
  req.subscription_id = created->subscription_id;
  req.items_to_create.push_back(monitor_events(ua::node_id(0, server_object_id), 1, filter.build(), 10'000));
  auto items = c.create_monitored_items_sync(std::move(req));
  if (!items) service_failed(c, "CreateMonitoredItems", items.error());
  if (items->results.empty() || items->results[0].status_code.is_bad())
    service_failed(c, "CreateMonitoredItems", items->results.empty() ? ua::status::bad_unknown_response
                                                                     : items->results[0].status_code);
  if (const auto sc = c.condition_refresh_sync(created->subscription_id); sc.is_bad())
    service_failed(c, "ConditionRefresh", sc);
  std::unique_lock lock(got->mutex);
  if (!got->changed.wait_for(lock, std::chrono::milliseconds(a.timeout_ms), [&] { return got->ended; })) {
    lock.unlock();
    service_failed(c, "ConditionRefresh (no RefreshEnd event)", ua::status::bad_timeout);
  }
  for (const auto& line : got->lines) alarms_print(line);
  if (got->lines.empty()) std::fprintf(stderr, "uactor: no retained condition\n");
  return exit_good;
}

int alarms_list(client& c, const alarms_args& al) {
  const auto root = al.root.empty() ? ua::node_id(0, alarms_objects_folder) : node_or_exit(al.root);
  const auto objects = alarms_objects(c, root, al.max_nodes);
  const auto active = alarms_resolve(c, objects, {"ActiveState", "Id"});
  std::vector<ua::node_id> conditions;
  for (std::size_t i = 0; i < objects.size(); ++i)
    if (!active[i].is_null()) conditions.push_back(objects[i]);
  // What an alarm list shows, one Read for all of them.
  const std::vector<std::vector<const char*>> columns{{"ConditionName"}, {"ActiveState"}, {"AckedState"},
                                                      {"ShelvingState", "CurrentState"}, {"Severity"}, {"Message"}};
  std::vector<std::vector<ua::node_id>> ids;
  for (const auto& col : columns) {
    std::vector<ua::node_id> x;
    switch (col.size()) {
      case 1: x = alarms_resolve(c, conditions, {col[0]}); break;
      default: x = alarms_resolve(c, conditions, {col[0], col[1]}); break;
    }
    ids.push_back(std::move(x));
  }
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    ua::read_request req;
    for (const auto& col : ids) {
      ua::read_value_id rv;
      rv.node_id = col[i].is_null() ? ua::node_id(0, 0) : col[i];
      rv.attribute_id = 13;
      req.nodes_to_read.push_back(rv);
    }
    auto r = c.read_sync(std::move(req));
    if (!r) service_failed(c, "Read", r.error());
    std::string line = conditions[i].to_string();
    for (const auto& v : r->results) line += "\t" + alarms_text(v);
    alarms_print(line);
  }
  if (conditions.empty()) std::fprintf(stderr, "uactor: no condition below %s\n", root.to_string().c_str());
  return exit_good;
}

ua::status_code alarms_call(client& c, const ua::node_id& condition, std::uint32_t method, std::vector<ua::variant> in) {
  ua::call_request req;
  ua::call_method_request m;
  m.object_id = condition;
  m.method_id = ua::node_id(0, method);
  m.input_arguments = {in.begin(), in.end()};
  req.methods_to_call.push_back(std::move(m));
  auto r = c.call_sync(std::move(req));
  if (!r) service_failed(c, "Call", r.error());
  if (r->results.empty()) service_failed(c, "Call", ua::status::bad_unknown_response);
  return r->results[0].status_code;
}

}  // namespace

int run_alarms(const common_args& a, const alarms_args& al) {
  if (al.action != "list" && al.condition.empty()) usage("alarms " + al.action + ": give the condition's NodeId");
  if (al.action == "shelve" && (al.one_shot == (al.seconds > 0)))
    usage("alarms shelve: give either --for SECONDS or --one-shot");
  const bool by_event = al.action == "ack" || al.action == "confirm" || al.action == "comment";
  if (!al.event_id.empty() && !by_event) usage("alarms " + al.action + ": --event-id is for ack, confirm and comment");
  if (al.action == "comment" && al.comment.empty()) usage("alarms comment: give --comment TEXT");
  const ua::node_id condition = al.condition.empty() ? ua::node_id() : node_or_exit(al.condition);
  const ua::byte_string given_event = al.event_id.empty() ? ua::byte_string() : alarms_event_id_or_exit(al.event_id);
  auto c = connect_or_exit(a);
  if (al.action == "list") {
    const int code = al.browse || !al.root.empty() ? alarms_list(c, al) : alarms_refresh_list(c, a);
    c.close();
    return code;
  }
  const ua::localized_text comment{ua::ua_string(""), ua::ua_string(al.comment)};
  const bool with_comment = !al.comment.empty();
  ua::status_code sc;
  if (by_event) {
    // The EventId of the state acted on: --event-id (a branch's, as `list` prints it), else the
    // condition's EventId Variable (the trunk's latest event).
    ua::variant event_id(given_event);
    if (given_event.is_null()) {
      const auto node = alarms_resolve(c, {condition}, {"EventId"});
      if (node[0].is_null()) service_failed(c, "the condition's EventId", ua::status::bad_node_id_unknown);
      ua::read_request req;
      ua::read_value_id rv;
      rv.node_id = node[0];
      rv.attribute_id = 13;
      req.nodes_to_read.push_back(rv);
      auto r = c.read_sync(std::move(req));
      if (!r || r->results.empty()) service_failed(c, "Read", r ? ua::status::bad_unknown_response : r.error());
      event_id = r->results[0].value;
    }
    const std::uint32_t method = al.action == "ack" ? alarms_acknowledge : al.action == "confirm" ? alarms_confirm
                                                                                                  : alarms_add_comment;
    sc = alarms_call(c, condition, method, {event_id, ua::variant(comment)});
  } else if (al.action == "suppress" || al.action == "unsuppress" || al.action == "out-of-service" ||
             al.action == "in-service") {
    // §5.8.8-5.8.15; with --comment the 1.05 forms that take one.
    const std::uint32_t plain = al.action == "suppress"         ? alarms_suppress
                                : al.action == "unsuppress"     ? alarms_unsuppress
                                : al.action == "out-of-service" ? alarms_remove_from_service
                                                                : alarms_place_in_service;
    const std::uint32_t commented = al.action == "suppress"         ? alarms_suppress2
                                    : al.action == "unsuppress"     ? alarms_unsuppress2
                                    : al.action == "out-of-service" ? alarms_remove_from_service2
                                                                    : alarms_place_in_service2;
    sc = with_comment ? alarms_call(c, condition, commented, {ua::variant(comment)}) : alarms_call(c, condition, plain, {});
  } else if (al.action == "shelve" && al.one_shot) {
    sc = with_comment ? alarms_call(c, condition, alarms_one_shot_shelve2, {ua::variant(comment)})
                      : alarms_call(c, condition, alarms_one_shot_shelve, {});
  } else if (al.action == "shelve") {
    const ua::variant ms(al.seconds * 1000.0);
    sc = with_comment ? alarms_call(c, condition, alarms_timed_shelve2, {ms, ua::variant(comment)})
                      : alarms_call(c, condition, alarms_timed_shelve, {ms});
  } else {
    sc = with_comment ? alarms_call(c, condition, alarms_unshelve2, {ua::variant(comment)})
                      : alarms_call(c, condition, alarms_unshelve, {});
  }
  alarms_print(sc.to_string());
  c.close();
  return sc.is_good() ? exit_good : exit_bad;
}

}  // namespace uactor::app::client_cli
