// Logins that cannot be guessed at, in the session manager (docs/security.md "Login attempts"):
// UserName ActivateSessions over a Basic256Sha256 SignAndEncrypt channel whose peer address is
// known, against a user store with PBKDF2 hashes. What must hold: a locked-out name is refused with
// Bad_UserAccessDenied without a password check (no PBKDF2, no crypto work for the workers), an
// unknown name and a wrong password get the same status after the same PBKDF2 work, and every
// refusal says why in one log line. Time is passed in: no sleeps.
#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <random>
#include <string>

#include "engine/common/channel_crypto.hpp"
#include "engine/server/services/discovery.hpp"
#include "engine/server/session_manager.hpp"
#include "security/password_hash.hpp"
#include "security/policy.hpp"
#include "security/session_crypto.hpp"
#include "tests/security/pki_test_support.hpp"
#include "tests/support/captured_log.hpp"

// Everything in a namespace of its own: the file shares a unity batch (docs/decisions/0050).
namespace login_attempts_test {

using namespace uactor;
using actors::session_manager;
namespace status = ua::status;
using std::chrono::milliseconds;

constexpr std::uint32_t secured_channel = 11;
constexpr const char* attacker = "192.0.2.7";

actors::instant when(std::int64_t ms) {
  return {std::chrono::steady_clock::time_point{} + std::chrono::hours(1) + milliseconds(ms),
          ua::date_time::from_unix_ms(1'767'225'600'000 + ms)};
}

const security::security_policy& policy() { return *security::find_policy(security::policy_uri_basic256sha256); }

struct keys {
  security::testing::issued server = security::testing::application_cert("login server", "urn:test:login:server");
  security::testing::issued client = security::testing::application_cert("login client", "urn:test:login:client");
};
const keys& the_keys() {
  static const keys k;  // RSA keys are slow to make: once for every test
  return k;
}

struct trust_everyone final : actors::certificate_checker {
  security::validation_result check(const security::certificate&, std::span<const security::certificate>,
                                    const security::validation_options&, ua::date_time) override {
    return {status::good, {}, {}};
  }
};

// A session manager with users op and eng (1,000 PBKDF2 iterations: the test's speed) behind a
// secured channel from `attacker`, and the login guard `guard`.
struct login_bench {
  std::shared_ptr<actors::server_security> sec = std::make_shared<actors::server_security>();
  std::optional<session_manager> sessions;
  std::uint32_t handle = 0;

  explicit login_bench(actors::login_guard_config guard) {
    sec->offers = {{&policy(), ua::message_security_mode::sign_and_encrypt}};
    sec->certificate = the_keys().server.cert;
    sec->private_key = the_keys().server.key;
    sec->checker = std::make_shared<trust_everyone>();
    auto users = std::make_shared<security::user_store>();
    users->add("op", "op-pw", 1000);
    users->add("eng", "eng-pw", 1000);
    sec->identities.users.set(std::move(users));
    actors::channel_peer peer{&policy(), ua::message_security_mode::sign_and_encrypt, the_keys().client.cert, 0, attacker};
    sec->channels.put(secured_channel, peer);
    actors::session_config c;
    // A seeded generator, not a counter: the storm test makes a hundred sessions, and a counter's
    // bytes would repeat an authentication token.
    c.random = [g = std::mt19937(32)](std::span<std::uint8_t> out) mutable {
      for (auto& b : out) b = static_cast<std::uint8_t>(g());
    };
    services::server_description d;
    d.application_uri = "urn:test:login:server";
    d.endpoint_url = "opc.tcp://127.0.0.1:4840";
    c.endpoints = services::make_endpoints(d, *sec);
    c.security = sec;
    c.login = guard;
    sessions.emplace(std::move(c));
  }

