// Tests of the Call service (Part 4 §5.11.2) over namespace 0 and a few methods of the test's own:
// the service result (Bad_NothingToDo, Bad_TooManyOperations) and each operation's status
// (Bad_NodeIdUnknown, Bad_NodeIdInvalid, Bad_MethodInvalid, Bad_NotExecutable, Bad_ArgumentsMissing,
// Bad_TooManyArguments, Bad_InvalidArgument with its inputArgumentResults, Bad_NotImplemented), the
// type check by DataType (subtypes, abstract types) and ValueRank, and methods inherited from a type.
#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "engine/server/services/call.hpp"
#include "uactor/ua/status_codes.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace server_call_service_test {

using namespace uactor;
using namespace uactor::ua;
using services::method_table;
using services::service_call;

namespace {

constexpr date_time now{133'000'000'000'000'000};

node_id t(std::string_view s) { return node_id::string(1, s); }

argument arg(std::string_view name, std::uint32_t data_type, std::int32_t value_rank = -1) {
  argument a;
  a.name = ua_string(name);
  a.data_type = node_id(0, data_type);
  a.value_rank = value_rank;
  return a;
}

void add(address_space& as, node_spec s) {
  if (!as.add_node(std::move(s))) throw std::logic_error("test node");
}
void link(address_space& as, const node_id& a, std::uint32_t type, const node_id& b) {
  if (as.add_reference(a, node_id(0, type), b).is_bad()) throw std::logic_error("test reference");
}

void add_arguments(address_space& as, const node_id& method, std::string_view property, std::vector<argument> args) {
  node_spec p;
  p.id = t(std::string(method.text()) + "." + std::string(property));
  p.cls = node_class::variable;
  p.browse_name = property;  // 0:InputArguments / 0:OutputArguments
  p.data_type = node_id(0, 296);
  p.value_rank = 1;
  ua_array<extension_object> value;
  for (auto& a : args) value.emplace_back(std::move(a));
  p.value.set_value(std::move(value));
  const node_id id = p.id;
  add(as, std::move(p));
  link(as, method, 46, id);  // HasProperty
}

void add_method(address_space& as, const node_id& parent, std::string_view name, std::vector<argument> in,
                std::vector<argument> out, bool executable = true, bool user_executable = true) {
  node_spec m;
  m.id = t(name);
  m.cls = node_class::method;
  m.browse_ns = 1;
  m.browse_name = name;
  m.executable = executable;
  m.user_executable = user_executable;
  add(as, std::move(m));
  link(as, parent, 47, t(name));  // HasComponent
  if (!in.empty()) add_arguments(as, t(name), "InputArguments", std::move(in));
  if (!out.empty()) add_arguments(as, t(name), "OutputArguments", std::move(out));
}

// Namespace 0 plus, in ns=1:
//   obj (BaseObjectType)         with  sum(Double, Double) -> Double   (also: Number, Number)
//                                      any(BaseDataType) -> BaseDataType
//                                      ints(Int32[]) -> UInt32 (the count)
//                                      fails() -> Bad_UserAccessDenied;  throws() -> an exception
//                                      off() Executable false;  user_off() UserExecutable false
//                                      unimplemented() with no table entry
//   other (BaseObjectType)       no methods
//   typ (an ObjectType)          with  inherited() -> String;  inst, an instance of typ
struct fixture {
  address_space as;
  method_table methods;
  fixture() {
    load_namespace0(as);
    for (const char* name : {"obj", "other"}) {
      node_spec o;
      o.id = t(name);
      o.cls = node_class::object;
      o.browse_ns = 1;
      o.browse_name = name;
      add(as, std::move(o));
      link(as, node_id(0, 85), 35, t(name));
      link(as, t(name), 40, node_id(0, 58));
    }
    add_method(as, t("obj"), "sum", {arg("a", 11), arg("b", 11)}, {arg("sum", 11)});
    add_method(as, t("obj"), "number_sum", {arg("a", 26), arg("b", 26)}, {arg("sum", 11)});
    add_method(as, t("obj"), "any", {arg("x", 24)}, {arg("x", 24)});
    add_method(as, t("obj"), "ints", {arg("xs", 6, 1)}, {arg("n", 7)});
    add_method(as, t("obj"), "fails", {}, {});
    add_method(as, t("obj"), "throws", {}, {});
    add_method(as, t("obj"), "off", {}, {}, false, true);
    add_method(as, t("obj"), "user_off", {}, {}, true, false);
    add_method(as, t("obj"), "unimplemented", {}, {});
    add_method(as, t("obj"), "wrong_outputs", {}, {arg("x", 6)});

    node_spec typ;
    typ.id = t("typ");
    typ.cls = node_class::object_type;
    typ.browse_ns = 1;
    typ.browse_name = "typ";
    add(as, std::move(typ));
    link(as, node_id(0, 58), 45, t("typ"));  // HasSubtype from BaseObjectType
    add_method(as, t("typ"), "inherited", {}, {arg("s", 12)});
    node_spec inst;
    inst.id = t("inst");
    inst.cls = node_class::object;
    inst.browse_ns = 1;
    inst.browse_name = "inst";
    add(as, std::move(inst));
    link(as, t("inst"), 40, t("typ"));

    const auto sum = [](std::span<const variant> in, std::vector<variant>& out) {
      const auto number = [](const variant& v) {
        if (const auto* d = v.get_if<double>()) return *d;
        return static_cast<double>(*v.get_if<std::int32_t>());
      };
      out.emplace_back(number(in[0]) + number(in[1]));
      return status::good;
    };
    methods.add(t("sum"), sum);
    methods.add(t("number_sum"), sum);
    methods.add(t("any"), [](std::span<const variant> in, std::vector<variant>& out) {
      out.assign(in.begin(), in.end());
      return status::good;
    });
    methods.add(t("ints"), [](std::span<const variant> in, std::vector<variant>& out) {
      out.emplace_back(static_cast<std::uint32_t>(in[0].get_if<ua_array<std::int32_t>>()->size()));
      return status::good;
    });
    methods.add(t("fails"), [](std::span<const variant>, std::vector<variant>& out) {
      out.emplace_back(std::int32_t{1});  // dropped: the call failed
      return status::bad_user_access_denied;
    });
    methods.add(t("throws"), [](std::span<const variant>, std::vector<variant>&) -> status_code {
      throw std::runtime_error("method bug");
    });
    methods.add(t("off"), [](std::span<const variant>, std::vector<variant>&) { return status::good; });
    methods.add(t("user_off"), [](std::span<const variant>, std::vector<variant>&) { return status::good; });
    methods.add(t("wrong_outputs"), [](std::span<const variant>, std::vector<variant>&) { return status::good; });
    methods.add(t("inherited"), [](std::span<const variant>, std::vector<variant>& out) {
      out.emplace_back(ua_string("from the type"));
      return status::good;
    });
  }
};

fixture& shared() {
  static fixture f;  // the methods change nothing in the store
  return f;
}

call_method_request request(node_id object, node_id method, std::vector<variant> inputs = {}) {
  call_method_request m;
  m.object_id = std::move(object);
  m.method_id = std::move(method);
  m.input_arguments.assign(inputs.begin(), inputs.end());
  return m;
}

call_method_result call(call_method_request m) {
  call_request req;
  req.methods_to_call = {std::move(m)};
  call_response resp;
  service_call(req, resp, shared().as, shared().methods, now);
  REQUIRE(resp.response_header.service_result == status::good);
  REQUIRE(resp.results.size() == 1);
  return resp.results[0];
}

status_code status_of(node_id object, node_id method, std::vector<variant> inputs = {}) {
  return call(request(std::move(object), std::move(method), std::move(inputs))).status_code;
}

}  // namespace

TEST_CASE("call: an empty or too long request is refused in the service result, with no results", "[actors]") {
  auto& f = shared();
  call_request req;
  req.request_header.request_handle = 42;
  call_response resp;
  service_call(req, resp, f.as, f.methods, now);
  CHECK(resp.response_header.service_result == status::bad_nothing_to_do);
  CHECK(resp.response_header.request_handle == 42);
  CHECK(resp.response_header.timestamp == now);
  CHECK(resp.results.empty());

  req.methods_to_call = {request(t("obj"), t("sum"), {1.0, 2.0}), request(t("obj"), t("sum"), {1.0, 2.0}),
                         request(t("obj"), t("sum"), {1.0, 2.0})};
  services::service_limits limits;
  limits.max_nodes_per_method_call = 2;
  service_call(req, resp, f.as, f.methods, now, limits);
  CHECK(resp.response_header.service_result == status::bad_too_many_operations);
  CHECK(resp.results.empty());

  limits.max_nodes_per_method_call = 3;
  service_call(req, resp, f.as, f.methods, now, limits);
  CHECK(resp.response_header.service_result == status::good);
  REQUIRE(resp.results.size() == 3);
  for (const auto& r : resp.results) CHECK(*r.output_arguments.at(0).get_if<double>() == 3.0);
}

TEST_CASE("call: each operation gets its own result, in order", "[actors]") {
  auto& f = shared();
  call_request req;
  req.methods_to_call = {request(t("obj"), t("sum"), {1.5, 2.0}), request(t("nope"), t("sum")),
                         request(t("obj"), t("any"), {ua_string("x")})};
  call_response resp;
  service_call(req, resp, f.as, f.methods, now);
  REQUIRE(resp.results.size() == 3);
  CHECK(resp.results[0].status_code == status::good);
  CHECK(*resp.results[0].output_arguments[0].get_if<double>() == 3.5);
  CHECK(resp.results[1].status_code == status::bad_node_id_unknown);
  CHECK(resp.results[1].output_arguments.empty());
  CHECK(resp.results[2].output_arguments[0].get_if<ua_string>()->view() == "x");

  // A reused response: the previous outputs do not leak into a failed operation.
  req.methods_to_call = {request(t("obj"), t("nope"))};
  service_call(req, resp, f.as, f.methods, now);
  REQUIRE(resp.results.size() == 1);
  CHECK(resp.results[0].status_code == status::bad_method_invalid);
  CHECK(resp.results[0].output_arguments.empty());
  CHECK(resp.results[0].input_argument_results.empty());
}

TEST_CASE("call: an unknown object is Bad_NodeIdUnknown, a node that is no Object is Bad_NodeIdInvalid", "[actors]") {
  CHECK(status_of(t("nope"), t("sum"), {1.0, 2.0}) == status::bad_node_id_unknown);
  CHECK(status_of(node_id(0, 2255), t("sum"), {1.0, 2.0}) == status::bad_node_id_invalid);  // a Variable
  CHECK(status_of(t("sum"), t("sum"), {1.0, 2.0}) == status::bad_node_id_invalid);          // a Method
}

TEST_CASE("call: an unknown method, a node that is no Method, or another object's method is Bad_MethodInvalid",
          "[actors]") {
  CHECK(status_of(t("obj"), t("nope")) == status::bad_method_invalid);
  CHECK(status_of(t("obj"), t("obj")) == status::bad_method_invalid);                           // an Object
  CHECK(status_of(t("obj"), t("sum.InputArguments")) == status::bad_method_invalid);            // a Variable
  CHECK(status_of(t("other"), t("sum"), {1.0, 2.0}) == status::bad_method_invalid);             // not its component
  CHECK(status_of(node_id(0, 2253), t("sum"), {1.0, 2.0}) == status::bad_method_invalid);       // Server
  CHECK(status_of(t("obj"), t("inherited")) == status::bad_method_invalid);
}

TEST_CASE("call: a method of the object's type (or of the type itself) may be called on it", "[actors]") {
  auto r = call(request(t("inst"), t("inherited")));
  REQUIRE(r.status_code == status::good);
  CHECK(r.output_arguments.at(0).get_if<ua_string>()->view() == "from the type");
  CHECK(status_of(t("typ"), t("inherited")) == status::good);
}

TEST_CASE("call: Executable or UserExecutable false is Bad_NotExecutable", "[actors]") {
  CHECK(status_of(t("obj"), t("off")) == status::bad_not_executable);
  CHECK(status_of(t("obj"), t("user_off")) == status::bad_not_executable);
}

TEST_CASE("call: too few inputs are Bad_ArgumentsMissing, too many Bad_TooManyArguments", "[actors]") {
  CHECK(status_of(t("obj"), t("sum")) == status::bad_arguments_missing);
  CHECK(status_of(t("obj"), t("sum"), {1.0}) == status::bad_arguments_missing);
  CHECK(status_of(t("obj"), t("sum"), {1.0, 2.0, 3.0}) == status::bad_too_many_arguments);
  CHECK(status_of(t("obj"), t("fails"), {1.0}) == status::bad_too_many_arguments);  // no InputArguments: none
}

TEST_CASE("call: a mistyped input is Bad_InvalidArgument with Bad_TypeMismatch for it and Good for the others",
          "[actors]") {
  auto r = call(request(t("obj"), t("sum"), {ua_string("1"), 2.0}));
  CHECK(r.status_code == status::bad_invalid_argument);
  CHECK(r.input_argument_results == ua_array<status_code>{status::bad_type_mismatch, status::good});
  CHECK(r.output_arguments.empty());

  r = call(request(t("obj"), t("sum"), {std::int32_t{1}, 2.0f}));  // Int32 and Float are not Double
  CHECK(r.status_code == status::bad_invalid_argument);
  CHECK(r.input_argument_results == ua_array<status_code>{status::bad_type_mismatch, status::bad_type_mismatch});

  r = call(request(t("obj"), t("sum"), {variant{}, 2.0}));  // a null value has no type
  CHECK(r.input_argument_results == ua_array<status_code>{status::bad_type_mismatch, status::good});

  // ValueRank: an array where a scalar is declared, and the reverse.
  r = call(request(t("obj"), t("sum"), {1.0, ua_array<double>{2.0}}));
  CHECK(r.input_argument_results == ua_array<status_code>{status::good, status::bad_type_mismatch});
  r = call(request(t("obj"), t("ints"), {std::int32_t{1}}));
  CHECK(r.input_argument_results == ua_array<status_code>{status::bad_type_mismatch});
  r = call(request(t("obj"), t("ints"), {ua_array<std::int32_t>{1, 2, 3}}));
  REQUIRE(r.status_code == status::good);
  CHECK(*r.output_arguments.at(0).get_if<std::uint32_t>() == 3);
  CHECK(r.input_argument_results.empty());  // only a Bad_InvalidArgument lists them
}

TEST_CASE("call: an abstract DataType takes its subtypes: Number takes Int32 and Double, BaseDataType anything",
          "[actors]") {
  auto r = call(request(t("obj"), t("number_sum"), {std::int32_t{2}, 0.5}));
  REQUIRE(r.status_code == status::good);
  CHECK(*r.output_arguments.at(0).get_if<double>() == 2.5);
  r = call(request(t("obj"), t("number_sum"), {ua_string("2"), 0.5}));
  CHECK(r.status_code == status::bad_invalid_argument);
  CHECK(r.input_argument_results == ua_array<status_code>{status::bad_type_mismatch, status::good});

  for (const variant& v : {variant(ua_string("s")), variant(std::int64_t{-1}), variant(node_id(0, 85)), variant{}}) {
    r = call(request(t("obj"), t("any"), {v}));
    REQUIRE(r.status_code == status::good);
    CHECK(r.output_arguments.at(0) == v);
  }
}

TEST_CASE("call: a Method without an implementation is Bad_NotImplemented", "[actors]") {
  CHECK(status_of(t("obj"), t("unimplemented")) == status::bad_not_implemented);
  // Namespace 0's methods have none yet either: Server.GetMonitoredItems(UInt32).
  CHECK(status_of(node_id(0, 2253), node_id(0, 11492), {std::uint32_t{1}}) == status::bad_not_implemented);
  CHECK(status_of(node_id(0, 2253), node_id(0, 11492), {ua_string("1")}) == status::bad_invalid_argument);
}

TEST_CASE("call: a method's own bad status is the result, without outputs, a throwing one is Bad_InternalError",
          "[actors]") {
  auto r = call(request(t("obj"), t("fails")));
  CHECK(r.status_code == status::bad_user_access_denied);
  CHECK(r.output_arguments.empty());
  CHECK(status_of(t("obj"), t("throws")) == status::bad_internal_error);
  CHECK(status_of(t("obj"), t("wrong_outputs")) == status::bad_internal_error);  // declares one, gave none
}

TEST_CASE("method_table: add replaces, find by NodeId of any kind", "[actors]") {
  method_table m;
  const auto one = [](std::span<const variant>, std::vector<variant>&) { return status::good; };
  const auto two = [](std::span<const variant>, std::vector<variant>&) { return status::bad_internal_error; };
  m.add(t("a"), one);
  m.add(node_id(1, 7), one);
  m.add(node_id::guid_id(1, guid{1, 2, 3, {4}}), one);
  m.add(t("a"), two);
  CHECK(m.size() == 3);
  std::vector<variant> out;
  REQUIRE(m.find(t("a")));
  CHECK((*m.find(t("a")))({}, out) == status::bad_internal_error);
  CHECK(m.find(node_id(1, 7)));
  CHECK(m.find(node_id::guid_id(1, guid{1, 2, 3, {4}})));
  CHECK_FALSE(m.find(node_id(2, 7)));
  CHECK_FALSE(m.find(t("b")));
}

}  // namespace server_call_service_test
