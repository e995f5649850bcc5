#include <cstring>
#include <stdexcept>

#include <catch2/catch.hpp>

#include "protocol/generated/type_codecs.hpp"
#include "protocol/message_chunker.hpp"
#include "security/key_derivation.hpp"
#include "security/symmetric.hpp"
#include "tests/security/chunk_test_support.hpp"
#include "tests/security/crypto_test_support.hpp"
#include "tests/security/crypto_vectors.hpp"
#include "tests/support/alloc_counter.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace security_symmetric_test {

using namespace uactor;
using namespace uactor::security;
using uactor::test::bytes;
using uactor::test::from_hex;
namespace vec = uactor::test::crypto_vectors;

namespace {

constexpr std::size_t msg_header_size = ua::secure_message_header_size + ua::symmetric_security_header_size;

const security_policy& policy(std::string_view name) {
  for (const auto& p : all_policies())
    if (p.name == name) return p;
  throw std::logic_error("no such policy");
}

struct node_policy_vectors {
  std::string_view name;
  std::string_view client_signing, client_encrypting, client_iv;
  std::string_view server_signing, server_encrypting, server_iv;
  std::string_view msg_sign_and_encrypt, msg_sign;
};

const node_policy_vectors node_vectors[] = {
    {"Basic256Sha256", vec::basic256sha256_client_signing, vec::basic256sha256_client_encrypting,
     vec::basic256sha256_client_iv, vec::basic256sha256_server_signing, vec::basic256sha256_server_encrypting,
     vec::basic256sha256_server_iv, vec::basic256sha256_msg_sign_and_encrypt, vec::basic256sha256_msg_sign},
    {"Aes128_Sha256_RsaOaep", vec::aes128_sha256_rsaoaep_client_signing, vec::aes128_sha256_rsaoaep_client_encrypting,
     vec::aes128_sha256_rsaoaep_client_iv, vec::aes128_sha256_rsaoaep_server_signing,
     vec::aes128_sha256_rsaoaep_server_encrypting, vec::aes128_sha256_rsaoaep_server_iv,
     vec::aes128_sha256_rsaoaep_msg_sign_and_encrypt, vec::aes128_sha256_rsaoaep_msg_sign},
    {"Aes256_Sha256_RsaPss", vec::aes256_sha256_rsapss_client_signing, vec::aes256_sha256_rsapss_client_encrypting,
     vec::aes256_sha256_rsapss_client_iv, vec::aes256_sha256_rsapss_server_signing,
     vec::aes256_sha256_rsapss_server_encrypting, vec::aes256_sha256_rsapss_server_iv,
     vec::aes256_sha256_rsapss_msg_sign_and_encrypt, vec::aes256_sha256_rsapss_msg_sign},
};

bytes key_bytes(std::span<const std::uint8_t> k) { return {k.begin(), k.end()}; }

channel_keys node_nonce_keys(const security_policy& p) {
  const auto c = from_hex(vec::client_nonce);
  const auto s = from_hex(vec::server_nonce);
  return derive_channel_keys(p, c, s);
}

using test::chunked;

std::uint32_t load_u32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

const ua::message_security_mode modes[] = {ua::message_security_mode::sign, ua::message_security_mode::sign_and_encrypt};

}  // namespace

TEST_CASE("p_sha256: matches node-opcua's makePseudoRandomBuffer", "[security]") {
  const auto secret = from_hex(vec::p_sha256_secret);
  const auto seed = from_hex(vec::p_sha256_seed);
  const auto expected = from_hex(vec::p_sha256_100);
  bytes out(100);
  p_sha256(secret, seed, out);
  CHECK(out == expected);
  // A shorter request is a prefix of the same stream (not a multiple of the 32-byte HMAC either).
  bytes out45(45);
  p_sha256(secret, seed, out45);
  CHECK(out45 == bytes(expected.begin(), expected.begin() + 45));
}

