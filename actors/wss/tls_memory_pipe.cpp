#include "actors/wss/tls_memory_pipe.hpp"

namespace uactor::actors {

bool tls_memory_pipe::open(SSL_CTX* ctx) {
  SSL* ssl = ctx ? SSL_new(ctx) : nullptr;
  BIO* in = BIO_new(BIO_s_mem());
  BIO* out = BIO_new(BIO_s_mem());
  if (!ssl || !in || !out) {
    SSL_free(ssl);
    BIO_free(in);
    BIO_free(out);
    return false;
  }
  BIO_set_mem_eof_return(in, -1);  // empty: "retry", not EOF
  SSL_set_bio(ssl, in, out);
  ssl_ = ssl;
  in_ = in;
  out_ = out;
  return true;
}

void tls_memory_pipe::feed(std::span<const std::uint8_t> received) {
  if (in_ && !received.empty()) BIO_write(in_, received.data(), static_cast<int>(received.size()));
}

void tls_memory_pipe::flush(ua::byte_buffer& out) {
  if (!out_) return;
  for (;;) {
    const auto n = BIO_ctrl_pending(out_);
    if (n == 0) return;
    auto* p = out.extend(n);
    const int got = BIO_read(out_, p, static_cast<int>(n));
    if (got != static_cast<int>(n)) return;  // cannot happen with a memory BIO
  }
}

void tls_memory_pipe::write(std::span<const std::uint8_t> plain, ua::byte_buffer& out) {
  if (plain.empty() || !ssl_) return;
  SSL_write(ssl_, plain.data(), static_cast<int>(plain.size()));
  flush(out);
}

}  // namespace uactor::actors
