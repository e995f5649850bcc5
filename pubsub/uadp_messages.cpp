#include "pubsub/uadp_messages.hpp"

#include <charconv>
#include <cstring>
#include <variant>

#include "uactor/ua/status_codes.hpp"

namespace uactor::pubsub {

namespace {

// Part 14 §7.2.4.4.2, Table 154.
constexpr std::uint8_t uadp_flag_publisher_id = 0x10;
constexpr std::uint8_t uadp_flag_group_header = 0x20;
constexpr std::uint8_t uadp_flag_payload_header = 0x40;
constexpr std::uint8_t uadp_flag_extended1 = 0x80;
constexpr std::uint8_t ext1_class_id = 0x08;
constexpr std::uint8_t ext1_security = 0x10;
constexpr std::uint8_t ext1_timestamp = 0x20;
constexpr std::uint8_t ext1_picoseconds = 0x40;
constexpr std::uint8_t ext1_extended2 = 0x80;
constexpr std::uint8_t ext2_chunk = 0x01;
constexpr std::uint8_t ext2_promoted_fields = 0x02;
// §7.2.4.4.3, the GroupHeader's GroupFlags.
constexpr std::uint8_t group_writer_group_id = 0x01;
constexpr std::uint8_t group_version = 0x02;
constexpr std::uint8_t group_network_message_number = 0x04;
constexpr std::uint8_t group_sequence_number = 0x08;
// §7.2.4.5.4, Table 162: DataSetFlags1 and DataSetFlags2.
constexpr std::uint8_t ds1_valid = 0x01;
constexpr std::uint8_t ds1_sequence_number = 0x08;
constexpr std::uint8_t ds1_status = 0x10;
constexpr std::uint8_t ds1_major_version = 0x20;
constexpr std::uint8_t ds1_minor_version = 0x40;
constexpr std::uint8_t ds1_flags2 = 0x80;
constexpr std::uint8_t ds2_timestamp = 0x10;
constexpr std::uint8_t ds2_picoseconds = 0x20;
// DataSetFlags2 bits 0-3: the DataSetMessage type.
constexpr std::uint8_t uadp_type_key_frame = 0, uadp_type_delta_frame = 1, uadp_type_event = 2, uadp_type_keep_alive = 3;

std::uint8_t uadp_encoding_bits(field_encoding e) {
  switch (e) {
    case field_encoding::variant: return 0;
    case field_encoding::raw: return 1;
    case field_encoding::data_value: return 2;
  }
  return 0;
}

std::uint8_t uadp_type_bits(dataset_message_type t) {
  switch (t) {
    case dataset_message_type::key_frame: return uadp_type_key_frame;
    case dataset_message_type::delta_frame: return uadp_type_delta_frame;
    case dataset_message_type::keep_alive: return uadp_type_keep_alive;
  }
  return uadp_type_key_frame;
}

template <class T>
void uadp_put(ua::byte_buffer& b, T v) {
  std::memcpy(b.extend(sizeof v), &v, sizeof v);
}

void uadp_put_publisher_id(ua::byte_buffer& b, const uadp_publisher_id& p) {
  switch (p.type) {
    case publisher_id_type::byte: uadp_put(b, static_cast<std::uint8_t>(p.number)); break;
    case publisher_id_type::uint16: uadp_put(b, static_cast<std::uint16_t>(p.number)); break;
    case publisher_id_type::uint32: uadp_put(b, static_cast<std::uint32_t>(p.number)); break;
    case publisher_id_type::uint64: uadp_put(b, p.number); break;
    case publisher_id_type::string:
      uadp_put(b, static_cast<std::int32_t>(p.text.size()));
      b.append(p.text.data(), p.text.size());
      break;
  }
}

// The RawData encoding of one value: the value's own encoding without the Variant's mask (a
// Structure field's, Part 14 §7.2.4.5.11). A value of another type than the metadata's (none
// yet, or a Bad one) goes as the type's default, so that the positions stay fixed.
template <std::size_t I>
void uadp_encode_default(ua::encoder& e) {
  using alternative = std::variant_alternative_t<I, ua::variant::storage>;
  if constexpr (std::is_same_v<alternative, std::monostate>) {
    return;
  } else if constexpr (requires(const alternative& a) { *a; a.operator->(); }) {
    ua::encode(e, *alternative{});  // boxed DataValue / Variant / DiagnosticInfo
  } else {
    ua::encode(e, alternative{});
  }
}
template <std::size_t... I>
void uadp_encode_default_by_index(ua::encoder& e, std::size_t index, std::index_sequence<I...>) {
  using fn = void (*)(ua::encoder&);
  static constexpr fn table[] = {&uadp_encode_default<I>...};
  table[index](e);
}

void uadp_encode_raw(ua::encoder& e, const ua::data_value& v, const uadp_raw_type& raw) {
  if (raw.type == ua::builtin_type::null) {  // BaseDataType: a Variant
    ua::encode(e, v.value);
    return;
  }
  if (v.has_value && v.value.type() == raw.type && v.value.is_array() == raw.array) {
    std::visit([&](const auto& x) {
      using T = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<T, std::monostate>) return;
      else if constexpr (requires { *x; x.operator->(); }) ua::encode(e, *x);
      else ua::encode(e, x);
    }, v.value.value());
    return;
  }
  if (raw.array) {
    e.write<std::int32_t>(0);  // an empty array
    return;
  }
  uadp_encode_default_by_index(e, static_cast<std::size_t>(raw.type),
                               std::make_index_sequence<std::variant_size_v<ua::variant::storage>>{});
}

// Part 14 §7.2.4.5.4, field encoding 00: a Bad field is a Variant holding its StatusCode, an
// Uncertain one a Variant holding a DataValue with the value and the status.
void uadp_encode_variant_field(ua::encoder& e, const ua::data_value& v) {
  if (v.has_status && v.status.is_bad()) {
    e.write<std::uint8_t>(static_cast<std::uint8_t>(ua::builtin_type::status_code));
    e.write(v.status.value());
    return;
  }
  if (v.has_status && v.status.is_uncertain()) {
    e.write<std::uint8_t>(static_cast<std::uint8_t>(ua::builtin_type::data_value));
    e.write<std::uint8_t>(static_cast<std::uint8_t>((v.has_value ? 0x01 : 0) | 0x02));
    if (v.has_value) ua::encode(e, v.value);
    e.write(v.status.value());
    return;
  }
  ua::encode(e, v.value);
}

}  // namespace

