#include "security/certificate.hpp"

#include <arpa/inet.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <iterator>

#include <openssl/asn1.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <limits>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "uactor/ua/status_codes.hpp"
#include "security/ecc.hpp"
#include "security/openssl.hpp"

namespace uactor::security {

struct certificate::impl {
  x509_ptr x509;
  std::vector<std::uint8_t> der;
  std::array<std::uint8_t, 20> thumbprint{};
  rsa_key key;
};

namespace {

using general_names_ptr = std::unique_ptr<GENERAL_NAMES, decltype([](GENERAL_NAMES* n) {
                                            GENERAL_NAMES_free(n);
                                          })>;
using x509_extension_ptr = std::unique_ptr<X509_EXTENSION, decltype([](X509_EXTENSION* e) {
                                             X509_EXTENSION_free(e);
                                           })>;

}  // namespace

struct certificate_parser {
  static std::shared_ptr<certificate::impl> parse_one(const unsigned char*& p, long len);
};

// Parses one certificate at `p` (advancing it); null when it is not a DER certificate with an
// RSA or EC key (the ECC policies' certificates, Part 6 §6.8).
std::shared_ptr<certificate::impl> certificate_parser::parse_one(const unsigned char*& p, long len) {
  const unsigned char* start = p;
  x509_ptr x(d2i_X509(nullptr, &p, len));
  if (!x) {
    ERR_clear_error();
    return nullptr;
  }
  // X509_get_pubkey takes a reference of its own, which the rsa_key adopts.
  EVP_PKEY* k = X509_get_pubkey(x.get());
  ERR_clear_error();
  if (!k) return nullptr;
  rsa_key key(k);
  if (!is_application_key_type(k)) return nullptr;
  auto out = std::make_shared<certificate::impl>();
  out->der.assign(start, p);
  unsigned int n = 0;
  if (EVP_Digest(out->der.data(), out->der.size(), out->thumbprint.data(), &n, EVP_sha1(), nullptr) != 1 ||
      n != out->thumbprint.size()) {
    ERR_clear_error();
    return nullptr;
  }
  out->x509 = std::move(x);
  out->key = std::move(key);
  return out;
}

namespace {

std::string name_to_line(const X509_NAME* name) {
  if (!name) return {};
  bio_ptr bio(BIO_new(BIO_s_mem()));
  if (!bio) return {};
  // RFC 2253 order reversed into the "CN=..., O=..." reading order, UTF-8 kept.
  X509_NAME_print_ex(bio.get(), name, 0, (XN_FLAG_ONELINE & ~ASN1_STRFLGS_ESC_MSB) | XN_FLAG_SEP_CPLUS_SPC);
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio.get(), &data);
  return len > 0 ? std::string(data, static_cast<std::size_t>(len)) : std::string();
}

ua::date_time from_asn1_time(const ASN1_TIME* t) {
  std::tm tm{};
  if (!t || ASN1_TIME_to_tm(t, &tm) != 1) return {};
  return ua::date_time::from_unix_ms(static_cast<std::int64_t>(timegm(&tm)) * 1000);
}

std::time_t to_time_t(ua::date_time t) { return static_cast<std::time_t>(t.to_unix_ms() / 1000); }

bool add_extension(X509* x, X509V3_CTX* ctx, int nid, const char* value) {
  x509_extension_ptr ext(X509V3_EXT_conf_nid(nullptr, ctx, nid, value));
  return ext && X509_add_ext(x, ext.get(), -1) == 1;
}

bool add_general_name(GENERAL_NAMES* names, int type, const std::string& value) {
  GENERAL_NAME* gn = nullptr;
  if (type == GEN_IPADD) {
    gn = GENERAL_NAME_new();
    ASN1_OCTET_STRING* ip = a2i_IPADDRESS(value.c_str());
    if (!gn || !ip) {
      GENERAL_NAME_free(gn);
      ASN1_OCTET_STRING_free(ip);
      return false;
    }
    GENERAL_NAME_set0_value(gn, GEN_IPADD, ip);
  } else {
    gn = GENERAL_NAME_new();
    ASN1_IA5STRING* s = ASN1_IA5STRING_new();
    if (!gn || !s || ASN1_STRING_set(s, value.data(), static_cast<int>(value.size())) != 1) {
      GENERAL_NAME_free(gn);
      ASN1_IA5STRING_free(s);
      return false;
    }
    GENERAL_NAME_set0_value(gn, type, s);
  }
  if (sk_GENERAL_NAME_push(names, gn) == 0) {
    GENERAL_NAME_free(gn);
    return false;
  }
  return true;
}

bool parses_as_ip(const std::string& s) {
  ASN1_OCTET_STRING* ip = a2i_IPADDRESS(s.c_str());
  ERR_clear_error();
  ASN1_OCTET_STRING_free(ip);
  return ip != nullptr;
}

template <class F>
void for_each_san(X509* x, F&& f) {
  general_names_ptr names(
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(x, NID_subject_alt_name, nullptr, nullptr)));
  ERR_clear_error();
  if (!names) return;
  for (int i = 0; i < sk_GENERAL_NAME_num(names.get()); ++i) f(sk_GENERAL_NAME_value(names.get(), i));
}

