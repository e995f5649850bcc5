#include "scenarios/load_security.hpp"

#include <unistd.h>

#include <climits>
#include <filesystem>

#include "security/ecc.hpp"
#include "security/pki_store.hpp"
#include "security/policy.hpp"

namespace uactor::scenarios {

ua::expected<load_security> prepare_load_security(const std::string& level, const std::string& policy,
                                                  const std::string& server_host) {
  load_security out;
  if (level == "sign") out.client.mode = ua::message_security_mode::sign;
  else if (level == "encrypt") out.client.mode = ua::message_security_mode::sign_and_encrypt;
  else return ua::status::bad_invalid_argument;
  const security::security_policy* chosen = nullptr;
  for (const auto& p : security::all_policies())
    if (!p.is_none() && p.name == policy) chosen = &p;
  if (!chosen) return ua::status::bad_invalid_argument;
  out.client.policy = policy;

  out.folder = "/tmp/uactor-load-" + std::to_string(getpid()) + ".pki";
  std::filesystem::remove_all(out.folder);
  security::pki_store server(out.folder + "/server");
  security::pki_store client(out.folder + "/client");
  // The URIs the server and the client use for themselves (cli/main.cpp with --host
  // server_host; actors/client_security.cpp's default).
  security::certificate_request s;
  s.application_uri = "urn:" + server_host + ":uactor:server";
  s.host_names = {server_host};
  char host[HOST_NAME_MAX + 1] = {};
  const std::string host_name = gethostname(host, sizeof host) == 0 && host[0] ? host : "localhost";
  security::certificate_request c;
  c.application_uri = "urn:" + host_name + ":uactor:client";
  c.common_name = "uactor client";
  c.host_names = {host_name};
  // An ECC policy (Part 6 §6.8): both sides' certificates on its curve, under the names the
  // server and the client look for (security::own_identity_name).
  s.curve = c.curve = std::string(chosen->curve);
  auto server_id = server.load_or_create_own(s, security::own_identity_name("uactor", *chosen));
  if (!server_id) return server_id.error();
  auto client_id = client.load_or_create_own(c, security::own_identity_name("uactor-client", *chosen));
  if (!client_id) return client_id.error();
  if (const auto sc = server.trust(client_id->cert); sc.is_bad()) return sc;
  if (const auto sc = client.trust(server_id->cert); sc.is_bad()) return sc;

  out.client.pki_dir = out.folder + "/client";
  out.client.application_uri = c.application_uri;
  const std::string mode = level == "sign" ? "Sign" : "SignAndEncrypt";
  out.server_args = {"--pki", out.folder + "/server", "--security", "none," + policy + ":" + mode};
  return out;
}

}  // namespace uactor::scenarios
