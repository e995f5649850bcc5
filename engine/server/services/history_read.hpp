// The HistoryRead service (Part 4 §5.10.3) for ReadRawModifiedDetails (Part 11 §6.5.3, raw values,
// and with IsReadModified the values HistoryUpdate changed), ReadProcessedDetails (§6.5.4) and ReadAtTimeDetails (§6.5.5) over a history store
// (history/history_store.hpp), and the per-session store of its continuation points. The store's
// part can run off the session host (docs/decisions/0048); the calculation is
// engine/server/history/aggregates.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/server/history/aggregates.hpp"
#include "engine/server/services/access_attributes.hpp"
#include "engine/server/services/continuation_points.hpp"
#include "engine/server/subscriptions/event_filter.hpp"
#include "history/history_store.hpp"
#include "protocol/address_space.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::services {

struct history_limits {
  std::size_t max_nodes_per_history_read = 1'000;
  // HistoryUpdate (history_update.hpp): details per request, and values or times per details.
  std::size_t max_nodes_per_history_update = 1'000;
  std::size_t max_values_per_update = 10'000;
  // Values per node in one response, whatever numValuesPerNode asks (0 included): more come with
  // a continuation point (Part 11 §6.3: a server may return fewer values than asked).
  std::size_t max_values_per_node = 10'000;
  // Values of all nodes in one response: past it, the nodes left get an empty page and a
  // continuation point (the response's memory and size stay bounded whatever the request).
  std::size_t max_values_per_request = 100'000;
  // HistoryRead continuation points one session may hold (Part 4 §5.10.3; ServerCapabilities'
  // MaxHistoryContinuationPoints).
  std::size_t max_continuation_points = 10;
  // Processed and at-time reads page like raw ones: at most max_values_per_node intervals (or
  // requested times) per node and response, the rest with a continuation point. The raw values
  // one page of a node reads to compute them (a day of 1 s data is 86,400; this bounds the memory
  // of one read to tens of MB): past it the page is cut to fewer intervals, down to one, and an
  // interval that still holds more is Bad_TooManyOperations.
  std::size_t max_raw_values_per_aggregate = 500'000;
};

// archive_start: not a client's request but the host's question of the store for StartOfArchive
// (history_configuration.hpp): each item's first record, the one value of its result (none: empty).
enum class history_read_kind { raw, processed, at_time, events, archive_start };

// Where a processed or at-time read stopped (Part 11 §6.5.4, §6.5.5; Part 4 §5.10.3 continuation
// points): the next interval or requested time, and what the request was, so that only the same
// request continues it (the client sends the same details with the point).
struct calculated_page {
  history_read_kind kind = history_read_kind::processed;
  std::uint64_t next = 0;         // processed: the next interval's index; at-time: the next time's
  ua::node_id aggregate;          // processed: the node's aggregateType
  std::int64_t start = 0;         // processed: startTime, endTime, processingInterval
  std::int64_t end = 0;
  double interval_ms = 0;
  bool server_defaults = true;    // processed: useServerCapabilitiesDefaults
  std::size_t times = 0;          // at-time: how many reqTimes, a hash of them, useSimpleBounds
  std::uint64_t times_hash = 0;
  bool simple_bounds = true;
};

// Where a raw read stopped: its node, the range and direction worked out from the details, the
// last record returned, and what is left to return.
struct history_read_position {
  std::string node;                 // the NodeId's text (the store's key)
  ua::node_id node_id;              // what the client asked for (a point is for that node only)
  history::raw_query range;         // node, ends and direction; `after` and `limit` unset
  std::optional<history::position> after;
  std::uint64_t remaining = 0;      // values still to return, when `counted`
  bool counted = false;             // one time and numValuesPerNode: the read ends after that many
  bool start_bound = false;         // the bound before the range's start is still to come
  std::int64_t start_time = 0;      // where that bound is looked for
  bool end_bound = false;           // the bound past the range's end is still to come
  std::int64_t end_time = 0;        // where that bound is looked for
  bool events = false;              // a notifier's events (ReadEventDetails), not a variable's values
  std::optional<calculated_page> calculated;  // a processed or at-time read's (then the rest is unused)
};

// The continuation points of one session (Part 4 §7.9).
class history_continuations : public continuation_table<history_read_position> {
public:
  explicit history_continuations(std::size_t capacity = history_limits{}.max_continuation_points)
      : continuation_table(capacity) {}
};

