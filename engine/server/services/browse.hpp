// The View services Browse, BrowseNext (Part 4 §5.8.2, §5.8.3) and TranslateBrowsePathsToNodeIds
// (§5.8.4) as plain functions over the address space, and the per-session store of Browse
// continuation points they share. The session owns one browse_continuations; the caller owns the
// requests and responses.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/server/services/access_attributes.hpp"
#include "engine/server/services/continuation_points.hpp"
#include "engine/server/services/service_limits.hpp"
#include "protocol/address_space.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::services {

// Where a Browse stopped (Part 4 §7.9): the filter of its BrowseDescription, resolved to node
// indices, and the last reference returned, by its serial (docs/decisions/0025). References
// removed since are not returned, none is returned twice, and references added since are
// returned when the walk has not yet passed their part (forward or inverse).
struct browse_position {
  ua::node_index node = ua::no_node;
  ua::node_index reference_type = ua::no_node;  // no_node: every reference type
  ua::browse_direction direction = ua::browse_direction::forward;
  bool include_subtypes = false;
  std::uint32_t node_class_mask = 0;
  std::uint32_t result_mask = 0;
  std::uint32_t max_references = 0;  // already resolved (never 0)
  std::uint32_t epoch = 0;           // the node's serial_epoch when the Browse began
  bool in_inverse = false;           // the inverse references are being walked
  std::uint32_t after = 0;           // serial of the last reference returned (0: none yet)
};

// The continuation points of one session (continuation_points.hpp).
class browse_continuations : public continuation_table<browse_position> {
public:
  explicit browse_continuations(std::size_t capacity = service_limits{}.max_browse_continuation_points)
      : continuation_table(capacity) {}
};

// Bad_NothingToDo, Bad_TooManyOperations and Bad_ViewIdUnknown (a non-null View: views are not
// served yet) in the service result; per item Bad_NodeIdUnknown, Bad_BrowseDirectionInvalid,
// Bad_ReferenceTypeIdInvalid, Bad_NoContinuationPoints, Bad_UserAccessDenied (the session may not
// Browse the node). A reference whose target the session may not Browse is left out (Part 3 §8.55).
void service_browse(const ua::browse_request& req, ua::browse_response& resp, const ua::address_space& as,
                    browse_continuations& points, const service_limits& limits = {}, const node_access& access = {});

// Bad_NothingToDo, Bad_TooManyOperations in the service result; per item
// Bad_ContinuationPointInvalid for an unknown or released point, Bad_NodeIdUnknown when the node
// was removed since (Part 4 §5.9.3.4; the point is released). With releaseContinuationPoints the
// points are released and no references returned.
void service_browse_next(const ua::browse_next_request& req, ua::browse_next_response& resp,
                         const ua::address_space& as, browse_continuations& points,
                         const service_limits& limits = {}, const node_access& access = {});

// Bad_NothingToDo, Bad_TooManyOperations in the service result; per path Bad_NodeIdUnknown (start
// node), Bad_NothingToDo (empty relative path), Bad_BrowseNameInvalid (an element without a target
// name), Bad_NoMatch (also when every match is a node the session may not Browse).
void service_translate_browse_paths(const ua::translate_browse_paths_to_node_ids_request& req,
                                    ua::translate_browse_paths_to_node_ids_response& resp,
                                    const ua::address_space& as, const service_limits& limits = {},
                                    const node_access& access = {});

}  // namespace uactor::services
