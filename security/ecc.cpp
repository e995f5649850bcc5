#include "security/ecc.hpp"

#include <cstring>
#include <string>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/objects.h>
#include <openssl/params.h>

#include "security/ecc_edwards.hpp"
#include "security/openssl.hpp"

namespace uactor::security {

namespace {

const EVP_MD* ecc_digest(policy_hash h) noexcept { return h == policy_hash::sha384 ? EVP_sha384() : EVP_sha256(); }

// The key's curve as OpenSSL names it ("" when it is not an EC key).
std::string ecc_group_of(const rsa_key& key) {
  if (!key || EVP_PKEY_is_a(key.native(), "EC") != 1) return {};
  char name[64] = {};
  std::size_t len = 0;
  if (EVP_PKEY_get_utf8_string_param(key.native(), OSSL_PKEY_PARAM_GROUP_NAME, name, sizeof name, &len) != 1) {
    ERR_clear_error();
    return {};
  }
  return std::string(name, len);
}

struct ecdsa_sig_deleter {
  void operator()(ECDSA_SIG* s) const noexcept { ECDSA_SIG_free(s); }
};
using ecdsa_sig_ptr = std::unique_ptr<ECDSA_SIG, ecdsa_sig_deleter>;
struct bn_deleter {
  void operator()(BIGNUM* b) const noexcept { BN_free(b); }
};
using bignum_ptr = std::unique_ptr<BIGNUM, bn_deleter>;

edwards_curve ecc_edwards_of(const security_policy& p) noexcept {
  return p.signature == asymmetric_signature::eddsa_448 ? edwards_curve::c448 : edwards_curve::c25519;
}

bool ecdsa_sign(const security_policy& p, const rsa_key& key, std::span<const std::uint8_t> data,
                std::span<std::uint8_t> out);
bool ecdsa_verify(const security_policy& p, const rsa_key& key, std::span<const std::uint8_t> data,
                  std::span<const std::uint8_t> signature);

}  // namespace

std::string_view curve_label(std::string_view curve) noexcept {
  if (curve == "prime256v1") return "nistP256";
  if (curve == "secp384r1") return "nistP384";
  if (curve == "ED25519") return "curve25519";
  if (curve == "ED448") return "curve448";
  return curve;
}

std::string own_identity_name(std::string_view base, const security_policy& policy) {
  if (!policy.is_ecc()) return std::string(base);
  return std::string(base) + "-ecc-" + std::string(curve_label(policy.curve));
}

ua::expected<rsa_key> generate_ecc_key(std::string_view curve) {
  const std::string name(curve);
  if (name.empty() || OBJ_txt2nid(name.c_str()) == NID_undef) return ua::status::bad_invalid_argument;
  const bool edwards = curve == eddsa_key_type(edwards_curve::c25519) || curve == eddsa_key_type(edwards_curve::c448);
  EVP_PKEY* k = edwards ? EVP_PKEY_Q_keygen(nullptr, nullptr, name.c_str())
                        : EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", name.c_str());
  if (k == nullptr) {
    ERR_clear_error();
    return ua::status::bad_internal_error;
  }
  return rsa_key(k);
}

const EVP_MD* certificate_signature_digest(const rsa_key& key) noexcept {
  if (!key || EVP_PKEY_is_a(key.native(), "ED25519") == 1 || EVP_PKEY_is_a(key.native(), "ED448") == 1) return nullptr;
  return EVP_PKEY_is_a(key.native(), "EC") == 1 && key.bits() == 384 ? EVP_sha384() : EVP_sha256();
}

bool key_fits_policy(const security_policy& p, const rsa_key& key) noexcept {
  if (!key) return false;
  if (!p.is_ecc()) return EVP_PKEY_is_a(key.native(), "RSA") == 1;
  if (p.is_edwards()) return is_eddsa_key(ecc_edwards_of(p), key);
  try {
    return ecc_group_of(key) == p.curve;
  } catch (...) {
    return false;
  }
}

ua::expected<ephemeral_key> make_ephemeral_key(const security_policy& p) {
  if (!p.is_ecc()) return ua::status::bad_invalid_argument;
  auto key = p.is_edwards() ? generate_xdh_key(ecc_edwards_of(p)) : generate_ecc_key(p.curve);
  if (!key) return key.error();
  return ephemeral_key_of(p, std::move(*key));
}

ua::expected<ephemeral_key> ephemeral_key_of(const security_policy& p, rsa_key key) {
  if (p.is_edwards()) {  // the raw public key (RFC 7748 §5)
    ephemeral_key e;
    e.size = p.nonce_length;
    if (!xdh_public_bytes(ecc_edwards_of(p), key, std::span(e.bytes).first(e.size))) return ua::status::bad_invalid_argument;
    e.key = std::move(key);
    return e;
  }
  if (!p.is_ecc() || !key_fits_policy(p, key)) return ua::status::bad_invalid_argument;
  // The uncompressed point: 0x04 | X | Y (SEC 1 §2.3.3); OpenSSL's default for a generated key.
  std::uint8_t point[1 + max_ecc_point_size];
  std::size_t len = 0;
  if (EVP_PKEY_get_octet_string_param(key.native(), OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point, sizeof point, &len) != 1 ||
      len != 1 + p.nonce_length || point[0] != 0x04) {
    ERR_clear_error();
    return ua::status::bad_internal_error;
  }
  ephemeral_key e;
  e.key = std::move(key);
  e.size = p.nonce_length;
  std::memcpy(e.bytes.data(), point + 1, e.size);
  return e;
}

ua::expected<rsa_key> ecc_public_from_bytes(const security_policy& p, std::span<const std::uint8_t> xy) {
  if (!p.is_ecc() || xy.size() != p.nonce_length) return ua::status::bad_nonce_invalid;
  if (p.is_edwards()) return xdh_public_from_bytes(ecc_edwards_of(p), xy);
  std::uint8_t point[1 + max_ecc_point_size];
  point[0] = 0x04;
  std::memcpy(point + 1, xy.data(), xy.size());
  std::string group(p.curve);
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group.data(), 0),
      OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, point, 1 + xy.size()),
      OSSL_PARAM_construct_end(),
  };
  evp_pkey_ctx_ptr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  EVP_PKEY* k = nullptr;
  // The import decodes the point, which refuses one that is not on the curve.
  if (!ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &k, EVP_PKEY_PUBLIC_KEY, params) != 1 || k == nullptr) {
    ERR_clear_error();
    return ua::status::bad_security_checks_failed;
  }
  rsa_key key(k);
  // SP 800-56A §5.6.2.3.4 (partial public key validation): not the point at infinity, coordinates
  // in range, on the curve. The full check's multiplication by the order adds nothing on these
  // curves of cofactor 1 (every point on the curve has the group's order) and cost as much as the
  // ECDH itself (chunk_crypto_bench opn.derive).
  evp_pkey_ctx_ptr check(EVP_PKEY_CTX_new_from_pkey(nullptr, k, nullptr));
  if (!check || EVP_PKEY_public_check_quick(check.get()) != 1) {
    ERR_clear_error();
    return ua::status::bad_security_checks_failed;
  }
  return key;
}

