// HistoryUpdate: Part 4 §5.10.5 (the service, its result codes), Part 11 §6.9.2
// (UpdateDataDetails), §6.9.5 (DeleteRawModifiedDetails), §6.9.6 (DeleteAtTimeDetails), §6.9.4
// (UpdateEventDetails), §6.9.7 (DeleteEventDetails). The checks
// run on the session host; the store's changes wherever run_history_update is called
// (docs/decisions/0060).
#include "engine/server/services/history_update.hpp"

#include <spdlog/spdlog.h>

#include <limits>

#include "engine/server/services/operations.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::services {

using namespace uactor::ua;

namespace {

constexpr std::uint8_t history_write_bit = 0x08;  // Part 3 §8.57 AccessLevelType: HistoryWrite

// The permission an update needs (Part 3 §8.55): Insert for InsertHistory, Replace for
// ModifyHistory, Update for both (it may do either), a delete for DeleteHistory.
std::uint32_t permission_for(perform_update_type p) {
  namespace perm = actors::authz::permission;
  switch (p) {
    case perform_update_type::insert: return perm::insert_history;
    case perform_update_type::replace: return perm::modify_history;
    default: return perm::insert_history | perm::modify_history;
  }
}

// The node of one details entry: Good when the session may change its history.
// Part 11 §6.9: a details' list of values, times or events: empty is Bad_NothingToDo, past the
// server's bound Bad_TooManyOperations; Good otherwise.
status_code list_size_status(std::size_t n, const history_limits& limits) {
  if (n == 0) return status::bad_nothing_to_do;
  if (n > limits.max_values_per_update) return status::bad_too_many_operations;
  return status::good;
}

status_code check_history_node(const node_id& id, std::uint32_t needed, const address_space& as,
                               const node_access& access, bool has_store) {
  const node_index n = as.find(id);
  if (n == no_node) return status::bad_node_id_unknown;
  const variable_data* var = as.at(n).cls == node_class::variable ? as.variable(n) : nullptr;
  if (!var || !var->historizing || !has_store) return status::bad_history_operation_unsupported;
  if ((var->access_level & history_write_bit) == 0) return status::bad_not_writable;
  if (!access.may(n, needed) || (var->user_access_level & history_write_bit) == 0) return status::bad_user_access_denied;
  return status::good;
}

constexpr std::uint8_t event_history_read_bit = 0x04;   // Part 3 §8.59 EventNotifierType: HistoryRead
constexpr std::uint8_t event_history_write_bit = 0x08;  // HistoryWrite
constexpr std::size_t max_event_select_clauses = 128;  // as a live event filter (event_filter_limits)

// The notifier of an event details entry: Good when the session may change its event history.
status_code check_event_notifier(const node_id& id, std::uint32_t needed, const address_space& as,
                                 const node_access& access, bool has_store) {
  const node_index n = as.find(id);
  if (n == no_node) return status::bad_node_id_unknown;
  const node& x = as.at(n);
  if ((x.cls != node_class::object && x.cls != node_class::view) || (x.event_notifier & event_history_read_bit) == 0 || !has_store)
    return status::bad_history_operation_unsupported;
  if ((x.event_notifier & event_history_write_bit) == 0) return status::bad_not_writable;
  if (!access.may(n, needed)) return status::bad_user_access_denied;
  return status::good;
}

// Part 11 §6.9.4: an UpdateEventDetails' events as records (docs/history.md "Event history":
// [name, value, ...], SourceTimestamp the Time). False when nothing goes to the store.
bool plan_update_events(const update_event_details& d, history_update_job::item& it, history_update_result& r,
                        const address_space& as, const history_limits& limits, const history_event_catalogue& catalogue,
                        const history::change& who) {
  const auto& selects = d.filter.select_clauses;
  // §6.9.4.2-§6.9.4.4: the where clause shall be empty; the select clauses say which field each
  // entry of eventData is.
  if (!d.filter.where_clause.elements.empty() || selects.size() > max_event_select_clauses) {
    r.status_code = status::bad_event_filter_invalid;
    return false;
  }
  std::vector<std::optional<std::string>> names;
  names.reserve(selects.size());
  constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::size_t id_at = none, time_at = none, type_at = none, source_at = none;
  for (std::size_t c = 0; c < selects.size(); ++c) {
    names.push_back(catalogue.field_name(selects[c]));
    if (!names.back()) continue;
    if (*names.back() == "EventId") id_at = c;
    else if (*names.back() == "Time") time_at = c;
    else if (*names.back() == "EventType") type_at = c;
    else if (*names.back() == "SourceNode") source_at = c;
  }
  const bool replace = it.mode == history::write_mode::replace;
  // §6.9.4.2: Insert (and Update, §6.9.4.4) needs EventType and Time; §6.9.4.3: Replace finds the
  // event by its EventId.
  if (replace ? id_at == none : (time_at == none || type_at == none)) {
    r.status_code = status::bad_arguments_missing;
    return false;
  }
  if (r.status_code = list_size_status(d.event_data.size(), limits); r.status_code.is_bad()) return false;
  r.operation_results.resize(d.event_data.size());
  const node_index base_event_type = as.find(node_id(0, 2041));
  for (std::size_t k = 0; k < d.event_data.size(); ++k) {
    const auto& fields = d.event_data[k].event_fields;
    status_code& sc = r.operation_results[k];
    if (fields.size() != selects.size()) {
      sc = status::bad_invalid_argument;
      continue;
    }
    const auto given = [&](std::size_t c) { return c != none && !fields[c].empty(); };
    // The fields that identify and place the event, each of its type.
    if (given(id_at)) {
      const auto* id = fields[id_at].get_if<byte_string>();
      if (!id || id->empty()) {
        sc = status::bad_invalid_argument;
        continue;
      }
    } else if (replace) {
      sc = status::bad_invalid_argument;  // §6.9.4.3: "eventData shall contain the EventId"
      continue;
    }
    if (given(time_at) ? (!fields[time_at].get_if<date_time>() || fields[time_at].get_if<date_time>()->ticks <= 0) : !replace) {
      sc = status::bad_invalid_argument;
      continue;
    }
    if (given(type_at) || !replace) {
      const auto* type = given(type_at) ? fields[type_at].get_if<node_id>() : nullptr;
      const node_index t = type ? as.find(*type) : no_node;
      if (t == no_node || as.at(t).cls != node_class::object_type ||
          (base_event_type != no_node && !as.is_subtype_of(t, base_event_type))) {
        sc = type ? status::bad_type_definition_invalid : status::bad_invalid_argument;
        continue;
      }
    }
    if (given(source_at)) {
      const auto* source = fields[source_at].get_if<node_id>();
      if (!source || as.find(*source) == no_node) {
        sc = status::bad_source_node_id_invalid;
        continue;
      }
    }
    ua_array<variant> record;
    record.reserve(2 * fields.size() + 2);
    bool ignored = false;
    for (std::size_t c = 0; c < fields.size(); ++c) {
      if (fields[c].empty()) continue;  // not given: Replace keeps the stored field
      if (!names[c]) {
        ignored = true;  // §6.9.4.2: a field the historian cannot keep is Good_DataIgnored
        continue;
      }
      record.push_back(variant(ua_string(*names[c])));
      record.push_back(fields[c]);
    }
    if (!given(id_at)) {  // §6.9.4.2: an inserted event without EventId gets one of the server's
      byte_string id;
      catalogue.new_event_id(id);
      record.push_back(variant(ua_string("EventId")));
      record.push_back(variant(std::move(id)));
    }
    data_value v;
    v.value = variant(std::move(record));
    v.has_value = true;
    if (given(time_at)) {
      v.source_timestamp = *fields[time_at].get_if<date_time>();
      v.has_source_timestamp = true;
    }
    v.server_timestamp = date_time{who.time};
    v.has_server_timestamp = true;
    it.values.push_back(std::move(v));
    it.value_index.push_back(k);
    it.ignored.push_back(ignored);
  }
  return !it.values.empty();
}

}  // namespace