std::string ia5_to_string(const ASN1_IA5STRING* s) {
  return s ? std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                         static_cast<std::size_t>(ASN1_STRING_length(s)))
           : std::string();
}

}  // namespace

ua::expected<certificate> certificate::from_der(std::span<const std::uint8_t> der) {
  if (der.empty()) return ua::status::bad_certificate_invalid;
  const unsigned char* p = der.data();
  auto one = certificate_parser::parse_one(p, static_cast<long>(der.size()));
  if (!one || p != der.data() + der.size()) return ua::status::bad_certificate_invalid;
  certificate c;
  c.impl_ = std::move(one);
  return c;
}

namespace {

// The length of the DER element at the start of `in` (header and contents), read from its
// header alone: a SEQUENCE with a definite length of at most four bytes. 0 and `why` set when the
// header is not one or the element would not fit in `in`.
std::size_t der_sequence_size(std::span<const std::uint8_t> in, std::string& why) {
  if (in.size() < 2) {
    why = "a truncated ASN.1 header (" + std::to_string(in.size()) + " byte(s) left)";
    return 0;
  }
  if (in[0] != 0x30) {
    why = "not an ASN.1 SEQUENCE (tag 0x" + [](unsigned t) {
      char hex[3];
      std::snprintf(hex, sizeof hex, "%02X", t);
      return std::string(hex);
    }(in[0]) + ")";
    return 0;
  }
  std::size_t header = 2, length = in[1];
  if (length & 0x80) {
    const std::size_t n = length & 0x7F;
    if (n == 0) {
      why = "an indefinite length, which DER does not allow";
      return 0;
    }
    if (n > 4) {
      why = "a length of " + std::to_string(n) + " length bytes";
      return 0;
    }
    if (in.size() < 2 + n) {
      why = "a truncated ASN.1 length";
      return 0;
    }
    length = 0;
    for (std::size_t i = 0; i < n; ++i) length = (length << 8) | in[2 + i];
    header += n;
  }
  if (length > certificate::max_certificate_size) {
    why = "a certificate of " + std::to_string(length) + " bytes (at most " +
          std::to_string(certificate::max_certificate_size) + ")";
    return 0;
  }
  if (length > in.size() - header) {
    why = "a certificate of " + std::to_string(header + length) + " bytes where " + std::to_string(in.size()) +
          " are left (truncated, or a length that lies)";
    return 0;
  }
  return header + length;
}

}  // namespace

