#include "security/asymmetric.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

#include <openssl/crypto.h>

#include "uactor/ua/status_codes.hpp"
#include "security/ecc.hpp"
#include "security/rsa.hpp"

namespace uactor::security {

ua::status_code check_key_length(const security_policy& p, const rsa_key& key) noexcept {
  if (p.is_none()) return ua::status::good;
  if (!key_fits_policy(p, key)) return ua::status::bad_certificate_policy_check_failed;
  const std::size_t bits = key.bits();
  if (bits < p.min_key_bits || bits > p.max_key_bits) return ua::status::bad_certificate_policy_check_failed;
  return ua::status::good;
}

asymmetric_context::asymmetric_context(const security_policy& policy, rsa_key own_private, rsa_key peer_public)
    : policy_(&policy), own_(std::move(own_private)), peer_(std::move(peer_public)) {
  if (policy.is_none()) throw std::invalid_argument("asymmetric_context: policy None");
  if (!own_ || !peer_ || !own_.has_private()) throw std::invalid_argument("asymmetric_context: missing key");
  if (policy.is_ecc()) {
    // Part 6 §6.8.1: ECDSA signatures only; both keys on the policy's curve.
    if (!key_fits_policy(policy, own_) || !key_fits_policy(policy, peer_))
      throw std::invalid_argument("asymmetric_context: keys not on the policy's curve");
    return;
  }
  if (own_.size_bytes() > max_rsa_bytes || peer_.size_bytes() > max_rsa_bytes ||
      rsa_plain_block_size(policy, own_) == 0 || rsa_plain_block_size(policy, peer_) == 0)
    throw std::invalid_argument("asymmetric_context: key size");
  encrypt_ = make_rsa_encrypt_ctx(policy, peer_);
  decrypt_ = make_rsa_decrypt_ctx(policy, own_);
  if (!encrypt_ || !decrypt_) throw std::invalid_argument("asymmetric_context: OpenSSL refused the keys");
}

namespace {

ua::chunk_security make_security(const security_policy& p, const rsa_key& signer, const rsa_key& encrypter) {
  ua::chunk_security s;
  s.signature_size = signer.size_bytes();
  s.cipher_block_size = encrypter.size_bytes();
  s.plain_block_size = rsa_plain_block_size(p, encrypter);
  s.encrypted = true;
  s.extra_padding_size = encrypter.size_bytes() > 256;  // §6.7.2.5: key over 2048 bits
  return s;
}

// Part 6 §6.8.1: an ECC OPN is signed (r | s, two coordinates) and not encrypted, so no padding.
ua::chunk_security ecc_security(const security_policy& p) {
  ua::chunk_security s;
  s.signature_size = p.ecc_signature_size();
  return s;
}

// §6.7.2.5 on the plaintext after the header (sequence header .. signature): PaddingSize (and
// ExtraPaddingSize) and every padding byte hold the padding length.
bool padding_ok(std::span<const std::uint8_t> text, const ua::chunk_security& s) noexcept {
  const std::size_t fields = s.padding_size_bytes();
  if (text.size() < ua::sequence_header_size + s.signature_size + fields) return false;
  std::size_t end = text.size() - s.signature_size;  // one past ExtraPaddingSize or PaddingSize
  std::size_t pad = 0;
  if (s.extra_padding_size) pad = std::size_t{text[--end]} << 8;
  const std::uint8_t low = text[--end];
  pad |= low;
  if (pad > end - ua::sequence_header_size) return false;
  std::uint8_t diff = 0;
  for (std::size_t i = end - pad; i < end; ++i) diff |= text[i] ^ low;
  return diff == 0;
}

}  // namespace

ua::chunk_security asymmetric_context::send_security() const noexcept {
  if (policy_->is_ecc()) return ecc_security(*policy_);
  return make_security(*policy_, own_, peer_);
}

ua::chunk_security asymmetric_context::receive_security() const noexcept {
  if (policy_->is_ecc()) return ecc_security(*policy_);
  return make_security(*policy_, peer_, own_);
}

ua::status_code asymmetric_context::protect(std::span<const std::uint8_t> plain, std::size_t header_size,
                                            ua::byte_buffer& out) {
  const auto s = send_security();
  if (policy_->is_ecc()) {
    if (header_size >= plain.size() || plain.size() - header_size < ua::sequence_header_size + s.signature_size)
      return ua::status::bad_internal_error;
    const std::size_t start = out.size();
    out.append(plain.data(), plain.size());
    const std::size_t signed_end = plain.size() - s.signature_size;
    const std::span<std::uint8_t> sig(out.data() + start + signed_end, s.signature_size);
    if (!ecc_sign(*policy_, own_, plain.first(signed_end), sig)) {
      out.clear();
      out.extend(start);
      return ua::status::bad_internal_error;
    }
    return ua::status::good;
  }
  if (header_size >= plain.size() || (plain.size() - header_size) % s.cipher_block_size != 0)
    return ua::status::bad_internal_error;
  const std::size_t blocks = (plain.size() - header_size) / s.cipher_block_size;
  const std::size_t text = blocks * s.plain_block_size;  // plaintext after the header
  if (text < ua::sequence_header_size + s.signature_size) return ua::status::bad_internal_error;
  const std::size_t signed_end = header_size + text - s.signature_size;

  std::array<std::uint8_t, max_rsa_bytes> sig;
  if (!rsa_sign(*policy_, own_, plain.first(signed_end), std::span(sig).first(s.signature_size)))
    return ua::status::bad_internal_error;

  const std::size_t start = out.size();
  std::uint8_t* w = out.extend(plain.size());
  std::memcpy(w, plain.data(), header_size);
  w += header_size;
  // Block by block; the signature replaces the zeros the chunker left at the plaintext's end.
  std::array<std::uint8_t, max_rsa_bytes> block;
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t from = header_size + b * s.plain_block_size;  // in `plain`
    for (std::size_t i = 0; i < s.plain_block_size; ++i) {
      const std::size_t at = from + i;
      block[i] = at < signed_end ? plain[at] : sig[at - signed_end];
    }
    if (!rsa_encrypt_blocks(encrypt_.get(), s.cipher_block_size, s.plain_block_size,
                            std::span(block).first(s.plain_block_size), w)) {
      OPENSSL_cleanse(block.data(), block.size());
      out.clear();
      out.extend(start);  // drop what was appended; the bytes before `start` are unchanged
      return ua::status::bad_internal_error;
    }
    w += s.cipher_block_size;
  }
  OPENSSL_cleanse(block.data(), block.size());
  return ua::status::good;
}

