// `uactor history`: a node's history through HistoryRead (Part 4 §5.10.3, docs/history.md): raw
// values (Part 11 §6.5.3) following continuation points, or one aggregate per interval (Part 11
// §6.5.4, Part 13), printed one value per line as text, JSON or CSV.
#include <cctype>
#include <charconv>
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

}  // namespace

int run_history(const common_args& a, const history_args& h) {
  if (h.node.empty()) usage("history: give ENDPOINT NODE");
  const ua::node_id node = node_or_exit(h.node);
  const ua::date_time now = actors::utc_now();
  const ua::date_time end = time_or_exit(h.end, now, "--end");
  const ua::date_time start = h.start.empty() ? ua::date_time{end.ticks - 3'600 * ua::date_time::ticks_per_second}
                                              : time_or_exit(h.start, now, "--start");
  if (start.ticks == end.ticks) usage("history: --start and --end are the same time");
  if (h.csv && a.json) usage("history: --csv or --json, not both");

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
    d.num_values_per_node = h.max_values > 0xFFFF'FFFFull ? 0 : static_cast<std::uint32_t>(h.max_values);
    d.return_bounds = h.bounds;
    req.history_read_details = ua::extension_object(d);
  }

  auto style = a.style();
  auto c = connect_or_exit(a);
  const std::string node_text = node.to_string();
  if (h.csv) std::puts("sourceTimestamp,value,status,serverTimestamp");
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
    if (const auto* data = result.history_data.get_if<ua::history_data>()) {
      for (const auto& v : data->data_values) {
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
          std::puts(o.str().c_str());
        } else if (h.csv) {
          std::printf("%s,%s,%s,%s\n", source.c_str(), csv_field(v.has_value ? format_untyped(v.value, style) : "").c_str(),
                      csv_status(v.status).c_str(), server.c_str());
        } else {
          std::printf("%s\t%s\t%s\n", source.empty() ? "-" : source.c_str(),
                      v.has_value ? format_value(v.value, style).c_str() : "-", v.status.to_string().c_str());
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
