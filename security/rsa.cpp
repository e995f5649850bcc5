#include "security/rsa.hpp"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

namespace uactor::security {

namespace {

bool set_oaep(const security_policy& p, EVP_PKEY_CTX* ctx) {
  if (EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) <= 0) return false;
  if (p.encryption == asymmetric_encryption::rsa_oaep_sha256) {
    // RSA-OAEP-SHA2-256: SHA-256 for the label hash and for MGF1 (as node-opcua's oaepHash does).
    if (EVP_PKEY_CTX_set_rsa_oaep_md(ctx, EVP_sha256()) <= 0) return false;
    if (EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, EVP_sha256()) <= 0) return false;
  }
  return true;  // RSA-OAEP (SHA-1 and MGF1-SHA-1) is OpenSSL's default
}

bool set_signature(const security_policy& p, EVP_PKEY_CTX* pctx) {
  if (p.signature != asymmetric_signature::rsa_pss_sha256) return true;  // PKCS#1 v1.5 is the default
  // RSA-PSS-SHA2-256: MGF1 with SHA-256, salt length = hash length (Part 7).
  return EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) > 0 &&
         EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) > 0 &&
         EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, EVP_sha256()) > 0;
}

}  // namespace

evp_pkey_ctx_ptr make_rsa_encrypt_ctx(const security_policy& p, const rsa_key& key) {
  if (!key || p.is_none() || p.is_ecc()) return nullptr;
  evp_pkey_ctx_ptr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, key.native(), nullptr));
  if (!ctx || EVP_PKEY_encrypt_init(ctx.get()) <= 0 || !set_oaep(p, ctx.get())) {
    ERR_clear_error();
    return nullptr;
  }
  return ctx;
}

evp_pkey_ctx_ptr make_rsa_decrypt_ctx(const security_policy& p, const rsa_key& key) {
  if (!key || p.is_none() || p.is_ecc() || !key.has_private()) return nullptr;
  evp_pkey_ctx_ptr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, key.native(), nullptr));
  if (!ctx || EVP_PKEY_decrypt_init(ctx.get()) <= 0 || !set_oaep(p, ctx.get())) {
    ERR_clear_error();
    return nullptr;
  }
  return ctx;
}

std::size_t rsa_plain_block_size(const security_policy& p, const rsa_key& key) noexcept {
  const std::size_t n = key.size_bytes();
  return n > p.oaep_overhead() ? n - p.oaep_overhead() : 0;
}

bool rsa_encrypt_blocks(EVP_PKEY_CTX* ctx, std::size_t key_bytes, std::size_t plain_block,
                        std::span<const std::uint8_t> in, std::uint8_t* out, bool last_may_be_short) {
  if (plain_block == 0 || (!last_may_be_short && in.size() % plain_block != 0)) return false;
  for (std::size_t at = 0; at < in.size(); at += plain_block) {
    const std::size_t n = std::min(plain_block, in.size() - at);
    std::size_t out_len = key_bytes;
    if (EVP_PKEY_encrypt(ctx, out, &out_len, in.data() + at, n) <= 0 || out_len != key_bytes) {
      ERR_clear_error();
      return false;
    }
    out += key_bytes;
  }
  return true;
}

long rsa_decrypt_block(EVP_PKEY_CTX* ctx, std::span<const std::uint8_t> block, std::uint8_t* out) {
  std::size_t out_len = block.size();
  if (EVP_PKEY_decrypt(ctx, out, &out_len, block.data(), block.size()) <= 0) {
    ERR_clear_error();
    return -1;
  }
  return static_cast<long>(out_len);
}

bool rsa_sign(const security_policy& p, const rsa_key& key, std::span<const std::uint8_t> data, std::span<std::uint8_t> out) {
  if (!key || p.is_none() || out.size() != key.size_bytes()) return false;
  evp_md_ctx_ptr md(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pctx = nullptr;  // owned by md
  std::size_t len = out.size();
  const bool ok = md && EVP_DigestSignInit(md.get(), &pctx, EVP_sha256(), nullptr, key.native()) > 0 &&
                  set_signature(p, pctx) && EVP_DigestSign(md.get(), out.data(), &len, data.data(), data.size()) > 0 &&
                  len == out.size();
  if (!ok) ERR_clear_error();
  return ok;
}

bool rsa_verify(const security_policy& p, const rsa_key& key, std::span<const std::uint8_t> data,
                std::span<const std::uint8_t> signature) {
  if (!key || p.is_none() || signature.size() != key.size_bytes()) return false;
  evp_md_ctx_ptr md(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pctx = nullptr;
  const bool ok = md && EVP_DigestVerifyInit(md.get(), &pctx, EVP_sha256(), nullptr, key.native()) > 0 &&
                  set_signature(p, pctx) &&
                  EVP_DigestVerify(md.get(), signature.data(), signature.size(), data.data(), data.size()) == 1;
  ERR_clear_error();
  return ok;
}

}  // namespace uactor::security
