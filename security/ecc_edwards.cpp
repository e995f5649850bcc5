#include "security/ecc_edwards.hpp"

#include <string>

#include <openssl/err.h>
#include <openssl/evp.h>

#include "security/openssl.hpp"

namespace uactor::security {

std::string_view eddsa_key_type(edwards_curve c) noexcept { return c == edwards_curve::c25519 ? "ED25519" : "ED448"; }
std::string_view xdh_key_type(edwards_curve c) noexcept { return c == edwards_curve::c25519 ? "X25519" : "X448"; }
std::size_t xdh_key_size(edwards_curve c) noexcept { return c == edwards_curve::c25519 ? 32 : 56; }
std::size_t eddsa_signature_size(edwards_curve c) noexcept { return c == edwards_curve::c25519 ? 64 : 114; }

bool is_eddsa_key(edwards_curve c, const rsa_key& key) noexcept {
  return key && EVP_PKEY_is_a(key.native(), std::string(eddsa_key_type(c)).c_str()) == 1;
}

ua::expected<rsa_key> generate_xdh_key(edwards_curve c) {
  EVP_PKEY* k = EVP_PKEY_Q_keygen(nullptr, nullptr, std::string(xdh_key_type(c)).c_str());
  if (k == nullptr) {
    ERR_clear_error();
    return ua::status::bad_internal_error;
  }
  return rsa_key(k);
}

bool xdh_public_bytes(edwards_curve c, const rsa_key& key, std::span<std::uint8_t> out) noexcept {
  if (!key || out.size() != xdh_key_size(c) || EVP_PKEY_is_a(key.native(), std::string(xdh_key_type(c)).c_str()) != 1)
    return false;
  std::size_t len = out.size();
  const bool ok = EVP_PKEY_get_raw_public_key(key.native(), out.data(), &len) == 1 && len == out.size();
  if (!ok) ERR_clear_error();
  return ok;
}

ua::expected<rsa_key> xdh_public_from_bytes(edwards_curve c, std::span<const std::uint8_t> raw) {
  if (raw.size() != xdh_key_size(c)) return ua::status::bad_nonce_invalid;
  const int type = c == edwards_curve::c25519 ? EVP_PKEY_X25519 : EVP_PKEY_X448;
  EVP_PKEY* k = EVP_PKEY_new_raw_public_key(type, nullptr, raw.data(), raw.size());
  if (k == nullptr) {
    ERR_clear_error();
    return ua::status::bad_security_checks_failed;
  }
  return rsa_key(k);
}

bool eddsa_sign(edwards_curve c, const rsa_key& key, std::span<const std::uint8_t> data, std::span<std::uint8_t> out) noexcept {
  if (!is_eddsa_key(c, key) || out.size() != eddsa_signature_size(c)) return false;
  evp_md_ctx_ptr md(EVP_MD_CTX_new());
  std::size_t len = out.size();
  // PureEdDSA: no digest of ours (NULL), the whole message goes to one EVP_DigestSign.
  const bool ok = md && EVP_DigestSignInit(md.get(), nullptr, nullptr, nullptr, key.native()) == 1 &&
                  EVP_DigestSign(md.get(), out.data(), &len, data.data(), data.size()) == 1 && len == out.size();
  if (!ok) ERR_clear_error();
  return ok;
}

bool eddsa_verify(edwards_curve c, const rsa_key& key, std::span<const std::uint8_t> data,
                  std::span<const std::uint8_t> signature) noexcept {
  if (!is_eddsa_key(c, key) || signature.size() != eddsa_signature_size(c)) return false;
  evp_md_ctx_ptr md(EVP_MD_CTX_new());
  const bool ok = md && EVP_DigestVerifyInit(md.get(), nullptr, nullptr, nullptr, key.native()) == 1 &&
                  EVP_DigestVerify(md.get(), signature.data(), signature.size(), data.data(), data.size()) == 1;
  ERR_clear_error();
  return ok;
}

}  // namespace uactor::security
