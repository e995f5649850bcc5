// `uactor history`: a node's history through HistoryRead (Part 4 §5.10.3, docs/history.md): raw
// values (Part 11 §6.5.3) following continuation points, the modified ones, or one aggregate per
// interval (Part 11 §6.5.4, Part 13), printed one value per line as text, JSON or CSV; and its
// changes through HistoryUpdate (Part 4 §5.10.5): insert, replace, update, delete.
#include <cctype>
#include <charconv>
#include <algorithm>
#include <cstdio>

#include "cli/client_cli_internal.hpp"
#include "engine/common/clock.hpp"
#include "engine/server/history/aggregates.hpp"
#include "protocol/value_text.hpp"
#include "uactor/client.hpp"

namespace uactor::app::client_cli {

namespace {

// "now", "-90s", "-15m", "-2h", "-7d" (before now), or ISO 8601 (2026-12-01T08:00:00Z).
std::optional<ua::date_time> parse_history_time(const std::string& text, ua::date_time now) {
  if (text == "now") return now;
  if (text.size() >= 3 && text[0] == '-') {
    std::int64_t amount = 0;
    const char* begin = text.data() + 1;
    const char* unit = text.data() + text.size() - 1;
    const auto [end, ec] = std::from_chars(begin, unit, amount);
    std::int64_t seconds = 0;
    switch (*unit) {
      case 's': seconds = 1; break;
      case 'm': seconds = 60; break;
      case 'h': seconds = 3'600; break;
      case 'd': seconds = 86'400; break;
      default: break;
    }
    if (ec == std::errc{} && end == unit && seconds > 0 && amount >= 0 && amount <= 3'650LL * 86'400 / seconds)
      return ua::date_time{now.ticks - amount * seconds * ua::date_time::ticks_per_second};
    return std::nullopt;
  }
  auto v = ua::parse_value(ua::builtin_type::date_time, false, text);
  if (!v) return std::nullopt;
  if (const auto* t = v->get_if<ua::date_time>()) return *t;
  return std::nullopt;
}

ua::date_time time_or_exit(const std::string& text, ua::date_time now, const char* what) {
  const auto t = parse_history_time(text, now);
  if (!t) usage(std::string("history: ") + what + " " + text + " is not a time (2026-12-01T08:00:00Z, now, -15m, -2h, -7d)");
  return *t;
}

ua::node_id aggregate_or_exit(const std::string& text) {
  if (const auto by_name = history::aggregate_named(text)) return *by_name;
  if (const auto id = ua::parse_node_id(text); id && !history::aggregate_name(*id).empty()) return *id;
  std::string names;
  for (const auto& a : history::served_aggregates()) names += (names.empty() ? "" : ", ") + std::string(history::aggregate_name(a));
  usage("history: unknown aggregate " + text + " (one of " + names + ")");
}

// CSV (RFC 4180): a field with a comma, quote or line break in quotes, quotes doubled.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// "Good", "UncertainDataSubNormal"; the whole code in hex when it has info bits (Part 13's
// Calculated, Interpolated, Partial) or no name.
std::string csv_status(ua::status_code sc) {
  const std::string_view name = ua::status_code(sc.code()).name();
  if (!name.empty() && sc.value() == sc.code()) return std::string(name);
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%08X", sc.value());
  return name.empty() ? hex : std::string(name) + " " + hex;
}

const char* update_type_name(ua::history_update_type t) {
  switch (t) {
    case ua::history_update_type::insert: return "Insert";
    case ua::history_update_type::replace: return "Replace";
    case ua::history_update_type::update: return "Update";
    case ua::history_update_type::delete_: return "Delete";
  }
  return "?";
}

// The built-in type of the values of `node`: its DataType when that is one (i=1..21), else the
// type of the value it holds now (Part 4 §5.10.4.1: the server does not convert).
ua::builtin_type value_type_or_exit(client& c, const ua::node_id& node) {
  ua::read_request rr;
  for (const std::uint32_t attr : {14u, 13u}) {  // DataType, Value
    ua::read_value_id rv;
    rv.node_id = node;
    rv.attribute_id = attr;
    rr.nodes_to_read.push_back(rv);
  }
  auto r = c.read_sync(rr);
  if (!r) service_failed(c, "Read", r.error());
  if (r->results.size() == 2) {
    if (const auto* dt = r->results[0].value.get_if<ua::node_id>();
        dt && dt->namespace_index() == 0 && dt->type() == ua::node_id_type::numeric && dt->numeric() >= 1 && dt->numeric() <= 21)
      return static_cast<ua::builtin_type>(dt->numeric());
    if (!r->results[1].value.empty() && !r->results[1].value.is_array()) return r->results[1].value.type();
  }
  c.close();
  usage("history: cannot tell the type of " + node.to_string() + "'s values");
}

// An EventId as --events prints it (hex, 0x first or not), or the end of the command.
ua::byte_string history_event_id_or_exit(std::string_view text) {
  const std::string_view given = text;
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  const auto digit = [](char ch) -> int {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
  };
  if (text.empty() || text.size() % 2 != 0 || text.size() > 512)
    usage("history: --delete-event takes an EventId as --events --select EventId prints it (hex digits), not '" + std::string(given) + "'");
  std::string bytes;
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int hi = digit(text[i]), lo = digit(text[i + 1]);
    if (hi < 0 || lo < 0) usage("history: --delete-event '" + std::string(given) + "' is not hex");
    bytes += static_cast<char>(hi * 16 + lo);
  }
  return ua::byte_string(bytes);
}

}  // namespace

