// A server's registration with a Local Discovery Server (Part 12 §4.3, Part 4 §5.4.5-6;
// docs/discovery.md, docs/decisions/0058): RegisterServer2 with its discovery configuration
// (RegisterServer when the LDS answers Bad_ServiceUnsupported) over a secured channel opened with
// the server's own certificate, repeated every period, and IsOnline false once at shutdown.
// Built on the public client API; the periodic part is a detached actor (its blocking client
// calls hold its own thread only).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "uactor/ua/types.hpp"
#include "uactor/ua/status_code.hpp"

namespace caf {
class actor;
class actor_system;
}  // namespace caf

namespace uactor::app {

struct registrar_options {
  std::string discovery_url;  // opc.tcp://lds:4840 (the LDS's endpoint)
  std::string policy = "Basic256Sha256";
  ua::message_security_mode mode = ua::message_security_mode::sign_and_encrypt;
  std::string pki_dir;           // the server's PKI: own/certs/uactor.der, trusted/ holds the LDS's
  bool check_host_name = true;   // the LDS certificate names the host of discovery_url
  ua::registered_server server;  // ServerUri = the server's ApplicationUri, names, DiscoveryUrls
  std::string mdns_server_name;  // RegisterServer2's MdnsDiscoveryConfiguration
  std::vector<std::string> capabilities;  // its ServerCapabilities (Part 12 Annex A)
  std::chrono::seconds period{600};       // Part 12 §4.3.4: every 10 minutes by default
  std::chrono::milliseconds timeout{10'000};  // connect and each request
};

// What one registration did: the status (the LDS's answer or why it was not reached) and whether
// RegisterServer was used instead of RegisterServer2.
struct registration_result {
  ua::status_code status;
  bool fell_back = false;
};

// One registration, blocking the calling thread (up to about 2 x timeout): `online` false is the
// unregistration.
registration_result register_once(caf::actor_system& sys, const registrar_options& o, bool online);

// The periodic registration: registers at once, then every `period` while it works; after a
// failure again after 5 s, doubling up to `period`. Logs each change of state once. Ends on an
// exit message (the caller then unregisters with register_once(.., false)).
caf::actor spawn_discovery_registrar(caf::actor_system& sys, std::shared_ptr<const registrar_options> o);

}  // namespace uactor::app
