#include "security/symmetric.hpp"

#include <cstring>
#include <stdexcept>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "protocol/generated/type_codecs.hpp"
#include "security/aead.hpp"
#include "security/hmac_sha256.hpp"
#include "security/hmac_sha384.hpp"
#include "security/openssl.hpp"

namespace uactor::security {

// Every chunk is encrypted from the derived IV (Part 6 §6.7.5, RSA policies). Re-initialising
// the EVP context for that costs about as much as AES-CBC over a small chunk (~200 ns, measured),
// so the contexts are set up once and stream: a context continues from the last cipher block it
// processed (`*_chain`), and the first block is corrected by XOR with chain ^ IV instead.
//   encrypt: C0 = E(P0 ^ IV) = E((P0 ^ IV ^ chain) ^ chain)
//   decrypt: P0 = D(C0) ^ IV = (D(C0) ^ chain) ^ chain ^ IV
struct symmetric_context::state {
  hmac_sha256 mac;        // SHA2-256 policies
  hmac_sha384 mac384;     // the 384-bit ECC policies (Part 7: HMAC-SHA2-384)
  bool sha384 = false;
  void compute_mac(std::span<const std::uint8_t> data, std::uint8_t* out) const noexcept {
    if (sha384) mac384.compute(data, out);
    else mac.compute(data, out);
  }
  evp_cipher_ctx_ptr encrypt;  // null unless the mode encrypts
  evp_cipher_ctx_ptr decrypt;
  std::array<std::uint8_t, 16> iv{};
  std::array<std::uint8_t, 16> encrypt_chain{};  // the IV `encrypt` continues from
  std::array<std::uint8_t, 16> decrypt_chain{};
  std::unique_ptr<chacha20_poly1305> aead;  // the AEAD policies: signs in both modes
};

namespace {

evp_cipher_ctx_ptr make_cipher(const EVP_CIPHER* cipher, const symmetric_keys& keys, int enc) {
  evp_cipher_ctx_ptr ctx(EVP_CIPHER_CTX_new());
  if (!ctx || EVP_CipherInit_ex(ctx.get(), cipher, nullptr, keys.encrypting.data(), keys.iv.data(), enc) != 1 ||
      EVP_CIPHER_CTX_set_padding(ctx.get(), 0) != 1)
    throw std::runtime_error("symmetric_context: AES-CBC set-up failed: " + last_openssl_error());
  return ctx;
}

constexpr std::size_t aes_block = 16;

void xor_block(std::uint8_t* p, const std::array<std::uint8_t, 16>& a, const std::array<std::uint8_t, 16>& b) noexcept {
  for (std::size_t i = 0; i < aes_block; ++i) p[i] ^= a[i] ^ b[i];
}

// AES-CBC over `bytes` (whole blocks) in place; padding is off, so Update produces every byte.
bool update(EVP_CIPHER_CTX* ctx, std::span<std::uint8_t> bytes) noexcept {
  int out_len = 0;
  return EVP_CipherUpdate(ctx, bytes.data(), &out_len, bytes.data(), static_cast<int>(bytes.size())) == 1 &&
         static_cast<std::size_t>(out_len) == bytes.size();
}

// Back to the derived IV after a failure left the context's state unknown.
void reset(EVP_CIPHER_CTX* ctx, const std::array<std::uint8_t, 16>& iv, std::array<std::uint8_t, 16>& chain) noexcept {
  chain = iv;
  if (EVP_CipherInit_ex(ctx, nullptr, nullptr, nullptr, iv.data(), -1) != 1) ERR_clear_error();
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
  s_->iv = keys.iv;
  if (policy.is_aead()) {
    s_->aead = std::make_unique<chacha20_poly1305>(keys.encrypting_key());
    return;
  }
  s_->sha384 = policy.hash == policy_hash::sha384;
  if (s_->sha384) s_->mac384.set_key(keys.signing_key());
  else s_->mac.set_key(keys.signing_key());
  s_->iv = s_->encrypt_chain = s_->decrypt_chain = keys.iv;
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
  if (encrypt_ && !policy_->is_aead()) {  // AEAD: no padding, the tag is the signature (§6.7.2.5.2)
    s.plain_block_size = s.cipher_block_size = policy_->block_size;
    s.encrypted = true;
  }
  return s;
}

namespace symmetric_detail {

std::uint32_t read_u32(const std::uint8_t* p) noexcept {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
}

// Room for the sequence header and the tag after a header that ends with the TokenId.
bool aead_layout(std::span<const std::uint8_t> chunk, std::size_t header_size) noexcept {
  return header_size >= ua::symmetric_security_header_size && header_size <= chunk.size() &&
         chunk.size() - header_size >= ua::sequence_header_size + aead_tag_size;
}

}  // namespace symmetric_detail

void symmetric_context::protect(std::span<std::uint8_t> chunk, std::size_t header_size) {
  if (!sign_) return;
  if (s_->aead) {
    if (!symmetric_detail::aead_layout(chunk, header_size))
      throw std::invalid_argument("symmetric_context::protect: not a chunk laid out for this policy");
    const auto token = symmetric_detail::read_u32(chunk.data() + header_size - 4);
    const auto sequence = symmetric_detail::read_u32(chunk.data() + header_size);
    const auto nonce = aead_chunk_nonce(s_->iv, token, sequence);
    const std::size_t end = chunk.size() - aead_tag_size;
    const std::span<std::uint8_t, aead_tag_size> tag(chunk.data() + end, aead_tag_size);
    const bool ok = encrypt_ ? s_->aead->seal(nonce, chunk.first(header_size), chunk.subspan(header_size, end - header_size), tag)
                             : s_->aead->seal(nonce, chunk.first(end), {}, tag);
    if (!ok) throw std::runtime_error("symmetric_context::protect: ChaCha20-Poly1305 failed");
    return;
  }
  const std::size_t sig = policy_->symmetric_signature_length;
  if (header_size > chunk.size() || chunk.size() - header_size < ua::sequence_header_size + sig ||
      (encrypt_ && (chunk.size() - header_size) % policy_->block_size != 0))
    throw std::invalid_argument("symmetric_context::protect: not a chunk laid out for this policy");
  const std::size_t signed_size = chunk.size() - sig;
  s_->compute_mac(chunk.first(signed_size), chunk.data() + signed_size);
  if (!encrypt_) return;
  const auto text = chunk.subspan(header_size);
  xor_block(text.data(), s_->iv, s_->encrypt_chain);
  if (!update(s_->encrypt.get(), text)) {
    const auto why = last_openssl_error();
    reset(s_->encrypt.get(), s_->iv, s_->encrypt_chain);
    throw std::runtime_error("symmetric_context::protect: AES-CBC failed: " + why);
  }
  std::memcpy(s_->encrypt_chain.data(), text.data() + text.size() - aes_block, aes_block);
}

ua::status_code symmetric_context::unprotect(std::span<std::uint8_t> chunk, std::size_t header_size,
                                             std::uint32_t expected_sequence) {
  if (!sign_) return ua::status::good;
  if (s_->aead) {
    if (!symmetric_detail::aead_layout(chunk, header_size)) return ua::status::bad_security_checks_failed;
    const auto token = symmetric_detail::read_u32(chunk.data() + header_size - 4);
    // Sign: the SequenceNumber is in the clear and authenticated; SignAndEncrypt: the expected one.
    const auto sequence = encrypt_ ? expected_sequence : symmetric_detail::read_u32(chunk.data() + header_size);
    const auto nonce = aead_chunk_nonce(s_->iv, token, sequence);
    const std::size_t end = chunk.size() - aead_tag_size;
    const std::span<const std::uint8_t, aead_tag_size> tag(chunk.data() + end, aead_tag_size);
    const bool ok = encrypt_ ? s_->aead->open(nonce, chunk.first(header_size), chunk.subspan(header_size, end - header_size), tag)
                             : s_->aead->open(nonce, chunk.first(end), {}, tag);
    return ok ? ua::status::good : ua::status::bad_security_checks_failed;
  }
  const std::size_t sig = policy_->symmetric_signature_length;
  if (header_size > chunk.size()) return ua::status::bad_security_checks_failed;
  const std::size_t rest = chunk.size() - header_size;
  // Sequence header, signature and, when encrypted, at least the PaddingSize byte.
  if (rest < ua::sequence_header_size + sig + (encrypt_ ? 1 : 0)) return ua::status::bad_security_checks_failed;
  if (encrypt_) {
    if (rest % policy_->block_size != 0) return ua::status::bad_security_checks_failed;
    const auto text = chunk.subspan(header_size);
    std::array<std::uint8_t, aes_block> last;
    std::memcpy(last.data(), text.data() + text.size() - aes_block, aes_block);
    if (!update(s_->decrypt.get(), text)) {
      ERR_clear_error();
      reset(s_->decrypt.get(), s_->iv, s_->decrypt_chain);
      return ua::status::bad_security_checks_failed;
    }
    xor_block(text.data(), s_->decrypt_chain, s_->iv);
    s_->decrypt_chain = last;
  }
  const std::size_t signed_size = chunk.size() - sig;
  std::uint8_t expected[hmac_sha384_size];
  s_->compute_mac(chunk.first(signed_size), expected);
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
