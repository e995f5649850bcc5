// The connection actor's TCP link: the scribe, the staged receive, the chunk framing and the
// secure channel whose output goes to the socket. Knows nothing of sessions, requests or recovery:
// it frames chunks and hands them on, says when the bytes could not be framed, and writes what the
// channel has to send. Apart from client_session so that the I/O is one small piece and a link
// given up is known by the link itself (its epoch), not by the session's bookkeeping.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <caf/io/all.hpp>

#include "actors/wss/wss_native_client.hpp"
#include "engine/client/channel_state.hpp"
#include "protocol/chunk_reader.hpp"
#include "uactor/ua/expected.hpp"

namespace uactor::actors {

class client_link {
public:
  // The broker the link's scribes belong to (set once, before open()).
  void attach(caf::io::abstract_broker* self) noexcept { self_ = self; }

  // A new connection (the first, or one after a loss) with a new secure channel over it, whose
  // responses decode into `storage`; the receive is staged at most 8 KB at a time. With `wss`
  // (opc.wss served natively, docs/decisions/0077) the socket's bytes go through it both ways: its
  // TLS handshake starts here, and what the channel writes before the upgrade is done waits in it.
  void open(caf::io::connection_handle hdl, client_channel_config config, response_storage* storage,
            std::unique_ptr<wss_client_transport> wss = nullptr);
  // We give the link up: the scribe is closed. Chunks still being handed on are dropped.
  void close();
  // The peer closed it (CAF told us): nothing to close any more.
  void closed_by_peer() noexcept;

  bool up() const noexcept { return up_; }
  // `hdl` is this link's connection, and the link is up.
  bool carries(caf::io::connection_handle hdl) const noexcept { return up_ && hdl == hdl_; }

  bool has_channel() const noexcept { return channel_.has_value(); }
  client_channel_state& channel() noexcept { return *channel_; }
  const client_channel_state& channel() const noexcept { return *channel_; }
  // The channel's responses decode into `storage` from now on (null: the channel's own message).
  void set_response_storage(response_storage* storage) noexcept {
    if (channel_) channel_->set_response_storage(storage);
  }
  // After the peer's Acknowledge: its ReceiveBufferSize bounds the chunks we frame (Part 6 §7.1.2.4).
  void set_receive_buffer_size(std::uint32_t size) { reader_->set_receive_buffer_size(size); }

  // Writes what the channel has to send, when the link is up; otherwise it is dropped.
  void flush();
  // Drops what the channel has to send.
  void discard_output() { if (channel_) channel_->output().clear(); }

  enum class received : std::uint8_t { framed, given_up };
  // One receive of the link: each complete chunk to `on_chunk(const ua::chunk_view&)`, in order,
  // until the link is given up under it (then `given_up`, the rest dropped); the unframed rest
  // stays for the next receive. A framing error is the status that ends the link.
  template <class OnChunk>
  ua::expected<received> receive(std::span<const std::uint8_t> in, OnChunk&& on_chunk) {
    ua::status_code ended;  // the WebSocket's end (after the chunks that came before it)
    if (wss_) {
      if (!unwrap_wss(in, ended)) return ended;
      in = ws_chunks_.bytes();
    }
    if (!staged_.empty()) {
      staged_.insert(staged_.end(), in.begin(), in.end());
      in = staged_;
    }
    const auto epoch = epoch_;
    auto used = reader_->put(in, [&](const ua::chunk_view& v) {
      if (epoch == epoch_) on_chunk(v);
    });
    if (epoch != epoch_) return received::given_up;
    if (!used) return used.error();
    keep_unframed(in, *used);
    if (ended.is_bad()) return ended;
    return received::framed;
  }

private:
  void keep_unframed(std::span<const std::uint8_t> in, std::size_t used);
  // The WebSocket's part of a receive: TLS, the upgrade's answer, the frames; their chunk bytes
  // into ws_chunks_, what it answers sent. false: nothing to frame and the link ends with `ended`.
  bool unwrap_wss(std::span<const std::uint8_t> in, ua::status_code& ended);
  bool send_wss_output();  // true when there was something

  caf::io::abstract_broker* self_ = nullptr;
  caf::io::connection_handle hdl_;
  bool up_ = false;
  std::uint32_t epoch_ = 0;  // bumped when the link goes: its late chunks are not handed on
  std::optional<client_channel_state> channel_;
  std::optional<ua::chunk_reader> reader_;
  std::vector<std::uint8_t> staged_;  // the start of a chunk from the last receive
  std::unique_ptr<wss_client_transport> wss_;  // opc.wss served natively: null for opc.tcp
  ua::byte_buffer ws_chunks_;                  // the chunk bytes of one receive's messages
};

}  // namespace uactor::actors
