#include "security/session_crypto.hpp"

#include <array>
#include <cstring>
#include <string>

#include <openssl/crypto.h>

#include "uactor/ua/status_codes.hpp"
#include "security/ecc.hpp"
#include "security/rsa.hpp"

namespace uactor::security {

namespace {
std::uint8_t* writable(std::string& s) { return reinterpret_cast<std::uint8_t*>(s.data()); }
}  // namespace

ua::byte_string sign(const security_policy& p, const rsa_key& own_private, std::span<const std::uint8_t> data) {
  ua::byte_string out;
  if (p.is_none() || !own_private || !own_private.has_private()) return out;
  if (p.is_ecc()) {  // Part 6 §6.8: ECDSA as r | s
    std::string sig(p.ecc_signature_size(), '\0');
    if (!key_fits_policy(p, own_private) || !ecc_sign(p, own_private, data, {writable(sig), sig.size()})) return out;
    out.assign(sig);
    return out;
  }
  if (!key_fits_policy(p, own_private)) return out;
  std::string sig(own_private.size_bytes(), '\0');
  if (!rsa_sign(p, own_private, data, {writable(sig), sig.size()})) return out;
  out.assign(sig);
  return out;
}

bool verify(const security_policy& p, const rsa_key& peer_public, std::span<const std::uint8_t> data,
            std::span<const std::uint8_t> signature) {
  if (p.is_none() || !peer_public || !key_fits_policy(p, peer_public)) return false;
  if (p.is_ecc()) return ecc_verify(p, peer_public, data, signature);
  return rsa_verify(p, peer_public, data, signature);
}

ua::byte_string encrypt_secret(const security_policy& p, const rsa_key& server_public,
                               std::span<const std::uint8_t> secret, std::span<const std::uint8_t> server_nonce) {
  ua::byte_string out;
  const auto ctx = make_rsa_encrypt_ctx(p, server_public);
  const std::size_t plain_block = rsa_plain_block_size(p, server_public);
  if (!ctx || plain_block == 0) return out;
  const std::size_t length = secret.size() + server_nonce.size();
  if (length > 0xFFFFFFFFu - 4) return out;
  std::string plain(4 + length, '\0');
  const auto l = static_cast<std::uint32_t>(length);
  std::memcpy(plain.data(), &l, 4);  // UInt32, little-endian (Part 6 §5.2.2.2) on the hosts we build for
  if (!secret.empty()) std::memcpy(plain.data() + 4, secret.data(), secret.size());
  if (!server_nonce.empty()) std::memcpy(plain.data() + 4 + secret.size(), server_nonce.data(), server_nonce.size());
  const std::size_t blocks = (plain.size() + plain_block - 1) / plain_block;
  std::string cipher(blocks * server_public.size_bytes(), '\0');
  const bool ok = rsa_encrypt_blocks(ctx.get(), server_public.size_bytes(), plain_block,
                                     {writable(plain), plain.size()}, writable(cipher), true);
  OPENSSL_cleanse(plain.data(), plain.size());
  if (ok) out.assign(cipher);
  return out;
}

ua::expected<ua::byte_string> decrypt_secret(const security_policy& p, const rsa_key& server_private,
                                             std::span<const std::uint8_t> cipher,
                                             std::span<const std::uint8_t> server_nonce) {
  const auto ctx = make_rsa_decrypt_ctx(p, server_private);
  const std::size_t key_bytes = server_private.size_bytes();
  if (!ctx || cipher.empty() || cipher.size() % key_bytes != 0) return ua::status::bad_identity_token_invalid;
  std::string plain;
  plain.reserve(cipher.size());
  std::array<std::uint8_t, max_rsa_bytes> block;
  bool ok = true;
  for (std::size_t at = 0; ok && at < cipher.size(); at += key_bytes) {
    const long n = rsa_decrypt_block(ctx.get(), cipher.subspan(at, key_bytes), block.data());
    if (n < 0) ok = false;
    else plain.append(reinterpret_cast<const char*>(block.data()), static_cast<std::size_t>(n));
  }
  OPENSSL_cleanse(block.data(), block.size());
  std::uint32_t length = 0;
  if (ok && plain.size() >= 4) std::memcpy(&length, plain.data(), 4);
  // The length covers secret and nonce. Part 4 §7.36.2.2 (1.05, the Legacy Encrypted Token Secret
  // Format): "If a Client adds padding then all bytes shall be zero. A Server shall check for
  // padding added by Clients and ensure that all padding bytes are zeros." (open62541 1.5 pads
  // to the RSA block size.) So what follows length + secret + nonce must be zeros, if anything.
  ok = ok && plain.size() >= 4 && length <= plain.size() - 4 && length >= server_nonce.size();
  const std::size_t end = ok ? 4 + static_cast<std::size_t>(length) : 0;
  ok = ok && CRYPTO_memcmp(plain.data() + end - server_nonce.size(), server_nonce.data(), server_nonce.size()) == 0;
  unsigned char padding = 0;
  for (std::size_t i = end; ok && i < plain.size(); ++i) padding |= static_cast<unsigned char>(plain[i]);
  ok = ok && padding == 0;
  if (!ok) {
    OPENSSL_cleanse(plain.data(), plain.size());
    return ua::status::bad_identity_token_invalid;
  }
  ua::byte_string secret;
  secret.assign(plain.data() + 4, length - server_nonce.size());
  OPENSSL_cleanse(plain.data(), plain.size());
  return secret;
}

}  // namespace uactor::security
