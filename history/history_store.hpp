// Where the historian keeps the values of historized variables (Part 11 §4.2 HistoricalDataNodes)
// and reads them back for HistoryRead (Part 11 §6.5.3 ReadRawModifiedDetails). An interface, so
// that the recording and reading code serves either backend: SQLite (sqlite_store.hpp), the
// embedded default, and PostgreSQL (postgres_store.hpp). Values are keyed by the node's NodeId text and ordered by their
// SourceTimestamp (the ServerTimestamp when there is none), then by the order they were appended.
// Implementations take appends from one thread and reads from another at the same time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "uactor/ua/variant.hpp"

namespace uactor::history {

// A store that cannot do what it was asked (open, write, read): the message names the file.
class store_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A store that cannot be reached now (a database server down or unreachable): the same call may
// succeed later, so the historian keeps the batch and tries again (docs/history.md "When storage
// is down"). Other store_errors are about the data or the file and are not retried.
class store_unavailable : public store_error {
public:
  using store_error::store_error;
};

// One value of one node, as the server stored it.
struct record {
  std::string node;  // the NodeId's text (ua::node_id::to_string)
  ua::data_value value;
};

// The time a record is ordered by: its SourceTimestamp, else its ServerTimestamp, else 0.
std::int64_t record_time(const ua::data_value& v) noexcept;

// Event history (docs/history.md "Event history"): a notifier's records are its events, each a
// DataValue whose value is [name, value, name, value, ...] and whose SourceTimestamp is its Time.
// The "EventId" field (a ByteString, Part 5 §6.4.2) identifies one (Part 11 §6.9.4, §6.9.7).
// The EventId of an event record; nullopt for a value or an event without one. Looks at the
// value's type first: a Double costs one comparison.
std::optional<std::string_view> event_id_of(const ua::data_value& v) noexcept;
// Part 11 §6.9.4.3 Replace: `stored` with the fields of `changes` (a field of the same name
// replaced, a new one added); SourceTimestamp the resulting Time, ServerTimestamp the changes'.
ua::data_value merge_event(const ua::data_value& stored, const ua::data_value& changes);

// Where a read stopped: the last record returned (its time and its order of arrival). The next
// read resumes after it, so records appended meanwhile at later times are still found and none is
// returned twice.
struct position {
  std::int64_t time = 0;
  std::int64_t sequence = 0;
};

// One page of one node's records between two times (DateTime ticks), in either direction.
struct raw_query {
  std::string_view node;
  std::int64_t from = 0;  // the lower end
  std::int64_t to = 0;    // the upper end
  bool from_inclusive = true;
  bool to_inclusive = false;
  bool reverse = false;            // latest first
  std::size_t limit = 0;           // at most this many (0: none)
  std::optional<position> after;   // resume after this record (in the read's direction)
  // The modified records (Part 11 §6.5.3.1 IsReadModified) instead of the raw ones: what
  // HistoryUpdate replaced or deleted (the old values) and inserted (the new ones).
  bool modified = false;
};

// Part 11 §6.6.3 ModificationInfo of a modified record: when, which HistoryUpdateType (1 Insert,
// 2 Replace, 3 Update, 4 Delete), and by whom.
struct change {
  std::int64_t time = 0;  // DateTime ticks
  std::int32_t type = 0;
  std::string user;
};

struct raw_page {
  std::vector<ua::data_value> values;
  position last{};    // of the last value returned (meaningful when values is not empty)
  bool more = false;  // further records match the query beyond `limit`
  std::vector<change> changes;  // a `modified` query's: one per value, in the same order
};

// Part 11 §6.9.2 PerformUpdateType of an UpdateDataDetails: Insert (only where no record has the
// value's time), Replace (only where one has), Update (either).
enum class write_mode { insert, replace, upsert };
// What one value of an update did: Good_EntryInserted, Good_EntryReplaced, Bad_EntryExists,
// Bad_NoEntryExists.
enum class write_outcome { inserted, replaced, exists, missing };

// Retention: records older than max_age_days go, and each node keeps its newest
// max_values_per_node (0: no limit of either kind).
struct retention {
  std::uint32_t max_age_days = 0;
  std::uint64_t max_values_per_node = 0;
};

class history_store {
public:
  virtual ~history_store() = default;

  // Appends a batch as one unit: all of it or, on a store_error, none of it (PostgreSQL: none of
  // each appending connection's part, postgres_store.hpp; sent again, it stores nothing twice).
  virtual void append(std::span<const record> batch) = 0;
  // The records of one node in a time range; throws store_error.
  virtual raw_page read_raw(const raw_query& q) = 0;
  // HistoryUpdate (Part 11 §6.9), each call one transaction: all of it or, on a store_error, none.
  // A record "at a time" is one whose record_time is that time. Each change is kept as a modified
  // record (read with raw_query::modified) stamped with `who`: a replaced or deleted record as it
  // was, an inserted one as it is. `who.type` is set by the store.
  // The values of one node by `mode`, one outcome per value in order.
  virtual std::vector<write_outcome> update(std::string_view node, std::span<const ua::data_value> values,
                                            write_mode mode, const change& who) = 0;
  // Removes the records from `from` to `to`, both included (Part 11 §6.9.5: the service makes the
  // end exclusive), raw ones (kept as modified, Delete) or, with `modified`, the modified ones
  // (gone). Returns how many went.
  virtual std::uint64_t remove_range(std::string_view node, std::int64_t from, std::int64_t to, bool modified,
                                     const change& who) = 0;
  // Removes the raw records at each time (kept as modified, Delete); per time, whether any was.
  virtual std::vector<bool> remove_at(std::string_view node, std::span<const std::int64_t> times,
                                      const change& who) = 0;
  // Events by EventId (event_id_of), one transaction per call, one outcome per event: Insert where
  // no record of the node has the event's EventId (else exists), Replace the record that has it by
  // merge_event(old, event) (else missing), Update (upsert) the whole record or an insert. The old
  // record is kept as modified (Replace 2 / Update 3), an inserted one as it is (Insert 1). An
  // event without an EventId is missing.
  virtual std::vector<write_outcome> update_events(std::string_view node, std::span<const ua::data_value> events,
                                                   write_mode mode, const change& who) = 0;
  // Removes the records of the node with each EventId (kept as modified, Delete); per id, whether
  // any was.
  virtual std::vector<bool> remove_events(std::string_view node, std::span<const ua::byte_string> ids,
                                          const change& who) = 0;
  // Removes what the retention rule no longer keeps (`now` in DateTime ticks); returns how many
  // records went. Throws store_error.
  virtual std::uint64_t apply_retention(const retention& r, std::int64_t now) = 0;
};

}  // namespace uactor::history
