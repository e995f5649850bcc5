// `uactor certs`: the PKI store on disk for a person at a terminal (create the own certificate,
// list the folders, trust or reject a peer's certificate). Exit 0 on success, 2 on a usage error,
// 1 otherwise. Plain functions; the caller owns what they return.
#pragma once

namespace CLI {
class App;
}

namespace uactor::app {

// Adds `certs` (create, list, trust, reject) to the app. Without --pki the folder is the
// server's default (default_pki_dir(): $UACTOR_PKI, else ./pki), so both share it. Its
// callbacks end the program's parse with CLI::RuntimeError(exit code), which CLI11_PARSE
// returns from main.
void add_certs_commands(CLI::App& app);

}  // namespace uactor::app
