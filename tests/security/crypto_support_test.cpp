// The OpenSSL allocation hook and the key cache of crypto_test_support.hpp, and a test that the
// hook counts: the "no allocation" tests of the crypto are only as good as it.
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include <catch2/catch.hpp>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "tests/security/crypto_test_support.hpp"

namespace uactor::test {

namespace {

thread_local std::uint64_t openssl_alloc_count = 0;

void* counting_malloc(std::size_t n, const char*, int) {
  ++openssl_alloc_count;
  return std::malloc(n);
}
void* counting_realloc(void* p, std::size_t n, const char*, int) {
  ++openssl_alloc_count;
  return std::realloc(p, n);
}
void counting_free(void* p, const char*, int) { std::free(p); }

// OpenSSL accepts new memory functions only before its first allocation: install them during
// static initialisation, before any test touches OpenSSL.
const bool hook_installed = CRYPTO_set_mem_functions(counting_malloc, counting_realloc, counting_free) == 1;

}  // namespace

bool openssl_allocations_counted() noexcept { return hook_installed; }
std::uint64_t openssl_allocations() noexcept { return openssl_alloc_count; }

const security::rsa_key& test_rsa_key(unsigned bits, int index) {
  static std::mutex m;
  static std::map<std::pair<unsigned, int>, security::rsa_key> keys;
  const std::lock_guard lock(m);
  auto& k = keys[{bits, index}];
  if (!k) {
    auto g = security::rsa_key::generate(bits);
    if (!g) throw std::runtime_error("test_rsa_key: generation failed");
    k = std::move(*g);
  }
  return k;
}

}  // namespace uactor::test

TEST_CASE("crypto test support: OpenSSL's allocations are counted", "[security]") {
  REQUIRE(uactor::test::openssl_allocations_counted());
  const auto before = uactor::test::openssl_allocations();
  EVP_MD_CTX* c = EVP_MD_CTX_new();
  CHECK(uactor::test::openssl_allocations() > before);
  EVP_MD_CTX_free(c);
}
