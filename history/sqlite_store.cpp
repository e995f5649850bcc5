#include "history/sqlite_store.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <limits>
#include <mutex>
#include <unordered_map>

#include "protocol/byte_buffer.hpp"
#include "protocol/codec.hpp"

namespace uactor::history {

namespace {

// A stored value decodes under the wire's limits: a damaged row is refused, never trusted.
const ua::decode_limits stored_value_limits{};

constexpr const char* schema =
    "CREATE TABLE IF NOT EXISTS uactor_history_nodes(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
    "CREATE TABLE IF NOT EXISTS uactor_history_values("
    "  seq INTEGER PRIMARY KEY AUTOINCREMENT, node INTEGER NOT NULL, time INTEGER NOT NULL, value BLOB NOT NULL);"
    "CREATE INDEX IF NOT EXISTS uactor_history_by_node_time ON uactor_history_values(node, time, seq);"
    // HistoryUpdate's modified records (Part 11 §6.5.3.1 IsReadModified), with their ModificationInfo.
    "CREATE TABLE IF NOT EXISTS uactor_history_modified("
    "  seq INTEGER PRIMARY KEY AUTOINCREMENT, node INTEGER NOT NULL, time INTEGER NOT NULL, value BLOB NOT NULL,"
    "  mod_time INTEGER NOT NULL, update_type INTEGER NOT NULL, user_name TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS uactor_history_modified_by_node_time ON uactor_history_modified(node, time, seq);";

struct statement {
  sqlite3_stmt* s = nullptr;
  statement() = default;
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;
  ~statement() { sqlite3_finalize(s); }
};

// ?n: an event's EventId, NULL for a value (the index skips those).
void bind_event_id(sqlite3_stmt* s, int n, std::optional<std::string_view> id) {
  if (id) sqlite3_bind_blob(s, n, id->data(), static_cast<int>(id->size()), SQLITE_STATIC);
  else sqlite3_bind_null(s, n);
}

// Resets the statement when the scope ends, whatever happened in it.
struct reset_on_exit {
  sqlite3_stmt* s;
  ~reset_on_exit() {
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
  }
};

}  // namespace

struct sqlite_store::connection {
  sqlite3* db = nullptr;
  std::string path;
  std::mutex mutex;  // one thread at a time per connection (opened without SQLite's own mutex)
  std::unordered_map<std::string, std::int64_t> node_ids;
  statement find_node, insert_node, insert_value, begin, commit, rollback;
  statement forward, forward_after, backward, backward_after;
  statement delete_older, delete_beyond, node_list;
  // HistoryUpdate (writer) and IsReadModified (reader).
  statement exists_at, keep_at, delete_at, keep_new, keep_range, delete_range, delete_modified_range, delete_older_modified;
  statement mforward, mforward_after, mbackward, mbackward_after;
  // Event history's updates by EventId (Part 11 §6.9.4, §6.9.7).
  statement find_event, keep_event, delete_event;

