// Part 9 alarms: the state machine of §5.5 (ConditionType), §5.7 (AcknowledgeableConditionType),
// §5.8 (AlarmConditionType; ExclusiveLimitAlarmType §5.8.18, NonExclusiveLimitAlarmType §5.8.20,
// DiscreteAlarmType §5.8.24.1, OffNormalAlarmType §5.8.24.2, TripAlarmType §5.8.24.4, DiscrepancyAlarmType
// §5.8.25 of 1.05), shelving (§5.8.17), their methods and
// events, and each condition's Object with its Variables; the alarm parameters OnDelay, OffDelay,
// ReAlarmTime (§5.8.2, 1.05). Every kind shares the state, the methods, the events, the parameters
// and the nodes; only what makes it active (and the fields of its type) differs.
// docs/decisions/0018, 0053, 0061, 0065, 0081.
#include "engine/server/subscriptions/conditions.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <unordered_set>

#include <spdlog/spdlog.h>

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
using ua::ids::trip_alarm_type;
using ua::ids::discrepancy_alarm_type;
using ua::ids::certificate_expiration_alarm_type;
using ua::ids::exclusive_deviation_alarm_type;
using ua::ids::non_exclusive_deviation_alarm_type;
using ua::ids::exclusive_rate_of_change_alarm_type;
using ua::ids::non_exclusive_rate_of_change_alarm_type;
using ua::ids::refresh_start_event_type;
using ua::ids::refresh_end_event_type;
using ua::ids::base_condition_class_type;
using ua::ids::has_condition;
using ua::ids::has_type_definition;
// The Part 9 methods (ns=0).
constexpr std::uint32_t m_enable = 9027, m_disable = 9028, m_add_comment = 9029, m_refresh = 3875, m_refresh2 = 12912,
                        m_acknowledge = 9111, m_confirm = 9113;
// ShelvedStateMachineType's methods (Part 9 §5.8.17), and AlarmConditionType's ShelvingState
// instance declarations of them (a client may name either).
constexpr std::uint32_t m_unshelve = 2947, m_one_shot_shelve = 2948, m_timed_shelve = 2949, m_timed_shelve2 = 24756,
                        m_unshelve2 = 24758, m_one_shot_shelve2 = 24760;
// AlarmConditionType's suppression and out-of-service methods (Part 9 §5.8.8-5.8.15; the "2" forms,
// 1.05, take a comment). They are AlarmConditionType's own instance declarations: every condition
// references them (decision 0053).
constexpr std::uint32_t m_suppress = 16403, m_unsuppress = 17868, m_remove_from_service = 17869,
                        m_place_in_service = 17870, m_suppress2 = 24316, m_unsuppress2 = 24318,
                        m_remove_from_service2 = 24320, m_place_in_service2 = 24322;
// AlarmConditionType's Reset and Reset2 (Part 9 §5.8.5, §5.8.6, 1.05): a latching alarm's.
constexpr std::uint32_t m_reset = 18199, m_reset2 = 24324;
bool is_service_method(std::uint32_t m) {
  switch (m) {
    case m_suppress: case m_unsuppress: case m_remove_from_service: case m_place_in_service: case m_suppress2:
    case m_unsuppress2: case m_remove_from_service2: case m_place_in_service2: return true;
    default: return false;
  }
}
// The instance declaration's method -> the type's.
std::uint32_t shelving_method_of(std::uint32_t m) {
  switch (m) {
    case 9211: return m_unshelve;
    case 9212: return m_one_shot_shelve;
    case 9213: return m_timed_shelve;
    case 24738: return m_timed_shelve2;
    case 24740: return m_unshelve2;
    case 24742: return m_one_shot_shelve2;
    case m_unshelve: case m_one_shot_shelve: case m_timed_shelve: case m_timed_shelve2: case m_unshelve2:
    case m_one_shot_shelve2: return m;
    default: return 0;
  }
}
// ShelvedStateMachineType's states and transitions (§5.8.17.1).
constexpr std::uint32_t shelf_unshelved = 2930, shelf_timed = 2932, shelf_one_shot = 2933;
constexpr std::uint32_t tr_unshelved_to_timed = 2935, tr_unshelved_to_one_shot = 2936, tr_timed_to_unshelved = 2940,
                        tr_timed_to_one_shot = 2942, tr_one_shot_to_unshelved = 2943, tr_one_shot_to_timed = 2945;
const char* shelving_transition_name(std::uint32_t t) {
  switch (t) {
    case tr_unshelved_to_timed: return "UnshelvedToTimedShelved";
    case tr_unshelved_to_one_shot: return "UnshelvedToOneShotShelved";
    case tr_timed_to_unshelved: return "TimedShelvedToUnshelved";
    case tr_timed_to_one_shot: return "TimedShelvedToOneShotShelved";
    case tr_one_shot_to_unshelved: return "OneShotShelvedToUnshelved";
    case tr_one_shot_to_timed: return "OneShotShelvedToTimedShelved";
    default: return "";
  }
}
// Without a MaxTimeShelved, the longest TimedShelve taken (a year): Part 9 lets the server refuse a
// duration, and the deadline stays far from the steady clock's range.
constexpr double longest_shelving_ms = 366.0 * 24 * 3600 * 1000;
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

// §5.8.2 (1.05): OnDelay and OffDelay up to a day, ReAlarmTime none or a second (the tick's
// resolution) to a day, at most 32,767 re-alarms (ReAlarmRepeatCount is an Int16).
constexpr double longest_alarm_delay_ms = 86'400'000;
template <class Alarm>
bool take_parameters(Alarm& a, const alarm_parameters& p) {
  const auto ms = [](std::chrono::milliseconds d) { return static_cast<double>(d.count()); };
  a.on_delay = ms(p.on_delay);
  a.off_delay = ms(p.off_delay);
  a.re_alarm_time = ms(p.re_alarm_time);
  a.re_alarm_max_count = p.re_alarm_max_count;
  a.latching = p.latching;
  const auto delay_ok = [](double d) { return d >= 0 && d <= longest_alarm_delay_ms; };
  return delay_ok(a.on_delay) && delay_ok(a.off_delay) && delay_ok(a.re_alarm_time) &&
         (a.re_alarm_time == 0 || a.re_alarm_time >= 1'000) && p.re_alarm_max_count <= 32'767;
}

// §5.8.18 (1.05): each limit's deadband (`deadband` where the limit has none of its own): none
// negative or infinite, none for a limit the alarm lacks, and none reaching the next limit inward
// (HighHighLimit - HighHighDeadband > HighLimit, HighLimit - HighDeadband > LowLimit, LowLimit +
// LowDeadband < HighLimit, LowLowLimit + LowLowDeadband < LowLimit), where both limits are there.
template <class Alarm>
bool take_deadbands(Alarm& a, const limit_alarm& l) {
  const std::array<const std::optional<double>*, 4> limits{&l.low_low, &l.low, &l.high, &l.high_high};
  const std::array<const std::optional<double>*, 4> own{&l.low_low_deadband, &l.low_deadband, &l.high_deadband,
                                                        &l.high_high_deadband};
  constexpr std::array<std::size_t, 4> inward{1, 2, 1, 2};  // low_low -> low, low -> high, ...
  for (std::size_t i = 0; i < 4; ++i) {
    if (*own[i] && !*limits[i]) return false;
    const double db = own[i]->value_or(l.deadband);
    if (!(db >= 0) || std::isinf(db)) return false;
    a.deadbands[i] = db;
    const auto& next = *limits[inward[i]];
    if (db > 0 && *limits[i] && next && !(i < 2 ? **limits[i] + db < *next : **limits[i] - db > *next)) return false;
  }
  return true;
}

void text(variant& v, const char* s) {
  auto& t = v.emplace<localized_text>();
  t.locale.assign("en");
  t.text.assign(s);
}

}  // namespace

enum class alarm_kind : std::uint8_t { exclusive_limit, non_exclusive_limit, off_normal, discrete, discrepancy, certificate };
// What a limit alarm's limits apply to: the input's value (§5.8.18, §5.8.20), its deviation from a
// setpoint (§5.8.22) or its rate of change per second (§5.8.23).
enum class alarm_measure : std::uint8_t { value, deviation, rate };

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
  alarm_measure measured = alarm_measure::value;
  double last_measure = NAN;  // what the limits were last compared with
  // §5.8.22: the setpoint's Variable and its latest value (NaN: none yet), the base setpoint shown.
  // §5.8.25: a discrepancy alarm's TargetValueNode is held here too (watched and read the same way).
  node_index setpoint = no_node;
  node_id setpoint_id, base_setpoint_id;
  double setpoint_value = NAN;
  double last_input = NAN;  // the input's latest value (deviation, rate)
  // §5.8.23 (docs/decisions/0070): the rate's window, ms, its start and the input's value then.
  double window = 0;
  bool window_started = false;
  std::chrono::steady_clock::time_point window_start{};
  double window_value = 0;
  std::optional<engineering_units> units;
  // §5.8.25 (docs/decisions/0081): ExpectedTime (ms) and Tolerance (NaN: none); whether the input is
  // away from the target and not yet for ExpectedTime, and since when it counts (the later of the
  // target's change and the input's leaving it).
  double expected_time = 0;
  double tolerance = NAN;
  bool discrepancy_pending = false;
  std::chrono::steady_clock::time_point discrepancy_since{};
  // §5.8.24.7 CertificateExpirationAlarmType: the certificate's, and the Message the server's
  // expiry check gave (the state comes from it, not from an input Variable); `removed`: the
  // certificate is no longer watched, its Object gone.
  date_time expiration_date;
  double expiration_limit = 0;
  node_id certificate_type;
  byte_string certificate;
  std::string detail;
  bool removed = false;
  // Part 9 §8: the metrics scopes it counts in (the Server's, its groups'), when it became active
  // and unacknowledged, and its recent activations (chattering).
  std::vector<std::uint32_t> scopes;
  std::chrono::steady_clock::time_point active_at{}, unacked_at{};
  std::vector<std::chrono::steady_clock::time_point> activations;
  std::size_t next_activation = 0;
  std::array<double, 4> deadbands{};  // per limit: low_low, low, high, high_high (index limit - 1)
  std::uint16_t sev_hh = 900, sev_h = 700, sev_l = 700, sev_ll = 900;
  double deadband(limit s) const { return deadbands[static_cast<std::size_t>(s) - 1]; }
  limit state = limit::none;  // exclusive: the one limit state
  std::uint8_t states = 0;    // non-exclusive: the active limit states, bit(limit) each
  // Off-normal: the normal value; discrete: the alarm value (a Boolean as 0 or 1).
  double reference = 0;
  bool tripped = false;  // off-normal: the value is not the normal one; discrete: it is the alarm value
  // What the input says now, before OnDelay and OffDelay (§5.8.2): the state the alarm takes when
  // the delay has run, each with its own deadband. Equal to state/states/tripped without delays.
  limit input_state = limit::none;
  std::uint8_t input_states = 0;
  bool input_tripped = false;
  // §5.8.2 (1.05) alarm parameters, ms (0: none), and their timers (on the housekeeping tick).
  double on_delay = 0, off_delay = 0, re_alarm_time = 0;
  std::uint32_t re_alarm_max_count = 0;  // 0: no bound
  std::int16_t re_alarm_count = 0;       // ReAlarmRepeatCount: re-alarms of the current occurrence
  bool delay_pending = false;            // the input's activity differs from the alarm's since delay_since
  std::chrono::steady_clock::time_point delay_since{};
  bool re_alarm_armed = false;
  std::chrono::steady_clock::time_point re_alarm_at{};
  bool timed = false;  // in condition_manager::timed_
  // §5.8.2 (1.05) LatchedState: a latching alarm is latched when it goes active, until Reset.
  bool latching = false;
  bool latched = false;
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
  date_time active_since;   // ActiveState/TransitionTime: the last change of ActiveState
  date_time comment_time;   // Comment/SourceTimestamp
  date_time severity_time;  // LastSeverity/SourceTimestamp, Severity's last change
  date_time quality_time;   // Quality/SourceTimestamp
  // §5.8.17: the shelving state, its last transition (0: none yet), when it ends on its own.
  condition_manager::shelving shelf = condition_manager::shelving::unshelved;
  std::uint32_t last_transition = 0;
  double max_time_shelved = 0;  // ms; 0: no MaxTimeShelved
  bool has_deadline = false;
  std::chrono::steady_clock::time_point unshelve_at{};
  // §5.8.2 (1.05): SuppressedState (by Suppress/Unsuppress or by the `suppressed_by` Variable, the
  // latest change wins) and OutOfServiceState, each with its TransitionTime.
  bool suppressed = false;
  bool out_of_service = false;
  date_time suppressed_since;
  date_time out_of_service_since;
  node_index suppressor = no_node;  // the Boolean Variable whose true suppresses, or none
  node_id suppressor_id;
  std::uint32_t max_branches = 16;
  // §5.5.2, §4.4: earlier states still waiting for Acknowledge or Confirm, oldest first. Each keeps
  // its last event (with its BranchId) for ConditionRefresh and for the EventId the methods name.
  struct branch {
    node_id id;
    bool acked = false;
    bool confirmed = true;
    event_record ev;
    // The trunk's EventId the state had when it became a branch: an operator who saw that event
    // acknowledges the branch with it, until the branch's first change.
    byte_string origin;
  };
  std::vector<branch> branches;
  bool branch_drop_logged = false;
  event_record ev;  // the last event, kept for ConditionRefresh (its EventId too)
  node_index shelving_node = no_node;
  std::uint32_t index = 0;  // in alarms_
  // The Variables: the field of the event each mirrors, its node, and where the field was in
  // ev.fields last time (fields are appended, never removed: a hint that holds after the first event).
  struct mirrored {
    field_key key;
    node_index node;
    std::uint32_t at = 0;
    bool fixed = false;  // the definition's (ConditionName, the limits, ...): written by the first event only
  };
  bool synced = false;  // the first event wrote every Variable
  std::vector<mirrored> vars;

  // Off-normal, discrete and discrepancy alarms: one active state, the input Boolean or numeric.
  bool two_state() const noexcept {
    return kind == alarm_kind::off_normal || kind == alarm_kind::discrete || kind == alarm_kind::discrepancy ||
           kind == alarm_kind::certificate;
  }
  bool active() const noexcept {
    switch (kind) {
      case alarm_kind::exclusive_limit: return state != limit::none;
      case alarm_kind::non_exclusive_limit: return states != 0;
      default: return tripped;
    }
  }
  bool input_active() const noexcept {
    switch (kind) {
      case alarm_kind::exclusive_limit: return input_state != limit::none;
      case alarm_kind::non_exclusive_limit: return input_states != 0;
      default: return input_tripped;
    }
  }
  // Part 9 §5.5.2: Retain while the condition is of interest to a client; §5.8.2 (1.05): a latched
  // alarm is, until it is reset.
  bool retain() const noexcept { return enabled && (active() || !acked || !confirmed || latched); }
  // §5.8.2: SuppressedOrShelved, the one flag a client's where clause filters on.
  bool suppressed_or_shelved() const noexcept {
    return suppressed || out_of_service || shelf != condition_manager::shelving::unshelved;
  }
};

