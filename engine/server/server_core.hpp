// What the server does with one decoded request: route it through the sessions, run its service
// over the address space, encode the response. Plain state, no CAF: the session host actor wraps it
// (docs/decisions/0008), tests drive it directly. It owns the address space, the sessions and the
// reused response objects; the encoded response goes into the caller's buffer.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/server/access/namespace_metadata.hpp"
#include "engine/server/access/permission_table.hpp"
#include "engine/server/access/role_set_object.hpp"
#include "engine/server/access/roles.hpp"
#include "engine/server/application_calls.hpp"
#include "engine/server/certificates/certificate_expiry.hpp"
#include "engine/server/certificates/server_configuration.hpp"
#include "engine/server/files/file_objects.hpp"
#include "engine/server/history_configuration.hpp"
#include "engine/server/history_recorder.hpp"
#include "engine/server/pubsub_object.hpp"
#include "engine/server/secure_channel_state.hpp"
#include "engine/server/services/browse.hpp"
#include "engine/server/services/call.hpp"
#include "engine/server/services/discovery.hpp"
#include "engine/server/services/history_read.hpp"
#include "engine/server/services/history_update.hpp"
#include "engine/server/services/register_server.hpp"
#include "engine/server/services/service_limits.hpp"
#include "engine/server/server_metrics.hpp"
#include "engine/server/service_table.hpp"
#include "engine/server/session_manager.hpp"
#include "engine/server/value_watch.hpp"
#include "engine/server/subscriptions/conditions.hpp"
#include "engine/server/subscriptions/subscription_manager.hpp"
#include "protocol/address_space.hpp"
#include "protocol/byte_buffer.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "uactor/nodes.hpp"
#include "uactor/server.hpp"

namespace uactor::actors {

struct server_core_config {
  services::server_description description;  // ApplicationUri, endpoint URL, names
  services::service_limits limits;
  session_config sessions;  // its endpoints are filled from `description` when empty
  subscription_limits subscriptions;
  services::history_limits history;  // HistoryRead (services/history_read.hpp)
  // Audit events (Part 5 §6.4.3+) of ActivateSession and Write, to every event subscriber: off by
  // default, there are no roles to keep them from anonymous clients (docs/decisions/0018).
  bool audit_events = false;
  // Chattering (docs/events.md "Alarm groups and metrics"): an alarm active more than this many
  // times within the window is counted; 0: not looked for.
  std::uint32_t alarm_chattering_count = 0;
  std::chrono::milliseconds alarm_chattering_window{60'000};
  // Acting as a Local Discovery Server (Part 12 §4.3, docs/discovery.md): RegisterServer and
  // RegisterServer2 accepted, FindServers and FindServersOnNetwork answered from the registry.
  // Off: those three are Bad_ServiceUnsupported and FindServers returns this server only.
  bool discovery_server = false;
  services::registry_limits registry;
};

class server_core final : private event_sink {
public:
  server_core(server_core_config config, ua::address_space space, services::method_table methods);

  // One request of channel `channel_id`: the encoded response message (encoding id + body, as
  // ua::encode_message writes it) is appended to `out`. Every request gets exactly one response:
  // the service's, or a ServiceFault (Bad_ServiceUnsupported for a service not served here).
  // A Publish (Part 4 §5.13.5) may be answered later: then `out` stays empty, and its response
  // comes out of deferred() for (channel_id, request_id) after a later call (docs/decisions/0010).
  // `done`: the request's crypto, worked out elsewhere (crypto_work, docs/decisions/0022).
  void handle(std::uint32_t channel_id, std::uint32_t request_id, const ua::request_header& header,
              const ua::extension_object& request, const instant& now, ua::byte_buffer& out,
              const session_crypto_work* done = nullptr);
  // The crypto of a CreateSession or ActivateSession, to run on a worker before handle(); null
  // when the request needs none.
  std::shared_ptr<session_crypto_work> crypto_work(std::uint32_t channel_id, const ua::extension_object& request,
                                                   const instant& now) const {
    return sessions_.crypto_work(channel_id, request, now);
  }
  // The request is refused whole with `result` (a ServiceFault), counted like an answered one.
  void refuse(const ua::request_header& header, const ua::extension_object& request, ua::status_code result,
              const instant& now, ua::byte_buffer& out);
  void handle(std::uint32_t channel_id, const ua::request_header& header, const ua::extension_object& request,
              const instant& now, ua::byte_buffer& out) {
    handle(channel_id, 0, header, request, now, out);
  }

