// The client subcommands of the `uactor` CLI: read, write, browse, call, subscribe, for a person at a
// terminal. Each connects with uactor::client, prints one line per item, and exits 0 when every
// operation is Good, 1 otherwise, 2 for a usage or connection error. Also the text forms of NodeIds
// and values they use (plain functions; the caller owns what they return).
#pragma once

#include <string>
#include <string_view>

#include "protocol/expected.hpp"
#include "protocol/generated/types.hpp"

namespace CLI {
class App;
}

namespace uactor::app {

// Adds `read`, `write`, `browse`, `call` and `subscribe` to the app. Their callbacks end the program's parse
// with CLI::RuntimeError(exit code), which CLI11_PARSE returns from main.
void add_client_commands(CLI::App& app);

// "ns=1;s=the.answer", "i=85", "ns=1;i=1000", "ns=2;g=72962B91-...", "ns=3;b=AQID" (base64)
// (Part 6 §5.3.1.10); Bad_NodeIdInvalid otherwise.
ua::expected<ua::node_id> parse_node_id(std::string_view text);

// A value of a built-in type from text: numbers, true/false, strings (quotes optional),
// 2026-01-01T00:00:00Z, Guids, 0x0102 byte strings, NodeIds, 0x80340000 status codes, 1:name,
// `en "text"` or text; an array as [a, b, c]. Bad_TypeMismatch when the text does not fit.
ua::expected<ua::variant> parse_value(ua::builtin_type type, bool array, std::string_view text);

// `uactor subscribe --events --where EXPR` (docs/cli.md): "FIELD OP VALUE", FIELD a path of
// `event_type`'s fields as --select takes them ("Severity", "ActiveState/Id"), OP one of == != < <=
// > >= like (Part 4 §7.7.3: Equals, Not over Equals, LessThan, ..., Like), VALUE true/false
// (Boolean), an integer (Int32, Int64 beyond), a decimal number (Double), a NodeId with its i=, s=,
// g=, b= or ns= prefix, '...' or "..." (a String as quoted) or other text (a String). `negated`:
// the element is to hold not (!=). Empty `why` when it parsed; else what is wrong with it.
struct where_condition {
  ua::content_filter_element element;
  bool negated = false;
};
where_condition parse_where(std::string_view text, const ua::node_id& event_type, std::string& why);

// "Int32 43", "Double[] [-1.25, 0, 1.25]", "String \"uactor\"".
std::string format_value(const ua::variant& v);
std::string_view builtin_type_name(ua::builtin_type t) noexcept;

}  // namespace uactor::app
