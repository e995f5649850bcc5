// The security policies uactor offers (Part 7 SecurityPolicy profiles, Part 6 §6.7): one static,
// immutable table; callers hold `const security_policy&` into it for the life of the program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace uactor::security {

enum class asymmetric_encryption : std::uint8_t { none, rsa_oaep_sha1, rsa_oaep_sha256 };
enum class asymmetric_signature : std::uint8_t { none, rsa_pkcs1_sha256, rsa_pss_sha256, ecdsa_sha256, ecdsa_sha384 };
// The hash of HMAC, key derivation and (for ECC) ECDSA: SHA2-256 for every RSA policy and the
// 256-bit curves, SHA2-384 for the 384-bit curves (Part 7 ECC_nistP384, ECC_brainpoolP384r1).
enum class policy_hash : std::uint8_t { sha256, sha384 };

struct security_policy {
  std::string_view uri;                    // http://opcfoundation.org/UA/SecurityPolicy#Basic256Sha256 ...
  std::string_view name;                   // "Basic256Sha256"
  std::size_t signing_key_length;          // DerivedSignatureKeyLength in bytes: 32, 48 for the 384-bit curves
  std::size_t encrypting_key_length;       // 32 AES-256-CBC, 16 AES-128-CBC
  std::size_t block_size;                  // AES block and InitializationVector length: 16
  std::size_t symmetric_signature_length;  // HMAC-SHA256: 32, HMAC-SHA384: 48
  std::size_t nonce_length;                // SecureChannelNonceLength: 32 RSA, 2 coordinates ECC
  asymmetric_encryption encryption;
  asymmetric_signature signature;
  std::size_t min_key_bits, max_key_bits;  // MinAsymmetricKeyLength..MaxAsymmetricKeyLength
  std::string_view signature_algorithm_uri;   // SignatureData.algorithm (Part 4 §7.36)
  std::string_view encryption_algorithm_uri;  // UserNameIdentityToken.encryptionAlgorithm (Part 4 §7.41.2)
  policy_hash hash;
  // ECC policies (Part 6 §6.8): the named curve of the certificates and EphemeralKeys (OpenSSL's
  // group name, "" for RSA) and the byte length of one coordinate (32 for the 256-bit curves, 48
  // for the 384-bit ones): an EphemeralKey travels as X | Y, an ECDSA signature as r | s.
  std::string_view curve;
  std::size_t coordinate_size;
  // The certificate type of Part 12 §7.8.4 the policy's application certificate has
  // (RsaSha256ApplicationCertificateType, EccNistP256ApplicationCertificateType, ...), "" for None.
  std::string_view certificate_type;

  bool is_none() const noexcept { return signature == asymmetric_signature::none; }
  // Part 6 §6.8: no asymmetric encryption, EphemeralKeys as nonces, HKDF key derivation.
  bool is_ecc() const noexcept { return !curve.empty(); }
  // Bytes of an ECDSA signature (r | s) or 0 for RSA.
  std::size_t ecc_signature_size() const noexcept { return 2 * coordinate_size; }
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

}  // namespace uactor::security
