// ActivateSession from another secure channel (Part 4 §5.7.3.1, docs/decisions/0045): every
// combination of the session's channel and identity with the new channel, its certificate, the
// key that signs and the identity offered, against the one rule: the session moves only for the
// application that created it and the user it has. Everything else is refused and leaves the
// session on its channel.
#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/common/channel_crypto.hpp"
#include "engine/server/services/discovery.hpp"
#include "engine/server/session_manager.hpp"
#include "security/password_hash.hpp"
#include "security/pki_store.hpp"
#include "security/policy.hpp"
#include "security/session_crypto.hpp"
#include "tests/security/pki_test_support.hpp"
#include "tests/support/captured_log.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace server_session_takeover_test {

using namespace uactor;
using actors::session_manager;
using move = session_manager::routed::move;
namespace status = ua::status;
namespace pki = security::testing;

namespace {

actors::instant at(std::int64_t ms) {
  return {std::chrono::steady_clock::time_point{} + std::chrono::milliseconds(ms),
          ua::date_time::from_unix_ms(1'767'225'600'000 + ms)};
}

const security::security_policy& basic256sha256() { return *security::find_policy(security::policy_uri_basic256sha256); }

using pki::application_cert;

// RSA keys are slow to make: once for every test.
struct identities {
  pki::issued server = application_cert("takeover server", "urn:test:takeover:server");
  pki::issued client = application_cert("takeover client", "urn:test:takeover:client");
  pki::issued intruder = application_cert("another client", "urn:test:takeover:client");  // trusted too, same URI
  pki::issued user_a = application_cert("user a", "urn:test:takeover:user_a");
  pki::issued user_b = application_cert("user b", "urn:test:takeover:user_b");
};
const identities& ids() {
  static const identities i;
  return i;
}

enum class channel_kind { none, sign, sign_and_encrypt };
enum class who { genuine, intruder };  // whose certificate opened a channel, whose key signs
enum class token { anonymous, user1, user1_wrong_password, user2, x509_a, x509_a_wrong_key, x509_b };

std::string name(channel_kind c) {
  return c == channel_kind::none ? "None" : c == channel_kind::sign ? "Sign" : "SignAndEncrypt";
}
std::string name(who w) { return w == who::genuine ? "the session's client" : "another client"; }
std::string name(token t) {
  switch (t) {
    case token::anonymous: return "anonymous";
    case token::user1: return "user1";
    case token::user1_wrong_password: return "user1 with a wrong password";
    case token::user2: return "user2";
    case token::x509_a: return "X509 user a";
    case token::x509_a_wrong_key: return "X509 user a signed with another key";
    case token::x509_b: return "X509 user b";
  }
  return "?";
}

const pki::issued& of(who w) { return w == who::genuine ? ids().client : ids().intruder; }

// A server offering None and Basic256Sha256 in both modes, with the users user1/password and
// user2/secret and the trusted X509 users a and b.
struct server {
  pki::temp_dir folder;
  std::shared_ptr<actors::server_security> sec = std::make_shared<actors::server_security>();
  std::optional<session_manager> sessions;
  std::uint32_t next_channel = 1;
  std::uint32_t handle = 0;
  std::int64_t clock = 0;

  server() {
    sec->offers = {{&security::policy_none(), ua::message_security_mode::none},
                   {&basic256sha256(), ua::message_security_mode::sign},
                   {&basic256sha256(), ua::message_security_mode::sign_and_encrypt}};
    sec->certificate = ids().server.cert;
    sec->private_key = ids().server.key;
    sec->store = std::make_shared<security::pki_store>(folder.path());
    REQUIRE(sec->store->trust(ids().user_a.cert).is_good());
    REQUIRE(sec->store->trust(ids().user_b.cert).is_good());
    sec->checker = std::make_shared<actors::pki_checker>(sec->store);
    auto users = std::make_shared<security::user_store>();
    users->add("user1", "password", 1000);
    users->add("user2", "secret", 1000);
    sec->identities.users.set(std::move(users));
    actors::session_config c;
    c.max_sessions = 10'000;
    c.random = [n = std::uint32_t{0}](std::span<std::uint8_t> out) mutable {
      for (auto& b : out) b = static_cast<std::uint8_t>(++n * 2654435761u >> 24);
    };
    services::server_description d;
    d.application_uri = "urn:test:takeover:server";
    d.endpoint_url = "opc.tcp://localhost:4840";
    c.endpoints = services::make_endpoints(d, *sec);
    c.security = sec;
    // The matrix offers user1's wrong password again and again: the login guard (tested in
    // login_attempts_test.cpp) would lock user1 out and answer before the checks this test is about.
    c.login.enabled = false;
    sessions.emplace(std::move(c));
  }

