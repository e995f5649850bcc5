// WebSocket frames (protocol/ws_frame.hpp, ws_receiver.hpp): the examples of RFC 6455 §5.7 byte
// for byte, the length encodings, masking at any offset, and the receiver's rules at every split.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "protocol/ws_frame.hpp"
#include "protocol/ws_receiver.hpp"

using namespace uactor;

namespace {

using bytes = std::vector<std::uint8_t>;

std::string as_text(std::span<const std::uint8_t> b) { return {b.begin(), b.end()}; }

struct recording_sink final : ua::ws_sink {
  std::vector<std::string> messages;
  std::vector<std::string> pings;
  std::vector<std::uint16_t> closes;
  bool stop_at_close = true;
  bool on_message(std::span<const std::uint8_t> p) override {
    messages.push_back(as_text(p));
    return true;
  }
  bool on_ping(std::span<const std::uint8_t> p) override {
    pings.push_back(as_text(p));
    return true;
  }
  bool on_close(std::uint16_t code) override {
    closes.push_back(code);
    return !stop_at_close;
  }
};

// A client's frame (masked with `key`), as a browser sends it.
bytes client_frame(ua::ws_opcode op, std::string_view payload, bool fin = true,
                   std::array<std::uint8_t, 4> key = {0x37, 0xfa, 0x21, 0x3d}) {
  std::array<std::uint8_t, ua::ws_max_header_size> h{};
  const auto n = ua::encode_ws_frame_header(h, fin, op, payload.size(), &key);
  bytes out(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(n));
  const auto at = out.size();
  out.insert(out.end(), payload.begin(), payload.end());
  ua::ws_apply_mask(std::span(out).subspan(at), key);
  return out;
}

bytes cat(std::initializer_list<bytes> parts) {
  bytes out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace

TEST_CASE("RFC 6455 §5.7: the examples' headers decode", "[protocol][wss]") {
  ua::ws_frame_header h;
  SECTION("a single-frame unmasked text message") {
    const bytes f{0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f};
    REQUIRE(ua::decode_ws_frame_header(f, h) == ua::ws_header_result::complete);
    CHECK(h.fin);
    CHECK(h.opcode == ua::ws_opcode::text);
    CHECK_FALSE(h.masked);
    CHECK(h.payload_length == 5);
    CHECK(h.header_size == 2);
    CHECK(as_text(std::span(f).subspan(2)) == "Hello");
  }
  SECTION("a single-frame masked text message") {
    bytes f{0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58};
    REQUIRE(ua::decode_ws_frame_header(f, h) == ua::ws_header_result::complete);
    CHECK(h.masked);
    CHECK(h.mask == std::array<std::uint8_t, 4>{0x37, 0xfa, 0x21, 0x3d});
    CHECK(h.header_size == 6);
    ua::ws_apply_mask(std::span(f).subspan(6), h.mask);
    CHECK(as_text(std::span(f).subspan(6)) == "Hello");
    // and our encoder writes the same frame
    CHECK(client_frame(ua::ws_opcode::text, "Hello") == bytes{0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58});
  }
  SECTION("a fragmented unmasked text message") {
    const bytes first{0x01, 0x03, 0x48, 0x65, 0x6c};
    const bytes second{0x80, 0x02, 0x6c, 0x6f};
    REQUIRE(ua::decode_ws_frame_header(first, h) == ua::ws_header_result::complete);
    CHECK_FALSE(h.fin);
    CHECK(h.opcode == ua::ws_opcode::text);
    REQUIRE(ua::decode_ws_frame_header(second, h) == ua::ws_header_result::complete);
    CHECK(h.fin);
    CHECK(h.opcode == ua::ws_opcode::continuation);
  }
  SECTION("unmasked ping, masked pong") {
    const bytes ping{0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f};
    REQUIRE(ua::decode_ws_frame_header(ping, h) == ua::ws_header_result::complete);
    CHECK(h.opcode == ua::ws_opcode::ping);
    const bytes pong{0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58};
    REQUIRE(ua::decode_ws_frame_header(pong, h) == ua::ws_header_result::complete);
    CHECK(h.opcode == ua::ws_opcode::pong);
    CHECK(h.masked);
  }
  SECTION("256 bytes and 64 KiB of binary data in one unmasked frame") {
    REQUIRE(ua::decode_ws_frame_header(bytes{0x82, 0x7E, 0x01, 0x00}, h) == ua::ws_header_result::complete);
    CHECK(h.payload_length == 256);
    CHECK(h.header_size == 4);
    REQUIRE(ua::decode_ws_frame_header(bytes{0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0}, h) == ua::ws_header_result::complete);
    CHECK(h.payload_length == 65536);
    CHECK(h.header_size == 10);
    std::array<std::uint8_t, ua::ws_max_header_size> out{};
    REQUIRE(ua::encode_ws_frame_header(out, true, ua::ws_opcode::binary, 256) == 4);
    CHECK(bytes(out.begin(), out.begin() + 4) == bytes{0x82, 0x7E, 0x01, 0x00});
    REQUIRE(ua::encode_ws_frame_header(out, true, ua::ws_opcode::binary, 65536) == 10);
    CHECK(bytes(out.begin(), out.begin() + 10) == bytes{0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0});
    // the shortest form at the borders (§5.2)
    CHECK(ua::encode_ws_frame_header(out, true, ua::ws_opcode::binary, 125) == 2);
    CHECK(ua::encode_ws_frame_header(out, true, ua::ws_opcode::binary, 126) == 4);
    CHECK(ua::encode_ws_frame_header(out, true, ua::ws_opcode::binary, 65535) == 4);
  }
}

TEST_CASE("WebSocket headers: incomplete and invalid ones", "[protocol][wss]") {
  ua::ws_frame_header h;
  CHECK(ua::decode_ws_frame_header(bytes{}, h) == ua::ws_header_result::need_more);
  CHECK(ua::decode_ws_frame_header(bytes{0x82}, h) == ua::ws_header_result::need_more);
  CHECK(ua::decode_ws_frame_header(bytes{0x82, 0x7E, 0x01}, h) == ua::ws_header_result::need_more);
  CHECK(ua::decode_ws_frame_header(bytes{0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0}, h) == ua::ws_header_result::need_more);
  CHECK(ua::decode_ws_frame_header(bytes{0x82, 0x85, 1, 2, 3}, h) == ua::ws_header_result::need_more);  // mask cut
  CHECK(ua::decode_ws_frame_header(bytes{0xC2, 0x00}, h) == ua::ws_header_result::protocol_error);  // RSV1
  CHECK(ua::decode_ws_frame_header(bytes{0x92, 0x00}, h) == ua::ws_header_result::protocol_error);  // RSV3
  CHECK(ua::decode_ws_frame_header(bytes{0x83, 0x00}, h) == ua::ws_header_result::protocol_error);  // opcode 3
  CHECK(ua::decode_ws_frame_header(bytes{0x8B, 0x00}, h) == ua::ws_header_result::protocol_error);  // opcode 0xB
  CHECK(ua::decode_ws_frame_header(bytes{0x09, 0x00}, h) == ua::ws_header_result::protocol_error);  // a fragmented ping
  CHECK(ua::decode_ws_frame_header(bytes{0x89, 0x7E, 0x00, 0x7E}, h) == ua::ws_header_result::protocol_error);  // ping of 126
  CHECK(ua::decode_ws_frame_header(bytes{0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0}, h) == ua::ws_header_result::protocol_error);
}

TEST_CASE("WebSocket masking at any offset is the XOR of §5.3", "[protocol][wss]") {
  const std::array<std::uint8_t, 4> key{0x11, 0x22, 0x33, 0x44};
  bytes data(37);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7 + 1);
  const bytes plain = data;
  for (const std::size_t split : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{9}, std::size_t{36}}) {
    bytes d = plain;
    ua::ws_apply_mask(std::span(d).first(split), key, 0);
    ua::ws_apply_mask(std::span(d).subspan(split), key, split);
    for (std::size_t i = 0; i < d.size(); ++i) REQUIRE(d[i] == (plain[i] ^ key[i % 4]));
    ua::ws_apply_mask(d, key);
    CHECK(d == plain);
  }
}

