// X.509 v3 certificates (Part 6 §6.2.2): parsed once, shared by reference count, and the
// self-signed application instance certificate uactor creates on first start.
// A certificate owns its X509 and its DER; copies share both and are read-only.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "uactor/ua/builtin_types.hpp"
#include "uactor/ua/expected.hpp"
#include "security/keys.hpp"

typedef struct x509_st X509;  // NOLINT: OpenSSL's own spelling, no <openssl/x509.h> here

namespace uactor::security {

class certificate {
public:
  certificate() = default;  // empty: der() is empty, native() is null

  // Exactly one DER certificate with an RSA or EC key; Bad_CertificateInvalid otherwise (garbage,
  // trailing bytes, a key of another type).
  static ua::expected<certificate> from_der(std::span<const std::uint8_t> der);
  // Part 6 §6.7.2.3: a SenderCertificate (and Part 4's ApplicationInstanceCertificate
  // parameters) may be the leaf followed by its issuers, DER back to back; the first is the leaf.
  // Each part is framed by its own ASN.1 SEQUENCE header before it is parsed, at most
  // max_chain_certificates of at most max_certificate_size bytes. Bad_CertificateInvalid when a
  // part is truncated, longer than what is left, not a certificate, or followed by stray bytes;
  // `why` (when given) says which, for the caller's log line.
  static ua::expected<std::vector<certificate>> chain_from_der(std::span<const std::uint8_t> der,
                                                               std::string* why = nullptr);
  // A file holding a certificate and, optionally, its issuers after it: DER back to back, or PEM
  // blocks (leaf first). What own/certs may hold for an application that sends its chain.
  static ua::expected<std::vector<certificate>> chain_from_file(const std::filesystem::path& file);
  static constexpr std::size_t max_chain_certificates = 10;  // more than any OPC UA PKI's depth
  static constexpr std::size_t max_certificate_size = 64 * 1024;  // a 16384-bit key's is ~5 KB
  // One certificate, DER or PEM (the first PEM block): what files and some clients' X509 identity
  // tokens hold. Bad_CertificateInvalid otherwise.
  static ua::expected<certificate> from_der_or_pem(std::span<const std::uint8_t> bytes);
  // A file holding one certificate, DER or PEM (of a chain file, the first: the leaf).
  // Bad_NotFound when it cannot be read.
  static ua::expected<certificate> from_file(const std::filesystem::path& file);

  std::span<const std::uint8_t> der() const noexcept;         // exactly the bytes for the wire
  std::array<std::uint8_t, 20> thumbprint() const noexcept;   // SHA-1 of the DER (Part 6 §6.7.2.3)
  std::string thumbprint_hex() const;                         // 40 upper-case hex digits
  const rsa_key& public_key() const noexcept;
  std::size_t key_bits() const noexcept;
  std::string application_uri() const;                        // subjectAltName URI ("" if none)
  std::vector<std::string> host_names() const;                // subjectAltName DNS and IP
  std::string subject() const;                                // "CN=uactor, O=uactor", for logs
  std::string issuer() const;                                 // the issuer's name, in the same form
  std::string common_name() const;                            // "" if none
  ua::date_time valid_from() const;
  ua::date_time valid_to() const;
  // Issuer and subject are the same name and the certificate's own key verifies its signature.
  bool self_signed() const;
  // subject, thumbprint hex, validity: for log lines.
  std::string describe() const;
  X509* native() const noexcept;

  explicit operator bool() const noexcept { return impl_ != nullptr; }
  // Same DER bytes.
  friend bool operator==(const certificate& a, const certificate& b) noexcept;

private:
  struct impl;
  friend struct certificate_parser;
  std::shared_ptr<const impl> impl_;
};

struct certificate_request {
  std::string application_uri;          // goes into subjectAltName URI
  std::string common_name = "uactor";
  std::string organization = "uactor";
  std::vector<std::string> host_names;  // DNS (and IP when it parses as one)
  unsigned key_bits = 2048;
  // Non-empty: an EC key on this curve (OpenSSL's group name, security_policy::curve) instead of
  // RSA, for the certificate types of the ECC policies (Part 12 §7.8.4); key_bits is then unused.
  std::string curve;
  std::chrono::hours validity{24 * 365 * 5};
};

struct application_identity {
  certificate cert;
  rsa_key private_key;
  // The CA certificates that issued `cert`, nearest first, sent after it so that a peer holding
  // only the root can build the chain (Part 6 §6.7.2.3); empty for a self-signed certificate.
  std::vector<certificate> issuers;
};

// The leaf's DER followed by its issuers': what goes into a SenderCertificate, an endpoint's
// ServerCertificate and CreateSession's certificates when an application sends its chain.
std::vector<std::uint8_t> chain_der(const certificate& leaf, std::span<const certificate> issuers);

// A self-signed application instance certificate (Part 6 §6.2.2): X.509 v3, SHA-256, a random
// serial, subjectAltName URI + DNS/IP, basicConstraints CA:FALSE (critical), keyUsage
// digitalSignature, nonRepudiation, keyEncipherment, dataEncipherment, keyCertSign (critical;
// keyCertSign because it signs itself), extendedKeyUsage serverAuth + clientAuth, subject and
// authority key identifiers. Valid from an hour before `now` (clock skew between peers) for
// `validity`. Bad_InvalidArgument for an empty URI or an unsupported key size.
ua::expected<application_identity> create_self_signed(const certificate_request& request, ua::date_time now);

// The current time as a DateTime, for callers without a clock of their own.
ua::date_time system_now();

// "2026-11-30T01:45:15Z".
std::string format_date_time(ua::date_time t);

}  // namespace uactor::security