  // An audited action of a secure channel (its connection sent it): AuditOpenSecureChannelEventType,
  // AuditChannelEventType (CloseSecureChannel) or an AuditCertificate...EventType, when
  // audit_events is on and an event item exists.
  void audit_channel(const channel_audit& a, const instant& now);

  // The subscriptions' clock (every subscription_limits::tick_interval while there are
  // subscriptions): sampling, publishing cycles, keep-alives, lifetimes. Answers go to deferred().
  void publish_tick(const instant& now);
  bool has_subscriptions() const noexcept { return subscriptions_->has_subscriptions(); }
  std::chrono::milliseconds publish_tick_interval() const noexcept { return config_.subscriptions.tick_interval; }
  // The channel closed: Publish requests queued from it are dropped.
  void channel_closed(std::uint32_t channel_id) { subscriptions_->channel_closed(channel_id); }
  // Whether a method changed the trust list since the last call: the open channels check their
  // client certificates again (Part 12 §7.8.2.5), after the method's response.
  bool take_trust_changed() noexcept { return std::exchange(trust_changed_, false); }
  // After a trust list change (take_trust_changed, once the method's response is out): the
  // sessions activated with an X509 user certificate no longer trusted are closed, with what hangs
  // off them (Part 12 §7.8.2.5). Returns how many.
  std::size_t recheck_sessions(const instant& now);
  // Responses to requests of earlier calls (queued Publish requests), until clear_deferred().
  std::span<const deferred_response> deferred() const noexcept { return subscriptions_->deferred(); }
  void clear_deferred() noexcept { subscriptions_->clear_deferred(); }
  const subscription_manager& subscriptions() const noexcept { return *subscriptions_; }

  // Time-driven work: sessions past their timeout are closed (Part 4 §5.7.2.1); the Server
  // object's CurrentTime and ServerStatus move on (so they are as fresh as the tick interval).
  void on_tick(const instant& now);
  // The application's door (docs/embedding.md). Node changes in order, one status each; hooks of
  // removed nodes go with them.
  void apply(std::span<const node_change> changes, std::vector<ua::status_code>& statuses, const instant& now);
  // Values from the application, each stored as a Write stores it (monitored items see it).
  // Returns how many were dropped: their handle names no variable (removed, or never one).
  std::size_t apply_values(std::span<const value_update> values, const instant& now);
  // Bad_NodeIdUnknown, Bad_NodeClassInvalid (a write/read hook on a non-Variable, a call hook on a
  // non-Method); a null hook removes the registration.
  ua::status_code set_hook(app_call_kind kind, const ua::node_id& node, hook_ptr hook);
  application_calls& application() noexcept { return app_; }
  // Replaces the table of built-in method implementations (the demo's, tests').
  void set_methods(services::method_table methods) { methods_ = std::move(methods); }
  // The application answered: the request it belongs to may be complete (application().completed()).
  void answer(app_answer&& a, const instant& now) {
    app_.answer(std::move(a), space_, now);
    if (conditions_->has_pending()) conditions_->process(space_, *this, now);  // a Write the application took
  }

