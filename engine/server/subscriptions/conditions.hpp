// Alarms and conditions (Part 9): limit alarms the application defines on a numeric variable
// (ExclusiveLimitAlarmType: HighHigh, High, Low, LowLow with a deadband; NonExclusiveLimitAlarmType:
// the same limits, each a state of its own) and off-normal and discrete alarms on a Boolean or
// numeric one (OffNormalAlarmType: active while the value is not the normal one; DiscreteAlarmType:
// active while it is the alarm value), their state (Enabled,
// Active, Acked, Confirmed, Retain, Severity, Comment), the Part 9 methods (Enable, Disable,
// AddComment, Acknowledge, Confirm, ConditionRefresh, ConditionRefresh2), shelving (§5.8.17
// ShelvedStateMachineType: TimedShelve, OneShotShelve, Unshelve and their 1.05 "2" forms), latching
// (§5.8.2 LatchedState, Reset, Reset2), trip and discrepancy alarms (§5.8.24.4, §5.8.25 of 1.05) and
// the server's certificates as CertificateExpirationAlarmType conditions (§5.8.24.7), and the
// events of every transition. Each condition is an Object in the address space with its state as
// Variables that mirror its latest event field for field (docs/decisions/0053). Plain state inside
// the session host next to the subscriptions, no CAF, time passed in; docs/decisions/0018.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/server/access/permission_table.hpp"
#include "engine/server/subscriptions/alarm_metrics.hpp"
#include "engine/server/subscriptions/event_model.hpp"
#include "protocol/address_space.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "uactor/server.hpp"

namespace uactor::actors {

struct instant;

// Where condition events go: the server raises them (EventId, ReceiveTime) into the subscriptions.
class event_sink {
public:
  // `only_subscription` / `only_item`: ConditionRefresh(2); `unfiltered`: past the where clauses
  // (RefreshStart, RefreshEnd).
  virtual void raise(event_record& e, const instant& now, std::uint32_t only_subscription = 0,
                     std::uint32_t only_item = 0, bool unfiltered = false) = 0;
  virtual void next_event_id(ua::byte_string& out) = 0;
  // Whether `subscription` belongs to `session` (and, for ConditionRefresh2, has the item).
  virtual bool owns(std::uint32_t session, std::uint32_t subscription, std::uint32_t item) = 0;

protected:
  ~event_sink() = default;
};

class condition_manager {
public:
  explicit condition_manager(field_catalogue& fields);
  ~condition_manager();

  // Adds the condition's Object (HasTypeDefinition ExclusiveLimitAlarmType, HasCondition from the
  // input) and evaluates the input's current value. Bad_NodeIdExists, Bad_NodeIdUnknown (the
  // input), Bad_NodeClassInvalid (the input is no Variable), Bad_InvalidArgument (no limit, limits
  // out of order, a negative or NaN deadband).
  ua::status_code add(const limit_alarm& a, ua::address_space& as, event_sink& sink, const instant& now);
  // The same for an off-normal alarm (HasTypeDefinition OffNormalAlarmType); Bad_InvalidArgument
  // for a normal value that is neither Boolean nor a (non-NaN) number.
  ua::status_code add(const off_normal_alarm& a, ua::address_space& as, event_sink& sink, const instant& now);
  // Part 9 §8.1: an AlarmGroupType Object organized under `parent` (null: the Objects folder) with
  // its AlarmMetrics (§8.2). Bad_InvalidArgument, Bad_NodeIdExists, Bad_ParentNodeIdInvalid.
  ua::status_code add_group(const alarm_group& g, ua::address_space& as, const instant& now);
  // The Server's (scope 0, made with the first alarm) and the groups' AlarmMetrics.
  alarm_metrics& metrics() noexcept { return metrics_; }
  const alarm_metrics& metrics() const noexcept { return metrics_; }
  // The same for a discrete alarm (HasTypeDefinition DiscreteAlarmType); Bad_InvalidArgument for an
  // alarm value that is neither Boolean nor a (non-NaN) number.
  ua::status_code add(const discrete_alarm& a, ua::address_space& as, event_sink& sink, const instant& now);
  // A deviation alarm (§5.8.22: (Non)ExclusiveDeviationAlarmType): a limit alarm on input - setpoint;
  // Bad_InvalidArgument for a null setpoint, Bad_NodeIdUnknown / Bad_NodeClassInvalid for a setpoint
  // (or base setpoint) that is no Variable.
  ua::status_code add(const deviation_alarm& a, ua::address_space& as, event_sink& sink, const instant& now);
  // A rate-of-change alarm (§5.8.23: (Non)ExclusiveRateOfChangeAlarmType): a limit alarm on the
  // input's rate per second over `window` (docs/decisions/0070); Bad_InvalidArgument for a window out
  // of 1 s .. 1 h.
  ua::status_code add(const rate_of_change_alarm& a, ua::address_space& as, event_sink& sink, const instant& now);
  // A trip alarm (§5.8.24.4 TripAlarmType): an off-normal alarm of that type.
  ua::status_code add(const trip_alarm& a, ua::address_space& as, event_sink& sink, const instant& now);
  // A discrepancy alarm (§5.8.25 DiscrepancyAlarmType, docs/decisions/0081): active once the input has
  // been away from the target Variable for ExpectedTime; Bad_InvalidArgument for a null target, an
  // expected time out of 1 s .. a day, a negative or NaN tolerance; Bad_NodeIdUnknown /
  // Bad_NodeClassInvalid for a target that is no Variable.
  ua::status_code add(const discrepancy_alarm& a, ua::address_space& as, event_sink& sink, const instant& now);

