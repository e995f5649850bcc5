// A server_core over namespace 0 and the demo namespace with a predictable random source, the
// instants the tests give it, and an anonymous session that sends it requests: what the server
// engine's tests drive requests through.
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/server/server_core.hpp"
#include "protocol/message.hpp"
#include "runtime/namespaces/demo_namespace.hpp"

namespace uactor::test {

// `ms` milliseconds after a fixed start, on both clocks.
inline actors::instant at(std::int64_t ms) {
  return {std::chrono::steady_clock::time_point{} + std::chrono::milliseconds(ms),
          ua::date_time::from_unix_ms(1'767'225'600'000 + ms)};
}

inline actors::server_core make_core() {
  actors::server_core_config c;
  c.description.application_uri = "urn:test:uactor:server";
  c.description.endpoint_url = "opc.tcp://localhost:4840";
  c.sessions.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = ++n;
  };
  return actors::make_demo_server_core(std::move(c), "test", at(0).utc);
}

// A value from the application for one variable, applied at `at(ms)`.
inline void apply_value(actors::server_core& core, const ua::node_id& variable, double v, std::int64_t ms) {
  value_update u;
  u.node.index = core.space().find(variable);
  u.value = v;
  REQUIRE(core.apply_values(std::span(&u, 1), at(ms)) == 0);
}

// An event filter's operand: the field at `names` (a browse path) of event type `type`, attribute
// `attr` (13: Value).
inline ua::simple_attribute_operand event_field(std::uint32_t type, std::vector<const char*> names, std::uint32_t attr = 13) {
  ua::simple_attribute_operand o;
  o.type_definition_id = ua::node_id(0, type);
  for (const char* n : names) o.browse_path.push_back(ua::qualified_name{0, ua::ua_string(n)});
  o.attribute_id = attr;
  return o;
}

// One anonymous session over None on `channel`, each request at a given time (`at(ms)`); the last
// response decoded in `response`.
struct core_session {
  actors::server_core& core;
  std::uint32_t channel_id;
  ua::node_id token;
  std::uint32_t handle = 0;
  std::uint32_t request_id = 100;
  ua::byte_buffer out;
  ua::extension_object response;

  core_session(actors::server_core& c, std::uint32_t channel) : core(c), channel_id(channel) {
    ua::create_session_request create;
    create.requested_session_timeout = 600'000;
    create.client_description.application_uri = ua::ua_string("urn:test:client");
    const auto& created = call_as<ua::create_session_response>(create);
    REQUIRE(created.response_header.service_result == ua::status::good);
    token = created.authentication_token;
    ua::activate_session_request activate;
    activate.user_identity_token = ua::extension_object(ua::anonymous_identity_token{"anonymous"});
    REQUIRE(call(activate).get_if<ua::activate_session_response>());
  }

  template <class T>
  ua::extension_object& call(T req, std::int64_t ms = 0) {
    req.request_header.request_handle = ++handle;
    req.request_header.authentication_token = token;
    const ua::extension_object msg(req);
    out.clear();
    core.handle(channel_id, ++request_id, req.request_header, msg, at(ms), out);
    REQUIRE(!out.empty());
    REQUIRE(ua::decode_message(out.bytes(), response) == ua::status::good);
    return response;
  }
  template <class Response, class T>
  Response& call_as(T req, std::int64_t ms = 0) {
    auto* r = call(std::move(req), ms).template get_if<Response>();
    REQUIRE(r);
    return *r;
  }
  // A Publish: true when the core answered it at once (the answer in `response`), false when it
  // waits for a notification.
  bool publish(std::int64_t ms, std::vector<ua::subscription_acknowledgement> acks = {}) {
    ua::publish_request req;
    req.request_header.request_handle = ++handle;
    req.request_header.authentication_token = token;
    req.subscription_acknowledgements = {acks.begin(), acks.end()};
    const ua::extension_object msg(req);
    out.clear();
    core.handle(channel_id, ++request_id, req.request_header, msg, at(ms), out);
    if (out.empty()) return false;
    REQUIRE(ua::decode_message(out.bytes(), response) == ua::status::good);
    return true;
  }
};

}  // namespace uactor::test