  // A new channel of `kind`, opened with `w`'s certificate when secured.
  std::uint32_t open(channel_kind kind, who w) {
    const std::uint32_t id = next_channel++;
    if (kind != channel_kind::none)
      sec->channels.put(id, {&basic256sha256(),
                             kind == channel_kind::sign ? ua::message_security_mode::sign
                                                        : ua::message_security_mode::sign_and_encrypt,
                             of(w).cert, 0});
    return id;
  }

  template <class T>
  session_manager::routed call(std::uint32_t channel, T req) {
    req.request_header.request_handle = ++handle;
    const ua::extension_object msg(req);
    return sessions->route(channel, req.request_header, msg, at(++clock));
  }

  static ua::status_code result(const session_manager::routed& r) {
    if (r.what != session_manager::routed::action::respond || !r.response) return status::good;
    if (&r.response->type() == &ua::service_fault::extension_type_info)
      return static_cast<const ua::typed_extension_body<ua::service_fault>&>(*r.response).value.response_header.service_result;
    return status::good;
  }

  ua::node_id create(std::uint32_t channel, bool secured) {
    ua::create_session_request req;
    req.client_description.application_uri = "urn:test:takeover:client";
    if (secured) req.client_certificate = actors::to_byte_string(ids().client.cert.der());
    req.client_nonce = ua::byte_string(std::string(32, 'n'));
    req.requested_session_timeout = 60'000;
    const auto r = call(channel, req);
    REQUIRE(&r.response->type() == &ua::create_session_response::extension_type_info);
    return static_cast<const ua::typed_extension_body<ua::create_session_response>&>(*r.response).value.authentication_token;
  }

  // ActivateSession on `channel` (secured: `secured`) signed with `signer`'s key, offering `t`.
  session_manager::routed activate(std::uint32_t channel, bool secured, const ua::node_id& auth, who signer, token t) {
    const auto& nonce = sessions->find(auth)->server_nonce;
    const auto& policy = basic256sha256();
    const auto signed_part = actors::signed_data(ids().server.cert.der(), actors::bytes_of(nonce));
    ua::activate_session_request req;
    req.request_header.authentication_token = auth;
    if (secured) {
      req.client_signature.algorithm = ua::ua_string(policy.signature_algorithm_uri);
      req.client_signature.signature = security::sign(policy, of(signer).key, signed_part);
    }
    const auto user_name = [&](const char* user, const char* password) {
      ua::user_name_identity_token u;
      u.user_name = user;
      const std::string_view p(password);
      const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(p.data()), p.size());
      if (secured) {  // encrypted with the server key, as a Sign channel requires
        u.encryption_algorithm = ua::ua_string(policy.encryption_algorithm_uri);
        u.password = security::encrypt_secret(policy, ids().server.cert.public_key(), bytes, actors::bytes_of(nonce));
      } else {
        u.password = ua::byte_string(std::string(p));
      }
      req.user_identity_token = ua::extension_object(std::move(u));
    };
    const auto x509 = [&](const pki::issued& user, const security::rsa_key& key) {
      ua::x509_identity_token x;
      x.certificate_data = actors::to_byte_string(user.cert.der());
      req.user_identity_token = ua::extension_object(std::move(x));
      req.user_token_signature.algorithm = ua::ua_string(policy.signature_algorithm_uri);
      req.user_token_signature.signature = security::sign(policy, key, signed_part);
    };
    switch (t) {
      case token::anonymous: req.user_identity_token = ua::extension_object(ua::anonymous_identity_token{}); break;
      case token::user1: user_name("user1", "password"); break;
      case token::user1_wrong_password: user_name("user1", "guess"); break;
      case token::user2: user_name("user2", "secret"); break;
      case token::x509_a: x509(ids().user_a, ids().user_a.key); break;
      case token::x509_a_wrong_key: x509(ids().user_a, ids().user_b.key); break;
      case token::x509_b: x509(ids().user_b, ids().user_b.key); break;
    }
    return call(channel, req);
  }

