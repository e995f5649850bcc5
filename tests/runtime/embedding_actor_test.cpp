// The embedding API inside an application that brings its own CAF actor system: the runtime joins
// it, and the application's handlers run as messages to an actor of its own (docs/embedding.md).
#include <atomic>
#include <chrono>
#include <thread>

#include <catch2/catch.hpp>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "uactor/ua/attribute_ids.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"
#include "uactor/runtime.hpp"

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::task)

using namespace uactor;
using namespace std::chrono_literals;

namespace {

// The application's actor: it runs every task posted to it, one at a time, in its own state.
caf::behavior application_actor(caf::event_based_actor* self, std::shared_ptr<std::atomic<int>> ran) {
  return {[self, ran](uactor::task& t) {
    ++*ran;  // before the task: its reply may reach the client before the task returns
    t();
    (void)self;
  }};
}

}  // namespace

TEST_CASE("embedded server: in the application's actor system, handlers run as messages to its actor", "[runtime]") {
  caf::actor_system_config cfg;
  cfg.load<caf::io::middleman>();
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system sys(cfg);
  auto ran = std::make_shared<std::atomic<int>>(0);
  auto app = sys.spawn(application_actor, ran);
  const executor to_actor = [app](task t) { caf::anon_send(app, std::move(t)); };
  {
    runtime rt(sys);
    auto plan = default_server_plan();
    plan.listen_address = "127.0.0.1";
    plan.port = 0;
    plan.security = {"none"};
    server& srv = **rt.start_server(plan);
    const auto ns = srv.register_namespace("urn:test:actor");
    variable_node v;
    v.id = node_id::string(ns, "SP");
    v.parent = ns0::objects_folder;
    v.browse_name = qualified_name{ns, ua::ua_string("SP")};
    v.data_type = node_id(0, ua::ids::double_);
    v.access_level = access::read_write;
    v.value.set_value(0.0);
    REQUIRE(srv.apply(v) == ua::status::good);
    REQUIRE(srv.on_write(v.id, [](const write_call& w, write_reply reply) {
      reply(*w.value.value.get_if<double>() < 10 ? ua::status::good : ua::status::bad_out_of_range);
    }, {to_actor, 2s}) == ua::status::good);

    client_options o;
    o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(srv.port());
    auto c = rt.connect(o);
    REQUIRE(c.has_value());
    ua::write_request w;
    w.nodes_to_write.resize(1);
    w.nodes_to_write[0].node_id = v.id;
    w.nodes_to_write[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
    w.nodes_to_write[0].value.set_value(5.0);
    CHECK(c->write_sync(w)->results.at(0) == ua::status::good);
    w.nodes_to_write[0].value.set_value(50.0);
    CHECK(c->write_sync(w)->results.at(0) == ua::status::bad_out_of_range);
    CHECK(*ran == 2);
    c->close();
  }
  caf::anon_send_exit(app, caf::exit_reason::user_shutdown);
}