  struct session_keys {
    ua::node_id token;
    ua::byte_string nonce;
  };
  session_keys create(const actors::instant& now) {
    ua::create_session_request req;
    req.request_header.request_handle = ++handle;
    req.client_description.application_uri = "urn:test:login:client";
    req.client_certificate = actors::to_byte_string(the_keys().client.cert.der());
    req.client_nonce = ua::byte_string(std::string(32, 'n'));
    req.requested_session_timeout = 600'000;
    const auto r = sessions->route(secured_channel, req.request_header, ua::extension_object(req), now);
    REQUIRE(r.response);
    REQUIRE(&r.response->type() == &ua::create_session_response::extension_type_info);
    const auto& resp = static_cast<const ua::typed_extension_body<ua::create_session_response>&>(*r.response).value;
    return {resp.authentication_token, resp.server_nonce};
  }

  ua::activate_session_request activate_request(const session_keys& s, const char* user, const char* password) {
    ua::activate_session_request req;
    req.request_header.request_handle = ++handle;
    req.request_header.authentication_token = s.token;
    req.client_signature.algorithm = ua::ua_string(policy().signature_algorithm_uri);
    req.client_signature.signature = security::sign(
        policy(), the_keys().client.key, actors::signed_data(the_keys().server.cert.der(), actors::bytes_of(s.nonce)));
    ua::user_name_identity_token t;
    t.policy_id = ua::ua_string(services::user_name_policy_id);
    t.user_name = ua::ua_string(user);
    t.password = ua::byte_string(password);  // in clear: the channel encrypts (Part 4 §7.41.2.2)
    req.user_identity_token = ua::extension_object(std::move(t));
    return req;
  }

  // An X509 token of `certificate`, its UserTokenSignature made with `key` (Part 4 §5.7.3.2).
  ua::activate_session_request x509_request(const session_keys& s, const security::certificate& certificate,
                                            const security::rsa_key& key) {
    auto req = activate_request(s, "", "");
    const auto signed_part = actors::signed_data(the_keys().server.cert.der(), actors::bytes_of(s.nonce));
    ua::x509_identity_token t;
    t.policy_id = ua::ua_string(services::x509_policy_id);
    t.certificate_data = actors::to_byte_string(certificate.der());
    req.user_identity_token = ua::extension_object(std::move(t));
    req.user_token_signature.algorithm = ua::ua_string(policy().signature_algorithm_uri);
    req.user_token_signature.signature = security::sign(policy(), key, signed_part);
    return req;
  }

