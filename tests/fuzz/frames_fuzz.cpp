// libFuzzer target for the script workers' protocol (scripting/frames.hpp): a byte stream as a
// worker process (or whatever took its place) writes it to the shard supervisor, cut into frames
// by frame_reader and each body given to every decoder. Any input is framed and decoded or refused
// with a status, never crashes, over-reads or leaks (ASan/UBSan); a body that decodes re-encodes
// to a frame whose body decodes again and re-encodes to the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "scripting/frames.hpp"

using namespace uactor::scripting;

namespace {

template <class Decode>
void round_trip(std::span<const std::byte> body, Decode decode) {
  const auto first = decode(body);
  if (!first) return;
  std::vector<std::byte> once;
  encode(*first, once);
  const auto again = decode(std::span<const std::byte>(once).subspan(frame_header_size));
  if (!again) std::abort();
  std::vector<std::byte> twice;
  encode(*again, twice);
  if (twice != once) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  frame_reader reader(1u << 16);
  (void)reader.put(std::as_bytes(std::span(data, size)), [](std::span<const std::byte> body) {
    round_trip(body, decode_load);
    round_trip(body, decode_loaded);
    round_trip(body, decode_run_batch);
    round_trip(body, decode_result);
    round_trip(body, decode_heartbeat);
  });
  return 0;
}
