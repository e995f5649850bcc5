// opc.wss's frame rules (protocol/ws_uacp.hpp, Part 6 §7.5.2): one frame is one chunk, our byte
// stream cut back into chunks at any split, the subprotocol header and the Origin check.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "protocol/uatcp.hpp"
#include "protocol/ws_uacp.hpp"
#include "uactor/ua/status_codes.hpp"

using namespace uactor;

namespace {
std::vector<std::uint8_t> ws_test_hello() {
  ua::byte_buffer out;
  ua::hello h;
  h.receive_buffer_size = h.send_buffer_size = 8192;
  h.endpoint_url = ua::ua_string("opc.wss://host:4843/");
  ua::write_message(out, h);
  return {out.data(), out.data() + out.size()};
}
}  // namespace

TEST_CASE("ws_uacp: a frame is exactly one chunk within the limit", "[protocol][wss]") {
  const auto hel = ws_test_hello();
  CHECK(ua::check_ws_chunk(hel, 65535) == ua::status::good);
  CHECK(ua::check_ws_chunk(hel, static_cast<std::uint32_t>(hel.size() - 1)) == ua::status::bad_tcp_message_too_large);
  auto two = hel;
  two.insert(two.end(), hel.begin(), hel.end());
  CHECK(ua::check_ws_chunk(two, 65535) == ua::status::bad_decoding_error);
  CHECK(ua::check_ws_chunk(std::span(hel).first(hel.size() - 1), 65535) == ua::status::bad_decoding_error);
  CHECK(ua::check_ws_chunk(std::span(hel).first(7), 65535) == ua::status::bad_decoding_error);
  auto bad_type = hel;
  bad_type[0] = 'X';
  CHECK(ua::check_ws_chunk(bad_type, 65535) == ua::status::bad_tcp_message_type_invalid);
}

TEST_CASE("ws_uacp: our stream of chunks is cut at the same places whatever the split", "[protocol][wss]") {
  const auto hel = ws_test_hello();
  std::vector<std::uint8_t> stream;
  for (int i = 0; i < 3; ++i) stream.insert(stream.end(), hel.begin(), hel.end());
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    // What has arrived is stream[0, cut): the complete chunks in it, no more.
    std::size_t at = 0, chunks = 0;
    ua::status_code bad;
    while (const auto n = ua::complete_chunk_length(std::span(stream).subspan(at, cut - at), 65535, bad)) {
      CHECK(n == hel.size());
      at += n;
      ++chunks;
    }
    CHECK(bad == ua::status::good);
    CHECK(chunks == cut / hel.size());
  }
  ua::status_code bad;
  auto huge = hel;
  huge[4] = 0xff, huge[5] = 0xff, huge[6] = 0xff, huge[7] = 0x00;
  CHECK(ua::complete_chunk_length(huge, 65535, bad) == 0);
  CHECK(bad == ua::status::bad_tcp_message_too_large);
  auto tiny = hel;
  tiny[4] = 4, tiny[5] = tiny[6] = tiny[7] = 0;
  bad = ua::status::good;
  CHECK(ua::complete_chunk_length(tiny, 65535, bad) == 0);
  CHECK(bad == ua::status::bad_decoding_error);
}

TEST_CASE("ws_uacp: the subprotocol is asked for by name among others", "[protocol][wss]") {
  CHECK(ua::requests_uacp_subprotocol("opcua+uacp"));
  CHECK(ua::requests_uacp_subprotocol("opcua+uajson, opcua+uacp"));
  CHECK(ua::requests_uacp_subprotocol(" chat ,opcua+uacp "));
  CHECK_FALSE(ua::requests_uacp_subprotocol(""));
  CHECK_FALSE(ua::requests_uacp_subprotocol("opcua+uajson"));
  CHECK_FALSE(ua::requests_uacp_subprotocol("OPCUA+UACP"));
  CHECK_FALSE(ua::requests_uacp_subprotocol("opcua+uacpx"));
}

TEST_CASE("ws_uacp: the Origin check lets non-browsers and listed origins through", "[protocol][wss]") {
  const std::vector<std::string> none;
  const std::vector<std::string> listed{"https://hmi.plant.example", "null"};
  const std::vector<std::string> all{"*"};
  CHECK(ua::origin_allowed("", none));
  CHECK_FALSE(ua::origin_allowed("https://hmi.plant.example", none));
  CHECK(ua::origin_allowed("https://HMI.plant.example", listed));
  CHECK(ua::origin_allowed("null", listed));
  CHECK_FALSE(ua::origin_allowed("https://hmi.plant.example.evil", listed));
  CHECK_FALSE(ua::origin_allowed("http://hmi.plant.example", listed));
  CHECK(ua::origin_allowed("https://anything", all));
}
