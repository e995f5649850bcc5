// UA-TCP messages (Part 6 §7.1.2): exact bytes against the spec's tables, Hello validation and
// the negotiation of a connection's limits.
#include <catch2/catch.hpp>

#include <string>

#include "protocol/uatcp.hpp"
#include "tests/support/bytes.hpp"

using namespace uactor;
using ua::status_code;
namespace status = ua::status;

namespace {

template <class T>
test::bytes whole(const T& v) {
  ua::byte_buffer out;
  ua::write_message(out, v);
  return out.to_vector();
}

}  // namespace

TEST_CASE("uatcp: Hello has the layout of Part 6 Table 'Hello Message'", "[protocol]") {
  ua::hello h;
  h.protocol_version = 0;
  h.receive_buffer_size = 65536;
  h.send_buffer_size = 65536;
  h.max_message_size = 16u << 20;
  h.max_chunk_count = 4096;
  h.endpoint_url = "opc.tcp://a:4840";
  const auto expected = test::from_hex(
      "48 45 4c 46  30 00 00 00"   // "HEL" 'F', MessageSize 48
      "00 00 00 00"                // ProtocolVersion
      "00 00 01 00  00 00 01 00"   // ReceiveBufferSize, SendBufferSize
      "00 00 00 01  00 10 00 00"   // MaxMessageSize 16 MiB, MaxChunkCount 4096
      "10 00 00 00"                // EndpointUrl length 16
      "6f 70 63 2e 74 63 70 3a 2f 2f 61 3a 34 38 34 30");
  CHECK(test::to_hex(whole(h)) == test::to_hex(expected));

  ua::hello back;
  REQUIRE(ua::read_message(expected, back) == status::good);
  CHECK(back == h);
}

TEST_CASE("uatcp: Acknowledge has the layout of Part 6 Table 'Acknowledge Message'", "[protocol]") {
  ua::acknowledge a;
  a.receive_buffer_size = 8192;
  a.send_buffer_size = 65535;
  a.max_message_size = 0;
  a.max_chunk_count = 0;
  const auto expected = test::from_hex(
      "41 43 4b 46  1c 00 00 00"   // "ACK" 'F', MessageSize 28
      "00 00 00 00"                // ProtocolVersion
      "00 20 00 00  ff ff 00 00"   // ReceiveBufferSize 8192, SendBufferSize 65535
      "00 00 00 00  00 00 00 00"); // MaxMessageSize, MaxChunkCount: no limit
  CHECK(test::to_hex(whole(a)) == test::to_hex(expected));
  ua::acknowledge back;
  REQUIRE(ua::read_message(expected, back) == status::good);
  CHECK(back == a);
}

TEST_CASE("uatcp: Error has the layout of Part 6 Table 'Error Message'", "[protocol]") {
  ua::error_message e{status::bad_tcp_message_too_large, "too big"};
  const auto expected = test::from_hex(
      "45 52 52 46  17 00 00 00"   // "ERR" 'F', MessageSize 23
      "00 00 80 80"                // Error 0x80800000 Bad_TcpMessageTooLarge
      "07 00 00 00  74 6f 6f 20 62 69 67");
  CHECK(test::to_hex(whole(e)) == test::to_hex(expected));
  ua::error_message back;
  REQUIRE(ua::read_message(expected, back) == status::good);
  CHECK(back == e);
}

TEST_CASE("uatcp: ReverseHello round-trips with both strings", "[protocol]") {
  ua::reverse_hello r{"urn:a:server", "opc.tcp://a:4840"};
  const auto bytes = whole(r);
  CHECK(test::to_hex(test::bytes(bytes.begin(), bytes.begin() + 4)) == "52 48 45 46");  // "RHE" 'F'
  ua::reverse_hello back;
  REQUIRE(ua::read_message(bytes, back) == status::good);
  CHECK(back == r);
}

TEST_CASE("uatcp: an Error reason over 4096 bytes is ignored, not an error", "[protocol]") {
  ua::error_message e{status::bad_tcp_internal_error, ua::ua_string(std::string(5000, 'x'))};
  ua::error_message back;
  REQUIRE(ua::read_message(whole(e), back) == status::good);
  CHECK(back.error == status::bad_tcp_internal_error);
  CHECK(back.reason.is_null());
}

TEST_CASE("uatcp: read_message refuses another type, a wrong size and trailing bytes", "[protocol]") {
  ua::hello h;
  h.receive_buffer_size = h.send_buffer_size = 8192;
  auto bytes = whole(h);
  ua::acknowledge a;
  CHECK(ua::read_message(bytes, a) == status::bad_tcp_message_type_invalid);

  auto longer = bytes;
  longer.push_back(0);
  ua::hello back;
  CHECK(ua::read_message(longer, back) == status::bad_decoding_error);  // header size != input
  longer[4] += 1;                                                       // header now says so too
  CHECK(ua::read_message(longer, back) == status::bad_decoding_error);  // the body leaves a byte
}

TEST_CASE("uatcp: every truncation of a Hello is refused without reading past it", "[protocol]") {
  ua::hello h;
  h.receive_buffer_size = h.send_buffer_size = 65535;
  h.endpoint_url = "opc.tcp://host:4840/path";
  const auto bytes = whole(h);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    // A heap copy of exactly n bytes, so that ASan sees any read past the end.
    std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    ua::hello back;
    CHECK(ua::read_message(cut, back).is_bad());
  }
}

