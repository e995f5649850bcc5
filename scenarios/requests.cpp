#include "scenarios/requests.hpp"

#include "protocol/message.hpp"
#include "protocol/message_chunker.hpp"

namespace uactor::scenarios {
namespace {

ua::node_id value_node_id() { return ua::node_id::string(1, "Demo.Static.Scalar.Double"); }

// What uactor::client fills in: the session's token (our server's is a Guid in ns=1), a handle,
// the time and the TimeoutHint.
ua::request_header typical_request_header() {
  ua::request_header h;
  h.authentication_token = ua::node_id::guid_id(1, ua::guid{});
  h.timestamp = ua::date_time::from_unix_ms(1'700'000'000'000);
  h.request_handle = 1'000'000;
  h.timeout_hint = 10'000;
  return h;
}

template <class Message>
std::size_t chunked_size(const Message& m) {
  ua::byte_buffer body;
  ua::encoder e(body);
  ua::encode_message(e, m);
  ua::connection_limits limits;
  limits.send_buffer_size = 65535;
  limits.send_max_message_size = 16u << 20;
  limits.send_max_chunk_count = 4096;
  const ua::message_chunker chunker(limits, ua::status::bad_request_too_large);
  ua::chunk_target target;
  target.secure_channel_id = 1;
  target.token_id = 1;
  target.request_id = 1;
  ua::sequence_counter sequence;
  ua::byte_buffer out;
  if (!chunker.write(body.bytes(), target, sequence, out)) return 0;
  return out.size();
}

}  // namespace

ua::read_request make_read_request(std::size_t nodes) {
  ua::read_request r;
  r.timestamps_to_return = ua::timestamps_to_return::both;
  ua::read_value_id item;
  item.node_id = value_node_id();
  item.attribute_id = 13;  // Value (Part 6 Annex A AttributeIds)
  r.nodes_to_read.assign(nodes, item);
  return r;
}

ua::write_request make_write_request(std::size_t nodes) {
  ua::write_request r;
  ua::write_value item;
  item.node_id = value_node_id();
  item.attribute_id = 13;
  item.value.set_value(2.718281828459045);
  r.nodes_to_write.assign(nodes, item);
  return r;
}

ua::browse_request make_browse_request(std::size_t nodes) {
  ua::browse_request r;
  ua::browse_description item;
  item.node_id = ua::node_id(0, 2253);             // Server
  item.browse_direction = ua::browse_direction::forward;
  item.reference_type_id = ua::node_id(0, 33);     // HierarchicalReferences
  item.include_subtypes = true;
  item.result_mask = 63;                           // every field (Part 4 §7.6 BrowseResultMask: All)
  r.nodes_to_browse.assign(nodes, item);
  return r;
}

wire_sizes read_wire_sizes(std::size_t nodes) {
  auto request = make_read_request(nodes);
  request.request_header = typical_request_header();
  ua::read_response response;
  response.response_header.timestamp = ua::date_time::from_unix_ms(1'700'000'000'001);
  response.response_header.request_handle = 1'000'000;
  ua::data_value v;
  v.set_value(2.718281828459045);
  v.has_source_timestamp = v.has_server_timestamp = true;
  v.source_timestamp = v.server_timestamp = ua::date_time::from_unix_ms(1'700'000'000'000);
  response.results.assign(nodes, v);
  return {chunked_size(request), chunked_size(response)};
}

}  // namespace uactor::scenarios
