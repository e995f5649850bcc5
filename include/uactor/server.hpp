// A server embedded in an application: its address space filled and changed by the application,
// values pushed from any thread, client Writes, read-through Reads and method Calls handed to the
// application as asynchronous callbacks. No CAF types. A uactor::runtime makes servers and owns
// them; every member may be called from any thread (docs/embedding.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "uactor/ua/expected.hpp"
#include "uactor/executor.hpp"
#include "uactor/metrics.hpp"
#include "uactor/nodes.hpp"
#include "uactor/scripts.hpp"

namespace uactor {

struct server_plan;

// A variable resolved once (server::resolve, or the result of adding it), named by value batches
// without a lookup per value. It stays valid while the node exists; a value for a removed node is
// dropped, counted and logged.
struct value_handle {
  std::uint32_t index = 0xFFFF'FFFFu;
  bool valid() const noexcept { return index != 0xFFFF'FFFFu; }
  friend bool operator==(value_handle, value_handle) = default;
};

// One value from the application: the variable's new Value, its status and its source timestamp
// (a zero date_time: the time the server stores it). It reaches monitored items exactly as a
// client's Write does (sampling, deadbands, queues).
struct value_update {
  value_handle node;
  variant value;
  status_code status;  // Good unless said otherwise
  date_time source_timestamp;
};

// Who asks, for the application's logs and access decisions.
struct caller {
  std::string user;  // the UserName identity; empty for anonymous and X509 sessions
};

// A client's Write of a variable's Value (Part 4 §5.10.4), already checked against the DataType,
// ValueRank and AccessLevel, the IndexRange applied: `value` is what the variable will hold.
struct write_call {
  node_id node;
  data_value value;
  caller who;
};

// A client's Read of a read-through variable's Value (Part 4 §5.10.2).
struct read_call {
  node_id node;
  caller who;
};

// A client's call of a method (Part 4 §5.11.2), its inputs checked against InputArguments.
struct method_call {
  node_id object;
  node_id method;
  std::vector<variant> inputs;
  caller who;
};

namespace detail {
struct reply_sink;  // where answers go: the server's address-space owner
}

// The answer to one callback: call it once, from any thread, now or later. Copies answer the same
// call; the first answer counts, later ones and answers after the deadline are dropped.
class write_reply {
public:
  // Good: the value is stored (and monitored items see it); a bad status goes to the client as
  // this item's result (Bad_OutOfRange, Bad_UserAccessDenied, ...).
  void operator()(status_code result) const;

  write_reply(std::shared_ptr<detail::reply_sink> sink, std::uint64_t id) : sink_(std::move(sink)), id_(id) {}

private:
  std::shared_ptr<detail::reply_sink> sink_;
  std::uint64_t id_;
};

class read_reply {
public:
  // The value the client gets (its status and source timestamp as given; the server timestamp is
  // the server's); it is also stored as the variable's current value.
  void operator()(data_value value) const;
  void operator()(status_code failure) const;  // the item fails with this status

  read_reply(std::shared_ptr<detail::reply_sink> sink, std::uint64_t id) : sink_(std::move(sink)), id_(id) {}

private:
  std::shared_ptr<detail::reply_sink> sink_;
  std::uint64_t id_;
};

class call_reply {
public:
  // Good with one output per OutputArgument, or the method's bad status (outputs dropped).
  void operator()(status_code result, std::vector<variant> outputs = {}) const;

