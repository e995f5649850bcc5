#include "engine/server/server_core.hpp"

#include <algorithm>
#include <random>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "engine/common/clock.hpp"
#include "engine/server/access/ns0_defaults.hpp"
#include "engine/server/certificates/certificate_types.hpp"
#include "engine/server/history_capabilities.hpp"
#include "engine/server/node_builder.hpp"
#include "engine/server/server_object.hpp"
#include "engine/server/services/operations.hpp"
#include "engine/server/services/read.hpp"
#include "engine/server/services/register_nodes.hpp"
#include "engine/server/services/write.hpp"
#include "protocol/codec.hpp"
#include "protocol/message.hpp"
#include "uactor/ua/node_ids.hpp"

namespace uactor::actors {

namespace {

session_config with_endpoints(session_config c, const services::server_description& d) {
  if (c.endpoints.empty()) c.endpoints = services::make_endpoints(d);
  if (c.endpoint_urls.empty()) {
    c.endpoint_urls = d.endpoint_urls;
    if (c.endpoint_urls.empty()) c.endpoint_urls.push_back(d.endpoint_url);
  }
  return c;
}

// Every response of the services below leaves here: a Bad ServiceResult as a ServiceFault.
template <class Response>
void encode_response(const Response& r, ua::byte_buffer& out) {
  ua::encoder e(out);
  ua::encode_response(e, r);
}

}  // namespace

server_core::server_core(server_core_config config, ua::address_space space, services::method_table methods)
    : config_(std::move(config)),
      space_(std::move(space)),
      methods_(std::move(methods)),
      sessions_(with_endpoints(config_.sessions, config_.description)),
      subscriptions_(std::make_unique<subscription_manager>(config_.subscriptions)),
      conditions_(std::make_unique<condition_manager>(subscriptions_->fields())),
      watches_(std::make_unique<value_watches>()),
      recorder_(std::make_unique<history_recorder>()),
      fanout_(std::make_unique<change_fanout>()) {
  fanout_->subscriptions = subscriptions_.get();
  fanout_->conditions = conditions_.get();
  conditions_->metrics().set_chattering(config_.alarm_chattering_count, config_.alarm_chattering_window);
  fanout_->watches = watches_.get();
  fanout_->recorder = recorder_.get();
  fanout_->archive = archive_starts_.get();
  space_.set_observer(fanout_.get());
  init_server_sampling(space_, config_.subscriptions.min_sampling_interval_ms, now_instant().utc);
  current_time_ = space_.find(ua::node_id(0, 2258));
  if (config_.discovery_server) {
    registry_ = std::make_unique<services::server_registry>(config_.registry, now_instant().utc);
    // Part 12 Annex A: "LDS", a Local Discovery Server. One record per DiscoveryUrl of ours.
    own_record_.capabilities = {"LDS"};
    own_record_.first_record_id =
        registry_->take_record_ids(static_cast<std::uint32_t>(config_.description.discovery_urls().size()));
  }
  std::random_device rd;
  event_prefix_ = (std::uint64_t{rd()} << 32) | rd();
  auto& f = subscriptions_->fields();
  audit_ = {f.intern("ActionTimeStamp"), f.intern("Status"),          f.intern("ServerId"),
            f.intern("ClientAuditEntryId"), f.intern("ClientUserId"), f.intern("StatusCodeId"),
            f.intern("SessionId"),        f.intern("SecureChannelId"), f.intern("AttributeId"),
            f.intern("IndexRange"),       f.intern("OldValue"),        f.intern("NewValue"),
            f.intern("ClientCertificate"), f.intern("ClientCertificateThumbprint"), f.intern("RequestType"),
            f.intern("SecurityPolicyUri"), f.intern("SecurityMode"),      f.intern("RequestedLifetime"),
            f.intern("CertificateErrorEventId"), f.intern("Certificate")};
  history_audit_ = {f.intern("ParameterDataTypeId"), f.intern("UpdatedNode"), f.intern("PerformInsertReplace"),
                    f.intern("NewValues"), f.intern("OldValues"), f.intern("IsDeleteModified"),
                    f.intern("StartTime"), f.intern("EndTime"), f.intern("ReqTimes"), f.intern("Filter"),
                    f.intern("EventIds")};

  method_id_key_ = f.intern("MethodId");
  publish_roles(sessions_.roles_ptr());
  certificate_group_key_ = f.intern("CertificateGroup");
  certificate_type_key_ = f.intern("CertificateType");
  expiration_date_key_ = f.intern("ExpirationDate");
  input_arguments_key_ = f.intern("InputArguments");
  condition_event_id_key_ = f.intern("ConditionEventId");
  comment_key_ = f.intern("Comment");
  shelving_time_key_ = f.intern("ShelvingTime");
}

// The AuditEventType fields (Part 5 §6.4.3) of one audited action into event_, BaseEventType first.
void server_core::audit_base(std::uint32_t type, std::uint16_t severity, const ua::ua_string& audit_entry_id, bool ok,
                             ua::status_code result, std::string_view source_name, std::string_view user,
                             const instant& now) {
  event_.type = space_.find(ua::node_id(0, type));
  event_.source = space_.find(ua::node_id(0, 2253));
  event_.fields.resize(field::severity + 1);
  for (std::size_t k = 0; k < event_.fields.size(); ++k) event_.fields[k].key = static_cast<field_key>(k);
  next_event_id(event_.fields[field::event_id].value.emplace<ua::byte_string>());
  event_.fields[field::event_type].value.emplace<ua::node_id>() = ua::node_id(0, type);
  event_.fields[field::source_node].value.emplace<ua::node_id>() = ua::node_id(0, 2253);
  event_.fields[field::source_name].value.emplace<ua::ua_string>().assign(source_name);
  event_.fields[field::time].value.emplace<ua::date_time>() = now.utc;
  auto& msg = event_.fields[field::message].value.emplace<ua::localized_text>();
  msg.locale.assign("en");
  msg.text.assign(std::string(source_name) + (ok ? ": Good" : ": " + result.to_string()));
  event_.fields[field::severity].value.emplace<std::uint16_t>() = severity;
  event_.set(audit_.action_time_stamp) = now.utc;
  event_.set(audit_.status) = ok;
  event_.set(audit_.server_id).emplace<ua::ua_string>().assign(config_.description.application_uri);
  event_.set(audit_.client_audit_entry_id) = audit_entry_id;
  event_.set(audit_.client_user_id).emplace<ua::ua_string>().assign(user);
  event_.set(audit_.status_code_id) = result;
}

// Part 5 §6.4.7 AuditActivateSessionEventType (i=2075): every ActivateSession, refused ones (a
// wrong password, a rejected token) with Status false and the status the client got.
void server_core::audit_activate(std::uint32_t channel_id, const ua::activate_session_request& req,
                                 const session* activated, ua::status_code result, const instant& now) {
  if (!config_.audit_events || !wants_events()) return;
  std::string user;
  if (const auto* u = req.user_identity_token.get_if<ua::user_name_identity_token>()) user = u->user_name.view();
  else if (req.user_identity_token.get_if<ua::x509_identity_token>()) user = "X509";
  const bool ok = activated != nullptr && result.is_good();
  // A refusal names the session the token belongs to (it stays as it was), and a refused move
  // from another channel says so: what a takeover attempt looks like (docs/decisions/0045).
  const session* subject = activated ? activated : sessions_.find(req.request_header.authentication_token);
  const bool moving = subject && subject->activated && subject->channel_id != channel_id;
  audit_base(2075, ok ? 100 : 700, req.request_header.audit_entry_id, ok, result, "Session/ActivateSession", user, now);
  if (!ok && moving)
    event_.fields[field::message].value.get_if<ua::localized_text>()->text.assign(
        "Session/ActivateSession from another secure channel refused: " + result.to_string());
  event_.set(audit_.session_id) = subject ? subject->session_id : ua::node_id();
  event_.set(audit_.secure_channel_id).emplace<ua::ua_string>().assign(std::to_string(channel_id));
  raise_event(event_, now);
}

// Part 5 §6.4.23 AuditWriteUpdateEventType (i=2100): one per item written, with its result; the
// SourceNode is the node written. OldValue is not kept (null).
void server_core::audit_writes(const ua::write_request& req, const ua::write_response& resp, const std::string& user,
                               const instant& now) {
  if (!config_.audit_events || !wants_events()) return;
  for (std::size_t i = 0; i < req.nodes_to_write.size() && i < resp.results.size(); ++i) {
    const auto& w = req.nodes_to_write[i];
    const ua::status_code r = resp.results[i];
    audit_base(2100, r.is_good() ? 100 : 500, req.request_header.audit_entry_id, r.is_good(), r, "Attribute/Write", user,
               now);
    const ua::node_index n = space_.find(w.node_id);
    if (n != ua::no_node) {
      event_.source = n;
      event_.fields[field::source_node].value.emplace<ua::node_id>() = w.node_id;
    }
    event_.set(audit_.attribute_id) = w.attribute_id;
    event_.set(audit_.index_range) = w.index_range;
    event_.set(audit_.old_value).clear();
    event_.set(audit_.new_value) = w.value.value;
    raise_event(event_, now);
  }
}

// Part 9 §5.10.2: SourceNode the ConditionId (routed as the condition's own events, so that its
// area's subscribers see it too), SourceName "Method/" and the method's name; the
// AuditUpdateMethodEventType fields (MethodId, InputArguments: a condition method carries no
// secret); Acknowledge, Confirm and AddComment add the ConditionEventId and Comment they were given
// (§5.10.4-§5.10.7), TimedShelve its ShelvingTime (§5.10.7). Refused calls too, with Status false
// and the status the client got.
void server_core::audit_condition_calls(const ua::call_request& req, const ua::call_response& resp, const session& s,
                                        const instant& now) {
  if (!config_.audit_events || !wants_events()) return;
  for (std::size_t i = 0; i < req.methods_to_call.size() && i < resp.results.size(); ++i) {
    const auto& m = req.methods_to_call[i];
    const char* name = "";
    const std::uint32_t type = condition_manager::audit_type(m.method_id, name);
    if (type == 0) continue;
    const ua::status_code r = resp.results[i].status_code;
    audit_base(type, r.is_good() ? 500 : 700, req.request_header.audit_entry_id, r.is_good(), r,
               std::string("Method/") + name, s.user_name.view(), now);
    ua::node_id condition;
    ua::node_index input = ua::no_node;
    if (conditions_->audit_subject(m.object_id, space_, condition, input)) {
      event_.source = input;
      event_.fields[field::source_node].value.emplace<ua::node_id>() = condition;
    } else {
      event_.fields[field::source_node].value.emplace<ua::node_id>() = m.object_id;  // no condition: what was named
    }
    event_.set(audit_.session_id) = s.session_id;
    event_.set(method_id_key_) = m.method_id;
    event_.set(input_arguments_key_).emplace<ua::ua_array<ua::variant>>().assign(m.input_arguments.begin(),
                                                                                 m.input_arguments.end());
    const auto& in = m.input_arguments;
    switch (type) {
      case ua::ids::audit_condition_acknowledge_event_type:
      case ua::ids::audit_condition_confirm_event_type:
      case ua::ids::audit_condition_comment_event_type:
        if (in.size() >= 1) event_.set(condition_event_id_key_) = in[0];
        if (in.size() >= 2) event_.set(comment_key_) = in[1];
        break;
      case ua::ids::audit_condition_shelving_event_type:
        if (in.size() >= 1 && in[0].get_if<double>()) event_.set(shelving_time_key_) = in[0];
        break;
      default: break;
    }
    raise_event(event_, now);
  }
}

namespace {

// Part 5 §6.4.8-§6.4.14: the AuditCertificateEventType subtype that names why a certificate was
// refused, as far as the check's status tells (Part 4 §6.1.3's steps).
std::uint32_t certificate_audit_type(ua::status_code sc) {
  namespace s = ua::status;
  if (sc == s::bad_certificate_time_invalid || sc == s::bad_certificate_issuer_time_invalid) return 2085;  // Expired
  if (sc == s::bad_certificate_untrusted || sc == s::bad_certificate_chain_incomplete) return 2087;        // Untrusted
  if (sc == s::bad_certificate_revoked || sc == s::bad_certificate_issuer_revoked ||
      sc == s::bad_certificate_revocation_unknown || sc == s::bad_certificate_issuer_revocation_unknown)
    return 2088;  // Revoked (or its revocation state unknown)
  if (sc == s::bad_certificate_uri_invalid || sc == s::bad_certificate_host_name_invalid) return 2082;  // DataMismatch
  if (sc == s::bad_certificate_use_not_allowed || sc == s::bad_certificate_issuer_use_not_allowed)
    return 2089;  // Mismatch: not meant for this use
  return 2086;    // Invalid: does not parse, signature, key size, policy
}

}  // namespace

// Part 5 §6.4.5, §6.4.6, §6.4.8: SourceNode the Server object; ClientUserId is not known on a
// channel ("System/OpenSecureChannel", "System/CloseSecureChannel"); the Message names the reason
// the log has (more than the client was told, Part 4 §6.5.5).
void server_core::audit_channel(const channel_audit& a, const instant& now) {
  if (!config_.audit_events || !wants_events()) return;
  const bool ok = a.status.is_good();
  const std::string channel = std::to_string(a.channel_id);
  switch (a.what) {
    case channel_audit::kind::certificate:
      audit_base(certificate_audit_type(a.status), 800, a.client_audit_entry_id, false, a.status, "Security/Certificate",
                 "System/OpenSecureChannel", now);
      event_.set(audit_.certificate) = a.client_certificate;
      break;
    case channel_audit::kind::open:
      audit_base(2060, ok ? 100 : 700, a.client_audit_entry_id, ok, a.status, "SecureChannel/OpenSecureChannel",
                 "System/OpenSecureChannel", now);
      event_.set(audit_.secure_channel_id).emplace<ua::ua_string>().assign(channel);
      event_.set(audit_.client_certificate) = a.client_certificate;
      event_.set(audit_.client_certificate_thumbprint).emplace<ua::ua_string>().assign(a.client_certificate_thumbprint);
      event_.set(audit_.request_type) = static_cast<std::int32_t>(a.request_type);
      event_.set(audit_.security_policy_uri).emplace<ua::ua_string>().assign(a.security_policy_uri);
      event_.set(audit_.security_mode) = static_cast<std::int32_t>(a.security_mode);
      event_.set(audit_.requested_lifetime) = a.requested_lifetime;
      // The certificate event just raised for this open, when there was one.
      if (last_certificate_audit_.first == a.channel_id) event_.set(audit_.certificate_error_event_id) = last_certificate_audit_.second;
      else event_.set(audit_.certificate_error_event_id).clear();
      break;
    case channel_audit::kind::close:
      audit_base(2059, 100, a.client_audit_entry_id, ok, a.status, "SecureChannel/CloseSecureChannel",
                 "System/CloseSecureChannel", now);
      event_.set(audit_.secure_channel_id).emplace<ua::ua_string>().assign(channel);
      break;
  }
  if (!a.reason.empty()) {
    auto& msg = event_.fields[field::message].value.emplace<ua::localized_text>();
    msg.locale.assign("en");
    msg.text.assign(std::string(event_.fields[field::source_name].value.get_if<ua::ua_string>()->view()) + ": " +
                    a.status.to_string() + ": " + a.reason);
  }
  raise_event(event_, now);
  if (a.what == channel_audit::kind::certificate) {
    last_certificate_audit_.first = a.channel_id;
    last_certificate_audit_.second = *event_.fields[field::event_id].value.get_if<ua::byte_string>();
  } else {
    last_certificate_audit_.first = 0;
  }
}

void server_core::next_event_id(ua::byte_string& out) {
  char raw[16];
  const std::uint64_t n = ++event_counter_;
  for (int b = 0; b < 8; ++b) {
    raw[b] = static_cast<char>(event_prefix_ >> (8 * b));
    raw[8 + b] = static_cast<char>(n >> (8 * (7 - b)));
  }
  out.assign(raw, sizeof raw);
}

ua::status_code server_core::raise_event(const event& e, const instant& now) {
  const ua::node_index base = space_.find(ua::node_id(0, 2041));
  const ua::node_index type = space_.find(e.type);
  if (type == ua::no_node || space_.at(type).cls != ua::node_class::object_type || !space_.is_subtype_of(type, base))
    return ua::status::bad_type_definition_invalid;
  const ua::node_index server = space_.find(ua::node_id(0, 2253));
  const ua::node_index source = e.source.is_null() ? server : space_.find(e.source);
  if (source == ua::no_node) return ua::status::bad_node_id_unknown;
  event_.type = type;
  event_.source = source;
  // The BaseEventType fields first, in key order; the extra ones of the last event go.
  event_.fields.resize(field::severity + 1);
  for (std::size_t k = 0; k < event_.fields.size(); ++k) event_.fields[k].key = static_cast<field_key>(k);
  event_.fields[field::event_type].value.emplace<ua::node_id>() = e.type;
  event_.fields[field::source_node].value.emplace<ua::node_id>() = e.source.is_null() ? ua::node_id(0, 2253) : e.source;
  auto& name = event_.fields[field::source_name].value.emplace<ua::ua_string>();
  if (!e.source_name.empty()) name.assign(e.source_name);
  else name.assign(space_.at(source).browse_name);
  event_.fields[field::time].value.emplace<ua::date_time>() = e.time.ticks == 0 ? now.utc : e.time;
  event_.fields[field::message].value.emplace<ua::localized_text>() = e.message;
  event_.fields[field::severity].value.emplace<std::uint16_t>() =
      static_cast<std::uint16_t>(std::clamp<unsigned>(e.severity, 1, 1000));
  for (const event_field_value& f : e.fields) {
    const field_key k = subscriptions_->fields().intern(f.path);
    if (k == field::none || k <= field::severity) continue;  // the base fields are set above
    event_.set(k) = f.value;
  }
  if (!wants_events()) return ua::status::good;  // nobody listens: nothing to fill
  next_event_id(event_.fields[field::event_id].value.emplace<ua::byte_string>());
  raise_event(event_, now);
  return ua::status::good;
}

void server_core::raise_event(event_record& e, const instant& now, std::uint32_t only_subscription,
                              std::uint32_t only_item, bool unfiltered) {
  if (!wants_events()) return;
  e.set(field::receive_time).emplace<ua::date_time>() = now.utc;
  // A ConditionRefresh's replay (one subscription, unfiltered) is not a new occurrence.
  if (only_subscription == 0 && !unfiltered && !event_history_.empty()) record_event(e, now);
  if (!subscriptions_->has_event_items()) return;
  subscriptions_->raise_event(e, space_, only_subscription, only_item, unfiltered);
}

namespace {

// Part 3 §7.16-7.17: the Server object, the source, and the notifiers above the source over
// inverse HasEventSource and HasNotifier, breadth first, each once, at most 64 (as the
// subscriptions walk them, subscriptions/events.cpp).
void event_history_notifiers_of(const ua::address_space& as, ua::node_index source, std::vector<ua::node_index>& out) {
  out.clear();
  const ua::node_index server = as.find(ua::node_id(0, 2253));
  if (server != ua::no_node) out.push_back(server);
  if (source != ua::no_node && source != server) out.push_back(source);
  const ua::node_index source_ref = as.find(ua::node_id(0, 36));    // HasEventSource
  const ua::node_index notifier_ref = as.find(ua::node_id(0, 48));  // HasNotifier
  for (std::size_t k = server == ua::no_node ? 0 : 1; k < out.size() && out.size() < 64; ++k) {
    for (const ua::reference& r : as.inverse_references(out[k])) {
      if (r.type != source_ref && r.type != notifier_ref) continue;
      if (std::find(out.begin(), out.end(), r.target) != out.end()) continue;
      out.push_back(r.target);
      if (out.size() >= 64) break;
    }
  }
}

}  // namespace

// Event history (docs/history.md "Event history"): an event that reaches a notifier with event
// history becomes one record of that notifier, a DataValue whose value is [name, value, name,
// value, ...] (each field's browse path as the catalogue spells it, then its value),
// SourceTimestamp its Time, ServerTimestamp its ReceiveTime. The historian records it like a value.
void server_core::record_event(const event_record& e, const instant& now) {
  if (!recorder_->recording()) return;
  event_history_notifiers_of(space_, e.source, notifier_scratch_);
  ua::data_value record;
  bool encoded = false;
  for (const ua::node_index n : notifier_scratch_) {
    if (std::find(event_history_.begin(), event_history_.end(), n) == event_history_.end()) continue;
    if (!encoded) {
      ua::ua_array<ua::variant> fields;
      fields.reserve(2 * e.fields.size());
      for (const event_field& f : e.fields) {
        if (f.value.empty()) continue;
        const std::string_view name = subscriptions_->fields().name(f.key);
        if (name.empty() && f.key != field::condition_id) continue;
        fields.push_back(ua::variant(ua::ua_string(name)));
        fields.push_back(f.value);
      }
      record.value = ua::variant(std::move(fields));
      record.has_value = true;
      const auto* t = e.find(field::time);
      record.source_timestamp = t && t->get_if<ua::date_time>() ? *t->get_if<ua::date_time>() : now.utc;
      record.has_source_timestamp = true;
      record.server_timestamp = now.utc;
      record.has_server_timestamp = true;
      encoded = true;
    }
    recorder_->record(n, record);
  }
}

// A stored event back into an event_record (its field names interned again, its type and source
// found in the address space); false for a record that is not one.
bool server_core::restore_event(const ua::data_value& v, event_record& out) {
  const auto* fields = v.value.get_if<ua::ua_array<ua::variant>>();
  if (!fields || fields->size() % 2 != 0) return false;
  out.fields.clear();
  out.type = ua::no_node;
  out.source = ua::no_node;
  for (std::size_t i = 0; i + 1 < fields->size(); i += 2) {
    const auto* name = (*fields)[i].get_if<ua::ua_string>();
    if (!name) return false;
    const field_key k = name->view().empty() ? field::condition_id : subscriptions_->fields().intern(name->view());
    if (k == field::none) continue;
    out.set(k) = (*fields)[i + 1];
  }
  if (const auto* t = out.find(field::event_type); t && t->get_if<ua::node_id>()) out.type = space_.find(*t->get_if<ua::node_id>());
  if (const auto* s = out.find(field::source_node); s && s->get_if<ua::node_id>()) out.source = space_.find(*s->get_if<ua::node_id>());
  return true;
}

// ReadEventDetails' pages (run_history_read read the stored records) through the request's
// EventFilter: the events its where clause keeps, their select clauses as HistoryEventFieldLists
// (Part 11 §6.5.2, §6.6.4). Only events whose source the session may receive events from (Part 3
// §8.55 ReceiveEvents), as a live event item sees them (subscriptions/events.cpp): a stored event
// says no more than the live one did.
void server_core::select_history_events(services::history_read_job& job, const services::node_access* access) {
  if (job.kind != services::history_read_kind::events || !job.event_filter) return;
  for (const auto& it : job.items) {
    ua::history_read_result& r = job.response.results[it.result];
    const auto* raw = r.history_data.get_if<ua::history_data>();
    if (!raw) continue;
    ua::history_event out;
    for (const auto& v : raw->data_values) {
      if (!access || !restore_event(v, event_scratch_)) continue;
      if (event_scratch_.source != ua::no_node && !access->may(event_scratch_.source, authz::permission::receive_events)) continue;
      if (!job.event_filter->matches(event_scratch_, space_)) continue;
      job.event_filter->select(event_scratch_, out.events.emplace_back().event_fields);
    }
    if (out.events.empty() && !it.more && r.status_code == ua::status::good) r.status_code = ua::status::good_no_data;
    r.history_data = ua::extension_object(std::move(out));
  }
}

std::vector<ua::node_id> server_core::set_event_history(const std::vector<ua::node_id>& notifiers, bool writable) {
  std::vector<ua::node_id> unknown;
  for (const ua::node_id& id : notifiers) {
    const ua::node_index n = space_.find(id);
    if (n == ua::no_node || space_.set_event_history(n, true, writable).is_bad()) {
      unknown.push_back(id);
      continue;
    }
    if (std::find(event_history_.begin(), event_history_.end(), n) == event_history_.end()) event_history_.push_back(n);
  }
  if (!event_history_.empty())
    set_event_history_capability(space_, true,
                                 static_cast<std::uint32_t>(std::min<std::size_t>(config_.history.max_values_per_node, 0xFFFF'FFFFu)),
                                 now_instant().utc);
  return unknown;
}

ua::status_code server_core::add_limit_alarm(const limit_alarm& a, const instant& now) {
  return conditions_->add(a, space_, *this, now);
}

ua::status_code server_core::add_off_normal_alarm(const off_normal_alarm& a, const instant& now) {
  return conditions_->add(a, space_, *this, now);
}

ua::status_code server_core::add_discrete_alarm(const discrete_alarm& a, const instant& now) {
  return conditions_->add(a, space_, *this, now);
}

ua::status_code server_core::add_deviation_alarm(const deviation_alarm& a, const instant& now) {
  return conditions_->add(a, space_, *this, now);
}

ua::status_code server_core::add_rate_of_change_alarm(const rate_of_change_alarm& a, const instant& now) {
  return conditions_->add(a, space_, *this, now);
}

ua::status_code server_core::add_trip_alarm(const trip_alarm& a, const instant& now) {
  return conditions_->add(a, space_, *this, now);
}

ua::status_code server_core::add_discrepancy_alarm(const discrepancy_alarm& a, const instant& now) {
  return conditions_->add(a, space_, *this, now);
}

ua::status_code server_core::add_alarm_group(const alarm_group& g, const instant& now) {
  return conditions_->add_group(g, space_, now);
}

void server_core::handle(std::uint32_t channel_id, std::uint32_t request_id, const ua::request_header& header,
                         const ua::extension_object& request, const instant& now, ua::byte_buffer& out,
                         const session_crypto_work* done) {
  const std::size_t before = out.size();
  const service_descriptor* service = route(channel_id, request_id, header, request, now, out, done);
  if (metrics_)
    metrics_->host().count_request(service_position(service), {out.data() + before, out.size() - before});
}

void server_core::refuse(const ua::request_header& header, const ua::extension_object& request, ua::status_code result,
                         const instant& now, ua::byte_buffer& out) {
  const std::size_t before = out.size();
  fault(header, result, now, out);
  if (metrics_)
    metrics_->host().count_request(service_position(find_service(request)), {out.data() + before, out.size() - before});
}

const service_descriptor* server_core::route(std::uint32_t channel_id, std::uint32_t request_id,
                                             const ua::request_header& header, const ua::extension_object& request,
                                             const instant& now, ua::byte_buffer& out, const session_crypto_work* done) {
  const service_descriptor* service = find_service(request);  // once: sessions, dispatch, counting
  const auto routed = sessions_.route(channel_id, header, request, service, now, done);
  if (routed.closed) session_ended(*routed.closed, now);
  if (routed.activated)
    subscriptions_->session_activated(routed.activated->session_id.numeric(), routed.activated->identity,
                                      access_of(*routed.activated));
  role_wait_ = routed.role_question;
  if (metrics_ && routed.channel_move != session_manager::routed::move::none)
    (routed.channel_move == session_manager::routed::move::moved ? metrics_->host().session_moves
                                                                   : metrics_->host().session_moves_refused)
        .add();
  if (metrics_) {
    auto& h = metrics_->host();
    switch (routed.login_refused) {
      case login_refusal::none: break;
      case login_refusal::user_backoff: h.login_refused_backoff.add(); break;
      case login_refusal::user_locked: h.login_refused_user_locked.add(); break;
      case login_refusal::address_locked: h.login_refused_address_locked.add(); break;
    }
    if (routed.login_failed) h.login_failures.add();
    if (routed.lockout_started) h.login_lockouts.add();
  }
  if (routed.what == session_manager::routed::action::respond) {
    ua::encoder e(out);
    ua::encode_message(e, *routed.response);
    if (const auto* act = request.get_if<ua::activate_session_request>()) {
      ua::status_code result = ua::status::good;
      if (&routed.response->type() == &ua::service_fault::extension_type_info)
        result = static_cast<const ua::typed_extension_body<ua::service_fault>*>(routed.response)
                     ->value.response_header.service_result;
      else if (&routed.response->type() == &ua::activate_session_response::extension_type_info)
        result = static_cast<const ua::typed_extension_body<ua::activate_session_response>*>(routed.response)
                     ->value.response_header.service_result;
      // Held for the role callback: audited once it is settled (finish_activation).
      if (!routed.role_question) audit_activate(channel_id, *act, routed.activated, result, now);
    }
    return service;
  }
  run_service(service, routed.target, channel_id, request_id, header, request, now, out);
  // A Write may have moved an alarm's input: its transitions now, in the order of the changes.
  if (conditions_->has_pending()) conditions_->process(space_, *this, now);
  return service;
}

std::vector<authz::role_settled> server_core::answer_roles(authz::role_answer&& a, const instant& now) {
  std::vector<authz::role_settled> out;
  for (const auto& o : sessions_.answer_roles(std::move(a), now)) {
    // The subscriptions of a session activated again follow its roles (decided now).
    if (o.activated)
      subscriptions_->session_activated(o.activated->session_id.numeric(), o.activated->identity, access_of(*o.activated));
    out.push_back(o.settled);
  }
  return out;
}

std::vector<authz::role_settled> server_core::expire_roles(const instant& now) {
  std::vector<authz::role_settled> out;
  for (const auto& o : sessions_.expire_roles(now)) {
    if (o.activated)
      subscriptions_->session_activated(o.activated->session_id.numeric(), o.activated->identity, access_of(*o.activated));
    out.push_back(o.settled);
  }
  return out;
}

void server_core::finish_activation(std::uint32_t channel_id, const ua::request_header& header,
                                    const ua::extension_object& request, ua::status_code result, const instant& now,
                                    ua::byte_buffer& out) {
  if (result.is_bad()) {
    out.clear();
    fault(header, result, now, out);
  }
  if (const auto* act = request.get_if<ua::activate_session_request>()) {
    const session* s = result.is_good() ? sessions_.find(header.authentication_token) : nullptr;
    audit_activate(channel_id, *act, s, result, now);
  }
}

void server_core::publish_tick(const instant& now) {
  if (conditions_->has_pending()) conditions_->process(space_, *this, now);  // values set outside a request
  // CurrentTime (i=2258) is sampled on this tick while monitored (init_server_sampling): a date, no
  // allocation.
  if (current_time_ != ua::no_node) {
    if (const ua::variable_data* var = space_.variable(current_time_); var && var->monitored) {
      ua::data_value v;
      v.set_value(now.utc);
      v.source_timestamp = v.server_timestamp = now.utc;
      v.has_source_timestamp = v.has_server_timestamp = true;
      space_.set_value(current_time_, std::move(v));
    }
  }
  subscriptions_->publish_tick(space_, now);
  if (metrics_) metrics_->host().publish_cycles.add();
}

void server_core::run_service(const service_descriptor* service, session* s, std::uint32_t channel_id,
                              std::uint32_t request_id, const ua::request_header& header,
                              const ua::extension_object& request, const instant& now, ua::byte_buffer& out) {
  // session_manager::route gives a session to every row that needs one; the check keeps a
  // handler from ever seeing a null session.
  if (service == nullptr || service->serve == nullptr || (service->session != session_use::none && s == nullptr))
    return fault(header, ua::status::bad_service_unsupported, now, out);
  service->serve(*this, *request.body(), service_call{s, channel_id, request_id, header, now, out});
}

template <class Response>
void server_core::finish(Response& response, const service_call& c) {
  response.response_header.request_handle = c.header.request_handle;
  response.response_header.timestamp = c.now.utc;
  encode_response(response, c.out);
}

// Discovery (Part 4 §5.4), without a session.

void server_core::serve_find_servers(const ua::find_servers_request& req, const service_call& c) {
  if (registry_) {
    registry_->expire(c.now);
    registry_->drop_missing_semaphores();
  }
  services::service_find_servers(req, find_servers_, config_.description, c.now.utc, registry_.get());
  finish(find_servers_, c);
}

// The LDS services (docs/discovery.md): Bad_ServiceUnsupported unless the server acts as one, so
// that a registering server falls back or gives up as Part 4 §5.4.6 says.

void server_core::serve_find_servers_on_network(const ua::find_servers_on_network_request& req,
                                                const service_call& c) {
  if (!registry_) return fault(c.header, ua::status::bad_service_unsupported, c.now, c.out);
  registry_->expire(c.now);
  registry_->drop_missing_semaphores();
  services::service_find_servers_on_network(req, find_servers_on_network_, config_.description, own_record_,
                                            *registry_, c.now.utc);
  finish(find_servers_on_network_, c);
}

services::registering_channel server_core::registering(std::uint32_t channel_id) const {
  services::registering_channel r;
  if (!config_.sessions.security) return r;  // policy None only: nothing can register
  const channel_peer peer = config_.sessions.security->channels.get(channel_id);
  r.mode = peer.mode;
  if (peer.client_certificate) r.certificate_application_uri = peer.client_certificate.application_uri();
  return r;
}

void server_core::serve_register_server(const ua::register_server_request& req, const service_call& c) {
  if (!registry_) return fault(c.header, ua::status::bad_service_unsupported, c.now, c.out);
  std::string why;
  services::service_register_server(req, register_server_, *registry_, registering(c.channel_id), c.now, why);
  const auto sc = register_server_.response_header.service_result;
  if (!sc.is_good())
    spdlog::warn("RegisterServer of '{}' refused ({}): {}", req.server.server_uri.view(), sc.name(), why);
  else
    spdlog::debug("RegisterServer: '{}' {}", req.server.server_uri.view(), req.server.is_online ? "online" : "offline");
  finish(register_server_, c);
}

void server_core::serve_register_server2(const ua::register_server2_request& req, const service_call& c) {
  if (!registry_) return fault(c.header, ua::status::bad_service_unsupported, c.now, c.out);
  std::string why;
  services::service_register_server2(req, register_server2_, *registry_, registering(c.channel_id), c.now, why);
  const auto sc = register_server2_.response_header.service_result;
  if (!sc.is_good())
    spdlog::warn("RegisterServer2 of '{}' refused ({}): {}", req.server.server_uri.view(), sc.name(), why);
  else
    spdlog::debug("RegisterServer2: '{}' {}", req.server.server_uri.view(), req.server.is_online ? "online" : "offline");
  finish(register_server2_, c);
}

void server_core::serve_get_endpoints(const ua::get_endpoints_request& req, const service_call& c) {
  services::service_get_endpoints(req, get_endpoints_, endpoints(), c.now.utc);
  finish(get_endpoints_, c);
}

// View.

void server_core::serve_browse(const ua::browse_request& req, const service_call& c) {
  services::service_browse(req, browse_, space_, c.s->browse_points, config_.limits, access_of(*c.s));
  finish(browse_, c);
}

void server_core::serve_browse_next(const ua::browse_next_request& req, const service_call& c) {
  services::service_browse_next(req, browse_next_, space_, c.s->browse_points, config_.limits, access_of(*c.s));
  finish(browse_next_, c);
}

void server_core::serve_translate_browse_paths(const ua::translate_browse_paths_to_node_ids_request& req,
                                               const service_call& c) {
  services::service_translate_browse_paths(req, translate_, space_, config_.limits, access_of(*c.s));
  finish(translate_, c);
}

void server_core::serve_register_nodes(const ua::register_nodes_request& req, const service_call& c) {
  services::service_register_nodes(req, register_, c.now.utc, config_.limits);
  finish(register_, c);
}

void server_core::serve_unregister_nodes(const ua::unregister_nodes_request& req, const service_call& c) {
  services::service_unregister_nodes(req, unregister_, c.now.utc, config_.limits);
  finish(unregister_, c);
}

// Attribute and Method. The application's nodes make a request wait for its answers
// (docs/embedding.md): out stays empty and the response comes out of application().completed().

void server_core::serve_read(const ua::read_request& req, const service_call& c) {
  if (app_.read({c.channel_id, c.request_id, &c.s->user_name.str(), access_of(*c.s)}, req, read_, space_, c.now, config_.limits)) return;
  finish(read_, c);
}

// Part 4 §5.10.3, raw values (services/history_read.cpp). The store's reads go to the reader
// when there is one, and the response leaves later (docs/decisions/0048).
void server_core::serve_history_read(const ua::history_read_request& req, const service_call& c) {
  if (history_reader_ && history_reads_in_flight_ >= max_history_reads_in_flight)
    return fault(c.header, ua::status::bad_server_too_busy, c.now, c.out);  // before any point is used
  auto job = std::make_shared<services::history_read_job>();
  job->store = history_store_.get();
  job->store_owner = history_store_;
  job->channel_id = c.channel_id;
  job->request_id = c.request_id;
  job->session_token = c.s->authentication_token;
  // ReadEventDetails: the filter compiled here, where the catalogue and the types are (Part 11
  // §6.5.2; the same compiler as an event item's, subscriptions/event_filter.hpp).
  if (const auto* ev = req.history_read_details.get_if<ua::read_event_details>(); ev && !event_history_.empty()) {
    job->event_filter = std::make_shared<event_filter_program>();
    ua::event_filter_result ignored;
    job->event_filter_status = job->event_filter->compile(ev->filter, space_, subscriptions_->fields(), {}, ignored);
  }
  if (services::plan_history_read(req, *job, space_, c.s->history_points, config_.history, access_of(*c.s))) {
    if (history_reader_) {
      ++history_reads_in_flight_;
      history_reader_(std::move(job));
      return;  // out stays empty: complete_history_read answers
    }
    services::run_history_read(*job);
    const services::node_access access = access_of(*c.s);
    select_history_events(*job, &access);
    services::finish_history_read(*job, &c.s->history_points);
  }
  finish(job->response, c);
}

// Part 4 §5.10.5 (services/history_update.cpp): the changes go to the updater when there is one
// (the history reader's thread, docs/decisions/0060), and the response leaves later.
void server_core::serve_history_update(const ua::history_update_request& req, const service_call& c) {
  if (history_updater_ && history_reads_in_flight_ >= max_history_reads_in_flight)
    return fault(c.header, ua::status::bad_server_too_busy, c.now, c.out);
  auto job = std::make_shared<services::history_update_job>();
  job->store = history_store_.get();
  job->store_owner = history_store_;
  job->channel_id = c.channel_id;
  job->request_id = c.request_id;
  job->session_token = c.s->authentication_token;
  job->who.time = c.now.utc.ticks;
  job->who.user = c.s->user_name.str();
  // Part 11 §6.9.4: an UpdateEventDetails' select clause names a field as a live filter's does
  // (Value of a browse path; ConditionId the NodeId of the empty path), stored under its interned
  // form. Made here, not kept: a server_core moves (into its actor), `this` with it.
  services::history_event_catalogue events;
  events.field_name = [this](const ua::simple_attribute_operand& f) -> std::optional<std::string> {
    constexpr std::uint32_t node_id_attribute = 1, value_attribute = 13;
    if (!f.index_range.empty()) return std::nullopt;
    if (f.browse_path.empty()) return f.attribute_id == node_id_attribute ? std::optional<std::string>(std::string()) : std::nullopt;
    if (f.attribute_id != value_attribute) return std::nullopt;
    const field_key k = subscriptions_->fields().intern(std::span<const ua::qualified_name>(f.browse_path));
    if (k == field::none) return std::nullopt;
    return std::string(subscriptions_->fields().name(k));
  };
  events.new_event_id = [this](ua::byte_string& out) { next_event_id(out); };
  if (services::plan_history_update(req, *job, space_, config_.history, access_of(*c.s), &events)) {
    if (history_updater_) {
      ++history_reads_in_flight_;
      history_updater_(std::move(job));
      return;  // out stays empty: complete_history_update answers
    }
    services::run_history_update(*job);
  }
  audit_history_update(*job, c.now);
  archive_after_update(*job, c.now);
  finish(job->response, c);
}

void server_core::complete_history_update(services::history_update_job& job, const instant& now) {
  if (history_reads_in_flight_ > 0) --history_reads_in_flight_;
  audit_history_update(job, now);
  archive_after_update(job, now);
  deferred_response& d = history_completed_.emplace_back();
  d.channel_id = job.channel_id;
  d.request_id = job.request_id;
  job.response.response_header.timestamp = now.utc;
  encode_response(job.response, d.message);
}

// Part 11 §5.6.2-§5.6.6: one audit event per details that reached the store,
// AuditHistoryValueUpdateEventType (i=3006), AuditHistoryRawModifyDeleteEventType (i=3014),
// AuditHistoryAtTimeDeleteEventType (i=3019), AuditHistoryEventUpdateEventType (i=2999) or
// AuditHistoryEventDeleteEventType (i=3022), raised at the updated node. OldValues stays empty:
// the store does not hand the old values back (docs/history.md).
void server_core::audit_history_update(const services::history_update_job& job, const instant& now) {
  if (!config_.audit_events || !wants_events()) return;
  using kind = services::history_update_job::kind;
  for (const auto& it : job.items) {
    const ua::status_code r = job.response.results[it.result].status_code;
    const std::uint32_t type = it.what == kind::update            ? 3006
                               : it.what == kind::delete_at       ? 3019
                               : it.what == kind::update_events   ? 2999
                               : it.what == kind::delete_events   ? 3022
                                                                  : 3014;
    const char* action = it.what == kind::update            ? "HistoryUpdate/UpdateData"
                         : it.what == kind::delete_at       ? "HistoryUpdate/DeleteAtTime"
                         : it.what == kind::update_events   ? "HistoryUpdate/UpdateEvent"
                         : it.what == kind::delete_events   ? "HistoryUpdate/DeleteEvent"
                                                            : "HistoryUpdate/DeleteRawModified";
    audit_base(type, r.is_good() ? 100 : 500, job.audit_entry_id, r.is_good(), r, action, job.who.user, now);
    if (const ua::node_index n = space_.find(it.node_id); n != ua::no_node) {
      event_.source = n;
      event_.fields[field::source_node].value.emplace<ua::node_id>() = it.node_id;
    }
    event_.set(history_audit_.updated_node) = it.node_id;
    event_.set(history_audit_.old_values).clear();
    if (it.what == kind::update) {
      event_.set(history_audit_.parameter_data_type_id) = ua::node_id(0, ua::update_data_details::data_type_id);
      event_.set(history_audit_.perform_insert_replace) = static_cast<std::int32_t>(it.perform);
      event_.set(history_audit_.new_values).emplace<ua::ua_array<ua::data_value>>().assign(it.values.begin(), it.values.end());
    } else if (it.what == kind::update_events) {  // Part 11 §5.6.3 AuditHistoryEventUpdateEventType
      event_.set(history_audit_.parameter_data_type_id) = ua::node_id(0, ua::update_event_details::data_type_id);
      event_.set(history_audit_.perform_insert_replace) = static_cast<std::int32_t>(it.perform);
      event_.set(history_audit_.filter) = ua::variant(ua::extension_object(it.filter));
      auto& values = event_.set(history_audit_.new_values).emplace<ua::ua_array<ua::extension_object>>();
      for (const auto& e : it.event_data) values.push_back(ua::extension_object(e));
    } else if (it.what == kind::delete_events) {  // Part 11 §5.6.6 AuditHistoryEventDeleteEventType
      event_.set(history_audit_.parameter_data_type_id) = ua::node_id(0, ua::delete_event_details::data_type_id);
      event_.set(history_audit_.event_ids).emplace<ua::ua_array<ua::byte_string>>().assign(it.event_ids.begin(), it.event_ids.end());
    } else if (it.what == kind::delete_at) {
      event_.set(history_audit_.parameter_data_type_id) = ua::node_id(0, ua::delete_at_time_details::data_type_id);
      auto& times = event_.set(history_audit_.req_times).emplace<ua::ua_array<ua::date_time>>();
      for (const std::int64_t t : it.times) times.push_back(ua::date_time{t});
    } else {
      event_.set(history_audit_.parameter_data_type_id) = ua::node_id(0, ua::delete_raw_modified_details::data_type_id);
      event_.set(history_audit_.is_delete_modified) = it.what == kind::delete_modified;
      event_.set(history_audit_.start_time) = it.start;
      event_.set(history_audit_.end_time) = it.end;
    }
    raise_event(event_, now);
  }
}

// A HistoryUpdate may have moved the start of a configured variable's archive (an earlier value
// inserted, the first ones deleted): asked again.
void server_core::archive_after_update(const services::history_update_job& job, const instant& now) {
  if (archive_starts_->empty()) return;
  for (const auto& it : job.items)
    if (job.response.results[it.result].status_code.is_good() && archive_starts_->contains(space_.find(it.node_id)))
      return refresh_archive_starts(now);
}

void server_core::set_history(std::shared_ptr<history::history_store> store, history_recorder::sink sink,
                              history_reader reader, history_updater updater) {
  history_store_ = std::move(store);
  recorder_->set_sink(std::move(sink));
  history_reader_ = std::move(reader);
  history_updater_ = std::move(updater);
  set_history_capabilities(space_, history_store_ != nullptr,
                           static_cast<std::uint32_t>(std::min<std::size_t>(config_.history.max_values_per_node, 0xFFFF'FFFFu)),
                           now_instant().utc);
  // Part 11 §5.7.3: the variables without a configuration of their own have the server's.
  set_default_ha_configuration(space_, history_store_ != nullptr, {}, 0, 0, now_instant().utc);
  recorder_->settings_changed();
}

std::vector<ua::node_id> server_core::set_history_configuration(
    const historical_configuration& defaults, double max_time_stored_ms, std::uint32_t max_count_stored,
    const std::vector<std::pair<ua::node_id, historical_configuration>>& own, const instant& now) {
  set_default_ha_configuration(space_, history_store_ != nullptr, defaults, max_time_stored_ms, max_count_stored, now.utc);
  recorder_->settings_changed();  // the collection settings are read from the nodes again
  std::vector<ua::node_id> unknown;
  for (const auto& [id, c] : own) {
    const ua::node_index n = space_.find(id);
    auto made = set_ha_configuration(space_, n, c, now.utc);
    if (!made) {
      unknown.push_back(id);
      continue;
    }
    if (!archive_starts_->contains(n)) archive_starts_->add(n, made->start, made->online);
  }
  refresh_archive_starts(now);
  return unknown;
}

// Part 11 §5.2.2 StartOfArchive: each configured variable's first record, read like a HistoryRead
// (on the reader), answered in complete_history_read. One such job at a time.
void server_core::refresh_archive_starts(const instant& now) {
  archive_refreshed_ = now.steady;
  if (!history_store_ || archive_starts_->empty() || archive_refresh_pending_) return;
  auto job = std::make_shared<services::history_read_job>();
  job->kind = services::history_read_kind::archive_start;
  job->store = history_store_.get();
  job->store_owner = history_store_;
  job->limits = config_.history;
  for (const ua::node_index n : archive_starts_->variables()) {
    services::history_read_job::item it;
    it.result = job->response.results.size();
    job->response.results.emplace_back();
    it.position.node_id = space_.at(n).id.to_node_id();
    it.position.node = it.position.node_id.to_string();
    job->items.push_back(std::move(it));
  }
  if (history_reader_) {
    archive_refresh_pending_ = true;
    history_reader_(std::move(job));
    return;
  }
  services::run_history_read(*job);
  complete_history_read(*job, now);
}

void server_core::complete_history_read(services::history_read_job& job, const instant& now) {
  if (job.kind == services::history_read_kind::archive_start) {  // the host's own question, no client's
    archive_refresh_pending_ = false;
    for (const auto& it : job.items) {
      const ua::history_read_result& r = job.response.results[it.result];
      const auto* d = r.history_data.get_if<ua::history_data>();
      if (r.status_code.is_bad() || !d) continue;  // unknown now: the start stays as it was
      archive_starts_->answered(space_.find(it.position.node_id),
                                d->data_values.empty() ? std::nullopt
                                                       : std::optional<std::int64_t>(history::record_time(d->data_values[0])));
    }
    archive_starts_->apply(space_, now.utc);
    job.items.clear();
    return;
  }
  if (history_reads_in_flight_ > 0) --history_reads_in_flight_;
  session* s = sessions_.find(job.session_token);
  if (s) {
    const services::node_access access = access_of(*s);
    select_history_events(job, &access);
  } else {
    select_history_events(job, nullptr);
  }
  services::finish_history_read(job, s ? &s->history_points : nullptr);
  deferred_response& d = history_completed_.emplace_back();
  d.channel_id = job.channel_id;
  d.request_id = job.request_id;
  job.response.response_header.timestamp = now.utc;
  encode_response(job.response, d.message);
}

void server_core::serve_write(const ua::write_request& req, const service_call& c) {
  if (role_set_.has_excludes() && writes_role_excludes(req)) return serve_role_write(req, c);
  if (app_.write({c.channel_id, c.request_id, &c.s->user_name.str(), access_of(*c.s)}, req, write_, space_, c.now, config_.limits))
    return;  // the application's: not audited yet
  audit_writes(req, write_, c.s->user_name.str(), c.now);
  finish(write_, c);
}

bool server_core::writes_role_excludes(const ua::write_request& req) const noexcept {
  // The id's shape first: an item that cannot name an exclude property (nearly every one) is not
  // looked up here, only once by the Write itself.
  for (const auto& wv : req.nodes_to_write)
    if (role_set_.may_name_exclude(wv.node_id))
      if (const ua::node_index n = space_.find(wv.node_id); n != ua::no_node && role_set_.exclude_of(n)) return true;
  return false;
}

// Part 18 §4.4.1: ApplicationsExclude and EndpointsExclude are written, by SecurityAdmin over
// SignAndEncrypt as the role methods are called (and with the same order of refusals, decision
// 0062). The other items of the request are written as the Write service writes them; the
// application's hooks are not asked for them (as for a condition's methods in a Call).
void server_core::serve_role_write(const ua::write_request& req, const service_call& c) {
  write_.response_header.timestamp = c.now.utc;
  if (services::start_operations(req.request_header, write_, req.nodes_to_write.size(),
                                 config_.limits.max_nodes_per_write)) {
    write_.results.resize(req.nodes_to_write.size());
    std::shared_ptr<authz::role_registry> changed;
    const auto access = access_of(*c.s);
    for (std::size_t i = 0; i < req.nodes_to_write.size(); ++i) {
      const ua::write_value& wv = req.nodes_to_write[i];
      const ua::node_index n = space_.find(wv.node_id);
      const auto which = n == ua::no_node ? std::nullopt : role_set_.exclude_of(n);
      write_.results[i] = which && wv.attribute_id == static_cast<std::uint32_t>(ua::attribute_id::value)
                              ? write_role_exclude(wv, n, *which, c, changed)
                              : services::write_operation(wv, space_, c.now.utc, access);
    }
    if (changed) {
      spdlog::info("Write of a role's exclude list by {}: applies to sessions activated from now on",
                   describe(c.s->identity));
      publish_roles(std::move(changed));
    }
  }
  audit_writes(req, write_, c.s->user_name.str(), c.now);
  finish(write_, c);
}

ua::status_code server_core::write_role_exclude(const ua::write_value& wv, ua::node_index n,
                                                authz::role_set_object::exclude_property which,
                                                const service_call& c, std::shared_ptr<authz::role_registry>& changed) {
  if (!c.s->roles.has(authz::well_known::security_admin)) return ua::status::bad_user_access_denied;
  if (c.s->channel_security.mode != ua::message_security_mode::sign_and_encrypt)
    return ua::status::bad_security_mode_insufficient;
  // The node rules after (a plant rule may take Write away from SecurityAdmin).
  if (const ua::status_code refused = access_of(*c.s).refusal(n, authz::permission::write); refused.is_bad())
    return refused;
  // Part 4 §5.10.4: a range of a scalar, a status or timestamps the server does not keep.
  if (!wv.index_range.is_null() && !wv.index_range.empty()) return ua::status::bad_index_range_invalid;
  if ((wv.value.has_status && wv.value.status.value() != 0) || wv.value.has_source_timestamp ||
      wv.value.has_server_timestamp)
    return ua::status::bad_write_not_supported;
  const bool* exclude = wv.value.has_value ? wv.value.value.get_if<bool>() : nullptr;
  if (!exclude) return ua::status::bad_type_mismatch;
  if (!changed) changed = std::make_shared<authz::role_registry>(sessions_.roles());
  const authz::role& r = changed->at(which.role);
  if (which.endpoints)
    changed->set_endpoints(which.role, r.endpoints, *exclude);
  else
    changed->set_applications(which.role, r.applications, *exclude);
  return ua::status::good;
}

void server_core::serve_call(const ua::call_request& req, const service_call& c) {
  const auto& limits = config_.limits;
  // Part 9 methods (Acknowledge, Confirm, ..., ConditionRefresh) are the conditions'; the other
  // items of such a request run the built-in table (application hooks are not asked then).
  if (condition_manager::is_condition_call(req)) {
    call_.results.clear();
    call_.diagnostic_infos.clear();
    call_.response_header.service_result = ua::status::good;
    if (req.methods_to_call.size() > limits.max_nodes_per_method_call) {
      call_.response_header.service_result = ua::status::bad_too_many_operations;
      return finish(call_, c);
    }
    conditions_->call(c.s->session_id.numeric(), req, call_, space_, *this, c.now, access_of(*c.s),
                      [&](const ua::call_method_request& m, ua::call_method_result& r) { call_with_session(m, r, c); });
    audit_condition_calls(req, call_, *c.s, c.now);
    return finish(call_, c);
  }
  if (is_session_call(req)) {
    // File handles and the server's configuration belong to the calling session: answered here,
    // application hooks not asked (as for the conditions' methods).
    call_.results.clear();
    call_.diagnostic_infos.clear();
    call_.response_header.service_result = ua::status::good;
    if (req.methods_to_call.empty()) call_.response_header.service_result = ua::status::bad_nothing_to_do;
    else if (req.methods_to_call.size() > limits.max_nodes_per_method_call)
      call_.response_header.service_result = ua::status::bad_too_many_operations;
    else {
      call_.results.resize(req.methods_to_call.size());
      for (std::size_t i = 0; i < req.methods_to_call.size(); ++i) call_with_session(req.methods_to_call[i], call_.results[i], c);
    }
    return finish(call_, c);
  }
  if (app_.call({c.channel_id, c.request_id, &c.s->user_name.str(), access_of(*c.s)}, req, call_, space_, methods_, c.now, limits))
    return;
  finish(call_, c);
}

bool server_core::is_session_call(const ua::call_request& req) const noexcept {
  if (files_.is_file_call(req, space_)) return true;
  for (const auto& m : req.methods_to_call) {
    const ua::node_index object = space_.find(m.object_id);
    if (role_set_.handles(object) || pubsub_.handles(object)) return true;
  }
  if (!configuration_) return false;
  for (const auto& m : req.methods_to_call)
    if (configuration_->handles(space_.find(m.object_id))) return true;
  return false;
}

ua::status_code server_core::set_certificate_management(certificate_management_config c, const instant& now) {
  if (!c.security || !c.security->store) return ua::status::bad_invalid_argument;
  if (c.application_uri.empty()) c.application_uri = config_.description.application_uri;
  auto configuration = std::make_unique<server_configuration>(std::move(c));
  if (const auto sc = configuration->install(space_, files_, now.utc); sc.is_bad()) return sc;
  configuration_ = std::move(configuration);
  expiry_security_ = config_.sessions.security ? config_.sessions.security : nullptr;
  return ua::status::good;
}

// Part 12 §7.8.4 (CertificateExpirationAlarmType's purpose): the certificates' days left for /metrics
// and their conditions (docs/decisions/0056, 0081).
void server_core::check_certificates(const instant& now) {
  const auto sec = expiry_security_;
  if (!sec) return;
  std::vector<watched_certificate> certs;
  const auto own = sec->own();
  if (own->certificate) certs.push_back({"own", own->certificate});
  // The ECC policies' application certificates (one per curve, ApplyChanges may have replaced one).
  for (const auto& e : sec->ecc_identities) {
    const auto replaced = sec->replaced_ecc.get(e.curve);
    certs.push_back({"own", replaced ? replaced->certificate : e.certificate});
  }
  // The opc.wss TLS certificate (DefaultHttpsGroup), when it is not the application's.
  if (sec->https)
    if (const auto https = sec->https->current.get(); https && !(https->certificate == own->certificate))
      certs.push_back({"https", https->certificate});
  if (sec->store) {
    for (auto& c : sec->store->list("trusted")) certs.push_back({"trusted", std::move(c)});
    for (auto& c : sec->store->list("issuers")) certs.push_back({"issuer", std::move(c)});
  }
  const auto findings = expiry_.check(certs, now.utc, now.steady);
  if (metrics_) {
    std::vector<certificate_expiry_metrics> m;
    m.reserve(findings.size());
    for (const auto& f : findings) m.push_back({f.group, f.subject, f.thumbprint, f.days_left});
    metrics_->set_certificates(std::move(m));
  }
  // Part 9 §5.8.24.7 (1.05): each certificate a CertificateExpirationAlarmType condition, a component of
  // the Server object (its SourceNode), active while within ExpirationLimit (expiry_config::warn_days)
  // of its end or past it; acknowledged, confirmed, shelved and refreshed as every condition
  // (docs/decisions/0081). A certificate that is no longer watched takes its condition with it.
  std::vector<condition_manager::certificate_condition> conditions;
  conditions.reserve(findings.size());
  const double limit_ms = expiry_.config().warn_days * 86'400'000.0;
  for (const auto& f : findings) {
    auto& c = conditions.emplace_back();
    c.id = ua::node_id::string(1, fmt::format("Server.Certificates.{}.{}", f.group, f.thumbprint));
    c.name = fmt::format("{} certificate {}", f.group, f.thumbprint);
    c.expiration_date = f.not_after;
    c.expiration_limit = limit_ms;
    c.certificate_type = ua::node_id(0, certificate_type_of(f.cert));  // null for a key of no policy
    c.certificate.assign(f.cert.der().data(), f.cert.der().size());
    c.expiring = f.warning;
    c.severity = f.days_left < 0 ? 900 : 600;
    c.message = f.days_left < 0 ? fmt::format("the {} certificate {} has expired", f.group, f.subject)
                                : fmt::format("the {} certificate {} expires in {:.0f} days", f.group, f.subject,
                                              f.days_left);
  }
  conditions_->certificates(conditions, ua::node_id(0, ua::ids::server), space_, *this, now);
}

// Part 12 §7.10.12 CertificateUpdatedAuditEventType (CertificateGroup, CertificateType),
// §7.8.2.8 TrustListUpdatedAuditEventType, both AuditUpdateMethodEventTypes (MethodId; the
// InputArguments are left out: they may hold a private key).
void server_core::audit_certificate_management(const certificate_audit& a, const session& s, const instant& now) {
  if (a.event_type == 0 || !config_.audit_events || !wants_events()) return;
  const bool ok = a.result.is_good();
  const bool updated = a.event_type == ua::ids::certificate_updated_audit_event_type;
  // One CertificateUpdatedAuditEvent per certificate type the call updated (an ApplyChanges may
  // install the RSA and an ECC certificate at once), naming that type.
  const std::size_t events = updated ? std::max<std::size_t>(1, a.certificate_types.size()) : 1;
  for (std::size_t i = 0; i < events; ++i) {
    audit_base(a.event_type, ok ? 500 : 700, {}, ok, a.result, a.name, s.user_name.view(), now);
    event_.set(audit_.session_id) = s.session_id;
    event_.set(method_id_key_) = ua::node_id(0, a.method);
    if (updated) {
      event_.set(certificate_group_key_) =
          ua::node_id(0, i < a.certificate_groups.size() ? a.certificate_groups[i]
                                                         : ua::ids::server_configuration_certificate_groups_default_application_group);
      event_.set(certificate_type_key_) =
          ua::node_id(0, a.certificate_types.empty() ? ua::ids::rsa_sha256_application_certificate_type
                                                     : a.certificate_types[i]);
    }
    raise_event(event_, now);
  }
}

void server_core::call_with_session(const ua::call_method_request& m, ua::call_method_result& r, const service_call& c) {
  const auto access = access_of(*c.s);
  const ua::node_index object = space_.find(m.object_id);
  const bool configuration = object != ua::no_node && configuration_ && configuration_->handles(object);
  if (object != ua::no_node && role_set_.handles(object)) return call_role_method(m, r, c);
  if (object != ua::no_node && pubsub_.handles(object)) {
    // Part 14 §9.1.10.3/4 Enable/Disable of a connection's Status, §9.1.11.3 a Diagnostics Reset:
    // ConfigureAdmin's, as namespace 0's published permissions give the root's Reset and the
    // PublishSubscribe methods (docs/decisions/0079); then the node rules.
    r.output_arguments.clear();
    ua::node_index method = ua::no_node;
    if (services::check_call(m, space_, r, method, access).is_bad()) return;
    if (!c.s->roles.has(authz::well_known::configure_admin)) {
      r.status_code = ua::status::bad_user_access_denied;
      return;
    }
    r.status_code = pubsub_.call(object, method, space_, c.now.utc);
    return;
  }
  if (object == ua::no_node || (!configuration && !files_.is_file(object)))
    return services::call_operation(m, space_, methods_, r, access);
  ua::node_index method = ua::no_node;
  // The certificate methods' own checks (SecurityAdmin over SignAndEncrypt, each refusal audited:
  // Part 12 §7.2) come before the node rules, as the RoleSet's do: namespace 0's defaults on
  // these methods (SecurityAdmin, SigningRequired/EncryptionRequired) would refuse first, unaudited,
  // and a SecurityAdmin over Sign with the wrong status. The node rules still decide after them
  // (a plant rule may take Call away from SecurityAdmin).
  if (services::check_call(m, space_, r, method, configuration ? authz::node_access{} : access).is_bad()) return;
  if (configuration && c.s->roles.has(authz::well_known::security_admin) &&
      c.s->channel_security.mode == ua::message_security_mode::sign_and_encrypt &&
      !(access.may(object, authz::permission::call) && access.may(method, authz::permission::call))) {
    r.status_code = ua::status::bad_user_access_denied;
    r.output_arguments.clear();
    return;
  }
  ua::status_code sc;
  try {
    if (configuration) {
      const config_caller who{c.s->session_id.numeric(), c.s->roles, c.s->channel_security.mode};
      sc = configuration_->call(who, object, method, m.input_arguments, r.output_arguments, space_, files_, c.now.utc);
      audit_certificate_management(configuration_->last_audit(), *c.s, c.now);
      // ApplyChanges: GetEndpoints and CreateSession name the new certificate from now on.
      if (configuration_->take_identity_changed() && config_.sessions.security)
        sessions_.set_endpoints(services::make_endpoints(config_.description, *config_.sessions.security));
      if (configuration_->take_trust_changed()) trust_changed_ = true;
    } else {
      sc = files_.call(c.s->session_id.numeric(), object, method, m.input_arguments, r.output_arguments, space_);
    }
  } catch (const std::exception&) {
    sc = ua::status::bad_internal_error;  // that call's result, not the session's end
  }
  r.status_code = sc;
  if (sc.is_bad()) r.output_arguments.clear();
}

// Part 18 §4.4.5-4.4.10 on a role Object. The administrator and channel checks come before the
// node permissions: their AccessRestrictions would refuse a SecurityAdmin over Sign with
// Bad_UserAccessDenied, where Part 18 says Bad_SecurityModeInsufficient.
void server_core::call_role_method(const ua::call_method_request& m, ua::call_method_result& r, const service_call& c) {
  r.output_arguments.clear();
  r.input_argument_results.clear();
  r.input_argument_diagnostic_infos.clear();
  const authz::role_caller who{c.s->roles, c.s->channel_security.mode};
  if (!who.roles.has(authz::well_known::security_admin)) {
    r.status_code = ua::status::bad_user_access_denied;
  } else if (who.mode != ua::message_security_mode::sign_and_encrypt) {
    r.status_code = ua::status::bad_security_mode_insufficient;
  } else {
    ua::node_index method = ua::no_node;
    if (services::check_call(m, space_, r, method, access_of(*c.s)).is_bad()) return;
    std::shared_ptr<authz::role_registry> changed;
    try {
      r.status_code = role_set_.call(who, space_.find(m.object_id), method, m.input_arguments, space_,
                                     sessions_.roles(), changed, &r.output_arguments);
    } catch (const std::exception&) {
      r.status_code = ua::status::bad_internal_error;
    }
    if (changed) {
      spdlog::info("{} on {} by {}: applies to sessions activated from now on",
                   space_.at(method).browse_name, space_.at(space_.find(m.object_id)).browse_name, describe(c.s->identity));
      publish_roles(std::move(changed));
    }
  }
  if (r.status_code.is_bad()) r.output_arguments.clear();
}

std::size_t server_core::recheck_sessions(const instant& now) {
  const auto closed = sessions_.recheck_user_certificates(now);
  for (const closed_session& c : closed) session_ended(c, now);
  return closed.size();
}

void server_core::session_ended(const closed_session& closed, const instant& now) {
  subscriptions_->session_closed(closed.session_id.numeric(), closed.delete_subscriptions, now);
  files_.session_closed(closed.session_id.numeric(), space_);
  if (configuration_) configuration_->session_closed(closed.session_id.numeric(), now.utc);
}

// MonitoredItem and Subscription: the subscription_manager's, for the session's numeric id.

void server_core::serve_create_monitored_items(const ua::create_monitored_items_request& req, const service_call& c) {
  subscriptions_->create_monitored_items(c.s->session_id.numeric(), req, create_items_, space_, c.now,
                                         access_of(*c.s));
  finish(create_items_, c);
}

void server_core::serve_modify_monitored_items(const ua::modify_monitored_items_request& req, const service_call& c) {
  subscriptions_->modify_monitored_items(c.s->session_id.numeric(), req, modify_items_, space_, c.now, access_of(*c.s));
  finish(modify_items_, c);
}

void server_core::serve_set_monitoring_mode(const ua::set_monitoring_mode_request& req, const service_call& c) {
  subscriptions_->set_monitoring_mode(c.s->session_id.numeric(), req, set_monitoring_mode_, space_, c.now);
  finish(set_monitoring_mode_, c);
}

void server_core::serve_set_triggering(const ua::set_triggering_request& req, const service_call& c) {
  subscriptions_->set_triggering(c.s->session_id.numeric(), req, set_triggering_);
  finish(set_triggering_, c);
}

void server_core::serve_delete_monitored_items(const ua::delete_monitored_items_request& req, const service_call& c) {
  subscriptions_->delete_monitored_items(c.s->session_id.numeric(), req, delete_items_);
  finish(delete_items_, c);
}

void server_core::serve_create_subscription(const ua::create_subscription_request& req, const service_call& c) {
  subscriptions_->create_subscription(c.s->session_id.numeric(), c.s->identity, req, create_subscription_, c.now,
                                      access_of(*c.s));
  finish(create_subscription_, c);
}

void server_core::serve_modify_subscription(const ua::modify_subscription_request& req, const service_call& c) {
  subscriptions_->modify_subscription(c.s->session_id.numeric(), req, modify_subscription_, c.now);
  finish(modify_subscription_, c);
}

void server_core::serve_set_publishing_mode(const ua::set_publishing_mode_request& req, const service_call& c) {
  subscriptions_->set_publishing_mode(c.s->session_id.numeric(), req, set_publishing_mode_);
  finish(set_publishing_mode_, c);
}

// Queued, or answered at once into c.out (publishing.cpp says when).
void server_core::serve_publish(const ua::publish_request& req, const service_call& c) {
  subscriptions_->publish(c.s->session_id.numeric(), c.channel_id, c.request_id, req, c.now, c.out);
}

void server_core::serve_republish(const ua::republish_request& req, const service_call& c) {
  subscriptions_->republish(c.s->session_id.numeric(), req, republish_);
  finish(republish_, c);
}

void server_core::serve_transfer_subscriptions(const ua::transfer_subscriptions_request& req, const service_call& c) {
  subscriptions_->transfer_subscriptions(c.s->session_id.numeric(), c.s->identity, req, transfer_subscriptions_, c.now,
                                         access_of(*c.s));
  finish(transfer_subscriptions_, c);
}

void server_core::serve_delete_subscriptions(const ua::delete_subscriptions_request& req, const service_call& c) {
  subscriptions_->delete_subscriptions(c.s->session_id.numeric(), req, delete_subscriptions_, c.now);
  finish(delete_subscriptions_, c);
}

void server_core::fault(const ua::request_header& header, ua::status_code result, const instant& now,
                        ua::byte_buffer& out) {
  fault_.response_header.request_handle = header.request_handle;
  fault_.response_header.timestamp = now.utc;
  fault_.response_header.service_result = result;
  encode_response(fault_, out);
}

void server_core::apply(std::span<const node_change> changes, std::vector<ua::status_code>& statuses,
                        const instant& now) {
  bool removed = false;
  for (const node_change& c : changes) {
    statuses.push_back(apply_node_change(space_, c, now.utc));
    removed = removed || std::holds_alternative<node_removal>(c);
  }
  if (removed) app_.drop_removed(space_);
  // New nodes take the rule of the subtree they joined (docs/decisions/0052). Namespace 0's
  // defaults alone decide single nodes of namespace 0 and the RoleSet, which node changes do not
  // reach: a node past the table has no rule, as it should.
  if (!plant_rules_.empty()) permissions_->rebuild(space_);
}

std::vector<std::string> server_core::set_access(std::shared_ptr<const authz::role_registry> roles,
                                                 std::vector<authz::permission_rule> rules) {
  plant_rules_ = std::move(rules);
  return publish_roles(std::move(roles));
}

std::vector<std::string> server_core::publish_roles(std::shared_ptr<const authz::role_registry> roles) {
  if (!roles) roles = std::make_shared<const authz::role_registry>();
  std::vector<ua::node_id> ids;
  for (const auto& r : roles->roles()) ids.push_back(r.removed ? ua::node_id() : r.id);
  // Namespace 0's published defaults, then the RoleSet's, then the plant's: for two rules on one
  // node the later wins, so a plant rule naming a node overrides its default (docs/decisions/0068).
  // The RoleSet's nodes first: its default rules name them (a plant role's Object is new).
  std::vector<authz::permission_rule> rules = authz::ns0_default_rules(space_, *roles);
  if (role_set_.sync(space_, *roles).is_good()) {
    auto defaults = role_set_.default_rules(space_);
    rules.insert(rules.end(), std::make_move_iterator(defaults.begin()), std::make_move_iterator(defaults.end()));
  }
  // The NamespaceMetadata Objects (Part 5 §6.3.13), one per namespace registered so far, and who
  // may read them; their values once the table has the namespace defaults.
  namespace_metadata_.sync(space_, namespace_models_);
  {
    auto defaults = namespace_metadata_.default_rules(space_);
    rules.insert(rules.end(), std::make_move_iterator(defaults.begin()), std::make_move_iterator(defaults.end()));
  }
  const std::size_t first_plant = rules.size();
  rules.insert(rules.end(), plant_rules_.begin(), plant_rules_.end());
  // Part 18 §4.2.3: a removed role's permissions go with it.
  for (std::size_t i = first_plant; i < rules.size(); ++i)
    std::erase_if(rules[i].roles, [&](const auto& entry) {
      return entry.first < roles->roles().size() && roles->roles()[entry.first].removed;
    });
  permissions_->set_rules(std::move(rules), std::move(ids));
  sessions_.set_roles(std::move(roles));
  auto unresolved = permissions_->rebuild(space_);
  namespace_metadata_.publish(space_, *permissions_);
  return unresolved;
}

void server_core::refresh_namespaces(std::vector<authz::namespace_model> models) {
  for (auto& m : models) {
    std::erase_if(namespace_models_, [&](const authz::namespace_model& known) { return known.uri == m.uri; });
    namespace_models_.push_back(std::move(m));
  }
  publish_roles(sessions_.roles_ptr());
}

std::size_t server_core::apply_values(std::span<const value_update> values, const instant& now) {
  std::size_t dropped = 0;
  ua::data_value dv;
  for (const value_update& u : values) {
    dv.value = u.value;
    dv.has_value = true;
    dv.status = u.status;
    dv.has_status = u.status.value() != 0;
    dv.source_timestamp = u.source_timestamp.ticks == 0 ? now.utc : u.source_timestamp;
    dv.has_source_timestamp = true;
    dv.server_timestamp = now.utc;
    dv.has_server_timestamp = true;
    const ua::variable_data* var = u.node.index < space_.size() ? space_.variable(u.node.index) : nullptr;
    if (!var || space_.at(u.node.index).cls != ua::node_class::variable) {
      ++dropped;
      continue;
    }
    space_.set_value(u.node.index, dv);  // copied: dv keeps its storage for the next value
  }
  if (metrics_) metrics_->host().values_applied.add(values.size() - dropped);
  if (conditions_->has_pending()) conditions_->process(space_, *this, now);
  return dropped;
}

ua::status_code server_core::set_hook(app_call_kind kind, const ua::node_id& node, hook_ptr hook) {
  const ua::node_index n = space_.find(node);
  if (n == ua::no_node) return ua::status::bad_node_id_unknown;
  const auto cls = space_.at(n).cls;
  if ((kind == app_call_kind::call) != (cls == ua::node_class::method) ||
      (kind != app_call_kind::call && cls != ua::node_class::variable))
    return ua::status::bad_node_class_invalid;
  app_.set_hook(kind, n, std::move(hook));
  return ua::status::good;
}

void server_core::on_tick(const instant& now) {
  for (const closed_session& c : sessions_.expire(now.steady))
    session_ended(c, now);
  // Per tick, not per Read: the update copies ServerStatus (strings and all).
  update_server_time(space_, now.utc);
  // Timed shelving runs out on this tick, not on a timer per condition (docs/decisions/0027, 0053).
  conditions_->tick(space_, *this, now);
  if (expiry_security_ && expiry_.due(now.steady)) check_certificates(now);
  if (configuration_) configuration_->expire(space_, files_, now.utc);
  // Retention (the historian's, once a minute) moves StartOfArchive: asked again as often.
  if (!archive_starts_->empty() && now.steady - archive_refreshed_ >= std::chrono::minutes(1)) refresh_archive_starts(now);
  // MaxTimeInterval's repeats go in with the host's next flush (history_recorder.hpp).
  if (recorder_->recording()) recorder_->tick(now.utc);
  // Part 14 §9.1: the PubSub components' states and counters as the connections' actors left them.
  if (pubsub_.connection_count() > 0) pubsub_.sync(space_, now.utc);
  if (metrics_) {
    auto& h = metrics_->host();
    h.sessions.set(sessions_.size());
    h.subscriptions.set(subscriptions_->subscription_count());
    h.monitored_items.set(subscriptions_->monitored_item_count());
    // Part 9 §8.2: the Server's AlarmMetrics as the tick left them (docs/events.md).
    const auto& am = conditions_->metrics();
    h.alarms_raised.set(am.alarms_total());
    h.alarms_chattering.set(am.chattering_total());
    if (am.size() > 0) {
      h.alarm_rate.set(static_cast<std::uint64_t>(am.current_rate(0, now)));
      h.alarm_rate_max.set(static_cast<std::uint64_t>(am.at(0).max_rate));
    }
  }
}

server_core make_server_core(server_core_config config, const std::string& software_version, ua::date_time now,
                             const std::string& own_namespace_uri) {
  ua::address_space space;
  ua::load_namespace0(space);
  const std::string uris[] = {std::string(ua_namespace_uri), own_namespace_uri};
  server_info info;
  info.application_uri = config.description.application_uri;
  info.product_uri = config.description.product_uri;
  info.product_name = config.description.product_name;
  info.manufacturer = config.description.manufacturer_name;
  info.software_version = software_version;
  info.build_number = config.description.build_number;
  info.build_date = config.description.build_date;
  init_server_object(space, info, config.limits, uris, now);
  return server_core(std::move(config), std::move(space), {});
}

}  // namespace uactor::actors
