// Part 9 alarms: the state machine of §5.5 (ConditionType), §5.7 (AcknowledgeableConditionType),
// §5.8 (AlarmConditionType; ExclusiveLimitAlarmType §5.8.18, NonExclusiveLimitAlarmType §5.8.20,
// DiscreteAlarmType §5.8.24.1, OffNormalAlarmType §5.8.24.2), their methods and events. Every kind
// shares the state, the methods and the events; only what makes it active (and the fields of its
// type) differs.
// docs/decisions/0018.
#include "engine/server/subscriptions/conditions.hpp"

#include <cmath>

#include "engine/server/secure_channel_state.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors {

using namespace uactor::ua;

namespace {

using ua::ids::exclusive_limit_alarm_type;
using ua::ids::non_exclusive_limit_alarm_type;
using ua::ids::off_normal_alarm_type;
using ua::ids::discrete_alarm_type;
using ua::ids::refresh_start_event_type;
using ua::ids::refresh_end_event_type;
using ua::ids::base_condition_class_type;
using ua::ids::has_condition;
using ua::ids::has_type_definition;
// The Part 9 methods (ns=0).
constexpr std::uint32_t m_enable = 9027, m_disable = 9028, m_add_comment = 9029, m_refresh = 3875, m_refresh2 = 12912,
                        m_acknowledge = 9111, m_confirm = 9113;
// ExclusiveLimitStateMachineType's states (Part 9 §5.8.12).
constexpr std::uint32_t state_high_high = 9329, state_high = 9331, state_low = 9333, state_low_low = 9335;

enum class limit : std::uint8_t { none, low_low, low, high, high_high };

const char* limit_name(limit l) {
  switch (l) {
    case limit::high_high: return "HighHigh";
    case limit::high: return "High";
    case limit::low: return "Low";
    case limit::low_low: return "LowLow";
    default: return "";
  }
}

std::uint32_t limit_state_id(limit l) {
  switch (l) {
    case limit::high_high: return state_high_high;
    case limit::high: return state_high;
    case limit::low: return state_low;
    case limit::low_low: return state_low_low;
    default: return 0;
  }
}

bool number_of(const variant& v, double& out) {
  return std::visit(
      [&](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
          out = static_cast<double>(x);
          return true;
        } else {
          return false;
        }
      },
      v.value());
}

// A non-exclusive limit alarm's active states: one bit per limit.
constexpr std::uint8_t bit(limit l) { return static_cast<std::uint8_t>(1u << static_cast<unsigned>(l)); }
constexpr std::array<limit, 4> most_severe_first{limit::high_high, limit::low_low, limit::high, limit::low};

// An off-normal or discrete alarm's input and reference value: Booleans as 0 and 1, numbers as they are.
bool discrete_of(const variant& v, double& out) {
  if (const bool* b = v.get_if<bool>()) {
    out = *b ? 1 : 0;
    return true;
  }
  return number_of(v, out);
}

void text(variant& v, const char* s) {
  auto& t = v.emplace<localized_text>();
  t.locale.assign("en");
  t.text.assign(s);
}

}  // namespace

enum class alarm_kind : std::uint8_t { exclusive_limit, non_exclusive_limit, off_normal, discrete };

struct condition_manager::alarm {
  alarm_kind kind = alarm_kind::exclusive_limit;
  std::uint32_t type_id = exclusive_limit_alarm_type;
  node_index node = no_node;
  node_index input = no_node;
  node_index type_node = no_node;  // the alarm's type (ExclusiveLimitAlarmType, ...), for OfType
  node_id id;
  node_id input_id;
  std::string name;
  std::string source_name;
  std::optional<double> hh, h, l, ll;
  double deadband = 0;
  std::uint16_t sev_hh = 900, sev_h = 700, sev_l = 700, sev_ll = 900;
  limit state = limit::none;  // exclusive: the one limit state
  std::uint8_t states = 0;    // non-exclusive: the active limit states, bit(limit) each
  // Off-normal: the normal value; discrete: the alarm value (a Boolean as 0 or 1).
  double reference = 0;
  bool tripped = false;  // off-normal: the value is not the normal one; discrete: it is the alarm value
  std::uint16_t sev_tripped = 500;
  bool enabled = true;
  bool acked = true;
  bool confirmed = true;
  status_code quality;
  std::uint16_t severity = 1;
  std::uint16_t last_severity = 1;
  localized_text comment;
  ua_string user;
  std::string message;
  date_time time;
  event_record ev;  // the last event, kept for ConditionRefresh (its EventId too)

