// examples/config/roles.toml's roles matrix with our own client, through sockets (issue 32: "the
// same matrix with our client"; node-opcua's is tests/interop/node_roles_matrix.js). The plant file
// is started as `uactor run` starts it (config::load_file, plant_runner) with its ports at 0 on
// 127.0.0.1 and a scratch PKI; our client logs in as anonymous over None and as viewer, operator,
// engineer and admin over Basic256Sha256 SignAndEncrypt, and each Browse, TranslateBrowsePaths,
// Read, Write, Call and CreateMonitoredItems answers exactly what the role allows.
#include <string>

#include <catch2/catch.hpp>

#include "runtime/config/config.hpp"
#include "runtime/config/start.hpp"
#include "tests/support/secured_client.hpp"
#include "tests/support/temp_folder.hpp"
#include "uactor/runtime.hpp"
#include "uactor/ua/attribute_ids.hpp"
#include "uactor/ua/status_codes.hpp"

// Everything in a namespace of its own: the file shares a unity batch (docs/decisions/0050).
namespace roles_client_matrix_test {

using namespace uactor;
using namespace std::chrono_literals;
namespace status = ua::status;

constexpr const char* client_uri = "urn:uactor:test:roles-matrix-client";

node_id n(const char* s) { return node_id::string(2, s); }

// What a role may do in roles.toml: the status each check must answer.
struct expected {
  const char* role;
  bool sees_maintenance;
  ua::status_code translate_maintenance, read_notes, write_setpoint, write_max_rate, call, monitor_notes,
      read_role_permissions;
  std::uint8_t user_access_level;  // of the setpoint: CurrentRead 1, CurrentWrite 2
};

const auto G = status::good, D = status::bad_user_access_denied;
const expected matrix[] = {
    {"anonymous", false, status::bad_no_match, D, D, D, D, D, D, 1},
    {"viewer", false, status::bad_no_match, D, D, D, D, D, D, 1},
    {"operator", true, G, G, G, D, G, G, D, 3},
    {"engineer", true, G, G, D, G, D, G, G, 1},
    {"admin", true, G, D, D, D, D, D, G, 1},
};

// roles.toml served: the floor's None endpoint first, the named users' secured one second.
struct roles_plant {
  test::temp_folder dir{"roles-matrix"};
  config::plant_runner runner;

  roles_plant() {
    const auto cert_file = test::make_client_certificate(dir.path, client_uri, "uactor roles matrix client");

    auto loaded = config::load_file(std::string(UACTOR_SOURCE_DIR) + "/examples/config/roles.toml", false, false);
    for (const auto& e : loaded.errors) UNSCOPED_INFO(e.to_string());
    REQUIRE(loaded.errors.empty());
    auto& plan = loaded.value.server;
    REQUIRE(plan.endpoints.size() == 2);
    for (auto& e : plan.endpoints) {
      e.listen_address = "127.0.0.1";
      e.port = 0;
    }
    plan.host_name = "127.0.0.1";
    plan.pki_dir = (dir.path / "server-pki").string();
    plan.trust = {cert_file.string()};
    std::string error;
    REQUIRE(runner.start(loaded.value, error));
    REQUIRE(runner.server()->endpoint_urls().size() == 2);
  }

