#include "runtime/client_security.hpp"

#include "security/ecc.hpp"

#include <unistd.h>

#include <climits>

#include <spdlog/spdlog.h>

#include "actors/client/connection_actor.hpp"
#include "engine/common/channel_crypto.hpp"
#include "security/pki_store.hpp"
#include "uactor/client.hpp"

namespace uactor::actors {

namespace {


std::string host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  return gethostname(name, sizeof name) == 0 && name[0] ? name : "localhost";
}

const security::security_policy* policy_named(std::string_view name) {
  if (const auto* p = security::find_policy(name)) return p;
  for (const auto& p : security::all_policies())
    if (p.name == name) return &p;
  return nullptr;
}

// The application's identity with its certificate and key parsed: a certificate or key that does
// not parse fails the connection before anything is sent (Bad_CertificateInvalid).
ua::expected<client_user_identity> resolve_identity(const client_identity& identity) {
  client_user_identity out;
  out.type = identity.type;
  out.user_name = identity.user_name;
  out.password = identity.password;
  if (identity.type != client_identity::kind::x509) return out;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(identity.certificate.data());
  auto cert = security::certificate::from_der_or_pem({bytes, identity.certificate.size()});
  if (!cert) {
    spdlog::error("the X509 identity's certificate is not a certificate (DER or PEM)");
    return ua::status::bad_certificate_invalid;
  }
  auto key = security::rsa_key::from_private_pem(identity.private_key_pem);
  if (!key) {
    spdlog::error("the X509 identity's private key is not an unencrypted RSA or EC private key in PEM");
    return ua::status::bad_certificate_invalid;
  }
  out.certificate = std::move(*cert);
  out.private_key = std::move(*key);
  return out;
}

}  // namespace

