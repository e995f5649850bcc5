#include "actors/client/client_link.hpp"

#include <utility>

namespace uactor::actors {

void client_link::open(caf::io::connection_handle hdl, client_channel_config config, response_storage* storage,
                       std::unique_ptr<wss_client_transport> wss) {
  const auto limits = config.limits;
  channel_.emplace(std::move(config));
  channel_->set_response_storage(storage);
  reader_.emplace(limits);
  staged_.clear();
  hdl_ = hdl;
  up_ = true;
  // Staged receive: at most 8 KB per read, framed by chunk_reader.
  self_->configure_read(hdl_, caf::io::receive_policy::at_most(8192));
  wss_ = std::move(wss);
  if (wss_) {
    // A failed start leaves the transport closed: the channel's Hello is then refused by
    // send_chunks (flush), and the connect deadline ends the attempt.
    wss_->start();
    if (send_wss_output()) self_->flush(hdl_);
  }
}

void client_link::close() {
  if (!up_) return;
  up_ = false;
  ++epoch_;
  if (wss_) {
    wss_->close(1000);  // RFC 6455 §7.1.2: our close frame and TLS's close_notify before the FIN
    send_wss_output();
    self_->flush(hdl_);
  }
  self_->close(hdl_);
}

void client_link::closed_by_peer() noexcept {
  up_ = false;
  ++epoch_;
}

void client_link::flush() {
  auto& out = channel_->output();
  if (out.empty() || !up_) {
    out.clear();
    return;
  }
  if (wss_) {
    // Every chunk of this flush its own masked frame, all of them in one SSL_write and one write.
    if (!wss_->send_chunks(out.bytes())) wss_->close(1011);  // RFC 6455 §7.4.1: an internal error
    channel_->clear_output();
    send_wss_output();
    self_->flush(hdl_);
    return;
  }
  auto& buf = self_->wr_buf(hdl_);
  const auto* p = reinterpret_cast<const char*>(out.data());
  buf.insert(buf.end(), p, p + out.size());
  channel_->clear_output();
  self_->flush(hdl_);
}

bool client_link::unwrap_wss(std::span<const std::uint8_t> in, ua::status_code& ended) {
  ws_chunks_.clear();
  if (!wss_->on_bytes(in, ws_chunks_)) {
    ended = wss_->failure().is_bad() ? wss_->failure() : ua::status::bad_connection_closed;
  }
  if (send_wss_output()) self_->flush(hdl_);
  return !(ended.is_bad() && ws_chunks_.empty());
}

bool client_link::send_wss_output() {
  auto& out = wss_->out();
  if (out.empty()) return false;
  auto& buf = self_->wr_buf(hdl_);
  const auto* p = reinterpret_cast<const char*>(out.data());
  buf.insert(buf.end(), p, p + out.size());
  out.clear();
  return true;
}

void client_link::keep_unframed(std::span<const std::uint8_t> in, std::size_t used) {
  // The buffer keeps its capacity (no allocation per receive when a large response arrives in
  // pieces).
  if (!staged_.empty() && in.data() == staged_.data())
    staged_.erase(staged_.begin(), staged_.begin() + static_cast<std::ptrdiff_t>(used));
  else
    staged_.assign(in.begin() + static_cast<std::ptrdiff_t>(used), in.end());
}

}  // namespace uactor::actors
