// The simple built-in types of Part 6 §5.1-5.2: strings that can be null, Guid, DateTime,
// NodeId, ExpandedNodeId, QualifiedName, LocalizedText, and arrays that can be null.
// All are plain values; each owns what it holds. Variant, DataValue, DiagnosticInfo and
// ExtensionObject are in protocol/variant.hpp.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "uactor/ua/status_code.hpp"

namespace uactor::ua {

// Built-in type ids (Part 6 §5.1.2): the Variant encoding mask and NodeIds.csv agree on them.
enum class builtin_type : std::uint8_t {
  null = 0, boolean = 1, sbyte = 2, byte = 3, int16 = 4, uint16 = 5, int32 = 6, uint32 = 7,
  int64 = 8, uint64 = 9, float_ = 10, double_ = 11, string = 12, date_time = 13, guid = 14,
  byte_string = 15, xml_element = 16, node_id = 17, expanded_node_id = 18, status_code = 19,
  qualified_name = 20, localized_text = 21, extension_object = 22, data_value = 23,
  variant = 24, diagnostic_info = 25,
};

// A sequence of bytes that may be null (length -1 on the wire) as well as empty.
// The bytes live in a std::string so that short values need no heap and a reused value
// keeps its capacity. Tag keeps String, ByteString and XmlElement distinct types.
template <class Tag>
class nullable_bytes {
public:
  nullable_bytes() = default;
  nullable_bytes(std::string_view s) : s_(s), null_(false) {}  // NOLINT: implicit from text
  nullable_bytes(const char* s) : s_(s), null_(false) {}       // NOLINT
  static nullable_bytes null() { return {}; }

  bool is_null() const noexcept { return null_; }
  bool empty() const noexcept { return s_.empty(); }
  std::size_t size() const noexcept { return s_.size(); }
  const char* data() const noexcept { return s_.data(); }
  std::string_view view() const noexcept { return s_; }
  const std::string& str() const noexcept { return s_; }

  void set_null() noexcept { s_.clear(); null_ = true; }
  // Replaces the content; the storage is reused when it is large enough.
  void assign(const void* p, std::size_t n) { s_.assign(static_cast<const char*>(p), n); null_ = false; }
  void assign(std::string_view s) { assign(s.data(), s.size()); }

  friend bool operator==(const nullable_bytes& a, const nullable_bytes& b) noexcept {
    return a.null_ == b.null_ && a.s_ == b.s_;
  }
  friend bool operator==(const nullable_bytes& a, std::string_view b) noexcept {
    return !a.null_ && a.s_ == b;
  }

private:
  std::string s_;
  bool null_ = true;
};

struct string_tag {};
struct byte_string_tag {};
struct xml_element_tag {};
using ua_string = nullable_bytes<string_tag>;         // UTF-8 text
using byte_string = nullable_bytes<byte_string_tag>;  // opaque bytes
using xml_element = nullable_bytes<xml_element_tag>;  // an XML fragment as UTF-8

// An array that may be null (length -1 on the wire) as well as empty (Part 6 §5.2.5).
// A default array is empty, not null; decoding keeps the difference so re-encoding is exact.
template <class T>
class ua_array : public std::vector<T> {
public:
  using std::vector<T>::vector;
  ua_array() = default;
  ua_array(std::vector<T> v) : std::vector<T>(std::move(v)) {}  // NOLINT

  bool is_null() const noexcept { return null_ && this->empty(); }
  void set_null() noexcept { this->clear(); null_ = true; }
  void set_not_null() noexcept { null_ = false; }

  friend bool operator==(const ua_array& a, const ua_array& b) {
    return a.is_null() == b.is_null() &&
           static_cast<const std::vector<T>&>(a) == static_cast<const std::vector<T>&>(b);
  }

private:
  bool null_ = false;
};

// 100-nanosecond ticks since 1601-01-01 UTC (Part 6 §5.2.2.5).
struct date_time {
  std::int64_t ticks = 0;

