// The security of a client session beyond policy None: what CreateSession and ActivateSession carry
// and check (Part 4 §5.7.2-3, §7.41), given the endpoint, the certificates and the identity
// (runtime/client_security.hpp resolves them). Plain functions over the requests and responses;
// the client actor calls them.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "engine/client/channel_state.hpp"
#include "uactor/client_security.hpp"
#include "uactor/ua/expected.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "security/certificate.hpp"
#include "security/keys.hpp"

namespace uactor::actors {

// The session's identity (client_identity) with its certificate and key parsed.
struct client_user_identity {
  client_identity::kind type = client_identity::kind::anonymous;
  std::string user_name;
  std::string password;
  security::certificate certificate;
  security::rsa_key private_key;
};

struct client_session_security {
  client_channel_security channel;
  client_user_identity identity;
  std::string application_uri;
};

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
// Over an ECC policy the password goes as an EccEncryptedSecret for the EphemeralKey of the last
// response (`created.response_header`'s ECDHKey, Part 6 §6.8.2), and the request asks for the next.
ua::status_code prepare_activate_session(const client_session_security& sec, const ua::create_session_response& created,
                                         ua::activate_session_request& req);
// After an ActivateSession: what the next one needs of its response (the ServerNonce, the ECDHKey).
void remember_activation(ua::create_session_response& session, const ua::activate_session_response& resp);

}  // namespace uactor::actors
