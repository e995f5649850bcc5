// A client application certificate for tests that connect over a secured channel: made in
// `folder`/client-pki as our client makes its own at its first connection (actors/client/
// security.cpp), so that the client finds it there, and written as DER to `folder`/client.der for a
// server plan's `trust` list. Returns that file's path.
#pragma once

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "security/pki_store.hpp"

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

}  // namespace uactor::test
