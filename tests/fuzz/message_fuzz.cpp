// libFuzzer target for the message decoder (protocol/message.hpp): any input decodes or fails
// with a status, never crashes, over-reads or leaks (ASan/UBSan); what decodes re-encodes to
// bytes that decode again and re-encode to themselves. (Bytes, not values, are compared: a
// decoded NaN is not equal to itself.) The same input is also a reverse-connect listener's first
// bytes: the ReverseHello reader (engine/client/reverse_hello_check.hpp, Part 6 §7.1.2.6) reads
// it whole and cut at every length, and an RHE it takes re-encodes to the bytes it took.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "engine/client/reverse_hello_check.hpp"
#include "protocol/message.hpp"
#include "protocol/uatcp.hpp"

using namespace uactor::ua;

namespace {

void reverse_hello_reads(std::span<const std::uint8_t> in) {
  const auto whole = uactor::actors::read_reverse_hello(in);
  if (whole.progress == uactor::actors::reverse_hello_progress::complete) {
    if (whole.message_size > in.size() || whole.hello.server_uri.size() > 4096 || whole.hello.endpoint_url.size() > 4096)
      std::abort();
    byte_buffer again;
    write_message(again, whole.hello);
    if (!std::ranges::equal(again.bytes(), in.first(whole.message_size))) std::abort();
  }
  // Received in pieces: never complete before the whole message is in, never another verdict.
  for (std::size_t n = 0; n < std::min<std::size_t>(in.size(), 64); ++n) {
    const auto part = uactor::actors::read_reverse_hello(in.first(n));
    if (part.progress == uactor::actors::reverse_hello_progress::complete && whole.progress != part.progress) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  reverse_hello_reads({data, size});
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