  // Part 9 §5.8.24.7 (1.05) CertificateExpirationAlarmType (docs/decisions/0081): one condition per
  // certificate the server watches (its own, its trust list's), no input Variable: the server's
  // expiry check says whether it is within ExpirationLimit of its end.
  struct certificate_condition {
    ua::node_id id;      // the condition's NodeId
    std::string name;    // ConditionName and BrowseName
    ua::date_time expiration_date;
    double expiration_limit = 0;  // ExpirationLimit, ms
    ua::node_id certificate_type;
    ua::byte_string certificate;  // DER
    bool expiring = false;        // within ExpirationLimit of its end, or past it: active
    std::uint16_t severity = 600; // while active
    std::string message;
  };
  // The certificates watched now: a condition for each first seen (a component of `source`, which
  // has HasCondition to it and is its SourceNode), the state of the others, and a last event
  // (inactive, Retain False) then no Object for those no longer watched.
  void certificates(std::span<const certificate_condition> certs, const ua::node_id& source, ua::address_space& as,
                    event_sink& sink, const instant& now);
  // Whether the alarm at `i` was a certificate's that is no longer watched (its Object is gone).
  bool removed(std::size_t i) const noexcept;

  // A watched input changed (the server's value observer): the value is noted, evaluated by
  // process() in order. Allocates nothing once warm.
  void value_changed(ua::node_index n, const ua::data_value& v);
  // Evaluates the noted values: the transitions and their events.
  void process(ua::address_space& as, event_sink& sink, const instant& now);
  // The housekeeping tick (docs/decisions/0027): timed shelving that ran out ends (§5.8.17), the
  // UnshelveTime of the others counts down; OnDelay and OffDelay that ran out take the input's
  // state, due re-alarms are raised (§5.8.2, docs/decisions/0065). Touches only the shelved
  // conditions and those with a delay or re-alarm running.
  void tick(ua::address_space& as, event_sink& sink, const instant& now);
  bool has_pending() const noexcept { return !pending_.empty(); }

  // Part 9 §5.10: the AuditConditionEventType subtype a Part 9 method raises (AuditConditionEnable,
  // ...Comment, ...Acknowledge, ...Confirm, ...Shelving, ...Suppression, ...OutOfService) and the
  // method's name; 0 for ConditionRefresh(2) and any other method.
  static std::uint32_t audit_type(const ua::node_id& method, const char*& name) noexcept;
  // The condition a Call item names (its Object, or its ShelvingState's): its ConditionId and its
  // input (where its events go). False when the object is no condition.
  bool audit_subject(const ua::node_id& object, const ua::address_space& as, ua::node_id& condition,
                     ua::node_index& input) noexcept;
  // Whether a Call request names a Part 9 method (then call() answers it whole).
  static bool is_condition_call(const ua::call_request& req) noexcept;
  static bool may_call(const ua::call_method_request& m, const ua::address_space& as,
                       const authz::node_access& access) noexcept;
  static void refuse_call(ua::call_method_result& out);
  // Every item of the request: the Part 9 methods here, the others through `other` (the
  // server's built-in method table). `access`: what the caller's roles may do; a Part 9 method
  // needs Call on its object (the condition takes its source's area) and on the method.
  template <class Other>
  void call(std::uint32_t session, const ua::call_request& req, ua::call_response& resp, ua::address_space& as,
            event_sink& sink, const instant& now, const authz::node_access& access, Other&& other) {
    resp.results.resize(req.methods_to_call.size());
    for (std::size_t i = 0; i < req.methods_to_call.size(); ++i) {
      const auto& m = req.methods_to_call[i];
      if (!is_condition_method(m.method_id)) other(m, resp.results[i]);
      else if (!may_call(m, as, access)) refuse_call(resp.results[i]);
      else call_one(session, m, as, sink, now, resp.results[i]);
    }
  }