  explicit connection(const std::string& p) : path(p) {
    const int rc = sqlite3_open_v2(p.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                   nullptr);
    if (rc != SQLITE_OK) {
      const std::string why = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
      sqlite3_close(db);
      db = nullptr;
      throw store_error("history: cannot open " + p + ": " + why);
    }
    sqlite3_busy_timeout(db, 5'000);  // the other connection's checkpoint or schema change
  }
  // close_v2: the statements below are members, finalized only after this body runs; plain
  // sqlite3_close would refuse (SQLITE_BUSY) and leak the connection and its file.
  ~connection() { sqlite3_close_v2(db); }

  [[noreturn]] void fail(const std::string& what) const {
    throw store_error("history: " + what + " in " + path + ": " + sqlite3_errmsg(db));
  }
  void exec(const char* sql, const char* what) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      const std::string why = err ? err : sqlite3_errmsg(db);
      sqlite3_free(err);
      throw store_error("history: " + std::string(what) + " in " + path + ": " + why);
    }
  }
  void prepare(statement& st, const char* sql) {
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st.s, nullptr) != SQLITE_OK)
      fail(std::string("cannot prepare \"") + sql + "\"");
  }
  void step_done(sqlite3_stmt* s, const char* what) {
    reset_on_exit r{s};
    if (sqlite3_step(s) != SQLITE_DONE) fail(what);
  }

  // The EventId column of event history (Part 11 §6.9.4, §6.9.7) and its index. A file made before
  // it had the column gets it, and its event records (a DataValue whose value is an array of
  // Variants: its second byte 0x98, Part 6 §5.2.2.16) get their EventIds, once, in one transaction.
  void add_event_ids() {
    bool has_column = false;
    {
      statement st;
      prepare(st, "SELECT 1 FROM pragma_table_info('uactor_history_values') WHERE name = 'event_id'");
      const int rc = sqlite3_step(st.s);
      if (rc != SQLITE_ROW && rc != SQLITE_DONE) fail("cannot read the columns of the values");
      has_column = rc == SQLITE_ROW;
    }
    if (!has_column) {
      exec("BEGIN IMMEDIATE", "cannot begin a transaction");
      try {
        exec("ALTER TABLE uactor_history_values ADD COLUMN event_id BLOB", "cannot add the event_id column");
        statement events, set;
        prepare(events, "SELECT seq, value FROM uactor_history_values WHERE substr(value, 2, 1) = x'98'");
        prepare(set, "UPDATE uactor_history_values SET event_id = ?2 WHERE seq = ?1");
        ua::data_value v;
        for (int rc = sqlite3_step(events.s); rc != SQLITE_DONE; rc = sqlite3_step(events.s)) {
          if (rc != SQLITE_ROW) fail("cannot read the recorded events");
          const auto* blob = static_cast<const std::uint8_t*>(sqlite3_column_blob(events.s, 1));
          const auto size = static_cast<std::size_t>(sqlite3_column_bytes(events.s, 1));
          if (ua::decode_from_bytes({blob, size}, v, stored_value_limits).is_bad()) continue;  // read_raw says so
          const auto id = event_id_of(v);
          if (!id) continue;
          reset_on_exit r{set.s};
          sqlite3_bind_int64(set.s, 1, sqlite3_column_int64(events.s, 0));
          sqlite3_bind_blob(set.s, 2, id->data(), static_cast<int>(id->size()), SQLITE_STATIC);
          if (sqlite3_step(set.s) != SQLITE_DONE) fail("cannot set the EventId of a recorded event");
        }
        exec("COMMIT", "cannot commit the event_id column");
      } catch (...) {
        sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
      }
    }
    exec("CREATE INDEX IF NOT EXISTS uactor_history_by_event ON uactor_history_values(node, event_id) "
         "WHERE event_id IS NOT NULL",
         "cannot index the EventIds");
  }

  // The node's id, or -1 when it has no records (create: add it).
  std::int64_t node_id(const std::string& name, bool create) {
    if (const auto it = node_ids.find(name); it != node_ids.end()) return it->second;
    {
      reset_on_exit r{find_node.s};
      sqlite3_bind_text(find_node.s, 1, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
      const int rc = sqlite3_step(find_node.s);
      if (rc == SQLITE_ROW) return node_ids[name] = sqlite3_column_int64(find_node.s, 0);
      if (rc != SQLITE_DONE) fail("cannot look up node " + name);
    }
    if (!create) return -1;
    {
      reset_on_exit r{insert_node.s};
      sqlite3_bind_text(insert_node.s, 1, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
      if (sqlite3_step(insert_node.s) != SQLITE_DONE) fail("cannot add node " + name);
    }
    return node_ids[name] = sqlite3_last_insert_rowid(db);
  }
};

sqlite_store::sqlite_store(const std::string& path) : path_(path) {
  writer_ = std::make_unique<connection>(path);
  // The first statement reads the file: a corrupt one or another format fails here, by name.
  writer_->exec("PRAGMA journal_mode=WAL", "cannot use the file as a history database");
  writer_->exec("PRAGMA synchronous=NORMAL", "cannot set synchronous=NORMAL");  // WAL: durable at checkpoints
  // Many nodes: each value of a batch lands on an index page of its own, written whole to the WAL at
  // every commit. A checkpoint per 64 MiB of WAL (SQLite's default: 4 MiB, about every batch then)
  // writes such a page back once per many batches; the cache keeps the pages between them
  // (docs/decisions/0083: 100,000 nodes 2x, 10 nodes unchanged).
  writer_->exec("PRAGMA wal_autocheckpoint=16384", "cannot set wal_autocheckpoint");
  writer_->exec("PRAGMA cache_size=-65536", "cannot set cache_size");
  writer_->exec(schema, "cannot create the history tables");
  writer_->add_event_ids();
  auto& w = *writer_;
  w.prepare(w.find_node, "SELECT id FROM uactor_history_nodes WHERE name = ?1");
  w.prepare(w.insert_node, "INSERT INTO uactor_history_nodes(name) VALUES (?1)");
  w.prepare(w.insert_value, "INSERT INTO uactor_history_values(node, time, value, event_id) VALUES (?1, ?2, ?3, ?4)");
  w.prepare(w.begin, "BEGIN IMMEDIATE");
  w.prepare(w.commit, "COMMIT");
  w.prepare(w.rollback, "ROLLBACK");
  w.prepare(w.delete_older, "DELETE FROM uactor_history_values WHERE time < ?1");
  w.prepare(w.node_list, "SELECT id FROM uactor_history_nodes");
  w.prepare(w.exists_at, "SELECT 1 FROM uactor_history_values WHERE node = ?1 AND time = ?2 LIMIT 1");
  constexpr const char* keep = "INSERT INTO uactor_history_modified(node, time, value, mod_time, update_type, user_name) ";
  w.prepare(w.keep_at, (std::string(keep) + "SELECT node, time, value, ?3, ?4, ?5 FROM uactor_history_values "
                                            "WHERE node = ?1 AND time = ?2 ORDER BY seq").c_str());
  w.prepare(w.delete_at, "DELETE FROM uactor_history_values WHERE node = ?1 AND time = ?2");
  w.prepare(w.keep_new, (std::string(keep) + "VALUES (?1, ?2, ?6, ?3, ?4, ?5)").c_str());
  w.prepare(w.keep_range, (std::string(keep) + "SELECT node, time, value, ?4, ?5, ?6 FROM uactor_history_values "
                                               "WHERE node = ?1 AND time >= ?2 AND time <= ?3 ORDER BY time, seq").c_str());
  w.prepare(w.delete_range, "DELETE FROM uactor_history_values WHERE node = ?1 AND time >= ?2 AND time <= ?3");
  w.prepare(w.delete_modified_range, "DELETE FROM uactor_history_modified WHERE node = ?1 AND time >= ?2 AND time <= ?3");
  w.prepare(w.delete_older_modified, "DELETE FROM uactor_history_modified WHERE time < ?1");
  w.prepare(w.find_event, "SELECT value FROM uactor_history_values WHERE node = ?1 AND event_id = ?2 ORDER BY seq LIMIT 1");
  w.prepare(w.keep_event, (std::string(keep) + "SELECT node, time, value, ?3, ?4, ?5 FROM uactor_history_values "
                                                "WHERE node = ?1 AND event_id = ?2 ORDER BY seq").c_str());
  w.prepare(w.delete_event, "DELETE FROM uactor_history_values WHERE node = ?1 AND event_id = ?2");
  w.prepare(w.delete_beyond,
            "DELETE FROM uactor_history_values WHERE node = ?1 AND (time, seq) <= "
            "(SELECT time, seq FROM uactor_history_values WHERE node = ?1 ORDER BY time DESC, seq DESC "
            "LIMIT 1 OFFSET ?2)");

  reader_ = std::make_unique<connection>(path);
  auto& r = *reader_;
  r.prepare(r.find_node, "SELECT id FROM uactor_history_nodes WHERE name = ?1");
  constexpr const char* range = "SELECT seq, time, value FROM uactor_history_values WHERE node = ?1 AND time >= ?2 AND time <= ?3 ";
  r.prepare(r.forward, (std::string(range) + "ORDER BY time, seq LIMIT ?4").c_str());
  r.prepare(r.forward_after, (std::string(range) + "AND (time, seq) > (?5, ?6) ORDER BY time, seq LIMIT ?4").c_str());
  r.prepare(r.backward, (std::string(range) + "ORDER BY time DESC, seq DESC LIMIT ?4").c_str());
  r.prepare(r.backward_after,
            (std::string(range) + "AND (time, seq) < (?5, ?6) ORDER BY time DESC, seq DESC LIMIT ?4").c_str());
  constexpr const char* mrange =
      "SELECT seq, time, value, mod_time, update_type, user_name FROM uactor_history_modified WHERE node = ?1 AND time >= ?2 AND time <= ?3 ";
  r.prepare(r.mforward, (std::string(mrange) + "ORDER BY time, seq LIMIT ?4").c_str());
  r.prepare(r.mforward_after, (std::string(mrange) + "AND (time, seq) > (?5, ?6) ORDER BY time, seq LIMIT ?4").c_str());
  r.prepare(r.mbackward, (std::string(mrange) + "ORDER BY time DESC, seq DESC LIMIT ?4").c_str());
  r.prepare(r.mbackward_after,
            (std::string(mrange) + "AND (time, seq) < (?5, ?6) ORDER BY time DESC, seq DESC LIMIT ?4").c_str());
}

sqlite_store::~sqlite_store() = default;

void sqlite_store::append(std::span<const record> batch) {
  if (batch.empty()) return;
  auto& w = *writer_;
  std::lock_guard lock(w.mutex);
  w.step_done(w.begin.s, "cannot begin a transaction");
  try {
    ua::byte_buffer buf;
    for (const record& rec : batch) {
      const std::int64_t node = w.node_id(rec.node, true);
      buf.clear();
      ua::encoder e(buf);
      ua::encode(e, rec.value);
      reset_on_exit r{w.insert_value.s};
      sqlite3_bind_int64(w.insert_value.s, 1, node);
      sqlite3_bind_int64(w.insert_value.s, 2, record_time(rec.value));
      sqlite3_bind_blob(w.insert_value.s, 3, buf.data(), static_cast<int>(buf.size()), SQLITE_STATIC);
      bind_event_id(w.insert_value.s, 4, event_id_of(rec.value));
      if (sqlite3_step(w.insert_value.s) != SQLITE_DONE) w.fail("cannot store a value of " + rec.node);
    }
    w.step_done(w.commit.s, "cannot commit a batch");
  } catch (...) {
    sqlite3_reset(w.rollback.s);
    sqlite3_step(w.rollback.s);
    sqlite3_reset(w.rollback.s);
    w.node_ids.clear();  // ids added in the rolled-back transaction are gone
    throw;
  }
}

raw_page sqlite_store::read_raw(const raw_query& q) {
  raw_page page;
  auto& r = *reader_;
  std::lock_guard lock(r.mutex);
  const std::int64_t node = r.node_id(std::string(q.node), false);
  if (node < 0) return page;
  // Inclusive ends in SQL; the ticks are integers, so an open end is one tick inside.
  constexpr auto lowest = std::numeric_limits<std::int64_t>::min();
  constexpr auto highest = std::numeric_limits<std::int64_t>::max();
  std::int64_t lo = q.from_inclusive ? q.from : (q.from == highest ? highest : q.from + 1);
  std::int64_t hi = q.to_inclusive ? q.to : (q.to == lowest ? lowest : q.to - 1);
  // A continuation (Part 4 §7.9) starts its index range at the last record returned: SQLite seeks
  // with one lower (upper) bound on time and takes `time >= lo` over the row value, so without this
  // every page walked the index from the range's start, page k of a long read k pages of entries.
  if (q.after && !q.reverse) lo = std::max(lo, q.after->time);
  if (q.after && q.reverse) hi = std::min(hi, q.after->time);
  if (lo > hi || (!q.from_inclusive && q.from == highest) || (!q.to_inclusive && q.to == lowest)) return page;
  sqlite3_stmt* s = q.modified ? (q.after ? (q.reverse ? r.mbackward_after.s : r.mforward_after.s)
                                          : (q.reverse ? r.mbackward.s : r.mforward.s))
                   : (q.after ? (q.reverse ? r.backward_after.s : r.forward_after.s)
                              : (q.reverse ? r.backward.s : r.forward.s));
  reset_on_exit reset{s};
  sqlite3_bind_int64(s, 1, node);
  sqlite3_bind_int64(s, 2, lo);
  sqlite3_bind_int64(s, 3, hi);
  // One more than asked: whether more follow.
  const std::int64_t limit = q.limit == 0 || q.limit >= static_cast<std::size_t>(highest) ? -1
                                                                                           : static_cast<std::int64_t>(q.limit) + 1;
  sqlite3_bind_int64(s, 4, limit);
  // A HistoryRead page is 10,000 values at most: one allocation instead of the vector's doublings
  // (each moved every value and touched fresh pages).
  page.values.reserve(std::min<std::size_t>(q.limit == 0 ? 1'024 : q.limit, 10'000));
  if (q.after) {
    sqlite3_bind_int64(s, 5, q.after->time);
    sqlite3_bind_int64(s, 6, q.after->sequence);
  }
  for (;;) {
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) r.fail("cannot read the values of " + std::string(q.node));
    if (q.limit != 0 && page.values.size() == q.limit) {
      page.more = true;
      break;
    }
    const auto* blob = static_cast<const std::uint8_t*>(sqlite3_column_blob(s, 2));
    const auto size = static_cast<std::size_t>(sqlite3_column_bytes(s, 2));
    ua::data_value& v = page.values.emplace_back();
    if (ua::decode_from_bytes({blob, size}, v, stored_value_limits).is_bad())
      throw store_error("history: a stored value of " + std::string(q.node) + " in " + path_ + " does not decode");
    page.last = {sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 0)};
    if (q.modified) {
      const auto* user = reinterpret_cast<const char*>(sqlite3_column_text(s, 5));
      page.changes.push_back({sqlite3_column_int64(s, 3), static_cast<std::int32_t>(sqlite3_column_int(s, 4)),
                              user ? std::string(user, static_cast<std::size_t>(sqlite3_column_bytes(s, 5))) : std::string()});
    }
  }
  return page;
}

