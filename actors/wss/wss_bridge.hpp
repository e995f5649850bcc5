// One opc.wss connection's two directions (Part 6 §7.5.2, docs/decisions/0057): between a
// WebSocket over TLS (Boost.Beast) and the UA-TCP byte stream of a socket pair whose other end is
// an ordinary connection broker (the server's, or the client's). Each received binary frame must
// be one MessageChunk (ua::check_ws_chunk) and is written to the pair as it is; the chunks read
// from the pair are cut at their headers' MessageSize and sent one per frame. One read and one
// write in flight per direction, on the one Asio thread of the transport: a peer that does not
// read stops our reads from the pair, and the broker's back pressure does the rest.
// Internal to actors/wss/ (Boost in it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include <boost/asio/local/stream_protocol.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>

namespace uactor::actors::wss {

namespace beast = boost::beast;
namespace asio = boost::asio;
using ws_stream = beast::websocket::stream<beast::ssl_stream<beast::tcp_stream>>;
using pair_socket = asio::local::stream_protocol::socket;

// Beast's string_view (Boost's in 1.74) as the standard one.
inline std::string_view std_view(beast::string_view s) noexcept { return {s.data(), s.size()}; }
inline beast::string_view beast_view(std::string_view s) noexcept { return {s.data(), s.size()}; }

struct bridge_limits {
  std::uint32_t max_frame = 65535;      // a received frame: at most one chunk of our receive buffer
  std::uint32_t max_out_chunk = 65535;  // a chunk of ours: at most our send buffer
};

class uacp_bridge : public std::enable_shared_from_this<uacp_bridge> {
public:
  // `ws` has completed its handshake; `pair` is our end of the socket pair. `on_end` runs once on
  // the Asio thread when both directions are done.
  uacp_bridge(ws_stream ws, pair_socket pair, bridge_limits limits, std::function<void()> on_end);
  ~uacp_bridge();
  uacp_bridge(const uacp_bridge&) = delete;
  uacp_bridge& operator=(const uacp_bridge&) = delete;

  void start();
  // Replaces the end callback (before start()).
  void set_on_end(std::function<void()> f) { on_end_ = std::move(f); }
  // Ends both directions at once (the transport stops): the sockets close, the broker sees its end.
  void abort();

private:
  void read_frame();
  void on_frame(beast::error_code ec);
  void read_pair();
  void on_pair(beast::error_code ec, std::size_t n);
  void send_frames();
  void close_ws(beast::websocket::close_code code);
  void cork(bool on);  // TCP_CORK on the WebSocket's socket while a batch of frames goes out
  void end();

  ws_stream ws_;
  pair_socket pair_;
  bridge_limits limits_;
  std::function<void()> on_end_;
  beast::flat_buffer in_;              // one received frame
  std::vector<std::uint8_t> out_;      // bytes from the pair: whole chunks go out, a partial one stays
  std::size_t out_have_ = 0;
  std::size_t out_sent_ = 0;
  bool writing_ = false;
  bool corked_ = false;
  bool closing_ = false;
  bool ended_ = false;
};

}  // namespace uactor::actors::wss
