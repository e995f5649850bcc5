// The PostgreSQL backend of the history store (Debian's libpq), for plants that outgrow one box or
// run a redundant pair that shares one history (docs/history.md "PostgreSQL", docs/decisions/0052):
// - the values table is partitioned by month of the record's time, so that retention by age drops
//   whole partitions;
// - a batch goes in as one INSERT ... SELECT FROM unnest(binary arrays) ON CONFLICT DO NOTHING:
//   a record is identified by its node, its time and the SHA-256 (the database's) of its
//   value, status and SourceTimestamp, kept without the ServerTimestamp (in columns of its own), so
//   the two servers of a pair (and a batch retried after a lost COMMIT) never store one value twice;
// - three connections: two for the historian's writes (a batch's nodes split over both, inserted
//   at once, each part its own transaction: on a store_error the other part may be in) and one for
//   HistoryRead's reads, each reconnected on the next call after a loss (store_unavailable until
//   the database answers).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "history/history_store.hpp"

namespace uactor::history {

class postgres_store final : public history_store {
public:
  // `conninfo`: a libpq connection string or URI ("host=/run/postgresql dbname=plant",
  // "postgresql://historian@db.plant/plant"). Connects on the first call.
  explicit postgres_store(std::string conninfo);
  // Connects every connection now and creates the tables when missing: store_unavailable when the
  // database does not answer (or refuses the login), store_error when it refuses the tables.
  void connect();
  ~postgres_store() override;
  postgres_store(const postgres_store&) = delete;
  postgres_store& operator=(const postgres_store&) = delete;

  void append(std::span<const record> batch) override;
  raw_page read_raw(const raw_query& q) override;
  std::uint64_t apply_retention(const retention& r, std::int64_t now) override;
  std::vector<write_outcome> update(std::string_view node, std::span<const ua::data_value> values, write_mode mode,
                                    const change& who) override;
  std::uint64_t remove_range(std::string_view node, std::int64_t from, std::int64_t to, bool modified,
                             const change& who) override;
  std::vector<bool> remove_at(std::string_view node, std::span<const std::int64_t> times, const change& who) override;
  std::vector<write_outcome> update_events(std::string_view node, std::span<const ua::data_value> events, write_mode mode,
                                           const change& who) override;
  std::vector<bool> remove_events(std::string_view node, std::span<const ua::byte_string> ids, const change& who) override;

private:
  // Two appending connections: on this 2-core machine 1.3x the values/s of one, three or four
  // fewer than two (decision 0054, "Two appending connections").
  static constexpr int append_connections = 2;
  struct connection;
  void append_split(std::span<const record> batch);
  std::vector<std::unique_ptr<connection>> appenders_;  // each append split over them
  connection* writer_ = nullptr;  // the first of them: also updates, deletes, retention
  std::unique_ptr<connection> reader_;
};

}  // namespace uactor::history
