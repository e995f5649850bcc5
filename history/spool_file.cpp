#include "history/spool_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unistd.h>

#include "protocol/byte_buffer.hpp"
#include "protocol/codec.hpp"

namespace uactor::history {

namespace spool_file_format {

constexpr std::uint8_t magic[4] = {'U', 'A', 'S', 'B'};

std::uint32_t fnv1a(std::span<const std::uint8_t> bytes) noexcept {
  std::uint32_t h = 2'166'136'261u;
  for (const std::uint8_t b : bytes) {
    h ^= b;
    h *= 16'777'619u;
  }
  return h;
}

std::uint32_t u32(const std::uint8_t* p) noexcept {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 | static_cast<std::uint32_t>(p[2]) << 16 |
         static_cast<std::uint32_t>(p[3]) << 24;
}

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// A stored value decodes under the wire's limits: a damaged frame is refused, never trusted.
const ua::decode_limits spool_value_limits{};

}  // namespace spool_file_format

using namespace spool_file_format;

ua::status_code parse_spool_frame(std::span<const std::uint8_t> in, std::vector<record>& out, std::size_t& used,
                                  const spool_limits& limits) {
  used = 0;
  if (in.size() < spool_header_bytes) return ua::status::bad_end_of_stream;
  if (std::memcmp(in.data(), magic, 4) != 0) return ua::status::bad_decoding_error;
  const std::uint32_t length = u32(in.data() + 4);
  if (length > limits.max_payload_bytes || length < 4) return ua::status::bad_decoding_error;
  if (in.size() - spool_header_bytes < length) return ua::status::bad_end_of_stream;
  const std::span<const std::uint8_t> payload = in.subspan(spool_header_bytes, length);
  if (fnv1a(payload) != u32(in.data() + 8)) return ua::status::bad_decoding_error;
  const std::uint32_t count = u32(payload.data());
  // Each record takes at least 6 bytes (its two lengths): a count the payload cannot hold is false.
  if (count > limits.max_records || count > (length - 4) / 6) return ua::status::bad_decoding_error;
  std::vector<record> got;
  got.reserve(count);
  std::size_t at = 4;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (payload.size() - at < 2) return ua::status::bad_decoding_error;
    const std::size_t node_length = static_cast<std::size_t>(payload[at]) | static_cast<std::size_t>(payload[at + 1]) << 8;
    at += 2;
    if (node_length > limits.max_node_length || payload.size() - at < node_length + 4) return ua::status::bad_decoding_error;
    record r;
    r.node.assign(reinterpret_cast<const char*>(payload.data() + at), node_length);
    at += node_length;
    const std::uint32_t value_length = u32(payload.data() + at);
    at += 4;
    if (payload.size() - at < value_length) return ua::status::bad_decoding_error;
    if (ua::decode_from_bytes(payload.subspan(at, value_length), r.value, spool_value_limits).is_bad())
      return ua::status::bad_decoding_error;
    at += value_length;
    got.push_back(std::move(r));
  }
  if (at != payload.size()) return ua::status::bad_decoding_error;
  for (auto& r : got) out.push_back(std::move(r));
  used = spool_header_bytes + length;
  return ua::status::good;
}

std::vector<std::uint8_t> spool_frame(std::span<const record> batch) {
  std::vector<std::uint8_t> payload;
  put_u32(payload, static_cast<std::uint32_t>(batch.size()));
  ua::byte_buffer buf;
  for (const record& r : batch) {
    const auto n = static_cast<std::uint16_t>(std::min<std::size_t>(r.node.size(), 0xFFFF));
    payload.push_back(static_cast<std::uint8_t>(n));
    payload.push_back(static_cast<std::uint8_t>(n >> 8));
    payload.insert(payload.end(), r.node.begin(), r.node.begin() + n);
    buf.clear();
    ua::encoder e(buf);
    ua::encode(e, r.value);
    put_u32(payload, static_cast<std::uint32_t>(buf.size()));
    payload.insert(payload.end(), buf.data(), buf.data() + buf.size());
  }
  std::vector<std::uint8_t> frame(magic, magic + 4);
  put_u32(frame, static_cast<std::uint32_t>(payload.size()));
  put_u32(frame, fnv1a(payload));
  frame.insert(frame.end(), payload.begin(), payload.end());
  return frame;
}

