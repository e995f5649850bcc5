#include "security/pki_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <set>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "uactor/ua/status_codes.hpp"
#include "security/openssl.hpp"

namespace uactor::security {

namespace fs = std::filesystem;

namespace {

using x509_crl_ptr = std::unique_ptr<X509_CRL, decltype([](X509_CRL* c) { X509_CRL_free(c); })>;

// A folder holds a few certificates; these bounds keep a filled-up folder from stalling a channel.
constexpr std::size_t max_files_per_folder = 1000;
constexpr std::uintmax_t max_file_size = 1 << 20;
// Part 6 §6.7.2.3 chains are short; a longer one is refused as incomplete.
constexpr std::size_t max_chain_depth = 10;
// A hostile peer could send a new certificate per connection: rejected/ stops growing here.
constexpr std::size_t max_rejected_files = 1000;

std::optional<std::vector<std::uint8_t>> read_small_file(const fs::path& file) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec || size > max_file_size) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Writes through a temporary file and a rename, so that a reader (a running server, an operator's
// tool) never sees half a file.
ua::status_code write_file(const fs::path& file, std::span<const std::uint8_t> bytes, mode_t mode) {
  const fs::path tmp = file.parent_path() / ("." + file.filename().string() + ".tmp");
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return ua::status::bad_internal_error;
  std::size_t done = 0;
  while (done < bytes.size()) {
    const auto n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
      return ua::status::bad_internal_error;
    }
    done += static_cast<std::size_t>(n);
  }
  ::fchmod(fd, mode);  // O_CREAT's mode passes through the umask; the key must be 0600 exactly
  if (::close(fd) != 0 || ::rename(tmp.c_str(), file.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return ua::status::bad_internal_error;
  }
  return ua::status_code{};
}

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;  // our temporaries, editors' swap files
    if (!it->is_regular_file(ec)) continue;
    out.push_back(it->path());
    if (out.size() == max_files_per_folder) break;
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<certificate> load_certs(const fs::path& dir) {
  std::vector<certificate> out;
  for (const auto& f : files_in(dir))
    if (auto c = certificate::from_file(f)) out.push_back(std::move(*c));
  return out;
}

std::vector<x509_crl_ptr> load_crls(const fs::path& dir) {
  std::vector<x509_crl_ptr> out;
  for (const auto& f : files_in(dir)) {
    auto bytes = read_small_file(f);
    if (!bytes || bytes->empty()) continue;
    const unsigned char* p = bytes->data();
    x509_crl_ptr crl(d2i_X509_CRL(nullptr, &p, static_cast<long>(bytes->size())));
    if (!crl) {
      bio_ptr bio(BIO_new_mem_buf(bytes->data(), static_cast<int>(bytes->size())));
      if (bio) crl.reset(PEM_read_bio_X509_CRL(bio.get(), nullptr, nullptr, nullptr));
    }
    ERR_clear_error();
    if (crl) out.push_back(std::move(crl));
  }
  return out;
}

std::string to_upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string issuer_line(X509* x) {
  bio_ptr bio(BIO_new(BIO_s_mem()));
  if (!bio) return {};
  X509_NAME_print_ex(bio.get(), X509_get_issuer_name(x), 0,
                     (XN_FLAG_ONELINE & ~ASN1_STRFLGS_ESC_MSB) | XN_FLAG_SEP_CPLUS_SPC);
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio.get(), &data);
  return len > 0 ? std::string(data, static_cast<std::size_t>(len)) : std::string();
}

// An ASN.1 time as ISO 8601 UTC, for log lines.
std::string asn1_time_text(const ASN1_TIME* t) {
  std::tm tm{};
  if (!t || ASN1_TIME_to_tm(t, &tm) != 1) return "?";
  char text[32];
  return std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm) ? text : "?";
}

validation_result fail(ua::status_code status, std::string check, std::string detail) {
  return {status, std::move(check), std::move(detail)};
}

