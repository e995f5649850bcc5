// HistoryRead, raw values: Part 4 §5.10.3, Part 11 §6.5.3.2 (time domain, direction, bounds) and
// §4.6 (Bounding Values), Part 11 §6.3 (continuation points, status codes); processed values
// (§6.5.4) and values at times (§6.5.5) read the raw values around them and hand them to
// engine/server/history/aggregates.hpp.
#include "engine/server/services/history_read.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "engine/server/history/intervals.hpp"
#include "engine/server/history_configuration.hpp"
#include "engine/server/services/operations.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::services {

using namespace uactor::ua;

namespace {

constexpr std::uint8_t history_read_bit = 0x04;  // Part 3 §8.57 AccessLevelType: HistoryRead
constexpr auto lowest = std::numeric_limits<std::int64_t>::min();
constexpr auto highest = std::numeric_limits<std::int64_t>::max();

// Part 11 §6.5.3.2's Bad_BoundNotFound tuple (FIRST or LAST of §4.6 Table 1): no value, the
// requested time.
data_value missing_bound(std::int64_t at) {
  data_value v;
  v.status = status::bad_bound_not_found;
  v.has_status = true;
  v.source_timestamp.ticks = at;
  v.has_source_timestamp = true;
  return v;
}

// Part 4 §7.40: the timestamps the client asked for (HistoryRead orders by the source time).
void keep_timestamps(data_value& v, timestamps_to_return t) {
  if (t == timestamps_to_return::source) {
    v.has_server_timestamp = false;
    v.server_timestamp = {};
    v.server_picoseconds = 0;
  } else if (t == timestamps_to_return::server) {
    if (!v.has_server_timestamp) {  // a bound made here: its time is the only one there is
      v.server_timestamp = v.source_timestamp;
      v.has_server_timestamp = v.has_source_timestamp;
    }
    v.has_source_timestamp = false;
    v.source_timestamp = {};
    v.source_picoseconds = 0;
  }
}

// The one value nearest to `at` on one side, or none.
std::optional<data_value> neighbour(history::history_store& store, std::string_view node, std::int64_t at,
                                    bool inclusive, bool later) {
  history::raw_query q;
  q.node = node;
  q.limit = 1;
  if (later) {
    q.from = at;
    q.from_inclusive = inclusive;
    q.to = highest;
    q.to_inclusive = true;
  } else {
    q.from = lowest;
    q.to = at;
    q.to_inclusive = inclusive;
    q.reverse = true;
  }
  auto page = store.read_raw(q);
  if (page.values.empty()) return std::nullopt;
  return std::move(page.values.front());
}

// A new read from the details: its range, direction and bounds (Part 11 §6.5.3.2).
status_code plan_read(const read_raw_modified_details& d, history_read_position& p) {
  bool& start_bound = p.start_bound;
  std::int64_t& start_time = p.start_time;
  const bool has_start = d.start_time.ticks != 0;  // DateTime.MinValue: not specified
  const bool has_end = d.end_time.ticks != 0;
  const bool has_count = d.num_values_per_node != 0;
  if (static_cast<int>(has_start) + static_cast<int>(has_end) + static_cast<int>(has_count) < 2)
    return status::bad_invalid_timestamp_argument;
  history::raw_query& q = p.range;
  q.node = {};
  start_bound = false;
  if (has_start && has_end) {
    if (d.end_time < d.start_time) {  // backwards: startTime down to (not including) endTime
      q.reverse = true;
      q.from = d.end_time.ticks;
      q.from_inclusive = false;
      q.to = d.start_time.ticks;
      q.to_inclusive = true;
    } else {  // forwards from startTime up to (not including) endTime; equal: the values at that time
      q.from = d.start_time.ticks;
      q.to = d.end_time.ticks;
      q.to_inclusive = d.start_time == d.end_time;
    }
    start_bound = d.return_bounds && d.start_time != d.end_time;
    p.end_bound = start_bound;
    p.end_time = d.end_time.ticks;
    start_time = d.start_time.ticks;
    p.remaining = 0;  // all of the range, numValuesPerNode at a time
  } else if (has_start) {  // the next numValuesPerNode values from startTime
    q.from = d.start_time.ticks;
    q.to = highest;
    q.to_inclusive = true;
    start_bound = d.return_bounds;
    start_time = d.start_time.ticks;
    p.remaining = d.num_values_per_node;
    p.counted = true;
  } else {  // the numValuesPerNode values up to endTime, latest first
    q.reverse = true;
    q.from = lowest;
    q.to = d.end_time.ticks;
    q.to_inclusive = true;
    start_bound = d.return_bounds;
    start_time = d.end_time.ticks;
    p.remaining = d.num_values_per_node;
    p.counted = true;
  }
  return status::good;
}

struct reader {
  history::history_store& store;
  const history_limits& limits;
  timestamps_to_return timestamps;

