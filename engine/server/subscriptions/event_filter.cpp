// Part 4 §7.22.3 EventFilter and §7.7 ContentFilter, the server side: compiling a filter against
// the address space (Bad_ codes per select clause, per where element and per operand) and
// evaluating it per event. docs/decisions/0018.
#include "engine/server/subscriptions/event_filter.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>

#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors {

using namespace uactor::ua;

namespace {

using ua::ids::base_event_type;
using ua::ids::has_subtype;
using ua::ids::has_type_definition;
using ua::ids::has_modelling_rule;

// One step of a browse path below `from`: a forward reference other than the type machinery's
// whose target has the browse name (Part 4 §7.22.3: InstanceDeclarations of the type).
node_index child_named(const address_space& as, node_index from, const qualified_name& name) {
  for (const reference& r : as.forward_references(from)) {
    const std::uint32_t t = as.at(r.type).id.numeric;
    if (as.at(r.type).id.ns == 0 && (t == has_subtype || t == has_type_definition || t == has_modelling_rule)) continue;
    const node& n = as.at(r.target);
    if (n.browse_ns == name.namespace_index && n.browse_name == name.name.view()) return r.target;
  }
  return no_node;
}

// The path exists below the type or one of its supertypes (the fully inherited type).
bool path_in_type(const address_space& as, node_index type, std::span<const qualified_name> path) {
  for (node_index t = type; t != no_node; t = as.super_type(t)) {
    node_index at = t;
    for (const qualified_name& q : path) {
      at = child_named(as, at, q);
      if (at == no_node) break;
    }
    if (at != no_node) return true;
  }
  return false;
}

// A SimpleAttributeOperand (Part 4 §7.7.4.5) to a field key.
status_code resolve(const simple_attribute_operand& o, const address_space& as, field_catalogue& catalogue,
                    field_key& key, services::numeric_range& range) {
  key = field::none;
  const node_index base = as.find(node_id(0, base_event_type));
  const node_index type = o.type_definition_id.is_null() ? base : as.find(o.type_definition_id);
  if (type == no_node || as.at(type).cls != node_class::object_type || !as.is_subtype_of(type, base))
    return status::bad_type_definition_invalid;
  const auto r = services::parse_numeric_range(o.index_range.view());
  if (!r) return status::bad_index_range_invalid;
  range = *r;
  if (o.browse_path.empty()) {
    // Part 9 §5.5.2: the ConditionId is the NodeId attribute of the event (the condition) itself.
    if (o.attribute_id != static_cast<std::uint32_t>(attribute_id::node_id)) return status::bad_attribute_id_invalid;
    key = field::condition_id;
    return status::good;
  }
  if (o.attribute_id != static_cast<std::uint32_t>(attribute_id::value)) return status::bad_attribute_id_invalid;
  if (o.browse_path.size() > field_catalogue::max_path_length) return status::bad_browse_name_invalid;
  for (const auto& q : o.browse_path)
    if (q.name.is_null() || q.name.empty()) return status::bad_browse_name_invalid;
  // §7.22.3: with BaseEventType the path is evaluated without considering the type.
  if (type != base && !path_in_type(as, type, o.browse_path)) return status::bad_browse_name_invalid;
  key = catalogue.intern(o.browse_path);
  return status::good;
}

// Operand counts of Table 119 (min, max).
bool operand_count_ok(filter_operator op, std::size_t n) {
  switch (op) {
    case filter_operator::is_null:
    case filter_operator::not_:
    case filter_operator::of_type:
    case filter_operator::in_view: return n == 1;
    case filter_operator::between: return n == 3;
    case filter_operator::in_list: return n >= 2;
    case filter_operator::related_to: return n == 6;
    default: return n == 2;
  }
}

bool scalar_type_supported(std::uint32_t id) { return id >= 1 && id <= 12; }  // Boolean .. String

template <class T>
constexpr bool is_number_v = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

bool as_number(const variant& v, long double& out) {
  return std::visit(
      [&](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) {
          out = x ? 1 : 0;  // Table 122: Boolean converts to numbers
          return true;
        } else if constexpr (is_number_v<T>) {
          out = static_cast<long double>(x);
          return true;
        } else if constexpr (std::is_same_v<T, status_code>) {
          out = x.value();
          return true;
        } else {
          return false;
        }
      },
      v.value());
}