std::string uadp_publisher_id::to_text() const {
  return type == publisher_id_type::string ? text : std::to_string(number);
}

bool make_publisher_id(std::string_view text, publisher_id_type type, uadp_publisher_id& out) {
  out = {};
  out.type = type;
  if (type == publisher_id_type::string) {
    out.text = std::string(text);
    return true;
  }
  std::uint64_t n = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size()) return false;
  const std::uint64_t max = type == publisher_id_type::byte     ? 0xFFu
                            : type == publisher_id_type::uint16 ? 0xFFFFu
                            : type == publisher_id_type::uint32 ? 0xFFFF'FFFFu
                                                                : ~std::uint64_t{0};
  if (n > max) return false;
  out.number = n;
  return true;
}

// ---- writing ------------------------------------------------------------------------------

void uadp_message_writer::begin(const uadp_publisher_id& publisher, const group_header& group) {
  publisher_.type = publisher.type;
  publisher_.number = publisher.number;
  publisher_.text.assign(publisher.text);  // keeps its capacity
  group_ = group;
  payload_.clear();
  writer_ids_.clear();
  sizes_.clear();
  dsm_sequences_.clear();
  starts_.clear();
  error_.clear();
}

void uadp_message_writer::begin_dataset(const dataset_message_header& h, field_encoding e) {
  encoding_ = e;
  type_ = h.type;
  fields_ = 0;
  dataset_start_ = payload_.size();
  writer_ids_.push_back(h.writer_id);
  starts_.push_back(dataset_start_);
  dsm_sequences_.push_back(static_cast<std::uint16_t>(h.sequence_number));
  // Part 14 §7.2.4.5.4, Table 162, in its order.
  uadp_put(payload_, static_cast<std::uint8_t>(ds1_valid | (uadp_encoding_bits(e) << 1) | ds1_sequence_number | ds1_status |
                                               ds1_major_version | ds1_minor_version | ds1_flags2));
  uadp_put(payload_, static_cast<std::uint8_t>(uadp_type_bits(h.type) | ds2_timestamp));
  uadp_put(payload_, static_cast<std::uint16_t>(h.sequence_number));
  uadp_put(payload_, h.timestamp.ticks);
  uadp_put(payload_, static_cast<std::uint16_t>(h.status.value() >> 16));  // the StatusCode's high half
  uadp_put(payload_, h.version.major);
  uadp_put(payload_, h.version.minor);
  count_at_ = payload_.size();
  // §7.2.4.5.5: a key frame's FieldCount is left out with RawData; §7.2.4.5.6: a delta frame has one.
  const bool counted = h.type == dataset_message_type::delta_frame ||
                       (h.type == dataset_message_type::key_frame && e != field_encoding::raw);
  if (counted) uadp_put(payload_, std::uint16_t{0});
  else count_at_ = SIZE_MAX;
}

