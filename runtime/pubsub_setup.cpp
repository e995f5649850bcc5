#include "runtime/pubsub_setup.hpp"

#include <algorithm>
#include <set>
#include <string_view>

#include "protocol/node_id_text.hpp"

namespace uactor {

namespace {

// A writer's pattern is a NodeId text, or a prefix of one ending in '*': the variables it names,
// in the address space's order, found in `by_text` (every variable's NodeId text, sorted), where
// a prefix's matches are one run. A search per pattern, not a pass over every variable: a plant
// listing 100,000 variables one by one took 100 s to start (docs/performance.md "PubSub
// publisher from a running server").
std::vector<ua::node_index> pubsub_pattern_matches(std::string_view pattern,
                                                   const std::vector<std::pair<std::string, ua::node_index>>& by_text) {
  const bool prefix = !pattern.empty() && pattern.back() == '*';
  const auto text = prefix ? pattern.substr(0, pattern.size() - 1) : pattern;
  std::vector<ua::node_index> out;
  for (auto it = std::lower_bound(by_text.begin(), by_text.end(), text,
                                  [](const auto& e, std::string_view t) { return e.first < t; });
       it != by_text.end() && (prefix ? std::string_view(it->first).starts_with(text) : it->first == text); ++it)
    out.push_back(it->second);
  std::sort(out.begin(), out.end());
  return out;
}

// The field's built-in type: the value's when it has one, else the DataType's when it is a
// built-in one of namespace 0 (1..25), else BaseDataType (null: the reader keeps JSON's type).
ua::builtin_type field_type_of(const ua::variable_data& v) {
  if (!v.value.value.empty()) return v.value.value.type();
  if (v.data_type.ns == 0 && v.data_type.type == ua::node_id_type::numeric && v.data_type.numeric >= 1 &&
      v.data_type.numeric <= 25)
    return static_cast<ua::builtin_type>(v.data_type.numeric);
  return ua::builtin_type::null;
}

}  // namespace

pubsub_resolution resolve_pubsub(const ua::address_space& as, const pubsub::connection_config& c) {
  pubsub_resolution r;
  // The variables' NodeId texts, once, sorted.
  std::vector<std::pair<std::string, ua::node_index>> by_text;
  for (ua::node_index n = 0; n < as.size(); ++n) {
    const ua::node& x = as.at(n);
    if (x.removed || x.cls != ua::node_class::variable) continue;
    by_text.emplace_back(x.id.to_node_id().to_string(), n);
  }
  std::sort(by_text.begin(), by_text.end());
  for (std::uint32_t g = 0; g < c.writer_groups.size(); ++g) {
    auto& group = r.groups.emplace_back();
    const auto& gc = c.writer_groups[g];
    for (std::uint32_t w = 0; w < gc.writers.size(); ++w) {
      const auto& wc = gc.writers[w];
      pubsub::resolved_writer rw;
      rw.config = wc;
      std::set<ua::node_index> taken;
      std::set<std::string, std::less<>> names;
      for (const auto& pattern : wc.variables) {
        bool any = false;
        for (const auto n : pubsub_pattern_matches(pattern, by_text)) {
          if (taken.count(n)) continue;
          any = true;
          taken.insert(n);
          const auto* v = as.variable(n);
          pubsub::resolved_field f;
          f.name = std::string(as.at(n).browse_name);
          if (f.name.empty() || names.count(f.name)) f.name = as.at(n).id.to_node_id().to_string();
          names.insert(f.name);
          if (v) {
            f.type = field_type_of(*v);
            f.value_rank = v->value_rank;
            f.data_type = v->data_type.to_node_id();
          }
          r.slots.push_back({g, w, static_cast<std::uint32_t>(rw.fields.size())});
          r.watched.push_back(n);
          rw.fields.push_back(std::move(f));
        }
        if (!any)
          r.warnings.push_back("pubsub " + c.name + ": writer " + wc.name + ": \"" + pattern + "\" matches no variable");
      }
      group.push_back(std::move(rw));
    }
  }
  for (const auto& rc : c.readers) {
    auto& types = r.reader_types.emplace_back();
    auto& targets = r.reader_targets.emplace_back();
    auto& arrays = r.reader_arrays.emplace_back();
    for (const auto& t : rc.targets) {
      ua::node_index n = ua::no_node;
      if (auto id = ua::parse_node_id(t.node)) n = as.find(*id);
      if (n == ua::no_node || as.at(n).cls != ua::node_class::variable) {
        r.errors.push_back("pubsub " + c.name + ": reader " + rc.name + ": target " + t.node + " is not a variable");
        types.push_back(ua::builtin_type::null);
        targets.push_back(ua::no_node);
        arrays.push_back(false);
        continue;
      }
      const auto* v = as.variable(n);
      types.push_back(v ? field_type_of(*v) : ua::builtin_type::null);
      targets.push_back(n);
      arrays.push_back(v && v->value_rank >= 1);
    }
  }
  return r;
}

}  // namespace uactor