// One folder whose contents are cached until its modification time changes.
struct folder_stamp {
  fs::file_time_type mtime{};
  bool fresh = false;

  // True when the folder must be read (again). A folder that changed less than two seconds
  // before it was read may change again within the file system's timestamp granularity without
  // its mtime moving, so it stays "not fresh" until it has been quiet that long (as git does).
  bool stale(const fs::path& dir) const {
    std::error_code ec;
    const auto now = fs::last_write_time(dir, ec);
    return !fresh || ec || now != mtime;
  }
  void loaded(const fs::path& dir) {
    std::error_code ec;
    mtime = fs::last_write_time(dir, ec);
    fresh = !ec && fs::file_time_type::clock::now() - mtime > std::chrono::seconds(2);
  }
};

}  // namespace

validation_result check_host_name(const certificate& server, const std::string& host) {
  const int ip = X509_check_ip_asc(server.native(), host.c_str(), 0);
  const int r = ip >= 0 ? ip
                        : X509_check_host(server.native(), host.data(), host.size(),
                                          X509_CHECK_FLAG_NEVER_CHECK_SUBJECT, nullptr);
  ERR_clear_error();
  if (r == 1) return {ua::status::good, {}, {}};
  std::string names;
  for (const auto& n : server.host_names()) names += (names.empty() ? "" : ", ") + n;
  return fail(ua::status::bad_certificate_host_name_invalid, "host name",
              server.describe() + " names the hosts [" + names + "], not \"" + host + "\" of the endpoint URL");
}

struct pki_store::state {
  fs::path root;
  fs::path own_certs, own_private, trusted_certs, trusted_crl, issuers_certs, issuers_crl, rejected_certs;

  std::mutex mutex;  // guards everything below
  folder_stamp trusted_certs_stamp, trusted_crl_stamp, issuers_certs_stamp, issuers_crl_stamp;
  std::vector<certificate> trusted, issuers;
  std::set<std::array<std::uint8_t, 20>> trusted_thumbprints;
  std::vector<x509_crl_ptr> trusted_crls, issuer_crls;

  void refresh() {
    if (trusted_certs_stamp.stale(trusted_certs)) {
      trusted = load_certs(trusted_certs);
      trusted_thumbprints.clear();
      for (const auto& c : trusted) trusted_thumbprints.insert(c.thumbprint());
      trusted_certs_stamp.loaded(trusted_certs);
    }
    if (issuers_certs_stamp.stale(issuers_certs)) {
      issuers = load_certs(issuers_certs);
      issuers_certs_stamp.loaded(issuers_certs);
    }
    if (trusted_crl_stamp.stale(trusted_crl)) {
      trusted_crls = load_crls(trusted_crl);
      trusted_crl_stamp.loaded(trusted_crl);
    }
    if (issuers_crl_stamp.stale(issuers_crl)) {
      issuer_crls = load_crls(issuers_crl);
      issuers_crl_stamp.loaded(issuers_crl);
    }
  }

  bool is_trusted(const certificate& c) const { return trusted_thumbprints.count(c.thumbprint()) != 0; }

  validation_result check(const certificate& peer, std::span<const certificate> extra, const validation_options& o,
                          ua::date_time now) const;
};

namespace {

// The certificates that may have signed `child`: same name as its issuer (and matching key
// identifiers when both are present), checked by X509_check_issued.
bool may_have_issued(const certificate& candidate, const certificate& child) {
  const int r = X509_check_issued(candidate.native(), child.native());
  ERR_clear_error();
  // A CA whose keyUsage lacks keyCertSign is still the issuer by name; the usage check says so.
  return r == X509_V_OK || r == X509_V_ERR_KEYUSAGE_NO_CERTSIGN;
}

bool signed_by(const certificate& child, const certificate& issuer) {
  EVP_PKEY* key = X509_get0_pubkey(issuer.native());
  const int r = key ? X509_verify(child.native(), key) : 0;
  ERR_clear_error();
  return r == 1;
}

std::string trust_advice(const certificate& leaf) {
  return "; to trust it, move rejected/certs/" + pki_store::file_name_for(leaf) +
         " to trusted/certs/ (uactor certs trust " + leaf.thumbprint_hex() + ")";
}

}  // namespace