void uadp_message_writer::field(std::uint16_t index, const ua::data_value& v, const uadp_raw_type& raw) {
  if (type_ == dataset_message_type::keep_alive) return;
  ua::encoder e(payload_);
  if (type_ == dataset_message_type::delta_frame) e.write(index);
  switch (encoding_) {
    case field_encoding::variant: uadp_encode_variant_field(e, v); break;
    case field_encoding::data_value: ua::encode(e, v); break;
    case field_encoding::raw: uadp_encode_raw(e, v, raw); break;
  }
  ++fields_;
}

void uadp_message_writer::end_dataset() {
  if (count_at_ != SIZE_MAX) std::memcpy(payload_.data() + count_at_, &fields_, sizeof fields_);
  sizes_.push_back(payload_.size() - dataset_start_);
}

std::size_t uadp_message_writer::header_size(std::size_t count) const noexcept {
  const bool ext1 = publisher_.type != publisher_id_type::byte;
  std::size_t n = 1 + (ext1 ? 1 : 0);
  switch (publisher_.type) {
    case publisher_id_type::byte: n += 1; break;
    case publisher_id_type::uint16: n += 2; break;
    case publisher_id_type::uint32: n += 4; break;
    case publisher_id_type::uint64: n += 8; break;
    case publisher_id_type::string: n += 4 + publisher_.text.size(); break;
  }
  n += 1 + 2 + 4 + 2 + 2;             // GroupHeader
  n += 1 + 2 * count;                 // PayloadHeader
  if (count > 1) n += 2 * count;      // Sizes
  return n;
}

std::size_t uadp_message_writer::chunk_header_size() const noexcept {
  // ExtendedFlags1 and ExtendedFlags2 always (the chunk flag is in the second); the chunked
  // payload header is the DataSetWriterId alone (Table 141); then MessageSequenceNumber,
  // ChunkOffset, TotalSize and ChunkData's length (Table 142).
  const std::size_t plain = header_size(1) - 1 - 2;  // without the PayloadHeader's Count and id
  return plain + (publisher_.type == publisher_id_type::byte ? 1 : 0) + 1 + 2 + 2 + 4 + 4 + 4;
}

void uadp_message_writer::put_header(std::uint16_t number, std::uint16_t sequence, bool chunk) {
  const bool ext1 = chunk || publisher_.type != publisher_id_type::byte;
  uadp_put(out_, static_cast<std::uint8_t>(uadp_version | uadp_flag_publisher_id | uadp_flag_group_header |
                                           uadp_flag_payload_header | (ext1 ? uadp_flag_extended1 : 0)));
  if (ext1) uadp_put(out_, static_cast<std::uint8_t>(static_cast<std::uint8_t>(publisher_.type) | (chunk ? ext1_extended2 : 0)));
  if (chunk) uadp_put(out_, ext2_chunk);
  uadp_put_publisher_id(out_, publisher_);
  // GroupHeader (§7.2.4.4.3).
  uadp_put(out_, static_cast<std::uint8_t>(group_writer_group_id | group_version | group_network_message_number |
                                           group_sequence_number));
  uadp_put(out_, group_.writer_group_id);
  uadp_put(out_, group_.group_version);
  uadp_put(out_, number);
  uadp_put(out_, sequence);
}

void uadp_message_writer::put_messages(std::size_t first, std::size_t last, std::uint16_t number, std::uint16_t sequence) {
  const std::size_t count = last - first;
  put_header(number, sequence, false);
  // PayloadHeader (§7.2.4.5.2), then the Sizes when there are several (§7.2.4.5.3).
  uadp_put(out_, static_cast<std::uint8_t>(count));
  for (std::size_t i = first; i < last; ++i) uadp_put(out_, writer_ids_[i]);
  if (count > 1)
    for (std::size_t i = first; i < last; ++i) uadp_put(out_, static_cast<std::uint16_t>(sizes_[i]));
  const std::size_t end = last < starts_.size() ? starts_[last] : payload_.size();
  out_.append(payload_.data() + starts_[first], end - starts_[first]);
}