  call_reply(std::shared_ptr<detail::reply_sink> sink, std::uint64_t id) : sink_(std::move(sink)), id_(id) {}

private:
  std::shared_ptr<detail::reply_sink> sink_;
  std::uint64_t id_;
};

using write_handler = std::function<void(const write_call&, write_reply)>;
using read_handler = std::function<void(const read_call&, read_reply)>;
using method_handler = std::function<void(const method_call&, call_reply)>;

// Where a handler runs and how long the client waits for it. Past the deadline the client gets
// Bad_Timeout for that item and the log says which node; a handler that throws gives
// Bad_InternalError. Other requests and sessions never wait for a handler.
struct callback_options {
  executor where = inline_executor();  // the application's thread, pool or actor (executor.hpp)
  std::chrono::milliseconds deadline{5'000};
};

// Who activates a session, for the application's role decision (server::on_activate): the
// identity the server has proven (the password checked, the certificate verified) and what the
// plant file's identity mapping rules give it already.
struct session_login {
  enum class token_kind : std::uint8_t { anonymous, user_name, certificate };
  token_kind token = token_kind::anonymous;
  std::string user;                 // user_name: the name; certificate: its SHA-1 thumbprint (hex)
  std::string certificate_subject;  // certificate: the user certificate's subject
  std::string application_uri;      // the client's application instance certificate's (empty over None)
  std::string endpoint_url;         // the endpoint it came through
  bool encrypted = false;           // over a SignAndEncrypt channel
  std::vector<std::string> roles;   // the roles the plant's rules give (names)
};

// The application's decision (docs/security.md "The application decides"). `roles` are role
// claims: one that names a role of the server (well-known or the plant's [[roles]]) grants it,
// and `Role:<claim>` rules map any claim to roles; `group_ids` are matched by `GroupId:<id>`
// rules (an LDAP group, say). The session holds what the rules give with these, plus the claimed
// roles. `refuse`: the ActivateSession is answered Bad_UserAccessDenied.
struct role_decision {
  bool refuse = false;
  std::vector<std::string> roles;
  std::vector<std::string> group_ids;
};

// The answer to one role callback, from any thread, now or later; the first answer counts, later
// ones and answers after the deadline are dropped.
class role_reply {
public:
  void operator()(role_decision decision) const;

