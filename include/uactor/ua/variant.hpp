// The recursive built-in types of Part 6 §5.2.2.15-5.2.2.17: ExtensionObject, Variant,
// DataValue and DiagnosticInfo. They contain one another, so they live together.
// All are values: copying deep-copies, and a decoded value owns everything it holds.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include "uactor/ua/builtin_types.hpp"

namespace uactor::ua {

class encoder;
class decoder;
class variant;
struct data_value;
struct diagnostic_info;

// A heap-held value with value semantics, for the recursive alternatives of a Variant.
template <class T>
class boxed {
public:
  boxed() : p_(std::make_unique<T>()) {}
  boxed(T v) : p_(std::make_unique<T>(std::move(v))) {}  // NOLINT
  boxed(const boxed& o) : p_(std::make_unique<T>(*o.p_)) {}
  boxed(boxed&&) noexcept = default;
  boxed& operator=(const boxed& o) { *p_ = *o.p_; return *this; }
  boxed& operator=(boxed&&) noexcept = default;
  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  friend bool operator==(const boxed& a, const boxed& b) { return *a.p_ == *b.p_; }

private:
  std::unique_ptr<T> p_;
};

// ---------------------------------------------------------------------------------------
// ExtensionObject (Part 6 §5.2.2.15)

struct extension_type;

// The decoded body of an ExtensionObject whose type is known (generated structures).
class extension_body {
public:
  virtual ~extension_body() = default;
  virtual const extension_type& type() const noexcept = 0;
  virtual std::unique_ptr<extension_body> clone() const = 0;
  virtual bool equals(const extension_body&) const = 0;
  virtual void encode(encoder&) const = 0;
  virtual void decode(decoder&) = 0;
};

// One per generated structure: what the registry knows to decode an ExtensionObject body.
struct extension_type {
  const char* name;                 // "ReadValueId"
  std::uint32_t data_type_id;       // ns=0 numeric id of the DataType
  std::uint32_t binary_encoding_id; // ns=0 numeric id of its DefaultBinary encoding
  std::unique_ptr<extension_body> (*make)();
};

// Looks a known type up by the numeric id of its DefaultBinary encoding (namespace 0).
const extension_type* find_extension_type_by_encoding(std::uint32_t binary_encoding_id) noexcept;
// Looks a known type up by its name ("ReadRequest"); for tests and tools.
const extension_type* find_extension_type_by_name(std::string_view name) noexcept;

template <class T>
class typed_extension_body final : public extension_body {
public:
  typed_extension_body() = default;
  explicit typed_extension_body(T v) : value(std::move(v)) {}
  const extension_type& type() const noexcept override { return T::extension_type_info; }
  std::unique_ptr<extension_body> clone() const override {
    return std::make_unique<typed_extension_body>(value);
  }
  bool equals(const extension_body& o) const override {
    return &o.type() == &type() && static_cast<const typed_extension_body&>(o).value == value;
  }
  void encode(encoder& e) const override;  // defined in protocol/codec.hpp
  void decode(decoder& d) override;

  T value;
};

class extension_object {
public:
  enum class encoding : std::uint8_t { none = 0, byte_string = 1, xml_element = 2 };

  extension_object() = default;
  template <class T, class = decltype(T::extension_type_info)>
  extension_object(T value)  // NOLINT: a known structure wraps implicitly
      : type_id_(0, T::extension_type_info.binary_encoding_id),
        encoding_(encoding::byte_string),
        body_(std::make_unique<typed_extension_body<T>>(std::move(value))) {}
  extension_object(const extension_object& o);
  extension_object(extension_object&&) noexcept = default;
  extension_object& operator=(const extension_object& o);
  extension_object& operator=(extension_object&&) noexcept = default;

  // An unknown or XML body, kept as the bytes it came in.
  static extension_object raw(node_id type_id, encoding enc, std::string_view body);

  // The encoding id on the wire (the DefaultBinary encoding for a known body).
  const node_id& type_id() const noexcept { return type_id_; }
  encoding body_encoding() const noexcept { return encoding_; }
  bool empty() const noexcept { return encoding_ == encoding::none; }
  // A decoded body; null when the body is empty, unknown or XML.
  const extension_body* body() const noexcept { return body_.get(); }
  extension_body* body() noexcept { return body_.get(); }
  // The bytes of an unknown or XML body.
  const byte_string& raw_body() const noexcept { return raw_; }

  template <class T>
  const T* get_if() const noexcept {
    return body_ && &body_->type() == &T::extension_type_info
               ? &static_cast<const typed_extension_body<T>*>(body_.get())->value : nullptr;
  }
  template <class T>
  T* get_if() noexcept {
    return const_cast<T*>(std::as_const(*this).template get_if<T>());
  }
  // The body as T, reusing the body already held when it is a T (no allocation then).
  template <class T>
  T& emplace() {
    if (T* p = get_if<T>()) return *p;
    auto b = std::make_unique<typed_extension_body<T>>();
    T& v = b->value;
    set_body(std::move(b));
    return v;
  }

  // For the decoder: a body of the given type, reused when it is already of that type.
  extension_body& body_of_type(const extension_type& t);
  void set_body(std::unique_ptr<extension_body> b);
  void set_raw(node_id type_id, encoding enc) { type_id_ = std::move(type_id); encoding_ = enc; body_.reset(); }
  byte_string& raw_body() noexcept { return raw_; }
  void clear() { type_id_ = node_id{}; encoding_ = encoding::none; body_.reset(); raw_.set_null(); }

