// Tests of Browse, BrowseNext and TranslateBrowsePathsToNodeIds (Part 4 §5.8) over namespace 0 and
// the demo nodes: filters, result mask, continuation points and their limit, per-item and
// service-level statuses.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/namespaces/load_namespace.hpp"
#include "engine/server/services/browse.hpp"
#include "uactor/ua/status_codes.hpp"
#include "tests/engine/read_fixture.hpp"
#include "tests/support/alloc_counter.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace server_browse_service_test {

using namespace uactor;
using namespace uactor::ua;
using services::browse_continuations;
using services::service_browse;
using services::service_browse_next;
using services::service_translate_browse_paths;

namespace {

constexpr std::uint32_t hierarchical_references = 33;
constexpr std::uint32_t organizes = 35;
constexpr std::uint32_t all_fields = 63;

browse_description hierarchical_from(std::uint32_t node, std::uint32_t result_mask = all_fields) {
  browse_description d;
  d.node_id = node_id(0, node);
  d.browse_direction = browse_direction::forward;
  d.reference_type_id = node_id(0, hierarchical_references);
  d.include_subtypes = true;
  d.result_mask = result_mask;
  return d;
}

browse_response browse(std::vector<browse_description> items, browse_continuations& points,
                       std::uint32_t max_refs = 0) {
  browse_request req;
  req.requested_max_references_per_node = max_refs;
  req.nodes_to_browse.assign(items.begin(), items.end());
  browse_response resp;
  service_browse(req, resp, test::shared_demo_address_space(), points);
  REQUIRE(resp.response_header.service_result == status::good);
  REQUIRE(resp.results.size() == items.size());
  return resp;
}

bool has_target(const browse_result& r, std::uint32_t id) {
  return std::any_of(r.references.begin(), r.references.end(),
                     [&](const reference_description& d) { return d.node_id.id == node_id(0, id); });
}

const reference_description& target(const browse_result& r, std::uint32_t id) {
  const auto it = std::find_if(r.references.begin(), r.references.end(),
                               [&](const reference_description& d) { return d.node_id.id == node_id(0, id); });
  REQUIRE(it != r.references.end());
  return *it;
}

std::vector<node_id> targets(const browse_result& r) {
  std::vector<node_id> ids;
  for (const auto& d : r.references) ids.push_back(d.node_id.id);
  return ids;
}

}  // namespace

TEST_CASE("browse: the Server object's hierarchical references include ServerStatus and ServerCapabilities", "[services]") {
  browse_continuations points;
  const auto resp = browse({hierarchical_from(2253)}, points);
  const auto& r = resp.results[0];
  CHECK(r.status_code == status::good);
  CHECK(r.continuation_point.is_null());
  CHECK(has_target(r, 2256));  // ServerStatus, HasComponent
  CHECK(has_target(r, 2268));  // ServerCapabilities, HasProperty's sibling HasComponent
  CHECK(has_target(r, 2254));  // ServerArray, a HasProperty
  const auto& status = target(r, 2256);
  CHECK(status.reference_type_id == node_id(0, 47));  // HasComponent
  CHECK(status.is_forward);
  CHECK(status.browse_name.name.view() == "ServerStatus");
  CHECK(status.display_name.text.view() == "ServerStatus");
  CHECK(status.node_class == node_class::variable);
  CHECK(status.type_definition.id == node_id(0, 2138));  // ServerStatusType
  CHECK(target(r, 2268).node_class == node_class::object);
  // HasTypeDefinition is not hierarchical, and nothing inverse comes back.
  CHECK_FALSE(has_target(r, 2004));
  CHECK(std::all_of(r.references.begin(), r.references.end(), [](const auto& d) { return d.is_forward; }));
  CHECK(points.size() == 0);
}

