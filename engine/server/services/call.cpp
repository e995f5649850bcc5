// Part 4 §5.11.2 Call. The whole request: limits, then one operation per method to call.
#include "engine/server/services/call.hpp"

#include <exception>

#include "engine/server/services/operations.hpp"
#include "engine/server/services/write.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::services {

using namespace uactor::ua;

namespace {

using ua::ids::base_data_type;
using ua::ids::has_type_definition;
using ua::ids::has_property;
using ua::ids::has_component;

void fail(call_method_result& out, status_code sc) {
  out.status_code = sc;
  out.output_arguments.clear();
}

// Whether `source` has a HasComponent (or a subtype of it) to `method`.
bool has_component_to(const address_space& as, node_index source, node_index method, node_index component) {
  for (const reference& r : as.forward_references(source))
    if (r.target == method && as.is_subtype_of(r.type, component)) return true;
  return false;
}

// Part 4 §5.11.2.2 (objectId): the method is a component of the Object, of its ObjectType, or of a
// supertype of that ObjectType; for an ObjectType, of the type or one of its supertypes.
bool method_of(const address_space& as, node_index object, node_index method) {
  const node_index component = as.find(node_id(0, has_component));
  if (has_component_to(as, object, method, component)) return true;
  node_index type = object;
  if (as.at(object).cls == node_class::object) {
    type = no_node;
    const node_index type_definition = as.find(node_id(0, has_type_definition));
    for (const reference& r : as.forward_references(object))
      if (r.type == type_definition) { type = r.target; break; }
  } else {
    type = as.super_type(object);
  }
  for (int depth = 0; type != no_node && depth < 64; ++depth, type = as.super_type(type))
    if (has_component_to(as, type, method, component)) return true;
  return false;
}

// Part 4 §5.11.2.4 Table 68: Bad_TypeMismatch when the value is not of the Argument's DataType
// (or a subtype, or the built-in type it derives from) and ValueRank. A null value carries no type:
// only BaseDataType, which every value is, takes it.
bool input_fits(const address_space& as, const variant& v, const extension_object& declared) {
  const auto* arg = declared.get_if<argument>();
  if (!arg) return true;  // an Argument we cannot read: nothing to check against
  if (v.empty()) return arg->data_type == node_id(0, base_data_type);
  return value_fits(as, v, arg->data_type, arg->value_rank);
}

}  // namespace

std::size_t method_table::hash::operator()(const node_id& id) const noexcept {
  std::uint64_t h = (std::uint64_t{id.namespace_index()} << 40) ^ (std::uint64_t(id.type()) << 56) ^ id.numeric();
  const auto mix_bytes = [&h](const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001B3ull;  // FNV-1a
  };
  if (id.type() == node_id_type::guid) {
    const guid& g = id.guid_value();
    mix_bytes(&g.data1, sizeof g.data1);
    mix_bytes(&g.data2, sizeof g.data2);
    mix_bytes(&g.data3, sizeof g.data3);
    mix_bytes(g.data4.data(), g.data4.size());
  } else {
    mix_bytes(id.text().data(), id.text().size());
  }
  return static_cast<std::size_t>(h ^ (h >> 29));
}

void method_table::add(const node_id& method, method_function f) { table_.insert_or_assign(method, std::move(f)); }

const method_function* method_table::find(const node_id& method) const {
  const auto it = table_.find(method);
  return it == table_.end() ? nullptr : &it->second;
}

std::span<const extension_object> method_arguments(const address_space& as, node_index method,
                                                   std::string_view property_name) {
  const node_index property = as.find(node_id(0, has_property));
  for (const reference& r : as.forward_references(method)) {
    if (r.type != property) continue;
    const node& p = as.at(r.target);
    // Part 3 §5.7.1: the properties are 0:InputArguments and 0:OutputArguments.
    if (p.browse_ns != 0 || p.browse_name != property_name) continue;
    const variable_data* var = as.variable(r.target);
    if (!var) return {};
    if (const auto* args = var->value.value.get_if<ua_array<extension_object>>()) return *args;
    return {};
  }
  return {};
}

status_code check_call(const call_method_request& req, const address_space& as, call_method_result& out,
                       node_index& method_out, const node_access& access) {
  out.status_code = status::good;
  out.input_argument_results.clear();
  out.input_argument_diagnostic_infos.clear();
  out.output_arguments.clear();

  const auto failed = [&](status_code sc) {
    fail(out, sc);
    return sc;
  };
  const node_index object = as.find(req.object_id);
  if (object == no_node) return failed(status::bad_node_id_unknown);
  const node_class object_class = as.at(object).cls;
  if (object_class != node_class::object && object_class != node_class::object_type)
    return failed(status::bad_node_id_invalid);
  const node_index method = as.find(req.method_id);
  if (method == no_node || as.at(method).cls != node_class::method || !method_of(as, object, method))
    return failed(status::bad_method_invalid);
  if (const status_code sc = access.refusal(object, actors::authz::permission::call); sc.is_bad()) return failed(sc);
  if (const status_code sc = access.refusal(method, actors::authz::permission::call); sc.is_bad()) return failed(sc);
  if (!as.at(method).executable || !as.at(method).user_executable) return failed(status::bad_not_executable);

  const auto declared = method_arguments(as, method, "InputArguments");
  const auto& inputs = req.input_arguments;
  if (inputs.size() < declared.size()) return failed(status::bad_arguments_missing);
  if (inputs.size() > declared.size()) return failed(status::bad_too_many_arguments);
  bool all_fit = true;
  for (std::size_t i = 0; i < inputs.size() && all_fit; ++i) all_fit = input_fits(as, inputs[i], declared[i]);
  if (!all_fit) {
    // Part 4 §5.11.2.4: one status per input, the mistyped ones Bad_TypeMismatch.
    out.input_argument_results.resize(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i)
      out.input_argument_results[i] = input_fits(as, inputs[i], declared[i]) ? status::good : status::bad_type_mismatch;
    return failed(status::bad_invalid_argument);
  }
  method_out = method;
  return status::good;
}

void call_operation(const call_method_request& req, const address_space& as, const method_table& methods,
                    call_method_result& out, const node_access& access) {
  node_index method = no_node;
  if (check_call(req, as, out, method, access).is_bad()) return;
  const auto& inputs = req.input_arguments;
  const method_function* f = methods.find(req.method_id);
  if (!f || !*f) return fail(out, status::bad_not_implemented);
  status_code sc;
  try {
    sc = (*f)(std::span<const variant>(inputs.data(), inputs.size()), out.output_arguments);
  } catch (const std::exception&) {
    // A method's failure is that call's result: it must not end the session that runs it.
    sc = status::bad_internal_error;
  }
  if (sc.is_bad()) return fail(out, sc);
  // The outputs the method declares: an implementation that returns another count is a bug.
  if (out.output_arguments.size() != method_arguments(as, method, "OutputArguments").size())
    return fail(out, status::bad_internal_error);
  out.status_code = sc;
}

void service_call(const call_request& req, call_response& resp, address_space& as, const method_table& methods,
                  date_time now, const service_limits& limits, const node_access& access) {
  resp.response_header.timestamp = now;
  if (!start_operations(req.request_header, resp, req.methods_to_call.size(), limits.max_nodes_per_method_call))
    return;
  resp.results.resize(req.methods_to_call.size());  // capacity kept between requests
  for (std::size_t i = 0; i < req.methods_to_call.size(); ++i)
    call_operation(req.methods_to_call[i], as, methods, resp.results[i], access);
}

}  // namespace uactor::services
