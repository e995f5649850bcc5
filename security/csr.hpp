// What remote certificate management (Part 12 §7.10) needs of OpenSSL besides the trust list: a
// PKCS#10 signing request for the server's key (CreateSigningRequest), the private key formats
// UpdateCertificate takes (PEM, PFX), and whether a key belongs to a certificate.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "security/certificate.hpp"
#include "security/keys.hpp"
#include "uactor/ua/expected.hpp"

namespace uactor::security {

// Part 12 §7.10.7: a DER PKCS#10 CertificationRequest signed with `key` (SHA-256): the subject
// from `subject` ("CN=x, O=y, DC=z", also with '/' between the parts; empty: `fallback`'s
// subject), subjectAltName URI `application_uri` and every host name (DNS, or IP when it parses
// as one). Bad_InvalidArgument for a subject that does not parse or an empty URI.
ua::expected<std::vector<std::uint8_t>> create_signing_request(const rsa_key& key, std::string_view subject,
                                                               const certificate& fallback,
                                                               const std::string& application_uri,
                                                               const std::vector<std::string>& host_names);

// Whether `issuer`'s subject and key issued `subject` (names, key identifiers and the signature).
bool issued_by(const certificate& issuer, const certificate& subject);

// Whether the private key belongs to the certificate's public key.
bool key_matches(const certificate& cert, const rsa_key& key);

// Part 12 §7.10.4 PrivateKeyFormat "PEM" (unencrypted PKCS#8, traditional RSA or EC) or "PFX"
// (PKCS#12 without a password; its RSA or EC key). Bad_NotSupported for another format,
// Bad_SecurityChecksFailed when the bytes are no such key.
ua::expected<rsa_key> private_key_from(std::string_view format, std::span<const std::uint8_t> bytes);

}  // namespace uactor::security
