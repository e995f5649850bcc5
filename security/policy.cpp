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

// Part 7: every RSA policy here has HMAC-SHA2-256 symmetric signatures, P-SHA2-256 key derivation,
// DerivedSignatureKeyLength 256 bits, AES-CBC (16-byte blocks and IV), 32-byte nonces and
// 2048..4096-bit keys; they differ in AES key length and in the asymmetric algorithms.
constexpr std::array<security_policy, 4> policies{{
    {policy_uri_none, "None", 0, 0, 1, 0, 0, asymmetric_encryption::none, asymmetric_signature::none, 0, 0, {}, {}},
    {policy_uri_basic256sha256, "Basic256Sha256", 32, 32, 16, 32, 32, asymmetric_encryption::rsa_oaep_sha1,
     asymmetric_signature::rsa_pkcs1_sha256, 2048, 4096, rsa_sha256_uri, rsa_oaep_uri},
    {policy_uri_aes128_sha256_rsaoaep, "Aes128_Sha256_RsaOaep", 32, 16, 16, 32, 32, asymmetric_encryption::rsa_oaep_sha1,
     asymmetric_signature::rsa_pkcs1_sha256, 2048, 4096, rsa_sha256_uri, rsa_oaep_uri},
    {policy_uri_aes256_sha256_rsapss, "Aes256_Sha256_RsaPss", 32, 32, 16, 32, 32, asymmetric_encryption::rsa_oaep_sha256,
     asymmetric_signature::rsa_pss_sha256, 2048, 4096, rsa_pss_sha256_uri, rsa_oaep_sha256_uri},
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

bool security_policy::accepts_signature_algorithm(std::string_view u) const noexcept {
  if (u == signature_algorithm_uri) return true;
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