TEST_CASE("derive_channel_keys: client and server keys match node-opcua's computeDerivedKeys", "[security]") {
  for (const auto& v : node_vectors) {
    INFO(v.name);
    const auto k = node_nonce_keys(policy(v.name));
    CHECK(key_bytes(k.client.signing_key()) == from_hex(v.client_signing));
    CHECK(key_bytes(k.client.encrypting_key()) == from_hex(v.client_encrypting));
    CHECK(bytes(k.client.iv.begin(), k.client.iv.end()) == from_hex(v.client_iv));
    CHECK(key_bytes(k.server.signing_key()) == from_hex(v.server_signing));
    CHECK(key_bytes(k.server.encrypting_key()) == from_hex(v.server_encrypting));
    CHECK(bytes(k.server.iv.begin(), k.server.iv.end()) == from_hex(v.server_iv));
  }
  // Policy None derives nothing.
  const auto none = derive_channel_keys(policy_none(), from_hex(vec::client_nonce), from_hex(vec::server_nonce));
  CHECK(none.client.signing_length == 0);
  CHECK(none.client == symmetric_keys{});
}

TEST_CASE("symmetric_context: protect gives node-opcua's chunk byte for byte, and unprotect reads node-opcua's chunk", "[security]") {
  const auto body = from_hex(vec::msg_body);
  for (const auto& v : node_vectors) {
    for (const auto mode : modes) {
      const bool enc = mode == ua::message_security_mode::sign_and_encrypt;
      INFO(v.name << (enc ? " SignAndEncrypt" : " Sign"));
      const auto& p = policy(v.name);
      const auto keys = node_nonce_keys(p).server;
      symmetric_context sender(p, mode, keys);
      symmetric_context receiver(p, mode, keys);
      const auto expected = from_hex(enc ? v.msg_sign_and_encrypt : v.msg_sign);
      auto theirs = expected;
      // Three times with the same contexts: each chunk starts from the derived IV again.
      for (int round = 0; round < 3; ++round) {
        auto ours = chunked(sender, body.size(), 8192);
        // The chunker's body is ours; put node's body in (same length) before protecting.
        std::memcpy(ours.data() + msg_header_size + ua::sequence_header_size, body.data(), body.size());
        sender.protect({ours.data(), ours.size()}, msg_header_size);
        CHECK(ours.to_vector() == expected);
        theirs = expected;
        REQUIRE(receiver.unprotect(theirs, msg_header_size) == ua::status::good);
      }
      ua::secure_chunk sc;
      REQUIRE(ua::parse_sequence_part(std::span<const std::uint8_t>(theirs).subspan(msg_header_size),
                                      receiver.chunk_security(), sc) == ua::status::good);
      CHECK(sc.sequence.sequence_number == 5);
      CHECK(sc.sequence.request_id == 9);
      CHECK(bytes(sc.body.begin(), sc.body.end()) == body);
    }
  }
}

