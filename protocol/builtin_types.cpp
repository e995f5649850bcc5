// The small parts of the built-in types that are not codec: constructors, text forms.
#include "uactor/ua/builtin_types.hpp"

#include <cstdio>

namespace uactor::ua {

std::string guid::to_string() const {
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X", data1, data2, data3,
                data4[0], data4[1], data4[2], data4[3], data4[4], data4[5], data4[6], data4[7]);
  return buf;
}

node_id node_id::string(std::uint16_t ns, std::string_view s) {
  node_id n;
  n.set_string(ns, s);
  return n;
}

node_id node_id::guid_id(std::uint16_t ns, const ua::guid& g) {
  node_id n;
  n.set_guid(ns, g);
  return n;
}

node_id node_id::opaque(std::uint16_t ns, std::string_view bytes) {
  node_id n;
  n.set_string(ns, bytes, node_id_type::byte_string);
  return n;
}

bool node_id::is_null() const noexcept {
  if (ns_ != 0) return false;
  switch (type_) {
    case node_id_type::numeric: return numeric_ == 0;
    case node_id_type::guid: return guid_ == ua::guid{};
    default: return text_.empty();
  }
}

bool operator==(const node_id& a, const node_id& b) noexcept {
  if (a.ns_ != b.ns_ || a.type_ != b.type_) return false;
  switch (a.type_) {
    case node_id_type::numeric: return a.numeric_ == b.numeric_;
    case node_id_type::guid: return a.guid_ == b.guid_;
    default: return a.text_ == b.text_;
  }
}

namespace {
std::string base64(std::string_view in) {
  static constexpr char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (std::uint8_t(in[i]) << 16) | (std::uint8_t(in[i + 1]) << 8) | std::uint8_t(in[i + 2]);
    out += {table[v >> 18], table[(v >> 12) & 63], table[(v >> 6) & 63], table[v & 63]};
  }
  if (i + 1 == in.size()) {
    const unsigned v = std::uint8_t(in[i]) << 16;
    out += {table[v >> 18], table[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    const unsigned v = (std::uint8_t(in[i]) << 16) | (std::uint8_t(in[i + 1]) << 8);
    out += {table[v >> 18], table[(v >> 12) & 63], table[(v >> 6) & 63], '='};
  }
  return out;
}
}  // namespace

std::string node_id::to_string() const {
  std::string out = ns_ ? "ns=" + std::to_string(ns_) + ";" : std::string();
  switch (type_) {
    case node_id_type::numeric: return out + "i=" + std::to_string(numeric_);
    case node_id_type::string: return out + "s=" + text_;
    case node_id_type::guid: return out + "g=" + guid_.to_string();
    case node_id_type::byte_string: return out + "b=" + base64(text_);
  }
  return out;
}

}  // namespace uactor::ua
