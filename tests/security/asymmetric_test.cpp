#include <cstring>
#include <stdexcept>

#include <catch2/catch.hpp>

#include "protocol/message_chunker.hpp"
#include "security/asymmetric.hpp"
#include "tests/security/crypto_test_support.hpp"
#include "tests/security/crypto_vectors.hpp"

using namespace uactor;
using namespace uactor::security;
using uactor::test::bytes;
using uactor::test::from_hex;
using uactor::test::test_rsa_key;
namespace vec = uactor::test::crypto_vectors;

namespace {

const security_policy& policy(std::string_view name) {
  for (const auto& p : all_policies())
    if (p.name == name) return p;
  throw std::logic_error("no such policy");
}

const char* const rsa_policies[] = {"Basic256Sha256", "Aes128_Sha256_RsaOaep", "Aes256_Sha256_RsaPss"};

struct opn {
  ua::byte_buffer plain;  // as the chunker wrote it
  std::size_t header_size = 0;
};

opn chunked_opn(const asymmetric_context& ctx, std::size_t body_size, std::size_t certificate_size = 600) {
  ua::connection_limits limits;
  limits.send_buffer_size = 65535;
  const ua::message_chunker chunker(limits, ua::status::bad_request_too_large, ctx.send_security());
  ua::asymmetric_security_header asym;
  asym.security_policy_uri = ctx.policy().uri;
  asym.sender_certificate.assign(std::string(certificate_size, 'c'));
  asym.receiver_certificate_thumbprint.assign(std::string(20, 't'));
  ua::chunk_target target;
  target.type = ua::message_type::open;
  target.asymmetric = &asym;
  target.request_id = 1;
  bytes body(body_size);
  for (std::size_t i = 0; i < body_size; ++i) body[i] = static_cast<std::uint8_t>(i * 13 + 5);
  ua::sequence_counter seq;
  opn o;
  REQUIRE(chunker.write(body, target, seq, o.plain));
  o.header_size = ua::secure_message_header_size + ua::encoded_size(asym);
  return o;
}

void check_body(const ua::byte_buffer& plain, std::size_t header_size, const ua::chunk_security& s, std::size_t body_size) {
  ua::secure_chunk sc;
  REQUIRE(ua::parse_sequence_part(plain.bytes().subspan(header_size), s, sc) == ua::status::good);
  CHECK(sc.sequence.sequence_number == 1);
  CHECK(sc.sequence.request_id == 1);
  REQUIRE(sc.body.size() == body_size);
  for (std::size_t i = 0; i < body_size; ++i)
    if (sc.body[i] != static_cast<std::uint8_t>(i * 13 + 5)) FAIL("body byte " << i);
}

}  // namespace

TEST_CASE("asymmetric_context: chunk sizes follow the keys (OAEP overhead, ExtraPaddingSize over 2048 bits)", "[security]") {
  const auto& k2 = test_rsa_key(2048);
  const auto& k4 = test_rsa_key(4096);
  asymmetric_context a(policy("Basic256Sha256"), k2, k4.public_only());
  const auto send = a.send_security();
  CHECK((send.signature_size == 256 && send.cipher_block_size == 512 && send.plain_block_size == 512 - 42));
  CHECK((send.encrypted && send.extra_padding_size));
  const auto recv = a.receive_security();
  CHECK((recv.signature_size == 512 && recv.cipher_block_size == 256 && recv.plain_block_size == 256 - 42));
  CHECK((recv.encrypted && !recv.extra_padding_size));
  asymmetric_context pss(policy("Aes256_Sha256_RsaPss"), k2, k2.public_only());
  CHECK(pss.send_security().plain_block_size == 256 - 66);
  CHECK(!pss.send_security().extra_padding_size);
}

TEST_CASE("asymmetric_context: OPN round trip for each policy with 2048 and 4096-bit keys", "[security]") {
  for (const auto* name : rsa_policies) {
    for (const unsigned client_bits : {2048u, 4096u}) {
      for (const unsigned server_bits : {2048u, 4096u}) {
        INFO(name << " client " << client_bits << " server " << server_bits);
        const auto& client = test_rsa_key(client_bits, 0);
        const auto& server = test_rsa_key(server_bits, 1);
        asymmetric_context c(policy(name), client, server.public_only());
        asymmetric_context s(policy(name), server, client.public_only());
        for (const std::size_t body_size : {0u, 150u, 1500u}) {
          auto o = chunked_opn(c, body_size);
          ua::byte_buffer wire;
          REQUIRE(c.protect(o.plain.bytes(), o.header_size, wire) == ua::status::good);
          REQUIRE(wire.size() == o.plain.size());
          CHECK(std::memcmp(wire.data(), o.plain.data(), o.header_size) == 0);
          ua::byte_buffer plain;
          REQUIRE(s.unprotect(wire.bytes(), o.header_size, plain) == ua::status::good);
          check_body(plain, o.header_size, s.receive_security(), body_size);
          // And the answer the other way.
          auto back = chunked_opn(s, body_size);
          wire.clear();
          REQUIRE(s.protect(back.plain.bytes(), back.header_size, wire) == ua::status::good);
          REQUIRE(c.unprotect(wire.bytes(), back.header_size, plain) == ua::status::good);
          check_body(plain, back.header_size, c.receive_security(), body_size);
        }
      }
    }
  }
}

