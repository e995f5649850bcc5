#include "history/postgres_store.hpp"

#include <libpq-fe.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <limits>
#include <mutex>
#include <set>
#include <unordered_map>

#include "protocol/byte_buffer.hpp"
#include "protocol/civil_date.hpp"
#include "protocol/codec.hpp"

namespace uactor::history {

namespace {

// A stored value decodes under the wire's limits: a damaged row is refused, never trusted.
const ua::decode_limits pg_stored_value_limits{};

// Serializes schema and partition changes between the servers that share one database.
constexpr const char* pg_schema_lock = "SELECT pg_advisory_xact_lock(7519431031)";

constexpr const char* pg_schema =
    "CREATE TABLE IF NOT EXISTS uactor_history_nodes(id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
    "CREATE TABLE IF NOT EXISTS uactor_history_values("
    "  node BIGINT NOT NULL, time BIGINT NOT NULL, seq BIGSERIAL NOT NULL, digest BYTEA NOT NULL, value BYTEA NOT NULL,"
    "  server_time BIGINT, server_picoseconds INT,"
    "  UNIQUE (node, time, digest)) PARTITION BY RANGE (time);"
    // Times outside the months of years 1601-9999 (a DateTime of 0, a hostile one): one partition.
    "CREATE TABLE IF NOT EXISTS uactor_history_values_other PARTITION OF uactor_history_values DEFAULT;"
    // HistoryUpdate's modified records (Part 11 §6.5.3.1 IsReadModified), with their ModificationInfo;
    // the value as in uactor_history_values (its ServerTimestamp in columns of its own).
    "CREATE TABLE IF NOT EXISTS uactor_history_modified("
    "  seq BIGSERIAL PRIMARY KEY, node BIGINT NOT NULL, time BIGINT NOT NULL, value BYTEA NOT NULL,"
    "  server_time BIGINT, server_picoseconds INT, mod_time BIGINT NOT NULL, update_type INT NOT NULL, user_name TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS uactor_history_modified_by_node_time ON uactor_history_modified(node, time, seq);"
    // Event history's EventId (Part 11 §6.9.4, §6.9.7), NULL for values; added to a database made
    // before it (prepare_session fills it in for the events recorded then).
    "ALTER TABLE uactor_history_values ADD COLUMN IF NOT EXISTS event_id BYTEA;"
    "CREATE INDEX IF NOT EXISTS uactor_history_values_by_event ON uactor_history_values(node, event_id) "
    "  WHERE event_id IS NOT NULL;";

constexpr std::int64_t pg_first_month = 1601 * 12;        // January 1601, DateTime's epoch
constexpr std::int64_t pg_end_month = 10'000 * 12;        // January 10000
constexpr std::int64_t pg_ticks_per_day = 86'400 * ua::date_time::ticks_per_second;
constexpr std::int64_t pg_epoch_days = ua::days_from_civil(1601, 1, 1);

// The month (year * 12 + month - 1) a time falls in, or -1 outside the monthly partitions.
std::int64_t month_of(std::int64_t ticks) noexcept {
  if (ticks < 0) return -1;
  std::int64_t y = 0;
  unsigned m = 0, d = 0;
  ua::civil_from_days(pg_epoch_days + ticks / pg_ticks_per_day, y, m, d);
  const std::int64_t month = y * 12 + (m - 1);
  return month < pg_end_month ? month : -1;
}

std::int64_t month_start(std::int64_t month) noexcept {
  return (ua::days_from_civil(month / 12, static_cast<unsigned>(month % 12) + 1, 1) - pg_epoch_days) * pg_ticks_per_day;
}

std::string partition_name(std::int64_t month) {
  char name[48];
  std::snprintf(name, sizeof name, "uactor_history_values_y%04lldm%02lld", static_cast<long long>(month / 12),
                static_cast<long long>(month % 12 + 1));
  return name;
}

// The month a partition's name says, or -1 for another name.
std::int64_t month_of_partition(const char* name) {
  int y = 0, m = 0;
  char tail = 0;
  if (std::sscanf(name, "uactor_history_values_y%4dm%2d%c", &y, &m, &tail) != 2 || m < 1 || m > 12) return -1;
  return static_cast<std::int64_t>(y) * 12 + (m - 1);
}

void put_be(ua::byte_buffer& b, std::uint64_t v, int bytes) {
  std::uint8_t* p = b.extend(static_cast<std::size_t>(bytes));
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * (bytes - 1 - i)));
}

std::int64_t get_be64(const char* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<std::uint8_t>(p[i]);
  return static_cast<std::int64_t>(v);
}

// 8 bytes big-endian: an int8 parameter in binary format.
struct int8_param {
  std::array<char, 8> bytes{};
  explicit int8_param(std::int64_t v = 0) noexcept {
    for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>(static_cast<std::uint64_t>(v) >> (56 - 8 * i));
  }
};

