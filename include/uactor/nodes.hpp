// The nodes an application adds to a server's address space (Part 3): plain descriptions that the
// application (or the config loader) fills and the server applies, in the order given. They own
// their strings and values; nothing here holds server state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "uactor/ua/builtin_types.hpp"
#include "uactor/ua/status_codes.hpp"
#include "uactor/ua/types.hpp"
#include "uactor/ua/variant.hpp"

namespace uactor {

using ua::data_value;
using ua::date_time;
using ua::localized_text;
using ua::node_id;
using ua::qualified_name;
using ua::status_code;
using ua::variant;

// The status codes by their StatusCode.csv names: status::good, status::bad_out_of_range, ...
namespace status = ua::status;

// Namespace 0 nodes the descriptions refer to by default, and the built-in DataTypes (NodeIds.csv).
namespace ns0 {
inline const node_id boolean{0, 1};
inline const node_id int32{0, 6};
inline const node_id uint32{0, 7};
inline const node_id int64{0, 8};
inline const node_id float_{0, 10};
inline const node_id double_{0, 11};
inline const node_id string{0, 12};
inline const node_id date_time{0, 13};
inline const node_id base_data_type{0, 24};
inline const node_id base_object_type{0, 58};
inline const node_id folder_type{0, 61};
inline const node_id base_data_variable_type{0, 63};
inline const node_id property_type{0, 68};
inline const node_id objects_folder{0, 85};
inline const node_id organizes{0, 35};
inline const node_id has_component{0, 47};
inline const node_id has_property{0, 46};
}  // namespace ns0

// AccessLevel bits (Part 3 §8.57).
namespace access {
inline constexpr std::uint8_t read = 0x01;
inline constexpr std::uint8_t write = 0x02;
inline constexpr std::uint8_t read_write = read | write;
// HistoryRead (Part 3 §8.57): the node's history can be read (with historizing, docs/history.md).
inline constexpr std::uint8_t history_read = 0x04;
// HistoryWrite (Part 3 §8.57): HistoryUpdate may insert, replace and delete its history.
inline constexpr std::uint8_t history_write = 0x08;
// A client's Write may carry the value's StatusCode / its timestamps (Part 4 §5.10.4): without
// these bits such a Write is Bad_WriteNotSupported (an explicit Good status counts as none).
inline constexpr std::uint8_t status_write = 0x20;
inline constexpr std::uint8_t timestamp_write = 0x40;
}  // namespace access

// Part 3 §6.4.4: which instance declarations of a type an instance gets.
enum class modelling_rule : std::uint8_t {
  none,       // not an instance declaration (a node of its own)
  mandatory,  // every instance of the type gets a copy
  optional,   // declared on the type, added to an instance only when the application adds it
};

// What every node has (Part 3 §5.2) and where it hangs.
struct node_base {
  node_id id;
  // The node that references this one (a folder, an object, a type for an instance declaration).
  // Types (ObjectType, VariableType) hang under their super_type instead and leave this null.
  node_id parent;
  // From the parent to this node; null: Organizes for folders and objects under a folder,
  // HasProperty for properties (type_definition PropertyType), HasComponent otherwise.
  node_id reference_type;
  qualified_name browse_name;
  localized_text display_name;  // null text: the browse name
  localized_text description;
  std::uint32_t write_mask = 0;
  modelling_rule rule = modelling_rule::none;
};

struct object_node : node_base {
  node_id type_definition = ns0::base_object_type;  // an ObjectType: its mandatory children are created
  std::uint8_t event_notifier = 0;
  // Optional instance declarations of the type (and its supertypes) to create as well, by browse
  // name, e.g. {di_ns, "Model"}; their own mandatory children come with them.
  std::vector<qualified_name> optional;
};

// Part 8 §5.6.2: EURange and EngineeringUnits become properties of the variable.
struct eu_range {
  double low = 0;
  double high = 0;
};
struct engineering_units {
  std::string namespace_uri = "http://www.opcfoundation.org/UA/units/un/cefact";
  std::int32_t unit_id = -1;  // UNECE code, e.g. 4408652 ("CEL", degree Celsius)
  localized_text display_name;
  localized_text description;
};

struct variable_node : node_base {
  node_id type_definition = ns0::base_data_variable_type;
  node_id data_type = ns0::base_data_type;
  std::int32_t value_rank = -1;  // Scalar
  std::vector<std::uint32_t> array_dimensions;
  std::uint8_t access_level = access::read;
  double minimum_sampling_interval = 0;
  bool historizing = false;
  data_value value;  // the initial value; no source timestamp: the time it is added
  std::optional<eu_range> range;
  std::optional<engineering_units> units;
};

struct variable_type_node : node_base {
  node_id super_type = ns0::base_data_variable_type;
  node_id data_type = ns0::base_data_type;
  std::int32_t value_rank = -1;
  std::vector<std::uint32_t> array_dimensions;
  bool is_abstract = false;
  data_value value;  // the default value
};

// Its instance declarations are ordinary nodes added with parent = the type and a modelling rule.
struct object_type_node : node_base {
  node_id super_type = ns0::base_object_type;
  bool is_abstract = false;
};

// A Method with its InputArguments / OutputArguments properties (Part 3 §5.7.1). Its
// implementation is registered apart (server::on_call).
struct method_node : node_base {
  std::vector<ua::argument> inputs;
  std::vector<ua::argument> outputs;
  // The properties' NodeIds are <base>.InputArguments and <base>.OutputArguments, String ids in
  // the method's namespace; a null base: the method's own id.
  node_id arguments_id_base;
};

// A reference between two existing nodes, stored at both ends.
struct reference_node {
  node_id source;
  node_id type;
  node_id target;
};

// Removes a node, its references at both ends and (with_children) the nodes it owns through
// HasComponent and HasProperty that nothing else references. Monitored items on a removed
// variable get Bad_NodeIdUnknown.
struct node_removal {
  node_id id;
  bool with_children = true;
};

using node_change = std::variant<object_node, variable_node, variable_type_node, object_type_node, method_node,
                                 reference_node, node_removal>;

// A Folder (FolderType, organized from its parent).
inline object_node folder(node_id id, node_id parent, std::string_view browse_name) {
  object_node f;
  f.browse_name = qualified_name{id.namespace_index(), ua::ua_string(browse_name)};
  f.id = std::move(id);
  f.parent = std::move(parent);
  f.type_definition = ns0::folder_type;
  return f;
}

// An Argument of a method (Part 3 §8.6), scalar unless value_rank says otherwise.
inline ua::argument method_argument(std::string_view name, node_id data_type, std::int32_t value_rank = -1) {
  ua::argument a;
  a.name = ua::ua_string(name);
  a.data_type = std::move(data_type);
  a.value_rank = value_rank;
  a.array_dimensions.set_null();
  return a;
}

}  // namespace uactor
