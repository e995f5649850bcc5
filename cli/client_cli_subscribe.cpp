// The subscribe command of the `uactor` CLI: prints each data change (with --events, each event)
// until --count, --seconds or Ctrl-C, and the subscription's status changes (silent, recovered,
// data lost, closed).
#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "cli/client_cli_internal.hpp"
#include "cli/client_cli_structures.hpp"
#include "uactor/client.hpp"

namespace uactor::app {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// A field path as --select and --where take it: no empty element.
bool valid_path(std::string_view p) {
  return !p.empty() && p.front() != '/' && p.back() != '/' && p.find("//") == std::string_view::npos;
}

// `like` as a word at `i` of `text` (case-insensitive), blanks on both sides.
bool like_at(std::string_view text, std::size_t i) {
  if (i == 0 || i + 5 > text.size() || !is_blank(text[i - 1]) || !is_blank(text[i + 4])) return false;
  for (std::size_t k = 0; k < 4; ++k)
    if ((text[i + k] | 0x20) != "like"[k]) return false;
  return true;
}

// The literal of a where condition (parse_where says which text is which type).
ua::variant where_literal(std::string_view v, std::string& why) {
  if (v.front() == '\'' || v.front() == '"') {
    if (v.size() < 2 || v.back() != v.front()) {
      why = "an unterminated quote";
      return {};
    }
    return ua::variant(ua::ua_string(v.substr(1, v.size() - 2)));
  }
  if (v == "true" || v == "false") return ua::variant(v == "true");
  std::int64_t i = 0;
  if (auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), i); ec == std::errc{} && end == v.data() + v.size()) {
    // Int32, not Int64: node-opcua compares JavaScript numbers, and its Int64 is no number.
    if (i >= INT32_MIN && i <= INT32_MAX) return ua::variant(static_cast<std::int32_t>(i));
    return ua::variant(i);
  }
  double d = 0;
  if (auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
      ec == std::errc{} && end == v.data() + v.size() && (std::isdigit(static_cast<unsigned char>(v.back())) || v.back() == '.'))
    return ua::variant(d);
  for (const char* prefix : {"i=", "s=", "g=", "b=", "ns="})
    if (v.rfind(prefix, 0) == 0) {
      auto id = ua::parse_node_id(v);
      if (!id) why = "'" + std::string(v) + "' is no NodeId (quote it for a String)";
      return id ? ua::variant(*id) : ua::variant();
    }
  return ua::variant(ua::ua_string(v));
}

}  // namespace

where_condition parse_where(std::string_view text, const ua::node_id& event_type, std::string& why) {
  why.clear();
  where_condition w;
  // The first operator from the left: FIELD OP VALUE, the value may hold anything.
  std::size_t at = 0, length = 0;
  ua::filter_operator op = ua::filter_operator::equals;
  for (; at < text.size() && !length; ++at) {
    const std::string_view rest = text.substr(at);
    if (rest.rfind("==", 0) == 0) op = ua::filter_operator::equals, length = 2;
    else if (rest.rfind("!=", 0) == 0) op = ua::filter_operator::equals, w.negated = true, length = 2;
    else if (rest.rfind("<=", 0) == 0) op = ua::filter_operator::less_than_or_equal, length = 2;
    else if (rest.rfind(">=", 0) == 0) op = ua::filter_operator::greater_than_or_equal, length = 2;
    else if (rest.front() == '<') op = ua::filter_operator::less_than, length = 1;
    else if (rest.front() == '>') op = ua::filter_operator::greater_than, length = 1;
    else if (like_at(text, at)) op = ua::filter_operator::like, length = 4;
    else if (rest.front() == '=' || rest.front() == '!') break;  // a lone = or !
  }
  if (!length) {
    why = "no operator (== != < <= > >= like) between a field and a value";
    return w;
  }
  --at;
  const auto field = trimmed(text.substr(0, at));
  const auto value = trimmed(text.substr(at + length));
  const std::string op_text(text.substr(at, length));
  if (field.empty()) why = "no field before " + op_text;
  else if (!valid_path(field)) why = "the field '" + std::string(field) + "' has an empty path element";
  else if (value.empty()) why = "no value after " + op_text;
  if (!why.empty()) return w;
  ua::literal_operand literal;
  if (op == ua::filter_operator::like) {  // Part 4 §7.7.3: Like wants a String pattern
    const bool quoted = value.size() >= 2 && (value.front() == '\'' || value.front() == '"') && value.back() == value.front();
    literal.value = ua::variant(ua::ua_string(quoted ? value.substr(1, value.size() - 2) : value));
  } else {
    literal.value = where_literal(value, why);
    if (!why.empty()) return w;
  }
  w.element.filter_operator = op;
  w.element.filter_operands = ua::ua_array<ua::extension_object>(std::vector<ua::extension_object>{
      ua::extension_object(event_field(field, event_type)), ua::extension_object(std::move(literal))});
  return w;
}

}  // namespace uactor::app

