// The OPC UA JSON encoding of values that PubSub's JSON messages carry (Part 6 §5.4 in its 1.05
// form, Part 14 §7.2.5.4's field encodings), both ways. Writing appends to a caller's string
// (reused between messages: nothing is allocated once it has grown); reading takes a json_reader's
// tree. No CAF, no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/json_string.hpp"
#include "pubsub/json_reader.hpp"
#include "uactor/pubsub.hpp"
#include "uactor/ua/variant.hpp"

namespace uactor::pubsub {

std::string_view field_encoding_name(field_encoding e) noexcept;

// Appends `s` as a JSON string (protocol/json_string.hpp: invalid UTF-8 becomes U+FFFD).
using ua::append_json_string;
// "2026-12-04T09:10:11.1234567Z" (ISO 8601, UTC, fraction trimmed of trailing zeros).
void append_date_time(std::string& out, ua::date_time t);
// Parses what append_date_time writes, and offsets ("+01:00"), and fractions of 1 to 9 digits.
bool parse_date_time(std::string_view text, ua::date_time& out) noexcept;

// The value of a Variant alone (no UaType): a scalar or a JSON array (a matrix flattened).
// Int64/UInt64 as strings, NaN/Infinity as strings, ByteString base64, NodeId as its text form,
// LocalizedText as {"Locale","Text"}; ExtensionObject, DataValue, Variant and DiagnosticInfo
// values are written as null (not published yet).
void append_variant_value(std::string& out, const ua::variant& v);
// A field in encoding `e`.
void append_field(std::string& out, const ua::data_value& dv, field_encoding e);

// Reads a field back. With `type` (from metadata or a target variable) a raw value is read as that
// type; without, JSON's own type decides (true/false Boolean, an integral number Int64, another
// number Double, a string String). A variant or data_value object carries its UaType. Returns
// Good or Bad_DecodingError with `why` set.
ua::status_code read_field(const json_reader& r, const json_value& v, ua::builtin_type type, ua::data_value& out,
                           std::string& why);
// A scalar or array value of a known built-in type.
ua::status_code read_value(const json_reader& r, const json_value& v, ua::builtin_type type, ua::variant& out,
                           std::string& why);

// Converts `v` to built-in type `to` for a target variable (numbers between numeric types, within
// range; a Boolean from 0/1). Bad_TypeMismatch when it cannot.
ua::status_code convert_to(ua::variant& v, ua::builtin_type to);

}  // namespace uactor::pubsub
