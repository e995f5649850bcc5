// libFuzzer target for the secured chunk path of the server (actors/server/secure_channel_state,
// security/symmetric; Part 6 §6.7.2): a channel opened by a real OpenSecureChannel of the fixed
// test client (channel_fixture.hpp) for Basic256Sha256, Aes128_Sha256_RsaOaep, ECC_nistP256 or
// ECC_nistP384 (the ECC lane: EphemeralKeys as nonces, ECDSA, HKDF keys, HMAC-SHA384 for P-384;
// Part 6 §6.8), ECC_curve25519 or ECC_curve448 (the AEAD lane: X25519/X448, EdDSA,
// ChaCha20-Poly1305; docs/decisions/0082), Sign or SignAndEncrypt as the first input byte modulo
// 12 says (0-7: bits 0-2 as before, 8-11: the AEAD lane), whose keys the target derives from the
// nonces as the client does. The rest of the input is records (channel_fixture.hpp, secured_kind): request
// bodies, raw plaintexts (sequence header, padding and all) and CLO bodies signed and encrypted
// with the client's keys, so that decryption, padding and signature checks pass and what follows
// sees hostile but authentic input, or with a flipped bit after signing, or not signed at all, so
// that the refusals run. Requests are answered; every MSG chunk the server sends must verify and
// decrypt with the client's keys. Never a crash, an over-read, a leak.
//
// Each input opens its own channel (two RSA decryptions and a signature on each side, about 2 ms):
// the server chooses a random ServerNonce, so no channel can be reused without making the runs
// depend on each other.
#include <cstdint>
#include <cstdio>
#include <string>
#include <cstdlib>
#include <optional>

#include "engine/common/channel_crypto.hpp"
#include "engine/server/secure_channel_state.hpp"
#include "protocol/message_chunker.hpp"
#include "protocol/secure_chunk.hpp"
#include "security/asymmetric.hpp"
#include "security/ecc.hpp"
#include "tests/fuzz/channel_fixture.hpp"

using namespace uactor;
using actors::secure_channel_state;
using event = secure_channel_state::event;

