// Part 9 §8.2 AlarmMetricsType for the Server and each alarm group; chattering counted.
// docs/decisions/0070.
#include "engine/server/subscriptions/alarm_metrics.hpp"

#include <algorithm>
#include <string>

#include "engine/common/clock.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors {

using namespace uactor::ua;

namespace subscriptions_alarm_metrics {

// AlarmMetricsType's Variables (§8.2), in scope::vars order: browse name, DataType, TypeDefinition.
struct metric_child {
  const char* name;
  std::uint32_t data_type;
  std::uint32_t type_definition;
};
constexpr std::uint32_t uint32_t_ = 7, double_t_ = 11, duration_t = 290, utc_time_t = 294, alarm_rate_t = 17277,
                        data_variable_t = ids::base_data_variable_type;
constexpr metric_child metric_children[] = {
    {"AlarmCount", uint32_t_, data_variable_t},         {"StartTime", utc_time_t, data_variable_t},
    {"MaximumActiveState", duration_t, data_variable_t}, {"MaximumUnAck", duration_t, data_variable_t},
    {"CurrentAlarmRate", double_t_, alarm_rate_t},       {"MaximumAlarmRate", double_t_, alarm_rate_t},
    {"MaximumReAlarmCount", uint32_t_, data_variable_t}, {"AverageAlarmRate", double_t_, alarm_rate_t},
};
constexpr std::uint32_t alarm_metrics_type = 17279;

node_id child_id(const node_id& object, const char* path) {
  std::string text = object.type() == node_id_type::string ? std::string(object.text()) : object.to_string();
  text += '.';
  text += path;
  return node_id::string(object.namespace_index(), text);
}

std::int64_t minute_of(const alarm_metrics::scope& s, const instant& now) {
  return std::chrono::duration_cast<std::chrono::minutes>(now.steady - s.start_steady).count();
}

}  // namespace subscriptions_alarm_metrics

using namespace subscriptions_alarm_metrics;

status_code alarm_metrics::add_scope(const node_id& id, node_index parent, address_space& as, const instant& now,
                                     std::uint32_t& out) {
  if (parent == no_node) return status::bad_node_id_unknown;
  if (as.find(id) != no_node) return status::bad_node_id_exists;
  for (const auto& c : metric_children)
    if (as.find(child_id(id, c.name)) != no_node) return status::bad_node_id_exists;
  const node_index has_type = as.find(node_id(0, ids::has_type_definition));
  const node_index has_component = as.find(node_id(0, ids::has_component));
  const node_index has_property = as.find(node_id(0, ids::has_property));
  node_spec spec;
  spec.id = id;
  spec.cls = node_class::object;
  spec.browse_ns = 0;  // the name Part 9 and node-opcua's clients look for
  spec.browse_name = "AlarmMetrics";
  const auto object = as.add_node(std::move(spec));
  if (!object) return object.error();
  as.add_reference(*object, has_type, as.find(node_id(0, alarm_metrics_type)));
  as.add_reference(parent, has_component, *object);
  scope s;
  s.object = *object;
  s.start = now.utc;
  s.start_steady = now.steady;
  for (std::size_t i = 0; i < std::size(metric_children); ++i) {
    const auto& c = metric_children[i];
    node_spec v;
    v.id = child_id(id, c.name);
    v.cls = node_class::variable;
    v.browse_ns = 0;
    v.browse_name = c.name;
    v.data_type = node_id(0, c.data_type);
    v.value.has_value = false;
    const auto n = as.add_node(std::move(v));
    if (!n) {
      as.remove_node(*object);  // its Variables and references go with it
      return n.error();
    }
    as.add_reference(*object, has_component, *n);
    as.add_reference(*n, has_type, as.find(node_id(0, c.type_definition)));
    s.vars[i] = *n;
    if (c.type_definition == alarm_rate_t) {
      // AlarmRateVariableType's Rate: the minutes the rate is per.
      node_spec r;
      const std::string path = std::string(c.name) + ".Rate";
      r.id = child_id(id, path.c_str());
      r.cls = node_class::variable;
      r.browse_ns = 0;
      r.browse_name = "Rate";
      r.data_type = node_id(0, 5);  // UInt16
      r.value.has_value = false;
      if (const auto rn = as.add_node(std::move(r))) {
        as.add_reference(*n, has_property, *rn);
        as.add_reference(*rn, has_type, as.find(node_id(0, ids::property_type)));
        as.assign_value(*rn, variant(rate_minutes), now.utc, now.utc);
      }
    }
  }
  // The type's Reset method, referenced from the instance (as the conditions do theirs, decision 0053).
  if (const node_index m = as.find(node_id(0, reset_method)); m != no_node) as.add_reference(*object, has_component, m);
  out = static_cast<std::uint32_t>(scopes_.size());
  scopes_.push_back(s);
  return status::good;
}