std::span<const std::uint8_t> uadp_message_writer::finish() {
  out_.clear();
  const std::size_t count = writer_ids_.size();
  if (count == 0 || count > 255) {
    error_ = count == 0 ? "no DataSetMessage" : "more than 255 DataSetMessages in one NetworkMessage";
    return {};
  }
  if (count > 1)
    for (const auto s : sizes_)
      if (s > 0xFFFF) {
        error_ = "a DataSetMessage of " + std::to_string(s) + " bytes among several (the Sizes are UInt16)";
        return {};
      }
  put_messages(0, count, group_.network_message_number, group_.sequence_number);
  return out_.bytes();
}

bool uadp_message_writer::finish_within(std::size_t limit, std::uint16_t& sequence,
                                        std::vector<std::span<const std::uint8_t>>& out) {
  out_.clear();
  out.clear();
  parts_.clear();
  const std::size_t count = writer_ids_.size();
  if (count == 0) {
    error_ = "no DataSetMessage";
    return false;
  }
  std::uint16_t number = 0;
  const auto close = [&] { parts_.back().second = out_.size() - parts_.back().first; };
  std::size_t first = 0;
  while (first < count) {
    // As many DataSetMessages as fit, in order (Part 14 §7.2.4.5.3: past 65,535 bytes or the
    // limit they go to separate NetworkMessages).
    std::size_t last = first, bytes = 0;
    while (last < count && last - first < 255) {
      const std::size_t n = last - first + 1;
      if (n > 1 && (sizes_[last] > 0xFFFF || sizes_[first] > 0xFFFF)) break;
      if (header_size(n) + bytes + sizes_[last] > limit) break;
      bytes += sizes_[last];
      ++last;
    }
    if (last > first) {
      parts_.push_back({out_.size(), 0});
      put_messages(first, last, ++number, ++sequence);
      close();
      first = last;
      continue;
    }
    // One DataSetMessage that does not fit alone: chunks (§7.2.4.4.4), all of one size but the last.
    const std::size_t overhead = chunk_header_size();
    if (limit <= overhead) {
      error_ = "a chunk NetworkMessage needs more than " + std::to_string(limit) + " bytes (its header is " +
               std::to_string(overhead) + ")";
      out.clear();
      parts_.clear();
      return false;
    }
    const std::size_t piece = limit - overhead, total = sizes_[first];
    for (std::size_t offset = 0; offset < total; offset += piece) {
      const std::size_t len = std::min(piece, total - offset);
      parts_.push_back({out_.size(), 0});
      put_header(++number, ++sequence, true);
      uadp_put(out_, writer_ids_[first]);  // Table 141
      uadp_put(out_, dsm_sequences_[first]);
      uadp_put(out_, static_cast<std::uint32_t>(offset));
      uadp_put(out_, static_cast<std::uint32_t>(total));
      uadp_put(out_, static_cast<std::int32_t>(len));
      out_.append(payload_.data() + starts_[first] + offset, len);
      close();
    }
    ++first;
  }
  for (const auto& [at, size] : parts_) out.push_back(out_.bytes().subspan(at, size));
  return true;
}

// ---- reading ------------------------------------------------------------------------------

std::string uadp_error::to_string() const {
  return "at byte " + std::to_string(offset) + ": " + what;
}

namespace {

// A bounded cursor: every read checks what is left first, and a failure says where and what.
struct uadp_cursor {
  std::span<const std::uint8_t> in;
  std::size_t at = 0;
  std::size_t base = 0;  // offset of `in` in the NetworkMessage
  uadp_error* error = nullptr;

