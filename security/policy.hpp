// The security policies uactor offers (Part 7 SecurityPolicy profiles, Part 6 §6.7): one static,
// immutable table; callers hold `const security_policy&` into it for the life of the program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace uactor::security {

enum class asymmetric_encryption : std::uint8_t { none, rsa_oaep_sha1, rsa_oaep_sha256 };
enum class asymmetric_signature : std::uint8_t { none, rsa_pkcs1_sha256, rsa_pss_sha256 };

struct security_policy {
  std::string_view uri;                    // http://opcfoundation.org/UA/SecurityPolicy#Basic256Sha256 ...
  std::string_view name;                   // "Basic256Sha256"
  std::size_t signing_key_length;          // DerivedSignatureKeyLength in bytes (32 for all three)
  std::size_t encrypting_key_length;       // 32 AES-256-CBC, 16 AES-128-CBC
  std::size_t block_size;                  // AES block and InitializationVector length: 16
  std::size_t symmetric_signature_length;  // HMAC-SHA256: 32
  std::size_t nonce_length;                // SecureChannelNonceLength: 32
  asymmetric_encryption encryption;
  asymmetric_signature signature;
  std::size_t min_key_bits, max_key_bits;  // MinAsymmetricKeyLength..MaxAsymmetricKeyLength
  std::string_view signature_algorithm_uri;   // SignatureData.algorithm (Part 4 §7.36)
  std::string_view encryption_algorithm_uri;  // UserNameIdentityToken.encryptionAlgorithm (Part 4 §7.41.2)

  bool is_none() const noexcept { return encryption == asymmetric_encryption::none; }
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

}  // namespace uactor::security
