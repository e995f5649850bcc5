// The OPC UA binary encoding (Part 6 §5.2): an encoder that appends to a caller's buffer and
// a decoder over a span that never reads past it and enforces limits. Free functions
// encode(encoder&, const T&) / decode(decoder&, T&) exist for every built-in type here and
// for every generated structure in protocol/generated/type_codecs.hpp.
//
// Decoding is into an existing object, so a reused message keeps the capacity of its strings
// and arrays: decoding the same shape again allocates nothing. Errors are sticky: the first
// failure is kept in the decoder, later reads yield zeros, callers check ok() at the end.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "uactor/ua/builtin_types.hpp"
#include "protocol/byte_buffer.hpp"
#include "uactor/ua/status_codes.hpp"
#include "uactor/ua/variant.hpp"

namespace uactor::ua {

static_assert(std::endian::native == std::endian::little, "uactor assumes a little-endian host");

// The defaults of docs/configuration.md ([limits]); every field is configurable.
struct decode_limits {
  std::size_t max_string_length = 16u << 20;       // String, XmlElement (bytes)
  std::size_t max_byte_string_length = 16u << 20;  // ByteString
  std::size_t max_array_length = 1'000'000;        // elements of any array
  int max_depth = 100;                             // nested Variant/ExtensionObject/DiagnosticInfo
};

class decoder {
public:
  explicit decoder(std::span<const std::uint8_t> in, const decode_limits& limits = {}) noexcept
      : p_(in.data()), begin_(in.data()), end_(in.data() + in.size()), limits_(limits) {}

  bool ok() const noexcept { return status_.is_good(); }
  // Good, Bad_DecodingError (truncated or malformed) or Bad_EncodingLimitsExceeded.
  status_code status() const noexcept { return status_; }
  std::size_t remaining() const noexcept { return static_cast<std::size_t>(end_ - p_); }
  std::size_t position() const noexcept { return static_cast<std::size_t>(p_ - begin_); }
  const decode_limits& limits() const noexcept { return limits_; }

  // Records the first failure and stops reading: the rest of the input is treated as gone.
  void fail(status_code sc) noexcept {
    if (status_.is_good()) status_ = sc;
    p_ = end_;
  }

  // The next n bytes, or null (and Bad_DecodingError) when fewer remain.
  const std::uint8_t* take(std::size_t n) noexcept {
    if (n > remaining()) { fail(status::bad_decoding_error); return nullptr; }
    const auto* p = p_;
    p_ += n;
    return p;
  }

  template <class T>
  T read() noexcept {
    static_assert(std::is_trivially_copyable_v<T>);
    T v{};
    if (const auto* p = take(sizeof(T))) std::memcpy(&v, p, sizeof(T));
    return v;
  }

  // Reads an Int32 length or count: -1 means null, other negatives are malformed.
  // Returns -1 for null, or the length when it is within max and within the input.
  std::int64_t read_length(std::size_t max, std::size_t min_element_size) noexcept {
    const auto n = read<std::int32_t>();
    if (n < -1) { fail(status::bad_decoding_error); return -1; }
    if (n == -1 || !ok()) return -1;
    if (static_cast<std::size_t>(n) > max) { fail(status::bad_encoding_limits_exceeded); return -1; }
    // Every element takes at least min_element_size bytes: a length the input cannot hold
    // is truncated input, refused before anything is allocated for it.
    if (static_cast<std::size_t>(n) * min_element_size > remaining()) { fail(status::bad_decoding_error); return -1; }
    return n;
  }

  // A decoder over the next n bytes (an ExtensionObject body) with the same limits and depth.
  decoder sub(std::size_t n) noexcept {
    const auto* p = take(n);
    decoder d(std::span<const std::uint8_t>(p ? p : end_, p ? n : 0), limits_);
    d.depth_ = depth_;
    if (!p) d.fail(status_);
    return d;
  }

  // Depth of nested Variant / ExtensionObject / DiagnosticInfo; see depth_guard.
  bool enter() noexcept {
    if (++depth_ > limits_.max_depth) { fail(status::bad_encoding_limits_exceeded); return false; }
    return true;
  }
  void leave() noexcept { --depth_; }

private:
  const std::uint8_t* p_;
  const std::uint8_t* begin_;
  const std::uint8_t* end_;
  decode_limits limits_;
  status_code status_;
  int depth_ = 0;
};

struct depth_guard {
  explicit depth_guard(decoder& d) noexcept : d_(d), entered_(d.enter()) {}
  ~depth_guard() { d_.leave(); }
  depth_guard(const depth_guard&) = delete;
  depth_guard& operator=(const depth_guard&) = delete;
  explicit operator bool() const noexcept { return entered_; }

private:
  decoder& d_;
  bool entered_;
};

class encoder {
public:
  // Appends to `out`; a buffer cleared and reused between messages keeps its capacity.
  explicit encoder(byte_buffer& out) noexcept : out_(out) {}

