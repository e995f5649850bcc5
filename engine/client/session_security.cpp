#include "engine/client/session_security.hpp"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "engine/common/channel_crypto.hpp"
#include "engine/common/ecdh_header.hpp"
#include "security/ecc.hpp"
#include "security/ecc_encrypted_secret.hpp"
#include "security/session_crypto.hpp"

namespace uactor::actors {

namespace {

// Part 6 §6.8.2: a UserName identity over an ECC channel asks for the server's EphemeralKey (in
// CreateSession, and in each ActivateSession for the next one), to send its password as an
// EccEncryptedSecret.
bool wants_ecdh_key(const client_session_security& sec) noexcept {
  return sec.channel.policy->is_ecc() && sec.identity.type == client_identity::kind::user_name;
}

// The password as an EccEncryptedSecret (Part 4 §7.41.2.5) for the EphemeralKey the server's last
// response carried, checked first: signed over its public key by the server's certificate (Part 4
// §7.15). Bad_IdentityTokenRejected when the server gave none (it refused: the StatusCode it put
// there is logged), Bad_SecurityChecksFailed when its signature does not verify.
ua::status_code ecc_password(const client_session_security& sec, const security::security_policy& policy,
                             const ua::extension_object& last_response_header, const ua::byte_string& server_nonce,
                             std::span<const std::uint8_t> secret, ua::byte_string& out) {
  const auto& ch = sec.channel;
  ua::status_code why;
  const auto* key = ecdh_key_of(last_response_header, why);
  if (!key) {
    spdlog::error("ActivateSession: the server gave no EphemeralKey for the password ({})", why.to_string());
    return ua::status::bad_identity_token_rejected;
  }
  if (key->public_key.size() != policy.nonce_length ||
      !security::verify(policy, ch.server_certificate.public_key(), bytes_of(key->public_key), bytes_of(key->signature))) {
    spdlog::error("ActivateSession: the server's EphemeralKey is not signed by its certificate");
    return ua::status::bad_security_checks_failed;
  }
  auto own = security::make_ephemeral_key(policy);
  if (!own) return own.error();
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  // Certificate null: the signer is our application certificate, which the server has (Table 186).
  out = security::encrypt_ecc_secret(policy, ch.private_key, {}, ua::date_time::from_unix_ms(now_ms), *own,
                                     bytes_of(key->public_key), bytes_of(server_nonce), secret);
  return out.empty() ? ua::status::bad_security_checks_failed : ua::status::good;
}

}  // namespace

void remember_activation(ua::create_session_response& session, const ua::activate_session_response& resp) {
  session.server_nonce = resp.server_nonce;
  session.response_header.additional_header = resp.response_header.additional_header;
}

void prepare_create_session(const client_session_security& sec, ua::create_session_request& req) {
  req.client_description.application_uri = ua::ua_string(sec.application_uri);
  if (sec.channel.policy->is_none()) return;
  req.client_nonce = random_nonce(32);  // Part 4 §5.7.2.2: at least 32 bytes
  // Part 4 §5.6.2.2: the same certificate (chain) as the channel's.
  req.client_certificate = to_byte_string(security::chain_der(sec.channel.own_certificate, sec.channel.own_issuers));
  if (wants_ecdh_key(sec)) req.request_header.additional_header = ecdh_policy_request(sec.channel.policy->uri);
}

ua::status_code check_create_session(const client_session_security& sec, const ua::byte_string& client_nonce,
                                     const ua::create_session_response& resp) {
  const auto& ch = sec.channel;
  if (ch.policy->is_none()) return ua::status::good;
  // The ServerCertificate may carry the server's chain: its leaf is the channel's.
  if (!std::ranges::equal(bytes_of(resp.server_certificate), ch.server_certificate.der())) {
    std::string why;
    auto chain = security::certificate::chain_from_der(bytes_of(resp.server_certificate), &why);
    if (!chain || !(chain->front() == ch.server_certificate)) {
      spdlog::error("CreateSession: the ServerCertificate is not the channel's ({})",
                    chain ? "its leaf is another certificate" : why);
      return ua::status::bad_certificate_invalid;
    }
  }
  // Part 4 §5.7.2.2 / §5.7.3.2 (1.05): signed over our leaf; a server that signed the whole chain
  // we sent is accepted too, as the specification asks for backward compatibility.
  if (!ch.policy->accepts_signature_algorithm(resp.server_signature.algorithm.view()))
    return ua::status::bad_application_signature_invalid;
  const auto signature = bytes_of(resp.server_signature.signature);
  const bool leaf_ok = security::verify(*ch.policy, ch.server_certificate.public_key(),
                                        signed_data(ch.own_certificate.der(), bytes_of(client_nonce)), signature);
  if (!leaf_ok && (ch.own_issuers.empty() ||
                   !security::verify(*ch.policy, ch.server_certificate.public_key(),
                                     signed_data(security::chain_der(ch.own_certificate, ch.own_issuers), bytes_of(client_nonce)),
                                     signature)))
    return ua::status::bad_application_signature_invalid;
  return ua::status::good;
}

ua::status_code prepare_activate_session(const client_session_security& sec, const ua::create_session_response& created,
                                         ua::activate_session_request& req) {
  const auto& ch = sec.channel;
  const auto& server_nonce = created.server_nonce;
  if (!ch.policy->is_none()) {
    req.client_signature.algorithm = ua::ua_string(ch.policy->signature_algorithm_uri);
    req.client_signature.signature = security::sign(*ch.policy, ch.private_key,
                                                    signed_data(ch.server_certificate.der(), bytes_of(server_nonce)));
  }
  // The endpoint we are on, and its token policy of the identity's kind (Part 4 §7.41).
  const auto wanted = sec.identity.type == client_identity::kind::user_name ? ua::user_token_type::user_name
                      : sec.identity.type == client_identity::kind::x509   ? ua::user_token_type::certificate
                                                                           : ua::user_token_type::anonymous;
  const ua::user_token_policy* token_policy = nullptr;
  for (const auto& e : created.server_endpoints) {
    if (e.security_policy_uri.view() != ch.policy->uri) continue;
    if (!ch.policy->is_none() && e.security_mode != ch.mode) continue;
    for (const auto& p : e.user_identity_tokens)
      if (p.token_type == wanted && !token_policy) token_policy = &p;
  }
  if (!token_policy) {
    if (wanted != ua::user_token_type::anonymous) return ua::status::bad_identity_token_rejected;
    req.user_identity_token = ua::anonymous_identity_token{ua::ua_string("anonymous")};
    return ua::status::good;
  }
  // A token policy may name its own policy for the token; else the channel's (Part 4 §7.42).
  const auto* token_security = token_policy->security_policy_uri.empty()
                                   ? ch.policy
                                   : security::find_policy(token_policy->security_policy_uri.view());
  if (!token_security) return ua::status::bad_security_policy_rejected;
  switch (sec.identity.type) {
    case client_identity::kind::anonymous:
      req.user_identity_token = ua::anonymous_identity_token{token_policy->policy_id};
      return ua::status::good;
    case client_identity::kind::user_name: {
      ua::user_name_identity_token t;
      t.policy_id = token_policy->policy_id;
      t.user_name = ua::ua_string(sec.identity.user_name);
      const auto& pw = sec.identity.password;
      const std::span<const std::uint8_t> secret(reinterpret_cast<const std::uint8_t*>(pw.data()), pw.size());
      if (token_security->is_ecc()) {
        if (const auto sc = ecc_password(sec, *token_security, created.response_header.additional_header,
                                         server_nonce, secret, t.password);
            sc.is_bad())
          return sc;
        req.request_header.additional_header = ecdh_policy_request(token_security->uri);
      } else if (token_security->is_none()) {
        // Never in clear text: only inside a channel that encrypts.
        if (ch.mode != ua::message_security_mode::sign_and_encrypt) return ua::status::bad_identity_token_rejected;
        t.password = to_byte_string(secret);
      } else {
        t.encryption_algorithm = ua::ua_string(token_security->encryption_algorithm_uri);
        t.password = security::encrypt_secret(*token_security, ch.server_certificate.public_key(), secret,
                                              bytes_of(server_nonce));
      }
      req.user_identity_token = std::move(t);
      return ua::status::good;
    }
    case client_identity::kind::x509: {
      if (token_security->is_none() || !sec.identity.private_key) return ua::status::bad_identity_token_rejected;
      ua::x509_identity_token t;
      t.policy_id = token_policy->policy_id;
      t.certificate_data = to_byte_string(sec.identity.certificate.der());
      req.user_identity_token = std::move(t);
      req.user_token_signature.algorithm = ua::ua_string(token_security->signature_algorithm_uri);
      req.user_token_signature.signature = security::sign(*token_security, sec.identity.private_key,
                                                          signed_data(ch.server_certificate.der(), bytes_of(server_nonce)));
      return ua::status::good;
    }
  }
  return ua::status::bad_identity_token_invalid;
}

}  // namespace uactor::actors
