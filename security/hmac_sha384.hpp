// HMAC-SHA384 (RFC 2104, the SymmetricSignatureAlgorithm of the 384-bit ECC policies, Part 7
// ECC_nistP384 / ECC_brainpoolP384r1), built like hmac_sha256: the key's inner and outer hash
// states computed once, nothing allocated per MAC. Value type; copyable.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace uactor::security {

inline constexpr std::size_t hmac_sha384_size = 48;

class hmac_sha384 {
public:
  hmac_sha384() noexcept;
  explicit hmac_sha384(std::span<const std::uint8_t> key) noexcept : hmac_sha384() { set_key(key); }
  ~hmac_sha384();  // wipes the key states
  hmac_sha384(const hmac_sha384&) = default;
  hmac_sha384& operator=(const hmac_sha384&) = default;

  void set_key(std::span<const std::uint8_t> key) noexcept;
  // MAC of a || b (b may be empty) into out[0, 48).
  void compute(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b, std::uint8_t* out) const noexcept;
  void compute(std::span<const std::uint8_t> data, std::uint8_t* out) const noexcept { compute(data, {}, out); }

private:
  // OpenSSL's SHA512_CTX (SHA-384 shares it) after absorbing key^ipad and key^opad.
  std::array<std::uint8_t, 224> inner_{};
  std::array<std::uint8_t, 224> outer_{};
};

}  // namespace uactor::security
