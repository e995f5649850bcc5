// Binary codecs of the built-in types (Part 6 §5.2.2).
#include "protocol/codec.hpp"

#include <utility>

namespace uactor::ua {

// ---- String, ByteString, XmlElement (Part 6 §5.2.2.4, §5.2.2.7, §5.2.2.8) -------------------

namespace {

template <class Tag>
void encode_bytes(encoder& e, const nullable_bytes<Tag>& s) {
  if (s.is_null()) { e.write<std::int32_t>(-1); return; }
  e.write(static_cast<std::int32_t>(s.size()));
  e.write(s.data(), s.size());
}

template <class Tag>
void decode_bytes(decoder& d, nullable_bytes<Tag>& s, std::size_t max) {
  const auto n = d.read_length(max, 1);
  if (n < 0) { s.set_null(); return; }
  if (const auto* p = d.take(static_cast<std::size_t>(n))) s.assign(p, static_cast<std::size_t>(n));
}

}  // namespace

void encode(encoder& e, const ua_string& s) { encode_bytes(e, s); }
void decode(decoder& d, ua_string& s) { decode_bytes(d, s, d.limits().max_string_length); }
void encode(encoder& e, const byte_string& s) { encode_bytes(e, s); }
void decode(decoder& d, byte_string& s) { decode_bytes(d, s, d.limits().max_byte_string_length); }
void encode(encoder& e, const xml_element& s) { encode_bytes(e, s); }
void decode(decoder& d, xml_element& s) { decode_bytes(d, s, d.limits().max_string_length); }

// ---- Guid (Part 6 §5.2.2.6) --------------------------------------------------------------

void encode(encoder& e, const guid& g) {
  e.write(g.data1);
  e.write(g.data2);
  e.write(g.data3);
  e.write(g.data4.data(), g.data4.size());
}

void decode(decoder& d, guid& g) {
  g.data1 = d.read<std::uint32_t>();
  g.data2 = d.read<std::uint16_t>();
  g.data3 = d.read<std::uint16_t>();
  if (const auto* p = d.take(8)) std::memcpy(g.data4.data(), p, 8);
}

// ---- NodeId and ExpandedNodeId (Part 6 §5.2.2.9, §5.2.2.10) ------------------------------

namespace {

enum node_id_encoding : std::uint8_t {
  two_byte = 0x00, four_byte = 0x01, numeric = 0x02, string = 0x03, guid_enc = 0x04, byte_string_enc = 0x05,
  namespace_uri_flag = 0x80, server_index_flag = 0x40,  // ExpandedNodeId only
};

// Writes the NodeId with `flags` (the ExpandedNodeId bits) or-ed into its encoding byte.
void encode_node_id(encoder& e, const node_id& n, std::uint8_t flags) {
  const auto ns = n.namespace_index();
  switch (n.type()) {
    case node_id_type::numeric:
      // With a namespace URI or server index the full numeric form is used, as node-opcua does:
      // both are valid (Part 6 §5.2.2.10), and matching it keeps re-encoding byte-exact.
      if (flags == 0 && ns == 0 && n.numeric() <= 0xFF) {
        e.write<std::uint8_t>(two_byte | flags);
        e.write(static_cast<std::uint8_t>(n.numeric()));
      } else if (flags == 0 && ns <= 0xFF && n.numeric() <= 0xFFFF) {
        e.write<std::uint8_t>(four_byte | flags);
        e.write(static_cast<std::uint8_t>(ns));
        e.write(static_cast<std::uint16_t>(n.numeric()));
      } else {
        e.write<std::uint8_t>(numeric | flags);
        e.write(ns);
        e.write(n.numeric());
      }
      return;
    case node_id_type::string:
    case node_id_type::byte_string: {
      e.write<std::uint8_t>((n.type() == node_id_type::string ? string : byte_string_enc) | flags);
      e.write(ns);
      e.write(static_cast<std::int32_t>(n.text().size()));
      e.write(n.text().data(), n.text().size());
      return;
    }
    case node_id_type::guid:
      e.write<std::uint8_t>(guid_enc | flags);
      e.write(ns);
      encode(e, n.guid_value());
      return;
  }
}

// Reads the NodeId whose encoding byte (without the ExpandedNodeId flags) is `enc`.
void decode_node_id_body(decoder& d, node_id& n, std::uint8_t enc) {
  switch (enc) {
    case two_byte: n.set_numeric(0, d.read<std::uint8_t>()); return;
    case four_byte: {
      const auto ns = d.read<std::uint8_t>();
      n.set_numeric(ns, d.read<std::uint16_t>());
      return;
    }
    case numeric: {
      const auto ns = d.read<std::uint16_t>();
      n.set_numeric(ns, d.read<std::uint32_t>());
      return;
    }
    case string:
    case byte_string_enc: {
      const auto ns = d.read<std::uint16_t>();
      const auto max = enc == string ? d.limits().max_string_length : d.limits().max_byte_string_length;
      // A null identifier decodes as empty: a NodeId has no null-string identifier of its own.
      const auto len = d.read_length(max, 1);
      const auto* p = len > 0 ? d.take(static_cast<std::size_t>(len)) : nullptr;
      n.set_string(ns, p ? std::string_view(reinterpret_cast<const char*>(p), static_cast<std::size_t>(len)) : std::string_view{},
                   enc == string ? node_id_type::string : node_id_type::byte_string);
      return;
    }
    case guid_enc: {
      const auto ns = d.read<std::uint16_t>();
      guid g;
      decode(d, g);
      n.set_guid(ns, g);
      return;
    }
    default: d.fail(status::bad_decoding_error);
  }
}

}  // namespace

void encode(encoder& e, const node_id& n) { encode_node_id(e, n, 0); }

void decode(decoder& d, node_id& n) { decode_node_id_body(d, n, d.read<std::uint8_t>()); }

void encode(encoder& e, const expanded_node_id& x) {
  const std::uint8_t flags = (x.namespace_uri.is_null() ? 0 : namespace_uri_flag) |
                             (x.server_index != 0 ? server_index_flag : 0);
  encode_node_id(e, x.id, flags);
  if (!x.namespace_uri.is_null()) encode(e, x.namespace_uri);
  if (x.server_index != 0) e.write(x.server_index);
}

void decode(decoder& d, expanded_node_id& x) {
  const auto enc = d.read<std::uint8_t>();
  decode_node_id_body(d, x.id, enc & 0x3F);
  if (enc & namespace_uri_flag) decode(d, x.namespace_uri);
  else x.namespace_uri.set_null();
  x.server_index = (enc & server_index_flag) ? d.read<std::uint32_t>() : 0;
}

// ---- QualifiedName, LocalizedText (Part 6 §5.2.2.13, §5.2.2.14) ---------------------------

void encode(encoder& e, const qualified_name& q) {
  e.write(q.namespace_index);
  encode(e, q.name);
}

void decode(decoder& d, qualified_name& q) {
  q.namespace_index = d.read<std::uint16_t>();
  decode(d, q.name);
}

void encode(encoder& e, const localized_text& t) {
  const std::uint8_t mask = (t.locale.is_null() ? 0 : 0x01) | (t.text.is_null() ? 0 : 0x02);
  e.write(mask);
  if (mask & 0x01) encode(e, t.locale);
  if (mask & 0x02) encode(e, t.text);
}

void decode(decoder& d, localized_text& t) {
  const auto mask = d.read<std::uint8_t>();
  if (mask & 0x01) decode(d, t.locale); else t.locale.set_null();
  if (mask & 0x02) decode(d, t.text); else t.text.set_null();
}

// ---- ExtensionObject (Part 6 §5.2.2.15) -----------------------------------------------------

void encode(encoder& e, const extension_object& x) {
  encode(e, x.type_id());
  e.write(static_cast<std::uint8_t>(x.body_encoding()));
  if (x.empty()) return;
  if (const auto* body = x.body()) {
    const auto at = e.size();
    e.write<std::int32_t>(0);  // the length, patched once the body is written
    body->encode(e);
    e.patch(at, static_cast<std::int32_t>(e.size() - at - 4));
  } else {
    encode(e, x.raw_body());
  }
}

void decode(decoder& d, extension_object& x) {
  depth_guard guard(d);
  if (!guard) return;
  node_id type_id;
  decode(d, type_id);
  const auto enc = d.read<std::uint8_t>();
  if (!d.ok()) return;
  switch (enc) {
    case 0: x.set_raw(std::move(type_id), extension_object::encoding::none); return;
    case 1: break;
    case 2: {
      x.set_raw(std::move(type_id), extension_object::encoding::xml_element);
      decode(d, x.raw_body());
      return;
    }
    default: d.fail(status::bad_decoding_error); return;
  }
  const extension_type* known =
      type_id.namespace_index() == 0 && type_id.type() == node_id_type::numeric
          ? find_extension_type_by_encoding(type_id.numeric()) : nullptr;
  if (!known) {
    x.set_raw(std::move(type_id), extension_object::encoding::byte_string);
    decode(d, x.raw_body());
    return;
  }
  const auto len = d.read_length(d.limits().max_byte_string_length, 1);
  if (len < 0) {  // a null body of a known type: keep it as it came
    x.set_raw(std::move(type_id), extension_object::encoding::byte_string);
    x.raw_body().set_null();
    return;
  }
  decoder body_decoder = d.sub(static_cast<std::size_t>(len));
  x.body_of_type(*known).decode(body_decoder);
  // The body must be exactly the length the ExtensionObject announced.
  if (body_decoder.ok() && body_decoder.remaining() != 0) body_decoder.fail(status::bad_decoding_error);
  if (!body_decoder.ok()) d.fail(body_decoder.status());
}

// ---- Variant (Part 6 §5.2.2.16) -------------------------------------------------------------

namespace {

constexpr std::uint8_t variant_array_flag = 0x80;
constexpr std::uint8_t variant_dimensions_flag = 0x40;
constexpr std::size_t max_builtin_id = 25;

template <class T> void encode_element(encoder& e, const T& v) { encode(e, v); }
template <class T> void encode_element(encoder& e, const boxed<T>& v) { encode(e, *v); }
template <class T> void decode_element(decoder& d, T& v) { decode(d, v); }
template <class T> void decode_element(decoder& d, boxed<T>& v) { decode(d, *v); }
void decode_element(decoder&, std::monostate&) {}

// Decodes alternative I of the variant's storage, reusing it when already held.
template <std::size_t I>
void decode_alternative(decoder& d, variant& v) {
  using alternative = std::variant_alternative_t<I, variant::storage>;
  decode_element(d, v.emplace<alternative>());
}

template <std::size_t... I>
void decode_by_index(decoder& d, variant& v, std::size_t index, std::index_sequence<I...>) {
  using fn = void (*)(decoder&, variant&);
  static constexpr fn table[] = {&decode_alternative<I>...};
  table[index](d, v);
}

// Product of matrix dimensions, or -1 when one is negative or the product passes Int32 (the
// element count's type). A zero dimension makes it 0 whatever the others are.
std::int64_t element_count(const ua_array<std::int32_t>& dims) {
  for (auto dim : dims) {
    if (dim < 0) return -1;
    if (dim == 0) return 0;
  }
  std::int64_t n = 1;
  for (auto dim : dims) {
    n *= dim;
    if (n > INT32_MAX) return -1;
  }
  return n;
}

}  // namespace

void encode(encoder& e, const variant& v) {
  std::uint8_t mask = static_cast<std::uint8_t>(v.type());
  if (v.is_array()) mask |= variant_array_flag;
  // Part 6 §5.2.2.16: ArrayDimensions only for 2 or more dimensions, all of them above 0 (an
  // empty matrix goes as an empty array).
  const bool dims = v.is_array() && v.dimensions().size() >= 2 && element_count(v.dimensions()) > 0;
  if (dims) mask |= variant_dimensions_flag;
  e.write(mask);
  std::visit([&](const auto& x) {
    if constexpr (!std::is_same_v<std::decay_t<decltype(x)>, std::monostate>) encode_element(e, x);
  }, v.value());
  if (dims) encode(e, v.dimensions());
}

void decode(decoder& d, variant& v) {
  depth_guard guard(d);
  if (!guard) return;
  const auto mask = d.read<std::uint8_t>();
  const std::size_t type = mask & 0x3F;
  const bool array = mask & variant_array_flag;
  const bool dims = mask & variant_dimensions_flag;
  if (type > max_builtin_id || (dims && !array)) { d.fail(status::bad_decoding_error); return; }
  if (type == 0) { v.clear(); return; }  // Part 6 §5.2.2.16: a null Variant is the mask alone
  const auto index = array ? type + variant::array_offset : type;
  decode_by_index(d, v, index, std::make_index_sequence<std::variant_size_v<variant::storage>>{});
  if (!dims) { v.dimensions().clear(); return; }
  decode(d, v.dimensions());
  // Part 6 §5.2.2.16: the dimensions must account for every element.
  const auto count = std::visit([](const auto& x) -> std::int64_t {
    if constexpr (requires { x.size(); x.is_null(); }) return static_cast<std::int64_t>(x.size());
    else return -1;
  }, v.value());
  if (d.ok() && element_count(v.dimensions()) != count) d.fail(status::bad_decoding_error);
}

// ---- DataValue (Part 6 §5.2.2.17) -----------------------------------------------------------

void encode(encoder& e, const data_value& v) {
  const std::uint8_t mask = (v.has_value ? 0x01 : 0) | (v.has_status ? 0x02 : 0) |
                            (v.has_source_timestamp ? 0x04 : 0) | (v.has_server_timestamp ? 0x08 : 0) |
                            (v.has_source_picoseconds ? 0x10 : 0) | (v.has_server_picoseconds ? 0x20 : 0);
  e.write(mask);
  if (v.has_value) encode(e, v.value);
  if (v.has_status) encode(e, v.status);
  if (v.has_source_timestamp) encode(e, v.source_timestamp);
  if (v.has_source_picoseconds) e.write(v.source_picoseconds);
  if (v.has_server_timestamp) encode(e, v.server_timestamp);
  if (v.has_server_picoseconds) e.write(v.server_picoseconds);
}

void decode(decoder& d, data_value& v) {
  const auto mask = d.read<std::uint8_t>();
  v.has_value = mask & 0x01;
  v.has_status = mask & 0x02;
  v.has_source_timestamp = mask & 0x04;
  v.has_server_timestamp = mask & 0x08;
  v.has_source_picoseconds = mask & 0x10;
  v.has_server_picoseconds = mask & 0x20;
  if (v.has_value) decode(d, v.value); else v.value.clear();
  v.status = v.has_status ? status_code{d.read<std::uint32_t>()} : status_code{};
  v.source_timestamp.ticks = v.has_source_timestamp ? d.read<std::int64_t>() : 0;
  v.source_picoseconds = v.has_source_picoseconds ? d.read<std::uint16_t>() : 0;
  v.server_timestamp.ticks = v.has_server_timestamp ? d.read<std::int64_t>() : 0;
  v.server_picoseconds = v.has_server_picoseconds ? d.read<std::uint16_t>() : 0;
}

// ---- DiagnosticInfo (Part 6 §5.2.2.12) ------------------------------------------------------

void encode(encoder& e, const diagnostic_info& v) {
  const std::uint8_t mask = (v.symbolic_id ? 0x01 : 0) | (v.namespace_uri ? 0x02 : 0) |
                            (v.localized_text ? 0x04 : 0) | (v.locale ? 0x08 : 0) |
                            (v.additional_info.is_null() ? 0 : 0x10) | (v.inner_status_code ? 0x20 : 0) |
                            (v.inner_diagnostic_info ? 0x40 : 0);
  e.write(mask);
  if (v.symbolic_id) e.write(*v.symbolic_id);
  if (v.namespace_uri) e.write(*v.namespace_uri);
  if (v.locale) e.write(*v.locale);
  if (v.localized_text) e.write(*v.localized_text);
  if (!v.additional_info.is_null()) encode(e, v.additional_info);
  if (v.inner_status_code) encode(e, *v.inner_status_code);
  if (v.inner_diagnostic_info) encode(e, *v.inner_diagnostic_info);
}

void decode(decoder& d, diagnostic_info& v) {
  depth_guard guard(d);
  if (!guard) return;
  const auto mask = d.read<std::uint8_t>();
  const auto optional_int = [&](std::uint8_t bit, std::optional<std::int32_t>& field) {
    if (mask & bit) field = d.read<std::int32_t>(); else field.reset();
  };
  optional_int(0x01, v.symbolic_id);
  optional_int(0x02, v.namespace_uri);
  optional_int(0x08, v.locale);
  optional_int(0x04, v.localized_text);
  if (mask & 0x10) decode(d, v.additional_info); else v.additional_info.set_null();
  if (mask & 0x20) v.inner_status_code = status_code{d.read<std::uint32_t>()}; else v.inner_status_code.reset();
  if (mask & 0x40) {
    if (!v.inner_diagnostic_info) v.inner_diagnostic_info = std::make_unique<diagnostic_info>();
    decode(d, *v.inner_diagnostic_info);
  } else {
    v.inner_diagnostic_info.reset();
  }
}

}  // namespace uactor::ua
