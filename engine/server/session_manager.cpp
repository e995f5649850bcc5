#include "engine/server/session_manager.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "engine/common/channel_crypto.hpp"
#include "engine/common/ecdh_header.hpp"
#include "protocol/ws_uacp.hpp"
#include "security/ecc_encrypted_secret.hpp"
#include "security/session_crypto.hpp"

namespace uactor::actors {

namespace {

void fill_header(ua::response_header& h, const ua::request_header& req, ua::status_code result, const instant& now) {
  h.timestamp = now.utc;
  h.request_handle = req.request_handle;
  h.service_result = result;
  h.additional_header = ua::extension_object{};  // the response objects are reused
}

// Part 4 §7.41: null and empty policy ids are equal.
bool same_policy_id(const ua::ua_string& a, const ua::ua_string& b) noexcept { return a.view() == b.view(); }

// A UserName token's password: decrypted with the server key and the session's last nonce when the
// token encrypts it (Part 4 §7.41.2.2), then checked against the user's PBKDF2 hash. The slow part
// of a login; the log says why a refusal happened, the client sees only the status.
// Runs on a crypto worker too: it writes no log line (the session manager writes one per refusal,
// rate-limited); `why` says what was wrong. An unknown user and a wrong password get the same
// status after the same PBKDF2 work (user_store::check runs a dummy hash for an unknown name).
// With `ecdh_key`, the password is an EccEncryptedSecret (Part 4 §7.41.2.5) encrypted for that
// EphemeralKey and signed by the client application certificate `client_der` (key `client_key`).
ua::status_code password_verdict(const security::security_policy& policy, const security::rsa_key& server_key,
                                 bool encrypted, std::string_view user_name, std::span<const std::uint8_t> password,
                                 std::span<const std::uint8_t> server_nonce, const security::user_store* users,
                                 std::string& why, const security::ephemeral_key* ecdh_key = nullptr,
                                 const security::rsa_key& client_key = {},
                                 std::span<const std::uint8_t> client_der = {}) {
  std::string plain;
  if (ecdh_key) {
    std::string detail;
    auto secret = security::decrypt_ecc_secret(policy, client_key, client_der, *ecdh_key, server_nonce, password, &detail);
    if (!secret) {
      why = fmt::format("the EccEncryptedSecret of user '{}' is refused: {}", user_name, detail);
      return secret.error();
    }
    plain = secret->str();
  } else if (encrypted) {
    auto secret = security::decrypt_secret(policy, server_key, password, server_nonce);
    if (!secret) {
      why = fmt::format("the password of user '{}' does not decrypt with the server key and the last server nonce",
                        user_name);
      return ua::status::bad_identity_token_invalid;
    }
    plain = secret->str();
  } else {
    plain.assign(reinterpret_cast<const char*>(password.data()), password.size());
  }
  const auto verdict = users ? users->check(user_name, plain) : ua::status::bad_user_access_denied;
  if (verdict.is_bad()) {
    why = fmt::format("wrong user name or password for user '{}'", user_name);
    return ua::status::bad_user_access_denied;
  }
  return ua::status::good;
}

// Part 6 §6.8.2: a fresh EphemeralKey for a response's ECDHKey, signed with the server's key of
// the policy (Part 4 §7.15: the signature is over the public key). Null key when OpenSSL fails.
struct signed_ecdh_key {
  std::shared_ptr<const security::ephemeral_key> key;
  ua::byte_string signature;
};
signed_ecdh_key make_signed_ecdh_key(const security::security_policy& policy, const security::rsa_key& server_key) {
  signed_ecdh_key out;
  auto k = security::make_ephemeral_key(policy);
  if (!k) return out;
  out.signature = security::sign(policy, server_key, k->public_bytes());
  if (out.signature.empty()) return out;
  out.key = std::make_shared<const security::ephemeral_key>(std::move(*k));
  return out;
}

// Whether a request asks for an EphemeralKey (ECDHPolicyUri), and whether we give one: only of
// the channel's own ECC policy, the one our UserName token policies use there (Part 6 §6.8.2: else
// Bad_SecurityPolicyRejected in the response instead of a key).
enum class ecdh_ask { none, valid, rejected };
ecdh_ask ecdh_asked(const ua::request_header& h, const security::security_policy& channel_policy) noexcept {
  const auto* uri = actors::requested_ecdh_policy(h.additional_header);
  if (!uri) return ecdh_ask::none;
  return channel_policy.is_ecc() && uri->view() == channel_policy.uri ? ecdh_ask::valid : ecdh_ask::rejected;
}

// A UserName token whose password is an EccEncryptedSecret: over an ECC channel, no
// EncryptionAlgorithm (Part 4 §7.41.2.5 says the structure names its policy), and the structure's
// TypeId first. A password sent as it is inside a SignAndEncrypt channel is UTF-8 text, which
// never starts with those bytes (0x8A after 0x00 is no UTF-8), so the two cannot be mistaken.
bool ecc_password(const ua::user_name_identity_token& t, const security::security_policy& channel_policy) noexcept {
  return channel_policy.is_ecc() && t.encryption_algorithm.empty() &&
         security::looks_like_ecc_encrypted_secret(bytes_of(t.password));
}

// The user name the login guard counts for a token (empty: none, an X509 token counts for its
// address only), and whether the guard looks at the token at all (anonymous logins guess nothing).
// What the login guard counts a token's failures under: its user name, or its certificate.
std::string guarded_user_of(const ua::extension_object& token) {
  if (const auto* t = token.get_if<ua::user_name_identity_token>()) return std::string(t->user_name.view());
  if (const auto* t = token.get_if<ua::x509_identity_token>(); t && !t->certificate_data.empty())
    return login_guard::x509_key(bytes_of(t->certificate_data));
  return {};
}
bool guarded_token(const ua::extension_object& token) noexcept {
  return token.get_if<ua::user_name_identity_token>() || token.get_if<ua::x509_identity_token>();
}
// A guarded user in a log line: "user 'op'", or the certificate's key as it is.
std::string display_of(std::string_view guarded_user) {
  return guarded_user.starts_with("certificate ") ? std::string(guarded_user) : fmt::format("user '{}'", guarded_user);
}
// Why the guard refused, naming a certificate as such.
std::string_view refusal_of(login_refusal r, const ua::extension_object& token) noexcept {
  if (!token.get_if<ua::x509_identity_token>()) return to_string(r);
  switch (r) {
    case login_refusal::user_backoff: return "the certificate failed a moment ago (backoff)";
    case login_refusal::user_locked: return "the certificate is locked out";
    default: return to_string(r);
  }
}
std::string_view address_or_unknown(const std::string& address) noexcept {
  return address.empty() ? std::string_view("an unknown address") : std::string_view(address);
}
long long seconds_until(std::chrono::steady_clock::time_point until, std::chrono::steady_clock::time_point now) {
  return std::chrono::ceil<std::chrono::seconds>(until - now).count();
}

// Part 4 §5.6.2.2: a ClientCertificate may carry the client's chain after its leaf; the leaf is
// the one that must be the channel's. `why` says what is wrong otherwise.
bool sent_leaf_is(const ua::byte_string& sent, const security::certificate& leaf, std::string* why = nullptr) {
  if (std::ranges::equal(bytes_of(sent), leaf.der())) return true;  // the common case: no chain
  auto chain = security::certificate::chain_from_der(bytes_of(sent), why);
  if (chain && !(chain->front() == leaf) && why) *why = "its leaf is another certificate";
  return chain && chain->front() == leaf;
}

// Part 4 §5.7.3.2 (1.05): the ClientSignature (and a UserTokenSignature) is over the leaf of the
// server certificate and the nonce; "for backward compatibility a Server shall check the signature with the full chain if
// the check with the leaf Certificate fails" (the chain as CreateSession returned it).
bool verifies_over_server_certificate(const security::security_policy& policy, const security::rsa_key& client_key,
                               const own_identity& sec, std::span<const std::uint8_t> server_nonce,
                               std::span<const std::uint8_t> signature) {
  if (security::verify(policy, client_key, signed_data(sec.certificate.der(), server_nonce), signature)) return true;
  return !sec.issuers.empty() &&
         security::verify(policy, client_key, signed_data(sec.chain(), server_nonce), signature);
}

// What an identity token claims, checked or not, for the log: "an anonymous token", "a UserName
// token for 'user1'", "an X509 token for CN=...".
std::string claimed_identity(const ua::extension_object& token) {
  if (token.empty() || token.get_if<ua::anonymous_identity_token>()) return "an anonymous token";
  if (const auto* t = token.get_if<ua::user_name_identity_token>())
    return fmt::format("a UserName token for '{}'", t->user_name.view());
  if (const auto* t = token.get_if<ua::x509_identity_token>()) {
    const auto cert = security::certificate::from_der_or_pem(bytes_of(t->certificate_data));
    return cert ? "an X509 token for " + cert->describe() : "an X509 token that is no certificate";
  }
  return "a token of another type";
}

}  // namespace

void session_crypto_work::run() {
  if (sign) server_signature = security::sign(*policy, server_key, to_sign);
  if (verify_client)
    client_signature_ok = security::verify(*policy, client_key, signed_data, bytes_of(client_signature)) ||
                          (!signed_data_chain.empty() &&
                           security::verify(*policy, client_key, signed_data_chain, bytes_of(client_signature)));
  if (check_password)
    password_verdict = actors::password_verdict(*policy, server_key, password_encrypted, user_name, bytes_of(password),
                                                bytes_of(server_nonce), users.get(), password_why, ecdh_key.get(),
                                                client_key, client_certificate_der);
  if (make_ecdh_key) {
    auto k = make_signed_ecdh_key(*policy, server_key);
    new_ecdh_key = std::move(k.key);
    new_ecdh_signature = std::move(k.signature);
  }
  ran = true;
}

std::shared_ptr<session_crypto_work> session_manager::crypto_work(std::uint32_t channel_id,
                                                                  const ua::extension_object& request,
                                                                  const instant& now) const {
  if (!config_.security) return nullptr;
  const auto& sec = *config_.security;
  if (const auto* req = request.get_if<ua::create_session_request>()) {
    if (sessions_.size() >= config_.max_sessions) return nullptr;
    const channel_peer peer = channel(channel_id);
    if (peer.policy->is_none() || !sent_leaf_is(req->client_certificate, peer.client_certificate)) return nullptr;
    auto w = std::make_shared<session_crypto_work>();
    w->policy = peer.policy;
    const auto own = sec.identity_of(peer);
    if (!own) return nullptr;
    w->server_key = own->private_key;
    w->sign = true;
    w->to_sign = signed_data(peer.client_certificate.der(), bytes_of(req->client_nonce));
    w->make_ecdh_key = ecdh_asked(req->request_header, *peer.policy) == ecdh_ask::valid;
    return w;
  }
  const auto* req = request.get_if<ua::activate_session_request>();
  if (!req) return nullptr;
  const session* s = find(req->request_header.authentication_token);
  if (!s || (!s->activated && s->channel_id != channel_id)) return nullptr;
  const channel_peer peer = channel(channel_id);
  if (peer.policy->is_none()) return nullptr;  // no signature, and no UserName over None
  // An attempt the login guard refuses costs no crypto: activate_session refuses it on the spot.
  login_check verdict;
  if (guarded_token(req->user_identity_token)) {
    verdict = guard_.check(guarded_user_of(req->user_identity_token), peer.address, now.steady);
    if (verdict.refusal != login_refusal::none) return nullptr;
  }
  auto w = std::make_shared<session_crypto_work>();
  w->suspect = verdict.suspect;
  w->policy = peer.policy;
  // What the client signed and encrypted for: the server certificate its session was created with.
  const auto own = s->server_identity ? s->server_identity : sec.identity_of(peer);
  if (!own) return nullptr;
  w->server_key = own->private_key;
  w->server_nonce = s->server_nonce;
  if (peer.client_certificate == s->client_certificate &&
      peer.policy->accepts_signature_algorithm(req->client_signature.algorithm.view())) {
    w->verify_client = true;
    w->client_key = s->client_certificate.public_key();
    w->signed_data = signed_data(own->certificate.der(), bytes_of(s->server_nonce));
    if (!own->issuers.empty()) w->signed_data_chain = signed_data(own->chain(), bytes_of(s->server_nonce));
    w->client_signature = req->client_signature.signature;
  }
  if (const auto* t = req->user_identity_token.get_if<ua::user_name_identity_token>();
      t && sec.identities.user_name) {
    w->check_password = true;
    w->password_encrypted = !t->encryption_algorithm.empty();
    w->user_name = std::string(t->user_name.view());
    w->password = t->password;
    w->users = sec.identities.users.get();
    if (ecc_password(*t, *peer.policy) && s->ecdh_key) {
      w->ecdh_key = s->ecdh_key;
      w->client_key = s->client_certificate.public_key();
      const auto der = s->client_certificate.der();
      w->client_certificate_der.assign(der.begin(), der.end());
    }
  }
  w->make_ecdh_key = ecdh_asked(req->request_header, *peer.policy) == ecdh_ask::valid;
  if (!w->verify_client && !w->check_password) return nullptr;
  return w;
}

std::size_t session_manager::guid_hash::operator()(const ua::guid& g) const noexcept {
  std::uint64_t a = 0, b = 0;
  std::memcpy(&a, g.data4.data(), 8);
  b = (std::uint64_t{g.data1} << 32) | (std::uint64_t{g.data2} << 16) | g.data3;
  return static_cast<std::size_t>(a ^ (b * 0x9E3779B97F4A7C15ull));
}

session_manager::session_manager(session_config config) : config_(std::move(config)), guard_(config_.login) {
  if (!config_.random) throw std::invalid_argument("session_config: a random source is required");
  if (config_.min_session_timeout > config_.max_session_timeout)
    throw std::invalid_argument("session_config: min_session_timeout above max_session_timeout");
  for (const auto& e : config_.endpoints)
    for (const auto& p : e.user_identity_tokens) policies_.push_back(p);
  sessions_.reserve(std::min<std::size_t>(config_.max_sessions, 1024));
  if (!config_.roles) config_.roles = std::make_shared<const authz::role_registry>();
}

void session_manager::set_roles(std::shared_ptr<const authz::role_registry> roles) {
  config_.roles = roles ? std::move(roles) : std::make_shared<const authz::role_registry>();
}

bool session_manager::may_log_refusal(const instant& now) const {
  std::uint64_t left_out = 0;
  if (!refusal_log_.allow(now.steady, left_out)) return false;
  if (left_out > 0) spdlog::warn("ActivateSession: {} refusals in the last second not logged (a storm)", left_out);
  return true;
}

void session_manager::new_nonce(ua::byte_string& nonce) {
  std::uint8_t bytes[server_nonce_length];
  config_.random(bytes);
  nonce.assign(bytes, sizeof bytes);
}

bool session_manager::new_token(ua::guid& g) {
  // A random source that repeats itself (a test's counter, a broken generator) would loop here for
  // ever on the session host's thread: a few draws, then the CreateSession is refused.
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::uint8_t b[16];
    config_.random(b);
    std::memcpy(&g.data1, b, 4);
    std::memcpy(&g.data2, b + 4, 2);
    std::memcpy(&g.data3, b + 6, 2);
    std::memcpy(g.data4.data(), b + 8, 8);
    // RFC 9562 version 4 (random) and variant bits.
    g.data3 = static_cast<std::uint16_t>((g.data3 & 0x0FFF) | 0x4000);
    g.data4[0] = static_cast<std::uint8_t>((g.data4[0] & 0x3F) | 0x80);
    if (!sessions_.contains(g)) return true;
  }
  return false;
}