  friend bool operator==(const extension_object& a, const extension_object& b);

private:
  node_id type_id_;
  encoding encoding_ = encoding::none;
  std::unique_ptr<extension_body> body_;
  byte_string raw_;
};

// ---------------------------------------------------------------------------------------
// DiagnosticInfo (Part 4 §7.12, Part 6 §5.2.2.12)

struct diagnostic_info {
  std::optional<std::int32_t> symbolic_id;
  std::optional<std::int32_t> namespace_uri;
  std::optional<std::int32_t> locale;
  std::optional<std::int32_t> localized_text;
  ua_string additional_info;                    // on the wire when not null
  std::optional<status_code> inner_status_code;
  std::unique_ptr<diagnostic_info> inner_diagnostic_info;

  diagnostic_info() = default;
  diagnostic_info(const diagnostic_info& o);
  diagnostic_info(diagnostic_info&&) noexcept = default;
  diagnostic_info& operator=(const diagnostic_info& o);
  diagnostic_info& operator=(diagnostic_info&&) noexcept = default;
  friend bool operator==(const diagnostic_info& a, const diagnostic_info& b);
};

// ---------------------------------------------------------------------------------------
// Variant (Part 6 §5.2.2.16)

class variant {
public:
  // Alternative index = built-in type id for scalars (0 = empty), 25 + id for arrays.
  using storage = std::variant<
      std::monostate, bool, std::int8_t, std::uint8_t, std::int16_t, std::uint16_t,
      std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double, ua_string,
      date_time, guid, byte_string, xml_element, node_id, expanded_node_id, status_code,
      qualified_name, localized_text, extension_object, boxed<data_value>, boxed<variant>,
      boxed<diagnostic_info>,
      ua_array<bool>, ua_array<std::int8_t>, ua_array<std::uint8_t>, ua_array<std::int16_t>,
      ua_array<std::uint16_t>, ua_array<std::int32_t>, ua_array<std::uint32_t>,
      ua_array<std::int64_t>, ua_array<std::uint64_t>, ua_array<float>, ua_array<double>,
      ua_array<ua_string>, ua_array<date_time>, ua_array<guid>, ua_array<byte_string>,
      ua_array<xml_element>, ua_array<node_id>, ua_array<expanded_node_id>,
      ua_array<status_code>, ua_array<qualified_name>, ua_array<localized_text>,
      ua_array<extension_object>, ua_array<data_value>, ua_array<variant>,
      ua_array<diagnostic_info>>;
  static constexpr std::size_t array_offset = 25;

  // The special members are defined in variant.cpp: the storage names data_value, which is
  // incomplete here, and instantiating them once keeps them out of every including file.
  variant() noexcept;
  variant(const variant&);
  variant(variant&&) noexcept;
  variant& operator=(const variant&);
  variant& operator=(variant&&) noexcept;
  ~variant();
  template <class T, class = std::enable_if_t<std::is_constructible_v<storage, T&&> &&
                                              !std::is_same_v<std::decay_t<T>, variant>>>
  variant(T&& v) : v_(std::forward<T>(v)) {}  // NOLINT: a value converts to a Variant
  variant(const char* s);                      // NOLINT
  variant(data_value v);                       // NOLINT
  variant(diagnostic_info v);                  // NOLINT

  bool empty() const noexcept { return v_.index() == 0; }
  bool is_array() const noexcept { return v_.index() > array_offset; }
  builtin_type type() const noexcept {
    const auto i = v_.index();
    return static_cast<builtin_type>(i > array_offset ? i - array_offset : i);
  }
  // Matrix dimensions (Part 6 §5.2.2.16); empty for a scalar or a one-dimensional array.
  // The array then holds the elements with the last index varying fastest.
  const ua_array<std::int32_t>& dimensions() const noexcept { return dims_; }
  ua_array<std::int32_t>& dimensions() noexcept { return dims_; }

  template <class T> const T* get_if() const noexcept { return std::get_if<T>(&v_); }
  template <class T> T* get_if() noexcept { return std::get_if<T>(&v_); }
  const storage& value() const noexcept { return v_; }
  storage& value() noexcept { return v_; }

  // The alternative T, reusing the one held when it is already a T (its storage is kept).
  template <class T>
  T& emplace() {
    if (T* p = std::get_if<T>(&v_)) return *p;
    return v_.template emplace<T>();
  }
  void clear() noexcept;

  friend bool operator==(const variant& a, const variant& b);

private:
  storage v_;
  ua_array<std::int32_t> dims_;
};

// ---------------------------------------------------------------------------------------
// DataValue (Part 6 §5.2.2.17): each field goes on the wire only when its flag is set.

struct data_value {
  variant value;
  status_code status;
  date_time source_timestamp;
  date_time server_timestamp;
  std::uint16_t source_picoseconds = 0;
  std::uint16_t server_picoseconds = 0;
  bool has_value = false;
  bool has_status = false;
  bool has_source_timestamp = false;
  bool has_server_timestamp = false;
  bool has_source_picoseconds = false;
  bool has_server_picoseconds = false;

  void set_value(variant v) { value = std::move(v); has_value = true; }
  friend bool operator==(const data_value&, const data_value&) = default;
};

}  // namespace uactor::ua
