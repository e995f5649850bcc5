// Push certificate management (Part 12 §7.10 ServerConfiguration, §7.8 TrustListType): the
// namespace-0 ServerConfiguration Object under the Server Object comes alive. Its TrustList is a
// file (file_objects) whose bytes are a TrustListDataType made from and written to the PKI folders;
// UpdateCertificate and CreateSigningRequest prepare a new identity that ApplyChanges installs for
// the channels that open after it, while running channels and sessions keep theirs. Changes that
// wait for ApplyChanges (UpdateCertificate, CloseAndUpdate) form one transaction of the session that
// made them (Part 12 §7.10.2; docs/decisions/0064). Only a session with the SecurityAdmin role over
// SignAndEncrypt may call any of it. Plain state in the session host, no CAF (docs/decisions/0056).
// Three certificate groups (Part 12 §7.8.3.3, docs/decisions/0078): DefaultApplicationGroup (the
// application certificates and trust list), DefaultHttpsGroup (the opc.wss TLS certificate, its
// trust list in <pki>/https) and DefaultUserTokenGroup (the trust list of X509 user tokens, in
// <pki>/user once written; until then the application trust list).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/server/access/permissions.hpp"
#include "engine/server/certificates/transaction_diagnostics.hpp"
#include "engine/server/files/file_objects.hpp"
#include "engine/server/server_security.hpp"
#include "protocol/address_space.hpp"
#include "security/trust_list.hpp"

namespace uactor::actors {

struct certificate_management_config {
  // The server's security: its store's folders hold the trust list, its identity is replaced by
  // ApplyChanges. Required.
  std::shared_ptr<server_security> security;
  std::string application_uri;          // must be the URI of a new certificate; the CSR's SAN URI
  std::vector<std::string> host_names;  // the CSR's SAN DNS/IP (empty: the current certificate's)
  std::uint32_t max_trust_list_size = 1u << 20;  // MaxTrustListSize: bytes of a TrustListDataType
  std::size_t max_rejected = 100;                // GetRejectedList returns at most this many
  std::string own_name = "uactor";               // own/certs/<name>.der, own/private/<name>.pem
  // ResetToServerDefaults (Part 12 §7.10.13): the trust list the plant file configures (its
  // pki.trust certificates, DER); the rest of the lists is emptied and a new self-signed
  // certificate made as on first start.
  std::vector<security::der_bytes> default_trust;
  // TrustList ActivityTimeout (Part 12 §7.8.2.1): a TrustList left open this long without a call
  // on it is closed (its writes dropped).
  std::chrono::milliseconds activity_timeout{60'000};
};

// Who calls: the session's roles and its channel's mode (Part 12 §7.2: SecurityAdmin over an
// encrypted channel).
struct config_caller {
  std::uint32_t session = 0;
  authz::role_set roles{};
  ua::message_security_mode mode = ua::message_security_mode::none;
};

// What the last call did, for the server's audit event (Part 12 §7.10.12 CertificateUpdatedAuditEventType,
// §7.8.2.8 TrustListUpdatedAuditEventType, 1.05 CertificateUpdateRequestedAuditEventType).
struct certificate_audit {
  std::uint32_t event_type = 0;  // 0: no event
  std::uint32_t method = 0;      // the Method's NodeId (ns=0)
  std::string name;              // "ServerConfiguration/UpdateCertificate", for SourceName
  ua::status_code result;
  // CertificateUpdatedAuditEventType's CertificateType: the type of each certificate the call
  // updated (UpdateCertificate: the one it names; ApplyChanges, ResetToServerDefaults: each one
  // they installed), one event each; empty: RsaSha256ApplicationCertificateType.
  std::vector<std::uint32_t> certificate_types;
  // The CertificateGroup of each of certificate_types (the same length, or empty: all
  // DefaultApplicationGroup).
  std::vector<std::uint32_t> certificate_groups;
};

// Part 12 §7.8.3.3: the certificate groups of the server.
enum class certificate_group : std::uint8_t { application, https, user_token };

class server_configuration {
public:
  explicit server_configuration(certificate_management_config config);

  // The TrustList attached as a file and ServerConfiguration's Variables set (ServerCapabilities,
  // SupportedPrivateKeyFormats, MaxTrustListSize, CertificateTypes, LastUpdateTime, UpdateFrequency).
  // Bad_NodeIdUnknown when namespace 0 lacks ServerConfiguration.
  ua::status_code install(ua::address_space& as, file_objects& files, ua::date_time now);

  // Whether `object` is ServerConfiguration or a certificate group's TrustList.
  bool handles(ua::node_index object) const noexcept { return object == configuration_ || group_of_trust_list(object); }

  // One method on either object, after services::check_call. Bad_UserAccessDenied without
  // SecurityAdmin, Bad_SecurityModeInsufficient below SignAndEncrypt; then each method's own.
  ua::status_code call(const config_caller& who, ua::node_index object, ua::node_index method,
                       std::span<const ua::variant> in, std::vector<ua::variant>& out, ua::address_space& as,
                       file_objects& files, ua::date_time now);