session* session_manager::lookup(const ua::node_id& token) noexcept {
  if (token.type() != ua::node_id_type::guid || token.namespace_index() != config_.session_namespace) return nullptr;
  const auto it = sessions_.find(token.guid_value());
  return it == sessions_.end() ? nullptr : &it->second;
}

const session* session_manager::find(const ua::node_id& token) const noexcept {
  return const_cast<session_manager*>(this)->lookup(token);
}

session_manager::routed session_manager::fault(const ua::request_header& header, ua::status_code result,
                                               const instant& now) {
  fill_header(fault_.value.response_header, header, result, now);
  routed r;
  r.what = routed::action::respond;
  r.response = &fault_;
  return r;
}

session_manager::routed session_manager::route(std::uint32_t channel_id, const ua::request_header& header,
                                               const ua::extension_object& request, const service_descriptor* service,
                                               const instant& now, const session_crypto_work* done) {
  if (service && service->session == session_use::managed) {
    if (const auto* req = request.get_if<ua::create_session_request>()) return create_session(channel_id, *req, now, done);
    if (const auto* req = request.get_if<ua::activate_session_request>())
      return activate_session(channel_id, *req, now, done);
    if (const auto* req = request.get_if<ua::close_session_request>()) return close_session(channel_id, *req, now);
  }

  if (!request.body()) return fault(header, ua::status::bad_service_unsupported, now);
  routed r;
  r.what = routed::action::dispatch;
  // Part 4 §5.4: the discovery services need no session (the table's session_use::none).
  if (service && service->session == session_use::none) return r;

  session* s = nullptr;
  if (const auto sc = check(channel_id, header.authentication_token, s); sc.is_bad()) {
    routed f = fault(header, sc, now);
    if (sc == ua::status::bad_session_not_activated) {
      // Part 4 §5.7.3.1: a request other than CloseSession before ActivateSession closes the session.
      last_closed_ = {s->session_id, true, sc};
      f.closed = &last_closed_;
      const ua::guid key = s->authentication_token.guid_value();  // not a reference into the erased node
      sessions_.erase(key);
    }
    return f;
  }
  s->last_activity = now.steady;
  r.target = s;
  return r;
}