// A one-dimensional array parameter in PostgreSQL's binary format (array_send): dimensions,
// a has-NULL flag, the element type's OID, then each element's length (-1: NULL) and bytes.
class binary_array {
public:
  static constexpr std::uint32_t int4_oid = 23, int8_oid = 20, bytea_oid = 17;
  explicit binary_array(std::uint32_t element_oid) {
    put_be(bytes_, 1, 4);  // ndim
    put_be(bytes_, 0, 4);  // has NULLs: set by null()
    put_be(bytes_, element_oid, 4);
    put_be(bytes_, 0, 4);  // the dimension's length: written by finish()
    put_be(bytes_, 1, 4);  // lower bound
  }
  void int8(std::int64_t v) { element(8), put_be(bytes_, static_cast<std::uint64_t>(v), 8); }
  void int4(std::int32_t v) { element(4), put_be(bytes_, static_cast<std::uint32_t>(v), 4); }
  void bytes(const void* p, std::size_t n) { element(n), bytes_.append(p, n); }
  void null() {
    bytes_.data()[7] = 1;
    element(0xFFFF'FFFF);
  }
  // The parameter's bytes, its length written in.
  std::span<const std::uint8_t> finish() {
    for (int i = 0; i < 4; ++i) bytes_.data()[12 + i] = static_cast<std::uint8_t>(count_ >> (24 - 8 * i));
    return bytes_.bytes();
  }

private:
  void element(std::size_t length) {
    ++count_;
    put_be(bytes_, length, 4);
  }
  ua::byte_buffer bytes_;
  std::uint32_t count_ = 0;
};

// The DataValue as stored: without its ServerTimestamp (each server of a pair stamps its own),
// which goes in columns of its own. Its SHA-256 (the database's sha256(), PostgreSQL 11 or later)
// is what identifies the record across servers.
void encode_without_server_time(const ua::data_value& v, ua::byte_buffer& out) {
  ua::data_value same = v;
  same.has_server_timestamp = false;
  same.server_timestamp = {};
  same.has_server_picoseconds = false;
  same.server_picoseconds = 0;
  out.clear();
  ua::encoder e(out);
  ua::encode(e, same);
}

// A text[] literal: {"a","b\"c"}.
std::string text_array(const std::vector<const std::string*>& names) {
  std::string out = "{";
  for (const std::string* n : names) {
    if (out.size() > 1) out += ',';
    out += '"';
    for (const char c : *n) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  out += '}';
  return out;
}

// libpq's messages span lines ("...failed: No such file\n\tIs the server running..."): one line for the log.
std::string one_line(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') out += "; ";
    else if (c != '\t') out += c;
  }
  while (out.size() >= 2 && out.ends_with("; ")) out.resize(out.size() - 2);
  return out;
}

struct pg_result {
  PGresult* r = nullptr;
  explicit pg_result(PGresult* p) noexcept : r(p) {}
  pg_result(const pg_result&) = delete;
  pg_result& operator=(const pg_result&) = delete;
  ~pg_result() { PQclear(r); }
};

constexpr const char* pg_read_columns =
    "SELECT seq, time, value, server_time, server_picoseconds FROM uactor_history_values WHERE node = $1 AND time >= $2 AND time <= $3 ";
constexpr const char* pg_read_modified_columns =
    "SELECT seq, time, value, server_time, server_picoseconds, mod_time, update_type, user_name FROM uactor_history_modified "
    "WHERE node = $1 AND time >= $2 AND time <= $3 ";
constexpr const char* pg_keep =
    "INSERT INTO uactor_history_modified(node, time, value, server_time, server_picoseconds, mod_time, update_type, user_name) ";

// The parameters of one HistoryUpdate statement: integers and text in text format, a value's bytes
// in binary (deque: the pointers handed to libpq stay put).
struct pg_args {
  std::deque<std::string> storage;
  std::vector<const char*> values;
  std::vector<int> lengths, formats;
  pg_args& add(std::int64_t v) { return add_text(std::to_string(v)); }
  pg_args& add_text(std::string_view t) {
    const std::string& s = storage.emplace_back(t);
    values.push_back(s.c_str());
    lengths.push_back(static_cast<int>(s.size()));
    formats.push_back(0);
    return *this;
  }
  pg_args& add_bytes(const ua::byte_buffer& b) {
    const std::string& s = storage.emplace_back(reinterpret_cast<const char*>(b.data()), b.size());
    values.push_back(s.data());
    lengths.push_back(static_cast<int>(s.size()));
    formats.push_back(1);
    return *this;
  }
  pg_args& add_bytes(std::string_view b) {
    const std::string& s = storage.emplace_back(b);
    values.push_back(s.data());
    lengths.push_back(static_cast<int>(s.size()));
    formats.push_back(1);
    return *this;
  }
  pg_args& add_event_id(std::optional<std::string_view> id) { return id ? add_bytes(*id) : add_null(); }
  pg_args& add_null() {
    values.push_back(nullptr);
    lengths.push_back(0);
    formats.push_back(0);
    return *this;
  }
  int count() const { return static_cast<int>(values.size()); }
};

// Rows of a batch as the "insert" statement's parameters: a binary array per column.
struct insert_rows {
  binary_array nodes{binary_array::int8_oid}, times{binary_array::int8_oid}, values{binary_array::bytea_oid},
      server_times{binary_array::int8_oid}, server_picoseconds{binary_array::int4_oid}, event_ids{binary_array::bytea_oid};
  std::size_t count = 0;

  void add(std::int64_t node, const ua::data_value& v, ua::byte_buffer& scratch) {
    encode_without_server_time(v, scratch);
    nodes.int8(node);
    times.int8(record_time(v));
    values.bytes(scratch.data(), scratch.size());
    if (v.has_server_timestamp) server_times.int8(v.server_timestamp.ticks);
    else server_times.null();
    if (v.has_server_picoseconds) server_picoseconds.int4(v.server_picoseconds);
    else server_picoseconds.null();
    if (const auto id = event_id_of(v)) event_ids.bytes(id->data(), id->size());
    else event_ids.null();
    ++count;
  }
};

}  // namespace

struct postgres_store::connection {
  std::string conninfo;
  bool writes = false;
  PGconn* db = nullptr;
  std::mutex mutex;  // one thread at a time per connection
  std::unordered_map<std::string, std::int64_t> node_ids;
  std::set<std::int64_t> months;  // monthly partitions known to exist

  connection(std::string info, bool w) : conninfo(std::move(info)), writes(w) {}
  ~connection() { PQfinish(db); }

  // The database's words, and whether the connection is gone (then the next call reconnects).
  [[noreturn]] void fail(const std::string& what, PGresult* r = nullptr) {
    std::string why = r ? PQresultErrorMessage(r) : "";
    if (why.empty() && db) why = PQerrorMessage(db);
    why = one_line(why);
    const std::string message = "history: " + what + " in PostgreSQL: " + why;
    if (!db || PQstatus(db) != CONNECTION_OK) throw store_unavailable(message);
    throw store_error(message);
  }

