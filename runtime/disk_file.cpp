// An application's file behind a FileType Object (disk_file.hpp).
#include "runtime/disk_file.hpp"

#include <fstream>
#include <iterator>

#include <spdlog/spdlog.h>

#include "uactor/ua/status_codes.hpp"

namespace uactor::app {

namespace fs = std::filesystem;

ua::status_code disk_file::load(std::string& out) {
  out.clear();
  std::error_code ec;
  if (!fs::exists(path_, ec)) return ua::status::good;
  const auto size = fs::file_size(path_, ec);
  if (ec) return ua::status::bad_not_readable;
  if (size > max_size_) {
    spdlog::warn("file {} has {} bytes, more than its max_size {}: not opened", path_.string(), size, max_size_);
    return ua::status::bad_out_of_range;
  }
  std::ifstream in(path_, std::ios::binary);
  if (!in) return ua::status::bad_not_readable;
  out.assign(std::istreambuf_iterator<char>(in), {});
  return ua::status::good;
}

ua::status_code disk_file::store(std::string_view bytes) {
  // Written beside it, then renamed over it: a reader (or a crash) never sees half a file.
  const fs::path tmp = path_.parent_path() / ("." + path_.filename().string() + ".uactor-new");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      spdlog::warn("file {}: cannot write {}", path_.string(), tmp.string());
      return ua::status::bad_not_writable;
    }
  }
  std::error_code ec;
  fs::rename(tmp, path_, ec);
  if (ec) {
    spdlog::warn("file {}: cannot replace it: {}", path_.string(), ec.message());
    fs::remove(tmp, ec);
    return ua::status::bad_not_writable;
  }
  spdlog::info("file {}: {} bytes written by a client", path_.string(), bytes.size());
  return ua::status::good;
}

}  // namespace uactor::app
