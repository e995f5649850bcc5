// libFuzzer target for the users file (security::user_store::parse, `server.users_file`): any text
// is read into a store or refused naming its line, never crashes, over-reads, leaks or loops
// (ASan/UBSan). What is read writes back (to_text) to a file that reads to the same store.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "security/password_hash.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using uactor::security::user_store;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  const auto store = user_store::parse(text, &why);
  if (!store) {
    if (why.rfind("line ", 0) != 0) std::abort();  // every refusal names its line
    return 0;
  }
  const auto written = store->to_text();
  const auto again = user_store::parse(written);
  if (!again || again->size() != store->size() || again->to_text() != written) std::abort();
  return 0;
}
