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
  // A commit of the checkout (the one built: HEAD at the last build, which a later commit follows)
  // and that commit's date.
  const std::string number = uactor::app::build_number();
  REQUIRE(number.size() >= 7);
  REQUIRE(number.find_first_not_of("0123456789abcdef") == std::string::npos);
  const std::string date = run("git -C '" + source + "' show -s --format=%ct " + number + " 2>/dev/null");
  CHECK(date == std::to_string(uactor::app::build_unix_seconds()));
}