  role_reply(std::shared_ptr<detail::reply_sink> sink, std::uint64_t id) : sink_(std::move(sink)), id_(id) {}

private:
  std::shared_ptr<detail::reply_sink> sink_;
  std::uint64_t id_;
};

using role_handler = std::function<void(const session_login&, role_reply)>;

// Where the role callback runs and how long the client's ActivateSession waits for it. Past the
// deadline (or when the handler throws) the session gets the roles the plant's rules give it,
// or with refuse_on_timeout its ActivateSession is refused (Bad_UserAccessDenied).
struct role_callback_options {
  executor where = inline_executor();
  std::chrono::milliseconds deadline{2'000};
  bool refuse_on_timeout = false;
};

// What load_nodeset was asked to relax (strict by default).
struct nodeset_options {
  // A RequiredModel loaded in an older version than the file asks for is a warning, not an
  // error: for a companion file released against a newer namespace 0 than this build's. A
  // RequiredModel not loaded at all is always refused.
  bool accept_older_models = false;
};

// What load_nodeset did: every error (`file:line: NodeId: what`), empty when the file was applied.
struct nodeset_report {
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
  std::vector<std::string> registered_namespaces;  // appended to the NamespaceArray, in order
  std::size_t nodes = 0;
  std::size_t references = 0;
  bool ok() const noexcept { return errors.empty(); }
};

// ---------------------------------------------------------------------------------------------
// Events and alarms (Part 3 §6.4, Part 9; docs/events.md). Clients subscribe to the Server object
// (every event) or to an object marked as an event notifier (object_node::event_notifier = 1) with
// an EventFilter.

// One field of an event past the BaseEventType ones, named by its browse path from the event type:
// {{0, "ActiveState"}, {0, "Id"}} is ActiveState/Id.
struct event_field_value {
  std::vector<qualified_name> path;
  variant value;
};

// An event the application raises. EventId and ReceiveTime are the server's.
struct event {
  node_id type{0, 2041};          // BaseEventType or a subtype of it
  node_id source;                 // SourceNode; null: the Server object (i=2253)
  std::string source_name;        // empty: the source's BrowseName
  localized_text message;
  std::uint16_t severity = 500;   // 1 (lowest) .. 1000 (highest), Part 5 §6.4.2; clamped
  date_time time;                 // when it happened; zero: when the server takes it
  std::vector<event_field_value> fields;
};

// The alarm parameters of Part 9 §5.8.2 (1.05), the same for every kind; each 0 by default (none).
// They become the condition's OnDelay, OffDelay, ReAlarmTime properties and its ReAlarmRepeatCount
// (docs/events.md, docs/decisions/0065). Timed on the server's housekeeping tick (a second).
struct alarm_parameters {
  // The input must stay in alarm this long before the alarm goes active (a start-up spike does not
  // alarm), and back to normal this long before it goes inactive (a chattering input stays one
  // alarm). 0 .. a day.
  std::chrono::milliseconds on_delay{0};
  std::chrono::milliseconds off_delay{0};
  // An alarm still active this long after it was last alarmed is alarmed again: a new event,
  // unacknowledged, ReAlarmRepeatCount + 1. 0 (none) or 1 s .. a day.
  std::chrono::milliseconds re_alarm_time{0};
  // The most re-alarms of one occurrence; 0: no bound. At most 32,767 (ReAlarmRepeatCount is an Int16).
  std::uint32_t re_alarm_max_count = 0;
  // A latching alarm (Part 9 §5.8.2 LatchedState, 1.05): once active it stays latched (and retained)
  // after its input is back to normal, until an operator calls Reset (or Reset2, with a comment) on
  // the condition, which it allows only when the alarm is inactive, acknowledged and confirmed.
  bool latching = false;
};

// A limit alarm on a numeric variable (Part 9 §5.8.18 ExclusiveLimitAlarmType): the condition is a
// new Object `id` (HasCondition from `input`); its state goes to clients as events of type
// ExclusiveLimitAlarmType, its ConditionId `id`, SourceNode `input`. A limit state starts when the
// value passes its limit and ends when it is back by more than the deadband. Operators acknowledge
// and confirm through the Part 9 methods (Acknowledge, Confirm, AddComment, Enable, Disable);
// ConditionRefresh re-sends the retained ones.
// exclusive = false: NonExclusiveLimitAlarmType (Part 9 §5.8.20) instead: each limit has a state of
// its own (HighHighState, HighState, LowState, LowLowState), so that a value above HighHigh has
// HighHigh and High active at once; Severity is the most severe active state's.
struct limit_alarm {
  node_id id;                       // the condition's NodeId (a new Object)
  node_id input;                    // the Variable whose Value is watched
  std::string name;                 // ConditionName and the BrowseName (the id's namespace)
  std::optional<double> high_high;  // at least one limit; high_high >= high > low >= low_low
  std::optional<double> high;
  std::optional<double> low;
  std::optional<double> low_low;
  double deadband = 0;              // in the variable's units, >= 0
  // Per limit (Part 9 1.05 §5.8.18 HighHighDeadband ... LowLowDeadband): a limit's own deadband,
  // `deadband` where unset. A limit's deadband may not reach the next limit inward
  // (HighHighLimit - HighHighDeadband > HighLimit, HighLimit - HighDeadband > LowLimit, ...).
  std::optional<double> high_high_deadband;
  std::optional<double> high_deadband;
  std::optional<double> low_deadband;
  std::optional<double> low_low_deadband;
  std::uint16_t severity_high_high = 900;
  std::uint16_t severity_high = 700;
  std::uint16_t severity_low = 700;
  std::uint16_t severity_low_low = 900;
  bool enabled = true;
  bool exclusive = true;            // false: NonExclusiveLimitAlarmType
  // MaxTimeShelved (Part 9 §5.8.2): the longest TimedShelve an operator may ask for, and the end
  // of a OneShotShelve; 0: no such limit (a year at most then).
  std::chrono::milliseconds max_time_shelved{0};
  // Suppression by the plant (Part 9 §5.8.2 SuppressedState): a Boolean Variable (equipment out of
  // operation, a mode) whose change to true suppresses the alarm and to false unsuppresses it, in
  // parallel with the Suppress and Unsuppress methods (the latest change wins). Null: none.
  node_id suppressed_by;
  // Branches (Part 9 §5.5.2): at most this many earlier states kept for acknowledgement at once;
  // past it the oldest is dropped (logged and counted). 0: no branches (the trunk only).
  std::uint32_t max_branches = 16;
  alarm_parameters parameters;  // OnDelay, OffDelay, ReAlarmTime (Part 9 §5.8.2)
  // The alarm groups (add_alarm_group, Part 9 §8.1) it is a member of: each references it over
  // AlarmGroupMember and counts it in its AlarmMetrics. Added before the alarm.
  std::vector<node_id> groups;
};

// A deviation alarm (Part 9 §5.8.22 ExclusiveDeviationAlarmType; exclusive = false:
// NonExclusiveDeviationAlarmType): a limit alarm whose limits apply to the input's value minus the
// setpoint's (both numeric Variables), evaluated when either changes; the limits are deviations
// (high = 2, low = -1 with a setpoint of 10: High above 12, Low below 9). Nothing is evaluated until
// both have a value. Its condition has SetpointNode (and BaseSetpointNode when given) as properties.
struct deviation_alarm : limit_alarm {
  node_id setpoint;       // SetpointNode: the numeric Variable the input should follow
  node_id base_setpoint;  // BaseSetpointNode (optional): the originally configured setpoint, shown only
};

// A rate-of-change alarm (Part 9 §5.8.23 ExclusiveRateOfChangeAlarmType; exclusive = false:
// NonExclusiveRateOfChangeAlarmType): a limit alarm whose limits apply to the input's rate of
// change in its units per second (high = 4: rising faster than 4 per second; low = -4: falling
// faster). The rate is measured over `window` (docs/decisions/0070): a value that arrives at least
// `window` after the start of the current window gives (value - value at the start) / (time between)
// and starts the next window; the housekeeping tick does the same with the latest value when no new
// value came (an input that holds still has a rate of 0). The server's clock times the values.
struct rate_of_change_alarm : limit_alarm {
  std::chrono::milliseconds window{1'000};  // 1 s .. 1 h
  // EngineeringUnits of the limits (a property of the condition); none: the input's units per second.
  std::optional<engineering_units> units;
};

// An off-normal alarm (Part 9 §5.8.24.2 OffNormalAlarmType): active while the input's value is not
// the normal one (a Boolean, or a number: a Boolean input compares as 0 or 1). Same condition
// Object, methods and events as a limit alarm; its events are of type OffNormalAlarmType, their
// NormalState a null NodeId (the normal value is this definition's, not a Variable's). A script
// alarm's Boolean output (docs/scripts.md) is a good input.
struct off_normal_alarm {
  node_id id;                    // the condition's NodeId (a new Object)
  node_id input;                 // the Variable whose Value is watched
  std::string name;              // ConditionName and the BrowseName (the id's namespace)
  variant normal = false;        // the normal value: Boolean or a number (not NaN)
  std::uint16_t severity = 500;  // while active (1 while normal)
  bool enabled = true;
  std::chrono::milliseconds max_time_shelved{0};  // as limit_alarm's
  node_id suppressed_by;                          // as limit_alarm's
  std::uint32_t max_branches = 16;                // as limit_alarm's
  alarm_parameters parameters;                    // as limit_alarm's
  std::vector<node_id> groups;                    // as limit_alarm's
};

// A discrete alarm (Part 9 §5.8.24.1 DiscreteAlarmType, the base of OffNormalAlarmType): active
// while the input's value is the alarm value `active` (a Boolean, or a number: a Boolean input
// compares as 0 or 1), e.g. a trip contact or a state code. The mirror of an off-normal alarm (which
// names the normal value instead); its events are of type DiscreteAlarmType.
struct discrete_alarm {
  node_id id;                    // the condition's NodeId (a new Object)
  node_id input;                 // the Variable whose Value is watched
  std::string name;              // ConditionName and the BrowseName (the id's namespace)
  variant active = true;         // the value that makes it active: Boolean or a number (not NaN)
  std::uint16_t severity = 500;  // while active (1 otherwise)
  bool enabled = true;
  std::chrono::milliseconds max_time_shelved{0};  // as limit_alarm's
  node_id suppressed_by;                          // as limit_alarm's
  std::uint32_t max_branches = 16;                // as limit_alarm's
  alarm_parameters parameters;                    // as limit_alarm's
  std::vector<node_id> groups;                    // as limit_alarm's
};

// A trip alarm (Part 9 §5.8.24.4 TripAlarmType, an OffNormalAlarmType subtype): an off-normal alarm
// that says a piece of equipment tripped (a motor stopped by its overload relay): active while the
// input is not `normal`, as an off-normal alarm; its events and its condition are of type
// TripAlarmType (a client's OfType(OffNormalAlarmType) still sees them), its Message "... tripped".
struct trip_alarm : off_normal_alarm {};

// A discrepancy alarm (Part 9 §5.8.25 DiscrepancyAlarmType): the input should follow a target
// Variable (a motor's running feedback its start command, a valve's position its demand) within
// `expected_time` of the target's change. Active when the input has been away from the target
// (beyond `tolerance` when given) for `expected_time`, counted from the target's latest change or the
// moment the input left it, whichever is later; it stays active until the input is at the target
// again (docs/decisions/0081). Input and target are Boolean (compared as 0 and 1) or numeric. Its
// condition has TargetValueNode, ExpectedTime and (when given) Tolerance as properties and fields.
// The expiry is seen on the server's housekeeping tick (every second).
struct discrepancy_alarm {
  node_id id;                    // the condition's NodeId (a new Object)
  node_id input;                 // the Variable whose Value is watched
  std::string name;              // ConditionName and the BrowseName (the id's namespace)
  node_id target;                // TargetValueNode: the Variable the input should reach
  std::chrono::milliseconds expected_time{0};  // ExpectedTime: 1 s .. a day
  std::optional<double> tolerance;             // Tolerance: >= 0; none: the values must be equal
  std::uint16_t severity = 500;  // while active (1 otherwise)
  bool enabled = true;
  std::chrono::milliseconds max_time_shelved{0};  // as limit_alarm's
  node_id suppressed_by;                          // as limit_alarm's
  std::uint32_t max_branches = 16;                // as limit_alarm's
  alarm_parameters parameters;                    // as limit_alarm's (OnDelay adds to ExpectedTime)
  std::vector<node_id> groups;                    // as limit_alarm's
};

// An alarm group (Part 9 §8.1 AlarmGroupType, a folder): the alarms that name it are its members
// (AlarmGroupMember references); its AlarmMetrics Object (§8.2) counts them. An alarm may be in
// several groups; the Server's AlarmMetrics counts every alarm.
struct alarm_group {
  node_id id;        // the group's NodeId (a new Object)
  std::string name;  // BrowseName (the id's namespace); empty: the last dot-separated part of a String id
  node_id parent;    // an Object it is organized under; null: the Objects folder
};

// A file the server exposes as an Object of FileType (Part 20 §4.2; docs/files.md): clients Open,
// Read, Write and Close it with the FileType methods, each session with its own handles. The file
// is read whole at each Open and written whole when a handle opened for writing closes, on the
// server's thread: keep such files small (max_size bounds both).
struct file_node {
  node_id id;                 // the new Object's NodeId
  std::string name;           // its BrowseName (the id's namespace)
  node_id parent{0, 85};      // Organizes from it (default: the Objects folder)
  std::string path;           // the file on disk (created at the first write when missing)
  bool writable = false;      // clients may open it for writing
  std::uint64_t max_size = 16u << 20;  // bytes; a larger file is not opened, a larger write refused
};

class server {
public:
  virtual ~server() = default;