  const certificate_audit& last_audit() const noexcept { return audit_; }
  // True once after an ApplyChanges installed a new identity: the caller refreshes what embeds the
  // certificate (the endpoints GetEndpoints and CreateSession return).
  bool take_identity_changed() noexcept { return std::exchange(identity_changed_, false); }
  // Whether the trust list changed since the last call (CloseAndUpdate, AddCertificate,
  // RemoveCertificate): the open channels' client certificates are to be checked again.
  bool take_trust_changed() noexcept { return std::exchange(trust_changed_, false); }
  // A new certificate waits for ApplyChanges.
  bool pending() const noexcept { return tx_ && !tx_->certificates.empty(); }
  // The session whose transaction waits for ApplyChanges (0: none).
  std::uint32_t transaction_session() const noexcept { return tx_ ? tx_->session : 0; }
  // The session ended (closed, timed out) at `now` (none: the last call's time): its transaction
  // is dropped (Part 12 §7.10.9), TransactionDiagnostics says so (Bad_SessionClosed).
  void session_closed(std::uint32_t session, std::optional<ua::date_time> now = std::nullopt);
  // The housekeeping tick: a TrustList open with no call on it for ActivityTimeout is closed.
  // Returns how many handles were closed.
  std::size_t expire(ua::address_space& as, file_objects& files, ua::date_time now);

  // The folder of a group's trust list (trusted/, issuers/ under it): the PKI root, <pki>/https,
  // <pki>/user (the PKI root while <pki>/user does not exist: docs/decisions/0078).
  std::filesystem::path trust_root(certificate_group g) const;

private:
  // One certificate group's nodes and its TrustList's state.
  struct group_state {
    certificate_group which = certificate_group::application;
    std::uint32_t group_id = 0;  // its Object's NodeId (ns=0)
    ua::node_index trust_list = ua::no_node, last_update = ua::no_node;
    ua::date_time activity{};  // the last call on its TrustList (ActivityTimeout)
  };
  const group_state* group_of_trust_list(ua::node_index object) const noexcept {
    for (const auto& g : groups_)
      if (g.trust_list == object && object != ua::no_node) return &g;
    return nullptr;
  }
  group_state& group(certificate_group g) { return groups_[static_cast<std::size_t>(g)]; }
  ua::status_code install_group(group_state& g, ua::address_space& as, file_objects& files, ua::date_time now);
  ua::status_code trust_list_call(const config_caller& who, group_state& g, std::string_view name,
                                  std::span<const ua::variant> in, std::vector<ua::variant>& out,
                                  ua::address_space& as, file_objects& files, ua::date_time now, ua::node_index method);
  // The user token group's trust list gets folders of its own at its first change: a copy of the
  // application's, which it was until then (docs/decisions/0078).
  ua::status_code separate_user_trust();
  ua::status_code update_certificate(const config_caller& who, std::span<const ua::variant> in,
                                     std::vector<ua::variant>& out);
  ua::status_code create_signing_request(std::span<const ua::variant> in, std::vector<ua::variant>& out);
  ua::status_code apply_changes(const config_caller& who, ua::address_space& as, file_objects& files, ua::date_time now);
  ua::status_code cancel_changes(const config_caller& who);
  ua::status_code get_certificates(std::span<const ua::variant> in, std::vector<ua::variant>& out) const;
  ua::status_code reset_to_defaults(ua::address_space& as, file_objects& files, ua::date_time now);
  // Writes `identity` into own/ (the old one kept as .previous) and has new channels use it.
  // `curve`: "" for the RSA certificate, else the ECC curve's (security_policy::curve).
  ua::status_code install_identity(std::shared_ptr<const own_identity> identity, std::string_view by,
                                   std::string_view curve);
  void trust_list_changed(group_state& g, ua::address_space& as, file_objects& files, ua::date_time now);
  std::string trust_list_bytes(certificate_group g, std::uint32_t masks) const;
  // DefaultHttpsGroup's certificate methods (docs/decisions/0078).
  ua::status_code update_https_certificate(const config_caller& who, std::span<const ua::variant> in,
                                           std::vector<ua::variant>& out);
  ua::status_code install_https(std::shared_ptr<const own_identity> identity, std::string_view by);
  // Whether another session's transaction waits (Part 12 §7.10.2: Bad_TransactionPending).
  bool other_transaction(const config_caller& who) const noexcept { return tx_ && tx_->session != who.session; }

  // Part 12 §7.10.2: what waits for ApplyChanges, and whose it is.
  struct transaction {
    std::uint32_t session = 0;
    // UpdateCertificate's, by curve ("" for the RSA certificate, "https" for DefaultHttpsGroup's).
    std::map<std::string, std::shared_ptr<const own_identity>> certificates;
    // CloseAndUpdate's, the lists it names, by group.
    std::map<certificate_group, security::trust_list_contents> trust;
  };

  certificate_management_config config_;
  ua::node_index configuration_ = ua::no_node;
  std::vector<group_state> groups_;  // by certificate_group; DefaultApplicationGroup always
  // The open transaction; the keys CreateSigningRequest made (by curve, "" for RSA) until a
  // certificate for them comes.
  std::optional<transaction> tx_;
  std::map<std::string, security::rsa_key> new_keys_;
  bool identity_changed_ = false;
  bool trust_changed_ = false;
  certificate_audit audit_;
  // TransactionDiagnostics (Part 12 §7.10.17) in the address space the last call() was given.
  transaction_diagnostics diagnostics_;
  ua::address_space* space_ = nullptr;
  ua::date_time now_{};
  void transaction_started(const config_caller& who);
};

}  // namespace uactor::actors