// One HistoryRead in three steps, so that the storage part runs off the session host
// (docs/decisions/0048): plan_history_read on the host (the checks, the continuation points
// taken), run_history_read anywhere (the store's reads), finish_history_read on the host again
// (the new continuation points into the session's store).
// What a processed or at-time read asks, shared by its nodes (Part 11 §6.5.4, §6.5.5).
struct calculated_read {
  ua::date_time start, end;  // processed
  double interval_ms = 0;
  std::vector<ua::date_time> times;  // at-time
  std::uint64_t times_hash = 0;      // at-time: of the times, for their continuation points
  bool use_simple_bounds = true;
  // The request's aggregate configuration; with useServerCapabilitiesDefaults (and for at-time
  // reads) each node's own instead (history_configuration.hpp: its HA Configuration, else the
  // Server's DefaultHAConfiguration). Stepped is always the node's.
  bool server_defaults = true;
  history::aggregate_configuration config;
};

struct history_read_job {
  struct item {
    std::size_t result = 0;  // index in response.results
    history_read_position position;  // raw; processed and at-time: only node and node_id
    ua::node_id aggregate;           // processed: this node's aggregateType
    history::aggregate_configuration config;  // processed and at-time: what this node is calculated with
    bool more = false;  // run: a page remains (finish gives it a continuation point)
  };
  history_read_kind kind = history_read_kind::raw;
  calculated_read calculated;
  // Where the answer goes (the host's; the services do not read them).
  std::uint32_t channel_id = 0;
  std::uint32_t request_id = 0;
  ua::node_id session_token;  // the session whose points the new ones join (it may be gone by then)
  ua::timestamps_to_return timestamps = ua::timestamps_to_return::both;
  std::uint32_t num_values = 0;
  history_limits limits;
  history::history_store* store = nullptr;  // null: no history
  std::shared_ptr<history::history_store> store_owner;  // keeps it while the job is away
  // ReadEventDetails: its EventFilter, compiled on the host before plan (null: event history is
  // not served), and what the compilation said. The stored records are read like raw values and
  // go through the filter on the host again (server_core::select_history_events).
  std::shared_ptr<actors::event_filter_program> event_filter;
  ua::status_code event_filter_status;
  std::vector<item> items;  // the nodes that need the store
  ua::history_read_response response;  // every other node's result is in it already
};

// Service results: Bad_NothingToDo, Bad_TooManyOperations, Bad_TimestampsToReturnInvalid,
// Bad_HistoryOperationInvalid (no or unknown details), Bad_HistoryOperationUnsupported (event
// details without job.event_filter), Bad_AggregateListMismatch (processed: not one aggregateType per node). Per node: Bad_NodeIdUnknown, Bad_NotReadable (no
// HistoryRead access bit), Bad_HistoryOperationUnsupported (not historized, no store),
// Bad_InvalidArgument (IsReadModified with returnBounds), Bad_InvalidTimestampArgument
// (fewer than two of startTime, endTime, numValuesPerNode), Bad_DataEncodingUnsupported,
// Bad_ContinuationPointInvalid, Bad_NoContinuationPoints, Good_NoData. Processed and at-time per
// node: Bad_AggregateNotSupported, Bad_AggregateConfigurationRejected (a percentage over 100),
// Bad_InvalidTimestampArgument (no start or end, no reqTimes), Bad_InvalidArgument (start == end,
// a negative interval), Bad_TooManyOperations (past 2^53 intervals, or one interval's raw values past
// max_raw_values_per_aggregate); their pages, as raw reads', come with continuation points.
// Events per node: Bad_HistoryOperationUnsupported (not an Object or View whose EventNotifier has
// the HistoryRead bit), Bad_EventFilterInvalid (job.event_filter_status), the time domain as raw.
// job.store null: no history. Bad_UserAccessDenied for a node whose history `access` (the
// session's roles) may not read (Part 3 §8.55 ReadHistory).
// Returns whether items need the store (else job.response is the whole answer).
bool plan_history_read(const ua::history_read_request& req, history_read_job& job, const ua::address_space& as,
                       history_continuations& points, const history_limits& limits = {},
                       const node_access& access = {});
// The store's part: each item's page (its values, bounds, whether more remain).
void run_history_read(history_read_job& job);
// The items with more left get continuation points from `points` (null: the session is gone,
// they get none and say Bad_NoContinuationPoints).
void finish_history_read(history_read_job& job, history_continuations* points);

// The three at once, on the caller's thread.
void service_history_read(const ua::history_read_request& req, ua::history_read_response& resp,
                          const ua::address_space& as, history::history_store* store,
                          history_continuations& points, const history_limits& limits = {},
                          const node_access& access = {});

}  // namespace uactor::services