std::int64_t alarm_metrics::find(node_index object) const noexcept {
  for (std::size_t i = 0; i < scopes_.size(); ++i)
    if (scopes_[i].object == object) return static_cast<std::int64_t>(i);
  return -1;
}

void alarm_metrics::roll(scope& s, const instant& now) noexcept {
  const std::int64_t m = minute_of(s, now);
  if (m <= s.minute) return;
  // The minutes that passed since the last one counted start empty.
  for (std::int64_t k = s.minute + 1; k <= m && k <= s.minute + rate_minutes; ++k)
    s.minutes[static_cast<std::size_t>(k % rate_minutes)] = 0;
  s.minute = m;
}

double alarm_metrics::current_rate(std::size_t i, const instant& now) const noexcept {
  const scope& s = scopes_[i];
  const std::int64_t m = minute_of(s, now);
  std::uint32_t sum = 0;
  for (std::int64_t k = std::max<std::int64_t>(0, m - rate_minutes + 1); k <= m; ++k)
    if (k > s.minute - rate_minutes && k <= s.minute) sum += s.minutes[static_cast<std::size_t>(k % rate_minutes)];
  return sum;
}

double alarm_metrics::average_rate(std::size_t i, const instant& now) const noexcept {
  const scope& s = scopes_[i];
  const double minutes = std::chrono::duration<double, std::ratio<60>>(now.steady - s.start_steady).count();
  // Alarms per rate_minutes since the start; the first rate_minutes count as one whole period.
  return s.alarm_count * (rate_minutes / std::max(minutes, double{rate_minutes}));
}

void alarm_metrics::activated(std::span<const std::uint32_t> scopes,
                              std::vector<std::chrono::steady_clock::time_point>& activations,
                              std::size_t& next_activation, const instant& now) {
  ++alarms_total_;
  for (const std::uint32_t i : scopes) {
    scope& s = scopes_[i];
    roll(s, now);
    ++s.alarm_count;
    ++s.minutes[static_cast<std::size_t>(s.minute % rate_minutes)];
    s.max_rate = std::max(s.max_rate, current_rate(i, now));
  }
  // Chattering: the activation `count` before this one (the ring's oldest) is within the window.
  if (chattering_count_ == 0) return;
  if (activations.size() != chattering_count_) {
    activations.assign(chattering_count_, std::chrono::steady_clock::time_point::min());
    next_activation = 0;
  }
  auto& oldest = activations[next_activation];
  if (oldest != std::chrono::steady_clock::time_point::min() && now.steady - oldest <= chattering_window_)
    ++chattering_total_;
  oldest = now.steady;
  next_activation = (next_activation + 1) % chattering_count_;
}

void alarm_metrics::ended_active(std::span<const std::uint32_t> scopes, double active_ms) noexcept {
  for (const std::uint32_t i : scopes) scopes_[i].max_active_ms = std::max(scopes_[i].max_active_ms, active_ms);
}

void alarm_metrics::acknowledged(std::span<const std::uint32_t> scopes, double unacked_ms) noexcept {
  for (const std::uint32_t i : scopes) scopes_[i].max_unack_ms = std::max(scopes_[i].max_unack_ms, unacked_ms);
}

void alarm_metrics::re_alarmed(std::span<const std::uint32_t> scopes, std::uint32_t count) noexcept {
  for (const std::uint32_t i : scopes) scopes_[i].max_re_alarm_count = std::max(scopes_[i].max_re_alarm_count, count);
}

void alarm_metrics::reset(std::uint32_t i, const instant& now) noexcept {
  scope& s = scopes_[i];
  const node_index object = s.object;
  const auto vars = s.vars;
  s = scope{};
  s.object = object;
  s.vars = vars;
  s.start = now.utc;
  s.start_steady = now.steady;
}

void alarm_metrics::sync(address_space& as, const instant& now) {
  for (std::size_t i = 0; i < scopes_.size(); ++i) {
    scope& s = scopes_[i];
    roll(s, now);
    const std::array<variant, 8> values{variant(s.alarm_count),        variant(s.start),
                                        variant(s.max_active_ms),      variant(s.max_unack_ms),
                                        variant(current_rate(i, now)), variant(s.max_rate),
                                        variant(s.max_re_alarm_count), variant(average_rate(i, now))};
    for (std::size_t k = 0; k < values.size(); ++k) {
      const variable_data* var = as.variable(s.vars[k]);
      if (var && var->value.has_value && var->value.value == values[k]) continue;
      as.assign_value(s.vars[k], values[k], now.utc, now.utc);
    }
  }
}

}  // namespace uactor::actors
