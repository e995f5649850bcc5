#include "security/symmetric.hpp"

#include <stdexcept>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "protocol/generated/types.hpp"
#include "security/hmac_sha256.hpp"
#include "security/openssl.hpp"

namespace uactor::security {

struct symmetric_context::state {
  hmac_sha256 mac;
  evp_cipher_ctx_ptr encrypt;  // null unless the mode encrypts
  evp_cipher_ctx_ptr decrypt;
  std::array<std::uint8_t, 16> iv{};
};

namespace {

evp_cipher_ctx_ptr make_cipher(const EVP_CIPHER* cipher, const symmetric_keys& keys, int enc) {
  evp_cipher_ctx_ptr ctx(EVP_CIPHER_CTX_new());
  if (!ctx || EVP_CipherInit_ex(ctx.get(), cipher, nullptr, keys.encrypting.data(), keys.iv.data(), enc) != 1 ||
      EVP_CIPHER_CTX_set_padding(ctx.get(), 0) != 1)
    throw std::runtime_error("symmetric_context: AES-CBC set-up failed: " + last_openssl_error());
  return ctx;
}

// Resets the IV and runs AES-CBC over `bytes` in place; padding is off and `bytes` whole blocks,
// so Update produces every byte and no Final is needed.
bool run_cipher(EVP_CIPHER_CTX* ctx, const std::uint8_t* iv, std::span<std::uint8_t> bytes) noexcept {
  int out_len = 0;
  if (EVP_CipherInit_ex(ctx, nullptr, nullptr, nullptr, iv, -1) != 1) return false;
  if (EVP_CipherUpdate(ctx, bytes.data(), &out_len, bytes.data(), static_cast<int>(bytes.size())) != 1) return false;
  return static_cast<std::size_t>(out_len) == bytes.size();
}

}  // namespace

symmetric_context::symmetric_context(const security_policy& policy, ua::message_security_mode mode,
                                     const symmetric_keys& keys)
    : policy_(&policy) {
  switch (mode) {
    case ua::message_security_mode::none: return;
    case ua::message_security_mode::sign: sign_ = true; break;
    case ua::message_security_mode::sign_and_encrypt: sign_ = encrypt_ = true; break;
    default: throw std::invalid_argument("symmetric_context: invalid MessageSecurityMode");
  }
  if (policy.is_none()) throw std::invalid_argument("symmetric_context: Sign/SignAndEncrypt with policy None");
  if (keys.signing_length != policy.signing_key_length || keys.encrypting_length != policy.encrypting_key_length)
    throw std::invalid_argument("symmetric_context: keys not derived for this policy");
  s_ = std::make_unique<state>();
  s_->mac.set_key(keys.signing_key());
  s_->iv = keys.iv;
  if (encrypt_) {
    const EVP_CIPHER* cipher = policy.encrypting_key_length == 16 ? EVP_aes_128_cbc() : EVP_aes_256_cbc();
    s_->encrypt = make_cipher(cipher, keys, 1);
    s_->decrypt = make_cipher(cipher, keys, 0);
  }
}

symmetric_context::~symmetric_context() = default;
symmetric_context::symmetric_context(symmetric_context&&) noexcept = default;
symmetric_context& symmetric_context::operator=(symmetric_context&&) noexcept = default;

ua::chunk_security symmetric_context::chunk_security() const noexcept {
  ua::chunk_security s;
  if (!sign_) return s;
  s.signature_size = policy_->symmetric_signature_length;
  if (encrypt_) {
    s.plain_block_size = s.cipher_block_size = policy_->block_size;
    s.encrypted = true;
  }
  return s;
}

void symmetric_context::protect(std::span<std::uint8_t> chunk, std::size_t header_size) {
  if (!sign_) return;
  const std::size_t sig = policy_->symmetric_signature_length;
  if (header_size > chunk.size() || chunk.size() - header_size < ua::sequence_header_size + sig ||
      (encrypt_ && (chunk.size() - header_size) % policy_->block_size != 0))
    throw std::invalid_argument("symmetric_context::protect: not a chunk laid out for this policy");
  const std::size_t signed_size = chunk.size() - sig;
  s_->mac.compute(chunk.first(signed_size), chunk.data() + signed_size);
  if (encrypt_ && !run_cipher(s_->encrypt.get(), s_->iv.data(), chunk.subspan(header_size)))
    throw std::runtime_error("symmetric_context::protect: AES-CBC failed: " + last_openssl_error());
}

ua::status_code symmetric_context::unprotect(std::span<std::uint8_t> chunk, std::size_t header_size) {
  if (!sign_) return ua::status::good;
  const std::size_t sig = policy_->symmetric_signature_length;
  if (header_size > chunk.size()) return ua::status::bad_security_checks_failed;
  const std::size_t rest = chunk.size() - header_size;
  // Sequence header, signature and, when encrypted, at least the PaddingSize byte.
  if (rest < ua::sequence_header_size + sig + (encrypt_ ? 1 : 0)) return ua::status::bad_security_checks_failed;
  if (encrypt_) {
    if (rest % policy_->block_size != 0) return ua::status::bad_security_checks_failed;
    if (!run_cipher(s_->decrypt.get(), s_->iv.data(), chunk.subspan(header_size))) {
      ERR_clear_error();
      return ua::status::bad_security_checks_failed;
    }
  }
  const std::size_t signed_size = chunk.size() - sig;
  std::uint8_t expected[hmac_sha256_size];
  s_->mac.compute(chunk.first(signed_size), expected);
  if (CRYPTO_memcmp(expected, chunk.data() + signed_size, sig) != 0) return ua::status::bad_security_checks_failed;
  if (encrypt_) {
    // §6.7.2.5: PaddingSize, then that many bytes before it, all holding the same value. The
    // signature covers them, so this is not a padding oracle; it still refuses a peer that pads wrong.
    const std::size_t pad = chunk[signed_size - 1];
    if (pad + 1 > rest - sig - ua::sequence_header_size) return ua::status::bad_security_checks_failed;
    std::uint8_t diff = 0;
    for (std::size_t i = signed_size - 1 - pad; i < signed_size - 1; ++i) diff |= chunk[i] ^ static_cast<std::uint8_t>(pad);
    if (diff != 0) return ua::status::bad_security_checks_failed;
  }
  return ua::status::good;
}

}  // namespace uactor::security
