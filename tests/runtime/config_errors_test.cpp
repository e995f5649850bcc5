// The catalogue of bad plant files (tests/runtime/config_bad/): each file says, in its `# expect:`
// lines, every error the checker must report, with line and column, and nothing else.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/config/config.hpp"

namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

// A socket listening on 127.0.0.1, an ephemeral port: "a port in use".
struct held_port {
  int fd = -1;
  std::uint16_t port = 0;
  held_port() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(fd, 1) == 0);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
  }
  ~held_port() { ::close(fd); }
};

}  // namespace

TEST_CASE("config: every bad file of the catalogue gets exactly its errors, with line and column", "[config]") {
  const fs::path dir = fs::path(UACTOR_SOURCE_DIR) / "tests/runtime/config_bad";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".toml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 25);
  held_port held;
  for (const auto& f : files) {
    DYNAMIC_SECTION(f.filename().string()) {
      auto text = read_text(f);
      replace_all(text, "{port}", std::to_string(held.port));
      std::vector<std::string> expected;
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);) {
        if (!line.starts_with("# expect: ")) continue;
        auto e = f.string() + ":" + line.substr(10);
        replace_all(e, "{file}", f.string());
        replace_all(e, "{dir}", dir.string());
        expected.push_back(e);
      }
      REQUIRE_FALSE(expected.empty());
      // Ports are checked only where the file is about one (others may use 4840 on this machine).
      const bool ports = read_text(f).find("{port}") != std::string::npos;
      const auto r = uactor::config::load(text, f.string(), dir.string(), ports);
      std::vector<std::string> got;
      for (const auto& d : r.errors) got.push_back(d.to_string());
      CHECK(got == expected);
    }
  }
}

TEST_CASE("config: an unreadable file is one error without a line", "[config]") {
  const auto r = uactor::config::load_file("/nonexistent/plant.toml");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].to_string() == "/nonexistent/plant.toml: cannot read the file: No such file or directory");
}