namespace {

// One writer transaction: committed by commit(), else rolled back (and the node ids it added
// forgotten) when the scope ends.
template <class Connection>
struct sqlite_update_transaction {
  Connection& w;
  bool done = false;
  explicit sqlite_update_transaction(Connection& c) : w(c) { w.step_done(w.begin.s, "cannot begin a transaction"); }
  void commit() {
    w.step_done(w.commit.s, "cannot commit an update");
    done = true;
  }
  ~sqlite_update_transaction() {
    if (done) return;
    sqlite3_reset(w.rollback.s);
    sqlite3_step(w.rollback.s);
    sqlite3_reset(w.rollback.s);
    w.node_ids.clear();
  }
};

// Binds ?3 mod_time, ?4 update_type, ?5 user_name of keep_at and keep_new (keep_range: ?4-?6).
void bind_change(sqlite3_stmt* s, int first, const change& who, std::int32_t type) {
  sqlite3_bind_int64(s, first, who.time);
  sqlite3_bind_int(s, first + 1, type);
  sqlite3_bind_text(s, first + 2, who.user.data(), static_cast<int>(who.user.size()), SQLITE_STATIC);
}

}  // namespace

std::vector<write_outcome> sqlite_store::update(std::string_view node_name, std::span<const ua::data_value> values,
                                                write_mode mode, const change& who) {
  std::vector<write_outcome> out;
  out.reserve(values.size());
  if (values.empty()) return out;
  auto& w = *writer_;
  std::lock_guard lock(w.mutex);
  sqlite_update_transaction<connection> tx(w);
  const std::string name(node_name);
  const std::int64_t node = w.node_id(name, true);
  ua::byte_buffer buf;
  for (const ua::data_value& v : values) {
    const std::int64_t t = record_time(v);
    bool exists = false;
    {
      reset_on_exit r{w.exists_at.s};
      sqlite3_bind_int64(w.exists_at.s, 1, node);
      sqlite3_bind_int64(w.exists_at.s, 2, t);
      const int rc = sqlite3_step(w.exists_at.s);
      if (rc != SQLITE_ROW && rc != SQLITE_DONE) w.fail("cannot look up a value of " + name);
      exists = rc == SQLITE_ROW;
    }
    if (exists && mode == write_mode::insert) {
      out.push_back(write_outcome::exists);
      continue;
    }
    if (!exists && mode == write_mode::replace) {
      out.push_back(write_outcome::missing);
      continue;
    }
    buf.clear();
    ua::encoder e(buf);
    ua::encode(e, v);
    if (exists) {  // the old records at that time are kept as modified, then replaced
      {
        reset_on_exit r{w.keep_at.s};
        sqlite3_bind_int64(w.keep_at.s, 1, node);
        sqlite3_bind_int64(w.keep_at.s, 2, t);
        bind_change(w.keep_at.s, 3, who, mode == write_mode::replace ? 2 : 3);
        if (sqlite3_step(w.keep_at.s) != SQLITE_DONE) w.fail("cannot keep a replaced value of " + name);
      }
      reset_on_exit r{w.delete_at.s};
      sqlite3_bind_int64(w.delete_at.s, 1, node);
      sqlite3_bind_int64(w.delete_at.s, 2, t);
      if (sqlite3_step(w.delete_at.s) != SQLITE_DONE) w.fail("cannot replace a value of " + name);
    } else {  // an inserted record is kept as modified with its new value (Part 11 §6.5.3.1)
      reset_on_exit r{w.keep_new.s};
      sqlite3_bind_int64(w.keep_new.s, 1, node);
      sqlite3_bind_int64(w.keep_new.s, 2, t);
      bind_change(w.keep_new.s, 3, who, 1);
      sqlite3_bind_blob(w.keep_new.s, 6, buf.data(), static_cast<int>(buf.size()), SQLITE_STATIC);
      if (sqlite3_step(w.keep_new.s) != SQLITE_DONE) w.fail("cannot keep an inserted value of " + name);
    }
    reset_on_exit r{w.insert_value.s};
    sqlite3_bind_int64(w.insert_value.s, 1, node);
    sqlite3_bind_int64(w.insert_value.s, 2, t);
    sqlite3_bind_blob(w.insert_value.s, 3, buf.data(), static_cast<int>(buf.size()), SQLITE_STATIC);
    bind_event_id(w.insert_value.s, 4, event_id_of(v));
    if (sqlite3_step(w.insert_value.s) != SQLITE_DONE) w.fail("cannot store a value of " + name);
    out.push_back(exists ? write_outcome::replaced : write_outcome::inserted);
  }
  tx.commit();
  return out;
}