ua::expected<std::vector<certificate>> certificate::chain_from_der(std::span<const std::uint8_t> der,
                                                                   std::string* why) {
  std::string reason;
  auto refuse = [&](std::size_t index, std::string what) -> ua::expected<std::vector<certificate>> {
    if (why) *why = "certificate " + std::to_string(index + 1) + " of the chain: " + std::move(what);
    return ua::status::bad_certificate_invalid;
  };
  if (der.empty()) {
    if (why) *why = "no certificate (an empty ByteString)";
    return ua::status::bad_certificate_invalid;
  }
  std::vector<certificate> out;
  std::size_t at = 0;
  while (at < der.size()) {
    if (out.size() == max_chain_certificates)
      return refuse(out.size(), "more than " + std::to_string(max_chain_certificates) + " certificates");
    const auto rest = der.subspan(at);
    const std::size_t size = der_sequence_size(rest, reason);
    if (size == 0) return refuse(out.size(), reason + " at byte " + std::to_string(at));
    const unsigned char* p = rest.data();
    auto one = certificate_parser::parse_one(p, static_cast<long>(size));
    if (!one) return refuse(out.size(), "not an X.509 certificate with an RSA or EC key at byte " + std::to_string(at));
    if (p != rest.data() + size)
      return refuse(out.size(), "its DER ends before its ASN.1 length says, at byte " + std::to_string(at));
    certificate c;
    c.impl_ = std::move(one);
    out.push_back(std::move(c));
    at += size;
  }
  return out;
}

namespace {

// A certificate (chain) file's bytes. Certificates are a few KB; a larger file is not one.
ua::expected<std::vector<std::uint8_t>> read_certificate_file(const std::filesystem::path& file) {
  constexpr std::uintmax_t max_size = 1 << 20;
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) return ua::status::bad_not_found;
  if (size > max_size) return ua::status::bad_certificate_invalid;
  std::ifstream in(file, std::ios::binary);
  if (!in) return ua::status::bad_not_found;
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

ua::expected<std::vector<certificate>> certificate::chain_from_file(const std::filesystem::path& file) {
  const auto read = read_certificate_file(file);
  if (!read) return read.error();
  const std::vector<std::uint8_t>& bytes = *read;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (text.find("-----BEGIN") == std::string_view::npos) return chain_from_der(bytes);
  std::vector<certificate> out;
  bio_ptr bio(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())));
  while (bio) {
    x509_ptr x(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!x) break;
    if (out.size() == max_chain_certificates) return ua::status::bad_certificate_invalid;
    unsigned char* der = nullptr;
    const int len = i2d_X509(x.get(), &der);
    if (len <= 0) break;
    auto c = from_der({der, static_cast<std::size_t>(len)});
    OPENSSL_free(der);
    if (!c) return c.error();
    out.push_back(std::move(*c));
  }
  ERR_clear_error();  // the end of the PEM blocks reads as an error
  if (out.empty()) return ua::status::bad_certificate_invalid;
  return out;
}

std::vector<std::uint8_t> chain_der(const certificate& leaf, std::span<const certificate> issuers) {
  std::vector<std::uint8_t> out(leaf.der().begin(), leaf.der().end());
  for (const auto& c : issuers) out.insert(out.end(), c.der().begin(), c.der().end());
  return out;
}

ua::expected<certificate> certificate::from_file(const std::filesystem::path& file) {
  const auto read = read_certificate_file(file);
  if (!read) return read.error();
  const std::vector<std::uint8_t>& bytes = *read;
  // A chain file's leaf, DER as PEM: own/ may hold the issuers after it.
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (text.find("-----BEGIN") == std::string_view::npos) {
    auto chain = chain_from_der(bytes);
    if (!chain) return chain.error();
    return chain->front();
  }
  return from_der_or_pem(bytes);
}

ua::expected<certificate> certificate::from_der_or_pem(std::span<const std::uint8_t> bytes) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) return ua::status::bad_certificate_invalid;
  static constexpr std::string_view pem_begin = "-----BEGIN";
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (text.find(pem_begin) == std::string_view::npos) return from_der(bytes);
  bio_ptr bio(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())));
  x509_ptr x(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!x) {
    ERR_clear_error();
    return ua::status::bad_certificate_invalid;
  }
  unsigned char* der = nullptr;
  const int len = i2d_X509(x.get(), &der);
  if (len <= 0) {
    ERR_clear_error();
    return ua::status::bad_certificate_invalid;
  }
  auto c = from_der({der, static_cast<std::size_t>(len)});
  OPENSSL_free(der);
  return c;
}

std::span<const std::uint8_t> certificate::der() const noexcept {
  return impl_ ? std::span<const std::uint8_t>(impl_->der) : std::span<const std::uint8_t>();
}

