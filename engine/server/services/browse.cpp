// Part 4 §5.8 View services: Browse, BrowseNext, TranslateBrowsePathsToNodeIds.
#include "engine/server/services/browse.hpp"

#include <algorithm>
#include <cstring>

#include "engine/server/services/operations.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::services {

using namespace uactor::ua;

namespace {

using ua::ids::has_type_definition;
constexpr std::uint32_t all_references = 0xFFFF'FFFFu;

}  // namespace

// ---------------------------------------------------------------------------------------
// Browse

namespace {

bool type_matches(const address_space& as, node_index type, node_index wanted, bool include_subtypes) {
  if (wanted == no_node) return true;
  return type == wanted || (include_subtypes && as.is_subtype_of(type, wanted));
}

// Part 4 §7.30 ReferenceDescription: the target NodeId always, the other fields as the mask asks.
// Written over the description a reused response already holds: its strings keep their storage,
// so a Browse answered again allocates nothing (docs/decisions/0023).
void describe(const address_space& as, const reference& r, std::uint32_t mask, node_index has_type_definition_type,
              reference_description& d) {
  const node& target = as.at(r.target);
  const auto want = [mask](browse_result_mask m) { return (mask & static_cast<std::uint32_t>(m)) != 0; };
  if (want(browse_result_mask::reference_type_id)) as.at(r.type).id.to_node_id(d.reference_type_id);
  else d.reference_type_id.set_numeric(0, 0);
  d.is_forward = want(browse_result_mask::is_forward) && r.is_forward;
  target.id.to_node_id(d.node_id.id);
  d.node_id.namespace_uri.set_null();
  d.node_id.server_index = 0;
  if (want(browse_result_mask::browse_name)) {
    d.browse_name.namespace_index = target.browse_ns;
    d.browse_name.name.assign(target.browse_name);
  } else {
    d.browse_name.namespace_index = 0;
    d.browse_name.name.set_null();
  }
  const bool display = want(browse_result_mask::display_name);
  if (display && target.display_name.locale.data()) d.display_name.locale.assign(target.display_name.locale);
  else d.display_name.locale.set_null();
  if (display && target.display_name.text.data()) d.display_name.text.assign(target.display_name.text);
  else d.display_name.text.set_null();
  d.node_class = want(browse_result_mask::node_class) ? target.cls : node_class::unspecified;
  d.type_definition.id.set_numeric(0, 0);
  d.type_definition.namespace_uri.set_null();
  d.type_definition.server_index = 0;
  if (want(browse_result_mask::type_definition) &&
      (target.cls == node_class::object || target.cls == node_class::variable)) {
    for (const auto& tr : as.forward_references(r.target))
      if (tr.type == has_type_definition_type) {
        as.at(tr.target).id.to_node_id(d.type_definition.id);
        break;
      }
  }
}

// Appends the references of p.node that pass the filter, after p.after, at most p.max_references,
// into out[used...] (reusing the descriptions there). Returns true when more remain; p then says
// where to go on. Part 4 §5.8.2.2 (§5.9.2.2 in 1.05): forward references first, then inverse ones.
// Serials ascend within each part, so going on is a binary search, whatever was added or removed
// in between (docs/decisions/0025).
bool browse_from(const address_space& as, browse_position& p, ua_array<reference_description>& out, std::size_t& used,
                 const node_access& access) {
  constexpr std::uint32_t browse_bit = actors::authz::permission::browse;
  const node_index htd = as.find(node_id(0, has_type_definition));
  // The references of one node mostly share a few types: the last answer of the subtype walk is kept.
  node_index last_type = no_node;
  bool last_match = false;
  std::uint32_t taken = 0;
  if (p.direction == browse_direction::inverse) p.in_inverse = true;
  for (;;) {
    const auto part = p.in_inverse ? as.inverse_references(p.node) : as.forward_references(p.node);
    auto it = std::upper_bound(part.begin(), part.end(), p.after,
                               [](std::uint32_t after, const reference& r) { return after < r.serial; });
    for (; it != part.end(); ++it) {
      const reference& r = *it;
      if (r.type != last_type) {
        last_type = r.type;
        last_match = type_matches(as, r.type, p.reference_type, p.include_subtypes);
      }
      if (!last_match) continue;
      if (p.node_class_mask != 0 && (p.node_class_mask & static_cast<std::uint32_t>(as.at(r.target).cls)) == 0)
        continue;
      if (!access.may(r.target, browse_bit)) continue;  // Part 3 §8.55: not seen by this session
      if (taken == p.max_references) return true;  // p.after: the last one taken
      if (used == out.size()) out.emplace_back();
      describe(as, r, p.result_mask, htd, out[used++]);
      ++taken;
      p.after = r.serial;
    }
    if (p.in_inverse || p.direction != browse_direction::both) return false;
    p.in_inverse = true;  // Both: the forward part is done
    p.after = 0;
  }
}

// A result about to be filled: what it held is kept as storage (see describe).
void reset(browse_result& r) {
  r.status_code = status::good;
  r.continuation_point.set_null();
}

// One BrowseDescription (Part 4 §5.8.2.2).
void browse_operation(const browse_description& d, std::uint32_t max_refs, const address_space& as,
                      browse_continuations& points, browse_result& result, const node_access& access) {
  reset(result);
  std::size_t used = 0;
  struct trim {  // the descriptions past the ones filled are not part of this answer
    ua_array<reference_description>& refs;
    std::size_t& used;
    ~trim() { refs.resize(used); }
  } trim_at_exit{result.references, used};
  const auto dir = static_cast<std::int32_t>(d.browse_direction);
  if (dir < 0 || dir > static_cast<std::int32_t>(browse_direction::both)) {
    result.status_code = status::bad_browse_direction_invalid;
    return;
  }
  browse_position p;
  if (!d.reference_type_id.is_null()) {
    p.reference_type = as.find(d.reference_type_id);
    if (p.reference_type == no_node || as.at(p.reference_type).cls != node_class::reference_type) {
      result.status_code = status::bad_reference_type_id_invalid;
      return;
    }
  }
  p.node = as.find(d.node_id);
  if (p.node == no_node) {
    result.status_code = status::bad_node_id_unknown;
    return;
  }
  if (!access.may(p.node, actors::authz::permission::browse)) {
    result.status_code = status::bad_user_access_denied;
    return;
  }
  p.direction = d.browse_direction;
  p.include_subtypes = d.include_subtypes;
  p.node_class_mask = d.node_class_mask;
  p.result_mask = d.result_mask;
  p.max_references = max_refs;
  p.epoch = as.at(p.node).serial_epoch;
  if (browse_from(as, p, result.references, used, access) && !points.add(p, result.continuation_point)) {
    used = 0;
    result.status_code = status::bad_no_continuation_points;
  }
}

}  // namespace