condition_manager::condition_manager(field_catalogue& f) : fields_(&f) {
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
  k_.active_state_transition_time = f.intern("ActiveState/TransitionTime");
  k_.quality_source_timestamp = f.intern("Quality/SourceTimestamp");
  k_.last_severity_source_timestamp = f.intern("LastSeverity/SourceTimestamp");
  k_.comment_source_timestamp = f.intern("Comment/SourceTimestamp");
  k_.suppressed_or_shelved = f.intern("SuppressedOrShelved");
  k_.shelving_current = f.intern("ShelvingState/CurrentState");
  k_.shelving_current_id = f.intern("ShelvingState/CurrentState/Id");
  k_.shelving_last = f.intern("ShelvingState/LastTransition");
  k_.shelving_last_id = f.intern("ShelvingState/LastTransition/Id");
  k_.unshelve_time = f.intern("ShelvingState/UnshelveTime");
  k_.max_time_shelved = f.intern("MaxTimeShelved");
  k_.suppressed_state = f.intern("SuppressedState");
  k_.suppressed_state_id = f.intern("SuppressedState/Id");
  k_.suppressed_state_transition_time = f.intern("SuppressedState/TransitionTime");
  k_.out_of_service_state = f.intern("OutOfServiceState");
  k_.out_of_service_state_id = f.intern("OutOfServiceState/Id");
  k_.out_of_service_state_transition_time = f.intern("OutOfServiceState/TransitionTime");
  k_.on_delay = f.intern("OnDelay");
  k_.off_delay = f.intern("OffDelay");
  k_.re_alarm_time = f.intern("ReAlarmTime");
  k_.re_alarm_repeat_count = f.intern("ReAlarmRepeatCount");
  k_.setpoint_node = f.intern("SetpointNode");
  k_.base_setpoint_node = f.intern("BaseSetpointNode");
  k_.engineering_units = f.intern("EngineeringUnits");
  k_.latched_state = f.intern("LatchedState");
  k_.latched_state_id = f.intern("LatchedState/Id");
  k_.target_value_node = f.intern("TargetValueNode");
  k_.expected_time = f.intern("ExpectedTime");
  k_.tolerance = f.intern("Tolerance");
  k_.expiration_date = f.intern("ExpirationDate");
  k_.expiration_limit = f.intern("ExpirationLimit");
  k_.certificate_type = f.intern("CertificateType");
  k_.certificate = f.intern("Certificate");
  std::random_device rd;
  branch_prefix_ = (std::uint64_t{rd()} << 32) | rd();
  for (const limit l : {limit::low_low, limit::low, limit::high, limit::high_high}) {
    const std::string state = std::string(limit_name(l)) + "State";
    k_.limit_states[static_cast<std::size_t>(l) - 1] = f.intern(state);
    k_.limit_state_ids[static_cast<std::size_t>(l) - 1] = f.intern(state + "/Id");
    k_.limit_deadbands[static_cast<std::size_t>(l) - 1] = f.intern(std::string(limit_name(l)) + "Deadband");
    k_.limit_severities[static_cast<std::size_t>(l) - 1] = f.intern("Severity" + std::string(limit_name(l)));
  }
}

condition_manager::~condition_manager() = default;

bool condition_manager::active(std::size_t i) const noexcept { return alarms_[i]->active(); }
bool condition_manager::acked(std::size_t i) const noexcept { return alarms_[i]->acked; }
double condition_manager::measured(std::size_t i) const noexcept { return alarms_[i]->last_measure; }
bool condition_manager::confirmed(std::size_t i) const noexcept { return alarms_[i]->confirmed; }
bool condition_manager::retain(std::size_t i) const noexcept { return alarms_[i]->retain(); }
condition_manager::shelving condition_manager::shelving_state(std::size_t i) const noexcept { return alarms_[i]->shelf; }
std::size_t condition_manager::variable_count(std::size_t i) const noexcept { return alarms_[i]->vars.size(); }
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
  return add_limit(a, std::make_unique<alarm>(), as, sink, now);
}

status_code condition_manager::add(const deviation_alarm& a, address_space& as, event_sink& sink, const instant& now) {
  // §5.8.22: SetpointNode is mandatory; the deviation needs a Variable to follow.
  if (a.setpoint.is_null()) return status::bad_invalid_argument;
  auto al = std::make_unique<alarm>();
  al->measured = alarm_measure::deviation;
  al->setpoint_id = a.setpoint;
  al->base_setpoint_id = a.base_setpoint;
  return add_limit(a, std::move(al), as, sink, now);
}

