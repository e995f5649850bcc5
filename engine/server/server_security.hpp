// What a server needs to secure its channels and sessions (Part 4 §5.5, §5.7, §6.1; Part 6 §6.7):
// the policies and modes it offers, its application instance certificate and key, the trust
// checks of peer certificates, the user identities it accepts, and what each open channel
// negotiated (the session services need the channel's policy and client certificate).
// Shared by the connections (multiplexer thread) and the session host (possibly another thread):
// immutable after start-up except the parts behind their own lock.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "uactor/ua/builtin_types.hpp"
#include "uactor/ua/expected.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "security/certificate.hpp"
#include "security/keys.hpp"
#include "security/password_hash.hpp"
#include "security/pki_store.hpp"
#include "security/policy.hpp"

namespace uactor::actors {

// One SecurityPolicy and MessageSecurityMode the server offers: one endpoint (Part 4 §7.14).
struct security_offer {
  const security::security_policy* policy = &security::policy_none();
  ua::message_security_mode mode = ua::message_security_mode::none;
};

// The trust decision on a peer certificate: the PKI store (which locks itself: connections and
// the session host may run on different threads). Tests may substitute their own.
class certificate_checker {
public:
  virtual ~certificate_checker() = default;
  // `issuers`: the certificates the peer sent after its leaf (Part 6 §6.7.2.3), untrusted: they
  // may complete the chain, never make it trusted.
  virtual security::validation_result check(const security::certificate& peer,
                                            std::span<const security::certificate> issuers,
                                            const security::validation_options& o, ua::date_time now) = 0;
  security::validation_result check(const security::certificate& peer, const security::validation_options& o,
                                    ua::date_time now) {
    return check(peer, {}, o, now);
  }
};

class pki_checker final : public certificate_checker {
public:
  explicit pki_checker(std::shared_ptr<security::pki_store> store) : store_(std::move(store)) {}
  using certificate_checker::check;
  security::validation_result check(const security::certificate& peer, std::span<const security::certificate> issuers,
                                    const security::validation_options& o, ua::date_time now) override {
    return store_->validate(peer, issuers, o, now);
  }

private:
  std::shared_ptr<security::pki_store> store_;
};

// The users ActivateSession checks. Replaced whole while sessions run (a reload, SIGHUP for
// `uactor run`); a check holds the set it started with. A mutex, not an atomic shared_ptr: one
// lock per UserName activation, never on a service path.
class user_directory {
public:
  std::shared_ptr<const security::user_store> get() const {
    std::lock_guard lock(mutex_);
    return users_;
  }
  void set(std::shared_ptr<const security::user_store> users) {
    std::lock_guard lock(mutex_);
    users_ = std::move(users);
  }

private:
  mutable std::mutex mutex_;
  std::shared_ptr<const security::user_store> users_;
};

// What ActivateSession can check (Part 4 §7.41), server-wide; each endpoint offers a subset
// (endpoint_security), and UserName is offered only where the password travels encrypted (a
// channel that encrypts, or a token policy that encrypts it with the server's key): never in
// clear text.
struct identity_config {
  bool anonymous = true;
  bool user_name = true;  // with the users below (offered from the start: the endpoints do not change)
  bool x509 = true;       // user certificates checked against the trust store
  user_directory users;
};

// The user token types one endpoint offers (Part 4 §7.42 UserTokenPolicy.tokenType).
struct user_token_set {
  bool anonymous = true;
  bool user_name = true;  // where the server has users (identity_config::user_name) and not over None
  bool x509 = true;       // not over None
};

// One endpoint of the server, one listener (Part 4 §5.4.4: GetEndpoints lists every endpoint's
// offers): the policies and modes an OPN through it may ask for, the token types its sessions
// may activate with.
struct endpoint_security {
  std::vector<security_offer> offers;  // in the order GetEndpoints lists them
  user_token_set tokens;
};

// The server's application instance certificate, the CAs that issued it (sent after it) and its
// private key, as one value: a channel and a session keep the one they started with, and
// ApplyChanges (Part 12 §7.10.9) replaces it whole for the channels that open after it.
struct own_identity {
  security::certificate certificate;
  std::vector<security::certificate> issuers;
  security::rsa_key private_key;
  std::vector<std::uint8_t> chain() const { return security::chain_der(certificate, issuers); }
};

// The identity that replaced the start-up one, behind a lock (connections and the session host
// read it on their threads; one lock per OpenSecureChannel or CreateSession, never per request).
class identity_slot {
public:
  std::shared_ptr<const own_identity> get() const {
    std::lock_guard lock(mutex_);
    return identity_;
  }
  void set(std::shared_ptr<const own_identity> id) {
    std::lock_guard lock(mutex_);
    identity_ = std::move(id);
  }

private:
  mutable std::mutex mutex_;
  std::shared_ptr<const own_identity> identity_;
};

// The ECC identities ApplyChanges replaced, by curve (docs/decisions/0064): as identity_slot, one
// lock per OpenSecureChannel or CreateSession of an ECC policy.
class curve_identity_slots {
public:
  std::shared_ptr<const own_identity> get(std::string_view curve) const {
    std::lock_guard lock(mutex_);
    for (const auto& [c, id] : ids_)
      if (c == curve) return id;
    return nullptr;
  }
  void set(std::string_view curve, std::shared_ptr<const own_identity> id) {
    std::lock_guard lock(mutex_);
    for (auto& [c, held] : ids_)
      if (c == curve) {
        held = std::move(id);
        return;
      }
    ids_.emplace_back(std::string(curve), std::move(id));
  }

private:
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, std::shared_ptr<const own_identity>>> ids_;
};

// DefaultHttpsGroup's certificate (Part 12 §7.8.3.3): the TLS certificate the opc.wss endpoints
// present. `current` holds the one in use (set at start); ApplyChanges of the group replaces it and
// writes it where it came from; each new TLS connection takes the one of its accept, a running one
// keeps its own (docs/decisions/0078).
struct https_certificate {
  identity_slot current;
  std::string certificate_file;  // where ApplyChanges writes the new certificate (with its issuers)
  std::string key_file;          // and its key
  bool pem = false;  // the plant file's wss_certificate / wss_private_key (PEM); else DER as own/ keeps it
};

// What a channel negotiated, for the session services.
struct channel_peer {
  const security::security_policy* policy = &security::policy_none();
  ua::message_security_mode mode = ua::message_security_mode::none;
  security::certificate client_certificate;  // empty for policy None
  std::uint16_t endpoint = 0;                // the endpoint (listener) it came through
  std::string address = {};                  // the peer's IP address (the login guard's); empty: not known
  std::shared_ptr<const own_identity> identity = {};  // the server identity of its OpenSecureChannel
  std::vector<security::certificate> client_issuers = {};  // the chain its OpenSecureChannel sent after the leaf
};

class channel_directory {
public:
  void put(std::uint32_t channel_id, channel_peer peer) {
    std::lock_guard lock(mutex_);
    channels_.insert_or_assign(channel_id, std::move(peer));
  }
  void erase(std::uint32_t channel_id) {
    std::lock_guard lock(mutex_);
    channels_.erase(channel_id);
  }
  // A copy: the entry may go while the caller uses it. A channel never registered (policy None)
  // reads as None.
  channel_peer get(std::uint32_t channel_id) const {
    std::lock_guard lock(mutex_);
    const auto it = channels_.find(channel_id);
    return it == channels_.end() ? channel_peer{} : it->second;
  }

private:
  mutable std::mutex mutex_;
  std::unordered_map<std::uint32_t, channel_peer> channels_;
};

struct server_security {
  // Every endpoint's offers, in the order GetEndpoints lists them (with one endpoint: its offers).
  std::vector<security_offer> offers;
  // Per endpoint (server_options::endpoints' order). Empty: one endpoint offering `offers` and
  // the token types `identities` allows.
  std::vector<endpoint_security> endpoints;
  security::certificate certificate;   // required when any offer is not None
  // The CAs that issued `certificate`, sent after it in the OPN, the endpoints and CreateSession
  // (Part 6 §6.7.2.3); empty for a self-signed one.
  std::vector<security::certificate> certificate_issuers;
  security::rsa_key private_key;
  // The application certificates of the ECC policies (Part 12 §7.8.4: one per certificate type,
  // EccNistP256ApplicationCertificateType ...), one per curve an offer needs; the RSA policies
  // use `certificate` above. docs/decisions/0055.
  struct curve_identity {
    std::string curve;  // security_policy::curve
    security::certificate certificate;
    std::vector<security::certificate> issuers;
    security::rsa_key private_key;
  };
  std::vector<curve_identity> ecc_identities;
  std::shared_ptr<certificate_checker> checker;  // required when any offer is not None
  // X509 user tokens (Part 12 §7.8.3.3 DefaultUserTokenGroup's TrustList; docs/decisions/0078);
  // null: `checker`, the application trust list.
  std::shared_ptr<certificate_checker> user_checker;
  // The opc.wss endpoints' TLS certificate (DefaultHttpsGroup); null without one the server manages.
  std::shared_ptr<https_certificate> https;
  std::shared_ptr<security::pki_store> store;    // the checker's store (null without secured offers)
  identity_config identities;
  channel_directory channels;