TEST_CASE("ws_receiver: messages, control frames and fragments at every split", "[protocol][wss]") {
  const bytes stream = cat({client_frame(ua::ws_opcode::binary, "one"), client_frame(ua::ws_opcode::ping, "p"),
                            client_frame(ua::ws_opcode::binary, "tw", false), client_frame(ua::ws_opcode::pong, "x"),
                            client_frame(ua::ws_opcode::continuation, "o-", false, {9, 8, 7, 6}),
                            client_frame(ua::ws_opcode::ping, "q"), client_frame(ua::ws_opcode::continuation, "end"),
                            client_frame(ua::ws_opcode::binary, std::string(300, 'z')),
                            client_frame(ua::ws_opcode::close, std::string("\x03\xe8", 2))});
  for (std::size_t split = 0; split <= stream.size(); ++split) {
    ua::ws_receiver r(1024, true);
    recording_sink s;
    bytes a(stream.begin(), stream.begin() + static_cast<std::ptrdiff_t>(split));
    bytes b(stream.begin() + static_cast<std::ptrdiff_t>(split), stream.end());
    REQUIRE(r.put(a, s) == 0);
    REQUIRE(r.put(b, s) == 0);
    REQUIRE(s.messages == std::vector<std::string>{"one", "two-end", std::string(300, 'z')});
    REQUIRE(s.pings == std::vector<std::string>{"p", "q"});
    REQUIRE(s.closes == std::vector<std::uint16_t>{1000});
    REQUIRE(r.held() == 0);
  }
  // one byte at a time
  ua::ws_receiver r(1024, true);
  recording_sink s;
  for (const auto byte : stream) {
    bytes one{byte};
    REQUIRE(r.put(one, s) == 0);
  }
  CHECK(s.messages.size() == 3);
  CHECK(s.closes.size() == 1);
}

