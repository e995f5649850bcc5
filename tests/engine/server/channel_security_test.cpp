// The secured channel end to end in memory (Part 6 §6.7): client_channel_state against
// secure_channel_state for every policy and mode, with real certificates and keys; what a tampered,
// replayed or untrusted peer gets. No sockets: bytes go through two chunk_readers.
#include <catch2/catch.hpp>

#include <cstring>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "engine/client/channel_state.hpp"
#include "engine/server/secure_channel_state.hpp"
#include "engine/server/server_security.hpp"
#include "protocol/chunk_reader.hpp"
#include "security/certificate.hpp"
#include "security/policy.hpp"
#include "tests/support/alloc_counter.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace server_channel_security_test {

using namespace uactor;
using cevent = actors::client_channel_state::event;
using sevent = actors::secure_channel_state::event;
namespace status = ua::status;
using std::chrono::milliseconds;

namespace {

actors::instant at(std::int64_t ms) {
  return {std::chrono::steady_clock::time_point{} + milliseconds(ms), security::system_now()};
}

// `curve` non-empty: an EC key on it (the ECC policies, Part 6 §6.8), `bits` unused.
const security::application_identity& identity(const std::string& uri, unsigned bits = 2048,
                                               std::string_view curve = {}) {
  static std::list<std::pair<std::string, security::application_identity>> made;  // references stay valid
  const std::string key = uri + std::to_string(bits) + std::string(curve);
  for (const auto& [k, v] : made)
    if (k == key) return v;
  security::certificate_request r;
  r.application_uri = uri;
  r.host_names = {"localhost"};
  r.key_bits = bits;
  r.curve = std::string(curve);
  auto id = security::create_self_signed(r, security::system_now());
  REQUIRE(id.has_value());
  made.emplace_back(key, *id);
  return made.back().second;
}

// Trusts exactly the certificates it is given; says which check refused the others.
struct list_checker final : actors::certificate_checker {
  std::vector<security::certificate> trusted;
  int checks = 0;
  using actors::certificate_checker::check;
  std::size_t issuers_seen = 0;
  security::validation_result check(const security::certificate& peer, std::span<const security::certificate> issuers,
                                    const security::validation_options& o, ua::date_time) override {
    ++checks;
    issuers_seen = issuers.size();
    if (peer.key_bits() < o.min_key_bits) return {status::bad_certificate_policy_check_failed, "key size", "too short"};
    for (const auto& t : trusted)
      if (t == peer) return {status::good, {}, {}};
    return {status::bad_certificate_untrusted, "trust list", "not trusted"};
  }
};

struct secured_pair {
  std::shared_ptr<actors::server_security> security = std::make_shared<actors::server_security>();
  std::shared_ptr<list_checker> checker = std::make_shared<list_checker>();
  std::unique_ptr<actors::secure_channel_state> server;
  std::unique_ptr<actors::client_channel_state> client;
  ua::chunk_reader server_reader{ua::transport_limits{}};
  ua::chunk_reader client_reader{ua::transport_limits{}};
  std::vector<sevent> server_events;
  std::vector<cevent> client_events;
  // Tampering with what the client sends: called with each batch of bytes before the server sees it.
  std::function<void(ua::byte_buffer&)> on_the_wire;
  std::function<void(ua::byte_buffer&)> on_the_way_back;  // the same for what the server sends
  // Reused: a steady-state round trip allocates nothing (swapped with the states' output buffers).
  ua::byte_buffer to_server;
  ua::byte_buffer to_client;
  ua::read_request request;
  ua::read_response response;