  // The port its first endpoint listens on and opc.tcp://<host name>:<port> of that endpoint.
  virtual std::uint16_t port() const noexcept = 0;
  virtual std::string endpoint_url() const = 0;
  // Every endpoint's port and URL, in the order of server_plan::endpoints (one each for a plan
  // without endpoints). GetEndpoints lists all of them through any of them.
  virtual std::vector<std::uint16_t> ports() const = 0;
  virtual std::vector<std::string> endpoint_urls() const = 0;

  // Starts accepting connections (a plan with open_at_start = false); good when it does already.
  // Bad_ServerHalted after stop(), Bad_InvalidState from an inline handler.
  virtual status_code open() = 0;

  // The namespace's index in the NamespaceArray, registered on first use (Part 3 §8.2.2).
  virtual std::uint16_t register_namespace(std::string_view uri) = 0;
  // The NamespaceArray (i=2255) as it is now: index 0 the UA namespace, 1 the server's own, then
  // every namespace registered since (NodeSets, the application's). Waits for the answer.
  virtual std::vector<std::string> namespace_array() = 0;

  // Node changes, applied in the order given, each all or nothing, one message for the batch; one
  // status per change (node_builder: Bad_NodeIdExists, Bad_ParentNodeIdInvalid,
  // Bad_TypeDefinitionInvalid, ...). Waits for the answer: never call from an inline handler.
  virtual std::vector<status_code> apply(std::vector<node_change> changes) = 0;
  status_code apply(node_change change) {
    std::vector<node_change> one;
    one.push_back(std::move(change));
    return apply(std::move(one)).front();
  }

