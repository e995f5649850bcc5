#include "engine/server/subscriptions/event_model.hpp"

namespace uactor::actors {

field_catalogue::field_catalogue() {
  keys_.emplace("EventId", field::event_id);
  keys_.emplace("EventType", field::event_type);
  keys_.emplace("SourceNode", field::source_node);
  keys_.emplace("SourceName", field::source_name);
  keys_.emplace("Time", field::time);
  keys_.emplace("ReceiveTime", field::receive_time);
  keys_.emplace("Message", field::message);
  keys_.emplace("Severity", field::severity);
  names_ = {"EventId", "EventType", "SourceNode", "SourceName", "Time", "ReceiveTime", "Message", "Severity", ""};
}

field_key field_catalogue::intern(std::span<const ua::qualified_name> path) {
  scratch_.clear();
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (i) scratch_ += '/';
    if (path[i].namespace_index != 0) {
      scratch_ += std::to_string(path[i].namespace_index);
      scratch_ += ':';
    }
    scratch_ += path[i].name.view();
  }
  return intern(std::string_view(scratch_));
}

field_key field_catalogue::intern(std::string_view text) {
  if (const auto found = keys_.find(std::string(text)); found != keys_.end()) return found->second;
  if (keys_.size() >= max_keys) return field::none;
  const field_key key = next_++;
  keys_.emplace(std::string(text), key);
  if (names_.size() <= key) names_.resize(key + 1);
  names_[key] = std::string(text);
  return key;
}

}  // namespace uactor::actors
