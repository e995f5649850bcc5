// The CertificateType of an application certificate (Part 12 §7.8.4): RsaSha256ApplicationCertificateType
// for an RSA key, EccNistP256ApplicationCertificateType ... for the ECC policies' keys.
#pragma once

#include <cstdint>
#include <string_view>

#include "security/certificate.hpp"

namespace uactor::actors {

// Of an ECC policy's application certificate, by the policy's curve (security_policy::curve); 0 for
// none of them.
std::uint32_t ecc_certificate_type(std::string_view curve);
// Of the application certificate of `curve` ("": the RSA one).
std::uint32_t certificate_type_of_curve(std::string_view curve);
// Of a certificate by its key: RSA, or the ECC policy whose curve the key is on; 0 for another key.
std::uint32_t certificate_type_of(const security::certificate& cert);

}  // namespace uactor::actors
