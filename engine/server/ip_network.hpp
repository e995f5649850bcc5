// An IPv4 or IPv6 network in CIDR notation ("10.0.0.0/8", "192.0.2.7", "fd00::/8", "::1"), and
// whether a peer address (as getpeername/inet_ntop print it) lies in it. For the login guard's
// exempt addresses (docs/security.md "Login attempts").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace uactor::actors {

class ip_network {
public:
  // `text` is an address with an optional "/prefix" (0-32 for IPv4, 0-128 for IPv6; absent: the
  // single address). Bits past the prefix must be zero ("10.1.0.0/8" is refused: a typo more often
  // than not). Null with `why` saying what is wrong.
  static std::optional<ip_network> parse(std::string_view text, std::string& why);

  // `address` in it; an address that does not parse, or of the other family, is not. An
  // IPv4-mapped IPv6 address ("::ffff:10.0.0.1", a dual-stack listener's peer) counts as IPv4.
  bool contains(std::string_view address) const noexcept;

  std::string to_string() const;

private:
  std::array<std::uint8_t, 16> bytes_{};
  std::uint8_t prefix_ = 0;
  bool v6_ = false;
};

}  // namespace uactor::actors
