// An EventFilter (Part 4 §7.22.3) compiled for one monitored item: its select clauses resolved to
// field keys, its where clause (a ContentFilter, §7.7) checked element by element and kept in a
// form that evaluates an event without allocating. Plain state, no CAF; docs/decisions/0018.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/server/services/index_range.hpp"
#include "engine/server/subscriptions/event_model.hpp"
#include "protocol/address_space.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::actors {

// What a filter may cost; past them the item gets Bad_EventFilterInvalid (hostile filters).
struct event_filter_limits {
  std::size_t max_select_clauses = 128;
  std::size_t max_elements = 256;
  std::size_t max_operands = 1'000;       // per element (InList)
  std::size_t max_like_pattern = 256;     // bytes; longer: Bad_FilterLiteralInvalid
};

class event_filter_program {
public:
  // Compiles `f` against the address space (types, browse paths) and the catalogue. `result` gets
  // one status per select clause and one ContentFilterElementResult per where element (left empty
  // when all are Good, as Part 4 §7.22.3 allows). Returns the item's status: Good, or
  // Bad_EventFilterInvalid (no select clause, a where element in error, a limit passed).
  ua::status_code compile(const ua::event_filter& f, const ua::address_space& as, field_catalogue& catalogue,
                          const event_filter_limits& limits, ua::event_filter_result& result);

  // The where clause for one event (an empty clause lets every event through). Allocates nothing
  // unless a Cast produces a String.
  bool matches(const event_record& e, const ua::address_space& as);
  // The selected fields of `e`, one Variant per select clause (null where the event has no such
  // field or the clause was invalid); `out`'s storage is reused.
  void select(const event_record& e, ua::ua_array<ua::variant>& out);

  std::size_t select_count() const noexcept { return selects_.size(); }

  struct operand {
    enum class kind : std::uint8_t { literal, element, field } k = kind::literal;
    std::uint32_t element = 0;
    field_key key = field::none;
    services::numeric_range range;
    ua::variant literal;
    ua::variant scratch;  // a field with the IndexRange applied
  };
  struct element {
    ua::filter_operator op{};
    std::vector<operand> operands;
    ua::node_index type = ua::no_node;        // OfType: the event type
    ua::builtin_type cast_to = ua::builtin_type::null;  // Cast
  };

private:
  struct select_clause {
    field_key key = field::none;
    services::numeric_range range;
  };
  // The value of an operand: a literal, a field of the event, or the result of another element.
  const ua::variant& value_of(operand& o, const event_record& e, const ua::address_space& as);
  const ua::variant& evaluate(std::uint32_t index, const event_record& e, const ua::address_space& as);

  std::vector<select_clause> selects_;
  std::vector<element> elements_;
  std::vector<ua::variant> results_;    // per element, for one event (memo: each element once)
  std::vector<std::uint32_t> stamp_;    // results_[i] holds this event's result when stamp_[i] == epoch_
  std::uint32_t epoch_ = 0;
};

// The operators' semantics, exposed for the unit tests: Part 4 §7.7.3 (Table 119) with the
// implicit conversions of Table 122 for numbers, strings and LocalizedText.
namespace filter_ops {
// <0, 0, >0, or no order (different, unconvertible types): returns false then.
bool compare(const ua::variant& a, const ua::variant& b, int& order);
bool equals(const ua::variant& a, const ua::variant& b);
// SQL-like (Table 120): % any run, _ any one character, [abc] [a-c] [^abc] one of / none of, \ escapes.
bool like(std::string_view text, std::string_view pattern);
// Cast to a built-in scalar type (numbers, Boolean, String); false when it cannot.
bool cast(const ua::variant& in, ua::builtin_type to, ua::variant& out);
}  // namespace filter_ops

}  // namespace uactor::actors
