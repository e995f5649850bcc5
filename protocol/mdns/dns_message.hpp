// A DNS message as mDNS (RFC 6762) and DNS-SD (RFC 6763) use it: the header, the questions and the
// records of RFC 1035 §4.1 with the record data of PTR, SRV (RFC 2782), TXT, A and AAAA (RFC 3596)
// decoded; other types are skipped by their RDLENGTH when read. Names are text: labels joined by
// '.', no trailing dot, a '.' or '\' inside a label escaped with '\' (RFC 6763 §4.3: instance names
// may hold dots). Plain values: reading is dns_reader.hpp, writing dns_writer.hpp. No I/O.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace uactor::ua::dns {

enum class record_type : std::uint16_t { a = 1, ptr = 12, txt = 16, aaaa = 28, srv = 33, any = 255 };
inline constexpr std::uint16_t class_in = 1;
// RFC 6762 §18.12-13: the top bit of a question's class asks for a unicast answer (QU), of a
// record's class says the record replaces what a cache holds for its name and type (cache flush).
inline constexpr std::uint16_t class_top_bit = 0x8000;
// RFC 1035 §4.1.1 flags: QR (a response) and AA (authoritative; RFC 6762 §18.4 sets it on answers).
inline constexpr std::uint16_t flag_response = 0x8000;
inline constexpr std::uint16_t flag_authoritative = 0x0400;
inline constexpr std::uint16_t flag_truncated = 0x0200;

struct question {
  std::string name;
  std::uint16_t type = 0;
  std::uint16_t klass = class_in;  // without the top bit
  bool unicast_response = false;   // QU (RFC 6762 §5.4)
};

struct srv_data {
  std::uint16_t priority = 0, weight = 0, port = 0;
  std::string target;
};

struct record {
  std::string name;
  std::uint16_t type = 0;
  std::uint16_t klass = class_in;  // without the top bit
  bool cache_flush = false;        // RFC 6762 §10.2
  std::uint32_t ttl = 0;           // seconds; 0 is a goodbye (RFC 6762 §10.1)
  // The data of the record's type (only that one is meaningful).
  std::string ptr;                        // PTR: the name pointed to
  srv_data srv;                           // SRV
  std::vector<std::string> txt;           // TXT: the character-strings, in order
  std::array<std::uint8_t, 4> a{};        // A
  std::array<std::uint8_t, 16> aaaa{};    // AAAA
};

struct message {
  std::uint16_t id = 0;  // 0 in multicast mDNS (RFC 6762 §18.1)
  std::uint16_t flags = 0;
  std::vector<question> questions;
  std::vector<record> answers, authorities, additionals;
  // Records of types not decoded here, skipped when read (counted, not kept).
  std::size_t skipped = 0;

  bool is_response() const noexcept { return (flags & flag_response) != 0; }
  // RFC 6762 §18.3, §18.11: an mDNS message with an OPCODE or RCODE other than 0 is ignored.
  bool standard() const noexcept { return (flags & 0x7800) == 0 && (flags & 0x000F) == 0; }
};

// The bounds a read enforces (RFC 1035 §2.3.4 for names and labels, RFC 6762 §17 for the size).
struct limits {
  std::size_t max_message = 9000;   // RFC 6762 §17: the largest mDNS message
  std::size_t max_questions = 64;
  std::size_t max_records = 256;     // answers + authorities + additionals
  std::size_t max_txt_strings = 64;  // character-strings in one TXT record
  std::size_t max_pointer_hops = 32; // compression pointers followed in one name
};
inline constexpr std::size_t max_label = 63;
inline constexpr std::size_t max_name = 255;  // wire length, length octets and the root included

// Where and why a read stopped.
struct error {
  std::size_t offset = 0;
  std::string what;
};

}  // namespace uactor::ua::dns