ua::status_code session_manager::check(std::uint32_t channel_id, const ua::node_id& token, session*& out) {
  out = lookup(token);
  if (!out) return ua::status::bad_session_id_invalid;
  // Part 4 §5.7.2.1: requests are accepted only on the channel the session is bound to.
  if (out->channel_id != channel_id) return ua::status::bad_secure_channel_id_invalid;
  if (!out->activated) return ua::status::bad_session_not_activated;
  return ua::status::good;
}

session_manager::routed session_manager::create_session(std::uint32_t channel_id,
                                                        const ua::create_session_request& req, const instant& now,
                                                        const session_crypto_work* done) {
  if (sessions_.size() >= config_.max_sessions) return fault(req.request_header, ua::status::bad_too_many_sessions, now);
  const channel_peer peer = channel(channel_id);
  // A None channel serves discovery only, unless its endpoint offers None (Part 4 §5.4, §5.7.2).
  if (peer.policy->is_none() && config_.security && !config_.security->is_offered_at(peer.endpoint, *peer.policy)) {
    spdlog::warn("CreateSession refused: SecurityPolicy None is not offered by endpoint {} (a None channel serves "
                 "discovery only there)", peer.endpoint);
    return fault(req.request_header, ua::status::bad_security_policy_rejected, now);
  }
  if (!peer.policy->is_none()) {
    // Part 4 §5.7.2.2: the ClientCertificate is the one that opened the channel, its
    // ApplicationUri the one in the ClientDescription, and the nonce long enough.
    if (std::string why; !sent_leaf_is(req.client_certificate, peer.client_certificate, &why)) {
      spdlog::warn("CreateSession refused: the ClientCertificate is not the one of the secure channel ({}) [{}]",
                   why.empty() ? "another certificate" : why, peer.client_certificate.describe());
      return fault(req.request_header, ua::status::bad_certificate_invalid, now);
    }
    if (peer.client_certificate.application_uri() != req.client_description.application_uri.view()) {
      spdlog::warn("CreateSession refused: ApplicationUri '{}' of the ClientDescription is not '{}' of the client "
                   "certificate [{}]; the client must use a certificate made for its ApplicationUri",
                   req.client_description.application_uri.view(), peer.client_certificate.application_uri(),
                   peer.client_certificate.describe());
      return fault(req.request_header, ua::status::bad_certificate_uri_invalid, now);
    }
    if (req.client_nonce.size() < server_nonce_length) return fault(req.request_header, ua::status::bad_nonce_invalid, now);
  }

  // Part 4 §5.7.2.2: the server revises the requested timeout into its own bounds.
  const double requested = req.requested_session_timeout;
  const double lo = static_cast<double>(config_.min_session_timeout.count());
  const double hi = static_cast<double>(config_.max_session_timeout.count());
  const double revised = std::isnan(requested) ? lo : std::clamp(requested, lo, hi);

  ua::guid token;
  if (!new_token(token)) {
    spdlog::error("CreateSession refused: the random source gave 8 authentication tokens in a row that are in use");
    return fault(req.request_header, ua::status::bad_internal_error, now);
  }
  session s;
  s.browse_points = services::browse_continuations(config_.max_browse_continuation_points);
  s.session_id = ua::node_id(config_.session_namespace, next_session_number_++);
  if (next_session_number_ == 0) next_session_number_ = 1;
  s.authentication_token = ua::node_id::guid_id(config_.session_namespace, token);
  s.session_name = req.session_name;
  s.client_application_uri = std::string(req.client_description.application_uri.view());
  s.channel_id = channel_id;
  s.channel_security = {peer.policy, peer.mode};
  s.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(revised));
  s.last_activity = now.steady;
  new_nonce(s.server_nonce);

  auto& resp = create_response_.value;
  fill_header(resp.response_header, req.request_header, ua::status::good, now);
  resp.session_id = s.session_id;
  resp.authentication_token = s.authentication_token;
  resp.revised_session_timeout = revised;
  resp.server_nonce = s.server_nonce;
  resp.server_endpoints = config_.endpoints;
  resp.server_software_certificates.clear();
  if (peer.policy->is_none()) {
    resp.server_certificate.set_null();
    resp.server_signature = {};
  } else {
    // Part 4 §5.7.2.2: ServerSignature = sign(ClientCertificate + ClientNonce) with the server's key,
    // over the leaf only when the client sent its chain (1.05, as for the ClientSignature).
    // The identity of the channel's OpenSecureChannel (the RSA one or its ECC policy's curve's): the
    // session keeps it (decision 0056).
    const auto own = config_.security->identity_of(peer);
    s.server_identity = own;
    resp.server_certificate = own ? to_byte_string(own->chain()) : ua::byte_string{};
    resp.server_signature.algorithm = ua::ua_string(peer.policy->signature_algorithm_uri);
    resp.server_signature.signature =
        done && done->ran && done->sign && done->policy == peer.policy
            ? done->server_signature
            : own ? security::sign(*peer.policy, own->private_key,
                                   signed_data(peer.client_certificate.der(), bytes_of(req.client_nonce)))
                  : ua::byte_string{};
    s.client_certificate = peer.client_certificate;
    s.client_issuers = peer.client_issuers;
    answer_ecdh(req.request_header, *peer.policy, own ? own->private_key : security::rsa_key{}, done, s,
                resp.response_header);
  }
  resp.max_request_message_size = config_.max_request_message_size;

  sessions_.emplace(token, std::move(s));
  routed r;
  r.response = &create_response_;
  return r;
}

