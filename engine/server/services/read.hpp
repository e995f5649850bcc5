// The Read service (Part 4 §5.10.2) as a plain function over the address space: typed request in,
// typed response out. The caller owns both; the response's vectors keep their capacity between calls.
#pragma once

#include "engine/server/services/access_attributes.hpp"
#include "engine/server/services/service_limits.hpp"
#include "protocol/address_space.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::services {

// The whole request: Bad_NothingToDo, Bad_TooManyOperations, Bad_MaxAgeInvalid and
// Bad_TimestampsToReturnInvalid go to response_header.service_result (and no results); otherwise
// one read_operation per item. `now` is the server timestamp; `access` is what the session may do
// (the default: everything).
void service_read(const ua::read_request& req, ua::read_response& resp, const ua::address_space& as,
                  ua::date_time now, const service_limits& limits = {}, const node_access& access = {});

// One ReadValueId into `out`, reusing its storage: the value, or the item's status
// (Bad_NodeIdUnknown, Bad_AttributeIdInvalid, Bad_IndexRangeInvalid, Bad_IndexRangeNoData,
// Bad_DataEncodingInvalid, Bad_DataEncodingUnsupported, Bad_NotReadable, Bad_UserAccessDenied: the
// session's roles lack the permission, permission_to_read), with the timestamps TimestampsToReturn
// asks for (source timestamp only for the Value attribute). `ttr` is valid.
void read_operation(const ua::read_value_id& id, ua::timestamps_to_return ttr, const ua::address_space& as,
                    ua::date_time now, ua::data_value& out, const node_access& access = {});

}  // namespace uactor::services