TEST_CASE("asymmetric_context: a flipped byte at any offset of an OPN is refused", "[security]") {
  for (const auto* name : rsa_policies) {
    INFO(name);
    const auto& client = test_rsa_key(2048, 0);
    const auto& server = test_rsa_key(2048, 1);
    asymmetric_context c(policy(name), client, server.public_only());
    asymmetric_context s(policy(name), server, client.public_only());
    auto o = chunked_opn(c, 20, 40);  // a small OPN: 2 cipher blocks after a 150-byte header
    ua::byte_buffer wire;
    REQUIRE(c.protect(o.plain.bytes(), o.header_size, wire) == ua::status::good);
    const auto good = wire.to_vector();
    ua::byte_buffer plain;
    for (std::size_t i = 0; i < good.size(); ++i) {
      auto bad = good;
      bad[i] ^= 0x01;
      if (s.unprotect(bad, o.header_size, plain) != ua::status::bad_security_checks_failed) FAIL("offset " << i);
      CHECK(plain.empty());
    }
  }
}

TEST_CASE("asymmetric_context: truncated, partial-block and wrongly keyed OPNs are refused", "[security]") {
  const auto& p = policy("Basic256Sha256");
  const auto& client = test_rsa_key(2048, 0);
  const auto& server = test_rsa_key(2048, 1);
  asymmetric_context c(p, client, server.public_only());
  asymmetric_context s(p, server, client.public_only());
  auto o = chunked_opn(c, 100);
  ua::byte_buffer wire;
  REQUIRE(c.protect(o.plain.bytes(), o.header_size, wire) == ua::status::good);
  const auto good = wire.to_vector();
  ua::byte_buffer plain;
  for (const std::size_t len : {std::size_t{0}, o.header_size, o.header_size + 1, o.header_size + 255, good.size() - 1,
                                good.size() - 256, good.size() + 1}) {
    auto cut = good;
    cut.resize(len, 0);
    CHECK(s.unprotect(cut, o.header_size, plain) == ua::status::bad_security_checks_failed);
  }
  CHECK(s.unprotect(good, good.size(), plain) == ua::status::bad_security_checks_failed);
  CHECK(s.unprotect(good, o.header_size + 1, plain) == ua::status::bad_security_checks_failed);
  // Encrypted for another key; signed by another key than the peer's.
  asymmetric_context wrong_receiver(p, test_rsa_key(2048, 0), client.public_only());
  CHECK(wrong_receiver.unprotect(good, o.header_size, plain) == ua::status::bad_security_checks_failed);
  asymmetric_context wrong_sender(p, server, server.public_only());
  CHECK(wrong_sender.unprotect(good, o.header_size, plain) == ua::status::bad_security_checks_failed);
  // Another policy with the same keys (OAEP SHA-256 and PSS).
  asymmetric_context pss(policy("Aes256_Sha256_RsaPss"), server, client.public_only());
  CHECK(pss.unprotect(good, o.header_size, plain) == ua::status::bad_security_checks_failed);
  // A plaintext not laid out for send_security() is the caller's error.
  ua::byte_buffer out;
  CHECK(c.protect(std::span(good).first(good.size() - 1), o.header_size, out) == ua::status::bad_internal_error);
  CHECK(out.empty());
}

TEST_CASE("asymmetric_context: wrong padding under a good signature is refused", "[security]") {
  const auto& p = policy("Aes128_Sha256_RsaOaep");
  const auto& client = test_rsa_key(2048, 0);
  const auto& server = test_rsa_key(2048, 1);
  asymmetric_context c(p, client, server.public_only());
  asymmetric_context s(p, server, client.public_only());
  auto o = chunked_opn(c, 40);
  // Plaintext after the header: 8 + 40 + 1 + pad + 256 = k * 214 -> pad = 123; PaddingSize right before the signature.
  const auto sec = c.send_security();
  const std::size_t text_end = o.header_size + (o.plain.size() - o.header_size) / sec.cipher_block_size * sec.plain_block_size;
  const std::size_t pad_at = text_end - sec.signature_size - 1;
  REQUIRE(o.plain.data()[pad_at] == 123);
  o.plain.data()[pad_at - 10] = 7;  // one padding byte wrong
  ua::byte_buffer wire, plain;
  REQUIRE(c.protect(o.plain.bytes(), o.header_size, wire) == ua::status::good);
  CHECK(s.unprotect(wire.bytes(), o.header_size, plain) == ua::status::bad_security_checks_failed);
}

