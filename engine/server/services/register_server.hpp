// RegisterServer and RegisterServer2 (Part 4 §5.4.5, §5.4.6), as a Local Discovery Server answers
// them: who may register (a secured channel whose client certificate names the server), what a
// registration must hold, and the registry they change (server_registry.hpp).
#pragma once

#include <string>

#include "engine/common/clock.hpp"
#include "engine/server/services/server_registry.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::services {

// The channel a registration came over: its mode, and the ApplicationUri of the client certificate
// it was opened with (trusted: the channel checked it against the PKI when it opened).
struct registering_channel {
  ua::message_security_mode mode = ua::message_security_mode::none;
  std::string certificate_application_uri;
};

// The checks of Part 4 §5.4.5, in order: a channel that authenticates its client
// (Bad_SecurityModeInsufficient over None), a ServerUri (Bad_ServerUriInvalid when empty) that the
// certificate names (the GatewayServerUri's when a gateway registers others; Bad_ServerUriInvalid
// otherwise), not a Client (Bad_InvalidArgument), a name (Bad_ServerNameMissing), a DiscoveryUrl
// (Bad_DiscoveryUrlMissing), a semaphore file that exists when one is named
// (Bad_SempahoreFileMissing, the spelling of StatusCode.csv). `why` says which, for the log.
ua::status_code check_registration(const ua::registered_server& s, const registering_channel& channel, std::string& why);

// The services: the checks, then the registry. Good, a refusal above, or Bad_TooManyOperations
// when the registry is full. RegisterServer2 answers one ConfigurationResult per
// DiscoveryConfiguration: Good for an MdnsDiscoveryConfiguration (its name and capabilities are
// kept for FindServersOnNetwork), Bad_NotSupported for any other.
void service_register_server(const ua::register_server_request& req, ua::register_server_response& resp,
                             server_registry& registry, const registering_channel& channel,
                             const actors::instant& now, std::string& why);
void service_register_server2(const ua::register_server2_request& req, ua::register_server2_response& resp,
                              server_registry& registry, const registering_channel& channel,
                              const actors::instant& now, std::string& why);

}  // namespace uactor::services