void session_manager::answer_ecdh(const ua::request_header& req, const security::security_policy& policy,
                                  const security::rsa_key& server_key, const session_crypto_work* done, session& s,
                                  ua::response_header& resp) {
  switch (ecdh_asked(req, policy)) {
    case ecdh_ask::none: return;
    case ecdh_ask::rejected:
      resp.additional_header = ecdh_key_response(ua::status::bad_security_policy_rejected);
      return;
    case ecdh_ask::valid: break;
  }
  signed_ecdh_key k;
  if (done && done->ran && done->make_ecdh_key && done->policy == &policy && done->new_ecdh_key) {
    k.key = done->new_ecdh_key;
    k.signature = done->new_ecdh_signature;
  } else {
    k = make_signed_ecdh_key(policy, server_key);
  }
  if (!k.key) {
    resp.additional_header = ecdh_key_response(ua::status::bad_internal_error);
    return;
  }
  ua::ephemeral_key_type e;
  e.public_key = to_byte_string(k.key->public_bytes());
  e.signature = std::move(k.signature);
  resp.additional_header = ecdh_key_response(std::move(e));
  s.ecdh_key = std::move(k.key);
}

channel_peer session_manager::channel(std::uint32_t channel_id) const {
  return config_.security ? config_.security->channels.get(channel_id) : channel_peer{};
}

