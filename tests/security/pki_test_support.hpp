// Test-only PKI: certificates of any shape (CA, CA-issued, expired, 1024-bit, v1) and CRLs, made
// with the OpenSSL API, and a temporary folder that removes itself. Header-only, for
// tests/security/*_test.cpp.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "uactor/ua/builtin_types.hpp"
#include "security/certificate.hpp"
#include "security/keys.hpp"
#include "security/openssl.hpp"

namespace uactor::security::testing {

// A folder under /tmp removed with everything in it at the end of the test.
class temp_dir {
public:
  temp_dir() {
    static std::atomic<int> n{0};
    path_ = std::filesystem::temp_directory_path() /
            ("uactor-pki-test-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_;
};

inline constexpr std::int64_t day_ms = 24LL * 3600 * 1000;

struct cert_spec {
  std::string common_name = "peer";
  std::string uri = "urn:test:peer";
  unsigned key_bits = 2048;
  rsa_key key{};                  // used when set, else a fresh one of key_bits
  ua::date_time not_before{};     // required
  ua::date_time not_after{};      // required
  bool ca = false;
  long serial = 1;
  bool v3 = true;                 // false: a v1 certificate without extensions
  std::string key_usage = "critical,digitalSignature,nonRepudiation,keyEncipherment,dataEncipherment";
  std::string ext_key_usage = "serverAuth,clientAuth";
  bool sha1 = false;              // sign with SHA-1 instead of SHA-256
  std::string hosts = "DNS:localhost";  // subjectAltName entries after the URI
};

struct issued {
  certificate cert;
  rsa_key key;
};

inline void check(bool ok, const char* what) {
  if (!ok) {
    ERR_print_errors_fp(stderr);
    throw std::runtime_error(std::string("test pki: ") + what);
  }
}

inline certificate to_certificate(X509* x) {
  unsigned char* der = nullptr;
  const int len = i2d_X509(x, &der);
  check(len > 0, "i2d_X509");
  auto c = certificate::from_der({der, static_cast<std::size_t>(len)});
  OPENSSL_free(der);
  check(c.has_value(), "from_der of a test certificate");
  return *c;
}

// Issues `spec` with `issuer` (self-signed when null).
inline issued make_cert(cert_spec spec, const issued* issuer = nullptr) {
  rsa_key key = spec.key ? spec.key : *rsa_key::generate(spec.key_bits);
  x509_ptr x(X509_new());
  check(X509_set_version(x.get(), spec.v3 ? X509_VERSION_3 : X509_VERSION_1) == 1, "version");
  ASN1_INTEGER_set(X509_get_serialNumber(x.get()), spec.serial);
  X509_NAME* name = X509_get_subject_name(x.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(spec.common_name.c_str()),
                             -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>("test"), -1, -1, 0);
  check(X509_set_issuer_name(x.get(), issuer ? X509_get_subject_name(issuer->cert.native()) : name) == 1, "issuer");
  ASN1_TIME_set(X509_getm_notBefore(x.get()), static_cast<time_t>(spec.not_before.to_unix_ms() / 1000));
  ASN1_TIME_set(X509_getm_notAfter(x.get()), static_cast<time_t>(spec.not_after.to_unix_ms() / 1000));
  check(X509_set_pubkey(x.get(), key.native()) == 1, "pubkey");
  if (spec.v3) {
    X509V3_CTX ctx;
    X509V3_set_ctx(&ctx, issuer ? issuer->cert.native() : x.get(), x.get(), nullptr, nullptr, 0);
    auto add = [&](int nid, const std::string& value) {
      if (value.empty()) return;
      X509_EXTENSION* e = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
      check(e != nullptr, "extension");
      X509_add_ext(x.get(), e, -1);
      X509_EXTENSION_free(e);
    };
    add(NID_basic_constraints, spec.ca ? "critical,CA:TRUE" : "critical,CA:FALSE");
    add(NID_key_usage, spec.ca ? "critical,keyCertSign,cRLSign" : spec.key_usage);
    if (!spec.ca) add(NID_ext_key_usage, spec.ext_key_usage);
    add(NID_subject_key_identifier, "hash");
    add(NID_authority_key_identifier, "keyid:always");
    if (!spec.uri.empty()) add(NID_subject_alt_name, "URI:" + spec.uri + (spec.hosts.empty() ? "" : "," + spec.hosts));
  }
  check(X509_sign(x.get(), issuer ? issuer->key.native() : key.native(), spec.sha1 ? EVP_sha1() : EVP_sha256()) > 0,
        "sign");
  return {to_certificate(x.get()), key};
}

// A self-signed application instance (or user) certificate for `uri`, valid from 2023-11-14 (before
// the session tests' clocks) to a year from now.
inline issued application_cert(const char* name, const char* uri) {
  cert_spec s;
  s.common_name = name;
  s.uri = uri;
  s.not_before = ua::date_time::from_unix_ms(1'700'000'000'000);
  s.not_after = ua::date_time::from_unix_ms(system_now().to_unix_ms() + 365 * day_ms);
  return make_cert(s);
}

// A CRL of `ca` revoking `serials`, valid from `now` for 30 days.
inline std::vector<std::uint8_t> make_crl(const issued& ca, const std::vector<long>& serials, ua::date_time now) {
  std::unique_ptr<X509_CRL, decltype(&X509_CRL_free)> crl(X509_CRL_new(), &X509_CRL_free);
  check(X509_CRL_set_version(crl.get(), 1) == 1, "crl version");
  check(X509_CRL_set_issuer_name(crl.get(), X509_get_subject_name(ca.cert.native())) == 1, "crl issuer");
  const time_t t = static_cast<time_t>(now.to_unix_ms() / 1000);
  std::unique_ptr<ASN1_TIME, decltype(&ASN1_TIME_free)> last(ASN1_TIME_set(nullptr, t - 60), &ASN1_TIME_free);
  std::unique_ptr<ASN1_TIME, decltype(&ASN1_TIME_free)> next(ASN1_TIME_set(nullptr, t + 30 * 86400), &ASN1_TIME_free);
  X509_CRL_set1_lastUpdate(crl.get(), last.get());
  X509_CRL_set1_nextUpdate(crl.get(), next.get());
  for (long serial : serials) {
    X509_REVOKED* r = X509_REVOKED_new();
    ASN1_INTEGER* s = ASN1_INTEGER_new();
    ASN1_INTEGER_set(s, serial);
    X509_REVOKED_set_serialNumber(r, s);
    ASN1_INTEGER_free(s);
    X509_REVOKED_set_revocationDate(r, last.get());
    X509_CRL_add0_revoked(crl.get(), r);
  }
  X509_CRL_sort(crl.get());
  check(X509_CRL_sign(crl.get(), ca.key.native(), EVP_sha256()) > 0, "crl sign");
  unsigned char* der = nullptr;
  const int len = i2d_X509_CRL(crl.get(), &der);
  check(len > 0, "i2d_X509_CRL");
  std::vector<std::uint8_t> out(der, der + len);
  OPENSSL_free(der);
  return out;
}

inline void write_file(const std::filesystem::path& file, std::span<const std::uint8_t> bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  check(out.good(), "write_file");
}

inline std::vector<std::uint8_t> read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs a shell command; its exit status and what it printed on stdout.
inline std::pair<int, std::string> run(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return {-1, out};
  char buf[4096];
  while (const auto n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace uactor::security::testing