bool as_text(const variant& v, std::string_view& out) {
  if (const auto* s = v.get_if<ua_string>()) { out = s->view(); return true; }
  if (const auto* t = v.get_if<localized_text>()) { out = t->text.view(); return true; }
  return false;
}

bool parse_number(std::string_view s, long double& out) {
  double d = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) return false;
  out = d;
  return true;
}

const variant null_variant;

}  // namespace

// ---------------------------------------------------------------------------------------------
// The operators

namespace filter_ops {

bool compare(const variant& a, const variant& b, int& order) {
  if (a.empty() || b.empty() || a.is_array() || b.is_array()) return false;
  long double x = 0, y = 0;
  std::string_view s, t;
  const bool na = as_number(a, x), nb = as_number(b, y);
  const bool ta = !na && as_text(a, s), tb = !nb && as_text(b, t);
  if ((na || (ta && parse_number(s, x))) && (nb || (tb && parse_number(t, y))) && (na || nb)) {
    if (std::isnan(x) || std::isnan(y)) return false;
    order = x < y ? -1 : (x > y ? 1 : 0);
    return true;
  }
  if (ta && tb) {
    const int c = s.compare(t);
    order = c < 0 ? -1 : (c > 0 ? 1 : 0);
    return true;
  }
  if (const auto* da = a.get_if<date_time>()) {
    if (const auto* db = b.get_if<date_time>()) {
      order = da->ticks < db->ticks ? -1 : (da->ticks > db->ticks ? 1 : 0);
      return true;
    }
  }
  return false;
}

bool equals(const variant& a, const variant& b) {
  int order = 0;
  if (compare(a, b, order)) return order == 0;
  const node_id* ia = a.get_if<node_id>();
  const node_id* ib = b.get_if<node_id>();
  if (const auto* e = a.get_if<expanded_node_id>(); e && e->server_index == 0 && e->namespace_uri.is_null()) ia = &e->id;
  if (const auto* e = b.get_if<expanded_node_id>(); e && e->server_index == 0 && e->namespace_uri.is_null()) ib = &e->id;
  if (ia && ib) return *ia == *ib;
  if (a.empty() || b.empty()) return false;
  return a == b;
}

namespace {
// One pattern element at `p` against `c`; `next` is the position after it.
bool match_one(std::string_view pat, std::size_t p, char c, std::size_t& next) {
  if (p >= pat.size()) return false;
  const char ch = pat[p];
  if (ch == '_') { next = p + 1; return true; }
  if (ch == '\\' && p + 1 < pat.size()) { next = p + 2; return pat[p + 1] == c; }
  if (ch == '[') {
    std::size_t q = p + 1;
    const bool negate = q < pat.size() && pat[q] == '^';
    if (negate) ++q;
    const std::size_t close = pat.find(']', q + (q < pat.size() && pat[q] == ']' ? 1 : 0));
    if (close != std::string_view::npos) {
      bool in = false;
      for (std::size_t k = q; k < close; ++k) {
        if (k + 2 < close && pat[k + 1] == '-') {
          in = in || (c >= pat[k] && c <= pat[k + 2]);
          k += 2;
        } else {
          in = in || c == pat[k];
        }
      }
      next = close + 1;
      return in != negate;
    }
  }
  next = p + 1;
  return ch == c;
}
}  // namespace

// Greedy with one backtrack point per '%': O(text x pattern) at worst, both bounded.
bool like(std::string_view text, std::string_view pat) {
  std::size_t t = 0, p = 0;
  std::size_t star_p = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pat.size() && pat[p] == '%') {
      star_p = ++p;
      star_t = t;
      continue;
    }
    std::size_t next = 0;
    if (match_one(pat, p, text[t], next)) {
      p = next;
      ++t;
      continue;
    }
    if (star_p != std::string_view::npos) {
      p = star_p;
      t = ++star_t;
      continue;
    }
    return false;
  }
  while (p < pat.size() && pat[p] == '%') ++p;
  return p == pat.size();
}

namespace {
template <class T>
bool to_integer(long double x, variant& out) {
  if (!std::isfinite(x)) return false;
  const long double r = std::nearbyint(x);
  if (r < static_cast<long double>(std::numeric_limits<T>::min()) ||
      r > static_cast<long double>(std::numeric_limits<T>::max()))
    return false;
  out.emplace<T>() = static_cast<T>(r);
  return true;
}
}  // namespace

