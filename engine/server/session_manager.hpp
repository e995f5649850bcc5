// The sessions of one server (Part 4 §5.7): CreateSession, ActivateSession, CloseSession, session
// timeouts, and the authentication-token check in front of every other service. Plain state that
// the session actors wrap later; it owns its sessions and the responses it hands out.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/server/access/role_decision.hpp"
#include "engine/server/access/roles.hpp"
#include "engine/server/login_guard.hpp"
#include "engine/server/secure_channel_state.hpp"
#include "engine/server/server_security.hpp"
#include "engine/server/service_table.hpp"
#include "engine/server/services/browse.hpp"
#include "engine/server/services/history_read.hpp"
#include "engine/server/subscriptions/session_identity.hpp"
#include "security/ecc.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::actors {

// Fills its argument with random bytes: nonces and authentication tokens. A CSPRNG in a server,
// a fixed sequence in tests.
using random_source = std::function<void(std::span<std::uint8_t>)>;

struct session_config {
  std::size_t max_sessions = 1000;
  std::chrono::milliseconds min_session_timeout{10'000};
  std::chrono::milliseconds max_session_timeout{3'600'000};
  // Echoed as CreateSessionResponse.serverEndpoints; their UserTokenPolicies are what
  // ActivateSession accepts.
  ua::ua_array<ua::endpoint_description> endpoints;
  std::uint32_t max_request_message_size = 0;  // CreateSessionResponse.maxRequestMessageSize (0: no limit)
  std::uint16_t session_namespace = 1;         // of SessionId and AuthenticationToken
  std::size_t max_browse_continuation_points = services::service_limits{}.max_browse_continuation_points;  // per session
  random_source random;                        // required
  // Certificates, signatures and user identities (Part 4 §5.7.2-3, §7.41); null: policy None and
  // anonymous only. The channels register what they negotiated in it.
  std::shared_ptr<server_security> security;
  // Failed logins limited per user name and source address (docs/security.md "Login attempts").
  login_guard_config login;
  // The roles and their identity mapping rules (docs/security.md "Roles"); null: the well-known
  // roles with their default mappings (anonymous -> Anonymous, a checked user -> AuthenticatedUser).
  std::shared_ptr<const authz::role_registry> roles;
  // The URL of each endpoint (listener) in channel_peer::endpoint's numbering, for the roles'
  // Endpoints lists (Part 18 §4.4.1); empty: the first endpoint's URL of `endpoints`.
  std::vector<std::string> endpoint_urls;
};

inline constexpr std::size_t server_nonce_length = 32;  // Part 4 §5.7.2.2: at least 32 bytes

struct session {
  ua::node_id session_id;            // public: audit, address space (ns=1, numeric)
  ua::node_id authentication_token;  // secret: a random Guid
  ua::ua_string session_name;
  std::uint32_t channel_id = 0;      // the channel it is bound to
  security_offer channel_security;   // what that channel negotiated (the log's, when it is gone)
  bool activated = false;
  std::chrono::milliseconds timeout{};
  std::chrono::steady_clock::time_point last_activity{};
  ua::byte_string server_nonce;      // the last one sent
  ua::ua_string user_token_policy_id;  // of the identity accepted by ActivateSession
  ua::ua_string user_name;             // UserName identities: who activated it
  std::string client_application_uri;  // CreateSession's ClientDescription.applicationUri
  session_identity identity;           // set by each ActivateSession (TransferSubscriptions compares it)
  authz::role_set roles;              // granted by each ActivateSession from `identity` (Part 18 §4.4)
  std::uint64_t activations = 0;      // counted: a role answer for an earlier activation is stale
  security::certificate client_certificate;  // CreateSession's, when the channel is secured
  std::vector<security::certificate> client_issuers;  // its chain as the channel's OpenSecureChannel sent it
  // The X509 identity token's certificate of the last ActivateSession (empty for other tokens):
  // checked again when the trust list changes (Part 12 §7.8.2.5).
  security::certificate user_certificate;
  // The server identity CreateSession answered with (its channel's): what the client signs and
  // encrypts for while the session lives, also after ApplyChanges (docs/decisions/0056).
  std::shared_ptr<const own_identity> server_identity;
  // Part 6 §6.8.2: the EphemeralKey the last CreateSession or ActivateSession response gave the
  // client (ECDHKey) for an EccEncryptedSecret, its private half; null when none was asked for.
  // The next ActivateSession's password is encrypted for it; a successful one replaces it.
  std::shared_ptr<const security::ephemeral_key> ecdh_key;
  services::browse_continuations browse_points;  // Browse/BrowseNext continuation points (Part 4 §7.9)
  services::history_continuations history_points;  // HistoryRead's (Part 4 §5.10.3), gone with the session
};

// The expensive part of a CreateSession or an ActivateSession (docs/decisions/0022) with copies of
// its inputs, so that a crypto worker can run it while the sessions go on: the server signature
// of CreateSession (a private-key RSA operation), the ClientSignature of ActivateSession, and a
// UserName token's password (decrypted with the server key, then checked against its PBKDF2
// hash). route(..., &work) then uses the results instead of computing them; every cheap check
// still happens there, on the sessions' own thread.
struct session_crypto_work {
  const security::security_policy* policy = nullptr;
  security::rsa_key server_key;
  // CreateSession (Part 4 §5.7.2.2): ServerSignature = sign(ClientCertificate + ClientNonce).
  bool sign = false;
  std::vector<std::uint8_t> to_sign;
  // ActivateSession (Part 4 §5.7.3.2): ClientSignature over ServerCertificate + the session's
  // last ServerNonce, with the client certificate's key.
  bool verify_client = false;
  security::rsa_key client_key;
  std::vector<std::uint8_t> signed_data;
  std::vector<std::uint8_t> signed_data_chain;  // over the server's whole chain: the fallback of Part 4 §5.7.3.2
  ua::byte_string client_signature;
  // The session's ServerNonce when the work was prepared: the results count only while it is
  // still the session's (another activation in between would have changed it).
  ua::byte_string server_nonce;
  // A UserName token (Part 4 §7.41.2.2): the password as the token carries it.
  bool check_password = false;
  bool password_encrypted = false;
  std::string user_name;
  ua::byte_string password;
  std::shared_ptr<const security::user_store> users;
  // Part 6 §6.8.2: a fresh EphemeralKey of `policy`'s curve for the response's ECDHKey, signed
  // (ECDSA over its public key) with `server_key`.
  bool make_ecdh_key = false;
  // A password sent as an EccEncryptedSecret (Part 4 §7.41.2.5): the session's EphemeralKey it was
  // encrypted for, and the client application certificate that signed it (`client_key` its key).
  std::shared_ptr<const security::ephemeral_key> ecdh_key;
  std::vector<std::uint8_t> client_certificate_der;
  // The user name or the source address failed before (login_check::suspect): the crypto pool
  // serves this task after the others (docs/security.md "Login attempts").
  bool suspect = false;