ua::status_code session_manager::check_identity(const ua::activate_session_request& req, const channel_peer& channel,
                                                const session& s, const instant& now, const session_crypto_work* done,
                                                proven_identity& out) const {
  // Part 4 §7.41: a null or empty token is anonymous; otherwise the token's PolicyId names one of
  // the endpoint's UserTokenPolicies of the token's type.
  const auto& token = req.user_identity_token;
  const auto* ids = config_.security ? &config_.security->identities : nullptr;
  const auto policy_of = [&](ua::user_token_type type, const ua::ua_string& id) -> const ua::user_token_policy* {
    for (const auto& p : policies_)
      if (p.token_type == type && (id.empty() || same_policy_id(p.policy_id, id))) return &p;
    return nullptr;
  };
  const bool secured = channel.mode == ua::message_security_mode::sign ||
                       channel.mode == ua::message_security_mode::sign_and_encrypt;
  // Every refusal says why (activate_session writes it in the log; the client sees only the status).
  const auto refuse = [&out](std::string_view token_type, std::string_view why, ua::status_code sc) {
    out.why = fmt::format("{} identity token: {}", token_type, why);
    return sc;
  };
  // Part 4 §5.7.3.1 (§5.6.3 in 1.05): a token of a type the channel's endpoint does not offer is
  // rejected (Bad_IdentityTokenRejected); one whose PolicyId names no policy of that type is
  // invalid (Bad_IdentityTokenInvalid).
  const user_token_set offered = config_.security ? config_.security->tokens_at(channel.endpoint) : user_token_set{};
  const auto not_offered = [&](std::string_view token_type) {
    return refuse(token_type, fmt::format("endpoint {} does not offer this token type", channel.endpoint),
                  ua::status::bad_identity_token_rejected);
  };
  const ua::anonymous_identity_token* anonymous = token.get_if<ua::anonymous_identity_token>();
  if (anonymous || token.empty()) {
    if (!offered.anonymous) return not_offered("anonymous");
    const auto* p = policy_of(ua::user_token_type::anonymous, anonymous ? anonymous->policy_id : ua::ua_string{});
    if (!p) return refuse("anonymous", "its PolicyId names no anonymous token policy of the endpoint", ua::status::bad_identity_token_invalid);
    out.policy_id = p->policy_id;
    out.user_name = {};
    // Part 4 §5.13.7: anonymous sessions are told apart by the client's ApplicationUri.
    out.identity = {session_identity::kind::anonymous, s.client_application_uri, secured};
    return ua::status::good;
  }
  if (const auto* t = token.get_if<ua::user_name_identity_token>()) {
    if (!offered.user_name) return not_offered("UserName");
    const auto* p = policy_of(ua::user_token_type::user_name, t->policy_id);
    if (!p || !ids || !ids->user_name || channel.policy->is_none())
      return refuse("UserName", channel.policy->is_none() ? "not accepted over SecurityPolicy None"
                                : !p ? "its PolicyId names no UserName token policy of the endpoint"
                                     : "this server has no users",
                    ua::status::bad_identity_token_rejected);
    out.credential_checked = true;
    if (const auto sc = check_user_name(*t, channel, s, done, out.why); sc.is_bad()) return sc;
    out.policy_id = p->policy_id;
    out.user_name = t->user_name;
    out.identity = {session_identity::kind::user_name, std::string(t->user_name.view()), secured};
    return ua::status::good;
  }
  if (const auto* t = token.get_if<ua::x509_identity_token>()) {
    if (!offered.x509) return not_offered("X509");
    const auto* p = policy_of(ua::user_token_type::certificate, t->policy_id);
    if (!p || !ids || !ids->x509 || channel.policy->is_none())
      return refuse("X509", channel.policy->is_none() ? "not accepted over SecurityPolicy None"
                            : !p ? "its PolicyId names no certificate token policy of the endpoint"
                                 : "this server does not take user certificates",
                    ua::status::bad_identity_token_rejected);
    out.credential_checked = true;
    if (const auto sc = check_x509(*t, req.user_token_signature, channel, s, now, out); sc.is_bad())
      return sc;
    out.policy_id = p->policy_id;
    out.user_name = {};
    out.identity.token = session_identity::kind::certificate;
    out.identity.secured = secured;
    return ua::status::good;
  }
  if (token.get_if<ua::issued_identity_token>())
    return refuse("IssuedIdentity", "issued tokens are not supported", ua::status::bad_identity_token_rejected);
  return refuse("unknown", "the token is not one of Part 4 §7.41's types", ua::status::bad_identity_token_invalid);
}

ua::status_code session_manager::check_user_name(const ua::user_name_identity_token& t, const channel_peer& channel,
                                                 const session& s, const session_crypto_work* done,
                                                 std::string& why) const {
  const auto& sec = *config_.security;
  const bool ecc = ecc_password(t, *channel.policy);
  if (ecc) {
    // Part 4 §7.41.2.5 / Part 6 §6.8.2: encrypted for the EphemeralKey the last response gave.
    if (!s.ecdh_key) {
      why = fmt::format("user '{}' sent an EccEncryptedSecret but no EphemeralKey was asked for (ECDHPolicyUri)",
                        t.user_name.view());
      return ua::status::bad_identity_token_invalid;
    }
  } else if (t.encryption_algorithm.empty()) {
    // Part 4 §7.41.2.2: a password in clear only inside an encrypted channel.
    if (channel.mode != ua::message_security_mode::sign_and_encrypt) {
      why = fmt::format("user '{}' sent the password unencrypted over a channel that does not encrypt",
                        t.user_name.view());
      return ua::status::bad_identity_token_invalid;
    }
  } else if (t.encryption_algorithm.view() != channel.policy->encryption_algorithm_uri) {
    why = fmt::format("user '{}' sent the password encrypted with '{}', the policy {} uses '{}'", t.user_name.view(),
                      t.encryption_algorithm.view(), channel.policy->name, channel.policy->encryption_algorithm_uri);
    return ua::status::bad_identity_token_invalid;
  }
  // Worked out by a crypto worker for this very token and nonce, or here.
  if (done && done->ran && done->check_password && done->policy == channel.policy && done->server_nonce == s.server_nonce &&
      done->ecdh_key == (ecc ? s.ecdh_key : nullptr)) {
    why = done->password_why;
    return done->password_verdict;
  }
  const auto users = sec.identities.users.get();
  const auto own = s.server_identity ? s.server_identity : sec.identity_for(*channel.policy);
  return password_verdict(*channel.policy, own ? own->private_key : sec.private_key, !t.encryption_algorithm.empty(), t.user_name.view(),
                          bytes_of(t.password), bytes_of(s.server_nonce), users.get(), why,
                          ecc ? s.ecdh_key.get() : nullptr, s.client_certificate.public_key(), s.client_certificate.der());
}

ua::status_code session_manager::check_x509(const ua::x509_identity_token& t, const ua::signature_data& signature,
                                            const channel_peer& channel, const session& s, const instant& now,
                                            proven_identity& out) const {
  std::string& why = out.why;
  auto& sec = *config_.security;
  // DER as Part 4 §7.41.2.4 says; PEM too, which some clients send (README "Security"). Either way
  // the trust checks and the token signature below decide.
  auto cert = security::certificate::from_der_or_pem(bytes_of(t.certificate_data));
  if (!cert) {
    why = fmt::format("X509 identity token: its certificateData is neither a DER nor a PEM certificate ({} bytes)",
                      t.certificate_data.size());
    return ua::status::bad_identity_token_invalid;
  }
  security::validation_options o;
  o.min_key_bits = channel.policy->min_key_bits;
  o.max_key_bits = channel.policy->max_key_bits;
  // DefaultUserTokenGroup's trust list (docs/decisions/0078), else the application's.
  const auto verdict = (sec.user_checker ? sec.user_checker : sec.checker)->check(*cert, o, now.utc);
  if (!verdict.ok()) {
    why = fmt::format("the X509 user certificate failed the {} check ({}): {} [{}]", verdict.check,
                      verdict.status.name(), verdict.detail, cert->describe());
    return ua::status::bad_identity_token_rejected;
  }
  // Part 4 §5.7.3.2: UserTokenSignature = sign(server certificate + server nonce) with the user's key.
  if (!channel.policy->accepts_signature_algorithm(signature.algorithm.view()) ||
      !verifies_over_server_certificate(*channel.policy, cert->public_key(),
                                        *(s.server_identity ? s.server_identity : sec.own()), bytes_of(s.server_nonce),
                                        bytes_of(signature.signature))) {
    why = fmt::format("the UserTokenSignature does not verify with the X509 user certificate [{}]", cert->describe());
    return ua::status::bad_user_signature_invalid;
  }
  out.identity.name = cert->thumbprint_hex();  // who the user is, for TransferSubscriptions
  out.user_subject = cert->subject();
  out.user_issuer = cert->issuer();
  out.user_certificate = std::move(*cert);
  return ua::status::good;
}

