// Four SQLite layouts for recording many nodes (issue 31; docs/decisions/0083's addendum, 0085):
// a row per value keyed by node (today's store), a block of a node's values per flush keyed by node,
// the same block keyed by flush time, and a row per value keyed by time. Each layout gets a fresh
// file with the store's pragmas; per case it prints the write rate, the CPU and the bytes written
// per value (/proc/self/io, the final checkpoint included), the file's size per value, then on the
// file just written: a raw read of one node (all of it and a tenth), "the value before T" (Part 11
// bounds) for a node that has values and for one that has none, 1,000 single-value replaces
// (HistoryUpdate), and dropping the oldest flush (retention by age). The files are removed at the end.
// Usage: [LAYOUTS=a,b] [SECURE_DELETE=0|1|fast] layout_bench [--scale] [FOLDER] [NODES] [VALUES_PER_FLUSH] [FLUSHES]
//        (default /tmp, 100,000 nodes, 10 values per node per flush, 30 flushes; one flush is one
//        transaction, a second's values. --scale: 100,000 x 10, 100,000 x 1 and 10 x 10,000.
//        LAYOUTS: only those named. SECURE_DELETE: the pragma on the writer, else the library's
//        default: Debian's SQLite is built with it on, and a delete then zeroes what it removes.)
// Standalone on purpose: SQLite and the standard library only, so that the layouts, not the store's
// code, are what is compared.
#include <sqlite3.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

constexpr std::int64_t second = 10'000'000;             // OPC UA DateTime ticks (100 ns)
constexpr std::int64_t t0 = 134'100'000'000'000'000;    // 2025-12 in ticks since 1601
constexpr int value_size = 26;                          // a Double DataValue with both timestamps
constexpr int entry_size = 8 + value_size;              // a block's entry: its time, then the value
constexpr int replaces = 1'000;                         // HistoryUpdate: single values in one transaction

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "layout_bench: %s\n", what.c_str());
  std::exit(1);
}

struct io_counters {
  std::uint64_t wchar = 0, write_bytes = 0;
};

io_counters read_io() {
  std::ifstream f("/proc/self/io");
  if (!f) die("cannot read /proc/self/io");
  io_counters c;
  std::string name;
  std::uint64_t value = 0;
  bool seen_write = false;
  for (int line = 0; line < 16 && (f >> name >> value); ++line) {
    if (name == "wchar:") c.wchar = value;
    if (name == "write_bytes:") c.write_bytes = value, seen_write = true;
  }
  if (!seen_write) die("/proc/self/io has no write_bytes");
  return c;
}

double cpu_seconds() {
  timespec ts{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) die("clock_gettime failed");
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double sys_seconds() {
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) != 0) die("getrusage failed");
  return static_cast<double>(ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_stime.tv_usec) * 1e-6;
}

double seconds_since(clock_type::time_point t) { return std::chrono::duration<double>(clock_type::now() - t).count(); }

class database {
public:
  database(const std::string& path, bool writer) : path_(path) {
    const int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                   nullptr);
    if (rc != SQLITE_OK) die("cannot open " + path + ": " + (db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc)));
    if (!writer) return;  // the store's reader connection keeps SQLite's defaults
    // history/sqlite_store.cpp's writer pragmas (docs/decisions/0083).
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
    exec("PRAGMA wal_autocheckpoint=16384");
    exec("PRAGMA cache_size=-65536");
    if (const char* sd = std::getenv("SECURE_DELETE")) exec(std::string("PRAGMA secure_delete=") + sd);
  }
  database(const database&) = delete;
  database& operator=(const database&) = delete;
  ~database() { sqlite3_close_v2(db_); }

  sqlite3* get() const { return db_; }
  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      const std::string why = err ? err : sqlite3_errmsg(db_);
      sqlite3_free(err);
      die("\"" + sql.substr(0, 80) + "\" in " + path_ + ": " + why);
    }
  }
  [[noreturn]] void fail(const std::string& what) const { die(what + " in " + path_ + ": " + sqlite3_errmsg(db_)); }