std::uint64_t sqlite_store::remove_range(std::string_view node_name, std::int64_t from, std::int64_t to, bool modified,
                                         const change& who) {
  auto& w = *writer_;
  std::lock_guard lock(w.mutex);
  const std::string name(node_name);
  const std::int64_t node = w.node_id(name, false);
  if (node < 0 || from > to) return 0;
  sqlite_update_transaction<connection> tx(w);
  if (!modified) {
    reset_on_exit r{w.keep_range.s};
    sqlite3_bind_int64(w.keep_range.s, 1, node);
    sqlite3_bind_int64(w.keep_range.s, 2, from);
    sqlite3_bind_int64(w.keep_range.s, 3, to);
    bind_change(w.keep_range.s, 4, who, 4);
    if (sqlite3_step(w.keep_range.s) != SQLITE_DONE) w.fail("cannot keep the deleted values of " + name);
  }
  sqlite3_stmt* del = modified ? w.delete_modified_range.s : w.delete_range.s;
  reset_on_exit r{del};
  sqlite3_bind_int64(del, 1, node);
  sqlite3_bind_int64(del, 2, from);
  sqlite3_bind_int64(del, 3, to);
  if (sqlite3_step(del) != SQLITE_DONE) w.fail("cannot delete values of " + name);
  const auto removed = static_cast<std::uint64_t>(sqlite3_changes(w.db));
  tx.commit();
  return removed;
}

