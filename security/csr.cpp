// PKCS#10 requests, private key formats and key checks for Part 12 §7.10 (csr.hpp).
#include "security/csr.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "security/ecc.hpp"
#include "security/openssl.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::security {

namespace {

using csr_req_ptr = std::unique_ptr<X509_REQ, detail::openssl_deleter<X509_REQ, X509_REQ_free>>;
using csr_name_ptr = std::unique_ptr<X509_NAME, detail::openssl_deleter<X509_NAME, X509_NAME_free>>;
using csr_names_ptr = std::unique_ptr<GENERAL_NAMES, decltype([](GENERAL_NAMES* n) { GENERAL_NAMES_free(n); })>;
using csr_p12_ptr = std::unique_ptr<PKCS12, detail::openssl_deleter<PKCS12, PKCS12_free>>;
using csr_extensions_ptr =
    std::unique_ptr<STACK_OF(X509_EXTENSION), decltype([](STACK_OF(X509_EXTENSION)* s) {
                      sk_X509_EXTENSION_pop_free(s, X509_EXTENSION_free);
                    })>;

std::string_view csr_trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "CN=x, O=y" or "/CN=x/O=y" into a name; null when a part is not KEY=VALUE of a known key.
csr_name_ptr csr_parse_subject(std::string_view text) {
  csr_name_ptr name(X509_NAME_new());
  if (!name) return nullptr;
  const char sep = text.find('/') != std::string_view::npos && text.find(',') == std::string_view::npos ? '/' : ',';
  bool any = false;
  while (!text.empty()) {
    const auto cut = text.find(sep);
    const std::string_view part = csr_trim(text.substr(0, cut));
    text = cut == std::string_view::npos ? std::string_view{} : text.substr(cut + 1);
    if (part.empty()) continue;
    const auto eq = part.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == part.size()) return nullptr;
    const std::string key(csr_trim(part.substr(0, eq)));
    const std::string value(csr_trim(part.substr(eq + 1)));
    if (X509_NAME_add_entry_by_txt(name.get(), key.c_str(), MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(value.data()), static_cast<int>(value.size()),
                                   -1, 0) != 1) {
      ERR_clear_error();
      return nullptr;
    }
    any = true;
  }
  return any ? std::move(name) : nullptr;
}

bool csr_add_name(GENERAL_NAMES* names, const std::string& value, bool uri) {
  GENERAL_NAME* gn = GENERAL_NAME_new();
  if (!gn) return false;
  if (ASN1_OCTET_STRING* ip = uri ? nullptr : a2i_IPADDRESS(value.c_str())) {
    GENERAL_NAME_set0_value(gn, GEN_IPADD, ip);
  } else {
    ERR_clear_error();
    ASN1_IA5STRING* s = ASN1_IA5STRING_new();
    if (!s || ASN1_STRING_set(s, value.data(), static_cast<int>(value.size())) != 1) {
      GENERAL_NAME_free(gn);
      ASN1_IA5STRING_free(s);
      return false;
    }
    GENERAL_NAME_set0_value(gn, uri ? GEN_URI : GEN_DNS, s);
  }
  if (sk_GENERAL_NAME_push(names, gn) == 0) {
    GENERAL_NAME_free(gn);
    return false;
  }
  return true;
}

}  // namespace

ua::expected<std::vector<std::uint8_t>> create_signing_request(const rsa_key& key, std::string_view subject,
                                                               const certificate& fallback,
                                                               const std::string& application_uri,
                                                               const std::vector<std::string>& host_names) {
  if (!key || !key.has_private() || application_uri.empty()) return ua::status::bad_invalid_argument;
  csr_name_ptr name;
  if (csr_trim(subject).empty()) {
    if (!fallback) return ua::status::bad_invalid_argument;
    name.reset(X509_NAME_dup(X509_get_subject_name(fallback.native())));
  } else {
    name = csr_parse_subject(subject);
  }
  if (!name) return ua::status::bad_invalid_argument;
  csr_req_ptr req(X509_REQ_new());
  if (!req || X509_REQ_set_version(req.get(), 0) != 1 || X509_REQ_set_subject_name(req.get(), name.get()) != 1 ||
      X509_REQ_set_pubkey(req.get(), key.native()) != 1)
    return ua::status::bad_internal_error;
  // Part 12 §7.10.7: the request carries the ApplicationUri and the host names as subjectAltName.
  csr_names_ptr names(GENERAL_NAMES_new());
  if (!names || !csr_add_name(names.get(), application_uri, true)) return ua::status::bad_internal_error;
  for (const auto& h : host_names)
    if (!h.empty() && !csr_add_name(names.get(), h, false)) return ua::status::bad_internal_error;
  csr_extensions_ptr extensions(sk_X509_EXTENSION_new_null());
  X509_EXTENSION* san = X509V3_EXT_i2d(NID_subject_alt_name, 0, names.get());
  if (!extensions || !san || sk_X509_EXTENSION_push(extensions.get(), san) == 0) {
    X509_EXTENSION_free(san);
    return ua::status::bad_internal_error;
  }
  if (X509_REQ_add_extensions(req.get(), extensions.get()) != 1 || X509_REQ_sign(req.get(), key.native(), certificate_signature_digest(key)) <= 0) {
    ERR_clear_error();
    return ua::status::bad_internal_error;
  }
  const int n = i2d_X509_REQ(req.get(), nullptr);
  if (n <= 0) return ua::status::bad_internal_error;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(n));
  unsigned char* p = out.data();
  i2d_X509_REQ(req.get(), &p);
  return out;
}

bool issued_by(const certificate& issuer, const certificate& subject) {
  if (!issuer || !subject) return false;
  const bool issued = X509_check_issued(issuer.native(), subject.native()) == X509_V_OK &&
                      X509_verify(subject.native(), X509_get0_pubkey(issuer.native())) == 1;
  ERR_clear_error();
  return issued;
}

bool key_matches(const certificate& cert, const rsa_key& key) {
  if (!cert || !key) return false;
  const bool same = EVP_PKEY_eq(cert.public_key().native(), key.native()) == 1;
  ERR_clear_error();
  return same;
}

ua::expected<rsa_key> private_key_from(std::string_view format, std::span<const std::uint8_t> bytes) {
  if (format == "PEM") {
    auto key = rsa_key::from_private_pem(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    if (!key) return ua::status::bad_security_checks_failed;
    return key;
  }
  if (format != "PFX") return ua::status::bad_not_supported;
  const unsigned char* p = bytes.data();
  csr_p12_ptr p12(d2i_PKCS12(nullptr, &p, static_cast<long>(bytes.size())));
  EVP_PKEY* pkey = nullptr;
  X509* cert = nullptr;
  if (!p12 || PKCS12_parse(p12.get(), "", &pkey, &cert, nullptr) != 1 || !pkey) {
    ERR_clear_error();
    EVP_PKEY_free(pkey);
    X509_free(cert);
    return ua::status::bad_security_checks_failed;
  }
  X509_free(cert);
  // An RSA key, or an EC / Ed key for the ECC certificate types (the caller checks the curve).
  if (!is_application_key_type(pkey)) {
    EVP_PKEY_free(pkey);
    return ua::status::bad_security_checks_failed;
  }
  return rsa_key(pkey);
}

}  // namespace uactor::security