TEST_CASE("browse: only the fields of the result mask are filled, the NodeId always", "[services]") {
  browse_continuations points;
  const auto resp = browse({hierarchical_from(2253, 0), hierarchical_from(2253, 8 /* BrowseName */)}, points);
  const auto& none = target(resp.results[0], 2256);
  CHECK(none.reference_type_id.is_null());
  CHECK(none.browse_name.name.is_null());
  CHECK(none.display_name.text.is_null());
  CHECK(none.node_class == node_class::unspecified);
  CHECK(none.type_definition.id.is_null());
  const auto& name = target(resp.results[1], 2256);
  CHECK(name.browse_name.name.view() == "ServerStatus");
  CHECK(name.reference_type_id.is_null());
  CHECK(name.display_name.text.is_null());
}

TEST_CASE("browse: direction, reference type without subtypes and node class mask filter", "[services]") {
  browse_continuations points;
  auto variables = hierarchical_from(2253);
  variables.node_class_mask = static_cast<std::uint32_t>(node_class::variable);
  auto inverse = hierarchical_from(2253);
  inverse.browse_direction = browse_direction::inverse;
  auto exact = hierarchical_from(2253);
  exact.include_subtypes = false;  // HierarchicalReferences itself is abstract: no reference is of it
  auto both = hierarchical_from(2253);
  both.browse_direction = browse_direction::both;
  both.reference_type_id = node_id{};  // every reference type
  const auto resp = browse({variables, inverse, exact, both}, points);
  CHECK(has_target(resp.results[0], 2256));
  CHECK_FALSE(has_target(resp.results[0], 2268));
  REQUIRE(resp.results[1].references.size() == 1);
  CHECK(resp.results[1].references[0].node_id.id == node_id(0, 85));  // Objects Organizes Server
  CHECK_FALSE(resp.results[1].references[0].is_forward);
  CHECK(resp.results[2].references.empty());
  CHECK(has_target(resp.results[3], 85));
  CHECK(has_target(resp.results[3], 2004));  // HasTypeDefinition ServerType
  CHECK(has_target(resp.results[3], 2256));
}