  // Results, valid once `ran` (false: run() did not finish, and route() works them out itself).
  bool ran = false;
  ua::byte_string server_signature;
  bool client_signature_ok = false;
  ua::status_code password_verdict = ua::status::bad_user_access_denied;
  std::string password_why;  // why the verdict is Bad, for the log line route() writes
  std::shared_ptr<const security::ephemeral_key> new_ecdh_key;
  ua::byte_string new_ecdh_signature;

  // Thread-safe: touches only this object (and the user store, immutable once published).
  void run();
};

// A session that ended, for the caller to release what hangs off it (subscriptions, ...).
struct closed_session {
  ua::node_id session_id;
  bool delete_subscriptions = true;
  ua::status_code reason;  // Good for CloseSession, Bad_Timeout for a timeout, Bad_SessionNotActivated
};

class session_manager {
public:
  explicit session_manager(session_config config);

  struct routed {
    enum class action : std::uint8_t {
      respond,   // answered here: send *response for the request
      dispatch,  // a service for the caller to run, for `target` (null: a service without a session)
    };
    action what = action::respond;
    const ua::extension_body* response = nullptr;  // respond; valid until the next call
    session* target = nullptr;                     // dispatch
    const closed_session* closed = nullptr;        // a session this request ended; valid until the next call
    const session* activated = nullptr;            // a session this request (re)activated: its identity may be new
    // An ActivateSession for a session bound to another channel (Part 4 §5.7.3.1): moved, or
    // refused (the session stays on its channel, untouched).
    enum class move : std::uint8_t { none, moved, refused };
    move channel_move = move::none;
    // An ActivateSession refused by the login guard without checking its credentials, or whose
    // credentials were checked and wrong (`login_failed`), and whether that failure started a
    // lockout of the user name or the address (the host counts them: /metrics).
    login_refusal login_refused = login_refusal::none;
    bool login_failed = false;
    bool lockout_started = false;
    // An ActivateSession that succeeded and now waits for the application's role callback
    // (docs/decisions/0063): the question's id. The response is Good as it stands; the caller
    // holds it (and the requests behind it) until settle() says Good or a refusal.
    std::uint64_t role_question = 0;
  };

