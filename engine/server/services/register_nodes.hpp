// RegisterNodes and UnregisterNodes (Part 4 §5.8.5-5.8.6) as plain functions. uactor's NodeIds are
// already found by one hash lookup, so registering aliases nothing: the ids come back unchanged.
#pragma once

#include "engine/server/services/service_limits.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::services {

// Bad_NothingToDo (empty), Bad_TooManyOperations (limits.max_nodes_per_register_nodes) and
// Bad_NodeIdInvalid (a null NodeId in the list) refuse the whole request in the service result,
// with no ids; otherwise registeredNodeIds = nodesToRegister. The NodeIds need not exist (Part 4
// §5.8.5.1: a Server may check them later, when they are used). `now` is the response's timestamp.
void service_register_nodes(const ua::register_nodes_request& req, ua::register_nodes_response& resp,
                            ua::date_time now, const service_limits& limits = {});

// Bad_NothingToDo and Bad_TooManyOperations; otherwise Good: ids that were never registered are
// ignored (Part 4 §5.8.6.1), and nothing was kept for the others.
void service_unregister_nodes(const ua::unregister_nodes_request& req, ua::unregister_nodes_response& resp,
                              ua::date_time now, const service_limits& limits = {});

}  // namespace uactor::services
