// Which endpoint a client connection beyond policy None uses (policy and mode), our application
// instance certificate, and the server certificate with its trust check: resolved before the
// client actor starts, over a GetEndpoints of its own.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "uactor/client_security.hpp"
#include "engine/client/session_security.hpp"
#include "uactor/ua/expected.hpp"
#include "uactor/ua/types.hpp"

namespace uactor::actors {

// For a policy other than None: GetEndpoints over a None channel (Part 4 §5.4.4), the endpoint of
// the policy and mode, its server certificate checked against the PKI's trusted/ (untrusted ones
// land in rejected/: Bad_CertificateUntrusted, with the log line saying how to trust it), and
// our certificate (created on first use). Policy None: nothing to fetch. Bad_SecurityPolicyRejected
// when the server offers no such endpoint.
// `fetch`, when set, asks for the endpoints instead of a GetEndpoints to endpoint_url (reverse
// connect: the server must dial first); endpoint_url may then be empty (the chosen endpoint's URL
// is checked against the certificate then).
using endpoints_fetch = std::function<ua::expected<ua::get_endpoints_response>()>;
ua::expected<client_session_security> resolve_client_security(const std::string& endpoint_url,
                                                               const client_security_options& options,
                                                               std::chrono::milliseconds timeout,
                                                               const endpoints_fetch& fetch = nullptr);

}  // namespace uactor::actors