  // An event from the application or the server itself (docs/decisions/0018): its BaseEventType
  // fields filled (EventId, ReceiveTime, Time and SourceName when not given) and delivered to the
  // event items that see it. Bad_TypeDefinitionInvalid (not a subtype of BaseEventType),
  // Bad_NodeIdUnknown (an unknown source). Allocates nothing for an event without extra fields
  // once warm.
  ua::status_code raise_event(const event& e, const instant& now);
  // The same for an event already in the subscriptions' form (fields keyed, its EventId set by
  // the caller); ReceiveTime is set here. For ConditionRefresh: one subscription or item, and
  // past the where clauses.
  void raise_event(event_record& e, const instant& now, std::uint32_t only_subscription = 0,
                   std::uint32_t only_item = 0, bool unfiltered = false);
  // A fresh EventId (16 bytes: a per-server random prefix and a counter).
  void next_event_id(ua::byte_string& out) override;
  // A limit alarm of the application (Part 9; condition_manager::add).
  ua::status_code add_limit_alarm(const limit_alarm& a, const instant& now);
  ua::status_code add_off_normal_alarm(const off_normal_alarm& a, const instant& now);
  ua::status_code add_discrete_alarm(const discrete_alarm& a, const instant& now);
  ua::status_code add_deviation_alarm(const deviation_alarm& a, const instant& now);
  ua::status_code add_rate_of_change_alarm(const rate_of_change_alarm& a, const instant& now);
  ua::status_code add_trip_alarm(const trip_alarm& a, const instant& now);
  ua::status_code add_discrepancy_alarm(const discrepancy_alarm& a, const instant& now);
  ua::status_code add_alarm_group(const alarm_group& g, const instant& now);
  const condition_manager& conditions() const noexcept { return *conditions_; }

  // Objects of FileType (Part 20 §4.2; docs/decisions/0056): the application's files and the
  // TrustList. Their methods are answered here with the calling session's handles.
  file_objects& files() noexcept { return files_; }
  const file_objects& files() const noexcept { return files_; }
  // Push certificate management (Part 12 §7.10, docs/security.md "Remote certificate management"):
  // ServerConfiguration's methods and its TrustList answer from now on. Bad_NodeIdUnknown when the
  // address space lacks them; Bad_InvalidArgument without a PKI store.
  ua::status_code set_certificate_management(certificate_management_config c, const instant& now);
  const server_configuration* certificate_management() const noexcept { return configuration_.get(); }
  // Certificate expiry (certificate_expiry.hpp): looked at on the housekeeping tick when due (and
  // now, from tests), for the server's own and its trust list's certificates.
  void check_certificates(const instant& now);
  void set_expiry(expiry_config c) { expiry_ = certificate_expiry(c); }
  // Makes a new FileType Object of the application (server::add_file). Bad_NodeIdExists, ...
  ua::status_code add_file(const ua::node_id& id, std::string_view name, const ua::node_id& parent,
                           std::shared_ptr<file_content> content, file_options o) {
    return files_.add(id, name, parent, std::move(content), o, space_);
  }

