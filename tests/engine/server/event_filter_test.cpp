// EventFilter compilation and evaluation (Part 4 §7.22.3, §7.7): each ContentFilter operator on
// events with known fields, the per-clause, per-element and per-operand status of invalid filters,
// and hostile filters (sizes, self-reference, deep chains) answered in bounded work.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/server/subscriptions/event_filter.hpp"
#include "uactor/ua/status_codes.hpp"
#include "tests/support/alloc_counter.hpp"

using namespace uactor;
using actors::event_filter_program;
using actors::event_record;
using actors::field_catalogue;
namespace field = actors::field;
namespace status = ua::status;
using op = ua::filter_operator;

namespace {

const ua::address_space& ns0_space() {
  static const ua::address_space as = [] {
    ua::address_space s;
    ua::load_namespace0(s);
    return s;
  }();
  return as;
}

constexpr std::uint32_t base_event_type = 2041;
constexpr std::uint32_t system_event_type = 2130;
constexpr std::uint32_t alarm_condition_type = 2915;
constexpr std::uint32_t condition_type = 2782;

ua::simple_attribute_operand path(std::vector<std::string> names, std::uint32_t type = base_event_type,
                                  std::uint32_t attribute = 13) {
  ua::simple_attribute_operand o;
  o.type_definition_id = ua::node_id(0, type);
  for (const auto& n : names) o.browse_path.push_back(ua::qualified_name{0, ua::ua_string(n)});
  o.attribute_id = attribute;
  return o;
}
ua::extension_object field_of(std::vector<std::string> names, std::uint32_t type = base_event_type) {
  return ua::extension_object(path(std::move(names), type));
}
ua::extension_object lit(ua::variant v) {
  ua::literal_operand l;
  l.value = std::move(v);
  return ua::extension_object(std::move(l));
}
ua::extension_object elem(std::uint32_t i) {
  ua::element_operand e;
  e.index = i;
  return ua::extension_object(e);
}
ua::content_filter_element element(op o, std::vector<ua::extension_object> operands) {
  ua::content_filter_element e;
  e.filter_operator = o;
  e.filter_operands = {operands.begin(), operands.end()};
  return e;
}

ua::event_filter filter(std::vector<ua::content_filter_element> where) {
  ua::event_filter f;
  f.select_clauses.push_back(path({"EventId"}));
  f.select_clauses.push_back(path({"Severity"}));
  f.select_clauses.push_back(path({"Message"}));
  f.where_clause.elements = {where.begin(), where.end()};
  return f;
}

// An event of BaseEventType (or `type`) with severity, message, source name.
event_record filter_event(field_catalogue& cat, std::uint16_t severity, const char* message,
                   std::uint32_t type = base_event_type) {
  event_record e;
  e.type = ns0_space().find(ua::node_id(0, type));
  e.set(field::event_id).emplace<ua::byte_string>().assign("0123456789abcdef");
  e.set(field::event_type) = ua::node_id(0, type);
  e.set(field::severity) = severity;
  e.set(field::message) = ua::localized_text{ua::ua_string("en"), ua::ua_string(message)};
  e.set(field::source_name) = ua::ua_string("Pump1");
  e.set(field::time) = ua::date_time{1000};
  e.set(cat.intern("Temperature")) = 71.5;
  return e;
}

struct compiled {
  field_catalogue cat;
  event_filter_program program;
  ua::event_filter_result result;
  ua::status_code status;
  explicit compiled(const ua::event_filter& f, actors::event_filter_limits limits = {}) {
    status = program.compile(f, ns0_space(), cat, limits, result);
  }
  bool matches(std::uint16_t severity, const char* message = "pump tripped", std::uint32_t type = base_event_type) {
    const auto e = filter_event(cat, severity, message, type);
    return program.matches(e, ns0_space());
  }
};

bool passes(std::vector<ua::content_filter_element> where, std::uint16_t severity = 500,
            const char* message = "pump tripped", std::uint32_t type = base_event_type) {
  compiled c(filter(std::move(where)));
  REQUIRE(c.status == status::good);
  return c.matches(severity, message, type);
}

}  // namespace