validation_result pki_store::state::check(const certificate& peer, std::span<const certificate> extra,
                                          const validation_options& o, ua::date_time now) const {
  // Certificate structure.
  if (!peer) return fail(ua::status::bad_certificate_invalid, "certificate structure", "no certificate");
  if (X509_get_version(peer.native()) != X509_VERSION_3)
    return fail(ua::status::bad_certificate_invalid, "certificate structure",
                peer.describe() + " is not an X.509 v3 certificate (Part 6 §6.2.2)");

  // Build certificate chain: trusted/ and issuers/ and what the peer sent complete it.
  std::vector<const certificate*> chain{&peer};
  while (chain.size() <= max_chain_depth) {
    const certificate& cur = *chain.back();
    if (X509_self_signed(cur.native(), 0) == 1) break;
    ERR_clear_error();
    const certificate* issuer = nullptr;
    bool name_matched = false;
    auto consider = [&](const certificate& cand) {
      if (issuer || !may_have_issued(cand, cur)) return;
      if (std::find_if(chain.begin(), chain.end(), [&](const certificate* c) { return *c == cand; }) != chain.end())
        return;
      name_matched = true;
      if (signed_by(cur, cand)) issuer = &cand;
    };
    for (const auto& c : trusted) consider(c);
    for (const auto& c : issuers) consider(c);
    for (const auto& c : extra) consider(c);
    if (!issuer && name_matched)
      // Signature: a certificate names an issuer we have, but that issuer's key did not sign it.
      return fail(ua::status::bad_security_checks_failed, "signature",
                  cur.describe() + ": the signature does not verify with the key of its issuer \"" +
                      issuer_line(cur.native()) + "\" (tampered, or another CA of the same name)");
    if (!issuer)
      return fail(ua::status::bad_certificate_chain_incomplete, "certificate chain",
                  cur.describe() + ": its issuer \"" + issuer_line(cur.native()) +
                      "\" is in neither trusted/certs nor issuers/certs; add the CA certificate to issuers/certs "
                      "(or to trusted/certs to trust every certificate it issues)");
    chain.push_back(issuer);
  }
  if (chain.size() > max_chain_depth)
    return fail(ua::status::bad_certificate_chain_incomplete, "certificate chain",
                peer.describe() + ": the chain is longer than " + std::to_string(max_chain_depth));

  // Signature of the root (links were verified while building the chain).
  if (!signed_by(*chain.back(), *chain.back()))
    return fail(ua::status::bad_security_checks_failed, "signature",
                chain.back()->describe() + ": its self-signature does not verify (tampered)");

  // Security policy check: the key size the policy allows.
  const auto bits = peer.key_bits();
  if (bits < o.min_key_bits || bits > o.max_key_bits)
    return fail(ua::status::bad_certificate_policy_check_failed, "key size",
                peer.describe() + " has a " + std::to_string(bits) + "-bit key; the security policy needs " +
                    std::to_string(o.min_key_bits) + " to " + std::to_string(o.max_key_bits) + " bits");

  // Security policy check: the signature's digest. Every policy uactor offers (Basic256Sha256,
  // Aes128_Sha256_RsaOaep, Aes256_Sha256_RsaPss; Part 7) asks for SHA-256 certificate signatures.
  {
    int md_nid = NID_undef, pk_nid = NID_undef;
    if (OBJ_find_sigid_algs(X509_get_signature_nid(peer.native()), &md_nid, &pk_nid) == 1 &&
        (md_nid == NID_sha1 || md_nid == NID_md5 || md_nid == NID_md5_sha1))
      return fail(ua::status::bad_certificate_policy_check_failed, "signature algorithm",
                  peer.describe() + " is signed with " + OBJ_nid2sn(md_nid) +
                      "; the security policy needs SHA-256 or stronger");
  }

  // Trust list check: the leaf itself, or a CA of its chain, is in trusted/certs.
  const bool trusted_chain =
      std::any_of(chain.begin(), chain.end(), [&](const certificate* c) { return is_trusted(*c); });
  if (!trusted_chain)
    return fail(ua::status::bad_certificate_untrusted, "trust list",
                peer.describe() + " (application uri \"" + peer.application_uri() + "\") is not trusted" +
                    trust_advice(peer));

  // Validity period, of the leaf and of each issuer.
  std::time_t t = static_cast<std::time_t>(now.to_unix_ms() / 1000);
  for (std::size_t i = 0; i < chain.size(); ++i) {
    X509* x = chain[i]->native();
    const bool not_yet = X509_cmp_time(X509_get0_notBefore(x), &t) > 0;
    const bool expired = X509_cmp_time(X509_get0_notAfter(x), &t) < 0;
    ERR_clear_error();
    if (!not_yet && !expired) continue;
    const std::string what = not_yet ? " is not valid yet" : " has expired";
    if (i == 0)
      return fail(ua::status::bad_certificate_time_invalid, "validity period",
                  chain[i]->describe() + what + " (now " + format_date_time(now) +
                      "); the peer needs a new certificate, or check the clocks");
    return fail(ua::status::bad_certificate_issuer_time_invalid, "validity period",
                "the issuer " + chain[i]->describe() + " of " + peer.describe() + what + " (now " +
                    format_date_time(now) + ")");
  }

  // Host name (the client's check of a server certificate; Part 4 §6.1.3).
  if (!o.expected_host_name.empty())
    if (auto host = check_host_name(peer, o.expected_host_name); !host.ok()) return host;

  // Application URI (the session's check; Part 4 §5.6.2).
  if (!o.expected_application_uri.empty() && peer.application_uri() != o.expected_application_uri)
    return fail(ua::status::bad_certificate_uri_invalid, "application uri",
                peer.describe() + " carries the application uri \"" + peer.application_uri() +
                    "\", the application says \"" + o.expected_application_uri + "\"");

  // Certificate usage.
  {
    X509* x = peer.native();
    const auto flags = X509_get_extension_flags(x);
    if ((flags & EXFLAG_KUSAGE) && !(X509_get_key_usage(x) & KU_DIGITAL_SIGNATURE))
      return fail(ua::status::bad_certificate_use_not_allowed, "key usage",
                  peer.describe() + ": keyUsage lacks digitalSignature");
    if ((flags & EXFLAG_XKUSAGE) && !(X509_get_extended_key_usage(x) & (XKU_SSL_SERVER | XKU_SSL_CLIENT)))
      return fail(ua::status::bad_certificate_use_not_allowed, "key usage",
                  peer.describe() + ": extendedKeyUsage has neither serverAuth nor clientAuth");
    if (chain.size() > 1 && (flags & EXFLAG_CA))
      return fail(ua::status::bad_certificate_use_not_allowed, "key usage",
                  peer.describe() + " is a CA certificate, not an application instance certificate");
    for (std::size_t i = 1; i < chain.size(); ++i) {
      X509* ca = chain[i]->native();
      const bool is_ca = X509_check_ca(ca) >= 1;
      const bool can_sign =
          !(X509_get_extension_flags(ca) & EXFLAG_KUSAGE) || (X509_get_key_usage(ca) & KU_KEY_CERT_SIGN);
      if (!is_ca || !can_sign)
        return fail(ua::status::bad_certificate_issuer_use_not_allowed, "key usage",
                    "the issuer " + chain[i]->describe() + " of " + peer.describe() +
                        " may not sign certificates (basicConstraints CA or keyUsage keyCertSign missing)");
    }
  }

  // Find revocation list, revocation check: each CA-issued certificate of the chain.
  if (o.check_revocation) {
    for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
      const certificate& issuer = *chain[i + 1];
      // A CRL past its nextUpdate says nothing about the present (RFC 5280 §5.1.2.5): one that is
      // current is preferred, and with only outdated ones the revocation state is unknown.
      X509_CRL* found = nullptr;
      X509_CRL* outdated = nullptr;
      auto consider = [&](const x509_crl_ptr& crl) {
        if (found || X509_NAME_cmp(X509_CRL_get_issuer(crl.get()), X509_get_subject_name(issuer.native())) != 0)
          return;
        EVP_PKEY* key = X509_get0_pubkey(issuer.native());
        if (key && X509_CRL_verify(crl.get(), key) == 1) {
          const ASN1_TIME* next = X509_CRL_get0_nextUpdate(crl.get());
          (next && X509_cmp_time(next, &t) < 0 ? outdated : found) = crl.get();
        }
        ERR_clear_error();
      };
      for (const auto& c : trusted_crls) consider(c);
      for (const auto& c : issuer_crls) consider(c);
      const auto unknown =
          i == 0 ? ua::status::bad_certificate_revocation_unknown : ua::status::bad_certificate_issuer_revocation_unknown;
      if (!found && outdated)
        return fail(unknown, "revocation list",
                    "the CRL of " + issuer.describe() + " for " + chain[i]->describe() + " is out of date (nextUpdate " +
                        asn1_time_text(X509_CRL_get0_nextUpdate(outdated)) + ", now " + format_date_time(now) +
                        "); publish the CA's current CRL into trusted/crl or issuers/crl");
      if (!found)
        return fail(unknown, "revocation list",
                    "no CRL of " + issuer.describe() + " in trusted/crl or issuers/crl for " + chain[i]->describe() +
                        "; add the CA's CRL (an empty one when nothing is revoked)");
      X509_REVOKED* entry = nullptr;
      const int r = X509_CRL_get0_by_cert(found, &entry, chain[i]->native());
      ERR_clear_error();
      // 2 is a removeFromCRL entry (delta CRLs): not revoked.
      if (r == 1)
        return fail(i == 0 ? ua::status::bad_certificate_revoked : ua::status::bad_certificate_issuer_revoked,
                    "revocation", chain[i]->describe() + " is revoked by the CRL of " + issuer.describe());
    }
  }
  return {};
}

