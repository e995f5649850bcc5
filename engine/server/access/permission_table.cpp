// The per-node rule of the permissions (docs/decisions/0052): namespace defaults, then subtrees.
#include "engine/server/access/permission_table.hpp"

#include <algorithm>
#include <charconv>
#include <deque>

#include "protocol/node_id_text.hpp"
#include "uactor/ua/node_ids.hpp"

namespace uactor::actors::authz {

namespace {

// A browse path from the Root folder: "/Objects/2:Plant/2:Line1". An element without "ns:" matches
// a BrowseName of any namespace.
ua::node_index resolve_path_in_space(const ua::address_space& as, std::string_view path) {
  ua::node_index at = as.find(ua::node_id(0, ua::ids::root_folder));
  std::size_t pos = 1;
  while (at != ua::no_node && pos <= path.size()) {
    const std::size_t slash = path.find('/', pos);
    const std::string_view element = path.substr(pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos);
    pos = slash == std::string_view::npos ? path.size() + 1 : slash + 1;
    if (element.empty()) continue;
    std::string_view name = element;
    int ns = -1;
    if (const auto colon = element.find(':'); colon != std::string_view::npos) {
      unsigned v = 0;
      const auto [p, ec] = std::from_chars(element.data(), element.data() + colon, v);
      if (ec == std::errc{} && p == element.data() + colon && v <= 0xFFFF) {
        ns = static_cast<int>(v);
        name = element.substr(colon + 1);
      }
    }
    ua::node_index next = ua::no_node;
    for (const auto& r : as.forward_references(at)) {
      const auto& t = as.at(r.target);
      if (t.browse_name == name && (ns < 0 || t.browse_ns == ns)) {
        next = r.target;
        break;
      }
    }
    at = next;
  }
  return at;
}

}  // namespace

void permission_table::set_rules(std::vector<permission_rule> rules, std::vector<ua::node_id> role_ids) {
  rules_ = std::move(rules);
  role_ids_ = std::move(role_ids);
  role_ids_.resize(max_roles);
  entries_.assign(rules_.size(), entry{});
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    entry& e = entries_[i];
    e.rule = &rules_[i];
    e.restrictions = rules_[i].restrictions;
    for (const auto& [role, bits] : rules_[i].roles) {
      if (role >= max_roles) continue;
      e.by_role[role] |= bits;
      e.listed.add(role);
    }
  }
  rule_of_.clear();
}

void permission_table::set_user_defaults(std::vector<std::pair<ua::node_index, std::uint16_t>> nodes) {
  user_defaults_ = std::move(nodes);
  user_defaults_lo_ = user_defaults_hi_ = 0;
  if (user_defaults_.empty()) return;
  user_defaults_lo_ = user_defaults_hi_ = user_defaults_.front().first;
  for (const auto& [n, ns] : user_defaults_) {
    user_defaults_lo_ = std::min(user_defaults_lo_, n);
    user_defaults_hi_ = std::max(user_defaults_hi_, n);
  }
}

std::vector<std::string> permission_table::rebuild(const ua::address_space& as) {
  std::vector<std::string> unresolved;
  rule_of_.assign(rules_.empty() ? 0 : as.size(), 0);
  if (rules_.empty()) return unresolved;

  // Namespace defaults first: the subtree rules below override them.
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    if (!rules_[i].node.empty()) continue;
    for (ua::node_index n = 0; n < as.size(); ++n)
      if (!as.at(n).removed && as.at(n).id.ns == rules_[i].namespace_index) rule_of_[n] = static_cast<std::uint16_t>(i + 1);
  }

  // Which reference types carry a rule downward: HierarchicalReferences but HasEventSource (and
  // its HasNotifier), which link an alarm's notifier across areas (Part 3 §7.16); and HasCondition,
  // not hierarchical, but a condition belongs to its source's area: its methods (Acknowledge,
  // Shelve) and its events are that area's (Part 9 §5.5.3).
  const ua::node_index hierarchical = as.find(ua::node_id(0, ua::ids::hierarchical_references));
  const ua::node_index event_source = as.find(ua::node_id(0, ua::ids::has_event_source));
  const ua::node_index has_condition = as.find(ua::node_id(0, ua::ids::has_condition));
  std::vector<std::int8_t> follows(as.size(), -1);  // per reference type node: unknown, no, yes
  const auto follow = [&](ua::node_index type) {
    if (follows[type] < 0)
      follows[type] = type == has_condition ||
                              (as.is_subtype_of(type, hierarchical) && !as.is_subtype_of(type, event_source))
                          ? 1
                          : 0;
    return follows[type] == 1;
  };

  // Each rule's root and its depth below Root (breadth first over the same references), so that
  // deeper rules are applied later and win.
  std::vector<std::uint32_t> depth(as.size(), 0xFFFF'FFFFu);
  {
    std::deque<ua::node_index> queue;
    const ua::node_index root = as.find(ua::node_id(0, ua::ids::root_folder));
    if (root != ua::no_node) {
      depth[root] = 0;
      queue.push_back(root);
    }
    while (!queue.empty()) {
      const ua::node_index n = queue.front();
      queue.pop_front();
      for (const auto& r : as.forward_references(n))
        if (depth[r.target] == 0xFFFF'FFFFu && follow(r.type)) {
          depth[r.target] = depth[n] + 1;
          queue.push_back(r.target);
        }
    }
  }
  struct root_of_rule {
    std::size_t rule;
    ua::node_index node;
  };
  std::vector<root_of_rule> roots;
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    const std::string& text = rules_[i].node;
    if (text.empty()) continue;
    ua::node_index n = ua::no_node;
    if (text.front() == '/') {
      n = resolve_path_in_space(as, text);
    } else if (auto id = ua::parse_node_id(text)) {
      n = as.find(*id);
    }
    if (n == ua::no_node) {
      unresolved.push_back(rules_[i].where + ": " + text + " names no node");
      continue;
    }
    roots.push_back({i, n});
  }
  std::stable_sort(roots.begin(), roots.end(),
                   [&](const root_of_rule& a, const root_of_rule& b) { return depth[a.node] < depth[b.node]; });

  // Down from each root, in that order; a node reached twice in one walk (a second parent) once.
  // Not from a plant's node into namespace 0: the standard's nodes a plant's objects reference (a
  // condition's Acknowledge method, shared by every condition: docs/decisions/0053) belong to no
  // area, and the last area walked would otherwise decide them for all.
  const auto enters = [&](ua::node_index from, ua::node_index to) {
    return as.at(to).id.ns != 0 || as.at(from).id.ns == 0;
  };
  std::vector<std::uint32_t> seen(as.size(), 0);
  std::vector<ua::node_index> stack;
  std::uint32_t walk = 0;
  for (const auto& root : roots) {
    ++walk;
    const auto mark = static_cast<std::uint16_t>(root.rule + 1);
    stack.assign(1, root.node);
    seen[root.node] = walk;
    while (!stack.empty()) {
      const ua::node_index n = stack.back();
      stack.pop_back();
      rule_of_[n] = mark;
      if (!rules_[root.rule].subtree) continue;
      for (const auto& r : as.forward_references(n))
        if (seen[r.target] != walk && follow(r.type) && enters(n, r.target)) {
          seen[r.target] = walk;
          stack.push_back(r.target);
        }
    }
  }
  return unresolved;
}

}  // namespace uactor::actors::authz
