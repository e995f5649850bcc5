// The client side of one UA-TCP connection and its secure channel (Part 6 §7.1, §6.7), any policy
// and mode of security/policy.hpp: plain state that the client actor wraps, the mirror of
// secure_channel_state. Chunks in, bytes out; the caller owns the chunk_reader and the socket, this
// object owns its output buffer and the last decoded response.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engine/common/channel_crypto.hpp"
#include "engine/common/clock.hpp"
#include "protocol/byte_buffer.hpp"
#include "protocol/chunk_reader.hpp"
#include "protocol/codec.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "protocol/message.hpp"
#include "protocol/message_assembler.hpp"
#include "protocol/message_chunker.hpp"
#include "protocol/secure_chunk.hpp"
#include "protocol/uatcp.hpp"
#include "security/asymmetric.hpp"
#include "security/certificate.hpp"
#include "security/ecc.hpp"
#include "security/pki_store.hpp"

namespace uactor::actors {

// How the client secures its channel: the endpoint's policy and mode, our application instance
// certificate and key, and the server certificate the endpoint named (already checked by the
// caller against its trust store). Policy None needs none of the certificates.
struct client_channel_security {
  const security::security_policy* policy = &security::policy_none();
  ua::message_security_mode mode = ua::message_security_mode::none;
  security::certificate own_certificate;
  security::rsa_key private_key;
  security::certificate server_certificate;
  // Sent after our certificate in the OPN (Part 6 §6.7.2.3) and CreateSession: its issuers.
  std::vector<security::certificate> own_issuers{};
  // Set when the endpoint's ServerCertificate did not carry the server's whole chain: the trust
  // check then runs on the first OPN response, with the issuers the server sends there after its
  // leaf. Not Good closes the channel with its status.
  std::function<security::validation_result(const security::certificate& leaf,
                                            std::span<const security::certificate> issuers)>
      check_server_chain{};
};

struct client_channel_config {
  std::string endpoint_url;      // sent in the Hello (Part 6 §7.1.2.3)
  ua::transport_limits limits;   // what we offer in the Hello (defaults: docs/configuration.md)
  ua::decode_limits decode;      // for response bodies
  std::chrono::milliseconds requested_lifetime{3'600'000};  // OpenSecureChannel RequestedLifetime
  // Part 4 §5.5.2: the client renews before the token expires; at this share of the revised lifetime.
  std::uint32_t renew_at_percent = 75;
  client_channel_security security;
};

// A decoded response (or the status that took its place), valid until the next on_chunk().
struct client_response {
  std::uint32_t request_id = 0;           // sequence header RequestId, as send_request returned it
  std::uint32_t request_handle = 0;       // of the ResponseHeader (Good status only)
  ua::status_code status;                 // Good, or the abort chunk's error / a decoding error
  ua::extension_object* message = nullptr;  // the response (a ServiceFault too); null when status is bad
};

// Where the response to a request is decoded: the storage of the call that waits for it, kept
// from one request to the next so that the same response type decodes in place without allocating
// (docs/decisions/0023). Null: the channel's own message.
class response_storage {
public:
  virtual ua::extension_object* storage_for(std::uint32_t request_id) noexcept = 0;

protected:
  virtual ~response_storage() = default;  // virtual: the client actor's state is one (CAF destroys it)
};

class client_channel_state {
public:
  enum class event : std::uint8_t {
    none,          // nothing for the caller but maybe output()
    acknowledged,  // ACK taken: call chunk_reader::set_receive_buffer_size(limits().receive_buffer_size),
                   // then write_open()
    opened,        // the OPN response of an Issue: the channel is open, requests may be sent
    renewed,       // the OPN response of a Renew: the new token is in use from now on
    response,      // response() holds a response for one request
    closed,        // an ERR arrived or the server broke the protocol: close_status() says why;
                   // close the connection (nothing to send)
  };

  enum class phase : std::uint8_t { initial, awaiting_ack, awaiting_open, open, closed };

  explicit client_channel_state(client_channel_config config);

  // Part 6 §7.1.2.3: the Hello for config().endpoint_url, into output().
  void write_hello();

  // Part 4 §5.5.2: OpenSecureChannel, Issue (after the ACK) or Renew (while open), into output().
  // Bad_InvalidState when the phase does not allow it. `now` starts the renewal clock when the
  // response arrives; a Renew in flight is not repeated.
  ua::status_code write_open(const instant& now);

  // One complete chunk as chunk_reader frames it.
  event on_chunk(const ua::chunk_view& chunk, const instant& now);

  // Time to renew the token: 75 % (renew_at_percent) of its revised lifetime has passed since
  // the response that brought it, and no Renew is in flight (Part 4 §5.5.2.1).
  bool needs_renewal(std::chrono::steady_clock::time_point now) const noexcept;
  // When needs_renewal turns true (meaningful once open).
  std::chrono::steady_clock::time_point renewal_due() const noexcept { return renew_at_; }

