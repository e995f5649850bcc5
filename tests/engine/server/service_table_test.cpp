// The service table: one row per service request, found by its encoding id, read by the channel
// (what it decodes), the sessions (which rows go without one) and server_core (the handler).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "engine/server/secure_channel_state.hpp"
#include "engine/server/server_core.hpp"
#include "engine/server/server_metrics.hpp"
#include "engine/server/service_table.hpp"
#include "protocol/message.hpp"
#include "runtime/namespaces/demo_namespace.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "tests/support/alloc_counter.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace server_service_table_test {

using namespace uactor;
namespace status = ua::status;
using test::at;
using test::make_core;

namespace {

std::set<std::string> names_of(actors::session_use use) {
  std::set<std::string> names;
  for (const auto& row : actors::service_table())
    if (row.session == use) names.insert(row.request_type->name);
  return names;
}

ua::status_code result_of(const ua::byte_buffer& out) {
  ua::extension_object response;
  REQUIRE(ua::decode_message(out.bytes(), response) == status::good);
  if (const auto* f = response.get_if<ua::service_fault>()) return f->response_header.service_result;
  return status::good;
}

// An activated session on channel 3: the token to put in request headers.
ua::node_id open_session(actors::server_core& core) {
  ua::byte_buffer out;
  ua::extension_object response;
  ua::create_session_request create;
  create.requested_session_timeout = 60'000;
  core.handle(3, create.request_header, ua::extension_object(create), at(0), out);
  REQUIRE(ua::decode_message(out.bytes(), response) == status::good);
  const auto* created = response.get_if<ua::create_session_response>();
  REQUIRE(created);
  ua::activate_session_request activate;
  activate.request_header.authentication_token = created->authentication_token;
  activate.user_identity_token = ua::extension_object(ua::anonymous_identity_token{"anonymous"});
  out.clear();
  core.handle(3, activate.request_header, ua::extension_object(activate), at(0), out);
  REQUIRE(result_of(out) == status::good);
  return created->authentication_token;
}

}  // namespace

TEST_CASE("service_table: each row is found by its encoding id, and nothing else is", "[actors]") {
  const auto rows = actors::service_table();
  REQUIRE(rows.size() == 37);  // the service requests of Part 4 §5 that travel in MSG chunks
  for (const auto& row : rows) {
    INFO(row.request_type->name);
    CHECK(row.request_type->binary_encoding_id == row.binary_encoding_id);
    CHECK(actors::find_service(row.binary_encoding_id) == &row);
    CHECK(actors::is_service_request_encoding(row.binary_encoding_id));
    CHECK(actors::service_position(&row) == static_cast<std::size_t>(&row - rows.data()));
  }
  CHECK(actors::find_service(0) == nullptr);
  CHECK(actors::find_service(ua::read_response::binary_encoding_id) == nullptr);
  CHECK(actors::find_service(ua::open_secure_channel_request::binary_encoding_id) == nullptr);  // an OPN's
  CHECK_FALSE(actors::is_service_request_encoding(ua::read_response::binary_encoding_id));
  CHECK(actors::find_service(ua::extension_object{}) == nullptr);
  CHECK(actors::find_service(ua::extension_object(ua::read_response{})) == nullptr);
  CHECK(actors::find_service(ua::extension_object(ua::read_request{}))->request_type == &ua::read_request::extension_type_info);
  CHECK(actors::service_position(nullptr) == rows.size());
}

TEST_CASE("service_table: the lookup allocates nothing", "[actors]") {
  const ua::extension_object read(ua::read_request{});
  const test::alloc_scope allocs;
  for (int i = 0; i < 100; ++i) REQUIRE(actors::find_service(read) != nullptr);
  CHECK(allocs.counted().allocations == 0);
}

TEST_CASE("service_table: Discovery goes without a session, the Session services are the sessions'", "[actors]") {
  CHECK(names_of(actors::session_use::none) == std::set<std::string>{"FindServersRequest", "FindServersOnNetworkRequest",
                                                                      "GetEndpointsRequest", "RegisterServerRequest",
                                                                      "RegisterServer2Request"});
  CHECK(names_of(actors::session_use::managed) ==
        std::set<std::string>{"CreateSessionRequest", "ActivateSessionRequest", "CloseSessionRequest"});
}

TEST_CASE("service_table: the request counters are named after the rows, then Other", "[actors][metrics]") {
  const auto names = actors::service_names();
  const auto rows = actors::service_table();
  REQUIRE(names.size() == rows.size() + 1);
  CHECK(std::string(names[actors::service_position(actors::find_service(ua::read_request::binary_encoding_id))]) == "Read");
  CHECK(std::string(names.back()) == "Other");
  CHECK(actors::service_index(ua::extension_object(ua::publish_request{})) ==
        actors::service_position(actors::find_service(ua::publish_request::binary_encoding_id)));
}

TEST_CASE("server_core: every row without a handler answers Bad_ServiceUnsupported (Part 4 §7.34)", "[actors]") {
  auto core = make_core();
  const ua::node_id token = open_session(core);
  for (const auto& row : actors::service_table()) {
    if (row.serve != nullptr || row.session == actors::session_use::managed) continue;
    INFO(row.request_type->name);
    ua::extension_object request;
    request.set_body(row.request_type->make());
    ua::request_header header;
    header.request_handle = 7;
    if (row.session == actors::session_use::required) header.authentication_token = token;
    ua::byte_buffer out;
    core.handle(3, header, request, at(1), out);
    CHECK(result_of(out) == status::bad_service_unsupported);
  }
  // The session is still there.
  ua::request_header header;
  header.authentication_token = token;
  ua::byte_buffer out;
  core.handle(3, header, ua::extension_object(ua::read_request{}), at(1), out);
  CHECK(result_of(out) == status::bad_nothing_to_do);
}

}  // namespace server_service_table_test