std::array<std::uint8_t, 20> certificate::thumbprint() const noexcept {
  return impl_ ? impl_->thumbprint : std::array<std::uint8_t, 20>{};
}

std::string certificate::thumbprint_hex() const {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string out;
  for (auto b : thumbprint()) {
    out += digits[b >> 4];
    out += digits[b & 0xF];
  }
  return out;
}

const rsa_key& certificate::public_key() const noexcept {
  static const rsa_key none;
  return impl_ ? impl_->key : none;
}

std::size_t certificate::key_bits() const noexcept { return impl_ ? impl_->key.bits() : 0; }

std::string certificate::application_uri() const {
  std::string uri;
  if (!impl_) return uri;
  for_each_san(impl_->x509.get(), [&](const GENERAL_NAME* gn) {
    if (uri.empty() && gn->type == GEN_URI) uri = ia5_to_string(gn->d.uniformResourceIdentifier);
  });
  return uri;
}

std::vector<std::string> certificate::host_names() const {
  std::vector<std::string> out;
  if (!impl_) return out;
  for_each_san(impl_->x509.get(), [&](const GENERAL_NAME* gn) {
    if (gn->type == GEN_DNS) {
      out.push_back(ia5_to_string(gn->d.dNSName));
    } else if (gn->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* ip = gn->d.iPAddress;
      const int len = ASN1_STRING_length(ip);
      char text[INET6_ADDRSTRLEN] = {};
      if ((len == 4 || len == 16) &&
          inet_ntop(len == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(ip), text, sizeof text))
        out.emplace_back(text);
    }
  });
  return out;
}

std::string certificate::subject() const {
  return impl_ ? name_to_line(X509_get_subject_name(impl_->x509.get())) : std::string();
}

std::string certificate::issuer() const {
  return impl_ ? name_to_line(X509_get_issuer_name(impl_->x509.get())) : std::string();
}

std::string certificate::common_name() const {
  if (!impl_) return {};
  const X509_NAME* name = X509_get_subject_name(impl_->x509.get());
  const int i = X509_NAME_get_index_by_NID(name, NID_commonName, -1);
  if (i < 0) return {};
  const ASN1_STRING* s = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
  unsigned char* utf8 = nullptr;
  const int len = ASN1_STRING_to_UTF8(&utf8, s);
  if (len < 0) {
    ERR_clear_error();
    return {};
  }
  std::string out(reinterpret_cast<const char*>(utf8), static_cast<std::size_t>(len));
  OPENSSL_free(utf8);
  return out;
}

ua::date_time certificate::valid_from() const {
  return impl_ ? from_asn1_time(X509_get0_notBefore(impl_->x509.get())) : ua::date_time{};
}

ua::date_time certificate::valid_to() const {
  return impl_ ? from_asn1_time(X509_get0_notAfter(impl_->x509.get())) : ua::date_time{};
}

bool certificate::self_signed() const {
  if (!impl_) return false;
  const int r = X509_self_signed(impl_->x509.get(), 1);
  ERR_clear_error();
  return r == 1;
}

std::string certificate::describe() const {
  if (!impl_) return "(no certificate)";
  return "\"" + subject() + "\" [" + thumbprint_hex() + "] valid " + format_date_time(valid_from()) + " to " +
         format_date_time(valid_to());
}

X509* certificate::native() const noexcept { return impl_ ? impl_->x509.get() : nullptr; }

bool operator==(const certificate& a, const certificate& b) noexcept {
  const auto da = a.der();
  const auto db = b.der();
  return da.size() == db.size() && std::equal(da.begin(), da.end(), db.begin());
}