  bool two_state() const noexcept { return kind == alarm_kind::off_normal || kind == alarm_kind::discrete; }
  bool active() const noexcept {
    switch (kind) {
      case alarm_kind::exclusive_limit: return state != limit::none;
      case alarm_kind::non_exclusive_limit: return states != 0;
      default: return tripped;
    }
  }
  // Part 9 §5.5.2: Retain while the condition is of interest to a client.
  bool retain() const noexcept { return enabled && (active() || !acked || !confirmed); }
};

condition_manager::condition_manager(field_catalogue& f) {
  k_.condition_name = f.intern("ConditionName");
  k_.condition_class_id = f.intern("ConditionClassId");
  k_.condition_class_name = f.intern("ConditionClassName");
  k_.branch_id = f.intern("BranchId");
  k_.retain = f.intern("Retain");
  k_.enabled_state = f.intern("EnabledState");
  k_.enabled_state_id = f.intern("EnabledState/Id");
  k_.quality = f.intern("Quality");
  k_.last_severity = f.intern("LastSeverity");
  k_.comment = f.intern("Comment");
  k_.client_user_id = f.intern("ClientUserId");
  k_.acked_state = f.intern("AckedState");
  k_.acked_state_id = f.intern("AckedState/Id");
  k_.confirmed_state = f.intern("ConfirmedState");
  k_.confirmed_state_id = f.intern("ConfirmedState/Id");
  k_.active_state = f.intern("ActiveState");
  k_.active_state_id = f.intern("ActiveState/Id");
  k_.input_node = f.intern("InputNode");
  k_.high_high_limit = f.intern("HighHighLimit");
  k_.high_limit = f.intern("HighLimit");
  k_.low_limit = f.intern("LowLimit");
  k_.low_low_limit = f.intern("LowLowLimit");
  k_.limit_state = f.intern("LimitState");
  k_.limit_state_current = f.intern("LimitState/CurrentState");
  k_.limit_state_current_id = f.intern("LimitState/CurrentState/Id");
  k_.normal_state = f.intern("NormalState");
  for (const limit l : {limit::low_low, limit::low, limit::high, limit::high_high}) {
    const std::string state = std::string(limit_name(l)) + "State";
    k_.limit_states[static_cast<std::size_t>(l) - 1] = f.intern(state);
    k_.limit_state_ids[static_cast<std::size_t>(l) - 1] = f.intern(state + "/Id");
  }
}

condition_manager::~condition_manager() = default;

bool condition_manager::active(std::size_t i) const noexcept { return alarms_[i]->active(); }
bool condition_manager::acked(std::size_t i) const noexcept { return alarms_[i]->acked; }
bool condition_manager::confirmed(std::size_t i) const noexcept { return alarms_[i]->confirmed; }
bool condition_manager::retain(std::size_t i) const noexcept { return alarms_[i]->retain(); }
const byte_string& condition_manager::last_event_id(std::size_t i) const noexcept {
  static const byte_string none;
  const variant* v = alarms_[i]->ev.find(field::event_id);
  const byte_string* b = v ? v->get_if<byte_string>() : nullptr;
  return b ? *b : none;
}

status_code condition_manager::check_new(const node_id& id, const std::string& name, const node_id& input_id,
                                         const address_space& as, node_index& input) noexcept {
  if (id.is_null() || name.empty()) return status::bad_invalid_argument;
  if (as.find(id) != no_node) return status::bad_node_id_exists;
  input = as.find(input_id);
  if (input == no_node) return status::bad_node_id_unknown;
  if (as.at(input).cls != node_class::variable) return status::bad_node_class_invalid;
  return status::good;
}