private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class statement {
public:
  statement(database& db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v3(db.get(), sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &s_, nullptr) != SQLITE_OK)
      db.fail("cannot prepare \"" + sql + "\"");
  }
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;
  ~statement() { sqlite3_finalize(s_); }

  statement& bind(int n, std::int64_t v) { return check(sqlite3_bind_int64(s_, n, v)); }
  statement& bind(int n, const std::vector<unsigned char>& b) {
    return check(sqlite3_bind_blob(s_, n, b.data(), static_cast<int>(b.size()), SQLITE_STATIC));
  }
  statement& bind(int n, const unsigned char* p, int size) { return check(sqlite3_bind_blob(s_, n, p, size, SQLITE_STATIC)); }
  statement& bind_null(int n) { return check(sqlite3_bind_null(s_, n)); }
  statement& bind(int n, const std::string& text) {
    return check(sqlite3_bind_text(s_, n, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT));
  }
  // SQLITE_ROW: true, SQLITE_DONE: false, anything else ends the run.
  bool step() {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) db_.fail("cannot step \"" + std::string(sqlite3_sql(s_)) + "\"");
    return false;
  }
  void run() {
    if (step()) db_.fail("a row from \"" + std::string(sqlite3_sql(s_)) + "\"");
    reset();
  }
  void reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  std::int64_t integer(int col) const { return sqlite3_column_int64(s_, col); }
  const unsigned char* blob(int col) const { return static_cast<const unsigned char*>(sqlite3_column_blob(s_, col)); }
  int bytes(int col) const { return sqlite3_column_bytes(s_, col); }

private:
  statement& check(int rc) {
    if (rc != SQLITE_OK) db_.fail("cannot bind a parameter of \"" + std::string(sqlite3_sql(s_)) + "\"");
    return *this;
  }
  database& db_;
  sqlite3_stmt* s_ = nullptr;
};

enum class layout { node_major, node_major_block, time_major, time_major_value };
constexpr layout all_layouts[] = {layout::node_major, layout::node_major_block, layout::time_major,
                                  layout::time_major_value};

const char* name_of(layout l) {
  switch (l) {
    case layout::node_major: return "node_major";
    case layout::node_major_block: return "node_major_block";
    case layout::time_major: return "time_major";
    case layout::time_major_value: return "time_major_value";
  }
  return "?";
}

bool blocks(layout l) { return l == layout::node_major_block || l == layout::time_major; }

// The node names as the store keeps them, common to all layouts and filled before the counting.
constexpr const char* nodes_table = "CREATE TABLE uactor_history_nodes(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);";

std::string schema(layout l) {
  switch (l) {
    case layout::node_major:  // history/sqlite_store.cpp's tables, the event_id column as add_event_ids leaves it
      return "CREATE TABLE uactor_history_values("
             "  seq INTEGER PRIMARY KEY AUTOINCREMENT, node INTEGER NOT NULL, time INTEGER NOT NULL, value BLOB NOT NULL,"
             "  event_id BLOB);"
             "CREATE INDEX uactor_history_by_node_time ON uactor_history_values(node, time, seq);"
             "CREATE INDEX uactor_history_by_event ON uactor_history_values(node, event_id) WHERE event_id IS NOT NULL;"
             "CREATE TABLE uactor_history_modified("
             "  seq INTEGER PRIMARY KEY AUTOINCREMENT, node INTEGER NOT NULL, time INTEGER NOT NULL, value BLOB NOT NULL,"
             "  mod_time INTEGER NOT NULL, update_type INTEGER NOT NULL, user_name TEXT NOT NULL);"
             "CREATE INDEX uactor_history_modified_by_node_time ON uactor_history_modified(node, time, seq);";
    case layout::node_major_block:
      return "CREATE TABLE blocks(node INTEGER NOT NULL, t_first INTEGER NOT NULL, t_last INTEGER NOT NULL,"
             "  vals BLOB NOT NULL, PRIMARY KEY(node, t_first)) WITHOUT ROWID;";
    case layout::time_major:  // a flush's rows share its start time; the flush table lists those times
      return "CREATE TABLE flushes(t INTEGER PRIMARY KEY, t_last INTEGER NOT NULL);"
             "CREATE TABLE blocks(flush INTEGER NOT NULL, node INTEGER NOT NULL, vals BLOB NOT NULL,"
             "  PRIMARY KEY(flush, node)) WITHOUT ROWID;";
    case layout::time_major_value:
      return "CREATE TABLE vals(time INTEGER NOT NULL, node INTEGER NOT NULL, value BLOB NOT NULL,"
             "  PRIMARY KEY(time, node)) WITHOUT ROWID;";
  }
  return "";
}

