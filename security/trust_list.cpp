// Part 12 §7.8.2: the trust list over the PKI folders (trust_list.hpp).
#include "security/trust_list.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "security/certificate.hpp"
#include "security/openssl.hpp"
#include "security/pki_store.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::security {

namespace fs = std::filesystem;

namespace {

using trust_crl_ptr = std::unique_ptr<X509_CRL, detail::openssl_deleter<X509_CRL, X509_CRL_free>>;
constexpr std::size_t trust_file_limit = 4u << 20;  // a CRL of a large CA; certificates are far smaller
constexpr std::size_t trust_folder_limit = 10'000;

std::vector<fs::path> trust_files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;  // temporaries (ours below), editors' files
    if (!it->is_regular_file(ec)) continue;
    out.push_back(it->path());
    if (out.size() == trust_folder_limit) break;
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool trust_read_file(const fs::path& f, der_bytes& out) {
  std::error_code ec;
  const auto size = fs::file_size(f, ec);
  if (ec || size > trust_file_limit) return false;
  std::ifstream in(f, std::ios::binary);
  out.assign(std::istreambuf_iterator<char>(in), {});
  return static_cast<bool>(in) || in.eof();
}

// One CRL, DER or PEM; null when it is neither (or followed by stray bytes, for DER).
trust_crl_ptr parse_crl(std::span<const std::uint8_t> bytes) {
  if (bytes.empty() || bytes.size() > trust_file_limit) return nullptr;
  const unsigned char* p = bytes.data();
  trust_crl_ptr crl(d2i_X509_CRL(nullptr, &p, static_cast<long>(bytes.size())));
  if (crl && p != bytes.data() + bytes.size()) crl.reset();
  if (!crl) {
    bio_ptr bio(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())));
    if (bio) crl.reset(PEM_read_bio_X509_CRL(bio.get(), nullptr, nullptr, nullptr));
  }
  ERR_clear_error();
  return crl;
}

der_bytes crl_der(X509_CRL* crl) {
  const int n = i2d_X509_CRL(crl, nullptr);
  if (n <= 0) return {};
  der_bytes out(static_cast<std::size_t>(n));
  unsigned char* p = out.data();
  i2d_X509_CRL(crl, &p);
  return out;
}

std::string sha1_hex(std::span<const std::uint8_t> bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(bytes.data(), bytes.size(), md, &n, EVP_sha1(), nullptr);
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned int i = 0; i < n; ++i) {
    out.push_back(digits[md[i] >> 4]);
    out.push_back(digits[md[i] & 15]);
  }
  return out;
}

std::vector<der_bytes> read_certificates(const fs::path& dir) {
  std::vector<der_bytes> out;
  for (const auto& f : trust_files_in(dir))
    if (auto c = certificate::from_file(f)) out.emplace_back(c->der().begin(), c->der().end());
  return out;
}

std::vector<der_bytes> read_crls(const fs::path& dir) {
  std::vector<der_bytes> out;
  der_bytes bytes;
  for (const auto& f : trust_files_in(dir))
    if (trust_read_file(f, bytes))
      if (auto crl = parse_crl(bytes)) out.push_back(crl_der(crl.get()));
  return out;
}

// The file name a certificate or CRL gets in its folder.
std::string entry_name(std::span<const std::uint8_t> der, bool is_crl) {
  if (!is_crl)
    if (auto c = certificate::from_der(der)) return pki_store::file_name_for(*c);
  return sha1_hex(der) + (is_crl ? ".crl" : ".der");
}

bool trust_write_file(const fs::path& f, std::span<const std::uint8_t> bytes) {
  std::ofstream out(f, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  return static_cast<bool>(out);
}

// Replaces every file of `dir` by `entries`: written as ".new-<name>" first; only when all are
// written do the old files go and the new ones take their names.
ua::status_code replace_folder(const fs::path& dir, const std::vector<der_bytes>& entries, bool is_crl) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::vector<std::pair<fs::path, fs::path>> staged;
  for (const auto& e : entries) {
    const std::string name = entry_name(e, is_crl);
    const fs::path tmp = dir / (".new-" + name);
    if (!trust_write_file(tmp, e)) {
      for (const auto& s : staged) fs::remove(s.first, ec);
      fs::remove(tmp, ec);
      return ua::status::bad_internal_error;
    }
    staged.emplace_back(tmp, dir / name);
  }
  for (const auto& old : trust_files_in(dir)) fs::remove(old, ec);
  for (const auto& [tmp, final_name] : staged) fs::rename(tmp, final_name, ec);
  return ec ? ua::status::bad_internal_error : ua::status::good;
}

}  // namespace

std::size_t trust_list_contents::byte_size() const noexcept {
  std::size_t n = 0;
  for (const auto* list : {&trusted_certificates, &trusted_crls, &issuer_certificates, &issuer_crls})
    for (const auto& e : *list) n += e.size();
  return n;
}