  // The historian (docs/history.md): where HistoryRead reads, and where the values of historizing
  // Variables go (a sink that never blocks: the historian actor's queue). Null store: no history
  // (HistoryRead answers Bad_HistoryOperationUnsupported per node).
  // `reader`, when given, takes HistoryRead's store reads off this thread: it runs the job
  // (services::run_history_read) elsewhere and hands it back to complete_history_read; without
  // one they run here (docs/decisions/0048).
  using history_reader = std::function<void(std::shared_ptr<services::history_read_job>)>;
  // `updater`, likewise, takes HistoryUpdate's store changes off this thread
  // (services::run_history_update) and hands the job back to complete_history_update.
  using history_updater = std::function<void(std::shared_ptr<services::history_update_job>)>;
  // The Server object's HistoryServerCapabilities say what is on (history_capabilities.hpp).
  void set_history(std::shared_ptr<history::history_store> store, history_recorder::sink sink,
                   history_reader reader = {}, history_updater updater = {});
  // Event history (docs/history.md "Event history"): the events that reach these notifiers
  // (Objects or Views; their EventNotifier gets the HistoryRead bit) are recorded by the historian
  // and read back with ReadEventDetails; `writable`: HistoryUpdate may change their events
  // (UpdateEventDetails, DeleteEventDetails; the HistoryWrite bit, Part 3 §8.59). Returns the ids
  // that name no Object or View.
  std::vector<ua::node_id> set_event_history(const std::vector<ua::node_id>& notifiers, bool writable = false);
  // The historical configuration (Part 11 §5.2, §5.7.3; history_configuration.hpp): the
  // Server's DefaultHAConfiguration gets `defaults` with the retention (MaxTimeStoredValues in ms,
  // MaxCountStoredValues; 0 none), and each variable of `own` an HA Configuration object of its own,
  // whose StartOfArchive the store is asked for. Returns the ids of `own` that name no Variable.
  std::vector<ua::node_id> set_history_configuration(
      const historical_configuration& defaults, double max_time_stored_ms, std::uint32_t max_count_stored,
      const std::vector<std::pair<ua::node_id, historical_configuration>>& own, const instant& now);
  // Asks the store (on the reader, when there is one) for the first record of each variable with
  // an HA Configuration of its own, for their StartOfArchive. The housekeeping tick does it every
  // minute (retention moves the start), a HistoryUpdate of such a variable when it is answered.
  void refresh_archive_starts(const instant& now);
  // A HistoryUpdate back from its updater: its audit events are raised (Part 11 §5.6) and its
  // response goes to history_completed().
  void complete_history_update(services::history_update_job& job, const instant& now);
  // A HistoryRead back from its reader: its continuation points join the session's (when it is
  // still there) and its response goes to history_completed().
  void complete_history_read(services::history_read_job& job, const instant& now);
  std::span<const deferred_response> history_completed() const noexcept { return history_completed_; }
  void clear_history_completed() noexcept { history_completed_.clear(); }
  // HistoryReads at the reader: past max_history_reads_in_flight, Bad_ServerTooBusy.
  static constexpr std::size_t max_history_reads_in_flight = 16;
  // Hands the values recorded since the last call to the historian (the host, after each message).
  void flush_history() {
    recorder_->flush(space_);
    if (archive_starts_->changed()) archive_starts_->apply(space_, now_instant().utc);
  }
  const history_recorder& recorder() const noexcept { return *recorder_; }

  // The application's own watchers of value changes (value_watch.hpp: the script runners);
  // flushed by the host after each message it handles.
  value_watches& watches() noexcept { return *watches_; }

  // Where this server counts (server_metrics.hpp): requests and their results, publishing cycles,
  // application values, and the gauges refreshed by on_tick. Null: nothing is counted.
  void set_metrics(std::shared_ptr<metrics_registry> m) noexcept { metrics_ = std::move(m); }
  metrics_registry* metrics() const noexcept { return metrics_.get(); }

  // Roles and permissions (docs/security.md "Roles and permissions", docs/decisions/0052): the
  // roles and their identity mappings (null: the well-known roles with their default mappings),
  // and the plant's permission rules, resolved now against the address space and again after each
  // apply(). Sessions get new roles at their next ActivateSession; the permissions apply to every
  // request from now on. Returns the rules whose node is not in the address space.
  std::vector<std::string> set_access(std::shared_ptr<const authz::role_registry> roles,
                                      std::vector<authz::permission_rule> rules);
  const authz::permission_table& permissions() const noexcept { return *permissions_; }
  // set_access's rules, without namespace 0's defaults for the RoleSet that permissions() adds.
  const std::vector<authz::permission_rule>& plant_rules() const noexcept { return plant_rules_; }
  // The roles sessions get at their next ActivateSession (set_access's, or as the RoleSet's
  // methods changed them since: docs/security.md "The RoleSet").
  std::shared_ptr<const authz::role_registry> roles() const noexcept { return sessions_.roles_ptr(); }
  const authz::role_set_object& role_set() const noexcept { return role_set_; }
  // The NamespaceMetadata Objects under Server/Namespaces (Part 5 §6.3.13; namespace_metadata.hpp):
  // made for every namespace registered so far at each set_access and RoleSet change. After
  // registering a namespace or loading a NodeSet, refresh_namespaces makes the new ones (with the
  // versions and publication dates of `models`, the NodeSets' <Model>s).
  void refresh_namespaces(std::vector<authz::namespace_model> models = {});
  const authz::namespace_metadata& namespace_metadata() const noexcept { return namespace_metadata_; }
  // The PublishSubscribe Object (Part 14 §9.1): the runtime adds each [pubsub] connection as its
  // actor starts; on_tick shows what the actors see.
  pubsub_object& pubsub() noexcept { return pubsub_; }
  // What session `s` may do: its roles over the permission table, on its channel's security mode.
  // The table even while it has no rule: subscriptions keep this, and a reload may add rules.
  services::node_access access_of(const session& s) const noexcept {
    return {permissions_.get(), s.roles,
            authz::restrictions_met_by(static_cast<std::int32_t>(s.channel_security.mode))};
  }