namespace uactor::app::client_cli {

namespace {

std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) { interrupted.store(true); }

// What the client's thread (the handlers) and the command's thread (waiting) share.
struct shared {
  std::mutex mutex;
  std::condition_variable changed;
  std::uint64_t seen = 0;
  bool failed = false;
  bool ended = false;  // the subscription closed
};

// --reconnect: one line per connection event, beside the subscription's own (status_printer).
reconnect_options reconnect_printer(const subscribe_args& sa, const output_style& style) {
  reconnect_options reconnect;
  reconnect.enabled = sa.reconnect;
  if (!sa.reconnect) return reconnect;
  reconnect.on_event = [json = style.json](const connection_event& e) {
    const char* what = e.what == connection_event_kind::lost           ? "connection lost"
                       : e.what == connection_event_kind::reconnecting ? "reconnecting"
                       : e.what == connection_event_kind::reconnected  ? "reconnected"
                                                                       : "gave up";
    const char* how = e.how == recovery_kind::reactivated   ? "session reactivated"
                      : e.how == recovery_kind::transferred ? "subscriptions transferred"
                                                            : "subscriptions recreated";
    const bool done = e.what == connection_event_kind::reconnected;
    if (json) {
      json_object o;
      o.text("event", what).number("attempt", e.attempt).status(e.status);
      if (done) o.text("how", how);
      std::printf("%s\n", o.str().c_str());
      std::fflush(stdout);
    } else {
      std::fprintf(stderr, "uactor: %s%s%s (attempt %u): %s\n", what, done ? ", " : "", done ? how : "", e.attempt,
                   e.status.to_string().c_str());
    }
  };
  return reconnect;
}

// The subscription's status changes (silent, recovered, data lost, closed, ...).
subscription_status_handler status_printer(std::shared_ptr<shared> sh, const output_style& style) {
  return [sh, style](const subscription_status& st) {
    if (st.what == subscription_event::closed && st.status.is_good()) return;  // our own close()
    const char* what = st.what == subscription_event::silent        ? "silent"
                       : st.what == subscription_event::recovered   ? "recovered"
                       : st.what == subscription_event::data_lost   ? "data lost"
                       : st.what == subscription_event::closed      ? "closed"
                       : st.what == subscription_event::transferred ? "transferred"
                       : st.what == subscription_event::recreated   ? "recreated"
                                                                    : "status change";
    // A person reads these beside the values on stderr; a script gets them in the stream it parses.
    if (style.json) {
      std::printf("%s\n", json_object()
                              .number("subscription", st.subscription_id)
                              .text("event", what)
                              .status(st.status)
                              .str()
                              .c_str());
      std::fflush(stdout);
    } else {
      std::fprintf(stderr, "uactor: subscription %u: %s: %s\n", st.subscription_id, what, st.status.to_string().c_str());
    }
    std::lock_guard lock(sh->mutex);
    if (st.what == subscription_event::data_lost || st.what == subscription_event::closed) sh->failed = true;
    if (st.what == subscription_event::closed) sh->ended = true;
    sh->changed.notify_all();
  };
}

// Until --count, --seconds, Ctrl-C or the subscription's end; exit_bad when data was lost.
int wait_for_end(shared& sh, const subscribe_args& sa, int code) {
  interrupted.store(false);
  auto previous = std::signal(SIGINT, on_interrupt);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(sa.seconds));
  {
    std::unique_lock lock(sh.mutex);
    // A signal handler cannot notify a condition variable: wake up now and then to look.
    while (!interrupted.load() && !sh.ended && !(sa.count && sh.seen >= sa.count) &&
           !(sa.seconds > 0 && std::chrono::steady_clock::now() >= deadline))
      sh.changed.wait_for(lock, std::chrono::milliseconds(100));
    if (sh.failed) code = exit_bad;
  }
  std::signal(SIGINT, previous);
  return code;
}

}  // namespace

