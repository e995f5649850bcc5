// The parts of OPN/MSG/CLO chunks (Part 6 §6.7.2): exact bytes for policy None, the size
// formulas with made-up policy parameters, and sequence numbers.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "protocol/message_chunker.hpp"
#include "protocol/secure_chunk.hpp"
#include "tests/support/bytes.hpp"

using namespace uactor;
namespace status = ua::status;

TEST_CASE("secure_chunk: a MSG chunk of policy None has the layout of Part 6 §6.7.2", "[protocol]") {
  const auto chunk = test::from_hex(
      "4d 53 47 46  1b 00 00 00"   // "MSG" 'F', MessageSize 27
      "07 00 00 00"                // SecureChannelId 7
      "02 00 00 00"                // TokenId 2
      "33 00 00 00  05 00 00 00"   // SequenceNumber 51, RequestId 5
      "aa bb cc");                 // body
  ua::secure_chunk c;
  REQUIRE(ua::parse_secure_chunk(chunk, c) == status::good);
  CHECK(c.type == ua::message_type::message);
  CHECK(c.chunk == ua::chunk_type::final_chunk);
  CHECK(c.secure_channel_id == 7);
  CHECK(c.token_id == 2);
  CHECK(c.sequence == ua::sequence_header{51, 5});
  CHECK(test::bytes(c.body.begin(), c.body.end()) == test::from_hex("aa bb cc"));
  CHECK(c.body.data() == chunk.data() + 24);  // a view, no copy

  // The chunker writes the same bytes.
  ua::connection_limits l;
  l.send_buffer_size = 8192;
  ua::message_chunker chunker(l, status::bad_request_too_large);
  ua::sequence_counter seq(true, 51);
  ua::byte_buffer out;
  const auto body = test::from_hex("aa bb cc");
  REQUIRE(chunker.write(body, {ua::message_type::message, 7, 2, nullptr, 5}, seq, out).value() == 1);
  CHECK(test::to_hex(out.to_vector()) == test::to_hex(chunk));
}

TEST_CASE("secure_chunk: an OPN chunk carries the asymmetric security header", "[protocol]") {
  ua::asymmetric_security_header a;
  a.security_policy_uri = "http://opcfoundation.org/UA/SecurityPolicy#None";
  a.sender_certificate = ua::byte_string::null();
  a.receiver_certificate_thumbprint = ua::byte_string::null();
  ua::connection_limits l;
  l.send_buffer_size = 8192;
  ua::message_chunker chunker(l, status::bad_request_too_large);
  ua::sequence_counter seq;
  ua::byte_buffer out;
  const auto body = test::from_hex("01 00 be 01 00 00");
  REQUIRE(chunker.write(body, {ua::message_type::open, 0, 0, &a, 1}, seq, out).value() == 1);
  const auto bytes = out.to_vector();
  // "OPN" 'F', size, SecureChannelId 0, then the URI's length and text.
  CHECK(test::to_hex(test::bytes(bytes.begin(), bytes.begin() + 4)) == "4f 50 4e 46");
  CHECK(test::to_hex(test::bytes(bytes.begin() + 12, bytes.begin() + 16)) == "2f 00 00 00");

  ua::secure_chunk c;
  ua::asymmetric_security_header back;
  REQUIRE(ua::parse_secure_chunk(bytes, c, &back) == status::good);
  CHECK(back == a);
  CHECK(c.type == ua::message_type::open);
  CHECK(c.sequence == ua::sequence_header{1, 1});
  CHECK(test::bytes(c.body.begin(), c.body.end()) == body);

  // Every truncation before the body is refused, never read past (ASan checks the heap copies);
  // a chunk cut inside the body is a valid chunk with a shorter body.
  for (std::size_t n = 0; n < bytes.size() - body.size(); ++n) {
    std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    if (n >= 8) {  // the header would disagree anyway; make it agree so the parts are tested
      const auto size = static_cast<std::uint32_t>(n);
      std::memcpy(cut.data() + 4, &size, 4);
    }
    ua::secure_chunk cc;
    CHECK(ua::parse_secure_chunk(cut, cc, &back).is_bad());
  }
}

TEST_CASE("secure_chunk: security header limits", "[protocol]") {
  ua::asymmetric_security_header a;
  a.security_policy_uri.assign(std::string(256, 'p'));  // §6.7.2.3: at most 255 bytes
  ua::connection_limits l;
  l.send_buffer_size = 8192;
  ua::message_chunker chunker(l, status::bad_request_too_large);
  ua::sequence_counter seq;
  ua::byte_buffer out;
  REQUIRE(chunker.write({}, {ua::message_type::open, 0, 0, &a, 1}, seq, out).has_value());
  ua::secure_chunk c;
  CHECK(ua::parse_secure_chunk(out.bytes(), c, nullptr) == status::bad_encoding_limits_exceeded);

  a.security_policy_uri = "uri";
  a.receiver_certificate_thumbprint.assign(std::string(65, 't'));
  out.clear();
  REQUIRE(chunker.write({}, {ua::message_type::open, 0, 0, &a, 1}, seq, out).has_value());
  CHECK(ua::parse_secure_chunk(out.bytes(), c, nullptr) == status::bad_encoding_limits_exceeded);
}