ua::expected<application_identity> create_self_signed(const certificate_request& request, ua::date_time now) {
  if (request.application_uri.empty() || request.common_name.empty()) return ua::status::bad_invalid_argument;
  auto key = request.curve.empty() ? rsa_key::generate(request.key_bits) : generate_ecc_key(request.curve);
  if (!key) return key.error();

  x509_ptr x(X509_new());
  if (!x) return ua::status::bad_out_of_memory;
  auto fail = [] {
    ERR_clear_error();
    return ua::status::bad_internal_error;
  };
  // Part 6 §6.2.2: version shall be V3 (the value 2).
  if (X509_set_version(x.get(), X509_VERSION_3) != 1) return fail();

  // A random positive serial of 16 bytes (RFC 5280 §4.1.2.2 allows up to 20 octets).
  std::array<std::uint8_t, 16> serial_bytes{};
  fill_random(serial_bytes);
  serial_bytes[0] &= 0x7F;
  serial_bytes[0] |= 0x01;  // no leading zero octet, so the encoding stays 16 bytes
  std::unique_ptr<BIGNUM, decltype(&BN_free)> bn(BN_bin2bn(serial_bytes.data(), serial_bytes.size(), nullptr),
                                                 &BN_free);
  if (!bn || !BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(x.get()))) return fail();

  // Part 6 §6.2.2: CommonName and Organization shall be specified.
  X509_NAME* name = X509_get_subject_name(x.get());
  auto add_entry = [&](const char* field, const std::string& value) {
    return X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(value.data()),
                                      static_cast<int>(value.size()), -1, 0) == 1;
  };
  if (!add_entry("CN", request.common_name)) return fail();
  if (!request.organization.empty() && !add_entry("O", request.organization)) return fail();
  if (X509_set_issuer_name(x.get(), name) != 1) return fail();

  const std::time_t start = to_time_t(now) - 3600;
  const std::time_t end = to_time_t(now) + static_cast<std::time_t>(request.validity.count()) * 3600;
  if (!ASN1_TIME_set(X509_getm_notBefore(x.get()), start) || !ASN1_TIME_set(X509_getm_notAfter(x.get()), end))
    return fail();
  if (X509_set_pubkey(x.get(), key->native()) != 1) return fail();

  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, x.get(), x.get(), nullptr, nullptr, 0);
  if (!add_extension(x.get(), &ctx, NID_basic_constraints, "critical,CA:FALSE") ||
      // An ECDSA key signs only: no keyEncipherment or dataEncipherment (Part 6 §6.2.2, ECC).
      !add_extension(x.get(), &ctx, NID_key_usage,
                     request.curve.empty()  // Ed25519 / Ed448 sign only too
                         ? "critical,digitalSignature,nonRepudiation,keyEncipherment,dataEncipherment,keyCertSign"
                         : "critical,digitalSignature,nonRepudiation,keyCertSign") ||
      !add_extension(x.get(), &ctx, NID_ext_key_usage, "serverAuth,clientAuth") ||
      !add_extension(x.get(), &ctx, NID_subject_key_identifier, "hash") ||
      // The subject key identifier must be in place before the authority key identifier copies it.
      !add_extension(x.get(), &ctx, NID_authority_key_identifier, "keyid:always"))
    return fail();

  // Part 6 §6.2.2: subjectAltName shall hold the applicationUri; servers add their host names.
  general_names_ptr san(GENERAL_NAMES_new());
  if (!san || !add_general_name(san.get(), GEN_URI, request.application_uri)) return fail();
  for (const auto& host : request.host_names) {
    if (host.empty()) continue;
    if (!add_general_name(san.get(), parses_as_ip(host) ? GEN_IPADD : GEN_DNS, host)) return fail();
  }
  if (X509_add1_ext_i2d(x.get(), NID_subject_alt_name, san.get(), 0, X509V3_ADD_DEFAULT) != 1) return fail();

  if (X509_sign(x.get(), key->native(), certificate_signature_digest(*key)) <= 0) return fail();

  unsigned char* der = nullptr;
  const int len = i2d_X509(x.get(), &der);
  if (len <= 0) return fail();
  auto cert = certificate::from_der({der, static_cast<std::size_t>(len)});
  OPENSSL_free(der);
  if (!cert) return cert.error();
  return application_identity{std::move(*cert), std::move(*key), {}};
}

ua::date_time system_now() {
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
  return ua::date_time::from_unix_ms(ms.count());
}

std::string format_date_time(ua::date_time t) {
  const std::time_t s = to_time_t(t);
  std::tm tm{};
  if (!gmtime_r(&s, &tm)) return "?";
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace uactor::security