  PGresult* check(PGresult* r, ExecStatusType expected, const std::string& what) {
    if (PQresultStatus(r) != expected) {
      pg_result owned(r);
      fail(what, r);
    }
    return r;
  }
  void exec(const char* sql, const std::string& what) { pg_result r(check(PQexec(db, sql), PGRES_COMMAND_OK, what)); }
  void lock_schema() { pg_result r(check(PQexec(db, pg_schema_lock), PGRES_TUPLES_OK, "cannot lock the schema")); }
  void prepare(const char* name, const std::string& sql) {
    pg_result r(check(PQprepare(db, name, sql.c_str(), 0, nullptr), PGRES_COMMAND_OK, "cannot prepare \"" + sql + "\""));
  }

  // Connected and prepared, or store_unavailable (store_error when the database refuses the
  // tables or a statement: the next call starts again from a new connection).
  void ensure() {
    if (db && PQstatus(db) == CONNECTION_OK) return;
    PQfinish(db);
    // Bounded waits: a database that does not answer makes a call fail, not hang (a plant file's
    // own connect_timeout or tcp_user_timeout, later in the list, wins).
    const char* keys[] = {"connect_timeout", "tcp_user_timeout", "application_name", "dbname", nullptr};
    const char* values[] = {"5", "10000", "uactor historian", conninfo.c_str(), nullptr};
    db = PQconnectdbParams(keys, values, 1);
    if (!db || PQstatus(db) != CONNECTION_OK) {
      const std::string why = one_line(db ? PQerrorMessage(db) : "out of memory");
      PQfinish(db);
      db = nullptr;
      throw store_unavailable("history: cannot connect to PostgreSQL: " + why);
    }
    PQsetNoticeProcessor(db, [](void*, const char*) {}, nullptr);  // "relation already exists, skipping"
    try {
      prepare_session();
    } catch (...) {
      PQfinish(db);
      db = nullptr;
      throw;
    }
  }

  // Both connections make sure the tables exist (whichever connects first after a database was
  // recreated); the writer adds its batch table, each prepares its statements.
  void prepare_session() {
    exec("BEGIN", "cannot begin a transaction");
    lock_schema();
    bool fill_event_ids = false;
    {
      pg_result r(check(PQexec(db, "SELECT to_regclass('uactor_history_values') IS NOT NULL AND NOT EXISTS ("
                                   "SELECT 1 FROM information_schema.columns WHERE table_name = 'uactor_history_values' "
                                   "AND column_name = 'event_id')"),
                        PGRES_TUPLES_OK, "cannot read the columns of the values"));
      fill_event_ids = PQntuples(r.r) == 1 && PQgetvalue(r.r, 0, 0)[0] == 't';
    }
    exec(pg_schema, "cannot create the history tables");
    if (fill_event_ids) add_event_ids();
    exec("COMMIT", "cannot create the history tables");
    prepare("node_ids", "SELECT id, name FROM uactor_history_nodes WHERE name = ANY($1::text[])");
    if (writes) {
      // A batch is one statement: its columns as binary arrays, unnested in the batch's order
      // (seq follows it), the digest computed by the database (decision 0054: no temporary
      // table, whose truncation at every COMMIT cost more than the insert).
      prepare("insert", "INSERT INTO uactor_history_values(node, time, digest, value, server_time, server_picoseconds, event_id) "
                        "SELECT node, time, substring(sha256(value) FROM 1 FOR 16), value, server_time, server_picoseconds, event_id "
                        "FROM unnest($1::bigint[], $2::bigint[], $3::bytea[], $4::bigint[], $5::int[], $6::bytea[]) "
                        "WITH ORDINALITY AS b(node, time, value, server_time, server_picoseconds, event_id, ord) "
                        "ORDER BY ord ON CONFLICT DO NOTHING");
      prepare("add_nodes", "INSERT INTO uactor_history_nodes(name) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING");
      prepare("delete_older", "DELETE FROM uactor_history_values WHERE time < $1");
      prepare("delete_older_modified", "DELETE FROM uactor_history_modified WHERE time < $1::bigint");
      // HistoryUpdate (Part 11 §6.9): $3 mod_time, $4 update_type, $5 user_name where a change is kept.
      prepare("exists_at", "SELECT 1 FROM uactor_history_values WHERE node = $1::bigint AND time = $2::bigint LIMIT 1");
      prepare("keep_at", std::string(pg_keep) + "SELECT node, time, value, server_time, server_picoseconds, $3::bigint, $4::int, $5::text "
                                                "FROM uactor_history_values WHERE node = $1::bigint AND time = $2::bigint ORDER BY seq");
      prepare("delete_at", "DELETE FROM uactor_history_values WHERE node = $1::bigint AND time = $2::bigint");
      prepare("keep_new", std::string(pg_keep) + "VALUES ($1::bigint, $2::bigint, $6::bytea, $7::bigint, $8::int, $3::bigint, $4::int, $5::text)");
      prepare("insert_one", "INSERT INTO uactor_history_values(node, time, digest, value, server_time, server_picoseconds, event_id) "
                            "VALUES ($1::bigint, $2::bigint, substring(sha256($3::bytea) FROM 1 FOR 16), $3::bytea, $4::bigint, $5::int, "
                            "$6::bytea) "
                            "ON CONFLICT DO NOTHING");
      prepare("keep_range", std::string(pg_keep) + "SELECT node, time, value, server_time, server_picoseconds, $4::bigint, $5::int, $6::text "
                                                   "FROM uactor_history_values WHERE node = $1::bigint AND time >= $2::bigint AND time <= $3::bigint "
                                                   "ORDER BY time, seq");
      prepare("delete_range", "DELETE FROM uactor_history_values WHERE node = $1::bigint AND time >= $2::bigint AND time <= $3::bigint");
      prepare("delete_modified_range",
              "DELETE FROM uactor_history_modified WHERE node = $1::bigint AND time >= $2::bigint AND time <= $3::bigint");
      // Event history by EventId (Part 11 §6.9.4, §6.9.7).
      prepare("find_event", "SELECT value FROM uactor_history_values WHERE node = $1::bigint AND event_id = $2::bytea "
                            "ORDER BY seq LIMIT 1");
      prepare("keep_event", std::string(pg_keep) + "SELECT node, time, value, server_time, server_picoseconds, $3::bigint, $4::int, $5::text "
                                                   "FROM uactor_history_values WHERE node = $1::bigint AND event_id = $2::bytea ORDER BY seq");
      prepare("delete_event", "DELETE FROM uactor_history_values WHERE node = $1::bigint AND event_id = $2::bytea");
      prepare("delete_beyond",
              "DELETE FROM uactor_history_values WHERE node = $1 AND (time, seq) <= "
              "(SELECT time, seq FROM uactor_history_values WHERE node = $1 ORDER BY time DESC, seq DESC LIMIT 1 OFFSET $2)");
      load_partitions();
    } else {
      const std::string range = pg_read_columns;
      prepare("forward", range + "ORDER BY time, seq LIMIT $4");
      prepare("forward_after", range + "AND time >= $5 AND (time > $5 OR seq > $6) ORDER BY time, seq LIMIT $4");
      prepare("backward", range + "ORDER BY time DESC, seq DESC LIMIT $4");
      prepare("backward_after", range + "AND time <= $5 AND (time < $5 OR seq < $6) ORDER BY time DESC, seq DESC LIMIT $4");
      const std::string mrange = pg_read_modified_columns;
      prepare("mforward", mrange + "ORDER BY time, seq LIMIT $4");
      prepare("mforward_after", mrange + "AND time >= $5 AND (time > $5 OR seq > $6) ORDER BY time, seq LIMIT $4");
      prepare("mbackward", mrange + "ORDER BY time DESC, seq DESC LIMIT $4");
      prepare("mbackward_after", mrange + "AND time <= $5 AND (time < $5 OR seq < $6) ORDER BY time DESC, seq DESC LIMIT $4");
    }
  }