// HistoryUpdate (Part 4 §5.10.5, Part 11 §6.9): one UpdateDataDetails (--insert, --replace or
// --update), DeleteRawModifiedDetails (--delete, over --start and --end; --modified: the modified
// values) or DeleteAtTimeDetails (--delete-at); one line per value or time with its status.
int run_history_update(const common_args& a, const history_args& h) {
  if (h.node.empty()) usage("history: give ENDPOINT NODE");
  const ua::node_id node = node_or_exit(h.node);
  const int kinds = int(!h.insert.empty()) + int(!h.replace.empty()) + int(!h.update.empty()) + int(h.remove) +
                    int(!h.delete_at.empty()) + int(!h.delete_event.empty());
  if (kinds != 1) usage("history: one of --insert, --replace, --update, --delete, --delete-at, --delete-event at a time");
  if (!h.aggregate.empty() || h.csv) usage("history: --aggregate and --csv are for reading");
  const ua::date_time now = actors::utc_now();
  auto style = a.style();
  auto c = connect_or_exit(a);
  ua::history_update_request req;
  std::vector<ua::date_time> times;  // of each operation result, for the output
  const std::vector<std::string>& pairs = !h.insert.empty() ? h.insert : !h.replace.empty() ? h.replace : h.update;
  if (!pairs.empty()) {
    const ua::builtin_type type = value_type_or_exit(c, node);
    ua::update_data_details d;
    d.node_id = node;
    d.perform_insert_replace = !h.insert.empty() ? ua::perform_update_type::insert
                               : !h.replace.empty() ? ua::perform_update_type::replace
                                                    : ua::perform_update_type::update;
    for (const std::string& p : pairs) {
      const auto eq = p.find('=');
      if (eq == std::string::npos) usage("history: " + p + " is not TIME=VALUE");
      const ua::date_time t = time_or_exit(p.substr(0, eq), now, "time");
      auto v = ua::parse_value(type, false, p.substr(eq + 1));
      if (!v) usage("history: '" + p.substr(eq + 1) + "' is not a " + std::string(ua::builtin_type_name(type)));
      ua::data_value dv;
      dv.set_value(std::move(*v));
      dv.source_timestamp = t;
      dv.has_source_timestamp = true;
      dv.server_timestamp = now;
      dv.has_server_timestamp = true;
      d.update_values.push_back(std::move(dv));
      times.push_back(t);
    }
    req.history_update_details.push_back(ua::extension_object(d));
  } else if (h.remove) {
    ua::delete_raw_modified_details d;
    d.node_id = node;
    d.is_delete_modified = h.modified;
    d.end_time = time_or_exit(h.end, now, "--end");
    d.start_time = h.start.empty() ? ua::date_time{d.end_time.ticks - 3'600 * ua::date_time::ticks_per_second}
                                   : time_or_exit(h.start, now, "--start");
    req.history_update_details.push_back(ua::extension_object(d));
  } else if (!h.delete_event.empty()) {
    std::vector<ua::byte_string> ids;
    for (const std::string& text : h.delete_event) ids.push_back(history_event_id_or_exit(text));
    req = history_delete_events_request(node, std::move(ids));
  } else {
    ua::delete_at_time_details d;
    d.node_id = node;
    for (const std::string& t : h.delete_at) d.req_times.push_back(time_or_exit(t, now, "--delete-at"));
    times.assign(d.req_times.begin(), d.req_times.end());
    req.history_update_details.push_back(ua::extension_object(d));
  }
  auto r = c.history_update_sync(std::move(req));
  if (!r) service_failed(c, "HistoryUpdate", r.error());
  if (r->response_header.service_result.is_bad()) service_failed(c, "HistoryUpdate", r->response_header.service_result);
  if (r->results.size() != 1) service_failed(c, "HistoryUpdate", ua::status::bad_unknown_response);
  const auto& result = r->results[0];
  int code = result.status_code.is_good() ? exit_good : exit_bad;
  const std::string node_text = node.to_string();
  if (result.operation_results.empty()) {  // a range delete, or refused for the node
    if (a.json) {
      json_object o;
      o.text("node", node_text).status(result.status_code);
      std::puts(o.str().c_str());
    } else {
      std::printf("%s\t%s\n", node_text.c_str(), result.status_code.to_string().c_str());
    }
  }
  for (std::size_t i = 0; i < result.operation_results.size(); ++i) {
    const ua::status_code sc = result.operation_results[i];
    if (sc.is_bad()) code = exit_bad;
    if (!h.delete_event.empty()) {  // one result per EventId, in the order given
      const std::string& id = h.delete_event[i < h.delete_event.size() ? i : 0];
      if (a.json) {
        json_object o;
        o.text("node", node_text).text("eventId", id).status(sc);
        std::puts(o.str().c_str());
      } else {
        std::printf("%s\t%s\n", id.c_str(), sc.to_string().c_str());
      }
      continue;
    }
    const std::string t = i < times.size() ? format_time(times[i], style.local_time) : "-";
    if (a.json) {
      json_object o;
      o.text("node", node_text).text("sourceTimestamp", t).status(sc);
      std::puts(o.str().c_str());
    } else {
      std::printf("%s\t%s\n", t.c_str(), sc.to_string().c_str());
    }
  }
  std::fflush(stdout);
  c.close();
  return code;
}

// --events (Part 11 §6.5.2 ReadEventDetails): the notifier's stored events from --start up to
// --end through an EventFilter of --select's fields and --where's conditions (ANDed), following
// continuation points; one line per event: its fields as PATH=value, tab-separated (--json: an
// object of them, --csv: a header of the paths and a row per event).
int run_history_events(const common_args& a, const history_args& h, const ua::node_id& node, ua::date_time start,
                       ua::date_time end) {
  if (!h.aggregate.empty() || h.modified || h.bounds) usage("history: --aggregate, --modified and --bounds are for values, not --events");
  const auto paths = select_paths(h.select, "history");
  const ua::node_id base_event_type(0, base_event_type_id);
  event_filter_builder filter;
  for (const auto& p : paths) filter.select(p, base_event_type);
  for (const auto& text : h.where) {
    std::string why;
    auto w = parse_where(text, base_event_type, why);
    if (!why.empty()) usage("history: --where '" + text + "': " + why + " (e.g. --where 'Severity >= 500')");
    if (w.negated) filter.where_not(std::move(w.element));
    else filter.where(std::move(w.element));
  }
  // A page of at most --page, else --max stored events (the server reads that many, the where clause
  // may keep fewer).
  const auto per_page = h.page_values > 0 ? h.page_values : static_cast<std::uint32_t>(std::min<std::uint64_t>(h.max_values, 10'000));
  ua::history_read_request req = history_events_request(node, start, end, filter.build(), per_page);
  auto style = a.style();
  auto c = connect_or_exit(a);
  const std::string node_text = node.to_string();
  if (h.csv) {
    std::string header;
    for (const auto& p : paths) header += (header.empty() ? "" : ",") + csv_field(p);
    std::puts(header.c_str());
  }
  std::uint64_t printed = 0;
  int code = exit_good;
  for (;;) {
    auto r = c.history_read_sync(req);
    if (!r) service_failed(c, "HistoryRead", r.error());
    if (r->response_header.service_result.is_bad()) service_failed(c, "HistoryRead", r->response_header.service_result);
    if (r->results.size() != 1) service_failed(c, "HistoryRead", ua::status::bad_unknown_response);
    const auto& result = r->results[0];
    if (result.status_code.is_bad()) {
      std::fprintf(stderr, "uactor: event history of %s: %s\n", node_text.c_str(), result.status_code.to_string().c_str());
      code = exit_bad;
      break;
    }
    for (const auto& ev : history_events_of(result)) {
      if (h.max_values > 0 && printed == h.max_values) break;
      ++printed;
      std::string line;
      if (a.json) {
        json_object fields;
        for (std::size_t f = 0; f < paths.size(); ++f)
          fields.raw(paths[f], f < ev.event_fields.size() && !ev.event_fields[f].empty() ? json_value(ev.event_fields[f], style) : "null");
        line = json_object().text("node", node_text).raw("fields", fields.str()).str();
      } else if (h.csv) {
        for (std::size_t f = 0; f < paths.size(); ++f)
          line += (f ? "," : "") + csv_field(f < ev.event_fields.size() && !ev.event_fields[f].empty() ? format_untyped(ev.event_fields[f], style) : "");
      } else {
        line = node_text;
        for (std::size_t f = 0; f < paths.size(); ++f)
          line += "\t" + paths[f] + "=" + (f < ev.event_fields.size() ? format_untyped(ev.event_fields[f], style) : "null");
      }
      std::puts(line.c_str());
    }
    if (result.continuation_point.empty()) break;
    req.nodes_to_read[0].continuation_point = result.continuation_point;
    if (h.max_values > 0 && printed >= h.max_values) {
      req.release_continuation_points = true;  // enough: released, not left to time out
      (void)c.history_read_sync(req);
      break;
    }
  }
  std::fflush(stdout);
  c.close();
  return code;
}

int run_history(const common_args& a, const history_args& h) {
  if (h.node.empty()) usage("history: give ENDPOINT NODE");
  const ua::node_id node = node_or_exit(h.node);
  const ua::date_time now = actors::utc_now();
  const ua::date_time end = time_or_exit(h.end, now, "--end");
  const ua::date_time start = h.start.empty() ? ua::date_time{end.ticks - 3'600 * ua::date_time::ticks_per_second}
                                              : time_or_exit(h.start, now, "--start");
  if (start.ticks == end.ticks) usage("history: --start and --end are the same time");
  if (h.csv && a.json) usage("history: --csv or --json, not both");
  if (h.events) return run_history_events(a, h, node, start, end);
  if (!h.where.empty()) usage("history: --where is for --events");
  if (h.page_values > 0 && !h.aggregate.empty()) usage("history: --page is for raw values and --events (aggregates page by the server's choice)");

  ua::history_read_request req;
  req.timestamps_to_return = ua::timestamps_to_return::both;
  req.nodes_to_read.resize(1);
  req.nodes_to_read[0].node_id = node;
  if (!h.aggregate.empty()) {
    if (!(h.interval_ms >= 0)) usage("history: --interval must be 0 (one interval) or more milliseconds");
    ua::read_processed_details d;
    d.start_time = start;
    d.end_time = end;
    d.processing_interval = h.interval_ms;
    d.aggregate_type.push_back(aggregate_or_exit(h.aggregate));
    d.aggregate_configuration.use_server_capabilities_defaults = true;
    req.history_read_details = ua::extension_object(d);
  } else {
    ua::read_raw_modified_details d;
    d.start_time = start;
    d.end_time = end;
    // Part 11 §6.5.3.2: numValuesPerNode bounds each response; a server with more in the range
    // answers a continuation point (Part 4 §7.9), followed below.
    d.num_values_per_node = h.page_values > 0                ? h.page_values
                            : h.max_values > 0xFFFF'FFFFull ? 0
                                                             : static_cast<std::uint32_t>(h.max_values);
    d.return_bounds = h.bounds;
    d.is_read_modified = h.modified;
    if (h.modified && h.bounds) usage("history: --modified has no bounds (Part 11 §6.5.3.1)");
    req.history_read_details = ua::extension_object(d);
  }

  auto style = a.style();
  auto c = connect_or_exit(a);
  const std::string node_text = node.to_string();
  if (h.csv) std::puts(h.modified ? "sourceTimestamp,value,status,serverTimestamp,updateType,modificationTime,userName"
                                   : "sourceTimestamp,value,status,serverTimestamp");
  std::uint64_t printed = 0;
  int code = exit_good;
  for (;;) {
    auto r = c.history_read_sync(req);
    if (!r) service_failed(c, "HistoryRead", r.error());
    if (r->response_header.service_result.is_bad()) service_failed(c, "HistoryRead", r->response_header.service_result);
    if (r->results.size() != 1) service_failed(c, "HistoryRead", ua::status::bad_unknown_response);
    const auto& result = r->results[0];
    if (result.status_code.is_bad()) {
      std::fprintf(stderr, "uactor: history of %s: %s\n", node_text.c_str(), result.status_code.to_string().c_str());
      code = exit_bad;
      break;
    }
    const ua::ua_array<ua::data_value>* values = nullptr;
    const ua::ua_array<ua::modification_info>* infos = nullptr;
    if (const auto* data = result.history_data.get_if<ua::history_data>()) values = &data->data_values;
    if (const auto* data = result.history_data.get_if<ua::history_modified_data>()) {
      values = &data->data_values;
      infos = &data->modification_infos;
    }
    if (values) {
      for (std::size_t i = 0; i < values->size(); ++i) {
        const auto& v = (*values)[i];
        const ua::modification_info* info = infos && i < infos->size() ? &(*infos)[i] : nullptr;
        if (h.max_values > 0 && printed == h.max_values) break;
        ++printed;
        if (!v.status.is_good()) code = exit_bad;
        const std::string source = v.has_source_timestamp ? format_time(v.source_timestamp, style.local_time) : "";
        const std::string server = v.has_server_timestamp ? format_time(v.server_timestamp, style.local_time) : "";
        if (a.json) {
          json_object o;
          o.text("node", node_text).raw("value", v.has_value ? json_value(v.value, style) : "null").status(v.status);
          o.raw("sourceTimestamp", source.empty() ? "null" : json_string(source));
          o.raw("serverTimestamp", server.empty() ? "null" : json_string(server));
          if (info) {
            o.text("updateType", update_type_name(info->update_type));
            o.text("modificationTime", format_time(info->modification_time, style.local_time));
            o.text("userName", std::string(info->user_name.view()));
          }
          std::puts(o.str().c_str());
        } else if (h.csv) {
          std::printf("%s,%s,%s,%s", source.c_str(), csv_field(v.has_value ? format_untyped(v.value, style) : "").c_str(),
                      csv_status(v.status).c_str(), server.c_str());
          if (info)
            std::printf(",%s,%s,%s", update_type_name(info->update_type), format_time(info->modification_time, style.local_time).c_str(),
                        csv_field(std::string(info->user_name.view())).c_str());
          std::puts("");
        } else {
          std::printf("%s\t%s\t%s", source.empty() ? "-" : source.c_str(),
                      v.has_value ? format_value(v.value, style).c_str() : "-", v.status.to_string().c_str());
          if (info)
            std::printf("\t%s\t%s\t%s", update_type_name(info->update_type),
                        format_time(info->modification_time, style.local_time).c_str(),
                        info->user_name.view().empty() ? "-" : std::string(info->user_name.view()).c_str());
          std::puts("");
        }
      }
    }
    if (result.continuation_point.empty()) break;
    req.nodes_to_read[0].continuation_point = result.continuation_point;
    if (h.max_values > 0 && printed >= h.max_values) {
      // Enough: the server's continuation point is released, not left to time out.
      req.release_continuation_points = true;
      (void)c.history_read_sync(req);
      break;
    }
  }
  std::fflush(stdout);
  c.close();
  return code;
}

}  // namespace uactor::app::client_cli
