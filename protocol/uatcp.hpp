// The OPC UA Connection Protocol over TCP (Part 6 §7.1): the 8-byte message header shared by
// every chunk, Hello/Acknowledge/Error/ReverseHello, and the negotiation of a connection's limits.
// Plain values; the caller owns every buffer passed in or out.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "protocol/codec.hpp"
#include "uactor/ua/expected.hpp"

namespace uactor::ua {

// Part 6 §7.1.2.2 (HEL ACK ERR RHE) and §6.7.2.2 (OPN MSG CLO).
enum class message_type : std::uint8_t { hello, acknowledge, error, reverse_hello, open, message, close };

// Part 6 §6.7.2.2: the fourth header byte. Only MSG uses C and A; every other type is always F.
enum class chunk_type : std::uint8_t { final_chunk = 'F', intermediate = 'C', abort = 'A' };

// "HEL", "ACK", ... as on the wire.
std::string_view to_string(message_type t) noexcept;
// OPN, MSG and CLO: the chunks of the secure conversation (§6.7), carrying a SecureChannelId.
constexpr bool is_secure_conversation(message_type t) noexcept {
  return t == message_type::open || t == message_type::message || t == message_type::close;
}

inline constexpr std::size_t message_header_size = 8;        // Part 6 §7.1.2.2
inline constexpr std::uint32_t min_buffer_size = 8192;        // §7.1.2.3: ReceiveBufferSize, SendBufferSize
inline constexpr std::size_t max_endpoint_url_length = 4096;  // §7.1.2.3, §7.1.2.6 (bytes)
inline constexpr std::size_t max_reason_length = 4096;        // §7.1.2.5, §6.7.3 (bytes)
inline constexpr std::uint32_t uacp_protocol_version = 0;     // §7.1.2.3: this version of the standard

struct message_header {
  message_type type = message_type::hello;
  chunk_type chunk = chunk_type::final_chunk;
  std::uint32_t message_size = 0;  // the whole chunk, these 8 bytes included
  friend bool operator==(const message_header&, const message_header&) = default;
};

// The type and chunk type of the first 8 bytes: Bad_TcpMessageTypeInvalid for an unknown type or a
// chunk type its message type does not allow. The size is returned unchecked (the reader checks it
// against its limit).
expected<message_header> parse_message_header(std::span<const std::uint8_t, message_header_size> in) noexcept;
void write_message_header(std::uint8_t* out, const message_header& h) noexcept;  // 8 bytes

// One side's limits (defaults: docs/configuration.md, [server]). In a Hello or Acknowledge, 0 for MaxMessageSize or
// MaxChunkCount means "no limit" (§7.1.2.3); in our configuration it means the same.
struct transport_limits {
  std::uint32_t receive_buffer_size = 65535;
  std::uint32_t send_buffer_size = 65535;
  std::uint32_t max_message_size = 16u << 20;
  std::uint32_t max_chunk_count = 4096;
};

// Part 6 §7.1.2.3, Table "Hello Message".
struct hello {
  std::uint32_t protocol_version = uacp_protocol_version;
  std::uint32_t receive_buffer_size = 0;
  std::uint32_t send_buffer_size = 0;
  std::uint32_t max_message_size = 0;
  std::uint32_t max_chunk_count = 0;
  ua_string endpoint_url;
  friend bool operator==(const hello&, const hello&) = default;
};

// Part 6 §7.1.2.4.
struct acknowledge {
  std::uint32_t protocol_version = uacp_protocol_version;
  std::uint32_t receive_buffer_size = 0;
  std::uint32_t send_buffer_size = 0;
  std::uint32_t max_message_size = 0;
  std::uint32_t max_chunk_count = 0;
  friend bool operator==(const acknowledge&, const acknowledge&) = default;
};

// Part 6 §7.1.2.5 (and the body of an abort chunk, §6.7.3).
struct error_message {
  status_code error;
  ua_string reason;
  friend bool operator==(const error_message&, const error_message&) = default;
};

// Part 6 §7.1.2.6.
struct reverse_hello {
  ua_string server_uri;
  ua_string endpoint_url;
  friend bool operator==(const reverse_hello&, const reverse_hello&) = default;
};

// The bodies, without the message header.
void encode(encoder& e, const hello& v);
void decode(decoder& d, hello& v);
void encode(encoder& e, const acknowledge& v);
void decode(decoder& d, acknowledge& v);
void encode(encoder& e, const error_message& v);
void decode(decoder& d, error_message& v);
void encode(encoder& e, const reverse_hello& v);
void decode(decoder& d, reverse_hello& v);

// Appends a whole message: header (type, 'F', size) and body.
void write_message(byte_buffer& out, const hello& v);
void write_message(byte_buffer& out, const acknowledge& v);
void write_message(byte_buffer& out, const error_message& v);
void write_message(byte_buffer& out, const reverse_hello& v);

// Reads a whole message (a chunk as chunk_reader hands it out): the header must name the
// type and the exact size, and the body must fill it. Bad_TcpMessageTypeInvalid for another
// type, Bad_DecodingError for a malformed body. Strings are limited to 4096 bytes
// (Bad_EncodingLimitsExceeded); an Error reason longer than that is dropped, not an error
// (§7.1.2.5: "a Client shall ignore strings that are longer").
status_code read_message(std::span<const std::uint8_t> in, hello& v);
status_code read_message(std::span<const std::uint8_t> in, acknowledge& v);
status_code read_message(std::span<const std::uint8_t> in, error_message& v);
status_code read_message(std::span<const std::uint8_t> in, reverse_hello& v);

// The limits a connection works with once Hello and Acknowledge are exchanged. `receive_*`
// bound what we accept (chunk_reader, message_assembler); `send_*` bound what we write
// (message_chunker). 0 in a max_* field means no limit.
struct connection_limits {
  std::uint32_t receive_buffer_size = 0;       // largest chunk we accept
  std::uint32_t receive_max_message_size = 0;  // our MaxMessageSize
  std::uint32_t receive_max_chunk_count = 0;   // our MaxChunkCount
  std::uint32_t send_buffer_size = 0;          // largest chunk we send
  std::uint32_t send_max_message_size = 0;     // the peer's MaxMessageSize
  std::uint32_t send_max_chunk_count = 0;      // the peer's MaxChunkCount
  friend bool operator==(const connection_limits&, const connection_limits&) = default;
};

struct hello_accepted {
  acknowledge ack;           // to send
  connection_limits limits;  // to use from now on
};

// Server side, Part 6 §7.1.2.3-4: validates a Hello and revises the buffer sizes down to ours.
// Errors (send them in an ERR, then close): Bad_ConnectionRejected for a buffer size below
// 8192 (no ECC policy here, so the 1024 minimum of §7.1.2.3 does not apply), and
// Bad_TcpEndpointUrlInvalid for an EndpointUrl longer than 4096 bytes. Any ProtocolVersion is
// accepted: we answer with version 0, which is at most what was asked for.
expected<hello_accepted> accept_hello(const hello& h, const transport_limits& ours);

// Client side, §7.1.2.4: checks the server's answer against the Hello we sent. Bad_ConnectionRejected
// when a buffer size is above what we asked for or below the minimum, or the version is higher.
expected<connection_limits> accept_acknowledge(const acknowledge& ack, const hello& sent);

// The Hello a client sends with its configured limits.
hello make_hello(const transport_limits& ours, std::string_view endpoint_url);

}  // namespace uactor::ua