  // A database made before the event_id column: its event records (a DataValue whose value is an
  // array of Variants, second byte 0x98, Part 6 §5.2.2.16) get their EventIds, in the schema's
  // transaction, once.
  void add_event_ids() {
    pg_result rows(check(PQexecParams(db, "SELECT node, time, seq, value FROM uactor_history_values "
                                          "WHERE substring(value FROM 2 FOR 1) = '\\x98'::bytea",
                                      0, nullptr, nullptr, nullptr, nullptr, 1),
                         PGRES_TUPLES_OK, "cannot read the recorded events"));
    ua::data_value v;
    for (int i = 0; i < PQntuples(rows.r); ++i) {
      const auto* blob = reinterpret_cast<const std::uint8_t*>(PQgetvalue(rows.r, i, 3));
      if (ua::decode_from_bytes({blob, static_cast<std::size_t>(PQgetlength(rows.r, i, 3))}, v, pg_stored_value_limits).is_bad())
        continue;  // read_raw says so
      const auto id = event_id_of(v);
      if (!id) continue;
      pg_args a;
      a.add(get_be64(PQgetvalue(rows.r, i, 0))).add(get_be64(PQgetvalue(rows.r, i, 1))).add(get_be64(PQgetvalue(rows.r, i, 2)));
      a.add_bytes(*id);
      pg_result r(check(PQexecParams(db, "UPDATE uactor_history_values SET event_id = $4::bytea "
                                         "WHERE node = $1::bigint AND time = $2::bigint AND seq = $3::bigint",
                                     a.count(), nullptr, a.values.data(), a.lengths.data(), a.formats.data(), 0),
                        PGRES_COMMAND_OK, "cannot set the EventId of a recorded event"));
    }
  }

