// Structures the client has no generated type for (a vendor's, a companion specification's),
// decoded by field from the DataTypeDefinition the server serves (Part 3 §5.8.3, Part 6 §5.2.6),
// so that `uactor read` prints PumpStatus {Mode: 1, Rpm: 1450.5, Tags: ["a"]} and not bytes.
#include "cli/client_cli_structures.hpp"

#include <array>
#include <map>
#include <span>
#include <utility>

#include "protocol/codec.hpp"
#include "uactor/client.hpp"

namespace uactor::app::client_cli {

namespace {

constexpr std::uint32_t attr_browse_name = 3;
constexpr std::uint32_t attr_data_type_definition = 23;
constexpr std::uint32_t id_enumeration = 29;
constexpr std::uint32_t id_has_encoding = 38;
constexpr std::uint32_t id_has_subtype = 45;
constexpr std::size_t max_supertype_steps = 32;  // a DataType hierarchy deeper than this is a loop
constexpr int max_nesting = 16;                  // structures inside structures

std::string key(const ua::node_id& id) { return id.to_string(); }

// One built-in type decoded into a Variant: the storage alternative of index id (scalars) or
// 25 + id (arrays) is the type, and codec.hpp decodes each.
template <std::size_t I>
ua::variant decode_alternative(ua::decoder& d) {
  using T = std::variant_alternative_t<I, ua::variant::storage>;
  T v{};
  if constexpr (requires { *v; }) decode(d, *v);  // boxed DataValue, Variant, DiagnosticInfo
  else decode(d, v);
  return ua::variant(std::move(v));
}

template <std::size_t... I>
constexpr auto decoders(std::index_sequence<I...>) {
  return std::array<ua::variant (*)(ua::decoder&), sizeof...(I)>{&decode_alternative<I + 1>...};
}

// Index 0 is builtin 1 (Boolean) ... 49 is an array of DiagnosticInfo.
constexpr auto builtin_decoders = decoders(std::make_index_sequence<std::variant_size_v<ua::variant::storage> - 1>());

ua::variant decode_builtin(ua::decoder& d, ua::builtin_type t, bool array) {
  const auto index = static_cast<std::size_t>(t) + (array ? ua::variant::array_offset : 0);
  if (index == 0 || index > builtin_decoders.size()) {
    d.fail(ua::status::bad_decoding_error);
    return {};
  }
  return builtin_decoders[index - 1](d);
}

bool decode_fields(ua::decoder& d, std::span<const std::uint8_t> whole, const structure_layout& t, field_list& out,
                   int depth) {
  if (depth > max_nesting) return false;
  const auto& def = t.definition;
  if (t.fields.size() != def.fields.size()) return false;
  const auto field_value = [&](std::size_t i) -> std::optional<ua::variant> {
    const auto& f = def.fields[i];
    const auto& k = t.fields[i];
    // Part 3 §5.8.3 StructureField: ValueRank -1 a scalar, 1 and more an array (flattened).
    const bool array = f.value_rank >= 0;
    if (k.type == ua::builtin_type::null) return std::nullopt;
    if (!k.structure) return decode_builtin(d, k.type, array);
    // An inline structure: kept as the ExtensionObject it would be on its own (its encoding id
    // and bytes), which the printer asks this resolver about again.
    const auto one = [&]() -> std::optional<ua::extension_object> {
      const auto start = d.position();
      field_list ignored;
      if (!decode_fields(d, whole, *k.structure, ignored, depth + 1)) return std::nullopt;
      const auto bytes = whole.subspan(start, d.position() - start);
      return ua::extension_object::raw(k.structure->definition.default_encoding_id, ua::extension_object::encoding::byte_string,
                                       std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    };
    if (!array) {
      auto x = one();
      if (!x) return std::nullopt;
      return ua::variant(std::move(*x));
    }
    const auto n = d.read_length(d.limits().max_array_length, 1);
    ua::ua_array<ua::extension_object> items;
    if (n < 0) items.set_null();
    for (std::int64_t j = 0; j < n && d.ok(); ++j) {
      auto x = one();
      if (!x) return std::nullopt;
      items.push_back(std::move(*x));
    }
    return ua::variant(std::move(items));
  };

  std::uint32_t mask = ~0u;  // which optional fields are present
  const bool with_optional = def.structure_type == ua::structure_type::structure_with_optional_fields;
  const bool is_union = def.structure_type == ua::structure_type::union_ ||
                        def.structure_type == ua::structure_type::union_with_subtyped_values;
  if (with_optional) mask = d.read<std::uint32_t>();
  if (is_union) {
    // Part 6 §5.2.7: the SwitchField (1-based; 0 is no field), then that field alone.
    const auto which = d.read<std::uint32_t>();
    if (!d.ok() || which > def.fields.size()) return false;
    if (which == 0) return true;
    auto v = field_value(which - 1);
    if (!v || !d.ok()) return false;
    out.emplace_back(def.fields[which - 1].name.view(), std::move(*v));
    return true;
  }
  std::size_t optional_bit = 0;
  for (std::size_t i = 0; i < def.fields.size(); ++i) {
    if (with_optional && def.fields[i].is_optional) {
      const bool present = optional_bit < 32 && (mask >> optional_bit & 1u);
      ++optional_bit;
      if (!present) continue;
    }
    auto v = field_value(i);
    if (!v || !d.ok()) return false;
    out.emplace_back(def.fields[i].name.view(), std::move(*v));
  }
  return d.ok();
}

}  // namespace

std::optional<field_list> decode_structure(std::span<const std::uint8_t> body, const structure_layout& layout) {
  ua::decoder d(body);
  field_list out;
  if (!decode_fields(d, body, layout, out, 0) || d.remaining() != 0) return std::nullopt;
  return out;
}

server_structures::server_structures(client& c) : client_(&c) {}
server_structures::~server_structures() = default;

const ua::data_value* server_structures::read_attribute(const ua::node_id& node, std::uint32_t attribute,
                                                        ua::data_value& out) {
  if (offline_) return nullptr;
  ua::read_request req;
  ua::read_value_id id;
  id.node_id = node;
  id.attribute_id = attribute;
  req.nodes_to_read.push_back(std::move(id));
  auto r = client_->read_sync(std::move(req));
  if (!r || r->results.empty() || r->results[0].status.is_bad()) return nullptr;
  out = std::move(r->results[0]);
  return &out;
}

std::optional<ua::node_id> server_structures::inverse_target(const ua::node_id& node, std::uint32_t reference_type) {
  if (offline_) return std::nullopt;
  ua::browse_request req;
  ua::browse_description d;
  d.node_id = node;
  d.browse_direction = ua::browse_direction::inverse;
  d.reference_type_id = ua::node_id(0, reference_type);
  d.include_subtypes = false;
  d.result_mask = 0;
  req.nodes_to_browse.push_back(d);
  auto r = client_->browse_sync(std::move(req));
  if (!r || r->results.empty() || r->results[0].references.empty()) return std::nullopt;
  const auto& target = r->results[0].references[0].node_id;
  if (target.server_index != 0 || !target.namespace_uri.is_null()) return std::nullopt;
  return target.id;
}

const structure_layout* server_structures::by_data_type(const ua::node_id& data_type, int depth) {
  const auto k = key(data_type);
  if (auto it = types_.find(k); it != types_.end()) return it->second.get();
  if (offline_ || depth > max_nesting) return nullptr;
  // Remembered before it is complete: a structure that contains itself (through an array) stops
  // here instead of recursing.
  auto& slot = types_[k];
  ua::data_value dv;
  const auto* def_value = read_attribute(data_type, attr_data_type_definition, dv);
  const auto* eo = def_value ? def_value->value.get_if<ua::extension_object>() : nullptr;
  const auto* def = eo ? eo->get_if<ua::structure_definition>() : nullptr;
  if (!def) return nullptr;
  auto info = std::make_unique<structure_layout>();
  info->definition = *def;
  ua::data_value name;
  if (const auto* n = read_attribute(data_type, attr_browse_name, name))
    if (const auto* q = n->value.get_if<ua::qualified_name>()) info->name = q->name.str();
  if (info->name.empty()) info->name = data_type.to_string();
  for (const auto& f : info->definition.fields) info->fields.push_back(kind_of(f.data_type, depth + 1));
  slot = std::move(info);
  const structure_layout* t = slot.get();
  if (!t->definition.default_encoding_id.is_null()) encodings_[key(t->definition.default_encoding_id)] = t;
  return t;
}

field_layout server_structures::kind_of(const ua::node_id& data_type, int depth) {
  // Built-in DataTypes are their own ids (Part 6 §5.1.2); subtypes and enumerations are found by
  // walking HasSubtype up to one of them.
  ua::node_id t = data_type;
  for (std::size_t step = 0; step < max_supertype_steps; ++step) {
    if (t.namespace_index() == 0 && t.type() == ua::node_id_type::numeric) {
      const auto n = t.numeric();
      if (n >= 1 && n <= 25 && n != 22) return {static_cast<ua::builtin_type>(n), nullptr};
      if (n == id_enumeration) return {ua::builtin_type::int32, nullptr};
      if (n == 22) return {ua::builtin_type::extension_object, nullptr};  // Structure itself: an ExtensionObject
    }
    // A structure: its own definition, inline (Part 6 §5.2.6: no ExtensionObject around a field).
    if (const auto* s = by_data_type(t, depth)) return {ua::builtin_type::extension_object, s};
    auto super = inverse_target(t, id_has_subtype);
    if (!super) break;
    t = *super;
  }
  return {ua::builtin_type::null, nullptr};  // unknown: the structure cannot be decoded
}

const structure_layout* server_structures::by_encoding(const ua::node_id& encoding) {
  if (auto it = encodings_.find(key(encoding)); it != encodings_.end()) return it->second;
  if (offline_) return nullptr;
  encodings_[key(encoding)] = nullptr;  // asked once, whatever the answer
  auto data_type = inverse_target(encoding, id_has_encoding);
  if (!data_type) return nullptr;
  const auto* t = by_data_type(*data_type, 0);
  encodings_[key(encoding)] = t;
  return t;
}

void server_structures::prefetch(const ua::node_id& data_type) { (void)kind_of(data_type, 0); }

std::optional<structure_view> server_structures::fields(const ua::extension_object& x) {
  if (x.body() || x.body_encoding() != ua::extension_object::encoding::byte_string) return std::nullopt;
  const auto* t = by_encoding(x.type_id());
  if (!t) return std::nullopt;
  const auto& raw = x.raw_body();
  auto f = decode_structure({reinterpret_cast<const std::uint8_t*>(raw.data()), raw.size()}, *t);
  if (!f) return std::nullopt;
  return structure_view{t->name, std::move(*f)};
}

}  // namespace uactor::app::client_cli