pki_store::pki_store(fs::path root) : state_(std::make_unique<state>()) {
  auto& s = *state_;
  s.root = std::move(root);
  s.own_certs = s.root / "own" / "certs";
  s.own_private = s.root / "own" / "private";
  s.trusted_certs = s.root / "trusted" / "certs";
  s.trusted_crl = s.root / "trusted" / "crl";
  s.issuers_certs = s.root / "issuers" / "certs";
  s.issuers_crl = s.root / "issuers" / "crl";
  s.rejected_certs = s.root / "rejected" / "certs";
  for (const auto* dir : {&s.own_certs, &s.own_private, &s.trusted_certs, &s.trusted_crl, &s.issuers_certs,
                          &s.issuers_crl, &s.rejected_certs})
    fs::create_directories(*dir);
  fs::permissions(s.own_private, fs::perms::owner_all, fs::perm_options::replace);
}

pki_store::~pki_store() = default;

const fs::path& pki_store::root() const noexcept { return state_->root; }

std::string pki_store::file_name_for(const certificate& cert) {
  // The common name, kept readable and safe as a file name.
  std::string cn = cert.common_name();
  if (cn.size() > 64) cn.resize(64);
  for (auto& c : cn) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F || c == '/' || c == '\\' || c == '[' || c == ']') c = '_';
  }
  if (cn.empty() || cn[0] == '.') cn.insert(cn.begin(), '_');
  return cn + "[" + cert.thumbprint_hex() + "].der";
}