bool ecdh_shared_secret(const rsa_key& own_private, const rsa_key& peer_public, std::span<std::uint8_t> out) {
  if (!own_private || !peer_public) return false;
  evp_pkey_ctx_ptr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, own_private.native(), nullptr));
  std::size_t len = 0;
  if (!ctx || EVP_PKEY_derive_init(ctx.get()) != 1 || EVP_PKEY_derive_set_peer(ctx.get(), peer_public.native()) != 1 ||
      EVP_PKEY_derive(ctx.get(), nullptr, &len) != 1 || len != out.size() ||
      EVP_PKEY_derive(ctx.get(), out.data(), &len) != 1 || len != out.size()) {
    ERR_clear_error();
    OPENSSL_cleanse(out.data(), out.size());
    return false;
  }
  // RFC 7748 §6.1: an all-zero X25519 / X448 secret means a peer key of small order (no ECDH
  // X coordinate is all zeros on the prime-order curves). Checked over every byte.
  std::uint8_t any = 0;
  for (const auto b : out) any |= b;
  return any != 0;
}

bool hkdf(policy_hash hash, std::span<const std::uint8_t> salt, std::span<const std::uint8_t> ikm,
          std::span<const std::uint8_t> info, std::span<std::uint8_t> out) {
  // Fetched once (OpenSSL 3 fetches are a provider lookup each); the EVP_KDF is thread-safe to share.
  static EVP_KDF* const kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  if (!kdf) return false;
  std::unique_ptr<EVP_KDF_CTX, detail::openssl_deleter<EVP_KDF_CTX, EVP_KDF_CTX_free>> ctx(EVP_KDF_CTX_new(kdf));
  if (!ctx) return false;
  char digest[16];
  std::strcpy(digest, hash == policy_hash::sha384 ? "SHA384" : "SHA256");
  auto bytes = [](std::span<const std::uint8_t> s) { return const_cast<std::uint8_t*>(s.data()); };
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, bytes(ikm), ikm.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, bytes(salt), salt.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, bytes(info), info.size()),
      OSSL_PARAM_construct_end(),
  };
  if (EVP_KDF_derive(ctx.get(), out.data(), out.size(), params) != 1) {
    ERR_clear_error();
    return false;
  }
  return true;
}