namespace {

constexpr std::uint32_t channel_id = 7;

// The client's side of one policy and mode, made once: its Hello and OPN (a fixed ClientNonce),
// its asymmetric context to read the OPN response.
struct client_side {
  const security::security_policy* policy;
  ua::message_security_mode mode;
  ua::hello hello;
  ua::byte_buffer hello_and_open;
  ua::byte_string client_nonce;
  std::optional<security::ephemeral_key> ephemeral;  // ECC: the private half of client_nonce
  std::optional<security::asymmetric_context> asymmetric;
  ua::sequence_counter sequence;  // after the OPN: MSG chunks go on from here
};

ua::transport_limits client_limits() {
  ua::transport_limits l;
  l.receive_buffer_size = 8192;  // small chunks: a message of a few KiB is several chunks
  l.send_buffer_size = 8192;
  return l;
}

constexpr unsigned side_count = 12;

client_side make_client_side(unsigned which) {
  client_side c;
  const bool aead = which >= 8;
  const bool ecc = aead || (which & 4u) != 0;
  c.policy = ecc ? &fuzz::fuzz_ecc_policy((aead ? 2u : 0u) + (which & 1u)) : &fuzz::fuzz_policy(which & 1u);
  c.mode = (which & 2u) ? ua::message_security_mode::sign_and_encrypt : ua::message_security_mode::sign;
  const auto& me = ecc ? fuzz::ecc_identity("client", *c.policy) : fuzz::fixed_identity("client");
  const auto& server = ecc ? fuzz::ecc_identity("server", *c.policy) : fuzz::fixed_identity("server");
  c.hello = ua::make_hello(client_limits(), "opc.tcp://localhost:4840");
  ua::write_message(c.hello_and_open, c.hello);

  ua::open_secure_channel_request req;
  req.request_header.timestamp = fuzz::fixed_now().utc;
  req.request_header.request_handle = 1;
  req.client_protocol_version = ua::uacp_protocol_version;
  req.request_type = ua::security_token_request_type::issue;
  req.security_mode = c.mode;
  if (ecc) {
    auto e = security::make_ephemeral_key(*c.policy);
    if (!e) std::abort();
    c.ephemeral = std::move(*e);
    c.client_nonce = actors::to_byte_string(c.ephemeral->public_bytes());
  } else {
    std::uint8_t nonce[64];
    for (std::size_t i = 0; i < c.policy->nonce_length; ++i) nonce[i] = static_cast<std::uint8_t>(0x11 * (i + 1));
    c.client_nonce = actors::to_byte_string({nonce, c.policy->nonce_length});
  }
  req.client_nonce = c.client_nonce;
  req.requested_lifetime = 3'600'000;
  ua::byte_buffer body;
  ua::encoder e(body);
  ua::encode_message(e, req);

  ua::asymmetric_security_header asym;
  asym.security_policy_uri = ua::ua_string(c.policy->uri);
  asym.sender_certificate = actors::to_byte_string(me.cert.der());
  const auto thumbprint = server.cert.thumbprint();
  asym.receiver_certificate_thumbprint = actors::to_byte_string(thumbprint);
  c.asymmetric.emplace(*c.policy, me.key, server.cert.public_key());
  // The OPN goes in one chunk of the server's ReceiveBufferSize: what the Hello asked for.
  ua::connection_limits limits;
  limits.send_buffer_size = client_limits().send_buffer_size;
  const ua::message_chunker open_chunker(limits, ua::status::bad_request_too_large, c.asymmetric->send_security());
  ua::byte_buffer plain;
  const ua::chunk_target target{ua::message_type::open, 0, 0, &asym, 1};
  if (!open_chunker.write(body.bytes(), target, c.sequence, plain)) std::abort();
  if (c.asymmetric->protect(plain.bytes(), ua::secure_message_header_size + ua::encoded_size(asym), c.hello_and_open).is_bad())
    std::abort();
  return c;
}

// The client's view of the open channel: the negotiated limits and its keys.
struct open_channel {
  ua::connection_limits limits;
  std::uint32_t token_id = 0;
  actors::token_crypto tokens;
  ua::sequence_checker server_sequence;  // the AEAD nonce of the server's encrypted chunks
};

// Reads the server's ACK and OPN response as the client would; false when they are not what a
// correct server sends for a correct OPN (a bug).
bool read_open_response(client_side& c, std::span<const std::uint8_t> out, open_channel& ch) {
  ua::transport_limits any;
  ua::chunk_reader r(any);
  bool ok = true;
  int seen = 0;
  const auto used = r.put(out, [&](const ua::chunk_view& v) {
    ++seen;
    if (v.type == ua::message_type::acknowledge) {
      ua::acknowledge ack;
      if (ua::read_message(v.bytes, ack).is_bad()) {
        ok = false;
        return;
      }
      auto limits = ua::accept_acknowledge(ack, c.hello);
      if (!limits) ok = false;
      else ch.limits = *limits;
      return;
    }
    ua::secure_chunk sc;
    ua::asymmetric_security_header asym;
    const auto at = ua::parse_security_part(v.bytes, sc, &asym);
    ua::byte_buffer plain;
    ua::extension_object msg;
    if (v.type != ua::message_type::open || !at || c.asymmetric->unprotect(v.bytes, *at, plain).is_bad() ||
        ua::parse_sequence_part(plain.bytes().subspan(*at), c.asymmetric->receive_security(), sc).is_bad() ||
        ua::decode_message(sc.body, msg).is_bad()) {
      ok = false;
      return;
    }
    const auto* resp = msg.get_if<ua::open_secure_channel_response>();
    if (!resp || resp->server_nonce.size() != c.policy->nonce_length ||
        ch.server_sequence.check(sc.sequence.sequence_number).is_bad()) {
      ok = false;
      return;
    }
    ch.token_id = resp->security_token.token_id;
    security::channel_keys keys;
    if (c.ephemeral) {
      auto derived = security::ecc_channel_keys(*c.policy, *c.ephemeral, actors::bytes_of(resp->server_nonce),
                                                actors::bytes_of(c.client_nonce), actors::bytes_of(resp->server_nonce));
      if (!derived) {
        ok = false;
        return;
      }
      keys = *derived;
    } else {
      keys = security::derive_channel_keys(*c.policy, actors::bytes_of(c.client_nonce), actors::bytes_of(resp->server_nonce));
    }
    ch.tokens.install(ch.token_id, *c.policy, c.mode, keys.client, keys.server);
  });
  return ok && used && seen == 2 && ch.token_id != 0;
}

// Every MSG chunk the server wrote verifies and decrypts with the client's keys.
bool server_output_authentic(std::span<const std::uint8_t> out, open_channel& ch) {
  ua::transport_limits any;
  any.receive_buffer_size = 1u << 24;
  ua::chunk_reader r(any);
  bool ok = true;
  ua::byte_buffer copy;
  const auto used = r.put(out, [&](const ua::chunk_view& v) {
    if (v.type != ua::message_type::message) return;  // an ERR before closing
    ua::secure_chunk sc;
    const auto at = ua::parse_security_part(v.bytes, sc, nullptr);
    auto* ctx = at ? ch.tokens.receiver(sc.token_id) : nullptr;
    copy.clear();
    copy.append(v.bytes.data(), v.bytes.size());
    if (ctx == nullptr || ctx->unprotect({copy.data(), copy.size()}, *at, ch.server_sequence.expected()).is_bad() ||
        ua::parse_sequence_part(copy.bytes().subspan(*at), ctx->chunk_security(), sc).is_bad() ||
        ch.server_sequence.check(sc.sequence.sequence_number).is_bad())
      ok = false;
  });
  return ok && used && *used == out.size();
}

// One record's chunks, as the client (or a forger) would put them on the wire.
void build_chunks(std::uint8_t op, std::span<const std::uint8_t> payload, std::uint16_t flip, const client_side& c,
                  ua::sequence_counter& sequence, open_channel& ch, std::uint32_t& request_id, ua::byte_buffer& wire) {
  const auto kind = static_cast<fuzz::secured_kind>(op & 3u);
  const std::uint32_t token = (op & fuzz::foreign_token_bit) ? ch.token_id + 1 : ch.token_id;
  const std::uint32_t channel = (op & fuzz::foreign_channel_bit) ? channel_id + 1 : channel_id;
  auto& sender = *ch.tokens.sender(ch.token_id);
  const std::size_t from = wire.size();
  switch (kind) {
    case fuzz::secured_kind::message_body:
    case fuzz::secured_kind::close_body: {
      const auto type = kind == fuzz::secured_kind::close_body ? ua::message_type::close : ua::message_type::message;
      const ua::message_chunker chunker(ch.limits, ua::status::bad_request_too_large, sender.chunk_security());
      const ua::chunk_target target{type, channel, token, nullptr, request_id++};
      if (!chunker.write(payload, target, sequence, wire)) return;  // too large for the channel: nothing sent
      actors::protect_chunks(sender, wire, from);
      break;
    }
    case fuzz::secured_kind::raw_plaintext:
    case fuzz::secured_kind::raw_unsigned: {
      static constexpr char chunk_types[] = {'F', 'C', 'A', 'F'};
      const bool sign = kind == fuzz::secured_kind::raw_plaintext;
      std::size_t text = payload.size();
      std::size_t trailer = 0;
      if (sign) {
        // The layout protect() takes: room for the sequence header, whole blocks when encrypting.
        trailer = c.policy->symmetric_signature_length;
        if (text < ua::sequence_header_size) text = ua::sequence_header_size;
        if (sender.encrypts() && !c.policy->is_aead())  // AEAD: no padding, no blocks
          text += (c.policy->block_size - (text + trailer) % c.policy->block_size) % c.policy->block_size;
      }
      const std::size_t size = actors::symmetric_header_size + text + trailer;
      std::uint8_t head[actors::symmetric_header_size];
      head[0] = 'M';
      head[1] = 'S';
      head[2] = 'G';
      head[3] = static_cast<std::uint8_t>(chunk_types[(op >> 3) & 3u]);
      for (int i = 0; i < 4; ++i) {
        head[4 + i] = static_cast<std::uint8_t>(size >> (8 * i));
        head[8 + i] = static_cast<std::uint8_t>(channel >> (8 * i));
        head[12 + i] = static_cast<std::uint8_t>(token >> (8 * i));
      }
      wire.append(head, sizeof head);
      wire.append(payload.data(), payload.size());
      static const std::uint8_t zeros[64] = {};
      for (std::size_t left = size - (sizeof head + payload.size()); left > 0;) {
        const std::size_t n = left < sizeof zeros ? left : sizeof zeros;
        wire.append(zeros, n);
        left -= n;
      }
      if (sign) sender.protect({wire.data() + from, size}, actors::symmetric_header_size);
      // The payload brings its own SequenceNumber: the seeds give it the next one, so the
      // chunker's chunks after it go on from there.
      (void)sequence.next();
      break;
    }
  }
  if ((op & fuzz::flip_bit) && wire.size() > from) {
    const std::size_t at = from + (flip & 0x1FFFu) % (wire.size() - from);
    wire.data()[at] ^= static_cast<std::uint8_t>(1u << (flip >> 13));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const bool trace = fuzz::trace();
  static const auto security = fuzz::make_server_security();
  static client_side sides[side_count] = {make_client_side(0), make_client_side(1), make_client_side(2),
                                          make_client_side(3), make_client_side(4), make_client_side(5),
                                          make_client_side(6), make_client_side(7), make_client_side(8),
                                          make_client_side(9), make_client_side(10), make_client_side(11)};
  client_side& c = sides[data[0] % side_count];
  ua::sequence_counter sequence = c.sequence;  // each input's channel counts from after its OPN
  actors::secure_channel_config config;
  config.channel_id = channel_id;
  config.security = security;
  const auto now = fuzz::fixed_now();
  secure_channel_state state(config, now);
  ua::chunk_reader reader(config.limits);

  // The handshake: a correct Hello and OPN must open the channel.
  const auto handshake = reader.put(c.hello_and_open.bytes(), [&](const ua::chunk_view& v) {
    if (state.on_chunk(v, now) == event::acknowledged) reader.set_receive_buffer_size(state.limits().receive_buffer_size);
  });
  open_channel ch;
  if (!handshake || state.current_phase() != secure_channel_state::phase::open ||
      !read_open_response(c, state.output().bytes(), ch))
    std::abort();
  state.clear_output();

  ua::read_response read;
  read.results.resize(1);
  read.results[0].value = ua::variant(std::int32_t{43});
  read.results[0].has_value = true;
  std::uint32_t request_id = 2;
  ua::byte_buffer wire, carry;  // carry: the bytes the reader left (a header not yet whole)
  std::span<const std::uint8_t> in(data + 1, size - 1);
  while (in.size() >= 5 && !state.closed()) {
    const std::uint8_t op = in[0];
    const std::size_t len = std::min<std::size_t>(in[1] | std::size_t{in[2]} << 8, in.size() - 5);
    const auto flip = static_cast<std::uint16_t>(in[3] | in[4] << 8);
    const auto payload = in.subspan(5, len);
    in = in.subspan(5 + len);
    wire.clear();
    wire.append(carry.data(), carry.size());
    build_chunks(op, payload, flip, c, sequence, ch, request_id, wire);
    const auto used = reader.put(wire.bytes(), [&](const ua::chunk_view& v) -> ua::status_code {
      const auto ev = state.on_chunk(v, now);
      if (trace)
        std::fprintf(stderr, "record op %u: chunk %c%c%c%c (%zu bytes): event %d, status %s\n", op, v.bytes[0], v.bytes[1],
                     v.bytes[2], v.bytes[3], v.bytes.size(), static_cast<int>(ev),
                     std::string(state.close_status().name()).c_str());
      if (ev == event::request) {
        const auto& r = state.request();
        if (r.header == nullptr || r.message == nullptr) std::abort();
        if (r.header->request_handle % 2 == 0) {
          read.response_header.request_handle = r.header->request_handle;
          (void)state.send_response(r.request_id, read);
        } else {
          state.send_service_fault(r.request_id, r.header->request_handle, ua::status::bad_nothing_to_do, now.utc);
        }
      }
      if (ev == event::close && !state.closed()) std::abort();
      if (!server_output_authentic(state.output().bytes(), ch)) std::abort();
      state.clear_output();
      return ev == event::close ? ua::status::bad_secure_channel_closed : ua::status::good;
    });
    if (!used) break;  // a framing error: the connection closes
    carry.clear();
    carry.append(wire.data() + *used, wire.size() - *used);
  }
  return 0;
}