  // A session the genuine client created and activated as `owner` on a new channel of `kind`.
  struct owned {
    std::uint32_t home;
    ua::node_id auth;
  };
  owned session_as(channel_kind kind, token owner) {
    const bool secured = kind != channel_kind::none;
    const std::uint32_t home = open(kind, who::genuine);
    const ua::node_id auth = create(home, secured);
    REQUIRE(result(activate(home, secured, auth, who::genuine, owner)) == status::good);
    return {home, auth};
  }

  ua::status_code read(std::uint32_t channel, const ua::node_id& auth) {
    ua::read_request req;
    req.request_header.authentication_token = auth;
    const auto r = call(channel, req);
    return r.what == session_manager::routed::action::dispatch ? status::good : result(r);
  }
};

// What the rule says (docs/decisions/0045), in its order: the application (certificate, then the
// proof of its key), the token's own checks, then the user.
ua::status_code expected(channel_kind original, token owner, channel_kind next, who opened_by, who signer, token offered) {
  const bool same_certificate =
      (original == channel_kind::none) == (next == channel_kind::none) && (next == channel_kind::none || opened_by == who::genuine);
  if (!same_certificate) return status::bad_security_checks_failed;
  if (next != channel_kind::none && signer != who::genuine) return status::bad_application_signature_invalid;
  if (next == channel_kind::none && offered != token::anonymous) return status::bad_identity_token_rejected;
  if (offered == token::user1_wrong_password) return status::bad_user_access_denied;
  if (offered == token::x509_a_wrong_key) return status::bad_user_signature_invalid;
  return offered == owner ? status::good : status::bad_identity_change_not_supported;
}

}  // namespace

TEST_CASE("session_takeover: from another channel a session moves only for its own application and its own user",
          "[actors][security]") {
  server srv;
  const std::vector<std::pair<channel_kind, token>> originals = {
      {channel_kind::none, token::anonymous},
      {channel_kind::sign, token::anonymous},
      {channel_kind::sign, token::user1},
      {channel_kind::sign, token::x509_a},
      {channel_kind::sign_and_encrypt, token::anonymous},
      {channel_kind::sign_and_encrypt, token::user1},
      {channel_kind::sign_and_encrypt, token::x509_a},
  };
  const token offers[] = {token::anonymous, token::user1,           token::user1_wrong_password, token::user2,
                          token::x509_a,    token::x509_a_wrong_key, token::x509_b};
  std::size_t moved = 0, refused = 0;
  for (const auto& [original, owner] : originals)
    for (const channel_kind next : {channel_kind::none, channel_kind::sign, channel_kind::sign_and_encrypt})
      for (const who opened_by : {who::genuine, who::intruder})
        for (const who signer : {who::genuine, who::intruder})
          for (const token offered : offers) {
            if (next == channel_kind::none && (opened_by != who::genuine || signer != who::genuine)) continue;
            const auto [home, auth] = srv.session_as(original, owner);
            const auto identity_before = srv.sessions->find(auth)->identity;

            const std::uint32_t other = srv.open(next, opened_by);
            const auto want = expected(original, owner, next, opened_by, signer, offered);
            INFO("session over " << name(original) << " as " << name(owner) << "; ActivateSession over " << name(next)
                                 << " opened by " << name(opened_by) << ", signed by " << name(signer) << ", as "
                                 << name(offered) << ": expected " << want.name());
            const auto r = srv.activate(other, next != channel_kind::none, auth, signer, offered);
            CHECK(server::result(r) == want);
            const auto* s = srv.sessions->find(auth);
            REQUIRE(s);
            if (want.is_good()) {
              ++moved;
              CHECK(r.channel_move == move::moved);
              CHECK(s->channel_id == other);
              CHECK(srv.read(other, auth) == status::good);
              CHECK(srv.read(home, auth) == status::bad_secure_channel_id_invalid);
            } else {
              ++refused;
              CHECK(r.channel_move == move::refused);
              CHECK(s->channel_id == home);  // untouched: still the owner's
              CHECK(s->identity == identity_before);
              CHECK(srv.read(home, auth) == status::good);
              CHECK(srv.read(other, auth) == status::bad_secure_channel_id_invalid);
            }
          }
  // Each original session has exactly one way to move per channel it may move to: the genuine
  // client (certificate and key) with the session's own user.
  CHECK(moved == 1 + 6 * 2);
  CHECK(refused > 300);
}