  // The monthly partitions that exist, from the catalog (another server may have added some).
  std::vector<std::string> load_partitions() {
    pg_result r(check(PQexec(db, "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                                 "JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'uactor_history_values'"),
                      PGRES_TUPLES_OK, "cannot list the partitions"));
    months.clear();
    std::vector<std::string> names;
    for (int i = 0; i < PQntuples(r.r); ++i) {
      const char* name = PQgetvalue(r.r, i, 0);
      if (const auto m = month_of_partition(name); m >= 0) {
        months.insert(m);
        names.emplace_back(name);
      }
    }
    return names;
  }

  void rollback() noexcept {
    if (db && PQstatus(db) == CONNECTION_OK) PQclear(PQexec(db, "ROLLBACK"));
  }

  // The ids of these nodes, adding those the database does not know (create).
  void resolve(const std::vector<const std::string*>& names, bool create) {
    std::vector<const std::string*> unknown;
    for (const std::string* n : names)
      if (!node_ids.contains(*n)) unknown.push_back(n);
    if (unknown.empty()) return;
    const std::string list = text_array(unknown);
    const char* params[] = {list.c_str()};
    if (create) pg_result added(check(PQexecPrepared(db, "add_nodes", 1, params, nullptr, nullptr, 0), PGRES_COMMAND_OK, "cannot add nodes"));
    pg_result r(check(PQexecPrepared(db, "node_ids", 1, params, nullptr, nullptr, 0), PGRES_TUPLES_OK, "cannot look up nodes"));
    for (int i = 0; i < PQntuples(r.r); ++i)
      node_ids[PQgetvalue(r.r, i, 1)] = std::strtoll(PQgetvalue(r.r, i, 0), nullptr, 10);
  }

  // Creates the monthly partitions of these months that do not exist yet.
  void add_partitions(const std::set<std::int64_t>& wanted) {
    std::vector<std::int64_t> missing;
    for (const auto m : wanted)
      if (m >= pg_first_month && !months.contains(m)) missing.push_back(m);
    if (missing.empty()) return;
    exec("BEGIN", "cannot begin a transaction");
    try {
      lock_schema();
      for (const auto m : missing) {
        const std::string sql = "CREATE TABLE IF NOT EXISTS " + partition_name(m) + " PARTITION OF uactor_history_values FOR VALUES FROM (" +
                                std::to_string(month_start(m)) + ") TO (" + std::to_string(month_start(m + 1)) + ")";
        exec(sql.c_str(), "cannot add the partition " + partition_name(m));
      }
      exec("COMMIT", "cannot add partitions");
    } catch (...) {
      rollback();
      throw;
    }
    months.insert(missing.begin(), missing.end());
  }

  // Runs `op` connected. A connection found lost at its first use (the database restarted since
  // the last call) is replaced once and `op` runs again: each operation is safe to repeat (a
  // batch's values are stored once however often it is sent, docs/decisions/0054).
  template <class Op> auto run(Op&& op) {
    const bool was_connected = db != nullptr;
    ensure();
    try {
      return op();
    } catch (const store_unavailable&) {
      if (!was_connected) throw;
      ensure();
      return op();
    }
  }

  // The operations, on a connected session (through run()).

  // The ids of a batch's nodes (added when new) and the partitions of its months, before its
  // values go in (here or on another writing connection).
  void prepare_append(std::span<const record> batch) {
    std::vector<const std::string*> names;
    std::set<std::int64_t> wanted;
    for (const record& rec : batch) {
      if (!node_ids.contains(rec.node)) names.push_back(&rec.node);
      wanted.insert(month_of(record_time(rec.value)));
    }
    resolve(names, true);
    add_partitions(wanted);
  }
  std::int64_t id_of(const std::string& node) const {
    const auto it = node_ids.find(node);
    if (it == node_ids.end()) throw store_error("history: PostgreSQL did not add the node " + node);
    return it->second;
  }

  // Sends the "insert" of these rows without waiting for it (finish_insert() waits), so that
  // two connections insert at once.
  void send_insert(insert_rows& rows) {
    binary_array* columns[] = {&rows.nodes, &rows.times, &rows.values, &rows.server_times, &rows.server_picoseconds, &rows.event_ids};
    const char* params[6];
    int lengths[6], formats[6];
    for (int i = 0; i < 6; ++i) {
      const auto b = columns[i]->finish();
      params[i] = reinterpret_cast<const char*>(b.data());
      lengths[i] = static_cast<int>(b.size());
      formats[i] = 1;
    }
    // One statement, its own transaction.
    if (!PQsendQueryPrepared(db, "insert", 6, params, lengths, formats, 0)) fail("cannot send a batch");
  }
  // Takes every result of the insert sent (the connection is then free again), failing on the first error.
  void finish_insert() {
    PGresult* failed = nullptr;
    while (PGresult* r = PQgetResult(db)) {
      if (!failed && PQresultStatus(r) != PGRES_COMMAND_OK) failed = r;
      else PQclear(r);
    }
    if (failed) {
      pg_result owned(failed);
      fail("cannot store a batch", failed);
    }
  }

  raw_page read_raw(const raw_query& q) {
    raw_page page;
    const std::string node_name(q.node);
    resolve({&node_name}, false);
    const auto id = node_ids.find(node_name);
    if (id == node_ids.end()) return page;
    // Inclusive ends in SQL; the ticks are integers, so an open end is one tick inside.
    constexpr auto lowest = std::numeric_limits<std::int64_t>::min();
    constexpr auto highest = std::numeric_limits<std::int64_t>::max();
    if ((!q.from_inclusive && q.from == highest) || (!q.to_inclusive && q.to == lowest)) return page;
    const std::int64_t lo = q.from_inclusive ? q.from : q.from + 1;
    const std::int64_t hi = q.to_inclusive ? q.to : q.to - 1;
    if (lo > hi) return page;
    const int8_param node(id->second), from(lo), to(hi);
    // One more than asked: whether more follow. No limit: LIMIT NULL.
    const bool limited = q.limit != 0 && q.limit < static_cast<std::size_t>(highest);
    const int8_param limit(limited ? static_cast<std::int64_t>(q.limit) + 1 : 0);
    const int8_param after_time(q.after ? q.after->time : 0), after_seq(q.after ? q.after->sequence : 0);
    const char* values[] = {node.bytes.data(), from.bytes.data(), to.bytes.data(), limited ? limit.bytes.data() : nullptr,
                            after_time.bytes.data(), after_seq.bytes.data()};
    const int lengths[] = {8, 8, 8, 8, 8, 8};
    const int formats[] = {1, 1, 1, 1, 1, 1};
    const char* statement = q.modified ? (q.after ? (q.reverse ? "mbackward_after" : "mforward_after") : (q.reverse ? "mbackward" : "mforward"))
                                       : (q.after ? (q.reverse ? "backward_after" : "forward_after") : (q.reverse ? "backward" : "forward"));
    pg_result res(check(PQexecPrepared(db, statement, q.after ? 6 : 4, values, lengths, formats, 1), PGRES_TUPLES_OK,
                          "cannot read the values of " + node_name));
    const int rows = PQntuples(res.r);
    page.values.reserve(static_cast<std::size_t>(rows));
    for (int i = 0; i < rows; ++i) {
      if (limited && page.values.size() == q.limit) {
        page.more = true;
        break;
      }
      if (PQgetlength(res.r, i, 0) != 8 || PQgetlength(res.r, i, 1) != 8)
        throw store_error("history: PostgreSQL answered a row of " + node_name + " in another format");
      const auto* blob = reinterpret_cast<const std::uint8_t*>(PQgetvalue(res.r, i, 2));
      const auto size = static_cast<std::size_t>(PQgetlength(res.r, i, 2));
      ua::data_value& v = page.values.emplace_back();
      if (ua::decode_from_bytes({blob, size}, v, pg_stored_value_limits).is_bad())
        throw store_error("history: a stored value of " + node_name + " in PostgreSQL does not decode");
      if (!PQgetisnull(res.r, i, 3) && PQgetlength(res.r, i, 3) == 8) {
        v.has_server_timestamp = true;
        v.server_timestamp.ticks = get_be64(PQgetvalue(res.r, i, 3));
      }
      if (!PQgetisnull(res.r, i, 4) && PQgetlength(res.r, i, 4) == 4) {
        const auto* p = reinterpret_cast<const std::uint8_t*>(PQgetvalue(res.r, i, 4));
        v.has_server_picoseconds = true;
        v.server_picoseconds = static_cast<std::uint16_t>((p[2] << 8) | p[3]);
      }
      page.last = {get_be64(PQgetvalue(res.r, i, 1)), get_be64(PQgetvalue(res.r, i, 0))};
      if (q.modified) {
        if (PQgetlength(res.r, i, 5) != 8 || PQgetlength(res.r, i, 6) != 4)
          throw store_error("history: PostgreSQL answered a modified row of " + node_name + " in another format");
        const auto* t = reinterpret_cast<const std::uint8_t*>(PQgetvalue(res.r, i, 6));
        page.changes.push_back({get_be64(PQgetvalue(res.r, i, 5)),
                                static_cast<std::int32_t>((std::uint32_t{t[0]} << 24) | (t[1] << 16) | (t[2] << 8) | t[3]),
                                std::string(PQgetvalue(res.r, i, 7), static_cast<std::size_t>(PQgetlength(res.r, i, 7)))});
      }
    }
    return page;
  }

  // HistoryUpdate's statements, on a connected session inside a transaction.
  void command(const char* statement, const pg_args& a, const std::string& what, std::uint64_t* affected = nullptr) {
    pg_result r(check(PQexecPrepared(db, statement, a.count(), a.values.data(), a.lengths.data(), a.formats.data(), 0),
                      PGRES_COMMAND_OK, what));
    if (affected) *affected = std::strtoull(PQcmdTuples(r.r), nullptr, 10);
  }
  bool exists_at(std::int64_t node, std::int64_t t, const std::string& name) {
    pg_args a;
    a.add(node).add(t);
    pg_result r(check(PQexecPrepared(db, "exists_at", a.count(), a.values.data(), a.lengths.data(), a.formats.data(), 0),
                      PGRES_TUPLES_OK, "cannot look up a value of " + name));
    return PQntuples(r.r) > 0;
  }
  static pg_args& add_change(pg_args& a, const change& who, std::int32_t type) {
    return a.add(who.time).add(type).add_text(who.user);
  }
  // The node's id, or -1 when the database does not know it (create: add it).
  std::int64_t node_of(const std::string& name, bool create) {
    resolve({&name}, create);
    const auto it = node_ids.find(name);
    return it == node_ids.end() ? -1 : it->second;
  }

  std::vector<write_outcome> update(const std::string& name, std::span<const ua::data_value> values, write_mode mode,
                                    const change& who) {
    std::vector<write_outcome> out;
    const std::int64_t node = node_of(name, true);
    if (node < 0) throw store_error("history: PostgreSQL did not add the node " + name);
    std::set<std::int64_t> wanted;
    for (const auto& v : values) wanted.insert(month_of(record_time(v)));
    add_partitions(wanted);
    exec("BEGIN", "cannot begin a transaction");
    try {
      ua::byte_buffer buf;
      for (const ua::data_value& v : values) {
        const std::int64_t t = record_time(v);
        const bool exists = exists_at(node, t, name);
        if (exists && mode == write_mode::insert) {
          out.push_back(write_outcome::exists);
          continue;
        }
        if (!exists && mode == write_mode::replace) {
          out.push_back(write_outcome::missing);
          continue;
        }
        encode_without_server_time(v, buf);
        pg_args server;
        if (v.has_server_timestamp) server.add(v.server_timestamp.ticks);
        else server.add_null();
        if (v.has_server_picoseconds) server.add(v.server_picoseconds);
        else server.add_null();
        if (exists) {  // the old records at that time are kept as modified, then replaced
          pg_args keep;
          keep.add(node).add(t);
          command("keep_at", add_change(keep, who, mode == write_mode::replace ? 2 : 3), "cannot keep a replaced value of " + name);
          pg_args del;
          command("delete_at", del.add(node).add(t), "cannot replace a value of " + name);
        } else {  // an inserted record is kept as modified with its new value (Part 11 §6.5.3.1)
          pg_args keep;
          keep.add(node).add(t);
          add_change(keep, who, 1).add_bytes(buf);
          if (v.has_server_timestamp) keep.add(v.server_timestamp.ticks);
          else keep.add_null();
          if (v.has_server_picoseconds) keep.add(v.server_picoseconds);
          else keep.add_null();
          command("keep_new", keep, "cannot keep an inserted value of " + name);
        }
        pg_args ins;
        ins.add(node).add(t).add_bytes(buf);
        if (v.has_server_timestamp) ins.add(v.server_timestamp.ticks);
        else ins.add_null();
        if (v.has_server_picoseconds) ins.add(v.server_picoseconds);
        else ins.add_null();
        ins.add_event_id(event_id_of(v));
        command("insert_one", ins, "cannot store a value of " + name);
        out.push_back(exists ? write_outcome::replaced : write_outcome::inserted);
      }
      exec("COMMIT", "cannot commit an update");
    } catch (...) {
      rollback();
      throw;
    }
    return out;
  }

  // The value of the event with this EventId, or nullopt.
  std::optional<ua::data_value> find_event(std::int64_t node, std::string_view id, const std::string& name) {
    pg_args a;
    a.add(node).add_bytes(id);
    pg_result r(check(PQexecPrepared(db, "find_event", a.count(), a.values.data(), a.lengths.data(), a.formats.data(), 1),
                      PGRES_TUPLES_OK, "cannot look up an event of " + name));
    if (PQntuples(r.r) == 0) return std::nullopt;
    ua::data_value v;
    const auto* blob = reinterpret_cast<const std::uint8_t*>(PQgetvalue(r.r, 0, 0));
    if (ua::decode_from_bytes({blob, static_cast<std::size_t>(PQgetlength(r.r, 0, 0))}, v, pg_stored_value_limits).is_bad())
      throw store_error("history: a stored event of " + name + " in PostgreSQL does not decode");
    return v;
  }

  std::vector<write_outcome> update_events(const std::string& name, std::span<const ua::data_value> events, write_mode mode,
                                           const change& who) {
    std::vector<write_outcome> out;
    const std::int64_t node = node_of(name, true);
    if (node < 0) throw store_error("history: PostgreSQL did not add the node " + name);
    std::set<std::int64_t> wanted;
    for (const auto& v : events) wanted.insert(month_of(record_time(v)));
    add_partitions(wanted);  // a merged Replace keeps the stored Time, whose month exists
    exec("BEGIN", "cannot begin a transaction");
    try {
      ua::byte_buffer buf;
      for (const ua::data_value& ev : events) {
        const auto id = event_id_of(ev);
        if (!id) {
          out.push_back(write_outcome::missing);
          continue;
        }
        const auto stored = find_event(node, *id, name);
        if (stored && mode == write_mode::insert) {
          out.push_back(write_outcome::exists);
          continue;
        }
        if (!stored && mode == write_mode::replace) {
          out.push_back(write_outcome::missing);
          continue;
        }
        // Part 11 §6.9.4.3: Replace changes the fields given; §6.9.4.4: Update puts the whole event.
        const ua::data_value v = stored && mode == write_mode::replace ? merge_event(*stored, ev) : ev;
        encode_without_server_time(v, buf);
        if (stored) {  // the old record is kept as modified, then replaced
          pg_args keep;
          keep.add(node).add_bytes(*id);
          command("keep_event", add_change(keep, who, mode == write_mode::replace ? 2 : 3), "cannot keep a replaced event of " + name);
          pg_args del;
          command("delete_event", del.add(node).add_bytes(*id), "cannot replace an event of " + name);
        } else {
          pg_args keep;
          keep.add(node).add(record_time(v));
          add_change(keep, who, 1).add_bytes(buf);
          if (v.has_server_timestamp) keep.add(v.server_timestamp.ticks);
          else keep.add_null();
          if (v.has_server_picoseconds) keep.add(v.server_picoseconds);
          else keep.add_null();
          command("keep_new", keep, "cannot keep an inserted event of " + name);
        }
        pg_args ins;
        ins.add(node).add(record_time(v)).add_bytes(buf);
        if (v.has_server_timestamp) ins.add(v.server_timestamp.ticks);
        else ins.add_null();
        if (v.has_server_picoseconds) ins.add(v.server_picoseconds);
        else ins.add_null();
        ins.add_bytes(*id);
        command("insert_one", ins, "cannot store an event of " + name);
        out.push_back(stored ? write_outcome::replaced : write_outcome::inserted);
      }
      exec("COMMIT", "cannot commit an update");
    } catch (...) {
      rollback();
      throw;
    }
    return out;
  }

  std::vector<bool> remove_events(const std::string& name, std::span<const ua::byte_string> ids, const change& who) {
    std::vector<bool> out(ids.size(), false);
    const std::int64_t node = node_of(name, false);
    if (node < 0 || ids.empty()) return out;
    exec("BEGIN", "cannot begin a transaction");
    try {
      for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i].empty()) continue;
        pg_args keep;
        keep.add(node).add_bytes(ids[i].view());
        command("keep_event", add_change(keep, who, 4), "cannot keep a deleted event of " + name);
        pg_args del;
        std::uint64_t n = 0;
        command("delete_event", del.add(node).add_bytes(ids[i].view()), "cannot delete an event of " + name, &n);
        out[i] = n > 0;
      }
      exec("COMMIT", "cannot commit a delete");
    } catch (...) {
      rollback();
      throw;
    }
    return out;
  }

  std::uint64_t remove_range(const std::string& name, std::int64_t from, std::int64_t to, bool modified, const change& who) {
    const std::int64_t node = node_of(name, false);
    if (node < 0 || from > to) return 0;
    std::uint64_t removed = 0;
    exec("BEGIN", "cannot begin a transaction");
    try {
      if (!modified) {
        pg_args keep;
        keep.add(node).add(from).add(to);
        command("keep_range", add_change(keep, who, 4), "cannot keep the deleted values of " + name);
      }
      pg_args del;
      del.add(node).add(from).add(to);
      command(modified ? "delete_modified_range" : "delete_range", del, "cannot delete values of " + name, &removed);
      exec("COMMIT", "cannot commit a delete");
    } catch (...) {
      rollback();
      throw;
    }
    return removed;
  }

  std::vector<bool> remove_at(const std::string& name, std::span<const std::int64_t> times, const change& who) {
    std::vector<bool> out(times.size(), false);
    const std::int64_t node = node_of(name, false);
    if (node < 0 || times.empty()) return out;
    exec("BEGIN", "cannot begin a transaction");
    try {
      for (std::size_t i = 0; i < times.size(); ++i) {
        pg_args keep;
        keep.add(node).add(times[i]);
        command("keep_at", add_change(keep, who, 4), "cannot keep a deleted value of " + name);
        pg_args del;
        std::uint64_t n = 0;
        command("delete_at", del.add(node).add(times[i]), "cannot delete a value of " + name, &n);
        out[i] = n > 0;
      }
      exec("COMMIT", "cannot commit a delete");
    } catch (...) {
      rollback();
      throw;
    }
    return out;
  }

  std::uint64_t apply_retention(const retention& ret, std::int64_t now) {
    std::uint64_t removed = 0;
    const auto affected = [](const pg_result& r) { return std::strtoull(PQcmdTuples(r.r), nullptr, 10); };
    if (ret.max_age_days > 0) {
      const std::int64_t cutoff = now - static_cast<std::int64_t>(ret.max_age_days) * pg_ticks_per_day;
      // Whole months before the cutoff go as partitions (no row by row delete, no bloat), counted first.
      exec("BEGIN", "cannot begin a transaction");
      try {
        lock_schema();
        for (const std::string& name : load_partitions()) {
          const auto month = month_of_partition(name.c_str());
          if (month_start(month + 1) > cutoff) continue;
          pg_result count(check(PQexec(db, ("SELECT count(*) FROM " + name).c_str()), PGRES_TUPLES_OK, "cannot count " + name));
          removed += std::strtoull(PQgetvalue(count.r, 0, 0), nullptr, 10);
          exec(("DROP TABLE " + name).c_str(), "cannot drop " + name);
          months.erase(month);
        }
        exec("COMMIT", "cannot drop partitions");
      } catch (...) {
        rollback();
        months.clear();  // reloaded at the next connect; add_partitions' IF NOT EXISTS covers the rest
        throw;
      }
      const int8_param c(cutoff);
      const char* values[] = {c.bytes.data()};
      const int lengths[] = {8};
      const int formats[] = {1};
      pg_result r(check(PQexecPrepared(db, "delete_older", 1, values, lengths, formats, 0), PGRES_COMMAND_OK,
                          "cannot remove values past their age"));
      removed += affected(r);
      pg_args older;
      command("delete_older_modified", older.add(cutoff), "cannot remove modified values past their age");
    }
    if (ret.max_values_per_node > 0) {
      pg_result nodes(check(PQexec(db, "SELECT id FROM uactor_history_nodes"), PGRES_TUPLES_OK, "cannot list the nodes"));
      const int8_param keep(static_cast<std::int64_t>(std::min<std::uint64_t>(ret.max_values_per_node, std::numeric_limits<std::int64_t>::max())));
      for (int i = 0; i < PQntuples(nodes.r); ++i) {
        const int8_param node(std::strtoll(PQgetvalue(nodes.r, i, 0), nullptr, 10));
        const char* values[] = {node.bytes.data(), keep.bytes.data()};
        const int lengths[] = {8, 8};
        const int formats[] = {1, 1};
        pg_result r(check(PQexecPrepared(db, "delete_beyond", 2, values, lengths, formats, 0), PGRES_COMMAND_OK,
                            "cannot remove values beyond the count"));
        removed += affected(r);
      }
    }
    return removed;
  }
};

