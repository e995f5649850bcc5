// libFuzzer target for the DNS message codec of mDNS (protocol/mdns/, RFC 1035 §4.1, RFC 6762):
// whatever a multicast socket on 224.0.0.251:5353 hands the LDS-ME. Any bytes are read within the
// codec's bounds; a refusal has an offset within the input (or at the size bound) and a reason;
// never a crash, an over-read, a leak or a loop (ASan/UBSan). What is read writes back, compressed
// and not, to bytes that read again to as many questions and records of the same names.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "protocol/mdns/dns_reader.hpp"
#include "protocol/mdns/dns_writer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace uactor::ua;
  const std::span<const std::uint8_t> in(data, size);
  const dns::limits limits;
  dns::message m;
  dns::error e;
  if (!dns::read_message(in, limits, m, e)) {
    if (e.what.empty()) std::abort();
    if (e.offset > size && e.offset != limits.max_message) std::abort();
    return 0;
  }
  dns::limits roomy;
  roomy.max_message = 1 << 20;
  for (const bool compress : {true, false}) {
    std::vector<std::uint8_t> out;
    std::string why;
    if (!dns::write_message(m, out, why, compress, roomy.max_message)) std::abort();
    dns::message again;
    if (!dns::read_message(out, roomy, again, e)) std::abort();
    if (again.questions.size() != m.questions.size() || again.answers.size() != m.answers.size() ||
        again.authorities.size() != m.authorities.size() || again.additionals.size() != m.additionals.size())
      std::abort();
    for (std::size_t i = 0; i < m.questions.size(); ++i)
      if (again.questions[i].name != m.questions[i].name) std::abort();
    for (std::size_t i = 0; i < m.answers.size(); ++i)
      if (again.answers[i].name != m.answers[i].name || again.answers[i].ptr != m.answers[i].ptr ||
          again.answers[i].srv.target != m.answers[i].srv.target)
        std::abort();
  }
  return 0;
}
