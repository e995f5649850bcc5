// The Write service (Part 4 §5.10.4) as a plain function over the address space: typed request
// in, typed response out. It changes the store, so it takes it non-const.
#pragma once

#include "engine/server/services/access_attributes.hpp"
#include "engine/server/services/service_limits.hpp"
#include "protocol/address_space.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::services {

// Bad_NothingToDo and Bad_TooManyOperations in the service result; otherwise one
// write_operation per item. `now` is the server timestamp of written values.
void service_write(const ua::write_request& req, ua::write_response& resp, ua::address_space& as,
                   ua::date_time now, const service_limits& limits = {}, const node_access& access = {});

// One WriteValue. Value: Bad_NotWritable (AccessLevel without CurrentWrite), Bad_TypeMismatch
// (DataType or ValueRank), Bad_WriteNotSupported (a status or timestamp the AccessLevel does not let
// be written, or no value), Bad_IndexRangeInvalid/NoData/DataMismatch. DisplayName and Description
// per WriteMask; any other attribute Bad_NotWritable. Bad_NodeIdUnknown, Bad_AttributeIdInvalid.
// Bad_UserAccessDenied: the session's roles lack Write (the Value) or WriteAttribute (the others).
ua::status_code write_operation(const ua::write_value& wv, ua::address_space& as, ua::date_time now,
                                const node_access& access = {});

// Bad_UserAccessDenied when the session may not write this attribute of n (Part 3 §8.55: Write for
// the Value, WriteAttribute for the others), else Good.
ua::status_code check_write_permission(ua::node_index n, std::uint32_t attribute_id, const node_access& access) noexcept;

// The checks of a Value write_operation without the store: `next` gets what the variable would
// hold (the IndexRange applied, the timestamps set) and `n` the node. For writes the application
// decides on (docs/embedding.md). The same statuses as write_operation.
ua::status_code prepare_value_write(const ua::write_value& wv, const ua::address_space& as, ua::date_time now,
                                    ua::node_index& n, ua::data_value& next, const node_access& access = {});

// Whether `v` may be the value of a Variable with this DataType and ValueRank (Part 4 §5.10.4.1:
// the value's built-in type is the DataType, a subtype of it, or the built-in type it derives
// from; an Enumeration is written as Int32). A null value is accepted.
bool value_fits(const ua::address_space& as, const ua::variant& v, const ua::node_id& data_type,
                std::int32_t value_rank);

}  // namespace uactor::services