  // `replaced`: the server identity ApplyChanges installed (docs/decisions/0056); the client then
  // knows that certificate, or the start-up one when `client_knows_old`.
  secured_pair(const security::security_policy& policy, ua::message_security_mode mode, bool trust_client = true,
               unsigned client_bits = 2048, std::vector<security::certificate> client_issuers = {},
               std::shared_ptr<const actors::own_identity> replaced = nullptr, bool client_knows_old = false) {
    // The RSA identities, and for an ECC policy the ones on its curve (with the server's RSA
    // certificate still in place, as a server offering both kinds of policy has it).
    const auto& server_id = identity("urn:test:server", 2048, policy.curve);
    const auto& client_id = identity("urn:test:client", client_bits, policy.curve);
    security->offers = {{&policy, mode}};
    security->certificate = identity("urn:test:server").cert;
    security->private_key = identity("urn:test:server").private_key;
    if (policy.is_ecc())
      security->ecc_identities.push_back({std::string(policy.curve), server_id.cert, {}, server_id.private_key});
    if (replaced) security->replaced.set(replaced);
    const auto& known = replaced && !client_knows_old ? replaced->certificate : server_id.cert;
    if (trust_client) checker->trusted.push_back(client_id.cert);
    security->checker = checker;
    actors::secure_channel_config sc;
    sc.channel_id = 7;
    sc.security = security;
    sc.audit = true;  // the audit records are taken only by the tests that look at them
    server = std::make_unique<actors::secure_channel_state>(sc, at(0));
    actors::client_channel_config cc;
    cc.endpoint_url = "opc.tcp://localhost:4840";
    cc.security = {&policy, mode, client_id.cert, client_id.private_key, known, std::move(client_issuers), {}};
    client = std::make_unique<actors::client_channel_state>(cc);
  }

  void pump(const actors::instant& now) {
    for (int round = 0; round < 20 && (!client->output().empty() || !server->output().empty()); ++round) {
      if (!client->output().empty()) {
        std::swap(to_server, client->output());
        client->clear_output();
        if (on_the_wire) on_the_wire(to_server);
        (void)server_reader.put(to_server.bytes(), [&](const ua::chunk_view& v) {
          const auto ev = server->on_chunk(v, now);
          server_events.push_back(ev);
          if (ev == sevent::acknowledged) server_reader.set_receive_buffer_size(server->limits().receive_buffer_size);
          if (ev == sevent::request) {
            response.response_header.request_handle = server->request().header->request_handle;
            response.results.resize(1);
            response.results[0].value = ua::variant(std::int32_t{43});
            response.results[0].has_value = true;
            (void)server->send_response(server->request().request_id, response);
          }
        });
      }
      if (!server->output().empty()) {
        std::swap(to_client, server->output());
        server->clear_output();
        if (on_the_way_back) on_the_way_back(to_client);
        (void)client_reader.put(to_client.bytes(), [&](const ua::chunk_view& v) {
          const auto ev = client->on_chunk(v, now);
          client_events.push_back(ev);
          if (ev == cevent::acknowledged) {
            client_reader.set_receive_buffer_size(client->limits().receive_buffer_size);
            REQUIRE(client->write_open(now) == status::good);
          }
        });
      }
    }
  }

  void open() {
    client->write_hello();
    pump(at(1));
  }

  // A Read; the response's value, or the status that replaced it.
  ua::status_code read_once(std::int64_t ms = 2) {
    request.request_header.request_handle = 99;
    request.nodes_to_read.resize(1);
    const auto id = client->send_request(request);
    if (!id) return id.error();
    client_events.clear();
    server_events.clear();
    pump(at(ms));
    for (const auto ev : client_events)
      if (ev == cevent::response) return client->response().status;
    return client->closed() ? client->close_status() : status::bad_no_communication;
  }
};

const ua::message_security_mode modes[] = {ua::message_security_mode::sign, ua::message_security_mode::sign_and_encrypt};

}  // namespace

TEST_CASE("channel security: every policy and mode opens, answers a Read and renews", "[channel_security]") {
  for (const auto& policy : security::all_policies()) {
    if (policy.is_none()) continue;
    for (const auto mode : modes) {
      CAPTURE(policy.name, static_cast<int>(mode));
      secured_pair p(policy, mode);
      p.open();
      REQUIRE(p.client->is_open());
      REQUIRE(p.server->current_phase() == actors::secure_channel_state::phase::open);
      CHECK(p.server->policy().uri == policy.uri);
      CHECK(p.server->security_mode() == mode);
      CHECK(p.security->channels.get(7).client_certificate == identity("urn:test:client", 2048, policy.curve).cert);
      CHECK(p.read_once() == status::good);
      // Part 4 §5.5.2: a Renew brings new keys; old and new token both work.
      REQUIRE(p.client->write_open(at(3)) == status::good);
      p.pump(at(3));
      CHECK(p.client->token().token_id == 2);
      CHECK(p.read_once(4) == status::good);
      CHECK(p.read_once(5) == status::good);
    }
  }
}

