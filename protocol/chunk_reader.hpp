// Frames UA-TCP chunks out of a byte stream (Part 6 §7.1.2). Owns no socket and no thread: the
// transport feeds it whatever one recv returned, and it says what it took. The chunks it hands out
// are views, valid only during the callback: into the caller's input, or into the reader's own
// buffer for a chunk that arrived in pieces.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>

#include "protocol/byte_buffer.hpp"
#include "uactor/ua/expected.hpp"
#include "protocol/uatcp.hpp"

namespace uactor::ua {

// One complete chunk: its type and chunk type (already validated) and all its bytes, header included.
struct chunk_view {
  message_type type = message_type::hello;
  chunk_type chunk = chunk_type::final_chunk;
  std::span<const std::uint8_t> bytes;
};

class chunk_reader {
public:
  // Until set_receive_buffer_size() is called (after Hello/Acknowledge), chunks may be as large as
  // limits.receive_buffer_size, the size we offer.
  explicit chunk_reader(transport_limits limits) noexcept : limit_(limits.receive_buffer_size) {}

  // The negotiated ReceiveBufferSize (connection_limits::receive_buffer_size); applies to every
  // header read from now on.
  void set_receive_buffer_size(std::uint32_t n) noexcept { limit_ = n; }
  std::uint32_t receive_buffer_size() const noexcept { return limit_; }

  // True while a chunk is held in pieces (its header validated, its rest not yet arrived).
  bool holds_partial_chunk() const noexcept { return partial_size_ != 0; }
  // The bytes still missing of the chunk held in pieces (0 when there is none): the transport
  // completes a large chunk with one receive of this size instead of several staging-sized ones.
  std::size_t missing() const noexcept { return partial_size_ - (partial_size_ != 0 ? partial_.size() : 0); }

  // Consumes bytes from `in`. Returns how many were used, or the status that ends the connection
  // (Bad_TcpMessageTooLarge, Bad_TcpMessageTypeInvalid, Bad_DecodingError for a size below 8).
  // Zero bytes used means "give me more". Bytes not used (fewer than 8: a header not yet whole)
  // stay with the caller, who passes them again followed by the next bytes. Complete chunks are
  // handed to `on_chunk(const chunk_view&)` in order; a callback returning a bad status_code stops
  // the reader with that status. Every header is checked before anything is buffered for its
  // chunk, so a hostile size costs no memory. After an error every call returns the same error.
  template <class OnChunk>
  expected<std::size_t> put(std::span<const std::uint8_t> in, OnChunk&& on_chunk);

  // Called from the callback: put() returns right after this chunk, with the bytes used so far;
  // the caller keeps the rest and puts it again later (a channel whose OpenSecureChannel is being
  // answered elsewhere reads nothing behind it, Part 6 §6.7.2).
  void pause() noexcept { paused_ = true; }

private:
  expected<message_header> check_header(const std::uint8_t* p) const noexcept;

  template <class OnChunk>
  bool deliver(OnChunk& on_chunk, const chunk_view& v) {
    if constexpr (std::is_convertible_v<std::invoke_result_t<OnChunk&, const chunk_view&>, status_code>) {
      const status_code sc = on_chunk(v);
      if (sc.is_bad()) { failed_ = sc; return false; }
    } else {
      on_chunk(v);
    }
    return true;
  }

  std::uint32_t limit_;
  byte_buffer partial_;            // a chunk split across calls: header and the bytes so far
  std::size_t partial_size_ = 0;   // its whole size; 0 when there is none
  message_header partial_header_;
  status_code failed_;
  bool paused_ = false;
};

template <class OnChunk>
expected<std::size_t> chunk_reader::put(std::span<const std::uint8_t> in, OnChunk&& on_chunk) {
  if (failed_.is_bad()) return failed_;
  std::size_t used = 0;
  if (partial_size_ != 0) {
    const std::size_t take = std::min(partial_size_ - partial_.size(), in.size());
    partial_.append(in.data(), take);
    used = take;
    if (partial_.size() < partial_size_) return used;
    partial_size_ = 0;
    if (!deliver(on_chunk, {partial_header_.type, partial_header_.chunk, partial_.bytes()})) return failed_;
    if (paused_) { paused_ = false; return used; }
  }
  while (in.size() - used >= message_header_size) {
    const auto h = check_header(in.data() + used);
    if (!h) { failed_ = h.error(); return failed_; }
    const std::size_t n = h->message_size;
    const std::size_t left = in.size() - used;
    if (left >= n) {  // whole in the input: handed out in place, no copy
      const std::size_t at = used;
      used += n;
      if (!deliver(on_chunk, {h->type, h->chunk, in.subspan(at, n)})) return failed_;
      if (paused_) { paused_ = false; return used; }
      continue;
    }
    // Split across calls: keep it in a buffer of exactly its size (reused between chunks).
    partial_.clear();
    partial_.reserve(n);
    partial_.append(in.data() + used, left);
    partial_size_ = n;
    partial_header_ = *h;
    used = in.size();
  }
  return used;
}

}  // namespace uactor::ua
