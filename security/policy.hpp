// The security policies uactor offers (Part 7 SecurityPolicy profiles, Part 6 §6.7): one static,
// immutable table; callers hold `const security_policy&` into it for the life of the program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace uactor::security {

enum class asymmetric_encryption : std::uint8_t { none, rsa_oaep_sha1, rsa_oaep_sha256 };
enum class asymmetric_signature : std::uint8_t {
  none, rsa_pkcs1_sha256, rsa_pss_sha256, ecdsa_sha256, ecdsa_sha384,
  eddsa_25519, eddsa_448  // PureEdDSA (RFC 8032): ECC_curve25519, ECC_curve448
};
// How MSG/CLO chunks are protected: AES-CBC + HMAC (§6.7.2, Figure 11) or one authenticated
// encryption algorithm that signs too (Figure 12; Part 7 ECC_curve25519 and ECC_curve448).
enum class symmetric_algorithm : std::uint8_t { aes_cbc_hmac, chacha20_poly1305 };
// The hash of HMAC, key derivation and (for ECC) ECDSA: SHA2-256 for every RSA policy and the
// 256-bit curves, SHA2-384 for the 384-bit curves (Part 7 ECC_nistP384, ECC_brainpoolP384r1).
enum class policy_hash : std::uint8_t { sha256, sha384 };

struct security_policy {
  std::string_view uri;                    // http://opcfoundation.org/UA/SecurityPolicy#Basic256Sha256 ...
  std::string_view name;                   // "Basic256Sha256"
  std::size_t signing_key_length;          // DerivedSignatureKeyLength in bytes: 32, 48 for the 384-bit curves, 0 AEAD
  std::size_t encrypting_key_length;       // 32 AES-256-CBC and ChaCha20, 16 AES-128-CBC
  std::size_t block_size;                  // AES block and InitializationVector length: 16 (AEAD: Poly1305's block)
  std::size_t symmetric_signature_length;  // HMAC-SHA256: 32, HMAC-SHA384: 48, Poly1305 tag: 16
  std::size_t nonce_length;                // SecureChannelNonceLength: 32 RSA, the EphemeralKey's length ECC
  asymmetric_encryption encryption;
  asymmetric_signature signature;
  std::size_t min_key_bits, max_key_bits;  // MinAsymmetricKeyLength..MaxAsymmetricKeyLength
  std::string_view signature_algorithm_uri;   // SignatureData.algorithm (Part 4 §7.36)
  std::string_view encryption_algorithm_uri;  // UserNameIdentityToken.encryptionAlgorithm (Part 4 §7.41.2)
  policy_hash hash;
  // ECC policies (Part 6 §6.8): the named curve of the certificates and EphemeralKeys (OpenSSL's
  // group name, "" for RSA) and the byte length of one coordinate (32 for the 256-bit curves, 48
  // for the 384-bit ones): an EphemeralKey travels as X | Y, an ECDSA signature as r | s.
  // curve25519 / curve448: OpenSSL's name of the certificate key ("ED25519", "ED448"; the
  // EphemeralKeys are X25519 / X448) and the length of the raw public key and shared secret.
  std::string_view curve;
  std::size_t coordinate_size;
  // The certificate type of Part 12 §7.8.4 the policy's application certificate has
  // (RsaSha256ApplicationCertificateType, EccNistP256ApplicationCertificateType, ...), "" for None.
  std::string_view certificate_type;
  symmetric_algorithm symmetric;

  bool is_none() const noexcept { return signature == asymmetric_signature::none; }
  // Part 6 §6.8: no asymmetric encryption, EphemeralKeys as nonces, HKDF key derivation.
  bool is_ecc() const noexcept { return !curve.empty(); }
  // RFC 7748 / RFC 8032 curves: X25519 / X448 EphemeralKeys, Ed25519 / Ed448 signatures.
  bool is_edwards() const noexcept {
    return signature == asymmetric_signature::eddsa_25519 || signature == asymmetric_signature::eddsa_448;
  }
  // §6.7.2.1 Figure 12: the chunk is encrypted and signed by one AEAD algorithm, no padding.
  bool is_aead() const noexcept { return symmetric == symmetric_algorithm::chacha20_poly1305; }
  // InitializationVectorLength: the AES block (16), ChaCha20-Poly1305's nonce (12, RFC 8439 §2.8).
  std::size_t iv_length() const noexcept { return is_aead() ? 12 : block_size; }
  // Bytes of an ECC signature: ECDSA r | s, Ed25519 64, Ed448 114 (RFC 8032 §5.1.6, §5.2.6); 0 for RSA.
  std::size_t ecc_signature_size() const noexcept;
  // Bytes OAEP takes from each RSA block: 2 * hash length + 2 (RFC 8017 §7.1.1).
  std::size_t oaep_overhead() const noexcept;
  // Whether `uri` names this policy's asymmetric signature algorithm. Accepts, besides our own
  // spelling, the one node-opcua sends for RSA-PSS-SHA256 (xmldsig-more#rsa-pss-sha256).
  bool accepts_signature_algorithm(std::string_view uri) const noexcept;
};

const security_policy& policy_none() noexcept;
const security_policy* find_policy(std::string_view uri) noexcept;  // null when unknown
std::span<const security_policy> all_policies() noexcept;           // None first

inline constexpr std::string_view policy_uri_none = "http://opcfoundation.org/UA/SecurityPolicy#None";
inline constexpr std::string_view policy_uri_basic256sha256 = "http://opcfoundation.org/UA/SecurityPolicy#Basic256Sha256";
inline constexpr std::string_view policy_uri_aes128_sha256_rsaoaep = "http://opcfoundation.org/UA/SecurityPolicy#Aes128_Sha256_RsaOaep";
inline constexpr std::string_view policy_uri_aes256_sha256_rsapss = "http://opcfoundation.org/UA/SecurityPolicy#Aes256_Sha256_RsaPss";
inline constexpr std::string_view policy_uri_ecc_nistp256 = "http://opcfoundation.org/UA/SecurityPolicy#ECC_nistP256";
inline constexpr std::string_view policy_uri_ecc_nistp384 = "http://opcfoundation.org/UA/SecurityPolicy#ECC_nistP384";
inline constexpr std::string_view policy_uri_ecc_brainpoolp256r1 = "http://opcfoundation.org/UA/SecurityPolicy#ECC_brainpoolP256r1";
inline constexpr std::string_view policy_uri_ecc_brainpoolp384r1 = "http://opcfoundation.org/UA/SecurityPolicy#ECC_brainpoolP384r1";
inline constexpr std::string_view policy_uri_ecc_curve25519 = "http://opcfoundation.org/UA/SecurityPolicy#ECC_curve25519";
inline constexpr std::string_view policy_uri_ecc_curve448 = "http://opcfoundation.org/UA/SecurityPolicy#ECC_curve448";

}  // namespace uactor::security