TEST_CASE("ws_receiver: what fails the connection, with which code", "[protocol][wss]") {
  recording_sink s;
  const auto fails = [&](const bytes& in, std::size_t max = 100) {
    ua::ws_receiver r(max, true);
    bytes copy = in;
    return r.put(copy, s);
  };
  CHECK(fails(client_frame(ua::ws_opcode::text, "Hello")) == ua::ws_close::unsupported_data);
  CHECK(fails(bytes{0x82, 0x03, 1, 2, 3}) == ua::ws_close::protocol_error);  // unmasked (§5.1)
  CHECK(fails(client_frame(ua::ws_opcode::continuation, "x")) == ua::ws_close::protocol_error);  // nothing to continue
  CHECK(fails(cat({client_frame(ua::ws_opcode::binary, "a", false), client_frame(ua::ws_opcode::binary, "b")})) ==
        ua::ws_close::protocol_error);  // a new message inside a fragmented one
  CHECK(fails(cat({client_frame(ua::ws_opcode::binary, "a", false), client_frame(ua::ws_opcode::text, "b")})) ==
        ua::ws_close::protocol_error);
  CHECK(fails(client_frame(ua::ws_opcode::binary, std::string(101, 'a'))) == ua::ws_close::too_big);
  CHECK(fails(client_frame(ua::ws_opcode::binary, std::string(100, 'a'))) == 0);
  // too big across fragments, and decided from the header alone (the payload never arrives)
  CHECK(fails(cat({client_frame(ua::ws_opcode::binary, std::string(60, 'a'), false),
                   client_frame(ua::ws_opcode::continuation, std::string(41, 'a'))})) == ua::ws_close::too_big);
  CHECK(fails(bytes{0x82, 0xFF, 0, 0, 0, 0, 0x10, 0, 0, 0, 1, 2, 3, 4}) == ua::ws_close::too_big);
  CHECK(fails(client_frame(ua::ws_opcode::close, "\x03")) == ua::ws_close::protocol_error);  // a one-byte close
  CHECK(fails(client_frame(ua::ws_opcode::close, std::string("\x03\xed", 2))) == ua::ws_close::protocol_error);  // 1005 sent
  CHECK(fails(bytes{0xC2, 0x80, 1, 2, 3, 4}) == ua::ws_close::protocol_error);  // RSV1
  s.closes.clear();
  CHECK(fails(client_frame(ua::ws_opcode::close, "")) == 0);
  CHECK(s.closes == std::vector<std::uint16_t>{ua::ws_close::no_status});
  // a client's receiver wants unmasked frames
  ua::ws_receiver client(100, false);
  bytes masked = client_frame(ua::ws_opcode::binary, "a");
  CHECK(client.put(masked, s) == ua::ws_close::protocol_error);
  bytes plain{0x82, 0x01, 'a'};
  CHECK(client.put(plain, s) == 0);
}
