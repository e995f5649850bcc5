// The application's node descriptions applied to the address space (actors/server/node_builder):
// attributes, placement, properties, type instantiation, the refusals, and removal.
#include <catch2/catch.hpp>

#include "engine/server/node_builder.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace server_node_builder_test {

using namespace uactor;
using namespace uactor::actors;
namespace ids = uactor::ua::ids;

namespace {

const date_time t0 = date_time::from_unix_ms(1'767'225'600'000);

ua::address_space ns0_space() {
  ua::address_space as;
  ua::load_namespace0(as);
  return as;
}

node_id id(std::string_view s) { return node_id::string(2, s); }
qualified_name name(std::string_view s) { return qualified_name{2, ua::ua_string(s)}; }

variable_node tag(std::string_view s, node_id parent) {
  variable_node v;
  v.id = id(s);
  v.parent = std::move(parent);
  v.browse_name = name(s);
  v.data_type = node_id(0, ids::double_);
  v.value.set_value(1.5);
  return v;
}

bool has_reference(const ua::address_space& as, const node_id& from, std::uint32_t type, const node_id& to) {
  for (const auto& r : as.forward_references(as.find(from)))
    if (r.type == as.find(node_id(0, type)) && r.target == as.find(to)) return true;
  return false;
}

ua::status_code apply(ua::address_space& as, node_change c) { return apply_node_change(as, c, t0); }

}  // namespace

TEST_CASE("node_builder: a folder and a variable hang where they are told, with their attributes", "[actors]") {
  auto as = ns0_space();
  REQUIRE(apply(as, folder(id("Plant"), ns0::objects_folder, "Plant")) == ua::status::good);
  auto v = tag("Plant.T1", id("Plant"));
  v.access_level = access::read_write;
  v.minimum_sampling_interval = 100;
  v.historizing = true;
  v.description = localized_text{ua::ua_string("en"), ua::ua_string("a tag")};
  v.range = eu_range{0, 100};
  v.units = engineering_units{};
  v.units->unit_id = 4408652;
  REQUIRE(apply(as, v) == ua::status::good);

  CHECK(has_reference(as, ns0::objects_folder, ids::organizes, id("Plant")));
  CHECK(has_reference(as, id("Plant"), ids::has_type_definition, node_id(0, ids::folder_type)));
  CHECK(has_reference(as, id("Plant"), ids::organizes, id("Plant.T1")));  // a folder organizes
  const auto n = as.find(id("Plant.T1"));
  const auto* var = as.variable(n);
  REQUIRE(var);
  CHECK(var->access_level == access::read_write);
  CHECK(var->minimum_sampling_interval == 100);
  CHECK(var->historizing);
  CHECK(*var->value.value.get_if<double>() == 1.5);
  CHECK(var->value.source_timestamp == t0);  // stamped with the time it was added
  CHECK(as.at(n).description.text == "a tag");
  const auto range = as.find(id("Plant.T1.EURange"));
  REQUIRE(range != ua::no_node);
  CHECK(has_reference(as, id("Plant.T1"), ids::has_property, id("Plant.T1.EURange")));
  const auto* r = as.variable(range)->value.value.get_if<ua::extension_object>()->get_if<ua::range>();
  REQUIRE(r);
  CHECK(r->high == 100);
  const auto units = as.find(id("Plant.T1.EngineeringUnits"));
  REQUIRE(units != ua::no_node);
  CHECK(as.variable(units)->value.value.get_if<ua::extension_object>()->get_if<ua::eu_information>()->unit_id == 4408652);
}

TEST_CASE("node_builder: each refusal has its status and adds nothing", "[actors]") {
  auto as = ns0_space();
  const auto before = as.size();
  CHECK(apply(as, tag("T", id("NoSuchParent"))) == ua::status::bad_parent_node_id_invalid);
  auto bad_type = tag("T", ns0::objects_folder);
  bad_type.type_definition = ns0::folder_type;  // an ObjectType, not a VariableType
  CHECK(apply(as, bad_type) == ua::status::bad_type_definition_invalid);
  auto bad_value = tag("T", ns0::objects_folder);
  bad_value.value.set_value(ua::ua_string("not a double"));
  CHECK(apply(as, bad_value) == ua::status::bad_type_mismatch);
  auto bad_data_type = tag("T", ns0::objects_folder);
  bad_data_type.data_type = id("NoSuchType");
  CHECK(apply(as, bad_data_type) == ua::status::bad_node_attributes_invalid);
  auto bad_reference = tag("T", ns0::objects_folder);
  bad_reference.reference_type = node_id(0, ids::hierarchical_references);  // abstract
  CHECK(apply(as, bad_reference) == ua::status::bad_reference_type_id_invalid);
  CHECK(as.size() == before);
  REQUIRE(apply(as, tag("T", ns0::objects_folder)) == ua::status::good);
  CHECK(apply(as, tag("T", ns0::objects_folder)) == ua::status::bad_node_id_exists);
  CHECK(apply(as, node_removal{node_id(0, ids::server)}) == ua::status::bad_no_delete_rights);
  CHECK(apply(as, node_removal{id("Gone")}) == ua::status::bad_node_id_unknown);
}