  // Loads a NodeSet2 file (Part 6 Annex F; docs/embedding.md "NodeSets"), before or while serving.
  // The file is read and parsed on the calling thread, then checked whole against the address
  // space and applied on the server's thread, in one step: a file with any error adds nothing.
  // Models (RequiredModels) load in dependency order: DI before Machinery. Waits for the answer:
  // never call from an inline handler. Returns the errors (empty on success) and the namespaces
  // it registered.
  virtual nodeset_report load_nodeset(const std::string& path, const nodeset_options& options) = 0;
  nodeset_report load_nodeset(const std::string& path) { return load_nodeset(path, nodeset_options{}); }

  // Handles for value batches: Bad_NodeIdUnknown, or Bad_NodeClassInvalid for a node without a Value.
  virtual std::vector<ua::expected<value_handle>> resolve(std::span<const node_id> nodes) = 0;
  ua::expected<value_handle> resolve(const node_id& node) { return resolve(std::span(&node, 1)).front(); }

  // Values from the application: copied into one message, applied in order, and in the order of
  // the calls of each thread. Returns at once: Good (queued), Bad_NothingToDo (empty),
  // Bad_ResourceUnavailable (too many batches not yet applied: the server is behind),
  // Bad_ServerHalted (stopped). Nothing is allocated per value once the batch buffers are warm
  // (values whose Variant holds a string or array carry their own storage).
  virtual status_code write_values(std::span<const value_update> batch) = 0;