TEST_CASE("channel security: after ApplyChanges a running channel keeps its certificate, new ones get the new one",
          "[channel_security]") {
  const auto& policy = *security::find_policy(security::policy_uri_basic256sha256);
  const auto mode = ua::message_security_mode::sign_and_encrypt;
  secured_pair p(policy, mode);
  p.open();
  REQUIRE(p.client->is_open());
  const auto& renewed = identity("urn:test:server-renewed");
  const auto next = std::make_shared<const actors::own_identity>(actors::own_identity{renewed.cert, {}, renewed.private_key});
  p.security->replaced.set(next);
  // The running channel: Reads, and a Renew (an asymmetric OPN), with the identity of its first OPN.
  CHECK(p.read_once(2) == status::good);
  REQUIRE(p.client->write_open(at(3)) == status::good);
  p.pump(at(3));
  CHECK(p.client->token().token_id == 2);
  CHECK(p.read_once(4) == status::good);
  REQUIRE(p.security->channels.get(7).identity);
  CHECK(p.security->channels.get(7).identity->certificate == identity("urn:test:server").cert);
  // A new channel: the new certificate, which the session services take from its channel_peer.
  secured_pair q(policy, mode, true, 2048, {}, next);
  q.open();
  REQUIRE(q.client->is_open());
  CHECK(q.read_once() == status::good);
  CHECK(q.security->channels.get(7).identity->certificate == renewed.cert);
  // A new client that still encrypts for the old certificate: refused (ReceiverCertificateThumbprint).
  secured_pair stale(policy, mode, true, 2048, {}, next, true);
  stale.open();
  CHECK_FALSE(stale.client->is_open());
}

TEST_CASE("channel security: three renewals without a message in between, then Reads with the newest keys",
          "[channel_security]") {
  // docs/decisions/0024: the server keeps the current token and two predecessors with their keys.
  secured_pair p(*security::find_policy(security::policy_uri_basic256sha256), ua::message_security_mode::sign_and_encrypt);
  p.open();
  REQUIRE(p.client->is_open());
  for (std::uint32_t token = 2; token <= 4; ++token) {
    REQUIRE(p.client->write_open(at(token)) == status::good);
    p.pump(at(token));
    REQUIRE(p.client->token().token_id == token);
  }
  CHECK(p.server->sending_token_id() == 2);  // token 1's keys made room
  CHECK(p.read_once(5) == status::good);
  CHECK(p.server->sending_token_id() == 4);
  CHECK(p.read_once(6) == status::good);
}

TEST_CASE("channel security: a flipped byte in a secured MSG closes the channel with Bad_SecurityChecksFailed",
          "[channel_security]") {
  // HMAC + AES-CBC, and the AEAD policies (ChaCha20-Poly1305: ciphertext and tag, docs/decisions/0082).
  for (const auto uri : {security::policy_uri_basic256sha256, security::policy_uri_ecc_curve25519,
                         security::policy_uri_ecc_curve448}) {
    for (const auto mode : modes) {
      // Every 7th offset after the header of a Read request chunk, then the last bytes (the
      // signature or tag) counted from the end.
      for (std::ptrdiff_t offset = 8; offset < 130; offset += 7) {
        const std::ptrdiff_t at = offset < 110 ? offset : -(offset - 110);  // -1 .. -19
        CAPTURE(uri, static_cast<int>(mode), at);
        secured_pair p(*security::find_policy(uri), mode);
        p.open();
        REQUIRE(p.client->is_open());
        bool flipped = false;
        p.on_the_wire = [at, &flipped](ua::byte_buffer& b) {
          const auto size = static_cast<std::ptrdiff_t>(b.size());
          const std::ptrdiff_t i = at >= 0 ? at : size + at;
          if (i < 0 || i >= size) return;  // an AEAD chunk (no padding) is shorter than a CBC one
          b.data()[i] ^= 0x01;
          flipped = true;
        };
        (void)p.read_once();
        if (!flipped) continue;
        REQUIRE(p.server->closed());
        // Channel id and token id bytes (8..15) fail their own checks first.
        if (at >= 16 || at < 0) CHECK(p.server->close_status() == status::bad_security_checks_failed);
      }
    }
  }
}

