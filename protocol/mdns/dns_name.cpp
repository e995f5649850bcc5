// RFC 1035 §3.1 and §4.1.4: names on the wire and their compression.
#include "protocol/mdns/dns_name.hpp"

#include <algorithm>

namespace uactor::ua::dns {

namespace mdns_dns_name {

char lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace mdns_dns_name

bool split_name(std::string_view text, std::vector<std::string>& labels) {
  labels.clear();
  if (text.empty()) return true;  // the root
  std::string label;
  std::size_t wire = 1;  // the root's length octet
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '.') {
      if (label.empty() || label.size() > max_label) return false;
      wire += 1 + label.size();
      labels.push_back(std::move(label));
      label.clear();
      continue;
    }
    if (text[i] == '\\') {
      if (++i == text.size()) return false;
    }
    label += text[i];
  }
  return wire <= max_name;
}

std::string escape_label(std::string_view label) {
  std::string out;
  out.reserve(label.size());
  for (const char c : label) {
    if (c == '.' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

namespace mdns_dns_name {

// The end of the first label of a text name (the index of its unescaped '.', or the size).
std::size_t first_dot(std::string_view text) noexcept {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
      continue;
    }
    if (text[i] == '.') return i;
  }
  return text.size();
}

}  // namespace mdns_dns_name

std::string first_label(std::string_view text) {
  const std::size_t end = mdns_dns_name::first_dot(text);
  std::string out;
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\\' && i + 1 < end) ++i;
    out += text[i];
  }
  return out;
}

std::string_view after_first_label(std::string_view text) {
  const std::size_t end = mdns_dns_name::first_dot(text);
  return end < text.size() ? text.substr(end + 1) : std::string_view{};
}

bool same_name(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return mdns_dns_name::lower(x) == mdns_dns_name::lower(y);
         });
}

bool read_name(std::span<const std::uint8_t> msg, std::size_t& pos, std::size_t max_hops, std::string& out,
               error& e) {
  out.clear();
  std::size_t at = pos;
  std::size_t wire = 1;  // the root's length octet
  std::size_t hops = 0;
  bool jumped = false;
  const auto fail = [&e](std::size_t offset, const char* what) {
    e.offset = offset;
    e.what = what;
    return false;
  };
  for (;;) {
    if (at >= msg.size()) return fail(at, "name runs past the end of the message");
    const std::uint8_t len = msg[at];
    if (len == 0) {
      if (!jumped) pos = at + 1;
      return true;
    }
    if ((len & 0xC0) == 0xC0) {
      if (at + 1 >= msg.size()) return fail(at, "compression pointer cut off");
      const std::size_t target = (static_cast<std::size_t>(len & 0x3F) << 8) | msg[at + 1];
      // Only backwards (RFC 1035 §4.1.4: to a prior occurrence): no loop can form.
      if (target >= at) return fail(at, "compression pointer does not point backwards");
      if (++hops > max_hops) return fail(at, "too many compression pointers in one name");
      if (!jumped) pos = at + 2;
      jumped = true;
      at = target;
      continue;
    }
    if ((len & 0xC0) != 0) return fail(at, "label type not supported (RFC 6891 §5)");
    if (at + 1 + len > msg.size()) return fail(at, "label runs past the end of the message");
    wire += 1 + len;
    if (wire > max_name) return fail(at, "name longer than 255 octets");
    if (!out.empty()) out += '.';
    out += escape_label(std::string_view(reinterpret_cast<const char*>(msg.data() + at + 1), len));
    at += 1 + len;
  }
}

}  // namespace uactor::ua::dns
