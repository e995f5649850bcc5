// `uactor certs`: see certs_cli.hpp.
#include "cli/certs_cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "uactor/server_plan.hpp"
#include "security/certificate.hpp"
#include "security/ecc.hpp"
#include "security/policy.hpp"
#include "security/pki_store.hpp"

namespace uactor::app {

namespace {

constexpr int exit_good = 0;
constexpr int exit_bad = 1;
constexpr int exit_usage = 2;

[[noreturn]] void finish(int code) { throw CLI::RuntimeError(code); }

[[noreturn]] void fail(int code, const std::string& message) {
  std::fprintf(stderr, "uactor certs: %s\n", message.c_str());
  finish(code);
}

struct certs_args {
  std::string pki;
  std::string uri;
  std::vector<std::string> hosts;
  std::string name = "uactor";
  unsigned key_bits = 2048;
  std::string curve;   // create: an ECC certificate on this curve (nistP256, ... as Part 7 names them)
  std::string target;  // trust/reject: FILE or THUMBPRINT
};

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 && name[0] ? name : "localhost";
}

// The store, or exit 1 when its folders cannot be made.
std::unique_ptr<security::pki_store> open_store(const certs_args& a) {
  const std::filesystem::path root = a.pki.empty() ? std::filesystem::path(default_pki_dir()) : std::filesystem::path(a.pki);
  try {
    return std::make_unique<security::pki_store>(root);
  } catch (const std::exception& e) {
    fail(exit_bad, "cannot use the PKI folder " + root.string() + ": " + e.what());
  }
}

std::string line_for(const security::certificate& c, ua::date_time now) {
  std::string state;
  if (c.valid_to() < now) state = "  EXPIRED";
  else if (now < c.valid_from()) state = "  NOT YET VALID";
  const auto uri = c.application_uri();
  return "  " + c.thumbprint_hex() + "  " + c.subject() + "\n      valid " + security::format_date_time(c.valid_from()) +
         " to " + security::format_date_time(c.valid_to()) + state + (uri.empty() ? "" : "\n      uri " + uri) +
         "\n";
}

int run_create(const certs_args& a) {
  auto store = open_store(a);
  security::certificate_request r;
  const auto host = host_name();
  r.application_uri = a.uri.empty() ? "urn:" + host + ":uactor:server" : a.uri;
  r.host_names = a.hosts.empty() ? std::vector<std::string>{host} : a.hosts;
  r.key_bits = a.key_bits;
  std::string name = a.name;
  if (!a.curve.empty()) {
    // The certificate of an ECC policy (Part 6 §6.8), where `uactor run` looks for it: the name
    // the policy of that curve gives (uactor-ecc-nistP256 ...) unless --name says otherwise.
    const security::security_policy* policy = nullptr;
    for (const auto& p : security::all_policies())
      if (p.is_ecc() && security::curve_label(p.curve) == a.curve) policy = &p;
    if (!policy) fail(exit_usage, "--curve: expected nistP256, nistP384, brainpoolP256r1, brainpoolP384r1, curve25519 or curve448");
    r.curve = std::string(policy->curve);
    if (name == "uactor" || name == "uactor-client") name = security::own_identity_name(name, *policy);
  }
  const auto cert_file = store->root() / "own" / "certs" / (name + ".der");
  const bool existed = std::filesystem::exists(cert_file);
  auto id = store->load_or_create_own(r, name);
  if (!id) {
    if (id.error() == ua::status::bad_invalid_argument)
      fail(exit_usage, "cannot create a certificate with these options (" + id.error().to_string() + ")");
    fail(exit_bad, "own certificate in " + (store->root() / "own").string() + ": " + id.error().to_string() +
                       " (a certificate without its key, or a key that does not match it?)");
  }
  std::printf("%s %s\n", existed ? "exists " : "created", cert_file.c_str());
  std::printf("  private key %s\n", (store->root() / "own" / "private" / (name + ".pem")).c_str());
  std::printf("%s", line_for(id->cert, security::system_now()).c_str());
  if (existed && (!a.uri.empty() || !a.hosts.empty()))
    std::printf("  (kept as it is; remove both files to create a new one with other names)\n");
  return exit_good;
}

int run_list(const certs_args& a) {
  auto store = open_store(a);
  const auto now = security::system_now();
  std::printf("PKI %s\n", store->root().c_str());
  for (const char* folder : {"own", "trusted", "issuers", "rejected"}) {
    const auto certs = store->list(folder);
    std::printf("%s (%zu)\n", folder, certs.size());
    for (const auto& c : certs) std::printf("%s", line_for(c, now).c_str());
  }
  return exit_good;
}

bool looks_like_thumbprint(const std::string& s) {
  return s.size() >= 6 && s.size() <= 40 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}

// The certificate a trust/reject names: a file, else a unique thumbprint (or prefix) in `folders`.
security::certificate resolve(security::pki_store& store, const std::string& target,
                              std::initializer_list<const char*> folders) {
  if (target.empty()) fail(exit_usage, "give a certificate file or a thumbprint");
  if (std::filesystem::exists(target)) {
    auto c = security::certificate::from_file(target);
    if (!c) fail(exit_bad, target + " does not hold a certificate (" + c.error().to_string() + ")");
    return *c;
  }
  if (!looks_like_thumbprint(target))
    fail(exit_usage, target + " is neither a file nor a thumbprint (6 to 40 hex digits)");
  std::string want = target;
  for (auto& ch : want) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  std::vector<security::certificate> found;
  for (const char* folder : folders)
    for (auto& c : store.list(folder))
      if (c.thumbprint_hex().rfind(want, 0) == 0 &&
          std::none_of(found.begin(), found.end(), [&](const auto& f) { return f == c; }))
        found.push_back(std::move(c));
  if (found.empty()) {
    std::string where;
    for (const char* folder : folders) where += (where.empty() ? "" : " or ") + std::string(folder) + "/certs";
    fail(exit_bad, "no certificate with thumbprint " + want + " in " + where + " (uactor certs list shows them)");
  }
  if (found.size() > 1) fail(exit_usage, "thumbprint " + want + " is ambiguous: give more digits");
  return found.front();
}

int run_trust(const certs_args& a) {
  auto store = open_store(a);
  const auto cert = resolve(*store, a.target, {"rejected"});
  if (const auto sc = store->trust(cert); sc.is_bad()) fail(exit_bad, "cannot write to trusted/certs: " + sc.to_string());
  std::printf("trusted %s\n  %s\n", cert.describe().c_str(),
              (store->root() / "trusted" / "certs" / security::pki_store::file_name_for(cert)).c_str());
  return exit_good;
}

int run_reject(const certs_args& a) {
  auto store = open_store(a);
  const auto cert = resolve(*store, a.target, {"trusted", "rejected"});
  if (const auto sc = store->reject(cert); sc.is_bad()) fail(exit_bad, "cannot write to rejected/certs: " + sc.to_string());
  std::printf("rejected %s\n  %s\n", cert.describe().c_str(),
              (store->root() / "rejected" / "certs" / security::pki_store::file_name_for(cert)).c_str());
  return exit_good;
}

void add_pki_option(CLI::App* cmd, certs_args& a) {
  cmd->add_option("--pki", a.pki, "the PKI folder (default: $UACTOR_PKI, else ./pki)");
  // Unknown options and extra arguments are collected, so that they end with our usage code
  // (2) instead of CLI11's own (109).
  cmd->allow_extras();
}

void refuse_extras(const CLI::App* cmd) {
  const auto extra = cmd->remaining();
  if (!extra.empty()) fail(exit_usage, cmd->get_name() + ": unexpected argument " + extra.front() + " (see --help)");
}

}  // namespace