  std::size_t size() const noexcept { return out_.size(); }
  void write(const void* p, std::size_t n) { out_.append(p, n); }
  template <class T>
  void write(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::memcpy(out_.extend(sizeof v), &v, sizeof v);
  }
  // Overwrites bytes already written, e.g. a length known only after its body.
  template <class T>
  void patch(std::size_t at, T v) noexcept { std::memcpy(out_.data() + at, &v, sizeof v); }

private:
  byte_buffer& out_;
};

// ---------------------------------------------------------------------------------------
// Built-in types. Arithmetic values are little-endian, IEEE 754 for floats (Part 6 §5.2.2).

template <class T>
concept wire_arithmetic = std::is_arithmetic_v<T>;

template <wire_arithmetic T> void encode(encoder& e, T v) { e.write(v); }
template <wire_arithmetic T> void decode(decoder& d, T& v) { v = d.read<T>(); }
// Part 6 §5.2.2.1: any non-zero byte is true; true encodes as 1.
inline void encode(encoder& e, bool v) { e.write<std::uint8_t>(v ? 1 : 0); }
inline void decode(decoder& d, bool& v) { v = d.read<std::uint8_t>() != 0; }

inline void encode(encoder& e, status_code v) { e.write(v.value()); }
inline void decode(decoder& d, status_code& v) { v = status_code{d.read<std::uint32_t>()}; }
inline void encode(encoder& e, date_time v) { e.write(v.ticks); }
inline void decode(decoder& d, date_time& v) { v.ticks = d.read<std::int64_t>(); }

void encode(encoder&, const ua_string&);
void decode(decoder&, ua_string&);
void encode(encoder&, const byte_string&);
void decode(decoder&, byte_string&);
void encode(encoder&, const xml_element&);
void decode(decoder&, xml_element&);
void encode(encoder&, const guid&);
void decode(decoder&, guid&);
void encode(encoder&, const node_id&);
void decode(decoder&, node_id&);
void encode(encoder&, const expanded_node_id&);
void decode(decoder&, expanded_node_id&);
void encode(encoder&, const qualified_name&);
void decode(decoder&, qualified_name&);
void encode(encoder&, const localized_text&);
void decode(decoder&, localized_text&);
void encode(encoder&, const extension_object&);
void decode(decoder&, extension_object&);
void encode(encoder&, const variant&);
void decode(decoder&, variant&);
void encode(encoder&, const data_value&);
void decode(decoder&, data_value&);
void encode(encoder&, const diagnostic_info&);
void decode(decoder&, diagnostic_info&);

// The fewest bytes an element of T takes on the wire: bounds an array's length by the input
// before anything is allocated. An enumeration is its underlying integer; a generated structure
// says its own (T::min_encoded_size, 0 for one without fields), so that every translation unit
// sees the same value whatever it includes.
template <class T>
constexpr std::size_t default_min_encoded_size() {
  if constexpr (std::is_arithmetic_v<T>) return sizeof(T);
  else if constexpr (std::is_enum_v<T>) return sizeof(std::underlying_type_t<T>);
  else if constexpr (requires { T::min_encoded_size; }) return T::min_encoded_size;
  else return 1;
}
template <class T>
inline constexpr std::size_t min_encoded_size = default_min_encoded_size<T>();
template <> inline constexpr std::size_t min_encoded_size<bool> = 1;
template <> inline constexpr std::size_t min_encoded_size<ua_string> = 4;
template <> inline constexpr std::size_t min_encoded_size<byte_string> = 4;
template <> inline constexpr std::size_t min_encoded_size<guid> = 16;
template <> inline constexpr std::size_t min_encoded_size<status_code> = 4;
template <> inline constexpr std::size_t min_encoded_size<date_time> = 8;
template <> inline constexpr std::size_t min_encoded_size<xml_element> = 4;
template <> inline constexpr std::size_t min_encoded_size<node_id> = 2;
template <> inline constexpr std::size_t min_encoded_size<expanded_node_id> = 2;
template <> inline constexpr std::size_t min_encoded_size<qualified_name> = 6;
template <> inline constexpr std::size_t min_encoded_size<extension_object> = 3;

// Part 6 §5.2.5: Int32 length (-1 null), then the elements.
template <class T>
void encode(encoder& e, const ua_array<T>& a) {
  if (a.is_null()) { e.write<std::int32_t>(-1); return; }
  e.write(static_cast<std::int32_t>(a.size()));
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    e.write(a.data(), a.size() * sizeof(T));
  } else {
    for (const auto& v : a) encode(e, v);
  }
}

template <class T>
void decode(decoder& d, ua_array<T>& a) {
  const auto n = d.read_length(d.limits().max_array_length, min_encoded_size<T>);
  if (n < 0) { a.set_null(); return; }
  a.set_not_null();
  a.resize(static_cast<std::size_t>(n));  // elements kept from a previous decode keep their storage
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    const auto* p = d.take(a.size() * sizeof(T));
    if (p && !a.empty()) std::memcpy(a.data(), p, a.size() * sizeof(T));  // data() may be null when empty
  } else if constexpr (std::is_same_v<T, bool>) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = d.read<std::uint8_t>() != 0;
  } else {
    for (auto& v : a) {
      decode(d, v);
      if (!d.ok()) return;
    }
  }
}

// Whole values to and from bytes, for tests and tools; hot paths reuse their buffers.
template <class T>
std::vector<std::uint8_t> encode_to_bytes(const T& v) {
  byte_buffer out;
  encoder e(out);
  encode(e, v);
  return out.to_vector();
}

// Decodes a whole value; the input must be consumed exactly (leftover bytes are malformed).
template <class T>
status_code decode_from_bytes(std::span<const std::uint8_t> in, T& v, const decode_limits& limits = {}) {
  decoder d(in, limits);
  decode(d, v);
  if (d.ok() && d.remaining() != 0) d.fail(status::bad_decoding_error);
  return d.status();
}

namespace detail {
// Unqualified calls, so that argument-dependent lookup at instantiation finds the codecs of
// generated types declared after this header (a member named encode would hide them).
template <class T> void encode_value(encoder& e, const T& v) { encode(e, v); }
template <class T> void decode_value(decoder& d, T& v) { decode(d, v); }
}  // namespace detail

template <class T>
void typed_extension_body<T>::encode(encoder& e) const { detail::encode_value(e, value); }
template <class T>
void typed_extension_body<T>::decode(decoder& d) { detail::decode_value(d, value); }

}  // namespace uactor::ua
