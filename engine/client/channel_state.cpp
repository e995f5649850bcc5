#include "engine/client/channel_state.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "security/ecc.hpp"

namespace uactor::actors {

client_channel_state::client_channel_state(client_channel_config config) : config_(std::move(config)) {
  const auto& sec = config_.security;
  asym_out_.security_policy_uri = ua::ua_string(sec.policy->uri);
  if (!sec.policy->is_none()) {
    if (!sec.own_certificate || !sec.private_key || !sec.server_certificate)
      throw std::invalid_argument("client_channel_config: a secured channel needs both certificates and our key");
    // Part 6 §6.7.2.3: our certificate, and the thumbprint of the server's we encrypt for.
    asym_out_.sender_certificate = to_byte_string(security::chain_der(sec.own_certificate, sec.own_issuers));
    const auto thumbprint = sec.server_certificate.thumbprint();
    asym_out_.receiver_certificate_thumbprint = to_byte_string(thumbprint);
    // Part 6 §6.8: an ECC policy needs EC keys on its curve on both sides (the caller checked the
    // server's certificate: Bad_CertificatePolicyCheckFailed).
    if (!security::key_fits_policy(*sec.policy, sec.private_key) ||
        !security::key_fits_policy(*sec.policy, sec.server_certificate.public_key()))
      throw std::invalid_argument("client_channel_config: a certificate's key does not fit " + std::string(sec.policy->name));
    asymmetric_.emplace(*sec.policy, sec.private_key, sec.server_certificate.public_key());
  }
}

void client_channel_state::write_hello() {
  hello_ = ua::make_hello(config_.limits, config_.endpoint_url);
  ua::write_message(out_, hello_);
  phase_ = phase::awaiting_ack;
}

std::uint32_t client_channel_state::next_request_id() noexcept {
  const std::uint32_t id = next_request_id_++;
  if (next_request_id_ == 0) next_request_id_ = 1;  // 0 is never used: it reads as "none"
  return id;
}

ua::status_code client_channel_state::write_open(const instant& now) {
  const bool renew = phase_ == phase::open;
  if (!renew && phase_ != phase::awaiting_open) return ua::status::bad_invalid_state;
  if (renewing_) return ua::status::good;  // one Renew at a time
  ua::open_secure_channel_request req;
  req.request_header.timestamp = now.utc;
  req.request_header.request_handle = next_handle_++;
  req.request_header.timeout_hint = 10'000;
  req.client_protocol_version = ua::uacp_protocol_version;
  req.request_type = renew ? ua::security_token_request_type::renew : ua::security_token_request_type::issue;
  req.security_mode = config_.security.mode;
  const auto& policy = *config_.security.policy;
  if (policy.is_none()) {
    client_nonce_.set_null();  // no keys to derive
  } else if (policy.is_ecc()) {
    // Part 6 §6.8.1: a new EphemeralKey for every Issue and Renew; its public half is the nonce.
    auto ephemeral = security::make_ephemeral_key(policy);
    if (!ephemeral) return ephemeral.error();
    ephemeral_ = std::move(*ephemeral);
    client_nonce_ = to_byte_string(ephemeral_->public_bytes());
  } else {
    client_nonce_ = random_nonce(policy.nonce_length);
  }
  req.client_nonce = client_nonce_;
  req.requested_lifetime = static_cast<std::uint32_t>(config_.requested_lifetime.count());

  scratch_.clear();
  ua::encoder e(scratch_);
  ua::encode_message(e, req);
  open_request_id_ = next_request_id();
  // Part 6 §6.7.2.2: the SecureChannelId is 0 in the first OPN; a Renew names the channel.
  if (const auto sc = write_open_chunk(renew ? token_.channel_id : 0); sc.is_bad()) return sc;
  renewing_ = renew;
  open_sent_ = now.steady;
  return ua::status::good;
}

ua::status_code client_channel_state::write_open_chunk(std::uint32_t channel_id) {
  const ua::chunk_target target{ua::message_type::open, channel_id, 0, &asym_out_, open_request_id_};
  if (!asymmetric_) {
    if (auto n = chunker_.write(scratch_.bytes(), target, sequence_, out_); !n) return n.error();
    return ua::status::good;
  }
  const ua::message_chunker open_chunker(limits_, ua::status::bad_request_too_large, asymmetric_->send_security());
  open_plain_.clear();
  if (auto n = open_chunker.write(scratch_.bytes(), target, sequence_, open_plain_); !n) return n.error();
  return asymmetric_->protect(open_plain_.bytes(), ua::secure_message_header_size + ua::encoded_size(asym_out_), out_);
}

client_channel_state::event client_channel_state::on_chunk(const ua::chunk_view& chunk, const instant& now) {
  if (phase_ == phase::closed) return event::closed;
  // Part 6 §7.1.2.5: an Error may come at any time; it ends the connection.
  if (chunk.type == ua::message_type::error) return on_error(chunk);
  switch (phase_) {
    case phase::initial:
      return fail(ua::status::bad_tcp_message_type_invalid, "data before the Hello was sent");
    case phase::awaiting_ack:
      if (chunk.type != ua::message_type::acknowledge)
        return fail(ua::status::bad_tcp_message_type_invalid, "expected an Acknowledge");
      return on_ack(chunk);
    case phase::awaiting_open:
      if (chunk.type != ua::message_type::open)
        return fail(ua::status::bad_tcp_message_type_invalid, "expected an OpenSecureChannel response");
      return on_open_response(chunk, now);
    case phase::open:
      if (chunk.type == ua::message_type::message) return on_message(chunk);
      if (chunk.type == ua::message_type::open && renewing_) return on_open_response(chunk, now);
      return fail(ua::status::bad_tcp_message_type_invalid, "unexpected message type");
    case phase::closed:
      break;
  }
  return event::closed;
}

client_channel_state::event client_channel_state::on_ack(const ua::chunk_view& chunk) {
  ua::acknowledge ack;
  if (const auto sc = ua::read_message(chunk.bytes, ack); sc.is_bad()) return fail(sc, "malformed Acknowledge");
  // Part 6 §7.1.2.4: the server revises the sizes down; we send chunks no larger than its
  // ReceiveBufferSize and messages within its MaxMessageSize / MaxChunkCount.
  auto accepted = ua::accept_acknowledge(ack, hello_);
  if (!accepted) return fail(accepted.error(), "Acknowledge outside what the Hello asked for");
  limits_ = *accepted;
  assembler_ = ua::message_assembler(limits_);
  chunker_ = ua::message_chunker(limits_, ua::status::bad_request_too_large);
  phase_ = phase::awaiting_open;
  return event::acknowledged;
}

client_channel_state::event client_channel_state::on_error(const ua::chunk_view& chunk) {
  ua::error_message err;
  const auto sc = ua::read_message(chunk.bytes, err);
  if (sc.is_good()) return fail(err.error.is_bad() ? err.error : ua::status::bad_unexpected_error, err.reason.view());
  if (const auto* fault = service_fault_in_error(chunk)) {
    const auto result = fault->response_header.service_result;
    const auto& strings = fault->response_header.string_table;
    std::string reason = "the OpenSecureChannel was refused with a ServiceFault in an Error message";
    if (!strings.empty()) reason += ": " + std::string(strings[0].view());
    return fail(result.is_bad() ? result : ua::status::bad_unexpected_error, reason);
  }
  return fail(sc, "malformed Error message");
}

// node-opcua 2.163 (ServerSecureChannelLayer #_on_OpenSecureChannelRequestError) refuses an
// OpenSecureChannel with an ERR that is laid out as the OPN response would be, unsigned and
// unencrypted: SecureChannelId, the request's asymmetric security header echoed, a sequence header,
// then a ServiceFault (Part 4 §7.34) instead of Part 6 §7.1.2.5's Error + Reason. Its ServiceResult
// is what the server meant; tests/actors/client/channel_state_test.cpp holds the captured bytes.
const ua::service_fault* client_channel_state::service_fault_in_error(const ua::chunk_view& chunk) {
  if (chunk.bytes.size() < ua::secure_message_header_size) return nullptr;
  ua::decoder d(chunk.bytes.subspan(ua::secure_message_header_size), config_.decode);
  ua::asymmetric_security_header header;
  ua::decode(d, header.security_policy_uri);
  ua::decode(d, header.sender_certificate);
  ua::decode(d, header.receiver_certificate_thumbprint);
  d.read<std::uint32_t>();  // SequenceNumber
  d.read<std::uint32_t>();  // RequestId
  if (!d.ok()) return nullptr;
  const auto body = chunk.bytes.subspan(ua::secure_message_header_size + d.position());
  if (ua::decode_message(body, message_, config_.decode).is_bad()) return nullptr;
  return message_.get_if<ua::service_fault>();
}

client_channel_state::event client_channel_state::on_open_response(const ua::chunk_view& chunk, const instant& now) {
  ua::secure_chunk c;
  const auto at = ua::parse_security_part(chunk.bytes, c, &asym_in_);
  if (!at) return fail(at.error(), "malformed OPN");
  const auto& sec = config_.security;
  if (asym_in_.security_policy_uri.view() != sec.policy->uri)
    return fail(ua::status::bad_security_policy_rejected, "OPN response with another security policy");
  std::span<const std::uint8_t> plaintext = chunk.bytes.subspan(*at);
  if (asymmetric_) {
    // Part 6 §6.7.2.3: from the server whose certificate the endpoint named, for our certificate;
    // the signature checked before anything is decoded.
    // The SenderCertificate may carry the server's issuers after its leaf.
    const auto own = sec.own_certificate.thumbprint();
    std::string why;
    auto chain = security::certificate::chain_from_der(bytes_of(asym_in_.sender_certificate), &why);
    if (!chain) return fail(ua::status::bad_certificate_invalid, "the OPN response's SenderCertificate: " + why);
    if (!(chain->front() == sec.server_certificate) ||
        !std::ranges::equal(bytes_of(asym_in_.receiver_certificate_thumbprint), own))
      return fail(ua::status::bad_security_checks_failed, "OPN response from another certificate or for another one");
    if (phase_ != phase::open && sec.check_server_chain) {
      const auto verdict = sec.check_server_chain(chain->front(), std::span<const security::certificate>(*chain).subspan(1));
      if (!verdict.ok())
        return fail(verdict.status, "the server certificate failed the " + verdict.check + " check with the chain of its "
                                    "OPN response: " + verdict.detail);
    }
    if (asymmetric_->unprotect(chunk.bytes, *at, plain_).is_bad())
      return fail(ua::status::bad_security_checks_failed, "the OPN response's signature does not verify");
    plaintext = plain_.bytes().subspan(*at);
  }
  const auto receive = asymmetric_ ? asymmetric_->receive_security() : ua::chunk_security::none();
  if (const auto sc = ua::parse_sequence_part(plaintext, receive, c); sc.is_bad()) return fail(sc, "malformed OPN");
  auto assembled = assembler_.add(c);
  if (!assembled) return fail(assembled.error(), "OPN sequence");
  if (assembled->what != ua::message_assembler::outcome::complete)
    return fail(ua::status::bad_tcp_message_type_invalid, "OPN in more than one chunk");
  if (assembled->request_id != open_request_id_)
    return fail(ua::status::bad_tcp_message_type_invalid, "OPN response to another request");
  if (const auto sc = ua::decode_message(assembled->body, message_, config_.decode); sc.is_bad())
    return fail(sc, "OPN body");
  if (const auto* fault = message_.get_if<ua::service_fault>())
    return fail(fault->response_header.service_result.is_bad() ? fault->response_header.service_result
                                                                : ua::status::bad_unknown_response,
                "OpenSecureChannel refused");
  const auto* resp = message_.get_if<ua::open_secure_channel_response>();
  if (!resp) return fail(ua::status::bad_unknown_response, "OPN without an OpenSecureChannelResponse");
  if (resp->response_header.service_result.is_bad())
    return fail(resp->response_header.service_result, "OpenSecureChannel refused");
  const bool renew = phase_ == phase::open;
  if (renew && resp->security_token.channel_id != token_.channel_id)
    return fail(ua::status::bad_tcp_secure_channel_unknown, "Renew answered for another channel");
  if (resp->security_token.channel_id == 0) return fail(ua::status::bad_tcp_secure_channel_unknown, "SecureChannelId 0");

  // Part 4 §5.5.2.1: the new token is used from the response on; the server may still answer
  // requests sent under the old one with the old one, so that stays accepted.
  if (renew) {
    previous_token_ids_[1] = previous_token_ids_[0];
    previous_token_ids_[0] = token_.token_id;
  }
  token_ = resp->security_token;
  renewing_ = false;
  if (asymmetric_) {
    if (resp->server_nonce.size() != sec.policy->nonce_length)
      return fail(ua::status::bad_nonce_invalid, "the ServerNonce does not have the policy's length");
    // Part 6 §6.7.5: we send with the keys of (ServerNonce, ClientNonce), check with the others.
    // Part 6 §6.8.1 (ECC): the ServerNonce is the server's EphemeralKey; ECDH with ours, then HKDF.
    security::channel_keys keys;
    if (sec.policy->is_ecc()) {
      if (!ephemeral_) return fail(ua::status::bad_internal_error, "no EphemeralKey for the OPN response");
      auto derived = security::ecc_channel_keys(*sec.policy, *ephemeral_, bytes_of(resp->server_nonce),
                                                bytes_of(client_nonce_), bytes_of(resp->server_nonce));
      ephemeral_.reset();  // used once
      if (!derived)
        return fail(ua::status::bad_security_checks_failed, "the ServerNonce is not an EphemeralKey on the policy's curve");
      keys = *derived;
    } else {
      keys = security::derive_channel_keys(*sec.policy, bytes_of(client_nonce_), bytes_of(resp->server_nonce));
    }
    tokens_.install(token_.token_id, *sec.policy, sec.mode, keys.client, keys.server);
    if (!renew)
      chunker_ = ua::message_chunker(limits_, ua::status::bad_request_too_large, tokens_.sender(token_.token_id)->chunk_security());
  }
  const auto lifetime = std::chrono::milliseconds(token_.revised_lifetime);
  // From when the request left: the server's clock started no earlier than that.
  renew_at_ = open_sent_ + lifetime * config_.renew_at_percent / 100;
  (void)now;
  phase_ = phase::open;
  return renew ? event::renewed : event::opened;
}

bool client_channel_state::token_accepted(const ua::secure_chunk& c) const noexcept {
  if (c.secure_channel_id != token_.channel_id) return false;
  if (c.token_id == token_.token_id) return true;
  for (const auto id : previous_token_ids_)
    if (id != 0 && c.token_id == id) return true;
  return false;
}

client_channel_state::event client_channel_state::on_message(const ua::chunk_view& chunk) {
  ua::secure_chunk c;
  const auto at = ua::parse_security_part(chunk.bytes, c, nullptr);
  if (!at) return fail(at.error(), "malformed MSG");
  // Part 6 §6.7.2.3: a chunk for another channel or under an unknown token ends the channel.
  if (!token_accepted(c)) return fail(ua::status::bad_secure_channel_token_unknown, "unknown channel or token");
  if (const auto sc = unprotect_symmetric(chunk, *at, c); sc.is_bad())
    return fail(sc, sc == ua::status::bad_security_checks_failed ? "a MSG chunk whose signature does not verify"
                                                                 : "malformed MSG");
  auto assembled = assembler_.add(c);
  if (!assembled) return fail(assembled.error(), "MSG chunk refused");
  response_.request_id = assembled->request_id;
  response_.message = nullptr;
  switch (assembled->what) {
    case ua::message_assembler::outcome::incomplete:
      return event::none;
    case ua::message_assembler::outcome::aborted:
      // Part 6 §6.7.3: the server gave up on this response; its error goes to the request.
      response_.status = assembled->abort_error.is_bad() ? assembled->abort_error : ua::status::bad_unexpected_error;
      return event::response;
    case ua::message_assembler::outcome::complete:
      break;
  }
  ua::extension_object* into = storage_ ? storage_->storage_for(assembled->request_id) : nullptr;
  if (!into) into = &message_;
  // A body that does not decode fails its request only: the chunk framing is intact.
  if (const auto sc = ua::decode_message(assembled->body, *into, config_.decode); sc.is_bad()) {
    response_.status = sc == ua::status::bad_service_unsupported ? ua::status::bad_unknown_response : sc;
    return event::response;
  }
  // Part 4 §7.34: every response, a ServiceFault too, begins with its ResponseHeader:
  // Timestamp, then RequestHandle.
  ua::decoder d(assembled->body, config_.decode);
  ua::node_id type_id;
  ua::decode(d, type_id);
  ua::date_time timestamp;
  ua::decode(d, timestamp);
  response_.request_handle = d.read<std::uint32_t>();
  response_.status = ua::status::good;
  response_.message = into;
  return event::response;
}

ua::status_code client_channel_state::unprotect_symmetric(const ua::chunk_view& chunk, std::size_t at,
                                                          ua::secure_chunk& c) {
  if (!asymmetric_) return ua::parse_sequence_part(chunk.bytes.subspan(at), ua::chunk_security::none(), c);
  auto* ctx = tokens_.receiver(c.token_id);
  if (ctx == nullptr) return ua::status::bad_secure_channel_token_unknown;
  plain_.clear();
  plain_.append(chunk.bytes.data(), chunk.bytes.size());
  const std::span<std::uint8_t> mine(plain_.data(), plain_.size());
  if (const auto sc = ctx->unprotect(mine, at, assembler_.sequence().expected()); sc.is_bad()) return sc;
  return ua::parse_sequence_part(plain_.bytes().subspan(at), ctx->chunk_security(), c);
}

void client_channel_state::protect_output(std::size_t from) {
  if (!asymmetric_) return;
  if (auto* ctx = tokens_.sender(token_.token_id)) protect_chunks(*ctx, out_, from);
}

ua::expected<std::uint32_t> client_channel_state::send_request(const ua::extension_body& request) {
  if (phase_ != phase::open) return ua::status::bad_secure_channel_closed;
  scratch_.clear();
  ua::encoder e(scratch_);
  ua::encode_message(e, request);
  return send_encoded();
}

ua::expected<std::uint32_t> client_channel_state::send_encoded() {
  if (phase_ != phase::open) return ua::status::bad_secure_channel_closed;
  const std::uint32_t request_id = next_request_id_;
  const ua::chunk_target target{ua::message_type::message, token_.channel_id, token_.token_id, nullptr, request_id};
  // Refused (Bad_RequestTooLarge) before a byte is written: the channel stays usable.
  const std::size_t from = out_.size();
  if (auto n = chunker_.write(scratch_.bytes(), target, sequence_, out_); !n) return n.error();
  protect_output(from);
  return next_request_id();
}

void client_channel_state::write_close(const instant& now) {
  if (phase_ == phase::open) {
    ua::close_secure_channel_request req;
    req.request_header.timestamp = now.utc;
    req.request_header.request_handle = next_handle_++;
    scratch_.clear();
    ua::encoder e(scratch_);
    ua::encode_message(e, req);
    const ua::chunk_target target{ua::message_type::close, token_.channel_id, token_.token_id, nullptr,
                                  next_request_id()};
    const std::size_t from = out_.size();
    if (chunker_.write(scratch_.bytes(), target, sequence_, out_)) protect_output(from);  // some 60 bytes: fits any chunk
  }
  if (phase_ != phase::closed) {
    phase_ = phase::closed;
    close_status_ = ua::status::good;
  }
}

bool client_channel_state::needs_renewal(std::chrono::steady_clock::time_point now) const noexcept {
  return phase_ == phase::open && !renewing_ && now >= renew_at_;
}

client_channel_state::event client_channel_state::fail(ua::status_code error, std::string_view reason) {
  // The client does not answer with an ERR (Part 6 §7.1.2.5 is the server's); it closes.
  phase_ = phase::closed;
  close_status_ = error;
  close_reason_.assign(reason);
  response_.message = nullptr;
  return event::closed;
}

}  // namespace uactor::actors