ua::expected<client_session_security> resolve_client_security(const std::string& endpoint_url,
                                                               const client_security_options& options,
                                                               std::chrono::milliseconds timeout,
                                                               const endpoints_fetch& fetch) {
  client_session_security out;
  auto identity = resolve_identity(options.identity);
  if (!identity) return identity.error();
  out.identity = std::move(*identity);
  out.application_uri = options.application_uri.empty() ? "urn:" + host_name() + ":uactor:client" : options.application_uri;
  const auto* policy = policy_named(options.policy);
  if (!policy) return ua::status::bad_security_policy_rejected;
  out.channel.policy = policy;
  out.channel.mode = policy->is_none() ? ua::message_security_mode::none : options.mode;
  if (policy->is_none()) return out;
  if (options.mode != ua::message_security_mode::sign && options.mode != ua::message_security_mode::sign_and_encrypt)
    return ua::status::bad_security_mode_rejected;

  auto endpoints = fetch ? fetch() : get_endpoints(endpoint_url, timeout);
  if (!endpoints) return endpoints.error();
  const ua::endpoint_description* chosen = nullptr;
  for (const auto& e : endpoints->endpoints)
    if (e.security_policy_uri.view() == policy->uri && e.security_mode == options.mode) chosen = &e;
  if (!chosen) {
    spdlog::warn("{} offers no endpoint with {} and mode {}", endpoint_url, policy->name, static_cast<int>(options.mode));
    return ua::status::bad_security_policy_rejected;
  }
  std::string why;
  auto server = security::certificate::chain_from_der(bytes_of(chosen->server_certificate), &why);
  if (!server) {
    spdlog::error("the ServerCertificate of {}'s endpoint is not a certificate (Bad_CertificateInvalid): {}", endpoint_url,
                  why);
    return ua::status::bad_certificate_invalid;
  }

  const auto shared_store =
      std::make_shared<security::pki_store>(options.pki_dir.empty() ? security::default_pki_dir() : options.pki_dir);
  auto& store = *shared_store;
  security::validation_options check;
  check.expected_application_uri = chosen->server.application_uri.str();
  if (options.check_server_host_name) {
    auto address = parse_endpoint_url(endpoint_url.empty() ? chosen->endpoint_url.view() : std::string_view(endpoint_url));
    if (!address) return address.error();
    check.expected_host_name = address->host;
  }
  check.min_key_bits = policy->min_key_bits;
  check.max_key_bits = policy->max_key_bits;
  // Part 4 §6.1.3 Security Policy Check: an RSA key for an RSA policy, a key on the policy's curve
  // for an ECC one (Part 6 §6.8): a brainpool certificate on an ECC_nistP256 endpoint is refused.
  if (!security::key_fits_policy(*policy, server->front().public_key())) {
    spdlog::error("the server certificate of {}'s {} endpoint has a key that does not fit the policy "
                  "(Bad_CertificatePolicyCheckFailed) [{}]", endpoint_url, policy->name, server->front().describe());
    return ua::status::bad_certificate_policy_check_failed;
  }
  const auto now = security::system_now();
  // Part 6 §6.7.2.3: the certificates after the leaf are its issuers, untrusted.
  const auto server_issuers = std::span<const security::certificate>(*server).subspan(1);
  const auto verdict = store.validate(server->front(), server_issuers, check, now);
  // A server may send its chain in the OPN only: the check of a lone leaf waits for it there.
  const bool check_on_open = verdict.status == ua::status::bad_certificate_chain_incomplete && server_issuers.empty();
  if (check_on_open) {
    spdlog::info("the ServerCertificate of {}'s endpoint comes without its issuers ({}); checking it with the chain of "
                 "the OpenSecureChannel response", endpoint_url, verdict.detail);
    out.channel.check_server_chain = [shared_store, check, endpoint_url](const security::certificate& leaf,
                                                                          std::span<const security::certificate> issuers) {
      auto v = shared_store->validate(leaf, issuers, check, security::system_now());
      if (!v.ok())
        spdlog::error("the server certificate of {} failed the {} check ({}) with the chain of its OPN response: {} [{}]",
                      endpoint_url, v.check, v.status.name(), v.detail, leaf.describe());
      return v;
    };
  }
  // Accepted once: the checks pki_store runs after the trust list's (validity, ApplicationUri) here.
  const auto& leaf = server->front();
  if (!verdict.ok() && verdict.status == ua::status::bad_certificate_untrusted && options.accept_untrusted_server_certificate) {
    if (now < leaf.valid_from() || leaf.valid_to() < now) {
      spdlog::error("the server certificate of {} is outside its validity period [{}]", endpoint_url, leaf.describe());
      return ua::status::bad_certificate_time_invalid;
    }
    if (!check.expected_host_name.empty()) {
      if (auto host = security::check_host_name(leaf, check.expected_host_name); !host.ok()) {
        spdlog::error("the server certificate of {} failed the host name check: {}", endpoint_url, host.detail);
        return host.status;
      }
    }
    if (leaf.application_uri() != check.expected_application_uri) {
      spdlog::error("the server certificate of {} carries the application uri \"{}\", the endpoint says \"{}\"",
                    endpoint_url, leaf.application_uri(), check.expected_application_uri);
      return ua::status::bad_certificate_uri_invalid;
    }
    spdlog::warn("accepting the untrusted server certificate of {} for this connection only: {}", endpoint_url,
                 leaf.describe());
  } else if (!verdict.ok() && !check_on_open) {
    spdlog::error("the server certificate of {} failed the {} check ({}): {} [{}]", endpoint_url, verdict.check,
                  verdict.status.name(), verdict.detail, server->front().describe());
    return verdict.status;
  }
  security::certificate_request request;
  request.application_uri = out.application_uri;
  request.common_name = "uactor client";
  request.host_names = {host_name()};
  // An ECC policy: the client certificate of its curve (own/certs/uactor-client-ecc-nistP256.der ...).
  request.curve = std::string(policy->curve);
  const std::string own_name = security::own_identity_name(options.certificate_name, *policy);
  auto own = store.load_or_create_own(request, own_name);
  if (!own) return own.error();
  // Our own certificate must fit the policy too (an operator's file under the wrong name).
  if (!security::key_fits_policy(*policy, own->private_key)) {
    spdlog::error("the client certificate {}/own/certs/{}.der has a key that does not fit {} "
                  "(Bad_CertificatePolicyCheckFailed) [{}]", store.root().string(), own_name, policy->name,
                  own->cert.describe());
    return ua::status::bad_certificate_policy_check_failed;
  }
  if (own->cert.application_uri() != out.application_uri) out.application_uri = own->cert.application_uri();
  out.channel.own_certificate = own->cert;
  out.channel.private_key = own->private_key;
  out.channel.own_issuers = own->issuers;
  out.channel.server_certificate = server->front();
  return out;
}

}  // namespace uactor::actors