TEST_CASE("channel security: a replayed MSG chunk closes the channel (Part 6 §6.7.2.4)", "[channel_security]") {
  secured_pair p(*security::find_policy(security::policy_uri_aes256_sha256_rsapss), ua::message_security_mode::sign);
  p.open();
  ua::byte_buffer first;
  p.on_the_wire = [&first](ua::byte_buffer& b) { first = b; };
  REQUIRE(p.read_once() == status::good);
  p.on_the_wire = [&first](ua::byte_buffer& b) { b = first; };  // the same signed chunk again
  (void)p.read_once(3);
  CHECK(p.server->closed());
  CHECK(p.server->close_status() == status::bad_sequence_number_invalid);
}

TEST_CASE("channel security: an untrusted or too short client certificate is refused and the log names the check",
          "[channel_security]") {
  SECTION("untrusted") {
    secured_pair p(*security::find_policy(security::policy_uri_basic256sha256), ua::message_security_mode::sign, false);
    p.open();
    CHECK_FALSE(p.client->is_open());
    CHECK(p.server->close_status() == status::bad_security_checks_failed);
    CHECK(std::string(p.server->security_log()).find("trust list") != std::string::npos);
    CHECK(p.client->close_status() == status::bad_security_checks_failed);
  }
  SECTION("1024-bit key") {
    secured_pair p(*security::find_policy(security::policy_uri_basic256sha256), ua::message_security_mode::sign, true,
                   1024);
    p.open();
    CHECK_FALSE(p.client->is_open());
    CHECK(std::string(p.server->security_log()).find("key size") != std::string::npos);
  }
}

TEST_CASE("channel security: the client's chain in the OPN reaches the trust check, and a renewal may repeat it",
          "[channel_security][chain]") {
  const auto& issuer = identity("urn:test:issuer").cert;  // any certificate: the checker only counts them
  secured_pair p(*security::find_policy(security::policy_uri_basic256sha256), ua::message_security_mode::sign_and_encrypt,
                 true, 2048, {issuer, issuer});
  p.open();
  REQUIRE(p.client->is_open());
  CHECK(p.checker->issuers_seen == 2);
  CHECK(p.security->channels.get(7).client_certificate == identity("urn:test:client").cert);
  REQUIRE(p.client->write_open(at(3)) == status::good);
  p.pump(at(3));
  CHECK(p.client->token().token_id == 2);
  CHECK(p.read_once(4) == status::good);
}

TEST_CASE("channel security: after a trust list change an open channel checks its client certificate again and closes "
          "when it is no longer trusted (Part 12 §7.8.2.5)", "[channel_security][trust]") {
  const auto& issuer = identity("urn:test:issuer").cert;
  secured_pair p(*security::find_policy(security::policy_uri_basic256sha256), ua::message_security_mode::sign_and_encrypt,
                 true, 2048, {issuer});
  p.open();
  REQUIRE(p.client->is_open());
  // Still trusted: nothing happens, and the issuers of the OPN are part of the check again.
  p.checker->issuers_seen = 0;
  CHECK(p.server->recheck_peer(at(2)) == sevent::none);
  CHECK(p.checker->issuers_seen == 1);
  CHECK(p.read_once(3) == status::good);
  // Removed from the trust list: an ERR, the channel closed, the reason in the log.
  p.checker->trusted.clear();
  const auto refusals = p.server->certificate_refusals();
  CHECK(p.server->recheck_peer(at(4)) == sevent::close);
  CHECK(p.server->closed());
  CHECK(p.server->close_status() == status::bad_security_checks_failed);
  CHECK(p.server->certificate_refusals() == refusals + 1);
  CHECK(std::string(p.server->security_log()).find("trust list changed") != std::string::npos);
  p.pump(at(5));
  CHECK_FALSE(p.client->is_open());
  CHECK(p.client->close_status() == status::bad_security_checks_failed);
}

