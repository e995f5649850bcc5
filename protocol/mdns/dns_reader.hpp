// Reads a DNS message (RFC 1035 §4.1) within `limits`: every count, length and name checked before
// it is used, record data of PTR, SRV, TXT, A and AAAA decoded and required to fill their RDLENGTH
// exactly, others skipped by it. False with the offset and the reason of the first fault.
#pragma once

#include <cstdint>
#include <span>

#include "protocol/mdns/dns_message.hpp"

namespace uactor::ua::dns {

bool read_message(std::span<const std::uint8_t> bytes, const limits& l, message& out, error& e);

}  // namespace uactor::ua::dns