  // One page of position p into r, at most `budget` values (not 0); true when more is left (p is
  // where it resumes).
  bool page(history_read_position& p, std::uint32_t num_values, std::size_t budget, history_read_result& r) {
    if (p.range.modified) return modified_page(p, num_values, budget, r);
    history_data& out = r.history_data.emplace<history_data>();
    out.data_values.clear();
    const bool start_bound = p.start_bound;
    const std::int64_t start_time = p.start_time;
    p.start_bound = false;  // given on this page
    std::size_t limit = std::min(limits.max_values_per_node, budget);
    if (num_values != 0) limit = std::min<std::size_t>(limit, num_values);
    if (p.remaining != 0) limit = std::min<std::size_t>(limit, p.remaining);
    history::raw_query q = p.range;
    q.node = p.node;
    q.limit = limit;
    q.after = p.after;
    history::raw_page got = store.read_raw(q);
    // The start's bound: the value at the start when there is one (then it is in the range
    // already), else the nearest one outside the range, else FIRST.
    const bool value_at_start = !got.values.empty() && history::record_time(got.values.front()) == start_time;
    if (start_bound && !value_at_start) {
      auto b = neighbour(store, p.node, start_time, false, q.reverse);
      out.data_values.push_back(b ? std::move(*b) : missing_bound(start_time));
    }
    out.data_values.reserve(got.values.size() + 2);  // the page and its two bounds, moved in once
    for (auto& v : got.values) out.data_values.push_back(std::move(v));
    if (!got.values.empty()) p.after = got.last;
    if (p.remaining != 0) p.remaining -= std::min<std::uint64_t>(p.remaining, got.values.size());
    // A count from one time ends with its count (Part 11 §6.5.3.2), a range with its end.
    const bool more = got.more && !(p.counted && p.remaining == 0);
    if (!more && p.end_bound) {  // the last page: the bound past the end, or LAST
      auto b = neighbour(store, p.node, p.end_time, true, !q.reverse);
      out.data_values.push_back(b ? std::move(*b) : missing_bound(p.end_time));
    }
    for (auto& v : out.data_values) keep_timestamps(v, timestamps);
    r.status_code = out.data_values.empty() && !more ? status::good_no_data : status::good;
    return more;
  }