bool plan_history_update(const history_update_request& req, history_update_job& job, const address_space& as,
                         const history_limits& limits, const node_access& access, const history_event_catalogue* events) {
  history_update_response& resp = job.response;
  job.items.clear();
  if (!start_operations(req.request_header, resp, req.history_update_details.size(), limits.max_nodes_per_history_update))
    return false;
  job.audit_entry_id = req.request_header.audit_entry_id;
  resp.results.resize(req.history_update_details.size());
  const bool has_store = job.store != nullptr;
  for (std::size_t i = 0; i < req.history_update_details.size(); ++i) {
    const extension_object& details = req.history_update_details[i];
    history_update_result& r = resp.results[i];
    r.status_code = status::good;
    r.operation_results.clear();
    r.diagnostic_infos.clear();
    history_update_job::item it;
    it.result = i;
    if (const auto* d = details.get_if<update_data_details>()) {
      it.what = history_update_job::kind::update;
      it.node_id = d->node_id;
      it.perform = d->perform_insert_replace;
      switch (d->perform_insert_replace) {
        case perform_update_type::insert: it.mode = history::write_mode::insert; break;
        case perform_update_type::replace: it.mode = history::write_mode::replace; break;
        case perform_update_type::update: it.mode = history::write_mode::upsert; break;
        default:  // Part 11 §6.9.2: Remove is not an update of values
          r.status_code = status::bad_invalid_argument;
          continue;
      }
      if (r.status_code = check_history_node(d->node_id, permission_for(d->perform_insert_replace), as, access, has_store);
          r.status_code.is_bad())
        continue;
      if (r.status_code = list_size_status(d->update_values.size(), limits); r.status_code.is_bad()) continue;
      r.operation_results.resize(d->update_values.size());
      for (std::size_t k = 0; k < d->update_values.size(); ++k) {
        const data_value& v = d->update_values[k];
        // A history value is identified by its SourceTimestamp (Part 11 §6.9.2: "at the specified
        // timestamps"); one without is not placed anywhere.
        if (!v.has_source_timestamp || v.source_timestamp.ticks == 0) {
          r.operation_results[k] = status::bad_invalid_timestamp;
          continue;
        }
        it.values.push_back(v);
        it.value_index.push_back(k);
      }
      if (it.values.empty()) continue;
    } else if (const auto* d = details.get_if<delete_raw_modified_details>()) {
      it.what = d->is_delete_modified ? history_update_job::kind::delete_modified : history_update_job::kind::delete_raw;
      it.node_id = d->node_id;
      if (r.status_code = check_history_node(d->node_id, actors::authz::permission::delete_history, as, access, has_store);
          r.status_code.is_bad())
        continue;
      // Part 11 §6.9.5: both ends; the values from startTime up to, not including, endTime; equal
      // times delete the values at that time.
      if (d->start_time.ticks == 0 || d->end_time.ticks == 0 || d->end_time < d->start_time) {
        r.status_code = status::bad_invalid_timestamp_argument;
        continue;
      }
      it.start = d->start_time;
      it.end = d->end_time;
      it.from = d->start_time.ticks;
      it.to = d->start_time == d->end_time ? d->end_time.ticks : d->end_time.ticks - 1;
    } else if (const auto* d = details.get_if<delete_at_time_details>()) {
      it.what = history_update_job::kind::delete_at;
      it.node_id = d->node_id;
      if (r.status_code = check_history_node(d->node_id, actors::authz::permission::delete_history, as, access, has_store);
          r.status_code.is_bad())
        continue;
      if (r.status_code = list_size_status(d->req_times.size(), limits); r.status_code.is_bad()) continue;
      it.times.reserve(d->req_times.size());
      for (const date_time& t : d->req_times) it.times.push_back(t.ticks);
      r.operation_results.resize(d->req_times.size());
    } else if (const auto* d = events ? details.get_if<update_event_details>() : nullptr) {
      it.what = history_update_job::kind::update_events;
      it.node_id = d->node_id;
      it.perform = d->perform_insert_replace;
      switch (d->perform_insert_replace) {
        case perform_update_type::insert: it.mode = history::write_mode::insert; break;
        case perform_update_type::replace: it.mode = history::write_mode::replace; break;
        case perform_update_type::update: it.mode = history::write_mode::upsert; break;
        default:  // Part 11 §6.9.4.1: Delete is not allowed here
          r.status_code = status::bad_invalid_argument;
          continue;
      }
      if (r.status_code = check_event_notifier(d->node_id, permission_for(d->perform_insert_replace), as, access, has_store);
          r.status_code.is_bad())
        continue;
      if (!plan_update_events(*d, it, r, as, limits, *events, job.who)) continue;
      it.filter = d->filter;
      it.event_data = d->event_data;
    } else if (const auto* d = events ? details.get_if<delete_event_details>() : nullptr) {
      it.what = history_update_job::kind::delete_events;
      it.node_id = d->node_id;
      if (r.status_code = check_event_notifier(d->node_id, actors::authz::permission::delete_history, as, access, has_store);
          r.status_code.is_bad())
        continue;
      if (r.status_code = list_size_status(d->event_ids.size(), limits); r.status_code.is_bad()) continue;
      it.event_ids.assign(d->event_ids.begin(), d->event_ids.end());
      r.operation_results.resize(d->event_ids.size());
    } else if (details.get_if<update_structure_data_details>() || details.get_if<update_event_details>() ||
               details.get_if<delete_event_details>()) {
      // Annotations are not kept (docs/history.md "Not yet"); event details without the server's
      // event catalogue (service_history_update's callers without events) neither.
      r.status_code = status::bad_history_operation_unsupported;
      continue;
    } else {
      r.status_code = status::bad_history_operation_invalid;
      continue;
    }
    it.node = it.node_id.to_string();
    job.items.push_back(std::move(it));
  }
  return !job.items.empty();
}