status_code condition_manager::add(const limit_alarm& a, address_space& as, event_sink& sink, const instant& now) {
  node_index input = no_node;
  if (const status_code sc = check_new(a.id, a.name, a.input, as, input); sc.is_bad()) return sc;
  if (!a.high_high && !a.high && !a.low && !a.low_low) return status::bad_invalid_argument;
  if (!(a.deadband >= 0) || std::isinf(a.deadband)) return status::bad_invalid_argument;
  // The limits in order, each one finite.
  double last = -INFINITY;
  for (const auto& lim : {a.low_low, a.low, a.high, a.high_high}) {
    if (!lim) continue;
    if (!std::isfinite(*lim) || *lim < last) return status::bad_invalid_argument;
    last = *lim;
  }
  if (a.low && a.high && !(*a.low < *a.high)) return status::bad_invalid_argument;

  auto al = std::make_unique<alarm>();
  al->id = a.id;
  al->input = input;
  al->input_id = a.input;
  al->name = a.name;
  al->hh = a.high_high;
  al->h = a.high;
  al->l = a.low;
  al->ll = a.low_low;
  al->deadband = a.deadband;
  al->sev_hh = a.severity_high_high;
  al->sev_h = a.severity_high;
  al->sev_l = a.severity_low;
  al->sev_ll = a.severity_low_low;
  al->enabled = a.enabled;
  if (!a.exclusive) {
    al->kind = alarm_kind::non_exclusive_limit;
    al->type_id = non_exclusive_limit_alarm_type;
  }
  return insert(std::move(al), as, sink, now);
}

status_code condition_manager::add_two_state(std::unique_ptr<alarm> al, const variant& reference, address_space& as,
                                             event_sink& sink, const instant& now) {
  if (const status_code sc = check_new(al->id, al->name, al->input_id, as, al->input); sc.is_bad()) return sc;
  if (reference.is_array() || !discrete_of(reference, al->reference) || std::isnan(al->reference))
    return status::bad_invalid_argument;
  return insert(std::move(al), as, sink, now);
}

status_code condition_manager::add(const off_normal_alarm& a, address_space& as, event_sink& sink, const instant& now) {
  auto al = std::make_unique<alarm>();
  al->kind = alarm_kind::off_normal;
  al->type_id = off_normal_alarm_type;
  al->id = a.id;
  al->input_id = a.input;
  al->name = a.name;
  al->sev_tripped = a.severity;
  al->enabled = a.enabled;
  return add_two_state(std::move(al), a.normal, as, sink, now);
}

status_code condition_manager::add(const discrete_alarm& a, address_space& as, event_sink& sink, const instant& now) {
  auto al = std::make_unique<alarm>();
  al->kind = alarm_kind::discrete;
  al->type_id = discrete_alarm_type;
  al->id = a.id;
  al->input_id = a.input;
  al->name = a.name;
  al->sev_tripped = a.severity;
  al->enabled = a.enabled;
  return add_two_state(std::move(al), a.active, as, sink, now);
}

status_code condition_manager::insert(std::unique_ptr<alarm> owned, address_space& as, event_sink& sink,
                                      const instant& now) {
  alarm& al = *owned;
  node_spec spec;
  spec.id = al.id;
  spec.cls = node_class::object;
  spec.browse_ns = al.id.namespace_index();
  spec.browse_name = al.name;
  const auto added = as.add_node(std::move(spec));
  if (!added) return added.error();
  al.node = *added;
  al.type_node = as.find(node_id(0, al.type_id));
  as.add_reference(*added, as.find(node_id(0, has_type_definition)), al.type_node);
  as.add_reference(al.input, as.find(node_id(0, has_condition)), *added);
  as.set_monitored(al.input, true);
  al.source_name = std::string(as.at(al.input).browse_name);
  al.time = now.utc;
  al.message = al.name + " normal";
  const auto index = static_cast<std::uint32_t>(alarms_.size());
  const node_index input = al.input;
  alarms_.push_back(std::move(owned));
  if (by_input_.size() <= input) by_input_.resize(input + 1);
  by_input_[input].push_back(index);
  emit(al, sink, now);  // its first state, so that ConditionRefresh has an EventId to send
  const variable_data* var = as.variable(input);
  double v = 0;
  const bool usable = var && (al.two_state() ? discrete_of(var->value.value, v) : number_of(var->value.value, v));
  if (usable) evaluate(al, v, var->value.status, sink, now);
  return status::good;
}