std::string default_pki_dir() {
  const char* env = std::getenv("UACTOR_PKI");
  return env && *env ? env : "./pki";
}

namespace {

// A folder the store needs: there as a folder (writable when `write`), or creatable (its nearest
// existing ancestor a writable folder). Empty when fine, else why not.
std::string folder_problem(const fs::path& dir, bool write) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) return dir.string() + " is not a folder";
    if (write && ::access(dir.c_str(), W_OK | X_OK) != 0) return dir.string() + ": " + std::strerror(errno);
    return {};
  }
  fs::path up = dir.parent_path();
  while (!up.empty() && !fs::exists(up, ec)) up = up.parent_path();
  if (up.empty()) up = ".";
  if (!fs::is_directory(up, ec)) return "cannot create " + dir.string() + ": " + up.string() + " is not a folder";
  if (::access(up.c_str(), W_OK | X_OK) != 0) return "cannot create " + dir.string() + ": " + std::strerror(errno);
  return {};
}

}  // namespace

std::string own_identity_problem(const fs::path& root, std::string_view name) {
  const fs::path own_certs = root / "own" / "certs", own_private = root / "own" / "private";
  const fs::path cert_file = own_certs / (std::string(name) + ".der");
  const fs::path key_file = own_private / (std::string(name) + ".pem");
  std::error_code ec;
  const bool have_cert = fs::exists(cert_file, ec), have_key = fs::exists(key_file, ec);
  const bool create = !have_cert && !have_key;
  for (const auto& dir : {own_certs, own_private, root / "trusted" / "certs", root / "trusted" / "crl",
                          root / "issuers" / "certs", root / "issuers" / "crl", root / "rejected" / "certs"})
    if (auto why = folder_problem(dir, create && dir.parent_path() == root / "own"); !why.empty()) return why;
  if (create) return {};
  // As load_or_create_own: one without the other is an operator's half-finished change.
  if (!have_key) return cert_file.string() + " is there without its key " + key_file.string();
  if (!have_cert) return key_file.string() + " is there without its certificate " + cert_file.string();
  const auto chain = certificate::chain_from_file(cert_file);
  if (!chain) return "cannot read a certificate from " + cert_file.string();
  const auto pem = read_small_file(key_file);
  if (!pem) return "cannot read " + key_file.string();
  const auto key = rsa_key::from_private_pem({reinterpret_cast<const char*>(pem->data()), pem->size()});
  if (!key) return "cannot read a PEM private key from " + key_file.string();
  const int same = EVP_PKEY_eq(chain->front().public_key().native(), key->native());
  ERR_clear_error();
  if (same != 1) return cert_file.string() + " and " + key_file.string() + " do not belong together";
  return {};
}