  std::size_t left() const noexcept { return in.size() - at; }
  bool fail(ua::status_code sc, std::string what) {
    error->status = sc;
    error->offset = base + at;
    error->what = std::move(what);
    return false;
  }
  bool need(std::size_t n, const char* what) {
    if (left() >= n) return true;
    return fail(ua::status::bad_decoding_error, std::string("truncated: ") + what + " needs " + std::to_string(n) +
                                                    " bytes, " + std::to_string(left()) + " left");
  }
  template <class T>
  bool get(T& v, const char* what) {
    if (!need(sizeof v, what)) return false;
    std::memcpy(&v, in.data() + at, sizeof v);
    at += sizeof v;
    return true;
  }
};

template <std::size_t I>
void uadp_decode_alternative(ua::decoder& d, ua::variant& v) {
  using alternative = std::variant_alternative_t<I, ua::variant::storage>;
  if constexpr (std::is_same_v<alternative, std::monostate>) {
    v.clear();
  } else if constexpr (requires(alternative& a) { *a; a.operator->(); }) {
    ua::decode(d, *v.emplace<alternative>());
  } else {
    ua::decode(d, v.emplace<alternative>());
  }
}
template <std::size_t... I>
void uadp_decode_by_index(ua::decoder& d, ua::variant& v, std::size_t index, std::index_sequence<I...>) {
  using fn = void (*)(ua::decoder&, ua::variant&);
  static constexpr fn table[] = {&uadp_decode_alternative<I>...};
  table[index](d, v);
}

// Everything of a reused DataValue but its value (whose storage the decode reuses).
void uadp_reset_data_value(ua::data_value& out) {
  out.status = {};
  out.has_status = out.has_source_timestamp = out.has_server_timestamp = false;
  out.has_source_picoseconds = out.has_server_picoseconds = false;
}

void uadp_decode_raw(ua::decoder& d, const uadp_raw_type& raw, ua::data_value& out) {
  uadp_reset_data_value(out);
  if (raw.type == ua::builtin_type::null) {
    ua::decode(d, out.value);
  } else {
    const auto index = static_cast<std::size_t>(raw.type) + (raw.array ? ua::variant::array_offset : 0);
    uadp_decode_by_index(d, out.value, index, std::make_index_sequence<std::variant_size_v<ua::variant::storage>>{});
  }
  out.has_value = true;
}

// §7.2.4.5.4, field encoding 00: a Variant holding a Bad StatusCode stands for the field's status,
// one holding a DataValue for its value and (Uncertain) status; a null Variant is a field without
// a value (a publisher that has none yet), which readers write as Bad_NoData.
void uadp_decode_variant_field(ua::decoder& d, ua::data_value& out) {
  uadp_reset_data_value(out);
  ua::decode(d, out.value);
  out.has_value = !out.value.empty();
  if (const auto* sc = out.value.get_if<ua::status_code>(); sc && sc->is_bad()) {
    out.status = *sc;
    out.has_status = true;
    out.value.clear();
    out.has_value = false;
  } else if (auto* dv = out.value.get_if<ua::boxed<ua::data_value>>()) {
    ua::data_value inner = std::move(**dv);
    out = std::move(inner);
  }
}

// A DataSetMessage's header (Part 14 §7.2.4.5.4, Table 162) from `d`; its body is the rest.
bool uadp_read_dataset_header(uadp_cursor& d, uadp_dataset_message& m) {
  std::uint8_t f1 = 0, f2 = 0;
  if (!d.get(f1, "DataSetFlags1")) return false;
  m.valid = f1 & ds1_valid;
  const int encoding = (f1 >> 1) & 0x03;
  if (encoding == 3) return d.fail(ua::status::bad_decoding_error, "field encoding 11 is reserved (DataSetFlags1 bits 1-2)");
  m.encoding = encoding == 0 ? field_encoding::variant : encoding == 1 ? field_encoding::raw : field_encoding::data_value;
  if ((f1 & ds1_flags2) && !d.get(f2, "DataSetFlags2")) return false;
  switch (f2 & 0x0F) {
    case uadp_type_key_frame: m.type = dataset_message_type::key_frame; break;
    case uadp_type_delta_frame: m.type = dataset_message_type::delta_frame; break;
    case uadp_type_keep_alive: m.type = dataset_message_type::keep_alive; break;
    case uadp_type_event:
      return d.fail(ua::status::bad_not_supported, "an Event DataSetMessage: events are not read");
    default:
      return d.fail(ua::status::bad_decoding_error, "DataSetMessage type " + std::to_string(f2 & 0x0F) + " is reserved");
  }
  m.sequence_number.reset();
  m.timestamp.reset();
  m.picoseconds = 0;
  m.status = {};
  m.major_version.reset();
  m.minor_version.reset();
  if (f1 & ds1_sequence_number) {
    std::uint16_t v = 0;
    if (!d.get(v, "DataSetMessageSequenceNumber")) return false;
    m.sequence_number = v;
  }
  if (f2 & ds2_timestamp) {
    ua::date_time t;
    if (!d.get(t.ticks, "the DataSetMessage's Timestamp")) return false;
    m.timestamp = t;
  }
  if ((f2 & ds2_picoseconds) && !d.get(m.picoseconds, "the DataSetMessage's PicoSeconds")) return false;
  if (f1 & ds1_status) {
    std::uint16_t v = 0;
    if (!d.get(v, "the DataSetMessage's Status")) return false;
    m.status = ua::status_code(static_cast<std::uint32_t>(v) << 16);
  }
  std::uint32_t v32 = 0;
  if (f1 & ds1_major_version) {
    if (!d.get(v32, "ConfigurationVersion's MajorVersion")) return false;
    m.major_version = v32;
  }
  if (f1 & ds1_minor_version) {
    if (!d.get(v32, "ConfigurationVersion's MinorVersion")) return false;
    m.minor_version = v32;
  }
  m.body = d.in.subspan(d.at);
  m.body_offset = d.base + d.at;
  return true;
}

}  // namespace