struct shape {
  int nodes, per_flush, flushes;
  std::int64_t values() const { return static_cast<std::int64_t>(nodes) * per_flush * flushes; }
  std::int64_t step() const { return second / per_flush; }  // between a node's values
  std::int64_t flush_start(int f) const { return t0 + f * second; }
  std::int64_t time_of(int f, int k) const { return flush_start(f) + k * step(); }
};

// A Double DataValue (Part 6 §5.2.2.17): mask value|source|server, Variant Double, 2 timestamps.
void encode_value(unsigned char* out, int node, std::int64_t time) {
  out[0] = 0x0D;
  out[1] = 11;
  const double v = node + static_cast<double>(time % 1'000'000) * 1e-3;
  std::memcpy(out + 2, &v, 8);
  std::memcpy(out + 10, &time, 8);
  std::memcpy(out + 18, &time, 8);
}

void encode_block(std::vector<unsigned char>& out, const shape& s, int node, int f) {
  out.resize(static_cast<std::size_t>(s.per_flush) * entry_size);
  for (int k = 0; k < s.per_flush; ++k) {
    const std::int64_t t = s.time_of(f, k);
    unsigned char* e = out.data() + static_cast<std::size_t>(k) * entry_size;
    std::memcpy(e, &t, 8);
    encode_value(e + 8, node, t);
  }
}

std::int64_t entry_time(const unsigned char* block, int k) {
  std::int64_t t = 0;
  std::memcpy(&t, block + static_cast<std::size_t>(k) * entry_size, 8);
  return t;
}

struct write_result {
  double seconds = 0, cpu = 0, sys = 0;
  io_counters io;
  std::uint64_t file_bytes = 0;
};

write_result write_all(database& db, layout l, const shape& s, const std::string& path) {
  const io_counters io0 = read_io();
  const double cpu0 = cpu_seconds(), sys0 = sys_seconds();
  const auto start = clock_type::now();
  statement begin(db, "BEGIN IMMEDIATE"), commit(db, "COMMIT");
  const char* insert_sql = "";
  switch (l) {
    case layout::node_major:
      insert_sql = "INSERT INTO uactor_history_values(node, time, value, event_id) VALUES (?1, ?2, ?3, ?4)";
      break;
    case layout::node_major_block: insert_sql = "INSERT INTO blocks(node, t_first, t_last, vals) VALUES (?1, ?2, ?3, ?4)"; break;
    case layout::time_major: insert_sql = "INSERT INTO blocks(flush, node, vals) VALUES (?1, ?2, ?3)"; break;
    case layout::time_major_value: insert_sql = "INSERT INTO vals(time, node, value) VALUES (?1, ?2, ?3)"; break;
  }
  statement insert(db, insert_sql);
  std::unique_ptr<statement> insert_flush;
  if (l == layout::time_major) insert_flush = std::make_unique<statement>(db, "INSERT INTO flushes(t, t_last) VALUES (?1, ?2)");
  std::vector<unsigned char> block;
  unsigned char value[value_size];
  for (int f = 0; f < s.flushes; ++f) {
    begin.run();
    if (blocks(l)) {
      const std::int64_t first = s.time_of(f, 0), last = s.time_of(f, s.per_flush - 1);
      if (l == layout::time_major) insert_flush->bind(1, first).bind(2, last).run();
      for (int n = 1; n <= s.nodes; ++n) {
        encode_block(block, s, n, f);
        if (l == layout::time_major) insert.bind(1, first).bind(2, n).bind(3, block).run();
        else insert.bind(1, n).bind(2, first).bind(3, last).bind(4, block).run();
      }
    } else {
      // Values arrive in time order, all nodes interleaved, as the historian gets them.
      for (int k = 0; k < s.per_flush; ++k) {
        const std::int64_t t = s.time_of(f, k);
        for (int n = 1; n <= s.nodes; ++n) {
          encode_value(value, n, t);
          if (l == layout::node_major) insert.bind(1, n).bind(2, t).bind(3, value, value_size).bind_null(4).run();
          else insert.bind(1, t).bind(2, n).bind(3, value, value_size).run();
        }
      }
    }
    commit.run();
  }
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  write_result r;
  r.seconds = seconds_since(start);
  r.cpu = cpu_seconds() - cpu0;
  r.sys = sys_seconds() - sys0;
  const io_counters io1 = read_io();
  r.io.wchar = io1.wchar - io0.wchar;
  r.io.write_bytes = io1.write_bytes - io0.write_bytes;
  r.file_bytes = std::filesystem::file_size(path);
  return r;
}