status_code condition_manager::add(const rate_of_change_alarm& a, address_space& as, event_sink& sink,
                                   const instant& now) {
  // docs/decisions/0070: a window of at least the tick (which closes it when no value comes) and at most an hour.
  if (a.window.count() < 1'000 || a.window.count() > 3'600'000) return status::bad_invalid_argument;
  auto al = std::make_unique<alarm>();
  al->measured = alarm_measure::rate;
  al->window = static_cast<double>(a.window.count());
  al->units = a.units;
  return add_limit(a, std::move(al), as, sink, now);
}

status_code condition_manager::add_limit(const limit_alarm& a, std::unique_ptr<alarm> al, address_space& as,
                                         event_sink& sink, const instant& now) {
  node_index input = no_node;
  if (const status_code sc = check_new(a.id, a.name, a.input, as, input); sc.is_bad()) return sc;
  if (!a.high_high && !a.high && !a.low && !a.low_low) return status::bad_invalid_argument;
  // The limits in order, each one finite.
  double last = -INFINITY;
  for (const auto& lim : {a.low_low, a.low, a.high, a.high_high}) {
    if (!lim) continue;
    if (!std::isfinite(*lim) || *lim < last) return status::bad_invalid_argument;
    last = *lim;
  }
  if (a.low && a.high && !(*a.low < *a.high)) return status::bad_invalid_argument;
  if (!take_deadbands(*al, a)) return status::bad_invalid_argument;
  if (a.max_time_shelved.count() < 0 || a.max_time_shelved.count() > longest_shelving_ms)
    return status::bad_invalid_argument;

  al->id = a.id;
  al->input = input;
  al->input_id = a.input;
  al->name = a.name;
  al->hh = a.high_high;
  al->h = a.high;
  al->l = a.low;
  al->ll = a.low_low;
  al->sev_hh = a.severity_high_high;
  al->sev_h = a.severity_high;
  al->sev_l = a.severity_low;
  al->sev_ll = a.severity_low_low;
  al->enabled = a.enabled;
  al->max_time_shelved = static_cast<double>(a.max_time_shelved.count());
  al->suppressor_id = a.suppressed_by;
  al->max_branches = a.max_branches;
  if (!take_parameters(*al, a.parameters)) return status::bad_invalid_argument;
  if (const status_code sc = take_groups(a.groups, as); sc.is_bad()) return sc;
  if (!a.exclusive) al->kind = alarm_kind::non_exclusive_limit;
  switch (al->measured) {
    case alarm_measure::value: al->type_id = a.exclusive ? exclusive_limit_alarm_type : non_exclusive_limit_alarm_type; break;
    case alarm_measure::deviation:
      al->type_id = a.exclusive ? exclusive_deviation_alarm_type : non_exclusive_deviation_alarm_type;
      break;
    case alarm_measure::rate:
      al->type_id = a.exclusive ? exclusive_rate_of_change_alarm_type : non_exclusive_rate_of_change_alarm_type;
      break;
  }
  return insert(std::move(al), as, sink, now);
}

status_code condition_manager::add_two_state(std::unique_ptr<alarm> al, const variant& reference, address_space& as,
                                             event_sink& sink, const instant& now) {
  if (const status_code sc = check_new(al->id, al->name, al->input_id, as, al->input); sc.is_bad()) return sc;
  if (al->max_time_shelved < 0 || al->max_time_shelved > longest_shelving_ms) return status::bad_invalid_argument;
  if (reference.is_array() || !discrete_of(reference, al->reference) || std::isnan(al->reference))
    return status::bad_invalid_argument;
  return insert(std::move(al), as, sink, now);
}

status_code condition_manager::add(const off_normal_alarm& a, address_space& as, event_sink& sink, const instant& now) {
  return add_off_normal(a, off_normal_alarm_type, as, sink, now);
}

status_code condition_manager::add(const trip_alarm& a, address_space& as, event_sink& sink, const instant& now) {
  // §5.8.24.4: an OffNormalAlarmType subtype "mainly used for categorization": the off-normal state
  // machine with TripAlarmType as the condition's type and its events' EventType.
  return add_off_normal(a, trip_alarm_type, as, sink, now);
}

status_code condition_manager::add_off_normal(const off_normal_alarm& a, std::uint32_t type_id, address_space& as,
                                              event_sink& sink, const instant& now) {
  auto al = std::make_unique<alarm>();
  al->kind = alarm_kind::off_normal;
  al->type_id = type_id;
  al->id = a.id;
  al->input_id = a.input;
  al->name = a.name;
  al->sev_tripped = a.severity;
  al->enabled = a.enabled;
  al->max_time_shelved = static_cast<double>(a.max_time_shelved.count());
  al->suppressor_id = a.suppressed_by;
  al->max_branches = a.max_branches;
  if (!take_parameters(*al, a.parameters)) return status::bad_invalid_argument;
  if (const status_code sc = take_groups(a.groups, as); sc.is_bad()) return sc;
  return add_two_state(std::move(al), a.normal, as, sink, now);
}

status_code condition_manager::add(const discrepancy_alarm& a, address_space& as, event_sink& sink, const instant& now) {
  // §5.8.25: TargetValueNode and ExpectedTime are mandatory; Tolerance is optional (none: equal).
  // ExpectedTime from the tick's resolution (a second) to a day, as the alarm delays.
  if (a.target.is_null()) return status::bad_invalid_argument;
  if (a.expected_time.count() < 1'000 || a.expected_time.count() > 86'400'000) return status::bad_invalid_argument;
  if (a.tolerance && (!(*a.tolerance >= 0) || std::isinf(*a.tolerance))) return status::bad_invalid_argument;
  auto al = std::make_unique<alarm>();
  al->kind = alarm_kind::discrepancy;
  al->type_id = discrepancy_alarm_type;
  al->id = a.id;
  al->input_id = a.input;
  al->name = a.name;
  al->setpoint_id = a.target;
  al->expected_time = static_cast<double>(a.expected_time.count());
  al->tolerance = a.tolerance.value_or(NAN);
  al->sev_tripped = a.severity;
  al->enabled = a.enabled;
  al->max_time_shelved = static_cast<double>(a.max_time_shelved.count());
  al->suppressor_id = a.suppressed_by;
  al->max_branches = a.max_branches;
  if (const status_code sc = check_new(al->id, al->name, al->input_id, as, al->input); sc.is_bad()) return sc;
  if (al->max_time_shelved < 0 || al->max_time_shelved > longest_shelving_ms) return status::bad_invalid_argument;
  if (!take_parameters(*al, a.parameters)) return status::bad_invalid_argument;
  if (const status_code sc = take_groups(a.groups, as); sc.is_bad()) return sc;
  return insert(std::move(al), as, sink, now);
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
  al->max_time_shelved = static_cast<double>(a.max_time_shelved.count());
  al->suppressor_id = a.suppressed_by;
  al->max_branches = a.max_branches;
  if (!take_parameters(*al, a.parameters)) return status::bad_invalid_argument;
  if (const status_code sc = take_groups(a.groups, as); sc.is_bad()) return sc;
  return add_two_state(std::move(al), a.active, as, sink, now);
}

status_code condition_manager::take_groups(const std::vector<node_id>& groups, const address_space& as) {
  adding_groups_.clear();
  if (groups.size() > 64) return status::bad_invalid_argument;
  for (const node_id& g : groups) {
    const node_index n = as.find(g);
    const auto it = n == no_node ? groups_.end() : groups_.find(n);
    if (it == groups_.end()) {
      adding_groups_.clear();
      return status::bad_node_id_unknown;  // no alarm group of add_group
    }
    if (std::find_if(adding_groups_.begin(), adding_groups_.end(), [&](const auto& x) { return x.first == n; }) ==
        adding_groups_.end())
      adding_groups_.emplace_back(n, it->second);
  }
  return status::good;
}

namespace subscriptions_conditions {

// Part 9 §8.2: the Server's AlarmMetrics, scope 0 (made before any group's), with the first alarm or
// group; false when it cannot be made.
bool ensure_server_metrics(alarm_metrics& metrics, address_space& as, const instant& now) {
  if (metrics.size() > 0) return true;
  std::uint32_t scope = 0;
  return metrics.add_scope(node_id::string(1, "Server.AlarmMetrics"), as.find(node_id(0, ids::server)), as, now, scope)
      .is_good();
}

}  // namespace subscriptions_conditions

status_code condition_manager::add_group(const alarm_group& g, address_space& as, const instant& now) {
  if (g.id.is_null()) return status::bad_invalid_argument;
  if (as.find(g.id) != no_node) return status::bad_node_id_exists;
  const node_index parent = as.find(g.parent.is_null() ? node_id(0, ids::objects_folder) : g.parent);
  if (parent == no_node || as.at(parent).cls != node_class::object) return status::bad_parent_node_id_invalid;
  std::string name = g.name;
  if (name.empty()) {
    const std::string text = g.id.type() == node_id_type::string ? std::string(g.id.text()) : g.id.to_string();
    name = text.substr(text.rfind('.') == std::string::npos ? 0 : text.rfind('.') + 1);
  }
  node_spec spec;
  spec.id = g.id;
  spec.cls = node_class::object;
  spec.browse_ns = g.id.namespace_index();
  spec.browse_name = name;
  const auto added = as.add_node(std::move(spec));
  if (!added) return added.error();
  as.add_reference(*added, as.find(node_id(0, has_type_definition)), as.find(node_id(0, ids::alarm_group_type)));
  as.add_reference(parent, as.find(node_id(0, ids::organizes)), *added);
  if (!subscriptions_conditions::ensure_server_metrics(metrics_, as, now)) {
    as.remove_node(*added);
    return status::bad_internal_error;
  }
  std::string metrics_id = g.id.type() == node_id_type::string ? std::string(g.id.text()) : g.id.to_string();
  metrics_id += ".AlarmMetrics";
  std::uint32_t scope = 0;
  if (const status_code sc = metrics_.add_scope(node_id::string(g.id.namespace_index(), metrics_id), *added, as, now, scope);
      sc.is_bad()) {
    as.remove_node(*added);
    return sc;
  }
  groups_[*added] = scope;
  return status::good;
}

status_code condition_manager::insert(std::unique_ptr<alarm> owned, address_space& as, event_sink& sink,
                                      const instant& now) {
  alarm& al = *owned;
  if (!al.suppressor_id.is_null()) {
    al.suppressor = as.find(al.suppressor_id);
    if (al.suppressor == no_node) return status::bad_node_id_unknown;
    if (as.at(al.suppressor).cls != node_class::variable) return status::bad_node_class_invalid;
  }
  for (const node_id* sp : {&al.setpoint_id, &al.base_setpoint_id}) {
    if (sp->is_null()) continue;
    const node_index n = as.find(*sp);
    if (n == no_node) return status::bad_node_id_unknown;
    if (as.at(n).cls != node_class::variable) return status::bad_node_class_invalid;
    if (sp == &al.setpoint_id) al.setpoint = n;
  }
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
  // Part 9 §5.5.1: the source (the input) finds its condition over HasCondition. A Variable has no
  // Object components (Part 3 §7.7), so for Browse from the Objects folder the condition is a
  // component of the input's parent Object, when it has one (the equipment: Tank -> Tank.Level.Alarm).
  as.add_reference(al.input, as.find(node_id(0, has_condition)), *added);
  const node_index has_component = as.find(node_id(0, ids::has_component)), organizes = as.find(node_id(0, ids::organizes));
  if (al.kind == alarm_kind::certificate) {
    as.add_reference(al.input, has_component, *added);  // the source is an Object: the condition is its component
  } else {
    for (const reference& r : as.inverse_references(al.input)) {
      if ((r.type == has_component || r.type == organizes) && as.at(r.target).cls == node_class::object) {
        as.add_reference(r.target, has_component, *added);
        break;
      }
    }
    as.set_monitored(al.input, true);
  }
  al.source_name = std::string(as.at(al.input).browse_name);
  al.time = al.active_since = al.comment_time = al.severity_time = al.quality_time = now.utc;
  al.message = al.kind == alarm_kind::certificate ? al.detail : al.name + " normal";
  const auto index = static_cast<std::uint32_t>(alarms_.size());
  const node_index input = al.input;
  if (const status_code sc = add_nodes(al, as); sc.is_bad()) {
    as.remove_node(al.node);  // its Variables and references go with it
    return sc;
  }
  al.index = index;
  // Part 9 §8: the Server's AlarmMetrics (made with the first alarm) and the groups' count it; each
  // group references it (AlarmGroupMember).
  if (subscriptions_conditions::ensure_server_metrics(metrics_, as, now)) al.scopes.push_back(0);
  const node_index member = as.find(node_id(0, ids::alarm_group_member));
  for (const auto& [group, scope] : adding_groups_) {
    as.add_reference(group, member, al.node);
    al.scopes.push_back(scope);
  }
  adding_groups_.clear();
  by_node_[al.node] = index;
  if (al.shelving_node != no_node) by_node_[al.shelving_node] = index;
  alarms_.push_back(std::move(owned));
  if (al.kind != alarm_kind::certificate) {  // a certificate condition has no input Variable
    if (by_input_.size() <= input) by_input_.resize(input + 1);
    by_input_[input].push_back(index);
  }
  if (al.suppressor != no_node) {
    // §5.8.2: the plant's suppression applies from the start, before the first event.
    if (by_suppressor_.size() <= al.suppressor) by_suppressor_.resize(al.suppressor + 1);
    by_suppressor_[al.suppressor].push_back(index);
    as.set_monitored(al.suppressor, true);
    if (const variable_data* s = as.variable(al.suppressor)) {
      double on = 0;
      al.suppressed = discrete_of(s->value.value, on) && on != 0;
    }
  }
  if (al.setpoint != no_node) {
    // §5.8.22: the setpoint is watched as the input is; its current value applies from the start.
    if (by_setpoint_.size() <= al.setpoint) by_setpoint_.resize(al.setpoint + 1);
    by_setpoint_[al.setpoint].push_back(index);
    as.set_monitored(al.setpoint, true);
    if (const variable_data* s = as.variable(al.setpoint)) {
      double sp = 0;
      // §5.8.25: a discrepancy alarm's target may be Boolean, as its input.
      if (al.kind == alarm_kind::discrepancy ? discrete_of(s->value.value, sp) : number_of(s->value.value, sp))
        al.setpoint_value = sp;
    }
  }
  if (al.measured == alarm_measure::rate) watch(al);  // the tick closes its windows (decision 0070)
  emit(al, as, sink, now);  // its first state, so that ConditionRefresh has an EventId to send
  const variable_data* var = as.variable(input);
  double v = 0;
  const bool usable = var && (al.two_state() ? discrete_of(var->value.value, v) : number_of(var->value.value, v));
  if (usable) evaluate(al, v, var->value.status, as, sink, now);
  return status::good;
}

// §5.8.24.7 (1.05) CertificateExpirationAlarmType, docs/decisions/0081.
void condition_manager::certificates(std::span<const certificate_condition> certs, const node_id& source_id,
                                     address_space& as, event_sink& sink, const instant& now) {
  // No longer watched (removed from the trust list, replaced by ApplyChanges): a last event, inactive
  // and of no more interest (Retain False), then its Object goes. The alarm stays in alarms_ (the
  // indices of the others hold), out of every list.
  std::unordered_set<std::string> watched;
  for (const auto& c : certs) watched.insert(c.id.to_string());
  for (auto it = certificates_.begin(); it != certificates_.end();) {
    if (watched.count(it->first)) {
      ++it;
      continue;
    }
    alarm& a = *alarms_[it->second];
    close_branches(a, as, sink, now);
    if (a.active()) metrics_.ended_active(a.scopes, std::chrono::duration<double, std::milli>(now.steady - a.active_at).count());
    a.tripped = a.input_tripped = false;
    a.acked = a.confirmed = true;
    a.latched = false;
    a.severity = 1;
    a.message = a.name + " is no longer watched";
    a.active_since = a.time = now.utc;
    if (a.enabled) emit(a, as, sink, now);
    a.removed = true;
    a.enabled = false;
    by_node_.erase(a.node);
    if (a.shelving_node != no_node) by_node_.erase(a.shelving_node);
    std::erase(shelved_, a.index);
    std::erase(timed_, a.index);
    // The Object, its Variables and its ShelvingState, each with its references at both ends.
    for (const auto& m : a.vars) as.remove_node(m.node);
    if (a.shelving_node != no_node) as.remove_node(a.shelving_node);
    as.remove_node(a.node);
    a.vars.clear();
    it = certificates_.erase(it);
  }
  const node_index source = as.find(source_id);
  if (source == no_node) return;
  for (const auto& c : certs) {
    const std::string key = c.id.to_string();
    if (const auto it = certificates_.find(key); it != certificates_.end()) {
      alarm& a = *alarms_[it->second];
      a.detail = c.message;
      a.sev_tripped = c.severity;
      a.input_tripped = c.expiring;
      if (a.input_tripped != a.tripped) {
        transition(a, true, false, as, sink, now);
      } else if (a.tripped && a.severity != c.severity) {
        // Expired while active: more severe, the same occurrence (no new acknowledgement).
        a.last_severity = a.severity;
        a.severity = c.severity;
        a.severity_time = a.time = now.utc;
        a.message = a.detail;
        if (a.enabled) emit(a, as, sink, now);
      }
      continue;
    }
    auto al = std::make_unique<alarm>();
    al->kind = alarm_kind::certificate;
    al->type_id = certificate_expiration_alarm_type;
    al->id = c.id;
    al->name = c.name;
    al->input = source;
    al->input_id = source_id;
    al->expiration_date = c.expiration_date;
    al->expiration_limit = c.expiration_limit;
    al->certificate_type = c.certificate_type;
    al->certificate = c.certificate;
    al->detail = c.message;
    al->sev_tripped = c.severity;
    if (c.id.is_null() || c.name.empty() || as.find(c.id) != no_node) {
      spdlog::warn("conditions: no CertificateExpirationAlarm condition {} for a certificate: {}", key,
                   c.id.is_null() || c.name.empty() ? "no id or name" : "the NodeId is taken");
      continue;
    }
    adding_groups_.clear();
    alarm& a = *al;
    if (const status_code sc = insert(std::move(al), as, sink, now); sc.is_bad()) {
      spdlog::warn("conditions: the CertificateExpirationAlarm condition {} could not be added: {}", key, sc.to_string());
      continue;
    }
    certificates_.emplace(key, a.index);
    a.input_tripped = c.expiring;
    if (a.input_tripped) transition(a, true, false, as, sink, now);
  }
}

bool condition_manager::removed(std::size_t i) const noexcept { return alarms_[i]->removed; }

namespace {

// One node below a condition (Part 9's instance declarations): its browse path from the condition
// ("ActiveState/Id"), which is also the event field it mirrors; the reference from its parent; its
// TypeDefinition; its DataType (0: an Object).
struct condition_child {
  const char* path;
  std::uint32_t reference;
  std::uint32_t type_definition;
  std::uint32_t data_type;
};

constexpr std::uint32_t prop = ids::has_property, comp = ids::has_component, property_t = ids::property_type,
                        two_state_t = ids::two_state_variable_type, condition_variable_t = 9002,
                        finite_state_t = ids::finite_state_variable_type, finite_transition_t = 2767;
constexpr std::uint32_t dt_boolean = 1, dt_int16 = 4, dt_uint16 = 5, dt_double = 11, dt_string = 12, dt_byte_string = 15,
                        dt_node_id = 17, dt_status_code = 19, dt_localized_text = 21, dt_duration = 290,
                        dt_utc_time = 294;

// Every kind's: BaseEventType's properties (Part 5 §6.4.2), ConditionType's (§5.5.2),
// AcknowledgeableConditionType's (§5.7.2), AlarmConditionType's (§5.8.2) with ShelvingState (§5.8.17).
constexpr condition_child condition_children[] = {
    {"EventId", prop, property_t, dt_byte_string},
    {"EventType", prop, property_t, dt_node_id},
    {"SourceNode", prop, property_t, dt_node_id},
    {"SourceName", prop, property_t, dt_string},
    {"Time", prop, property_t, dt_utc_time},
    {"ReceiveTime", prop, property_t, dt_utc_time},
    {"Message", prop, property_t, dt_localized_text},
    {"Severity", prop, property_t, dt_uint16},
    {"ConditionClassId", prop, property_t, dt_node_id},
    {"ConditionClassName", prop, property_t, dt_localized_text},
    {"ConditionName", prop, property_t, dt_string},
    {"BranchId", prop, property_t, dt_node_id},
    {"Retain", prop, property_t, dt_boolean},
    {"EnabledState", comp, two_state_t, dt_localized_text},
    {"EnabledState/Id", prop, property_t, dt_boolean},
    {"Quality", comp, condition_variable_t, dt_status_code},
    {"Quality/SourceTimestamp", prop, property_t, dt_utc_time},
    {"LastSeverity", comp, condition_variable_t, dt_uint16},
    {"LastSeverity/SourceTimestamp", prop, property_t, dt_utc_time},
    {"Comment", comp, condition_variable_t, dt_localized_text},
    {"Comment/SourceTimestamp", prop, property_t, dt_utc_time},
    {"ClientUserId", prop, property_t, dt_string},
    {"AckedState", comp, two_state_t, dt_localized_text},
    {"AckedState/Id", prop, property_t, dt_boolean},
    {"ConfirmedState", comp, two_state_t, dt_localized_text},
    {"ConfirmedState/Id", prop, property_t, dt_boolean},
    {"ActiveState", comp, two_state_t, dt_localized_text},
    {"ActiveState/Id", prop, property_t, dt_boolean},
    {"ActiveState/TransitionTime", prop, property_t, dt_utc_time},
    {"InputNode", prop, property_t, dt_node_id},
    {"SuppressedState", comp, two_state_t, dt_localized_text},
    {"SuppressedState/Id", prop, property_t, dt_boolean},
    {"SuppressedState/TransitionTime", prop, property_t, dt_utc_time},
    {"OutOfServiceState", comp, two_state_t, dt_localized_text},
    {"OutOfServiceState/Id", prop, property_t, dt_boolean},
    {"OutOfServiceState/TransitionTime", prop, property_t, dt_utc_time},
    {"SuppressedOrShelved", prop, property_t, dt_boolean},
    {"ShelvingState", comp, ids::shelved_state_machine_type, 0},
    {"ShelvingState/CurrentState", comp, finite_state_t, dt_localized_text},
    {"ShelvingState/CurrentState/Id", prop, property_t, dt_node_id},
    {"ShelvingState/LastTransition", comp, finite_transition_t, dt_localized_text},
    {"ShelvingState/LastTransition/Id", prop, property_t, dt_node_id},
    {"ShelvingState/UnshelveTime", prop, property_t, dt_duration},
};
constexpr condition_child max_time_shelved_child{"MaxTimeShelved", prop, property_t, dt_duration};
// §5.8.2 (1.05): the alarm parameters an alarm has; ReAlarmRepeatCount is a BaseDataVariable (i=63).
constexpr condition_child on_delay_child{"OnDelay", prop, property_t, dt_duration},
    off_delay_child{"OffDelay", prop, property_t, dt_duration},
    re_alarm_time_child{"ReAlarmTime", prop, property_t, dt_duration},
    re_alarm_repeat_count_child{"ReAlarmRepeatCount", comp, ids::base_data_variable_type, dt_int16};
// ExclusiveLimitAlarmType (§5.8.18) and its LimitState (§5.8.13); the limits it has (§5.8.16).
constexpr condition_child exclusive_children[] = {
    {"LimitState", comp, 9318, 0},
    {"LimitState/CurrentState", comp, finite_state_t, dt_localized_text},
    {"LimitState/CurrentState/Id", prop, property_t, dt_node_id},
    {"LimitState/LastTransition", comp, finite_transition_t, dt_localized_text},
    {"LimitState/LastTransition/Id", prop, property_t, dt_node_id},
};
constexpr condition_child limit_children[] = {
    {"LowLowLimit", prop, property_t, dt_double},
    {"LowLimit", prop, property_t, dt_double},
    {"HighLimit", prop, property_t, dt_double},
    {"HighHighLimit", prop, property_t, dt_double},
};
// LimitAlarmType (1.05): each limit's deadband and severity, low_low .. high_high.
constexpr condition_child limit_deadband_children[] = {
    {"LowLowDeadband", prop, property_t, dt_double},
    {"LowDeadband", prop, property_t, dt_double},
    {"HighDeadband", prop, property_t, dt_double},
    {"HighHighDeadband", prop, property_t, dt_double},
};
constexpr condition_child limit_severity_children[] = {
    {"SeverityLowLow", prop, property_t, dt_uint16},
    {"SeverityLow", prop, property_t, dt_uint16},
    {"SeverityHigh", prop, property_t, dt_uint16},
    {"SeverityHighHigh", prop, property_t, dt_uint16},
};
// NonExclusiveLimitAlarmType (§5.8.20): a TwoStateVariable per limit it has, low_low .. high_high.
constexpr condition_child non_exclusive_children[] = {
    {"LowLowState", comp, two_state_t, dt_localized_text}, {"LowLowState/Id", prop, property_t, dt_boolean},
    {"LowState", comp, two_state_t, dt_localized_text},    {"LowState/Id", prop, property_t, dt_boolean},
    {"HighState", comp, two_state_t, dt_localized_text},   {"HighState/Id", prop, property_t, dt_boolean},
    {"HighHighState", comp, two_state_t, dt_localized_text}, {"HighHighState/Id", prop, property_t, dt_boolean},
};
constexpr condition_child normal_state_child{"NormalState", prop, property_t, dt_node_id};
// §5.8.2 (1.05): a latching alarm's LatchedState.
constexpr condition_child latched_children[] = {
    {"LatchedState", comp, two_state_t, dt_localized_text},
    {"LatchedState/Id", prop, property_t, dt_boolean},
};
// §5.8.22 (Non)ExclusiveDeviationAlarmType and §5.8.23 (Non)ExclusiveRateOfChangeAlarmType.
constexpr condition_child setpoint_node_child{"SetpointNode", prop, property_t, dt_node_id},
    base_setpoint_node_child{"BaseSetpointNode", prop, property_t, dt_node_id},
    engineering_units_child{"EngineeringUnits", prop, property_t, ids::eu_information};
// §5.8.25 DiscrepancyAlarmType: TargetValueNode and ExpectedTime (mandatory), Tolerance (optional).
constexpr condition_child target_value_node_child{"TargetValueNode", prop, property_t, dt_node_id},
    expected_time_child{"ExpectedTime", prop, property_t, dt_duration},
    tolerance_child{"Tolerance", prop, property_t, dt_double};
// §5.8.24.7 CertificateExpirationAlarmType (ExpirationLimit optional, always given here).
constexpr condition_child certificate_children[] = {
    {"ExpirationDate", prop, property_t, dt_utc_time},
    {"ExpirationLimit", prop, property_t, dt_duration},
    {"CertificateType", prop, property_t, dt_node_id},
    {"Certificate", prop, property_t, dt_byte_string},
};

// The NodeId of a node below the condition: a String id in the condition's namespace, the
// condition's identifier (a String id's text, the text form of another) and the path with dots:
// "Tank.Level.Alarm.ActiveState.Id".
node_id condition_child_id(const node_id& condition, std::string_view path) {
  std::string text = condition.type() == node_id_type::string ? std::string(condition.text()) : condition.to_string();
  text += '.';
  for (const char c : path) text += c == '/' ? '.' : c;
  return node_id::string(condition.namespace_index(), text);
}

}  // namespace

status_code condition_manager::add_nodes(alarm& a, address_space& as) {
  const node_index has_type = as.find(node_id(0, has_type_definition));
  // The nodes added so far, by path, to find a child's parent.
  std::vector<std::pair<std::string_view, node_index>> made;
  const auto add = [&](const condition_child& c) -> status_code {
    const std::string_view path = c.path;
    const auto slash = path.rfind('/');
    node_index parent = a.node;
    if (slash != std::string_view::npos) {
      const auto p = std::find_if(made.begin(), made.end(), [&](const auto& m) { return m.first == path.substr(0, slash); });
      if (p == made.end()) return status::bad_internal_error;
      parent = p->second;
    }
    node_spec spec;
    spec.id = condition_child_id(a.id, path);
    spec.cls = c.data_type ? node_class::variable : node_class::object;
    spec.browse_ns = 0;  // Part 9's names: the instance declarations' browse names (namespace 0)
    spec.browse_name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (c.data_type) {
      spec.data_type = node_id(0, c.data_type);
      spec.value.has_value = false;
    }
    const auto added = as.add_node(std::move(spec));
    if (!added) {
      for (const auto& m : made) as.remove_node(m.second);  // refused whole: nothing left behind
      a.vars.clear();
      return added.error();
    }
    as.add_reference(parent, as.find(node_id(0, c.reference)), *added);
    as.add_reference(*added, has_type, as.find(node_id(0, c.type_definition)));
    made.emplace_back(path, *added);
    if (c.data_type) {
      static constexpr std::string_view fixed_paths[] = {
          "EventType", "SourceNode", "SourceName", "ConditionClassId", "ConditionClassName", "ConditionName",
          "BranchId", "InputNode", "MaxTimeShelved", "OnDelay", "OffDelay", "ReAlarmTime", "LowLowLimit", "LowLimit", "HighLimit", "HighHighLimit",
          "LowLowDeadband", "LowDeadband", "HighDeadband", "HighHighDeadband", "SeverityLowLow", "SeverityLow",
          "SeverityHigh", "SeverityHighHigh",
          "NormalState", "SetpointNode", "BaseSetpointNode", "EngineeringUnits", "TargetValueNode", "ExpectedTime",
          "Tolerance", "ExpirationDate", "ExpirationLimit", "CertificateType", "Certificate"};
      const bool fixed = std::find(std::begin(fixed_paths), std::end(fixed_paths), path) != std::end(fixed_paths);
      a.vars.push_back({fields_->intern(path), *added, 0, fixed});
    }
    else if (path == "ShelvingState") a.shelving_node = *added;
    return status::good;
  };
  a.vars.reserve(std::size(condition_children) + 8);
  for (const auto& c : condition_children)
    if (const status_code sc = add(c); sc.is_bad()) return sc;
  if (a.max_time_shelved > 0)
    if (const status_code sc = add(max_time_shelved_child); sc.is_bad()) return sc;
  for (const auto& [set, c] : {std::pair{a.on_delay > 0, &on_delay_child}, std::pair{a.off_delay > 0, &off_delay_child},
                               std::pair{a.re_alarm_time > 0, &re_alarm_time_child},
                               std::pair{a.re_alarm_time > 0, &re_alarm_repeat_count_child}})
    if (set)
      if (const status_code sc = add(*c); sc.is_bad()) return sc;
  if (a.latching)
    for (const auto& c : latched_children)
      if (const status_code sc = add(c); sc.is_bad()) return sc;
  if (a.kind == alarm_kind::exclusive_limit)
    for (const auto& c : exclusive_children)
      if (const status_code sc = add(c); sc.is_bad()) return sc;
  if (a.kind == alarm_kind::exclusive_limit || a.kind == alarm_kind::non_exclusive_limit) {
    const std::array<const std::optional<double>*, 4> limits{&a.ll, &a.l, &a.h, &a.hh};
    for (std::size_t i = 0; i < 4; ++i) {
      if (!*limits[i]) continue;
      for (const auto& c : {limit_children[i], limit_severity_children[i]})
        if (const status_code sc = add(c); sc.is_bad()) return sc;
      if (a.deadbands[i] > 0)  // optional, and without a deadband there is nothing to say
        if (const status_code sc = add(limit_deadband_children[i]); sc.is_bad()) return sc;
      if (a.kind == alarm_kind::non_exclusive_limit)
        for (const auto& c : {non_exclusive_children[2 * i], non_exclusive_children[2 * i + 1]})
          if (const status_code sc = add(c); sc.is_bad()) return sc;
    }
  }
  if (a.kind == alarm_kind::off_normal || a.kind == alarm_kind::certificate)
    if (const status_code sc = add(normal_state_child); sc.is_bad()) return sc;
  if (a.kind == alarm_kind::certificate)
    for (const auto& c : certificate_children)
      if (const status_code sc = add(c); sc.is_bad()) return sc;
  for (const auto& [set, c] : {std::pair{a.measured == alarm_measure::deviation, &setpoint_node_child},
                               std::pair{!a.base_setpoint_id.is_null(), &base_setpoint_node_child},
                               std::pair{a.units.has_value(), &engineering_units_child},
                               std::pair{a.kind == alarm_kind::discrepancy, &target_value_node_child},
                               std::pair{a.kind == alarm_kind::discrepancy, &expected_time_child},
                               std::pair{a.kind == alarm_kind::discrepancy && !std::isnan(a.tolerance), &tolerance_child}})
    if (set)
      if (const status_code sc = add(*c); sc.is_bad()) return sc;
  // The Methods are the types' own nodes, referenced by every condition (decision 0053): Part 9
  // lets a client call them with the ConditionId (or the ShelvingState) as the ObjectId.
  const node_index has_component = as.find(node_id(0, ids::has_component));
  for (const std::uint32_t m : {m_enable, m_disable, m_add_comment, m_acknowledge, m_confirm, m_suppress, m_unsuppress,
                                m_remove_from_service, m_place_in_service, m_suppress2, m_unsuppress2,
                                m_remove_from_service2, m_place_in_service2})
    if (const node_index method = as.find(node_id(0, m)); method != no_node)
      as.add_reference(a.node, has_component, method);
  if (a.latching)
    for (const std::uint32_t m : {m_reset, m_reset2})
      if (const node_index method = as.find(node_id(0, m)); method != no_node) as.add_reference(a.node, has_component, method);
  for (const std::uint32_t m : {m_timed_shelve, m_one_shot_shelve, m_unshelve, m_timed_shelve2, m_one_shot_shelve2, m_unshelve2})
    as.add_reference(a.shelving_node, has_component, as.find(node_id(0, m)));
  return status::good;
}

void condition_manager::sync_nodes(alarm& a, address_space& as, const instant& now) {
  static const variant null_value;
  auto& fields = a.ev.fields;
  const bool all = !a.synced;
  a.synced = true;
  for (auto& m : a.vars) {
    if (m.fixed && !all) continue;  // the same in every event
    const variant* v = &null_value;
    if (m.at < fields.size() && fields[m.at].key == m.key) {
      v = &fields[m.at].value;
    } else {
      for (std::uint32_t i = 0; i < fields.size(); ++i)
        if (fields[i].key == m.key) {
          v = &fields[i].value;
          m.at = i;
          break;
        }
    }
    const node_index n = m.node;
    const variable_data* var = as.variable(n);
    if (!var || (var->value.has_value && var->value.value == *v) || (!var->value.has_value && v->empty())) continue;
    as.assign_value(n, *v, a.time, now.utc);  // in place: no allocation once warm
  }
}

void condition_manager::value_changed(node_index n, const data_value& v) {
  if (n < by_suppressor_.size())
    for (const std::uint32_t a : by_suppressor_[n]) {
      noted x{a, 0, false, v.status, true};
      x.numeric = discrete_of(v.value, x.value);
      pending_.push_back(x);
    }
  if (n < by_setpoint_.size())
    for (const std::uint32_t a : by_setpoint_[n]) {
      noted x{a, 0, false, v.status};
      x.numeric = alarms_[a]->kind == alarm_kind::discrepancy ? discrete_of(v.value, x.value) : number_of(v.value, x.value);
      x.setpoint = true;
      pending_.push_back(x);
    }
  if (n >= by_input_.size()) return;
  for (const std::uint32_t a : by_input_[n]) {
    noted x{a, 0, false, v.status};
    x.numeric = alarms_[a]->two_state() ? discrete_of(v.value, x.value) : number_of(v.value, x.value);
    pending_.push_back(x);
  }
}

void condition_manager::process(address_space& as, event_sink& sink, const instant& now) {
  // Evaluating raises events, which reach no value observer: nothing is added meanwhile, but
  // swapping keeps that safe should it change.
  std::swap(pending_, processing_);
  for (const noted& x : processing_) {
    alarm& a = *alarms_[x.alarm];
    if (x.suppression) {
      // A Bad value of the suppressing Variable changes nothing: only true and false decide.
      if (x.numeric && x.quality.is_good() && !std::isnan(x.value)) set_suppressed(a, x.value != 0, nullptr, as, sink, now);
      continue;
    }
    if (x.setpoint) {
      // §5.8.22: a new setpoint moves the limits; the input's latest value is compared again (the
      // Quality stays the input's).
      if (!x.numeric || std::isnan(x.value)) continue;
      if (a.kind == alarm_kind::discrepancy) {
        // §5.8.25 (docs/decisions/0081): a new target gives the input ExpectedTime from now to reach
        // it; an active alarm stays active until the input is at the (new) target.
        if (x.value == a.setpoint_value) continue;
        a.discrepancy_pending = false;
      }
      a.setpoint_value = x.value;
      if (!std::isnan(a.last_input)) evaluate(a, a.last_input, a.quality, as, sink, now);
      continue;
    }
    if (x.numeric) evaluate(a, x.value, x.quality, as, sink, now);
  }
  processing_.clear();
}

namespace {

// §5.8.18: the most severe limit passed; a state is left only when the value is back by more than
// its limit's deadband (hysteresis), so a value hovering at a limit does not flap.
template <class Alarm>
limit next_limit(const Alarm& a, limit current, double v) {
  const auto above = [&](const std::optional<double>& lim, limit s) {
    if (!lim) return false;
    const bool in = current >= s && current >= limit::high;
    return in ? v > *lim - a.deadband(s) : v > *lim;
  };
  const auto below = [&](const std::optional<double>& lim, limit s) {
    if (!lim) return false;
    const bool in = current <= s && current != limit::none && current <= limit::low;
    return in ? v < *lim + a.deadband(s) : v < *lim;
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
std::uint8_t next_states(const Alarm& a, std::uint8_t current, double v) {
  std::uint8_t out = 0;
  const auto above = [&](const std::optional<double>& lim, limit s) {
    if (lim && ((current & bit(s)) ? v > *lim - a.deadband(s) : v > *lim)) out |= bit(s);
  };
  const auto below = [&](const std::optional<double>& lim, limit s) {
    if (lim && ((current & bit(s)) ? v < *lim + a.deadband(s) : v < *lim)) out |= bit(s);
  };
  above(a.hh, limit::high_high);
  above(a.h, limit::high);
  below(a.l, limit::low);
  below(a.ll, limit::low_low);
  return out;
}

}  // namespace

void condition_manager::evaluate(alarm& a, double v, status_code quality, address_space& as, event_sink& sink,
                                 const instant& now) {
  if (std::isnan(v)) return;
  // §5.8.22, §5.8.23: the deviation or the rate, when there is one; without, the state stays (a new
  // Quality is still reported).
  const bool measured = a.measured == alarm_measure::value || measure(a, v, now);
  if (measured) a.last_measure = v;
  // The input's own state, each deadband relative to it (not to the delayed alarm's).
  if (measured) switch (a.kind) {
    case alarm_kind::off_normal:
    case alarm_kind::discrete:
      // §5.8.24.2: active while the input's value is not the normal one; §5.8.24.1: a discrete
      // alarm while it is the alarm value.
      a.input_tripped = a.kind == alarm_kind::off_normal ? v != a.reference : v == a.reference;
      break;
    case alarm_kind::certificate: break;  // no input: certificates() sets the state
    case alarm_kind::discrepancy: {
      // §5.8.25 (docs/decisions/0081): in alarm once the input has been away from the target
      // (beyond Tolerance when there is one) for ExpectedTime, counted from the later of the
      // target's change and the input's leaving it; out of it only when the input is at the target.
      // Without a target value yet the state stays.
      a.last_input = v;
      if (std::isnan(a.setpoint_value)) {
        a.discrepancy_pending = false;
        break;
      }
      const bool away =
          std::isnan(a.tolerance) ? v != a.setpoint_value : std::fabs(v - a.setpoint_value) > a.tolerance;
      if (!away) {
        a.discrepancy_pending = false;
        a.input_tripped = false;
      } else if (!a.input_tripped) {
        if (!a.discrepancy_pending) {
          a.discrepancy_pending = true;
          a.discrepancy_since = now.steady;
          watch(a);  // the tick sees ExpectedTime run out when no value comes
        }
        if (std::chrono::duration<double, std::milli>(now.steady - a.discrepancy_since).count() >= a.expected_time) {
          a.discrepancy_pending = false;
          a.input_tripped = true;
        }
      }
      break;
    }
    case alarm_kind::exclusive_limit: a.input_state = next_limit(a, a.input_state, v); break;
    case alarm_kind::non_exclusive_limit: a.input_states = next_states(a, a.input_states, v); break;
  }
  const bool quality_changed = quality != a.quality;
  a.quality = quality;
  if (quality_changed) a.quality_time = now.utc;
  transition(a, delay_over(a, now), quality_changed, as, sink, now);
}

// §5.8.2 (1.05): OnDelay, OffDelay. The alarm takes the input's state at once while both agree on
// being active (High to HighHigh needs no delay) and when there is no delay; otherwise once the
// input has kept its activity for the whole delay (a return within it restarts the count).
bool condition_manager::measure(alarm& a, double& v, const instant& now) noexcept {
  a.last_input = v;
  if (a.measured == alarm_measure::deviation) {
    if (std::isnan(a.setpoint_value)) return false;
    v -= a.setpoint_value;
    return true;
  }
  // docs/decisions/0070: the change over the window per second. The first value starts the first
  // window; a value inside it is only noted (the latest one closes the window, here or on the tick).
  if (!a.window_started) {
    a.window_started = true;
    a.window_start = now.steady;
    a.window_value = v;
    return false;
  }
  const double elapsed = std::chrono::duration<double>(now.steady - a.window_start).count();
  if (elapsed * 1'000 < a.window) return false;
  const double rate = (v - a.window_value) / elapsed;
  a.window_start = now.steady;
  a.window_value = v;
  v = rate;
  return true;
}

bool condition_manager::delay_over(alarm& a, const instant& now) {
  const bool going_active = a.input_active();
  const double delay = going_active ? a.on_delay : a.off_delay;
  if (going_active == a.active() || delay <= 0) {
    a.delay_pending = false;
    return true;
  }
  if (!a.delay_pending) {
    a.delay_pending = true;
    a.delay_since = now.steady;
    watch(a);
  }
  if (std::chrono::duration<double, std::milli>(now.steady - a.delay_since).count() < delay) return false;
  a.delay_pending = false;
  return true;
}

void condition_manager::watch(alarm& a) {
  if (a.timed) return;
  a.timed = true;
  timed_.push_back(a.index);
}

void condition_manager::transition(alarm& a, bool take_input, bool quality_changed, address_space& as,
                                   event_sink& sink, const instant& now) {
  const bool was_active = a.active();
  bool changed = false;
  bool new_occurrence = false;  // §5.7.2: a state to acknowledge (and then confirm) began
  if (take_input) {
    switch (a.kind) {
      case alarm_kind::off_normal:
      case alarm_kind::discrete:
      case alarm_kind::discrepancy:
      case alarm_kind::certificate:
        changed = a.input_tripped != a.tripped;
        a.tripped = a.input_tripped;
        new_occurrence = changed && a.tripped;
        break;
      case alarm_kind::exclusive_limit:
        changed = a.input_state != a.state;
        a.state = a.input_state;
        new_occurrence = changed && a.state != limit::none;  // HighHigh back to High is a new state too
        break;
      case alarm_kind::non_exclusive_limit:
        changed = a.input_states != a.states;
        new_occurrence = (a.input_states & ~a.states) != 0;  // a state that was not active is
        a.states = a.input_states;
        break;
    }
  }
  if (!changed && !quality_changed) return;
  if (changed) {
    if (a.active() != was_active) {
      a.active_since = now.utc;
      // Part 9 §8.2: an alarm raised is counted; the time it was active ends.
      if (a.active()) {
        a.latched = a.latching;  // §5.8.2 (1.05): latched from going active until Reset
        a.active_at = now.steady;
        metrics_.activated(a.scopes, a.activations, a.next_activation, now);
      } else {
        metrics_.ended_active(a.scopes, std::chrono::duration<double, std::milli>(now.steady - a.active_at).count());
      }
    }
    // §5.8.17: a OneShotShelve lasts until the alarm goes inactive.
    if (was_active && !a.active() && a.shelf == shelving::one_shot) {
      a.shelf = shelving::unshelved;
      a.last_transition = tr_one_shot_to_unshelved;
      a.has_deadline = false;
      std::erase(shelved_, a.index);
    }
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
      case alarm_kind::discrepancy:
        a.severity = a.tripped ? a.sev_tripped : std::uint16_t{1};
        a.message += !a.tripped                              ? "normal"
                     : a.kind == alarm_kind::discrete        ? "active"
                     : a.kind == alarm_kind::discrepancy     ? "discrepancy"
                     : a.type_id == trip_alarm_type          ? "tripped"
                                                             : "off normal";
        break;
      case alarm_kind::certificate:
        a.severity = a.tripped ? a.sev_tripped : std::uint16_t{1};
        a.message.assign(a.detail);  // the expiry check's words: which certificate, how long left
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
      // §5.5.2, §4.4: active again while the earlier state still waits for Acknowledge or Confirm:
      // that state lives on as a branch, and the trunk takes the new occurrence.
      if (!was_active && (!a.acked || !a.confirmed) && a.enabled && a.max_branches > 0) open_branch(a, sink, now);
      if (a.acked) a.unacked_at = now.steady;
      a.acked = false;
      a.confirmed = true;
      // §5.8.2 (1.05): ReAlarmTime counts from when the alarm was last alarmed; a new occurrence
      // starts ReAlarmRepeatCount again.
      if (!was_active) a.re_alarm_count = 0;
      if (a.re_alarm_time > 0) {
        a.re_alarm_armed = true;
        a.re_alarm_at = now.steady + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                         std::chrono::duration<double, std::milli>(a.re_alarm_time));
        watch(a);
      }
    }
    if (!a.active()) a.re_alarm_armed = false;
    if (a.severity != a.last_severity) a.severity_time = now.utc;
  }
  a.time = now.utc;
  if (a.enabled) emit(a, as, sink, now);
}

// The condition's event with every field of its type (ExclusiveLimitAlarmType,
// NonExclusiveLimitAlarmType, OffNormalAlarmType, DiscreteAlarmType) a client may select.
void condition_manager::emit(alarm& a, address_space& as, event_sink& sink, const instant& now) {
  event_record& e = a.ev;
  e.type = a.type_node;
  e.source = a.input;
  sink.next_event_id(e.set(field::event_id).emplace<byte_string>());
  e.set(field::receive_time) = now.utc;  // the sink sets it again when it delivers; the node has it now
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
  e.set(k_.quality_source_timestamp) = a.quality_time;
  e.set(k_.last_severity) = a.last_severity;
  e.set(k_.last_severity_source_timestamp) = a.severity_time;
  e.set(k_.comment) = a.comment;
  e.set(k_.comment_source_timestamp) = a.comment_time;
  e.set(k_.client_user_id) = a.user;
  text(e.set(k_.acked_state), a.acked ? "Acknowledged" : "Unacknowledged");
  e.set(k_.acked_state_id) = a.acked;
  text(e.set(k_.confirmed_state), a.confirmed ? "Confirmed" : "Unconfirmed");
  e.set(k_.confirmed_state_id) = a.confirmed;
  text(e.set(k_.active_state), a.active() ? "Active" : "Inactive");
  e.set(k_.active_state_id) = a.active();
  e.set(k_.active_state_transition_time) = a.active_since;
  e.set(k_.input_node) = a.input_id;
  // §5.8.2, §5.8.17: the shelving state travels with every event, so that a client's where clause
  // (SuppressedOrShelved = false) hides a shelved alarm's events: shelving flags them, never drops them.
  e.set(k_.suppressed_or_shelved) = a.suppressed_or_shelved();
  // §5.8.2 (1.05): suppression and out of service flag the events as shelving does.
  text(e.set(k_.suppressed_state), a.suppressed ? "Suppressed" : "Unsuppressed");
  e.set(k_.suppressed_state_id) = a.suppressed;
  e.set(k_.suppressed_state_transition_time) = a.suppressed_since;
  text(e.set(k_.out_of_service_state), a.out_of_service ? "Out of Service" : "In Service");
  e.set(k_.out_of_service_state_id) = a.out_of_service;
  e.set(k_.out_of_service_state_transition_time) = a.out_of_service_since;
  const std::uint32_t shelf_state = a.shelf == shelving::timed      ? shelf_timed
                                    : a.shelf == shelving::one_shot ? shelf_one_shot
                                                                    : shelf_unshelved;
  text(e.set(k_.shelving_current), a.shelf == shelving::timed      ? "TimedShelved"
                                   : a.shelf == shelving::one_shot ? "OneShotShelved"
                                                                   : "Unshelved");
  e.set(k_.shelving_current_id) = node_id(0, shelf_state);
  if (a.last_transition) {
    text(e.set(k_.shelving_last), shelving_transition_name(a.last_transition));
    e.set(k_.shelving_last_id) = node_id(0, a.last_transition);
  }
  e.set(k_.unshelve_time) = a.shelf == shelving::unshelved ? 0.0
                            : a.has_deadline ? std::max(0.0, std::chrono::duration<double, std::milli>(a.unshelve_at - now.steady).count())
                                             : DBL_MAX;  // §5.8.17.2: one-shot without MaxTimeShelved
  if (a.max_time_shelved > 0) e.set(k_.max_time_shelved) = a.max_time_shelved;
  // §5.8.2 (1.05): the alarm parameters it has, and how often this occurrence was alarmed again.
  if (a.on_delay > 0) e.set(k_.on_delay) = a.on_delay;
  if (a.off_delay > 0) e.set(k_.off_delay) = a.off_delay;
  if (a.re_alarm_time > 0) {
    e.set(k_.re_alarm_time) = a.re_alarm_time;
    e.set(k_.re_alarm_repeat_count) = a.re_alarm_count;
  }
  if (a.latching) {
    text(e.set(k_.latched_state), a.latched ? "Latched" : "Unlatched");
    e.set(k_.latched_state_id) = a.latched;
  }
  if (a.kind == alarm_kind::off_normal) {
    // §5.8.24.2: the normal value is the definition's, no Variable holds it: a null NodeId.
    e.set(k_.normal_state) = node_id();
    sync_nodes(a, as, now);
    sink.raise(e, now);
    return;
  }
  if (a.kind == alarm_kind::certificate) {
    // §5.8.24.7: a SystemOffNormalAlarmType: NormalState null (no Variable holds the normal state),
    // and the certificate's, set once (the record keeps them).
    if (!e.find(k_.expiration_date)) {
      e.set(k_.normal_state) = node_id();
      e.set(k_.expiration_date) = a.expiration_date;
      e.set(k_.expiration_limit) = a.expiration_limit;
      e.set(k_.certificate_type) = a.certificate_type;
      e.set(k_.certificate) = a.certificate;
    }
    sync_nodes(a, as, now);
    sink.raise(e, now);
    return;
  }
  if (a.kind == alarm_kind::discrepancy) {
    // §5.8.25: the definition's, set once (the record keeps them).
    if (!e.find(k_.target_value_node)) {
      e.set(k_.target_value_node) = a.setpoint_id;
      e.set(k_.expected_time) = a.expected_time;
      if (!std::isnan(a.tolerance)) e.set(k_.tolerance) = a.tolerance;
    }
    sync_nodes(a, as, now);
    sink.raise(e, now);
    return;
  }
  if (a.kind == alarm_kind::discrete) {  // §5.8.24.1: no fields beyond AlarmConditionType's
    sync_nodes(a, as, now);
    sink.raise(e, now);
    return;
  }
  // §5.8.22, §5.8.23: the definition's, set once (the record keeps them).
  if (a.measured == alarm_measure::deviation && !e.find(k_.setpoint_node)) {
    e.set(k_.setpoint_node) = a.setpoint_id;
    if (!a.base_setpoint_id.is_null()) e.set(k_.base_setpoint_node) = a.base_setpoint_id;
  }
  if (a.units && !e.find(k_.engineering_units)) {
    eu_information eu;
    eu.namespace_uri = ua_string(a.units->namespace_uri);
    eu.unit_id = a.units->unit_id;
    eu.display_name = a.units->display_name;
    eu.description = a.units->description;
    e.set(k_.engineering_units) = extension_object(std::move(eu));
  }
  if (a.hh) e.set(k_.high_high_limit) = *a.hh;
  if (a.h) e.set(k_.high_limit) = *a.h;
  if (a.l) e.set(k_.low_limit) = *a.l;
  if (a.ll) e.set(k_.low_low_limit) = *a.ll;
  {
    const std::array<const std::optional<double>*, 4> limits{&a.ll, &a.l, &a.h, &a.hh};
    const std::array<std::uint16_t, 4> severities{a.sev_ll, a.sev_l, a.sev_h, a.sev_hh};
    for (std::size_t i = 0; i < 4; ++i) {
      if (!*limits[i] || e.find(k_.limit_severities[i])) continue;  // the definition's, set once
      e.set(k_.limit_severities[i]) = severities[i];
      if (a.deadbands[i] > 0) e.set(k_.limit_deadbands[i]) = a.deadbands[i];
    }
  }
  if (a.kind == alarm_kind::non_exclusive_limit) {
    // §5.8.20: a TwoStateVariable per limit the alarm has (the optional ones it lacks stay null).
    const std::array<const std::optional<double>*, 4> limits{&a.ll, &a.l, &a.h, &a.hh};
    for (std::size_t i = 0; i < 4; ++i) {
      if (!*limits[i]) continue;
      const bool on = (a.states & bit(static_cast<limit>(i + 1))) != 0;
      text(e.set(k_.limit_states[i]), on ? "Active" : "Inactive");
      e.set(k_.limit_state_ids[i]) = on;
    }
    sync_nodes(a, as, now);
    sink.raise(e, now);
    return;
  }
  text(e.set(k_.limit_state_current), limit_name(a.state));
  text(e.set(k_.limit_state), limit_name(a.state));
  if (a.state == limit::none) e.set(k_.limit_state_current_id).clear();
  else e.set(k_.limit_state_current_id) = node_id(0, limit_state_id(a.state));
  sync_nodes(a, as, now);
  sink.raise(e, now);
}

// ---------------------------------------------------------------------------------------------
// Methods

// Part 9 §8.2: AlarmMetricsType's Reset on a metrics Object (the Server's or a group's), no arguments.
void condition_manager::reset_metrics(const call_method_request& req, address_space& as, const instant& now,
                                      call_method_result& out) {
  const node_index n = as.find(req.object_id);
  const std::int64_t scope = n == no_node ? -1 : metrics_.find(n);
  if (scope < 0) {
    out.status_code = n == no_node ? status::bad_node_id_unknown : status::bad_method_invalid;
    return;
  }
  if (req.input_arguments.size() != 0) {
    out.status_code = status::bad_too_many_arguments;
    return;
  }
  metrics_.reset(static_cast<std::uint32_t>(scope), now);
  metrics_.sync(as, now);
  out.status_code = status::good;
}

bool condition_manager::is_condition_method(const node_id& m) noexcept {
  if (m.namespace_index() != 0 || m.type() != node_id_type::numeric) return false;
  switch (m.numeric()) {
    case alarm_metrics::reset_method: return true;
    case m_enable: case m_disable: case m_add_comment: case m_refresh: case m_refresh2: case m_acknowledge: case m_confirm:
    case m_reset: case m_reset2:
      return true;
    default: return shelving_method_of(m.numeric()) != 0 || is_service_method(m.numeric());
  }
}

std::uint32_t condition_manager::audit_type(const node_id& method, const char*& name) noexcept {
  name = "";
  if (method.namespace_index() != 0 || method.type() != node_id_type::numeric) return 0;
  switch (const std::uint32_t m = method.numeric(); m) {
    case m_enable: name = "Enable"; return ids::audit_condition_enable_event_type;
    case m_disable: name = "Disable"; return ids::audit_condition_enable_event_type;
    case m_add_comment: name = "AddComment"; return ids::audit_condition_comment_event_type;
    case m_acknowledge: name = "Acknowledge"; return ids::audit_condition_acknowledge_event_type;
    case m_confirm: name = "Confirm"; return ids::audit_condition_confirm_event_type;
    case m_suppress: name = "Suppress"; return ids::audit_condition_suppression_event_type;
    case m_unsuppress: name = "Unsuppress"; return ids::audit_condition_suppression_event_type;
    case m_suppress2: name = "Suppress2"; return ids::audit_condition_suppression_event_type;
    case m_unsuppress2: name = "Unsuppress2"; return ids::audit_condition_suppression_event_type;
    case m_remove_from_service: name = "RemoveFromService"; return ids::audit_condition_out_of_service_event_type;
    case m_place_in_service: name = "PlaceInService"; return ids::audit_condition_out_of_service_event_type;
    case m_remove_from_service2: name = "RemoveFromService2"; return ids::audit_condition_out_of_service_event_type;
    case m_place_in_service2: name = "PlaceInService2"; return ids::audit_condition_out_of_service_event_type;
    case m_reset: name = "Reset"; return ids::audit_condition_reset_event_type;
    case m_reset2: name = "Reset2"; return ids::audit_condition_reset_event_type;
    default:
      switch (shelving_method_of(m)) {
        case m_timed_shelve: name = "TimedShelve"; break;
        case m_one_shot_shelve: name = "OneShotShelve"; break;
        case m_unshelve: name = "Unshelve"; break;
        case m_timed_shelve2: name = "TimedShelve2"; break;
        case m_one_shot_shelve2: name = "OneShotShelve2"; break;
        case m_unshelve2: name = "Unshelve2"; break;
        default: return 0;  // ConditionRefresh(2) has no audit event of its own
      }
      return ids::audit_condition_shelving_event_type;
  }
}

bool condition_manager::audit_subject(const node_id& object, const address_space& as, node_id& condition,
                                      node_index& input) noexcept {
  bool shelving_object = false;
  const alarm* a = find(object, as, shelving_object);
  if (!a) return false;
  condition = a->id;
  input = a->input;
  return true;
}

bool condition_manager::is_condition_call(const call_request& req) noexcept {
  for (const auto& m : req.methods_to_call)
    if (is_condition_method(m.method_id)) return true;
  return false;
}

condition_manager::alarm* condition_manager::find(const node_id& object, const address_space& as,
                                                   bool& shelving_object) noexcept {
  const node_index n = as.find(object);
  const auto it = n == no_node ? by_node_.end() : by_node_.find(n);
  if (it == by_node_.end()) return nullptr;
  alarm* a = alarms_[it->second].get();
  shelving_object = n == a->shelving_node;
  return a;
}

bool condition_manager::may_call(const call_method_request& m, const address_space& as,
                                 const authz::node_access& access) noexcept {
  // Nodes that are not there are call_one's to answer (Bad_NodeIdUnknown, Bad_MethodInvalid).
  const node_index object = as.find(m.object_id);
  const node_index method = as.find(m.method_id);
  return (object == no_node || access.may(object, authz::permission::call)) &&
         (method == no_node || access.may(method, authz::permission::call));
}

void condition_manager::refuse_call(call_method_result& out) {
  out.input_argument_results.clear();
  out.input_argument_diagnostic_infos.clear();
  out.output_arguments.clear();
  out.status_code = status::bad_user_access_denied;
}

void condition_manager::call_one(std::uint32_t session, const call_method_request& req, address_space& as,
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
  if (m == alarm_metrics::reset_method) {
    reset_metrics(req, as, now, out);
    return;
  }
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
  bool on_shelving_state = false;
  alarm* a = find(req.object_id, as, on_shelving_state);
  if (!a) {
    // Part 9 §5.7.3, §5.8.8: a condition's method called on its type (the ObjectType) is Bad_NodeIdInvalid.
    const node_index n = as.find(req.object_id);
    out.status_code = n == no_node                             ? status::bad_node_id_unknown
                      : as.at(n).cls == node_class::object_type ? status::bad_node_id_invalid
                                                                : status::bad_method_invalid;
    return;
  }
  if (const std::uint32_t shelf = shelving_method_of(m)) {
    // §5.8.17.3-5: on the ShelvingState Object, or with the ConditionId as the ObjectId.
    status_code sc = status::good;
    switch (shelf) {
      case m_timed_shelve: sc = check_args({builtin_type::double_}); break;
      case m_timed_shelve2: sc = check_args({builtin_type::double_, builtin_type::localized_text}); break;
      case m_one_shot_shelve2: case m_unshelve2: sc = check_args({builtin_type::localized_text}); break;
      default: sc = check_args({}); break;
    }
    if (sc.is_bad()) { out.status_code = sc; return; }
    const variant* duration = shelf == m_timed_shelve || shelf == m_timed_shelve2 ? &in[0] : nullptr;
    const localized_text* comment = nullptr;
    if (shelf == m_timed_shelve2) comment = in[1].get_if<localized_text>();
    if (shelf == m_one_shot_shelve2 || shelf == m_unshelve2) comment = in[0].get_if<localized_text>();
    out.status_code = shelve(*a, shelf, duration, comment, as, sink, now);
    return;
  }
  if (on_shelving_state) { out.status_code = status::bad_method_invalid; return; }  // not the state machine's
  if (is_service_method(m)) {
    // §5.8.8-5.8.15: on any state (active or not); the "2" forms take a comment. Asking for the
    // state the alarm is in changes nothing and raises no event.
    const bool with_comment = m == m_suppress2 || m == m_unsuppress2 || m == m_remove_from_service2 || m == m_place_in_service2;
    if (const status_code sc = with_comment ? check_args({builtin_type::localized_text}) : check_args({}); sc.is_bad()) {
      out.status_code = sc;
      return;
    }
    if (!a->enabled) { out.status_code = status::bad_condition_disabled; return; }
    const localized_text* comment = with_comment ? in[0].get_if<localized_text>() : nullptr;
    const bool suppression = m == m_suppress || m == m_unsuppress || m == m_suppress2 || m == m_unsuppress2;
    const bool on = m == m_suppress || m == m_suppress2 || m == m_remove_from_service || m == m_remove_from_service2;
    if (suppression) set_suppressed(*a, on, comment, as, sink, now);
    else set_out_of_service(*a, on, comment, as, sink, now);
    out.status_code = status::good;
    return;
  }
  if (m == m_reset || m == m_reset2) {
    if (const status_code sc = m == m_reset2 ? check_args({builtin_type::localized_text}) : check_args({}); sc.is_bad()) {
      out.status_code = sc;
      return;
    }
    out.status_code = reset(*a, m == m_reset2 ? in[0].get_if<localized_text>() : nullptr, as, sink, now);
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
    // current state. Value changes meanwhile are tracked, not reported. A disabled condition
    // keeps no branches: each ends with its own last event.
    if (!enable) close_branches(*a, as, sink, now);
    a->enabled = enable;
    a->time = now.utc;
    emit(*a, as, sink, now);
    out.status_code = status::good;
    return;
  }
  if (const status_code sc = check_args({builtin_type::byte_string, builtin_type::localized_text}); sc.is_bad()) {
    out.status_code = sc;
    return;
  }
  if (!a->enabled) { out.status_code = status::bad_condition_disabled; return; }
  // §5.7.3: the EventId names the state notification the operator saw: the latest one of the
  // trunk or of a branch (§5.5.2: the method acts on the branch it names).
  const variant* last = a->ev.find(field::event_id);
  alarm::branch* b = nullptr;
  if (!last || !(*last == in[0])) {
    const byte_string* given = in[0].get_if<byte_string>();
    for (auto& br : a->branches)
      if (const variant* id = br.ev.find(field::event_id); (id && *id == in[0]) || (!br.origin.is_null() && given && br.origin == *given)) {
        b = &br;
        break;
      }
    if (!b) { out.status_code = status::bad_event_id_unknown; return; }
  }
  bool& acked = b ? b->acked : a->acked;
  bool& confirmed = b ? b->confirmed : a->confirmed;
  if (m == m_acknowledge && acked) { out.status_code = status::bad_condition_branch_already_acked; return; }
  if (m == m_confirm && confirmed) { out.status_code = status::bad_condition_branch_already_confirmed; return; }
  if (m == m_acknowledge) {
    // Part 9 §8.2 MaximumUnAck: the trunk's time unacknowledged (a branch's began before, on the trunk).
    if (!b) metrics_.acknowledged(a->scopes, std::chrono::duration<double, std::milli>(now.steady - a->unacked_at).count());
    acked = true;
    confirmed = false;  // §5.7.2: an acknowledged occurrence waits for its confirmation
  } else if (m == m_confirm) {
    confirmed = true;
  }
  if (b) {
    update_branch(*a, static_cast<std::size_t>(b - a->branches.data()), *in[1].get_if<localized_text>(), sink, now);
    out.status_code = status::good;
    return;
  }
  a->comment = *in[1].get_if<localized_text>();
  a->time = a->comment_time = now.utc;
  emit(*a, as, sink, now);
  out.status_code = status::good;
}

status_code condition_manager::shelve(alarm& a, std::uint32_t method, const variant* duration,
                                      const localized_text* comment, address_space& as, event_sink& sink,
                                      const instant& now) {
  // A disabled condition reports nothing (§5.5.4): its shelving waits until it is enabled again.
  if (!a.enabled) return status::bad_condition_disabled;
  const shelving from = a.shelf;
  std::uint32_t transition = 0;
  if (method == m_unshelve || method == m_unshelve2) {
    if (from == shelving::unshelved) return status::bad_condition_not_shelved;
    transition = from == shelving::timed ? tr_timed_to_unshelved : tr_one_shot_to_unshelved;
  } else if (method == m_one_shot_shelve || method == m_one_shot_shelve2) {
    if (from == shelving::one_shot) return status::bad_condition_already_shelved;
    transition = from == shelving::timed ? tr_timed_to_one_shot : tr_unshelved_to_one_shot;
  } else {
    // §5.8.17.3: a timed shelf is not restarted; the time is positive and at most MaxTimeShelved.
    if (from == shelving::timed) return status::bad_condition_already_shelved;
    const double ms = *duration->get_if<double>();
    const double longest = a.max_time_shelved > 0 ? a.max_time_shelved : longest_shelving_ms;
    if (!(ms > 0) || ms > longest) return status::bad_shelving_time_out_of_range;
    transition = from == shelving::one_shot ? tr_one_shot_to_timed : tr_unshelved_to_timed;
    a.has_deadline = true;
    a.unshelve_at = now.steady + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double, std::milli>(ms));
  }
  if (comment) {
    a.comment = *comment;
    a.comment_time = now.utc;
  }
  if (transition == tr_timed_to_unshelved || transition == tr_one_shot_to_unshelved) {
    unshelve(a, transition, as, sink, now);
    return status::good;
  }
  if (method == m_one_shot_shelve || method == m_one_shot_shelve2) {
    // §5.8.17.2: a one-shot shelf ends with the active state, or after MaxTimeShelved when there is one.
    a.has_deadline = a.max_time_shelved > 0;
    if (a.has_deadline)
      a.unshelve_at = now.steady + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                       std::chrono::duration<double, std::milli>(a.max_time_shelved));
    a.shelf = shelving::one_shot;
  } else {
    a.shelf = shelving::timed;
  }
  a.last_transition = transition;
  if (from == shelving::unshelved) shelved_.push_back(a.index);
  a.time = now.utc;
  emit(a, as, sink, now);
  return status::good;
}

status_code condition_manager::reset(alarm& a, const localized_text* comment, address_space& as, event_sink& sink,
                                     const instant& now) {
  // §5.8.5: only an alarm that exposes LatchedState has Reset (the MethodId does not fit the object).
  if (!a.latching) return status::bad_method_invalid;
  if (!a.enabled) return status::bad_condition_disabled;
  // §5.8.5: it must have been in alarm, be back to normal, acknowledged and confirmed.
  if (!a.latched || a.active() || !a.acked || !a.confirmed) return status::bad_invalid_state;
  // §5.8.6: Reset2's comment; a null one (no locale, no text) leaves the Comment as it is.
  if (comment && !(comment->locale.empty() && comment->text.empty())) {
    a.comment = *comment;
    a.comment_time = now.utc;
  }
  a.latched = false;
  a.time = now.utc;
  emit(a, as, sink, now);
  return status::good;
}

void condition_manager::unshelve(alarm& a, std::uint32_t transition, address_space& as, event_sink& sink,
                                 const instant& now) {
  a.shelf = shelving::unshelved;
  a.last_transition = transition;
  a.has_deadline = false;
  std::erase(shelved_, a.index);
  a.time = now.utc;
  if (a.enabled) emit(a, as, sink, now);
}

void condition_manager::tick(address_space& as, event_sink& sink, const instant& now) {
  metrics_.sync(as, now);  // Part 9 §8.2: the rates move with the clock
  // §5.8.2 (1.05): delays that ran out and re-alarms that are due, in the order they were armed.
  for (std::size_t i = 0; i < timed_.size();) {
    alarm& a = *alarms_[timed_[i]];
    if (a.delay_pending && delay_over(a, now)) transition(a, true, false, as, sink, now);
    if (a.re_alarm_armed && now.steady >= a.re_alarm_at) re_alarm(a, as, sink, now);
    // §5.8.25: ExpectedTime ran out with the input still away from the target.
    if (a.discrepancy_pending &&
        std::chrono::duration<double, std::milli>(now.steady - a.discrepancy_since).count() >= a.expected_time)
      evaluate(a, a.last_input, a.quality, as, sink, now);
    // docs/decisions/0070: a rate's window that is over closes with the latest value (an input
    // that holds still reports nothing: its rate falls to 0 here). Rate alarms stay on the list.
    if (a.measured == alarm_measure::rate && a.window_started &&
        std::chrono::duration<double, std::milli>(now.steady - a.window_start).count() >= a.window)
      evaluate(a, a.last_input, a.quality, as, sink, now);
    if (!a.delay_pending && !a.re_alarm_armed && !a.discrepancy_pending && a.measured != alarm_measure::rate) {
      a.timed = false;
      timed_.erase(timed_.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    ++i;
  }
  for (std::size_t i = 0; i < shelved_.size();) {
    alarm& a = *alarms_[shelved_[i]];
    if (!a.has_deadline) {
      ++i;
      continue;
    }
    if (now.steady >= a.unshelve_at) {
      // §5.8.17.1: the time is up (erases shelved_[i]: the same i is the next one).
      unshelve(a, a.shelf == shelving::timed ? tr_timed_to_unshelved : tr_one_shot_to_unshelved, as, sink, now);
      continue;
    }
    // UnshelveTime counts down between events: the field and its Variable, no event.
    a.ev.set(k_.unshelve_time) = std::chrono::duration<double, std::milli>(a.unshelve_at - now.steady).count();
    sync_nodes(a, as, now);
    ++i;
  }
}

// §5.8.2 (1.05): an alarm still active ReAlarmTime after it was last alarmed is alarmed again, as if
// it had just entered its state: unacknowledged, a new event (a new Time and EventId: back on top
// of an alarm list), ReAlarmRepeatCount + 1, the time restarted; at most re_alarm_max_count times
// per occurrence. A disabled condition reports nothing: its re-alarms wait (and are not counted).
void condition_manager::re_alarm(alarm& a, address_space& as, event_sink& sink, const instant& now) {
  a.re_alarm_at = now.steady + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                   std::chrono::duration<double, std::milli>(a.re_alarm_time));
  if (!a.enabled) return;
  if (a.re_alarm_count < INT16_MAX) ++a.re_alarm_count;
  ++re_alarms_;
  metrics_.re_alarmed(a.scopes, static_cast<std::uint32_t>(a.re_alarm_count));
  if (a.acked) a.unacked_at = now.steady;
  a.acked = false;
  a.confirmed = true;
  if (const auto p = a.message.find(" (re-alarm "); p != std::string::npos) a.message.resize(p);
  a.message += " (re-alarm ";
  a.message += std::to_string(a.re_alarm_count);
  a.message += ')';
  a.time = now.utc;
  emit(a, as, sink, now);
  if (a.re_alarm_max_count > 0 && static_cast<std::uint32_t>(a.re_alarm_count) >= a.re_alarm_max_count)
    a.re_alarm_armed = false;
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
    if (a->retain()) sink.raise(a->ev, now, subscription, item);  // the same EventId: the state the client missed
    for (auto& b : a->branches) sink.raise(b.ev, now, subscription, item);  // §5.5.7: the branches too
  }
  marker(refresh_end_event_type, "ConditionRefresh done");
}

// ---------------------------------------------------------------------------------------------
// Suppression and out of service (§5.8.2, 1.05)

void condition_manager::set_state(alarm& a, bool alarm::*flag, date_time alarm::*since, bool on,
                                  const localized_text* comment, address_space& as, event_sink& sink,
                                  const instant& now) {
  if (a.*flag == on) return;
  a.*flag = on;
  a.*since = now.utc;
  if (comment) {
    a.comment = *comment;
    a.comment_time = now.utc;
  }
  a.time = now.utc;
  if (a.enabled) emit(a, as, sink, now);
}

void condition_manager::set_suppressed(alarm& a, bool on, const localized_text* comment, address_space& as,
                                       event_sink& sink, const instant& now) {
  set_state(a, &alarm::suppressed, &alarm::suppressed_since, on, comment, as, sink, now);
}

void condition_manager::set_out_of_service(alarm& a, bool on, const localized_text* comment, address_space& as,
                                           event_sink& sink, const instant& now) {
  set_state(a, &alarm::out_of_service, &alarm::out_of_service_since, on, comment, as, sink, now);
}

// ---------------------------------------------------------------------------------------------
// Branches (§5.5.2, §4.4)

void condition_manager::open_branch(alarm& a, event_sink& sink, const instant& now) {
  alarm::branch b;
  if (a.branches.size() >= a.max_branches) {
    // The bound: the oldest state leaves clients' lists with a last event (Retain False). Its record
    // then holds the new branch: a chattering alarm at its bound copies into storage it has.
    auto& oldest = a.branches.front();
    // Logged once per condition (a chattering alarm would flood the log), every drop counted.
    if (!a.branch_drop_logged)
      spdlog::warn("conditions: {} keeps at most {} branches: the oldest ({}) is dropped unacknowledged; further "
                   "drops of this condition are counted, not logged",
                   a.id.to_string(), a.max_branches, oldest.id.to_string());
    a.branch_drop_logged = true;
    oldest.ev.set(k_.retain) = false;
    sink.next_event_id(oldest.ev.set(field::event_id).emplace<byte_string>());
    sink.raise(oldest.ev, now);
    b = std::move(oldest);
    a.branches.erase(a.branches.begin());
    ++branches_dropped_;
  }
  // A BranchId is no node: a Guid in the condition's namespace, unique in this server's life.
  ++branch_seq_;
  guid g;
  g.data1 = static_cast<std::uint32_t>(branch_seq_);
  g.data2 = static_cast<std::uint16_t>(branch_seq_ >> 32);
  g.data3 = static_cast<std::uint16_t>(branch_seq_ >> 48);
  for (std::size_t i = 0; i < 8; ++i) g.data4[i] = static_cast<std::uint8_t>(branch_prefix_ >> (8 * i));
  b.id = node_id::guid_id(a.id.namespace_index(), g);
  b.acked = a.acked;
  b.confirmed = a.confirmed;
  b.ev = a.ev;  // the earlier state, as the trunk last reported it
  b.origin = byte_string();
  if (const variant* id = a.ev.find(field::event_id); id && id->get_if<byte_string>()) b.origin = *id->get_if<byte_string>();
  b.ev.set(k_.branch_id) = b.id;
  b.ev.set(k_.retain) = true;
  sink.next_event_id(b.ev.set(field::event_id).emplace<byte_string>());
  sink.raise(b.ev, now);
  a.branches.push_back(std::move(b));
}

void condition_manager::update_branch(alarm& a, std::size_t j, const localized_text& comment, event_sink& sink,
                                      const instant& now) {
  alarm::branch& b = a.branches[j];
  b.origin = byte_string();
  event_record& e = b.ev;
  text(e.set(k_.acked_state), b.acked ? "Acknowledged" : "Unacknowledged");
  e.set(k_.acked_state_id) = b.acked;
  text(e.set(k_.confirmed_state), b.confirmed ? "Confirmed" : "Unconfirmed");
  e.set(k_.confirmed_state_id) = b.confirmed;
  e.set(k_.comment) = comment;
  e.set(k_.comment_source_timestamp) = now.utc;
  e.set(field::time) = now.utc;
  // §5.5.2: a branch acknowledged and confirmed is of no more interest: its last event, then gone.
  const bool done = b.acked && b.confirmed;
  e.set(k_.retain) = !done;
  sink.next_event_id(e.set(field::event_id).emplace<byte_string>());
  sink.raise(e, now);
  if (done) a.branches.erase(a.branches.begin() + static_cast<std::ptrdiff_t>(j));
}

void condition_manager::close_branches(alarm& a, address_space&, event_sink& sink, const instant& now) {
  for (auto& b : a.branches) {
    text(b.ev.set(k_.enabled_state), "Disabled");
    b.ev.set(k_.enabled_state_id) = false;
    b.ev.set(k_.retain) = false;
    b.ev.set(field::time) = now.utc;
    sink.next_event_id(b.ev.set(field::event_id).emplace<byte_string>());
    sink.raise(b.ev, now);
  }
  a.branches.clear();
}

std::size_t condition_manager::branch_count(std::size_t i) const noexcept { return alarms_[i]->branches.size(); }
const node_id& condition_manager::branch_id(std::size_t i, std::size_t j) const noexcept {
  return alarms_[i]->branches[j].id;
}
const byte_string& condition_manager::branch_event_id(std::size_t i, std::size_t j) const noexcept {
  static const byte_string none;
  const variant* v = alarms_[i]->branches[j].ev.find(field::event_id);
  const byte_string* b = v ? v->get_if<byte_string>() : nullptr;
  return b ? *b : none;
}
bool condition_manager::suppressed(std::size_t i) const noexcept { return alarms_[i]->suppressed; }
bool condition_manager::input_active(std::size_t i) const noexcept { return alarms_[i]->input_active(); }
bool condition_manager::latched(std::size_t i) const noexcept { return alarms_[i]->latched; }
std::int16_t condition_manager::re_alarm_count(std::size_t i) const noexcept { return alarms_[i]->re_alarm_count; }
bool condition_manager::out_of_service(std::size_t i) const noexcept { return alarms_[i]->out_of_service; }

}  // namespace uactor::actors
