// The historian's on-disk spool (docs/history.md "When storage is down"): batches of records that
// the memory queue cannot hold while the store is unavailable, appended to a file of bounded size
// and read back in the order they went in. A file left by an earlier run is read back first.
//
// The file is a sequence of frames: "UASB", the payload's length (u32 LE), an FNV-1a 32 of the
// payload (u32 LE), the payload: the record count (u32 LE), then per record the NodeId text (u16 LE
// length, bytes) and the DataValue in OPC UA binary (u32 LE length, bytes). Its reader is a parser
// of untrusted bytes (a file on disk): every length is bounded before anything is allocated
// (parse_spool_frame; tests/fuzz/spool_fuzz.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "history/history_store.hpp"

namespace uactor::history {

struct spool_limits {
  std::uint32_t max_payload_bytes = 64u << 20;  // one frame (a batch of 1,000 values is far less)
  std::uint32_t max_records = 100'000;          // per frame
  std::uint16_t max_node_length = 4'096;        // a NodeId's text
};

inline constexpr std::size_t spool_header_bytes = 12;

// The frame at the start of `in`: its records appended to `out`, the bytes it took in `used`.
// Bad_EndOfStream when `in` holds less than a whole frame (the rest of a file cut short),
// Bad_DecodingError for a frame that is not one (magic, checksum, a length past `limits` or past
// the payload, a DataValue that does not decode, bytes left over); `out` is unchanged then.
ua::status_code parse_spool_frame(std::span<const std::uint8_t> in, std::vector<record>& out, std::size_t& used,
                                  const spool_limits& limits = {});

// A batch as one frame (the writer's half of parse_spool_frame).
std::vector<std::uint8_t> spool_frame(std::span<const record> batch);

// The file. Not thread-safe: the historian's actor owns it.
class spool_file {
public:
  // Opens `path` (created when missing) with room for `max_bytes` of frames. The frames a former
  // run left are kept to be read back; a damaged tail is cut off (take_notes says so). Throws store_error when
  // the file cannot be opened or written.
  spool_file(std::string path, std::uint64_t max_bytes, spool_limits limits = {});
  ~spool_file();
  spool_file(const spool_file&) = delete;
  spool_file& operator=(const spool_file&) = delete;

  // Appends the batch as one frame; false (nothing written) when it would pass max_bytes or the
  // write fails (take_notes says why).
  bool push(std::span<const record> batch);
  // The oldest batch, taken out of the spool (the file is emptied once all are read); an empty
  // vector when none is left. A frame that does not parse ends the spool: the rest is dropped and
  // counted in damaged_values() (take_notes says where).
  std::vector<record> pop();

  bool empty() const noexcept { return batches_ == 0; }
  std::size_t batches() const noexcept { return batches_; }
  std::uint64_t bytes() const noexcept { return end_ - read_; }  // waiting to be read back
  std::uint64_t values() const noexcept { return values_; }      // records waiting
  std::uint64_t damaged_values() const noexcept { return damaged_; }
  // What went wrong since the last call, for the owner's log ("" nothing); cleared.
  std::string take_notes() { return std::exchange(notes_, {}); }
  const std::string& path() const noexcept { return path_; }

private:
  void reset();  // nothing waits: the file is truncated

  std::string path_;
  std::uint64_t max_bytes_;
  spool_limits limits_;
  std::FILE* file_ = nullptr;
  std::uint64_t read_ = 0;  // offset of the oldest frame
  std::uint64_t end_ = 0;   // offset past the newest
  std::size_t batches_ = 0;
  std::uint64_t values_ = 0;
  std::uint64_t damaged_ = 0;
  std::string notes_;
  std::deque<std::uint32_t> counts_;  // records per frame, oldest first (for values())
};

}  // namespace uactor::history