void condition_manager::value_changed(node_index n, const data_value& v) {
  if (n >= by_input_.size()) return;
  for (const std::uint32_t a : by_input_[n]) {
    noted x{a, 0, false, v.status};
    x.numeric = alarms_[a]->two_state() ? discrete_of(v.value, x.value) : number_of(v.value, x.value);
    pending_.push_back(x);
  }
}

void condition_manager::process(event_sink& sink, const instant& now) {
  // Evaluating raises events, which reach no value observer: nothing is added meanwhile, but
  // swapping keeps that safe should it change.
  std::swap(pending_, processing_);
  for (const noted& x : processing_) {
    alarm& a = *alarms_[x.alarm];
    if (x.numeric) evaluate(a, x.value, x.quality, sink, now);
  }
  processing_.clear();
}

namespace {

// §5.8.18: the most severe limit passed; a state is left only when the value is back by more than
// the deadband (hysteresis), so a value hovering at a limit does not flap.
template <class Alarm>
limit next_limit(const Alarm& a, double v) {
  const auto above = [&](const std::optional<double>& lim, limit s) {
    if (!lim) return false;
    const bool in = a.state >= s && a.state >= limit::high;
    return in ? v > *lim - a.deadband : v > *lim;
  };
  const auto below = [&](const std::optional<double>& lim, limit s) {
    if (!lim) return false;
    const bool in = a.state <= s && a.state != limit::none && a.state <= limit::low;
    return in ? v < *lim + a.deadband : v < *lim;
  };
  if (above(a.hh, limit::high_high)) return limit::high_high;
  if (above(a.h, limit::high)) return limit::high;
  if (below(a.ll, limit::low_low)) return limit::low_low;
  if (below(a.l, limit::low)) return limit::low;
  return limit::none;
}

// §5.8.20: each limit a state of its own, with the same hysteresis; a value above HighHigh is above
// High too, so both are active.
template <class Alarm>
std::uint8_t next_states(const Alarm& a, double v) {
  std::uint8_t out = 0;
  const auto above = [&](const std::optional<double>& lim, limit s) {
    if (lim && ((a.states & bit(s)) ? v > *lim - a.deadband : v > *lim)) out |= bit(s);
  };
  const auto below = [&](const std::optional<double>& lim, limit s) {
    if (lim && ((a.states & bit(s)) ? v < *lim + a.deadband : v < *lim)) out |= bit(s);
  };
  above(a.hh, limit::high_high);
  above(a.h, limit::high);
  below(a.l, limit::low);
  below(a.ll, limit::low_low);
  return out;
}

}  // namespace

