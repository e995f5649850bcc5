// HMAC-SHA256 with the key's inner and outer hash states computed once (RFC 2104), so that each
// MAC costs the message's SHA-256 blocks plus two, and allocates nothing. Value type; copyable.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace uactor::security {

inline constexpr std::size_t hmac_sha256_size = 32;

class hmac_sha256 {
public:
  hmac_sha256() noexcept;
  explicit hmac_sha256(std::span<const std::uint8_t> key) noexcept : hmac_sha256() { set_key(key); }
  ~hmac_sha256();  // wipes the key states
  hmac_sha256(const hmac_sha256&) = default;
  hmac_sha256& operator=(const hmac_sha256&) = default;

  void set_key(std::span<const std::uint8_t> key) noexcept;
  // MAC of a || b (b may be empty) into out[0, 32).
  void compute(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b, std::uint8_t* out) const noexcept;
  void compute(std::span<const std::uint8_t> data, std::uint8_t* out) const noexcept { compute(data, {}, out); }

private:
  // OpenSSL's SHA256_CTX after absorbing key^ipad and key^opad (checked against sizeof in the .cpp).
  std::array<std::uint8_t, 112> inner_{};
  std::array<std::uint8_t, 112> outer_{};
};

}  // namespace uactor::security
