// The one-request commands of the `uactor` CLI: read, write, browse (with BrowseNext) and call.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "runtime/client_cli_internal.hpp"
#include "uactor/client.hpp"

namespace uactor::app::client_cli {

namespace {

constexpr std::uint32_t attr_value = 13;
constexpr std::uint32_t attr_data_type = 14;
constexpr std::uint32_t attr_value_rank = 15;

std::string_view node_class_name(ua::node_class c) {
  switch (c) {
    case ua::node_class::object: return "Object";
    case ua::node_class::variable: return "Variable";
    case ua::node_class::method: return "Method";
    case ua::node_class::object_type: return "ObjectType";
    case ua::node_class::variable_type: return "VariableType";
    case ua::node_class::reference_type: return "ReferenceType";
    case ua::node_class::data_type: return "DataType";
    case ua::node_class::view: return "View";
    default: return "Unspecified";
  }
}

}  // namespace

int run_read(const common_args& a, const std::vector<std::string>& nodes) {
  if (nodes.empty()) usage("read: give at least one NodeId");
  ua::read_request req;
  req.timestamps_to_return = ua::timestamps_to_return::neither;
  for (const auto& n : nodes) {
    ua::read_value_id id;
    id.node_id = node_or_exit(n);
    id.attribute_id = attr_value;
    req.nodes_to_read.push_back(std::move(id));
  }
  auto c = connect_or_exit(a);
  auto r = c.read_sync(req);
  if (!r) service_failed(c, "Read", r.error());
  int code = exit_good;
  for (std::size_t i = 0; i < req.nodes_to_read.size(); ++i) {
    const ua::data_value* dv = i < r->results.size() ? &r->results[i] : nullptr;
    const ua::status_code sc = dv ? dv->status : ua::status::bad_unknown_response;
    if (sc.is_bad()) code = exit_bad;
    std::printf("%s\t%s\t%s\n", req.nodes_to_read[i].node_id.to_string().c_str(),
                dv && dv->has_value ? format_value(dv->value).c_str() : "-", sc.to_string().c_str());
  }
  c.close();
  return code;
}

namespace {

// The built-in type a value of this DataType is written as: its own id for i=1..i=21, else the
// type of the value the node holds now (Part 4 §5.10.4.1: subtypes and enumerations).
std::optional<ua::builtin_type> write_type(const ua::node_id& data_type, const ua::variant& current) {
  if (data_type.namespace_index() == 0 && data_type.type() == ua::node_id_type::numeric && data_type.numeric() >= 1 &&
      data_type.numeric() <= 21)
    return static_cast<ua::builtin_type>(data_type.numeric());
  if (!current.empty()) return current.type();
  return std::nullopt;
}

}  // namespace

int run_write(const common_args& a, const std::string& node, const std::string& value) {
  const auto id = node_or_exit(node);
  auto c = connect_or_exit(a);
  ua::read_request rr;
  for (const auto attr : {attr_data_type, attr_value_rank, attr_value}) {
    ua::read_value_id rv;
    rv.node_id = id;
    rv.attribute_id = attr;
    rr.nodes_to_read.push_back(rv);
  }
  auto r = c.read_sync(rr);
  if (!r) service_failed(c, "Read", r.error());
  if (r->results.size() != 3 || r->results[0].status.is_bad()) {
    const auto sc = r->results.empty() ? ua::status::bad_unknown_response : r->results[0].status;
    std::printf("%s\t-\t%s\n", id.to_string().c_str(), sc.to_string().c_str());
    c.close();
    return exit_bad;
  }
  const auto* dt = r->results[0].value.get_if<ua::node_id>();
  const auto* rank = r->results[1].value.get_if<std::int32_t>();
  const auto& current = r->results[2].value;
  const auto type = write_type(dt ? *dt : ua::node_id{}, current);
  if (!type) {
    c.close();
    usage("write: cannot tell the type to write for " + id.to_string());
  }
  const bool array = (rank && *rank >= 1) || current.is_array();
  auto v = parse_value(*type, array, value);
  if (!v) {
    c.close();
    usage("write: '" + value + "' is not a " + std::string(builtin_type_name(*type)) + (array ? " array" : ""));
  }
  ua::write_request wr;
  ua::write_value wv;
  wv.node_id = id;
  wv.attribute_id = attr_value;
  wv.value.set_value(*v);
  wr.nodes_to_write.push_back(std::move(wv));
  auto w = c.write_sync(std::move(wr));
  if (!w) service_failed(c, "Write", w.error());
  const ua::status_code sc = w->results.empty() ? ua::status::bad_unknown_response : w->results[0];
  std::printf("%s\t%s\t%s\n", id.to_string().c_str(), format_value(*v).c_str(), sc.to_string().c_str());
  c.close();
  return sc.is_bad() ? exit_bad : exit_good;
}

int run_browse(const common_args& a, const std::string& node) {
  const auto id = node_or_exit(node.empty() ? "i=85" : node);
  auto c = connect_or_exit(a);
  ua::browse_request req;
  ua::browse_description d;
  d.node_id = id;
  d.browse_direction = ua::browse_direction::forward;
  d.reference_type_id = ua::node_id(0, 33);  // HierarchicalReferences
  d.include_subtypes = true;
  d.result_mask = 63;  // everything
  req.nodes_to_browse.push_back(d);
  auto r = c.browse_sync(req);
  if (!r) service_failed(c, "Browse", r.error());
  if (r->results.empty()) service_failed(c, "Browse", ua::status::bad_unknown_response);
  ua::browse_result result = std::move(r->results[0]);
  int code = result.status_code.is_bad() ? exit_bad : exit_good;
  for (;;) {
    for (const auto& ref : result.references)
      std::printf("%u:%s\t%s\t%s\n", ref.browse_name.namespace_index, std::string(ref.browse_name.name.view()).c_str(),
                  ref.node_id.id.to_string().c_str(), std::string(node_class_name(ref.node_class)).c_str());
    if (result.status_code.is_bad()) {
      std::fprintf(stderr, "uactor: browse %s: %s\n", id.to_string().c_str(), result.status_code.to_string().c_str());
      break;
    }
    if (result.continuation_point.is_null() || result.continuation_point.empty()) break;
    ua::browse_next_request next;
    next.continuation_points.push_back(result.continuation_point);
    auto n = c.browse_next_sync(std::move(next));
    if (!n) service_failed(c, "BrowseNext", n.error());
    if (n->results.empty()) break;
    result = std::move(n->results[0]);
    if (result.status_code.is_bad()) code = exit_bad;
  }
  c.close();
  return code;
}

namespace {

// The InputArguments of a method: its HasProperty target named InputArguments, read.
ua::ua_array<ua::argument> input_arguments(client& c, const ua::node_id& method) {
  ua::browse_request req;
  ua::browse_description d;
  d.node_id = method;
  d.browse_direction = ua::browse_direction::forward;
  d.reference_type_id = ua::node_id(0, 46);  // HasProperty
  d.include_subtypes = true;
  d.result_mask = 63;
  req.nodes_to_browse.push_back(d);
  ua::ua_array<ua::argument> out;
  auto r = c.browse_sync(req);
  if (!r || r->results.empty()) return out;
  for (const auto& ref : r->results[0].references) {
    if (ref.browse_name.name.view() != "InputArguments") continue;
    ua::read_request rr;
    ua::read_value_id rv;
    rv.node_id = ref.node_id.id;
    rv.attribute_id = attr_value;
    rr.nodes_to_read.push_back(rv);
    auto v = c.read_sync(rr);
    if (!v || v->results.empty()) return out;
    if (const auto* arr = v->results[0].value.get_if<ua::ua_array<ua::extension_object>>())
      for (const auto& e : *arr)
        if (const auto* arg = e.get_if<ua::argument>()) out.push_back(*arg);
  }
  return out;
}

}  // namespace

int run_call(const common_args& a, const std::string& object, const std::string& method,
             const std::vector<std::string>& args) {
  const auto object_id = node_or_exit(object);
  const auto method_id = node_or_exit(method);
  auto c = connect_or_exit(a);
  const auto declared = input_arguments(c, method_id);
  ua::call_method_request m;
  m.object_id = object_id;
  m.method_id = method_id;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::optional<ua::builtin_type> type;
    bool array = false;
    if (i < declared.size()) {
      type = write_type(declared[i].data_type, {});
      array = declared[i].value_rank >= 1;
    }
    // Without a declaration the text goes as a String; the server then says what it thinks.
    auto v = parse_value(type.value_or(ua::builtin_type::string), array, args[i]);
    if (!v) {
      c.close();
      usage("call: argument " + std::to_string(i + 1) + " '" + args[i] + "' is not a " +
            std::string(builtin_type_name(type.value_or(ua::builtin_type::string))));
    }
    m.input_arguments.push_back(std::move(*v));
  }
  ua::call_request req;
  req.methods_to_call.push_back(std::move(m));
  auto r = c.call_sync(std::move(req));
  if (!r) service_failed(c, "Call", r.error());
  if (r->results.empty()) service_failed(c, "Call", ua::status::bad_unknown_response);
  const auto& result = r->results[0];
  for (const auto& out : result.output_arguments) std::printf("%s\n", format_value(out).c_str());
  for (std::size_t i = 0; i < result.input_argument_results.size(); ++i)
    if (result.input_argument_results[i].is_bad())
      std::printf("input %zu\t%s\n", i + 1, result.input_argument_results[i].to_string().c_str());
  std::printf("%s\n", result.status_code.to_string().c_str());
  c.close();
  return result.status_code.is_bad() ? exit_bad : exit_good;
}

}  // namespace uactor::app::client_cli
