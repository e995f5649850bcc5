#include "protocol/message.hpp"

namespace uactor::ua {

status_code decode_message(std::span<const std::uint8_t> in, extension_object& msg, const decode_limits& limits) {
  decoder d(in, limits);
  node_id type_id;
  decode(d, type_id);
  if (!d.ok()) return d.status();
  const extension_type* type = type_id.namespace_index() == 0 && type_id.type() == node_id_type::numeric
                                   ? find_extension_type_by_encoding(type_id.numeric()) : nullptr;
  if (!type) return status::bad_service_unsupported;
  msg.body_of_type(*type).decode(d);
  if (d.ok() && d.remaining() != 0) d.fail(status::bad_decoding_error);
  return d.status();
}

void encode_message(encoder& e, const extension_body& body) {
  encode(e, node_id{0, body.type().binary_encoding_id});
  body.encode(e);
}

}  // namespace uactor::ua
