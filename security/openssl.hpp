// RAII owners for the OpenSSL 3 objects security/ uses, and the error queue as a log message.
// Each alias owns exactly one reference; nothing here is shared between threads.
#pragma once

#include <memory>
#include <string>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

namespace uactor::security {

namespace detail {
template <class T, void (*Free)(T*)>
struct openssl_deleter {
  void operator()(T* p) const noexcept { Free(p); }
};
inline void bio_free(BIO* b) { BIO_free_all(b); }
}  // namespace detail

using evp_pkey_ptr = std::unique_ptr<EVP_PKEY, detail::openssl_deleter<EVP_PKEY, EVP_PKEY_free>>;
using evp_pkey_ctx_ptr = std::unique_ptr<EVP_PKEY_CTX, detail::openssl_deleter<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using evp_cipher_ctx_ptr = std::unique_ptr<EVP_CIPHER_CTX, detail::openssl_deleter<EVP_CIPHER_CTX, EVP_CIPHER_CTX_free>>;
using evp_cipher_ptr = std::unique_ptr<EVP_CIPHER, detail::openssl_deleter<EVP_CIPHER, EVP_CIPHER_free>>;
using evp_md_ctx_ptr = std::unique_ptr<EVP_MD_CTX, detail::openssl_deleter<EVP_MD_CTX, EVP_MD_CTX_free>>;
using evp_md_ptr = std::unique_ptr<EVP_MD, detail::openssl_deleter<EVP_MD, EVP_MD_free>>;
using evp_mac_ptr = std::unique_ptr<EVP_MAC, detail::openssl_deleter<EVP_MAC, EVP_MAC_free>>;
using evp_mac_ctx_ptr = std::unique_ptr<EVP_MAC_CTX, detail::openssl_deleter<EVP_MAC_CTX, EVP_MAC_CTX_free>>;
using x509_ptr = std::unique_ptr<X509, detail::openssl_deleter<X509, X509_free>>;
using bio_ptr = std::unique_ptr<BIO, detail::openssl_deleter<BIO, detail::bio_free>>;

// Drains this thread's OpenSSL error queue into one line ("" when empty): for the log, never
// for the peer (Part 4 §6.1.3: a peer only learns Bad_SecurityChecksFailed).
std::string last_openssl_error();

}  // namespace uactor::security