TEST_CASE("symmetric_context: every policy and mode round-trips messages of one and of many chunks", "[security]") {
  const auto c = from_hex(vec::client_nonce);
  const auto s = from_hex(vec::server_nonce);
  for (std::size_t pi = 1; pi < all_policies().size(); ++pi) {
    const auto& p = all_policies()[pi];
    const auto keys = derive_channel_keys(p, c, s);
    for (const auto mode : modes) {
      for (const std::size_t body_size : {0u, 1u, 15u, 16u, 80u, 8192u, 70000u}) {
        INFO(p.name << " mode " << static_cast<int>(mode) << " body " << body_size);
        symmetric_context sender(p, mode, keys.client);
        symmetric_context receiver(p, mode, keys.client);
        std::size_t chunks = 0;
        auto out = chunked(sender, body_size, 8192, &chunks);
        std::size_t at = 0, total_body = 0, n = 0;
        std::uint32_t expect_seq = 5;
        // The HMAC's length: 32 (SHA2-256), 48 for the 384-bit ECC policies (HMAC-SHA2-384).
        const auto sig = static_cast<std::ptrdiff_t>(p.symmetric_signature_length);
        while (at < out.size()) {
          const std::size_t size = load_u32(out.data() + at + 4);
          std::span<std::uint8_t> chunk(out.data() + at, size);
          const bytes plain(chunk.begin(), chunk.end());
          sender.protect(chunk, msg_header_size);
          if (mode == ua::message_security_mode::sign_and_encrypt)
            CHECK(!std::equal(chunk.begin() + msg_header_size, chunk.end() - sig, plain.begin() + msg_header_size));
          // The expected SequenceNumber: what an AEAD policy builds its nonce from (docs/decisions/0082).
          REQUIRE(receiver.unprotect(chunk, msg_header_size, expect_seq) == ua::status::good);
          // After unprotect the plaintext is back (the signature is in place of the zeros).
          CHECK(std::equal(chunk.begin(), chunk.end() - sig, plain.begin()));
          ua::secure_chunk sc;
          REQUIRE(ua::parse_sequence_part(chunk.subspan(msg_header_size), receiver.chunk_security(), sc) ==
                  ua::status::good);
          CHECK(sc.sequence.sequence_number == expect_seq++);
          for (std::size_t i = 0; i < sc.body.size(); ++i)
            if (sc.body[i] != static_cast<std::uint8_t>((total_body + i) * 7 + 1)) FAIL("body byte " << total_body + i);
          total_body += sc.body.size();
          at += size;
          ++n;
        }
        CHECK(n == chunks);
        CHECK(total_body == body_size);
      }
    }
  }
}

TEST_CASE("symmetric_context: a flipped bit anywhere in a protected chunk gives Bad_SecurityChecksFailed", "[security]") {
  const auto keys = node_nonce_keys(policy("Basic256Sha256"));
  for (const auto mode : modes) {
    for (const std::size_t body_size : {0u, 80u}) {
      symmetric_context sender(policy("Basic256Sha256"), mode, keys.server);
      symmetric_context receiver(policy("Basic256Sha256"), mode, keys.server);
      auto out = chunked(sender, body_size, 8192);
      sender.protect({out.data(), out.size()}, msg_header_size);
      const auto good = out.to_vector();
      auto copy = good;
      REQUIRE(receiver.unprotect(copy, msg_header_size) == ua::status::good);
      for (std::size_t i = 0; i < good.size(); ++i) {
        for (const std::uint8_t bit : {0x01, 0x80}) {
          auto bad = good;
          bad[i] ^= bit;
          if (receiver.unprotect(bad, msg_header_size) != ua::status::bad_security_checks_failed)
            FAIL("mode " << static_cast<int>(mode) << " body " << body_size << " offset " << i << " bit " << int(bit));
          // A refused chunk leaves the context as it was: the good chunk still reads.
          copy = good;
          if (receiver.unprotect(copy, msg_header_size) != ua::status::good) FAIL("good after bad, offset " << i);
        }
      }
    }
  }
}

