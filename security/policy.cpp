#include "security/policy.hpp"

#include <array>

namespace uactor::security {

namespace {

// Algorithm URIs, Part 7 (Security ...Algorithm_... conformance units).
constexpr std::string_view rsa_sha256_uri = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";      // RSA-PKCS15-SHA2-256
constexpr std::string_view rsa_pss_sha256_uri = "http://opcfoundation.org/UA/security/rsa-pss-sha2-256";  // RSA-PSS-SHA2-256
constexpr std::string_view rsa_pss_sha256_node_uri = "http://www.w3.org/2001/04/xmldsig-more#rsa-pss-sha256";
constexpr std::string_view rsa_oaep_uri = "http://www.w3.org/2001/04/xmlenc#rsa-oaep";                // RSA-OAEP-SHA1
constexpr std::string_view rsa_oaep_sha256_uri = "http://opcfoundation.org/UA/security/rsa-oaep-sha2-256";  // RSA-OAEP-SHA2-256
constexpr std::string_view ecdsa_sha256_uri = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256";  // ECDSA-SHA2-256
constexpr std::string_view ecdsa_sha384_uri = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384";  // ECDSA-SHA2-384

// Part 7: every RSA policy here has HMAC-SHA2-256 symmetric signatures, P-SHA2-256 key derivation,
// DerivedSignatureKeyLength 256 bits, AES-CBC (16-byte blocks and IV), 32-byte nonces and
// 2048..4096-bit keys; they differ in AES key length and in the asymmetric algorithms.
// The ECC policies (Part 7 SecurityPolicy [A/B] ECC_...; Part 6 §6.8): no asymmetric encryption,
// ECDSA signatures, ECDH EphemeralKeys of the policy's curve as the OpenSecureChannel nonces (so
// SecureChannelNonceLength is 2 coordinates), HKDF key derivation, AES-CBC with HMAC. The 256-bit
// curves pair with SHA2-256, AES128-CBC and a 256-bit DerivedSignatureKeyLength; the 384-bit ones
// with SHA2-384, AES256-CBC and 384 bits. Min/MaxAsymmetricKeyLength are the curve's size.
// ECC_curve25519 / ECC_curve448 (docs/decisions/0082): PureEdDSA certificates and OPN signatures,
// X25519 / X448 EphemeralKeys sent raw (32 / 56 bytes), HKDF-SHA2-256 for both, ChaCha20-Poly1305
// (32-byte key, 12-byte IV, 16-byte tag) and no derived signing key: the AEAD signs. No
// SignatureData algorithm URI (Part 4 §7.36: empty for ECC policies). Key sizes 256 / 456 bits
// (Part 7; what OpenSSL reports for Ed25519 / Ed448 keys).
constexpr std::array<security_policy, 10> policies{{
    {policy_uri_none, "None", 0, 0, 1, 0, 0, asymmetric_encryption::none, asymmetric_signature::none, 0, 0, {}, {},
     policy_hash::sha256, {}, 0, {}, symmetric_algorithm::aes_cbc_hmac},
    {policy_uri_basic256sha256, "Basic256Sha256", 32, 32, 16, 32, 32, asymmetric_encryption::rsa_oaep_sha1,
     asymmetric_signature::rsa_pkcs1_sha256, 2048, 4096, rsa_sha256_uri, rsa_oaep_uri, policy_hash::sha256, {}, 0,
     "RsaSha256ApplicationCertificateType", symmetric_algorithm::aes_cbc_hmac},
    {policy_uri_aes128_sha256_rsaoaep, "Aes128_Sha256_RsaOaep", 32, 16, 16, 32, 32, asymmetric_encryption::rsa_oaep_sha1,
     asymmetric_signature::rsa_pkcs1_sha256, 2048, 4096, rsa_sha256_uri, rsa_oaep_uri, policy_hash::sha256, {}, 0,
     "RsaSha256ApplicationCertificateType", symmetric_algorithm::aes_cbc_hmac},
    {policy_uri_aes256_sha256_rsapss, "Aes256_Sha256_RsaPss", 32, 32, 16, 32, 32, asymmetric_encryption::rsa_oaep_sha256,
     asymmetric_signature::rsa_pss_sha256, 2048, 4096, rsa_pss_sha256_uri, rsa_oaep_sha256_uri, policy_hash::sha256, {},
     0, "RsaSha256ApplicationCertificateType", symmetric_algorithm::aes_cbc_hmac},
    {policy_uri_ecc_nistp256, "ECC_nistP256", 32, 16, 16, 32, 64, asymmetric_encryption::none,
     asymmetric_signature::ecdsa_sha256, 256, 256, ecdsa_sha256_uri, {}, policy_hash::sha256, "prime256v1", 32,
     "EccNistP256ApplicationCertificateType", symmetric_algorithm::aes_cbc_hmac},
    {policy_uri_ecc_nistp384, "ECC_nistP384", 48, 32, 16, 48, 96, asymmetric_encryption::none,
     asymmetric_signature::ecdsa_sha384, 384, 384, ecdsa_sha384_uri, {}, policy_hash::sha384, "secp384r1", 48,
     "EccNistP384ApplicationCertificateType", symmetric_algorithm::aes_cbc_hmac},
    {policy_uri_ecc_brainpoolp256r1, "ECC_brainpoolP256r1", 32, 16, 16, 32, 64, asymmetric_encryption::none,
     asymmetric_signature::ecdsa_sha256, 256, 256, ecdsa_sha256_uri, {}, policy_hash::sha256, "brainpoolP256r1", 32,
     "EccBrainpoolP256r1ApplicationCertificateType", symmetric_algorithm::aes_cbc_hmac},
    {policy_uri_ecc_brainpoolp384r1, "ECC_brainpoolP384r1", 48, 32, 16, 48, 96, asymmetric_encryption::none,
     asymmetric_signature::ecdsa_sha384, 384, 384, ecdsa_sha384_uri, {}, policy_hash::sha384, "brainpoolP384r1", 48,
     "EccBrainpoolP384r1ApplicationCertificateType", symmetric_algorithm::aes_cbc_hmac},
    {policy_uri_ecc_curve25519, "ECC_curve25519", 0, 32, 16, 16, 32, asymmetric_encryption::none,
     asymmetric_signature::eddsa_25519, 256, 256, {}, {}, policy_hash::sha256, "ED25519", 32,
     "EccCurve25519ApplicationCertificateType", symmetric_algorithm::chacha20_poly1305},
    {policy_uri_ecc_curve448, "ECC_curve448", 0, 32, 16, 16, 56, asymmetric_encryption::none,
     asymmetric_signature::eddsa_448, 456, 456, {}, {}, policy_hash::sha256, "ED448", 56,
     "EccCurve448ApplicationCertificateType", symmetric_algorithm::chacha20_poly1305},
}};

}  // namespace

std::size_t security_policy::oaep_overhead() const noexcept {
  switch (encryption) {
    case asymmetric_encryption::rsa_oaep_sha1: return 2 * 20 + 2;
    case asymmetric_encryption::rsa_oaep_sha256: return 2 * 32 + 2;
    case asymmetric_encryption::none: break;
  }
  return 0;
}

std::size_t security_policy::ecc_signature_size() const noexcept {
  switch (signature) {
    case asymmetric_signature::eddsa_25519: return 64;
    case asymmetric_signature::eddsa_448: return 114;
    default: return 2 * coordinate_size;
  }
}

bool security_policy::accepts_signature_algorithm(std::string_view u) const noexcept {
  if (u == signature_algorithm_uri) return true;
  // Part 4 §7.36 (1.05.04): the URI is empty for ECC policies and a receiver ignores one that is set.
  if (is_edwards()) return true;
  return signature == asymmetric_signature::rsa_pss_sha256 && u == rsa_pss_sha256_node_uri;
}

const security_policy& policy_none() noexcept { return policies[0]; }

const security_policy* find_policy(std::string_view uri) noexcept {
  for (const auto& p : policies)
    if (p.uri == uri) return &p;
  return nullptr;
}

std::span<const security_policy> all_policies() noexcept { return policies; }

}  // namespace uactor::security