  // The application's role callback (docs/decisions/0063; null: none). An ActivateSession that
  // succeeds then waits: take_role_wait() after handle() gives its question's id (0: none), and the
  // caller holds its response and the requests behind it until answer_roles() or expire_roles()
  // settles the question, then calls finish_activation() on the held response.
  void set_role_hook(authz::role_hook_ptr hook) { sessions_.set_role_hook(std::move(hook)); }
  const authz::role_hook_ptr& role_hook() const noexcept { return sessions_.role_hook(); }
  std::vector<authz::role_question>& role_outbox() noexcept { return sessions_.role_outbox(); }
  std::uint64_t take_role_wait() noexcept { return std::exchange(role_wait_, 0); }
  std::vector<authz::role_settled> answer_roles(authz::role_answer&& a, const instant& now);
  std::vector<authz::role_settled> expire_roles(const instant& now);
  // The held ActivateSession response in `out`: replaced by a ServiceFault when the callback
  // refused (`result` bad); its audit event either way (Part 5 §6.4.7).
  void finish_activation(std::uint32_t channel_id, const ua::request_header& header, const ua::extension_object& request,
                         ua::status_code result, const instant& now, ua::byte_buffer& out);

  ua::address_space& space() noexcept { return space_; }
  const ua::address_space& space() const noexcept { return space_; }
  const session_manager& sessions() const noexcept { return sessions_; }
  // New login limits (server::reload); the failures counted so far stay.
  void set_login(const login_guard_config& c) { sessions_.set_login(c); }
  const ua::ua_array<ua::endpoint_description>& endpoints() const noexcept { return sessions_.config().endpoints; }

private:
  // Through the sessions to the service; returns the request's row of the service table (null:
  // not a service request), for the request counters.
  const service_descriptor* route(std::uint32_t channel_id, std::uint32_t request_id, const ua::request_header& header,
                                  const ua::extension_object& request, const instant& now, ua::byte_buffer& out,
                                  const session_crypto_work* done);
  // The service's row runs it (service_table.cpp); no row, or no handler: Bad_ServiceUnsupported.
  void run_service(const service_descriptor* service, session* s, std::uint32_t channel_id, std::uint32_t request_id,
                   const ua::request_header& header, const ua::extension_object& request, const instant& now,
                   ua::byte_buffer& out);

