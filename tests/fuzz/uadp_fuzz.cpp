// libFuzzer target for PubSub's UADP decoder (pubsub/uadp_messages.hpp, Part 14 §7.2.4): whatever a
// UDP socket hands a subscriber. Any bytes are read as a NetworkMessage within small limits, and
// each DataSetMessage's fields without RawData types and with a few; a refusal has a Bad status, a
// place within the input and a reason; never a crash, an over-read, a leak or a loop (ASan/UBSan).
// What is read writes back (uadp_message_writer, DataValue fields) to bytes that read again to as
// many DataSetMessages and fields. A chunk (§7.2.4.4.4) goes through a small reassembler; a
// payload it completes (a chunk that is the whole DataSetMessage) is read as a DataSetMessage.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "pubsub/uadp_chunks.hpp"
#include "pubsub/uadp_messages.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace uactor;
  using namespace uactor::pubsub;
  const std::span<const std::uint8_t> in(data, size);
  uadp_limits limits;
  limits.max_message_size = 16 * 1024;
  limits.max_dataset_messages = 32;
  limits.max_fields = 256;
  limits.max_string = 1024;
  limits.max_array = 256;
  limits.max_depth = 8;
  const auto refused_well = [&](const uadp_error& e) {
    if (!e.status.is_bad()) std::abort();
    if (e.offset > size) std::abort();
    if (e.what.empty()) std::abort();
  };
  uadp_network_message n;
  uadp_error e;
  if (!read_uadp_network_message(in, limits, n, e)) {
    refused_well(e);
    return 0;
  }
  const std::vector<uadp_raw_type> raw = {{ua::builtin_type::uint32, false},
                                          {ua::builtin_type::double_, false},
                                          {ua::builtin_type::string, false},
                                          {ua::builtin_type::int16, true}};
  if (n.chunk) {
    const auto& c = *n.chunk;
    if (c.data.empty() || c.data.data() < data || c.data.data() + c.data.size() > data + size) std::abort();
    if (static_cast<std::uint64_t>(c.offset) + c.data.size() > c.total_size) std::abort();
    uadp_chunk_limits cl;
    cl.max_total_size = 4096;
    uadp_chunk_assembler a(cl);
    const auto got = a.add(n.publisher_id ? n.publisher_id->to_text() : "", n.writer_group_id.value_or(0), c, 0, e);
    if (got == uadp_chunk_assembler::outcome::refused) {
      refused_well(e);
      return 0;
    }
    // The same bytes twice overlap: refused, never taken twice.
    if (got == uadp_chunk_assembler::outcome::partial &&
        a.add(n.publisher_id ? n.publisher_id->to_text() : "", n.writer_group_id.value_or(0), c, 0, e) !=
            uadp_chunk_assembler::outcome::refused)
      std::abort();
    if (got != uadp_chunk_assembler::outcome::complete) return 0;
    if (a.payload().size() != c.total_size) std::abort();
    uadp_dataset_message m;
    if (!read_uadp_dataset_message(a.payload(), c.writer_id, m, e)) return 0;
    std::vector<decoded_field> fields;
    if (!read_uadp_fields(m, raw, limits, fields, e) && !e.status.is_bad()) std::abort();
    return 0;
  }
  uadp_message_writer w;
  uadp_message_writer::group_header g;
  g.writer_group_id = n.writer_group_id.value_or(0);
  w.begin(n.publisher_id.value_or(uadp_publisher_id{}), g);
  std::vector<decoded_field> fields;
  std::vector<std::size_t> counts;
  for (const auto& m : n.messages) {
    if (m.body.data() && (m.body.data() < data || m.body.data() + m.body.size() > data + size)) std::abort();
    if (!read_uadp_fields(m, {}, limits, fields, e)) refused_well(e);
    if (!read_uadp_fields(m, raw, limits, fields, e)) {
      refused_well(e);
      continue;
    }
    dataset_message_header h;
    h.writer_id = m.writer_id;
    h.type = m.type;
    w.begin_dataset(h, field_encoding::data_value);
    for (const auto& f : fields) w.field(static_cast<std::uint16_t>(f.index), f.value, {});
    w.end_dataset();
    counts.push_back(m.type == dataset_message_type::keep_alive ? 0 : fields.size());
  }
  if (counts.empty()) return 0;
  const auto again = w.finish();
  if (again.empty()) return 0;  // more than the Sizes can say: refused by the writer, with its reason
  uadp_limits roomy;
  roomy.max_message_size = 1 << 24;
  uadp_network_message n2;
  if (!read_uadp_network_message(again, roomy, n2, e)) std::abort();
  if (n2.messages.size() != counts.size()) std::abort();
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (!read_uadp_fields(n2.messages[i], {}, roomy, fields, e)) std::abort();
    if (fields.size() != counts[i]) std::abort();
  }
  return 0;
}
