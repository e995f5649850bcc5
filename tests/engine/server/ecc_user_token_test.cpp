// UserName tokens over the ECC policies (Part 6 §6.8.2, Part 4 §7.41.2.5): the server's EphemeralKey
// in the CreateSession and ActivateSession responses (ECDHKey), the password as an
// EccEncryptedSecret for it, and what a client that skips a step, replays a token, names another
// policy or sends a damaged structure gets. Engine only: session_manager with channels put by hand.
#include <catch2/catch.hpp>

#include <list>
#include <memory>
#include <optional>
#include <string>

#include "engine/common/channel_crypto.hpp"
#include "engine/common/ecdh_header.hpp"
#include "engine/server/services/discovery.hpp"
#include "engine/server/session_manager.hpp"
#include "security/certificate.hpp"
#include "security/ecc.hpp"
#include "security/ecc_encrypted_secret.hpp"
#include "security/password_hash.hpp"
#include "security/policy.hpp"
#include "security/session_crypto.hpp"

namespace server_ecc_user_token_test {

using namespace uactor;
using actors::session_manager;
namespace status = ua::status;

actors::instant at(std::int64_t ms) {
  return {std::chrono::steady_clock::time_point{} + std::chrono::milliseconds(ms), security::system_now()};
}

const security::application_identity& identity(const std::string& uri, std::string_view curve) {
  static std::list<std::pair<std::string, security::application_identity>> made;
  const std::string key = uri + std::string(curve);
  for (const auto& [k, v] : made)
    if (k == key) return v;
  security::certificate_request r;
  r.application_uri = uri;
  r.host_names = {"localhost"};
  r.curve = std::string(curve);
  auto id = security::create_self_signed(r, security::system_now());
  REQUIRE(id.has_value());
  made.emplace_back(key, *id);
  return made.back().second;
}

struct accept_all final : actors::certificate_checker {
  using actors::certificate_checker::check;
  security::validation_result check(const security::certificate&, std::span<const security::certificate>,
                                    const security::validation_options&, ua::date_time) override {
    return {status::good, {}, {}};
  }
};

constexpr const char* client_uri = "urn:test:ecc-token:client";

struct ecc_server {
  const security::security_policy& policy;
  ua::message_security_mode mode;
  std::shared_ptr<actors::server_security> sec = std::make_shared<actors::server_security>();
  std::optional<session_manager> sessions;
  std::uint32_t handle = 0;
  std::int64_t clock = 0;
  const security::application_identity& server_id;
  const security::application_identity& client_id;
  ua::create_session_response created;
  ua::activate_session_response activated;

  ecc_server(const security::security_policy& p, ua::message_security_mode m)
      : policy(p), mode(m), server_id(identity("urn:test:ecc-token:server", p.curve)),
        client_id(identity(client_uri, p.curve)) {
    sec->offers = {{&policy, mode}};
    sec->certificate = identity("urn:test:ecc-token:server", {}).cert;
    sec->private_key = identity("urn:test:ecc-token:server", {}).private_key;
    sec->ecc_identities.push_back({std::string(policy.curve), server_id.cert, {}, server_id.private_key});
    sec->checker = std::make_shared<accept_all>();
    auto users = std::make_shared<security::user_store>();
    users->add("op", "op-pw", 1000);
    sec->identities.users.set(std::move(users));
    actors::session_config c;
    c.max_sessions = 100;
    c.random = [](std::span<std::uint8_t> out) { security::fill_random(out); };
    services::server_description d;
    d.application_uri = "urn:test:ecc-token:server";
    d.endpoint_url = "opc.tcp://localhost:4840";
    c.endpoints = services::make_endpoints(d, *sec);
    c.security = sec;
    c.login.enabled = false;
    sessions.emplace(std::move(c));
    sec->channels.put(1, {&policy, mode, client_id.cert, 0});
  }

  template <class T>
  session_manager::routed call(T req) {
    req.request_header.request_handle = ++handle;
    const ua::extension_object msg(req);
    return sessions->route(1, req.request_header, msg, at(++clock));
  }
  static ua::status_code result(const session_manager::routed& r) {
    if (!r.response) return status::good;
    if (&r.response->type() == &ua::service_fault::extension_type_info)
      return static_cast<const ua::typed_extension_body<ua::service_fault>&>(*r.response).value.response_header.service_result;
    return status::good;
  }

