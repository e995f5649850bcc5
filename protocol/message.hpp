// A service message as it travels in the body of a MSG chunk (Part 6 §7.1.2.4 after the
// sequence header; §5.2.9): the NodeId of the type's DefaultBinary encoding, then the body.
// The decoded message is held in an extension_object, which owns it and is reused across calls.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "protocol/codec.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::ua {

// Decodes a whole message into `msg`, reusing the body it holds when the type is the same
// (no allocation then for a message of the same shape). Good, Bad_DecodingError,
// Bad_EncodingLimitsExceeded, or Bad_ServiceUnsupported for an encoding id we do not know.
status_code decode_message(std::span<const std::uint8_t> in, extension_object& msg, const decode_limits& limits = {});

// Appends the encoding NodeId and the body of a known message.
void encode_message(encoder& e, const extension_body& body);

template <class T>
void encode_message(encoder& e, const T& body) {
  encode(e, node_id{0, T::binary_encoding_id});
  encode(e, body);
}

// A service response as the server sends it: a ServiceFault carrying its ResponseHeader when the
// ServiceResult is Bad (Part 4 §5.3 and §7.34 ServiceFault, 1.05: "shall be returned instead of the
// Service response message when the serviceResult is a StatusCode with Severity Bad"), the response
// itself otherwise. A ServiceFault is nothing but a ResponseHeader, so nothing is copied.
template <class Response>
void encode_response(encoder& e, const Response& r) {
  if (!r.response_header.service_result.is_bad()) return encode_message(e, r);
  encode(e, node_id{0, service_fault::binary_encoding_id});
  encode(e, r.response_header);
}

}  // namespace uactor::ua