void add_certs_commands(CLI::App& app) {
  auto a = std::make_shared<certs_args>();
  auto* certs = app.add_subcommand(
      "certs", "the PKI folder (node-opcua's layout): create the own certificate, list, trust, reject");
  certs->footer(
      "The PKI folder: --pki DIR, else $UACTOR_PKI, else ./pki (the server's default too).\n"
      "Exit status: 0 done, 1 failed, 2 usage error.");
  certs->callback([certs] {
    if (certs->get_subcommands().empty()) fail(exit_usage, "give a command: create, list, trust or reject (see --help)");
  });

  auto* create = certs->add_subcommand("create", "create own/certs/NAME.der and own/private/NAME.pem if missing");
  add_pki_option(create, *a);
  create->add_option("--uri", a->uri, "ApplicationUri in subjectAltName (default: urn:<host name>:uactor:server)");
  create->add_option("--host", a->hosts, "a DNS name or IP address for subjectAltName (repeat; default: the host name)");
  create->add_option("--name", a->name, "file name of the certificate and key (default: uactor)");
  create->add_option("--key-bits", a->key_bits, "RSA key size (default: 2048)")->check(CLI::IsMember({2048, 3072, 4096}));
  create->add_option("--curve", a->curve,
                     "an ECC certificate on this curve instead of RSA: nistP256, nistP384, brainpoolP256r1, "
                     "brainpoolP384r1, curve25519, curve448 (NAME then defaults to uactor-ecc-CURVE, what the ECC policies use)");
  create->callback([a, create] {
    refuse_extras(create);
    finish(run_create(*a));
  });

  auto* list = certs->add_subcommand("list", "each folder's certificates: thumbprint, subject, validity, URI");
  add_pki_option(list, *a);
  list->callback([a, list] {
    refuse_extras(list);
    finish(run_list(*a));
  });

  auto* trust = certs->add_subcommand(
      "trust", "trust a certificate: a FILE, or the THUMBPRINT (or a unique prefix) of one in rejected/certs");
  add_pki_option(trust, *a);
  trust->add_option("certificate", a->target, "FILE or THUMBPRINT");
  trust->callback([a, trust] {
    refuse_extras(trust);
    finish(run_trust(*a));
  });

  auto* reject = certs->add_subcommand(
      "reject", "stop trusting a certificate: a FILE, or the THUMBPRINT of one in trusted/certs");
  add_pki_option(reject, *a);
  reject->add_option("certificate", a->target, "FILE or THUMBPRINT");
  reject->callback([a, reject] {
    refuse_extras(reject);
    finish(run_reject(*a));
  });
}

}  // namespace uactor::app
