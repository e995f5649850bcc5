#include "pubsub/uadp_chunks.hpp"

#include <algorithm>
#include <cstring>

#include "uactor/ua/status_codes.hpp"

namespace uactor::pubsub {

uadp_chunk_assembler::outcome uadp_chunk_assembler::refuse(uadp_error& error, ua::status_code sc, std::size_t offset,
                                                           std::string what) {
  ++counters_.refused;
  error.status = sc;
  error.offset = offset;
  error.what = std::move(what);
  return outcome::refused;
}

void uadp_chunk_assembler::drop(std::size_t i) {
  ++counters_.dropped;
  assemblies_.erase(assemblies_.begin() + static_cast<std::ptrdiff_t>(i));
}

std::size_t uadp_chunk_assembler::expire(std::int64_t now_ms) {
  std::size_t n = 0;
  for (std::size_t i = assemblies_.size(); i-- > 0;)
    if (now_ms - assemblies_[i].started_ms > limits_.timeout_ms) {
      drop(i);
      ++n;
    }
  return n;
}

uadp_chunk_assembler::outcome uadp_chunk_assembler::add(std::string_view publisher, std::uint16_t group, const uadp_chunk& c,
                                                         std::int64_t now_ms, uadp_error& error) {
  done_.clear();
  expire(now_ms);
  const std::size_t len = c.data.size();
  // read_uadp_network_message has checked these; a chunk made elsewhere is checked again.
  if (c.total_size == 0 || len == 0 || c.offset >= c.total_size || len > c.total_size - c.offset)
    return refuse(error, ua::status::bad_decoding_error, c.data_offset,
                  "a chunk of " + std::to_string(len) + " bytes at ChunkOffset " + std::to_string(c.offset) + " of " +
                      std::to_string(c.total_size));
  if (c.total_size > limits_.max_total_size)
    return refuse(error, ua::status::bad_encoding_limits_exceeded, c.data_offset,
                  "a chunked DataSetMessage of " + std::to_string(c.total_size) + " bytes, more than " +
                      std::to_string(limits_.max_total_size));
  const auto same_writer = [&](const assembly& a) { return a.group == group && a.writer == c.writer_id && a.publisher == publisher; };
  auto it = std::find_if(assemblies_.begin(), assemblies_.end(),
                         [&](const assembly& a) { return same_writer(a) && a.sequence == c.message_sequence_number; });
  if (it == assemblies_.end()) {
    // A new payload: within the writer's and the assembler's bounds, the oldest going first
    // (§7.2.4.4.4: a Subscriber that handles fewer payloads skips the older incomplete ones).
    std::size_t oldest = assemblies_.size(), mine = 0;
    for (std::size_t i = 0; i < assemblies_.size(); ++i)
      if (same_writer(assemblies_[i])) {
        ++mine;
        if (oldest == assemblies_.size() || assemblies_[i].started_ms < assemblies_[oldest].started_ms) oldest = i;
      }
    if (mine >= std::max<std::size_t>(1, limits_.per_writer)) drop(oldest);
    if (assemblies_.size() >= std::max<std::size_t>(1, limits_.max_assemblies)) {
      std::size_t o = 0;
      for (std::size_t i = 1; i < assemblies_.size(); ++i)
        if (assemblies_[i].started_ms < assemblies_[o].started_ms) o = i;
      drop(o);
    }
    assembly a;
    a.publisher.assign(publisher);
    a.group = group;
    a.writer = c.writer_id;
    a.sequence = c.message_sequence_number;
    a.total = c.total_size;
    a.started_ms = now_ms;
    a.bytes.resize(c.total_size);
    assemblies_.push_back(std::move(a));
    it = assemblies_.end() - 1;
  }
  auto& a = *it;
  const auto index = static_cast<std::size_t>(it - assemblies_.begin());
  if (c.total_size != a.total) {
    const auto total = a.total;
    drop(index);  // which of the two lies is not known: neither is taken
    return refuse(error, ua::status::bad_decoding_error, c.data_offset,
                  "TotalSize " + std::to_string(c.total_size) + ", and an earlier chunk of the DataSetMessage said " +
                      std::to_string(total));
  }
  // §7.2.4.4.4: every chunk but the last has one size, and so starts at a multiple of it.
  const bool last = c.offset + len == a.total;
  if (!last) {
    if (a.chunk_size == 0) a.chunk_size = static_cast<std::uint32_t>(len);
    if (len != a.chunk_size)
      return refuse(error, ua::status::bad_decoding_error, c.data_offset,
                    "a chunk of " + std::to_string(len) + " bytes, its siblings have " + std::to_string(a.chunk_size));
  }
  if (a.chunk_size != 0 && (c.offset % a.chunk_size != 0 || (last && len > a.chunk_size)))
    return refuse(error, ua::status::bad_decoding_error, c.data_offset,
                  "ChunkOffset " + std::to_string(c.offset) + " is not on the chunks' size of " + std::to_string(a.chunk_size));
  // Bytes another chunk gave already (a lying ChunkOffset, or a datagram twice) are not taken.
  const std::uint32_t begin = c.offset, end = static_cast<std::uint32_t>(c.offset + len);
  auto r = std::lower_bound(a.ranges.begin(), a.ranges.end(), begin,
                            [](const std::pair<std::uint32_t, std::uint32_t>& x, std::uint32_t v) { return x.second <= v; });
  if (r != a.ranges.end() && r->first < end)
    return refuse(error, ua::status::bad_decoding_error, c.data_offset,
                  "bytes " + std::to_string(begin) + ".." + std::to_string(end) + " overlap a chunk already received");
  std::memcpy(a.bytes.data() + begin, c.data.data(), len);
  a.received += len;
  ++counters_.chunks;
  // Merge with the neighbours: the ranges stay few (contiguous runs).
  r = a.ranges.insert(r, {begin, end});
  if (r + 1 != a.ranges.end() && (r + 1)->first == r->second) {
    r->second = (r + 1)->second;
    a.ranges.erase(r + 1);
  }
  if (r != a.ranges.begin() && (r - 1)->second == r->first) {
    (r - 1)->second = r->second;
    a.ranges.erase(r);
  }
  if (a.received < a.total) return outcome::partial;
  done_.swap(a.bytes);
  assemblies_.erase(it);
  ++counters_.completed;
  return outcome::complete;
}

}  // namespace uactor::pubsub