  // Callbacks for one node (replacing an earlier one). on_write: a client's Write of the Value.
  // on_read: the Value lives in the application (a slow device): every Read of it asks. on_call:
  // the method's implementation. Bad_NodeIdUnknown, Bad_NodeClassInvalid (not a Variable, not a
  // Method).
  virtual status_code on_write(const node_id& variable, write_handler handler, callback_options options = {}) = 0;
  virtual status_code on_read(const node_id& variable, read_handler handler, callback_options options = {}) = 0;
  virtual status_code on_call(const node_id& method, method_handler handler, callback_options options = {}) = 0;
  // The application decides each session's roles at ActivateSession (docs/decisions/0063), after
  // the server has proven the identity: asked on `options.where`, answered through the reply,
  // while the server goes on serving everyone else; the client's ActivateSession (and whatever it
  // sent behind it) waits for the answer or the deadline. Every ActivateSession asks, a
  // re-activation too. Replaces an earlier handler; an empty one removes it. Good, or
  // Bad_ServerHalted.
  virtual status_code on_activate(role_handler handler, role_callback_options options = {}) = 0;

  // What changes without a restart (`uactor run` on SIGHUP, docs/configuration.md "Reload"): the
  // UserName logins (users_file read again, users, user_hashes replace the running set) and the
  // certificates of `trust` (added to the trust list, and those of the last start or reload's
  // `trust` that `plan` no longer lists taken out of it; trusted/ and issuers/ are read again by
  // themselves whenever they change). Everything else of `plan` is ignored. All or nothing: the
  // errors, and nothing changed, or none. Sessions stay (also those of a removed user: Part 4 has
  // no recall of an activated session; they end with their channel or timeout).
  virtual std::vector<std::string> reload(const server_plan& plan) = 0;

  // The roles and permissions of `plan` (plan.roles, plan.permissions; docs/security.md "Roles and
  // permissions") replace the running ones, resolved against the nodes the server has now (and
  // again as nodes are added). Sessions get their roles anew at their next ActivateSession; the
  // permissions apply to every request from the next one on. All or nothing: the errors (an unknown
  // role or permission, a node or namespace not in the server), and nothing changed, or none.
  // Waits for the server: never from an inline handler. reload() calls it too.
  virtual std::vector<std::string> set_access(const server_plan& plan) = 0;

  // What the server has counted so far (uactor/metrics.hpp), from any thread: the connections'
  // and the session host's counters summed now; nothing is locked on their side.
  virtual server_metrics metrics() const = 0;

