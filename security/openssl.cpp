#include "security/openssl.hpp"

#include <openssl/err.h>

namespace uactor::security {

std::string last_openssl_error() {
  std::string out;
  char buf[256];
  while (const unsigned long e = ERR_get_error()) {
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out;
}

}  // namespace uactor::security
