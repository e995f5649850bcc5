// libFuzzer target for PubSub's JSON decoder (pubsub/json_messages.hpp, Part 14 §7.2.5): whatever an
// MQTT broker hands a subscriber. Any text is read as a NetworkMessage (or DataSetMessages without
// the network header) and as a DataSetMetaData message within the limits, or refused with a Bad
// status and its place; never a crash, an over-read, a leak or a loop (ASan/UBSan). What is read
// writes back (json_message_writer, reversible Variants) to text that reads again to as many
// DataSetMessages and fields.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "pubsub/json_messages.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace uactor::pubsub;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  decode_limits limits;
  limits.json.max_bytes = 64 * 1024;
  limits.json.max_depth = 16;
  limits.json.max_values = 4096;
  limits.json.max_string_bytes = 4096;
  limits.max_dataset_messages = 64;
  limits.max_fields = 256;
  json_reader reader(limits.json);
  decoded_network_message n;
  json_error e;
  const auto refused_well = [&](const json_error& err) {
    if (!err.status.is_bad()) std::abort();
    if (err.offset > size) std::abort();
    if (err.what.empty()) std::abort();
  };
  if (!read_network_message(reader, text, limits, n, e)) {
    refused_well(e);
  } else {
    json_message_writer w;
    w.begin(n.message_id, n.publisher_id, n.writer_group_name);
    std::size_t fields = 0;
    for (const auto& m : n.messages) {
      dataset_message_header h;
      h.writer_id = m.writer_id.value_or(0);
      h.sequence_number = m.sequence_number.value_or(0);
      h.type = m.type;
      w.begin_dataset(h);
      for (const auto& f : m.fields) w.field(f.name, f.value, field_encoding::data_value);
      if (m.type != dataset_message_type::keep_alive) fields += m.fields.size();
      w.end_dataset();
    }
    const std::string again(w.finish());
    decode_limits roomy;
    roomy.json.max_bytes = 16 << 20;
    roomy.json.max_string_bytes = 1 << 20;
    roomy.json.max_values = 1 << 20;
    json_reader r2(roomy.json);
    decoded_network_message n2;
    json_error e2;
    if (!read_network_message(r2, again, roomy, n2, e2)) std::abort();
    if (n2.messages.size() != n.messages.size()) std::abort();
    std::size_t fields2 = 0;
    for (const auto& m : n2.messages) fields2 += m.fields.size();
    if (fields2 != fields) std::abort();
  }
  metadata_message md;
  if (!read_metadata_message(reader, text, md, e)) refused_well(e);
  return 0;
}