TEST_CASE("session_takeover: the anonymous ActivateSession from a None channel with a stolen token is refused, logged "
          "with both channels and both identities", "[actors][security]") {
  server srv;
  const auto [home, auth] = srv.session_as(channel_kind::sign_and_encrypt, token::user1);
  const std::uint32_t attacker = srv.open(channel_kind::none, who::genuine);
  test::captured_log log;
  CHECK(server::result(srv.activate(attacker, false, auth, who::genuine, token::anonymous)) ==
        status::bad_security_checks_failed);
  INFO(log.text());
  const auto sid = srv.sessions->find(auth)->session_id.to_string();
  CHECK(log.text().find("ActivateSession refused: session " + sid + " of channel " + std::to_string(home) +
                        " (Basic256Sha256:SignAndEncrypt, user 'user1') asked for from channel " +
                        std::to_string(attacker) + " (None, no certificate) with an anonymous token") != std::string::npos);
  CHECK(log.text().find("the new channel's client certificate is not the session's; the session stays on channel " +
                        std::to_string(home) + " (BadSecurityChecksFailed)") != std::string::npos);
  CHECK(srv.read(home, auth) == status::good);
}

TEST_CASE("session_takeover: the legitimate move is logged with both channels and the identity", "[actors][security]") {
  server srv;
  const auto [home, auth] = srv.session_as(channel_kind::sign_and_encrypt, token::user1);
  const std::uint32_t next = srv.open(channel_kind::sign_and_encrypt, who::genuine);
  test::captured_log log;
  CHECK(server::result(srv.activate(next, true, auth, who::genuine, token::user1)) == status::good);
  INFO(log.text());
  const auto sid = srv.sessions->find(auth)->session_id.to_string();
  CHECK(log.text().find("session " + sid + " moved from channel " + std::to_string(home) +
                        " (Basic256Sha256:SignAndEncrypt) to channel " + std::to_string(next) +
                        " (Basic256Sha256:SignAndEncrypt, ") != std::string::npos);
  CHECK(log.text().find("user 'user1' on both") != std::string::npos);
}

TEST_CASE("session_takeover: a change of user on the session's own channel is accepted and drops the former user's "
          "browse continuation points", "[actors][security]") {
  server srv;
  const auto [home, auth] = srv.session_as(channel_kind::sign_and_encrypt, token::user1);
  auto* s = const_cast<actors::session*>(srv.sessions->find(auth));
  ua::byte_string point;
  REQUIRE(s->browse_points.add({}, point));
  test::captured_log log;
  const auto r = srv.activate(home, true, auth, who::genuine, token::user2);
  CHECK(server::result(r) == status::good);
  CHECK(r.channel_move == move::none);
  CHECK(s->identity.name == "user2");
  CHECK(s->browse_points.size() == 0);
  CHECK(log.text().find("identity user 'user2' replaces user 'user1'") != std::string::npos);

  SECTION("a reactivation as the same user keeps them") {
    REQUIRE(s->browse_points.add({}, point));
    CHECK(server::result(srv.activate(home, true, auth, who::genuine, token::user2)) == status::good);
    CHECK(s->browse_points.size() == 1);
  }
  SECTION("a wrong password leaves the user as it was") {
    CHECK(server::result(srv.activate(home, true, auth, who::genuine, token::user1_wrong_password)) ==
          status::bad_user_access_denied);
    CHECK(s->identity.name == "user2");
  }
}

}  // namespace server_session_takeover_test
