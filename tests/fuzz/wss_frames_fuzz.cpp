// libFuzzer target for opc.wss's frame path (Part 6 §7.5.2, docs/wss.md): the bytes a client sends
// after the WebSocket upgrade, through Beast's server-side frame parser as the door configures it
// (masking required, 65535-byte messages, fragments reassembled, control frames answered) and our
// checks of each message (ua::check_ws_chunk: one chunk per frame) and of a stream of our own
// chunks (ua::complete_chunk_length). The same bytes then go through the native transport's
// receiver (ua::ws_receiver, docs/decisions/0073), whole and split in two where the first byte
// says: both must find the same messages. TLS below it is OpenSSL's. Any input ends in a message
// checked, a refused one, or a closed stream: never a crash, an over-read or a leak (ASan/UBSan).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include <boost/beast/_experimental/test/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>

#include "protocol/ws_receiver.hpp"
#include "protocol/ws_uacp.hpp"

namespace {

// What the native transport's sink does with a message (wss_native.cpp), recorded.
struct fuzz_ws_sink final : uactor::ua::ws_sink {
  std::string seen;  // the messages' and pings' bytes with markers, to compare two runs
  bool closed = false;
  bool on_message(std::span<const std::uint8_t> p) override {
    if (p.size() > 65535) __builtin_trap();  // the receiver's bound
    (void)uactor::ua::check_ws_chunk(p, 65535);
    seen += 'M';
    seen.append(reinterpret_cast<const char*>(p.data()), p.size());
    return true;
  }
  bool on_ping(std::span<const std::uint8_t> p) override {
    if (p.size() > 125) __builtin_trap();
    seen += 'P';
    seen.append(reinterpret_cast<const char*>(p.data()), p.size());
    return true;
  }
  bool on_close(std::uint16_t code) override {
    seen += 'C' + std::to_string(code);
    closed = true;
    return false;
  }
};

// The receiver's result for `in` fed in two pieces (split at `split`).
std::string native_lane(const std::uint8_t* data, std::size_t size, std::size_t split) {
  uactor::ua::ws_receiver r(65535, true);
  fuzz_ws_sink sink;
  std::string a(reinterpret_cast<const char*>(data), split);
  std::string b(reinterpret_cast<const char*>(data) + split, size - split);
  std::uint16_t fail = r.put({reinterpret_cast<std::uint8_t*>(a.data()), a.size()}, sink);
  if (fail == 0 && !sink.closed)
    fail = r.put({reinterpret_cast<std::uint8_t*>(b.data()), b.size()}, sink);
  if (r.held() > 2 * (65535 + 14)) __builtin_trap();  // a frame and a message at most
  return sink.seen + "|" + std::to_string(fail);
}

constexpr const char* upgrade_request =
    "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
    "Sec-WebSocket-Protocol: opcua+uacp\r\n\r\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace beast = boost::beast;
  namespace websocket = boost::beast::websocket;
  boost::asio::io_context io;
  beast::test::stream client(io);
  beast::test::stream server(io);
  client.connect(server);
  // append() gives a stream its own input: the server's is what the client sent.
  server.append(std::string(upgrade_request));  // what the server reads first
  websocket::stream<beast::test::stream&> ws(server);
  ws.read_message_max(65535);
  ws.auto_fragment(false);
  beast::error_code ec;
  ws.accept(ec);
  if (ec) __builtin_trap();  // the fixed request must pass
  server.append(beast::string_view(reinterpret_cast<const char*>(data), size));
  client.close();  // the input, then the end of the stream
  for (int messages = 0; messages < 256; ++messages) {
    beast::flat_buffer b;
    ws.read(b, ec);
    if (ec) break;
    const auto cb = b.cdata();
    const std::span<const std::uint8_t> frame(static_cast<const std::uint8_t*>(cb.data()), cb.size());
    if (ws.got_binary()) (void)uactor::ua::check_ws_chunk(frame, 65535);
    uactor::ua::status_code bad;
    std::size_t at = 0;
    while (const auto n = uactor::ua::complete_chunk_length(frame.subspan(at), 65535, bad)) at += n;
    if (at > frame.size()) __builtin_trap();
  }
  // The native lane: the same verdict however the bytes are split.
  const std::size_t split = size == 0 ? 0 : data[0] % (size + 1);
  if (native_lane(data, size, size) != native_lane(data, size, split)) __builtin_trap();
  return 0;
}
