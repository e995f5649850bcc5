// The Call service (Part 4 §5.11.2) as a plain function over the address space, and the table of
// method implementations it runs. The caller owns the request, the response and the table.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/server/services/access_attributes.hpp"
#include "engine/server/services/service_limits.hpp"
#include "protocol/address_space.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::services {

// A method's implementation. The inputs are already checked against the method's InputArguments
// (count, and each one's DataType and ValueRank: an input is empty only where the DataType is
// BaseDataType). It appends one output per OutputArgument to `outputs` (empty on entry) and returns
// Good or the method's own bad status (then the outputs are dropped).
using method_function =
    std::function<ua::status_code(std::span<const ua::variant> inputs, std::vector<ua::variant>& outputs)>;

// Method NodeId -> implementation. A method node without an entry answers Bad_NotImplemented.
class method_table {
public:
  // Adds or replaces the implementation of the Method node `method`.
  void add(const ua::node_id& method, method_function f);
  // The implementation of `method`, or null.
  const method_function* find(const ua::node_id& method) const;
  std::size_t size() const noexcept { return table_.size(); }

private:
  struct hash {
    std::size_t operator()(const ua::node_id& id) const noexcept;
  };
  std::unordered_map<ua::node_id, method_function, hash> table_;
};

// The whole request: Bad_NothingToDo and Bad_TooManyOperations (limits.max_nodes_per_method_call)
// in the service result, and no results; otherwise one call_operation per item. `now` is the
// response's timestamp.
void service_call(const ua::call_request& req, ua::call_response& resp, ua::address_space& as,
                  const method_table& methods, ua::date_time now, const service_limits& limits = {},
                  const node_access& access = {});

// One CallMethodRequest into `out` (its storage reused). Its status: Bad_NodeIdUnknown (no such
// object), Bad_NodeIdInvalid (the object is not an Object or ObjectType), Bad_MethodInvalid (no such
// node, not a Method, or not a component of the object, its ObjectType or a supertype),
// Bad_NotExecutable (Executable or UserExecutable false), Bad_ArgumentsMissing,
// Bad_TooManyArguments, Bad_InvalidArgument (inputArgumentResults then holds Bad_TypeMismatch for
// each mistyped input and Good for the others), Bad_NotImplemented (no implementation in
// `methods`), or what the implementation returns. Bad_UserAccessDenied: the session's roles lack
// Call on the object or on the method (Part 3 §8.55).
void call_operation(const ua::call_method_request& req, const ua::address_space& as, const method_table& methods,
                    ua::call_method_result& out, const node_access& access = {});

// The checks of call_operation before the implementation runs: Good with `method` set, or the
// status (also in `out`). For methods the application implements (docs/embedding.md).
ua::status_code check_call(const ua::call_method_request& req, const ua::address_space& as,
                           ua::call_method_result& out, ua::node_index& method, const node_access& access = {});

// The value of a Method's InputArguments or OutputArguments property (Part 3 §5.7.1: an array of
// Argument ExtensionObjects; an element whose body is not an Argument counts as an argument of any
// type). Empty when the method has no such property. A view into the store; allocates nothing.
std::span<const ua::extension_object> method_arguments(const ua::address_space& as, ua::node_index method,
                                                       std::string_view property_name);

}  // namespace uactor::services