void condition_manager::evaluate(alarm& a, double v, status_code quality, event_sink& sink, const instant& now) {
  if (std::isnan(v)) return;
  bool changed = false;
  bool new_occurrence = false;  // §5.7.2: a state to acknowledge (and then confirm) began
  switch (a.kind) {
    case alarm_kind::off_normal:
    case alarm_kind::discrete: {
      // §5.8.24.2: active while the input's value is not the normal one; §5.8.24.1: a discrete
      // alarm while it is the alarm value.
      const bool on = a.kind == alarm_kind::off_normal ? v != a.reference : v == a.reference;
      changed = on != a.tripped;
      a.tripped = on;
      new_occurrence = changed && on;
      break;
    }
    case alarm_kind::exclusive_limit: {
      const limit next = next_limit(a, v);
      changed = next != a.state;
      a.state = next;
      new_occurrence = changed && next != limit::none;  // HighHigh back to High is a new state too
      break;
    }
    case alarm_kind::non_exclusive_limit: {
      const std::uint8_t next = next_states(a, v);
      changed = next != a.states;
      new_occurrence = (next & ~a.states) != 0;  // a state that was not active is
      a.states = next;
      break;
    }
  }
  const bool quality_changed = quality != a.quality;
  a.quality = quality;
  if (!changed && !quality_changed) return;
  if (changed) {
    a.last_severity = a.severity;
    const auto severity_of = [&](limit l) {
      switch (l) {
        case limit::high_high: return a.sev_hh;
        case limit::high: return a.sev_h;
        case limit::low: return a.sev_l;
        case limit::low_low: return a.sev_ll;
        default: return std::uint16_t{1};
      }
    };
    a.message.assign(a.name);  // in place: the string keeps its storage
    a.message += ' ';
    switch (a.kind) {
      case alarm_kind::off_normal:
      case alarm_kind::discrete:
        a.severity = a.tripped ? a.sev_tripped : std::uint16_t{1};
        a.message += a.kind == alarm_kind::discrete ? (a.tripped ? "active" : "normal")
                                                    : (a.tripped ? "off normal" : "normal");
        break;
      case alarm_kind::exclusive_limit:
        a.severity = severity_of(a.state);
        a.message += a.state == limit::none ? "normal" : limit_name(a.state);
        break;
      case alarm_kind::non_exclusive_limit: {
        // The most severe active state decides; the message names every active one.
        a.severity = 1;
        bool first = true;
        for (const limit l : most_severe_first) {
          if (!(a.states & bit(l))) continue;
          a.severity = std::max(a.severity, severity_of(l));
          if (!first) a.message += ", ";
          a.message += limit_name(l);
          first = false;
        }
        if (first) a.message += "normal";
        break;
      }
    }
    if (new_occurrence) {
      a.acked = false;
      a.confirmed = true;
    }
  }
  a.time = now.utc;
  if (a.enabled) emit(a, sink, now);
}

// The condition's event with every field of its type (ExclusiveLimitAlarmType,
// NonExclusiveLimitAlarmType, OffNormalAlarmType, DiscreteAlarmType) a client may select.
void condition_manager::emit(alarm& a, event_sink& sink, const instant& now, std::uint32_t only_subscription,
                             std::uint32_t only_item, bool new_event_id) {
  event_record& e = a.ev;
  e.type = a.type_node;
  e.source = a.input;
  if (new_event_id) sink.next_event_id(e.set(field::event_id).emplace<byte_string>());
  e.set(field::event_type) = node_id(0, a.type_id);
  e.set(field::source_node) = a.input_id;
  e.set(field::source_name).emplace<ua_string>().assign(a.source_name);
  e.set(field::time) = a.time;
  text(e.set(field::message), a.message.c_str());
  e.set(field::severity) = a.severity;
  e.set(field::condition_id) = a.id;
  e.set(k_.condition_name).emplace<ua_string>().assign(a.name);
  e.set(k_.condition_class_id) = node_id(0, base_condition_class_type);
  text(e.set(k_.condition_class_name), "BaseConditionClass");
  e.set(k_.branch_id) = node_id();
  e.set(k_.retain) = a.retain();
  text(e.set(k_.enabled_state), a.enabled ? "Enabled" : "Disabled");
  e.set(k_.enabled_state_id) = a.enabled;
  e.set(k_.quality) = a.quality;
  e.set(k_.last_severity) = a.last_severity;
  e.set(k_.comment) = a.comment;
  e.set(k_.client_user_id) = a.user;
  text(e.set(k_.acked_state), a.acked ? "Acknowledged" : "Unacknowledged");
  e.set(k_.acked_state_id) = a.acked;
  text(e.set(k_.confirmed_state), a.confirmed ? "Confirmed" : "Unconfirmed");
  e.set(k_.confirmed_state_id) = a.confirmed;
  text(e.set(k_.active_state), a.active() ? "Active" : "Inactive");
  e.set(k_.active_state_id) = a.active();
  e.set(k_.input_node) = a.input_id;
  if (a.kind == alarm_kind::off_normal) {
    // §5.8.24.2: the normal value is the definition's, no Variable holds it: a null NodeId.
    e.set(k_.normal_state) = node_id();
    sink.raise(e, now, only_subscription, only_item);
    return;
  }
  if (a.kind == alarm_kind::discrete) {  // §5.8.24.1: no fields beyond AlarmConditionType's
    sink.raise(e, now, only_subscription, only_item);
    return;
  }
  if (a.hh) e.set(k_.high_high_limit) = *a.hh;
  if (a.h) e.set(k_.high_limit) = *a.h;
  if (a.l) e.set(k_.low_limit) = *a.l;
  if (a.ll) e.set(k_.low_low_limit) = *a.ll;
  if (a.kind == alarm_kind::non_exclusive_limit) {
    // §5.8.20: a TwoStateVariable per limit the alarm has (the optional ones it lacks stay null).
    const std::array<const std::optional<double>*, 4> limits{&a.ll, &a.l, &a.h, &a.hh};
    for (std::size_t i = 0; i < 4; ++i) {
      if (!*limits[i]) continue;
      const bool on = (a.states & bit(static_cast<limit>(i + 1))) != 0;
      text(e.set(k_.limit_states[i]), on ? "Active" : "Inactive");
      e.set(k_.limit_state_ids[i]) = on;
    }
    sink.raise(e, now, only_subscription, only_item);
    return;
  }
  text(e.set(k_.limit_state_current), limit_name(a.state));
  text(e.set(k_.limit_state), limit_name(a.state));
  if (a.state == limit::none) e.set(k_.limit_state_current_id).clear();
  else e.set(k_.limit_state_current_id) = node_id(0, limit_state_id(a.state));
  sink.raise(e, now, only_subscription, only_item);
}

