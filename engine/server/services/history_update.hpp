// The HistoryUpdate service (Part 4 §5.10.5) for data (Part 11 §6.9): UpdateDataDetails (Insert,
// Replace, Update), DeleteRawModifiedDetails (raw or modified values) and DeleteAtTimeDetails, and
// for event history UpdateEventDetails and DeleteEventDetails (by EventId), over a history store. Like HistoryRead (history_read.hpp, docs/decisions/0048) it runs in two steps so
// that the store's part runs off the session host: plan on the host (the checks), run anywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/server/services/access_attributes.hpp"
#include "engine/server/services/history_read.hpp"
#include "history/history_store.hpp"
#include "protocol/address_space.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::services {

struct history_update_job {
  enum class kind { update, delete_raw, delete_modified, delete_at, update_events, delete_events };
  struct item {
    std::size_t result = 0;  // index in response.results
    kind what = kind::update;
    std::string node;         // the NodeId's text (the store's key)
    ua::node_id node_id;
    history::write_mode mode = history::write_mode::insert;  // update
    ua::perform_update_type perform{};                        // update, as asked (for the audit)
    std::vector<ua::data_value> values;    // update: the values the store gets
    std::vector<std::size_t> value_index;  // update: each one's entry in operationResults
    std::int64_t from = 0, to = 0;         // delete_raw / delete_modified: both included
    ua::date_time start, end;              // as asked (for the audit)
    std::vector<std::int64_t> times;       // delete_at
    std::vector<ua::byte_string> event_ids;  // delete_events
    std::vector<bool> ignored;               // update_events: per value, fields it had that are not stored
    ua::event_filter filter;                 // update_events, as asked (for the audit)
    ua::ua_array<ua::history_event_field_list> event_data;  // update_events, as asked (for the audit)
  };
  // Where the answer goes (the host's; the services do not read them).
  std::uint32_t channel_id = 0;
  std::uint32_t request_id = 0;
  ua::node_id session_token;
  ua::ua_string audit_entry_id;  // the request header's, for the audit events
  history::change who;           // modification time and user; the store sets the type
  history::history_store* store = nullptr;
  std::shared_ptr<history::history_store> store_owner;  // keeps it while the job is away
  std::vector<item> items;  // the details that need the store
  ua::history_update_response response;  // every other details' result is in it already
};

// What UpdateEventDetails needs of the server's events (Part 11 §6.9.4): the name a select clause's
// field is stored under (its browse path as the event catalogue spells it, "" for ConditionId;
// nullopt for a clause that names no field an event keeps: another attribute, an IndexRange), and
// a new EventId for an inserted event that brings none. Without it, event details are
// Bad_HistoryOperationUnsupported.
struct history_event_catalogue {
  std::function<std::optional<std::string>(const ua::simple_attribute_operand&)> field_name;
  std::function<void(ua::byte_string&)> new_event_id;
};

// Service results: Bad_NothingToDo, Bad_TooManyOperations (more details than
// history_limits::max_nodes_per_history_update). Per details (results[i].statusCode):
// Bad_HistoryOperationInvalid (not a HistoryUpdateDetails, or one that does not decode),
// Bad_HistoryOperationUnsupported (event details, UpdateStructureDataDetails, not a historizing
// Variable, no store), Bad_NodeIdUnknown, Bad_UserAccessDenied (the session's roles lack
// InsertHistory / ModifyHistory / DeleteHistory, Part 3 §8.55, or UserAccessLevel lacks
// HistoryWrite), Bad_NotWritable (AccessLevel lacks HistoryWrite, Part 3 §8.57),
// Bad_InvalidArgument (PerformUpdateType Remove or unknown), Bad_NothingToDo (no values, no
// times), Bad_TooManyOperations (more values or times than history_limits::max_values_per_update),
// Bad_InvalidTimestampArgument (a delete range without both ends, or reversed), Bad_NoData (a range
// delete that found nothing). Per value (operationResults): Good_EntryInserted,
// Good_EntryReplaced, Bad_EntryExists, Bad_NoEntryExists, Bad_InvalidTimestamp (no
// SourceTimestamp: a history value is identified by it); per time of DeleteAtTime: Good or
// Bad_NoEntryExists.
// Event history (a notifier whose EventNotifier has the HistoryRead bit; HistoryWrite for changes,
// Part 3 §8.59): UpdateEventDetails per node Bad_InvalidArgument (Remove), Bad_EventFilterInvalid
// (a where clause, more than 128 select clauses), Bad_ArgumentsMissing (Insert or Update without
// EventType and Time selected, Replace without EventId), Bad_NothingToDo, Bad_TooManyOperations;
// per event Good_EntryInserted, Good_EntryReplaced, Good_DataIgnored (written, some fields not
// kept), Bad_EntryExists, Bad_NoEntryExists, Bad_InvalidArgument (field count or types),
// Bad_TypeDefinitionInvalid (EventType not an ObjectType), Bad_SourceNodeIdInvalid.
// DeleteEventDetails per node Bad_NothingToDo, Bad_TooManyOperations, Bad_NoData (none found);
// per EventId Good or Bad_NoEntryExists. Returns whether items need the store.
bool plan_history_update(const ua::history_update_request& req, history_update_job& job, const ua::address_space& as,
                         const history_limits& limits = {}, const node_access& access = {},
                         const history_event_catalogue* events = nullptr);
// The store's part; a store that fails leaves its details Bad_InternalError (refused) or
// Bad_ResourceUnavailable (a database that does not answer).
void run_history_update(history_update_job& job);

// Both at once, on the caller's thread.
void service_history_update(const ua::history_update_request& req, ua::history_update_response& resp,
                            const ua::address_space& as, history::history_store* store, const history::change& who,
                            const history_limits& limits = {}, const node_access& access = {},
                            const history_event_catalogue* events = nullptr);

}  // namespace uactor::services