TEST_CASE("event filter: the select clauses give the fields in order, null for a field the event lacks",
          "[events][filter]") {
  ua::event_filter f;
  f.select_clauses.push_back(path({"Severity"}));
  f.select_clauses.push_back(path({"SourceName"}));
  f.select_clauses.push_back(path({"Temperature"}));
  f.select_clauses.push_back(path({"NoSuchField"}));
  compiled c(f);
  REQUIRE(c.status == status::good);
  REQUIRE(c.result.select_clause_results.size() == 4);
  for (const auto& r : c.result.select_clause_results) CHECK(r == status::good);
  const auto e = filter_event(c.cat, 700, "x");
  ua::ua_array<ua::variant> out;
  c.program.select(e, out);
  REQUIRE(out.size() == 4);
  CHECK(out[0] == ua::variant(std::uint16_t{700}));
  CHECK(out[1] == ua::variant(ua::ua_string("Pump1")));
  CHECK(out[2] == ua::variant(71.5));
  CHECK(out[3].empty());
}

TEST_CASE("event filter: invalid select clauses get their own status and a null field, none at all fails the item",
          "[events][filter]") {
  ua::event_filter f;
  f.select_clauses.push_back(path({"Severity"}, 58));                    // BaseObjectType: not an event type
  f.select_clauses.push_back(path({"Severity"}, 999999));                // unknown type
  f.select_clauses.push_back(path({"NoSuchChild"}, alarm_condition_type));  // not in AlarmConditionType
  f.select_clauses.push_back(path({"Severity"}, base_event_type, 1));    // NodeId of a Property: no
  f.select_clauses.push_back(path({}, condition_type, 1));               // ConditionId: fine
  f.select_clauses.push_back(path({"ActiveState", "Id"}, alarm_condition_type));  // inherited path: fine
  auto bad_range = path({"Severity"});
  bad_range.index_range = ua::ua_string("3:1");
  f.select_clauses.push_back(bad_range);
  f.select_clauses.push_back(path({""}));
  compiled c(f);
  CHECK(c.status == status::good);
  REQUIRE(c.result.select_clause_results.size() == 8);
  CHECK(c.result.select_clause_results[0] == status::bad_type_definition_invalid);
  CHECK(c.result.select_clause_results[1] == status::bad_type_definition_invalid);
  CHECK(c.result.select_clause_results[2] == status::bad_browse_name_invalid);
  CHECK(c.result.select_clause_results[3] == status::bad_attribute_id_invalid);
  CHECK(c.result.select_clause_results[4] == status::good);
  CHECK(c.result.select_clause_results[5] == status::good);
  CHECK(c.result.select_clause_results[6] == status::bad_index_range_invalid);
  CHECK(c.result.select_clause_results[7] == status::bad_browse_name_invalid);

  compiled none(ua::event_filter{});
  CHECK(none.status == status::bad_event_filter_invalid);
}

TEST_CASE("event filter: an empty where clause lets every event through", "[events][filter]") {
  CHECK(passes({}, 1));
}

TEST_CASE("event filter: Equals, GreaterThan, LessThan, GreaterThanOrEqual, LessThanOrEqual with implicit conversion",
          "[events][filter]") {
  const auto sev = [] { return field_of({"Severity"}); };
  CHECK(passes({element(op::equals, {sev(), lit(std::uint16_t{500})})}, 500));
  CHECK(passes({element(op::equals, {sev(), lit(std::int32_t{500})})}, 500));       // UInt16 vs Int32
  CHECK(passes({element(op::equals, {sev(), lit(500.0)})}, 500));                    // vs Double
  CHECK(passes({element(op::equals, {sev(), lit(ua::ua_string("500"))})}, 500));     // vs String
  CHECK_FALSE(passes({element(op::equals, {sev(), lit(std::int32_t{501})})}, 500));
  CHECK_FALSE(passes({element(op::equals, {sev(), lit(ua::ua_string("loud"))})}, 500));
  CHECK(passes({element(op::greater_than, {sev(), lit(std::int32_t{499})})}, 500));
  CHECK_FALSE(passes({element(op::greater_than, {sev(), lit(std::int32_t{500})})}, 500));
  CHECK(passes({element(op::less_than, {sev(), lit(std::int32_t{501})})}, 500));
  CHECK_FALSE(passes({element(op::less_than, {sev(), lit(std::int32_t{500})})}, 500));
  CHECK(passes({element(op::greater_than_or_equal, {sev(), lit(std::int32_t{500})})}, 500));
  CHECK_FALSE(passes({element(op::greater_than_or_equal, {sev(), lit(std::int32_t{501})})}, 500));
  CHECK(passes({element(op::less_than_or_equal, {sev(), lit(std::int32_t{500})})}, 500));
  CHECK_FALSE(passes({element(op::less_than_or_equal, {sev(), lit(std::int32_t{499})})}, 500));
  // Strings, LocalizedText and NodeIds
  CHECK(passes({element(op::equals, {field_of({"SourceName"}), lit(ua::ua_string("Pump1"))})}));
  CHECK(passes({element(op::equals, {field_of({"Message"}), lit(ua::ua_string("pump tripped"))})}));
  CHECK(passes({element(op::equals, {field_of({"EventType"}), lit(ua::node_id(0, base_event_type))})}));
  CHECK_FALSE(passes({element(op::equals, {field_of({"EventType"}), lit(ua::node_id(0, system_event_type))})}));
  // A field the event does not have compares false (never equal to anything)
  CHECK_FALSE(passes({element(op::equals, {field_of({"Nothing"}), lit(std::int32_t{0})})}));
}