  // Set by ApplyChanges (docs/decisions/0056): replaces the three fields above for every channel
  // and session that starts after it; those running keep theirs.
  identity_slot replaced;
  // The same for an ECC curve's identity of `ecc_identities` (docs/decisions/0064).
  curve_identity_slots replaced_ecc;

  // What the server sends as its certificate: the leaf, then its issuers.
  std::vector<std::uint8_t> certificate_chain() const { return own()->chain(); }
  // The identity new channels and sessions use now.
  std::shared_ptr<const own_identity> own() const {
    if (auto r = replaced.get()) return r;
    return std::make_shared<const own_identity>(own_identity{certificate, certificate_issuers, private_key});
  }

  // The identity channels and sessions of `policy` use now: for an RSA policy own() (ApplyChanges
  // may have replaced it), for an ECC policy its curve's (null when the server has none for it).
  std::shared_ptr<const own_identity> identity_for(const security::security_policy& p) const {
    if (!p.is_ecc()) return own();
    if (auto r = replaced_ecc.get(p.curve)) return r;
    for (const auto& e : ecc_identities)
      if (e.curve == p.curve) return std::make_shared<const own_identity>(own_identity{e.certificate, e.issuers, e.private_key});
    return nullptr;
  }
  // The identity of a channel: the one its OpenSecureChannel took, else (a channel that took none)
  // its policy's now.
  std::shared_ptr<const own_identity> identity_of(const channel_peer& peer) const {
    return peer.identity ? peer.identity : identity_for(*peer.policy);
  }