trust_list_contents read_trust_list(const fs::path& root, std::uint32_t masks) {
  trust_list_contents out;
  out.specified_lists = masks & trust_masks::all;
  if (masks & trust_masks::trusted_certificates) out.trusted_certificates = read_certificates(root / "trusted" / "certs");
  if (masks & trust_masks::trusted_crls) out.trusted_crls = read_crls(root / "trusted" / "crl");
  if (masks & trust_masks::issuer_certificates) out.issuer_certificates = read_certificates(root / "issuers" / "certs");
  if (masks & trust_masks::issuer_crls) out.issuer_crls = read_crls(root / "issuers" / "crl");
  return out;
}

ua::status_code check_trust_list(const trust_list_contents& lists, std::string* why, std::size_t max_entries) {
  const auto refuse = [why](std::string text) {
    if (why) *why = std::move(text);
    return ua::status::bad_certificate_invalid;
  };
  if (lists.specified_lists & ~trust_masks::all) return refuse("SpecifiedLists has bits beyond the four lists");
  const struct {
    const std::vector<der_bytes>* list;
    const char* name;
    bool crl;
  } all[] = {{&lists.trusted_certificates, "TrustedCertificates", false},
             {&lists.trusted_crls, "TrustedCrls", true},
             {&lists.issuer_certificates, "IssuerCertificates", false},
             {&lists.issuer_crls, "IssuerCrls", true}};
  for (const auto& l : all) {
    if (l.list->size() > max_entries)
      return refuse(std::string(l.name) + " holds more than " + std::to_string(max_entries) + " entries");
    for (std::size_t i = 0; i < l.list->size(); ++i) {
      const auto& e = (*l.list)[i];
      const bool ok = l.crl ? parse_crl(e) != nullptr : certificate::from_der(e).has_value();
      if (!ok) return refuse(std::string(l.name) + "[" + std::to_string(i) + "] is not a " + (l.crl ? "CRL" : "certificate"));
    }
  }
  return ua::status::good;
}

ua::status_code write_trust_list(const fs::path& root, const trust_list_contents& lists) {
  if (const auto sc = check_trust_list(lists); sc.is_bad()) return sc;
  const std::uint32_t m = lists.specified_lists;
  ua::status_code sc = ua::status::good;
  if (m & trust_masks::trusted_certificates) sc = replace_folder(root / "trusted" / "certs", lists.trusted_certificates, false);
  if (sc.is_good() && (m & trust_masks::trusted_crls)) sc = replace_folder(root / "trusted" / "crl", lists.trusted_crls, true);
  if (sc.is_good() && (m & trust_masks::issuer_certificates))
    sc = replace_folder(root / "issuers" / "certs", lists.issuer_certificates, false);
  if (sc.is_good() && (m & trust_masks::issuer_crls)) sc = replace_folder(root / "issuers" / "crl", lists.issuer_crls, true);
  return sc;
}

ua::status_code add_to_trust_list(const fs::path& root, std::span<const std::uint8_t> der, bool trusted) {
  const auto cert = certificate::from_der(der);
  if (!cert) return ua::status::bad_certificate_invalid;
  const fs::path dir = root / (trusted ? "trusted" : "issuers") / "certs";
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string name = pki_store::file_name_for(*cert);
  const fs::path tmp = dir / (".new-" + name);
  if (!trust_write_file(tmp, cert->der())) return ua::status::bad_internal_error;
  fs::rename(tmp, dir / name, ec);
  return ec ? ua::status::bad_internal_error : ua::status::good;
}

ua::status_code remove_from_trust_list(const fs::path& root, std::string_view thumbprint_hex, bool trusted) {
  std::string wanted(thumbprint_hex);
  for (auto& c : wanted) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const fs::path base = root / (trusted ? "trusted" : "issuers");
  std::error_code ec;
  for (const auto& f : trust_files_in(base / "certs")) {
    const auto cert = certificate::from_file(f);
    if (!cert || cert->thumbprint_hex() != wanted) continue;
    // The CRLs this certificate issued go with it (Part 12 §7.8.2.5).
    der_bytes bytes;
    for (const auto& c : trust_files_in(base / "crl")) {
      if (!trust_read_file(c, bytes)) continue;
      const auto crl = parse_crl(bytes);
      if (crl && X509_NAME_cmp(X509_CRL_get_issuer(crl.get()), X509_get_subject_name(cert->native())) == 0)
        fs::remove(c, ec);
    }
    fs::remove(f, ec);
    return ec ? ua::status::bad_internal_error : ua::status::good;
  }
  return ua::status::bad_invalid_argument;
}

std::vector<der_bytes> rejected_certificates(const fs::path& root, std::size_t max) {
  auto all = read_certificates(root / "rejected" / "certs");
  if (all.size() > max) all.resize(max);
  return all;
}

}  // namespace uactor::security
