// The events the server raises (Part 3 §6.4, Part 5 §6.4.2 BaseEventType) as the subscriptions see
// them: a flat list of fields, each named by a key that stands for its browse path from the event
// type ("Severity", "ActiveState/Id"). Keys are interned once (when a filter is created, when an
// alarm is defined), so that matching a select clause to a field is an integer compare. Plain data,
// no CAF; docs/decisions/0018.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "protocol/address_space.hpp"
#include "uactor/ua/variant.hpp"

namespace uactor::actors {

using field_key = std::uint32_t;

// The BaseEventType fields (Part 5 §6.4.2) have fixed keys; the others are interned.
namespace field {
inline constexpr field_key event_id = 0;
inline constexpr field_key event_type = 1;
inline constexpr field_key source_node = 2;
inline constexpr field_key source_name = 3;
inline constexpr field_key time = 4;
inline constexpr field_key receive_time = 5;
inline constexpr field_key message = 6;
inline constexpr field_key severity = 7;
inline constexpr field_key condition_id = 8;  // the NodeId attribute of the event itself (empty path), Part 9 §5.5.2
inline constexpr field_key first_interned = 9;
inline constexpr field_key none = 0xFFFF'FFFFu;  // a path no event can carry (the catalogue was full)
}  // namespace field

struct event_field {
  field_key key = field::none;
  ua::variant value;
};

// One event occurrence. `type` and `source` are resolved nodes (the source may be no_node: then
// the event is only seen at the Server object). Fields past the BaseEventType ones follow in any order.
struct event_record {
  ua::node_index type = ua::no_node;
  ua::node_index source = ua::no_node;
  std::vector<event_field> fields;

  const ua::variant* find(field_key k) const noexcept {
    for (const auto& f : fields)
      if (f.key == k) return &f.value;
    return nullptr;
  }
  // The field's value, added when missing; the storage of an existing one is reused.
  ua::variant& set(field_key k) {
    for (auto& f : fields)
      if (f.key == k) return f.value;
    fields.push_back({k, {}});
    return fields.back().value;
  }
};

// Browse paths to keys. "ns:Name/ns:Name" (namespace 0 without the prefix) is the interned form.
// Bounded: past max_keys a new path gets field::none (it then matches no field of any event).
class field_catalogue {
public:
  static constexpr std::size_t max_keys = 100'000;
  static constexpr std::size_t max_path_length = 16;  // elements

  field_catalogue();
  field_key intern(std::span<const ua::qualified_name> path);
  field_key intern(std::string_view text);  // the interned form
  std::size_t size() const noexcept { return keys_.size(); }
  // The interned form of a key (what event history stores, docs/history.md "Event history");
  // empty for an unknown key and for ConditionId's empty path.
  std::string_view name(field_key k) const noexcept { return k < names_.size() ? std::string_view(names_[k]) : std::string_view(); }

private:
  std::unordered_map<std::string, field_key> keys_;
  std::vector<std::string> names_;  // by key
  std::string scratch_;
  field_key next_ = field::first_interned;
};

}  // namespace uactor::actors
