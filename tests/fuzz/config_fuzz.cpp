// libFuzzer target for the config file parser (runtime/config/loader.cpp): any text is read into a
// plant or refused with diagnostics that each say where (file, and a line when the mistake has a
// place), never crashes, over-reads, leaks or loops (ASan/UBSan). Ports are not probed.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "runtime/config/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return -1;  // config files are small; the parser's own limits are tested elsewhere
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto r = uactor::config::load(text, "fuzz.toml", "/nonexistent/uactor-fuzz", false);
  for (const auto& d : r.errors)
    if (d.file != "fuzz.toml" || d.message.empty()) std::abort();  // every refusal names its file and says why
  return 0;
}
