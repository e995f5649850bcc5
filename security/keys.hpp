// Application keys (public only, or with the private part) and the random bytes nonces are made
// of. An rsa_key shares its EVP_PKEY by reference count: copies are cheap and read-only. Despite
// its name it holds an EC key too (the ECC policies' certificates and EphemeralKeys, security/ecc.hpp;
// docs/decisions/0055): the RSA-only members say so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "uactor/ua/expected.hpp"
#include "uactor/ua/status_codes.hpp"

typedef struct evp_pkey_st EVP_PKEY;  // NOLINT: OpenSSL's own spelling, no <openssl/evp.h> here

namespace uactor::security {

class rsa_key {
public:
  rsa_key() = default;
  // Takes over one reference of `adopt` (an RSA or EC key, or null).
  explicit rsa_key(EVP_PKEY* adopt) noexcept : key_(adopt) {}
  rsa_key(const rsa_key& o) noexcept;
  rsa_key& operator=(const rsa_key& o) noexcept;
  rsa_key(rsa_key&& o) noexcept : key_(o.key_) { o.key_ = nullptr; }
  rsa_key& operator=(rsa_key&& o) noexcept;
  ~rsa_key();

  // A fresh key pair (EVP_RSA_gen, e = 65537). Bad_InvalidArgument for fewer than 1024 bits or
  // more than 16384, Bad_InternalError when OpenSSL fails.
  static ua::expected<rsa_key> generate(unsigned bits);
  // PKCS#8 or traditional "RSA PRIVATE KEY" / "EC PRIVATE KEY" PEM, unencrypted. Bad_DecodingError
  // when it is not a PEM RSA or EC private key.
  static ua::expected<rsa_key> from_private_pem(std::string_view pem);
  // A public key from its DER SubjectPublicKeyInfo. Bad_DecodingError when it is not an RSA or EC key.
  static ua::expected<rsa_key> from_public_der(std::span<const std::uint8_t> der);
  // PKCS#8 PEM of the private key; "" when there is none.
  std::string to_private_pem() const;
  // The key without its private part (what a peer knows of it).
  rsa_key public_only() const;

  std::size_t bits() const noexcept;        // RSA modulus bits, or the EC curve's bits
  std::size_t size_bytes() const noexcept;  // RSA: modulus bytes (signature and cipher block size)
  bool has_private() const noexcept;
  EVP_PKEY* native() const noexcept { return key_; }
  explicit operator bool() const noexcept { return key_ != nullptr; }

private:
  EVP_PKEY* key_ = nullptr;
};

// Whether `k` is a key type an application certificate may hold: RSA, EC (the ECDSA curves) or
// Ed25519 / Ed448 (ECC_curve25519 / ECC_curve448, docs/decisions/0082).
bool is_application_key_type(const EVP_PKEY* k) noexcept;

// Cryptographically strong random bytes (RAND_bytes). Throws std::runtime_error if OpenSSL's
// generator fails, which a working OpenSSL 3 does not.
void fill_random(std::span<std::uint8_t> out);

}  // namespace uactor::security
