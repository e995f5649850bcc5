// The PKI trust store on disk and certificate validation (Part 4 §6.1.3). The layout is
// node-opcua's, so that its tools and ours share folders. The store owns its cached copies of the
// folders; callers own the certificates and results it hands out.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "uactor/ua/builtin_types.hpp"
#include "uactor/ua/expected.hpp"
#include "uactor/ua/status_code.hpp"
#include "security/certificate.hpp"

namespace uactor::security {

// What a validation found: the status Part 4 §6.1.3 names for the first failed check, the name
// of the check, and one line for the log that says what to do.
struct validation_result {
  ua::status_code status;  // Good when trusted
  std::string check;       // "trust list", "validity period", "application uri", "key size", ...
  std::string detail;      // the certificate, what was expected, what to do
  bool ok() const noexcept { return status.is_good(); }
};

struct validation_options {
  std::string expected_application_uri;  // empty: not checked (the channel); the session checks it
  // The host of the endpoint URL a client connected to (a DNS name or an IP address), checked
  // against the server certificate's subjectAltName; empty: not checked (the server side).
  std::string expected_host_name;
  std::size_t min_key_bits = 2048, max_key_bits = 4096;  // from the security policy
  bool check_revocation = true;  // CRLs of the issuer must be present for CA-issued certificates
};

// Part 4 §6.1.3's host name check on its own: `host` (a DNS name or an IP address) is one of the
// certificate's subjectAltName entries; Bad_CertificateHostNameInvalid naming both otherwise.
validation_result check_host_name(const certificate& server, const std::string& host);

//   <root>/own/certs/<name>.der, <root>/own/private/<name>.pem (mode 0600); the certificate file
//     may hold the CA certificates that issued it after it (DER back to back or PEM blocks), sent
//     with it as its chain (Part 6 §6.7.2.3)
//   <root>/trusted/certs, <root>/trusted/crl, <root>/issuers/certs, <root>/issuers/crl
//   <root>/rejected/certs  (<CN>[<thumbprint hex>].der)
// Thread-safe: one store may serve every channel of a server.
// $UACTOR_PKI, else ./pki: where uactor's server, client and `uactor certs` keep certificates.
std::string default_pki_dir();

// Why pki_store(root).load_or_create_own(.., name) would fail, found without creating or
// writing anything (`uactor check-config`: nothing starts before the file is known good). Empty
// when every folder of the store exists or can be created and own/ holds a certificate and key
// that belong together, or neither and both can be written there.
std::string own_identity_problem(const std::filesystem::path& root, std::string_view name = "uactor");

class pki_store {
public:
  // Creates the folders when missing (throws std::filesystem::filesystem_error when it cannot:
  // bad start-up configuration).
  explicit pki_store(std::filesystem::path root);
  ~pki_store();
  pki_store(const pki_store&) = delete;
  pki_store& operator=(const pki_store&) = delete;

  // First start: loads own/ (with the issuers its certificate file holds after the leaf) or
  // creates a self-signed identity there and returns it.
  // Bad_CertificateInvalid when own/ holds a certificate and a key that do not belong together.
  ua::expected<application_identity> load_or_create_own(const certificate_request& request,
                                                        std::string_view name = "uactor");

  // Part 4 §6.1.3, in the table's order: structure, chain (issuers/ and `chain` complete it but
  // never make it trusted), signatures, security policy (key size; a SHA-1 or MD5 signature,
  // which none of our policies allow), trust list (the leaf or a CA of its chain in trusted/),
  // validity periods, host name and application URI when asked, key usage, revocation (CRLs in
  // trusted/crl and issuers/crl). A refused certificate is copied to rejected/certs. The folders are read again
  // only when a folder's modification time changed.
  validation_result validate(const certificate& peer, const validation_options& options, ua::date_time now);
  // The same, with the issuers a peer sent after its leaf (Part 6 §6.7.2.3).
  validation_result validate(const certificate& peer, std::span<const certificate> chain,
                             const validation_options& options, ua::date_time now);

  // Writes the certificate into trusted/certs (and removes it from rejected/certs).
  ua::status_code trust(const certificate& cert);
  // Writes the certificate into rejected/certs (and removes it from trusted/certs).
  ua::status_code reject(const certificate& cert);
  // The certificates of "trusted", "rejected", "issuers" or "own"; empty for another name.
  std::vector<certificate> list(std::string_view folder) const;
  // The file in `folder` that holds a certificate with this thumbprint (hex, any case); empty
  // path when there is none.
  std::filesystem::path find(std::string_view folder, std::string_view thumbprint_hex) const;

  const std::filesystem::path& root() const noexcept;

  // "<CN>[<thumbprint hex>].der": the file name an operator recognises.
  static std::string file_name_for(const certificate& cert);

private:
  struct state;
  std::unique_ptr<state> state_;
};

}  // namespace uactor::security
