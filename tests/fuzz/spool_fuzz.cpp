// libFuzzer target: the historian's spool frames (history/spool_file.hpp parse_spool_frame), the
// reader of a file on disk that a crash may have cut or a disk damaged. Every length is bounded
// before it allocates; a frame parses whole or not at all.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "history/spool_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> in(data, size);
  std::vector<uactor::history::record> out;
  // Frame after frame, as the spool reads a file back.
  for (int frames = 0; frames < 64 && !in.empty(); ++frames) {
    std::size_t used = 0;
    if (uactor::history::parse_spool_frame(in, out, used, {.max_payload_bytes = 1u << 20}).is_bad()) break;
    if (used == 0 || used > in.size()) __builtin_trap();
    in = in.subspan(used);
  }
  // What parsed writes back as the same frames.
  if (!out.empty()) {
    const auto again = uactor::history::spool_frame(out);
    std::vector<uactor::history::record> back;
    std::size_t used = 0;
    if (uactor::history::parse_spool_frame(again, back, used).is_bad() || back.size() != out.size()) __builtin_trap();
  }
  return 0;
}