TEST_CASE("secure_chunk: HEL is not a secure chunk, the header size must be the chunk's", "[protocol]") {
  auto hel = test::from_hex("48 45 4c 46 10 00 00 00 00 00 00 00 00 00 00 00");
  ua::secure_chunk c;
  CHECK(ua::parse_secure_chunk(hel, c) == status::bad_tcp_message_type_invalid);
  auto msg = test::from_hex("4d 53 47 46 19 00 00 00 07 00 00 00 02 00 00 00 01 00 00 00 01 00 00 00");
  CHECK(ua::parse_secure_chunk(msg, c) == status::bad_decoding_error);  // says 25, is 24
  msg[4] = 0x18;
  CHECK(ua::parse_secure_chunk(msg, c) == status::good);
  CHECK(c.body.empty());
}

TEST_CASE("secure_chunk: policy None sizes: header, sequence header, body", "[protocol]") {
  const auto none = ua::chunk_security::none();
  CHECK(ua::max_body_size(8192, 16, none) == 8192 - 16 - 8);
  CHECK(ua::spec_max_body_size(8192, 16, none) == ua::max_body_size(8192, 16, none) - 1);  // the spec's "-1" is for PaddingSize
  CHECK(ua::wire_chunk_size(100, 16, none) == 124);
  CHECK(ua::padding_size(100, none) == 0);
  CHECK(ua::max_body_size(24, 16, none) == 0);
}

TEST_CASE("secure_chunk: size formulas of §6.7.2.5 with made-up block ciphers", "[protocol]") {
  struct made_up {
    const char* name;
    ua::chunk_security s;
    std::size_t header;
  };
  // Parameters shaped like real policies, not taken from any: a symmetric AES-like cipher with a
  // 32-byte signature, an RSA-OAEP-2048-like one (214/256), and a 4096-bit one needing
  // ExtraPaddingSize (470/512).
  const made_up cases[] = {
      {"symmetric 16/16, sig 32", {32, 16, 16, true, false}, 16},
      {"sign only, sig 20", {20, 1, 1, false, false}, 16},
      {"asymmetric 214/256, sig 256", {256, 214, 256, true, false}, 1200},
      {"asymmetric 470/512, sig 512, extra padding byte", {512, 470, 512, true, true}, 2400},
  };
  for (const auto& m : cases) {
    for (std::size_t chunk_size : {8192u, 8193u, 65535u, 65536u}) {
      INFO(m.name << ", chunk " << chunk_size);
      const std::size_t max = ua::max_body_size(chunk_size, m.header, m.s);
      REQUIRE(max > 0);
      // Exact: the largest body fits, one byte more does not.
      CHECK(ua::wire_chunk_size(max, m.header, m.s) <= chunk_size);
      CHECK(ua::wire_chunk_size(max + 1, m.header, m.s) > chunk_size);
      // Encrypted plaintext fills whole blocks; padding is shorter than a block.
      for (std::size_t body : {std::size_t{0}, std::size_t{1}, max / 2, max}) {
        const auto plain = ua::plaintext_size(body, m.s);
        if (m.s.encrypted) {
          CHECK(plain % m.s.plain_block_size == 0);
          CHECK(ua::padding_size(body, m.s) < m.s.plain_block_size);
        } else {
          CHECK(ua::padding_size(body, m.s) == 0);
        }
      }
    }
  }
  // The formula printed in §6.7.2.5 reserves one byte for PaddingSize before rounding down to
  // whole blocks, so the padding that follows can need a block it did not reserve. With a 8192-byte
  // chunk it happens to fit (15 bytes to spare); with the default 65535 it overflows by one.
  const ua::chunk_security aes{32, 16, 16, true, false};
  CHECK(ua::spec_max_body_size(8192, 16, aes) == 8120);
  CHECK(ua::wire_chunk_size(8120, 16, aes) == 8192);
  CHECK(ua::max_body_size(8192, 16, aes) == 8135);
  CHECK(ua::spec_max_body_size(65535, 16, aes) == 65464);
  CHECK(ua::wire_chunk_size(65464, 16, aes) == 65536);  // one byte over the chunk size
  CHECK(ua::wire_chunk_size(ua::max_body_size(65535, 16, aes), 16, aes) <= 65535);
  // With plain blocks smaller than cipher blocks, it subtracts the signature in cipher bytes
  // while the signature is encrypted as plaintext: its body overflows further.
  const ua::chunk_security rsa{256, 214, 256, true, false};
  const auto spec = ua::spec_max_body_size(8192, 1012, rsa);
  CHECK(ua::wire_chunk_size(spec, 1012, rsa) > 8192);
  CHECK(ua::max_body_size(8192, 1012, rsa) == 5727);
  CHECK(ua::wire_chunk_size(5727, 1012, rsa) == 8180);
}