TEST_CASE("channel security: a None channel has no certificate to check again", "[channel_security][trust]") {
  actors::secure_channel_config sc;
  sc.channel_id = 9;
  actors::secure_channel_state none(sc, at(0));
  CHECK(none.recheck_peer(at(1)) == sevent::none);
}

TEST_CASE("channel security: a SenderCertificate chain with a broken second part is refused, the log says where",
          "[channel_security][chain]") {
  const auto& issuer = identity("urn:test:issuer").cert;
  const auto& policy = *security::find_policy(security::policy_uri_basic256sha256);
  secured_pair p(policy, ua::message_security_mode::sign, true, 2048, {issuer});
  // Message header (8), SecureChannelId (4), SecurityPolicyUri (4 + n), SenderCertificate length (4), leaf.
  const std::size_t second = 12 + 4 + std::string_view(policy.uri).size() + 4 + identity("urn:test:client").cert.der().size();
  p.on_the_wire = [second](ua::byte_buffer& b) {
    if (b.size() > second && std::memcmp(b.data(), "OPN", 3) == 0) b.data()[second] = 0x04;
  };
  p.open();
  CHECK_FALSE(p.client->is_open());
  CHECK(p.server->close_status() == status::bad_security_checks_failed);
  const std::string log(p.server->security_log());
  INFO(log);
  CHECK(log.find("Bad_CertificateInvalid") != std::string::npos);
  CHECK(log.find("certificate 2 of the chain: not an ASN.1 SEQUENCE (tag 0x04)") != std::string::npos);
  CHECK(p.checker->checks == 0);
}

TEST_CASE("channel security: the server's chain in the OPN response reaches the client's deferred check, a broken one "
          "closes with Bad_CertificateInvalid", "[channel_security][chain]") {
  const auto& issuer = identity("urn:test:issuer").cert;
  const auto& policy = *security::find_policy(security::policy_uri_basic256sha256);
  auto with_check = [&](secured_pair& p, std::size_t& seen, ua::status_code verdict) {
    p.security->certificate_issuers = {issuer};
    auto cc = actors::client_channel_config{};
    cc.endpoint_url = "opc.tcp://localhost:4840";
    cc.security = {&policy, ua::message_security_mode::sign, identity("urn:test:client").cert,
                   identity("urn:test:client").private_key, identity("urn:test:server").cert, {}, {}};
    cc.security.check_server_chain = [&seen, verdict](const security::certificate&,
                                                      std::span<const security::certificate> issuers) {
      seen = issuers.size();
      return security::validation_result{verdict, "trust list", "test"};
    };
    p.client = std::make_unique<actors::client_channel_state>(cc);
  };
  SECTION("accepted") {
    secured_pair p(policy, ua::message_security_mode::sign);
    std::size_t seen = 99;
    with_check(p, seen, status::good);
    p.open();
    CHECK(p.client->is_open());
    CHECK(seen == 1);
    CHECK(p.read_once() == status::good);
  }
  SECTION("refused by the check: the channel closes with its status") {
    secured_pair p(policy, ua::message_security_mode::sign);
    std::size_t seen = 99;
    with_check(p, seen, status::bad_certificate_untrusted);
    p.open();
    CHECK_FALSE(p.client->is_open());
    CHECK(p.client->close_status() == status::bad_certificate_untrusted);
  }
  SECTION("the second certificate's tag broken on the way back") {
    secured_pair p(policy, ua::message_security_mode::sign);
    std::size_t seen = 99;
    with_check(p, seen, status::good);
    const std::size_t second = 12 + 4 + std::string_view(policy.uri).size() + 4 + identity("urn:test:server").cert.der().size();
    p.on_the_way_back = [second](ua::byte_buffer& b) {
      if (b.size() > second && std::memcmp(b.data(), "OPN", 3) == 0) b.data()[second] = 0x31;
    };
    p.open();
    CHECK_FALSE(p.client->is_open());
    CHECK(p.client->close_status() == status::bad_certificate_invalid);
    CHECK(std::string(p.client->close_reason()).find("certificate 2 of the chain: not an ASN.1 SEQUENCE (tag 0x31)") !=
          std::string::npos);
    CHECK(seen == 99);
  }
}

