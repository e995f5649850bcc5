#include "engine/server/certificates/certificate_types.hpp"

#include <openssl/evp.h>

#include "security/ecc.hpp"
#include "security/policy.hpp"
#include "uactor/ua/node_ids.hpp"

namespace uactor::actors {

namespace ids = ua::ids;

std::uint32_t ecc_certificate_type(std::string_view curve) {
  if (curve == "prime256v1") return ids::ecc_nist_p256_application_certificate_type;
  if (curve == "secp384r1") return ids::ecc_nist_p384_application_certificate_type;
  if (curve == "brainpoolP256r1") return ids::ecc_brainpool_p256r1_application_certificate_type;
  if (curve == "brainpoolP384r1") return ids::ecc_brainpool_p384r1_application_certificate_type;
  if (curve == "ED25519") return ids::ecc_curve25519_application_certificate_type;
  if (curve == "ED448") return ids::ecc_curve448_application_certificate_type;
  return 0;
}

std::uint32_t certificate_type_of_curve(std::string_view curve) {
  return curve.empty() ? ids::rsa_sha256_application_certificate_type : ecc_certificate_type(curve);
}

std::uint32_t certificate_type_of(const security::certificate& cert) {
  const auto& key = cert.public_key();
  if (!key) return 0;
  if (EVP_PKEY_is_a(key.native(), "RSA") == 1) return ids::rsa_sha256_application_certificate_type;
  for (const auto& p : security::all_policies())
    if (p.is_ecc() && security::key_fits_policy(p, key)) return ecc_certificate_type(p.curve);
  return 0;
}

}  // namespace uactor::actors
