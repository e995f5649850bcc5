#include "actors/client/client_link.hpp"

#include <utility>

namespace uactor::actors {

void client_link::open(caf::io::connection_handle hdl, client_channel_config config, response_storage* storage) {
  const auto limits = config.limits;
  channel_.emplace(std::move(config));
  channel_->set_response_storage(storage);
  reader_.emplace(limits);
  staged_.clear();
  hdl_ = hdl;
  up_ = true;
  // Staged receive: at most 8 KB per read, framed by chunk_reader.
  self_->configure_read(hdl_, caf::io::receive_policy::at_most(8192));
}

void client_link::close() {
  if (!up_) return;
  up_ = false;
  ++epoch_;
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
  auto& buf = self_->wr_buf(hdl_);
  const auto* p = reinterpret_cast<const char*>(out.data());
  buf.insert(buf.end(), p, p + out.size());
  channel_->clear_output();
  self_->flush(hdl_);
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