ua::status_code asymmetric_context::unprotect(std::span<const std::uint8_t> chunk, std::size_t header_size,
                                              ua::byte_buffer& plain) {
  const auto s = receive_security();
  plain.clear();
  if (header_size >= chunk.size()) return ua::status::bad_security_checks_failed;
  if (policy_->is_ecc()) {
    if (chunk.size() - header_size < ua::sequence_header_size + s.signature_size)
      return ua::status::bad_security_checks_failed;
    const std::size_t signed_end = chunk.size() - s.signature_size;
    if (!ecc_verify(*policy_, peer_, chunk.first(signed_end), chunk.subspan(signed_end)))
      return ua::status::bad_security_checks_failed;
    plain.append(chunk.data(), chunk.size());
    return ua::status::good;
  }
  const std::size_t rest = chunk.size() - header_size;
  if (rest % s.cipher_block_size != 0) return ua::status::bad_security_checks_failed;
  const std::size_t blocks = rest / s.cipher_block_size;
  const std::size_t text = blocks * s.plain_block_size;
  if (text < ua::sequence_header_size + s.signature_size + s.padding_size_bytes())
    return ua::status::bad_security_checks_failed;

  plain.reserve(header_size + text);
  plain.append(chunk.data(), header_size);
  std::array<std::uint8_t, max_rsa_bytes> block;
  for (std::size_t b = 0; b < blocks; ++b) {
    const long n = rsa_decrypt_block(decrypt_.get(), chunk.subspan(header_size + b * s.cipher_block_size, s.cipher_block_size),
                                     block.data());
    // Every block carries a whole plain block: the sender padded the plaintext to fill them.
    if (n != static_cast<long>(s.plain_block_size)) {
      plain.clear();
      return ua::status::bad_security_checks_failed;
    }
    plain.append(block.data(), s.plain_block_size);
  }
  OPENSSL_cleanse(block.data(), block.size());
  const auto all = plain.bytes();
  const std::size_t signed_end = all.size() - s.signature_size;
  if (!rsa_verify(*policy_, peer_, all.first(signed_end), all.subspan(signed_end)) ||
      !padding_ok(all.subspan(header_size), s)) {
    plain.clear();
    return ua::status::bad_security_checks_failed;
  }
  return ua::status::good;
}

}  // namespace uactor::security
