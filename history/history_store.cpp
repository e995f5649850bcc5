#include "history/history_store.hpp"

namespace uactor::history {

std::int64_t record_time(const ua::data_value& v) noexcept {
  if (v.has_source_timestamp) return v.source_timestamp.ticks;
  if (v.has_server_timestamp) return v.server_timestamp.ticks;
  return 0;
}

}  // namespace uactor::history
