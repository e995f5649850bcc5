// The worker protocol (docs/decisions/0020): length-prefixed frames over a Unix socket pair between
// the shard supervisor and a `uactor worker` process. A frame is a little-endian u32 body length,
// then the body: a u8 frame type and its fields. Pure: bytes in, frames out; both ends check every
// length against the bytes there and the frame limit, and refuse the rest (Bad_EncodingLimitsExceeded
// for a frame over the limit, Bad_DecodingError for a truncated or malformed body).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "uactor/ua/expected.hpp"
#include "uactor/ua/status_codes.hpp"
#include "scripting/engine.hpp"
#include "scripting/item.hpp"
#include "scripting/value.hpp"

namespace uactor::scripting {

enum class frame_type : std::uint8_t {
  load = 1,       // host -> worker: the items to compile
  loaded = 2,     // worker -> host: one error per item (empty: compiled)
  run_batch = 3,  // host -> worker: the runs of one tick
  result = 4,     // worker -> host: one run done (streamed: one per run, in batch order)
  heartbeat = 5,  // worker -> host: alive and idle
};

inline constexpr std::size_t frame_header_size = 4;
inline constexpr std::size_t default_max_frame = 4u << 20;  // a whole tick of runs fits many times

struct load_frame {
  std::vector<item_spec> items;  // index = item id
};
struct loaded_frame {
  std::vector<std::string> errors;
};
struct run_entry {
  std::uint32_t item = 0;
  bool active = false;
  std::vector<script_value> inputs;
};
struct run_batch_frame {
  std::uint64_t batch = 0;
  double now_seconds = 0;
  std::vector<run_entry> runs;
};
struct result_frame {
  std::uint64_t batch = 0;
  std::uint32_t item = 0;
  eval_result result;
  std::uint64_t duration_ns = 0;  // the worker's own measure of the run
};
struct heartbeat_frame {
  std::uint64_t sequence = 0;
};

// Encoders append one whole frame (header included) to `out`.
void encode(const load_frame& f, std::vector<std::byte>& out);
void encode(const loaded_frame& f, std::vector<std::byte>& out);
void encode(const run_batch_frame& f, std::vector<std::byte>& out);
void encode(const result_frame& f, std::vector<std::byte>& out);
void encode(const heartbeat_frame& f, std::vector<std::byte>& out);

// Decoders take a body (what frame_reader hands out, the type byte first).
ua::expected<load_frame> decode_load(std::span<const std::byte> body);
ua::expected<loaded_frame> decode_loaded(std::span<const std::byte> body);
ua::expected<run_batch_frame> decode_run_batch(std::span<const std::byte> body);
ua::expected<result_frame> decode_result(std::span<const std::byte> body);
ua::expected<heartbeat_frame> decode_heartbeat(std::span<const std::byte> body);

// Frames out of a byte stream, split anywhere. The header is checked before any body is kept: a
// length of 0 or over `max_frame` ends the stream with Bad_EncodingLimitsExceeded, and the reader
// holds no more than one frame's bytes.
class frame_reader {
public:
  explicit frame_reader(std::size_t max_frame = default_max_frame) : max_(max_frame) {}

  // Takes all of `in`; each complete body goes to on_frame(std::span<const std::byte>) in order.
  // A bad header: the status, and the reader stays failed.
  template <class OnFrame>
  ua::status_code put(std::span<const std::byte> in, OnFrame&& on_frame) {
    if (failed_.is_bad()) return failed_;
    while (!in.empty()) {
      if (need_ == 0) {  // reading a header
        const std::size_t take = std::min(in.size(), frame_header_size - header_fill_);
        for (std::size_t i = 0; i < take; ++i) header_[header_fill_ + i] = in[i];
        header_fill_ += take;
        in = in.subspan(take);
        if (header_fill_ < frame_header_size) break;
        header_fill_ = 0;
        const std::uint32_t n = static_cast<std::uint32_t>(header_[0]) | static_cast<std::uint32_t>(header_[1]) << 8 |
                                static_cast<std::uint32_t>(header_[2]) << 16 | static_cast<std::uint32_t>(header_[3]) << 24;
        if (n == 0 || n > max_) return failed_ = ua::status::bad_encoding_limits_exceeded;
        need_ = n;
        body_.clear();
        // A body wholly in this read is handed out without a copy.
        if (in.size() >= need_) {
          on_frame(in.first(need_));
          in = in.subspan(need_);
          need_ = 0;
        }
        continue;
      }
      const std::size_t take = std::min(in.size(), need_ - body_.size());
      body_.insert(body_.end(), in.begin(), in.begin() + static_cast<std::ptrdiff_t>(take));
      in = in.subspan(take);
      if (body_.size() == need_) {
        need_ = 0;
        on_frame(std::span<const std::byte>(body_));
      }
    }
    return ua::status::good;
  }
  // Bytes of a frame begun and not complete (a stream that ends here was cut).
  bool mid_frame() const noexcept { return need_ != 0 || header_fill_ != 0; }

private:
  std::size_t max_;
  std::byte header_[frame_header_size]{};
  std::size_t header_fill_ = 0;
  std::size_t need_ = 0;
  std::vector<std::byte> body_;
  ua::status_code failed_;
};

}  // namespace uactor::scripting