session_manager::routed session_manager::refuse_move(const ua::activate_session_request& req,
                                                     ua::status_code result, const session& s,
                                                     std::uint32_t channel_id, const channel_peer& peer,
                                                     std::string_view why, const instant& now) {
  spdlog::warn("ActivateSession refused: session {} of channel {} ({}, {}) asked for from channel {} ({}, {}) with {}: "
               "{}; the session stays on channel {} ({})",
               s.session_id.to_string(), s.channel_id, to_string(s.channel_security), describe(s.identity), channel_id,
               to_string(security_offer{peer.policy, peer.mode}),
               peer.client_certificate ? peer.client_certificate.describe() : "no certificate",
               claimed_identity(req.user_identity_token), why, s.channel_id, result.name());
  routed r = fault(req.request_header, result, now);
  r.channel_move = routed::move::refused;
  return r;
}

session_manager::routed session_manager::activate_session(std::uint32_t channel_id,
                                                          const ua::activate_session_request& req, const instant& now,
                                                          const session_crypto_work* done) {
  session* s = lookup(req.request_header.authentication_token);
  if (!s) return fault(req.request_header, ua::status::bad_session_id_invalid, now);
  // Part 4 §5.7.3.1: the first activation happens on the channel that created the session; a
  // later one may move the session to another channel, of the same client application
  // (docs/decisions/0045).
  if (!s->activated && s->channel_id != channel_id)
    return fault(req.request_header, ua::status::bad_secure_channel_id_invalid, now);
  const bool moving = s->channel_id != channel_id;
  const channel_peer peer = channel(channel_id);
  // Part 4 §5.7.3.1: the certificate that opened the channel is the one that created the session;
  // none on both sides for a session created over None, so that a session of a secured channel
  // never moves to a None channel and one of a None channel never to a secured one.
  if (!(peer.client_certificate == s->client_certificate)) {
    if (moving)
      return refuse_move(req, ua::status::bad_security_checks_failed, *s, channel_id, peer,
                         "the new channel's client certificate is not the session's", now);
    return fault(req.request_header, ua::status::bad_security_checks_failed, now);
  }
  // The login guard (docs/security.md "Login attempts"), before any signature, password or
  // certificate is checked: a locked-out user name or address costs no crypto. Part 4 §5.7.3.3
  // lists Bad_UserAccessDenied among ActivateSession's results; it is also what a wrong password
  // gets, so the answer does not say that the guard refused.
  // Over SecurityPolicy None no UserName or X509 token is taken (check_identity refuses it with
  // its own status, no crypto): nothing to guard.
  const std::string guarded_user = guarded_user_of(req.user_identity_token);
  const bool guarded = guarded_token(req.user_identity_token) && !peer.policy->is_none();
  if (guarded) {
    if (const auto verdict = guard_.check(guarded_user, peer.address, now.steady); verdict.refusal != login_refusal::none) {
      if (may_log_refusal(now))
        spdlog::warn("ActivateSession refused without checking the token: {} from {}: {} for {} s more (BadUserAccessDenied)",
                     claimed_identity(req.user_identity_token), address_or_unknown(peer.address),
                     refusal_of(verdict.refusal, req.user_identity_token),
                     seconds_until(verdict.until, now.steady));
      routed r = fault(req.request_header, ua::status::bad_user_access_denied, now);
      if (moving) r.channel_move = routed::move::refused;
      r.login_refused = verdict.refusal;
      return r;
    }
  }
  if (!peer.policy->is_none()) {
    // Part 4 §5.7.3.2: ClientSignature = sign(ServerCertificate + the last ServerNonce) with the
    // client's key.
    const auto& sec = *config_.security;
    // Worked out by a crypto worker against this session's nonce, or here.
    const bool worked = done && done->ran && done->verify_client && done->policy == peer.policy && done->server_nonce == s->server_nonce;
    if (!peer.policy->accepts_signature_algorithm(req.client_signature.algorithm.view()) ||
        !(worked ? done->client_signature_ok
                 : verifies_over_server_certificate(*peer.policy, s->client_certificate.public_key(),
                                                    *(s->server_identity ? s->server_identity : sec.own()),
                                             bytes_of(s->server_nonce), bytes_of(req.client_signature.signature)))) {
      if (may_log_refusal(now))
        spdlog::warn("ActivateSession refused: the ClientSignature does not verify with the client certificate [{}]",
                   s->client_certificate.describe());
      if (moving)
        return refuse_move(req, ua::status::bad_application_signature_invalid, *s, channel_id, peer,
                           "the ClientSignature does not verify", now);
      return fault(req.request_header, ua::status::bad_application_signature_invalid, now);
    }
  }
  proven_identity proven;
  if (const auto sc = check_identity(req, peer, *s, now, done, proven); sc.is_bad()) {
    // A wrong password, an unknown user, a user certificate or token that does not prove its user:
    // counted by the guard. A token the endpoint does not take guessed nothing and is not.
    login_failure failure;
    const bool credential_failed = guarded && proven.credential_checked;
    const bool counted = credential_failed && guard_.config().enabled;
    if (counted) failure = guard_.failed(guarded_user, peer.address, now.steady);
    if (may_log_refusal(now)) {
      std::string tally;
      if (counted && !guarded_user.empty())
        tally += fmt::format("; {}: {} of {} failures", display_of(guarded_user), failure.user_failures,
                             guard_.config().max_failures);
      if (counted && !peer.address.empty())
        tally += fmt::format("; {}: {} of {} failures", peer.address, failure.address_failures,
                             guard_.config().address_max_failures);
      if (failure.user_locked)
        tally += fmt::format("; the {} is locked out for {} s", req.user_identity_token.get_if<ua::x509_identity_token>() ? "certificate" : "user name",
                             guard_.config().lockout.count());
      if (failure.address_locked) tally += fmt::format("; the address is locked out for {} s", guard_.config().lockout.count());
      spdlog::warn("ActivateSession refused: {} ({}) from {}{}", proven.why, sc.name(), address_or_unknown(peer.address),
                   tally);
    }
    routed r = moving ? refuse_move(req, sc, *s, channel_id, peer, "the token does not prove its user", now)
                      : fault(req.request_header, sc, now);
    r.login_failed = credential_failed;
    r.lockout_started = failure.user_locked || failure.address_locked;
    return r;
  }
  if (!guarded_user.empty()) guard_.succeeded(guarded_user);
  const bool same_user = proven.identity.token == s->identity.token && proven.identity.name == s->identity.name;
  // Part 4 §5.7.3.1: on another channel, the identity is the one the session has (a change of user
  // comes only through the session's own channel).
  if (moving && !same_user)
    return refuse_move(req, ua::status::bad_identity_change_not_supported, *s, channel_id, peer,
                       "another identity than the session's", now);

  routed r;
  if (moving) {
    spdlog::info("session {} moved from channel {} ({}) to channel {} ({}, {}), {} on both", s->session_id.to_string(),
                 s->channel_id, to_string(s->channel_security), channel_id,
                 to_string(security_offer{peer.policy, peer.mode}),
                 peer.client_certificate ? peer.client_certificate.describe() : "no certificate", describe(s->identity));
    r.channel_move = routed::move::moved;
  } else if (s->activated && !same_user) {
    // Part 4 §5.7.3.1: a change of user on the session's channel. What the former user opened
    // that is bound to a user goes: its browse continuation points (subscriptions stay with the
    // session and take the new owner, session_activated).
    spdlog::info("session {} on channel {}: identity {} replaces {}", s->session_id.to_string(), channel_id,
                 describe(proven.identity), describe(s->identity));
    s->browse_points.clear();
  }
  s->user_token_policy_id = std::move(proven.policy_id);
  s->user_name = std::move(proven.user_name);
  s->identity = std::move(proven.identity);
  s->user_certificate = std::move(proven.user_certificate);
  // Part 18 §4.4: the rules look at the identity, the client's certificate and the endpoint.
  {
    authz::session_facts facts;
    facts.identity = &s->identity;
    facts.user_subject = proven.user_subject;
    facts.user_issuer = proven.user_issuer;
    const std::string app_uri = peer.client_certificate ? peer.client_certificate.application_uri() : std::string();
    facts.application_uri = app_uri;
    // A secured channel's client certificate passed the trust list at OpenSecureChannel (Part 4 §6.1.3).
    facts.trusted_application = peer.client_certificate && (peer.mode == ua::message_security_mode::sign ||
                                                             peer.mode == ua::message_security_mode::sign_and_encrypt);
    const std::string& url = peer.endpoint < config_.endpoint_urls.size() ? config_.endpoint_urls[peer.endpoint]
                             : !config_.endpoints.empty() ? std::string(config_.endpoints[0].endpoint_url.view())
                                                          : std::string();
    facts.endpoint_url = url;
    facts.security_mode = peer.mode;
    facts.security_policy_uri = peer.policy->uri;
    facts.transport_profile_uri = std::string_view(url).starts_with("opc.wss://")
                                      ? ua::wss_uacp_binary_profile
                                      : std::string_view("http://opcfoundation.org/UA-Profile/Transport/uatcp-uasc-uabinary");
    s->roles = config_.roles->roles_of(facts);
    ++s->activations;
    if (role_hook_) r.role_question = ask_roles(*s, facts, now);
  }
  spdlog::debug("session {}: {} has the roles {}{}", s->session_id.to_string(), describe(s->identity),
                authz::describe(*config_.roles, s->roles), r.role_question ? " (the application's callback decides)" : "");
  s->channel_id = channel_id;
  s->channel_security = {peer.policy, peer.mode};
  s->activated = true;
  s->last_activity = now.steady;
  new_nonce(s->server_nonce);  // a nonce is used once: a new one for each activation

  auto& resp = activate_response_.value;
  fill_header(resp.response_header, req.request_header, ua::status::good, now);
  // The EphemeralKey this activation used is spent; a new one when the client asks (Part 6 §6.8.2).
  s->ecdh_key.reset();
  if (!peer.policy->is_none()) {
    const auto own = s->server_identity ? s->server_identity : config_.security->identity_of(peer);
    answer_ecdh(req.request_header, *peer.policy, own ? own->private_key : security::rsa_key{}, done, *s,
                resp.response_header);
  }
  resp.server_nonce = s->server_nonce;
  resp.results.clear();
  resp.diagnostic_infos.clear();
  r.response = &activate_response_;
  r.activated = s;
  return r;
}

