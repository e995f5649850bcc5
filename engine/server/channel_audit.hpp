// What the audit events of a secure channel need, made on the connection's thread and raised by
// the session host (server_core::audit_channel). Plain data: no CAF, no OpenSecureChannel state.
#pragma once

#include <cstdint>
#include <string>

#include "protocol/generated/type_codecs.hpp"

namespace uactor::actors {

// One audited action of a secure channel (Part 4 §6.5.5, Part 5 §6.4.5 and §6.4.6): an
// OpenSecureChannel (every Issue, a Renew only when refused), a CloseSecureChannel, or a client
// certificate the checks refused (Part 5 §6.4.8+, raised before the refused open it belongs to).
// Made on the connection's thread, raised as an event by the session host.
struct channel_audit {
  enum class kind : std::uint8_t { open, close, certificate };
  kind what = kind::open;
  std::uint32_t channel_id = 0;
  ua::status_code status;  // the result; for `certificate`, the check's (Bad_CertificateUntrusted, ...)
  ua::security_token_request_type request_type = ua::security_token_request_type::issue;
  std::string security_policy_uri;
  ua::message_security_mode security_mode = ua::message_security_mode::invalid;  // unknown until decoded
  double requested_lifetime = 0;                                                  // ms
  ua::byte_string client_certificate;  // DER of the client's certificate (null: none or policy None)
  std::string client_certificate_thumbprint;
  ua::ua_string client_audit_entry_id;
  std::string reason;  // what the log says (the peer only sees the status)
};

}  // namespace uactor::actors
