// What the channel fuzz targets (server_channel_fuzz, secured_chunk_fuzz, client_channel_fuzz)
// and their seed maker (channel_seeds) share: the fixed test identities in tests/fuzz/channel_keys
// (fixed, so that a committed OPN seed stays encrypted for the server's key and signed with the
// client's), the server's security (Basic256Sha256, Aes128_Sha256_RsaOaep, ECC_nistP256 and
// ECC_nistP384, Sign and SignAndEncrypt, trusting the client's certificates only), and the delivery of a byte stream in
// socket-read-sized pieces through a chunk_reader, as the connection actors do.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "engine/common/clock.hpp"
#include "engine/server/server_security.hpp"
#include "protocol/byte_buffer.hpp"
#include "protocol/chunk_reader.hpp"
#include "security/certificate.hpp"
#include "security/keys.hpp"
#include "security/policy.hpp"

#include <spdlog/spdlog.h>

#ifndef UACTOR_FUZZ_KEYS_DIR
#error "UACTOR_FUZZ_KEYS_DIR: tests/fuzz/channel_keys, set by tests/fuzz/CMakeLists.txt"
#endif

namespace uactor::fuzz {

// UACTOR_FUZZ_TRACE=1: the states' log lines (refusals) and the target's events on stderr, to see
// what an input does; otherwise quiet (a refusal a run would flood the log and slow the run).
inline bool trace() {
  static const bool on = [] {
    const char* v = std::getenv("UACTOR_FUZZ_TRACE");
    const bool t = v != nullptr && *v != '\0' && *v != '0';
    spdlog::set_level(t ? spdlog::level::debug : spdlog::level::off);
    return t;
  }();
  return on;
}

// A fixed moment: the targets do not read the clock, so an input behaves the same on every run.
inline actors::instant fixed_now() {
  return {std::chrono::steady_clock::time_point{} + std::chrono::seconds(1), ua::date_time::from_unix_ms(1'767'225'600'000)};
}

struct identity {
  security::certificate cert;
  security::rsa_key key;
};

inline std::string read_whole(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// "server" or "client": NAME_cert.der and NAME_key.pem in tests/fuzz/channel_keys (made once by
// channel_seeds --keys; test keys, nothing trusts them outside these targets).
inline const identity& fixed_identity(const std::string& name) {
  static identity server, client;
  identity& id = name == "server" ? server : client;
  if (!id.cert) {
    const std::filesystem::path dir = UACTOR_FUZZ_KEYS_DIR;
    const auto der = read_whole(dir / (name + "_cert.der"));
    auto cert = security::certificate::from_der({reinterpret_cast<const std::uint8_t*>(der.data()), der.size()});
    auto key = security::rsa_key::from_private_pem(read_whole(dir / (name + "_key.pem")));
    if (!cert || !key) std::abort();  // the keys are part of the target: missing means a broken checkout
    id.cert = *cert;
    id.key = *key;
  }
  return id;
}

// The ECC identities ("server" or "client") on the curve of an ECC policy (Part 6 §6.8), made once
// per process: no committed seed carries an ECC OPN (its EphemeralKey and the server's make every
// handshake differ anyway), so they need not be fixed.
inline const identity& ecc_identity(const std::string& name, const security::security_policy& policy) {
  static std::map<std::string, identity> made;
  const std::string key = name + "/" + std::string(policy.curve);
  auto it = made.find(key);
  if (it != made.end()) return it->second;
  security::certificate_request r;
  r.application_uri = "urn:uactor:fuzz:" + name;
  r.host_names = {"localhost"};
  r.curve = std::string(policy.curve);
  auto id = security::create_self_signed(r, ua::date_time::from_unix_ms(1'767'225'600'000));
  if (!id) std::abort();
  return made.emplace(key, identity{id->cert, id->private_key}).first->second;
}

// The ECC policies a secured fuzz channel may negotiate besides the RSA ones: ECC_nistP256,
// ECC_nistP384, and the AEAD lane ECC_curve25519, ECC_curve448 (docs/decisions/0082).
inline constexpr unsigned fuzz_ecc_policy_count = 4;
inline const security::security_policy& fuzz_ecc_policy(unsigned which) {
  static constexpr std::string_view uris[fuzz_ecc_policy_count] = {
      security::policy_uri_ecc_nistp256, security::policy_uri_ecc_nistp384, security::policy_uri_ecc_curve25519,
      security::policy_uri_ecc_curve448};
  return *security::find_policy(uris[which % fuzz_ecc_policy_count]);
}

// Trusts the fixed client certificate (and the ECC client ones) only, with the policy's key sizes,
// as the PKI store would.
struct fixed_checker final : actors::certificate_checker {
  using actors::certificate_checker::check;
  security::validation_result check(const security::certificate& peer, std::span<const security::certificate>,
                                    const security::validation_options& o, ua::date_time) override {
    if (peer.key_bits() < o.min_key_bits || peer.key_bits() > o.max_key_bits)
      return {ua::status::bad_certificate_policy_check_failed, "key size", "outside the policy's"};
    bool ecc_client = false;
    for (unsigned p = 0; p < fuzz_ecc_policy_count; ++p) ecc_client |= peer == ecc_identity("client", fuzz_ecc_policy(p)).cert;
    if (!(peer == fixed_identity("client").cert) && !ecc_client)
      return {ua::status::bad_certificate_untrusted, "trust list", "not trusted"};
    return {ua::status::good, {}, {}};
  }
};

// The policies a secured fuzz channel may negotiate; input bits choose one.
inline const security::security_policy& fuzz_policy(unsigned which) {
  return *security::find_policy(which % 2 == 0 ? security::policy_uri_basic256sha256
                                               : security::policy_uri_aes128_sha256_rsaoaep);
}

inline std::shared_ptr<actors::server_security> make_server_security() {
  auto s = std::make_shared<actors::server_security>();
  for (unsigned p = 0; p < 2; ++p)
    for (const auto mode : {ua::message_security_mode::sign, ua::message_security_mode::sign_and_encrypt})
      s->offers.push_back({&fuzz_policy(p), mode});
  for (unsigned p = 0; p < fuzz_ecc_policy_count; ++p) {
    const auto& policy = fuzz_ecc_policy(p);
    for (const auto mode : {ua::message_security_mode::sign, ua::message_security_mode::sign_and_encrypt})
      s->offers.push_back({&policy, mode});
    const auto& id = ecc_identity("server", policy);
    s->ecc_identities.push_back({std::string(policy.curve), id.cert, {}, id.key});
  }
  s->certificate = fixed_identity("server").cert;
  s->private_key = fixed_identity("server").key;
  s->checker = std::make_shared<fixed_checker>();
  return s;
}

// The size of the n-th socket read for split byte `split`: 0 delivers everything at once, 1..15
// reads that cut through chunk headers, above that reads of split * 16 bytes.
inline std::size_t read_size(std::uint8_t split, std::size_t left) {
  if (split == 0) return left;
  const std::size_t n = split < 16 ? split : std::size_t{split} * 16;
  return n < left ? n : left;
}

// Delivers `stream` in reads of read_size(split) through `reader` as the connection actors do:
// bytes the reader did not use (a header not yet whole) are passed again before the next read.
// on_chunk(const chunk_view&) returns false to stop (the connection closes). Returns false when
// the reader refused the framing or on_chunk stopped.
template <class OnChunk>
bool deliver(ua::chunk_reader& reader, std::span<const std::uint8_t> stream, std::uint8_t split, OnChunk&& on_chunk) {
  ua::byte_buffer carry;
  bool stopped = false;
  while (!stream.empty() && !stopped) {
    const std::size_t n = read_size(split, stream.size());
    carry.append(stream.data(), n);
    stream = stream.subspan(n);
    const auto in = carry.bytes();
    const auto used = reader.put(in, [&](const ua::chunk_view& v) -> ua::status_code {
      if (on_chunk(v)) return ua::status::good;
      stopped = true;
      return ua::status::bad_secure_channel_closed;
    });
    if (!used) return false;
    ua::byte_buffer rest;
    rest.append(in.data() + *used, in.size() - *used);
    carry = std::move(rest);
  }
  return !stopped;
}

// What a peer receives: `out` must frame into whole chunks (a state writes nothing else).
inline bool frames_cleanly(std::span<const std::uint8_t> out) {
  ua::transport_limits any;
  any.receive_buffer_size = 1u << 24;
  ua::chunk_reader r(any);
  const auto used = r.put(out, [](const ua::chunk_view&) {});
  return used && *used == out.size() && !r.holds_partial_chunk();
}

}  // namespace uactor::fuzz

namespace uactor::fuzz {

// secured_chunk_fuzz's input after its first byte (policy and mode): records of
//   op (1 byte), payload length (2, little endian), flip (2, little endian), payload.
// op bits 0-1: what the payload is (secured_kind); bit 2: after protection, flip bit (flip >> 13)
// of byte (flip & 0x1FFF) % chunk size; bits 3-4: the chunk type of a raw chunk (F, C, A, F);
// bit 5: a TokenId that is not the channel's; bit 6: a SecureChannelId that is not the channel's.
enum class secured_kind : std::uint8_t {
  message_body = 0,  // a request body (encoding id + request): chunked, signed, encrypted as the client would
  raw_plaintext = 1, // sequence header, body and padding as they are, then signed and encrypted
  raw_unsigned = 2,  // all after the TokenId as it is: no signature, no encryption
  close_body = 3,    // a CloseSecureChannel body: a CLO chunk, signed and encrypted
};
inline constexpr std::uint8_t flip_bit = 1u << 2;
inline constexpr std::uint8_t foreign_token_bit = 1u << 5;
inline constexpr std::uint8_t foreign_channel_bit = 1u << 6;

inline void append_record(ua::byte_buffer& out, std::uint8_t op, std::span<const std::uint8_t> payload,
                          std::uint16_t flip = 0) {
  const std::uint8_t head[5] = {op, static_cast<std::uint8_t>(payload.size()), static_cast<std::uint8_t>(payload.size() >> 8),
                                static_cast<std::uint8_t>(flip), static_cast<std::uint8_t>(flip >> 8)};
  out.append(head, sizeof head);
  out.append(payload.data(), payload.size());
}

}  // namespace uactor::fuzz