void service_browse(const browse_request& req, browse_response& resp, const address_space& as,
                    browse_continuations& points, const service_limits& limits, const node_access& access) {
  if (!start_operations(req.request_header, resp, req.nodes_to_browse.size(), limits.max_nodes_per_browse)) return;
  // Views are not served yet: any View but the null one (the whole address space) is unknown.
  if (!req.view.view_id.is_null()) return refuse_request(resp, status::bad_view_id_unknown);
  std::uint32_t max_refs = req.requested_max_references_per_node;
  if (max_refs == 0 || max_refs > limits.max_references_per_node) max_refs = limits.max_references_per_node;
  if (max_refs == 0) max_refs = all_references;
  resp.results.resize(req.nodes_to_browse.size());
  for (std::size_t i = 0; i < req.nodes_to_browse.size(); ++i)
    browse_operation(req.nodes_to_browse[i], max_refs, as, points, resp.results[i], access);
}

void service_browse_next(const browse_next_request& req, browse_next_response& resp, const address_space& as,
                         browse_continuations& points, const service_limits& limits, const node_access& access) {
  if (!start_operations(req.request_header, resp, req.continuation_points.size(), limits.max_nodes_per_browse)) return;
  resp.results.resize(req.continuation_points.size());
  for (std::size_t i = 0; i < req.continuation_points.size(); ++i) {
    const byte_string& cp = req.continuation_points[i];
    browse_result& result = resp.results[i];
    reset(result);
    std::size_t used = 0;
    browse_position* p = points.find(cp);
    if (!p || p->node >= as.size()) {
      if (p) points.release(cp);
      result.status_code = status::bad_continuation_point_invalid;
    } else if (req.release_continuation_points) {  // Part 4 §5.8.3.2: release, return nothing
      points.release(cp);
    } else if (as.at(p->node).removed) {
      // The node went away since the Browse: Part 4 §5.9.3.4 (Table 39) lists Bad_NodeIdUnknown
      // for BrowseNext; nothing of it is left to return, so the point goes too.
      points.release(cp);
      result.status_code = status::bad_node_id_unknown;
    } else if (as.at(p->node).serial_epoch != p->epoch) {  // renumbered: the position means nothing now
      points.release(cp);
      result.status_code = status::bad_continuation_point_invalid;
    } else if (browse_from(as, *p, result.references, used, access)) {
      result.continuation_point = cp;  // the same point goes on
    } else {
      points.release(cp);
    }
    result.references.resize(used);
  }
}

