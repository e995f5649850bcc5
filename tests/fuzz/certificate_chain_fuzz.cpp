// libFuzzer target for the SenderCertificate chain split (security/certificate.cpp,
// chain_from_der; Part 6 §6.7.2.3): any bytes a peer puts in an OpenSecureChannel's asymmetric
// header or in CreateSession's certificate give certificates or Bad_CertificateInvalid with a
// reason; never a crash, an over-read, a leak or a loop. What the checks read of each certificate
// is read here too.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "security/certificate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using uactor::security::certificate;
  std::string why;
  const auto chain = certificate::chain_from_der({data, size}, &why);
  if (!chain) {
    if (why.empty()) std::abort();  // a refusal always says why
    return 0;
  }
  if (chain->empty() || chain->size() > certificate::max_chain_certificates) std::abort();
  for (const auto& c : *chain) {
    (void)c.thumbprint_hex();
    (void)c.application_uri();
    (void)c.host_names();
    (void)c.describe();
  }
  return 0;
}