// --select: comma-separated BaseEventType paths, each element a namespace-0 BrowseName, nested
// with '/'. Spaces around a path are dropped; an empty path or element is a usage error.
std::vector<std::string> select_paths(const std::string& text, const char* command) {
  std::vector<std::string> paths;
  std::size_t from = 0;
  for (;;) {
    const auto comma = text.find(',', from);
    std::string p(trimmed(std::string_view(text).substr(from, comma == std::string::npos ? std::string::npos : comma - from)));
    if (!valid_path(p))
      usage(std::string(command) + ": --select wants comma-separated field paths such as Time,Severity,ActiveState/Id, not '" + text + "'");
    paths.push_back(std::move(p));
    if (comma == std::string::npos) return paths;
    from = comma + 1;
  }
}

namespace {

// The clause of an item's EventFilterResult the server refused, named as the command line gave it
// (the where clause first: it fails the item); empty when every clause is Good (or no result came).
std::string refused_clause(const ua::monitored_item_create_result& r, const std::vector<std::string>& paths,
                           const event_filter_builder& filter, const std::vector<std::string>& conditions) {
  const auto* fr = event_filter_result_of(r);
  if (!fr) return {};
  const auto& elements = fr->where_clause_result.element_results;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (!elements[i].status_code.is_bad()) continue;
    std::string what = "the where clause (element " + std::to_string(i) + ")";
    if (const auto k = filter.condition_of_element(i); k < conditions.size())
      what = conditions[k] + " (where element " + std::to_string(i) + ")";
    std::string s = what + ": " + elements[i].status_code.to_string();
    for (std::size_t j = 0; j < elements[i].operand_status_codes.size(); ++j)
      if (elements[i].operand_status_codes[j].is_bad()) {
        s += ", operand " + std::to_string(j) + ": " + elements[i].operand_status_codes[j].to_string();
        break;
      }
    return s;
  }
  for (std::size_t i = 0; i < fr->select_clause_results.size() && i < paths.size(); ++i)
    if (fr->select_clause_results[i].is_bad())
      return "--select " + paths[i] + " (select clause " + std::to_string(i) + "): " + fr->select_clause_results[i].to_string();
  return {};
}

