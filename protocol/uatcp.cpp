#include "protocol/uatcp.hpp"

#include <algorithm>
#include <array>

namespace uactor::ua {

namespace {

struct type_name {
  message_type type;
  std::array<char, 3> code;
};

constexpr std::array<type_name, 7> type_names{{
    {message_type::hello, {'H', 'E', 'L'}},
    {message_type::acknowledge, {'A', 'C', 'K'}},
    {message_type::error, {'E', 'R', 'R'}},
    {message_type::reverse_hello, {'R', 'H', 'E'}},
    {message_type::open, {'O', 'P', 'N'}},
    {message_type::message, {'M', 'S', 'G'}},
    {message_type::close, {'C', 'L', 'O'}},
}};

const type_name& name_of(message_type t) noexcept { return type_names[static_cast<std::size_t>(t)]; }

// Strings inside UACP messages: at most 4096 bytes (§7.1.2.3, §7.1.2.5, §7.1.2.6).
decode_limits uacp_limits() {
  decode_limits l;
  l.max_string_length = max_endpoint_url_length;
  l.max_byte_string_length = 0;
  l.max_array_length = 0;
  return l;
}

constexpr message_type type_of(const hello&) { return message_type::hello; }
constexpr message_type type_of(const acknowledge&) { return message_type::acknowledge; }
constexpr message_type type_of(const error_message&) { return message_type::error; }
constexpr message_type type_of(const reverse_hello&) { return message_type::reverse_hello; }

template <class T>
void write_whole(byte_buffer& out, const T& v) {
  const auto start = out.size();
  out.extend(message_header_size);
  encoder e(out);
  encode(e, v);
  write_message_header(out.data() + start,
                       {type_of(v), chunk_type::final_chunk, static_cast<std::uint32_t>(out.size() - start)});
}

template <class T>
status_code read_whole(std::span<const std::uint8_t> in, T& v, const decode_limits& limits) {
  if (in.size() < message_header_size) return status::bad_decoding_error;
  const auto h = parse_message_header(in.first<message_header_size>());
  if (!h) return h.error();
  if (h->type != type_of(v)) return status::bad_tcp_message_type_invalid;
  if (h->message_size != in.size()) return status::bad_decoding_error;
  decoder d(in.subspan(message_header_size), limits);
  decode(d, v);
  if (d.ok() && d.remaining() != 0) d.fail(status::bad_decoding_error);
  return d.status();
}

}  // namespace

std::string_view to_string(message_type t) noexcept {
  const auto& n = name_of(t);
  return {n.code.data(), n.code.size()};
}

expected<message_header> parse_message_header(std::span<const std::uint8_t, message_header_size> in) noexcept {
  const type_name* found = nullptr;
  for (const auto& n : type_names)
    if (in[0] == static_cast<std::uint8_t>(n.code[0]) && in[1] == static_cast<std::uint8_t>(n.code[1]) &&
        in[2] == static_cast<std::uint8_t>(n.code[2]))
      found = &n;
  if (!found) return status::bad_tcp_message_type_invalid;
  const auto c = static_cast<chunk_type>(in[3]);
  // Part 6 §6.7.2.2: C and A only for MSG; F for every other type (§7.1.2.2 for HEL/ACK/ERR/RHE).
  const bool allowed = c == chunk_type::final_chunk ||
                       (found->type == message_type::message && (c == chunk_type::intermediate || c == chunk_type::abort));
  if (!allowed) return status::bad_tcp_message_type_invalid;
  std::uint32_t size;
  std::memcpy(&size, in.data() + 4, 4);
  return message_header{found->type, c, size};
}

void write_message_header(std::uint8_t* out, const message_header& h) noexcept {
  const auto& n = name_of(h.type);
  out[0] = static_cast<std::uint8_t>(n.code[0]);
  out[1] = static_cast<std::uint8_t>(n.code[1]);
  out[2] = static_cast<std::uint8_t>(n.code[2]);
  out[3] = static_cast<std::uint8_t>(h.chunk);
  std::memcpy(out + 4, &h.message_size, 4);
}

void encode(encoder& e, const hello& v) {
  e.write(v.protocol_version);
  e.write(v.receive_buffer_size);
  e.write(v.send_buffer_size);
  e.write(v.max_message_size);
  e.write(v.max_chunk_count);
  encode(e, v.endpoint_url);
}
void decode(decoder& d, hello& v) {
  v.protocol_version = d.read<std::uint32_t>();
  v.receive_buffer_size = d.read<std::uint32_t>();
  v.send_buffer_size = d.read<std::uint32_t>();
  v.max_message_size = d.read<std::uint32_t>();
  v.max_chunk_count = d.read<std::uint32_t>();
  decode(d, v.endpoint_url);
}

void encode(encoder& e, const acknowledge& v) {
  e.write(v.protocol_version);
  e.write(v.receive_buffer_size);
  e.write(v.send_buffer_size);
  e.write(v.max_message_size);
  e.write(v.max_chunk_count);
}
void decode(decoder& d, acknowledge& v) {
  v.protocol_version = d.read<std::uint32_t>();
  v.receive_buffer_size = d.read<std::uint32_t>();
  v.send_buffer_size = d.read<std::uint32_t>();
  v.max_message_size = d.read<std::uint32_t>();
  v.max_chunk_count = d.read<std::uint32_t>();
}

void encode(encoder& e, const error_message& v) {
  encode(e, v.error);
  encode(e, v.reason);
}
void decode(decoder& d, error_message& v) {
  decode(d, v.error);
  // §7.1.2.5: a reason longer than 4096 bytes is ignored, not an error, so its length is read
  // here rather than checked against the decoder's string limit.
  const auto n = d.read<std::int32_t>();
  if (!d.ok()) return;
  if (n < -1) { d.fail(status::bad_decoding_error); return; }
  if (n == -1) { v.reason.set_null(); return; }
  const auto* p = d.take(static_cast<std::size_t>(n));
  if (!p) return;
  if (static_cast<std::size_t>(n) > max_reason_length) v.reason.set_null();
  else v.reason.assign(p, static_cast<std::size_t>(n));
}

void encode(encoder& e, const reverse_hello& v) {
  encode(e, v.server_uri);
  encode(e, v.endpoint_url);
}
void decode(decoder& d, reverse_hello& v) {
  decode(d, v.server_uri);
  decode(d, v.endpoint_url);
}

void write_message(byte_buffer& out, const hello& v) { write_whole(out, v); }
void write_message(byte_buffer& out, const acknowledge& v) { write_whole(out, v); }
void write_message(byte_buffer& out, const error_message& v) { write_whole(out, v); }
void write_message(byte_buffer& out, const reverse_hello& v) { write_whole(out, v); }

// A Hello's EndpointUrl is decoded whatever its length (the message is whole in memory, bounded by
// the receive buffer), so that accept_hello answers one over 4096 bytes with
// Bad_TcpEndpointUrlInvalid as §7.1.2.3 says, not with a decoding error.
status_code read_message(std::span<const std::uint8_t> in, hello& v) {
  auto limits = uacp_limits();
  limits.max_string_length = in.size();
  return read_whole(in, v, limits);
}
status_code read_message(std::span<const std::uint8_t> in, acknowledge& v) { return read_whole(in, v, uacp_limits()); }
status_code read_message(std::span<const std::uint8_t> in, error_message& v) { return read_whole(in, v, uacp_limits()); }
status_code read_message(std::span<const std::uint8_t> in, reverse_hello& v) { return read_whole(in, v, uacp_limits()); }

expected<hello_accepted> accept_hello(const hello& h, const transport_limits& ours) {
  // §7.1.2.3: at least 8192 bytes each (1024 only for ECC policies, which we do not offer).
  if (h.receive_buffer_size < min_buffer_size || h.send_buffer_size < min_buffer_size)
    return status::bad_connection_rejected;
  if (h.endpoint_url.size() > max_endpoint_url_length) return status::bad_tcp_endpoint_url_invalid;

  hello_accepted r;
  // §7.1.2.4: our ReceiveBufferSize at most the client's SendBufferSize, our SendBufferSize at
  // most its ReceiveBufferSize; both stay >= 8192 since both sides' values are.
  r.ack.protocol_version = uacp_protocol_version;
  r.ack.receive_buffer_size = std::min(ours.receive_buffer_size, h.send_buffer_size);
  r.ack.send_buffer_size = std::min(ours.send_buffer_size, h.receive_buffer_size);
  r.ack.max_message_size = ours.max_message_size;
  r.ack.max_chunk_count = ours.max_chunk_count;

  r.limits.receive_buffer_size = r.ack.receive_buffer_size;
  r.limits.receive_max_message_size = ours.max_message_size;
  r.limits.receive_max_chunk_count = ours.max_chunk_count;
  r.limits.send_buffer_size = r.ack.send_buffer_size;
  r.limits.send_max_message_size = h.max_message_size;
  r.limits.send_max_chunk_count = h.max_chunk_count;
  return r;
}

expected<connection_limits> accept_acknowledge(const acknowledge& ack, const hello& sent) {
  if (ack.protocol_version > sent.protocol_version) return status::bad_protocol_version_unsupported;
  // §7.1.2.4: not larger than what we asked for, at least 8192 since we asked for >= 8192.
  if (ack.receive_buffer_size > sent.send_buffer_size || ack.send_buffer_size > sent.receive_buffer_size)
    return status::bad_connection_rejected;
  if (ack.receive_buffer_size < min_buffer_size || ack.send_buffer_size < min_buffer_size)
    return status::bad_connection_rejected;
  connection_limits l;
  l.receive_buffer_size = ack.send_buffer_size;  // the server sends nothing larger (<= what we asked)
  l.receive_max_message_size = sent.max_message_size;
  l.receive_max_chunk_count = sent.max_chunk_count;
  l.send_buffer_size = ack.receive_buffer_size;
  l.send_max_message_size = ack.max_message_size;
  l.send_max_chunk_count = ack.max_chunk_count;
  return l;
}

hello make_hello(const transport_limits& ours, std::string_view endpoint_url) {
  hello h;
  h.protocol_version = uacp_protocol_version;
  h.receive_buffer_size = ours.receive_buffer_size;
  h.send_buffer_size = ours.send_buffer_size;
  h.max_message_size = ours.max_message_size;
  h.max_chunk_count = ours.max_chunk_count;
  h.endpoint_url = endpoint_url;
  return h;
}

}  // namespace uactor::ua
