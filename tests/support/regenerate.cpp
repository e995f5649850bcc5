#include "tests/support/regenerate.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <system_error>
#include <vector>

#include "tests/support/bytes.hpp"

namespace uactor::test {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> file_names(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A word for /bin/sh: single-quoted, embedded single quotes closed, escaped and reopened.
std::string sh_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string schema_dir() {
  std::error_code ec;
  return fs::is_directory(UACTOR_SCHEMA_DIR, ec) ? UACTOR_SCHEMA_DIR : "";
}

namespace {

// Each file generated into `fresh` is in `committed`, byte for byte.
void check_same_files(const fs::path& fresh, const fs::path& committed, const std::string& script) {
  for (const auto& name : file_names(fresh)) {
    const auto made = read_file((fresh / name).string());
    const auto kept = read_file((committed / name).string());
    const auto diff = std::mismatch(made.begin(), made.end(), kept.begin(), kept.end()).first - made.begin();
    INFO(name << ": " << made.size() << " bytes generated, " << kept.size() << " committed, first difference at byte "
              << diff << "; rerun tools/codegen/" << script << " and commit its output");
    const bool same = made == kept;  // not CHECK(made == kept): that would print both files
    CHECK(same);
  }
}

}  // namespace

void check_regenerated_output(const std::string& script, const std::string& committed_dir,
                              const std::string& public_dir) {
  const std::string schema = schema_dir();
  if (schema.empty()) {
    WARN("skipped: schema folder " UACTOR_SCHEMA_DIR " not present");
    SUCCEED();
    return;
  }
  std::error_code ec;
  const fs::path committed = fs::path(source_dir()) / committed_dir;
  const fs::path out = fs::temp_directory_path() / ("uactor-regen-" + std::to_string(std::random_device{}()));
  fs::remove_all(out, ec);
  fs::create_directories(out / "internal");
  fs::create_directories(out / "public");

  std::string cmd = "python3 " + sh_quote(source_dir() + "/tools/codegen/" + script) + " --quiet --schema " +
                    sh_quote(schema) + " --schema " + sh_quote(UACTOR_SCHEMA_CSV_DIR) + " --out " +
                    sh_quote((out / "internal").string());
  if (!public_dir.empty()) cmd += " --public-out " + sh_quote((out / "public").string());
  INFO(cmd);
  REQUIRE(std::system(cmd.c_str()) == 0);

  const auto generated = file_names(out / "internal");
  REQUIRE(!generated.empty());
  // Nothing else is committed there: CMake globs the folder, so a stale file would be compiled.
  CHECK(file_names(committed) == generated);
  check_same_files(out / "internal", committed, script);
  if (!public_dir.empty()) {
    REQUIRE(!file_names(out / "public").empty());
    check_same_files(out / "public", fs::path(source_dir()) / public_dir, script);
  }
  fs::remove_all(out, ec);
}

}  // namespace uactor::test
