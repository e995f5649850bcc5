// libFuzzer target for the EccEncryptedSecret a client sends as its password over an ECC policy
// (security/ecc_encrypted_secret.cpp; Part 4 §7.41.2.5, Part 6 §6.8.3). Each input is tried for
// ECC_nistP256 (AES-CBC) and ECC_curve25519 (ChaCha20-Poly1305, docs/decisions/0082), each twice:
// as it is (the structure's parser up to the signature check), and with its last 64 bytes replaced
// by a valid signature of the fixed signer key (ECDSA: tests/security/ecc_vectors.hpp; Ed25519:
// RFC 8032 TEST 1's key), so that the fuzzer reaches the decryption, the padding and the payload's
// parser behind the signature. Either way: a secret, or a Bad status with a reason; never a crash,
// an over-read, a leak or a loop. Seeded with tests/fuzz/ecc_secret_seeds (python's structure for
// ECC_nistP256; ours for ECC_curve25519 with the receiver key of RFC 7748 §6.1's Alice).
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <openssl/evp.h>
#include <string>
#include <vector>

#include "security/ecc.hpp"
#include "security/ecc_encrypted_secret.hpp"
#include "security/policy.hpp"
#include "tests/security/ecc_vectors.hpp"

namespace {

std::vector<std::uint8_t> unhex(std::string_view h) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back(static_cast<std::uint8_t>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
  return out;
}

uactor::security::rsa_key raw_key(int type, std::string_view hex) {
  const auto b = unhex(hex);
  return uactor::security::rsa_key(EVP_PKEY_new_raw_private_key(type, nullptr, b.data(), b.size()));
}

struct fixture {
  const uactor::security::security_policy& policy;
  uactor::security::rsa_key signer;
  uactor::security::ephemeral_key receiver;
  std::vector<std::uint8_t> nonce;
  explicit fixture(std::string_view uri) : policy(*uactor::security::find_policy(uri)) {
    namespace ev = uactor::test::ecc_vectors;
    nonce = unhex(ev::secret_nonce);
    if (policy.is_edwards()) {
      // Fixed keys of the RFCs: RFC 8032 §7.1 TEST 1 signs, RFC 7748 §6.1's Alice receives.
      signer = raw_key(EVP_PKEY_ED25519, "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
      auto e = uactor::security::ephemeral_key_of(
          policy, raw_key(EVP_PKEY_X25519, "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"));
      if (!signer || !e) std::abort();
      receiver = *e;
      return;
    }
    auto s = uactor::security::rsa_key::from_private_pem(ev::nistp256_signer_private_pem);
    auto r = uactor::security::rsa_key::from_private_pem(ev::nistp256_server_private_pem);
    if (!s || !r) std::abort();
    signer = *s;
    auto e = uactor::security::ephemeral_key_of(policy, *r);
    if (!e) std::abort();
    receiver = *e;
  }
};

void try_one(const fixture& f, std::span<const std::uint8_t> blob) {
  std::string why;
  const auto got = uactor::security::decrypt_ecc_secret(f.policy, f.signer.public_only(), {}, f.receiver, f.nonce,
                                                        blob, &why);
  if (!got && why.empty()) std::abort();  // a refusal always says why
  if (got && got->size() > uactor::security::max_ecc_secret_length) std::abort();
}

void try_resigned(const fixture& f, const std::uint8_t* data, std::size_t size) {
  try_one(f, {data, size});
  const std::size_t sig = f.policy.ecc_signature_size();
  if (size < sig || size > uactor::security::max_ecc_encrypted_secret_size) return;
  std::vector<std::uint8_t> resigned(data, data + size);
  if (!uactor::security::ecc_sign(f.policy, f.signer, {resigned.data(), size - sig}, {resigned.data() + size - sig, sig}))
    std::abort();
  try_one(f, resigned);
}

}  // namespace

// UACTOR_FUZZ_WRITE_SEED=FILE: writes a valid ECC_curve25519 EccEncryptedSecret for the fixed keys
// (the seed tests/fuzz/ecc_secret_seeds/curve25519) and exits.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* out = std::getenv("UACTOR_FUZZ_WRITE_SEED");
  if (out == nullptr) return 0;
  const fixture f(uactor::security::policy_uri_ecc_curve25519);
  auto sender = uactor::security::ephemeral_key_of(
      f.policy, raw_key(EVP_PKEY_X25519, "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"));
  const auto secret = unhex(uactor::test::ecc_vectors::secret);
  if (!sender) std::abort();
  const auto blob = uactor::security::encrypt_ecc_secret(f.policy, f.signer, {}, {}, *sender, f.receiver.public_bytes(),
                                                         f.nonce, secret);
  if (blob.empty()) std::abort();
  if (std::FILE* file = std::fopen(out, "wb")) {
    std::fwrite(blob.data(), 1, blob.size(), file);
    std::fclose(file);
  }
  std::exit(0);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fixture nist(uactor::security::policy_uri_ecc_nistp256);
  static const fixture curve(uactor::security::policy_uri_ecc_curve25519);
  try_resigned(nist, data, size);
  try_resigned(curve, data, size);
  return 0;
}
