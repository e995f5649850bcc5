// Applies the application's node descriptions (include/uactor/nodes.hpp) to the address space:
// the node with its attributes, the reference from its parent, its type definition and modelling
// rule, the properties a description implies (EURange, EngineeringUnits, InputArguments,
// OutputArguments) and, for an instance of a type, copies of the type's mandatory instance
// declarations (Part 3 §6.4). Plain functions: the session host calls them, tests call them directly.
#pragma once

#include "protocol/address_space.hpp"
#include "uactor/nodes.hpp"

namespace uactor::actors {

// One change, all or nothing: a node that fails a check is not added. Statuses (Part 4 §5.8.2):
// Bad_NodeIdInvalid, Bad_NodeIdExists, Bad_ParentNodeIdInvalid (no such parent, or a type's
// super_type of another class), Bad_ReferenceTypeIdInvalid, Bad_TypeDefinitionInvalid,
// Bad_BrowseNameInvalid, Bad_NodeAttributesInvalid (an unknown DataType), Bad_TypeMismatch (an
// initial value that does not fit the DataType and ValueRank), Bad_NodeIdUnknown (a removal or a
// reference end that does not exist), Bad_NoDeleteRights (removing a node of namespace 0).
// `now` stamps initial values that come without timestamps.
ua::status_code apply_node_change(ua::address_space& as, const node_change& change, ua::date_time now);

// The NodeId a node added for `browse_name` under `parent` gets when it has none of its own
// (instance declarations copied into an instance, properties): `<parent>.<browse name>` as a
// String id in the parent's namespace, the parent's String id, or its number, as the prefix.
ua::node_id child_node_id(const ua::node_id& parent, std::string_view browse_name);

}  // namespace uactor::actors
