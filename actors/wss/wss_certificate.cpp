#include "actors/wss/wss_certificate.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>

#include "engine/server/server_security.hpp"

namespace uactor::actors {

bool use_wss_tls_identity(SSL_CTX* ctx, const wss_tls_identity& id) {
  if (!id.certificate_file.empty()) {
    return SSL_CTX_use_certificate_chain_file(ctx, id.certificate_file.c_str()) == 1 &&
           SSL_CTX_use_PrivateKey_file(ctx, id.private_key_file.c_str(), SSL_FILETYPE_PEM) == 1 &&
           SSL_CTX_check_private_key(ctx) == 1;
  }
  if (SSL_CTX_use_certificate_ASN1(ctx, static_cast<int>(id.certificate_der.size()), id.certificate_der.data()) != 1)
    return false;
  for (const auto& der : id.issuers_der) {
    const unsigned char* p = der.data();
    X509* x = d2i_X509(nullptr, &p, static_cast<long>(der.size()));
    if (!x || SSL_CTX_add_extra_chain_cert(ctx, x) != 1) {  // takes x
      X509_free(x);
      return false;
    }
  }
  BIO* bio = BIO_new_mem_buf(id.private_key_pem.data(), static_cast<int>(id.private_key_pem.size()));
  EVP_PKEY* key = bio ? PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr) : nullptr;
  BIO_free(bio);
  const bool ok = key && SSL_CTX_use_PrivateKey(ctx, key) == 1 && SSL_CTX_check_private_key(ctx) == 1;
  EVP_PKEY_free(key);
  return ok;
}

SSL_CTX* make_wss_tls_context(const wss_tls_identity& id) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx) return nullptr;
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_ALL | SSL_OP_SINGLE_DH_USE);
  if (!use_wss_tls_identity(ctx, id)) {
    const unsigned long e = ERR_get_error();
    spdlog::error("opc.wss: the TLS certificate or key cannot be used: {}", e ? ERR_reason_error_string(e) : "?");
    ERR_clear_error();
    SSL_CTX_free(ctx);
    return nullptr;
  }
  return ctx;
}

wss_certificate::wss_certificate(std::shared_ptr<const https_certificate> https) : https_(std::move(https)) {
  // What the slot holds now is what the endpoint's context was made from (runtime: wss_options_of).
  if (https_) seen_ = https_->current.get();
}

wss_certificate::~wss_certificate() { SSL_CTX_free(ctx_); }

void wss_certificate::use_current(SSL* ssl) {
  if (!https_ || !ssl) return;
  std::lock_guard lock(mutex_);
  auto now = https_->current.get();
  if (now && now != seen_) {
    seen_ = now;
    wss_tls_identity id;
    const auto der = now->certificate.der();
    id.certificate_der.assign(der.begin(), der.end());
    for (const auto& i : now->issuers) {
      const auto d = i.der();
      id.issuers_der.emplace_back(d.begin(), d.end());
    }
    id.private_key_pem = now->private_key.to_private_pem();
    if (SSL_CTX* made = make_wss_tls_context(id)) {
      SSL_CTX_free(ctx_);  // the SSLs made from it hold references of their own
      ctx_ = made;
      spdlog::info("opc.wss: new TLS connections present {}", now->certificate.describe());
    } else {
      spdlog::error("opc.wss: the new TLS certificate cannot be used; new connections keep the last good one");
    }
  }
  if (ctx_) SSL_set_SSL_CTX(ssl, ctx_);
}

}  // namespace uactor::actors