spool_file::spool_file(std::string path, std::uint64_t max_bytes, spool_limits limits)
    : path_(std::move(path)), max_bytes_(max_bytes), limits_(limits) {
  file_ = std::fopen(path_.c_str(), "a+b");
  if (!file_) throw store_error("history: cannot open the spool " + path_ + ": " + std::strerror(errno));
  // What an earlier run left: its whole frames are read back first, a damaged tail is cut off.
  std::fseek(file_, 0, SEEK_END);
  const long size = std::ftell(file_);
  if (size > 0) {
    std::vector<std::uint8_t> header(spool_header_bytes);
    std::vector<std::uint8_t> frame;
    std::vector<record> scratch;
    std::uint64_t at = 0;
    while (at + spool_header_bytes <= static_cast<std::uint64_t>(size)) {
      std::fseek(file_, static_cast<long>(at), SEEK_SET);
      if (std::fread(header.data(), 1, header.size(), file_) != header.size()) break;
      const std::uint32_t length = u32(header.data() + 4);
      if (length > limits_.max_payload_bytes || at + spool_header_bytes + length > static_cast<std::uint64_t>(size)) break;
      frame.assign(header.begin(), header.end());
      frame.resize(spool_header_bytes + length);
      if (std::fread(frame.data() + spool_header_bytes, 1, length, file_) != length) break;
      scratch.clear();
      std::size_t used = 0;
      if (parse_spool_frame(frame, scratch, used, limits_).is_bad()) break;
      counts_.push_back(static_cast<std::uint32_t>(scratch.size()));
      values_ += scratch.size();
      ++batches_;
      at += used;
    }
    end_ = at;
    if (at != static_cast<std::uint64_t>(size)) {
      notes_ = "history: the spool " + path_ + " ends in " + std::to_string(static_cast<std::uint64_t>(size) - at) +
               " bytes that are no frame: cut off";
      std::fflush(file_);
      if (::truncate(path_.c_str(), static_cast<off_t>(at)) != 0)
        throw store_error("history: cannot cut the spool " + path_ + ": " + std::strerror(errno));
    }
  }
}

spool_file::~spool_file() {
  if (file_) std::fclose(file_);
}

bool spool_file::push(std::span<const record> batch) {
  const auto frame = spool_frame(batch);
  if (end_ - read_ + frame.size() > max_bytes_) return false;
  // "a+" appends whatever the position: the frame goes at the end.
  if (std::fwrite(frame.data(), 1, frame.size(), file_) != frame.size() || std::fflush(file_) != 0) {
    notes_ = "history: cannot write the spool " + path_ + ": " + std::strerror(errno);
    std::clearerr(file_);
    return false;
  }
  end_ += frame.size();
  ++batches_;
  values_ += batch.size();
  counts_.push_back(static_cast<std::uint32_t>(batch.size()));
  return true;
}

std::vector<record> spool_file::pop() {
  std::vector<record> out;
  if (batches_ == 0) return out;
  std::vector<std::uint8_t> frame(spool_header_bytes);
  std::size_t used = 0;
  ua::status_code sc = ua::status::bad_end_of_stream;
  if (std::fseek(file_, static_cast<long>(read_), SEEK_SET) == 0 && std::fread(frame.data(), 1, spool_header_bytes, file_) == spool_header_bytes) {
    const std::uint32_t length = u32(frame.data() + 4);
    if (length <= limits_.max_payload_bytes && read_ + spool_header_bytes + length <= end_) {
      frame.resize(spool_header_bytes + length);
      if (std::fread(frame.data() + spool_header_bytes, 1, length, file_) == length) sc = parse_spool_frame(frame, out, used, limits_);
    } else {
      sc = ua::status::bad_decoding_error;
    }
  }
  if (sc.is_bad()) {
    // The file changed under us (or the disk lies): what is left cannot be trusted.
    notes_ = "history: the spool " + path_ + " is damaged at byte " + std::to_string(read_) + " (" + sc.to_string() +
             "): " + std::to_string(values_) + " values dropped";
    damaged_ += values_;
    reset();
    out.clear();
    return out;
  }
  read_ += used;
  --batches_;
  values_ -= counts_.front();
  counts_.pop_front();
  if (batches_ == 0) reset();
  return out;
}

void spool_file::reset() {
  batches_ = 0;
  values_ = 0;
  counts_.clear();
  read_ = end_ = 0;
  std::fflush(file_);
  if (::truncate(path_.c_str(), 0) != 0) notes_ = "history: cannot empty the spool " + path_ + ": " + std::strerror(errno);
}

}  // namespace uactor::history