  // One decoded request from a channel. Session services (Create/Activate/CloseSession) are
  // answered here; discovery services (GetEndpoints, FindServers, RegisterServer) go to the
  // caller without a session; every other request is checked against its authentication token
  // (Bad_SessionIdInvalid, Bad_SecureChannelIdInvalid, Bad_SessionNotActivated) and goes to the
  // caller with its session, or is answered here with a ServiceFault.
  routed route(std::uint32_t channel_id, const ua::request_header& header, const ua::extension_object& request,
               const instant& now, const session_crypto_work* done = nullptr) {
    return route(channel_id, header, request, find_service(request), now, done);
  }
  // The same with the request's row of the service table already found (server_core::handle finds
  // it once); `service` says whether it needs a session.
  routed route(std::uint32_t channel_id, const ua::request_header& header, const ua::extension_object& request,
               const service_descriptor* service, const instant& now, const session_crypto_work* done = nullptr);

  // The crypto work of this request, to run elsewhere before route() (docs/decisions/0022); null
  // when it needs none (no security, not a session service, or refused by a cheap check anyway:
  // the login guard's refusals among them).
  std::shared_ptr<session_crypto_work> crypto_work(std::uint32_t channel_id, const ua::extension_object& request,
                                                   const instant& now) const;
  routed route(const service_request& r, const instant& now) {
    return route(r.channel_id, *r.header, *r.message, now);
  }

  // Closes the sessions idle for longer than their timeout (Part 4 §5.7.2.1). The span is valid
  // until the next call.
  std::span<const closed_session> expire(std::chrono::steady_clock::time_point now);
  // The trust list changed (Part 12 §7.8.2.5): each session of a secured channel has its client
  // application certificate checked again (with the chain its channel's OpenSecureChannel sent),
  // and each activated with an X509 user certificate that one too; a session either of them no
  // longer passes is closed (reason Bad_SecurityChecksFailed for the application's,
  // Bad_IdentityTokenRejected for the user's). The span is valid until the next call of this or
  // expire().
  std::span<const closed_session> recheck_user_certificates(const instant& now);

  std::size_t size() const noexcept { return sessions_.size(); }
  const session* find(const ua::node_id& authentication_token) const noexcept;
  session* find(const ua::node_id& authentication_token) noexcept { return lookup(authentication_token); }
  const session_config& config() const noexcept { return config_; }
  const login_guard& guard() const noexcept { return guard_; }
  // New roles and identity mappings (a reload): sessions get them at their next ActivateSession
  // (docs/decisions/0052); null: the default registry.
  void set_roles(std::shared_ptr<const authz::role_registry> roles);
  const authz::role_registry& roles() const noexcept { return *config_.roles; }
  std::shared_ptr<const authz::role_registry> roles_ptr() const noexcept { return config_.roles; }
  // New endpoints (ApplyChanges put a new certificate in them, docs/decisions/0056); the same token
  // policies.
  void set_endpoints(ua::ua_array<ua::endpoint_description> endpoints) { config_.endpoints = std::move(endpoints); }
  // New login limits (a reload, docs/security.md "Login attempts"); the counts so far stay.
  void set_login(const login_guard_config& c) { guard_.set_config(c); }
  // The application's role callback (docs/decisions/0063); null: none, the rules alone decide.
  void set_role_hook(authz::role_hook_ptr hook) { role_hook_ = std::move(hook); }
  const authz::role_hook_ptr& role_hook() const noexcept { return role_hook_; }
  // Questions raised since the caller last took them (it posts them with role_hook()->dispatch).
  std::vector<authz::role_question>& role_outbox() noexcept { return role_outbox_; }
  std::size_t roles_waiting() const noexcept { return role_waits_.size(); }
  // The answer to a question: the session's roles are worked out again with its claims and groups,
  // or the activation is undone (refused). Empty for an answer to no open question (late, twice).
  // `activated` is the session whose roles changed (null otherwise); valid until the next call.
  struct role_outcome {
    authz::role_settled settled;
    session* activated = nullptr;
  };
  std::span<const role_outcome> answer_roles(authz::role_answer&& a, const instant& now);
  // Every question past its deadline: settled as role_hook::refuse_on_timeout says.
  std::span<const role_outcome> expire_roles(const instant& now);

  // Refusal lines of ActivateSession not written (more than log_limiter's per second).
  std::uint64_t refusal_lines_suppressed() const noexcept { return refusal_log_.suppressed_total(); }

private:
  struct guid_hash {
    std::size_t operator()(const ua::guid& g) const noexcept;
  };

