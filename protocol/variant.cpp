// Value semantics of the recursive built-in types: deep copies and comparisons.
#include "uactor/ua/variant.hpp"

namespace uactor::ua {

extension_object::extension_object(const extension_object& o)
    : type_id_(o.type_id_), encoding_(o.encoding_), body_(o.body_ ? o.body_->clone() : nullptr), raw_(o.raw_) {}

extension_object& extension_object::operator=(const extension_object& o) {
  if (this != &o) *this = extension_object(o);
  return *this;
}

extension_object extension_object::raw(node_id type_id, encoding enc, std::string_view body) {
  extension_object x;
  x.set_raw(std::move(type_id), enc);
  if (enc != encoding::none) x.raw_.assign(body);
  return x;
}

extension_body& extension_object::body_of_type(const extension_type& t) {
  type_id_.set_numeric(0, t.binary_encoding_id);
  encoding_ = encoding::byte_string;
  raw_.set_null();
  if (!body_ || &body_->type() != &t) body_ = t.make();
  return *body_;
}

void extension_object::set_body(std::unique_ptr<extension_body> b) {
  type_id_.set_numeric(0, b->type().binary_encoding_id);
  encoding_ = encoding::byte_string;
  raw_.set_null();
  body_ = std::move(b);
}

bool operator==(const extension_object& a, const extension_object& b) {
  if (!(a.type_id_ == b.type_id_) || a.encoding_ != b.encoding_) return false;
  if (a.body_ || b.body_) return a.body_ && b.body_ && a.body_->equals(*b.body_);
  return a.raw_ == b.raw_;
}

variant::variant() noexcept = default;
variant::variant(const variant&) = default;
variant::variant(variant&&) noexcept = default;
variant& variant::operator=(const variant&) = default;
variant& variant::operator=(variant&&) noexcept = default;
variant::~variant() = default;
variant::variant(const char* s) : v_(ua_string(s)) {}
variant::variant(data_value v) : v_(boxed<data_value>(std::move(v))) {}
variant::variant(diagnostic_info v) : v_(boxed<diagnostic_info>(std::move(v))) {}

void variant::clear() noexcept {
  v_.emplace<0>();
  dims_.clear();
}

bool operator==(const variant& a, const variant& b) { return a.v_ == b.v_ && a.dims_ == b.dims_; }

diagnostic_info::diagnostic_info(const diagnostic_info& o)
    : symbolic_id(o.symbolic_id), namespace_uri(o.namespace_uri), locale(o.locale),
      localized_text(o.localized_text), additional_info(o.additional_info), inner_status_code(o.inner_status_code),
      inner_diagnostic_info(o.inner_diagnostic_info ? std::make_unique<diagnostic_info>(*o.inner_diagnostic_info) : nullptr) {}

diagnostic_info& diagnostic_info::operator=(const diagnostic_info& o) {
  if (this != &o) *this = diagnostic_info(o);
  return *this;
}

bool operator==(const diagnostic_info& a, const diagnostic_info& b) {
  const bool inner_equal = a.inner_diagnostic_info && b.inner_diagnostic_info
                               ? *a.inner_diagnostic_info == *b.inner_diagnostic_info
                               : !a.inner_diagnostic_info && !b.inner_diagnostic_info;
  return inner_equal && a.symbolic_id == b.symbolic_id && a.namespace_uri == b.namespace_uri &&
         a.locale == b.locale && a.localized_text == b.localized_text && a.additional_info == b.additional_info &&
         a.inner_status_code == b.inner_status_code;
}

}  // namespace uactor::ua
