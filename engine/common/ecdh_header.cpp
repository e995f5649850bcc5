#include "engine/common/ecdh_header.hpp"

namespace uactor::actors {

namespace ecdh_header_detail {

const ua::variant* value_of(const ua::extension_object& header, std::string_view key) noexcept {
  const auto* params = header.get_if<ua::additional_parameters_type>();
  if (!params) return nullptr;
  for (const auto& kv : params->parameters)
    if (kv.key.namespace_index == 0 && kv.key.name.view() == key) return &kv.value;
  return nullptr;
}

ua::extension_object with(std::string_view key, ua::variant value) {
  ua::additional_parameters_type params;
  ua::key_value_pair& kv = params.parameters.emplace_back();
  kv.key.name = ua::ua_string(key);
  kv.value = std::move(value);
  return ua::extension_object(std::move(params));
}

}  // namespace ecdh_header_detail

ua::extension_object ecdh_policy_request(std::string_view policy_uri) {
  return ecdh_header_detail::with(ecdh_policy_uri_key, ua::ua_string(policy_uri));
}

const ua::ua_string* requested_ecdh_policy(const ua::extension_object& header) noexcept {
  const auto* v = ecdh_header_detail::value_of(header, ecdh_policy_uri_key);
  return v ? v->get_if<ua::ua_string>() : nullptr;
}

ua::extension_object ecdh_key_response(ua::ephemeral_key_type key) {
  return ecdh_header_detail::with(ecdh_key_key, ua::extension_object(std::move(key)));
}

ua::extension_object ecdh_key_response(ua::status_code refusal) { return ecdh_header_detail::with(ecdh_key_key, refusal); }

const ua::ephemeral_key_type* ecdh_key_of(const ua::extension_object& header, ua::status_code& status) noexcept {
  status = ua::status::bad_no_data;
  const auto* v = ecdh_header_detail::value_of(header, ecdh_key_key);
  if (!v) return nullptr;
  if (const auto* sc = v->get_if<ua::status_code>()) {
    status = *sc;
    return nullptr;
  }
  const auto* eo = v->get_if<ua::extension_object>();
  const auto* key = eo ? eo->get_if<ua::ephemeral_key_type>() : nullptr;
  status = key ? ua::status::good : ua::status::bad_decoding_error;
  return key;
}

}  // namespace uactor::actors
