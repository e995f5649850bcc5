// Base64 (RFC 4648 §4), the text form of a ByteString in OPC UA's XML and JSON encodings and in
// NodeIds (Part 6 §5.1.12), and of the salts and hashes in the users file (security/password_hash).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "uactor/ua/expected.hpp"

namespace uactor::ua {

// Padded with '=' to a multiple of four characters, no line breaks.
std::string base64_encode(std::string_view bytes);
std::string base64_encode(std::span<const std::uint8_t> bytes);

// Whether white space between the characters is passed over. Only XML text may carry it
// (xs:base64Binary, a NodeSet file's wrapped lines); everywhere else it is an error.
enum class base64_whitespace { refuse, skip };

// The bytes of `text`. Strict: only the RFC 4648 §4 alphabet, '=' only as the padding of the last
// group, the length a multiple of four, and the bits the padding drops zero (§3.5), so that every
// byte string has exactly one text. Bad_DecodingError when the text is malformed,
// Bad_EncodingLimitsExceeded when it decodes to more than `max_bytes` (checked before decoding).
// `why`, when given, says what is wrong and where.
expected<std::string> base64_decode(std::string_view text, std::size_t max_bytes,
                                    base64_whitespace whitespace = base64_whitespace::refuse,
                                    std::string* why = nullptr);

}  // namespace uactor::ua
