#include "actors/wss/ws_accept_key.hpp"

#include <openssl/evp.h>

#include <cstdint>
#include <span>

#include "protocol/base64.hpp"

namespace uactor::actors {

std::string ws_accept_key(std::string_view key) {
  std::string in(key);
  in += "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(in.data(), in.size(), digest, &n, EVP_sha1(), nullptr);
  return ua::base64_encode(std::span<const std::uint8_t>(digest, n));
}

}  // namespace uactor::actors
