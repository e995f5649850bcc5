// RFC 1035 §4.1: the header, the questions and the resource records, bounded.
#include "protocol/mdns/dns_reader.hpp"

#include <algorithm>

#include "protocol/mdns/dns_name.hpp"

namespace uactor::ua::dns {

namespace mdns_dns_reader {

struct cursor {
  std::span<const std::uint8_t> msg;
  std::size_t pos = 0;
  error& e;

  bool fail(std::size_t at, std::string what) {
    e.offset = at;
    e.what = std::move(what);
    return false;
  }
  bool u16(std::uint16_t& v, const char* what) {
    if (pos + 2 > msg.size()) return fail(pos, std::string(what) + " cut off");
    v = static_cast<std::uint16_t>((msg[pos] << 8) | msg[pos + 1]);
    pos += 2;
    return true;
  }
  bool u32(std::uint32_t& v, const char* what) {
    if (pos + 4 > msg.size()) return fail(pos, std::string(what) + " cut off");
    v = (static_cast<std::uint32_t>(msg[pos]) << 24) | (static_cast<std::uint32_t>(msg[pos + 1]) << 16) |
        (static_cast<std::uint32_t>(msg[pos + 2]) << 8) | msg[pos + 3];
    pos += 4;
    return true;
  }
};

bool read_rdata(cursor& c, const limits& l, record& r, std::size_t end) {
  const std::size_t start = c.pos;
  switch (static_cast<record_type>(r.type)) {
    case record_type::a:
      if (end - start != 4) return c.fail(start, "A record data is not 4 octets");
      std::copy_n(c.msg.begin() + static_cast<std::ptrdiff_t>(start), 4, r.a.begin());
      c.pos = end;
      return true;
    case record_type::aaaa:
      if (end - start != 16) return c.fail(start, "AAAA record data is not 16 octets");
      std::copy_n(c.msg.begin() + static_cast<std::ptrdiff_t>(start), 16, r.aaaa.begin());
      c.pos = end;
      return true;
    case record_type::ptr:
      if (!read_name(c.msg.first(end), c.pos, l.max_pointer_hops, r.ptr, c.e)) return false;
      break;
    case record_type::srv: {
      if (end - start < 7) return c.fail(start, "SRV record data shorter than 7 octets");
      c.u16(r.srv.priority, "SRV priority");
      c.u16(r.srv.weight, "SRV weight");
      c.u16(r.srv.port, "SRV port");
      if (!read_name(c.msg.first(end), c.pos, l.max_pointer_hops, r.srv.target, c.e)) return false;
      break;
    }
    case record_type::txt:
      // RFC 1035 §3.3.14: one or more <character-string>s, each a length octet and its bytes.
      while (c.pos < end) {
        if (r.txt.size() >= l.max_txt_strings) return c.fail(c.pos, "too many strings in a TXT record");
        const std::size_t len = c.msg[c.pos];
        if (c.pos + 1 + len > end) return c.fail(c.pos, "TXT string runs past its record");
        r.txt.emplace_back(reinterpret_cast<const char*>(c.msg.data() + c.pos + 1), len);
        c.pos += 1 + len;
      }
      break;
    default:
      c.pos = end;
      return true;
  }
  if (c.pos != end) return c.fail(c.pos, "record data does not fill its RDLENGTH");
  return true;
}

bool read_record(cursor& c, const limits& l, std::vector<record>& out, std::size_t& skipped) {
  record r;
  if (!read_name(c.msg, c.pos, l.max_pointer_hops, r.name, c.e)) return false;
  std::uint16_t klass = 0, rdlength = 0;
  if (!c.u16(r.type, "record type") || !c.u16(klass, "record class") || !c.u32(r.ttl, "record TTL") ||
      !c.u16(rdlength, "RDLENGTH"))
    return false;
  r.cache_flush = (klass & class_top_bit) != 0;
  r.klass = klass & static_cast<std::uint16_t>(~class_top_bit);
  if (c.pos + rdlength > c.msg.size()) return c.fail(c.pos - 2, "record data runs past the end of the message");
  const std::size_t end = c.pos + rdlength;
  if (!read_rdata(c, l, r, end)) return false;
  switch (static_cast<record_type>(r.type)) {
    case record_type::a:
    case record_type::aaaa:
    case record_type::ptr:
    case record_type::srv:
    case record_type::txt:
      out.push_back(std::move(r));
      break;
    default:
      ++skipped;
  }
  return true;
}

}  // namespace mdns_dns_reader

bool read_message(std::span<const std::uint8_t> bytes, const limits& l, message& out, error& e) {
  using mdns_dns_reader::cursor;
  out = message{};
  if (bytes.size() > l.max_message) {
    e.offset = l.max_message;
    e.what = "message larger than " + std::to_string(l.max_message) + " octets";
    return false;
  }
  cursor c{bytes, 0, e};
  std::uint16_t qd = 0, an = 0, ns = 0, ar = 0;
  if (!c.u16(out.id, "header") || !c.u16(out.flags, "header") || !c.u16(qd, "header") || !c.u16(an, "header") ||
      !c.u16(ns, "header") || !c.u16(ar, "header"))
    return false;
  if (qd > l.max_questions) return c.fail(4, "too many questions (" + std::to_string(qd) + ")");
  if (static_cast<std::size_t>(an) + ns + ar > l.max_records)
    return c.fail(6, "too many records (" + std::to_string(an + ns + ar) + ")");
  for (std::uint16_t i = 0; i < qd; ++i) {
    question q;
    if (!read_name(c.msg, c.pos, l.max_pointer_hops, q.name, e)) return false;
    std::uint16_t klass = 0;
    if (!c.u16(q.type, "question type") || !c.u16(klass, "question class")) return false;
    q.unicast_response = (klass & class_top_bit) != 0;
    q.klass = klass & static_cast<std::uint16_t>(~class_top_bit);
    out.questions.push_back(std::move(q));
  }
  for (std::uint16_t i = 0; i < an; ++i)
    if (!mdns_dns_reader::read_record(c, l, out.answers, out.skipped)) return false;
  for (std::uint16_t i = 0; i < ns; ++i)
    if (!mdns_dns_reader::read_record(c, l, out.authorities, out.skipped)) return false;
  for (std::uint16_t i = 0; i < ar; ++i)
    if (!mdns_dns_reader::read_record(c, l, out.additionals, out.skipped)) return false;
  // Bytes after the last record are ignored (RFC 6762 §18 says nothing of them; some stacks pad).
  return true;
}

}  // namespace uactor::ua::dns