  // IsReadModified (Part 11 §6.5.3.1): the modified records of the range as HistoryModifiedData,
  // each with its ModificationInfo; no bounds (plan refuses returnBounds).
  bool modified_page(history_read_position& p, std::uint32_t num_values, std::size_t budget, history_read_result& r) {
    history_modified_data& out = r.history_data.emplace<history_modified_data>();
    out.data_values.clear();
    out.modification_infos.clear();
    std::size_t limit = std::min(limits.max_values_per_node, budget);
    if (num_values != 0) limit = std::min<std::size_t>(limit, num_values);
    if (p.remaining != 0) limit = std::min<std::size_t>(limit, p.remaining);
    history::raw_query q = p.range;
    q.node = p.node;
    q.limit = limit;
    q.after = p.after;
    history::raw_page got = store.read_raw(q);
    if (!got.values.empty()) p.after = got.last;
    if (p.remaining != 0) p.remaining -= std::min<std::uint64_t>(p.remaining, got.values.size());
    const bool more = got.more && !(p.counted && p.remaining == 0);
    out.data_values.reserve(got.values.size());
    for (std::size_t i = 0; i < got.values.size(); ++i) {
      keep_timestamps(got.values[i], timestamps);
      out.data_values.push_back(std::move(got.values[i]));
      modification_info& m = out.modification_infos.emplace_back();
      if (i < got.changes.size()) {
        m.modification_time.ticks = got.changes[i].time;
        m.update_type = static_cast<history_update_type>(got.changes[i].type);
        m.user_name.assign(got.changes[i].user);
      }
    }
    r.status_code = out.data_values.empty() && !more ? status::good_no_data : status::good;
    return more;
  }
};

// The values a page put in a result, raw or modified.
std::size_t values_in(const history_read_result& r) {
  if (const auto* d = r.history_data.get_if<history_data>()) return d->data_values.size();
  if (const auto* m = r.history_data.get_if<history_modified_data>()) return m->data_values.size();
  return 0;
}

// ReadProcessedDetails' checks that do not depend on the node (Part 11 §6.5.4), and the
// aggregate configuration: the request's, or with useServerCapabilitiesDefaults each node's
// (Part 13 §4.2.1.2; the node's part is plan_history_read's).
status_code plan_processed(const read_processed_details& d, calculated_read& c) {
  if (d.start_time.ticks == 0 || d.end_time.ticks == 0) return status::bad_invalid_timestamp_argument;
  c.start = d.start_time;
  c.end = d.end_time;
  c.interval_ms = d.processing_interval;
  c.config = history::aggregate_configuration{};
  const aggregate_configuration& a = d.aggregate_configuration;
  c.server_defaults = a.use_server_capabilities_defaults;
  if (!a.use_server_capabilities_defaults) {
    if (a.percent_data_bad > 100 || a.percent_data_good > 100) return status::bad_aggregate_configuration_rejected;
    c.config.treat_uncertain_as_bad = a.treat_uncertain_as_bad;
    c.config.percent_data_bad = a.percent_data_bad;
    c.config.percent_data_good = a.percent_data_good;
    c.config.use_sloped_extrapolation = a.use_sloped_extrapolation;
  }
  return status::good;
}

// ReadAtTimeDetails (Part 11 §6.5.5): the times (max_values_per_node of them per page, the rest
// with a continuation point), with each node's aggregate configuration.
status_code plan_at_time(const read_at_time_details& d, calculated_read& c) {
  if (d.req_times.empty()) return status::bad_invalid_timestamp_argument;
  c.times.assign(d.req_times.begin(), d.req_times.end());
  // FNV-1a over the times: a continuation point is for the same list again.
  std::uint64_t h = 14'695'981'039'346'656'037ull;
  for (const date_time& t : c.times) {
    h ^= static_cast<std::uint64_t>(t.ticks);
    h *= 1'099'511'628'211ull;
  }
  c.times_hash = h;
  c.use_simple_bounds = d.use_simple_bounds;
  c.config = history::aggregate_configuration{};
  c.server_defaults = true;
  return status::good;
}

// Values of one node from `from` to `to` (both included), ascending; false when there are more
// than `limit`.
bool read_span(history::history_store& store, std::string_view node, std::int64_t from, std::int64_t to,
               std::size_t limit, std::vector<data_value>& out) {
  history::raw_query q;
  q.node = node;
  q.from = from;
  q.to = to;
  q.from_inclusive = q.to_inclusive = true;
  q.limit = limit;
  auto page = store.read_raw(q);
  out.reserve(out.size() + page.values.size() + 1);  // and the bound after
  for (auto& v : page.values) out.push_back(std::move(v));
  return !page.more;
}

// Up to `count` values nearest to `at` on one side (before: up to and with `at`; after: past it),
// ascending. Enough for an interpolated bound (Part 13 §3.1.8) that skips a few Bad values.
void read_near(history::history_store& store, std::string_view node, std::int64_t at, bool later, std::size_t count,
               std::vector<data_value>& out) {
  history::raw_query q;
  q.node = node;
  q.limit = count;
  if (later) {
    q.from = at;
    q.from_inclusive = false;
    q.to = highest;
    q.to_inclusive = true;
  } else {
    q.from = lowest;
    q.to = at;
    q.to_inclusive = true;
    q.reverse = true;
  }
  auto page = store.read_raw(q);
  if (!later) std::reverse(page.values.begin(), page.values.end());
  for (auto& v : page.values) out.push_back(std::move(v));
}

constexpr std::size_t values_around_a_time = 8;

// The values around [lo, hi] and in it, ascending: `before` values up to and with lo's tick
// before it (strictly before lo), the span (false when it holds more than `limit`), `after` values
// past hi. One neighbour on a side where the request's range ends (as the whole range is read),
// values_around_a_time where a page ends inside it (an interpolated bound may skip Bad values).
bool read_around(history::history_store& store, std::string_view node, std::int64_t lo, std::int64_t hi,
                 std::size_t before, std::size_t after, std::size_t limit, std::vector<data_value>& raw) {
  raw.clear();
  if (lo != lowest) read_near(store, node, lo - 1, false, before, raw);
  if (!read_span(store, node, lo, hi, limit, raw)) return false;
  read_near(store, node, hi, true, after, raw);
  return true;
}

// One page of a processed node (Part 11 §6.5.4): from the point's next interval, at most `page`
// intervals, fewer when their raw values are more than max_raw (down to one interval).
void processed_page(history_read_job& job, history_read_job::item& it, std::size_t page, history_read_result& r,
                    std::vector<data_value>& values) {
  history::history_store& store = *job.store;
  const calculated_read& c = job.calculated;
  calculated_page& at = *it.position.calculated;
  const auto total = history::count_intervals(c.start, c.end, c.interval_ms);
  if (!total) {
    r.status_code = total.error();
    return;
  }
  std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(page, *total - std::min(*total, at.next)));
  std::vector<data_value> raw;
  while (true) {
    auto intervals = history::plan_interval_page(c.start, c.end, c.interval_ms, at.next, count);
    if (!intervals) {
      r.status_code = intervals.error();
      return;
    }
    if (intervals->empty()) break;
    std::int64_t lo = highest, hi = lowest;
    for (const auto& iv : *intervals) {
      lo = std::min(lo, iv.start_ticks);
      hi = std::max(hi, iv.end_ticks);
    }
    // The range's own ends have their one bounding value, as a read of the whole range has.
    const bool first_page = at.next == 0;
    const bool last_page = at.next + intervals->size() == *total;
    const bool backward = c.start > c.end;
    const std::size_t near_lo = (backward ? last_page : first_page) ? 1 : values_around_a_time;
    const std::size_t near_hi = (backward ? first_page : last_page) ? 1 : values_around_a_time;
    if (read_around(store, it.position.node, lo, hi, near_lo, near_hi, job.limits.max_raw_values_per_aggregate, raw)) {
      auto got = history::process_page(it.aggregate, raw, c.start, c.end, c.interval_ms, it.config, at.next, count);
      if (!got) {
        r.status_code = got.error();
        return;
      }
      values = std::move(*got);
      break;
    }
    if (count == 1) {  // one interval holds more raw values than a page may read
      r.status_code = status::bad_too_many_operations;
      return;
    }
    count = std::max<std::size_t>(1, count / 8);
  }
  at.next += values.size();
  it.more = at.next < *total;
  r.status_code = status::good;
}

