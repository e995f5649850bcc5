#include "pubsub/dataset_reader.hpp"

#include "uactor/ua/status_codes.hpp"

namespace uactor::pubsub {

dataset_reader_state::dataset_reader_state(dataset_reader_config config, std::vector<ua::builtin_type> target_types)
    : config_(std::move(config)), types_(std::move(target_types)) {
  types_.resize(config_.targets.size(), ua::builtin_type::null);
}

bool dataset_reader_state::accepts(const decoded_network_message& n, const decoded_dataset_message& m) const noexcept {
  const std::string& publisher = n.publisher_id.empty() ? m.publisher_id : n.publisher_id;
  if (!config_.publisher_id.empty() && publisher != config_.publisher_id) return false;
  if (!config_.writer_group.empty() && n.writer_group_name != config_.writer_group) return false;
  // Part 14 §6.2.9: a DataSetWriterId of 0 passes every message.
  if (config_.writer_id != 0 && m.writer_id.value_or(0) != config_.writer_id) return false;
  return true;
}

void dataset_reader_state::take(const decoded_dataset_message& m, std::int64_t now_ms, std::vector<target_write>& out) {
  if (m.sequence_number) {
    // Part 14 §6.2.9.6: new when the sequence number increments (modulo 2^32, half the range ahead).
    if (last_sequence_) {
      const std::uint32_t ahead = *m.sequence_number - *last_sequence_;
      if (ahead == 0 || ahead > 0x8000'0000u) {
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
    for (std::uint32_t t = 0; t < config_.targets.size(); ++t) {
      if (config_.targets[t].field != f.name) continue;
      target_write w{t, f.value};
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
      out.push_back(std::move(w));
    }
  }
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