postgres_store::postgres_store(std::string conninfo)
    : reader_(std::make_unique<connection>(conninfo, false)) {
  for (int i = 0; i < append_connections; ++i) appenders_.push_back(std::make_unique<connection>(conninfo, true));
  writer_ = appenders_.front().get();
}

void postgres_store::connect() {
  // The writer first (the tables: the others' statements name them).
  for (const auto& c : appenders_) {
    std::lock_guard lock(c->mutex);
    c->ensure();
  }
  std::lock_guard lock(reader_->mutex);
  reader_->ensure();
}

postgres_store::~postgres_store() = default;

void postgres_store::append(std::span<const record> batch) {
  if (batch.empty()) return;
  std::vector<std::unique_lock<std::mutex>> locks;
  for (const auto& c : appenders_) locks.emplace_back(c->mutex);
  // As connection::run(): connections found lost at their first use are replaced once and the
  // batch goes again (stored once however often it is sent).
  bool was_connected = true;
  for (const auto& c : appenders_) was_connected = was_connected && c->db;
  try {
    append_split(batch);
  } catch (const store_unavailable&) {
    if (!was_connected) throw;
    append_split(batch);
  }
}

// The batch's nodes split by id over the appending connections, all parts inserted at once: the
// database's backend was the bottleneck at one core (decision 0054, "Two appending connections").
void postgres_store::append_split(std::span<const record> batch) {
  const std::size_t n = appenders_.size();
  for (const auto& c : appenders_) c->ensure();
  connection& first = *appenders_.front();  // it knows the node ids
  first.prepare_append(batch);
  std::vector<insert_rows> rows(n);
  ua::byte_buffer scratch;
  for (const record& rec : batch) {
    const auto id = first.id_of(rec.node);
    rows[static_cast<std::uint64_t>(id) % n].add(id, rec.value, scratch);
  }
  std::exception_ptr failed;
  std::vector<bool> sent(n);
  for (std::size_t i = 0; i < n && !failed; ++i) {
    if (rows[i].count == 0) continue;
    try {
      appenders_[i]->send_insert(rows[i]);
      sent[i] = true;
    } catch (...) {
      failed = std::current_exception();
    }
  }
  // Each connection's result taken, whatever the others': a connection is usable again only then.
  for (std::size_t i = 0; i < n; ++i) {
    if (!sent[i]) continue;
    try {
      appenders_[i]->finish_insert();
    } catch (...) {
      if (!failed) failed = std::current_exception();
    }
  }
  if (failed) std::rethrow_exception(failed);
}