  static constexpr std::int64_t ticks_per_second = 10'000'000;
  static constexpr std::int64_t unix_epoch_ticks = 116'444'736'000'000'000;  // 1970-01-01
  static constexpr date_time from_unix_ms(std::int64_t ms) { return {unix_epoch_ticks + ms * 10'000}; }
  constexpr std::int64_t to_unix_ms() const { return (ticks - unix_epoch_ticks) / 10'000; }
  friend constexpr auto operator<=>(date_time, date_time) = default;
};

// Part 6 §5.2.2.7: Data1-3 little-endian, Data4 as bytes.
struct guid {
  std::uint32_t data1 = 0;
  std::uint16_t data2 = 0;
  std::uint16_t data3 = 0;
  std::array<std::uint8_t, 8> data4{};
  friend constexpr bool operator==(const guid&, const guid&) = default;
  // "72962B91-FA75-4AE6-8D28-B404DC7DAF63"
  std::string to_string() const;
};

enum class node_id_type : std::uint8_t { numeric = 0, string = 1, guid = 2, byte_string = 3 };

// Part 6 §5.2.2.9. A flat value: a numeric id needs no heap, and the string storage of a
// reused node_id is kept. The shortest wire encoding is chosen on encode.
class node_id {
public:
  constexpr node_id() = default;
  constexpr node_id(std::uint16_t ns, std::uint32_t id) : ns_(ns), numeric_(id) {}
  static node_id string(std::uint16_t ns, std::string_view s);
  static node_id guid_id(std::uint16_t ns, const ua::guid& g);
  static node_id opaque(std::uint16_t ns, std::string_view bytes);

  std::uint16_t namespace_index() const noexcept { return ns_; }
  node_id_type type() const noexcept { return type_; }
  std::uint32_t numeric() const noexcept { return numeric_; }
  const ua::guid& guid_value() const noexcept { return guid_; }
  // The String or ByteString identifier.
  std::string_view text() const noexcept { return text_; }

  // ns=0;i=0 (Part 3 §8.2.4: a null NodeId of any type has a null or zero identifier).
  bool is_null() const noexcept;

  void set_numeric(std::uint16_t ns, std::uint32_t id) { ns_ = ns; type_ = node_id_type::numeric; numeric_ = id; text_.clear(); }
  void set_string(std::uint16_t ns, std::string_view s, node_id_type t = node_id_type::string) {
    ns_ = ns; type_ = t; numeric_ = 0; text_.assign(s);
  }
  void set_guid(std::uint16_t ns, const ua::guid& g) { ns_ = ns; type_ = node_id_type::guid; numeric_ = 0; guid_ = g; text_.clear(); }

  // "ns=1;s=the.answer", "i=85", "ns=2;g=...", "ns=3;b=<base64>" (Part 6 §5.3.1.10).
  std::string to_string() const;

  friend bool operator==(const node_id& a, const node_id& b) noexcept;

private:
  std::uint16_t ns_ = 0;
  node_id_type type_ = node_id_type::numeric;
  std::uint32_t numeric_ = 0;
  ua::guid guid_{};
  std::string text_;
};

// Part 6 §5.2.2.10: a NodeId that may name its namespace by URI and live on another server.
struct expanded_node_id {
  node_id id;
  ua_string namespace_uri;  // null when not specified
  std::uint32_t server_index = 0;
  friend bool operator==(const expanded_node_id&, const expanded_node_id&) = default;
};

// Part 6 §5.2.2.13
struct qualified_name {
  std::uint16_t namespace_index = 0;
  ua_string name;
  friend bool operator==(const qualified_name&, const qualified_name&) = default;
};

// Part 6 §5.2.2.14: each part is on the wire only when it is not null.
struct localized_text {
  ua_string locale;
  ua_string text;
  friend bool operator==(const localized_text&, const localized_text&) = default;
};

}  // namespace uactor::ua
