#include <catch2/catch.hpp>

#include "security/policy.hpp"

using namespace uactor::security;

TEST_CASE("policy: the table holds Part 7's values for each policy", "[security]") {
  const auto all = all_policies();
  // None, three RSA, six ECC (tests/security/ecc_test.cpp and ecc_edwards_test.cpp check those)
  REQUIRE(all.size() == 10);
  CHECK(&all[0] == &policy_none());
  CHECK(all[0].is_none());
  CHECK(all[0].uri == "http://opcfoundation.org/UA/SecurityPolicy#None");
  CHECK(all[0].signature_algorithm_uri.empty());

  const auto* b = find_policy("http://opcfoundation.org/UA/SecurityPolicy#Basic256Sha256");
  REQUIRE(b);
  CHECK(b->name == "Basic256Sha256");
  CHECK((b->signing_key_length == 32 && b->encrypting_key_length == 32 && b->block_size == 16));
  CHECK((b->symmetric_signature_length == 32 && b->nonce_length == 32));
  CHECK(b->encryption == asymmetric_encryption::rsa_oaep_sha1);
  CHECK(b->signature == asymmetric_signature::rsa_pkcs1_sha256);
  CHECK((b->min_key_bits == 2048 && b->max_key_bits == 4096));
  CHECK(b->signature_algorithm_uri == "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256");
  CHECK(b->encryption_algorithm_uri == "http://www.w3.org/2001/04/xmlenc#rsa-oaep");
  CHECK(b->oaep_overhead() == 42);
  CHECK(!b->is_none());

  const auto* a128 = find_policy("http://opcfoundation.org/UA/SecurityPolicy#Aes128_Sha256_RsaOaep");
  REQUIRE(a128);
  CHECK(a128->name == "Aes128_Sha256_RsaOaep");
  CHECK((a128->signing_key_length == 32 && a128->encrypting_key_length == 16 && a128->block_size == 16));
  CHECK(a128->encryption == asymmetric_encryption::rsa_oaep_sha1);
  CHECK(a128->signature == asymmetric_signature::rsa_pkcs1_sha256);
  CHECK((a128->min_key_bits == 2048 && a128->max_key_bits == 4096));
  CHECK(a128->signature_algorithm_uri == "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256");
  CHECK(a128->encryption_algorithm_uri == "http://www.w3.org/2001/04/xmlenc#rsa-oaep");

  const auto* pss = find_policy("http://opcfoundation.org/UA/SecurityPolicy#Aes256_Sha256_RsaPss");
  REQUIRE(pss);
  CHECK(pss->name == "Aes256_Sha256_RsaPss");
  CHECK((pss->signing_key_length == 32 && pss->encrypting_key_length == 32 && pss->block_size == 16));
  CHECK(pss->encryption == asymmetric_encryption::rsa_oaep_sha256);
  CHECK(pss->signature == asymmetric_signature::rsa_pss_sha256);
  CHECK((pss->min_key_bits == 2048 && pss->max_key_bits == 4096));
  CHECK(pss->signature_algorithm_uri == "http://opcfoundation.org/UA/security/rsa-pss-sha2-256");
  CHECK(pss->encryption_algorithm_uri == "http://opcfoundation.org/UA/security/rsa-oaep-sha2-256");
  CHECK(pss->oaep_overhead() == 66);
  CHECK(pss->accepts_signature_algorithm("http://www.w3.org/2001/04/xmldsig-more#rsa-pss-sha256"));  // node-opcua
  CHECK(!pss->accepts_signature_algorithm("http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"));
  CHECK(!b->accepts_signature_algorithm("http://www.w3.org/2001/04/xmldsig-more#rsa-pss-sha256"));

  // Part 7 ECC_nistP256 / ECC_nistP384 (Part 6 §6.8): ECDSA, no asymmetric encryption.
  const auto* e256 = find_policy("http://opcfoundation.org/UA/SecurityPolicy#ECC_nistP256");
  const auto* e384 = find_policy("http://opcfoundation.org/UA/SecurityPolicy#ECC_nistP384");
  REQUIRE(e256);
  REQUIRE(e384);
  CHECK(e256->encryption == asymmetric_encryption::none);
  CHECK(e256->signature == asymmetric_signature::ecdsa_sha256);
  CHECK(e256->signature_algorithm_uri == "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256");
  CHECK(e384->signature_algorithm_uri == "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384");
  CHECK((e256->curve == "prime256v1" && e384->curve == "secp384r1"));
  CHECK(e256->certificate_type == "EccNistP256ApplicationCertificateType");
  CHECK(!e256->is_none());
  CHECK(e256->oaep_overhead() == 0);
}

TEST_CASE("policy: find_policy finds every URI of the table and nothing else", "[security]") {
  for (const auto& p : all_policies()) CHECK(find_policy(p.uri) == &p);
  CHECK(find_policy("") == nullptr);
  CHECK(find_policy("http://opcfoundation.org/UA/SecurityPolicy#Basic128Rsa15") == nullptr);  // deprecated, not offered
  CHECK(find_policy("http://opcfoundation.org/UA/SecurityPolicy#Basic256") == nullptr);
  CHECK(find_policy("http://opcfoundation.org/UA/SecurityPolicy#basic256sha256") == nullptr);  // URIs are case-sensitive
  CHECK(find_policy("http://opcfoundation.org/UA/SecurityPolicy#Basic256Sha256 ") == nullptr);
}