  client_options as(const expected& who) const {
    client_options o;
    o.request_timeout = 20s;
    o.connect_timeout = 20s;
    const auto urls = runner.server()->endpoint_urls();
    if (std::string_view(who.role) == "anonymous") {
      o.endpoint_url = urls.at(0);
      return o;
    }
    o.endpoint_url = urls.at(1);
    test::log_in_over_sign_and_encrypt(o.security, dir.path, client_uri, who.role, std::string(who.role) + "-pw");
    return o;
  }
};

ua::read_value_id read_of(const node_id& node, ua::attribute_id attribute) {
  ua::read_value_id r;
  r.node_id = node;
  r.attribute_id = static_cast<std::uint32_t>(attribute);
  return r;
}

ua::write_value write_of(const node_id& node, double v) {
  ua::write_value w;
  w.node_id = node;
  w.attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
  w.value.value = variant(v);
  w.value.has_value = true;
  return w;
}

void check_role(client& c, const expected& want) {
  INFO("role " << want.role);
  // Browse: Line1 always, Maintenance only for the roles with Browse there.
  ua::browse_request br;
  ua::browse_description d;
  d.node_id = n("Plant");
  d.browse_direction = ua::browse_direction::forward;
  d.include_subtypes = true;
  d.result_mask = 63;
  br.nodes_to_browse.push_back(d);
  const auto browsed = c.browse_sync(br);
  REQUIRE(browsed.has_value());
  REQUIRE(browsed->results.size() == 1);
  bool line1 = false, maintenance = false;
  for (const auto& r : browsed->results[0].references) {
    line1 = line1 || r.node_id.id == n("Plant.Line1");
    maintenance = maintenance || r.node_id.id == n("Plant.Maintenance");
  }
  CHECK(line1);
  CHECK(maintenance == want.sees_maintenance);

  // TranslateBrowsePaths Plant/2:Maintenance.
  ua::translate_browse_paths_to_node_ids_request tr;
  ua::browse_path path;
  path.starting_node = n("Plant");
  ua::relative_path_element step;
  step.reference_type_id = node_id(0, 33);  // HierarchicalReferences
  step.include_subtypes = true;
  step.target_name = ua::qualified_name{2, ua::ua_string("Maintenance")};
  path.relative_path.elements.push_back(step);
  tr.browse_paths.push_back(path);
  const auto translated = c.translate_sync(tr);
  REQUIRE(translated.has_value());
  REQUIRE(translated->results.size() == 1);
  CHECK(translated->results[0].status_code == want.translate_maintenance);

  // Read: the setpoint for everyone, the notes where allowed, what the session may do there.
  ua::read_request rd;
  rd.nodes_to_read = {read_of(n("Plant.Line1.Setpoint"), ua::attribute_id::value),
                      read_of(n("Plant.Maintenance.Notes"), ua::attribute_id::value),
                      read_of(n("Plant.Line1.Setpoint"), ua::attribute_id::user_access_level),
                      read_of(n("Plant.Line1.Setpoint"), ua::attribute_id::role_permissions)};
  const auto read = c.read_sync(rd);
  REQUIRE(read.has_value());
  REQUIRE(read->results.size() == 4);
  CHECK(read->results[0].status == G);
  CHECK(read->results[1].status == want.read_notes);
  const auto* level = read->results[2].value.get_if<std::uint8_t>();
  REQUIRE(level != nullptr);
  CHECK(*level == want.user_access_level);
  CHECK(read->results[3].status == want.read_role_permissions);

  // Write: the setpoint (operators), the configuration (engineers).
  ua::write_request wr;
  wr.nodes_to_write = {write_of(n("Plant.Line1.Setpoint"), 50), write_of(n("Plant.Config.MaxRate"), 12)};
  const auto written = c.write_sync(wr);
  REQUIRE(written.has_value());
  REQUIRE(written->results.size() == 2);
  CHECK(written->results[0] == want.write_setpoint);
  CHECK(written->results[1] == want.write_max_rate);

  // Call: SetSetpoint on Line1 (operators).
  ua::call_request cr;
  ua::call_method_request m;
  m.object_id = n("Plant.Line1");
  m.method_id = n("Plant.Line1.SetSetpoint");
  m.input_arguments = {variant(55.0)};
  cr.methods_to_call.push_back(std::move(m));
  const auto called = c.call_sync(cr);
  REQUIRE(called.has_value());
  REQUIRE(called->results.size() == 1);
  CHECK(called->results[0].status_code == want.call);

  // CreateMonitoredItems: per item.
  const auto sub = c.create_subscription_sync(subscription_settings{}, subscription_handlers{});
  REQUIRE(sub.has_value());
  ua::create_monitored_items_request mi;
  mi.subscription_id = sub->subscription_id;
  mi.timestamps_to_return = ua::timestamps_to_return::both;
  std::uint32_t handle = 0;
  for (const char* node : {"Plant.Line1.Temperature", "Plant.Maintenance.Notes"}) {
    ua::monitored_item_create_request item;
    item.item_to_monitor = read_of(n(node), ua::attribute_id::value);
    item.monitoring_mode = ua::monitoring_mode::reporting;
    item.requested_parameters.client_handle = ++handle;
    item.requested_parameters.sampling_interval = 100;
    item.requested_parameters.queue_size = 1;
    mi.items_to_create.push_back(std::move(item));
  }
  const auto monitored = c.create_monitored_items_sync(mi);
  REQUIRE(monitored.has_value());
  REQUIRE(monitored->results.size() == 2);
  CHECK(monitored->results[0].status_code == G);
  CHECK(monitored->results[1].status_code == want.monitor_notes);
}

TEST_CASE("roles matrix with our client: examples/config/roles.toml answers each role exactly what it allows",
          "[runtime][roles]") {
  roles_plant plant;
  runtime client_side;
  for (const auto& want : matrix) {
    auto c = client_side.connect(plant.as(want));
    INFO("role " << want.role);
    REQUIRE(c.has_value());
    check_role(*c, want);
  }
}

}  // namespace roles_client_matrix_test
