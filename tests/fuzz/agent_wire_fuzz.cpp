// libFuzzer target for the load agents' wire form (scenarios/agent_wire.hpp): the job and report
// blobs, bytes from whoever reaches an agent's port. Any input decodes or is refused with a
// sentence naming the check, never crashes, over-reads or leaks (ASan/UBSan); what decodes
// re-encodes to bytes that decode again and re-encode to themselves.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "scenarios/agent_wire.hpp"

using namespace uactor::scenarios;

namespace {

template <class Decode>
void round_trip(std::string_view bytes, Decode decode) {
  std::string error;
  const auto first = decode(bytes, error);
  if (!first) {
    if (error.empty()) std::abort();  // a refusal says which check
    return;
  }
  const std::string once = encode(*first);
  const auto again = decode(once, error);
  if (!again || encode(*again) != once) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  round_trip(bytes, decode_job);
  round_trip(bytes, decode_report);
  return 0;
}
