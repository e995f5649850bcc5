// Certificates for a secured load run (--security sign|encrypt): a server store and a client
// store in a fresh folder, each with its own application instance certificate and each trusting
// the other's, so that neither side refuses and nothing is asked of an operator.
#pragma once

#include <string>
#include <vector>

#include "uactor/client_security.hpp"
#include "uactor/ua/expected.hpp"

namespace uactor::scenarios {

struct load_security {
  std::vector<std::string> server_args;   // for the child `uactor run`
  uactor::client_security_options client;  // for every session of the harness
  std::string folder;                      // removed by the caller when the run ends
};

// `level` sign or encrypt, `policy` a Part 7 name; the child server listens as `server_host` (its
// certificate names that host, its ApplicationUri is urn:<server_host>:uactor:server as `uactor run
// --host` makes it). Bad_InvalidArgument for an unknown level or policy.
ua::expected<load_security> prepare_load_security(const std::string& level, const std::string& policy,
                                                  const std::string& server_host = "127.0.0.1");

}  // namespace uactor::scenarios