TEST_CASE("node_builder: an instance of an ObjectType gets copies of its mandatory declarations, also inherited ones",
          "[actors]") {
  auto as = ns0_space();
  object_type_node base;
  base.id = id("DeviceType");
  base.browse_name = name("DeviceType");
  REQUIRE(apply(as, base) == ua::status::good);
  auto serial = tag("SerialNumber", id("DeviceType"));
  serial.rule = modelling_rule::mandatory;
  REQUIRE(apply(as, serial) == ua::status::good);
  auto optional = tag("Manual", id("DeviceType"));
  optional.rule = modelling_rule::optional;
  REQUIRE(apply(as, optional) == ua::status::good);
  object_type_node pump_type;
  pump_type.id = id("PumpType");
  pump_type.browse_name = name("PumpType");
  pump_type.super_type = id("DeviceType");
  REQUIRE(apply(as, pump_type) == ua::status::good);
  auto speed = tag("Speed", id("PumpType"));
  speed.rule = modelling_rule::mandatory;
  REQUIRE(apply(as, speed) == ua::status::good);
  method_node start;
  start.id = id("PumpType.Start");
  start.parent = id("PumpType");
  start.browse_name = name("Start");
  start.rule = modelling_rule::mandatory;
  start.inputs = {method_argument("speed", node_id(0, ids::double_))};
  REQUIRE(apply(as, start) == ua::status::good);
  CHECK(has_reference(as, id("DeviceType"), ids::has_subtype, id("PumpType")));

  object_node pump;
  pump.id = id("Pump1");
  pump.parent = ns0::objects_folder;
  pump.browse_name = name("Pump1");
  pump.type_definition = id("PumpType");
  REQUIRE(apply(as, pump) == ua::status::good);
  CHECK(has_reference(as, id("Pump1"), ids::has_component, id("Pump1.Speed")));
  CHECK(has_reference(as, id("Pump1"), ids::has_component, id("Pump1.SerialNumber")));  // from the supertype
  CHECK(as.find(id("Pump1.Manual")) == ua::no_node);                                    // optional: not copied
  CHECK(has_reference(as, id("Pump1"), ids::has_component, id("PumpType.Start")));      // the method is shared
  // A copy is not an instance declaration: no modelling rule on it.
  CHECK(!has_reference(as, id("Pump1.Speed"), ids::has_modelling_rule, node_id(0, ids::modelling_rule_mandatory)));
  CHECK(has_reference(as, id("PumpType.Start"), ids::has_property, id("PumpType.Start.InputArguments")));
}

