// Reassembly of chunked UADP DataSetMessages (Part 14 §7.2.4.4.4): the chunk NetworkMessages of
// one DataSetMessage (one PublisherId, WriterGroupId, DataSetWriterId and MessageSequenceNumber)
// are copied into one buffer until their bytes cover its TotalSize; then the DataSetMessage is
// read like any other (read_uadp_dataset_message). Bounded (docs/decisions/0072): a TotalSize
// past `max_total_size` is refused; each publisher's writer has at most `per_writer` payloads in
// flight and the assembler `max_assemblies` (the oldest goes); an assembly older than `timeout_ms`
// is dropped. A chunk that lies (another TotalSize than its siblings', a size unlike theirs, bytes
// another chunk already gave) is refused with its reason. No CAF, no I/O.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pubsub/uadp_messages.hpp"

namespace uactor::pubsub {

struct uadp_chunk_limits {
  std::size_t max_total_size = 1 << 20;  // bytes of one reassembled DataSetMessage
  std::size_t per_writer = 2;            // payloads in flight per PublisherId + WriterGroupId + DataSetWriterId
  std::size_t max_assemblies = 32;       // payloads in flight in all
  std::int64_t timeout_ms = 1000;        // an incomplete payload older than this is dropped
};

struct uadp_chunk_counters {
  std::uint64_t chunks = 0;     // chunks taken into an assembly
  std::uint64_t completed = 0;  // DataSetMessages reassembled
  std::uint64_t refused = 0;    // chunks refused (limits, lies)
  std::uint64_t dropped = 0;    // incomplete payloads dropped: timed out, or pushed out by newer ones
};

class uadp_chunk_assembler {
public:
  enum class outcome : std::uint8_t { partial, complete, refused };

  explicit uadp_chunk_assembler(uadp_chunk_limits limits = {}) : limits_(limits) {}

  // Takes chunk `c` of the publisher `publisher` (its text) and writer group `group` at `now_ms`
  // (a monotonic clock). `complete`: payload() is the whole DataSetMessage until the next add;
  // `refused`: `error` says why (offsets within the chunk NetworkMessage are those of `c`).
  outcome add(std::string_view publisher, std::uint16_t group, const uadp_chunk& c, std::int64_t now_ms, uadp_error& error);
  std::span<const std::uint8_t> payload() const noexcept { return done_; }
  // Drops the payloads started more than timeout_ms before `now_ms`; how many.
  std::size_t expire(std::int64_t now_ms);

  std::size_t in_flight() const noexcept { return assemblies_.size(); }
  const uadp_chunk_counters& counters() const noexcept { return counters_; }
  const uadp_chunk_limits& limits() const noexcept { return limits_; }

private:
  struct assembly {
    std::string publisher;
    std::uint16_t group = 0, writer = 0, sequence = 0;
    std::uint32_t total = 0;
    std::uint32_t chunk_size = 0;  // of the chunks but the last; 0 until one of them came
    std::size_t received = 0;
    std::int64_t started_ms = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;  // bytes received, [begin, end), sorted, merged
    std::vector<std::uint8_t> bytes;
  };
  outcome refuse(uadp_error& error, ua::status_code sc, std::size_t offset, std::string what);
  void drop(std::size_t i);

  uadp_chunk_limits limits_;
  std::vector<assembly> assemblies_;
  std::vector<std::uint8_t> done_;
  uadp_chunk_counters counters_;
};

}  // namespace uactor::pubsub
