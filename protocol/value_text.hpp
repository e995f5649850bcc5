// Values as people type them (the CLI's arguments, the plant file's values). The text forms of
// NodeIds are node_id_text.hpp's, of Guids guid_text.hpp's.
#pragma once

#include <string_view>

#include "uactor/ua/expected.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::ua {

// A value of a built-in type from text: numbers, true/false, strings (quotes optional),
// 2026-01-01T00:00:00Z, Guids, 0x0102 byte strings, NodeIds and ExpandedNodeIds, 0x80340000 status
// codes, 1:name, `en "text"` or text; an array as [a, b, c]. Bad_TypeMismatch when the text does
// not fit.
expected<variant> parse_value(builtin_type type, bool array, std::string_view text);

// "Int32", "Double", ... the name of a built-in type (Part 6 §5.1.2).
std::string_view builtin_type_name(builtin_type t) noexcept;

}  // namespace uactor::ua
