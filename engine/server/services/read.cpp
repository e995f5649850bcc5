// Part 4 §5.10.2 Read. The whole request: limits and arguments, then one operation per item.
#include "engine/server/services/read.hpp"

#include "engine/server/services/index_range.hpp"
#include "engine/server/services/known_attribute.hpp"
#include "engine/server/services/operations.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::services {

using namespace uactor::ua;

namespace {

void fail(data_value& out, status_code sc) {
  out.value.clear();
  out.has_value = false;
  out.status = sc;
  out.has_status = true;
  out.has_source_timestamp = out.has_server_timestamp = false;
  out.has_source_picoseconds = out.has_server_picoseconds = false;
}

constexpr std::uint32_t structure_type = 22;  // ns=0;i=22 Structure

}  // namespace

void service_read(const read_request& req, read_response& resp, const address_space& as, date_time now,
                  const service_limits& limits, const node_access& access) {
  resp.response_header.timestamp = now;
  if (!start_operations(req.request_header, resp, req.nodes_to_read.size(), limits.max_nodes_per_read)) return;
  if (req.max_age < 0) return refuse_request(resp, status::bad_max_age_invalid);
  const auto ttr = static_cast<std::int32_t>(req.timestamps_to_return);
  if (ttr < 0 || ttr > static_cast<std::int32_t>(timestamps_to_return::neither))
    return refuse_request(resp, status::bad_timestamps_to_return_invalid);
  resp.results.resize(req.nodes_to_read.size());  // capacity kept between requests
  for (std::size_t i = 0; i < req.nodes_to_read.size(); ++i)
    read_operation(req.nodes_to_read[i], req.timestamps_to_return, as, now, resp.results[i], access);
}

void read_operation(const read_value_id& id, timestamps_to_return ttr, const address_space& as, date_time now,
                    data_value& out, const node_access& access) {
  const node_index n = as.find(id.node_id);
  if (n == no_node) return fail(out, status::bad_node_id_unknown);
  if (!known_attribute(id.attribute_id)) return fail(out, status::bad_attribute_id_invalid);
  const auto attr = static_cast<attribute_id>(id.attribute_id);
  // Part 3 §8.55: Read for the Value, ReadRolePermissions for RolePermissions, Browse for the rest.
  const std::uint32_t permissions = access.permissions(n);
  const std::uint32_t needed = permission_to_read(attr);
  if ((permissions & needed) != needed) return fail(out, access.refusal(n, needed));

  const auto range = parse_numeric_range(id.index_range.view());
  if (!range) return fail(out, range.error());

  const variable_data* var = as.variable(n);
  const bool is_value = attr == attribute_id::value;
  // Part 4 §5.10.2.2: a DataEncoding applies only to the Value of a structured DataType; the
  // default binary encoding is the only one served.
  const qualified_name& enc = id.data_encoding;
  if (!enc.name.is_null() && !enc.name.empty()) {
    if (!is_value || !var || !as.is_subtype_of(as.find(var->data_type.to_node_id()), as.find(node_id(0, structure_type))))
      return fail(out, status::bad_data_encoding_invalid);
    if (enc.namespace_index != 0 || enc.name.view() != "Default Binary")
      return fail(out, status::bad_data_encoding_unsupported);
  }
  // Part 3 §5.6.2: AccessLevel (and the user's) must have CurrentRead.
  if (is_value && var && as.at(n).cls == node_class::variable) {
    constexpr auto current_read = static_cast<std::uint8_t>(access_level_type::current_read);
    if ((var->access_level & var->user_access_level & current_read) == 0)
      return fail(out, status::bad_not_readable);
  }

  if (attr == attribute_id::role_permissions || attr == attribute_id::user_role_permissions ||
      attr == attribute_id::access_restrictions) {
    if (const status_code sc = read_access_attribute(as, n, attr, access, out); sc.is_bad()) return fail(out, sc);
  } else if (is_value && read_default_user_role_permissions(n, access, out)) {
    // Part 5 §6.3.13: a namespace's DefaultUserRolePermissions is the session's own.
  } else {
    if (const status_code sc = as.read(n, attr, out); sc.is_bad()) return fail(out, sc);
    narrow_user_attribute(attr, permissions, out);
  }
  if (!range->empty()) {
    if (const status_code sc = apply_numeric_range(out.value, *range); sc.is_bad()) return fail(out, sc);
  }

  // Part 4 §7.40: SourceTimestamp only for the Value attribute; ServerTimestamp is `now`.
  const bool want_source = is_value && (ttr == timestamps_to_return::source || ttr == timestamps_to_return::both);
  const bool want_server = ttr == timestamps_to_return::server || ttr == timestamps_to_return::both;
  if (!want_source) {
    out.has_source_timestamp = out.has_source_picoseconds = false;
    out.source_timestamp = {};
    out.source_picoseconds = 0;
  }
  out.has_server_picoseconds = false;
  out.server_picoseconds = 0;
  out.has_server_timestamp = want_server;
  out.server_timestamp = want_server ? now : date_time{};
}

}  // namespace uactor::services
