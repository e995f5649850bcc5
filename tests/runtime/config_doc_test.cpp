// docs/configuration.md documents every key the parser knows, and nothing else: a key row is
// "| `key` | ..." in a table whose header is "| key | ...".
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "runtime/config/config.hpp"

TEST_CASE("config: docs/configuration.md documents exactly the keys the parser knows", "[config]") {
  std::ifstream doc(std::filesystem::path(UACTOR_SOURCE_DIR) / "docs/configuration.md");
  REQUIRE(doc);
  std::set<std::string> documented;
  bool in_key_table = false;  // a table whose header is "| key | ..."
  for (std::string line; std::getline(doc, line);) {
    if (!line.starts_with("|")) {
      in_key_table = false;
      continue;
    }
    if (line.starts_with("| key |")) in_key_table = true;
    if (!in_key_table || !line.starts_with("| `")) continue;
    const auto end = line.find('`', 3);
    REQUIRE(end != std::string::npos);
    documented.insert(line.substr(3, end - 3));
  }
  std::set<std::string> known;
  for (auto k : uactor::config::known_keys()) known.insert(std::string(k));
  for (const auto& k : known) {
    INFO("known to the parser, not documented: " << k);
    CHECK(documented.count(k) == 1);
  }
  for (const auto& k : documented) {
    INFO("documented, unknown to the parser: " << k);
    CHECK(known.count(k) == 1);
  }
}