  // Events (docs/events.md): copied into one message, delivered in order to every event item that
  // sees the source and whose where clause they pass. Returns at once: Good (queued),
  // Bad_NothingToDo (empty), Bad_ServerHalted (stopped). An event of an unknown type or source is
  // dropped on the server's thread and logged (Bad_TypeDefinitionInvalid, Bad_NodeIdUnknown).
  virtual status_code raise_events(std::span<const event> events) = 0;
  status_code raise_event(const event& e) { return raise_events(std::span(&e, 1)); }

  // Defines a limit alarm (docs/events.md) and evaluates the input's current value. Waits for the
  // answer: never call from an inline handler. Bad_NodeIdExists, Bad_NodeIdUnknown (the input),
  // Bad_NodeClassInvalid (the input is no Variable), Bad_InvalidArgument (limits).
  virtual status_code add_limit_alarm(const limit_alarm& alarm) = 0;
  // The same for an off-normal alarm; Bad_InvalidArgument also for a normal value that is no
  // Boolean or number.
  virtual status_code add_off_normal_alarm(const off_normal_alarm& alarm) = 0;
  // The same for a discrete alarm (Bad_InvalidArgument for an alarm value that is no Boolean or number).
  virtual status_code add_discrete_alarm(const discrete_alarm& alarm) = 0;
  // The same for a deviation alarm (Bad_NodeIdUnknown, Bad_NodeClassInvalid also for the setpoint)
  // and a rate-of-change alarm (Bad_InvalidArgument also for a window out of range).
  virtual status_code add_deviation_alarm(const deviation_alarm& alarm) = 0;
  virtual status_code add_rate_of_change_alarm(const rate_of_change_alarm& alarm) = 0;
  // The same for a trip alarm (as add_off_normal_alarm) and a discrepancy alarm (Bad_NodeIdUnknown,
  // Bad_NodeClassInvalid also for the target; Bad_InvalidArgument for a null target, an expected
  // time out of 1 s .. a day, a negative or NaN tolerance).
  virtual status_code add_trip_alarm(const trip_alarm& alarm) = 0;
  virtual status_code add_discrepancy_alarm(const discrepancy_alarm& alarm) = 0;
  // Defines an alarm group (before the alarms that name it). Bad_NodeIdExists, Bad_ParentNodeIdInvalid
  // (no such Object), Bad_InvalidArgument (a null id).
  virtual status_code add_alarm_group(const alarm_group& group) = 0;

  // Exposes a file (file_node above). Waits for the answer: never call from an inline handler.
  // Bad_NodeIdExists, Bad_ParentNodeIdInvalid, Bad_InvalidArgument (no name or path).
  virtual status_code add_file(const file_node& file) = 0;

  // Scripts (docs/scripts.md): checks the whole plan (nodes, output types, every script compiled),
  // then starts its runner, which reads the inputs' values as the server stores them and writes
  // each output through a value batch. All or nothing: the errors, and nothing started. Waits for
  // the server's answers: never call from an inline handler. May be called more than once (each
  // plan its own runner).
  virtual script_report add_scripts(const script_plan& plan) = 0;
  // What the runners counted so far, summed over the plans (the worker pids of the last one).
  virtual script_metrics scripts_metrics() const = 0;

  // ServiceLevel (i=2267, Part 5 §6.3.1): how well this server serves now, 0-255 (Part 4 §6.6.2.4.2:
  // 0 maintenance, 1 no data, 2-199 degraded, 200-255 healthy). Subscribers of the variable are
  // notified; a redundant client (uactor/redundant_client.hpp) switches to a better server when it
  // drops. Waits for the server: never from an inline handler. Bad_ServerHalted after stop().
  virtual status_code set_service_level(std::uint8_t level) = 0;

  // With plan.redundancy.shutdown_delay: ServiceLevel 0 (maintenance), then waits that long while
  // everything still works, so that redundant clients switch to a backup first; once (later calls
  // return at once). stop() does it first when the application has not (docs/decisions/0041).
  virtual void drain() = 0;

  // Stops accepting, closes every connection; pending callbacks' answers are dropped. Idempotent.
  virtual void stop() = 0;
};

}  // namespace uactor
