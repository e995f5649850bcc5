// The bytes of an application's file on disk behind a FileType Object (server::add_file,
// `[[files]]`; docs/files.md): read whole at Open, written whole (to a temporary, then renamed)
// when a handle opened for writing closes. Runs on the session host's thread, bounded by max_size.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "engine/server/files/file_objects.hpp"

namespace uactor::app {

class disk_file final : public actors::file_content {
public:
  disk_file(std::filesystem::path path, std::uint64_t max_size) : path_(std::move(path)), max_size_(max_size) {}
  // A missing file reads as empty. Bad_OutOfRange past max_size, Bad_NotReadable when it cannot be read.
  ua::status_code load(std::string& out) override;
  // Bad_NotWritable when it cannot be written (the old content stays).
  ua::status_code store(std::string_view bytes) override;

private:
  std::filesystem::path path_;
  std::uint64_t max_size_;
};

}  // namespace uactor::app
