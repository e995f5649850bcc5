// libFuzzer target for the message decoder (protocol/message.hpp): any input decodes or fails
// with a status, never crashes, over-reads or leaks (ASan/UBSan); what decodes re-encodes to
// bytes that decode again and re-encode to themselves. (Bytes, not values, are compared: a
// decoded NaN is not equal to itself.)
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "protocol/message.hpp"

using namespace uactor::ua;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  extension_object msg;
  if (!decode_message({data, size}, msg).is_good()) return 0;
  byte_buffer once;
  {
    encoder e(once);
    encode_message(e, *msg.body());
  }
  extension_object again;
  if (!decode_message(once.bytes(), again).is_good()) std::abort();
  byte_buffer twice;
  {
    encoder e(twice);
    encode_message(e, *again.body());
  }
  if (!std::ranges::equal(twice.bytes(), once.bytes())) std::abort();
  return 0;
}