// One page of an at-time node (Part 11 §6.5.5): from the point's next time, at most `page` times.
void at_time_page(history_read_job& job, history_read_job::item& it, std::size_t page, history_read_result& r,
                  std::vector<data_value>& values) {
  history::history_store& store = *job.store;
  const calculated_read& c = job.calculated;
  const std::string_view node = it.position.node;
  calculated_page& at = *it.position.calculated;
  const std::size_t first = static_cast<std::size_t>(std::min<std::uint64_t>(at.next, c.times.size()));
  const std::span<const date_time> times(c.times.data() + first, std::min(page, c.times.size() - first));
  if (!times.empty()) {
    const auto [lo_it, hi_it] = std::minmax_element(times.begin(), times.end());
    std::vector<data_value> raw;
    // Strictly before the earliest time (a hostile earliest time has no tick before it).
    read_near(store, node, lo_it->ticks == lowest ? lowest : lo_it->ticks - 1, false, values_around_a_time, raw);
    if (read_span(store, node, lo_it->ticks, hi_it->ticks, job.limits.max_raw_values_per_aggregate, raw)) {
      read_near(store, node, hi_it->ticks, true, values_around_a_time, raw);
      values = history::values_at(raw, times, c.use_simple_bounds, it.config);
    } else {  // too many between the times: the values around each time only
      for (const date_time& t : times) {
        raw.clear();
        read_near(store, node, t.ticks, false, values_around_a_time, raw);
        read_near(store, node, t.ticks, true, values_around_a_time, raw);
        auto one = history::values_at(raw, std::span<const date_time>(&t, 1), c.use_simple_bounds, it.config);
        for (auto& v : one) values.push_back(std::move(v));
      }
    }
  }
  at.next = first + times.size();
  it.more = at.next < c.times.size();
  r.status_code = status::good;
}