bool cast(const variant& in, builtin_type to, variant& out) {
  if (in.empty() || in.is_array()) return false;
  long double x = 0;
  std::string_view s;
  bool number = as_number(in, x);
  const bool text = !number && as_text(in, s);
  if (to == builtin_type::string) {
    if (text) { out.emplace<ua_string>().assign(s); return true; }
    if (!number) return false;
    char buf[64];
    int n = 0;
    if (const auto* b = in.get_if<bool>()) n = std::snprintf(buf, sizeof buf, "%s", *b ? "true" : "false");
    else if (in.get_if<float>() || in.get_if<double>()) n = std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(x));
    else n = std::snprintf(buf, sizeof buf, "%.0Lf", x);
    out.emplace<ua_string>().assign(buf, static_cast<std::size_t>(n));
    return true;
  }
  if (text) {
    if (to == builtin_type::boolean) {
      if (s == "true" || s == "1") { out.emplace<bool>() = true; return true; }
      if (s == "false" || s == "0") { out.emplace<bool>() = false; return true; }
      return false;
    }
    number = parse_number(s, x);
  }
  if (!number) return false;
  switch (to) {
    case builtin_type::boolean: out.emplace<bool>() = x != 0; return true;
    case builtin_type::sbyte: return to_integer<std::int8_t>(x, out);
    case builtin_type::byte: return to_integer<std::uint8_t>(x, out);
    case builtin_type::int16: return to_integer<std::int16_t>(x, out);
    case builtin_type::uint16: return to_integer<std::uint16_t>(x, out);
    case builtin_type::int32: return to_integer<std::int32_t>(x, out);
    case builtin_type::uint32: return to_integer<std::uint32_t>(x, out);
    case builtin_type::int64: return to_integer<std::int64_t>(x, out);
    case builtin_type::uint64: return to_integer<std::uint64_t>(x, out);
    case builtin_type::float_: out.emplace<float>() = static_cast<float>(x); return true;
    case builtin_type::double_: out.emplace<double>() = static_cast<double>(x); return true;
    default: return false;
  }
}

}  // namespace filter_ops

// ---------------------------------------------------------------------------------------------
// Compiling

