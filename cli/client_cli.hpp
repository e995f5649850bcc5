// The client subcommands of the `uactor` CLI: read, write, browse, call, subscribe, for a person at a
// terminal. Each connects with uactor::client, prints one line per item, and exits 0 when every
// operation is Good, 1 otherwise, 2 for a usage or connection error. The text forms of NodeIds and
// values they parse are protocol/node_id_text.hpp's and protocol/value_text.hpp's.
#pragma once

#include <string>
#include <string_view>

#include "uactor/ua/expected.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "protocol/node_id_text.hpp"
#include "protocol/value_text.hpp"

namespace CLI {
class App;
}

namespace uactor::app {

// Adds `read`, `write`, `browse`, `call` and `subscribe` to the app. Their callbacks end the program's parse
// with CLI::RuntimeError(exit code), which CLI11_PARSE returns from main.
void add_client_commands(CLI::App& app);

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

}  // namespace uactor::app
