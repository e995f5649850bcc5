// A folder of its own per test under the system's temp folder, removed at the end: the process id
// and a counter in its name keep parallel tests and repeated fixtures apart.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <system_error>
#include <unistd.h>

namespace uactor::test {

struct temp_folder {
  std::filesystem::path path;
  explicit temp_folder(const std::string& what = "test") {
    static std::atomic<int> n{0};
    path = std::filesystem::temp_directory_path() /
           ("uactor-" + what + "-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  temp_folder(const temp_folder&) = delete;
  temp_folder& operator=(const temp_folder&) = delete;
  ~temp_folder() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const char* name) const { return (path / name).string(); }
};

}  // namespace uactor::test
