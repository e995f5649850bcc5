#include "security/keys.hpp"

#include <stdexcept>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "uactor/ua/status_codes.hpp"
#include "security/openssl.hpp"

namespace uactor::security {

rsa_key::rsa_key(const rsa_key& o) noexcept : key_(o.key_) {
  if (key_) EVP_PKEY_up_ref(key_);
}

rsa_key& rsa_key::operator=(const rsa_key& o) noexcept {
  if (this != &o) {
    if (o.key_) EVP_PKEY_up_ref(o.key_);
    EVP_PKEY_free(key_);
    key_ = o.key_;
  }
  return *this;
}

rsa_key& rsa_key::operator=(rsa_key&& o) noexcept {
  if (this != &o) {
    EVP_PKEY_free(key_);
    key_ = o.key_;
    o.key_ = nullptr;
  }
  return *this;
}

rsa_key::~rsa_key() { EVP_PKEY_free(key_); }

ua::expected<rsa_key> rsa_key::generate(unsigned bits) {
  if (bits < 1024 || bits > 16384) return ua::status::bad_invalid_argument;
  EVP_PKEY* k = EVP_RSA_gen(bits);
  if (!k) {
    ERR_clear_error();
    return ua::status::bad_internal_error;
  }
  return rsa_key(k);
}

namespace {
// The application keys of our policies: RSA, or EC for the ECC policies (Part 6 §6.8).
bool is_rsa_or_ec(EVP_PKEY* k) noexcept { return is_application_key_type(k); }
}  // namespace

ua::expected<rsa_key> rsa_key::from_private_pem(std::string_view pem) {
  bio_ptr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return ua::status::bad_internal_error;
  // A null password callback with an empty passphrase: an encrypted PEM fails instead of prompting.
  EVP_PKEY* k = PEM_read_bio_PrivateKey(bio.get(), nullptr, [](char*, int, int, void*) { return 0; }, nullptr);
  ERR_clear_error();
  if (!k) return ua::status::bad_decoding_error;
  rsa_key key(k);
  if (!is_rsa_or_ec(k)) return ua::status::bad_decoding_error;
  return key;
}

ua::expected<rsa_key> rsa_key::from_public_der(std::span<const std::uint8_t> der) {
  const unsigned char* p = der.data();
  EVP_PKEY* k = d2i_PUBKEY(nullptr, &p, static_cast<long>(der.size()));
  ERR_clear_error();
  if (!k) return ua::status::bad_decoding_error;
  rsa_key key(k);
  if (!is_rsa_or_ec(k) || p != der.data() + der.size()) return ua::status::bad_decoding_error;
  return key;
}

std::string rsa_key::to_private_pem() const {
  if (!has_private()) return {};
  bio_ptr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key_, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    ERR_clear_error();
    return {};
  }
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

rsa_key rsa_key::public_only() const {
  if (!key_) return {};
  unsigned char* der = nullptr;
  const int n = i2d_PUBKEY(key_, &der);
  if (n <= 0) {
    ERR_clear_error();
    return {};
  }
  const unsigned char* p = der;
  EVP_PKEY* k = d2i_PUBKEY(nullptr, &p, n);
  OPENSSL_free(der);
  return rsa_key(k);
}

std::size_t rsa_key::bits() const noexcept { return key_ ? static_cast<std::size_t>(EVP_PKEY_get_bits(key_)) : 0; }

std::size_t rsa_key::size_bytes() const noexcept { return key_ ? static_cast<std::size_t>(EVP_PKEY_get_size(key_)) : 0; }

bool rsa_key::has_private() const noexcept {
  if (!key_) return false;
  if (EVP_PKEY_is_a(key_, "RSA") != 1 && EVP_PKEY_is_a(key_, "EC") != 1) {  // Ed/X keys: raw octets
    std::size_t len = 0;
    const bool raw = EVP_PKEY_get_raw_private_key(key_, nullptr, &len) == 1 && len > 0;
    ERR_clear_error();
    return raw;
  }
  BIGNUM* d = nullptr;
  const char* part = EVP_PKEY_is_a(key_, "EC") == 1 ? OSSL_PKEY_PARAM_PRIV_KEY : OSSL_PKEY_PARAM_RSA_D;
  if (EVP_PKEY_get_bn_param(key_, part, &d) != 1) {
    ERR_clear_error();
    return false;
  }
  BN_clear_free(d);
  return true;
}

bool is_application_key_type(const EVP_PKEY* k) noexcept {
  return k != nullptr && (EVP_PKEY_is_a(k, "RSA") == 1 || EVP_PKEY_is_a(k, "EC") == 1 ||
                          EVP_PKEY_is_a(k, "ED25519") == 1 || EVP_PKEY_is_a(k, "ED448") == 1);
}

void fill_random(std::span<std::uint8_t> out) {
  if (out.empty()) return;
  if (RAND_bytes(out.data(), static_cast<int>(out.size())) != 1)
    throw std::runtime_error("RAND_bytes failed: " + last_openssl_error());
}

}  // namespace uactor::security