TEST_CASE("event filter: IsNull, Not, And, Or in three-valued logic", "[events][filter]") {
  CHECK(passes({element(op::is_null, {field_of({"Nothing"})})}));
  CHECK_FALSE(passes({element(op::is_null, {field_of({"Severity"})})}));
  const auto sev_gt = [](std::int32_t v) { return element(op::greater_than, {field_of({"Severity"}), lit(v)}); };
  CHECK(passes({element(op::not_, {elem(1)}), sev_gt(600)}, 500));
  CHECK_FALSE(passes({element(op::not_, {elem(1)}), sev_gt(400)}, 500));
  CHECK(passes({element(op::and_, {elem(1), elem(2)}), sev_gt(100), sev_gt(400)}, 500));
  CHECK_FALSE(passes({element(op::and_, {elem(1), elem(2)}), sev_gt(100), sev_gt(600)}, 500));
  CHECK(passes({element(op::or_, {elem(1), elem(2)}), sev_gt(900), sev_gt(400)}, 500));
  CHECK_FALSE(passes({element(op::or_, {elem(1), elem(2)}), sev_gt(900), sev_gt(600)}, 500));
  // NULL (a non-Boolean operand): Not NULL is NULL (no match), NULL And FALSE is FALSE, NULL Or TRUE is TRUE.
  CHECK_FALSE(passes({element(op::not_, {field_of({"Nothing"})})}));
  CHECK(passes({element(op::not_, {elem(1)}), element(op::and_, {field_of({"Nothing"}), elem(2)}), sev_gt(600)}, 500));
  CHECK_FALSE(passes({element(op::and_, {field_of({"Nothing"}), elem(1)}), sev_gt(400)}, 500));  // NULL And TRUE
  CHECK(passes({element(op::or_, {field_of({"Nothing"}), elem(1)}), sev_gt(400)}, 500));
  CHECK_FALSE(passes({element(op::or_, {field_of({"Nothing"}), elem(1)}), sev_gt(600)}, 500));
}

