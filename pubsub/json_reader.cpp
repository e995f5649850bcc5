#include "pubsub/json_reader.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "uactor/ua/status_codes.hpp"

namespace uactor::pubsub {

std::string json_error::to_string() const {
  if (line == 0) return what;
  return std::to_string(line) + ":" + std::to_string(column) + " (offset " + std::to_string(offset) + "): " + what;
}

void json_reader::locate(std::size_t offset, std::size_t& line, std::size_t& column) const noexcept {
  line = 1;
  column = 1;
  for (std::size_t i = 0; i < offset && i < in_.size(); ++i) {
    if (in_[i] == '\n') ++line, column = 1;
    else ++column;
  }
}

bool json_reader::fail(std::size_t at, ua::status_code sc, std::string what) {
  error_.status = sc;
  error_.offset = at;
  locate(at, error_.line, error_.column);
  error_.what = std::move(what);
  return false;
}

std::uint32_t json_reader::add() {
  if (used_ == values_.size()) values_.emplace_back();
  auto& v = values_[used_];
  v.type = json_type::null;
  v.boolean = v.integral = false;
  v.number = 0;
  v.integer = 0;
  v.first_child = v.next = v.count = 0;
  v.offset = static_cast<std::uint32_t>(pos_);
  v.text.clear();
  v.name.clear();
  return static_cast<std::uint32_t>(used_++);
}

void json_reader::skip_space() noexcept {
  while (pos_ < in_.size() && (in_[pos_] == ' ' || in_[pos_] == '\t' || in_[pos_] == '\n' || in_[pos_] == '\r')) ++pos_;
}

bool json_reader::parse(std::string_view text) {
  in_ = text;
  pos_ = 0;
  used_ = 0;
  error_ = {};
  if (text.size() > limits_.max_bytes)
    return fail(0, ua::status::bad_encoding_limits_exceeded,
                "the text is " + std::to_string(text.size()) + " bytes, more than " + std::to_string(limits_.max_bytes));
  std::uint32_t root = 0;
  skip_space();
  if (!value(0, root)) return false;
  skip_space();
  if (pos_ != in_.size()) return fail(pos_, ua::status::bad_decoding_error, "text after the value");
  return true;
}

namespace {

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

// At the opening quote.
bool json_reader::string(std::string& out) {
  const std::size_t start = pos_;
  ++pos_;
  out.clear();
  while (true) {
    if (pos_ >= in_.size()) return fail(start, ua::status::bad_decoding_error, "a string without its closing quote");
    const char c = in_[pos_];
    if (c == '"') {
      ++pos_;
      return true;
    }
    if (static_cast<unsigned char>(c) < 0x20) return fail(pos_, ua::status::bad_decoding_error, "a control character in a string");
    if (out.size() >= limits_.max_string_bytes)
      return fail(start, ua::status::bad_encoding_limits_exceeded,
                  "a string longer than " + std::to_string(limits_.max_string_bytes) + " bytes");
    if (c != '\\') {
      out += c;
      ++pos_;
      continue;
    }
    if (pos_ + 1 >= in_.size()) return fail(pos_, ua::status::bad_decoding_error, "an escape at the end of the text");
    const char e = in_[pos_ + 1];
    pos_ += 2;
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        const auto read4 = [&](std::uint32_t& cp) {
          if (pos_ + 4 > in_.size()) return false;
          cp = 0;
          for (int k = 0; k < 4; ++k) {
            const int h = hex_value(in_[pos_ + static_cast<std::size_t>(k)]);
            if (h < 0) return false;
            cp = cp * 16 + static_cast<std::uint32_t>(h);
          }
          pos_ += 4;
          return true;
        };
        std::uint32_t cp = 0;
        if (!read4(cp)) return fail(pos_, ua::status::bad_decoding_error, "\\u needs four hex digits");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          std::uint32_t lo = 0;
          if (pos_ + 2 > in_.size() || in_[pos_] != '\\' || in_[pos_ + 1] != 'u')
            return fail(pos_, ua::status::bad_decoding_error, "a high surrogate without its low half");
          pos_ += 2;
          if (!read4(lo) || lo < 0xDC00 || lo > 0xDFFF)
            return fail(pos_, ua::status::bad_decoding_error, "a high surrogate without its low half");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return fail(pos_, ua::status::bad_decoding_error, "a lone low surrogate");
        }
        append_utf8(out, cp);
        break;
      }
      default: return fail(pos_ - 1, ua::status::bad_decoding_error, std::string("an unknown escape \\") + e);
    }
  }
}

