// What an application asks of a client connection's security (Part 4 §5.5, §5.7, §7.41): the
// endpoint's policy and mode, where the certificates live, and who the session is for. Plain
// data for client_options; runtime/client_security.hpp turns it into what the channel needs.
#pragma once

#include <cstdint>
#include <string>

#include "uactor/ua/types.hpp"

namespace uactor {

// Who the session is for (Part 4 §7.41).
struct client_identity {
  enum class kind : std::uint8_t { anonymous, user_name, x509 };
  kind type = kind::anonymous;
  std::string user_name;
  std::string password;
  // x509: the user's certificate (DER, or PEM: the first block) and its unencrypted private key in
  // PEM, as the files hold them; checked when the client connects (Bad_CertificateInvalid).
  std::string certificate;
  std::string private_key_pem;
};

struct client_security_options {
  std::string policy = "None";     // a Part 7 name (Basic256Sha256, Aes128_Sha256_RsaOaep, Aes256_Sha256_RsaPss,
                                   // ECC_nistP256, ECC_nistP384, ECC_brainpoolP256r1, ECC_brainpoolP384r1,
                                   // ECC_curve25519, ECC_curve448) or URI
  ua::message_security_mode mode = ua::message_security_mode::none;  // Sign or SignAndEncrypt with a policy
  std::string pki_dir;             // own/ (created on first use), trusted/ (the server's certificate); default ./pki
  std::string application_uri;     // in our certificate and CreateSession; default urn:<host>:uactor:client
  // The name of our certificate in own/ (own/certs/NAME.der). A server registering with a discovery
  // server uses its own, "uactor" (Part 4 §5.4.5: the registration's ServerUri must be the
  // certificate's ApplicationUri).
  std::string certificate_name = "uactor-client";
  client_identity identity;
  // Tools and tests: a server certificate that is not in trusted/ but passes the other checks
  // (validity period, ApplicationUri) is accepted for this connection, with a warning; it still
  // lands in rejected/ for an operator to trust.
  bool accept_untrusted_server_certificate = false;
  // Part 4 §6.1.3: the host of the endpoint URL must be one of the server certificate's
  // subjectAltName DNS names or IP addresses (Bad_CertificateHostNameInvalid). The check is
  // suppressible there: off for a server reached under a name its certificate does not carry
  // (a tunnel, a NAT address), never for a secure deployment by default.
  bool check_server_host_name = true;
};

}  // namespace uactor