std::vector<bool> sqlite_store::remove_at(std::string_view node_name, std::span<const std::int64_t> times,
                                          const change& who) {
  std::vector<bool> out(times.size(), false);
  auto& w = *writer_;
  std::lock_guard lock(w.mutex);
  const std::string name(node_name);
  const std::int64_t node = w.node_id(name, false);
  if (node < 0 || times.empty()) return out;
  sqlite_update_transaction<connection> tx(w);
  for (std::size_t i = 0; i < times.size(); ++i) {
    {
      reset_on_exit r{w.keep_at.s};
      sqlite3_bind_int64(w.keep_at.s, 1, node);
      sqlite3_bind_int64(w.keep_at.s, 2, times[i]);
      bind_change(w.keep_at.s, 3, who, 4);
      if (sqlite3_step(w.keep_at.s) != SQLITE_DONE) w.fail("cannot keep a deleted value of " + name);
    }
    reset_on_exit r{w.delete_at.s};
    sqlite3_bind_int64(w.delete_at.s, 1, node);
    sqlite3_bind_int64(w.delete_at.s, 2, times[i]);
    if (sqlite3_step(w.delete_at.s) != SQLITE_DONE) w.fail("cannot delete a value of " + name);
    out[i] = sqlite3_changes(w.db) > 0;
  }
  tx.commit();
  return out;
}

