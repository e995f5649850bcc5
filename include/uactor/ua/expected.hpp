// A value or the status code that says why there is none.
// g++ 12 has no std::expected in C++20; this is the small subset protocol/ and security/ need.
#pragma once

#include <cassert>
#include <utility>
#include <variant>

#include "uactor/ua/status_code.hpp"

namespace uactor::ua {

template <class T>
class expected {
public:
  expected(T value) : v_(std::move(value)) {}  // NOLINT: implicit on purpose, like std::expected
  expected(status_code error) : v_(error) { assert(error.is_bad()); }  // NOLINT

  bool has_value() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  status_code error() const { return has_value() ? status_code{} : std::get<1>(v_); }

private:
  std::variant<T, status_code> v_;
};

}  // namespace uactor::ua