TEST_CASE("channel security: a policy or mode the server does not offer is refused", "[channel_security]") {
  secured_pair p(*security::find_policy(security::policy_uri_basic256sha256), ua::message_security_mode::sign);
  p.security->offers = {{security::find_policy(security::policy_uri_aes128_sha256_rsaoaep), ua::message_security_mode::sign}};
  p.open();
  CHECK(p.server->close_status() == status::bad_security_policy_rejected);
  secured_pair q(*security::find_policy(security::policy_uri_basic256sha256), ua::message_security_mode::sign_and_encrypt);
  q.security->offers = {{security::find_policy(security::policy_uri_basic256sha256), ua::message_security_mode::sign}};
  q.open();
  CHECK(q.server->close_status() == status::bad_security_mode_rejected);
}

TEST_CASE("channel security: a secured Read round trip allocates nothing in steady state", "[channel_security]") {
  if (!test::counts_allocations) {
    WARN("allocation counting is off in this build");
    return;
  }
  for (const auto& policy : security::all_policies()) {
    if (policy.is_none()) continue;
    for (const auto mode : modes) {
      CAPTURE(policy.name, static_cast<int>(mode));
      secured_pair p(policy, mode);
      p.open();
      for (int i = 0; i < 10; ++i) REQUIRE(p.read_once() == status::good);  // buffers grow to their working size
      test::alloc_scope scope;
      for (int i = 0; i < 20; ++i) REQUIRE(p.read_once() == status::good);
      CHECK(scope.counted().allocations == 0);
    }
  }
}

TEST_CASE("channel security: a None channel is open for discovery when the server offers only secured endpoints",
          "[channel_security]") {
  secured_pair p(security::policy_none(), ua::message_security_mode::none);
  p.security->offers = {{security::find_policy(security::policy_uri_basic256sha256), ua::message_security_mode::sign}};
  p.open();
  REQUIRE(p.client->is_open());  // GetEndpoints may follow; the session services refuse None
  CHECK(p.read_once() == status::good);
}

TEST_CASE("channel security: the audit records of an Issue, a Renew, a CloseSecureChannel and a refused certificate",
          "[channel_security][audit]") {
  using kind = actors::channel_audit::kind;
  const auto& policy = *security::find_policy(security::policy_uri_basic256sha256);
  std::vector<actors::channel_audit> audits;
  SECTION("opened, renewed, closed") {
    secured_pair p(policy, ua::message_security_mode::sign_and_encrypt);
    p.open();
    REQUIRE(p.client->is_open());
    p.server->take_audits(audits);
    REQUIRE(audits.size() == 1);
    CHECK(audits[0].what == kind::open);
    CHECK(audits[0].status == status::good);
    CHECK(audits[0].channel_id == 7);
    CHECK(audits[0].request_type == ua::security_token_request_type::issue);
    CHECK(audits[0].security_policy_uri == security::policy_uri_basic256sha256);
    CHECK(audits[0].security_mode == ua::message_security_mode::sign_and_encrypt);
    CHECK(audits[0].client_certificate.size() > 500);  // the client's DER
    CHECK(audits[0].client_certificate_thumbprint.size() == 40);
    CHECK(audits[0].reason.empty());
    // Part 4 §6.5.5: a Renew that succeeds is not audited.
    REQUIRE(p.client->write_open(at(3)) == status::good);  // a Renew
    p.pump(at(3));
    CHECK(p.read_once(4) == status::good);
    CHECK_FALSE(p.server->has_audits());
    p.client->write_close(at(5));
    p.pump(at(5));
    CHECK(p.server->closed());
    p.server->take_audits(audits);
    REQUIRE(audits.size() == 1);
    CHECK(audits[0].what == kind::close);
    CHECK(audits[0].status == status::good);
  }
  SECTION("an untrusted client certificate") {
    secured_pair p(policy, ua::message_security_mode::sign, false);
    p.open();
    CHECK_FALSE(p.client->is_open());
    p.server->take_audits(audits);
    REQUIRE(audits.size() == 2);
    CHECK(audits[0].what == kind::certificate);
    CHECK(audits[0].status == status::bad_certificate_untrusted);
    CHECK_FALSE(audits[0].client_certificate.empty());
    CHECK(audits[1].what == kind::open);
    CHECK(audits[1].status == status::bad_security_checks_failed);  // what the client was told
    CHECK(audits[1].request_type == ua::security_token_request_type::issue);
    CHECK(audits[1].reason.find("trust list") != std::string::npos);  // what the log says
  }
}