std::vector<write_outcome> sqlite_store::update_events(std::string_view node_name, std::span<const ua::data_value> events,
                                                       write_mode mode, const change& who) {
  std::vector<write_outcome> out;
  out.reserve(events.size());
  if (events.empty()) return out;
  auto& w = *writer_;
  std::lock_guard lock(w.mutex);
  sqlite_update_transaction<connection> tx(w);
  const std::string name(node_name);
  const std::int64_t node = w.node_id(name, true);
  ua::byte_buffer buf;
  ua::data_value stored;
  for (const ua::data_value& ev : events) {
    const auto id = event_id_of(ev);
    if (!id) {
      out.push_back(write_outcome::missing);
      continue;
    }
    bool exists = false;
    {
      reset_on_exit r{w.find_event.s};
      sqlite3_bind_int64(w.find_event.s, 1, node);
      sqlite3_bind_blob(w.find_event.s, 2, id->data(), static_cast<int>(id->size()), SQLITE_STATIC);
      const int rc = sqlite3_step(w.find_event.s);
      if (rc != SQLITE_ROW && rc != SQLITE_DONE) w.fail("cannot look up an event of " + name);
      exists = rc == SQLITE_ROW;
      if (exists && mode == write_mode::replace) {
        const auto* blob = static_cast<const std::uint8_t*>(sqlite3_column_blob(w.find_event.s, 0));
        const auto size = static_cast<std::size_t>(sqlite3_column_bytes(w.find_event.s, 0));
        if (ua::decode_from_bytes({blob, size}, stored, stored_value_limits).is_bad())
          throw store_error("history: a stored event of " + name + " in " + path_ + " does not decode");
      }
    }
    if (exists && mode == write_mode::insert) {
      out.push_back(write_outcome::exists);
      continue;
    }
    if (!exists && mode == write_mode::replace) {
      out.push_back(write_outcome::missing);
      continue;
    }
    // Part 11 §6.9.4.3: Replace changes the fields given; §6.9.4.4: Update puts the whole event.
    const ua::data_value merged = exists && mode == write_mode::replace ? merge_event(stored, ev) : ua::data_value{};
    const ua::data_value& v = exists && mode == write_mode::replace ? merged : ev;
    buf.clear();
    ua::encoder e(buf);
    ua::encode(e, v);
    if (exists) {  // the old record is kept as modified, then replaced
      {
        reset_on_exit r{w.keep_event.s};
        sqlite3_bind_int64(w.keep_event.s, 1, node);
        sqlite3_bind_blob(w.keep_event.s, 2, id->data(), static_cast<int>(id->size()), SQLITE_STATIC);
        bind_change(w.keep_event.s, 3, who, mode == write_mode::replace ? 2 : 3);
        if (sqlite3_step(w.keep_event.s) != SQLITE_DONE) w.fail("cannot keep a replaced event of " + name);
      }
      reset_on_exit r{w.delete_event.s};
      sqlite3_bind_int64(w.delete_event.s, 1, node);
      sqlite3_bind_blob(w.delete_event.s, 2, id->data(), static_cast<int>(id->size()), SQLITE_STATIC);
      if (sqlite3_step(w.delete_event.s) != SQLITE_DONE) w.fail("cannot replace an event of " + name);
    } else {
      reset_on_exit r{w.keep_new.s};
      sqlite3_bind_int64(w.keep_new.s, 1, node);
      sqlite3_bind_int64(w.keep_new.s, 2, record_time(v));
      bind_change(w.keep_new.s, 3, who, 1);
      sqlite3_bind_blob(w.keep_new.s, 6, buf.data(), static_cast<int>(buf.size()), SQLITE_STATIC);
      if (sqlite3_step(w.keep_new.s) != SQLITE_DONE) w.fail("cannot keep an inserted event of " + name);
    }
    reset_on_exit r{w.insert_value.s};
    sqlite3_bind_int64(w.insert_value.s, 1, node);
    sqlite3_bind_int64(w.insert_value.s, 2, record_time(v));
    sqlite3_bind_blob(w.insert_value.s, 3, buf.data(), static_cast<int>(buf.size()), SQLITE_STATIC);
    bind_event_id(w.insert_value.s, 4, id);
    if (sqlite3_step(w.insert_value.s) != SQLITE_DONE) w.fail("cannot store an event of " + name);
    out.push_back(exists ? write_outcome::replaced : write_outcome::inserted);
  }
  tx.commit();
  return out;
}