  // The service handlers, one per served row of service_table.cpp (its friend names them there).
  // Each fills its reused response (below) and finishes it, or leaves `out` empty when the answer
  // comes later (application nodes, a queued Publish).
  friend struct service_rows;
  void serve_find_servers(const ua::find_servers_request& req, const service_call& c);
  void serve_get_endpoints(const ua::get_endpoints_request& req, const service_call& c);
  void serve_find_servers_on_network(const ua::find_servers_on_network_request& req, const service_call& c);
  void serve_register_server(const ua::register_server_request& req, const service_call& c);
  void serve_register_server2(const ua::register_server2_request& req, const service_call& c);
  // The channel a registration came over, as RegisterServer checks it.
  services::registering_channel registering(std::uint32_t channel_id) const;
  void serve_browse(const ua::browse_request& req, const service_call& c);
  void serve_browse_next(const ua::browse_next_request& req, const service_call& c);
  void serve_translate_browse_paths(const ua::translate_browse_paths_to_node_ids_request& req, const service_call& c);
  void serve_register_nodes(const ua::register_nodes_request& req, const service_call& c);
  void serve_unregister_nodes(const ua::unregister_nodes_request& req, const service_call& c);
  void serve_read(const ua::read_request& req, const service_call& c);
  void serve_history_read(const ua::history_read_request& req, const service_call& c);
  void serve_history_update(const ua::history_update_request& req, const service_call& c);
  void archive_after_update(const services::history_update_job& job, const instant& now);
  void audit_history_update(const services::history_update_job& job, const instant& now);
  // Events wanted: a subscription's event item, or event history.
  bool wants_events() const noexcept { return subscriptions_->has_event_items() || !event_history_.empty(); }
  void record_event(const event_record& e, const instant& now);
  bool restore_event(const ua::data_value& v, event_record& out);
  // `access` null: the session is gone, no event is returned.
  void select_history_events(services::history_read_job& job, const services::node_access* access);
  void serve_write(const ua::write_request& req, const service_call& c);
  // A Write with a role's ApplicationsExclude or EndpointsExclude in it (Part 18 §4.4.1).
  bool writes_role_excludes(const ua::write_request& req) const noexcept;
  void serve_role_write(const ua::write_request& req, const service_call& c);
  ua::status_code write_role_exclude(const ua::write_value& wv, ua::node_index n,
                                     authz::role_set_object::exclude_property which, const service_call& c,
                                     std::shared_ptr<authz::role_registry>& changed);
  void serve_call(const ua::call_request& req, const service_call& c);
  void serve_create_monitored_items(const ua::create_monitored_items_request& req, const service_call& c);
  void serve_modify_monitored_items(const ua::modify_monitored_items_request& req, const service_call& c);
  void serve_set_monitoring_mode(const ua::set_monitoring_mode_request& req, const service_call& c);
  void serve_set_triggering(const ua::set_triggering_request& req, const service_call& c);
  void serve_delete_monitored_items(const ua::delete_monitored_items_request& req, const service_call& c);
  void serve_create_subscription(const ua::create_subscription_request& req, const service_call& c);
  void serve_modify_subscription(const ua::modify_subscription_request& req, const service_call& c);
  void serve_set_publishing_mode(const ua::set_publishing_mode_request& req, const service_call& c);
  void serve_publish(const ua::publish_request& req, const service_call& c);
  void serve_republish(const ua::republish_request& req, const service_call& c);
  void serve_transfer_subscriptions(const ua::transfer_subscriptions_request& req, const service_call& c);
  void serve_delete_subscriptions(const ua::delete_subscriptions_request& req, const service_call& c);
  // Every handler's response leaves here: the request's handle and the time (the service set its
  // own ServiceResult), encoded into c.out.
  template <class Response>
  void finish(Response& response, const service_call& c);