  // Encodes a request into MSG chunks in output(), chunked for the server's ReceiveBufferSize.
  // Returns the RequestId its response will carry, or Bad_RequestTooLarge (over the server's
  // MaxMessageSize or MaxChunkCount; nothing written, Part 6 §7.1.2.4), or
  // Bad_SecureChannelClosed when the channel is not open. The caller fills the RequestHeader.
  ua::expected<std::uint32_t> send_request(const ua::extension_body& request);
  template <class T>
  ua::expected<std::uint32_t> send_request(const T& request) {
    if (phase_ != phase::open) return ua::status::bad_secure_channel_closed;
    scratch_.clear();
    ua::encoder e(scratch_);
    ua::encode_message(e, request);
    return send_encoded();
  }

  // Part 6 §7.1.4: CloseSecureChannel into output(); the channel is closed afterwards (the
  // caller sends the output, then closes the connection).
  void write_close(const instant& now);

  // Responses are decoded into what `storage` names for their RequestId (else into the channel's
  // own message). The storage outlives the channel or is reset before it goes.
  void set_response_storage(response_storage* storage) noexcept { storage_ = storage; }

  const client_response& response() const noexcept { return response_; }
  client_response& response() noexcept { return response_; }

  // Complete chunks to send, back to back; the caller sends them and calls clear_output().
  ua::byte_buffer& output() noexcept { return out_; }
  void clear_output() noexcept { out_.clear(); }

  phase current_phase() const noexcept { return phase_; }
  bool is_open() const noexcept { return phase_ == phase::open; }
  bool closed() const noexcept { return phase_ == phase::closed; }
  // Why the channel ended: Good after write_close(), the ERR's status, or our own refusal.
  ua::status_code close_status() const noexcept { return close_status_; }
  std::string_view close_reason() const noexcept { return close_reason_; }
  // Negotiated by Hello/Acknowledge (valid from event::acknowledged on).
  const ua::connection_limits& limits() const noexcept { return limits_; }
  // The token that secures our messages (valid from event::opened on).
  const ua::channel_security_token& token() const noexcept { return token_; }
  std::uint32_t channel_id() const noexcept { return token_.channel_id; }
  const client_channel_config& config() const noexcept { return config_; }

private:
  event on_ack(const ua::chunk_view& chunk);
  event on_error(const ua::chunk_view& chunk);
  // The ServiceFault of an ERR in node-opcua's form (decoded into message_), or null.
  const ua::service_fault* service_fault_in_error(const ua::chunk_view& chunk);
  event on_open_response(const ua::chunk_view& chunk, const instant& now);
  event on_message(const ua::chunk_view& chunk);
  // A MSG chunk after its token check: verified and decrypted (policy other than None), parsed.
  ua::status_code unprotect_symmetric(const ua::chunk_view& chunk, std::size_t at, ua::secure_chunk& c);
  // Signs/encrypts the chunks written to out_ from `from` on (nothing for policy None).
  void protect_output(std::size_t from);
  ua::status_code write_open_chunk(std::uint32_t channel_id);
  // Channel and token of a MSG chunk: ours, and the current token or its predecessor.
  bool token_accepted(const ua::secure_chunk& c) const noexcept;
  event fail(ua::status_code error, std::string_view reason);
  ua::expected<std::uint32_t> send_encoded();
  std::uint32_t next_request_id() noexcept;

  client_channel_config config_;
  phase phase_ = phase::initial;
  ua::status_code close_status_;
  std::string close_reason_;
  ua::hello hello_;
  ua::connection_limits limits_;
  ua::message_assembler assembler_{0, 0};
  ua::message_chunker chunker_{ua::connection_limits{}, ua::status::bad_request_too_large};
  ua::sequence_counter sequence_;
  ua::asymmetric_security_header asym_out_;
  ua::asymmetric_security_header asym_in_;
  std::optional<security::asymmetric_context> asymmetric_;  // policy other than None
  token_crypto tokens_;
  ua::byte_string client_nonce_;  // of the OPN in flight
  std::optional<security::ephemeral_key> ephemeral_;  // ECC (Part 6 §6.8.1): the private half of client_nonce_
  ua::byte_buffer plain_;         // a received chunk, verified and decrypted in place
  ua::byte_buffer open_plain_;    // an OPN before it is signed and encrypted

  ua::channel_security_token token_;      // in use for what we send
  // Earlier tokens, newest first, still accepted from the server: it keeps securing its answers
  // with the token the client last used (Part 4 §5.5.2.1), which after renewals without traffic
  // in between can be older than the one just replaced.
  std::array<std::uint32_t, 2> previous_token_ids_{};
  bool renewing_ = false;
  std::uint32_t open_request_id_ = 0;     // of the OPN in flight
  std::chrono::steady_clock::time_point open_sent_{};
  std::chrono::steady_clock::time_point renew_at_{};
  std::uint32_t next_request_id_ = 1;
  std::uint32_t next_handle_ = 1;

  ua::extension_object message_;
  response_storage* storage_ = nullptr;
  client_response response_;
  ua::byte_buffer scratch_;
  ua::byte_buffer out_;
};

}  // namespace uactor::actors
