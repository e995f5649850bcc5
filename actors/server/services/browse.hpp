// The View services Browse, BrowseNext (Part 4 §5.8.2, §5.8.3) and TranslateBrowsePathsToNodeIds
// (§5.8.4) as plain functions over the address space, and the per-session store of Browse
// continuation points they share. The session owns one browse_continuations; the caller owns the
// requests and responses.
#pragma once

#include <cstdint>
#include <vector>

#include "actors/server/services/service_limits.hpp"
#include "protocol/address_space.hpp"
#include "protocol/generated/types.hpp"

namespace uactor::services {

// Where a Browse stopped (Part 4 §7.9): the filter of its BrowseDescription, resolved to node
// indices, and the position in the node's reference list to go on from.
struct browse_position {
  ua::node_index node = ua::no_node;
  ua::node_index reference_type = ua::no_node;  // no_node: every reference type
  ua::browse_direction direction = ua::browse_direction::forward;
  bool include_subtypes = false;
  std::uint32_t node_class_mask = 0;
  std::uint32_t result_mask = 0;
  std::uint32_t max_references = 0;  // already resolved (never 0)
  std::uint32_t next = 0;            // index into address_space::references(node)
};

// The continuation points of one session: at most `capacity` at a time. A point is 8 opaque
// bytes (a counter shared by every session of the process) that no later point reuses, so a
// released or stale one, or one of another session, is recognised.
class browse_continuations {
public:
  explicit browse_continuations(std::size_t capacity = service_limits{}.max_browse_continuation_points);

  std::size_t capacity() const noexcept { return capacity_; }
  std::size_t size() const noexcept { return entries_.size(); }

  // A new point for `p` written into `out`; false when all `capacity` are taken.
  bool add(const browse_position& p, ua::byte_string& out);
  // The position of a live point, or null (unknown or released).
  browse_position* find(const ua::byte_string& point) noexcept;
  // Releases a point; false when it was not live.
  bool release(const ua::byte_string& point) noexcept;
  void clear() noexcept { entries_.clear(); }

private:
  struct entry {
    std::uint64_t id;
    browse_position position;
  };
  std::size_t capacity_;
  std::vector<entry> entries_;
};

// Bad_NothingToDo, Bad_TooManyOperations and Bad_ViewIdUnknown (a non-null View: views are not
// served yet) in the service result; per item Bad_NodeIdUnknown, Bad_BrowseDirectionInvalid,
// Bad_ReferenceTypeIdInvalid, Bad_NoContinuationPoints.
void service_browse(const ua::browse_request& req, ua::browse_response& resp, const ua::address_space& as,
                    browse_continuations& points, const service_limits& limits = {});

// Bad_NothingToDo, Bad_TooManyOperations in the service result; per item
// Bad_ContinuationPointInvalid for an unknown or released point. With releaseContinuationPoints
// the points are released and no references returned.
void service_browse_next(const ua::browse_next_request& req, ua::browse_next_response& resp,
                         const ua::address_space& as, browse_continuations& points,
                         const service_limits& limits = {});

// Bad_NothingToDo, Bad_TooManyOperations in the service result; per path Bad_NodeIdUnknown (start
// node), Bad_NothingToDo (empty relative path), Bad_BrowseNameInvalid (an element without a target
// name), Bad_NoMatch.
void service_translate_browse_paths(const ua::translate_browse_paths_to_node_ids_request& req,
                                    ua::translate_browse_paths_to_node_ids_response& resp,
                                    const ua::address_space& as, const service_limits& limits = {});

}  // namespace uactor::services
