#include "security/ecc_encrypted_secret.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "protocol/codec.hpp"
#include "security/aead.hpp"
#include "security/openssl.hpp"

namespace uactor::security {

namespace ecc_encrypted_secret_detail {

constexpr std::string_view secret_label = "opcua-secret";
constexpr std::size_t max_policy_uri_length = 256;

// AES-CBC over whole blocks, no padding of OpenSSL's (the payload carries its own, Part 4 Table 183).
bool aes_cbc(bool encrypt, std::span<const std::uint8_t> key, std::span<const std::uint8_t> iv, std::uint8_t* data,
             std::size_t size) {
  const EVP_CIPHER* cipher = key.size() == 16 ? EVP_aes_128_cbc() : key.size() == 32 ? EVP_aes_256_cbc() : nullptr;
  if (!cipher || size % 16 != 0 || iv.size() != 16) return false;
  evp_cipher_ctx_ptr ctx(EVP_CIPHER_CTX_new());
  int n = 0;
  int tail = 0;
  const bool ok = ctx && EVP_CipherInit_ex(ctx.get(), cipher, nullptr, key.data(), iv.data(), encrypt ? 1 : 0) == 1 &&
                  EVP_CIPHER_CTX_set_padding(ctx.get(), 0) == 1 &&
                  EVP_CipherUpdate(ctx.get(), data, &n, data, static_cast<int>(size)) == 1 &&
                  EVP_CipherFinal_ex(ctx.get(), data + n, &tail) == 1 && static_cast<std::size_t>(n + tail) == size;
  if (!ok) ERR_clear_error();
  return ok;
}

// Part 6 §6.8.3 (the formula it gives for non-authenticated encryption):
//   Data.Length = 4 + Nonce.Length + 4 + Secret.Length + 2
//   PayloadPaddingSize = Data.Length % BlockSize == 0 ? 0 : BlockSize - Data.Length % BlockSize
//   if (PayloadPaddingSize + Secret.Length < BlockSize) PayloadPaddingSize += BlockSize
std::size_t padding_size(std::size_t nonce_length, std::size_t secret_length, std::size_t block) {
  const std::size_t data = 4 + nonce_length + 4 + secret_length + 2;
  std::size_t pad = data % block == 0 ? 0 : block - data % block;
  if (pad + secret_length < block) pad += block;
  return pad;
}

// Part 6 §6.8.3 with AuthenticatedEncryption: the payload is encrypted in place, the AAD is every
// header before it, the tag follows PayloadPaddingSize. The nonce is the derived IV as it is (no
// TokenId or SequenceNumber here).
bool aead_payload(bool encrypt, const ecc_secret_keys& keys, std::span<const std::uint8_t> headers,
                  std::span<std::uint8_t> payload, std::uint8_t* tag) {
  if (keys.iv_length != aead_nonce_size || keys.key_length != aead_key_size) return false;
  try {
    chacha20_poly1305 aead({keys.encrypting_key.data(), keys.key_length});
    aead_nonce nonce{};
    std::memcpy(nonce.data(), keys.iv.data(), nonce.size());
    const std::span<std::uint8_t, aead_tag_size> t(tag, aead_tag_size);
    return encrypt ? aead.seal(nonce, headers, payload, t) : aead.open(nonce, headers, payload, t);
  } catch (const std::exception&) {
    return false;  // OpenSSL without ChaCha20-Poly1305: refused like a bad tag
  }
}

void put_bytes(ua::encoder& e, std::span<const std::uint8_t> b) {
  e.write(static_cast<std::int32_t>(b.size()));
  e.write(b.data(), b.size());
}

struct refusal {
  std::string* why;
  ua::status_code operator()(ua::status_code sc, std::string_view text) const {
    if (why) *why = std::string(text);
    return sc;
  }
};

}  // namespace ecc_encrypted_secret_detail

namespace ees = ecc_encrypted_secret_detail;

ecc_secret_keys derive_ecc_secret_keys(const security_policy& p, std::span<const std::uint8_t> shared_secret,
                                       std::span<const std::uint8_t> sender_public,
                                       std::span<const std::uint8_t> receiver_public) {
  ecc_secret_keys k;
  k.key_length = p.encrypting_key_length;
  k.iv_length = p.iv_length();
  const std::size_t total = p.encrypting_key_length + k.iv_length;
  std::vector<std::uint8_t> salt;
  salt.reserve(2 + ees::secret_label.size() + sender_public.size() + receiver_public.size());
  salt.push_back(static_cast<std::uint8_t>(total & 0xFF));
  salt.push_back(static_cast<std::uint8_t>(total >> 8));
  salt.insert(salt.end(), ees::secret_label.begin(), ees::secret_label.end());
  salt.insert(salt.end(), sender_public.begin(), sender_public.end());
  salt.insert(salt.end(), receiver_public.begin(), receiver_public.end());
  std::array<std::uint8_t, 48> material{};
  if (total > material.size() || k.key_length > k.encrypting_key.size() || k.iv_length > k.iv.size() ||
      !hkdf(p.hash, salt, shared_secret, salt, {material.data(), total})) {
    k.key_length = 0;
    return k;
  }
  std::memcpy(k.encrypting_key.data(), material.data(), k.key_length);
  std::memcpy(k.iv.data(), material.data() + k.key_length, k.iv_length);
  OPENSSL_cleanse(material.data(), material.size());
  return k;
}

bool looks_like_ecc_encrypted_secret(std::span<const std::uint8_t> blob) noexcept {
  // The four-byte NodeId encoding of ns=0;i=17546 (0x448A), then EncodingMask 1.
  static constexpr std::uint8_t prefix[] = {0x01, 0x00, 0x8A, 0x44, 0x01};
  return blob.size() >= sizeof prefix && std::equal(std::begin(prefix), std::end(prefix), blob.begin());
}

ua::byte_string encrypt_ecc_secret(const security_policy& p, const rsa_key& signing_key,
                                   std::span<const std::uint8_t> signing_certificate, ua::date_time signing_time,
                                   const ephemeral_key& sender, std::span<const std::uint8_t> receiver_public,
                                   std::span<const std::uint8_t> nonce, std::span<const std::uint8_t> secret) {
  ua::byte_string out;
  if (!p.is_ecc() || secret.size() > max_ecc_secret_length || nonce.size() > max_ecc_secret_length ||
      !key_fits_policy(p, signing_key) || sender.size != p.nonce_length)
    return out;
  auto receiver = ecc_public_from_bytes(p, receiver_public);
  if (!receiver) return out;
  std::array<std::uint8_t, max_ecc_secret_size> shared{};
  if (!ecdh_shared_secret(sender.key, *receiver, {shared.data(), p.coordinate_size})) return out;
  const auto keys = derive_ecc_secret_keys(p, {shared.data(), p.coordinate_size}, sender.public_bytes(), receiver_public);
  OPENSSL_cleanse(shared.data(), shared.size());
  if (keys.key_length == 0) return out;

  ua::byte_buffer buf;
  ua::encoder e(buf);
  encode(e, ua::node_id(0, ecc_encrypted_secret_type_id));
  e.write(std::uint8_t{1});
  const std::size_t length_at = e.size();
  e.write(std::uint32_t{0});
  encode(e, ua::ua_string(p.uri));
  if (signing_certificate.empty()) e.write(std::int32_t{-1});
  else ees::put_bytes(e, signing_certificate);
  encode(e, signing_time);
  e.write(static_cast<std::uint16_t>(4 + sender.size + 4 + receiver_public.size()));
  ees::put_bytes(e, sender.public_bytes());
  ees::put_bytes(e, receiver_public);
  const std::size_t payload_at = e.size();
  ees::put_bytes(e, nonce);
  ees::put_bytes(e, secret);
  const std::size_t pad = ees::padding_size(nonce.size(), secret.size(), p.block_size);
  for (std::size_t i = 0; i < pad; ++i) e.write(static_cast<std::uint8_t>(pad & 0xFF));
  e.write(static_cast<std::uint16_t>(pad));
  const std::size_t payload_size = e.size() - payload_at;
  const std::size_t tag_size = p.is_aead() ? aead_tag_size : 0;
  const std::size_t signed_size = e.size() + tag_size;
  // The Length is final before the AEAD authenticates the headers it is in.
  e.patch(length_at, static_cast<std::uint32_t>(signed_size + p.ecc_signature_size() - length_at - 4));
  bool encrypted = false;
  if (p.is_aead()) {
    const std::uint8_t no_tag[aead_tag_size] = {};
    e.write(no_tag, sizeof no_tag);
    encrypted = ees::aead_payload(true, keys, {buf.data(), payload_at}, {buf.data() + payload_at, payload_size},
                                  buf.data() + payload_at + payload_size);
  } else {
    encrypted = ees::aes_cbc(true, {keys.encrypting_key.data(), keys.key_length}, {keys.iv.data(), keys.iv_length},
                             buf.data() + payload_at, payload_size);
  }
  if (!encrypted) return out;
  std::array<std::uint8_t, max_ecc_signature_size> sig{};
  if (!ecc_sign(p, signing_key, {buf.data(), signed_size}, {sig.data(), p.ecc_signature_size()})) return out;
  e.write(sig.data(), p.ecc_signature_size());
  out.assign(buf.data(), buf.size());
  OPENSSL_cleanse(buf.data(), buf.size());
  return out;
}

ua::expected<ua::byte_string> decrypt_ecc_secret(const security_policy& p, const rsa_key& sender_public,
                                                 std::span<const std::uint8_t> sender_certificate_der,
                                                 const ephemeral_key& receiver, std::span<const std::uint8_t> nonce,
                                                 std::span<const std::uint8_t> blob, std::string* why) {
  const ees::refusal refuse{why};
  constexpr auto invalid = ua::status::bad_identity_token_invalid;
  constexpr auto failed = ua::status::bad_security_checks_failed;
  if (!p.is_ecc() || receiver.size != p.nonce_length) return refuse(invalid, "the token policy is not an ECC policy");
  if (blob.size() > max_ecc_encrypted_secret_size)
    return refuse(invalid, "the EccEncryptedSecret is longer than 64 KiB");
  const std::size_t sig_size = p.ecc_signature_size();
  ua::decode_limits limits;
  limits.max_string_length = ees::max_policy_uri_length;
  limits.max_byte_string_length = max_ecc_encrypted_secret_size;
  ua::decoder d(blob, limits);
  ua::node_id type;
  decode(d, type);
  const auto mask = d.read<std::uint8_t>();
  const auto length = d.read<std::uint32_t>();
  if (!d.ok() || !(type == ua::node_id(0, ecc_encrypted_secret_type_id)) || mask != 1)
    return refuse(invalid, "it does not start as an EccEncryptedSecret (TypeId i=17546, EncodingMask 1)");
  if (length != d.remaining()) return refuse(invalid, "its Length is not the length of what follows it");
  if (length < sig_size) return refuse(invalid, "it is shorter than its signature");
  const std::size_t signed_size = blob.size() - sig_size;
  // Everything up to the signature is read from here on; the signature is checked before any of
  // the payload is decrypted (Part 6 §6.8.3: "Receivers shall validate the SigningCertificate and
  // signature before decrypting the Secret").
  ua::decoder h(blob.first(signed_size), limits);
  h.take(d.position());
  ua::ua_string uri;
  ua::byte_string certificate;
  ua::date_time signing_time;
  decode(h, uri);
  decode(h, certificate);
  decode(h, signing_time);
  const auto key_data_length = h.read<std::uint16_t>();
  ua::byte_string sender_key, receiver_key;
  const std::size_t key_data_at = h.position();
  decode(h, sender_key);
  decode(h, receiver_key);
  if (!h.ok()) return refuse(invalid, "its header is truncated or malformed");
  if (uri.view() != p.uri)
    return refuse(invalid, "its SecurityPolicyUri '" + std::string(uri.view()) + "' is not the token policy's");
  if (key_data_length != h.position() - key_data_at)
    return refuse(invalid, "its KeyDataLength is not the length of the two public keys");
  if (sender_key.size() != p.nonce_length || receiver_key.size() != p.nonce_length)
    return refuse(invalid, "a public key in its KeyData is not of the policy's length");
  const auto own_public = receiver.public_bytes();
  if (!std::equal(own_public.begin(), own_public.end(), reinterpret_cast<const std::uint8_t*>(receiver_key.data())))
    return refuse(invalid, "its ReceiverPublicKey is not the EphemeralKey this server gave");
  if (!certificate.is_null() && !certificate.empty()) {
    // The signer's chain, leaf first: the leaf must be the certificate we know the sender by.
    const auto leaf = std::span(reinterpret_cast<const std::uint8_t*>(certificate.data()), certificate.size());
    if (sender_certificate_der.empty() || leaf.size() < sender_certificate_der.size() ||
        !std::equal(sender_certificate_der.begin(), sender_certificate_der.end(), leaf.begin()))
      return refuse(failed, "its Certificate is not the client's application certificate");
  }
  if (!ecc_verify(p, sender_public, blob.first(signed_size), blob.subspan(signed_size)))
    return refuse(failed, "its signature does not verify with the client's application certificate");

  const std::size_t payload_at = h.position();
  const std::size_t tag_size = p.is_aead() ? aead_tag_size : 0;
  if (signed_size < payload_at + tag_size) return refuse(invalid, "it has no room for its authentication tag");
  const std::size_t payload_size = signed_size - payload_at - tag_size;
  if (payload_size == 0 || payload_size % p.block_size != 0)
    return refuse(invalid, "its payload is not a whole number of cipher blocks");
  const auto sender_point =
      ecc_public_from_bytes(p, std::span(reinterpret_cast<const std::uint8_t*>(sender_key.data()), sender_key.size()));
  if (!sender_point) return refuse(failed, "its SenderPublicKey is not a point on the policy's curve");
  std::array<std::uint8_t, max_ecc_secret_size> shared{};
  if (!ecdh_shared_secret(receiver.key, *sender_point, {shared.data(), p.coordinate_size}))
    return refuse(failed, "ECDH with its SenderPublicKey failed");
  const auto keys = derive_ecc_secret_keys(
      p, {shared.data(), p.coordinate_size},
      std::span(reinterpret_cast<const std::uint8_t*>(sender_key.data()), sender_key.size()), own_public);
  OPENSSL_cleanse(shared.data(), shared.size());
  if (keys.key_length == 0) return refuse(failed, "the key derivation failed");
  std::vector<std::uint8_t> plain(blob.begin() + static_cast<std::ptrdiff_t>(payload_at),
                                  blob.begin() + static_cast<std::ptrdiff_t>(signed_size));
  const auto wipe = [&plain] { OPENSSL_cleanse(plain.data(), plain.size()); };
  const bool decrypted =
      p.is_aead() ? ees::aead_payload(false, keys, blob.first(payload_at), {plain.data(), payload_size}, plain.data() + payload_size)
                  : ees::aes_cbc(false, {keys.encrypting_key.data(), keys.key_length}, {keys.iv.data(), keys.iv_length},
                                 plain.data(), plain.size());
  if (!decrypted) return wipe(), refuse(failed, "the payload does not decrypt");
  plain.resize(payload_size);  // drops the tag
  // PayloadPaddingSize (UInt16, last) and PayloadPadding before it, each byte its low byte.
  const std::size_t pad = plain[plain.size() - 2] | (std::size_t{plain[plain.size() - 1]} << 8);
  if (pad + 2 > plain.size()) return wipe(), refuse(invalid, "its PayloadPaddingSize is larger than the payload");
  const std::size_t body = plain.size() - 2 - pad;
  bool padding_ok = true;
  for (std::size_t i = body; i < body + pad; ++i) padding_ok &= plain[i] == static_cast<std::uint8_t>(pad & 0xFF);
  if (!padding_ok) return wipe(), refuse(invalid, "its PayloadPadding is not the padding size's low byte");
  ua::decoder b(std::span(plain.data(), body), limits);
  ua::byte_string got_nonce, secret;
  decode(b, got_nonce);
  decode(b, secret);
  const bool nonce_ok = b.ok() && got_nonce.size() == nonce.size() &&
                        CRYPTO_memcmp(got_nonce.data(), nonce.data(), nonce.size()) == 0;
  const bool whole = b.ok() && b.remaining() == 0;
  wipe();
  if (!b.ok()) return refuse(invalid, "its decrypted payload is malformed");
  if (!nonce_ok) return refuse(invalid, "its Nonce is not the session's last ServerNonce");
  if (!whole) return refuse(invalid, "bytes follow the Secret before the padding");
  if (secret.size() > max_ecc_secret_length) return refuse(invalid, "its Secret is longer than 16 KiB");
  if (secret.is_null()) secret.assign("", 0);
  return secret;
}

}  // namespace uactor::security
