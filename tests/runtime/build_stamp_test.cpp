// BuildInfo's BuildNumber and BuildDate (Part 5 §12.4) come from the build: the commit and its date
// when the sources are a git checkout (cmake/build_stamp.cmake).
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "runtime/build_stamp.hpp"

namespace {

std::string run(const std::string& command) {
  std::string out;
  if (FILE* p = ::popen(command.c_str(), "r")) {
    std::array<char, 256> buf{};
    while (std::fgets(buf.data(), static_cast<int>(buf.size()), p)) out += buf.data();
    ::pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

TEST_CASE("build_stamp: BuildNumber and BuildDate are the checkout's commit and its date", "[runtime]") {
  const std::string source = UACTOR_SOURCE_DIR;
  CHECK(uactor::app::build_unix_seconds() > 1'735'689'600);  // after 2025-01-01
  if (!std::filesystem::exists(source + "/.git")) {
    CHECK(std::string(uactor::app::build_number()).empty());
    return;
  }
  const std::string commit = run("git -C '" + source + "' log -1 --format=%h/%ct 2>/dev/null");
  REQUIRE_FALSE(commit.empty());
  CHECK(commit == std::string(uactor::app::build_number()) + "/" + std::to_string(uactor::app::build_unix_seconds()));
}