// subscribe --events: the nodes' EventNotifier (Part 4 §5.12.1.4) with an EventFilter of the
// selected fields and the where conditions; one line (or JSON object) per event.
int run_subscribe_events(const common_args& a, const subscribe_args& sa, const std::vector<std::string>& nodes) {
  if (sa.value_options) usage("subscribe: --deadband, --deadband-type, --trigger and --sampling are for values, not --events");
  std::vector<ua::node_id> ids;
  for (const auto& n : nodes) ids.push_back(node_or_exit(n));
  if (ids.empty()) ids.push_back(ua::node_id(0, server_object_id));  // every event the server reports
  const auto paths = select_paths(sa.select);
  // Part 4 §7.22.3: a path is followed from its TypeDefinitionId, inherited fields included.
  const auto select_type = sa.select_type.empty() ? ua::node_id(0, base_event_type_id) : node_or_exit(sa.select_type);
  event_filter_builder filter;
  for (const auto& p : paths) filter.select(p, select_type);
  std::vector<std::string> conditions;  // as the command line said them, in the builder's order
  if (sa.min_severity) {
    filter.min_severity(static_cast<std::uint16_t>(sa.min_severity));
    conditions.push_back("--min-severity " + std::to_string(sa.min_severity));
  }
  if (!sa.event_type.empty()) {
    filter.of_type(node_or_exit(sa.event_type));
    conditions.push_back("--event-type " + sa.event_type);
  }
  for (const auto& text : sa.where) {  // ANDed with the others, their paths from --select-type
    std::string why;
    auto w = parse_where(text, select_type, why);
    if (!why.empty()) usage("subscribe: --where '" + text + "': " + why + " (e.g. --where 'Severity >= 500')");
    if (w.negated) filter.where_not(std::move(w.element));
    else filter.where(std::move(w.element));
    conditions.push_back("--where '" + text + "'");
  }
  const auto style = a.style();
  auto c = connect_or_exit(a, reconnect_printer(sa, style));

  auto sh = std::make_shared<shared>();
  subscription_settings settings;
  settings.publishing_interval = std::chrono::milliseconds(sa.interval_ms);
  subscription_handlers h;
  // Each event as it comes: NODE, then each selected field as PATH=value (JSON: by path).
  h.on_events = [sh, ids, paths, style, limit = sa.count](std::uint32_t, std::uint32_t,
                                                          std::span<const ua::event_field_list> events) {
    for (const auto& ev : events) {
      std::unique_lock lock(sh->mutex);
      if (limit && sh->seen >= limit) return;
      ++sh->seen;
      lock.unlock();
      const std::size_t i = ev.client_handle - 1;
      const std::string node = i < ids.size() ? ids[i].to_string() : "?";
      std::string line;
      if (style.json) {
        json_object fields;
        for (std::size_t f = 0; f < paths.size(); ++f)
          fields.raw(paths[f], f < ev.event_fields.size() && !ev.event_fields[f].empty() ? json_value(ev.event_fields[f], style) : "null");
        line = json_object().text("node", node).raw("fields", fields.str()).str();
      } else {
        line = node;
        for (std::size_t f = 0; f < paths.size(); ++f)
          line += "\t" + paths[f] + "=" + (f < ev.event_fields.size() ? format_untyped(ev.event_fields[f], style) : "null");
      }
      std::printf("%s\n", line.c_str());
      std::fflush(stdout);
    }
    sh->changed.notify_all();
  };
  h.on_status = status_printer(sh, style);
  auto created = c.create_subscription_sync(settings, std::move(h));
  if (!created) service_failed(c, "CreateSubscription", created.error());
  ua::create_monitored_items_request req;
  req.subscription_id = created->subscription_id;
  req.timestamps_to_return = ua::timestamps_to_return::both;
  // Events come in bursts (an alarm storm): monitor_events' 1,000 unless --queue says.
  const auto built = filter.build();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    auto item = monitor_events(ids[i], static_cast<std::uint32_t>(i + 1), built);
    if (sa.queue_given) item.requested_parameters.queue_size = sa.queue_size;
    item.requested_parameters.discard_oldest = sa.discard_oldest;
    req.items_to_create.push_back(std::move(item));
  }
  auto items = c.create_monitored_items_sync(std::move(req));
  if (!items) service_failed(c, "CreateMonitoredItems", items.error());
  int code = exit_good;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto sc = i < items->results.size() ? items->results[i].status_code : ua::status::bad_unknown_response;
    const auto clause = i < items->results.size() ? refused_clause(items->results[i], paths, filter, conditions) : std::string();
    if (sc.is_good() && clause.empty()) continue;
    if (sc.is_bad() && style.json)
      std::printf("%s\n", json_object().text("node", ids[i].to_string()).raw("fields", "null").status(sc).str().c_str());
    else if (sc.is_bad())
      std::printf("%s\t-\t%s\n", ids[i].to_string().c_str(), sc.to_string().c_str());
    if (!clause.empty()) std::fprintf(stderr, "uactor: %s refused %s\n", ids[i].to_string().c_str(), clause.c_str());
    code = exit_bad;
  }
  std::fflush(stdout);
  // A field or a condition the server refused: the events would not be what was asked for.
  if (code != exit_good) {
    c.close();
    return code;
  }
  code = wait_for_end(*sh, sa, code);
  c.close();
  return code;
}

}  // namespace