bool json_reader::number(json_value& v) {
  const std::size_t start = pos_;
  std::size_t i = pos_;
  if (i < in_.size() && in_[i] == '-') ++i;
  if (i >= in_.size() || !(in_[i] >= '0' && in_[i] <= '9')) return fail(start, ua::status::bad_decoding_error, "not a number");
  if (in_[i] == '0') ++i;
  else while (i < in_.size() && in_[i] >= '0' && in_[i] <= '9') ++i;
  bool integral = true;
  if (i < in_.size() && in_[i] == '.') {
    integral = false;
    ++i;
    if (i >= in_.size() || !(in_[i] >= '0' && in_[i] <= '9')) return fail(i, ua::status::bad_decoding_error, "a digit must follow '.'");
    while (i < in_.size() && in_[i] >= '0' && in_[i] <= '9') ++i;
  }
  if (i < in_.size() && (in_[i] == 'e' || in_[i] == 'E')) {
    integral = false;
    ++i;
    if (i < in_.size() && (in_[i] == '+' || in_[i] == '-')) ++i;
    if (i >= in_.size() || !(in_[i] >= '0' && in_[i] <= '9')) return fail(i, ua::status::bad_decoding_error, "a digit must follow the exponent");
    while (i < in_.size() && in_[i] >= '0' && in_[i] <= '9') ++i;
  }
  if (i - start > 64) return fail(start, ua::status::bad_encoding_limits_exceeded, "a number longer than 64 characters");
  const std::string_view digits = in_.substr(start, i - start);
  // strtod needs a terminated buffer: the number is copied into a small one.
  char buf[72];
  digits.copy(buf, digits.size());
  buf[digits.size()] = '\0';
  v.number = std::strtod(buf, nullptr);
  v.type = json_type::number;
  v.integral = false;
  if (integral) {
    std::int64_t n = 0;
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (r.ec == std::errc() && r.ptr == digits.data() + digits.size()) {
      v.integer = n;
      v.integral = true;
    }
  }
  pos_ = i;
  return true;
}

bool json_reader::value(std::size_t depth, std::uint32_t& out) {
  if (used_ >= limits_.max_values)
    return fail(pos_, ua::status::bad_encoding_limits_exceeded, "more than " + std::to_string(limits_.max_values) + " values");
  if (pos_ >= in_.size()) return fail(pos_, ua::status::bad_decoding_error, "a value expected, the text ended");
  out = add();
  const char c = in_[pos_];
  const auto literal = [&](std::string_view word) { return in_.substr(pos_, word.size()) == word; };
  if (c == '{' || c == '[') {
    if (depth + 1 > limits_.max_depth)
      return fail(pos_, ua::status::bad_encoding_limits_exceeded, "nested deeper than " + std::to_string(limits_.max_depth));
    const bool object = c == '{';
    const char close = object ? '}' : ']';
    values_[out].type = object ? json_type::object : json_type::array;
    ++pos_;
    skip_space();
    if (pos_ < in_.size() && in_[pos_] == close) {
      ++pos_;
      return true;
    }
    std::uint32_t last = 0;
    std::uint32_t count = 0;
    std::string name;
    while (true) {
      skip_space();
      if (object) {
        if (pos_ >= in_.size() || in_[pos_] != '"') return fail(pos_, ua::status::bad_decoding_error, "a member name (a string) expected");
        if (!string(name)) return false;
        skip_space();
        if (pos_ >= in_.size() || in_[pos_] != ':') return fail(pos_, ua::status::bad_decoding_error, "expected ':' after a member name");
        ++pos_;
        skip_space();
      }
      std::uint32_t child = 0;
      if (!value(depth + 1, child)) return false;
      if (object) values_[child].name = name;
      if (last == 0) values_[out].first_child = child;
      else values_[last].next = child;
      last = child;
      ++count;
      skip_space();
      if (pos_ >= in_.size()) return fail(pos_, ua::status::bad_decoding_error, object ? "an object without its '}'" : "an array without its ']'");
      if (in_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (in_[pos_] == close) {
        ++pos_;
        values_[out].count = count;
        return true;
      }
      return fail(pos_, ua::status::bad_decoding_error, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  }
  if (c == '"') {
    values_[out].type = json_type::string;
    std::string s;
    s.swap(values_[out].text);
    const bool ok = string(s);
    s.swap(values_[out].text);
    return ok;
  }
  if (c == '-' || (c >= '0' && c <= '9')) return number(values_[out]);
  if (literal("true")) {
    values_[out].type = json_type::boolean;
    values_[out].boolean = true;
    pos_ += 4;
    return true;
  }
  if (literal("false")) {
    values_[out].type = json_type::boolean;
    pos_ += 5;
    return true;
  }
  if (literal("null")) {
    pos_ += 4;
    return true;
  }
  return fail(pos_, ua::status::bad_decoding_error, "a value expected");
}

const json_value* json_reader::member(const json_value& obj, std::string_view name) const noexcept {
  if (obj.type != json_type::object) return nullptr;
  for (auto i = obj.first_child; i != 0; i = values_[i].next)
    if (values_[i].name == name) return &values_[i];
  return nullptr;
}

}  // namespace uactor::pubsub
