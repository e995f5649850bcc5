// Part 4 §5.12 MonitoredItem services, the server side: CreateMonitoredItems, ModifyMonitoredItems,
// SetMonitoringMode, SetTriggering, DeleteMonitoredItems; the filters (§7.22.2), sampling and the
// item queues (§5.12.1.5). docs/decisions/0010.
#include "engine/server/subscriptions/subscription_manager.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>
#include <utility>

#include "engine/server/services/index_range.hpp"
#include "engine/server/subscriptions/subscription_manager_internal.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors {

using namespace uactor::ua;

namespace {

constexpr std::uint32_t number_type = 26;     // ns=0;i=26 Number
using ua::ids::has_property;
// Part 4 §7.39 Table 177: InfoType DataValue (bits 10-11 = 01) and its Overflow bit (bit 7).
constexpr std::uint32_t info_type_data_value = 0x0400;
constexpr std::uint32_t overflow_bit = 0x0080;

// The element count of a Variant for the deadband: 1 for a scalar, the length of an array.
std::size_t element_count(const variant& v) {
  return std::visit(
      [](const auto& x) -> std::size_t {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) return 0;
        else if constexpr (requires { x.size(); x.begin(); } && !std::is_same_v<T, ua_string> &&
                           !std::is_same_v<T, byte_string> && !std::is_same_v<T, xml_element>)
          return x.size();
        else return 1;
      },
      v.value());
}

// The i-th element as a double, when the Variant holds a number (or an array of numbers).
bool number_at(const variant& v, std::size_t i, double& out) {
  return std::visit(
      [&](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
          if (i != 0) return false;
          out = static_cast<double>(x);
          return true;
        } else if constexpr (requires { typename T::value_type; }) {
          using E = typename T::value_type;
          if constexpr (std::is_arithmetic_v<E> && !std::is_same_v<E, bool> && !std::is_same_v<T, ua_string> &&
                        !std::is_same_v<T, byte_string> && !std::is_same_v<T, xml_element>) {
            if (i >= x.size()) return false;
            out = static_cast<double>(x[i]);
            return true;
          } else {
            return false;
          }
        } else {
          return false;
        }
      },
      v.value());
}

// Part 4 §7.22.2: a value passes an absolute deadband when any element moved by more than it.
bool exceeds_deadband(const variant& last, const variant& now, double deadband) {
  if (last.type() != now.type() || last.is_array() != now.is_array()) return true;
  const std::size_t n = element_count(now);
  if (n != element_count(last)) return true;
  for (std::size_t i = 0; i < n; ++i) {
    double a = 0, b = 0;
    if (!number_at(last, i, a) || !number_at(now, i, b)) return !(last == now);
    if (std::fabs(a - b) > deadband) return true;
  }
  return false;
}

void set_overflow(data_value& v) {
  v.status = status_code(v.status.value() | info_type_data_value | overflow_bit);
  v.has_status = true;
}

