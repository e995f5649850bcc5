// `uactor alarms ENDPOINT list|ack|shelve|unshelve`: an operator's alarm commands over the
// conditions as nodes (Part 9 §5.5, docs/decisions/0053). `list` walks the hierarchy for Objects
// that have an ActiveState/Id (conditions) and reads their state Variables; the others call the
// Part 9 methods with the ConditionId as the ObjectId (§5.7.3, §5.8.17.3-5), which any server
// exposing conditions takes.
#include <cstdio>
#include <deque>
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
                        alarms_unshelve2 = 24758;

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
  const ua::node_id condition = al.condition.empty() ? ua::node_id() : node_or_exit(al.condition);
  auto c = connect_or_exit(a);
  if (al.action == "list") {
    const int code = alarms_list(c, al);
    c.close();
    return code;
  }
  const ua::localized_text comment{ua::ua_string(""), ua::ua_string(al.comment)};
  const bool with_comment = !al.comment.empty();
  ua::status_code sc;
  if (al.action == "ack") {
    // The EventId of the state to acknowledge: the condition's EventId Variable (its latest event).
    const auto event_id = alarms_resolve(c, {condition}, {"EventId"});
    if (event_id[0].is_null()) service_failed(c, "the condition's EventId", ua::status::bad_node_id_unknown);
    ua::read_request req;
    ua::read_value_id rv;
    rv.node_id = event_id[0];
    rv.attribute_id = 13;
    req.nodes_to_read.push_back(rv);
    auto r = c.read_sync(std::move(req));
    if (!r || r->results.empty()) service_failed(c, "Read", r ? ua::status::bad_unknown_response : r.error());
    sc = alarms_call(c, condition, alarms_acknowledge, {r->results[0].value, ua::variant(comment)});
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