ua::expected<application_identity> pki_store::load_or_create_own(const certificate_request& request,
                                                                 std::string_view name) {
  if (name.empty() || name.find('/') != std::string_view::npos || name[0] == '.')
    return ua::status::bad_invalid_argument;
  auto& s = *state_;
  std::lock_guard lock(s.mutex);
  // Processes sharing the store (servers started side by side on first use) must not interleave
  // their key and certificate files: an exclusive lock on own/ while looking and creating.
  struct own_lock {
    int fd;
    explicit own_lock(const fs::path& file) : fd(::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
      if (fd >= 0) ::flock(fd, LOCK_EX);
    }
    ~own_lock() {
      if (fd >= 0) ::close(fd);  // releases the lock
    }
  } file_lock(s.own_certs.parent_path() / ".lock");
  const fs::path cert_file = s.own_certs / (std::string(name) + ".der");
  const fs::path key_file = s.own_private / (std::string(name) + ".pem");
  std::error_code ec;
  const bool have_cert = fs::exists(cert_file, ec);
  const bool have_key = fs::exists(key_file, ec);
  if (have_cert && have_key) {
    // The certificate file may hold the issuers after the leaf, which are then sent with it.
    auto chain = certificate::chain_from_file(cert_file);
    if (!chain) return chain.error();
    auto* cert = &chain->front();
    auto pem = read_small_file(key_file);
    if (!pem) return ua::status::bad_not_found;
    auto key = rsa_key::from_private_pem({reinterpret_cast<const char*>(pem->data()), pem->size()});
    if (!key) return ua::status::bad_certificate_invalid;
    const int same = EVP_PKEY_eq(cert->public_key().native(), key->native());
    ERR_clear_error();
    if (same != 1) return ua::status::bad_certificate_invalid;
    application_identity id{std::move(*cert), std::move(*key), {}};
    id.issuers.assign(std::make_move_iterator(chain->begin() + 1), std::make_move_iterator(chain->end()));
    return id;
  }
  // One without the other: an operator's half-finished change; never overwrite their key.
  if (have_cert || have_key) return ua::status::bad_certificate_invalid;
  auto id = create_self_signed(request, system_now());
  if (!id) return id.error();
  const std::string pem = id->private_key.to_private_pem();
  if (auto sc = write_file(key_file, {reinterpret_cast<const std::uint8_t*>(pem.data()), pem.size()}, 0600);
      sc.is_bad())
    return sc;
  if (auto sc = write_file(cert_file, id->cert.der(), 0644); sc.is_bad()) return sc;
  return id;
}