int run_subscribe(const common_args& a, const subscribe_args& sa, const std::vector<std::string>& nodes) {
  if (sa.events) return run_subscribe_events(a, sa, nodes);
  if (sa.event_options) usage("subscribe: --select, --select-type, --min-severity, --event-type and --where need --events");
  if (nodes.empty()) usage("subscribe: give at least one NodeId");
  std::vector<ua::node_id> ids;
  for (const auto& n : nodes) ids.push_back(node_or_exit(n));
  auto style = a.style();
  std::uint32_t deadband_type = 0;  // Part 4 §7.22.2 DeadbandType: 1 absolute, 2 percent
  if (!sa.deadband_type.empty()) deadband_type = sa.deadband_type == "absolute" ? 1 : 2;
  if (sa.deadband != 0 && deadband_type == 0) usage("subscribe: --deadband needs --deadband-type absolute|percent");
  if (sa.deadband < 0 || (deadband_type == 2 && sa.deadband > 100)) usage("subscribe: --deadband out of range");
  const auto trigger = sa.trigger == "status"                   ? ua::data_change_trigger::status
                       : sa.trigger == "status-value-timestamp" ? ua::data_change_trigger::status_value_timestamp
                                                                : ua::data_change_trigger::status_value;
  auto reconnect = reconnect_printer(sa, style);
  auto c = connect_or_exit(a, std::move(reconnect));
  // The values are printed on a client thread, which must not wait for the server: the
  // structures the nodes' DataTypes need are asked for now.
  server_structures structures(c);
  {
    ua::read_request rr;
    for (const auto& id : ids) {
      ua::read_value_id rv;
      rv.node_id = id;
      rv.attribute_id = 14;  // DataType
      rr.nodes_to_read.push_back(std::move(rv));
    }
    if (auto types = c.read_sync(std::move(rr)))
      for (const auto& dv : types->results)
        if (const auto* t = dv.value.get_if<ua::node_id>()) structures.prefetch(*t);
  }
  structures.go_offline();
  style.structures = &structures;

  auto sh = std::make_shared<shared>();
  subscription_settings settings;
  settings.publishing_interval = std::chrono::milliseconds(sa.interval_ms);
  subscription_handlers h;
  // Each change as it comes: NODE, value, status, SourceTimestamp (ISO 8601).
  h.on_data = [sh, ids, style, limit = sa.count](std::uint32_t, std::uint32_t,
                                                std::span<const ua::monitored_item_notification> changes) {
    for (const auto& ch : changes) {
      std::unique_lock lock(sh->mutex);
      if (limit && sh->seen >= limit) return;
      ++sh->seen;
      lock.unlock();
      const auto& dv = ch.value;
      const std::size_t i = ch.client_handle - 1;
      const std::string node = i < ids.size() ? ids[i].to_string() : "?";
      const ua::status_code sc = dv.has_status ? dv.status : ua::status_code(ua::status::good);
      std::string line;
      if (style.json) {
        json_object o;
        o.text("node", node).raw("value", dv.has_value ? json_value(dv.value, style) : "null").status(sc);
        o.raw("sourceTimestamp", dv.has_source_timestamp ? json_string(format_time(dv.source_timestamp, style.local_time)) : "null");
        o.raw("serverTimestamp", dv.has_server_timestamp ? json_string(format_time(dv.server_timestamp, style.local_time)) : "null");
        line = o.str();
      } else {
        line = node + "\t" + (dv.has_value ? format_value(dv.value, style) : "-") + "\t" + sc.to_string() + "\t" +
               (dv.has_source_timestamp ? format_time(dv.source_timestamp, style.local_time) : "-");
      }
      std::printf("%s\n", line.c_str());
      std::fflush(stdout);
    }
    sh->changed.notify_all();
  };
  h.on_status = status_printer(sh, style);
  auto created = c.create_subscription_sync(settings, std::move(h));
  if (!created) service_failed(c, "CreateSubscription", created.error());
  ua::create_monitored_items_request req;
  req.subscription_id = created->subscription_id;
  req.timestamps_to_return = ua::timestamps_to_return::both;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    auto item = monitor_value(ids[i], static_cast<std::uint32_t>(i + 1), sa.sampling_ms, sa.queue_size, sa.discard_oldest);
    if (deadband_type != 0 || trigger != ua::data_change_trigger::status_value)
      item.requested_parameters.filter = data_change_filter(trigger, deadband_type, sa.deadband);
    req.items_to_create.push_back(std::move(item));
  }
  auto items = c.create_monitored_items_sync(std::move(req));
  if (!items) service_failed(c, "CreateMonitoredItems", items.error());
  int code = exit_good;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto sc = i < items->results.size() ? items->results[i].status_code : ua::status::bad_unknown_response;
    if (sc.is_bad()) {
      if (style.json)
        std::printf("%s\n", json_object().text("node", ids[i].to_string()).raw("value", "null").status(sc).str().c_str());
      else
        std::printf("%s\t-\t%s\n", ids[i].to_string().c_str(), sc.to_string().c_str());
      code = exit_bad;
    }
  }

  if (items->results.size() == ids.size() &&
      std::all_of(items->results.begin(), items->results.end(), [](const auto& r) { return r.status_code.is_bad(); })) {
    c.close();
    return exit_bad;  // nothing to wait for
  }

  code = wait_for_end(*sh, sa, code);
  c.close();
  return code;
}

}  // namespace uactor::app::client_cli
