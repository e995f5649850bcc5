// A JSON string literal (RFC 8259 §7): the CLI's --json output and the JSON log lines escape the
// same way.
#pragma once

#include <string>
#include <string_view>

namespace uactor::ua {

// Quotes, backslashes and control characters escaped; bytes that are not UTF-8 become U+FFFD, so
// that the output is always valid JSON whatever the server sent.
std::string json_string(std::string_view s);
// The same appended to `out` (PubSub's JSON messages reuse one string: nothing is allocated once
// it has grown).
void append_json_string(std::string& out, std::string_view s);

}  // namespace uactor::ua
