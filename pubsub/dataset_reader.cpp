#include "pubsub/dataset_reader.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "uactor/ua/status_codes.hpp"

namespace uactor::pubsub {

dataset_reader_state::dataset_reader_state(dataset_reader_config config, std::vector<ua::builtin_type> target_types,
                                           std::vector<bool> target_arrays)
    : config_(std::move(config)), types_(std::move(target_types)) {
  types_.resize(config_.targets.size(), ua::builtin_type::null);
  target_arrays.resize(config_.targets.size(), false);
  targets_at_.resize(config_.fields.size());
  std::vector<bool> typed(config_.fields.size(), false);
  raw_types_.resize(config_.fields.size());
  std::unordered_map<std::string_view, std::size_t> position;  // a name's first place in the DataSet
  for (std::size_t f = 0; f < config_.fields.size(); ++f) position.emplace(config_.fields[f], f);
  for (std::uint32_t t = 0; t < config_.targets.size(); ++t) {
    targets_by_name_.emplace_back(config_.targets[t].field, t);
    if (const auto p = position.find(config_.targets[t].field); p != position.end()) {
      const auto f = p->second;
      targets_at_[f].push_back(t);
      raw_types_[f] = {types_[t], target_arrays[t]};
      typed[f] = types_[t] != ua::builtin_type::null;
    }
  }
  std::stable_sort(targets_by_name_.begin(), targets_by_name_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // RawData fields have no type on the wire (Part 14 §7.2.4.5.11): every field must be known.
  for (const bool t : typed)
    if (!t) {
      raw_types_.clear();
      break;
    }
}

bool dataset_reader_state::accepts(const decoded_network_message& n, const decoded_dataset_message& m) const noexcept {
  const std::string& publisher = n.publisher_id.empty() ? m.publisher_id : n.publisher_id;
  if (!config_.publisher_id.empty() && publisher != config_.publisher_id) return false;
  if (!config_.writer_group.empty() && n.writer_group_name != config_.writer_group) return false;
  if (config_.writer_group_id != 0 && n.writer_group_id.value_or(0) != config_.writer_group_id) return false;
  // Part 14 §6.2.9: a DataSetWriterId of 0 passes every message.
  if (config_.writer_id != 0 && m.writer_id.value_or(0) != config_.writer_id) return false;
  return true;
}

void dataset_reader_state::take(const decoded_dataset_message& m, std::int64_t now_ms, std::vector<target_write>& out) {
  // Part 14 §7.2.4.5.8: UADP's keep-alive carries the next expected number, not one of its own.
  const bool next_expected = m.sequence_bits == 16 && m.type == dataset_message_type::keep_alive;
  if (m.sequence_number && !next_expected) {
    // Part 14 §6.2.9.6: new when the sequence number increments (modulo 2^32, or 2^16 for UADP's
    // UInt16; half the range ahead).
    if (last_sequence_) {
      const std::uint32_t mask = m.sequence_bits >= 32 ? 0xFFFF'FFFFu : (1u << m.sequence_bits) - 1;
      const std::uint32_t ahead = (*m.sequence_number - *last_sequence_) & mask;
      if (ahead == 0 || ahead > mask / 2 + 1) {
        ++counters_.out_of_order;
        return;
      }
      counters_.gaps += ahead - 1;
    }
    last_sequence_ = m.sequence_number;
  }
  last_ms_ = now_ms;
  state_ = reader_state_kind::operational;
  ++counters_.messages;
  if (!m.has_payload) return;
  for (const auto& f : m.fields) {
    // JSON names its fields; UADP places them (config.fields names the places).
    if (f.name.empty()) {
      if (f.index < targets_at_.size())
        for (const auto t : targets_at_[f.index]) out.push_back(to_target(t, m, f.value));
      continue;
    }
    auto it = std::lower_bound(targets_by_name_.begin(), targets_by_name_.end(), f.name,
                               [](const auto& e, const std::string& name) { return e.first < name; });
    for (; it != targets_by_name_.end() && it->first == f.name; ++it) out.push_back(to_target(it->second, m, f.value));
  }
}

target_write dataset_reader_state::to_target(std::uint32_t t, const decoded_dataset_message& m, const ua::data_value& value) {
  target_write w{t, value};
  if (!w.value.has_value && !w.value.has_status) {
    w.value.status = ua::status::bad_no_data;  // a field published without a value
    w.value.has_status = true;
  } else if (w.value.has_value && convert_to(w.value.value, types_[t]).is_bad()) {
    ++counters_.bad_values;
    w.value.value.clear();
    w.value.has_value = false;
    w.value.status = ua::status::bad_type_mismatch;
    w.value.has_status = true;
  }
  // A DataSetMessage's Status applies to its fields when they carry none (Part 14 §7.2.5.4).
  if (!w.value.has_status && m.status.value() != 0) {
    w.value.status = m.status;
    w.value.has_status = true;
  }
  if (!w.value.has_source_timestamp && m.timestamp) {
    w.value.source_timestamp = *m.timestamp;
    w.value.has_source_timestamp = true;
  }
  ++counters_.values;
  return w;
}

void dataset_reader_state::check_timeout(std::int64_t now_ms, ua::date_time now, std::vector<target_write>& out) {
  if (state_ == reader_state_kind::error || config_.message_receive_timeout.count() <= 0) return;
  if (now_ms - last_ms_ < config_.message_receive_timeout.count()) return;
  state_ = reader_state_kind::error;
  ++counters_.timeouts;
  for (std::uint32_t t = 0; t < config_.targets.size(); ++t) {
    target_write w{t, {}};
    w.value.status = ua::status::bad_no_communication;
    w.value.has_status = true;
    w.value.source_timestamp = now;
    w.value.has_source_timestamp = true;
    out.push_back(std::move(w));
  }
}

}  // namespace uactor::pubsub
