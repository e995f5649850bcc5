#include "history/history_store.hpp"

namespace uactor::history {

std::int64_t record_time(const ua::data_value& v) noexcept {
  if (v.has_source_timestamp) return v.source_timestamp.ticks;
  if (v.has_server_timestamp) return v.server_timestamp.ticks;
  return 0;
}

namespace {

// The value of the field `name` of an event record's [name, value, ...], or null.
const ua::variant* history_event_field(const ua::ua_array<ua::variant>& fields, std::string_view name) noexcept {
  for (std::size_t i = 0; i + 1 < fields.size(); i += 2) {
    const auto* n = fields[i].get_if<ua::ua_string>();
    if (n && n->view() == name) return &fields[i + 1];
  }
  return nullptr;
}

}  // namespace

std::optional<std::string_view> event_id_of(const ua::data_value& v) noexcept {
  const auto* fields = v.value.get_if<ua::ua_array<ua::variant>>();
  if (!fields) return std::nullopt;
  const ua::variant* id = history_event_field(*fields, "EventId");
  const auto* bytes = id ? id->get_if<ua::byte_string>() : nullptr;
  if (!bytes || bytes->is_null() || bytes->empty()) return std::nullopt;
  return bytes->view();
}

ua::data_value merge_event(const ua::data_value& stored, const ua::data_value& changes) {
  ua::data_value out = stored;
  const auto* in = changes.value.get_if<ua::ua_array<ua::variant>>();
  auto* fields = out.value.get_if<ua::ua_array<ua::variant>>();
  if (!in || !fields) return changes;  // not an event: nothing to merge into
  for (std::size_t i = 0; i + 1 < in->size(); i += 2) {
    const auto* name = (*in)[i].get_if<ua::ua_string>();
    if (!name) continue;
    bool found = false;
    for (std::size_t k = 0; k + 1 < fields->size(); k += 2) {
      const auto* n = (*fields)[k].get_if<ua::ua_string>();
      if (n && n->view() == name->view()) {
        (*fields)[k + 1] = (*in)[i + 1];
        found = true;
        break;
      }
    }
    if (!found) {
      fields->push_back((*in)[i]);
      fields->push_back((*in)[i + 1]);
    }
  }
  if (const ua::variant* t = history_event_field(*fields, "Time"); t && t->get_if<ua::date_time>()) {
    out.source_timestamp = *t->get_if<ua::date_time>();
    out.has_source_timestamp = true;
  }
  out.server_timestamp = changes.server_timestamp;
  out.has_server_timestamp = changes.has_server_timestamp;
  out.server_picoseconds = changes.server_picoseconds;
  out.has_server_picoseconds = changes.has_server_picoseconds;
  return out;
}

}  // namespace uactor::history
