// The one-request commands of the `uactor` CLI: read, write, browse (a tree, with BrowseNext) and
// call. Each prints one line per item: tab-separated text, or a JSON object with --json.
#include <cstdio>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "cli/client_cli_internal.hpp"
#include "cli/client_cli_structures.hpp"
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

// The reference types of namespace 0 a browse meets (Part 5 §11, §7); others by NodeId.
std::string reference_type_name(const ua::node_id& t) {
  if (t.namespace_index() == 0 && t.type() == ua::node_id_type::numeric) {
    switch (t.numeric()) {
      case 31: return "References";
      case 32: return "NonHierarchicalReferences";
      case 33: return "HierarchicalReferences";
      case 34: return "HasChild";
      case 35: return "Organizes";
      case 36: return "HasEventSource";
      case 37: return "HasModellingRule";
      case 38: return "HasEncoding";
      case 39: return "HasDescription";
      case 40: return "HasTypeDefinition";
      case 41: return "GeneratesEvent";
      case 44: return "Aggregates";
      case 45: return "HasSubtype";
      case 46: return "HasProperty";
      case 47: return "HasComponent";
      case 48: return "HasNotifier";
      case 49: return "HasOrderedComponent";
      case 17603: return "HasInterface";
      case 17604: return "HasAddIn";
      default: break;
    }
  }
  return t.to_string();
}

void print_line(const std::string& line) {
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
}

std::string timestamp_or_dash(bool has, ua::date_time t, const output_style& style) {
  return has ? format_time(t, style.local_time) : "-";
}

// The JSON of one DataValue's parts: value, status, timestamps (null when the server sent none).
json_object& data_value_fields(json_object& o, const ua::data_value* dv, ua::status_code sc, const output_style& style) {
  o.raw("value", dv && dv->has_value ? json_value(dv->value, style) : "null").status(sc);
  o.raw("sourceTimestamp", dv && dv->has_source_timestamp ? json_string(format_time(dv->source_timestamp, style.local_time)) : "null");
  o.raw("serverTimestamp", dv && dv->has_server_timestamp ? json_string(format_time(dv->server_timestamp, style.local_time)) : "null");
  return o;
}

}  // namespace