// docs/decisions/0063: the session is activated with the roles its rules give; the question goes
// out with what the rules looked at, and the host holds the response until settle.
std::uint64_t session_manager::ask_roles(session& s, const authz::session_facts& facts, const instant& now) {
  const std::uint64_t id = next_role_question_++;
  role_wait w;
  w.token = s.authentication_token.guid_value();
  w.activation = s.activations;
  w.deadline = now.steady + role_hook_->deadline;
  w.user_subject = facts.user_subject;
  w.user_issuer = facts.user_issuer;
  w.application_uri = facts.application_uri;
  w.endpoint_url = facts.endpoint_url;
  w.security_policy_uri = facts.security_policy_uri;
  w.transport_profile_uri = facts.transport_profile_uri;
  w.trusted_application = facts.trusted_application;
  w.security_mode = facts.security_mode;
  authz::role_question q;
  q.id = id;
  q.identity = s.identity;
  q.user_subject = w.user_subject;
  q.application_uri = w.application_uri;
  q.endpoint_url = w.endpoint_url;
  q.security_mode = w.security_mode;
  s.roles.each([&](authz::role_id r) { q.roles.push_back(config_.roles->at(r).name); });
  role_waits_.emplace(id, std::move(w));
  role_outbox_.push_back(std::move(q));
  return id;
}

