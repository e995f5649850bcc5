#include "security/aead.hpp"

#include <algorithm>
#include <stdexcept>

#include <openssl/err.h>
#include <openssl/evp.h>

namespace uactor::security {

aead_nonce aead_chunk_nonce(std::span<const std::uint8_t> iv, std::uint32_t token_id, std::uint32_t sequence_number) noexcept {
  aead_nonce n{};
  for (std::size_t i = 0; i < n.size() && i < iv.size(); ++i) n[i] = iv[i];
  for (std::size_t i = 0; i < 4; ++i) {
    n[i] ^= static_cast<std::uint8_t>(token_id >> (8 * i));
    n[4 + i] ^= static_cast<std::uint8_t>(sequence_number >> (8 * i));
  }
  return n;
}

namespace aead_detail {

evp_cipher_ctx_ptr make_aead_ctx(std::span<const std::uint8_t> key, int enc) {
  evp_cipher_ctx_ptr ctx(EVP_CIPHER_CTX_new());
  // The key stays in the context; each message sets only its nonce (96 bits, the default).
  if (!ctx || EVP_CipherInit_ex(ctx.get(), EVP_chacha20_poly1305(), nullptr, key.data(), nullptr, enc) != 1)
    throw std::runtime_error("chacha20_poly1305: set-up failed: " + last_openssl_error());
  return ctx;
}

// Nonce, AAD, then the text in place; Update yields every byte (a stream cipher).
bool run(EVP_CIPHER_CTX* ctx, const aead_nonce& nonce, std::span<const std::uint8_t> aad,
         std::span<std::uint8_t> text) noexcept {
  int n = 0;
  if (EVP_CipherInit_ex(ctx, nullptr, nullptr, nullptr, nonce.data(), -1) != 1) return false;
  if (!aad.empty() && EVP_CipherUpdate(ctx, nullptr, &n, aad.data(), static_cast<int>(aad.size())) != 1) return false;
  if (!text.empty() && (EVP_CipherUpdate(ctx, text.data(), &n, text.data(), static_cast<int>(text.size())) != 1 ||
                        static_cast<std::size_t>(n) != text.size()))
    return false;
  return true;
}

}  // namespace aead_detail

chacha20_poly1305::chacha20_poly1305(std::span<const std::uint8_t> key) {
  if (key.size() != aead_key_size) throw std::invalid_argument("chacha20_poly1305: the key is not 32 bytes");
  encrypt_ = aead_detail::make_aead_ctx(key, 1);
  decrypt_ = aead_detail::make_aead_ctx(key, 0);
}

bool chacha20_poly1305::seal(const aead_nonce& nonce, std::span<const std::uint8_t> aad, std::span<std::uint8_t> text,
                             std::span<std::uint8_t, aead_tag_size> tag) noexcept {
  int n = 0;
  std::uint8_t none[1];
  const bool ok = aead_detail::run(encrypt_.get(), nonce, aad, text) && EVP_CipherFinal_ex(encrypt_.get(), none, &n) == 1 &&
                  EVP_CIPHER_CTX_ctrl(encrypt_.get(), EVP_CTRL_AEAD_GET_TAG, aead_tag_size, tag.data()) == 1;
  if (!ok) ERR_clear_error();
  return ok;
}

bool chacha20_poly1305::open(const aead_nonce& nonce, std::span<const std::uint8_t> aad, std::span<std::uint8_t> text,
                             std::span<const std::uint8_t, aead_tag_size> tag) noexcept {
  int n = 0;
  std::uint8_t none[1];
  std::array<std::uint8_t, aead_tag_size> expected;
  std::copy(tag.begin(), tag.end(), expected.begin());
  // Final compares the tag in constant time (OpenSSL's chacha20_poly1305 cipher).
  const bool ok = aead_detail::run(decrypt_.get(), nonce, aad, text) &&
                  EVP_CIPHER_CTX_ctrl(decrypt_.get(), EVP_CTRL_AEAD_SET_TAG, aead_tag_size, expected.data()) == 1 &&
                  EVP_CipherFinal_ex(decrypt_.get(), none, &n) == 1;
  if (!ok) ERR_clear_error();
  return ok;
}

}  // namespace uactor::security