int run_read(const common_args& a, const std::vector<std::string>& nodes) {
  if (nodes.empty()) usage("read: give at least one NodeId");
  ua::read_request req;
  req.timestamps_to_return = ua::timestamps_to_return::both;
  for (const auto& n : nodes) {
    ua::read_value_id id;
    id.node_id = node_or_exit(n);
    id.attribute_id = attr_value;
    req.nodes_to_read.push_back(std::move(id));
  }
  auto style = a.style();
  auto c = connect_or_exit(a);
  server_structures structures(c);
  style.structures = &structures;
  auto r = c.read_sync(req);
  if (!r) service_failed(c, "Read", r.error());
  int code = exit_good;
  for (std::size_t i = 0; i < req.nodes_to_read.size(); ++i) {
    const ua::data_value* dv = i < r->results.size() ? &r->results[i] : nullptr;
    const ua::status_code sc = dv ? dv->status : ua::status::bad_unknown_response;
    if (!sc.is_good()) code = exit_bad;
    const auto node = req.nodes_to_read[i].node_id.to_string();
    if (style.json) {
      json_object o;
      o.text("node", node);
      print_line(data_value_fields(o, dv, sc, style).str());
    } else {
      print_line(node + "\t" + (dv && dv->has_value ? format_value(dv->value, style) : "-") + "\t" + sc.to_string() + "\t" +
                 timestamp_or_dash(dv && dv->has_source_timestamp, dv ? dv->source_timestamp : ua::date_time{}, style));
    }
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

namespace {

// "Double" -> Double, "Int16[]" -> an Int16 array; nullopt for a name that is not a built-in type
// one can type a value of.
std::optional<std::pair<ua::builtin_type, bool>> type_named(std::string_view name) {
  bool array = false;
  if (name.size() > 2 && name.substr(name.size() - 2) == "[]") {
    array = true;
    name.remove_suffix(2);
  }
  for (int t = 1; t <= 21; ++t)
    if (ua::builtin_type_name(static_cast<ua::builtin_type>(t)) == name) return std::pair{static_cast<ua::builtin_type>(t), array};
  return std::nullopt;
}

void print_write(const output_style& style, const ua::node_id& id, const ua::variant* v, ua::status_code sc) {
  if (style.json) {
    print_line(json_object().text("node", id.to_string()).raw("value", v ? json_value(*v, style) : "null").status(sc).str());
  } else {
    print_line(id.to_string() + "\t" + (v ? format_value(*v, style) : "-") + "\t" + sc.to_string());
  }
}

}  // namespace

int run_write(const common_args& a, const write_args& w) {
  const auto id = node_or_exit(w.node);
  const auto style = a.style();
  std::optional<std::pair<ua::builtin_type, bool>> given;
  if (!w.type.empty()) {
    given = type_named(w.type);
    if (!given) usage("write: --type " + w.type + " is not a built-in type (Boolean, Int32, Double, String, ... ; Int32[] for an array)");
  }
  auto c = connect_or_exit(a);
  ua::builtin_type type{};
  bool array = false;
  if (given) {
    std::tie(type, array) = *given;
  } else {
    // The type to write is the node's (Part 4 §5.10.4.1: the server does not convert): its DataType
    // and ValueRank, and the value it holds for a DataType that is not built in.
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
      print_write(style, id, nullptr, sc);
      c.close();
      return exit_bad;
    }
    const auto* dt = r->results[0].value.get_if<ua::node_id>();
    const auto* rank = r->results[1].value.get_if<std::int32_t>();
    const auto& current = r->results[2].value;
    const auto t = write_type(dt ? *dt : ua::node_id{}, current);
    if (!t) {
      c.close();
      usage("write: cannot tell the type to write for " + id.to_string() + " (give --type)");
    }
    type = *t;
    array = (rank && *rank >= 1) || current.is_array();
  }
  auto v = ua::parse_value(type, array, w.value);
  if (!v) {
    c.close();
    usage("write: '" + w.value + "' is not a " + std::string(ua::builtin_type_name(type)) + (array ? " array" : ""));
  }
  ua::write_request wr;
  ua::write_value wv;
  wv.node_id = id;
  wv.attribute_id = attr_value;
  wv.value.set_value(*v);
  wr.nodes_to_write.push_back(std::move(wv));
  auto res = c.write_sync(std::move(wr));
  if (!res) service_failed(c, "Write", res.error());
  const ua::status_code sc = res->results.empty() ? ua::status::bad_unknown_response : res->results[0];
  print_write(style, id, &*v, sc);
  c.close();
  return sc.is_good() ? exit_good : exit_bad;
}

namespace {

// A walk down the references of a node, depth first, printing each reference as it is found
// (a tree: children right below their parent). A node met again is printed but not walked again.
struct browse_walk {
  client& c;
  const browse_args& args;
  output_style style;
  std::unordered_set<std::string> walked;
  std::size_t printed = 0;
  int code = exit_good;

  void print(const ua::node_id& parent, const ua::reference_description& ref, unsigned level, bool seen) {
    ++printed;
    if (style.json) {
      json_object o;
      o.number("depth", level)
          .text("parent", parent.to_string())
          .text("referenceType", reference_type_name(ref.reference_type_id))
          .text("node", ua::to_string(ref.node_id))
          .raw("browseName", json_value(ua::variant(ref.browse_name), style))
          .raw("displayName", json_value(ua::variant(ref.display_name), style))
          .text("nodeClass", node_class_name(ref.node_class));
      if (!ref.type_definition.id.is_null()) o.text("typeDefinition", ref.type_definition.id.to_string());
      if (seen) o.boolean("seen", true);
      print_line(o.str());
      return;
    }
    print_line(std::string(2 * (level - 1), ' ') + std::to_string(ref.browse_name.namespace_index) + ":" +
               std::string(ref.browse_name.name.view()) + "\t" + ref.node_id.id.to_string() + "\t" +
               std::string(node_class_name(ref.node_class)) + "\t" + reference_type_name(ref.reference_type_id) +
               (seen ? "\t(above)" : ""));
  }

  // The references of `node`, BrowseNext until done (a failed service ends the command).
  std::vector<ua::reference_description> references_of(const ua::node_id& node) {
    ua::browse_request req;
    ua::browse_description d;
    d.node_id = node;
    d.browse_direction = ua::browse_direction::forward;
    d.reference_type_id = ua::node_id(0, args.references == "all" ? 31 : 33);  // References, HierarchicalReferences
    d.include_subtypes = true;
    d.result_mask = 63;  // everything
    req.nodes_to_browse.push_back(d);
    auto r = c.browse_sync(req);
    if (!r) service_failed(c, "Browse", r.error());
    if (r->results.empty()) service_failed(c, "Browse", ua::status::bad_unknown_response);
    std::vector<ua::reference_description> out;
    ua::browse_result result = std::move(r->results[0]);
    for (;;) {
      for (auto& ref : result.references) out.push_back(std::move(ref));
      if (result.status_code.is_bad()) {
        std::fprintf(stderr, "uactor: browse %s: %s\n", node.to_string().c_str(), result.status_code.to_string().c_str());
        code = exit_bad;
        break;
      }
      if (result.continuation_point.is_null() || result.continuation_point.empty()) break;
      if (out.size() >= args.max_nodes) {  // give the continuation point back (Part 4 §5.8.3)
        ua::browse_next_request release;
        release.release_continuation_points = true;
        release.continuation_points.push_back(result.continuation_point);
        (void)c.browse_next_sync(std::move(release));
        break;
      }
      ua::browse_next_request next;
      next.continuation_points.push_back(result.continuation_point);
      auto n = c.browse_next_sync(std::move(next));
      if (!n) service_failed(c, "BrowseNext", n.error());
      if (n->results.empty()) break;
      result = std::move(n->results[0]);
    }
    return out;
  }

  void walk(const ua::node_id& node, unsigned level) {
    walked.insert(node.to_string());
    for (const auto& ref : references_of(node)) {
      if (printed >= args.max_nodes) {
        if (printed == args.max_nodes) {
          std::fprintf(stderr, "uactor: browse: stopped after %zu references (--max-nodes)\n", args.max_nodes);
          ++printed;
        }
        return;
      }
      const bool local = ref.node_id.server_index == 0 && ref.node_id.namespace_uri.is_null();
      const bool seen = local && walked.count(ref.node_id.id.to_string()) != 0;
      print(node, ref, level, seen);
      if (!seen && local && level < args.depth) walk(ref.node_id.id, level + 1);
    }
  }
};

}  // namespace

int run_browse(const common_args& a, const browse_args& b) {
  const auto id = node_or_exit(b.node.empty() ? "i=85" : b.node);
  auto c = connect_or_exit(a);
  browse_walk w{c, b, a.style(), {}, 0, exit_good};
  w.walk(id, 1);
  c.close();
  return w.code;
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
    auto v = ua::parse_value(type.value_or(ua::builtin_type::string), array, args[i]);
    if (!v) {
      c.close();
      usage("call: argument " + std::to_string(i + 1) + " '" + args[i] + "' is not a " +
            std::string(ua::builtin_type_name(type.value_or(ua::builtin_type::string))));
    }
    m.input_arguments.push_back(std::move(*v));
  }
  ua::call_request req;
  req.methods_to_call.push_back(std::move(m));
  auto r = c.call_sync(std::move(req));
  if (!r) service_failed(c, "Call", r.error());
  if (r->results.empty()) service_failed(c, "Call", ua::status::bad_unknown_response);
  const auto& result = r->results[0];
  auto style = a.style();
  server_structures structures(c);
  style.structures = &structures;
  if (style.json) {
    std::string outputs = "[", inputs = "[";
    for (const auto& out : result.output_arguments) outputs += (outputs.size() > 1 ? "," : "") + json_value(out, style);
    for (const auto& in : result.input_argument_results)
      inputs += (inputs.size() > 1 ? "," : "") + json_object().status(in).str();
    print_line(json_object()
                   .text("object", object_id.to_string())
                   .text("method", method_id.to_string())
                   .status(result.status_code)
                   .raw("outputs", outputs + "]")
                   .raw("inputResults", inputs + "]")
                   .str());
  } else {
    for (const auto& out : result.output_arguments) print_line(format_value(out, style));
    for (std::size_t i = 0; i < result.input_argument_results.size(); ++i)
      if (result.input_argument_results[i].is_bad())
        print_line("input " + std::to_string(i + 1) + "\t" + result.input_argument_results[i].to_string());
    print_line(result.status_code.to_string());
  }
  c.close();
  return result.status_code.is_good() ? exit_good : exit_bad;
}

}  // namespace uactor::app::client_cli