std::vector<bool> sqlite_store::remove_events(std::string_view node_name, std::span<const ua::byte_string> ids,
                                              const change& who) {
  std::vector<bool> out(ids.size(), false);
  auto& w = *writer_;
  std::lock_guard lock(w.mutex);
  const std::string name(node_name);
  const std::int64_t node = w.node_id(name, false);
  if (node < 0 || ids.empty()) return out;
  sqlite_update_transaction<connection> tx(w);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i].empty()) continue;
    {
      reset_on_exit r{w.keep_event.s};
      sqlite3_bind_int64(w.keep_event.s, 1, node);
      sqlite3_bind_blob(w.keep_event.s, 2, ids[i].data(), static_cast<int>(ids[i].size()), SQLITE_STATIC);
      bind_change(w.keep_event.s, 3, who, 4);
      if (sqlite3_step(w.keep_event.s) != SQLITE_DONE) w.fail("cannot keep a deleted event of " + name);
    }
    reset_on_exit r{w.delete_event.s};
    sqlite3_bind_int64(w.delete_event.s, 1, node);
    sqlite3_bind_blob(w.delete_event.s, 2, ids[i].data(), static_cast<int>(ids[i].size()), SQLITE_STATIC);
    if (sqlite3_step(w.delete_event.s) != SQLITE_DONE) w.fail("cannot delete an event of " + name);
    out[i] = sqlite3_changes(w.db) > 0;
  }
  tx.commit();
  return out;
}