TEST_CASE("symmetric_context: truncated chunks, partial blocks and a wrong header size are refused", "[security]") {
  const auto keys = node_nonce_keys(policy("Aes128_Sha256_RsaOaep"));
  for (const auto mode : modes) {
    symmetric_context sender(policy("Aes128_Sha256_RsaOaep"), mode, keys.server);
    symmetric_context receiver(policy("Aes128_Sha256_RsaOaep"), mode, keys.server);
    auto out = chunked(sender, 100, 8192);
    sender.protect({out.data(), out.size()}, msg_header_size);
    const auto good = out.to_vector();
    for (std::size_t len = 0; len < good.size(); ++len) {
      bytes cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len));
      if (receiver.unprotect(cut, msg_header_size) != ua::status::bad_security_checks_failed) FAIL("length " << len);
    }
    // The whole chunk and a block of garbage after it: the signature is no longer at the end.
    auto longer = good;
    longer.insert(longer.end(), 16, 0x10);
    CHECK(receiver.unprotect(longer, msg_header_size) == ua::status::bad_security_checks_failed);
    auto copy = good;
    CHECK(receiver.unprotect(copy, good.size() + 1) == ua::status::bad_security_checks_failed);
    // Encrypted, another header size moves the cipher text off its blocks (signed only, the
    // signature covers the whole chunk whatever the header size).
    copy = good;
    if (mode == ua::message_security_mode::sign_and_encrypt)
      CHECK(receiver.unprotect(copy, msg_header_size + 4) == ua::status::bad_security_checks_failed);
    copy = good;
    if (mode == ua::message_security_mode::sign_and_encrypt)
      CHECK(receiver.unprotect(copy, msg_header_size + 16) == ua::status::bad_security_checks_failed);
  }
}

TEST_CASE("symmetric_context: the other direction's keys, another channel's keys and another mode are refused", "[security]") {
  const auto& p = policy("Aes256_Sha256_RsaPss");
  const auto keys = node_nonce_keys(p);
  auto other_nonce = from_hex(vec::server_nonce);
  other_nonce[0] ^= 1;
  const auto other = derive_channel_keys(p, from_hex(vec::client_nonce), other_nonce);
  for (const auto mode : modes) {
    symmetric_context sender(p, mode, keys.server);
    auto out = chunked(sender, 80, 8192);
    sender.protect({out.data(), out.size()}, msg_header_size);
    const auto good = out.to_vector();
    for (const auto* k : {&keys.client, &other.server, &other.client}) {
      symmetric_context receiver(p, mode, *k);
      auto copy = good;
      CHECK(receiver.unprotect(copy, msg_header_size) == ua::status::bad_security_checks_failed);
    }
    // A key that differs only in the encrypting part or only in the IV.
    for (int part = 0; part < 2; ++part) {
      auto k = keys.server;
      (part == 0 ? k.encrypting[5] : k.iv[0]) ^= 0x40;
      symmetric_context receiver(p, mode, k);
      auto copy = good;
      const auto sc = receiver.unprotect(copy, msg_header_size);
      if (mode == ua::message_security_mode::sign_and_encrypt) CHECK(sc == ua::status::bad_security_checks_failed);
      else CHECK(sc == ua::status::good);  // Sign only: the encrypting key and IV play no part
    }
  }
  // Signed only, read as encrypted (and the other way round).
  symmetric_context sign_only(p, ua::message_security_mode::sign, keys.server);
  symmetric_context encrypting(p, ua::message_security_mode::sign_and_encrypt, keys.server);
  auto signed_chunk = chunked(sign_only, 80, 8192);
  sign_only.protect({signed_chunk.data(), signed_chunk.size()}, msg_header_size);
  auto copy = signed_chunk.to_vector();
  CHECK(encrypting.unprotect(copy, msg_header_size) == ua::status::bad_security_checks_failed);
  auto enc_chunk = chunked(encrypting, 80, 8192);
  encrypting.protect({enc_chunk.data(), enc_chunk.size()}, msg_header_size);
  copy = enc_chunk.to_vector();
  CHECK(sign_only.unprotect(copy, msg_header_size) == ua::status::bad_security_checks_failed);
}

