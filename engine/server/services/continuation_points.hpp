// A session's continuation points of one service (Part 4 §7.9): at most `capacity`, each the
// 8 bytes of a process-wide counter (opaque to the client), so that a released point, or another
// session's, is told apart from a live one. Browse and HistoryRead keep theirs this way.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "uactor/ua/builtin_types.hpp"

namespace uactor::services {

// One counter for the process: a point of another session never names one of this session.
inline std::uint64_t next_continuation_point_id() noexcept {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// The counter value in `point`; false when the bytes cannot be one of ours.
inline bool continuation_point_id(const ua::byte_string& point, std::uint64_t& id) noexcept {
  if (point.is_null() || point.size() != sizeof(id)) return false;
  std::memcpy(&id, point.data(), sizeof(id));
  return true;
}

// Where each live point of a session stopped, by its id.
template <class Position>
class continuation_table {
public:
  explicit continuation_table(std::size_t capacity) : capacity_(capacity) { entries_.reserve(capacity); }

  std::size_t capacity() const noexcept { return capacity_; }
  std::size_t size() const noexcept { return entries_.size(); }

  // A new point for `p` written into `out`; false when all `capacity` are taken.
  bool add(Position p, ua::byte_string& out) {
    if (entries_.size() >= capacity_) return false;
    const std::uint64_t id = next_continuation_point_id();
    entries_.push_back({id, std::move(p)});
    out.assign(&id, sizeof(id));
    return true;
  }
  // The position of a live point, or null (unknown or released).
  Position* find(const ua::byte_string& point) noexcept {
    std::uint64_t id = 0;
    if (!continuation_point_id(point, id)) return nullptr;
    for (auto& e : entries_)
      if (e.id == id) return &e.position;
    return nullptr;
  }
  // Releases a point; false when it was not live.
  bool release(const ua::byte_string& point) noexcept {
    std::uint64_t id = 0;
    if (!continuation_point_id(point, id)) return false;
    const auto it = std::find_if(entries_.begin(), entries_.end(), [&](const entry& e) { return e.id == id; });
    if (it == entries_.end()) return false;
    entries_.erase(it);
    return true;
  }
  void clear() noexcept { entries_.clear(); }

private:
  struct entry {
    std::uint64_t id;
    Position position;
  };
  std::size_t capacity_;
  std::vector<entry> entries_;
};

}  // namespace uactor::services