// One processed or at-time node's page: its raw values from the store, the calculation, the
// result; it.more when intervals or times are left (finish gives them a continuation point).
void calculate(history_read_job& job, history_read_job::item& it, std::size_t budget, history_read_result& r) {
  std::vector<data_value> values;
  const std::size_t page = std::min(job.limits.max_values_per_node, budget);
  it.more = false;
  if (job.kind == history_read_kind::processed) processed_page(job, it, page, r, values);
  else at_time_page(job, it, page, r, values);
  if (r.status_code.is_bad()) {
    it.more = false;
    return;
  }
  for (auto& v : values) keep_timestamps(v, job.timestamps);
  r.history_data.emplace<history_data>().data_values = std::move(values);
}

// Whether the point `p` continues this request's read (Part 4 §5.10.3: the client sends the
// same details with it): a raw point a raw read, an event point an event read, a processed or
// at-time point the same details (and, processed, the same aggregate for the node).
bool resumes(const history_read_position& p, const history_read_job& job, const node_id* aggregate) {
  if (job.kind == history_read_kind::raw || job.kind == history_read_kind::events)
    return !p.calculated && p.events == (job.kind == history_read_kind::events);
  if (!p.calculated || p.calculated->kind != job.kind) return false;
  const calculated_page& at = *p.calculated;
  const calculated_read& c = job.calculated;
  if (job.kind == history_read_kind::processed)
    return aggregate && at.aggregate == *aggregate && at.start == c.start.ticks && at.end == c.end.ticks &&
           at.interval_ms == c.interval_ms && at.server_defaults == c.server_defaults;
  return at.times == c.times.size() && at.times_hash == c.times_hash && at.simple_bounds == c.use_simple_bounds;
}

}  // namespace