  // CreateSession, asking for an EphemeralKey of `ecdh_policy` (none: empty).
  void create(std::string_view ecdh_policy) {
    ua::create_session_request req;
    req.client_description.application_uri = client_uri;
    req.client_certificate = actors::to_byte_string(client_id.cert.der());
    req.client_nonce = ua::byte_string(std::string(32, 'n'));
    req.requested_session_timeout = 60'000;
    if (!ecdh_policy.empty()) req.request_header.additional_header = actors::ecdh_policy_request(ecdh_policy);
    const auto r = call(req);
    REQUIRE(&r.response->type() == &ua::create_session_response::extension_type_info);
    created = static_cast<const ua::typed_extension_body<ua::create_session_response>&>(*r.response).value;
  }

  // The EphemeralKey the last response gave (checked as a client checks it).
  ua::byte_string last_key(const ua::extension_object& header) {
    ua::status_code sc;
    const auto* k = actors::ecdh_key_of(header, sc);
    REQUIRE(k != nullptr);
    REQUIRE(security::verify(policy, server_id.cert.public_key(), actors::bytes_of(k->public_key),
                             actors::bytes_of(k->signature)));
    return k->public_key;
  }

  ua::activate_session_request activation(const ua::byte_string& password, bool ask_next) {
    ua::activate_session_request req;
    req.request_header.authentication_token = created.authentication_token;
    const auto& nonce = activated.server_nonce.is_null() ? created.server_nonce : activated.server_nonce;
    req.client_signature.algorithm = ua::ua_string(policy.signature_algorithm_uri);
    req.client_signature.signature = security::sign(
        policy, client_id.private_key, actors::signed_data(server_id.cert.der(), actors::bytes_of(nonce)));
    ua::user_name_identity_token t;
    t.policy_id = ua::ua_string(services::user_name_policy_id);
    t.user_name = "op";
    t.password = password;
    req.user_identity_token = ua::extension_object(std::move(t));
    if (ask_next) req.request_header.additional_header = actors::ecdh_policy_request(policy.uri);
    return req;
  }

  ua::byte_string secret_for(const ua::byte_string& receiver, std::string_view pw, const ua::byte_string& nonce) {
    const auto sender = *security::make_ephemeral_key(policy);
    return security::encrypt_ecc_secret(policy, client_id.private_key, {}, security::system_now(), sender,
                                        actors::bytes_of(receiver), actors::bytes_of(nonce),
                                        {reinterpret_cast<const std::uint8_t*>(pw.data()), pw.size()});
  }

