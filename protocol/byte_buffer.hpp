// A growable byte buffer for encoders: like std::vector<std::uint8_t>, but growing does not
// zero the new bytes and an append is a capacity check and a memcpy. Reused between messages
// (clear() keeps the capacity), it allocates only while it grows to the largest message.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

namespace uactor::ua {

class byte_buffer {
public:
  byte_buffer() = default;
  explicit byte_buffer(std::size_t capacity) { reserve(capacity); }
  byte_buffer(const byte_buffer& o) { append(o.data(), o.size()); }
  byte_buffer& operator=(const byte_buffer& o) {
    if (this != &o) { clear(); append(o.data(), o.size()); }
    return *this;
  }
  byte_buffer(byte_buffer&& o) noexcept : data_(std::move(o.data_)), size_(o.size_), capacity_(o.capacity_) {
    o.size_ = o.capacity_ = 0;
  }
  byte_buffer& operator=(byte_buffer&& o) noexcept {
    data_ = std::move(o.data_);
    size_ = o.size_;
    capacity_ = o.capacity_;
    o.size_ = o.capacity_ = 0;
    return *this;
  }

  const std::uint8_t* data() const noexcept { return data_.get(); }
  std::uint8_t* data() noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return capacity_; }
  bool empty() const noexcept { return size_ == 0; }
  std::span<const std::uint8_t> bytes() const noexcept { return {data_.get(), size_}; }
  std::vector<std::uint8_t> to_vector() const { return {data_.get(), data_.get() + size_}; }

  void clear() noexcept { size_ = 0; }
  void reserve(std::size_t n) {
    if (n > capacity_) grow_to(n);
  }
  // Makes room for n more bytes and returns where they go; the caller fills all of them.
  std::uint8_t* extend(std::size_t n) {
    if (capacity_ - size_ < n) grow_to(std::max(size_ + n, capacity_ * 2));
    auto* p = data_.get() + size_;
    size_ += n;
    return p;
  }
  void append(const void* p, std::size_t n) {
    if (n) std::memcpy(extend(n), p, n);
  }

private:
  void grow_to(std::size_t n) {
    auto bigger = std::make_unique_for_overwrite<std::uint8_t[]>(n);
    if (size_) std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    capacity_ = n;
  }

  std::unique_ptr<std::uint8_t[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace uactor::ua