  void fault(const ua::request_header& header, ua::status_code result, const instant& now, ua::byte_buffer& out);
  // One method of a Call whose object is a file (or the server's configuration): the checks of
  // services::check_call, then the implementation with the calling session.
  void call_with_session(const ua::call_method_request& m, ua::call_method_result& r, const service_call& c);
  bool is_session_call(const ua::call_request& req) const noexcept;
  void call_role_method(const ua::call_method_request& m, ua::call_method_result& r, const service_call& c);
  // The RoleSet shows `roles` (role_set_object::sync), which sessions get from now on, and the
  // permission table holds the plant's rules and namespace 0's defaults for the RoleSet.
  std::vector<std::string> publish_roles(std::shared_ptr<const authz::role_registry> roles);
  // The audit event of a ServerConfiguration or TrustList method (Part 12 §7.10.12, §7.8.2.8).
  void audit_certificate_management(const certificate_audit& a, const session& s, const instant& now);
  // A session ended: what hangs off it here (subscriptions, file handles).
  void session_ended(const closed_session& closed, const instant& now);
  // Audit events (Part 5 §6.4.3+, docs/decisions/0018), raised only when an event item exists.
  void audit_activate(std::uint32_t channel_id, const ua::activate_session_request& req, const session* activated,
                      ua::status_code result, const instant& now);
  void audit_writes(const ua::write_request& req, const ua::write_response& resp, const std::string& user,
                    const instant& now);
  // Part 9 §5.10: one AuditConditionEventType subtype per Part 9 method item, refused ones too.
  void audit_condition_calls(const ua::call_request& req, const ua::call_response& resp, const session& s,
                             const instant& now);
  void audit_base(std::uint32_t type, std::uint16_t severity, const ua::ua_string& audit_entry_id, bool ok,
                  ua::status_code result, std::string_view source_name, std::string_view user, const instant& now);
  struct audit_keys {
    field_key action_time_stamp, status, server_id, client_audit_entry_id, client_user_id, status_code_id, session_id,
        secure_channel_id, attribute_id, index_range, old_value, new_value;
    // AuditOpenSecureChannelEventType (Part 5 §6.4.6) and AuditCertificateEventType (§6.4.8).
    field_key client_certificate, client_certificate_thumbprint, request_type, security_policy_uri, security_mode,
        requested_lifetime, certificate_error_event_id, certificate;
  };
  audit_keys audit_{};
  // AuditHistoryUpdateEventType and its subtypes (Part 11 §5.6).
  struct history_audit_keys {
    field_key parameter_data_type_id, updated_node, perform_insert_replace, new_values, old_values, is_delete_modified,
        start_time, end_time, req_times, filter, event_ids;
  };
  history_audit_keys history_audit_{};
  // The channel and EventId of the AuditCertificate event raised last, for the CertificateErrorEventId
  // of the refused open that follows it (the two come in one message).
  std::pair<std::uint32_t, ua::byte_string> last_certificate_audit_{0, {}};
  // event_sink, for the conditions.
  void raise(event_record& e, const instant& now, std::uint32_t only_subscription, std::uint32_t only_item,
             bool unfiltered) override {
    raise_event(e, now, only_subscription, only_item, unfiltered);
  }
  bool owns(std::uint32_t session, std::uint32_t subscription, std::uint32_t item) override {
    return subscriptions_->owns_item(session, subscription, item);
  }
  // Value changes go to the subscriptions and to the conditions (both on the heap: the store keeps
  // a pointer to this, and server_core moves).
  struct change_fanout final : ua::value_observer {
    subscription_manager* subscriptions = nullptr;
    condition_manager* conditions = nullptr;
    value_watches* watches = nullptr;
    history_recorder* recorder = nullptr;
    archive_starts* archive = nullptr;
    void value_changed(ua::node_index n, const ua::data_value& v) override {
      subscriptions->value_changed(n, v);
      conditions->value_changed(n, v);
      watches->value_changed(n, v);
    }
    void historized_value_changed(ua::node_index n, const ua::data_value& v) override {
      recorder->value_changed(n, v);
      if (!archive->empty() && recorder->recording()) archive->recorded(n, history::record_time(v));
    }
  };

