// The SQLite backend of the history store: one file per server, in WAL mode so that HistoryRead's
// reads never wait for the historian's writes nor the writes for the reads (two connections, one
// each), one transaction per appended batch, prepared statements kept for the store's life.
#pragma once

#include <memory>
#include <string>

#include "history/history_store.hpp"

namespace uactor::history {

class sqlite_store final : public history_store {
public:
  // Opens or creates the file and its tables. store_error with the path and SQLite's reason when
  // the file cannot be opened or is not a history database (corrupt, another format).
  explicit sqlite_store(const std::string& path);
  ~sqlite_store() override;
  sqlite_store(const sqlite_store&) = delete;
  sqlite_store& operator=(const sqlite_store&) = delete;

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

  const std::string& path() const noexcept { return path_; }

private:
  struct connection;
  std::string path_;
  std::unique_ptr<connection> writer_;
  std::unique_ptr<connection> reader_;
};

}  // namespace uactor::history
