#include "engine/server/secure_channel_state.hpp"

#include <algorithm>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "engine/server/service_table.hpp"
#include "security/ecc.hpp"

namespace uactor::actors {

namespace {

using std::chrono::milliseconds;

// The log line of a refused peer certificate: the check, the status, the certificate, the remedy.
std::string describe_refusal(const security::validation_result& v, const security::certificate& c) {
  return "client certificate refused by the " + v.check + " check (" + std::string(v.status.name()) + "): " +
         v.detail + " [" + c.describe() + "]";
}

}  // namespace

// The service table's rows: every service request a client calls in MSG chunks (Part 4 §5).
bool is_service_request_encoding(std::uint32_t id) noexcept { return find_service(id) != nullptr; }

secure_channel_state::secure_channel_state(const secure_channel_config& config, const instant& created)
    : config_(config), hello_deadline_(created.steady + config.hello_timeout) {
  if (config_.channel_id == 0) throw std::invalid_argument("secure_channel_config: channel_id 0 is reserved");
  if (config_.min_token_lifetime > config_.max_token_lifetime)
    throw std::invalid_argument("secure_channel_config: min_token_lifetime above max_token_lifetime");
  asym_out_.security_policy_uri = ua::ua_string(security_policy_none_uri);
  request_.channel_id = config_.channel_id;
}

secure_channel_state::event secure_channel_state::on_chunk(const ua::chunk_view& chunk, const instant& now) {
  switch (phase_) {
    case phase::closed:
      return event::close;
    case phase::awaiting_hello:
      // Part 6 §7.1.3: a connection starts with Hello.
      if (chunk.type != ua::message_type::hello)
        return fail(ua::status::bad_tcp_message_type_invalid, "the first message must be a Hello");
      return on_hello(chunk, now);
    case phase::awaiting_open:
    case phase::open:
      break;
  }
  switch (chunk.type) {
    case ua::message_type::open: return on_open(chunk, now);
    case ua::message_type::message: return on_message(chunk, now);
    case ua::message_type::close: return on_close_chunk(chunk, now);
    default:  // a second Hello, or what only a server sends
      return fail(ua::status::bad_tcp_message_type_invalid, "unexpected message type");
  }
}

bool secure_channel_state::open_needs_crypto(const ua::chunk_view& chunk) const {
  if (chunk.type != ua::message_type::open || !config_.security) return false;
  if (phase_ == phase::open) return !policy_->is_none();
  if (phase_ != phase::awaiting_open) return false;
  ua::secure_chunk c;
  ua::asymmetric_security_header h;
  if (!ua::parse_security_part(chunk.bytes, c, &h)) return false;  // refused by on_chunk, inline
  const auto* policy = security::find_policy(h.security_policy_uri.view());
  return policy != nullptr && !policy->is_none();
}

secure_channel_state::event secure_channel_state::refuse_open(ua::status_code error, std::string_view reason) {
  const phase was = phase_;
  open_request_ = nullptr;
  refused_certificate_ = ua::status::good;
  const auto e = fail(error, reason);
  audit_open(was);
  return e;
}

secure_channel_state::event secure_channel_state::on_open(const ua::chunk_view& chunk, const instant& now) {
  const phase was = phase_;
  open_request_ = nullptr;
  refused_certificate_ = ua::status::good;
  const event e = open_channel(chunk, now);
  audit_open(was);
  return e;
}

// Part 4 §6.5.5: every Issue is audited, a Renew only when it fails; a refused client certificate
// gets its own AuditCertificate event first (Part 5 §6.4.8+).
void secure_channel_state::audit_open(phase was) {
  if (!config_.audit) return;
  const bool renew = was == phase::open;
  const bool opened = phase_ == phase::open;
  if (renew && opened) return;
  channel_audit a;
  a.channel_id = config_.channel_id;
  a.status = opened ? ua::status::good : close_status_;
  a.request_type = renew ? ua::security_token_request_type::renew : ua::security_token_request_type::issue;
  a.security_policy_uri = std::string(asym_in_.security_policy_uri.view());
  if (!peer_certificate_.der().empty()) {
    a.client_certificate.assign(peer_certificate_.der().data(), peer_certificate_.der().size());
    a.client_certificate_thumbprint = peer_certificate_.thumbprint_hex();
  } else if (!asym_in_.sender_certificate.is_null() && !asym_in_.sender_certificate.empty()) {
    a.client_certificate = asym_in_.sender_certificate;  // it did not parse
  }
  if (open_request_) {
    a.request_type = open_request_->request_type;
    a.security_mode = open_request_->security_mode;
    a.requested_lifetime = open_request_->requested_lifetime;
    a.client_audit_entry_id = open_request_->request_header.audit_entry_id;
  } else if (renew) {
    a.security_mode = mode_;
  }
  if (!opened) a.reason = security_log_.empty() ? std::string(close_status_.name()) : security_log_;
  if (refused_certificate_.is_bad()) {
    channel_audit c = a;
    c.what = channel_audit::kind::certificate;
    c.status = refused_certificate_;
    audits_.push_back(std::move(c));
  }
  audits_.push_back(std::move(a));
}

secure_channel_state::event secure_channel_state::on_hello(const ua::chunk_view& chunk, const instant& now) {
  ua::hello h;
  if (const auto sc = ua::read_message(chunk.bytes, h); sc.is_bad()) return fail(sc, "malformed Hello");
  auto accepted = ua::accept_hello(h, config_.limits);
  if (!accepted) return fail(accepted.error(), "Hello refused");
  limits_ = accepted->limits;
  assembler_ = ua::message_assembler(limits_);
  chunker_ = ua::message_chunker(limits_, ua::status::bad_response_too_large);
  endpoint_url_ = std::move(h.endpoint_url);
  ua::write_message(out_, accepted->ack);
  phase_ = phase::awaiting_open;
  // The same bound for the OpenSecureChannel that follows: an idle peer holds nothing for long.
  hello_deadline_ = now.steady + config_.hello_timeout;
  return event::acknowledged;
}

secure_channel_state::event secure_channel_state::open_channel(const ua::chunk_view& chunk, const instant& now) {
  ua::secure_chunk c;
  const auto at = ua::parse_security_part(chunk.bytes, c, &asym_in_);
  if (!at) return fail(at.error(), "malformed OPN");
  if (phase_ == phase::open && c.secure_channel_id != config_.channel_id)
    return fail(ua::status::bad_tcp_secure_channel_unknown, "OPN for another channel");
  const auto plaintext = open_security(chunk.bytes, *at, now);
  if (!plaintext) return phase_ == phase::closed ? event::close : fail(plaintext.error(), "OPN refused");
  const auto receive = asymmetric_ ? asymmetric_->receive_security() : ua::chunk_security::none();
  if (const auto sc = ua::parse_sequence_part(*plaintext, receive, c); sc.is_bad()) return fail(sc, "malformed OPN");
  auto assembled = assembler_.add(c);
  if (!assembled) return fail(assembled.error(), "OPN sequence");
  if (assembled->what != ua::message_assembler::outcome::complete)
    return fail(ua::status::bad_tcp_message_type_invalid, "OPN in more than one chunk");
  if (const auto sc = ua::decode_message(assembled->body, message_, config_.decode); sc.is_bad())
    return fail(sc == ua::status::bad_service_unsupported ? ua::status::bad_tcp_message_type_invalid : sc,
                "OPN body");
  const auto* req = message_.get_if<ua::open_secure_channel_request>();
  if (!req) return fail(ua::status::bad_tcp_message_type_invalid, "OPN without an OpenSecureChannelRequest");
  open_request_ = req;

  // Part 4 §5.5.2.2: Issue creates the channel, Renew gives an existing one a new token.
  if (req->request_type == ua::security_token_request_type::issue) {
    if (phase_ == phase::open) return fail(ua::status::bad_request_type_invalid, "Issue on an open channel");
  } else if (req->request_type == ua::security_token_request_type::renew) {
    if (phase_ != phase::open) return fail(ua::status::bad_tcp_secure_channel_unknown, "Renew without a channel");
  } else {
    return fail(ua::status::bad_request_type_invalid, "unknown SecurityTokenRequestType");
  }
  const bool renew = phase_ == phase::open;
  // The mode goes with the policy (an endpoint); a renewal keeps it.
  const auto mode = req->security_mode;
  // Part 6 §6.7.4: the mode is one this endpoint offers with the policy.
  if (renew ? mode != mode_ : !(policy_->is_none() ? mode == ua::message_security_mode::none
                                                     : config_.security->is_offered_at(config_.endpoint, *policy_, mode)))
    return fail(ua::status::bad_security_mode_rejected, "MessageSecurityMode not offered with this policy by this endpoint");
  // Part 4 §5.5.2.2: the ClientNonce has the policy's length (None: anything, ignored).
  if (!policy_->is_none() && req->client_nonce.size() != policy_->nonce_length)
    return refuse("the ClientNonce is not " + std::to_string(policy_->nonce_length) + " bytes");
  mode_ = mode;

  const std::uint32_t request_handle = req->request_header.request_handle;
  if (renew) ++renewals_;
  token_ = make_token(req->requested_lifetime, renew, now);
  if (!policy_->is_none()) {
    client_nonce_ = req->client_nonce;
    security::channel_keys keys;
    if (policy_->is_ecc()) {
      // Part 6 §6.8.1: the ClientNonce is the client's EphemeralKey; ours goes back as the
      // ServerNonce, a new one for every Issue and Renew, and ECDH + HKDF give the keys.
      auto ephemeral = security::make_ephemeral_key(*policy_);
      if (!ephemeral) return fail(ua::status::bad_internal_error, "no EphemeralKey");
      auto derived = security::ecc_channel_keys(*policy_, *ephemeral, bytes_of(client_nonce_), bytes_of(client_nonce_),
                                                ephemeral->public_bytes());
      if (!derived)
        return refuse("the ClientNonce is not an EphemeralKey on " + std::string(policy_->curve) + " (" +
                      std::string(derived.error().name()) + ")");
      keys = *derived;
      server_nonce_ = to_byte_string(ephemeral->public_bytes());
    } else {
      server_nonce_ = random_nonce(policy_->nonce_length);
      keys = security::derive_channel_keys(*policy_, bytes_of(client_nonce_), bytes_of(server_nonce_));
    }
    tokens_.install(token_.token_id, *policy_, mode_, keys.server, keys.client);
    if (!renew) {
      chunker_ = ua::message_chunker(limits_, ua::status::bad_response_too_large, tokens_.sender(token_.token_id)->chunk_security());
      config_.security->channels.put(config_.channel_id,
                                     {policy_, mode_, peer_certificate_, config_.endpoint, config_.peer_address, identity_,
                                      peer_issuers_});
    }
  } else if (!renew && config_.security) {
    config_.security->channels.put(config_.channel_id, {&security::policy_none(), ua::message_security_mode::none, {},
                                                        config_.endpoint, config_.peer_address});
  }
  phase_ = phase::open;

  auto& resp = open_response_;
  resp.response_header.timestamp = now.utc;
  resp.response_header.request_handle = request_handle;
  resp.response_header.service_result = ua::status::good;
  resp.server_protocol_version = ua::uacp_protocol_version;
  resp.security_token = token_;
  if (policy_->is_none()) resp.server_nonce.set_null();  // no keys to derive
  else resp.server_nonce = server_nonce_;
  if (const auto sc = write_open_response(assembled->request_id); sc.is_bad())
    return fail(sc, "OPN response does not fit a chunk");
  return event::none;
}

ua::expected<std::span<const std::uint8_t>> secure_channel_state::open_security(std::span<const std::uint8_t> chunk,
                                                                                std::size_t at, const instant& now) {
  const auto uri = asym_in_.security_policy_uri.view();
  if (phase_ == phase::open) {
    // A renewal: the same policy and the same client certificate (Part 6 §6.7.2.3).
    if (uri != policy_->uri) return ua::status::bad_security_policy_rejected;
    // The chain after the leaf may be sent again or not: the leaf decides.
    if (!policy_->is_none()) {
      std::string why;
      auto chain = security::certificate::chain_from_der(bytes_of(asym_in_.sender_certificate), &why);
      if (!chain || !(chain->front() == peer_certificate_)) {
        refuse(chain ? "a renewal with another client certificate"
                     : "the renewal's SenderCertificate does not parse: " + why);
        return ua::status::bad_security_checks_failed;
      }
    }
  } else {
    // Policy None is always accepted for the channel: the discovery services need no security
    // (Part 4 §5.4); the session services refuse it unless this endpoint offers None. Any other
    // policy is one this endpoint offers (another endpoint's does not count: Part 6 §6.7.4).
    const auto* policy = security::find_policy(uri);
    const bool offered = policy != nullptr &&
                         (policy->is_none() || (config_.security && config_.security->is_offered_at(config_.endpoint, *policy)));
    if (!offered) return ua::status::bad_security_policy_rejected;
    policy_ = policy;
  }
  if (policy_->is_none()) return chunk.subspan(at);

  if (phase_ != phase::open) {
    const auto& sec = *config_.security;
    // The policy's certificate: the RSA one of the moment (ApplyChanges may replace it later: this
    // channel keeps this one), or (Part 6 §6.8) the ECC policy's curve's.
    identity_ = sec.identity_for(*policy_);
    if (!identity_) {
      refuse("the server has no certificate for " + std::string(policy_->name));
      return ua::status::bad_security_checks_failed;
    }
    // Part 6 §6.7.2.3: the receiver thumbprint names the server certificate the client encrypted
    // for (with ECC, the one it expects to verify the response with).
    const auto own = identity_->certificate.thumbprint();
    if (!std::ranges::equal(bytes_of(asym_in_.receiver_certificate_thumbprint), own)) {
      refuse("the OPN is encrypted for another certificate (ReceiverCertificateThumbprint is not ours)");
      return ua::status::bad_security_checks_failed;
    }
    // Part 6 §6.7.2.3: the client's certificate, optionally followed by its issuers.
    std::string why;
    auto chain = security::certificate::chain_from_der(bytes_of(asym_in_.sender_certificate), &why);
    if (!chain) {
      refused_certificate_ = ua::status::bad_certificate_invalid;
      refuse("the client certificate does not parse (SenderCertificate, Bad_CertificateInvalid): " + why);
      return ua::status::bad_security_checks_failed;
    }
    peer_certificate_ = chain->front();
    // Part 4 §6.1.3, with the policy's key sizes; the ApplicationUri is the session's to check.
    // The issuers sent after the leaf complete the chain; trust still comes from trusted/.
    security::validation_options o;
    o.min_key_bits = policy_->min_key_bits;
    o.max_key_bits = policy_->max_key_bits;
    const auto issuers = std::span<const security::certificate>(*chain).subspan(1);
    // Part 4 §6.1.3 Security Policy Check: an RSA key for an RSA policy, an EC key on the
    // policy's curve for an ECC one (Part 6 §6.8): a P-384 certificate on ECC_nistP256 is refused.
    if (!security::key_fits_policy(*policy_, peer_certificate_.public_key())) {
      ++certificate_refusals_;
      refused_certificate_ = ua::status::bad_certificate_policy_check_failed;
      refuse("the client certificate's key does not fit " + std::string(policy_->name) +
             " (Bad_CertificatePolicyCheckFailed): " + peer_certificate_.describe());
      return ua::status::bad_security_checks_failed;
    }
    const auto verdict = sec.checker->check(peer_certificate_, issuers, o, now.utc);
    peer_issuers_.assign(issuers.begin(), issuers.end());
    if (!verdict.ok()) {
      ++certificate_refusals_;
      refused_certificate_ = verdict.status;
      refuse(describe_refusal(verdict, peer_certificate_));
      return ua::status::bad_security_checks_failed;
    }
    asymmetric_.emplace(*policy_, identity_->private_key, peer_certificate_.public_key());
    asym_out_.security_policy_uri = ua::ua_string(policy_->uri);
    asym_out_.sender_certificate = to_byte_string(identity_->chain());
    const auto peer = peer_certificate_.thumbprint();
    asym_out_.receiver_certificate_thumbprint = to_byte_string(peer);
  }
  // Part 6 §6.7.2.5: the signature is checked (and the chunk decrypted) before anything is decoded.
  if (const auto sc = asymmetric_->unprotect(chunk, at, plain_); sc.is_bad()) {
    refuse("the OPN's signature does not verify with the client certificate's key, or it does not decrypt");
    return ua::status::bad_security_checks_failed;
  }
  return plain_.bytes().subspan(at);
}

ua::status_code secure_channel_state::write_open_response(std::uint32_t request_id) {
  scratch_.clear();
  ua::encoder e(scratch_);
  ua::encode_message(e, open_response_);
  const ua::chunk_target target{ua::message_type::open, config_.channel_id, 0, &asym_out_, request_id};
  if (!asymmetric_) {
    if (auto n = chunker_.write(scratch_.bytes(), target, sequence_, out_); !n) return n.error();
    return ua::status::good;
  }
  const ua::message_chunker open_chunker(limits_, ua::status::bad_response_too_large, asymmetric_->send_security());
  open_plain_.clear();
  if (auto n = open_chunker.write(scratch_.bytes(), target, sequence_, open_plain_); !n) return n.error();
  return asymmetric_->protect(open_plain_.bytes(), ua::secure_message_header_size + ua::encoded_size(asym_out_), out_);
}

secure_channel_state::event secure_channel_state::recheck_peer(const instant& now) {
  if (phase_ != phase::open || policy_->is_none() || !config_.security) return event::none;
  security::validation_options o;
  o.min_key_bits = policy_->min_key_bits;
  o.max_key_bits = policy_->max_key_bits;
  const auto verdict = config_.security->checker->check(peer_certificate_, peer_issuers_, o, now.utc);
  if (verdict.ok()) return event::none;
  ++certificate_refusals_;
  security_log_ = "closed after the trust list changed: " + describe_refusal(verdict, peer_certificate_);
  spdlog::warn("secure channel {}: {}", config_.channel_id, security_log_);
  return fail(ua::status::bad_security_checks_failed, {});
}

secure_channel_state::event secure_channel_state::refuse(std::string reason) {
  spdlog::warn("secure channel {}: refused: {}", config_.channel_id, reason);
  security_log_ = std::move(reason);
  // Part 4 §6.1.3: no oracle for an attacker; the log has the reason.
  return fail(ua::status::bad_security_checks_failed, {});
}

ua::channel_security_token secure_channel_state::make_token(std::uint32_t requested_lifetime_ms, bool renew,
                                                            const instant& now) {
  const auto max = config_.max_token_lifetime;
  const auto lifetime = requested_lifetime_ms == 0
                            ? max
                            : std::clamp(milliseconds(requested_lifetime_ms), config_.min_token_lifetime, max);
  ua::channel_security_token t;
  t.channel_id = config_.channel_id;
  t.token_id = next_token_id_++;
  if (next_token_id_ == 0) next_token_id_ = 1;
  t.created_at = now.utc;
  t.revised_lifetime = static_cast<std::uint32_t>(lifetime.count());
  const token_window issued{t.token_id, now.steady + lifetime + lifetime * config_.token_grace_percent / 100, true};
  if (!renew) {
    windows_ = {};
    windows_[0] = issued;
    send_window_ = 0;
    return t;
  }
  // A renewal: every kept token moves one place older and the oldest makes room (token_crypto
  // drops the same one). Part 4 §5.5.2.1: "Servers shall use the existing SecurityToken to secure
  // outgoing Messages until the SecurityToken expires or the Server receives a Message secured
  // with a new SecurityToken", so the token we send with stays the same one; only when it was the
  // oldest and made room do we go on with the oldest one kept (the client has it: its OPN response
  // went out before anything we send now).
  for (std::size_t i = kept_tokens - 1; i > 0; --i) windows_[i] = windows_[i - 1];
  windows_[0] = issued;
  send_window_ = std::min(send_window_ + 1, kept_tokens - 1);
  return t;
}

void secure_channel_state::expire_superseded(std::chrono::steady_clock::time_point now) noexcept {
  for (std::size_t i = 1; i < kept_tokens; ++i)
    if (windows_[i].valid && now >= windows_[i].expires) windows_[i].valid = false;
  if (!windows_[send_window_].valid) send_window_ = 0;
}

ua::status_code secure_channel_state::check_symmetric(const ua::secure_chunk& c, const instant& now) {
  // Part 6 §6.7.2.2-3: an unknown SecureChannelId, then an unknown or expired TokenId.
  if (c.secure_channel_id != config_.channel_id) return ua::status::bad_tcp_secure_channel_unknown;
  // Part 6 §6.7.4: the old token is accepted "until that SecurityToken expires or until it
  // receives a Message from the Client secured with the new SecurityToken". We accept every kept
  // token until it expires, also after the client moved on (harmless, and what the earlier
  // behaviour pinned); the current token expiring ends the channel.
  expire_superseded(now.steady);
  for (std::size_t i = 0; i < kept_tokens; ++i) {
    const token_window& w = windows_[i];
    if (!w.valid || w.id != c.token_id) continue;
    if (i == 0 && now.steady >= w.expires) return ua::status::bad_secure_channel_token_unknown;
    // The client uses a newer token than we send with: so do we (never back to an older one).
    if (i < send_window_) send_window_ = i;
    return ua::status::good;
  }
  return ua::status::bad_secure_channel_token_unknown;
}

secure_channel_state::event secure_channel_state::on_message(const ua::chunk_view& chunk, const instant& now) {
  if (phase_ != phase::open) return fail(ua::status::bad_tcp_secure_channel_unknown, "MSG before OpenSecureChannel");
  ua::secure_chunk c;
  const auto at = ua::parse_security_part(chunk.bytes, c, nullptr);
  if (!at) return fail(at.error(), "malformed MSG");
  if (const auto sc = check_symmetric(c, now); sc.is_bad()) return fail(sc, "unknown channel or token");
  if (const auto sc = unprotect_symmetric(chunk, *at, c); sc.is_bad())
    return sc == ua::status::bad_security_checks_failed ? refuse("a MSG chunk whose signature does not verify")
                                                        : fail(sc, "malformed MSG");
  auto assembled = assembler_.add(c);
  if (!assembled) return fail(assembled.error(), "MSG chunk refused");
  switch (assembled->what) {
    case ua::message_assembler::outcome::incomplete:
    case ua::message_assembler::outcome::aborted:  // §6.7.3: the client gave up on the request
      return event::none;
    case ua::message_assembler::outcome::complete:
      break;
  }
  return handle_request(assembled->body, assembled->request_id, now);
}

ua::status_code secure_channel_state::unprotect_symmetric(const ua::chunk_view& chunk, std::size_t at,
                                                          ua::secure_chunk& c) {
  if (policy_->is_none()) return ua::parse_sequence_part(chunk.bytes.subspan(at), ua::chunk_security::none(), c);
  auto* ctx = tokens_.receiver(c.token_id);
  if (ctx == nullptr) return ua::status::bad_secure_channel_token_unknown;
  // Verified and decrypted in a copy: the chunk reader's buffer stays read-only.
  plain_.clear();
  plain_.append(chunk.bytes.data(), chunk.bytes.size());
  const std::span<std::uint8_t> mine(plain_.data(), plain_.size());
  if (const auto sc = ctx->unprotect(mine, at, assembler_.sequence().expected()); sc.is_bad()) return sc;
  return ua::parse_sequence_part(plain_.bytes().subspan(at), ctx->chunk_security(), c);
}

secure_channel_state::event secure_channel_state::handle_request(std::span<const std::uint8_t> body,
                                                                  std::uint32_t request_id, const instant& now) {
  request_.request_id = request_id;
  request_.header = nullptr;
  request_.message = nullptr;
  // The encoding id, then the RequestHeader every service request begins with (Part 4 §7.33):
  // read on their own first, so that a body that fails to decode still gets its ServiceFault.
  ua::decoder d(body, config_.decode);
  ua::node_id type_id;
  ua::decode(d, type_id);
  if (!d.ok()) return fail(d.status(), "MSG body without an encoding id");
  ua::decode(d, header_);
  const bool header_ok = d.ok();
  const std::uint32_t handle = header_ok ? header_.request_handle : 0;
  const bool known = type_id.namespace_index() == 0 && type_id.type() == ua::node_id_type::numeric &&
                     is_service_request_encoding(type_id.numeric());
  if (!known) {
    send_service_fault(request_id, handle, ua::status::bad_service_unsupported, now.utc);
    return event::none;
  }
  if (const auto sc = ua::decode_message(body, message_, config_.decode); sc.is_bad()) {
    if (!header_ok) return fail(sc, "undecodable request");
    send_service_fault(request_id, handle, sc, now.utc);
    return event::none;
  }
  request_.header = &header_;
  request_.message = &message_;
  return event::request;
}

secure_channel_state::event secure_channel_state::on_close_chunk(const ua::chunk_view& chunk, const instant& now) {
  if (phase_ != phase::open) return fail(ua::status::bad_tcp_secure_channel_unknown, "CLO before OpenSecureChannel");
  ua::secure_chunk c;
  const auto at = ua::parse_security_part(chunk.bytes, c, nullptr);
  if (!at) return fail(at.error(), "malformed CLO");
  if (const auto sc = check_symmetric(c, now); sc.is_bad()) return fail(sc, "unknown channel or token");
  if (const auto sc = unprotect_symmetric(chunk, *at, c); sc.is_bad())
    return sc == ua::status::bad_security_checks_failed ? refuse("a CLO chunk whose signature does not verify")
                                                        : fail(sc, "malformed CLO");
  if (auto assembled = assembler_.add(c); !assembled) return fail(assembled.error(), "CLO sequence");
  // Part 6 §7.1.4: no response; the server releases the channel and closes the connection.
  phase_ = phase::closed;
  close_status_ = ua::status::good;
  forget_channel();
  if (config_.audit) {  // Part 4 §6.5.5: AuditChannelEventType
    channel_audit a;
    a.what = channel_audit::kind::close;
    a.channel_id = config_.channel_id;
    a.status = ua::status::good;
    a.security_policy_uri = std::string(policy_->uri);
    a.security_mode = mode_;
    audits_.push_back(std::move(a));
  }
  return event::close;
}

secure_channel_state::event secure_channel_state::on_tick(const instant& now) {
  switch (phase_) {
    case phase::closed:
      return event::none;
    case phase::awaiting_hello:
    case phase::awaiting_open:
      if (now.steady >= hello_deadline_)
        return fail(ua::status::bad_timeout, phase_ == phase::awaiting_hello ? "no Hello in time" : "no OpenSecureChannel in time");
      return event::none;
    case phase::open:
      expire_superseded(now.steady);
      if (token_expired(now.steady))
        return fail(ua::status::bad_secure_channel_token_unknown, "the security token expired without a renewal");
      return event::none;
  }
  return event::none;
}

void secure_channel_state::forget_channel() {
  if (config_.security) config_.security->channels.erase(config_.channel_id);
}

secure_channel_state::~secure_channel_state() { forget_channel(); }

bool secure_channel_state::hello_overdue(std::chrono::steady_clock::time_point now) const noexcept {
  return phase_ == phase::awaiting_hello && now >= hello_deadline_;
}

void secure_channel_state::restart_hello_timeout(std::chrono::steady_clock::time_point now) noexcept {
  if (phase_ == phase::awaiting_hello) hello_deadline_ = now + config_.hello_timeout;
}

bool secure_channel_state::token_expired(std::chrono::steady_clock::time_point now) const noexcept {
  return phase_ == phase::open && now >= windows_[0].expires;
}

secure_channel_state::event secure_channel_state::fail(ua::status_code error, std::string_view reason) {
  // Part 6 §7.1.5: a fatal error is reported in an Error message, then the connection closes.
  ua::error_message err;
  err.error = error;
  if (!reason.empty()) err.reason = ua::ua_string(reason);
  ua::write_message(out_, err);
  phase_ = phase::closed;
  close_status_ = error;
  forget_channel();
  request_.header = nullptr;
  request_.message = nullptr;
  return event::close;
}

ua::status_code secure_channel_state::send_response(std::uint32_t request_id, const ua::extension_body& response) {
  if (phase_ != phase::open) return ua::status::bad_secure_channel_closed;
  scratch_.clear();
  ua::encoder e(scratch_);
  ua::encode_message(e, response);
  return send_encoded(request_id, scratch_.bytes());
}

ua::status_code secure_channel_state::send_encoded(std::uint32_t request_id, std::span<const std::uint8_t> message) {
  if (phase_ != phase::open) return ua::status::bad_secure_channel_closed;
  const ua::chunk_target target{ua::message_type::message, config_.channel_id, sending_token_id(), nullptr, request_id};
  const std::size_t from = out_.size();
  const auto n = chunker_.write(message, target, sequence_, out_);
  if (n) {
    protect_output(from);
    return ua::status::good;
  }
  // Part 6 §7.1.2.3: over the client's MaxMessageSize (or MaxChunkCount) the answer is a
  // ServiceFault Bad_ResponseTooLarge. Handle and timestamp are read back from the encoded
  // ResponseHeader, which every response begins with (Part 4 §7.34).
  ua::decoder d(message);
  ua::node_id type_id;
  ua::decode(d, type_id);
  ua::date_time timestamp;
  ua::decode(d, timestamp);
  const auto handle = d.read<std::uint32_t>();
  const ua::status_code error = n.error();
  send_service_fault(request_id, d.ok() ? handle : 0, error, timestamp);
  return error;
}

void secure_channel_state::send_service_fault(std::uint32_t request_id, std::uint32_t request_handle,
                                              ua::status_code result, ua::date_time timestamp) {
  if (phase_ != phase::open) return;
  auto& header = fault_.response_header;
  header.timestamp = timestamp;
  header.request_handle = request_handle;
  header.service_result = result;
  scratch_.clear();
  ua::encoder e(scratch_);
  ua::encode_message(e, fault_);
  const ua::chunk_target target{ua::message_type::message, config_.channel_id, sending_token_id(), nullptr, request_id};
  // A ServiceFault is some 30 bytes: it fits any chunk a Hello can negotiate.
  const std::size_t from = out_.size();
  if (chunker_.write(scratch_.bytes(), target, sequence_, out_)) protect_output(from);
}

void secure_channel_state::protect_output(std::size_t from) {
  if (policy_->is_none()) return;
  if (auto* ctx = tokens_.sender(sending_token_id())) protect_chunks(*ctx, out_, from);
}

}  // namespace uactor::actors
