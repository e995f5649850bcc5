#include "pubsub/writer_group.hpp"

#include <charconv>

namespace uactor::pubsub {

writer_group_state::writer_group_state(std::string publisher_id, writer_group_config group,
                                       std::vector<resolved_writer> writers, std::string message_id_prefix,
                                       message_encoding encoding, publisher_id_type id_type)
    : publisher_(std::move(publisher_id)), group_(std::move(group)), id_prefix_(std::move(message_id_prefix)),
      encoding_(encoding) {
  writers_.reserve(writers.size());
  for (auto& w : writers) {
    writer_state s;
    s.values.resize(w.fields.size());
    s.changed.assign(w.fields.size(), false);
    for (const auto& f : w.fields) s.raw_types.push_back({f.type, f.value_rank >= 1});
    s.spec = std::move(w);
    writers_.push_back(std::move(s));
  }
  message_id_.reserve(id_prefix_.size() + 24);
  limit_ = group_.max_network_message_size;
  if (!make_publisher_id(publisher_, id_type, uadp_publisher_)) make_publisher_id(publisher_, publisher_id_type::string, uadp_publisher_);
}

void writer_group_state::set(std::size_t w, std::size_t f, const ua::data_value& v) {
  if (w >= writers_.size() || f >= writers_[w].values.size()) return;
  auto& s = writers_[w];
  s.values[f] = v;  // the stored value's storage is reused for scalars
  if (!s.changed[f]) ++s.changed_count;
  s.changed[f] = true;
  s.any_changed = true;
}

bool writer_group_state::due(writer_state& s, ua::date_time now, dataset_message_type& type) const {
  const std::int64_t keep_alive_ticks = group_.keep_alive_time.count() * 10'000;
  const auto& cfg = s.spec.config;
  const std::uint32_t k = cfg.key_frame_count == 0 ? 1 : cfg.key_frame_count;
  const bool key = s.cycles % k == 0;
  ++s.cycles;
  if (key) type = dataset_message_type::key_frame;
  else if (s.any_changed) type = dataset_message_type::delta_frame;
  else if (keep_alive_ticks > 0 && now.ticks - s.last_sent_ticks >= keep_alive_ticks) type = dataset_message_type::keep_alive;
  else return false;
  return true;
}

cycle_result writer_group_state::cycle(ua::date_time now) {
  return encoding_ == message_encoding::uadp ? cycle_uadp(now) : cycle_json(now);
}

namespace {
// Status of the DataSet: the worst of its fields' (Part 14 §7.2.5.4, §7.2.4.5.4).
ua::status_code writer_group_worst_status(const std::vector<ua::data_value>& values) {
  ua::status_code worst;
  for (const auto& v : values)
    if (v.has_status && (v.status.value() >> 30) > (worst.value() >> 30)) worst = ua::status_code(v.status.code());
  return worst;
}
}  // namespace

cycle_result writer_group_state::cycle_json(ua::date_time now) {
  cycle_result res;
  bool begun = false;
  for (auto& s : writers_) {
    const auto& cfg = s.spec.config;
    dataset_message_type type;
    if (!due(s, now, type)) continue;
    if (!begun) {
      // MessageId: unique per publisher start (the prefix) and message.
      message_id_.assign(id_prefix_);
      message_id_ += '-';
      char buf[24];
      const auto r = std::to_chars(buf, buf + sizeof buf, ++message_counter_);
      message_id_.append(buf, r.ptr);
      out_.begin(message_id_, publisher_, group_.name);
      begun = true;
    }
    dataset_message_header h;
    h.writer_id = cfg.id;
    h.writer_name = cfg.name;
    h.sequence_number = ++s.sequence;
    h.timestamp = now;
    h.type = type;
    h.version = version_;
    h.status = writer_group_worst_status(s.values);
    out_.begin_dataset(h);
    if (type != dataset_message_type::keep_alive) {
      for (std::size_t f = 0; f < s.values.size(); ++f) {
        if (type == dataset_message_type::delta_frame && !s.changed[f]) continue;
        out_.field(s.spec.fields[f].name, s.values[f], cfg.encoding);
        ++res.values;
      }
    }
    out_.end_dataset();
    std::fill(s.changed.begin(), s.changed.end(), false);
    s.changed_count = 0;
    s.any_changed = false;
    s.last_sent_ticks = now.ticks;
    ++res.dataset_messages;
    if (type == dataset_message_type::key_frame) ++res.key_frames;
    else if (type == dataset_message_type::delta_frame) ++res.delta_frames;
    else ++res.keep_alives;
  }
  if (begun) {
    res.message = out_.finish();
    messages_.assign(1, res.message);
    res.messages = messages_;
  }
  return res;
}

cycle_result writer_group_state::cycle_uadp(ua::date_time now) {
  cycle_result res;
  bool begun = false;
  for (auto& s : writers_) {
    const auto& cfg = s.spec.config;
    dataset_message_type type;
    if (!due(s, now, type)) continue;
    // Part 14 §7.2.4.5.6: a delta frame larger than the key frame is sent as the key frame; with
    // every field changed it would be.
    if (type == dataset_message_type::delta_frame && s.changed_count == s.values.size()) type = dataset_message_type::key_frame;
    if (!begun) {
      // NetworkMessageNumber and SequenceNumber per NetworkMessage: finish_within numbers them.
      uadp_message_writer::group_header g;
      g.writer_group_id = group_.id;
      g.group_version = version_.major;
      uadp_.begin(uadp_publisher_, g);
      begun = true;
    }
    dataset_message_header h;
    h.writer_id = cfg.id;
    // §7.2.4.5.8: a keep-alive carries the next expected sequence number and does not use it up.
    h.sequence_number = type == dataset_message_type::keep_alive ? s.sequence + 1 : ++s.sequence;
    h.timestamp = now;
    h.type = type;
    h.version = version_;
    h.status = writer_group_worst_status(s.values);
    uadp_.begin_dataset(h, cfg.encoding);
    if (type != dataset_message_type::keep_alive) {
      for (std::size_t f = 0; f < s.values.size(); ++f) {
        if (type == dataset_message_type::delta_frame && !s.changed[f]) continue;
        uadp_.field(static_cast<std::uint16_t>(f), s.values[f], s.raw_types[f]);
        ++res.values;
      }
    }
    uadp_.end_dataset();
    std::fill(s.changed.begin(), s.changed.end(), false);
    s.changed_count = 0;
    s.any_changed = false;
    s.last_sent_ticks = now.ticks;
    ++res.dataset_messages;
    if (type == dataset_message_type::key_frame) ++res.key_frames;
    else if (type == dataset_message_type::delta_frame) ++res.delta_frames;
    else ++res.keep_alives;
  }
  if (begun) {
    // Part 14 §7.2.4.5.3 / §7.2.4.4.4: as many NetworkMessages as the limit needs, chunks for a
    // DataSetMessage that does not fit one.
    if (!uadp_.finish_within(limit_, uadp_sequence_, uadp_parts_)) {
      res.error = uadp_.error();
      return res;
    }
    messages_.clear();
    for (const auto& p : uadp_parts_) messages_.emplace_back(reinterpret_cast<const char*>(p.data()), p.size());
    res.message = messages_.front();
    res.messages = messages_;
  }
  return res;
}

void writer_group_state::metadata(std::size_t w, ua::date_time now, std::string& out) {
  const auto& s = writers_.at(w);
  metadata_message m;
  m.message_id = id_prefix_ + "-md-" + std::to_string(s.spec.config.id);
  m.publisher_id = publisher_;
  m.writer_id = s.spec.config.id;
  m.writer_group_name = group_.name;
  m.writer_name = s.spec.config.name;
  m.timestamp = now;
  m.version = version_;
  m.dataset_name = s.spec.config.dataset_name.empty() ? s.spec.config.name : s.spec.config.dataset_name;
  for (const auto& f : s.spec.fields) m.fields.push_back({f.name, f.type, f.value_rank, f.data_type});
  write_metadata_message(out, m);
}

}  // namespace uactor::pubsub
