// One TLS connection through two memory BIOs, with no socket of its own (docs/decisions/0073,
// 0077): the socket's bytes go in by feed(), and what OpenSSL writes (handshake flights, records,
// alerts) comes out into the transport's send buffer by flush(). Both native opc.wss transports,
// the server's and the client's, hold one; only their .cpp files include this header.
#pragma once

#include <openssl/ssl.h>

#include <cstdint>
#include <span>

#include "protocol/byte_buffer.hpp"

namespace uactor::actors {

class tls_memory_pipe {
public:
  tls_memory_pipe() = default;
  ~tls_memory_pipe() { SSL_free(ssl_); }  // and with it the two BIOs
  tls_memory_pipe(const tls_memory_pipe&) = delete;
  tls_memory_pipe& operator=(const tls_memory_pipe&) = delete;

  // A new SSL of `ctx` over two memory BIOs; false (and ssl() null) when OpenSSL could not make them.
  bool open(SSL_CTX* ctx);
  SSL* ssl() const noexcept { return ssl_; }
  void feed(std::span<const std::uint8_t> received);
  // Whether an SSL_read could return anything: bytes fed and not yet read, or a record OpenSSL
  // holds. The read loops stop on false instead of calling SSL_read once more only to be told
  // SSL_ERROR_WANT_READ, once per received segment (docs/performance.md "opc.wss: one record per
  // request from our client, found and fixed").
  bool has_input() const noexcept { return BIO_ctrl_pending(in_) > 0 || SSL_has_pending(ssl_) == 1; }
  void flush(ua::byte_buffer& out);
  // One SSL_write (a memory BIO takes everything: records of up to 16 KB each), then flush.
  void write(std::span<const std::uint8_t> plain, ua::byte_buffer& out);

private:
  SSL* ssl_ = nullptr;
  BIO* in_ = nullptr;   // the socket's bytes, for OpenSSL to read (owned by ssl_)
  BIO* out_ = nullptr;  // what OpenSSL wrote, for the socket (owned by ssl_)
};

}  // namespace uactor::actors
