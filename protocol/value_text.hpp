// Text forms of NodeIds and values as people type them (the CLI's arguments, the plant file's node
// ids and values): the inverse of node_id::to_string for the forms of Part 6 §5.3.1.10.
#pragma once

#include <string_view>

#include "uactor/ua/expected.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::ua {

// "ns=1;s=the.answer", "i=85", "ns=1;i=1000", "ns=2;g=72962B91-...", "ns=3;b=AQID" (base64)
// (Part 6 §5.3.1.10); Bad_NodeIdInvalid otherwise.
expected<node_id> parse_node_id(std::string_view text);

// A value of a built-in type from text: numbers, true/false, strings (quotes optional),
// 2026-01-01T00:00:00Z, Guids, 0x0102 byte strings, NodeIds, 0x80340000 status codes, 1:name,
// `en "text"` or text; an array as [a, b, c]. Bad_TypeMismatch when the text does not fit.
expected<variant> parse_value(builtin_type type, bool array, std::string_view text);

// "Int32", "Double", ... the name of a built-in type (Part 6 §5.1.2).
std::string_view builtin_type_name(builtin_type t) noexcept;

}  // namespace uactor::ua
