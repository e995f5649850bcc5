// RFC 1035 §4.1 on the way out, with §4.1.4's compression.
#include "protocol/mdns/dns_writer.hpp"

#include <map>

#include "protocol/mdns/dns_name.hpp"

namespace uactor::ua::dns {

namespace mdns_dns_writer {

struct writer {
  std::vector<std::uint8_t>& out;
  bool compress;
  std::string& why;
  // Each suffix written (its labels in wire form), at its offset (pointers reach 14 bits). Matched with
  // case (DNS names compare without it, RFC 1035 §2.3.3, but a name reads back as it was written).
  std::map<std::string, std::size_t> suffixes;

  void u16(std::uint16_t v) {
    out.push_back(static_cast<std::uint8_t>(v >> 8));
    out.push_back(static_cast<std::uint8_t>(v));
  }
  void u32(std::uint32_t v) {
    u16(static_cast<std::uint16_t>(v >> 16));
    u16(static_cast<std::uint16_t>(v));
  }
  static std::string key(const std::vector<std::string>& labels, std::size_t from) {
    std::string k;
    // Length-prefixed as on the wire: a label may hold any octet, a separator would be ambiguous.
    for (std::size_t i = from; i < labels.size(); ++i) {
      k += static_cast<char>(labels[i].size());
      k += labels[i];
    }
    return k;
  }
  bool name(std::string_view text) {
    std::vector<std::string> labels;
    if (!split_name(text, labels)) {
      why = "not a valid DNS name: \"" + std::string(text) + "\"";
      return false;
    }
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (compress) {
        const std::string k = key(labels, i);
        if (const auto it = suffixes.find(k); it != suffixes.end()) {
          u16(static_cast<std::uint16_t>(0xC000 | it->second));
          return true;
        }
        if (out.size() < 0x3FFF) suffixes.emplace(k, out.size());
      }
      out.push_back(static_cast<std::uint8_t>(labels[i].size()));
      out.insert(out.end(), labels[i].begin(), labels[i].end());
    }
    out.push_back(0);
    return true;
  }
  bool record_(const record& r) {
    if (!name(r.name)) return false;
    u16(r.type);
    u16(static_cast<std::uint16_t>(r.klass | (r.cache_flush ? class_top_bit : 0)));
    u32(r.ttl);
    const std::size_t length_at = out.size();
    u16(0);
    const std::size_t start = out.size();
    switch (static_cast<record_type>(r.type)) {
      case record_type::a:
        out.insert(out.end(), r.a.begin(), r.a.end());
        break;
      case record_type::aaaa:
        out.insert(out.end(), r.aaaa.begin(), r.aaaa.end());
        break;
      case record_type::ptr:
        if (!name(r.ptr)) return false;
        break;
      case record_type::srv:
        u16(r.srv.priority);
        u16(r.srv.weight);
        u16(r.srv.port);
        // RFC 2782 asks for no compression of the target; mDNS (RFC 6762 §18.14) allows it.
        if (!name(r.srv.target)) return false;
        break;
      case record_type::txt:
        // RFC 6763 §6.1: an empty TXT record is a single empty string.
        if (r.txt.empty()) out.push_back(0);
        for (const auto& s : r.txt) {
          if (s.size() > 255) {
            why = "TXT string longer than 255 octets";
            return false;
          }
          out.push_back(static_cast<std::uint8_t>(s.size()));
          out.insert(out.end(), s.begin(), s.end());
        }
        break;
      default:
        why = "record type " + std::to_string(r.type) + " is not written";
        return false;
    }
    const std::size_t len = out.size() - start;
    if (len > 0xFFFF) {
      why = "record data longer than 65535 octets";
      return false;
    }
    out[length_at] = static_cast<std::uint8_t>(len >> 8);
    out[length_at + 1] = static_cast<std::uint8_t>(len);
    return true;
  }
};

}  // namespace mdns_dns_writer

bool write_message(const message& m, std::vector<std::uint8_t>& out, std::string& why, bool compress,
                   std::size_t max_bytes) {
  out.clear();
  if (m.questions.size() > 0xFFFF || m.answers.size() > 0xFFFF || m.authorities.size() > 0xFFFF ||
      m.additionals.size() > 0xFFFF) {
    why = "more than 65535 entries in a section";
    return false;
  }
  mdns_dns_writer::writer w{out, compress, why, {}};
  w.u16(m.id);
  w.u16(m.flags);
  w.u16(static_cast<std::uint16_t>(m.questions.size()));
  w.u16(static_cast<std::uint16_t>(m.answers.size()));
  w.u16(static_cast<std::uint16_t>(m.authorities.size()));
  w.u16(static_cast<std::uint16_t>(m.additionals.size()));
  for (const auto& q : m.questions) {
    if (!w.name(q.name)) return false;
    w.u16(q.type);
    w.u16(static_cast<std::uint16_t>(q.klass | (q.unicast_response ? class_top_bit : 0)));
  }
  for (const auto* section : {&m.answers, &m.authorities, &m.additionals})
    for (const auto& r : *section)
      if (!w.record_(r)) return false;
  if (out.size() > max_bytes) {
    why = "message of " + std::to_string(out.size()) + " octets is larger than " + std::to_string(max_bytes);
    return false;
  }
  return true;
}

}  // namespace uactor::ua::dns