bool plan_history_read(const history_read_request& req, history_read_job& job, const address_space& as,
                       history_continuations& points, const history_limits& limits, const node_access& access) {
  history_read_response& resp = job.response;
  job.items.clear();
  if (!start_operations(req.request_header, resp, req.nodes_to_read.size(), limits.max_nodes_per_history_read))
    return false;
  // Part 4 §5.10.3.2: Neither is not a choice for history (the values are about their times).
  if (req.timestamps_to_return != timestamps_to_return::source && req.timestamps_to_return != timestamps_to_return::server &&
      req.timestamps_to_return != timestamps_to_return::both) {
    refuse_request(resp, status::bad_timestamps_to_return_invalid);
    return false;
  }
  const auto* details = req.history_read_details.get_if<read_raw_modified_details>();
  const auto* processed = req.history_read_details.get_if<read_processed_details>();
  const auto* at_time = req.history_read_details.get_if<read_at_time_details>();
  const auto* events = req.history_read_details.get_if<read_event_details>();
  if (!details && !processed && !at_time && !events) {
    refuse_request(resp, status::bad_history_operation_invalid);
    return false;
  }
  if (events && !job.event_filter) {  // no event history here
    refuse_request(resp, status::bad_history_operation_unsupported);
    return false;
  }
  // Part 11 §6.5.2.1: the time domain of ReadEventDetails is that of raw values, without bounds.
  read_raw_modified_details event_domain;
  if (events) {
    event_domain.start_time = events->start_time;
    event_domain.end_time = events->end_time;
    event_domain.num_values_per_node = events->num_values_per_node;
  }
  // Part 11 §6.5.4: one aggregateType per entry of nodesToRead (a node read with two aggregates
  // appears twice).
  if (processed && !req.release_continuation_points && processed->aggregate_type.size() != req.nodes_to_read.size()) {
    refuse_request(resp, status::bad_aggregate_list_mismatch);
    return false;
  }
  job.timestamps = req.timestamps_to_return;
  job.num_values = details ? details->num_values_per_node : events ? events->num_values_per_node : 0;
  job.limits = limits;
  job.kind = details    ? history_read_kind::raw
             : events   ? history_read_kind::events
             : processed ? history_read_kind::processed
                         : history_read_kind::at_time;
  status_code calculated_status = status::good;  // what every node of a processed or at-time read gets
  if (processed) calculated_status = plan_processed(*processed, job.calculated);
  if (at_time) calculated_status = plan_at_time(*at_time, job.calculated);
  resp.results.resize(req.nodes_to_read.size());
  for (std::size_t i = 0; i < req.nodes_to_read.size(); ++i) {
    const history_read_value_id& id = req.nodes_to_read[i];
    history_read_result& r = resp.results[i];
    r.status_code = status::good;
    r.continuation_point = byte_string{};
    r.history_data = extension_object{};
    // Part 4 §5.10.3: releasing frees the points and returns no data.
    if (req.release_continuation_points) {
      if (!points.release(id.continuation_point)) r.status_code = status::bad_continuation_point_invalid;
      continue;
    }
    history_read_job::item it;
    it.result = i;
    const bool continued = !id.continuation_point.is_null() && id.continuation_point.size() != 0;
    bool resumed = false;  // a processed or at-time point: its node is checked again below
    if (continued) {
      history_read_position* p = points.find(id.continuation_point);
      // Another session's, released, used already, for another node or another request (a raw
      // read's point is not a processed read's, an Average's not a Maximum's): unknown here.
      if (!p || !(p->node_id == id.node_id) || !resumes(*p, job, processed ? &processed->aggregate_type[i] : nullptr)) {
        r.status_code = status::bad_continuation_point_invalid;
        continue;
      }
      it.position = std::move(*p);
      points.release(id.continuation_point);  // used once: the next page gets a new one
      resumed = it.position.calculated.has_value();
    }
    if (!continued || resumed) {
      const node_index n = as.find(id.node_id);
      const variable_data* var = n == no_node ? nullptr : as.variable(n);
      if (n == no_node) {
        r.status_code = status::bad_node_id_unknown;
        continue;
      }
      if (const status_code refused = access.refusal(n, actors::authz::permission::read_history); refused.is_bad()) {
        r.status_code = refused;
        continue;
      }
      if (events) {  // a notifier with event history (Part 3 §8.59 EventNotifier HistoryRead)
        const node_class cls = as.at(n).cls;
        if ((cls != node_class::object && cls != node_class::view) || (as.at(n).event_notifier & history_read_bit) == 0 || !job.store) {
          r.status_code = status::bad_history_operation_unsupported;
          continue;
        }
        if (job.event_filter_status.is_bad()) {
          r.status_code = job.event_filter_status;
          continue;
        }
        if (const status_code sc = plan_read(event_domain, it.position); sc.is_bad()) {
          r.status_code = sc;
          continue;
        }
        it.position.events = true;
        it.position.node = id.node_id.to_string();
        it.position.node_id = id.node_id;
        job.items.push_back(std::move(it));
        continue;
      }
      if (!var || as.at(n).cls != node_class::variable || !var->historizing || !job.store) {
        r.status_code = status::bad_history_operation_unsupported;
        continue;
      }
      if ((var->access_level & history_read_bit) == 0 || (var->user_access_level & history_read_bit) == 0) {
        r.status_code = status::bad_not_readable;
        continue;
      }
      if (!id.data_encoding.name.empty() || id.data_encoding.namespace_index != 0) {
        r.status_code = status::bad_data_encoding_unsupported;
        continue;
      }
      if (!details) {  // processed or at-time
        if (calculated_status.is_bad()) {
          r.status_code = calculated_status;
          continue;
        }
        if (processed) {
          it.aggregate = processed->aggregate_type[i];
          const auto served = history::served_aggregates();
          if (std::find(served.begin(), served.end(), it.aggregate) == served.end()) {
            r.status_code = status::bad_aggregate_not_supported;
            continue;
          }
        }
        // Part 11 §5.7.3, Part 13 §4.2.1.2: the node's configuration (Stepped always; the rest
        // unless the request brings its own).
        it.config = actors::configuration_for(as, n);
        if (!job.calculated.server_defaults) {
          const bool stepped = it.config.stepped;
          it.config = job.calculated.config;
          it.config.stepped = stepped;
        }
        if (!resumed) {  // a new read: from its first interval or time
          const calculated_read& c = job.calculated;
          calculated_page page;
          page.kind = job.kind;
          page.aggregate = it.aggregate;
          page.start = c.start.ticks;
          page.end = c.end.ticks;
          page.interval_ms = c.interval_ms;
          page.server_defaults = c.server_defaults;
          page.times = c.times.size();
          page.times_hash = c.times_hash;
          page.simple_bounds = c.use_simple_bounds;
          it.position.calculated = std::move(page);
        }
      } else if (details->is_read_modified && details->return_bounds) {
        r.status_code = status::bad_invalid_argument;  // Part 11 §6.5.3.1: no bounds of modified values
        continue;
      } else if (const status_code sc = plan_read(*details, it.position); sc.is_bad()) {
        r.status_code = sc;
        continue;
      } else {
        it.position.range.modified = details->is_read_modified;
      }
      it.position.node = id.node_id.to_string();
      it.position.node_id = id.node_id;
    }
    if (!job.store) {
      r.status_code = status::bad_history_operation_unsupported;
      continue;
    }
    job.items.push_back(std::move(it));
  }
  return !job.items.empty();
}