TEST_CASE("event filter: Like with %, _, [set], [^set], ranges and escapes", "[events][filter]") {
  using actors::filter_ops::like;
  CHECK(like("pump tripped", "%trip%"));
  CHECK(like("pump tripped", "pump%"));
  CHECK_FALSE(like("pump tripped", "valve%"));
  CHECK(like("Pump1", "Pump_"));
  CHECK_FALSE(like("Pump12", "Pump_"));
  CHECK(like("Pump1", "Pump[123]"));
  CHECK_FALSE(like("Pump4", "Pump[123]"));
  CHECK(like("Pump4", "Pump[^123]"));
  CHECK(like("Pump7", "Pump[5-9]"));
  CHECK(like("100%", "100\\%"));
  CHECK_FALSE(like("1000", "100\\%"));
  CHECK(like("", "%"));
  CHECK(like("aaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "%a%a%a%a%a%b"));
  CHECK_FALSE(like("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "%a%a%a%a%a%b"));
  CHECK(passes({element(op::like, {field_of({"Message"}), lit(ua::ua_string("%tripped"))})}));
  CHECK_FALSE(passes({element(op::like, {field_of({"Message"}), lit(ua::ua_string("%started"))})}));
}

TEST_CASE("event filter: Between, InList, Cast, OfType, BitwiseAnd, BitwiseOr", "[events][filter]") {
  const auto sev = [] { return field_of({"Severity"}); };
  CHECK(passes({element(op::between, {sev(), lit(std::int32_t{400}), lit(std::int32_t{600})})}, 500));
  CHECK(passes({element(op::between, {sev(), lit(std::int32_t{500}), lit(std::int32_t{500})})}, 500));
  CHECK_FALSE(passes({element(op::between, {sev(), lit(std::int32_t{501}), lit(std::int32_t{600})})}, 500));
  CHECK(passes({element(op::in_list, {sev(), lit(std::int32_t{100}), lit(std::int32_t{500}), lit(std::int32_t{900})})}, 500));
  CHECK_FALSE(passes({element(op::in_list, {sev(), lit(std::int32_t{100}), lit(std::int32_t{900})})}, 500));
  // Cast: the Severity as a String compared with a String; a Double field cast to Int32.
  CHECK(passes({element(op::equals, {elem(1), lit(ua::ua_string("500"))}),
                element(op::cast, {sev(), lit(ua::node_id(0, 12))})}, 500));
  CHECK(passes({element(op::equals, {elem(1), lit(std::int32_t{72})}),
                element(op::cast, {field_of({"Temperature"}), lit(ua::node_id(0, 6))})}));
  // OfType: the event's type or a supertype of it.
  CHECK(passes({element(op::of_type, {lit(ua::node_id(0, base_event_type))})}, 500, "x", system_event_type));
  CHECK(passes({element(op::of_type, {lit(ua::node_id(0, system_event_type))})}, 500, "x", system_event_type));
  CHECK_FALSE(passes({element(op::of_type, {lit(ua::node_id(0, system_event_type))})}, 500, "x", base_event_type));
  // Bitwise: (Severity & 0x0F0) == 0x0F0 for 500 = 0x1F4
  CHECK(passes({element(op::equals, {elem(1), lit(std::int32_t{0xF0})}),
                element(op::bitwise_and, {sev(), lit(std::int32_t{0xF0})})}, 500));
  CHECK(passes({element(op::equals, {elem(1), lit(std::int32_t{0x1FF})}),
                element(op::bitwise_or, {sev(), lit(std::int32_t{0x0F})})}, 500));
}

TEST_CASE("event filter: invalid where elements get per-element and per-operand codes, and the item fails",
          "[events][filter]") {
  auto f = filter({
      element(static_cast<op>(99), {lit(1)}),                          // 0 unknown operator
      element(op::equals, {lit(1)}),                                   // 1 one operand for two
      element(op::in_view, {lit(ua::node_id(0, 85))}),                 // 2 InView: unsupported here
      element(op::and_, {elem(3), elem(4)}),                           // 3 refers to itself
      element(op::of_type, {lit(ua::node_id(0, 58))}),                 // 4 not an event type
      element(op::cast, {lit(1), lit(ua::node_id(0, 22))}),            // 5 ExtensionObject: no cast
      element(op::like, {field_of({"Message"}), lit(ua::ua_string(std::string(300, '%')))}),  // 6 pattern too long
      element(op::equals, {ua::extension_object(ua::attribute_operand{}), lit(1)}),  // 7 AttributeOperand
      element(op::equals, {field_of({"Severity"}, 58), lit(1)}),        // 8 bad type in an operand
      element(op::equals, {field_of({"Severity"}), lit(1)}),            // 9 fine
  });
  compiled c(f);
  CHECK(c.status == status::bad_event_filter_invalid);
  const auto& r = c.result.where_clause_result.element_results;
  REQUIRE(r.size() == 10);
  CHECK(r[0].status_code == status::bad_filter_operator_invalid);
  CHECK(r[1].status_code == status::bad_filter_operand_count_mismatch);
  CHECK(r[2].status_code == status::bad_filter_operator_unsupported);
  CHECK(r[3].status_code == status::bad_filter_operand_invalid);
  REQUIRE(r[3].operand_status_codes.size() == 2);
  CHECK(r[3].operand_status_codes[0] == status::bad_filter_operand_invalid);
  CHECK(r[3].operand_status_codes[1] == status::good);
  CHECK(r[4].status_code == status::bad_filter_operand_invalid);
  CHECK(r[5].status_code == status::bad_filter_operand_invalid);
  CHECK(r[6].status_code == status::bad_filter_operand_invalid);
  REQUIRE(r[6].operand_status_codes.size() == 2);
  CHECK(r[6].operand_status_codes[1] == status::bad_filter_literal_invalid);
  CHECK(r[7].status_code == status::bad_filter_operand_invalid);
  CHECK(r[8].status_code == status::bad_filter_operand_invalid);
  REQUIRE(r[8].operand_status_codes.size() == 2);
  CHECK(r[8].operand_status_codes[0] == status::bad_type_definition_invalid);
  CHECK(r[9].status_code == status::good);
  CHECK(r[9].operand_status_codes.empty());
}

TEST_CASE("event filter: hostile sizes are refused before any work", "[events][filter]") {
  actors::event_filter_limits limits;
  ua::event_filter many_selects;
  for (std::size_t i = 0; i <= limits.max_select_clauses; ++i) many_selects.select_clauses.push_back(path({"Severity"}));
  CHECK(compiled(many_selects).status == status::bad_event_filter_invalid);

  std::vector<ua::content_filter_element> many;
  for (std::size_t i = 0; i <= limits.max_elements; ++i) many.push_back(element(op::is_null, {lit(1)}));
  CHECK(compiled(filter(many)).status == status::bad_event_filter_invalid);

  std::vector<ua::extension_object> list{field_of({"Severity"})};
  for (std::size_t i = 0; i < limits.max_operands; ++i) list.push_back(lit(std::int32_t(i)));
  compiled huge(filter({element(op::in_list, list)}));
  CHECK(huge.status == status::bad_event_filter_invalid);
  CHECK(huge.result.where_clause_result.element_results[0].status_code == status::bad_filter_operand_count_mismatch);

  auto deep = path({"Severity"});
  deep.browse_path.resize(field_catalogue::max_path_length + 1, ua::qualified_name{0, ua::ua_string("A")});
  ua::event_filter deep_filter;
  deep_filter.select_clauses.push_back(deep);
  compiled d(deep_filter);
  CHECK(d.result.select_clause_results[0] == status::bad_browse_name_invalid);
}

TEST_CASE("event filter: a chain of 255 elements sharing sub-clauses evaluates each element once", "[events][filter]") {
  // Element i: And(i+1, i+1) down to a GreaterThan: evaluated naively that is 2^254 visits.
  std::vector<ua::content_filter_element> chain;
  for (std::uint32_t i = 0; i + 1 < 255; ++i) chain.push_back(element(op::and_, {elem(i + 1), elem(i + 1)}));
  chain.push_back(element(op::greater_than, {field_of({"Severity"}), lit(std::int32_t{10})}));
  compiled c(filter(chain));
  REQUIRE(c.status == status::good);
  CHECK(c.matches(500));
  CHECK_FALSE(c.matches(5));
}

TEST_CASE("event filter: evaluating a where clause and selecting fields allocates nothing when warm", "[events][filter]") {
  compiled c(filter({element(op::and_, {elem(1), elem(2)}),
                     element(op::greater_than_or_equal, {field_of({"Severity"}), lit(std::int32_t{100})}),
                     element(op::like, {field_of({"Message"}), lit(ua::ua_string("%trip%"))})}));
  REQUIRE(c.status == status::good);
  const auto e = filter_event(c.cat, 500, "pump tripped");
  ua::ua_array<ua::variant> out;
  c.program.select(e, out);
  REQUIRE(c.program.matches(e, ns0_space()));
  const auto before = test::thread_alloc_counts().allocations;
  for (int i = 0; i < 100; ++i) {
    REQUIRE(c.program.matches(e, ns0_space()));
    c.program.select(e, out);
  }
  if (test::counts_allocations) CHECK(test::thread_alloc_counts().allocations - before == 0);
}
