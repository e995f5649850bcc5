// The opc.wss endpoint's TLS certificate as DefaultHttpsGroup rolls it (Part 12 §7.8.3.3,
// docs/decisions/0078): while ApplyChanges has not replaced the certificate the endpoint started
// with, a new connection keeps the endpoint's TLS context; after it, the connection is switched to
// a context made once for the new certificate (SSL_set_SSL_CTX). A running connection keeps the
// certificate of its handshake. Owns the contexts it makes; the SSLs hold their own references.
#pragma once

#include <memory>
#include <mutex>

#include <openssl/types.h>

#include "actors/wss/wss_server.hpp"

namespace uactor::actors {

struct own_identity;  // engine/server/server_security.hpp

// A TLS server context from a certificate (DER with its issuers and a PEM key, or PEM files);
// null, logged, when OpenSSL refuses them.
SSL_CTX* make_wss_tls_context(const wss_tls_identity& id);
// Loads `id` into `ctx`: the certificate, its issuers after it, the key (checked against it).
bool use_wss_tls_identity(SSL_CTX* ctx, const wss_tls_identity& id);

class wss_certificate {
public:
  // `https`: the slot ApplyChanges writes (null: the endpoint's certificate for good).
  explicit wss_certificate(std::shared_ptr<const https_certificate> https);
  ~wss_certificate();
  wss_certificate(const wss_certificate&) = delete;
  wss_certificate& operator=(const wss_certificate&) = delete;

  // A new connection's SSL (made from the endpoint's context) gets the certificate in use now.
  // One lock per connection; a context is made once per new certificate. A new certificate
  // OpenSSL refuses is logged and the last good one stays.
  void use_current(SSL* ssl);

private:
  std::shared_ptr<const https_certificate> https_;
  std::mutex mutex_;
  std::shared_ptr<const own_identity> seen_;  // the slot's identity the last call found
  SSL_CTX* ctx_ = nullptr;                    // made for a replaced certificate; null: the endpoint's
};

}  // namespace uactor::actors