  // A new session and its ActivateSession as `user`; the status it got and what the router said.
  struct attempt {
    ua::status_code result;
    session_manager::routed routed;
  };
  attempt login(const char* user, const char* password, const actors::instant& now) {
    const auto s = create(now);
    return send(activate_request(s, user, password), now);
  }
  attempt login_x509(const security::certificate& certificate, const security::rsa_key& key, const actors::instant& now) {
    const auto s = create(now);
    return send(x509_request(s, certificate, key), now);
  }
  attempt send(const ua::activate_session_request& req, const actors::instant& now) {
    const auto r = sessions->route(secured_channel, req.request_header, ua::extension_object(req), now);
    REQUIRE(r.response);
    ua::status_code result = status::good;
    if (&r.response->type() == &ua::service_fault::extension_type_info)
      result = static_cast<const ua::typed_extension_body<ua::service_fault>&>(*r.response).value.response_header.service_result;
    return {result, r};
  }
};

actors::login_guard_config strict() {
  actors::login_guard_config g;
  g.max_failures = 3;
  g.backoff = milliseconds(0);
  g.address_max_failures = 10;
  g.lockout = std::chrono::seconds(60);
  return g;
}


TEST_CASE("login attempts: the third wrong password locks the name out, and even the right one is then refused unchecked",
          "[engine][login]") {
  login_bench b(strict());
  test::captured_log log;
  for (int i = 0; i < 3; ++i) {
    const auto a = b.login("op", "guess", when(i));
    CHECK(a.result == status::bad_user_access_denied);
    CHECK(a.routed.login_failed);
    CHECK(a.routed.lockout_started == (i == 2));
  }
  INFO(log.text());
  CHECK(log.text().find("ActivateSession refused: wrong user name or password for user 'op' (BadUserAccessDenied) from "
                        "192.0.2.7; user 'op': 1 of 3 failures; 192.0.2.7: 1 of 10 failures") != std::string::npos);
  CHECK(log.text().find("the user name is locked out for 60 s") != std::string::npos);

  // Locked: the right password gets the same answer, and the manager prepares no crypto for it
  // (nothing for the workers to do: no PBKDF2, no signature).
  const auto s = b.create(when(10));
  const auto req = b.activate_request(s, "op", "op-pw");
  CHECK(b.sessions->crypto_work(secured_channel, ua::extension_object(req), when(10)) == nullptr);
  const auto locked = b.login("op", "op-pw", when(11));
  CHECK(locked.result == status::bad_user_access_denied);
  CHECK(locked.routed.login_refused == actors::login_refusal::user_locked);
  CHECK_FALSE(locked.routed.login_failed);
  CHECK(log.text().find("ActivateSession refused without checking the token: a UserName token for 'op' from 192.0.2.7: "
                        "the user name is locked out for 60 s more (BadUserAccessDenied)") != std::string::npos);

  // Another user from the same address logs in; a success of op's after the lockout too.
  CHECK(b.login("eng", "eng-pw", when(12)).result == status::good);
  CHECK(b.login("op", "op-pw", when(2 + 60'000)).result == status::good);
}

TEST_CASE("login attempts: a locked-out unknown name costs no PBKDF2, an unchecked one costs one", "[engine][login]") {
  login_bench b(strict());
  const auto before = security::dummy_password_checks();
  for (int i = 0; i < 3; ++i) CHECK(b.login("mallory", "guess", when(i)).result == status::bad_user_access_denied);
  CHECK(security::dummy_password_checks() == before + 3);  // each unknown name checked as if it were known
  for (int i = 0; i < 5; ++i) {
    const auto a = b.login("mallory", "guess", when(10 + i));
    CHECK(a.result == status::bad_user_access_denied);
    CHECK(a.routed.login_refused == actors::login_refusal::user_locked);
  }
  CHECK(security::dummy_password_checks() == before + 3);  // refused before any PBKDF2
}

TEST_CASE("login attempts: an unknown user and a wrong password get the same status, each after one PBKDF2",
          "[engine][login]") {
  auto relaxed = strict();
  relaxed.max_failures = 100;
  relaxed.address_max_failures = 100;
  login_bench b(relaxed);
  const auto before = security::dummy_password_checks();
  const auto wrong = b.login("op", "guess", when(0));
  CHECK(security::dummy_password_checks() == before);  // a known name: its own hash
  const auto unknown = b.login("nobody", "guess", when(1));
  CHECK(security::dummy_password_checks() == before + 1);  // an unknown one: the dummy
  CHECK(wrong.result == status::bad_user_access_denied);
  CHECK(unknown.result == wrong.result);
  CHECK(unknown.routed.login_failed);
  CHECK(wrong.routed.login_failed);
}

TEST_CASE("login attempts: address_max_failures failures over several names lock the address out", "[engine][login]") {
  auto g = strict();
  g.address_max_failures = 4;
  login_bench b(g);
  CHECK(b.login("a", "x", when(0)).result == status::bad_user_access_denied);
  CHECK(b.login("b", "x", when(1)).result == status::bad_user_access_denied);
  CHECK(b.login("c", "x", when(2)).result == status::bad_user_access_denied);
  const auto fourth = b.login("d", "x", when(3));
  CHECK(fourth.routed.lockout_started);
  // The channel's address is locked: a valid login from it is refused unchecked.
  const auto a = b.login("eng", "eng-pw", when(4));
  CHECK(a.result == status::bad_user_access_denied);
  CHECK(a.routed.login_refused == actors::login_refusal::address_locked);
}

TEST_CASE("login attempts: an X509 user certificate that fails max_failures times is locked out, other certificates are not",
          "[engine][login]") {
  login_bench b(strict());
  const auto& user = the_keys().client;
  const auto& other = the_keys().server;
  test::captured_log log;
  // Signed with a key that is not the certificate's: the token does not prove its user.
  for (int i = 0; i < 3; ++i) {
    const auto a = b.login_x509(user.cert, other.key, when(i));
    CHECK(a.result != status::good);
    CHECK(a.routed.login_failed);
  }
  const auto text = log.text();
  INFO(text);
  CHECK(text.find("certificate " + user.cert.thumbprint_hex() + ": 3 of 3 failures") != std::string::npos);
  CHECK(text.find("the certificate is locked out for 60 s") != std::string::npos);
  // Now even a good signature is refused unchecked; another certificate from the same address is not.
  const auto locked = b.login_x509(user.cert, user.key, when(10));
  CHECK(locked.result == status::bad_user_access_denied);
  CHECK(locked.routed.login_refused == actors::login_refusal::user_locked);
  CHECK(log.text().find("the certificate is locked out for 60 s more (BadUserAccessDenied)") != std::string::npos);
  CHECK(b.login_x509(other.cert, other.key, when(11)).result == status::good);
}

TEST_CASE("login attempts: failures from an exempt address lock no address, and its user names still lock",
          "[engine][login]") {
  auto g = strict();
  g.address_max_failures = 4;
  std::string why;
  g.exempt_networks.push_back(*actors::ip_network::parse("192.0.2.0/24", why));  // the attacker's
  login_bench b(g);
  for (int i = 0; i < 8; ++i)
    CHECK(b.login(("user" + std::to_string(i)).c_str(), "x", when(i)).result == status::bad_user_access_denied);
  const auto ok = b.login("eng", "eng-pw", when(10));
  CHECK(ok.result == status::good);
  for (int i = 0; i < 3; ++i) b.login("op", "wrong", when(20 + i));
  CHECK(b.login("op", "op-pw", when(30)).routed.login_refused == actors::login_refusal::user_locked);
}

TEST_CASE("login attempts: a name that failed before is suspect, its crypto work says so", "[engine][login]") {
  login_bench b(strict());
  const auto s = b.create(when(0));
  const auto clean = b.sessions->crypto_work(secured_channel, ua::extension_object(b.activate_request(s, "eng", "x")), when(0));
  REQUIRE(clean);
  CHECK_FALSE(clean->suspect);
  CHECK(b.login("op", "guess", when(1)).result == status::bad_user_access_denied);
  // The address failed: every name from it waits behind the others at the workers.
  const auto s2 = b.create(when(2));
  const auto after = b.sessions->crypto_work(secured_channel, ua::extension_object(b.activate_request(s2, "eng", "x")), when(2));
  REQUIRE(after);
  CHECK(after->suspect);
  CHECK(after->check_password);
}

TEST_CASE("login attempts: a storm of refusals is logged at most 20 lines a second, then the count left out",
          "[engine][login]") {
  login_bench b(strict());
  test::captured_log log;
  for (int i = 0; i < 3; ++i) b.login("op", "guess", when(0));
  for (int i = 0; i < 100; ++i) CHECK(b.login("op", "guess", when(1)).result == status::bad_user_access_denied);
  const auto text = log.text();
  std::size_t lines = 0;
  for (std::size_t at = text.find("ActivateSession refused"); at != std::string::npos;
       at = text.find("ActivateSession refused", at + 1))
    ++lines;
  CHECK(lines == 20);
  CHECK(b.sessions->refusal_lines_suppressed() == 83);
  b.login("op", "guess", when(1500));
  CHECK(log.text().find("ActivateSession: 83 refusals in the last second not logged (a storm)") != std::string::npos);
}

}  // namespace login_attempts_test