  bool is_offered(const security::security_policy& p, ua::message_security_mode m) const noexcept {
    for (const auto& o : offers)
      if (o.policy == &p && o.mode == m) return true;
    return false;
  }
  bool is_offered(const security::security_policy& p) const noexcept {
    for (const auto& o : offers)
      if (o.policy == &p) return true;
    return false;
  }
  // The same for one endpoint: what a channel through it may negotiate (Part 6 §6.7.4).
  bool is_offered_at(std::size_t endpoint, const security::security_policy& p, ua::message_security_mode m) const noexcept {
    if (endpoints.empty()) return is_offered(p, m);
    if (endpoint >= endpoints.size()) return false;
    for (const auto& o : endpoints[endpoint].offers)
      if (o.policy == &p && o.mode == m) return true;
    return false;
  }
  bool is_offered_at(std::size_t endpoint, const security::security_policy& p) const noexcept {
    if (endpoints.empty()) return is_offered(p);
    if (endpoint >= endpoints.size()) return false;
    for (const auto& o : endpoints[endpoint].offers)
      if (o.policy == &p) return true;
    return false;
  }
  // The token types an endpoint offers, before the server-wide limits (users, None).
  user_token_set tokens_at(std::size_t endpoint) const noexcept {
    if (endpoints.empty()) return {identities.anonymous, true, true};
    if (endpoint >= endpoints.size()) return {false, false, false};
    return endpoints[endpoint].tokens;
  }
  std::size_t endpoint_count() const noexcept { return endpoints.empty() ? 1 : endpoints.size(); }
};

// Offers from their names: "all" (None, then each RSA policy in Sign and SignAndEncrypt), "none",
// "secure" (the RSA policies), "ecc" (each ECC policy in both modes), or "POLICY:MODE" with POLICY
// a Part 7 name (Basic256Sha256, Aes128_Sha256_RsaOaep, Aes256_Sha256_RsaPss, ECC_nistP256,
// ECC_nistP384, ECC_brainpoolP256r1, ECC_brainpoolP384r1, ECC_curve25519, ECC_curve448) and MODE Sign or SignAndEncrypt (any case).
// Bad_InvalidArgument naming nothing known.
ua::expected<std::vector<security_offer>> parse_security_offers(const std::vector<std::string>& names);
std::string to_string(const security_offer& o);

// The SecurityLevel GetEndpoints gives an offer (Part 4 §7.14: relative, higher is better).
std::uint8_t security_level(const security_offer& o) noexcept;

}  // namespace uactor::actors