void session_manager::settle_roles(std::uint64_t id, authz::role_answer&& a) {
  const auto it = role_waits_.find(id);
  if (it == role_waits_.end()) return;
  const role_wait w = std::move(it->second);
  role_waits_.erase(it);
  role_outcome out;
  out.settled.id = id;
  out.settled.result = ua::status::good;
  const auto found = sessions_.find(w.token);
  // The session closed, or activated again meanwhile (that activation asked anew): nothing to do,
  // the held response (if its channel is still there) goes out as it is.
  if (found == sessions_.end() || found->second.activations != w.activation) {
    role_outcomes_.push_back(out);
    return;
  }
  session& s = found->second;
  const bool refuse = a.refused || (a.timed_out && role_hook_ && role_hook_->refuse_on_timeout);
  if (refuse) {
    // Part 4 §5.7.3.3: Bad_UserAccessDenied; the session is left not activated (a first
    // activation as it was before; a change of user activates again).
    spdlog::warn("ActivateSession refused by the application's role callback{}: session {}, {}",
                 a.failed      ? " (it threw, or could not be asked)"
                 : a.timed_out ? " (no answer within its deadline)"
                               : "",
                 s.session_id.to_string(), describe(s.identity));
    s.activated = false;
    s.roles = {};
    s.identity = {};
    s.user_name = {};
    s.user_token_policy_id = {};
    out.settled.result = ua::status::bad_user_access_denied;
    out.activated = &s;
    role_outcomes_.push_back(out);
    return;
  }
  if (a.failed) {
    spdlog::warn("session {}: the application's role callback threw (or could not be asked): {} keeps the roles of "
                 "the plant's rules ({})",
                 s.session_id.to_string(), describe(s.identity), authz::describe(*config_.roles, s.roles));
    role_outcomes_.push_back(out);
    return;
  }
  if (a.timed_out) {
    spdlog::warn("session {}: the application's role callback did not answer within {} ms: {} keeps the roles of the "
                 "plant's rules ({})",
                 s.session_id.to_string(), role_hook_ ? role_hook_->deadline.count() : 0, describe(s.identity),
                 authz::describe(*config_.roles, s.roles));
    role_outcomes_.push_back(out);
    return;
  }
  authz::session_facts facts;
  facts.identity = &s.identity;
  facts.user_subject = w.user_subject;
  facts.user_issuer = w.user_issuer;
  facts.application_uri = w.application_uri;
  facts.trusted_application = w.trusted_application;
  facts.endpoint_url = w.endpoint_url;
  facts.security_mode = w.security_mode;
  facts.security_policy_uri = w.security_policy_uri;
  facts.transport_profile_uri = w.transport_profile_uri;
  facts.role_claims = a.roles;
  facts.group_ids = a.group_ids;
  s.roles = config_.roles->roles_of(facts);
  spdlog::info("session {}: {} has the roles {} (the application's callback: claims [{}], groups [{}])",
               s.session_id.to_string(), describe(s.identity), authz::describe(*config_.roles, s.roles),
               fmt::join(a.roles, ", "), fmt::join(a.group_ids, ", "));
  out.activated = &s;
  role_outcomes_.push_back(out);
}

std::span<const session_manager::role_outcome> session_manager::answer_roles(authz::role_answer&& a, const instant&) {
  role_outcomes_.clear();
  settle_roles(a.id, std::move(a));
  return role_outcomes_;
}

std::span<const session_manager::role_outcome> session_manager::expire_roles(const instant& now) {
  role_outcomes_.clear();
  std::vector<std::uint64_t> due;
  for (const auto& [id, w] : role_waits_)
    if (w.deadline <= now.steady) due.push_back(id);
  std::sort(due.begin(), due.end());  // in the order asked
  for (const std::uint64_t id : due) {
    authz::role_answer a;
    a.id = id;
    a.timed_out = true;
    settle_roles(id, std::move(a));
  }
  return role_outcomes_;
}

session_manager::routed session_manager::close_session(std::uint32_t channel_id, const ua::close_session_request& req,
                                                       const instant& now) {
  session* s = lookup(req.request_header.authentication_token);
  if (!s) return fault(req.request_header, ua::status::bad_session_id_invalid, now);
  if (s->channel_id != channel_id) return fault(req.request_header, ua::status::bad_secure_channel_id_invalid, now);
  // Part 4 §5.7.4: allowed before activation too.
  last_closed_ = {s->session_id, req.delete_subscriptions, ua::status::good};
  const ua::guid key = s->authentication_token.guid_value();
  sessions_.erase(key);

  fill_header(close_response_.value.response_header, req.request_header, ua::status::good, now);
  routed r;
  r.response = &close_response_;
  r.closed = &last_closed_;
  return r;
}

std::span<const closed_session> session_manager::expire(std::chrono::steady_clock::time_point now) {
  expired_.clear();
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (now - it->second.last_activity > it->second.timeout) {
      // Part 4 §5.7.2.1: the server closes a session the client left idle past its timeout.
      expired_.push_back({it->second.session_id, true, ua::status::bad_timeout});
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
  return expired_;
}

std::span<const closed_session> session_manager::recheck_user_certificates(const instant& now) {
  expired_.clear();
  if (!config_.security || !config_.security->checker) return expired_;
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    const session& s = it->second;
    security::validation_options o;
    o.min_key_bits = s.channel_security.policy->min_key_bits;
    o.max_key_bits = s.channel_security.policy->max_key_bits;
    // The client application's certificate, as the channel's OpenSecureChannel checked it: a session
    // outlives its channel (it waits for a reconnect), so closing the channel alone would leave it.
    if (s.client_certificate) {
      const auto app = config_.security->checker->check(s.client_certificate, s.client_issuers, o, now.utc);
      if (!app.ok()) {
        // Part 12 §7.8.2.5: "Sessions ... with an untrusted or revoked Certificate shall be closed."
        spdlog::warn("session {} ({}) closed after the trust list changed: the client application certificate failed "
                     "the {} check ({}): {} [{}]",
                     s.session_id.to_string(), describe(s.identity), app.check, app.status.name(), app.detail,
                     s.client_certificate.describe());
        expired_.push_back({s.session_id, true, ua::status::bad_security_checks_failed});
        it = sessions_.erase(it);
        continue;
      }
    }
    if (!s.activated || !s.user_certificate) {
      ++it;
      continue;
    }
    // The same check as at ActivateSession (check_x509), against the trust list of now.
    const auto& user_checker = config_.security->user_checker ? config_.security->user_checker : config_.security->checker;
    const auto verdict = user_checker->check(s.user_certificate, o, now.utc);
    if (verdict.ok()) {
      ++it;
      continue;
    }
    spdlog::warn("session {} ({}) closed after the trust list changed: the X509 user certificate failed the {} check "
                 "({}): {} [{}]",
                 s.session_id.to_string(), describe(s.identity), verdict.check, verdict.status.name(), verdict.detail,
                 s.user_certificate.describe());
    expired_.push_back({s.session_id, true, ua::status::bad_identity_token_rejected});
    it = sessions_.erase(it);
  }
  return expired_;
}

}  // namespace uactor::actors