  std::size_t size() const noexcept { return alarms_.size(); }
  struct alarm;
  // For tests and the benchmark: the state of the alarm at `i` (in the order added).
  const alarm& at(std::size_t i) const noexcept { return *alarms_[i]; }
  bool active(std::size_t i) const noexcept;
  bool acked(std::size_t i) const noexcept;
  bool confirmed(std::size_t i) const noexcept;
  bool retain(std::size_t i) const noexcept;
  const ua::byte_string& last_event_id(std::size_t i) const noexcept;
  enum class shelving : std::uint8_t { unshelved, timed, one_shot };
  shelving shelving_state(std::size_t i) const noexcept;
  // The Variables of the condition at `i` (its Object's components and properties, all levels).
  std::size_t variable_count(std::size_t i) const noexcept;
  // The conditions shelved now (the tick walks these only).
  std::size_t shelved_count() const noexcept { return shelved_.size(); }
  // §5.8.2: SuppressedState/Id and OutOfServiceState/Id of the alarm at `i`.
  bool suppressed(std::size_t i) const noexcept;
  bool out_of_service(std::size_t i) const noexcept;
  // §5.5.2: the branches of the alarm at `i`, oldest first: their BranchIds and latest EventIds.
  std::size_t branch_count(std::size_t i) const noexcept;
  const ua::node_id& branch_id(std::size_t i, std::size_t j) const noexcept;
  const ua::byte_string& branch_event_id(std::size_t i, std::size_t j) const noexcept;
  // Branches dropped over their condition's bound (max_branches), since the start.
  std::uint64_t branches_dropped() const noexcept { return branches_dropped_; }
  // §5.8.2 (1.05): whether the input of the alarm at `i` is in alarm (before OnDelay and OffDelay),
  // its ReAlarmRepeatCount, the conditions with a delay or a re-alarm running (the tick walks
  // these), and the re-alarms raised since the start.
  bool input_active(std::size_t i) const noexcept;
  // §5.8.2 (1.05): LatchedState/Id of the alarm at `i` (false for an alarm that does not latch).
  bool latched(std::size_t i) const noexcept;
  // §5.8.22, §5.8.23: the quantity the limits of the alarm at `i` were last compared with (the
  // value, the deviation from the setpoint, the rate per second); NaN before the first.
  double measured(std::size_t i) const noexcept;
  std::int16_t re_alarm_count(std::size_t i) const noexcept;
  std::size_t timed_count() const noexcept { return timed_.size(); }
  std::uint64_t re_alarms() const noexcept { return re_alarms_; }

private:
  static bool is_condition_method(const ua::node_id& method) noexcept;
  void call_one(std::uint32_t session, const ua::call_method_request& req, ua::address_space& as,
                event_sink& sink, const instant& now, ua::call_method_result& out);
  // The condition whose Object (or ShelvingState Object: `shelving_object`) has this NodeId.
  alarm* find(const ua::node_id& object, const ua::address_space& as, bool& shelving_object) noexcept;
  // §5.8.17: TimedShelve(2), OneShotShelve(2), Unshelve(2) on `a`.
  ua::status_code shelve(alarm& a, std::uint32_t method, const ua::variant* duration, const ua::localized_text* comment,
                         ua::address_space& as, event_sink& sink, const instant& now);
  // Back to Unshelved (`transition` its LastTransition), the event, the tick's list updated.
  void unshelve(alarm& a, std::uint32_t transition, ua::address_space& as, event_sink& sink, const instant& now);
  // The condition's Object's Variables and their references (§5.5.2, §5.7.2, §5.8.2, §5.8.17, the
  // kind's own); the Method nodes are the types' (decision 0053).
  ua::status_code add_nodes(alarm& a, ua::address_space& as);
  // Every Variable takes the value of its field in the latest event (the one source of both).
  void sync_nodes(alarm& a, ua::address_space& as, const instant& now);
  // Limit, deviation and rate-of-change alarms: the limits checked, `al` (with what its kind adds) filled.
  ua::status_code add_limit(const limit_alarm& a, std::unique_ptr<alarm> al, ua::address_space& as, event_sink& sink,
                            const instant& now);
  // §5.8.22, §5.8.23: the quantity the limits apply to, from the input's value `v`; false when there
  // is none yet (no setpoint value; the rate's window not over).
  bool measure(alarm& a, double& v, const instant& now) noexcept;
  // The checks every condition shares: Bad_InvalidArgument, Bad_NodeIdExists, Bad_NodeIdUnknown,
  // Bad_NodeClassInvalid; `input` its node.
  static ua::status_code check_new(const ua::node_id& id, const std::string& name, const ua::node_id& input_id,
                                   const ua::address_space& as, ua::node_index& input) noexcept;
  // The alarm groups an alarm names (Bad_NodeIdUnknown for one that add_group did not make), kept
  // in adding_groups_ for insert().
  ua::status_code take_groups(const std::vector<ua::node_id>& groups, const ua::address_space& as);
  // The condition's Object and references, registered as watching its input; then its first event
  // and its input's current value.
  ua::status_code insert(std::unique_ptr<alarm> a, ua::address_space& as, event_sink& sink, const instant& now);
  // Off-normal alarms and their TripAlarmType subtype (`type_id`): add_two_state with the normal value.
  ua::status_code add_off_normal(const off_normal_alarm& a, std::uint32_t type_id, ua::address_space& as,
                                 event_sink& sink, const instant& now);
  // Off-normal and discrete alarms: the checks, then insert() with `reference` (the normal or the alarm value).
  ua::status_code add_two_state(std::unique_ptr<alarm> a, const ua::variant& reference, ua::address_space& as,
                                event_sink& sink, const instant& now);
  // §5.8.5, §5.8.6 (1.05): Reset, Reset2 (`comment`): a latched alarm that is inactive, acknowledged
  // and confirmed is unlatched; Bad_MethodInvalid for an alarm that does not latch, Bad_InvalidState
  // for one that is not latched or still active or waiting for Acknowledge or Confirm.
  ua::status_code reset(alarm& a, const ua::localized_text* comment, ua::address_space& as, event_sink& sink,
                        const instant& now);
  // §5.8.2: SuppressedState or OutOfServiceState to `on` (nothing when it is already), with the
  // comment of a "2" method, and the event.
  void set_state(alarm& a, bool alarm::*flag, ua::date_time alarm::*since, bool on, const ua::localized_text* comment,
                 ua::address_space& as, event_sink& sink, const instant& now);
  void set_suppressed(alarm& a, bool on, const ua::localized_text* comment, ua::address_space& as, event_sink& sink,
                      const instant& now);
  void set_out_of_service(alarm& a, bool on, const ua::localized_text* comment, ua::address_space& as,
                          event_sink& sink, const instant& now);
  // §5.5.2: the trunk's last reported state becomes a branch (its event raised with a new BranchId);
  // past max_branches the oldest goes first.
  void open_branch(alarm& a, event_sink& sink, const instant& now);
  // The branch at `j` was acknowledged or confirmed: its event; gone once both.
  void update_branch(alarm& a, std::size_t j, const ua::localized_text& comment, event_sink& sink, const instant& now);
  // Disable: every branch ends with a last event (Retain False).
  void close_branches(alarm& a, ua::address_space& as, event_sink& sink, const instant& now);
  void evaluate(alarm& a, double value, ua::status_code quality, ua::address_space& as, event_sink& sink,
                const instant& now);
  // §5.8.2 (1.05) OnDelay / OffDelay: whether the alarm takes its input's state now (a delay that
  // starts puts the alarm on the tick's list).
  bool delay_over(alarm& a, const instant& now);
  void watch(alarm& a);
  // The alarm takes its input's state (`take_input`) and/or a new quality: the events.
  void transition(alarm& a, bool take_input, bool quality_changed, ua::address_space& as, event_sink& sink,
                  const instant& now);
  // §5.8.2 (1.05) ReAlarmTime ran out while active: alarmed again.
  void re_alarm(alarm& a, ua::address_space& as, event_sink& sink, const instant& now);
  void emit(alarm& a, ua::address_space& as, event_sink& sink, const instant& now);
  void refresh(std::uint32_t subscription, std::uint32_t item, const ua::address_space& as, event_sink& sink,
               const instant& now);