// Reads of one node on the store's reader connection: each returns how many values it found and
// folds their bytes into `sum`, so that nothing is skipped.
class reader {
public:
  reader(database& db, layout l, const shape& s) : l_(l), s_(s), range_(db, range_sql(l)), before_(db, before_sql(l)) {}

  // Values of `node` with from <= time <= to, forwards.
  std::int64_t raw(int node, std::int64_t from, std::int64_t to, std::uint64_t& sum) {
    const std::int64_t cap = s_.values() + 1;  // no read returns more rows than were written
    std::int64_t found = 0, rows = 0;
    range_.bind(1, node).bind(2, from).bind(3, to);
    if (l_ == layout::node_major) range_.bind(4, cap);
    for (; rows < cap && range_.step(); ++rows) {
      if (!blocks(l_)) {
        sum += range_.blob(1)[2] + static_cast<std::uint64_t>(range_.integer(0));
        ++found;
        continue;
      }
      const unsigned char* b = range_.blob(0);
      const int n = range_.bytes(0) / entry_size;
      for (int k = 0; k < n; ++k) {
        const std::int64_t t = entry_time(b, k);
        if (t < from || t > to) continue;
        sum += b[static_cast<std::size_t>(k) * entry_size + 8 + 2] + static_cast<std::uint64_t>(t);
        ++found;
      }
    }
    range_.reset();
    return found;
  }

  // The time of the newest value of `node` before `t` (a bound, Part 11 §6.4.3.2), or -1.
  std::int64_t before(int node, std::int64_t t) {
    std::int64_t found = -1;
    before_.bind(1, node).bind(2, t);
    if (before_.step()) {
      if (!blocks(l_)) {
        found = before_.integer(0);
      } else {
        const unsigned char* b = before_.blob(0);
        const int n = before_.bytes(0) / entry_size;
        for (int k = n - 1; k >= 0 && found < 0; --k)
          if (entry_time(b, k) < t) found = entry_time(b, k);
      }
    }
    before_.reset();
    return found;
  }

private:
  static std::string range_sql(layout l) {
    switch (l) {
      case layout::node_major:  // the store's forward read
        return "SELECT time, value FROM uactor_history_values WHERE node = ?1 AND time >= ?2 AND time <= ?3 "
               "ORDER BY time, seq LIMIT ?4";
      case layout::node_major_block:  // from the block that holds `from`
        return "SELECT vals FROM blocks WHERE node = ?1 AND t_first <= ?3 AND t_first >= "
               "(SELECT coalesce(max(t_first), ?2) FROM blocks WHERE node = ?1 AND t_first <= ?2) ORDER BY t_first";
      case layout::time_major:  // CROSS JOIN: the flushes outside, one probe of (flush, node) each
        return "SELECT b.vals FROM flushes f CROSS JOIN blocks b ON b.flush = f.t AND b.node = ?1 "
               "WHERE f.t <= ?3 AND f.t_last >= ?2 ORDER BY f.t";
      case layout::time_major_value:  // no index by node: every row of the time range is looked at
        return "SELECT time, value FROM vals WHERE time >= ?2 AND time <= ?3 AND node = ?1 ORDER BY time";
    }
    return "";
  }
  static std::string before_sql(layout l) {
    switch (l) {
      case layout::node_major:
        return "SELECT time FROM uactor_history_values WHERE node = ?1 AND time < ?2 ORDER BY time DESC, seq DESC LIMIT 1";
      case layout::node_major_block:
        return "SELECT vals FROM blocks WHERE node = ?1 AND t_first < ?2 ORDER BY t_first DESC LIMIT 1";
      case layout::time_major:
        return "SELECT b.vals FROM flushes f CROSS JOIN blocks b ON b.flush = f.t AND b.node = ?1 "
               "WHERE f.t < ?2 ORDER BY f.t DESC LIMIT 1";
      case layout::time_major_value:
        return "SELECT time FROM vals WHERE time < ?2 AND node = ?1 ORDER BY time DESC LIMIT 1";
    }
    return "";
  }