TEST_CASE("secure_chunk: padding and signature written by the chunker are stripped by the parser", "[protocol]") {
  const ua::chunk_security cases[] = {
      {32, 16, 16, true, false},
      {20, 1, 1, false, false},
      {256, 214, 256, true, false},
      {512, 470, 512, true, true},
  };
  for (const auto& s : cases) {
    INFO("signature " << s.signature_size << ", blocks " << s.plain_block_size << "/" << s.cipher_block_size);
    ua::connection_limits l;
    l.send_buffer_size = 8192;
    ua::message_chunker chunker(l, status::bad_request_too_large, s);
    ua::sequence_counter seq;
    ua::byte_buffer out;
    test::bytes body(3000);
    for (std::size_t i = 0; i < body.size(); ++i) body[i] = static_cast<std::uint8_t>(i * 7);
    const auto n = chunker.write(body, {ua::message_type::message, 1, 1, nullptr, 9}, seq, out);
    REQUIRE(n.has_value());
    // Walk the chunks; each is parsed as its plaintext would be after decryption.
    test::bytes joined;
    std::size_t at = 0;
    for (std::size_t i = 0; i < *n; ++i) {
      std::uint32_t size;
      std::memcpy(&size, out.data() + at + 4, 4);
      CHECK(size <= 8192);
      const auto chunk = out.bytes().subspan(at, size);
      ua::secure_chunk c;
      const auto start = ua::parse_security_part(chunk, c, nullptr);
      REQUIRE(start.has_value());
      // The plaintext's length, as a policy knows it after decrypting whole blocks.
      const std::size_t blocks = (size - *start) / s.cipher_block_size;
      const auto plain = chunk.subspan(*start, s.encrypted ? blocks * s.plain_block_size : size - *start);
      REQUIRE(ua::parse_sequence_part(plain, s, c) == status::good);
      CHECK(c.sequence.request_id == 9);
      joined.insert(joined.end(), c.body.begin(), c.body.end());
      at += size;
    }
    CHECK(at == out.size());
    CHECK(joined == body);
  }
}

TEST_CASE("secure_chunk: a padding size larger than the plaintext is malformed", "[protocol]") {
  const ua::chunk_security s{0, 16, 16, true, false};
  test::bytes plain(16, 0);
  plain[15] = 200;  // PaddingSize says 200
  ua::secure_chunk c;
  CHECK(ua::parse_sequence_part(plain, s, c) == status::bad_decoding_error);
  plain[15] = 7;  // 8 sequence header bytes, 7 padding, PaddingSize: empty body
  REQUIRE(ua::parse_sequence_part(plain, s, c) == status::good);
  CHECK(c.body.empty());
  CHECK(ua::parse_sequence_part(std::span(plain.data(), 8), s, c) == status::bad_decoding_error);
}

TEST_CASE("secure_chunk: legacy sequence numbers start low and wrap below 1024", "[protocol]") {
  ua::sequence_counter legacy;
  CHECK(legacy.next() == 1);
  CHECK(legacy.next() == 2);
  ua::sequence_counter near_end(true, ua::legacy_wrap_threshold);
  CHECK(near_end.next() == 4294966271u);
  CHECK(near_end.next() == 4294966272u);  // §6.7.2.4: no wrap until above UInt32.MaxValue - 1024
  CHECK(near_end.next() == 1);            // then a number below 1024

  ua::sequence_counter modern(false);
  CHECK(modern.next() == 0);
  ua::sequence_counter modern_end(false, 0);
  for (int i = 0; i < 3; ++i) modern_end.next();
  CHECK(modern_end.peek() == 3);
}

TEST_CASE("secure_chunk: the receiver accepts +1 and the spec's wrap, nothing else", "[protocol]") {
  ua::sequence_checker c;
  CHECK(c.check(1000) == status::good);  // legacy: the first is taken as it comes
  CHECK(c.check(1001) == status::good);
  CHECK(c.check(1003) == status::bad_sequence_number_invalid);  // a gap

  ua::sequence_checker again;
  CHECK(again.check(5) == status::good);
  CHECK(again.check(5) == status::bad_sequence_number_invalid);  // a replay

  ua::sequence_checker wrap;
  ua::sequence_counter sender(true, ua::legacy_wrap_threshold - 2);
  for (int i = 0; i < 8; ++i) CHECK(wrap.check(sender.next()) == status::good);

  ua::sequence_checker early;
  CHECK(early.check(100) == status::good);
  CHECK(early.check(1) == status::bad_sequence_number_invalid);  // a wrap long before the end

  ua::sequence_checker late_wrap_too_high;
  CHECK(late_wrap_too_high.check(0xFFFFFFF0u) == status::good);
  CHECK(late_wrap_too_high.check(1024) == status::bad_sequence_number_invalid);

  ua::sequence_checker modern(false);
  CHECK(modern.check(1) == status::bad_sequence_number_invalid);  // must start at 0
  ua::sequence_checker modern2(false);
  CHECK(modern2.check(0) == status::good);
  CHECK(modern2.check(1) == status::good);
}