TEST_CASE("browse: bad items get their own status, the others still answer", "[services]") {
  browse_continuations points;
  auto unknown = hierarchical_from(999'999);
  auto direction = hierarchical_from(2253);
  direction.browse_direction = static_cast<browse_direction>(3);
  auto not_a_reference_type = hierarchical_from(2253);
  not_a_reference_type.reference_type_id = node_id(0, 58);  // BaseObjectType
  auto unknown_type = hierarchical_from(2253);
  unknown_type.reference_type_id = node_id(0, 999'999);
  const auto resp = browse({unknown, direction, not_a_reference_type, unknown_type, hierarchical_from(2253)}, points);
  CHECK(resp.results[0].status_code == status::bad_node_id_unknown);
  CHECK(resp.results[1].status_code == status::bad_browse_direction_invalid);
  CHECK(resp.results[2].status_code == status::bad_reference_type_id_invalid);
  CHECK(resp.results[3].status_code == status::bad_reference_type_id_invalid);
  CHECK(resp.results[4].status_code == status::good);
  CHECK_FALSE(resp.results[4].references.empty());
}

TEST_CASE("browse: the service result refuses an empty request, too many nodes and a View", "[services]") {
  const auto& as = test::shared_demo_address_space();
  browse_continuations points;
  browse_request req;
  browse_response resp;
  service_browse(req, resp, as, points);
  CHECK(resp.response_header.service_result == status::bad_nothing_to_do);
  req.nodes_to_browse = {hierarchical_from(2253), hierarchical_from(85)};
  services::service_limits limits;
  limits.max_nodes_per_browse = 1;
  service_browse(req, resp, as, points, limits);
  CHECK(resp.response_header.service_result == status::bad_too_many_operations);
  req.view.view_id = node_id(0, 2253);
  service_browse(req, resp, as, points);
  CHECK(resp.response_header.service_result == status::bad_view_id_unknown);
  CHECK(resp.results.empty());
}

TEST_CASE("browse: with max references 1 a continuation point walks every reference, then is gone", "[services]") {
  const auto& as = test::shared_demo_address_space();
  browse_continuations points;
  const auto all = targets(browse({hierarchical_from(2253)}, points).results[0]);
  REQUIRE(all.size() > 3);

  const auto first = browse({hierarchical_from(2253)}, points, 1);
  REQUIRE(first.results[0].references.size() == 1);
  REQUIRE_FALSE(first.results[0].continuation_point.is_null());
  CHECK(points.size() == 1);
  std::vector<node_id> walked = targets(first.results[0]);
  byte_string cp = first.results[0].continuation_point;
  const byte_string first_cp = cp;
  browse_next_request next;
  browse_next_response resp;
  while (!cp.is_null()) {
    next.continuation_points = {cp};
    service_browse_next(next, resp, as, points);
    REQUIRE(resp.response_header.service_result == status::good);
    REQUIRE(resp.results.size() == 1);
    REQUIRE(resp.results[0].status_code == status::good);
    REQUIRE(resp.results[0].references.size() == 1);
    walked.push_back(resp.results[0].references[0].node_id.id);
    cp = resp.results[0].continuation_point;
  }
  CHECK(walked == all);
  CHECK(points.size() == 0);
  // Once the last part is returned the point is released: it is no longer valid.
  next.continuation_points = {first_cp};
  service_browse_next(next, resp, as, points);
  CHECK(resp.results[0].status_code == status::bad_continuation_point_invalid);
  next.continuation_points = {byte_string("garbage")};
  service_browse_next(next, resp, as, points);
  CHECK(resp.results[0].status_code == status::bad_continuation_point_invalid);
  next.continuation_points.clear();
  service_browse_next(next, resp, as, points);
  CHECK(resp.response_header.service_result == status::bad_nothing_to_do);
}

TEST_CASE("browse: past the continuation point limit an item gets Bad_NoContinuationPoints, release frees them", "[services]") {
  const auto& as = test::shared_demo_address_space();
  browse_continuations points(2);
  const auto resp = browse({hierarchical_from(2253), hierarchical_from(85), hierarchical_from(84)}, points, 1);
  CHECK(resp.results[0].status_code == status::good);
  CHECK(resp.results[1].status_code == status::good);
  CHECK(resp.results[2].status_code == status::bad_no_continuation_points);
  CHECK(resp.results[2].references.empty());
  CHECK(points.size() == 2);

  browse_next_request release;
  release.release_continuation_points = true;
  release.continuation_points = {resp.results[0].continuation_point, resp.results[1].continuation_point};
  browse_next_response released;
  service_browse_next(release, released, as, points);
  REQUIRE(released.results.size() == 2);
  CHECK(released.results[0].status_code == status::good);
  CHECK(released.results[0].references.empty());
  CHECK(released.results[0].continuation_point.is_null());
  CHECK(points.size() == 0);
  // Released points are invalid afterwards, and room is back for new ones.
  service_browse_next(release, released, as, points);
  CHECK(released.results[0].status_code == status::bad_continuation_point_invalid);
  const auto again = browse({hierarchical_from(84)}, points, 1);
  CHECK(again.results[0].status_code == status::good);
  CHECK_FALSE(again.results[0].continuation_point.is_null());
}

namespace {

relative_path_element step(std::string_view name, std::uint32_t type = hierarchical_references, bool inverse = false) {
  relative_path_element e;
  e.reference_type_id = node_id(0, type);
  e.include_subtypes = true;
  e.is_inverse = inverse;
  e.target_name.name = ua_string(name);
  return e;
}

browse_path path(node_id start, std::vector<relative_path_element> elements) {
  browse_path p;
  p.starting_node = std::move(start);
  p.relative_path.elements.assign(elements.begin(), elements.end());
  return p;
}

}  // namespace

TEST_CASE("translate: Root/Objects/Server is i=2253, other paths get their own status", "[services]") {
  const auto& as = test::shared_demo_address_space();
  translate_browse_paths_to_node_ids_request req;
  auto no_name = step("");
  no_name.target_name.name = ua_string::null();
  relative_path_element any_type = step("Server");
  any_type.reference_type_id = node_id{};
  req.browse_paths = {
      path(node_id(0, 84), {step("Objects"), step("Server")}),
      path(node_id(0, 84), {step("Objects"), step("Nope")}),
      path(node_id(0, 84), {step("Objects"), step("")}),
      path(node_id(0, 84), {no_name, step("Server")}),
      path(node_id(0, 84), {}),
      path(node_id(0, 999'999), {step("Objects")}),
      path(node_id(0, 2253), {step("Objects", organizes, true)}),
      path(node_id(0, 85), {any_type, step("ServerStatus"), step("State")}),
      path(node_id(0, 84), {step("Objects", 47 /* HasComponent: not Organizes */)}),
  };
  translate_browse_paths_to_node_ids_response resp;
  service_translate_browse_paths(req, resp, as);
  REQUIRE(resp.response_header.service_result == status::good);
  REQUIRE(resp.results.size() == 9);
  REQUIRE(resp.results[0].status_code == status::good);
  REQUIRE(resp.results[0].targets.size() == 1);
  CHECK(resp.results[0].targets[0].target_id.id == node_id(0, 2253));
  CHECK(resp.results[0].targets[0].remaining_path_index == 0xFFFF'FFFFu);
  CHECK(resp.results[1].status_code == status::bad_no_match);
  CHECK(resp.results[2].status_code == status::bad_browse_name_invalid);
  CHECK(resp.results[3].status_code == status::bad_browse_name_invalid);
  CHECK(resp.results[4].status_code == status::bad_nothing_to_do);
  CHECK(resp.results[5].status_code == status::bad_node_id_unknown);
  REQUIRE(resp.results[6].targets.size() == 1);
  CHECK(resp.results[6].targets[0].target_id.id == node_id(0, 85));
  REQUIRE(resp.results[7].targets.size() == 1);
  CHECK(resp.results[7].targets[0].target_id.id == node_id(0, 2259));  // ServerStatus/State
  CHECK(resp.results[8].status_code == status::bad_no_match);

  req.browse_paths.clear();
  service_translate_browse_paths(req, resp, as);
  CHECK(resp.response_header.service_result == status::bad_nothing_to_do);
  req.browse_paths = {path(node_id(0, 84), {step("Objects")}), path(node_id(0, 84), {step("Types")})};
  services::service_limits limits;
  limits.max_nodes_per_translate_browse_paths = 1;
  service_translate_browse_paths(req, resp, as, limits);
  CHECK(resp.response_header.service_result == status::bad_too_many_operations);
}

TEST_CASE("browse: BrowseNext answers each point on its own, and a point of another session is invalid", "[services]") {
  const auto& as = test::shared_demo_address_space();
  browse_continuations mine, theirs;
  const auto first = browse({hierarchical_from(2253)}, mine, 1);
  const auto other = browse({hierarchical_from(2253)}, theirs, 1);  // theirs holds a point too
  REQUIRE_FALSE(other.results[0].continuation_point.is_null());
  REQUIRE_FALSE(first.results[0].continuation_point.is_null());
  browse_next_request next;
  next.continuation_points = {byte_string("nope"), first.results[0].continuation_point};
  browse_next_response resp;
  service_browse_next(next, resp, as, theirs);
  REQUIRE(resp.results.size() == 2);
  CHECK(resp.results[0].status_code == status::bad_continuation_point_invalid);
  CHECK(resp.results[1].status_code == status::bad_continuation_point_invalid);
  service_browse_next(next, resp, as, mine);
  CHECK(resp.results[0].status_code == status::bad_continuation_point_invalid);
  CHECK(resp.results[1].status_code == status::good);
  CHECK(resp.results[1].references.size() == 1);
}

// ---- large nodes and allocations (docs/decisions/0023)

namespace {

// Namespace 0, the demo nodes and ns=1;s=Load with 10,000 variables (HasComponent).
const address_space& space_with_large_folder() {
  static const address_space as = [] {
    auto s = test::demo_address_space();
    actors::add_load_namespace(s, 10'000, date_time::from_unix_ms(0));
    return s;
  }();
  return as;
}

browse_description load_folder(std::uint32_t result_mask = all_fields) {
  auto d = hierarchical_from(0, result_mask);
  d.node_id = node_id::string(1, "Load");
  return d;
}

}  // namespace

TEST_CASE("browse: BrowseNext over a folder of 10,000 variables returns every reference exactly once", "[services]") {
  const auto& as = space_with_large_folder();
  for (const std::uint32_t max_refs : {1'000u, 997u, 10'000u, 0u}) {
    CAPTURE(max_refs);
    browse_continuations points;
    browse_request req;
    req.requested_max_references_per_node = max_refs;
    req.nodes_to_browse.push_back(load_folder());
    browse_response resp;
    service_browse(req, resp, as, points);
    REQUIRE(resp.results.size() == 1);
    REQUIRE(resp.results[0].status_code == status::good);
    std::vector<int> seen(10'000, 0);
    std::size_t calls = 1;
    auto count = [&](const browse_result& r) {
      for (const auto& d : r.references) {
        REQUIRE(d.node_id.id.namespace_index() == 1);
        const auto name = d.node_id.id.text();
        REQUIRE(name.substr(0, 6) == "Load.V");
        const auto i = std::stoul(std::string(name.substr(6)));
        REQUIRE(i < seen.size());
        ++seen[i];
        REQUIRE(d.browse_name.name.view() == name.substr(5));  // "V<i>"
        REQUIRE(d.is_forward);
      }
    };
    count(resp.results[0]);
    auto point = resp.results[0].continuation_point;
    browse_next_response next;
    while (!point.is_null()) {
      REQUIRE(calls < 10'001);  // bounded: at least one reference per call
      browse_next_request nreq;
      nreq.continuation_points.push_back(point);
      service_browse_next(nreq, next, as, points);
      REQUIRE(next.results.size() == 1);
      REQUIRE(next.results[0].status_code == status::good);
      REQUIRE(!next.results[0].references.empty());
      if (max_refs != 0) REQUIRE(next.results[0].references.size() <= max_refs);
      count(next.results[0]);
      point = next.results[0].continuation_point;
      ++calls;
    }
    REQUIRE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    // The server's own limit caps what the client asks for (and stands in for 0: no limit asked).
    const std::size_t limit = services::service_limits{}.max_references_per_node;
    const std::size_t per_call = max_refs == 0 ? limit : std::min<std::size_t>(max_refs, limit);
    REQUIRE(calls == (10'000 + per_call - 1) / per_call);
    REQUIRE(points.size() == 0);  // the last BrowseNext released the point
  }
}

TEST_CASE("browse: the inverse and both directions of a folder of 10,000 variables, with continuation points",
          "[services]") {
  const auto& as = space_with_large_folder();
  browse_continuations points;
  // Inverse from one variable: its parent only.
  browse_request inv;
  auto d = hierarchical_from(0);
  d.node_id = node_id::string(1, "Load.V4711");
  d.browse_direction = browse_direction::inverse;
  inv.nodes_to_browse.push_back(d);
  browse_response r;
  service_browse(inv, r, as, points);
  REQUIRE(r.results[0].references.size() == 1);
  REQUIRE(r.results[0].references[0].node_id.id == node_id::string(1, "Load"));
  REQUIRE_FALSE(r.results[0].references[0].is_forward);
  // Both directions of the folder, 3,000 at a time: 10,000 forward and the one inverse Organizes.
  browse_request both;
  both.requested_max_references_per_node = 3'000;
  auto f = load_folder();
  f.browse_direction = browse_direction::both;
  both.nodes_to_browse.push_back(f);
  service_browse(both, r, as, points);
  std::size_t forward = 0, inverse = 0;
  auto tally = [&](const browse_result& x) {
    for (const auto& ref : x.references) (ref.is_forward ? forward : inverse) += 1;
  };
  tally(r.results[0]);
  auto point = r.results[0].continuation_point;
  browse_next_response n;
  for (int guard = 0; !point.is_null() && guard < 10; ++guard) {
    browse_next_request nr;
    nr.continuation_points.push_back(point);
    service_browse_next(nr, n, as, points);
    tally(n.results[0]);
    point = n.results[0].continuation_point;
  }
  REQUIRE(point.is_null());
  REQUIRE(forward == 10'000);
  REQUIRE(inverse == 1);
}

TEST_CASE("browse: a Browse of the Server object answered again into the same response allocates nothing",
          "[services]") {
  if (!test::counts_allocations) return;  // sanitizer build: not counted
  const auto& as = test::shared_demo_address_space();
  browse_continuations points;
  browse_request req;
  req.nodes_to_browse.push_back(hierarchical_from(2253));
  browse_response resp;
  service_browse(req, resp, as, points);  // sizes the response
  REQUIRE(resp.results[0].references.size() >= 10);
  const auto first = resp;
  const test::alloc_scope allocs;
  for (int i = 0; i < 100; ++i) service_browse(req, resp, as, points);
  REQUIRE(allocs.counted().allocations == 0);
  REQUIRE(resp == first);
}

TEST_CASE("browse: BrowseNext pages of a folder of 10,000 variables allocate nothing once the response is sized",
          "[services]") {
  if (!test::counts_allocations) return;
  const auto& as = space_with_large_folder();
  browse_continuations points;
  browse_request req;
  req.requested_max_references_per_node = 500;
  req.nodes_to_browse.push_back(load_folder());
  browse_response resp;
  browse_next_response next;
  browse_next_request nreq;
  nreq.continuation_points.resize(1);
  auto walk = [&] {
    std::size_t refs = 0;
    service_browse(req, resp, as, points);
    refs += resp.results[0].references.size();
    nreq.continuation_points[0] = resp.results[0].continuation_point;
    while (!nreq.continuation_points[0].is_null()) {
      service_browse_next(nreq, next, as, points);
      refs += next.results[0].references.size();
      nreq.continuation_points[0] = next.results[0].continuation_point;
    }
    return refs;
  };
  REQUIRE(walk() == 10'000);  // sizes both responses
  const test::alloc_scope allocs;
  REQUIRE(walk() == 10'000);
  REQUIRE(allocs.counted().allocations == 0);
}

// ---------------------------------------------------------------------------------------
// Continuation points while the address space changes (docs/decisions/0025): the embedding API
// adds and removes nodes between a client's Browse and BrowseNext.

namespace {

constexpr std::uint32_t has_component = 47;
constexpr std::uint32_t objects_folder = 85;

node_index add_object(address_space& as, const std::string& name) {
  node_spec spec;
  spec.id = node_id::string(1, name);
  spec.cls = node_class::object;
  spec.browse_ns = 1;
  spec.browse_name = name;
  auto n = as.add_node(std::move(spec));
  REQUIRE(n.has_value());
  return *n;
}

void link(address_space& as, node_index source, std::uint32_t type, node_index target) {
  REQUIRE(as.add_reference(source, as.find(node_id(0, type)), target) == status::good);
}

// The targets of one answer, with a check that each is a node of the store now (nothing invalid).
void collect(const address_space& as, const browse_result& r, std::vector<std::string>& into) {
  for (const auto& d : r.references) {
    const node_index t = as.find(d.node_id.id);
    REQUIRE(t != no_node);
    into.emplace_back(d.node_id.id.text());
  }
}

}  // namespace

TEST_CASE("browse: BrowseNext while children are added and removed returns each surviving child once, and the added ones",
          "[services]") {
  auto as = test::demo_address_space();
  const node_index folder = add_object(as, "Churn");
  link(as, as.find(node_id(0, objects_folder)), organizes, folder);
  std::vector<std::string> original;
  for (int i = 0; i < 120; ++i) {
    original.push_back("Churn.C" + std::to_string(i));
    link(as, folder, organizes, add_object(as, original.back()));
  }
  browse_continuations points;
  browse_request req;
  req.requested_max_references_per_node = 7;
  auto d = hierarchical_from(0);
  d.node_id = node_id::string(1, "Churn");
  req.nodes_to_browse.push_back(d);
  browse_response resp;
  service_browse(req, resp, as, points);
  REQUIRE(resp.results[0].status_code == status::good);
  std::vector<std::string> returned;
  collect(as, resp.results[0], returned);
  REQUIRE(returned.size() == 7);

  // Before each BrowseNext: two original children go (one already returned, one not, when there
  // are such) and two new ones come, one of which goes again at once.
  std::vector<std::string> added;
  std::size_t step = 0;
  auto point = resp.results[0].continuation_point;
  browse_next_response next;
  while (!point.is_null()) {
    REQUIRE(step < 100);
    ++step;
    auto remove = [&](const std::string& name) {
      const node_index n = as.find(node_id::string(1, name));
      if (n != no_node) REQUIRE(as.remove_node(n) == status::good);
    };
    remove(returned[(step * 5) % returned.size()]);                 // returned already
    remove(original[(returned.size() + step * 3) % original.size()]);  // maybe still ahead
    const std::string kept = "Churn.A" + std::to_string(step), gone = "Churn.G" + std::to_string(step);
    link(as, folder, organizes, add_object(as, kept));
    link(as, folder, organizes, add_object(as, gone));
    added.push_back(kept);
    remove(gone);
    browse_next_request nreq;
    nreq.continuation_points.push_back(point);
    service_browse_next(nreq, next, as, points);
    REQUIRE(next.results[0].status_code == status::good);
    REQUIRE(next.results[0].references.size() <= 7);
    collect(as, next.results[0], returned);
    point = next.results[0].continuation_point;
  }
  REQUIRE(points.size() == 0);
  // No duplicates.
  auto sorted = returned;
  std::sort(sorted.begin(), sorted.end());
  REQUIRE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  // Every child there now, original or added during the walk, was returned; nothing else but
  // children that existed when they were returned (checked in collect) and were removed after.
  for (const auto& name : original)
    if (as.find(node_id::string(1, name)) != no_node) REQUIRE(std::binary_search(sorted.begin(), sorted.end(), name));
  for (const auto& name : added) REQUIRE(std::binary_search(sorted.begin(), sorted.end(), name));
  for (const auto& name : sorted) REQUIRE(name.rfind("Churn.G", 0) != 0);  // removed before any answer
}

TEST_CASE("browse: an inverse BrowseNext stays exact while forward references are added and sources removed",
          "[services]") {
  // The inverse references sit after the forward ones: adding a forward one must not move the walk.
  auto as = test::demo_address_space();
  const node_index hub = add_object(as, "Hub");
  std::vector<std::string> sources;
  for (int i = 0; i < 40; ++i) {
    sources.push_back("Src" + std::to_string(i));
    link(as, add_object(as, sources.back()), has_component, hub);
  }
  browse_continuations points;
  browse_request req;
  req.requested_max_references_per_node = 4;
  auto d = hierarchical_from(0);
  d.node_id = node_id::string(1, "Hub");
  d.browse_direction = browse_direction::inverse;
  req.nodes_to_browse.push_back(d);
  browse_response resp;
  service_browse(req, resp, as, points);
  std::vector<std::string> returned;
  collect(as, resp.results[0], returned);
  auto point = resp.results[0].continuation_point;
  browse_next_response next;
  std::vector<std::string> removed;
  for (int step = 0; !point.is_null(); ++step) {
    REQUIRE(step < 40);
    link(as, hub, has_component, add_object(as, "Out" + std::to_string(step)));  // a forward one
    // A source not returned yet (the last one), and one already returned.
    for (const auto& victim : {sources[sources.size() - 1 - static_cast<std::size_t>(step)], returned.back()}) {
      const node_index n = as.find(node_id::string(1, victim));
      if (n == no_node) continue;
      REQUIRE(as.remove_node(n) == status::good);
      removed.push_back(victim);
    }
    browse_next_request nreq;
    nreq.continuation_points.push_back(point);
    service_browse_next(nreq, next, as, points);
    REQUIRE(next.results[0].status_code == status::good);
    collect(as, next.results[0], returned);
    point = next.results[0].continuation_point;
  }
  std::sort(returned.begin(), returned.end());
  REQUIRE(std::adjacent_find(returned.begin(), returned.end()) == returned.end());
  for (const auto& s : sources) {
    const bool alive = as.find(node_id::string(1, s)) != no_node;
    if (alive) REQUIRE(std::binary_search(returned.begin(), returned.end(), s));
  }
  for (const auto& r : returned) REQUIRE(r.rfind("Src", 0) == 0);  // inverse ones only
}

TEST_CASE("browse: BrowseNext of a node removed since the Browse gets Bad_NodeIdUnknown and frees the point",
          "[services]") {
  auto as = test::demo_address_space();
  const node_index folder = add_object(as, "Gone");
  for (int i = 0; i < 10; ++i) link(as, folder, organizes, add_object(as, "Gone.C" + std::to_string(i)));
  browse_continuations points;
  browse_request req;
  req.requested_max_references_per_node = 3;
  auto d = hierarchical_from(0);
  d.node_id = node_id::string(1, "Gone");
  req.nodes_to_browse.push_back(d);
  browse_response resp;
  service_browse(req, resp, as, points);
  REQUIRE(resp.results[0].references.size() == 3);
  const auto point = resp.results[0].continuation_point;
  REQUIRE_FALSE(point.is_null());
  REQUIRE(as.remove_node(folder) == status::good);
  browse_next_request nreq;
  nreq.continuation_points.push_back(point);
  browse_next_response next;
  service_browse_next(nreq, next, as, points);
  // Part 4 §5.9.3.4: Bad_NodeIdUnknown is a BrowseNext operation result.
  CHECK(next.results[0].status_code == status::bad_node_id_unknown);
  CHECK(next.results[0].references.empty());
  CHECK(next.results[0].continuation_point.is_null());
  CHECK(points.size() == 0);
  // The point is released: used again it is unknown (Part 4 §7.9).
  service_browse_next(nreq, next, as, points);
  CHECK(next.results[0].status_code == status::bad_continuation_point_invalid);
}

TEST_CASE("browse: a continuation point into a node whose references were renumbered is invalid", "[services]") {
  auto as = test::demo_address_space();
  const node_index folder = add_object(as, "Renumbered");
  for (int i = 0; i < 10; ++i) link(as, folder, organizes, add_object(as, "Renumbered.C" + std::to_string(i)));
  browse_continuations points;
  browse_request req;
  req.requested_max_references_per_node = 3;
  auto d = hierarchical_from(0);
  d.node_id = node_id::string(1, "Renumbered");
  req.nodes_to_browse.push_back(d);
  browse_response resp;
  service_browse(req, resp, as, points);
  browse_next_request nreq;
  nreq.continuation_points.push_back(resp.results[0].continuation_point);
  browse_next_response next;
  service_browse_next(nreq, next, as, points);
  REQUIRE(next.results[0].status_code == status::good);
  REQUIRE(next.results[0].references.size() == 3);
  as.renumber_references(folder);  // what 2^32 - 1 additions to one node would do
  service_browse_next(nreq, next, as, points);
  CHECK(next.results[0].status_code == status::bad_continuation_point_invalid);
  CHECK(points.size() == 0);
  // A new Browse starts over and walks all ten.
  std::size_t total = 0;
  service_browse(req, resp, as, points);
  total += resp.results[0].references.size();
  nreq.continuation_points[0] = resp.results[0].continuation_point;
  for (int guard = 0; !nreq.continuation_points[0].is_null() && guard < 10; ++guard) {
    service_browse_next(nreq, next, as, points);
    total += next.results[0].references.size();
    nreq.continuation_points[0] = next.results[0].continuation_point;
  }
  CHECK(total == 10);
}

}  // namespace server_browse_service_test
