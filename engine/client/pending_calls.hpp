// The client's requests waiting for their responses, by RequestId: a flat open-addressing table
// whose slots are kept (docs/decisions/0023). std::unordered_map allocated a node per request; this
// allocates only when it grows past the most requests ever in flight at once.
// RequestIds are sequential per channel and never 0 (client_channel_state), so `id & mask` spreads
// them evenly and 0 marks a free slot. Plain state of the connection actor: one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

namespace uactor::actors {

template <class Value>
class pending_table {
public:
  struct entry {
    std::uint32_t id = 0;  // 0: free
    Value value{};
  };

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  // Adds `value` under `id` (not 0, not present).
  void insert(std::uint32_t id, Value value) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    auto i = id & mask();
    while (slots_[i].id != 0) i = (i + 1) & mask();
    slots_[i].id = id;
    slots_[i].value = std::move(value);
    ++size_;
  }

  Value* find(std::uint32_t id) noexcept {
    if (size_ == 0 || id == 0) return nullptr;
    for (auto i = id & mask();; i = (i + 1) & mask()) {
      if (slots_[i].id == id) return &slots_[i].value;
      if (slots_[i].id == 0) return nullptr;
    }
  }

  // Removes `id` and hands its value over; false when it is not here.
  bool take(std::uint32_t id, Value& out) {
    if (size_ == 0 || id == 0) return false;
    auto i = id & mask();
    while (slots_[i].id != id) {
      if (slots_[i].id == 0) return false;
      i = (i + 1) & mask();
    }
    out = std::move(slots_[i].value);
    erase_at(i);
    return true;
  }

  // Calls f(id, value) for every entry (no change to the table inside f).
  template <class F>
  void for_each(F&& f) {
    for (auto& s : slots_)
      if (s.id != 0) f(s.id, s.value);
  }

  // Moves every value out (into `out`, appended) and empties the table; the slots are kept.
  void take_all(std::vector<Value>& out) {
    for (auto& s : slots_)
      if (s.id != 0) {
        out.push_back(std::move(s.value));
        s.value = Value{};
        s.id = 0;
      }
    size_ = 0;
  }

private:
  std::size_t mask() const noexcept { return slots_.size() - 1; }

  void grow() {
    std::vector<entry> old(slots_.empty() ? 16 : slots_.size() * 2);
    old.swap(slots_);
    size_ = 0;
    for (auto& s : old)
      if (s.id != 0) insert(s.id, std::move(s.value));
  }

  // Linear probing without tombstones: the entries after the hole that belong before it move up.
  void erase_at(std::size_t hole) {
    slots_[hole].value = Value{};
    slots_[hole].id = 0;
    --size_;
    for (auto i = (hole + 1) & mask(); slots_[i].id != 0; i = (i + 1) & mask()) {
      const auto home = slots_[i].id & mask();
      // Does `home` lie cyclically in (hole, i]? Then the entry stays; otherwise it fills the hole.
      const bool stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
      if (stays) continue;
      slots_[hole].id = slots_[i].id;
      slots_[hole].value = std::move(slots_[i].value);
      slots_[i].value = Value{};
      slots_[i].id = 0;
      hole = i;
    }
  }

  std::vector<entry> slots_;
  std::size_t size_ = 0;
};

}  // namespace uactor::actors
