// Tests of protocol/address_space and of namespace 0 as tools/codegen/nodeset.py generates it
// into protocol/ns0/: the nodes, references and values of Opc.Ua.NodeSet2.xml, lookups that
// allocate nothing, and Read of one attribute with the status of Part 4 §5.10.2.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "protocol/address_space.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"
#include "protocol/ns0/ns0.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/regenerate.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace protocol_address_space_test {

namespace fs = std::filesystem;
namespace ua = uactor::ua;  // ua::ns0 below: not from a neighbour of the unity batch
using namespace uactor::ua;

namespace {

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Namespace 0, loaded once for the tests that only read it.
const address_space& loaded() {
  static const address_space as = [] {
    address_space a;
    load_namespace0(a);
    return a;
  }();
  return as;
}

node_index index_of(std::uint32_t id) { return loaded().find(node_id(0, id)); }

// Whether `source` has a forward reference of exactly `type` to `target`.
bool has_forward(const address_space& as, node_index source, std::uint32_t type, node_index target) {
  const auto t = as.find(node_id(0, type));
  const auto refs = as.forward_references(source);
  return std::any_of(refs.begin(), refs.end(), [&](const reference& r) { return r.type == t && r.target == target; });
}

bool has_inverse(const address_space& as, node_index target, std::uint32_t type, node_index source) {
  const auto t = as.find(node_id(0, type));
  const auto refs = as.inverse_references(target);
  return std::any_of(refs.begin(), refs.end(), [&](const reference& r) { return r.type == t && r.target == source; });
}

// The target of a forward hierarchical reference (Part 3 §7.3) with this browse name.
node_index child(const address_space& as, node_index parent, std::string_view browse_name) {
  const auto hierarchical = as.find(node_id(0, ids::hierarchical_references));
  for (const auto& r : as.forward_references(parent))
    if (as.is_subtype_of(r.type, hierarchical) && as.at(r.target).browse_name == browse_name) return r.target;
  return no_node;
}

std::size_t count_occurrences(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("address_space: namespace 0 has as many nodes as Opc.Ua.NodeSet2.xml", "[protocol]") {
  const auto& as = loaded();
  CHECK(as.size() == ua::ns0::node_count);
  CHECK(as.reference_count() == ua::ns0::reference_count);
  CHECK(as.size() > 4000);
  CHECK(as.reference_count() > 10000);

  std::size_t forward = 0, inverse = 0;
  for (node_index n = 0; n < as.size(); ++n) {
    forward += as.forward_references(n).size();
    inverse += as.inverse_references(n).size();
  }
  CHECK(forward == as.reference_count());  // each reference is stored at both of its ends
  CHECK(inverse == as.reference_count());

  const std::string schema = uactor::test::schema_dir();
  if (schema.empty()) {
    WARN("skipped the count against the XML: schema folder not present");
    return;
  }
  const std::string xml = file_bytes(fs::path(schema) / "Opc.Ua.NodeSet2.xml");
  std::size_t in_xml = 0;
  for (const char* element : {"<UAObject ", "<UAVariable ", "<UAMethod ", "<UAObjectType ", "<UAVariableType ",
                              "<UAReferenceType ", "<UADataType ", "<UAView "})
    in_xml += count_occurrences(xml, element);
  CHECK(as.size() == in_xml);
}

TEST_CASE("address_space: namespace 0 has the Server object and its ServerStatus", "[protocol]") {
  const auto& as = loaded();
  const auto root = index_of(ids::root_folder), objects = index_of(ids::objects_folder), server = index_of(ids::server);
  REQUIRE(root != no_node);
  REQUIRE(objects != no_node);
  REQUIRE(server != no_node);
  CHECK(has_forward(as, root, ids::organizes, objects));
  CHECK(has_forward(as, objects, ids::organizes, server));
  CHECK(as.at(server).cls == node_class::object);
  CHECK(as.at(server).browse_name == "Server");
  CHECK(child(as, root, "Objects") == objects);
  CHECK(child(as, objects, "Server") == server);

  const auto status = index_of(ids::server_server_status);
  REQUIRE(status != no_node);
  CHECK(has_forward(as, server, ids::has_component, status));
  CHECK(child(as, server, "ServerStatus") == status);
  CHECK(as.at(status).cls == node_class::variable);
  const variable_data* v = as.variable(status);
  REQUIRE(v != nullptr);
  CHECK(v->data_type.to_node_id() == node_id(0, ids::server_status_data_type));
  CHECK(v->minimum_sampling_interval == 0.0);  // 1.05.03 said 1000 ms here and on 39 other Server nodes; 1.05.07 says none
  CHECK(has_forward(as, status, ids::has_type_definition, index_of(ids::server_status_type)));

  data_value dv;
  REQUIRE(as.read(node_id(0, ids::server_server_status), attribute_id::data_type, dv) == status::good);
  REQUIRE(dv.value.get_if<node_id>() != nullptr);
  CHECK(*dv.value.get_if<node_id>() == node_id(0, ids::server_status_data_type));
  CHECK(dv.has_value);
  CHECK_FALSE(dv.has_status);
}

TEST_CASE("address_space: Server_NamespaceArray is a String array property of the Server", "[protocol]") {
  const auto& as = loaded();
  const auto n = index_of(ids::server_namespace_array);
  REQUIRE(n != no_node);
  CHECK(has_forward(as, index_of(ids::server), ids::has_property, n));
  CHECK(has_forward(as, n, ids::has_type_definition, index_of(ids::property_type)));
  data_value dv;
  REQUIRE(as.read(n, attribute_id::browse_name, dv) == status::good);
  CHECK(*dv.value.get_if<qualified_name>() == qualified_name{0, "NamespaceArray"});
  REQUIRE(as.read(n, attribute_id::data_type, dv) == status::good);
  CHECK(*dv.value.get_if<node_id>() == node_id(0, ids::string));
  REQUIRE(as.read(n, attribute_id::value_rank, dv) == status::good);
  CHECK(*dv.value.get_if<std::int32_t>() == 1);
  REQUIRE(as.read(n, attribute_id::array_dimensions, dv) == status::good);
  CHECK(*dv.value.get_if<ua_array<std::uint32_t>>() == ua_array<std::uint32_t>{0});
  REQUIRE(as.read(n, attribute_id::access_level, dv) == status::good);
  CHECK(*dv.value.get_if<std::uint8_t>() == 1);  // CurrentRead, the NodeSet default
}

TEST_CASE("address_space: Server_ServerCapabilities has its OperationLimits", "[protocol]") {
  const auto& as = loaded();
  const auto caps = index_of(ids::server_server_capabilities);
  const auto limits = index_of(ids::server_server_capabilities_operation_limits);
  REQUIRE(caps != no_node);
  REQUIRE(limits != no_node);
  CHECK(has_forward(as, index_of(ids::server), ids::has_component, caps));
  CHECK(has_forward(as, caps, ids::has_component, limits));
  CHECK(has_forward(as, limits, ids::has_type_definition, index_of(ids::operation_limits_type)));
  // The browse path Objects/Server/ServerCapabilities/OperationLimits/MaxNodesPerRead from Root.
  node_index n = index_of(ids::root_folder);
  for (const char* name : {"Objects", "Server", "ServerCapabilities", "OperationLimits", "MaxNodesPerRead"}) {
    INFO(name);
    n = child(as, n, name);
    REQUIRE(n != no_node);
  }
  CHECK(n == index_of(ids::server_server_capabilities_operation_limits_max_nodes_per_read));
  CHECK(as.variable(n)->data_type.to_node_id() == node_id(0, ids::u_int32));
}

TEST_CASE("address_space: BaseDataVariableType and its subtypes", "[protocol]") {
  const auto& as = loaded();
  const auto base_variable = index_of(ids::base_variable_type);
  const auto base_data_variable = index_of(ids::base_data_variable_type);
  const auto property = index_of(ids::property_type);
  const auto server_status = index_of(ids::server_status_type);
  CHECK(as.at(base_data_variable).cls == node_class::variable_type);
  CHECK(as.at(base_variable).is_abstract);
  CHECK_FALSE(as.at(base_data_variable).is_abstract);
  CHECK(as.super_type(base_data_variable) == base_variable);
  CHECK(as.super_type(server_status) == base_data_variable);
  CHECK(as.super_type(base_variable) == no_node);
  CHECK(as.is_subtype_of(server_status, base_data_variable));
  CHECK(as.is_subtype_of(server_status, base_variable));
  CHECK(as.is_subtype_of(base_data_variable, base_data_variable));  // a type is its own subtype
  CHECK_FALSE(as.is_subtype_of(property, base_data_variable));
  CHECK_FALSE(as.is_subtype_of(base_variable, base_data_variable));
  CHECK_FALSE(as.is_subtype_of(no_node, base_variable));

  data_value dv;
  REQUIRE(as.read(base_variable, attribute_id::is_abstract, dv) == status::good);
  CHECK(*dv.value.get_if<bool>() == true);
  REQUIRE(as.read(base_data_variable, attribute_id::value_rank, dv) == status::good);
  CHECK(*dv.value.get_if<std::int32_t>() == -2);  // Any
}

TEST_CASE("address_space: HasSubtype leads from Int32 to Integer, Number and BaseDataType", "[protocol]") {
  const auto& as = loaded();
  CHECK(as.super_type(index_of(ids::int32)) == index_of(ids::integer));
  CHECK(as.super_type(index_of(ids::integer)) == index_of(ids::number));
  CHECK(as.super_type(index_of(ids::number)) == index_of(ids::base_data_type));
  CHECK(as.super_type(index_of(ids::base_data_type)) == no_node);
  CHECK(as.is_subtype_of(node_id(0, ids::int32), node_id(0, ids::base_data_type)));
  CHECK(as.is_subtype_of(node_id(0, ids::int32), node_id(0, ids::number)));
  CHECK_FALSE(as.is_subtype_of(node_id(0, ids::base_data_type), node_id(0, ids::int32)));
  CHECK_FALSE(as.is_subtype_of(node_id(0, ids::int32), node_id(0, ids::u_integer)));
  CHECK_FALSE(as.is_subtype_of(node_id(0, ids::int32), node_id(7, 6)));  // not in the store
  CHECK(as.at(index_of(ids::number)).cls == node_class::data_type);
  CHECK(as.at(index_of(ids::number)).is_abstract);
  // Inverse references are there: the supertype sees its subtypes.
  CHECK(has_inverse(as, index_of(ids::int32), ids::has_subtype, index_of(ids::integer)));
  CHECK(has_forward(as, index_of(ids::integer), ids::has_subtype, index_of(ids::int32)));
}

TEST_CASE("address_space: a method's InputArguments decode into ua::argument", "[protocol]") {
  const auto& as = loaded();
  const auto method = index_of(ids::server_get_monitored_items);
  const auto args = index_of(ids::server_get_monitored_items_input_arguments);
  REQUIRE(method != no_node);
  REQUIRE(args != no_node);
  CHECK(as.at(method).cls == node_class::method);
  CHECK(has_forward(as, method, ids::has_property, args));

  data_value dv;
  REQUIRE(as.read(args, attribute_id::value, dv) == status::good);
  CHECK(dv.has_value);
  const auto* list = dv.value.get_if<ua_array<extension_object>>();
  REQUIRE(list != nullptr);
  REQUIRE(list->size() == 1);
  const argument* a = (*list)[0].get_if<argument>();
  REQUIRE(a != nullptr);
  CHECK(a->name.view() == "SubscriptionId");
  CHECK(a->data_type == node_id(0, ids::u_int32));
  CHECK(a->value_rank == -1);
  CHECK(a->array_dimensions.empty());
  CHECK((*list)[0].type_id() == node_id(0, argument::binary_encoding_id));

  REQUIRE(as.read(method, attribute_id::executable, dv) == status::good);
  CHECK(*dv.value.get_if<bool>() == true);
}

TEST_CASE("address_space: values of namespace 0 keep their types", "[protocol]") {
  const auto& as = loaded();
  data_value dv;
  // NamingRuleType's EnumValues: EnumValueType[].
  const auto naming_rule = index_of(ids::naming_rule_type_enum_values);
  REQUIRE(naming_rule != no_node);
  REQUIRE(as.read(naming_rule, attribute_id::value, dv) == status::good);
  const auto* values = dv.value.get_if<ua_array<extension_object>>();
  REQUIRE(values != nullptr);
  REQUIRE(values->size() == 3);
  const enum_value_type* e = (*values)[0].get_if<enum_value_type>();
  REQUIRE(e != nullptr);
  CHECK(e->value == 1);
  CHECK(e->display_name.text.view() == "Mandatory");

  // ServerStatusDataType has no value in the XML; a String array of enum strings does.
  REQUIRE(as.read(index_of(ids::server_state_enum_strings), attribute_id::value, dv) == status::good);
  const auto* strings = dv.value.get_if<ua_array<localized_text>>();
  REQUIRE(strings != nullptr);
  CHECK(strings->size() == 8);
  CHECK((*strings)[0].text.view() == "Running");
}

TEST_CASE("address_space: DataTypes carry their DataTypeDefinition", "[protocol]") {
  const auto& as = loaded();
  data_value dv;
  // Part 5 §12.10: ServerStatusDataType, a Structure of six fields.
  REQUIRE(as.read(node_id(0, ids::server_status_data_type), attribute_id::data_type_definition, dv) == status::good);
  const auto* eo = dv.value.get_if<extension_object>();
  REQUIRE(eo != nullptr);
  const structure_definition* s = eo->get_if<structure_definition>();
  REQUIRE(s != nullptr);
  CHECK(s->default_encoding_id == node_id(0, ids::server_status_data_type_encoding_default_binary));
  CHECK(s->base_data_type == node_id(0, ids::structure));
  CHECK(s->structure_type == structure_type::structure);
  REQUIRE(s->fields.size() == 6);
  CHECK(s->fields[0].name.view() == "StartTime");
  CHECK(s->fields[0].data_type == node_id(0, ids::utc_time));
  CHECK(s->fields[0].value_rank == -1);
  CHECK(s->fields[2].name.view() == "State");
  CHECK(s->fields[2].data_type == node_id(0, ids::server_state));

  // Part 3 §8.29: NodeClass, an Enumeration.
  REQUIRE(as.read(node_id(0, ids::node_class), attribute_id::data_type_definition, dv) == status::good);
  const enum_definition* e = dv.value.get_if<extension_object>()->get_if<enum_definition>();
  REQUIRE(e != nullptr);
  REQUIRE(e->fields.size() == 9);
  CHECK(e->fields[1].name.view() == "Object");
  CHECK(e->fields[1].value == 1);
  CHECK(e->fields[1].display_name.text.view() == "Object");

  // Part 3 §8.51: a StructureWithSubtypedValues marks with IsOptional the fields that allow
  // subtypes (Opc.Ua.NodeSet2.xml's AllowSubTypes="true"): PubSubConnectionDataType's Address and
  // TransportSettings; its other fields are always there.
  REQUIRE(as.read(node_id(0, ids::pub_sub_connection_data_type), attribute_id::data_type_definition, dv) == status::good);
  const structure_definition* pubsub = dv.value.get_if<extension_object>()->get_if<structure_definition>();
  REQUIRE(pubsub != nullptr);
  CHECK(pubsub->structure_type == structure_type::structure_with_subtyped_values);
  for (const structure_field& f : pubsub->fields) {
    INFO(f.name.view());
    CHECK(f.is_optional == (f.name.view() == "Address" || f.name.view() == "TransportSettings"));
  }

  // An abstract type without a definition, and a node that is no DataType.
  CHECK(as.read(node_id(0, ids::number), attribute_id::data_type_definition, dv) == status::bad_attribute_id_invalid);
  CHECK(as.read(node_id(0, ids::server), attribute_id::data_type_definition, dv) == status::bad_attribute_id_invalid);
}

TEST_CASE("address_space: reading an attribute the node class lacks is Bad_AttributeIdInvalid", "[protocol]") {
  const auto& as = loaded();
  data_value dv;
  const node_id server(0, ids::server);
  CHECK(as.read(server, attribute_id::value, dv) == status::bad_attribute_id_invalid);
  CHECK(dv.has_status);
  CHECK(dv.status == status::bad_attribute_id_invalid);
  CHECK_FALSE(dv.has_value);
  CHECK(dv.value.empty());
  CHECK(as.read(server, attribute_id::is_abstract, dv) == status::bad_attribute_id_invalid);
  CHECK(as.read(server, attribute_id::executable, dv) == status::bad_attribute_id_invalid);
  CHECK(as.read(node_id(0, ids::base_data_variable_type), attribute_id::access_level, dv) == status::bad_attribute_id_invalid);
  CHECK(as.read(node_id(0, ids::has_subtype), attribute_id::value, dv) == status::bad_attribute_id_invalid);
  CHECK(as.read(server, static_cast<attribute_id>(0), dv) == status::bad_attribute_id_invalid);
  CHECK(as.read(server, static_cast<attribute_id>(999), dv) == status::bad_attribute_id_invalid);

  CHECK(as.read(node_id(0, 999'999), attribute_id::node_id, dv) == status::bad_node_id_unknown);
  CHECK(dv.status == status::bad_node_id_unknown);
  CHECK(as.read(node_id::string(1, "nope"), attribute_id::node_id, dv) == status::bad_node_id_unknown);

  // The attributes it has are Good.
  REQUIRE(as.read(server, attribute_id::node_class, dv) == status::good);
  CHECK(*dv.value.get_if<std::int32_t>() == 1);
  REQUIRE(as.read(server, attribute_id::event_notifier, dv) == status::good);
  CHECK(*dv.value.get_if<std::uint8_t>() == 1);  // SubscribeToEvents
  REQUIRE(as.read(server, attribute_id::display_name, dv) == status::good);
  CHECK(dv.value.get_if<localized_text>()->text.view() == "Server");
  CHECK(dv.value.get_if<localized_text>()->locale.is_null());
  REQUIRE(as.read(node_id(0, ids::has_subtype), attribute_id::inverse_name, dv) == status::good);
  CHECK(dv.value.get_if<localized_text>()->text.view() == "SubtypeOf");  // as Opc.Ua.NodeSet2.xml names it
  REQUIRE(as.read(node_id(0, ids::has_subtype), attribute_id::symmetric, dv) == status::good);
  CHECK(*dv.value.get_if<bool>() == false);
}

TEST_CASE("address_space: looking up a numeric namespace-0 node allocates nothing", "[protocol]") {
  const auto& as = loaded();
  data_value dv;
  REQUIRE(as.read(node_id(0, ids::server), attribute_id::browse_name, dv) == status::good);  // warm

  uactor::test::alloc_scope scope;
  std::size_t found = 0;
  for (std::uint32_t id : {ids::server, ids::server_server_status, ids::root_folder, ids::int32, 999'999u})
    found += as.find(node_id(0, id)) != no_node;
  const status_code sc = as.read(node_id(0, ids::server), attribute_id::browse_name, dv);
  const status_code sc2 = as.read(node_id(0, ids::server_server_status), attribute_id::node_id, dv);
  const status_code sc3 = as.read(node_id(0, ids::server_server_status), attribute_id::value_rank, dv);
  const auto counted = scope.counted();

  CHECK(found == 4);
  CHECK(sc == status::good);
  CHECK(sc2 == status::good);
  CHECK(sc3 == status::good);
  if (uactor::test::counts_allocations) CHECK(counted.allocations == 0);
}

TEST_CASE("address_space: user nodes with string ids, references at both ends, duplicates refused", "[protocol]") {
  address_space as;
  load_namespace0(as);
  const auto before = as.size();

  node_spec folder;
  folder.id = node_id::string(1, "plant");
  folder.cls = node_class::object;
  folder.browse_ns = 1;
  folder.browse_name = "Plant";
  folder.description = {"en", "the plant"};
  const auto plant = as.add_node(std::move(folder));
  REQUIRE(plant.has_value());

  node_spec temp;
  temp.id = node_id::string(1, std::string("plant.temperature.with.a.long.name"));
  temp.cls = node_class::variable;
  temp.browse_ns = 1;
  temp.browse_name = "Temperature";
  temp.data_type = node_id(0, ids::double_);
  temp.value.set_value(21.5);
  const auto t = as.add_node(std::move(temp));
  REQUIRE(t.has_value());
  CHECK(as.size() == before + 2);

  CHECK(as.add_reference(node_id(0, ids::objects_folder), node_id(0, ids::organizes), node_id::string(1, "plant")) ==
        status::good);
  CHECK(as.add_reference(*plant, index_of(ids::has_component), *t) == status::good);
  CHECK(as.add_reference(*plant, index_of(ids::has_component), *t) == status::bad_duplicate_reference_not_allowed);
  // The Objects folder has many forward references, "plant" one inverse: found on plant's side.
  CHECK(as.add_reference(node_id(0, ids::objects_folder), node_id(0, ids::organizes), node_id::string(1, "plant")) ==
        status::bad_duplicate_reference_not_allowed);
  CHECK(as.add_reference(*plant, index_of(ids::server), *t) == status::bad_reference_type_id_invalid);
  CHECK(as.add_reference(*plant, index_of(ids::hierarchical_references), *t) == status::bad_reference_type_id_invalid);
  CHECK(as.add_reference(node_id::string(1, "nope"), node_id(0, ids::organizes), node_id::string(1, "plant")) ==
        status::bad_source_node_id_invalid);
  CHECK(as.add_reference(*plant, index_of(ids::organizes), no_node) == status::bad_target_node_id_invalid);
  CHECK(has_inverse(as, *t, ids::has_component, *plant));
  CHECK(child(as, as.find(node_id(0, ids::objects_folder)), "Plant") == *plant);

  // Strings were copied: the spec's are gone, the node's are not.
  CHECK(as.find(node_id::string(1, "plant.temperature.with.a.long.name")) == *t);
  data_value dv;
  REQUIRE(as.read(*t, attribute_id::node_id, dv) == status::good);
  CHECK(*dv.value.get_if<node_id>() == node_id::string(1, "plant.temperature.with.a.long.name"));
  REQUIRE(as.read(*t, attribute_id::value, dv) == status::good);
  CHECK(*dv.value.get_if<double>() == 21.5);
  REQUIRE(as.read(*plant, attribute_id::description, dv) == status::good);
  CHECK(*dv.value.get_if<localized_text>() == localized_text{"en", "the plant"});
  REQUIRE(as.read(*plant, attribute_id::display_name, dv) == status::good);
  CHECK(*dv.value.get_if<localized_text>() == localized_text{{}, "Plant"});

  CHECK(as.set_value(*t, data_value{}) == status::good);
  CHECK(as.set_value(*plant, data_value{}) == status::bad_attribute_id_invalid);

  node_spec again;
  again.id = node_id::string(1, "plant");
  again.cls = node_class::object;
  again.browse_name = "Again";
  CHECK(as.add_node(std::move(again)).error() == status::bad_node_id_exists);
  node_spec null_id;
  null_id.cls = node_class::object;
  null_id.browse_name = "Null";
  CHECK(as.add_node(std::move(null_id)).error() == status::bad_node_id_invalid);
  node_spec no_class;
  no_class.id = node_id(1, 1);
  no_class.browse_name = "NoClass";
  CHECK(as.add_node(std::move(no_class)).error() == status::bad_node_class_invalid);

  guid g{0x72962B91, 0xFA75, 0x4AE6, {0x8D, 0x28, 0xB4, 0x04, 0xDC, 0x7D, 0xAF, 0x63}};
  node_spec by_guid;
  by_guid.id = node_id::guid_id(2, g);
  by_guid.cls = node_class::object;
  by_guid.browse_name = "ByGuid";
  const auto gn = as.add_node(std::move(by_guid));
  REQUIRE(gn.has_value());
  CHECK(as.find(node_id::guid_id(2, g)) == *gn);
  CHECK(as.find(node_id::guid_id(1, g)) == no_node);
  CHECK(as.at(*gn).id.to_node_id() == node_id::guid_id(2, g));

  // Loading namespace 0 twice is a programmer error.
  CHECK_THROWS_AS(load_namespace0(as), std::logic_error);
}

TEST_CASE("address_space: reference serials ascend within the forward and the inverse references through adds and removes",
          "[protocol]") {
  // Browse continuation points rely on it (docs/decisions/0025).
  address_space as;
  load_namespace0(as);
  auto object = [&](std::string name) {
    node_spec spec;
    spec.id = node_id::string(1, name);
    spec.cls = node_class::object;
    spec.browse_ns = 1;
    spec.browse_name = name;
    const auto n = as.add_node(std::move(spec));
    REQUIRE(n.has_value());
    return *n;
  };
  const node_index hub = object("hub");
  std::vector<node_index> others;
  std::mt19937 random(20);
  for (int i = 0; i < 200; ++i) {
    const node_index o = object("o" + std::to_string(i));
    others.push_back(o);
    // Forward and inverse references of the hub, interleaved.
    if (random() % 2) REQUIRE(as.add_reference(hub, index_of(ids::organizes), o) == status::good);
    else REQUIRE(as.add_reference(o, index_of(ids::has_component), hub) == status::good);
    if (i % 3 == 2) (void)as.remove_node(others[random() % others.size()]);  // may be gone already
  }
  auto ascending = [](std::span<const reference> part) {
    return std::adjacent_find(part.begin(), part.end(), [](const reference& a, const reference& b) {
             return a.serial >= b.serial;
           }) == part.end();
  };
  CHECK(as.forward_references(hub).size() > 20);
  CHECK(as.inverse_references(hub).size() > 20);
  CHECK(ascending(as.forward_references(hub)));
  CHECK(ascending(as.inverse_references(hub)));
  const auto last = as.at(hub).last_serial;
  CHECK(last == 200);  // one per reference end added, removed ones included
  as.renumber_references(hub);
  CHECK(as.at(hub).serial_epoch == 1);
  CHECK(as.at(hub).last_serial == as.references(hub).size());
  CHECK(ascending(as.references(hub)));  // forward then inverse, 1..n
}

TEST_CASE("address_space: many user nodes are found again after the index grows", "[protocol]") {
  address_space as;
  std::vector<node_index> added;
  for (std::uint32_t i = 1; i <= 20'000; ++i) {
    node_spec s;
    s.id = i % 2 ? node_id(3, i) : node_id::string(3, "n" + std::to_string(i));
    s.cls = node_class::object;
    s.browse_name = "x";
    const auto n = as.add_node(std::move(s));
    REQUIRE(n.has_value());
    added.push_back(*n);
  }
  for (std::uint32_t i = 1; i <= 20'000; ++i) {
    const node_id id = i % 2 ? node_id(3, i) : node_id::string(3, "n" + std::to_string(i));
    REQUIRE(as.find(id) == added[i - 1]);
  }
  CHECK(as.find(node_id(3, 20'001)) == no_node);
  CHECK(as.find(node_id(0, 1)) == no_node);
}

TEST_CASE("address_space: committed namespace 0 matches the schema", "[protocol][codegen]") {
  uactor::test::check_regenerated_output("nodeset.py", "protocol/ns0");
}

}  // namespace protocol_address_space_test
