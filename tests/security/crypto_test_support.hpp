// Shared by the security/ crypto tests: OpenSSL's own allocations (malloc, not operator new, so
// tests/support/alloc_counter does not see them), keys generated once per test run, hex helpers.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "security/keys.hpp"
#include "tests/support/bytes.hpp"

namespace uactor::test {

// True when the counting hook was installed before OpenSSL's first allocation (at static
// initialisation, in symmetric_test.cpp); then openssl_allocations() counts this thread's
// CRYPTO_malloc/CRYPTO_realloc calls.
bool openssl_allocations_counted() noexcept;
std::uint64_t openssl_allocations() noexcept;

// RSA keys made once per run (4096-bit generation takes seconds): index 0 and 1 are distinct keys.
const security::rsa_key& test_rsa_key(unsigned bits, int index = 0);

inline std::span<const std::uint8_t> as_span(const bytes& b) { return {b.data(), b.size()}; }

}  // namespace uactor::test
