// A bounded JSON reader (RFC 8259) for the PubSub subscriber: text in, a flat tree of values out,
// never a socket. Every limit (size, nesting, values, string length) is checked before memory is
// taken for it; a refusal names the status, the byte offset, line and column, and why.
// Owns the tree it hands out; reuse one reader to keep its storage between messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "uactor/ua/status_code.hpp"

namespace uactor::pubsub {

struct json_limits {
  std::size_t max_bytes = 1 << 20;       // the whole text
  std::size_t max_depth = 32;            // nested objects and arrays
  std::size_t max_values = 100'000;      // every value of the tree, members and elements
  std::size_t max_string_bytes = 65'536; // one string or member name, decoded
};

// Where and why a text was refused (or a message did not fit its schema).
struct json_error {
  ua::status_code status;      // Bad_DecodingError, or Bad_EncodingLimitsExceeded for a limit
  std::size_t offset = 0;      // bytes from the start
  std::size_t line = 0, column = 0;  // 1-based; 0 when the error is about the schema, not the text
  std::string what;
  std::string to_string() const;  // "1:17 (offset 16): expected ':' after a member name"
};

enum class json_type : std::uint8_t { null, boolean, number, string, array, object };

// One value of the tree. Children of an object or array are `first_child`, then each `next`.
struct json_value {
  json_type type = json_type::null;
  bool boolean = false;
  bool integral = false;          // a number written without fraction or exponent
  double number = 0;
  std::int64_t integer = 0;       // exact when integral and within int64
  std::uint32_t first_child = 0;  // 0: none (index 0 is the root, never a child)
  std::uint32_t next = 0;         // 0: last
  std::uint32_t count = 0;        // members or elements
  std::uint32_t offset = 0;       // where it starts in the text
  std::string text;               // a string's decoded value; a member's name is in `name`
  std::string name;               // the member name, for a member of an object
};

class json_reader {
public:
  explicit json_reader(json_limits limits = {}) : limits_(limits) {}

  // Parses `text`; false with error() set when it is not one JSON value within the limits.
  bool parse(std::string_view text);
  const json_error& error() const noexcept { return error_; }

  const json_value& root() const noexcept { return values_[0]; }
  const json_value& at(std::uint32_t i) const noexcept { return values_[i]; }
  // The member `name` of object `obj`, or null.
  const json_value* member(const json_value& obj, std::string_view name) const noexcept;
  // Iterates children: for (auto i = first(v); i; i = next(i)).
  std::uint32_t first(const json_value& v) const noexcept { return v.first_child; }
  std::uint32_t next(std::uint32_t i) const noexcept { return values_[i].next; }
  // Line and column of a byte offset of the last text parsed.
  void locate(std::size_t offset, std::size_t& line, std::size_t& column) const noexcept;
  const json_limits& limits() const noexcept { return limits_; }

private:
  bool fail(std::size_t at, ua::status_code sc, std::string what);
  bool value(std::size_t depth, std::uint32_t& out);
  bool string(std::string& out);
  bool number(json_value& v);
  void skip_space() noexcept;
  std::uint32_t add();

  json_limits limits_;
  std::string_view in_;
  std::size_t pos_ = 0;
  std::vector<json_value> values_;
  std::size_t used_ = 0;
  json_error error_;
};

}  // namespace uactor::pubsub
