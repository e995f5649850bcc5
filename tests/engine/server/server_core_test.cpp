// server_core: a decoded request in, one encoded response out, through the sessions and the
// services over namespace 0 and the demo namespace. What the session host actor runs per request.
#include <catch2/catch.hpp>

#include "runtime/namespaces/demo_namespace.hpp"
#include "engine/server/server_core.hpp"
#include "engine/server/server_metrics.hpp"
#include "protocol/message.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "tests/support/alloc_counter.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace server_server_core_test {

using namespace uactor;
namespace status = ua::status;
using test::at;
using test::make_core;

namespace {

constexpr std::uint32_t channel = 3;

struct client {
  actors::server_core core = make_core();
  std::uint32_t on = channel;  // the channel requests come through
  ua::node_id token;
  std::uint32_t handle = 0;
  ua::byte_buffer out;
  ua::extension_object response;

  // Sends `req` and decodes the one response it gets.
  template <class T>
  ua::extension_object& call(T req, std::int64_t ms = 0) {
    req.request_header.request_handle = ++handle;
    req.request_header.authentication_token = token;
    const ua::extension_object msg(req);
    out.clear();
    core.handle(on, req.request_header, msg, at(ms), out);
    REQUIRE(ua::decode_message(out.bytes(), response) == status::good);
    return response;
  }

  static ua::status_code result(const ua::extension_object& r) {
    if (const auto* f = r.get_if<ua::service_fault>()) return f->response_header.service_result;
    return status::good;
  }

  void open_session() {
    ua::create_session_request create;
    create.requested_session_timeout = 60'000;
    const auto* created = call(create).get_if<ua::create_session_response>();
    REQUIRE(created);
    token = created->authentication_token;
    ua::activate_session_request activate;
    activate.user_identity_token = ua::extension_object(ua::anonymous_identity_token{"anonymous"});
    REQUIRE(call(activate).get_if<ua::activate_session_response>());
  }
};

ua::read_request read_of(std::initializer_list<ua::node_id> ids) {
  ua::read_request req;
  for (const auto& id : ids) {
    ua::read_value_id r;
    r.node_id = id;
    r.attribute_id = 13;  // Value
    req.nodes_to_read.push_back(r);
  }
  return req;
}

}  // namespace

TEST_CASE("server_core: GetEndpoints and FindServers answer without a session", "[actors]") {
  client c;
  ua::get_endpoints_request req;
  req.endpoint_url = "opc.tcp://localhost:4840";
  const auto* eps = c.call(req).get_if<ua::get_endpoints_response>();
  REQUIRE(eps);
  REQUIRE(eps->endpoints.size() == 1);
  CHECK(eps->endpoints[0].security_mode == ua::message_security_mode::none);
  CHECK(eps->response_header.request_handle == c.handle);
  CHECK(c.call(ua::find_servers_request{}).get_if<ua::find_servers_response>());
}

TEST_CASE("server_core: a Read without a session gets Bad_SessionIdInvalid", "[actors]") {
  client c;
  CHECK(client::result(c.call(read_of({ua::node_id::string(1, "the.answer")}))) == status::bad_session_id_invalid);
}

TEST_CASE("server_core: a session reads the answer and calls HelloWorld", "[actors]") {
  client c;
  c.open_session();
  const auto* read = c.call(read_of({ua::node_id::string(1, "the.answer")})).get_if<ua::read_response>();
  REQUIRE(read);
  REQUIRE(read->results.size() == 1);
  CHECK(read->results[0].value == ua::variant(std::int32_t{43}));
  CHECK(read->response_header.request_handle == c.handle);

  ua::call_request call;
  ua::call_method_request m;
  m.object_id = ua::node_id(1, 1000u);
  m.method_id = ua::node_id(1, 62541u);
  m.input_arguments = {ua::variant(ua::ua_string("uactor"))};
  call.methods_to_call.push_back(m);
  const auto* called = c.call(call).get_if<ua::call_response>();
  REQUIRE(called);
  REQUIRE(called->results.size() == 1);
  CHECK(called->results[0].status_code == status::good);
  REQUIRE(called->results[0].output_arguments.size() == 1);
  CHECK(called->results[0].output_arguments[0] == ua::variant(ua::ua_string("Hello uactor")));
}

TEST_CASE("server_core: a service it does not serve gets Bad_ServiceUnsupported", "[actors]") {
  client c;
  c.open_session();
  CHECK(client::result(c.call(ua::add_nodes_request{})) == status::bad_service_unsupported);
  // The session is still there.
  CHECK(c.call(read_of({ua::node_id::string(1, "the.answer")})).get_if<ua::read_response>());
}

