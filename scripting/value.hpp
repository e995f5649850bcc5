// The values a script sees and returns: the few Lua can hold (nil, boolean, integer, number,
// string), converted from and to the server's Variants here. Plain data, shared by the engine, the
// worker frames and the runners.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "uactor/ua/builtin_types.hpp"
#include "uactor/ua/status_code.hpp"
#include "uactor/ua/variant.hpp"

namespace uactor::scripting {

using script_value = std::variant<std::monostate, bool, std::int64_t, double, std::string>;

// A Variant as a script sees it: numbers of every width become integers or numbers, Boolean and
// String stay; everything else (arrays, structures, ...) is nil.
script_value from_variant(const ua::variant& v);

// A script's result as a value of `type` (the output variable's DataType): Bad_TypeMismatch when
// it does not fit (a string for a Double, nil), Bad_OutOfRange when a number is outside the
// type's range. Numbers convert between integer and floating types (integers truncate toward zero
// only when the number is integral; 2.5 for an Int32 is Bad_TypeMismatch).
ua::status_code to_variant(const script_value& v, ua::builtin_type type, ua::variant& out);

// Lua's truth: nil and false are false, everything else (0 too) is true.
inline bool truthy(const script_value& v) {
  if (std::holds_alternative<std::monostate>(v)) return false;
  if (const bool* b = std::get_if<bool>(&v)) return *b;
  return true;
}

}  // namespace uactor::scripting