TEST_CASE("asymmetric_context: reads the OPN node-opcua signed and encrypted, for each policy", "[security]") {
  const auto sender = rsa_key::from_private_pem(vec::opn_sender_private_pem);
  const auto receiver = rsa_key::from_private_pem(vec::opn_receiver_private_pem);
  REQUIRE(sender);
  REQUIRE(receiver);
  const struct {
    const char* name;
    std::string_view chunk;
    std::string_view header_size;
  } cases[] = {{"Basic256Sha256", vec::basic256sha256_opn, vec::basic256sha256_opn_header_size},
               {"Aes128_Sha256_RsaOaep", vec::aes128_sha256_rsaoaep_opn, vec::aes128_sha256_rsaoaep_opn_header_size},
               {"Aes256_Sha256_RsaPss", vec::aes256_sha256_rsapss_opn, vec::aes256_sha256_rsapss_opn_header_size}};
  const auto body = from_hex(vec::msg_body);
  for (const auto& v : cases) {
    INFO(v.name);
    asymmetric_context ctx(policy(v.name), *receiver, sender->public_only());
    const auto chunk = from_hex(v.chunk);
    const std::size_t header_size = std::stoul(std::string(v.header_size));
    ua::byte_buffer plain;
    REQUIRE(ctx.unprotect(chunk, header_size, plain) == ua::status::good);
    ua::secure_chunk sc;
    REQUIRE(ua::parse_sequence_part(plain.bytes().subspan(header_size), ctx.receive_security(), sc) == ua::status::good);
    CHECK(bytes(sc.body.begin(), sc.body.end()) == body);
    // The header as parse_security_part sees it names the policy.
    ua::secure_chunk head;
    ua::asymmetric_security_header asym;
    const auto at = ua::parse_security_part(chunk, head, &asym);
    REQUIRE(at);
    CHECK(*at == header_size);
    CHECK(asym.security_policy_uri == policy(v.name).uri);
  }
}

TEST_CASE("asymmetric_context: key checks", "[security]") {
  const auto& k2 = test_rsa_key(2048);
  CHECK(check_key_length(policy("Basic256Sha256"), k2) == ua::status::good);
  CHECK(check_key_length(policy("Basic256Sha256"), test_rsa_key(4096)) == ua::status::good);
  const auto k1 = rsa_key::generate(1024);
  REQUIRE(k1);
  CHECK(check_key_length(policy("Basic256Sha256"), *k1) == ua::status::bad_certificate_policy_check_failed);
  CHECK_THROWS_AS(asymmetric_context(policy_none(), k2, k2), std::invalid_argument);
  CHECK_THROWS_AS(asymmetric_context(policy("Basic256Sha256"), k2.public_only(), k2), std::invalid_argument);
  CHECK_THROWS_AS(asymmetric_context(policy("Basic256Sha256"), k2, rsa_key{}), std::invalid_argument);
}

TEST_CASE("rsa_key: PEM round trip, public part, sizes", "[security]") {
  const auto& k = test_rsa_key(2048);
  CHECK(k.bits() == 2048);
  CHECK(k.size_bytes() == 256);
  CHECK(k.has_private());
  const auto pub = k.public_only();
  CHECK(pub.bits() == 2048);
  CHECK(!pub.has_private());
  CHECK(pub.to_private_pem().empty());
  const auto pem = k.to_private_pem();
  CHECK(pem.starts_with("-----BEGIN PRIVATE KEY-----"));
  const auto back = rsa_key::from_private_pem(pem);
  REQUIRE(back);
  CHECK(back->to_private_pem() == pem);
  CHECK(rsa_key::from_private_pem("not a key").error() == ua::status::bad_decoding_error);
  CHECK(rsa_key::from_private_pem(pem.substr(0, pem.size() / 2)).error() == ua::status::bad_decoding_error);
  CHECK(rsa_key::generate(512).error() == ua::status::bad_invalid_argument);
  const rsa_key copy = k;  // shares the key
  CHECK(copy.native() == k.native());
  CHECK(!rsa_key{});
}