TEST_CASE("server_core: sessions moved to another channel and refused moves are counted", "[actors][metrics]") {
  client c;
  auto registry = std::make_shared<actors::metrics_registry>();
  c.core.set_metrics(registry);
  c.open_session();
  ua::activate_session_request anonymous;
  anonymous.user_identity_token = ua::extension_object(ua::anonymous_identity_token{"anonymous"});
  c.on = channel + 1;  // None to None, anonymous: the same (lack of) certificate, the same user
  REQUIRE(c.call(anonymous).get_if<ua::activate_session_response>());
  ua::activate_session_request as_user;
  ua::user_name_identity_token user;
  user.user_name = "user1";
  user.password = ua::byte_string(std::string("password"));
  as_user.user_identity_token = ua::extension_object(user);
  c.on = channel + 2;
  CHECK(client::result(c.call(as_user)) == status::bad_identity_token_rejected);
  c.on = channel + 1;
  REQUIRE(c.call(read_of({ua::node_id::string(1, "the.answer")})).get_if<ua::read_response>());
  const auto m = registry->snapshot();
  CHECK(m.session_moves == 1);
  CHECK(m.session_moves_refused == 1);
}

TEST_CASE("server_core: a session past its timeout is closed by on_tick", "[actors]") {
  client c;
  c.open_session();
  c.core.on_tick(at(61'000));
  CHECK(client::result(c.call(read_of({ua::node_id::string(1, "the.answer")}), 61'000)) == status::bad_session_id_invalid);
}

TEST_CASE("server_core: a 1-value Read allocates nothing in steady state", "[actors]") {
  if (!test::counts_allocations) return;
  client c;
  c.open_session();
  auto req = read_of({ua::node_id::string(1, "the.answer")});
  req.request_header.authentication_token = c.token;
  const ua::extension_object msg(req);
  for (int i = 0; i < 3; ++i) {
    c.out.clear();
    c.core.handle(channel, req.request_header, msg, at(1), c.out);
  }
  const test::alloc_scope counter;
  for (int i = 0; i < 100; ++i) {
    c.out.clear();
    c.core.handle(channel, req.request_header, msg, at(1), c.out);
  }
  CHECK(counter.counted().allocations == 0);
}

TEST_CASE("server_core: not an LDS, RegisterServer, RegisterServer2 and FindServersOnNetwork are "
          "Bad_ServiceUnsupported (Part 4 §5.4.6: the registering server falls back or gives up)",
          "[actors][lds]") {
  client c;
  CHECK(client::result(c.call(ua::register_server_request{})) == status::bad_service_unsupported);
  CHECK(client::result(c.call(ua::register_server2_request{})) == status::bad_service_unsupported);
  CHECK(client::result(c.call(ua::find_servers_on_network_request{})) == status::bad_service_unsupported);
  const auto* found = c.call(ua::find_servers_request{}).get_if<ua::find_servers_response>();
  REQUIRE(found);
  CHECK(found->servers.size() == 1);
}

TEST_CASE("server_core: as an LDS, a registration over None is Bad_SecurityModeInsufficient and FindServersOnNetwork "
          "lists the LDS",
          "[actors][lds]") {
  actors::server_core_config config;
  config.description.application_uri = "urn:test:uactor:lds";
  config.description.endpoint_url = "opc.tcp://localhost:4840";
  config.sessions.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = ++n;
  };
  config.discovery_server = true;
  auto core = actors::make_demo_server_core(std::move(config), "test", at(0).utc);
  ua::byte_buffer out;
  ua::extension_object response;
  ua::register_server2_request reg;
  reg.server.server_uri = ua::ua_string("urn:plant:a");
  reg.server.server_names.push_back({ua::ua_string("en"), ua::ua_string("A")});
  reg.server.discovery_urls.push_back(ua::ua_string("opc.tcp://a:4840"));
  reg.server.is_online = true;
  core.handle(channel, reg.request_header, ua::extension_object(reg), at(0), out);
  REQUIRE(ua::decode_message(out.bytes(), response) == status::good);
  // A request refused as a whole is a ServiceFault (Part 4 §7.34).
  CHECK(client::result(response) == status::bad_security_mode_insufficient);
  out.clear();
  ua::find_servers_on_network_request fn;
  core.handle(channel, fn.request_header, ua::extension_object(fn), at(1), out);
  REQUIRE(ua::decode_message(out.bytes(), response) == status::good);
  const auto* records = response.get_if<ua::find_servers_on_network_response>();
  REQUIRE(records);
  REQUIRE(records->servers.size() == 1);
  CHECK(records->servers[0].discovery_url.view() == "opc.tcp://localhost:4840");
  CHECK(records->servers[0].server_capabilities == ua::ua_array<ua::ua_string>{ua::ua_string("LDS")});
}

}  // namespace server_server_core_test
