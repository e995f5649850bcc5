// A continuation point's bytes as the server makes them (Part 4 §7.9: opaque to the client): the
// 8 bytes of a process-wide counter, so that a released point, or another session's, is told
// apart from a live one. Browse and HistoryRead keep theirs this way.
#pragma once

#include <cstdint>
#include <cstring>

#include "uactor/ua/builtin_types.hpp"

namespace uactor::services {

// The counter value in `point`; false when the bytes cannot be one of ours.
inline bool continuation_point_id(const ua::byte_string& point, std::uint64_t& id) noexcept {
  if (point.is_null() || point.size() != sizeof(id)) return false;
  std::memcpy(&id, point.data(), sizeof(id));
  return true;
}

}  // namespace uactor::services
