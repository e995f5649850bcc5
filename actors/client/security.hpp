// The security of a client connection beyond policy None: which endpoint (policy and mode), our
// application instance certificate, the server certificate and its trust check, and what
// CreateSession and ActivateSession carry and check (Part 4 §5.7.2-3, §7.41). Plain functions
// over the requests and responses; the client actor calls them.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "actors/client/channel_state.hpp"
#include "actors/client/security_options.hpp"
#include "protocol/expected.hpp"
#include "protocol/generated/types.hpp"
#include "security/certificate.hpp"
#include "security/keys.hpp"

namespace uactor::actors {

struct client_session_security {
  client_channel_security channel;
  client_identity identity;
  std::string application_uri;
};

// For a policy other than None: GetEndpoints over a None channel (Part 4 §5.4.4), the endpoint of
// the policy and mode, its server certificate checked against the PKI's trusted/ (untrusted ones
// land in rejected/: Bad_CertificateUntrusted, with the log line saying how to trust it), and
// our certificate (created on first use). Policy None: nothing to fetch. Bad_SecurityPolicyRejected
// when the server offers no such endpoint.
ua::expected<client_session_security> resolve_client_security(const std::string& endpoint_url,
                                                               const client_security_options& options,
                                                               std::chrono::milliseconds timeout);

// CreateSession: ClientNonce and ClientCertificate (policy other than None); the ApplicationUri
// must be the one in our certificate.
void prepare_create_session(const client_session_security& sec, ua::create_session_request& req);
// Part 4 §5.7.2.2: the ServerCertificate is the channel's and ServerSignature verifies over
// ClientCertificate + ClientNonce. Good, Bad_CertificateInvalid or Bad_ApplicationSignatureInvalid.
ua::status_code check_create_session(const client_session_security& sec, const ua::byte_string& client_nonce,
                                     const ua::create_session_response& resp);
// ActivateSession: ClientSignature over ServerCertificate + ServerNonce, and the identity token
// for the endpoint's UserTokenPolicy of that kind (the password encrypted with the server's key,
// Part 4 §7.41.2.2; an X509 token signed, §5.7.3.2). Bad_IdentityTokenRejected when the endpoint
// offers no policy of the identity's kind.
ua::status_code prepare_activate_session(const client_session_security& sec, const ua::create_session_response& created,
                                         ua::activate_session_request& req);

}  // namespace uactor::actors
