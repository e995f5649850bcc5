#include "engine/server/ip_network.hpp"

#include <arpa/inet.h>

#include <cstring>

#include <fmt/format.h>

namespace uactor::actors {

namespace server_ip_network {

// The address's bytes and family; false when it is neither form. `text` holds at most
// INET6_ADDRSTRLEN characters (longer is no address).
bool address_bytes(std::string_view text, std::array<std::uint8_t, 16>& out, bool& v6) noexcept {
  char buffer[INET6_ADDRSTRLEN + 1];
  if (text.empty() || text.size() >= sizeof buffer) return false;
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  out = {};
  if (::inet_pton(AF_INET, buffer, out.data()) == 1) {
    v6 = false;
    return true;
  }
  if (::inet_pton(AF_INET6, buffer, out.data()) == 1) {
    // ::ffff:a.b.c.d is the IPv4 peer of a dual-stack socket.
    static constexpr std::uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(out.data(), mapped, sizeof mapped) == 0) {
      std::memmove(out.data(), out.data() + 12, 4);
      std::memset(out.data() + 4, 0, 12);
      v6 = false;
    } else {
      v6 = true;
    }
    return true;
  }
  return false;
}

// The first `prefix` bits of a and b are equal.
bool same_prefix(const std::array<std::uint8_t, 16>& a, const std::array<std::uint8_t, 16>& b, unsigned prefix) noexcept {
  const unsigned whole = prefix / 8;
  if (std::memcmp(a.data(), b.data(), whole) != 0) return false;
  const unsigned rest = prefix % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xff << (8 - rest));
  return (a[whole] & mask) == (b[whole] & mask);
}

}  // namespace server_ip_network

std::optional<ip_network> ip_network::parse(std::string_view text, std::string& why) {
  using namespace server_ip_network;
  ip_network n;
  const auto slash = text.find('/');
  const std::string_view address = text.substr(0, slash);
  if (!address_bytes(address, n.bytes_, n.v6_)) {
    why = fmt::format("\"{}\" is not an IPv4 or IPv6 address", address);
    return std::nullopt;
  }
  const unsigned bits = n.v6_ ? 128 : 32;
  unsigned prefix = bits;
  if (slash != std::string_view::npos) {
    const std::string_view digits = text.substr(slash + 1);
    if (digits.empty() || digits.size() > 3 || digits.find_first_not_of("0123456789") != std::string_view::npos) {
      why = fmt::format("\"{}\": the prefix after '/' is not a number", text);
      return std::nullopt;
    }
    prefix = 0;
    for (const char c : digits) prefix = prefix * 10 + static_cast<unsigned>(c - '0');
    if (prefix > bits) {
      why = fmt::format("\"{}\": an {} prefix is at most {}", text, n.v6_ ? "IPv6" : "IPv4", bits);
      return std::nullopt;
    }
  }
  n.prefix_ = static_cast<std::uint8_t>(prefix);
  std::array<std::uint8_t, 16> zero{};
  std::array<std::uint8_t, 16> host_bits = n.bytes_;
  // Clear the network's bits: what is left must be zero.
  for (unsigned i = 0; i < prefix; ++i) host_bits[i / 8] &= static_cast<std::uint8_t>(~(0x80u >> (i % 8)));
  if (host_bits != zero) {
    why = fmt::format("\"{}\" has bits set past its /{} prefix", text, prefix);
    return std::nullopt;
  }
  return n;
}

bool ip_network::contains(std::string_view address) const noexcept {
  std::array<std::uint8_t, 16> a{};
  bool v6 = false;
  return server_ip_network::address_bytes(address, a, v6) && v6 == v6_ && server_ip_network::same_prefix(a, bytes_, prefix_);
}

std::string ip_network::to_string() const {
  char text[INET6_ADDRSTRLEN] = {};
  ::inet_ntop(v6_ ? AF_INET6 : AF_INET, bytes_.data(), text, sizeof text);
  return fmt::format("{}/{}", text, prefix_);
}

}  // namespace uactor::actors