TEST_CASE("uatcp: message header types and chunk types", "[protocol]") {
  auto parse = [](const char* s) {
    std::array<std::uint8_t, 8> b{};
    std::memcpy(b.data(), s, 4);
    b[4] = 8;
    return ua::parse_message_header(b);
  };
  CHECK(parse("HELF")->type == ua::message_type::hello);
  CHECK(parse("MSGC")->chunk == ua::chunk_type::intermediate);
  CHECK(parse("MSGA")->chunk == ua::chunk_type::abort);
  CHECK(parse("OPNF")->type == ua::message_type::open);
  CHECK(parse("CLOF")->type == ua::message_type::close);
  CHECK(parse("HELC").error() == status::bad_tcp_message_type_invalid);  // §7.1.2.2: only F
  CHECK(parse("ACKA").error() == status::bad_tcp_message_type_invalid);
  CHECK(parse("OPNC").error() == status::bad_tcp_message_type_invalid);  // §6.7.2.2: only MSG has C/A
  CHECK(parse("MSGX").error() == status::bad_tcp_message_type_invalid);
  CHECK(parse("GET ").error() == status::bad_tcp_message_type_invalid);
  CHECK(parse("hel" "F").error() == status::bad_tcp_message_type_invalid);
  CHECK(ua::to_string(ua::message_type::reverse_hello) == "RHE");
}

TEST_CASE("uatcp: a Hello with buffers below 8192 bytes is rejected", "[protocol]") {
  const ua::transport_limits ours;
  ua::hello h;
  h.receive_buffer_size = 8191;
  h.send_buffer_size = 65535;
  CHECK(ua::accept_hello(h, ours).error() == status::bad_connection_rejected);
  h.receive_buffer_size = 65535;
  h.send_buffer_size = 1024;
  CHECK(ua::accept_hello(h, ours).error() == status::bad_connection_rejected);
  h.send_buffer_size = 8192;
  CHECK(ua::accept_hello(h, ours).has_value());
}

TEST_CASE("uatcp: a Hello with an EndpointUrl over 4096 bytes gets Bad_TcpEndpointUrlInvalid", "[protocol]") {
  ua::hello h;
  h.receive_buffer_size = h.send_buffer_size = 65535;
  h.endpoint_url.assign(std::string(4097, 'u'));
  CHECK(ua::accept_hello(h, {}).error() == status::bad_tcp_endpoint_url_invalid);
  h.endpoint_url.assign(std::string(4096, 'u'));
  CHECK(ua::accept_hello(h, {}).has_value());
  // Read off the wire, such a string decodes (bounded by the message), so that accept_hello can
  // name the reason; a length beyond the message is a decoding error as before.
  h.endpoint_url.assign(std::string(4097, 'u'));
  ua::hello back;
  REQUIRE(ua::read_message(whole(h), back) == status::good);
  CHECK(ua::accept_hello(back, {}).error() == status::bad_tcp_endpoint_url_invalid);
  auto cut = whole(h);
  cut.resize(cut.size() - 1);
  CHECK(ua::read_message(cut, back).is_bad());
}

TEST_CASE("uatcp: negotiation revises the buffers down to both sides' and keeps each side's limits", "[protocol]") {
  ua::transport_limits ours;  // 65535 / 65535 / 16 MiB / 4096
  ua::hello h;
  h.protocol_version = 3;  // a later version: we answer with ours, 0
  h.receive_buffer_size = 1u << 20;
  h.send_buffer_size = 8192;
  h.max_message_size = 0;  // no limit
  h.max_chunk_count = 12;
  const auto r = ua::accept_hello(h, ours);
  REQUIRE(r.has_value());
  CHECK(r->ack.protocol_version == 0);
  CHECK(r->ack.receive_buffer_size == 8192);   // the client sends nothing larger
  CHECK(r->ack.send_buffer_size == 65535);     // ours is the smaller
  CHECK(r->ack.max_message_size == 16u << 20);
  CHECK(r->ack.max_chunk_count == 4096);
  CHECK(r->limits.receive_buffer_size == 8192);
  CHECK(r->limits.receive_max_message_size == 16u << 20);
  CHECK(r->limits.receive_max_chunk_count == 4096);
  CHECK(r->limits.send_buffer_size == 65535);
  CHECK(r->limits.send_max_message_size == 0);
  CHECK(r->limits.send_max_chunk_count == 12);

  // The client checks the answer against its Hello and ends with the mirror image.
  const auto client = ua::accept_acknowledge(r->ack, h);
  REQUIRE(client.has_value());
  CHECK(client->send_buffer_size == 8192);
  CHECK(client->receive_buffer_size == 65535);
  CHECK(client->send_max_message_size == 16u << 20);
  CHECK(client->send_max_chunk_count == 4096);
  CHECK(client->receive_max_chunk_count == 12);
}

TEST_CASE("uatcp: an Acknowledge that grows the buffers asked for is refused", "[protocol]") {
  const auto h = ua::make_hello({}, "opc.tcp://a:4840");
  ua::acknowledge a;
  a.receive_buffer_size = 65536;  // more than our SendBufferSize 65535
  a.send_buffer_size = 65535;
  CHECK(ua::accept_acknowledge(a, h).error() == status::bad_connection_rejected);
  a.receive_buffer_size = 4096;  // below the minimum we may be given
  CHECK(ua::accept_acknowledge(a, h).error() == status::bad_connection_rejected);
  a.receive_buffer_size = 8192;
  a.protocol_version = 1;
  CHECK(ua::accept_acknowledge(a, h).error() == status::bad_protocol_version_unsupported);
}