void run_history_update(history_update_job& job) {
  for (auto& it : job.items) {
    history_update_result& r = job.response.results[it.result];
    try {
      if (!job.store) throw history::store_error("history: no store");
      switch (it.what) {
        case history_update_job::kind::update: {
          const auto outcomes = job.store->update(it.node, it.values, it.mode, job.who);
          for (std::size_t k = 0; k < outcomes.size() && k < it.value_index.size(); ++k) {
            status_code& sc = r.operation_results[it.value_index[k]];
            switch (outcomes[k]) {
              case history::write_outcome::inserted: sc = status::good_entry_inserted; break;
              case history::write_outcome::replaced: sc = status::good_entry_replaced; break;
              case history::write_outcome::exists: sc = status::bad_entry_exists; break;
              case history::write_outcome::missing: sc = status::bad_no_entry_exists; break;
            }
          }
          break;
        }
        case history_update_job::kind::delete_raw:
        case history_update_job::kind::delete_modified: {
          const bool modified = it.what == history_update_job::kind::delete_modified;
          // Part 11 §6.9.5.2, §6.9.5.3: nothing in the range is Bad_NoData.
          if (job.store->remove_range(it.node, it.from, it.to, modified, job.who) == 0) r.status_code = status::bad_no_data;
          break;
        }
        case history_update_job::kind::update_events: {
          const auto outcomes = job.store->update_events(it.node, it.values, it.mode, job.who);
          for (std::size_t k = 0; k < outcomes.size() && k < it.value_index.size(); ++k) {
            status_code& sc = r.operation_results[it.value_index[k]];
            switch (outcomes[k]) {
              case history::write_outcome::inserted: sc = status::good_entry_inserted; break;
              case history::write_outcome::replaced: sc = status::good_entry_replaced; break;
              case history::write_outcome::exists: sc = status::bad_entry_exists; break;
              case history::write_outcome::missing: sc = status::bad_no_entry_exists; break;
            }
            if (sc.is_good() && it.ignored[k]) sc = status::good_data_ignored;
          }
          break;
        }
        case history_update_job::kind::delete_events: {
          // Part 11 §6.9.7.2: none of them found is Bad_NoData for the node.
          const auto found = job.store->remove_events(it.node, it.event_ids, job.who);
          bool any = false;
          for (std::size_t k = 0; k < found.size() && k < r.operation_results.size(); ++k) {
            r.operation_results[k] = found[k] ? status::good : status::bad_no_entry_exists;
            any = any || found[k];
          }
          if (!any) r.status_code = status::bad_no_data;
          break;
        }
        case history_update_job::kind::delete_at: {
          const auto found = job.store->remove_at(it.node, it.times, job.who);
          for (std::size_t k = 0; k < found.size() && k < r.operation_results.size(); ++k)
            r.operation_results[k] = found[k] ? status::good : status::bad_no_entry_exists;
          break;
        }
      }
    } catch (const history::store_unavailable& e) {
      spdlog::warn("{}", e.what());
      r.status_code = status::bad_resource_unavailable;
      r.operation_results.clear();
    } catch (const history::store_error& e) {
      spdlog::error("{}", e.what());
      r.status_code = status::bad_internal_error;
      r.operation_results.clear();
    }
  }
}

void service_history_update(const history_update_request& req, history_update_response& resp, const address_space& as,
                            history::history_store* store, const history::change& who, const history_limits& limits,
                            const node_access& access, const history_event_catalogue* events) {
  history_update_job job;
  job.store = store;
  job.who = who;
  job.response = std::move(resp);
  if (plan_history_update(req, job, as, limits, access, events)) run_history_update(job);
  resp = std::move(job.response);
}

}  // namespace uactor::services