raw_page postgres_store::read_raw(const raw_query& q) {
  std::lock_guard lock(reader_->mutex);
  return reader_->run([&] { return reader_->read_raw(q); });
}

std::vector<write_outcome> postgres_store::update(std::string_view node, std::span<const ua::data_value> values,
                                                  write_mode mode, const change& who) {
  if (values.empty()) return {};
  const std::string name(node);
  std::lock_guard lock(writer_->mutex);
  return writer_->run([&] { return writer_->update(name, values, mode, who); });
}

std::uint64_t postgres_store::remove_range(std::string_view node, std::int64_t from, std::int64_t to, bool modified,
                                           const change& who) {
  const std::string name(node);
  std::lock_guard lock(writer_->mutex);
  return writer_->run([&] { return writer_->remove_range(name, from, to, modified, who); });
}

std::vector<bool> postgres_store::remove_at(std::string_view node, std::span<const std::int64_t> times, const change& who) {
  const std::string name(node);
  std::lock_guard lock(writer_->mutex);
  return writer_->run([&] { return writer_->remove_at(name, times, who); });
}

std::vector<write_outcome> postgres_store::update_events(std::string_view node, std::span<const ua::data_value> events,
                                                         write_mode mode, const change& who) {
  if (events.empty()) return {};
  const std::string name(node);
  std::lock_guard lock(writer_->mutex);
  return writer_->run([&] { return writer_->update_events(name, events, mode, who); });
}

std::vector<bool> postgres_store::remove_events(std::string_view node, std::span<const ua::byte_string> ids, const change& who) {
  const std::string name(node);
  std::lock_guard lock(writer_->mutex);
  return writer_->run([&] { return writer_->remove_events(name, ids, who); });
}

std::uint64_t postgres_store::apply_retention(const retention& r, std::int64_t now) {
  std::lock_guard lock(writer_->mutex);
  return writer_->run([&] { return writer_->apply_retention(r, now); });
}

}  // namespace uactor::history