  struct keys {
    field_key condition_name, condition_class_id, condition_class_name, branch_id, retain, enabled_state,
        enabled_state_id, quality, last_severity, comment, client_user_id, acked_state, acked_state_id,
        confirmed_state, confirmed_state_id, active_state, active_state_id, input_node, high_high_limit, high_limit,
        low_limit, low_low_limit, limit_state, limit_state_current, limit_state_current_id, normal_state,
        active_state_transition_time, quality_source_timestamp, last_severity_source_timestamp,
        comment_source_timestamp, suppressed_or_shelved, shelving_current, shelving_current_id, shelving_last,
        shelving_last_id, unshelve_time, max_time_shelved, suppressed_state, suppressed_state_id,
        suppressed_state_transition_time, out_of_service_state, out_of_service_state_id,
        out_of_service_state_transition_time, on_delay, off_delay, re_alarm_time, re_alarm_repeat_count,
        setpoint_node, base_setpoint_node, engineering_units, latched_state, latched_state_id, target_value_node,
        expected_time, tolerance, expiration_date, expiration_limit, certificate_type, certificate;
    // NonExclusiveLimitAlarmType's TwoStateVariables, indexed by limit (low_low .. high_high) - 1.
    std::array<field_key, 4> limit_states, limit_state_ids;
    // LimitAlarmType's (1.05) per-limit properties, indexed alike: LowLowDeadband .. HighHighDeadband,
    // SeverityLowLow .. SeverityHighHigh.
    std::array<field_key, 4> limit_deadbands, limit_severities;
  };
  keys k_{};
  field_catalogue* fields_;
  std::vector<std::unique_ptr<alarm>> alarms_;
  std::vector<std::vector<std::uint32_t>> by_input_;  // node index -> alarms watching it
  std::vector<std::vector<std::uint32_t>> by_suppressor_;  // node index -> alarms it suppresses
  // node index -> deviation alarms it is the setpoint of, discrepancy alarms it is the target of
  std::vector<std::vector<std::uint32_t>> by_setpoint_;
  std::uint64_t branch_prefix_ = 0;  // random per server: BranchIds differ between runs
  std::uint64_t branch_seq_ = 0;
  std::uint64_t branches_dropped_ = 0;
  // The Object of a condition, and of its ShelvingState, -> the alarm's position.
  std::unordered_map<ua::node_index, std::uint32_t> by_node_;
  std::vector<std::uint32_t> shelved_;  // the alarms shelved now, for the tick
  std::unordered_map<std::string, std::uint32_t> certificates_;  // a certificate condition's NodeId text -> its alarm
  std::vector<std::uint32_t> timed_;    // the alarms with a delay or a re-alarm running, for the tick
  std::uint64_t re_alarms_ = 0;
  alarm_metrics metrics_;
  // An alarm group's Object -> its metrics scope; the groups named by the alarm being added.
  std::unordered_map<ua::node_index, std::uint32_t> groups_;
  std::vector<std::pair<ua::node_index, std::uint32_t>> adding_groups_;
  // Part 9 §8.2 Reset on a metrics Object.
  void reset_metrics(const ua::call_method_request& req, ua::address_space& as, const instant& now,
                     ua::call_method_result& out);
  struct noted {
    std::uint32_t alarm;
    double value;
    bool numeric;  // a number, or a Boolean (0 or 1) for an off-normal or discrete alarm
    ua::status_code quality;
    bool suppression = false;  // the value of a `suppressed_by` Variable, not of the input
    bool setpoint = false;     // the value of a deviation alarm's setpoint (a discrepancy alarm's target), not of the input
  };
  std::vector<noted> pending_;
  std::vector<noted> processing_;
  event_record refresh_event_;
};

}  // namespace uactor::actors