namespace {

// One direction's keys from the shared secret: Tables 67/68 of Part 6 §6.8.1.
symmetric_keys ecc_direction_keys(const security_policy& p, std::span<const std::uint8_t> secret,
                                  std::string_view label, std::span<const std::uint8_t> first_nonce,
                                  std::span<const std::uint8_t> second_nonce) {
  symmetric_keys k;
  k.signing_length = p.signing_key_length;
  k.encrypting_length = p.encrypting_key_length;
  const std::size_t iv_length = p.iv_length();
  const std::size_t total = k.signing_length + k.encrypting_length + iv_length;
  std::uint8_t salt[2 + 12 + 2 * max_ecc_point_size];
  const std::size_t salt_size = 2 + label.size() + first_nonce.size() + second_nonce.size();
  if (label.size() != 12 || first_nonce.size() > max_ecc_point_size || second_nonce.size() > max_ecc_point_size)
    return k;  // not reached: the callers checked the nonce lengths
  salt[0] = static_cast<std::uint8_t>(total & 0xFF);  // L, UInt16 little endian
  salt[1] = static_cast<std::uint8_t>(total >> 8);
  std::memcpy(salt + 2, label.data(), label.size());
  std::memcpy(salt + 2 + label.size(), first_nonce.data(), first_nonce.size());
  std::memcpy(salt + 2 + label.size() + first_nonce.size(), second_nonce.data(), second_nonce.size());
  std::array<std::uint8_t, 48 + 32 + 16> material{};
  const std::span<const std::uint8_t> s(salt, salt_size);
  if (!hkdf(p.hash, s, secret, s, std::span(material).first(total))) {
    k.signing_length = k.encrypting_length = 0;  // a context refuses keys of the wrong length
    return k;
  }
  std::memcpy(k.signing.data(), material.data(), k.signing_length);
  std::memcpy(k.encrypting.data(), material.data() + k.signing_length, k.encrypting_length);
  std::memcpy(k.iv.data(), material.data() + k.signing_length + k.encrypting_length, iv_length);
  OPENSSL_cleanse(material.data(), material.size());
  return k;
}

}  // namespace

channel_keys derive_ecc_channel_keys(const security_policy& p, std::span<const std::uint8_t> shared_secret,
                                     std::span<const std::uint8_t> client_nonce,
                                     std::span<const std::uint8_t> server_nonce) {
  return {ecc_direction_keys(p, shared_secret, "opcua-client", client_nonce, server_nonce),
          ecc_direction_keys(p, shared_secret, "opcua-server", server_nonce, client_nonce)};
}

