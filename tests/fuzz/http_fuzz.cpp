// libFuzzer target for the HTTP door (runtime/http/http_service.cpp): any bytes a peer sends
// are answered as the service answers them (a route, 400, 405, 413 or 431) or not at all, with
// the service's own parser and limits; never a crash, an over-read, a leak or a loop.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "runtime/http/http_service.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const uactor::app::http_options options;  // the defaults: 8 KiB of header
  static const uactor::app::http_sources sources{[] { return std::string("uactor_up 1\n"); }, [] { return true; }};
  const auto a = uactor::app::answer_request_bytes(std::string_view(reinterpret_cast<const char*>(data), size),
                                                   options, sources);
  if (a && (a->status < 200 || a->status > 599)) std::abort();
  return 0;
}
