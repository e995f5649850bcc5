// The text form of a Guid (Part 6 §5.1.3): "72962B91-FA75-4AE6-8D28-B404DC7DAF63". guid::to_string
// (builtin_types.hpp) writes it, in upper case; it is defined in guid_text.cpp beside its inverse.
#pragma once

#include <string>
#include <string_view>

#include "uactor/ua/builtin_types.hpp"
#include "uactor/ua/expected.hpp"

namespace uactor::ua {

// Exactly 8-4-4-4-12 hex digits of either case, nothing around them. Bad_DecodingError otherwise;
// `why`, when given, says what is wrong.
expected<guid> parse_guid(std::string_view text, std::string* why = nullptr);

}  // namespace uactor::ua