bool read_uadp_network_message(std::span<const std::uint8_t> in, const uadp_limits& limits, uadp_network_message& out,
                               uadp_error& error) {
  out.publisher_id.reset();
  out.dataset_class_id.reset();
  out.writer_group_id.reset();
  out.group_version.reset();
  out.network_message_number.reset();
  out.sequence_number.reset();
  out.timestamp.reset();
  out.picoseconds.reset();
  out.messages.clear();
  out.chunk.reset();
  uadp_cursor c{in, 0, 0, &error};
  if (in.size() > limits.max_message_size)
    return c.fail(ua::status::bad_encoding_limits_exceeded, "a NetworkMessage of " + std::to_string(in.size()) +
                                                                " bytes, more than " + std::to_string(limits.max_message_size));
  std::uint8_t flags = 0, ext1 = 0, ext2 = 0;
  if (!c.get(flags, "UADPVersion/UADPFlags")) return false;
  if ((flags & 0x0F) != uadp_version)
    return c.fail(ua::status::bad_protocol_version_unsupported,
                  "UADPVersion " + std::to_string(flags & 0x0F) + ", this decoder reads version 1");
  if ((flags & uadp_flag_extended1) && !c.get(ext1, "ExtendedFlags1")) return false;
  if ((ext1 & ext1_extended2) && !c.get(ext2, "ExtendedFlags2")) return false;
  if (ext1 & ext1_security)
    return c.fail(ua::status::bad_not_supported, "a secured NetworkMessage (ExtendedFlags1 bit 4): message security is not supported");
  if (const int type = (ext2 >> 2) & 0x07; type != 0)
    return c.fail(ua::status::bad_not_supported,
                  "NetworkMessage type " + std::to_string(type) + " (ExtendedFlags2 bits 2-4): only DataSetMessage payloads are read");
  if (flags & uadp_flag_publisher_id) {
    const int type = ext1 & 0x07;
    if (type > 4) return c.fail(ua::status::bad_decoding_error, "PublisherId type " + std::to_string(type) + " is reserved");
    uadp_publisher_id p;
    p.type = static_cast<publisher_id_type>(type);
    switch (p.type) {
      case publisher_id_type::byte: {
        std::uint8_t v = 0;
        if (!c.get(v, "PublisherId")) return false;
        p.number = v;
        break;
      }
      case publisher_id_type::uint16: {
        std::uint16_t v = 0;
        if (!c.get(v, "PublisherId")) return false;
        p.number = v;
        break;
      }
      case publisher_id_type::uint32: {
        std::uint32_t v = 0;
        if (!c.get(v, "PublisherId")) return false;
        p.number = v;
        break;
      }
      case publisher_id_type::uint64:
        if (!c.get(p.number, "PublisherId")) return false;
        break;
      case publisher_id_type::string: {
        std::int32_t n = 0;
        if (!c.get(n, "PublisherId's length")) return false;
        if (n < -1) return c.fail(ua::status::bad_decoding_error, "PublisherId's length " + std::to_string(n));
        if (n > 0) {
          if (static_cast<std::size_t>(n) > limits.max_string)
            return c.fail(ua::status::bad_encoding_limits_exceeded, "a PublisherId of " + std::to_string(n) + " bytes");
          if (!c.need(static_cast<std::size_t>(n), "PublisherId")) return false;
          p.text.assign(reinterpret_cast<const char*>(in.data() + c.at), static_cast<std::size_t>(n));
          c.at += static_cast<std::size_t>(n);
        }
        break;
      }
    }
    out.publisher_id = std::move(p);
  }
  if (ext1 & ext1_class_id) {
    ua::guid g;
    if (!c.get(g.data1, "DataSetClassId") || !c.get(g.data2, "DataSetClassId") || !c.get(g.data3, "DataSetClassId") ||
        !c.get(g.data4, "DataSetClassId"))
      return false;
    out.dataset_class_id = g;
  }
  if (flags & uadp_flag_group_header) {
    std::uint8_t g = 0;
    if (!c.get(g, "GroupFlags")) return false;
    std::uint16_t u16 = 0;
    std::uint32_t u32 = 0;
    if (g & group_writer_group_id) {
      if (!c.get(u16, "WriterGroupId")) return false;
      out.writer_group_id = u16;
    }
    if (g & group_version) {
      if (!c.get(u32, "GroupVersion")) return false;
      out.group_version = u32;
    }
    if (g & group_network_message_number) {
      if (!c.get(u16, "NetworkMessageNumber")) return false;
      out.network_message_number = u16;
    }
    if (g & group_sequence_number) {
      if (!c.get(u16, "SequenceNumber")) return false;
      out.sequence_number = u16;
    }
  }
  const bool chunk = ext2 & ext2_chunk;
  std::size_t count = 1;
  if (chunk) {
    // §7.2.4.4.4, Table 141: a chunk of a DataSetMessage has the DataSetWriterId as its payload
    // header; without one it would be a chunk of a discovery announcement, which is not read.
    if (!(flags & uadp_flag_payload_header))
      return c.fail(ua::status::bad_not_supported, "a chunk without a payload header (of a discovery message): not read");
    out.chunk.emplace();
    if (!c.get(out.chunk->writer_id, "the chunk's DataSetWriterId")) return false;
  } else if (flags & uadp_flag_payload_header) {
    std::uint8_t n = 0;
    if (!c.get(n, "PayloadHeader's Count")) return false;
    if (n == 0) return c.fail(ua::status::bad_decoding_error, "a PayloadHeader with a Count of 0");
    if (n > limits.max_dataset_messages)
      return c.fail(ua::status::bad_encoding_limits_exceeded, std::to_string(n) + " DataSetMessages, more than " +
                                                                   std::to_string(limits.max_dataset_messages));
    count = n;
    // Each DataSetMessage takes at least its DataSetFlags1 byte: a Count the datagram cannot hold
    // is refused before anything is sized by it.
    if (!c.need(count * 3, "the DataSetWriterIds and their DataSetMessages")) return false;
    out.messages.resize(count);
    for (auto& m : out.messages) c.get(m.writer_id, "DataSetWriterIds");
  } else {
    out.messages.resize(1);
  }
  if (ext1 & ext1_timestamp) {
    ua::date_time t;
    if (!c.get(t.ticks, "Timestamp")) return false;
    out.timestamp = t;
  }
  if (ext1 & ext1_picoseconds) {
    std::uint16_t p = 0;
    if (!c.get(p, "PicoSeconds")) return false;
    out.picoseconds = p;
  }
  if (ext2 & ext2_promoted_fields) {
    // §7.2.4.4.4: Size, then the promoted fields (their values are in the DataSetMessages too).
    std::uint16_t size = 0;
    if (!c.get(size, "PromotedFields' Size") || !c.need(size, "PromotedFields")) return false;
    c.at += size;
  }
  if (chunk) {
    // Table 142: MessageSequenceNumber, ChunkOffset, TotalSize, ChunkData (a ByteString that
    // fills the rest: no security footer is read).
    auto& k = *out.chunk;
    std::int32_t n = 0;
    if (!c.get(k.message_sequence_number, "MessageSequenceNumber") || !c.get(k.offset, "ChunkOffset") ||
        !c.get(k.total_size, "TotalSize") || !c.get(n, "ChunkData's length"))
      return false;
    if (n <= 0 || static_cast<std::size_t>(n) != c.left()) {
      c.at -= 4;
      return c.fail(ua::status::bad_decoding_error, "ChunkData of " + std::to_string(n) + " bytes in a datagram with " +
                                                        std::to_string(c.left() - 4) + " left");
    }
    if (k.total_size == 0 || k.offset >= k.total_size || static_cast<std::size_t>(n) > k.total_size - k.offset) {
      c.at -= 12;
      return c.fail(ua::status::bad_decoding_error, "a chunk of " + std::to_string(n) + " bytes at ChunkOffset " +
                                                        std::to_string(k.offset) + " of a TotalSize of " +
                                                        std::to_string(k.total_size));
    }
    k.data = in.subspan(c.at);
    k.data_offset = c.at;
    return true;
  }
  // Sizes (§7.2.4.5.3) when there are several DataSetMessages, else the one takes the rest.
  const std::size_t sizes_at = c.at;
  if (count > 1) {
    if (!c.need(count * 2, "the DataSetMessages' Sizes")) return false;
    std::size_t total = 0;
    for (std::size_t i = 0; i < count; ++i) {
      std::uint16_t s = 0;
      std::memcpy(&s, in.data() + sizes_at + 2 * i, 2);
      if (s == 0) {
        c.at = sizes_at + 2 * i;
        return c.fail(ua::status::bad_decoding_error, "DataSetMessage " + std::to_string(i) + " has a Size of 0");
      }
      total += s;
    }
    c.at = sizes_at + count * 2;
    if (total != c.left()) {
      c.at = sizes_at;
      return c.fail(ua::status::bad_decoding_error, "the Sizes add up to " + std::to_string(total) + " bytes, the payload has " +
                                                        std::to_string(in.size() - sizes_at - count * 2));
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    auto& m = out.messages[i];
    std::size_t size = c.left();
    if (count > 1) {
      std::uint16_t s = 0;
      std::memcpy(&s, in.data() + sizes_at + 2 * i, 2);
      size = s;
    }
    uadp_cursor d{in.subspan(c.at, size), 0, c.at, &error};
    c.at += size;
    if (!uadp_read_dataset_header(d, m)) return false;
  }
  return true;
}

bool read_uadp_dataset_message(std::span<const std::uint8_t> in, std::uint16_t writer_id, uadp_dataset_message& out,
                               uadp_error& error) {
  uadp_cursor d{in, 0, 0, &error};
  out.writer_id = writer_id;
  return uadp_read_dataset_header(d, out);
}

bool read_uadp_fields(const uadp_dataset_message& m, std::span<const uadp_raw_type> raw_types, const uadp_limits& limits,
                      std::vector<decoded_field>& out, uadp_error& error) {
  uadp_cursor c{m.body, 0, m.body_offset, &error};
  std::size_t count = 0;
  const bool raw = m.encoding == field_encoding::raw;
  if (m.type == dataset_message_type::keep_alive) {
    out.clear();
  } else {
    if (raw && raw_types.empty())
      return c.fail(ua::status::bad_not_supported, "RawData fields, and the reader knows no field types to read them by");
    if (m.type == dataset_message_type::key_frame && raw) {
      count = raw_types.size();
    } else {
      std::uint16_t n = 0;
      if (!c.get(n, "FieldCount")) return false;
      count = n;
    }
    if (count > limits.max_fields)
      return c.fail(ua::status::bad_encoding_limits_exceeded,
                    std::to_string(count) + " fields, more than " + std::to_string(limits.max_fields));
    // A field takes a byte at least (a delta frame's three, with its FieldIndex): a FieldCount the
    // bytes cannot hold is refused before the fields are sized by it.
    const std::size_t least = m.type == dataset_message_type::delta_frame ? 3 : (raw ? 0 : 1);
    if (count * least > c.left()) {
      c.at -= 2;
      return c.fail(ua::status::bad_decoding_error, "a FieldCount of " + std::to_string(count) + " in " +
                                                        std::to_string(c.left() - 2) + " bytes");
    }
  }
  out.resize(count);
  ua::decode_limits dl;
  dl.max_string_length = limits.max_string;
  dl.max_byte_string_length = limits.max_string;
  dl.max_array_length = limits.max_array;
  dl.max_depth = limits.max_depth;
  ua::decoder d(c.in.subspan(c.at), dl);
  const std::size_t fields_at = c.base + c.at;
  for (std::size_t i = 0; i < count; ++i) {
    auto& f = out[i];
    f.name.clear();
    f.index = static_cast<std::uint32_t>(i);
    if (m.type == dataset_message_type::delta_frame) {
      f.index = d.read<std::uint16_t>();
      if (!d.ok()) break;
    }
    switch (m.encoding) {
      case field_encoding::variant: uadp_decode_variant_field(d, f.value); break;
      case field_encoding::data_value: ua::decode(d, f.value); break;
      case field_encoding::raw:
        if (f.index >= raw_types.size()) {
          error.status = ua::status::bad_decoding_error;
          error.offset = fields_at + d.position();
          error.what = "FieldIndex " + std::to_string(f.index) + " of RawData fields beyond the " +
                       std::to_string(raw_types.size()) + " types the reader knows";
          return false;
        }
        uadp_decode_raw(d, raw_types[f.index], f.value);
        break;
    }
    if (!d.ok()) break;
  }
  if (!d.ok()) {
    error.status = d.status();
    error.offset = fields_at + d.position();
    error.what = "field values do not decode (" + d.status().to_string() + ")";
    return false;
  }
  // Padding (§7.2.4.5.5, §7.2.4.5.6): zeros up to a ConfiguredSize; anything else is not ours to guess.
  const std::size_t used = d.position();
  const auto rest = c.in.subspan(c.at + used);
  for (std::size_t i = 0; i < rest.size(); ++i)
    if (rest[i] != 0) {
      error.status = ua::status::bad_decoding_error;
      error.offset = fields_at + used + i;
      error.what = std::to_string(rest.size()) + " bytes after the fields that are not padding";
      return false;
    }
  return true;
}

}  // namespace uactor::pubsub