// ---------------------------------------------------------------------------------------------
// Methods

bool condition_manager::is_condition_method(const node_id& m) noexcept {
  if (m.namespace_index() != 0 || m.type() != node_id_type::numeric) return false;
  switch (m.numeric()) {
    case m_enable: case m_disable: case m_add_comment: case m_refresh: case m_refresh2: case m_acknowledge: case m_confirm:
      return true;
    default: return false;
  }
}

bool condition_manager::is_condition_call(const call_request& req) noexcept {
  for (const auto& m : req.methods_to_call)
    if (is_condition_method(m.method_id)) return true;
  return false;
}

condition_manager::alarm* condition_manager::find(const node_id& condition) noexcept {
  for (auto& a : alarms_)
    if (a->id == condition) return a.get();
  return nullptr;
}

void condition_manager::call_one(std::uint32_t session, const call_method_request& req, const address_space& as,
                                 event_sink& sink, const instant& now, call_method_result& out) {
  out.input_argument_results.clear();
  out.input_argument_diagnostic_infos.clear();
  out.output_arguments.clear();
  const std::uint32_t m = req.method_id.numeric();
  const auto& in = req.input_arguments;
  // Part 4 §5.11.2: the argument count, then each argument's type.
  const auto check_args = [&](std::initializer_list<builtin_type> types) -> status_code {
    if (in.size() < types.size()) return status::bad_arguments_missing;
    if (in.size() > types.size()) return status::bad_too_many_arguments;
    bool bad = false;
    out.input_argument_results.resize(in.size());
    std::size_t i = 0;
    for (const builtin_type t : types) {
      const bool ok = !in[i].is_array() && in[i].type() == t;
      out.input_argument_results[i++] = ok ? status::good : status::bad_type_mismatch;
      bad = bad || !ok;
    }
    if (!bad) out.input_argument_results.clear();
    return bad ? status::bad_invalid_argument : status::good;
  };
  if (m == m_refresh || m == m_refresh2) {
    // Part 9 §5.5.7: on the ConditionType (or the Server object), for a subscription of the caller.
    if (as.find(req.object_id) == no_node) { out.status_code = status::bad_node_id_unknown; return; }
    const status_code sc = m == m_refresh ? check_args({builtin_type::uint32})
                                          : check_args({builtin_type::uint32, builtin_type::uint32});
    if (sc.is_bad()) { out.status_code = sc; return; }
    const std::uint32_t sub = *in[0].get_if<std::uint32_t>();
    const std::uint32_t item = m == m_refresh2 ? *in[1].get_if<std::uint32_t>() : 0;
    if (!sink.owns(session, sub, 0)) { out.status_code = status::bad_subscription_id_invalid; return; }
    if (item != 0 && !sink.owns(session, sub, item)) { out.status_code = status::bad_monitored_item_id_invalid; return; }
    refresh(sub, item, as, sink, now);
    out.status_code = status::good;
    return;
  }
  alarm* a = find(req.object_id);
  if (!a) {
    out.status_code = as.find(req.object_id) == no_node ? status::bad_node_id_unknown : status::bad_method_invalid;
    return;
  }
  if (m == m_enable || m == m_disable) {
    if (const status_code sc = check_args({}); sc.is_bad()) { out.status_code = sc; return; }
    const bool enable = m == m_enable;
    if (a->enabled == enable) {
      out.status_code = enable ? status::bad_condition_already_enabled : status::bad_condition_already_disabled;
      return;
    }
    // §5.5.4: Disable sends one last event (EnabledState False, Retain False); Enable the
    // current state. Value changes meanwhile are tracked, not reported.
    a->enabled = enable;
    a->time = now.utc;
    emit(*a, sink, now);
    out.status_code = status::good;
    return;
  }
  if (const status_code sc = check_args({builtin_type::byte_string, builtin_type::localized_text}); sc.is_bad()) {
    out.status_code = sc;
    return;
  }
  if (!a->enabled) { out.status_code = status::bad_condition_disabled; return; }
  // §5.7.3: the EventId names the state notification the operator saw: the latest one.
  const variant* last = a->ev.find(field::event_id);
  if (!last || !(*last == in[0])) { out.status_code = status::bad_event_id_unknown; return; }
  if (m == m_acknowledge && a->acked) { out.status_code = status::bad_condition_branch_already_acked; return; }
  if (m == m_confirm && a->confirmed) { out.status_code = status::bad_condition_branch_already_confirmed; return; }
  if (m == m_acknowledge) {
    a->acked = true;
    a->confirmed = false;  // §5.7.2: an acknowledged occurrence waits for its confirmation
  } else if (m == m_confirm) {
    a->confirmed = true;
  }
  a->comment = *in[1].get_if<localized_text>();
  a->time = now.utc;
  emit(*a, sink, now);
  out.status_code = status::good;
}

// §5.5.7: RefreshStart, the current event of every retained condition, RefreshEnd, to the one
// subscription (or item); the refresh events pass every where clause.
void condition_manager::refresh(std::uint32_t subscription, std::uint32_t item, const address_space& as,
                                event_sink& sink, const instant& now) {
  const auto marker = [&](std::uint32_t type, const char* message) {
    event_record& e = refresh_event_;
    e.type = as.find(node_id(0, type));
    e.source = as.find(node_id(0, ids::server));
    sink.next_event_id(e.set(field::event_id).emplace<byte_string>());
    e.set(field::event_type) = node_id(0, type);
    e.set(field::source_node) = node_id(0, ids::server);
    e.set(field::source_name).emplace<ua_string>().assign("Server");
    e.set(field::time) = now.utc;
    text(e.set(field::message), message);
    e.set(field::severity) = std::uint16_t{1};
    sink.raise(e, now, subscription, item, true);
  };
  marker(refresh_start_event_type, "ConditionRefresh started");
  for (auto& a : alarms_) {
    if (!a->retain()) continue;
    sink.raise(a->ev, now, subscription, item);  // the same EventId: the state the client missed
  }
  marker(refresh_end_event_type, "ConditionRefresh done");
}

}  // namespace uactor::actors