  layout l_;
  shape s_;
  statement range_, before_;
};

// Median seconds of one call after a warm-up call: up to 5 runs, fewer when they pass 2 s.
template <class F>
double timed(F&& f) {
  f();
  std::vector<double> runs;
  double total = 0;
  for (int i = 0; i < 5 && (runs.empty() || total < 2.0); ++i) {
    const auto start = clock_type::now();
    f();
    runs.push_back(seconds_since(start));
    total += runs.back();
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

struct read_result {
  double full_us = 0, window_us = 0, before_us = 0, before_quiet_us = 0;  // per value; per query
};

read_result read_all(const std::string& path, layout l, const shape& s) {
  database db(path, false);
  reader r(db, l, s);
  const int node = s.nodes / 2 + 1;
  const std::int64_t end = t0 + static_cast<std::int64_t>(s.flushes) * second;
  const std::int64_t span = end - t0;
  const std::int64_t w_from = t0 + span * 45 / 100, w_to = t0 + span * 55 / 100 - 1;
  const std::int64_t middle = t0 + (s.flushes / 2) * second + second / 2 + 1;  // inside a flush
  std::uint64_t sum = 0;
  std::int64_t full = 0, window = 0;
  read_result out;
  out.full_us = timed([&] { full = r.raw(node, t0, end - 1, sum); }) * 1e6;
  out.window_us = timed([&] { window = r.raw(node, w_from, w_to, sum); }) * 1e6;
  std::int64_t in_window = 0;  // counted the slow way, for any shape
  for (int f = 0; f < s.flushes; ++f)
    for (int k = 0; k < s.per_flush; ++k) in_window += s.time_of(f, k) >= w_from && s.time_of(f, k) <= w_to;
  if (full != static_cast<std::int64_t>(s.per_flush) * s.flushes || window != in_window)
    die(std::string(name_of(l)) + ": the reads found " + std::to_string(full) + " and " + std::to_string(window) + " values");
  out.full_us /= static_cast<double>(full);
  out.window_us /= static_cast<double>(window);
  std::int64_t bound = 0, quiet = 0;
  out.before_us = timed([&] { bound = r.before(node, middle); }) * 1e6;
  // A node without values: each layout's worst case for a bound (time_major probes every flush).
  out.before_quiet_us = timed([&] { quiet = r.before(s.nodes + 1, middle); }) * 1e6;
  const int f_mid = s.flushes / 2;
  const int k_mid = static_cast<int>(std::min<std::int64_t>((middle - 1 - s.flush_start(f_mid)) / s.step(), s.per_flush - 1));
  if (bound != s.time_of(f_mid, k_mid)) die(std::string(name_of(l)) + ": the bound is at " + std::to_string(bound - t0));
  if (quiet != -1) die(std::string(name_of(l)) + ": a node without values has a bound");
  if (sum == 42) std::puts("");  // keeps `sum` alive
  return out;
}

struct update_result {
  double replace_us = 0, replace_bytes = 0, drop_ms = 0, drop_bytes = 0;  // per replace; per value dropped
};

// HistoryUpdate's Replace of single values at places spread over nodes and time, then retention by
// age: the oldest flush dropped. Each in one transaction, then a checkpoint, on the writer.
update_result update_all(database& db, layout l, const shape& s) {
  update_result out;
  statement begin(db, "BEGIN IMMEDIATE"), commit(db, "COMMIT");
  std::string get_sql, put_sql, drop_sql;
  switch (l) {
    case layout::node_major:  // the value only: the store also keeps the old one in uactor_history_modified
      put_sql = "UPDATE uactor_history_values SET value = ?3 WHERE node = ?1 AND time = ?2";
      drop_sql = "DELETE FROM uactor_history_values WHERE time < ?1";  // the store's delete_older
      break;
    case layout::node_major_block:
      get_sql = "SELECT vals FROM blocks WHERE node = ?1 AND t_first = ?2";
      put_sql = "UPDATE blocks SET vals = ?3 WHERE node = ?1 AND t_first = ?2";
      drop_sql = "DELETE FROM blocks WHERE t_last < ?1";
      break;
    case layout::time_major:
      get_sql = "SELECT vals FROM blocks WHERE node = ?1 AND flush = ?2";
      put_sql = "UPDATE blocks SET vals = ?3 WHERE node = ?1 AND flush = ?2";
      drop_sql = "DELETE FROM blocks WHERE flush < ?1";
      break;
    case layout::time_major_value:
      put_sql = "UPDATE vals SET value = ?3 WHERE node = ?1 AND time = ?2";
      drop_sql = "DELETE FROM vals WHERE time < ?1";
      break;
  }
  statement put(db, put_sql);
  std::unique_ptr<statement> get;
  if (blocks(l)) get = std::make_unique<statement>(db, get_sql);
  std::vector<unsigned char> block;
  unsigned char value[value_size];
  std::uint64_t lcg = 12345;  // the same places in every layout
  auto next = [&](std::uint64_t bound) {
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((lcg >> 33) % bound);
  };
  io_counters io0 = read_io();
  auto start = clock_type::now();
  begin.run();
  for (int i = 0; i < replaces; ++i) {
    const int node = 1 + next(static_cast<std::uint64_t>(s.nodes));
    const int f = next(static_cast<std::uint64_t>(s.flushes)), k = next(static_cast<std::uint64_t>(s.per_flush));
    const std::int64_t t = s.time_of(f, k);
    encode_value(value, node + 1, t);
    if (!blocks(l)) {
      put.bind(1, node).bind(2, t).bind(3, value, value_size).run();
    } else {  // read the block, change the entry, write the block back
      get->bind(1, node).bind(2, s.flush_start(f));
      if (!get->step()) die(std::string(name_of(l)) + ": no block to replace a value in");
      block.assign(get->blob(0), get->blob(0) + get->bytes(0));
      get->reset();
      std::memcpy(block.data() + static_cast<std::size_t>(k) * entry_size + 8, value, value_size);
      put.bind(1, node).bind(2, s.flush_start(f)).bind(3, block).run();
    }
    if (sqlite3_changes(db.get()) != 1) die(std::string(name_of(l)) + ": a replace changed no row");
  }
  commit.run();
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  out.replace_us = seconds_since(start) * 1e6 / replaces;
  out.replace_bytes = static_cast<double>(read_io().write_bytes - io0.write_bytes) / replaces;

  statement drop(db, drop_sql);
  io0 = read_io();
  start = clock_type::now();
  begin.run();
  drop.bind(1, s.flush_start(1)).run();
  const auto dropped = sqlite3_changes64(db.get());
  if (l == layout::time_major) db.exec("DELETE FROM flushes WHERE t < " + std::to_string(s.flush_start(1)));
  commit.run();
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  out.drop_ms = seconds_since(start) * 1e3;
  const double values_dropped = static_cast<double>(s.nodes) * s.per_flush;
  if (dropped != (blocks(l) ? s.nodes : static_cast<std::int64_t>(values_dropped)))
    die(std::string(name_of(l)) + ": dropping the oldest flush removed " + std::to_string(dropped) + " rows");
  out.drop_bytes = static_cast<double>(read_io().write_bytes - io0.write_bytes) / values_dropped;
  return out;
}

void remove_files(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

void run_case(const std::string& folder, layout l, const shape& s) {
  const std::string path = folder + "/layout_bench_" + name_of(l) + ".sqlite";
  remove_files(path);
  write_result w;
  update_result u;
  {
    database db(path, true);
    db.exec(std::string(nodes_table) + schema(l));
    {
      statement add(db, "INSERT INTO uactor_history_nodes(id, name) VALUES (?1, ?2)");
      db.exec("BEGIN");
      std::string name;
      for (int n = 1; n <= s.nodes + 1; ++n) {  // +1: the node that never has a value
        name = "ns=1;s=Load.V" + std::to_string(n);
        add.bind(1, n).bind(2, name).run();
      }
      db.exec("COMMIT");
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    }
    w = write_all(db, l, s, path);
    const read_result r = read_all(path, l, s);
    u = update_all(db, l, s);
    const double v = static_cast<double>(s.values());
    std::printf("%-17s %7d %6d %4d %10.0f %9.0f %8.0f %9.1f %9.1f %8.1f | %9.3f %9.3f %9.1f %11.1f | %8.1f %9.0f | %9.1f %8.1f\n",
                name_of(l), s.nodes, s.per_flush, s.flushes, v / w.seconds, w.cpu * 1e9 / v, w.sys * 1e9 / v,
                static_cast<double>(w.io.write_bytes) / v, static_cast<double>(w.io.wchar) / v,
                static_cast<double>(w.file_bytes) / v, r.full_us, r.window_us, r.before_us, r.before_quiet_us,
                u.replace_us, u.replace_bytes, u.drop_ms, u.drop_bytes);
    std::fflush(stdout);
  }
  remove_files(path);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string only = std::getenv("LAYOUTS") ? std::string(",") + std::getenv("LAYOUTS") + "," : "";
  auto wanted = [&](layout l) { return only.empty() || only.find(std::string(",") + name_of(l) + ",") != std::string::npos; };
  int arg = 1;
  const bool scale = argc > 1 && std::string(argv[1]) == "--scale";
  if (scale) ++arg;
  const std::string folder = argc > arg ? argv[arg] : "/tmp";
  auto number = [&](int i, int fallback) {
    if (argc <= i) return fallback;
    const long v = std::strtol(argv[i], nullptr, 10);
    if (v < 1 || v > 10'000'000) die(std::string("not a count: ") + argv[i]);
    return static_cast<int>(v);
  };
  const shape given{number(arg + 1, 100'000), number(arg + 2, 10), number(arg + 3, 30)};
  if (given.flushes < 2) die("at least 2 flushes: the oldest one is dropped");
  if (given.per_flush > second) die("more values per flush than ticks in a second");
  std::vector<shape> cases{given};
  if (scale) cases = {{100'000, 10, given.flushes}, {100'000, 1, given.flushes}, {10, 10'000, given.flushes}};
  std::printf("SQLite %s, pragmas of history/sqlite_store.cpp, secure_delete %s, files in %s; a flush = one transaction\n",
              sqlite3_libversion(), std::getenv("SECURE_DELETE") ? std::getenv("SECURE_DELETE") : "(the library's default)",
              folder.c_str());
  std::printf("%-17s %7s %6s %4s %10s %9s %8s %9s %9s %8s | %9s %9s %9s %11s | %8s %9s | %9s %8s\n", "layout", "nodes",
              "v/fl", "fl", "values/s", "cpu ns/v", "sys ns/v", "wr B/v", "wchar B/v", "file B/v", "full us/v",
              "win us/v", "bound us", "quiet bd us", "repl us", "repl B", "drop1 ms", "drop B/v");
  for (const shape& s : cases)
    for (const layout l : all_layouts)
      if (wanted(l)) run_case(folder, l, s);
  return 0;
}