validation_result pki_store::validate(const certificate& peer, const validation_options& options,
                                      ua::date_time now) {
  return validate(peer, {}, options, now);
}

validation_result pki_store::validate(const certificate& peer, std::span<const certificate> chain,
                                      const validation_options& options, ua::date_time now) {
  auto& s = *state_;
  std::lock_guard lock(s.mutex);
  s.refresh();
  auto result = s.check(peer, chain, options, now);
  // Copy to rejected/ what the operator could decide to trust: not garbage, and not a
  // certificate that is trusted already and failed another check (expired, wrong URI).
  if (!result.ok() && peer && !s.is_trusted(peer)) {
    const fs::path file = s.rejected_certs / file_name_for(peer);
    std::error_code ec;
    if (!fs::exists(file, ec) && files_in(s.rejected_certs).size() < max_rejected_files)
      write_file(file, peer.der(), 0644);
  }
  return result;
}

namespace {

fs::path folder_dir(const fs::path& root, std::string_view folder) {
  if (folder == "own") return root / "own" / "certs";
  if (folder == "trusted" || folder == "rejected" || folder == "issuers") return root / folder / "certs";
  return {};
}

}  // namespace

fs::path pki_store::find(std::string_view folder, std::string_view thumbprint_hex) const {
  const fs::path dir = folder_dir(state_->root, folder);
  if (dir.empty() || thumbprint_hex.empty()) return {};
  const std::string want = to_upper(thumbprint_hex);
  for (const auto& f : files_in(dir)) {
    auto c = certificate::from_file(f);
    if (c && c->thumbprint_hex() == want) return f;
  }
  return {};
}

ua::status_code pki_store::trust(const certificate& cert) {
  if (!cert) return ua::status::bad_certificate_invalid;
  auto& s = *state_;
  std::lock_guard lock(s.mutex);
  if (auto sc = write_file(s.trusted_certs / file_name_for(cert), cert.der(), 0644); sc.is_bad()) return sc;
  for (const auto& f : files_in(s.rejected_certs))
    if (auto c = certificate::from_file(f); c && *c == cert) fs::remove(f);
  s.trusted_certs_stamp.fresh = false;
  return {};
}

ua::status_code pki_store::reject(const certificate& cert) {
  if (!cert) return ua::status::bad_certificate_invalid;
  auto& s = *state_;
  std::lock_guard lock(s.mutex);
  if (auto sc = write_file(s.rejected_certs / file_name_for(cert), cert.der(), 0644); sc.is_bad()) return sc;
  for (const auto& f : files_in(s.trusted_certs))
    if (auto c = certificate::from_file(f); c && *c == cert) fs::remove(f);
  s.trusted_certs_stamp.fresh = false;
  return {};
}

std::vector<certificate> pki_store::list(std::string_view folder) const {
  const fs::path dir = folder_dir(state_->root, folder);
  return dir.empty() ? std::vector<certificate>{} : load_certs(dir);
}

}  // namespace uactor::security
