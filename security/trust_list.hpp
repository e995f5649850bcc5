// The trust list of Part 12 §7.8.2 (TrustListType) over the PKI folders of pki_store: the trusted
// and issuer certificates and their CRLs as DER, read whole, checked whole, and written whole, so
// that a refused update leaves the folders as they were. The pki_store reads the folders again by
// itself when they change: new channels see a change at once (docs/decisions/0056).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "uactor/ua/expected.hpp"
#include "uactor/ua/status_code.hpp"

namespace uactor::security {

// Part 12 §7.8.2.7 TrustListMasks.
namespace trust_masks {
inline constexpr std::uint32_t trusted_certificates = 1, trusted_crls = 2, issuer_certificates = 4,
                               issuer_crls = 8, all = 15;
}

using der_bytes = std::vector<std::uint8_t>;

struct trust_list_contents {
  std::uint32_t specified_lists = 0;  // which of the four lists this holds (trust_masks)
  std::vector<der_bytes> trusted_certificates, trusted_crls, issuer_certificates, issuer_crls;
  // The sum of the DER sizes: what MaxTrustListSize bounds.
  std::size_t byte_size() const noexcept;
};

// The lists of `masks` as the folders hold them now (DER; a PEM file as its DER).
trust_list_contents read_trust_list(const std::filesystem::path& pki_root, std::uint32_t masks);

// Every certificate of the lists is one X.509 certificate and every CRL one CRL, and no list
// holds more than max_entries: Good, or Bad_CertificateInvalid with `why`.
ua::status_code check_trust_list(const trust_list_contents& lists, std::string* why = nullptr,
                                 std::size_t max_entries = 1000);

// Replaces the lists named by lists.specified_lists with the contents (check_trust_list first):
// the new files are written under temporary names, then the old files go and the new ones take
// their names. Bad_InternalError when a file cannot be written (the old files are kept then).
ua::status_code write_trust_list(const std::filesystem::path& pki_root, const trust_list_contents& lists);

// Part 12 §7.8.2.4 AddCertificate: into trusted/certs (`trusted`) or issuers/certs.
// Bad_CertificateInvalid when it is no certificate.
ua::status_code add_to_trust_list(const std::filesystem::path& pki_root, std::span<const std::uint8_t> der,
                                  bool trusted);
// Part 12 §7.8.2.5 RemoveCertificate: the certificate with this SHA-1 thumbprint (hex, any case)
// from trusted/certs or issuers/certs, with the CRLs it issued. Bad_InvalidArgument when no such
// certificate is there.
ua::status_code remove_from_trust_list(const std::filesystem::path& pki_root, std::string_view thumbprint_hex,
                                       bool trusted);

// The certificates in rejected/certs (Part 12 §7.10.11 GetRejectedList), at most `max`.
std::vector<der_bytes> rejected_certificates(const std::filesystem::path& pki_root, std::size_t max = 1000);

}  // namespace uactor::security