  session_manager::routed activate(const ua::activate_session_request& req) {
    auto r = call(req);
    if (r.response && &r.response->type() == &ua::activate_session_response::extension_type_info)
      activated = static_cast<const ua::typed_extension_body<ua::activate_session_response>&>(*r.response).value;
    return r;
  }
};

TEST_CASE("ecc user token: every ECC policy in Sign and SignAndEncrypt offers UserName and takes an EccEncryptedSecret",
          "[ecc][session]") {
  for (const auto& p : security::all_policies()) {
    if (!p.is_ecc()) continue;
    for (const auto mode : {ua::message_security_mode::sign, ua::message_security_mode::sign_and_encrypt}) {
      CAPTURE(p.name, static_cast<int>(mode));
      ecc_server f(p, mode);
      // GetEndpoints: a UserName token policy secured by the endpoint's ECC policy (uri null).
      bool offered = false;
      for (const auto& e : services::make_endpoints({}, *f.sec))
        for (const auto& t : e.user_identity_tokens)
          if (t.token_type == ua::user_token_type::user_name && t.security_policy_uri.empty()) offered = true;
      CHECK(offered);
      f.create(p.uri);
      const auto key = f.last_key(f.created.response_header.additional_header);
      CHECK(key.size() == p.nonce_length);
      auto r = f.activate(f.activation(f.secret_for(key, "op-pw", f.created.server_nonce), true));
      REQUIRE(f.result(r) == status::good);
      // A new key for the next activation, different from the spent one.
      const auto next = f.last_key(f.activated.response_header.additional_header);
      CHECK(!(next == key));
      // Re-activation with the new key and the new nonce.
      r = f.activate(f.activation(f.secret_for(next, "op-pw", f.activated.server_nonce), false));
      CHECK(f.result(r) == status::good);
      CHECK(f.activated.response_header.additional_header.empty());  // not asked: none given
    }
  }
}

TEST_CASE("ecc user token: a wrong password, a spent key, no key asked, another policy, another nonce",
          "[ecc][session]") {
  const auto& p = *security::find_policy(security::policy_uri_ecc_nistp256);
  ecc_server f(p, ua::message_security_mode::sign);

  SECTION("a wrong password is Bad_UserAccessDenied, like any wrong password") {
    f.create(p.uri);
    const auto key = f.last_key(f.created.response_header.additional_header);
    CHECK(f.result(f.activate(f.activation(f.secret_for(key, "guess", f.created.server_nonce), true))) ==
          status::bad_user_access_denied);
  }
  SECTION("no ECDHPolicyUri in CreateSession: no key, and a secret is refused") {
    f.create({});
    CHECK(f.created.response_header.additional_header.empty());
    const auto stray = *security::make_ephemeral_key(p);  // a key the server never gave
    const auto blob = f.secret_for(actors::to_byte_string(stray.public_bytes()), "op-pw", f.created.server_nonce);
    CHECK(f.result(f.activate(f.activation(blob,
                                           true))) == status::bad_identity_token_invalid);
  }
  SECTION("an ECDHPolicyUri other than the channel's is answered Bad_SecurityPolicyRejected, no key") {
    f.create(security::policy_uri_ecc_nistp384);
    ua::status_code sc;
    CHECK(actors::ecdh_key_of(f.created.response_header.additional_header, sc) == nullptr);
    CHECK(sc == status::bad_security_policy_rejected);
    f.create(security::policy_uri_basic256sha256);
    CHECK(actors::ecdh_key_of(f.created.response_header.additional_header, sc) == nullptr);
    CHECK(sc == status::bad_security_policy_rejected);
  }
  SECTION("a token replayed after the activation it served is refused: the key and the nonce are spent") {
    f.create(p.uri);
    const auto key = f.last_key(f.created.response_header.additional_header);
    const auto req = f.activation(f.secret_for(key, "op-pw", f.created.server_nonce), true);
    REQUIRE(f.result(f.activate(req)) == status::good);
    auto again = req;
    // Signed again over the new nonce, so that only the token is stale.
    again.client_signature.signature = security::sign(
        p, f.client_id.private_key, actors::signed_data(f.server_id.cert.der(), actors::bytes_of(f.activated.server_nonce)));
    CHECK(f.result(f.activate(again)) == status::bad_identity_token_invalid);
  }
  SECTION("a secret for the right key but an old nonce") {
    f.create(p.uri);
    const auto key = f.last_key(f.created.response_header.additional_header);
    const ua::byte_string other(std::string(32, 'x'));
    CHECK(f.result(f.activate(f.activation(f.secret_for(key, "op-pw", other), true))) == status::bad_identity_token_invalid);
  }
  SECTION("a secret signed by another key than the client certificate's") {
    f.create(p.uri);
    const auto key = f.last_key(f.created.response_header.additional_header);
    const auto sender = *security::make_ephemeral_key(p);
    const std::string pw = "op-pw";
    const auto blob = security::encrypt_ecc_secret(p, *security::generate_ecc_key(p.curve), {}, security::system_now(),
                                                   sender, actors::bytes_of(key), actors::bytes_of(f.created.server_nonce),
                                                   {reinterpret_cast<const std::uint8_t*>(pw.data()), pw.size()});
    CHECK(f.result(f.activate(f.activation(blob, true))) == status::bad_security_checks_failed);
  }
  SECTION("every truncation of a good secret is refused without a crash") {
    f.create(p.uri);
    const auto key = f.last_key(f.created.response_header.additional_header);
    const auto blob = f.secret_for(key, "op-pw", f.created.server_nonce);
    for (std::size_t n = 5; n < blob.size(); n += 7) {
      CAPTURE(n);
      const ua::byte_string cut(std::string_view(blob.data(), n));
      CHECK(f.result(f.activate(f.activation(cut, true))).is_bad());
    }
  }
}

}  // namespace server_ecc_user_token_test
