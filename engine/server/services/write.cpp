// Part 4 §5.10.4 Write. The whole request: limits, then one operation per item.
#include "engine/server/services/write.hpp"

#include "engine/server/services/index_range.hpp"
#include "engine/server/services/known_attribute.hpp"
#include "engine/server/services/operations.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::services {

using namespace uactor::ua;

namespace {

constexpr std::uint32_t enumeration_type = 29;  // ns=0;i=29 Enumeration
constexpr std::uint32_t has_encoding_type = 38;  // ns=0;i=38 HasEncoding

constexpr std::uint8_t bit(access_level_type t) noexcept { return static_cast<std::uint8_t>(t); }
constexpr std::uint32_t bit(attribute_write_mask m) noexcept { return static_cast<std::uint32_t>(m); }

bool rank_fits(const variant& v, std::int32_t rank) {
  const std::size_t dims = !v.is_array() ? 0 : v.dimensions().empty() ? 1 : v.dimensions().size();
  switch (rank) {
    case -3: return dims <= 1;  // ScalarOrOneDimension
    case -2: return true;       // Any
    case -1: return dims == 0;  // Scalar
    case 0: return dims >= 1;   // OneOrMoreDimensions
    default: return rank > 0 && dims == static_cast<std::size_t>(rank);
  }
}

status_code prepare_value_attribute(const write_value& wv, node_index n, const address_space& as, date_time now,
                                    const numeric_range& range, data_value& next) {
  const variable_data* var = as.variable(n);
  if (!var) return status::bad_attribute_id_invalid;
  const node& x = as.at(n);
  if (x.cls == node_class::variable) {
    if ((var->access_level & var->user_access_level & bit(access_level_type::current_write)) == 0)
      return status::bad_not_writable;
  } else if ((x.write_mask & x.user_write_mask & bit(attribute_write_mask::value_for_variable_type)) == 0) {
    return status::bad_not_writable;  // a VariableType's default value
  }
  const data_value& dv = wv.value;
  // Part 4 §5.10.4.4: a combination of value, status and timestamps the Server does not write is
  // refused as a whole. Status needs StatusWrite, timestamps TimestampWrite; a value is required.
  // An explicit Good (0) without StatusWrite is no news: taken as no status, as clients such as
  // asyncua send it with every value (docs/decisions/0046).
  const bool is_variable = x.cls == node_class::variable;
  const bool status_writable = is_variable && (var->access_level & bit(access_level_type::status_write));
  const bool writes_status = dv.has_status && (status_writable || dv.status.value() != 0);
  if (!dv.has_value) return status::bad_write_not_supported;
  if (writes_status && !status_writable) return status::bad_write_not_supported;
  if ((dv.has_source_timestamp || dv.has_server_timestamp) &&
      !(is_variable && (var->access_level & bit(access_level_type::timestamp_write))))
    return status::bad_write_not_supported;

  next = data_value{};
  const node_id data_type = var->data_type.to_node_id();
  if (range.empty()) {
    if (!value_fits(as, dv.value, data_type, var->value_rank)) return status::bad_type_mismatch;
    next.value = dv.value;
  } else {
    // The written part must be an array of the variable's type, as long as the range.
    if (!dv.value.is_array() || !value_fits(as, dv.value, data_type, -2)) return status::bad_type_mismatch;
    next.value = var->value.value;
    if (const status_code sc = write_numeric_range(next.value, dv.value, range); sc.is_bad()) return sc;
  }
  next.has_value = true;
  if (writes_status) {
    next.status = dv.status;
    next.has_status = true;
  }
  next.source_timestamp = dv.has_source_timestamp ? dv.source_timestamp : now;
  next.source_picoseconds = dv.has_source_timestamp ? dv.source_picoseconds : 0;
  next.has_source_timestamp = true;
  next.has_source_picoseconds = dv.has_source_timestamp && dv.has_source_picoseconds;
  next.server_timestamp = dv.has_server_timestamp ? dv.server_timestamp : now;
  next.has_server_timestamp = true;
  return status::good;
}

status_code write_value_attribute(const write_value& wv, node_index n, address_space& as, date_time now,
                                  const numeric_range& range) {
  data_value next;
  if (const status_code sc = prepare_value_attribute(wv, n, as, now, range, next); sc.is_bad()) return sc;
  return as.set_value(n, std::move(next));
}

// The DataType of an ExtensionObject: of its decoded body (namespace 0's structures), else the one
// its encoding id belongs to (HasEncoding, Part 3 §5.8.4): a structure a loaded NodeSet defines.
node_index extension_data_type(const address_space& as, const extension_object& eo) {
  if (eo.body()) return as.find(node_id(0, eo.body()->type().data_type_id));
  const node_index encoding = as.find(eo.type_id());
  if (encoding == no_node) return no_node;
  const node_index has_encoding = as.find(node_id(0, has_encoding_type));
  for (const reference& r : as.inverse_references(encoding))
    if (r.type == has_encoding) return r.target;
  return no_node;
}

bool extension_fits(const address_space& as, const extension_object& eo, node_index dt) {
  if (eo.empty()) return true;  // a null structure
  const node_index t = extension_data_type(as, eo);
  return t != no_node && as.is_subtype_of(t, dt);
}

}  // namespace