void run_history_read(history_read_job& job) {
  if (!job.store) return;
  const history_limits& limits = job.limits;
  reader rd{*job.store, limits, job.timestamps};
  std::size_t budget = std::max<std::size_t>(1, limits.max_values_per_request);
  if (job.kind == history_read_kind::archive_start) {
    for (auto& it : job.items) {
      history_read_result& r = job.response.results[it.result];
      auto& out = r.history_data.emplace<history_data>().data_values;
      out.clear();
      try {
        if (auto first = neighbour(*job.store, it.position.node, lowest, true, true)) out.push_back(std::move(*first));
        r.status_code = status::good;
      } catch (const history::store_error& e) {
        spdlog::warn("history: StartOfArchive of {} not read: {}", it.position.node, e.what());
        r.status_code = status::bad_resource_unavailable;
      }
    }
    return;
  }
  if (job.kind != history_read_kind::raw && job.kind != history_read_kind::events) {
    for (auto& it : job.items) {
      history_read_result& r = job.response.results[it.result];
      if (budget == 0) {  // the response is full: this node's values come with its next page
        it.more = true;
        r.status_code = status::good;
        r.history_data.emplace<history_data>().data_values.clear();
        continue;
      }
      try {
        calculate(job, it, budget, r);
        if (const auto* d = r.history_data.get_if<history_data>()) budget -= std::min(budget, d->data_values.size());
      } catch (const history::store_error& e) {
        spdlog::error("{}", e.what());
        it.more = false;
        r.status_code = status::bad_internal_error;
        r.history_data = extension_object{};
      }
    }
    return;
  }
  for (auto& it : job.items) {
    history_read_result& r = job.response.results[it.result];
    if (budget == 0) {  // the response is full: this node's values come with its next page
      it.more = true;
      if (it.position.range.modified) r.history_data.emplace<history_modified_data>() = history_modified_data{};
      else r.history_data.emplace<history_data>().data_values.clear();
      continue;
    }
    try {
      it.more = rd.page(it.position, job.num_values, budget, r);
      budget -= std::min(budget, values_in(r));
    } catch (const history::store_error& e) {
      spdlog::error("{}", e.what());
      it.more = false;
      r.status_code = status::bad_internal_error;
      r.history_data = extension_object{};
    }
  }
}

void finish_history_read(history_read_job& job, history_continuations* points) {
  for (auto& it : job.items) {
    if (!it.more) continue;
    history_read_result& r = job.response.results[it.result];
    if (!points || !points->add(std::move(it.position), r.continuation_point)) {
      r.status_code = status::bad_no_continuation_points;
      r.history_data = extension_object{};
      r.continuation_point = byte_string{};
    }
  }
  job.items.clear();
}

void service_history_read(const history_read_request& req, history_read_response& resp, const address_space& as,
                          history::history_store* store, history_continuations& points, const history_limits& limits,
                          const node_access& access) {
  history_read_job job;
  job.store = store;
  job.response = std::move(resp);
  if (plan_history_read(req, job, as, points, limits, access)) {
    run_history_read(job);
    finish_history_read(job, &points);
  }
  resp = std::move(job.response);
}

}  // namespace uactor::services