ua::expected<channel_keys> ecc_channel_keys(const security_policy& p, const ephemeral_key& own,
                                            std::span<const std::uint8_t> peer_nonce,
                                            std::span<const std::uint8_t> client_nonce,
                                            std::span<const std::uint8_t> server_nonce) {
  auto peer = ecc_public_from_bytes(p, peer_nonce);
  if (!peer) return peer.error();
  std::array<std::uint8_t, max_ecc_secret_size> secret{};
  const auto out = std::span(secret).first(p.coordinate_size);
  if (!ecdh_shared_secret(own.key, *peer, out)) return ua::status::bad_security_checks_failed;
  auto keys = derive_ecc_channel_keys(p, out, client_nonce, server_nonce);
  OPENSSL_cleanse(secret.data(), secret.size());
  if (keys.client.encrypting_length == 0 || keys.server.encrypting_length == 0) return ua::status::bad_internal_error;
  return keys;
}

bool ecc_sign(const security_policy& p, const rsa_key& key, std::span<const std::uint8_t> data, std::span<std::uint8_t> out) {
  if (p.is_edwards()) return out.size() == p.ecc_signature_size() && eddsa_sign(ecc_edwards_of(p), key, data, out);
  return ecdsa_sign(p, key, data, out);
}

bool ecc_verify(const security_policy& p, const rsa_key& key, std::span<const std::uint8_t> data,
                std::span<const std::uint8_t> signature) {
  if (p.is_edwards()) return signature.size() == p.ecc_signature_size() && eddsa_verify(ecc_edwards_of(p), key, data, signature);
  return ecdsa_verify(p, key, data, signature);
}

namespace {

bool ecdsa_sign(const security_policy& p, const rsa_key& key, std::span<const std::uint8_t> data, std::span<std::uint8_t> out) {
  if (!p.is_ecc() || !key || out.size() != p.ecc_signature_size()) return false;
  evp_md_ctx_ptr md(EVP_MD_CTX_new());
  std::uint8_t der[160];  // SEQUENCE of two INTEGERs of at most 49 bytes
  std::size_t der_len = sizeof der;
  if (!md || EVP_DigestSignInit(md.get(), nullptr, ecc_digest(p.hash), nullptr, key.native()) != 1 ||
      EVP_DigestSign(md.get(), der, &der_len, data.data(), data.size()) != 1) {
    ERR_clear_error();
    return false;
  }
  const unsigned char* q = der;
  ecdsa_sig_ptr sig(d2i_ECDSA_SIG(nullptr, &q, static_cast<long>(der_len)));
  if (!sig) {
    ERR_clear_error();
    return false;
  }
  const BIGNUM* r = nullptr;
  const BIGNUM* s = nullptr;
  ECDSA_SIG_get0(sig.get(), &r, &s);
  const int c = static_cast<int>(p.coordinate_size);
  return BN_bn2binpad(r, out.data(), c) == c && BN_bn2binpad(s, out.data() + c, c) == c;
}

bool ecdsa_verify(const security_policy& p, const rsa_key& key, std::span<const std::uint8_t> data,
                  std::span<const std::uint8_t> signature) {
  if (!p.is_ecc() || !key || signature.size() != p.ecc_signature_size()) return false;
  const int c = static_cast<int>(p.coordinate_size);
  bignum_ptr r(BN_bin2bn(signature.data(), c, nullptr));
  bignum_ptr s(BN_bin2bn(signature.data() + c, c, nullptr));
  ecdsa_sig_ptr sig(ECDSA_SIG_new());
  if (!r || !s || !sig || ECDSA_SIG_set0(sig.get(), r.get(), s.get()) != 1) {
    ERR_clear_error();
    return false;
  }
  (void)r.release();  // owned by sig now
  (void)s.release();
  std::uint8_t der[160];
  std::uint8_t* w = der;
  const int der_len = i2d_ECDSA_SIG(sig.get(), nullptr);
  if (der_len <= 0 || der_len > static_cast<int>(sizeof der) || i2d_ECDSA_SIG(sig.get(), &w) != der_len) {
    ERR_clear_error();
    return false;
  }
  evp_md_ctx_ptr md(EVP_MD_CTX_new());
  const bool ok = md && EVP_DigestVerifyInit(md.get(), nullptr, ecc_digest(p.hash), nullptr, key.native()) == 1 &&
                  EVP_DigestVerify(md.get(), der, static_cast<std::size_t>(der_len), data.data(), data.size()) == 1;
  ERR_clear_error();
  return ok;
}

}  // namespace

}  // namespace uactor::security