bool value_fits(const address_space& as, const variant& v, const node_id& data_type, std::int32_t value_rank) {
  if (v.empty()) return true;  // a null value (Part 4 §7.24: a Server accepts it for any DataType)
  if (!rank_fits(v, value_rank)) return false;
  const auto builtin = static_cast<std::uint32_t>(v.type());
  const node_index dt = as.find(data_type);
  if (dt == no_node)  // a DataType the store does not hold: only its exact built-in type
    return data_type == node_id(0, builtin);
  const node_index vt = as.find(node_id(0, builtin));
  if (as.is_subtype_of(vt, dt)) return true;  // Int32 into Number, anything into BaseDataType
  if (as.is_subtype_of(dt, vt)) {             // DateTime into UtcTime, Double into Duration
    // A Structure subtype takes an ExtensionObject only of that structure or a subtype of it.
    if (v.type() == builtin_type::extension_object && dt != vt) {
      if (const auto* eo = v.get_if<extension_object>()) return extension_fits(as, *eo, dt);
      for (const extension_object& eo : *v.get_if<ua_array<extension_object>>())
        if (!extension_fits(as, eo, dt)) return false;
    }
    return true;
  }
  // Part 3 §8.14: Enumerations are encoded as Int32.
  return v.type() == builtin_type::int32 && as.is_subtype_of(dt, as.find(node_id(0, enumeration_type)));
}

status_code check_write_permission(node_index n, std::uint32_t attribute, const node_access& access) noexcept {
  const std::uint32_t needed = attribute == static_cast<std::uint32_t>(attribute_id::value)
                                   ? actors::authz::permission::write
                                   : actors::authz::permission::write_attribute;
  return access.refusal(n, needed);
}

status_code prepare_value_write(const write_value& wv, const address_space& as, date_time now, node_index& n,
                                data_value& next, const node_access& access) {
  n = as.find(wv.node_id);
  if (n == no_node) return status::bad_node_id_unknown;
  if (const status_code sc = check_write_permission(n, wv.attribute_id, access); sc.is_bad()) return sc;
  const auto range = parse_numeric_range(wv.index_range.view());
  if (!range) return range.error();
  return prepare_value_attribute(wv, n, as, now, *range, next);
}

status_code write_operation(const write_value& wv, address_space& as, date_time now, const node_access& access) {
  const node_index n = as.find(wv.node_id);
  if (n == no_node) return status::bad_node_id_unknown;
  if (!known_attribute(wv.attribute_id)) return status::bad_attribute_id_invalid;
  if (const status_code sc = check_write_permission(n, wv.attribute_id, access); sc.is_bad()) return sc;
  const auto attr = static_cast<attribute_id>(wv.attribute_id);
  const auto range = parse_numeric_range(wv.index_range.view());
  if (!range) return range.error();

  if (attr == attribute_id::value) return write_value_attribute(wv, n, as, now, *range);

  // The other attributes: the node class must have it, then the WriteMask decides.
  {
    data_value probe;
    if (const status_code sc = as.read(n, attr, probe); sc.is_bad()) return sc;
  }
  const node& x = as.at(n);
  const std::uint32_t mask = x.write_mask & x.user_write_mask;
  if (attr == attribute_id::display_name || attr == attribute_id::description) {
    const auto needed = attr == attribute_id::display_name ? bit(attribute_write_mask::display_name)
                                                           : bit(attribute_write_mask::description);
    if ((mask & needed) == 0) return status::bad_not_writable;
    if (!range->empty()) return status::bad_index_range_no_data;  // not an array (Part 4 §7.27)
    const auto* text = wv.value.value.get_if<localized_text>();
    if (!wv.value.has_value || !text) return status::bad_type_mismatch;
    return as.set_text(n, attr, *text);
  }
  return status::bad_not_writable;  // writing the other attributes is not supported yet
}

void service_write(const write_request& req, write_response& resp, address_space& as, date_time now,
                   const service_limits& limits, const node_access& access) {
  resp.response_header.timestamp = now;
  if (!start_operations(req.request_header, resp, req.nodes_to_write.size(), limits.max_nodes_per_write)) return;
  resp.results.resize(req.nodes_to_write.size());
  for (std::size_t i = 0; i < req.nodes_to_write.size(); ++i)
    resp.results[i] = write_operation(req.nodes_to_write[i], as, now, access);
}

}  // namespace uactor::services