TEST_CASE("symmetric_context: signed and encrypted with wrong padding gives Bad_SecurityChecksFailed", "[security]") {
  const auto& p = policy("Basic256Sha256");
  const auto keys = node_nonce_keys(p);
  symmetric_context ctx(p, ua::message_security_mode::sign_and_encrypt, keys.server);
  // Body 50: 8 + 50 + 1 + 32 = 91 -> 5 padding bytes, PaddingSize at size - 33.
  auto proto = chunked(ctx, 50, 8192);
  const std::size_t size = proto.size();
  REQUIRE(proto.data()[size - 33] == 5);
  SECTION("a padding byte differs from PaddingSize") { proto.data()[size - 35] = 4; }
  SECTION("PaddingSize larger than the plaintext") { proto.data()[size - 33] = 200; }
  SECTION("PaddingSize one more than the padding written") { proto.data()[size - 33] = 6; }
  auto chunk = proto.to_vector();
  ctx.protect(chunk, msg_header_size);  // signed as it is: only the padding check can refuse it
  CHECK(ctx.unprotect(chunk, msg_header_size) == ua::status::bad_security_checks_failed);
}

TEST_CASE("symmetric_context: mode None does nothing, Sign with policy None is a programmer error", "[security]") {
  symmetric_context none(policy_none(), ua::message_security_mode::none, {});
  CHECK(none.chunk_security().signature_size == 0);
  bytes chunk(40, 0xab);
  none.protect(chunk, msg_header_size);
  CHECK(chunk == bytes(40, 0xab));
  CHECK(none.unprotect(chunk, msg_header_size) == ua::status::good);
  CHECK_THROWS_AS(symmetric_context(policy_none(), ua::message_security_mode::sign, {}), std::invalid_argument);
  CHECK_THROWS_AS(symmetric_context(policy("Basic256Sha256"), ua::message_security_mode::invalid, {}), std::invalid_argument);
  // Keys of another policy (16-byte AES key for a 32-byte policy).
  const auto k128 = node_nonce_keys(policy("Aes128_Sha256_RsaOaep")).server;
  CHECK_THROWS_AS(symmetric_context(policy("Basic256Sha256"), ua::message_security_mode::sign, k128), std::invalid_argument);
  // chunk_security of each mode.
  const auto k = node_nonce_keys(policy("Basic256Sha256")).server;
  const auto s = symmetric_context(policy("Basic256Sha256"), ua::message_security_mode::sign, k).chunk_security();
  CHECK((s.signature_size == 32 && !s.encrypted && s.plain_block_size == 1));
  const auto e = symmetric_context(policy("Basic256Sha256"), ua::message_security_mode::sign_and_encrypt, k).chunk_security();
  CHECK((e.signature_size == 32 && e.encrypted && e.plain_block_size == 16 && e.cipher_block_size == 16 && !e.extra_padding_size));
}

TEST_CASE("symmetric_context: protect and unprotect allocate nothing (operator new and OpenSSL)", "[security]") {
  REQUIRE(test::openssl_allocations_counted());
  for (std::size_t pi = 1; pi < all_policies().size(); ++pi) {
    const auto& p = all_policies()[pi];
    const auto keys = node_nonce_keys(p);
    for (const auto mode : modes) {
      INFO(p.name << " mode " << static_cast<int>(mode));
      symmetric_context sender(p, mode, keys.server);
      symmetric_context receiver(p, mode, keys.server);
      for (const std::size_t body_size : {80u, 8000u}) {
        auto out = chunked(sender, body_size, 65535);
        std::span<std::uint8_t> chunk(out.data(), out.size());
        // The first use may set up lazily inside OpenSSL; steady state is what counts.
        // One chunk of SequenceNumber 5 (chunked's first), the number an AEAD receiver expects.
        sender.protect(chunk, msg_header_size);
        REQUIRE(receiver.unprotect(chunk, msg_header_size, 5) == ua::status::good);
        const auto before = test::openssl_allocations();
        const test::alloc_scope scope;
        for (int i = 0; i < 10; ++i) {
          sender.protect(chunk, msg_header_size);
          REQUIRE(receiver.unprotect(chunk, msg_header_size, 5) == ua::status::good);
        }
        if (test::counts_allocations) CHECK(scope.counted().allocations == 0);
        CHECK(test::openssl_allocations() - before == 0);
      }
    }
  }
}

}  // namespace security_symmetric_test