// §5.12.3: a queue cut below what it holds discards by the item's discard policy (§5.12.1.5):
// the oldest go and the next one gets the Overflow bit, or the values before the newest go and the
// newest gets it; a queue of one keeps the newest without it. Not a hot path: a new vector.
void resize_queue(subscription_manager::item& it, std::uint32_t size) {
  std::vector<data_value> q;
  q.reserve(std::min<std::size_t>(it.count, size));
  const auto at = [&](std::size_t k) -> data_value& { return it.queue[(it.head + k) % it.queue_size]; };
  const std::size_t n = it.count;
  if (n <= size) {
    for (std::size_t k = 0; k < n; ++k) q.push_back(std::move(at(k)));
  } else if (size == 1) {
    q.push_back(std::move(at(n - 1)));
  } else if (it.discard_oldest) {
    for (std::size_t k = n - size; k < n; ++k) q.push_back(std::move(at(k)));
    set_overflow(q.front());
  } else {
    for (std::size_t k = 0; k + 1 < size; ++k) q.push_back(std::move(at(k)));
    q.push_back(std::move(at(n - 1)));
    set_overflow(q.back());
  }
  it.queue = std::move(q);
  it.head = 0;
  it.count = it.queue.size();
  it.queue_size = size;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// MonitoredItem services

namespace {

// What a session needs on a node to monitor one of its attributes (Part 3 §8.55): ReceiveEvents for
// an event item, else what reading the attribute needs.
std::uint32_t permission_to_monitor(std::uint32_t attribute) noexcept {
  return attribute == static_cast<std::uint32_t>(attribute_id::event_notifier)
             ? actors::authz::permission::receive_events
             : services::permission_to_read(static_cast<attribute_id>(attribute));
}

struct filter_settings {
  data_change_trigger trigger = data_change_trigger::status_value;
  bool deadband = false;
  double deadband_abs = 0;
};

// The EURange property of a node (Part 8 §5.6.2), for a percent deadband.
const ua::range* eu_range(const address_space& as, node_index n) {
  const node_index property = as.find(node_id(0, has_property));
  for (const auto& ref : as.forward_references(n)) {
    if (ref.type != property || as.at(ref.target).browse_name != "EURange") continue;
    const variable_data* var = as.variable(ref.target);
    if (!var) return nullptr;
    const auto* eo = var->value.value.get_if<extension_object>();
    return eo ? eo->get_if<ua::range>() : nullptr;
  }
  return nullptr;
}

// §7.22.2 DataChangeFilter; EventFilter and AggregateFilter are not served on data items.
status_code parse_filter(const extension_object& filter, const address_space& as, node_index n,
                         std::uint32_t attribute, filter_settings& out) {
  out = {};
  if (filter.empty()) return status::good;
  const auto* f = filter.get_if<data_change_filter>();
  if (!f) {
    if (filter.get_if<event_filter>()) return status::bad_filter_not_allowed;
    if (filter.get_if<aggregate_filter>()) return status::bad_monitored_item_filter_unsupported;
    return status::bad_monitored_item_filter_invalid;
  }
  if (attribute != value_attribute) return status::bad_filter_not_allowed;
  if (static_cast<std::uint32_t>(f->trigger) > 2) return status::bad_monitored_item_filter_invalid;
  out.trigger = f->trigger;
  if (f->deadband_type == static_cast<std::uint32_t>(deadband_type::none)) return status::good;
  if (f->deadband_type > static_cast<std::uint32_t>(deadband_type::percent)) return status::bad_deadband_filter_invalid;
  if (!(f->deadband_value >= 0) || std::isinf(f->deadband_value)) return status::bad_deadband_filter_invalid;
  const variable_data* var = as.variable(n);
  const bool numeric = var && as.is_subtype_of(var->data_type.to_node_id(), node_id(0, number_type));
  if (f->deadband_type == static_cast<std::uint32_t>(deadband_type::absolute)) {
    // §7.22.2: the AbsoluteDeadband applies only to Variables of a Number DataType.
    if (!numeric) return status::bad_filter_not_allowed;
    out.deadband = true;
    out.deadband_abs = f->deadband_value;
    return status::good;
  }
  // Part 8 §6.2 and its PercentDeadband result codes: outside 0..100, or no EURange to take the
  // percentage of, is Bad_DeadbandFilterInvalid, whatever the DataType (an enumeration too).
  if (f->deadband_value > 100) return status::bad_deadband_filter_invalid;
  const ua::range* r = eu_range(as, n);
  if (!r) return status::bad_deadband_filter_invalid;
  // An EURange on a non-Number: the deadband is computed on numbers only (§7.22.2).
  if (!numeric) return status::bad_filter_not_allowed;
  out.deadband = true;
  out.deadband_abs = f->deadband_value / 100.0 * std::fabs(r->high - r->low);
  return status::good;
}

}  // namespace

// §7.22.3: an item on the EventNotifier attribute takes an EventFilter, compiled into `out`; its
// EventFilterResult goes back in `filter_result` (when the filter got that far).
status_code subscription_manager::compile_event_filter(const extension_object& filter, const address_space& as,
                                                       node_index n, std::unique_ptr<event_filter_program>& out,
                                                       extension_object& filter_result) {
  // Part 3 §5.5.1: bit 0 of EventNotifier is SubscribeToEvents.
  if ((as.at(n).event_notifier & 1) == 0) return status::bad_not_supported;
  if (filter.empty()) return status::bad_event_filter_invalid;
  const auto* f = filter.get_if<event_filter>();
  if (!f) {
    if (filter.get_if<data_change_filter>() || filter.get_if<aggregate_filter>()) return status::bad_filter_not_allowed;
    return status::bad_monitored_item_filter_invalid;
  }
  out = std::make_unique<event_filter_program>();
  auto& result = filter_result.emplace<event_filter_result>();
  return out->compile(*f, as, catalogue_, limits_.event_filters, result);
}

// §5.12.3 for an event queue: the newest `size` stay (discard oldest) or the oldest; the overflow
// event stands for what went. Not a hot path.
void subscription_manager::resize_event_queue(item& it, std::uint32_t size) {
  std::vector<event_field_list> q;
  const std::size_t n = it.count;
  const std::size_t keep = std::min<std::size_t>(n, size);
  const std::size_t first = it.discard_oldest ? n - keep : 0;
  q.reserve(keep);
  for (std::size_t k = first; k < first + keep; ++k) q.push_back(std::move(it.event_queue[(it.head + k) % it.queue_size]));
  if (keep < n) it.overflow = true;
  it.event_queue = std::move(q);
  it.head = 0;
  it.count = keep;
  it.queue_size = size;
}

void subscription_manager::create_monitored_items(std::uint32_t session, const create_monitored_items_request& req,
                                                  create_monitored_items_response& resp, address_space& as,
                                                  const instant& now, const services::node_access& access) {
  resp.response_header.service_result = status::good;
  resp.diagnostic_infos.clear();
  resp.results.clear();
  subscription* s = find_subscription(session, req.subscription_id);
  if (!s) { resp.response_header.service_result = status::bad_subscription_id_invalid; return; }
  if (static_cast<std::uint32_t>(req.timestamps_to_return) > 3) {
    resp.response_header.service_result = status::bad_timestamps_to_return_invalid;
    return;
  }
  if (const auto sc = check_operation_count(req.items_to_create.size()); sc.is_bad()) {
    resp.response_header.service_result = sc;
    return;
  }
  resp.results.resize(req.items_to_create.size());
  if (watchers_.size() < as.size()) watchers_.resize(as.size());
  for (std::size_t i = 0; i < req.items_to_create.size(); ++i) {
    const auto& c = req.items_to_create[i];
    auto& r = resp.results[i];
    r.monitored_item_id = 0;
    r.revised_sampling_interval = 0;
    r.revised_queue_size = 0;
    r.filter_result.clear();
    const node_index n = as.find(c.item_to_monitor.node_id);
    if (n == no_node) { r.status_code = status::bad_node_id_unknown; continue; }
    const std::uint32_t attr = c.item_to_monitor.attribute_id;
    if (!access.may(n, permission_to_monitor(attr))) { r.status_code = status::bad_user_access_denied; continue; }
    if (const status_code sc = as.read(n, static_cast<attribute_id>(attr), attribute_); sc.is_bad()) {
      r.status_code = sc;
      continue;
    }
    const auto range = services::parse_numeric_range(c.item_to_monitor.index_range.view());
    if (!range) { r.status_code = status::bad_index_range_invalid; continue; }
    if (!c.item_to_monitor.data_encoding.name.is_null() && !c.item_to_monitor.data_encoding.name.empty()) {
      r.status_code = status::bad_data_encoding_unsupported;
      continue;
    }
    if (static_cast<std::uint32_t>(c.monitoring_mode) > 2) { r.status_code = status::bad_monitoring_mode_invalid; continue; }
    filter_settings filter;
    std::unique_ptr<event_filter_program> program;
    const bool events = attr == event_notifier_attribute;
    if (events) {
      if (const status_code sc = compile_event_filter(c.requested_parameters.filter, as, n, program, r.filter_result);
          sc.is_bad()) {
        r.status_code = sc;
        continue;
      }
    } else if (const status_code sc = parse_filter(c.requested_parameters.filter, as, n, attr, filter); sc.is_bad()) {
      r.status_code = sc;
      continue;
    }
    if (s->items.size() >= limits_.max_monitored_items_per_subscription || item_count_ >= limits_.max_monitored_items) {
      r.status_code = status::bad_too_many_monitored_items;
      continue;
    }
    auto owned = std::make_unique<item>();
    item& it = *owned;
    it.id = next_item_id_++;
    if (next_item_id_ == 0) next_item_id_ = 1;
    it.sub = s;
    it.node = n;
    it.attribute = attr;
    it.range = *range;
    it.timestamps = req.timestamps_to_return;
    it.client_handle = c.requested_parameters.client_handle;
    it.mode = c.monitoring_mode;
    it.discard_oldest = c.requested_parameters.discard_oldest;
    it.trigger = filter.trigger;
    it.deadband = filter.deadband;
    it.deadband_abs = filter.deadband_abs;
    // §7.21: 0 is the fastest practical rate (every change here), negative or NaN the publishing
    // interval; a positive one at least what the server and the node's MinimumSamplingInterval allow.
    double sampling = c.requested_parameters.sampling_interval;
    if (!(sampling >= 0)) sampling = s->interval_ms;
    if (sampling > 0) sampling = std::clamp(sampling, limits_.min_sampling_interval_ms, limits_.max_sampling_interval_ms);
    if (const variable_data* var = as.variable(n); var && attr == value_attribute &&
                                                   var->minimum_sampling_interval > sampling)
      sampling = std::min(var->minimum_sampling_interval, limits_.max_sampling_interval_ms);
    it.sampling_ms = events ? 0 : sampling;  // events are not sampled: each one is reported
    it.next_sample = after_ms(now.steady, sampling);
    it.queue_size = std::clamp<std::uint32_t>(c.requested_parameters.queue_size, 1, limits_.max_queue_size);
    // Part 4 §5.12.1.5: an event queue of 0 is the server's default (its largest).
    if (events && c.requested_parameters.queue_size == 0) it.queue_size = limits_.max_queue_size;
    it.sub_pos = s->items.size();
    s->items.push_back(&it);
    if (events) {
      it.events = true;
      it.filter = std::move(program);
      if (event_watchers_.size() < as.size()) event_watchers_.resize(as.size());
      auto& w = event_watchers_[n];
      it.event_watch_pos = w.size();
      w.push_back(&it);
      ++event_item_count_;
    } else if (attr == value_attribute) {
      as.set_monitored(n, true);
      auto& w = watchers_[n];
      it.watch_pos = w.size();
      it.watching = true;
      w.push_back(&it);
    }
    items_.emplace(it.id, std::move(owned));
    ++item_count_;
    r.status_code = status::good;
    r.monitored_item_id = it.id;
    r.revised_sampling_interval = it.sampling_ms;
    r.revised_queue_size = it.queue_size;
    // §5.12.1.2: the first sample is the current value (an event item has none).
    if (it.mode != monitoring_mode::disabled && !events)
      sample(it, attr == value_attribute ? as.variable(n)->value : attribute_);
  }
}

void subscription_manager::modify_monitored_items(std::uint32_t session, const modify_monitored_items_request& req,
                                                  modify_monitored_items_response& resp, const address_space& as,
                                                  const instant& now, const services::node_access& access) {
  resp.response_header.service_result = status::good;
  resp.diagnostic_infos.clear();
  resp.results.clear();
  subscription* s = find_subscription(session, req.subscription_id);
  if (!s) { resp.response_header.service_result = status::bad_subscription_id_invalid; return; }
  if (static_cast<std::uint32_t>(req.timestamps_to_return) > 3) {
    resp.response_header.service_result = status::bad_timestamps_to_return_invalid;
    return;
  }
  if (const auto sc = check_operation_count(req.items_to_modify.size()); sc.is_bad()) {
    resp.response_header.service_result = sc;
    return;
  }
  resp.results.resize(req.items_to_modify.size());
  for (std::size_t i = 0; i < req.items_to_modify.size(); ++i) {
    const auto& m = req.items_to_modify[i];
    auto& r = resp.results[i];
    r.filter_result.clear();
    r.revised_sampling_interval = 0;
    r.revised_queue_size = 0;
    const auto found = items_.find(m.monitored_item_id);
    if (found == items_.end() || found->second->sub != s) { r.status_code = status::bad_monitored_item_id_invalid; continue; }
    item& it = *found->second;
    if (!access.may(it.node, permission_to_monitor(it.attribute))) { r.status_code = status::bad_user_access_denied; continue; }
    filter_settings filter;
    if (it.events) {
      // A filter that does not compile leaves the item as it was.
      std::unique_ptr<event_filter_program> program;
      if (const status_code sc = compile_event_filter(m.requested_parameters.filter, as, it.node, program, r.filter_result);
          sc.is_bad()) {
        r.status_code = sc;
        continue;
      }
      it.filter = std::move(program);
    } else if (const status_code sc = parse_filter(m.requested_parameters.filter, as, it.node, it.attribute, filter);
               sc.is_bad()) {
      r.status_code = sc;
      continue;
    }
    it.trigger = filter.trigger;
    it.deadband = filter.deadband;
    it.deadband_abs = filter.deadband_abs;
    it.timestamps = req.timestamps_to_return;
    it.client_handle = m.requested_parameters.client_handle;
    it.discard_oldest = m.requested_parameters.discard_oldest;
    double sampling = m.requested_parameters.sampling_interval;
    if (!(sampling >= 0)) sampling = s->interval_ms;
    if (sampling > 0) sampling = std::clamp(sampling, limits_.min_sampling_interval_ms, limits_.max_sampling_interval_ms);
    if (const variable_data* var = as.variable(it.node); var && it.attribute == value_attribute &&
                                                       var->minimum_sampling_interval > sampling)
      sampling = std::min(var->minimum_sampling_interval, limits_.max_sampling_interval_ms);
    it.sampling_ms = it.events ? 0 : sampling;
    it.next_sample = after_ms(now.steady, sampling);
    std::uint32_t size = std::clamp<std::uint32_t>(m.requested_parameters.queue_size, 1, limits_.max_queue_size);
    if (it.events && m.requested_parameters.queue_size == 0) size = limits_.max_queue_size;
    if (size != it.queue_size) {
      if (it.events) resize_event_queue(it, size);
      else resize_queue(it, size);
    }
    r.status_code = status::good;
    r.revised_sampling_interval = it.sampling_ms;
    r.revised_queue_size = it.queue_size;
  }
}

void subscription_manager::set_monitoring_mode(std::uint32_t session, const set_monitoring_mode_request& req,
                                               set_monitoring_mode_response& resp, const address_space& as,
                                               const instant& now) {
  resp.response_header.service_result = status::good;
  resp.diagnostic_infos.clear();
  resp.results.clear();
  subscription* s = find_subscription(session, req.subscription_id);
  if (!s) { resp.response_header.service_result = status::bad_subscription_id_invalid; return; }
  if (static_cast<std::uint32_t>(req.monitoring_mode) > 2) {
    resp.response_header.service_result = status::bad_monitoring_mode_invalid;
    return;
  }
  if (const auto sc = check_operation_count(req.monitored_item_ids.size()); sc.is_bad()) {
    resp.response_header.service_result = sc;
    return;
  }
  resp.results.resize(req.monitored_item_ids.size());
  for (std::size_t i = 0; i < req.monitored_item_ids.size(); ++i) {
    const auto found = items_.find(req.monitored_item_ids[i]);
    if (found == items_.end() || found->second->sub != s) {
      resp.results[i] = status::bad_monitored_item_id_invalid;
      continue;
    }
    item& it = *found->second;
    resp.results[i] = status::good;
    const monitoring_mode old = it.mode;
    it.mode = req.monitoring_mode;
    if (old == it.mode) continue;
    if (it.mode == monitoring_mode::disabled) {
      // §5.12.1.3: disabled means no sampling and no queue.
      it.head = it.count = 0;
      it.overflow = false;
      it.has_last = false;
      if (it.in_ready) { std::erase(s->ready, &it); it.in_ready = it.triggered = false; }
      if (it.pending) { std::erase(s->pending, &it); it.pending = false; }
    } else if (old == monitoring_mode::disabled) {
      it.next_sample = after_ms(now.steady, it.sampling_ms);
      if (it.events) {
        // Events are not sampled: the item sees the next one.
      } else if (it.attribute == value_attribute) {
        sample(it, as.variable(it.node)->value);
      } else if (as.read(it.node, static_cast<attribute_id>(it.attribute), attribute_).is_good()) {
        sample(it, attribute_);
      }
    } else if (it.mode == monitoring_mode::reporting) {
      if (it.waiting() > 0) mark_ready(it, false);
    } else if (it.in_ready && !it.triggered) {  // reporting -> sampling
      std::erase(s->ready, &it);
      it.in_ready = false;
    }
  }
}

// §5.12.5: removes before adds; a link to an unknown item is Bad_MonitoredItemIdInvalid.
void subscription_manager::set_triggering(std::uint32_t session, const set_triggering_request& req,
                                          set_triggering_response& resp) {
  resp.response_header.service_result = status::good;
  resp.add_results.clear();
  resp.remove_results.clear();
  resp.add_diagnostic_infos.clear();
  resp.remove_diagnostic_infos.clear();
  subscription* s = find_subscription(session, req.subscription_id);
  if (!s) { resp.response_header.service_result = status::bad_subscription_id_invalid; return; }
  if (req.links_to_add.empty() && req.links_to_remove.empty()) {
    resp.response_header.service_result = status::bad_nothing_to_do;
    return;
  }
  if (req.links_to_add.size() > limits_.max_operations_per_call ||
      req.links_to_remove.size() > limits_.max_operations_per_call) {
    resp.response_header.service_result = status::bad_too_many_operations;
    return;
  }
  const auto found = items_.find(req.triggering_item_id);
  if (found == items_.end() || found->second->sub != s) {
    resp.response_header.service_result = status::bad_monitored_item_id_invalid;
    return;
  }
  item& trigger = *found->second;
  // §5.12.6: the links to a deleted item went with it (dropped here, not on every delete).
  std::erase_if(trigger.links, [&](std::uint32_t id) {
    const auto linked = items_.find(id);
    return linked == items_.end() || linked->second->sub != s;
  });
  resp.remove_results.resize(req.links_to_remove.size());
  for (std::size_t i = 0; i < req.links_to_remove.size(); ++i) {
    const auto pos = std::find(trigger.links.begin(), trigger.links.end(), req.links_to_remove[i]);
    if (pos == trigger.links.end()) { resp.remove_results[i] = status::bad_monitored_item_id_invalid; continue; }
    trigger.links.erase(pos);
    resp.remove_results[i] = status::good;
  }
  resp.add_results.resize(req.links_to_add.size());
  for (std::size_t i = 0; i < req.links_to_add.size(); ++i) {
    const std::uint32_t id = req.links_to_add[i];
    const auto linked = items_.find(id);
    if (linked == items_.end() || linked->second->sub != s) {
      resp.add_results[i] = status::bad_monitored_item_id_invalid;
      continue;
    }
    if (std::find(trigger.links.begin(), trigger.links.end(), id) == trigger.links.end()) {
      if (trigger.links.size() >= limits_.max_operations_per_call) {
        resp.add_results[i] = status::bad_too_many_operations;
        continue;
      }
      trigger.links.push_back(id);
    }
    resp.add_results[i] = status::good;
  }
}

void subscription_manager::delete_monitored_items(std::uint32_t session, const delete_monitored_items_request& req,
                                                  delete_monitored_items_response& resp) {
  resp.response_header.service_result = status::good;
  resp.diagnostic_infos.clear();
  resp.results.clear();
  subscription* s = find_subscription(session, req.subscription_id);
  if (!s) { resp.response_header.service_result = status::bad_subscription_id_invalid; return; }
  if (const auto sc = check_operation_count(req.monitored_item_ids.size()); sc.is_bad()) {
    resp.response_header.service_result = sc;
    return;
  }
  resp.results.resize(req.monitored_item_ids.size());
  for (std::size_t i = 0; i < req.monitored_item_ids.size(); ++i) {
    const auto found = items_.find(req.monitored_item_ids[i]);
    if (found == items_.end() || found->second->sub != s) {
      resp.results[i] = status::bad_monitored_item_id_invalid;
      continue;
    }
    delete_item(*found->second);
    resp.results[i] = status::good;
  }
}

void subscription_manager::delete_item(item& it) {
  subscription& s = *it.sub;
  if (it.watching) {
    auto& w = watchers_[it.node];
    w[it.watch_pos] = w.back();
    w[it.watch_pos]->watch_pos = it.watch_pos;
    w.pop_back();
  }
  if (it.events) {
    auto& w = event_watchers_[it.node];
    w[it.event_watch_pos] = w.back();
    w[it.event_watch_pos]->event_watch_pos = it.event_watch_pos;
    w.pop_back();
    --event_item_count_;
  }
  s.items[it.sub_pos] = s.items.back();
  s.items[it.sub_pos]->sub_pos = it.sub_pos;
  s.items.pop_back();
  if (it.in_ready) std::erase(s.ready, &it);
  if (it.pending) std::erase(s.pending, &it);
  --item_count_;
  items_.erase(it.id);  // frees `it`
}

// ---------------------------------------------------------------------------------------------
// Sampling and the queues

void subscription_manager::value_changed(node_index n, const data_value& value) {
  if (n >= watchers_.size()) return;
  for (item* it : watchers_[n]) {
    if (it->mode == monitoring_mode::disabled) continue;
    if (it->sampling_ms == 0) {
      sample(*it, value);
    } else if (!it->pending) {
      it->pending = true;
      it->sub->pending.push_back(it);
    }
  }
}

// One sample of an item: through the filter (§7.22.2), into the queue (§5.12.1.5), reported when
// the item reports, and its triggered items with it (§5.12.1.6).
void subscription_manager::sample(item& it, const data_value& in) {
  const data_value* v = &in;
  if (!it.range.empty()) {
    scratch_ = in;
    if (const status_code sc = services::apply_numeric_range(scratch_.value, it.range); sc.is_bad()) {
      scratch_.value.clear();
      scratch_.status = sc;
      scratch_.has_status = true;
    }
    v = &scratch_;
  }
  if (it.has_last) {
    const data_value& last = it.last;
    bool changed = v->status != last.status || v->has_status != last.has_status;
    if (!changed && it.trigger != data_change_trigger::status) {
      changed = it.deadband ? exceeds_deadband(last.value, v->value, it.deadband_abs) : !(last.value == v->value);
      if (!changed && it.trigger == data_change_trigger::status_value_timestamp)
        changed = v->source_timestamp != last.source_timestamp || v->source_picoseconds != last.source_picoseconds;
    }
    if (!changed) return;
  }
  it.last = *v;
  it.has_last = true;
  enqueue(it, *v);
  for (const std::uint32_t id : it.links) {
    const auto linked = items_.find(id);
    if (linked == items_.end() || linked->second->sub != it.sub) continue;  // deleted since
    item& l = *linked->second;
    if (l.mode == monitoring_mode::sampling && l.count > 0) mark_ready(l, true);
  }
}

// A value that passed the filter into the item's queue (§5.12.1.5), reported when the item reports.
// The queue: a ring growing to queue_size. Full: discard the oldest (the next one gets the
// Overflow bit) or replace the newest (which gets it); a queue of one just keeps the newest.
void subscription_manager::enqueue(item& it, const data_value& value) {
  const data_value* v = &value;
  const std::size_t cap = it.queue_size;
  if (it.count < cap) {
    const std::size_t at = (it.head + it.count) % cap;
    if (at == it.queue.size()) it.queue.push_back(*v);
    else it.queue[at] = *v;
    ++it.count;
  } else if (cap == 1) {
    it.queue[it.head] = *v;
  } else if (it.discard_oldest) {
    it.head = (it.head + 1) % cap;
    set_overflow(it.queue[it.head]);
    it.queue[(it.head + it.count - 1) % cap] = *v;
  } else {
    data_value& newest = it.queue[(it.head + it.count - 1) % cap];
    newest = *v;
    set_overflow(newest);
  }

  if (it.mode == monitoring_mode::reporting) mark_ready(it, false);
}

void subscription_manager::mark_ready(item& it, bool triggered) {
  it.triggered = it.triggered || triggered;
  if (it.in_ready) return;
  it.in_ready = true;
  it.sub->ready.push_back(&it);
}

}  // namespace uactor::actors