std::uint64_t sqlite_store::apply_retention(const retention& ret, std::int64_t now) {
  auto& w = *writer_;
  std::lock_guard lock(w.mutex);
  std::uint64_t removed = 0;
  if (ret.max_age_days > 0) {
    const std::int64_t cutoff = now - static_cast<std::int64_t>(ret.max_age_days) * 86'400 * ua::date_time::ticks_per_second;
    reset_on_exit r{w.delete_older.s};
    sqlite3_bind_int64(w.delete_older.s, 1, cutoff);
    if (sqlite3_step(w.delete_older.s) != SQLITE_DONE) w.fail("cannot remove values past their age");
    removed += static_cast<std::uint64_t>(sqlite3_changes(w.db));
    reset_on_exit rm{w.delete_older_modified.s};
    sqlite3_bind_int64(w.delete_older_modified.s, 1, cutoff);
    if (sqlite3_step(w.delete_older_modified.s) != SQLITE_DONE) w.fail("cannot remove modified values past their age");
  }
  if (ret.max_values_per_node > 0) {
    std::vector<std::int64_t> nodes;
    {
      reset_on_exit r{w.node_list.s};
      while (sqlite3_step(w.node_list.s) == SQLITE_ROW) nodes.push_back(sqlite3_column_int64(w.node_list.s, 0));
    }
    for (const std::int64_t node : nodes) {
      reset_on_exit r{w.delete_beyond.s};
      sqlite3_bind_int64(w.delete_beyond.s, 1, node);
      sqlite3_bind_int64(w.delete_beyond.s, 2, static_cast<std::int64_t>(ret.max_values_per_node));
      if (sqlite3_step(w.delete_beyond.s) != SQLITE_DONE) w.fail("cannot remove values beyond the count");
      removed += static_cast<std::uint64_t>(sqlite3_changes(w.db));
    }
  }
  return removed;
}

}  // namespace uactor::history
