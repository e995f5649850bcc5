// The small parts of the built-in types that are not codec: constructors, comparisons. Their text
// forms are in guid_text.cpp and node_id_text.cpp.
#include "uactor/ua/builtin_types.hpp"

namespace uactor::ua {

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

}  // namespace uactor::ua