status_code event_filter_program::compile(const event_filter& f, const address_space& as, field_catalogue& catalogue,
                                          const event_filter_limits& limits, event_filter_result& result) {
  selects_.clear();
  elements_.clear();
  result.select_clause_results.clear();
  result.select_clause_diagnostic_infos.clear();
  result.where_clause_result.element_results.clear();
  result.where_clause_result.element_diagnostic_infos.clear();
  const auto& where = f.where_clause.elements;
  // Hostile sizes first: nothing is resolved for a filter that is too large.
  if (f.select_clauses.empty() || f.select_clauses.size() > limits.max_select_clauses ||
      where.size() > limits.max_elements)
    return status::bad_event_filter_invalid;

  result.select_clause_results.resize(f.select_clauses.size());
  selects_.resize(f.select_clauses.size());
  for (std::size_t i = 0; i < f.select_clauses.size(); ++i) {
    // An invalid select clause does not fail the item (Part 4 §7.22.3): its field is null.
    result.select_clause_results[i] = resolve(f.select_clauses[i], as, catalogue, selects_[i].key, selects_[i].range);
    if (result.select_clause_results[i].is_bad()) selects_[i].key = field::none;
  }

  bool failed = false;
  result.where_clause_result.element_results.resize(where.size());
  elements_.resize(where.size());
  for (std::size_t i = 0; i < where.size(); ++i) {
    const content_filter_element& in = where[i];
    auto& er = result.where_clause_result.element_results[i];
    er.status_code = status::good;
    element& el = elements_[i];
    el.op = in.filter_operator;
    const auto opv = static_cast<std::int32_t>(in.filter_operator);
    if (opv < 0 || opv > static_cast<std::int32_t>(filter_operator::bitwise_or)) {
      er.status_code = status::bad_filter_operator_invalid;
      failed = true;
      continue;
    }
    // Part 4 §7.22.3: InView and RelatedTo are not for event filters (no views or references
    // of event instances here).
    if (el.op == filter_operator::in_view || el.op == filter_operator::related_to) {
      er.status_code = status::bad_filter_operator_unsupported;
      failed = true;
      continue;
    }
    if (!operand_count_ok(el.op, in.filter_operands.size()) || in.filter_operands.size() > limits.max_operands) {
      er.status_code = status::bad_filter_operand_count_mismatch;
      failed = true;
      continue;
    }
    er.operand_status_codes.resize(in.filter_operands.size());
    el.operands.resize(in.filter_operands.size());
    bool bad_operand = false;
    for (std::size_t j = 0; j < in.filter_operands.size(); ++j) {
      const extension_object& x = in.filter_operands[j];
      operand& o = el.operands[j];
      status_code sc = status::good;
      if (const auto* e = x.get_if<element_operand>()) {
        // §7.7.4.2: an element refers to later elements only, so a filter has no cycle (a clause
        // referring to itself is refused here, not looped on).
        if (e->index <= i || e->index >= where.size()) sc = status::bad_filter_operand_invalid;
        o.k = operand::kind::element;
        o.element = e->index;
      } else if (const auto* l = x.get_if<literal_operand>()) {
        o.k = operand::kind::literal;
        o.literal = l->value;
      } else if (const auto* s = x.get_if<simple_attribute_operand>()) {
        o.k = operand::kind::field;
        sc = resolve(*s, as, catalogue, o.key, o.range);
      } else {
        sc = status::bad_filter_operand_invalid;  // AttributeOperand (Query only), unknown or empty
      }
      // The operators that need a literal of a kind.
      if (sc.is_good() && el.op == filter_operator::of_type) {
        const node_id* t = o.literal.get_if<node_id>();
        const node_index n = (o.k == operand::kind::literal && t) ? as.find(*t) : no_node;
        if (n == no_node || !as.is_subtype_of(n, as.find(node_id(0, base_event_type)))) sc = status::bad_filter_operand_invalid;
        el.type = n;
      }
      if (sc.is_good() && el.op == filter_operator::cast && j == 1) {
        const node_id* t = o.literal.get_if<node_id>();
        if (o.k != operand::kind::literal || !t || t->namespace_index() != 0 || t->type() != node_id_type::numeric ||
            !scalar_type_supported(t->numeric()))
          sc = status::bad_filter_operand_invalid;
        else el.cast_to = static_cast<builtin_type>(t->numeric());
      }
      if (sc.is_good() && el.op == filter_operator::like && j == 1 && o.k == operand::kind::literal) {
        std::string_view pat;
        if (!as_text(o.literal, pat) || pat.size() > limits.max_like_pattern) sc = status::bad_filter_literal_invalid;
      }
      er.operand_status_codes[j] = sc;
      bad_operand = bad_operand || sc.is_bad();
    }
    if (bad_operand) {
      er.status_code = status::bad_filter_operand_invalid;
      failed = true;
    } else {
      er.operand_status_codes.clear();
    }
  }
  results_.assign(elements_.size(), variant{});
  stamp_.assign(elements_.size(), 0);
  epoch_ = 0;
  if (failed) {
    elements_.clear();
    return status::bad_event_filter_invalid;
  }
  return status::good;
}

// ---------------------------------------------------------------------------------------------
// Evaluating

const variant& event_filter_program::value_of(operand& o, const event_record& e, const address_space& as) {
  switch (o.k) {
    case operand::kind::literal: return o.literal;
    case operand::kind::element: return evaluate(o.element, e, as);
    case operand::kind::field: {
      const variant* v = e.find(o.key);
      if (!v) return null_variant;
      if (o.range.empty()) return *v;
      o.scratch = *v;
      if (services::apply_numeric_range(o.scratch, o.range).is_bad()) o.scratch.clear();
      return o.scratch;
    }
  }
  return null_variant;
}

bool event_filter_program::matches(const event_record& e, const address_space& as) {
  if (elements_.empty()) return true;
  if (++epoch_ == 0) {
    std::fill(stamp_.begin(), stamp_.end(), 0);
    epoch_ = 1;
  }
  const bool* b = evaluate(0, e, as).get_if<bool>();
  return b && *b;
}

