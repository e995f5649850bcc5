// libFuzzer target for what a certificate manager writes into the TrustList (Part 12 §7.8.2.3
// CloseAndUpdate): the bytes decoded as one TrustListDataType under the server's limits, then every
// certificate and CRL in it checked (security/trust_list.cpp) as CloseAndUpdate checks them before
// anything is written. Any bytes give a list or a refusal (Bad_DecodingError,
// Bad_EncodingLimitsExceeded, Bad_CertificateInvalid with a reason); never a crash, an over-read,
// a leak or a loop.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "protocol/codec.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "security/trust_list.hpp"
#include "uactor/ua/status_codes.hpp"

namespace {
std::vector<uactor::security::der_bytes> fuzz_der_list(const uactor::ua::ua_array<uactor::ua::byte_string>& list) {
  std::vector<uactor::security::der_bytes> out;
  for (const auto& b : list) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(b.data());
    out.emplace_back(p, p + b.size());
  }
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace uactor;
  // The server's limits for a trust list (server_configuration.cpp, MaxTrustListSize 1 MiB).
  ua::decode_limits limits;
  limits.max_string_length = 1u << 20;
  limits.max_array_length = 10'000;
  ua::decoder d({data, size}, limits);
  ua::trust_list_data_type t;
  ua::decode(d, t);
  if (!d.ok()) {
    const auto sc = d.status();
    if (sc != ua::status::bad_decoding_error && sc != ua::status::bad_encoding_limits_exceeded) std::abort();
    return 0;
  }
  security::trust_list_contents lists;
  lists.specified_lists = t.specified_lists;
  lists.trusted_certificates = fuzz_der_list(t.trusted_certificates);
  lists.trusted_crls = fuzz_der_list(t.trusted_crls);
  lists.issuer_certificates = fuzz_der_list(t.issuer_certificates);
  lists.issuer_crls = fuzz_der_list(t.issuer_crls);
  std::string why;
  const auto sc = security::check_trust_list(lists, &why);
  if (sc.is_bad() && (sc != ua::status::bad_certificate_invalid || why.empty())) std::abort();
  return 0;
}