  server_core_config config_;
  ua::address_space space_;
  services::method_table methods_;
  session_manager sessions_;
  // On the heap: the address space points at it (its value_observer) and server_core moves.
  std::unique_ptr<subscription_manager> subscriptions_;
  std::unique_ptr<condition_manager> conditions_;
  std::unique_ptr<value_watches> watches_;
  std::unique_ptr<history_recorder> recorder_;
  std::unique_ptr<archive_starts> archive_starts_ = std::make_unique<archive_starts>();
  bool archive_refresh_pending_ = false;           // a StartOfArchive job is at the reader
  std::chrono::steady_clock::time_point archive_refreshed_{};  // the last one sent (on_tick)
  std::unique_ptr<change_fanout> fanout_;
  // On the heap: the services' node_access and the application's waiting requests point at it.
  std::unique_ptr<authz::permission_table> permissions_ = std::make_unique<authz::permission_table>();
  std::uint64_t role_wait_ = 0;  // the question of the ActivateSession just handled (take_role_wait)
  std::vector<authz::permission_rule> plant_rules_;  // set_access's, without namespace 0's defaults
  authz::role_set_object role_set_;
  authz::namespace_metadata namespace_metadata_;
  std::vector<authz::namespace_model> namespace_models_;  // refresh_namespaces'
  pubsub_object pubsub_;
  std::shared_ptr<history::history_store> history_store_;
  history_reader history_reader_;
  std::vector<ua::node_index> event_history_;     // notifiers with event history
  std::vector<ua::node_index> notifier_scratch_;  // record_event's
  event_record event_scratch_;                    // select_history_events'

  history_updater history_updater_;
  std::size_t history_reads_in_flight_ = 0;
  std::vector<deferred_response> history_completed_;
  bool trust_changed_ = false;
  application_calls app_;
  file_objects files_;
  std::unique_ptr<server_configuration> configuration_;
  std::shared_ptr<server_security> expiry_security_;  // whose certificates are watched (null: none)
  certificate_expiry expiry_;
  field_key method_id_key_{}, certificate_group_key_{}, certificate_type_key_{}, expiration_date_key_{};
  // AuditUpdateMethodEventType's InputArguments, and the Part 9 audit events' own fields (§5.10).
  field_key input_arguments_key_{}, condition_event_id_key_{}, comment_key_{}, shelving_time_key_{};
  std::shared_ptr<metrics_registry> metrics_;
  event_record event_;  // reused by raise_event
  std::uint64_t event_prefix_ = 0;
  ua::node_index current_time_ = ua::no_node;  // Server_ServerStatus_CurrentTime, sampled on the tick
  std::uint64_t event_counter_ = 0;

  // One response object per service, reused: their vectors keep their capacity between requests.
  ua::read_response read_;
  ua::write_response write_;
  ua::browse_response browse_;
  ua::browse_next_response browse_next_;
  ua::translate_browse_paths_to_node_ids_response translate_;
  ua::register_nodes_response register_;
  ua::unregister_nodes_response unregister_;
  ua::call_response call_;
  ua::get_endpoints_response get_endpoints_;
  ua::find_servers_response find_servers_;
  ua::find_servers_on_network_response find_servers_on_network_;
  ua::register_server_response register_server_;
  ua::register_server2_response register_server2_;
  // The LDS's state (config_.discovery_server), and its own FindServersOnNetwork records.
  std::unique_ptr<services::server_registry> registry_;
  services::own_network_record own_record_;
  ua::service_fault fault_;
  ua::create_subscription_response create_subscription_;
  ua::modify_subscription_response modify_subscription_;
  ua::set_publishing_mode_response set_publishing_mode_;
  ua::delete_subscriptions_response delete_subscriptions_;
  ua::transfer_subscriptions_response transfer_subscriptions_;
  ua::republish_response republish_;
  ua::create_monitored_items_response create_items_;
  ua::modify_monitored_items_response modify_items_;
  ua::set_monitoring_mode_response set_monitoring_mode_;
  ua::set_triggering_response set_triggering_;
  ua::delete_monitored_items_response delete_items_;
};

// A server with namespace 0 and its Server object filled in (the ApplicationUri and limits of
// `config`, `software_version` in its BuildInfo), NamespaceArray [UA, own_namespace_uri]: what an
// application's server starts from before it adds its own nodes.
server_core make_server_core(server_core_config config, const std::string& software_version, ua::date_time now,
                             const std::string& own_namespace_uri);

}  // namespace uactor::actors