// Each element once per event (the memo), so shared sub-clauses cost nothing twice: the work is
// bounded by the operand count, whatever the nesting.
const variant& event_filter_program::evaluate(std::uint32_t index, const event_record& e, const address_space& as) {
  variant& out = results_[index];
  if (stamp_[index] == epoch_) return out;
  stamp_[index] = epoch_;
  element& el = elements_[index];
  const auto set = [&](bool v) -> const variant& {
    out.emplace<bool>() = v;
    return out;
  };
  const auto null = [&]() -> const variant& {
    out.clear();
    return out;
  };
  // Three-valued logic (Table 121): a non-Boolean operand counts as NULL.
  const auto truth = [](const variant& v) -> int {
    const bool* b = v.get_if<bool>();
    return b ? (*b ? 1 : 0) : -1;
  };
  int order = 0;
  switch (el.op) {
    case filter_operator::equals: return set(filter_ops::equals(value_of(el.operands[0], e, as), value_of(el.operands[1], e, as)));
    case filter_operator::is_null: return set(value_of(el.operands[0], e, as).empty());
    case filter_operator::greater_than:
      return set(filter_ops::compare(value_of(el.operands[0], e, as), value_of(el.operands[1], e, as), order) && order > 0);
    case filter_operator::less_than:
      return set(filter_ops::compare(value_of(el.operands[0], e, as), value_of(el.operands[1], e, as), order) && order < 0);
    case filter_operator::greater_than_or_equal:
      return set(filter_ops::compare(value_of(el.operands[0], e, as), value_of(el.operands[1], e, as), order) && order >= 0);
    case filter_operator::less_than_or_equal:
      return set(filter_ops::compare(value_of(el.operands[0], e, as), value_of(el.operands[1], e, as), order) && order <= 0);
    case filter_operator::like: {
      std::string_view text, pattern;
      if (!as_text(value_of(el.operands[0], e, as), text) || !as_text(value_of(el.operands[1], e, as), pattern)) return set(false);
      return set(filter_ops::like(text, pattern));
    }
    case filter_operator::not_: {
      const int t = truth(value_of(el.operands[0], e, as));
      return t < 0 ? null() : set(t == 0);
    }
    case filter_operator::between: {
      const variant& v = value_of(el.operands[0], e, as);
      int lo = 0, hi = 0;
      return set(filter_ops::compare(v, value_of(el.operands[1], e, as), lo) && lo >= 0 &&
                 filter_ops::compare(v, value_of(el.operands[2], e, as), hi) && hi <= 0);
    }
    case filter_operator::in_list: {
      const variant& v = value_of(el.operands[0], e, as);
      for (std::size_t k = 1; k < el.operands.size(); ++k)
        if (filter_ops::equals(v, value_of(el.operands[k], e, as))) return set(true);
      return set(false);
    }
    case filter_operator::and_: {
      const int a = truth(value_of(el.operands[0], e, as));
      if (a == 0) return set(false);
      const int b = truth(value_of(el.operands[1], e, as));
      if (b == 0) return set(false);
      return (a == 1 && b == 1) ? set(true) : null();
    }
    case filter_operator::or_: {
      const int a = truth(value_of(el.operands[0], e, as));
      if (a == 1) return set(true);
      const int b = truth(value_of(el.operands[1], e, as));
      if (b == 1) return set(true);
      return (a == 0 && b == 0) ? set(false) : null();
    }
    case filter_operator::cast: {
      const variant& v = value_of(el.operands[0], e, as);
      if (&v == &out) return out;
      return filter_ops::cast(v, el.cast_to, out) ? out : null();
    }
    case filter_operator::of_type: return set(e.type != no_node && as.is_subtype_of(e.type, el.type));
    case filter_operator::bitwise_and:
    case filter_operator::bitwise_or: {
      long double a = 0, b = 0;
      if (!as_number(value_of(el.operands[0], e, as), a) || !as_number(value_of(el.operands[1], e, as), b) ||
          a != std::nearbyint(a) || b != std::nearbyint(b))
        return null();
      const auto x = static_cast<std::int64_t>(a), y = static_cast<std::int64_t>(b);
      out.emplace<std::int64_t>() = el.op == filter_operator::bitwise_and ? (x & y) : (x | y);
      return out;
    }
    default: return null();
  }
}

void event_filter_program::select(const event_record& e, ua_array<variant>& out) {
  out.resize(selects_.size());
  for (std::size_t i = 0; i < selects_.size(); ++i) {
    const select_clause& s = selects_[i];
    const variant* v = s.key == field::none ? nullptr : e.find(s.key);
    if (!v) {
      out[i].clear();
      continue;
    }
    out[i] = *v;
    if (!s.range.empty() && services::apply_numeric_range(out[i], s.range).is_bad()) out[i].clear();
  }
}

}  // namespace uactor::actors
