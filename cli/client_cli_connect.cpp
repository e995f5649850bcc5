// How the client commands of the `uactor` CLI reach a server: the security and identity flags,
// choosing the endpoint, the password, the refusal of an untrusted server certificate, and the
// `endpoints` command that shows what a server offers.
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli/client_cli_internal.hpp"
#include "cli/client_cli_output.hpp"
#include "security/certificate.hpp"
#include "security/ecc.hpp"
#include "security/keys.hpp"
#include "security/pki_store.hpp"
#include "security/policy.hpp"
#include "uactor/client.hpp"

namespace uactor::app::client_cli {

namespace {

std::string_view mode_name(ua::message_security_mode m) {
  switch (m) {
    case ua::message_security_mode::none: return "None";
    case ua::message_security_mode::sign: return "Sign";
    case ua::message_security_mode::sign_and_encrypt: return "SignAndEncrypt";
    default: return "Invalid";
  }
}

std::string_view token_type_name(ua::user_token_type t) {
  switch (t) {
    case ua::user_token_type::anonymous: return "Anonymous";
    case ua::user_token_type::user_name: return "UserName";
    case ua::user_token_type::certificate: return "Certificate";
    case ua::user_token_type::issued_token: return "IssuedToken";
  }
  return "?";
}

// "Basic256Sha256" for its URI; the part after '#' of an unknown one.
std::string policy_name(std::string_view uri) {
  if (const auto* p = security::find_policy(uri)) return std::string(p->name);
  const auto hash = uri.rfind('#');
  return std::string(hash == std::string_view::npos ? uri : uri.substr(hash + 1));
}

const security::security_policy* policy_named(std::string_view name) {
  if (const auto* p = security::find_policy(name)) return p;
  for (const auto& p : security::all_policies())
    if (p.name == name) return &p;
  return nullptr;
}

std::string pki_dir_of(const common_args& a) { return a.pki.empty() ? security::default_pki_dir() : a.pki; }

bool is_connection_failure(ua::status_code sc) {
  namespace s = ua::status;
  for (const auto c : {s::bad_connection_closed, s::bad_connection_rejected, s::bad_timeout, s::bad_secure_channel_closed,
                       s::bad_session_closed, s::bad_not_connected, s::bad_server_not_connected, s::bad_communication_error,
                       s::bad_no_communication, s::bad_disconnect})
    if (sc.code() == ua::status_code(c).code()) return true;
  return false;
}

// A whole file (a certificate or a key of an X509 identity); usage() when it cannot be read.
std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) usage("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The password of --user: --password-file, else $UACTOR_PASSWORD, else asked on the terminal
// (never an argument: the process list and the shell history would show it).
std::string password_for(const common_args& a) {
  if (!a.password_file.empty()) {
    std::ifstream in(a.password_file);
    if (!in) usage("cannot read the password file " + a.password_file);
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
  }
  if (const char* env = std::getenv("UACTOR_PASSWORD")) return env;
  if (!isatty(STDIN_FILENO))
    usage("--user " + a.user + ": give the password with --password-file FILE or $UACTOR_PASSWORD (no terminal to ask on)");
  std::fprintf(stderr, "Password for %s: ", a.user.c_str());
  std::fflush(stderr);
  termios old{};
  const bool have_tty = tcgetattr(STDIN_FILENO, &old) == 0;
  if (have_tty) {
    termios quiet = old;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
  }
  std::string line;
  std::getline(std::cin, line);
  if (have_tty) tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
  std::fputc('\n', stderr);
  return line;
}

uactor::client_identity identity_for(const common_args& a) {
  uactor::client_identity id;
  if (!a.user.empty() && !a.cert.empty()) usage("--user and --cert are two identities: give one");
  if (!a.user.empty()) {
    id.type = uactor::client_identity::kind::user_name;
    id.user_name = a.user;
    id.password = password_for(a);
  } else if (!a.cert.empty() || !a.key.empty()) {
    if (a.cert.empty() || a.key.empty()) usage("an X509 identity needs both --cert FILE and --key FILE");
    // Checked here for a message that names the file; the client parses them again.
    const std::string cert = read_whole_file(a.cert);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(cert.data());
    if (auto parsed = security::certificate::from_der_or_pem({bytes, cert.size()}); !parsed)
      usage(a.cert + " does not hold a certificate (" + parsed.error().to_string() + ")");
    std::string pem = read_whole_file(a.key);
    if (!security::rsa_key::from_private_pem(pem)) usage(a.key + " does not hold an unencrypted RSA private key in PEM");
    id.type = uactor::client_identity::kind::x509;
    id.certificate = cert;
    id.private_key_pem = std::move(pem);
  }
  return id;
}

[[noreturn]] void cannot_connect(const common_args& a, const std::string& why) {
  std::fprintf(stderr, "uactor: cannot connect to %s: %s\n", a.endpoint.c_str(), why.c_str());
  finish(exit_connection);
}

std::string offered_list(const ua::get_endpoints_response& eps) {
  std::string s;
  for (const auto& e : eps.endpoints)
    s += "\n  " + policy_name(e.security_policy_uri.view()) + " " + std::string(mode_name(e.security_mode));
  return s.empty() ? " nothing" : s;
}

// The endpoint of --security and --policy among those the server offers: the one with the
// highest SecurityLevel (Part 4 §7.14: higher is more secure, the server decides the order).
const ua::endpoint_description* choose_endpoint(const ua::get_endpoints_response& eps, ua::message_security_mode mode,
                                                const security::security_policy* policy) {
  const ua::endpoint_description* best = nullptr;
  for (const auto& e : eps.endpoints) {
    if (e.security_mode != mode) continue;
    const auto* p = security::find_policy(e.security_policy_uri.view());
    if (!p || p->is_none()) continue;  // a policy we do not implement
    if (policy && p != policy) continue;
    if (!best || e.security_level > best->security_level) best = &e;
  }
  return best;
}

void print_untrusted(const common_args& a, const security::certificate& cert) {
  const auto pki = pki_dir_of(a);
  std::fprintf(stderr,
               "uactor: the server certificate of %s is not trusted (BadCertificateUntrusted)\n"
               "  thumbprint  %s\n"
               "  subject     %s\n"
               "  uri         %s\n"
               "  valid       %s to %s\n"
               "Compare the thumbprint with the one the server's operator reads on the server, then trust it:\n"
               "  uactor certs trust --pki %s %s\n"
               "(a copy is in %s/rejected/certs; --accept-server-certificate accepts it for one run only)\n",
               a.endpoint.c_str(), cert.thumbprint_hex().c_str(), cert.subject().c_str(), cert.application_uri().c_str(),
               format_time(cert.valid_from()).c_str(), format_time(cert.valid_to()).c_str(), pki.c_str(),
               cert.thumbprint_hex().c_str(), pki.c_str());
}

std::optional<security::certificate> leaf_certificate(const ua::byte_string& der) {
  auto chain = security::certificate::chain_from_der(
      {reinterpret_cast<const std::uint8_t*>(der.data()), der.size()});
  if (!chain || chain->empty()) return std::nullopt;
  return chain->front();
}

bool in_trusted(const common_args& a, const security::certificate& cert) {
  try {
    security::pki_store store(pki_dir_of(a));
    const auto trusted = store.list("trusted");
    return std::any_of(trusted.begin(), trusted.end(), [&](const auto& t) { return t == cert; });
  } catch (const std::exception&) {
    return false;  // the client reports what is wrong with the folder when it connects
  }
}

}  // namespace

output_style common_args::style() const {
  output_style s;
  s.json = json;
  s.local_time = local_time;
  // A person at a terminal sees the first elements of a long array and how many there are; a
  // pipe gets all of them.
  if (!json && isatty(STDOUT_FILENO)) s.max_elements = 20;
  return s;
}

// The client library logs to spdlog's default logger (stdout). The commands say themselves what
// went wrong, and stdout is for results (and --json): the log only with --verbose, on stderr.
void set_up_log(const common_args& a) {
  if (!a.verbose) {
    spdlog::set_level(spdlog::level::off);
    return;
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt("uactor-cli"));
  spdlog::set_level(spdlog::level::info);
}

client connect_or_exit(const common_args& a, reconnect_options reconnect, bool session) {
  set_up_log(a);
  client_options o;
  o.reconnect = std::move(reconnect);
  // With --reverse-listen, ENDPOINT "-": whatever EndpointUrl the server's ReverseHello names.
  const bool any_endpoint = !a.reverse_listen.empty() && a.endpoint == "-";
  o.endpoint_url = any_endpoint ? std::string() : a.endpoint;
  o.request_timeout = std::chrono::milliseconds(a.timeout_ms);
  o.connect_timeout = std::chrono::milliseconds(a.timeout_ms);
  o.session_name = "uactor cli";
  o.create_session = session;
  o.security.pki_dir = a.pki;
  o.security.accept_untrusted_server_certificate = a.accept_server_certificate;
  o.security.check_server_host_name = !a.skip_host_name_check;
  o.wss_accept_any_certificate = a.accept_server_certificate;  // opc.wss's TLS certificate (docs/wss.md)

  const std::string& sec = a.security;
  if (sec != "none" && sec != "sign" && sec != "encrypt" && !sec.empty())
    usage("--security " + sec + ": none, sign or encrypt");
  const security::security_policy* policy = nullptr;
  if (!a.policy.empty()) {
    policy = policy_named(a.policy);
    if (!policy)
      usage("--policy " + a.policy + ": Basic256Sha256, Aes128_Sha256_RsaOaep, Aes256_Sha256_RsaPss, ECC_nistP256, "
            "ECC_nistP384, ECC_brainpoolP256r1, ECC_brainpoolP384r1, ECC_curve25519 or ECC_curve448");
    if (policy->is_none()) policy = nullptr;
  }
  // --policy alone means SignAndEncrypt; --security none with a policy is a contradiction.
  const std::string mode_word = !sec.empty() ? sec : policy ? "encrypt" : "none";
  if (mode_word == "none" && policy) usage("--security none takes no --policy");
  if (session) o.security.identity = identity_for(a);  // after the flags are known good: it may ask for a password

  std::optional<security::certificate> server_cert;
  if (!a.reverse_listen.empty()) {
    // Reverse connect: the server dials us; the client library asks for its endpoints over a first
    // reverse connection, so the policy is named here (default Basic256Sha256).
    reverse_listen_options lo;
    lo.listen = a.reverse_listen;
    lo.expected_server_uri = a.server_uri;
    lo.expected_endpoint_url = o.endpoint_url;
    auto l = reverse_listener::open(lo);
    if (!l) {
      if (l.error() == ua::status::bad_tcp_endpoint_url_invalid) usage("--reverse-listen " + a.reverse_listen + ": HOST:PORT");
      cannot_connect(a, "cannot listen on " + a.reverse_listen + ": " + l.error().to_string());
    }
    const auto colon = a.reverse_listen.rfind(':');
    std::fprintf(stderr, "uactor: waiting for a reverse connection on %s:%u\n", a.reverse_listen.substr(0, colon).c_str(),
                 static_cast<unsigned>((*l)->port()));
    std::fflush(stderr);
    o.reverse_listener = std::move(*l);
    if (mode_word != "none") {
      o.security.policy = policy ? std::string(policy->name) : "Basic256Sha256";
      o.security.mode = mode_word == "sign" ? ua::message_security_mode::sign : ua::message_security_mode::sign_and_encrypt;
      o.security.accept_untrusted_server_certificate = a.accept_server_certificate;
    }
  } else if (mode_word != "none") {
    const auto mode = mode_word == "sign" ? ua::message_security_mode::sign : ua::message_security_mode::sign_and_encrypt;
    // What the server offers (GetEndpoints over a None channel, Part 4 §5.4.4): the policy to ask
    // for when none is given, and the certificate to name if it is refused.
    auto eps = get_endpoints(a.endpoint, std::chrono::milliseconds(a.timeout_ms), a.accept_server_certificate);
    if (!eps) {
      if (eps.error() == ua::status::bad_tcp_endpoint_url_invalid) usage("not an endpoint URL: " + a.endpoint);
      cannot_connect(a, eps.error().to_string());
    }
    const auto* chosen = choose_endpoint(*eps, mode, policy);
    if (!chosen)
      cannot_connect(a, "the server offers no endpoint with " + (policy ? std::string(policy->name) + " " : std::string()) +
                            std::string(mode_name(mode)) + "; it offers:" + offered_list(*eps));
    o.security.policy = policy_name(chosen->security_policy_uri.view());
    o.security.mode = mode;
    server_cert = leaf_certificate(chosen->server_certificate);
    if (a.accept_server_certificate && server_cert && !in_trusted(a, *server_cert))
      std::fprintf(stderr,
                   "uactor: WARNING: --accept-server-certificate: the server certificate is NOT TRUSTED; it is "
                   "accepted for this run only, unchecked by anyone:\n  thumbprint %s  %s\n"
                   "  (uactor certs trust --pki %s %s trusts it for good)\n",
                   server_cert->thumbprint_hex().c_str(), server_cert->subject().c_str(), pki_dir_of(a).c_str(),
                   server_cert->thumbprint_hex().c_str());
  }

  auto c = client::connect(std::move(o));
  if (!c) {
    const auto sc = c.error();
    if (sc == ua::status::bad_tcp_endpoint_url_invalid) usage("not an endpoint URL: " + a.endpoint);
    if (sc == ua::status::bad_certificate_untrusted && server_cert) {
      print_untrusted(a, *server_cert);
      finish(exit_connection);
    }
    std::string why = sc.to_string();
    if (sc == ua::status::bad_user_access_denied) why += " (the user name or password is wrong, or the user may not log in)";
    if (sc == ua::status::bad_identity_token_rejected || sc == ua::status::bad_identity_token_invalid)
      why += " (the endpoint does not take this identity; uactor endpoints shows the token types it offers)";
    if ((sc == ua::status::bad_security_policy_rejected || sc == ua::status::bad_security_mode_rejected) && mode_word == "none")
      why += " (the server offers no session without security: try --security encrypt; uactor endpoints shows what it offers)";
    if (sc == ua::status::bad_certificate_host_name_invalid && server_cert) {
      std::string names;
      for (const auto& n : server_cert->host_names()) names += (names.empty() ? "" : ", ") + n;
      why += " (the server certificate names the hosts [" + names + "]: connect by one of them, or "
             "--skip-host-name-check)";
    }
    if (sc == ua::status::bad_security_checks_failed)
      why += " (the server may not trust our certificate: " + pki_dir_of(a) + "/own/certs/" +
             (policy ? security::own_identity_name("uactor-client", *policy) : std::string("uactor-client")) + ".der)";
    cannot_connect(a, why);
  }
  return std::move(*c);
}

[[noreturn]] void service_failed(client& c, std::string_view what, ua::status_code sc) {
  std::fprintf(stderr, "uactor: %.*s failed: %s\n", static_cast<int>(what.size()), what.data(), sc.to_string().c_str());
  c.close();
  finish(is_connection_failure(sc) ? exit_connection : exit_bad);
}

int run_endpoints(const common_args& a) {
  set_up_log(a);
  auto eps = get_endpoints(a.endpoint, std::chrono::milliseconds(a.timeout_ms), a.accept_server_certificate);
  if (!eps) {
    if (eps.error() == ua::status::bad_tcp_endpoint_url_invalid) usage("not an endpoint URL: " + a.endpoint);
    cannot_connect(a, eps.error().to_string());
  }
  const auto style = a.style();
  for (const auto& e : eps->endpoints) {
    const auto policy = policy_name(e.security_policy_uri.view());
    const auto cert = e.server_certificate.empty() ? std::nullopt : leaf_certificate(e.server_certificate);
    if (style.json) {
      std::string tokens = "[";
      for (const auto& t : e.user_identity_tokens) {
        json_object o;
        o.text("policyId", t.policy_id.view()).text("type", token_type_name(t.token_type));
        if (!t.security_policy_uri.empty()) o.text("securityPolicy", policy_name(t.security_policy_uri.view()));
        tokens += (tokens.size() > 1 ? "," : "") + o.str();
      }
      json_object line;
      line.text("endpointUrl", e.endpoint_url.view())
          .text("securityPolicy", policy)
          .text("securityPolicyUri", e.security_policy_uri.view())
          .text("securityMode", mode_name(e.security_mode))
          .number("securityLevel", e.security_level)
          .raw("userTokens", tokens + "]")
          .text("applicationUri", e.server.application_uri.view())
          .text("transportProfileUri", e.transport_profile_uri.view());
      if (cert)
        line.raw("certificate", json_object()
                                    .text("thumbprint", cert->thumbprint_hex())
                                    .text("subject", cert->subject())
                                    .text("applicationUri", cert->application_uri())
                                    .text("validFrom", format_time(cert->valid_from(), style.local_time))
                                    .text("validTo", format_time(cert->valid_to(), style.local_time))
                                    .str());
      std::printf("%s\n", line.str().c_str());
      continue;
    }
    std::string tokens;
    for (const auto& t : e.user_identity_tokens) {
      tokens += (tokens.empty() ? "" : ",") + std::string(token_type_name(t.token_type));
      if (!t.security_policy_uri.empty()) tokens += "(" + policy_name(t.security_policy_uri.view()) + ")";
    }
    std::printf("%s\t%s\t%s\tlevel %u\t%s\n", e.endpoint_url.str().c_str(), policy.c_str(),
                std::string(mode_name(e.security_mode)).c_str(), static_cast<unsigned>(e.security_level),
                tokens.empty() ? "-" : tokens.c_str());
    if (cert)
      std::printf("  certificate %s  %s  valid %s to %s\n", cert->thumbprint_hex().c_str(), cert->subject().c_str(),
                  format_time(cert->valid_from(), style.local_time).c_str(),
                  format_time(cert->valid_to(), style.local_time).c_str());
  }
  return eps->endpoints.empty() ? exit_bad : exit_good;
}

}  // namespace uactor::app::client_cli