TEST_CASE("node_builder: an instance also gets the declarations of its type's interfaces (HasInterface)", "[actors]") {
  auto as = ns0_space();
  // Part 3 §4.10.2: interfaces are abstract subtypes of BaseInterfaceType.
  object_type_node nameplate;
  nameplate.id = id("INameplateType");
  nameplate.browse_name = name("INameplateType");
  nameplate.super_type = node_id(0, ids::base_interface_type);
  nameplate.is_abstract = true;
  REQUIRE(apply(as, nameplate) == ua::status::good);
  for (const char* member : {"Manufacturer", "SerialNumber"}) {
    auto v = tag(member, id("INameplateType"));
    v.id = id(std::string("INameplateType.") + member);
    v.rule = modelling_rule::mandatory;
    REQUIRE(apply(as, v) == ua::status::good);
  }
  auto optional = tag("INameplateType.Model", id("INameplateType"));
  optional.browse_name = name("Model");
  optional.rule = modelling_rule::optional;
  REQUIRE(apply(as, optional) == ua::status::good);

  object_type_node base;  // the interface is on the supertype, as Machinery's MachineryItemIdentificationType has it
  base.id = id("ItemType");
  base.browse_name = name("ItemType");
  REQUIRE(apply(as, base) == ua::status::good);
  REQUIRE(apply(as, reference_node{id("ItemType"), node_id(0, ids::has_interface), id("INameplateType")}) ==
          ua::status::good);
  // The type's own SerialNumber (a String) overrides the interface's (a Double).
  auto own_serial = tag("ItemType.SerialNumber", id("ItemType"));
  own_serial.browse_name = name("SerialNumber");
  own_serial.data_type = node_id(0, ids::string);
  own_serial.value.set_value(ua::ua_string("S-1"));
  own_serial.rule = modelling_rule::mandatory;
  REQUIRE(apply(as, own_serial) == ua::status::good);
  object_type_node machine_type;
  machine_type.id = id("MachineType");
  machine_type.browse_name = name("MachineType");
  machine_type.super_type = id("ItemType");
  REQUIRE(apply(as, machine_type) == ua::status::good);

  object_node m;
  m.id = id("Press");
  m.parent = ns0::objects_folder;
  m.browse_name = name("Press");
  m.type_definition = id("MachineType");
  REQUIRE(apply(as, m) == ua::status::good);
  CHECK(has_reference(as, id("Press"), ids::has_component, id("Press.Manufacturer")));  // from the interface
  const auto serial = as.find(id("Press.SerialNumber"));
  REQUIRE(serial != ua::no_node);
  CHECK(as.variable(serial)->data_type.matches(node_id(0, ids::string)));  // the type's own wins
  CHECK(as.find(id("Press.Model")) == ua::no_node);                        // optional: only when asked

  object_node with_model = m;
  with_model.id = id("Press2");
  with_model.browse_name = name("Press2");
  with_model.optional = {name("Model")};
  REQUIRE(apply(as, with_model) == ua::status::good);
  CHECK(as.find(id("Press2.Model")) != ua::no_node);
}

TEST_CASE("node_builder: removing a node takes its owned children and every reference at both ends", "[actors]") {
  auto as = ns0_space();
  REQUIRE(apply(as, folder(id("Plant"), ns0::objects_folder, "Plant")) == ua::status::good);
  auto v = tag("Plant.T1", id("Plant"));
  v.range = eu_range{0, 10};
  REQUIRE(apply(as, v) == ua::status::good);
  REQUIRE(apply(as, reference_node{ns0::objects_folder, ns0::organizes, id("Plant.T1")}) == ua::status::good);
  const auto refs = as.reference_count();
  // Plant.T1 is referenced from Objects too: removing Plant leaves it.
  REQUIRE(apply(as, node_removal{id("Plant")}) == ua::status::good);
  CHECK(as.find(id("Plant")) == ua::no_node);
  CHECK(as.find(id("Plant.T1")) != ua::no_node);
  CHECK(as.reference_count() == refs - 3);  // Objects->Plant, Plant->FolderType, Plant->T1
  REQUIRE(apply(as, node_removal{id("Plant.T1")}) == ua::status::good);
  CHECK(as.find(id("Plant.T1")) == ua::no_node);
  CHECK(as.find(id("Plant.T1.EURange")) == ua::no_node);
  for (const auto& r : as.forward_references(as.find(ns0::objects_folder))) CHECK(!as.at(r.target).removed);
  ua::data_value out;
  CHECK(as.read(as.find(ns0::objects_folder), ua::attribute_id::node_id, out).is_good());
  // The id may be used again.
  CHECK(apply(as, tag("Plant.T1", ns0::objects_folder)) == ua::status::good);
}

TEST_CASE("address_space: removal keeps every other node findable (open addressing, backward shift)", "[protocol]") {
  ua::address_space as;
  ua::load_namespace0(as);
  for (int i = 0; i < 2000; ++i) REQUIRE(apply(as, tag("N" + std::to_string(i), ns0::objects_folder)) == ua::status::good);
  for (int i = 0; i < 2000; i += 3) REQUIRE(as.remove_node(as.find(id("N" + std::to_string(i)))) == ua::status::good);
  for (int i = 0; i < 2000; ++i) {
    const bool removed = i % 3 == 0;
    CHECK((as.find(id("N" + std::to_string(i))) == ua::no_node) == removed);
  }
  CHECK(as.find(node_id(0, ids::server)) != ua::no_node);
}

}  // namespace server_node_builder_test
