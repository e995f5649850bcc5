// libFuzzer target for the EccEncryptedSecret a client sends as its password over an ECC policy
// (security/ecc_encrypted_secret.cpp; Part 4 §7.41.2.5, Part 6 §6.8.3). Each input is tried twice:
// as it is (the structure's parser up to the signature check), and with its last 64 bytes replaced
// by a valid signature of the fixed signer key (tests/security/ecc_vectors.hpp), so that the fuzzer
// reaches the decryption, the padding and the payload's parser behind the signature. Either way:
// a secret, or a Bad status with a reason; never a crash, an over-read, a leak or a loop.
// Seeded with tests/fuzz/ecc_secret_seeds (python's structure for ECC_nistP256).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "security/ecc.hpp"
#include "security/ecc_encrypted_secret.hpp"
#include "security/policy.hpp"
#include "tests/security/ecc_vectors.hpp"

namespace {

struct fixture {
  const uactor::security::security_policy& policy =
      *uactor::security::find_policy(uactor::security::policy_uri_ecc_nistp256);
  uactor::security::rsa_key signer;
  uactor::security::ephemeral_key receiver;
  std::vector<std::uint8_t> nonce;
  fixture() {
    namespace ev = uactor::test::ecc_vectors;
    auto s = uactor::security::rsa_key::from_private_pem(ev::nistp256_signer_private_pem);
    auto r = uactor::security::rsa_key::from_private_pem(ev::nistp256_server_private_pem);
    if (!s || !r) std::abort();
    signer = *s;
    auto e = uactor::security::ephemeral_key_of(policy, *r);
    if (!e) std::abort();
    receiver = *e;
    for (std::size_t i = 0; i < ev::secret_nonce.size(); i += 2)
      nonce.push_back(static_cast<std::uint8_t>(std::stoi(std::string(ev::secret_nonce.substr(i, 2)), nullptr, 16)));
  }
};

void try_one(const fixture& f, std::span<const std::uint8_t> blob) {
  std::string why;
  const auto got = uactor::security::decrypt_ecc_secret(f.policy, f.signer.public_only(), {}, f.receiver, f.nonce,
                                                        blob, &why);
  if (!got && why.empty()) std::abort();  // a refusal always says why
  if (got && got->size() > uactor::security::max_ecc_secret_length) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fixture f;
  try_one(f, {data, size});
  const std::size_t sig = f.policy.ecc_signature_size();
  if (size < sig || size > uactor::security::max_ecc_encrypted_secret_size) return 0;
  std::vector<std::uint8_t> resigned(data, data + size);
  if (!uactor::security::ecc_sign(f.policy, f.signer, {resigned.data(), size - sig}, {resigned.data() + size - sig, sig}))
    std::abort();
  try_one(f, resigned);
  return 0;
}
