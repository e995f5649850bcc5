// Writes a DNS message (RFC 1035 §4.1) from dns_message.hpp's model, names compressed (§4.1.4:
// a name's longest suffix already written becomes a pointer) unless asked not to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/mdns/dns_message.hpp"

namespace uactor::ua::dns {

// False with `why` when a name is not a valid name (dns_name.hpp's split_name), a TXT string is
// longer than 255, a section holds more than 65535 entries, or the message would pass max_bytes.
bool write_message(const message& m, std::vector<std::uint8_t>& out, std::string& why, bool compress = true,
                   std::size_t max_bytes = 9000);

}  // namespace uactor::ua::dns
