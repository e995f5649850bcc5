// libFuzzer target for the certificates a peer sends (security/certificate.cpp): the SenderCertificate
// chain split (chain_from_der; Part 6 §6.7.2.3), for what an OpenSecureChannel's asymmetric header
// or CreateSession's certificate holds, and one certificate as DER or PEM (from_der_or_pem), for
// an X509IdentityToken's certificateData (some clients send PEM). Any bytes give certificates, or
// Bad_CertificateInvalid (with a reason, for the chain); never a crash, an over-read, a leak or a
// loop. What the checks read of each certificate is read here too.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "uactor/ua/status_codes.hpp"
#include "security/certificate.hpp"

namespace {
void read_what_the_checks_read(const uactor::security::certificate& c) {
  (void)c.thumbprint_hex();
  (void)c.application_uri();
  (void)c.host_names();
  (void)c.describe();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using uactor::security::certificate;
  if (const auto one = certificate::from_der_or_pem({data, size}); one) read_what_the_checks_read(*one);
  else if (one.error() != uactor::ua::status::bad_certificate_invalid) std::abort();
  std::string why;
  const auto chain = certificate::chain_from_der({data, size}, &why);
  if (!chain) {
    if (why.empty()) std::abort();  // a refusal always says why
    return 0;
  }
  if (chain->empty() || chain->size() > certificate::max_chain_certificates) std::abort();
  for (const auto& c : *chain) read_what_the_checks_read(c);
  return 0;
}
