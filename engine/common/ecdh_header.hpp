// The AdditionalHeader entries of Part 6 §6.8.2 (Table 70) with which a client and a server trade
// the server's EphemeralKey for an EccEncryptedSecret (security/ecc_encrypted_secret.hpp): the
// client names the ECC policy of its UserIdentityToken in the RequestHeader of CreateSession and
// ActivateSession ("ECDHPolicyUri", a String), the server answers in the ResponseHeader with a
// fresh EphemeralKey signed by its application key ("ECDHKey", an EphemeralKeyType, Part 4 §7.15)
// or a StatusCode saying why not. Both travel in an AdditionalParametersType (Part 4 §7.1).
#pragma once

#include <string_view>

#include "uactor/ua/types.hpp"
#include "uactor/ua/variant.hpp"

namespace uactor::actors {

inline constexpr std::string_view ecdh_policy_uri_key = "ECDHPolicyUri";
inline constexpr std::string_view ecdh_key_key = "ECDHKey";

// A RequestHeader's AdditionalHeader asking for an EphemeralKey of `policy_uri`.
ua::extension_object ecdh_policy_request(std::string_view policy_uri);
// The ECDHPolicyUri a RequestHeader's AdditionalHeader names; null when it names none (no
// AdditionalParametersType, no such key, or a value that is not a String).
const ua::ua_string* requested_ecdh_policy(const ua::extension_object& additional_header) noexcept;

// A ResponseHeader's AdditionalHeader with the EphemeralKey, or with the StatusCode of a refusal.
ua::extension_object ecdh_key_response(ua::ephemeral_key_type key);
ua::extension_object ecdh_key_response(ua::status_code refusal);
// What a ResponseHeader's AdditionalHeader holds under ECDHKey: the EphemeralKeyType, else null
// with `status` the StatusCode the server put there (Bad_NoData: nothing under that key).
const ua::ephemeral_key_type* ecdh_key_of(const ua::extension_object& additional_header, ua::status_code& status) noexcept;

}  // namespace uactor::actors
