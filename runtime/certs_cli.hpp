// `uactor certs`: the PKI store on disk for a person at a terminal (create the own certificate,
// list the folders, trust or reject a peer's certificate). Exit 0 on success, 2 on a usage error,
// 1 otherwise. Plain functions; the caller owns what they return.
#pragma once

#include <filesystem>

namespace CLI {
class App;
}

namespace uactor::runtime {

// Adds `certs` (create, list, trust, reject) to the app. Its callbacks end the program's parse
// with CLI::RuntimeError(exit code), which CLI11_PARSE returns from main.
void add_certs_commands(CLI::App& app);

// Where the PKI store lives unless --pki says otherwise: $UACTOR_PKI, else ./pki. The server
// uses the same default, so that `uactor certs` and `uactor run` share the folders.
std::filesystem::path default_pki_root();

}  // namespace uactor::runtime