// ---------------------------------------------------------------------------------------
// TranslateBrowsePathsToNodeIds

namespace {

bool name_matches(const node& n, const qualified_name& q) {
  return n.browse_ns == q.namespace_index && n.browse_name == q.name.view();
}

// One BrowsePath (Part 4 §5.8.4.2): the targets of the last element, every one of them.
void translate_operation(const browse_path& path, const address_space& as, browse_path_result& result,
                         const node_access& access) {
  result.status_code = status::good;
  result.targets.clear();
  const node_index start = as.find(path.starting_node);
  if (start == no_node) {
    result.status_code = status::bad_node_id_unknown;
    return;
  }
  const auto& elements = path.relative_path.elements;
  if (elements.empty()) {
    result.status_code = status::bad_nothing_to_do;
    return;
  }
  for (const auto& e : elements)
    if (e.target_name.name.is_null() || e.target_name.name.empty()) {
      result.status_code = status::bad_browse_name_invalid;
      return;
    }
  std::vector<node_index> current{start}, next;
  for (const auto& e : elements) {
    node_index type = no_node;  // Part 4 §7.31: a null ReferenceTypeId follows every reference
    if (!e.reference_type_id.is_null()) {
      type = as.find(e.reference_type_id);
      if (type == no_node) {
        result.status_code = status::bad_no_match;
        return;
      }
    }
    next.clear();
    for (const node_index n : current)
      for (const auto& r : as.references(n)) {
        if (r.is_forward == e.is_inverse) continue;
        if (!type_matches(as, r.type, type, e.include_subtypes)) continue;
        if (!name_matches(as.at(r.target), e.target_name)) continue;
        if (!access.may(r.target, actors::authz::permission::browse)) continue;  // not seen by this session
        if (std::find(next.begin(), next.end(), r.target) == next.end()) next.push_back(r.target);
      }
    if (next.empty()) {
      result.status_code = status::bad_no_match;
      return;
    }
    current.swap(next);
  }
  for (const node_index n : current) {
    auto& t = result.targets.emplace_back();
    as.at(n).id.to_node_id(t.target_id.id);
    t.remaining_path_index = 0xFFFF'FFFFu;  // the whole path was followed
  }
}

}  // namespace

void service_translate_browse_paths(const translate_browse_paths_to_node_ids_request& req,
                                    translate_browse_paths_to_node_ids_response& resp, const address_space& as,
                                    const service_limits& limits, const node_access& access) {
  if (!start_operations(req.request_header, resp, req.browse_paths.size(), limits.max_nodes_per_translate_browse_paths))
    return;
  resp.results.resize(req.browse_paths.size());
  for (std::size_t i = 0; i < req.browse_paths.size(); ++i) translate_operation(req.browse_paths[i], as, resp.results[i], access);
}

}  // namespace uactor::services