  routed create_session(std::uint32_t channel_id, const ua::create_session_request& req, const instant& now,
                        const session_crypto_work* done);
  routed activate_session(std::uint32_t channel_id, const ua::activate_session_request& req, const instant& now,
                          const session_crypto_work* done);
  routed close_session(std::uint32_t channel_id, const ua::close_session_request& req, const instant& now);
  // The token check; Good or the status to fault with.
  ua::status_code check(std::uint32_t channel_id, const ua::node_id& token, session*& out);
  session* lookup(const ua::node_id& token) noexcept;
  // An identity token checked against the channel and the session's nonce, not yet the session's.
  struct proven_identity {
    ua::ua_string policy_id;  // the UserTokenPolicy it matched
    ua::ua_string user_name;
    session_identity identity;
    std::string user_subject, user_issuer;  // an X509 user certificate's names (X509Subject rules)
    security::certificate user_certificate;   // an X509 token's
    std::string why;                  // a refusal's reason, for the log
    bool credential_checked = false;  // a refusal came from checking the password or the certificate
  };
  ua::status_code check_identity(const ua::activate_session_request& req, const channel_peer& channel,
                                 const session& s, const instant& now, const session_crypto_work* done,
                                 proven_identity& out) const;
  // A refused ActivateSession from another channel: logged with both channels and identities.
  routed refuse_move(const ua::activate_session_request& req, ua::status_code result, const session& s,
                     std::uint32_t channel_id, const channel_peer& peer, std::string_view why, const instant& now);
  // Part 6 §6.8.2: the ECDHKey of a CreateSession or ActivateSession response when the request
  // asked for one (`s` keeps its private half), a done worker's or made here.
  void answer_ecdh(const ua::request_header& req, const security::security_policy& policy,
                   const security::rsa_key& server_key, const session_crypto_work* done, session& s,
                   ua::response_header& resp);
  ua::status_code check_user_name(const ua::user_name_identity_token& t, const channel_peer& channel,
                                  const session& s, const session_crypto_work* done, std::string& why) const;
  ua::status_code check_x509(const ua::x509_identity_token& t, const ua::signature_data& signature,
                             const channel_peer& channel, const session& s, const instant& now,
                             proven_identity& out) const;
  // Whether an ActivateSession refusal may have its log line now: false while a storm has used
  // this second's lines up (log_limiter; the next line that may go says how many were left out).
  bool may_log_refusal(const instant& now) const;
  channel_peer channel(std::uint32_t channel_id) const;
  routed fault(const ua::request_header& header, ua::status_code result, const instant& now);
  void new_nonce(ua::byte_string& nonce);
  // A fresh AuthenticationToken into `out`; false when 8 draws of the random source were all in use.
  bool new_token(ua::guid& out);
  // A question to the role callback for `s`, just activated with `facts`.
  std::uint64_t ask_roles(session& s, const authz::session_facts& facts, const instant& now);
  void settle_roles(std::uint64_t id, authz::role_answer&& a);

  // An open question: the session it is about (by token and activation) and the facts the rules
  // look at again with the answer's claims and groups.
  struct role_wait {
    ua::guid token;
    std::uint64_t activation = 0;
    std::chrono::steady_clock::time_point deadline{};
    std::string user_subject, user_issuer, application_uri, endpoint_url, security_policy_uri, transport_profile_uri;
    bool trusted_application = false;
    ua::message_security_mode security_mode = ua::message_security_mode::none;
  };
  authz::role_hook_ptr role_hook_;
  std::unordered_map<std::uint64_t, role_wait> role_waits_;
  std::vector<authz::role_question> role_outbox_;
  std::vector<role_outcome> role_outcomes_;
  std::uint64_t next_role_question_ = 1;

  session_config config_;
  std::vector<ua::user_token_policy> policies_;  // of every endpoint
  std::unordered_map<ua::guid, session, guid_hash> sessions_;  // by authentication token
  std::uint32_t next_session_number_ = 1;
  login_guard guard_;
  mutable log_limiter refusal_log_;  // crypto_work() is const and may refuse too

  ua::typed_extension_body<ua::create_session_response> create_response_;
  ua::typed_extension_body<ua::activate_session_response> activate_response_;
  ua::typed_extension_body<ua::close_session_response> close_response_;
  ua::typed_extension_body<ua::service_fault> fault_;
  closed_session last_closed_;
  std::vector<closed_session> expired_;
};

}  // namespace uactor::actors