namespace {

// Rewrites the first OPN chunk in `b` to name another policy and another receiver thumbprint,
// leaving the rest (sequence header, body, signature) as it was: what a client whose
// certificate is of another curve than the policy looks like to the server before it checks
// the signature.
void rewrite_opn_header(ua::byte_buffer& b, std::string_view uri, std::span<const std::uint8_t> thumbprint) {
  const auto* d = b.data();
  const auto u32 = [d](std::size_t at) {
    return std::uint32_t{d[at]} | std::uint32_t{d[at + 1]} << 8 | std::uint32_t{d[at + 2]} << 16 |
           std::uint32_t{d[at + 3]} << 24;
  };
  if (b.size() < 12 || std::memcmp(d, "OPN", 3) != 0) return;
  const std::size_t size = u32(4);
  std::size_t at = 12;
  const std::size_t uri_len = u32(at);
  const std::size_t cert_at = at + 4 + uri_len;
  const std::size_t cert_len = u32(cert_at);
  const std::size_t thumb_at = cert_at + 4 + cert_len;
  const std::size_t thumb_len = u32(thumb_at);
  const std::size_t rest_at = thumb_at + 4 + thumb_len;
  std::vector<std::uint8_t> out(d, d + 12);
  const auto put32 = [&out](std::size_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  put32(uri.size());
  out.insert(out.end(), uri.begin(), uri.end());
  out.insert(out.end(), d + cert_at, d + thumb_at);
  put32(thumbprint.size());
  out.insert(out.end(), thumbprint.begin(), thumbprint.end());
  out.insert(out.end(), d + rest_at, d + b.size());
  const std::size_t new_size = size + out.size() - b.size();
  for (int i = 0; i < 4; ++i) out[4 + i] = static_cast<std::uint8_t>(new_size >> (8 * i));
  b.clear();
  b.append(out.data(), out.size());
}

}  // namespace

TEST_CASE("channel security: ECC policies send EphemeralKeys as nonces, a new pair at each renewal (Part 6 §6.8.1)",
          "[channel_security][ecc]") {
  for (const auto& policy : security::all_policies()) {
    if (!policy.is_ecc()) continue;
    CAPTURE(policy.name);
    secured_pair p(policy, ua::message_security_mode::sign_and_encrypt);
    std::vector<ua::byte_buffer> opn_chunks;
    p.on_the_way_back = [&opn_chunks](ua::byte_buffer& b) {
      if (b.size() > 3 && std::memcmp(b.data(), "OPN", 3) == 0) opn_chunks.push_back(b);
    };
    p.open();
    REQUIRE(p.client->is_open());
    REQUIRE(p.read_once() == status::good);
    REQUIRE(p.client->write_open(at(3)) == status::good);
    p.pump(at(3));
    REQUIRE(p.client->token().token_id == 2);
    CHECK(p.read_once(4) == status::good);
    // Two OPN responses, not encrypted (ECC signs the OPN only): the ServerNonces are points of
    // the curve, different each time.
    REQUIRE(opn_chunks.size() == 2);
    std::vector<ua::byte_string> nonces;
    for (const auto& chunk : opn_chunks) {
      ua::secure_chunk c;
      ua::asymmetric_security_header h;
      const auto at_body = ua::parse_security_part(chunk.bytes(), c, &h);
      REQUIRE(at_body);
      CHECK(h.security_policy_uri.view() == policy.uri);
      ua::secure_chunk seq;
      ua::chunk_security s;
      s.signature_size = policy.ecc_signature_size();
      REQUIRE(ua::parse_sequence_part(chunk.bytes().subspan(*at_body), s, seq) == status::good);
      ua::extension_object m;
      REQUIRE(ua::decode_message(seq.body, m, ua::decode_limits{}) == status::good);
      const auto* resp = m.get_if<ua::open_secure_channel_response>();
      REQUIRE(resp);
      CHECK(resp->server_nonce.size() == policy.nonce_length);
      CHECK(security::ecc_public_from_bytes(policy, actors::bytes_of(resp->server_nonce)).has_value());
      nonces.push_back(resp->server_nonce);
    }
    CHECK(nonces[0] != nonces[1]);
  }
}

TEST_CASE("channel security: a client certificate of another curve than the ECC policy's is refused "
          "(Bad_CertificatePolicyCheckFailed in the log and the audit)",
          "[channel_security][ecc]") {
  // {what the OPN asks for, what the client really holds}: brainpool for nistP256, and for the
  // Edwards curves an Ed448 certificate on ECC_curve25519 and a P-256 one (docs/decisions/0082).
  const std::pair<std::string_view, std::string_view> cases[] = {
      {security::policy_uri_ecc_nistp256, security::policy_uri_ecc_brainpoolp256r1},
      {security::policy_uri_ecc_curve25519, security::policy_uri_ecc_curve448},
      {security::policy_uri_ecc_curve25519, security::policy_uri_ecc_nistp256},
      {security::policy_uri_ecc_curve448, security::policy_uri_ecc_curve25519}};
  for (const auto& [asked_uri, held_uri] : cases) {
    const auto& asked = *security::find_policy(asked_uri);
    const auto& held = *security::find_policy(held_uri);
    CAPTURE(asked.name, held.name);
    // The client speaks `held` with its certificates; on the wire its OPN asks for `asked` and
    // names the server's certificate of that curve.
    secured_pair p(held, ua::message_security_mode::sign);
    const auto& server_id = identity("urn:test:server", 2048, asked.curve);
    p.security->offers = {{&asked, ua::message_security_mode::sign}};
    p.security->ecc_identities = {{std::string(asked.curve), server_id.cert, {}, server_id.private_key}};
    const auto thumbprint = server_id.cert.thumbprint();
    p.on_the_wire = [&](ua::byte_buffer& b) { rewrite_opn_header(b, asked.uri, thumbprint); };
    p.open();
    CHECK_FALSE(p.client->is_open());
    CHECK(p.server->close_status() == status::bad_security_checks_failed);
    const std::string log(p.server->security_log());
    CHECK(log.find("does not fit " + std::string(asked.name)) != std::string::npos);
    CHECK(log.find("Bad_CertificatePolicyCheckFailed") != std::string::npos);
    CHECK(p.server->certificate_refusals() == 1);
    std::vector<actors::channel_audit> audits;
    p.server->take_audits(audits);
    REQUIRE(audits.size() == 2);
    CHECK(audits[0].what == actors::channel_audit::kind::certificate);
    CHECK(audits[0].status == status::bad_certificate_policy_check_failed);
  }
}

TEST_CASE("channel security: an ECC policy the server has no certificate for is refused", "[channel_security][ecc]") {
  secured_pair p(*security::find_policy(security::policy_uri_ecc_nistp384), ua::message_security_mode::sign);
  p.security->ecc_identities.clear();
  p.open();
  CHECK_FALSE(p.client->is_open());
  CHECK(std::string(p.server->security_log()).find("no certificate for ECC_nistP384") != std::string::npos);
}

}  // namespace server_channel_security_test
