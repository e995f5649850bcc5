// A test peer that speaks raw UA-TCP over a real socket to 127.0.0.1: it sends whatever bytes a
// test chooses (garbage, half headers, forged chunks) and reads back with a deadline on every
// receive. raw_peer owns its socket; ua_codec owns the client side of one secure channel (limits,
// sequence numbers, ids) and builds the chunks a well-behaved or a hostile client would send.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/byte_buffer.hpp"
#include "protocol/codec.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "protocol/message.hpp"
#include "protocol/message_assembler.hpp"
#include "protocol/message_chunker.hpp"
#include "protocol/secure_chunk.hpp"
#include "protocol/uatcp.hpp"
#include "tests/support/bytes.hpp"

namespace uactor::test {

using std::chrono::milliseconds;

enum class io_result : std::uint8_t { ok, closed, timeout, error };
std::string_view to_string(io_result r) noexcept;

// One chunk as it came off the wire: its 8-byte header and body. `result` says why there is none.
struct raw_chunk {
  io_result result = io_result::error;
  bytes data;
  std::string type() const;  // "ACK", "ERR", "MSG", ... (empty when there is no chunk)
  char chunk_type() const { return data.size() >= 4 ? static_cast<char>(data[3]) : '\0'; }
};

// A blocking-style client socket (non-blocking underneath, every wait bounded by poll).
class raw_peer {
public:
  // Connects to 127.0.0.1:port within `timeout`; connected() says whether it did.
  explicit raw_peer(std::uint16_t port, milliseconds timeout = milliseconds(2000), int receive_buffer = 0);
  raw_peer(raw_peer&& o) noexcept;
  raw_peer& operator=(raw_peer&&) = delete;
  raw_peer(const raw_peer&) = delete;
  ~raw_peer();

  bool connected() const noexcept { return fd_ >= 0; }
  int fd() const noexcept { return fd_; }

  // Sends all of `data` before the deadline: ok, timeout (the peer stopped reading), closed
  // (EPIPE/ECONNRESET) or error. `sent()` counts what went out over the whole life of the peer.
  io_result send(std::span<const std::uint8_t> data, milliseconds timeout = milliseconds(2000));
  io_result send(std::string_view data, milliseconds timeout = milliseconds(2000));
  io_result send(const ua::byte_buffer& data, milliseconds timeout = milliseconds(2000)) {
    return send(data.bytes(), timeout);
  }
  std::size_t sent() const noexcept { return sent_; }

  // Exactly `n` bytes, or why not.
  io_result receive_exactly(std::size_t n, bytes& out, milliseconds timeout);
  // Whatever arrives first (at most `max` bytes), or why nothing did.
  io_result receive_some(std::size_t max, bytes& out, milliseconds timeout);
  // One whole chunk: the header, then the size it names (refused above 16 MiB: error).
  raw_chunk read_chunk(milliseconds timeout = milliseconds(2000));
  // Reads (and drops) until the server closes: closed, or timeout when it stays open.
  io_result wait_closed(milliseconds timeout = milliseconds(2000));

  // The server's ERR: the chunk must be an ERR; its status (or a bad status naming what came).
  ua::status_code read_error(milliseconds timeout = milliseconds(2000));

  // Closes the socket now (a peer that vanishes); with `reset` an RST instead of a FIN.
  void close(bool reset = false);

private:
  int fd_ = -1;
  std::size_t sent_ = 0;
};

// What one complete message from the server was.
struct received {
  io_result result = io_result::ok;  // not ok: no message (closed, timeout, error)
  std::string type;                  // "ACK", "ERR", "OPN", "MSG"
  std::string problem;               // a chunk that did not parse (the server broke the protocol)
  ua::acknowledge ack;
  ua::error_message err;
  std::uint32_t channel_id = 0;
  std::uint32_t token_id = 0;
  std::uint32_t request_id = 0;
  ua::extension_object msg;  // OPN and MSG: the decoded response
  // The ServiceResult of a response (or ServiceFault); Good when there is none.
  ua::status_code service_result() const;
  std::string describe() const;  // for failure messages: "ERR BadTcpMessageTypeInvalid", ...
};

// The client side of one connection and secure channel (policy None): builds chunks, reads
// responses. Its members are public so that hostile tests can forge ids and limits.
struct ua_codec {
  explicit ua_codec(std::string endpoint_url = "opc.tcp://127.0.0.1:4840");

  std::string endpoint_url;
  ua::transport_limits ours;           // what the Hello offers
  ua::connection_limits limits;        // after the ACK: send_* are the server's
  ua::sequence_counter sequence;
  ua::message_assembler assembler{0, 0};
  std::uint32_t channel_id = 0;        // from the OPN response
  std::uint32_t token_id = 0;
  std::uint32_t last_request_id = 0;
  std::uint32_t handle = 0;
  ua::node_id authentication_token;    // from CreateSession

  ua::byte_buffer hello() const;
  ua::byte_buffer open(std::uint32_t lifetime_ms = 600'000);
  // The encoded message (encoding id + body) cut into chunks for `limits` (MaxChunkCount not
  // enforced: a hostile test may exceed it). `chunk_size` 0: the negotiated send buffer size.
  ua::byte_buffer chunks(ua::message_type type, std::span<const std::uint8_t> encoded,
                         const ua::asymmetric_security_header* asym = nullptr, std::size_t chunk_size = 0);
  // A service request with its RequestHeader filled (authentication token, handle) in MSG chunks.
  template <class T>
  ua::byte_buffer request(T req, std::size_t chunk_size = 0) {
    req.request_header.authentication_token = authentication_token;
    req.request_header.request_handle = ++handle;
    req.request_header.timeout_hint = 10'000;
    ua::byte_buffer encoded;
    ua::encoder e(encoded);
    ua::encode_message(e, req);
    return chunks(ua::message_type::message, encoded.bytes(), nullptr, chunk_size);
  }

  // Reads chunks until one whole message (or ERR/ACK) is there; updates limits, channel and
  // token from ACK and OPN responses.
  received next(raw_peer& peer, milliseconds timeout = milliseconds(2000));

  // The same for bytes a test already holds (e.g. a test multiplexer's output buffer): every
  // whole message in `stream`, in order. A trailing partial chunk is reported as a problem.
  std::vector<received> read_all(std::span<const std::uint8_t> stream);

  // One chunk (header included) into `r`: false while a multi-chunk message is incomplete.
  bool take(std::span<const std::uint8_t> chunk, received& r);
};

// Hello, OpenSecureChannel, CreateSession, ActivateSession (anonymous) on `peer`: "" when the
// session is active, else what went wrong.
std::string open_session(raw_peer& peer, ua_codec& codec, milliseconds timeout = milliseconds(3000));

// ReadRequest for ns=1;s=the.answer, Value.
ua::read_request read_of_the_answer();

// A well-behaved client on a new connection: session, Read of ns=1;s=the.answer, CloseSecureChannel.
// "43" when the server answered 43, else what went wrong ("connect failed", "ERR BadTimeout", ...).
std::string read_the_answer(std::uint16_t port, milliseconds timeout = milliseconds(5000));

}  // namespace uactor::test
