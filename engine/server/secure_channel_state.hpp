// The server side of one UA-TCP connection and its secure channel (Part 6 §7.1, §6.7): plain state
// that the channel actor wraps. Chunks in, bytes out; the caller owns the chunk_reader and the
// socket, this object owns its output buffer and the request. Policy None unless the config
// brings a server_security; then every policy and mode it offers (OPN asymmetric, MSG/CLO
// symmetric with one context per direction and token).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/common/channel_crypto.hpp"
#include "engine/common/clock.hpp"
#include "engine/server/channel_audit.hpp"
#include "engine/server/server_security.hpp"

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

namespace uactor::actors {

inline constexpr std::string_view security_policy_none_uri = "http://opcfoundation.org/UA/SecurityPolicy#None";

struct secure_channel_config {
  std::uint32_t channel_id = 1;  // unique in the server, assigned by the listener; not 0
  // The endpoint (listener) of the connection: an OPN may ask only for what it offers
  // (server_security::endpoints).
  std::uint16_t endpoint = 0;
  ua::transport_limits limits;   // what we offer in the Acknowledge (docs/configuration.md, [server])
  ua::decode_limits decode;      // for request bodies
  std::chrono::milliseconds hello_timeout{10'000};
  // RevisedLifetime: a requested 0 gets the maximum; anything else is clamped (Part 4 §5.5.2).
  std::chrono::milliseconds min_token_lifetime{10'000};
  std::chrono::milliseconds max_token_lifetime{3'600'000};
  // A token is accepted this much longer than its lifetime: clocks differ and messages travel
  // (Part 4 §5.5.2.1). A percentage of the revised lifetime.
  std::uint32_t token_grace_percent = 25;
  // Policies, modes, certificate and trust; null: policy None only. Shared by every channel.
  std::shared_ptr<server_security> security;
  // Record what the audit events of the channel need (channel_audit); the server's audit_events.
  bool audit = false;
  // The peer's IP address, set per connection (the login guard counts failures per address);
  // empty when not known.
  std::string peer_address;
};

// A decoded service request, valid until the next on_chunk().
struct service_request {
  std::uint32_t channel_id = 0;
  std::uint32_t request_id = 0;         // sequence header RequestId: pass it to send_response
  const ua::request_header* header = nullptr;   // the request's header (authentication token, handle)
  ua::extension_object* message = nullptr;      // the whole request; the caller may swap it out
};

class secure_channel_state {
public:
  enum class event : std::uint8_t {
    none,          // nothing for the caller but maybe output()
    acknowledged,  // HEL answered: call chunk_reader::set_receive_buffer_size(limits().receive_buffer_size)
    request,       // request() holds a decoded service request
    close,         // send output() (an ERR, or nothing), then close the connection
  };

  enum class phase : std::uint8_t { awaiting_hello, awaiting_open, open, closed };

  secure_channel_state(const secure_channel_config& config, const instant& created);
  ~secure_channel_state();
  secure_channel_state(const secure_channel_state&) = delete;
  secure_channel_state& operator=(const secure_channel_state&) = delete;

  // One complete chunk as chunk_reader frames it. Writes any answer (ACK, OPN response, ERR,
  // ServiceFault) to output(). Once closed, every call returns close and writes nothing.
  event on_chunk(const ua::chunk_view& chunk, const instant& now);

  // Whether this chunk is an OpenSecureChannel that needs asymmetric crypto (a policy other than
  // None, for a new channel or a renewal): work the caller may run on a crypto worker by calling
  // on_chunk there (docs/decisions/0022), touching nothing of this object until it returns.
  bool open_needs_crypto(const ua::chunk_view& chunk) const;
  // Refuses the OpenSecureChannel at hand without answering it: an ERR with `error` (Part 6 §7.1.5:
  // Bad_TcpServerTooBusy when too much such work waits already), then close.
  event refuse_open(ua::status_code error, std::string_view reason);

  // The trust list changed (Part 12 §7.8.2.5: the server re-evaluates the certificates of open
  // SecureChannels and closes those no longer trusted): the client certificate of the OPN, with
  // the issuers it sent, is checked again. Returns close (an ERR Bad_SecurityChecksFailed in
  // output(), the reason in the log) when it is refused now; none otherwise (policy None too).
  event recheck_peer(const instant& now);

  // Time-driven checks: the Hello timeout and the expiry of the current token. Returns close
  // (with an ERR in output()) when one of them ended the connection.
  event on_tick(const instant& now);
  bool hello_overdue(std::chrono::steady_clock::time_point now) const noexcept;
  // The Hello timeout counted from `now` instead of the channel's creation, while no Hello came:
  // a transport under UA-TCP whose own handshake ends later than the TCP accept (opc.wss served
  // natively: the timeout then runs from the upgrade, as behind the door, docs/wss.md).
  void restart_hello_timeout(std::chrono::steady_clock::time_point now) noexcept;
  // The current token expired (grace included) without a renewal.
  bool token_expired(std::chrono::steady_clock::time_point now) const noexcept;

  // The answer to a request: encoded, chunked for the peer's limits into output(). The
  // response's header must already carry the request handle. A response over the peer's
  // MaxMessageSize/MaxChunkCount is replaced by a ServiceFault with Bad_ResponseTooLarge (the
  // return value then). Nothing is written once the channel is closed (Bad_SecureChannelClosed).
  ua::status_code send_response(std::uint32_t request_id, const ua::extension_body& response);
  template <class T>
  ua::status_code send_response(std::uint32_t request_id, const T& response) {
    if (phase_ != phase::open) return ua::status::bad_secure_channel_closed;
    scratch_.clear();
    ua::encoder e(scratch_);
    ua::encode_message(e, response);
    return send_encoded(request_id, scratch_.bytes());
  }
  // The same for a response already encoded elsewhere (encoding id + body, as encode_message
  // writes it): the session host encodes on its own thread, the channel only chunks.
  ua::status_code send_encoded(std::uint32_t request_id, std::span<const std::uint8_t> message);
  // A ServiceFault (Part 4 §7.33) for a request: the whole request failed with `result`.
  void send_service_fault(std::uint32_t request_id, std::uint32_t request_handle, ua::status_code result,
                          ua::date_time timestamp);

  const service_request& request() const noexcept { return request_; }
  service_request& request() noexcept { return request_; }

  // Complete chunks to send, back to back. The caller sends them and calls clear_output() (or
  // swaps the buffer for an empty one of its own).
  ua::byte_buffer& output() noexcept { return out_; }
  void clear_output() noexcept { out_.clear(); }

  phase current_phase() const noexcept { return phase_; }
  bool closed() const noexcept { return phase_ == phase::closed; }
  // Why the connection ended: Good after a CloseSecureChannel, else the status sent in the ERR.
  ua::status_code close_status() const noexcept { return close_status_; }
  // The limits negotiated by Hello/Acknowledge (valid from event::acknowledged on).
  const ua::connection_limits& limits() const noexcept { return limits_; }
  std::uint32_t channel_id() const noexcept { return config_.channel_id; }
  // The token issued or renewed last. Its predecessors (up to kept_tokens - 1) are still accepted
  // until each expires; responses are secured with sending_token_id().
  const ua::channel_security_token& current_token() const noexcept { return token_; }
  // The token our messages go out with: the one in use before a renewal, until the client sends
  // with a newer one or it expires (Part 4 §5.5.2.1; docs/decisions/0024).
  std::uint32_t sending_token_id() const noexcept { return windows_[send_window_].id; }
  // How many tokens are accepted at once: the current one and two predecessors, so that two
  // renewals without a message in between leave every unexpired token usable.
  static constexpr std::size_t kept_tokens = token_crypto::kept_tokens;
  // The EndpointUrl of the Hello.
  std::string_view endpoint_url() const noexcept { return endpoint_url_.view(); }
  // What the OpenSecureChannel negotiated (None until then).
  const security::security_policy& policy() const noexcept { return *policy_; }
  ua::message_security_mode security_mode() const noexcept { return mode_; }
  // The log line of the last refusal of a security check (the peer only sees
  // Bad_SecurityChecksFailed); empty when there was none.
  std::string_view security_log() const noexcept { return security_log_; }
  // For the server's metrics: tokens renewed, client certificates the trust checks refused.
  std::uint32_t renewals() const noexcept { return renewals_; }
  std::uint32_t certificate_refusals() const noexcept { return certificate_refusals_; }
  // The audited actions since the last call (secure_channel_config::audit), moved into `out` (cleared first).
  void take_audits(std::vector<channel_audit>& out) {
    out.clear();
    std::swap(out, audits_);
  }
  bool has_audits() const noexcept { return !audits_.empty(); }

private:
  struct token_window {
    std::uint32_t id = 0;
    std::chrono::steady_clock::time_point expires{};  // grace included
    bool valid = false;
  };

  event on_hello(const ua::chunk_view& chunk, const instant& now);
  event on_open(const ua::chunk_view& chunk, const instant& now);
  event open_channel(const ua::chunk_view& chunk, const instant& now);
  // The audit records of the OpenSecureChannel just handled (`was` the phase before it).
  void audit_open(phase was);
  // Policy, certificate and signature of an OPN (Part 6 §6.7.2.3, Part 4 §6.1.3); decrypts it.
  // The plaintext after the security header, or the status to close with.
  ua::expected<std::span<const std::uint8_t>> open_security(std::span<const std::uint8_t> chunk, std::size_t at,
                                                            const instant& now);
  // A MSG or CLO chunk after its channel and token checks: verified and decrypted, parsed.
  ua::status_code unprotect_symmetric(const ua::chunk_view& chunk, std::size_t at, ua::secure_chunk& c);
  ua::status_code write_open_response(std::uint32_t request_id);
  event refuse(std::string reason);
  // Signs/encrypts the chunks written to out_ from `from` on (nothing for policy None).
  void protect_output(std::size_t from);
  void forget_channel();
  event on_message(const ua::chunk_view& chunk, const instant& now);
  event on_close_chunk(const ua::chunk_view& chunk, const instant& now);
  event handle_request(std::span<const std::uint8_t> body, std::uint32_t request_id, const instant& now);
  // Channel and token checks of a MSG or CLO chunk; Good or the status to close with.
  ua::status_code check_symmetric(const ua::secure_chunk& c, const instant& now);
  event fail(ua::status_code error, std::string_view reason = {});
  ua::channel_security_token make_token(std::uint32_t requested_lifetime_ms, bool renew, const instant& now);
  // Superseded tokens past their expiry are no longer accepted; when the one we send with is
  // among them, the current token takes over.
  void expire_superseded(std::chrono::steady_clock::time_point now) noexcept;

  secure_channel_config config_;
  phase phase_ = phase::awaiting_hello;
  std::chrono::steady_clock::time_point hello_deadline_;
  ua::status_code close_status_;
  ua::connection_limits limits_;
  ua::message_assembler assembler_{0, 0};
  ua::message_chunker chunker_{ua::connection_limits{}, ua::status::bad_response_too_large};
  ua::sequence_counter sequence_;
  ua::asymmetric_security_header asym_in_;   // of the last OPN
  ua::asymmetric_security_header asym_out_;  // policy None, no certificates
  ua::ua_string endpoint_url_;

  // Security (Part 6 §6.7): fixed by the first OPN.
  const security::security_policy* policy_ = &security::policy_none();
  std::shared_ptr<const own_identity> identity_;  // the server identity of the first OPN (decision 0056)
  ua::message_security_mode mode_ = ua::message_security_mode::none;
  security::certificate peer_certificate_;
  std::vector<security::certificate> peer_issuers_;  // sent after the leaf in the first OPN
  std::optional<security::asymmetric_context> asymmetric_;
  token_crypto tokens_;
  ua::byte_buffer plain_;       // a received chunk, verified and decrypted in place
  ua::byte_buffer open_plain_;  // the OPN response before it is signed and encrypted
  std::string security_log_;
  std::uint32_t renewals_ = 0;
  std::uint32_t certificate_refusals_ = 0;
  std::vector<channel_audit> audits_;
  // Of the OpenSecureChannel at hand, for its audit: the decoded request (null before), a refused
  // client certificate's status.
  const ua::open_secure_channel_request* open_request_ = nullptr;
  ua::status_code refused_certificate_;

  ua::channel_security_token token_;  // current (issued or renewed last)
  ua::byte_string client_nonce_;      // of the last OPN
  ua::byte_string server_nonce_;
  // The accepted tokens, newest first: [0] is the current one, then the ones it superseded. The
  // oldest makes room at a renewal, as in token_crypto (the same three, so every accepted token
  // has its keys).
  std::array<token_window, kept_tokens> windows_{};
  std::size_t send_window_ = 0;  // which of windows_ secures what we send
  std::uint32_t next_token_id_ = 1;

  // Reused between requests: decoded request, its header, encoded response, output.
  ua::extension_object message_;
  ua::request_header header_;
  service_request request_;
  ua::byte_buffer scratch_;
  ua::byte_buffer out_;
  ua::open_secure_channel_response open_response_;
  ua::service_fault fault_;
};

// Whether a DefaultBinary encoding id (namespace 0) is that of a service request that travels in
// MSG chunks (Part 4 §5; OpenSecureChannel and CloseSecureChannel travel in OPN and CLO).
bool is_service_request_encoding(std::uint32_t binary_encoding_id) noexcept;

}  // namespace uactor::actors
