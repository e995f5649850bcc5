#include "actors/wss/wss_bridge.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cstring>
#include <span>

#include <boost/asio/write.hpp>
#include <spdlog/spdlog.h>

#include "protocol/uatcp.hpp"
#include "protocol/ws_uacp.hpp"

namespace uactor::actors::wss {

namespace websocket = beast::websocket;

uacp_bridge::uacp_bridge(ws_stream ws, pair_socket pair, bridge_limits limits, std::function<void()> on_end)
    : ws_(std::move(ws)), pair_(std::move(pair)), limits_(limits), on_end_(std::move(on_end)) {
  // Our chunks are at most the send buffer; twice that holds one whole chunk behind a partial one.
  out_.resize(2 * std::size_t{std::max<std::uint32_t>(limits_.max_out_chunk, ua::min_buffer_size)});
}

uacp_bridge::~uacp_bridge() { end(); }

void uacp_bridge::start() {
  read_frame();
  read_pair();
}

void uacp_bridge::abort() {
  beast::error_code ignored;
  pair_.close(ignored);
  beast::get_lowest_layer(ws_).socket().close(ignored);
}

void uacp_bridge::read_frame() {
  ws_.async_read(in_, [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_frame(ec); });
}

void uacp_bridge::on_frame(beast::error_code ec) {
  if (ec) {
    // The peer closed, or broke the protocol (unmasked, oversized: Beast has answered with the close
    // code, 1002 or 1009): the broker learns it from its socket's end.
    if (ec != websocket::error::closed && ec != asio::error::operation_aborted)
      spdlog::debug("opc.wss: a connection ends: {}", ec.message());
    return abort();
  }
  if (!ws_.got_binary()) return close_ws(websocket::close_code::unknown_data);  // §7.5.2: binary only (1003)
  const auto data = in_.cdata();
  const std::span<const std::uint8_t> frame(static_cast<const std::uint8_t*>(data.data()), data.size());
  if (const auto sc = ua::check_ws_chunk(frame, limits_.max_frame); sc.is_bad()) {
    spdlog::debug("opc.wss: a frame is not one MessageChunk ({}); closing", sc.to_string());
    return close_ws(sc == ua::status::bad_tcp_message_too_large ? websocket::close_code::too_big
                                                                : websocket::close_code::protocol_error);
  }
  asio::async_write(pair_, in_.cdata(), [self = shared_from_this()](beast::error_code wec, std::size_t n) {
    if (wec) return self->abort();
    self->in_.consume(n);
    self->read_frame();
  });
}

void uacp_bridge::read_pair() {
  pair_.async_read_some(asio::buffer(out_.data() + out_have_, out_.size() - out_have_),
                        [self = shared_from_this()](beast::error_code ec, std::size_t n) { self->on_pair(ec, n); });
}

void uacp_bridge::on_pair(beast::error_code ec, std::size_t n) {
  if (ec) return close_ws(websocket::close_code::normal);  // the broker closed (after an ERR or a CLO, or its end)
  out_have_ += n;
  send_frames();
}

void uacp_bridge::send_frames() {
  if (closing_) return;
  ua::status_code bad;
  const std::span<const std::uint8_t> rest(out_.data() + out_sent_, out_have_ - out_sent_);
  const std::size_t len = ua::complete_chunk_length(rest, limits_.max_out_chunk, bad);
  if (bad.is_bad()) {
    spdlog::error("opc.wss: the connection wrote a chunk that cannot be framed ({}); closing", bad.to_string());
    return abort();
  }
  if (len == 0) {
    cork(false);  // the batch is written: out it goes, in as few segments as it fills
    // Keep the partial chunk at the front and read the rest behind it.
    if (out_sent_ != 0) {
      std::memmove(out_.data(), out_.data() + out_sent_, out_have_ - out_sent_);
      out_have_ -= out_sent_;
      out_sent_ = 0;
    }
    return read_pair();
  }
  // More chunks behind this one (responses of one drain of the broker): hold the segments until the
  // last is written, so that the peer is woken once per batch, not once per frame (the opc.tcp
  // broker's one writev; docs/decisions/0057).
  if (ua::complete_chunk_length(rest.subspan(len), limits_.max_out_chunk, bad) != 0) cork(true);
  writing_ = true;
  ws_.async_write(asio::buffer(out_.data() + out_sent_, len), [self = shared_from_this(), len](beast::error_code ec, std::size_t) {
    self->writing_ = false;
    if (ec) return self->abort();
    self->out_sent_ += len;
    if (self->closing_) return self->close_ws(websocket::close_code::normal);
    self->send_frames();
  });
}

void uacp_bridge::cork(bool on) {
  if (corked_ == on) return;
  corked_ = on;
  const int v = on ? 1 : 0;
  ::setsockopt(beast::get_lowest_layer(ws_).socket().native_handle(), IPPROTO_TCP, TCP_CORK, &v, sizeof v);
}

void uacp_bridge::close_ws(websocket::close_code code) {
  if (ended_) return;
  cork(false);
  beast::error_code ignored;
  pair_.close(ignored);  // nothing more goes to the broker
  if (writing_) {        // one write at a time: the close follows the frame in flight
    closing_ = true;
    return;
  }
  if (ended_) return;
  ended_ = true;
  ws_.async_close(code, [self = shared_from_this()](beast::error_code) { self->abort(); });
}

void uacp_bridge::end() {
  if (on_end_) {
    auto f = std::move(on_end_);
    on_end_ = nullptr;
    f();
  }
}

}  // namespace uactor::actors::wss
