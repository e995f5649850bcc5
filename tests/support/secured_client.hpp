// A test client over a secured channel: its application certificate made in
// `folder`/client-pki as our client makes its own at its first connection (actors/client/
// security.cpp), so that the client finds it there, and written as DER to `folder`/client.der for a
// server plan's `trust` list (make_client_certificate); and the client's security for a UserName
// login over Basic256Sha256 SignAndEncrypt with it (log_in_over_sign_and_encrypt).
#pragma once

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "security/pki_store.hpp"
#include "uactor/client.hpp"

namespace uactor::test {

inline std::filesystem::path make_client_certificate(const std::filesystem::path& folder,
                                                     const std::string& application_uri,
                                                     const std::string& common_name) {
  security::pki_store store(folder / "client-pki");
  security::certificate_request req;
  req.application_uri = application_uri;
  req.common_name = common_name;
  req.host_names = {"localhost"};
  const auto own = store.load_or_create_own(req, "uactor-client");
  if (!own) throw std::runtime_error("make_client_certificate: no certificate in " + (folder / "client-pki").string());
  const auto der = own->cert.der();
  auto file = folder / "client.der";
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(der.data()), static_cast<std::streamsize>(der.size()));
  return file;
}

// The server's certificate is made at its start: accepted for the connection, not trusted first.
inline void log_in_over_sign_and_encrypt(client_security_options& security, const std::filesystem::path& folder,
                                         const std::string& application_uri, const std::string& user,
                                         const std::string& password) {
  security.pki_dir = (folder / "client-pki").string();
  security.application_uri = application_uri;
  security.accept_untrusted_server_certificate = true;
  security.policy = "Basic256Sha256";
  security.mode = ua::message_security_mode::sign_and_encrypt;
  security.identity.type = client_identity::kind::user_name;
  security.identity.user_name = user;
  security.identity.password = password;
}

}  // namespace uactor::test
