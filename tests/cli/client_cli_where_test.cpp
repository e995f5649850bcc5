// `uactor subscribe --events --where EXPR` (cli/client_cli.hpp parse_where): each operator and
// literal type to its ContentFilterElement (Part 4 §7.7.3), a malformed expression to the reason.
#include <catch2/catch.hpp>

#include <string>

#include "engine/client/subscription.hpp"
#include "cli/client_cli.hpp"

using namespace uactor;

namespace {

struct parsed {
  app::where_condition w;
  std::string why;
};

parsed parse(std::string_view text, ua::node_id type = ua::node_id(0, 2041)) {
  parsed p;
  p.w = app::parse_where(text, type, p.why);
  return p;
}

const ua::simple_attribute_operand& field_of(const parsed& p) {
  REQUIRE(p.w.element.filter_operands.size() == 2);
  const auto* f = p.w.element.filter_operands[0].get_if<ua::simple_attribute_operand>();
  REQUIRE(f);
  return *f;
}

const ua::variant& literal_of(const parsed& p) {
  REQUIRE(p.w.element.filter_operands.size() == 2);
  const auto* l = p.w.element.filter_operands[1].get_if<ua::literal_operand>();
  REQUIRE(l);
  return l->value;
}

}  // namespace

TEST_CASE("subscribe --where: each operator to its filter element", "[runtime][cli-where]") {
  using op = ua::filter_operator;
  const std::pair<const char*, op> cases[] = {
      {"Severity == 500", op::equals},          {"Severity != 500", op::equals},
      {"Severity < 500", op::less_than},        {"Severity <= 500", op::less_than_or_equal},
      {"Severity > 500", op::greater_than},     {"Severity >= 500", op::greater_than_or_equal},
      {"Severity>=500", op::greater_than_or_equal}, {"Message like %trip%", op::like},
      {"Message LIKE %trip%", op::like}};
  for (const auto& [text, want] : cases) {
    INFO(text);
    const auto p = parse(text);
    REQUIRE(p.why.empty());
    CHECK(p.w.element.filter_operator == want);
    CHECK(p.w.negated == (std::string_view(text).find("!=") != std::string_view::npos));
    CHECK(field_of(p).browse_path[0].name.view() == (want == op::like ? "Message" : "Severity"));
    CHECK(field_of(p).type_definition_id == ua::node_id(0, 2041));
  }
}

TEST_CASE("subscribe --where: the field a path of --select-type, the value typed by its text", "[runtime][cli-where]") {
  const auto nested = parse("ActiveState/Id == true", ua::node_id(0, 2915));
  REQUIRE(nested.why.empty());
  CHECK(field_of(nested).type_definition_id == ua::node_id(0, 2915));
  REQUIRE(field_of(nested).browse_path.size() == 2);
  CHECK(field_of(nested).browse_path[1].name.view() == "Id");
  CHECK(*literal_of(nested).get_if<bool>() == true);

  CHECK(*literal_of(parse("Severity >= 500")).get_if<std::int32_t>() == 500);
  CHECK(*literal_of(parse("Severity >= 5000000000")).get_if<std::int64_t>() == 5'000'000'000);
  CHECK(*literal_of(parse("Value < -1.5")).get_if<double>() == -1.5);
  CHECK(*literal_of(parse("SourceNode == ns=2;s=Pump1")).get_if<ua::node_id>() == ua::node_id::string(2, "Pump1"));
  CHECK(*literal_of(parse("EventType == i=2041")).get_if<ua::node_id>() == ua::node_id(0, 2041));
  CHECK(literal_of(parse("SourceName == Pump1")).get_if<ua::ua_string>()->view() == "Pump1");
  CHECK(literal_of(parse("SourceName == 'pump 1 == ok'")).get_if<ua::ua_string>()->view() == "pump 1 == ok");
  CHECK(literal_of(parse("SourceName == \"500\"")).get_if<ua::ua_string>()->view() == "500");
  CHECK(literal_of(parse("Message like '%a b%'")).get_if<ua::ua_string>()->view() == "%a b%");
  CHECK(literal_of(parse("Message like 5%")).get_if<ua::ua_string>()->view() == "5%");  // Like: always a String
}

TEST_CASE("subscribe --where: a malformed expression names what is wrong", "[runtime][cli-where]") {
  const std::pair<const char*, const char*> cases[] = {
      {"Severity 500", "no operator"},
      {"Severity = 500", "no operator"},
      {"Severity ! 500", "no operator"},
      {"", "no operator"},
      {"== 500", "no field before =="},
      {"Severity >=", "no value after >="},
      {"Active//Id == true", "empty path element"},
      {"/Severity == 1", "empty path element"},
      {"SourceName == 'Pump1", "unterminated quote"},
      {"SourceNode == ns=x;s=a", "is no NodeId"},
      {"Unlike 5", "no operator"},
  };
  for (const auto& [text, want] : cases) {
    INFO(text);
    const auto p = parse(text);
    CHECK(p.why.find(want) != std::string::npos);
  }
}

TEST_CASE("event filter builder: where_not puts a Not in its condition's place, the condition after all others",
          "[runtime][cli-where]") {
  ua::content_filter_element eq;
  eq.filter_operator = ua::filter_operator::equals;
  SECTION("alone: Not(E1), the condition") {
    event_filter_builder b;
    b.where_not(eq);
    const auto f = b.build();
    REQUIRE(f.where_clause.elements.size() == 2);
    CHECK(f.where_clause.elements[0].filter_operator == ua::filter_operator::not_);
    CHECK(f.where_clause.elements[0].filter_operands[0].get_if<ua::element_operand>()->index == 1);
    CHECK(f.where_clause.elements[1].filter_operator == ua::filter_operator::equals);
    CHECK(b.where_element(0) == 0);
    CHECK(b.condition_of_element(0) == 0);
    CHECK(b.condition_of_element(1) == 0);
  }
  SECTION("among others: every ElementOperand points to a later element (Part 4 §7.7.4.2)") {
    event_filter_builder b;
    b.min_severity(1).where_not(eq).min_severity(2).where_not(eq);
    const auto f = b.build();
    // [And, And, And, c0, Not, c2, Not, c1, c3]
    REQUIRE(f.where_clause.elements.size() == 9);
    CHECK(f.where_clause.elements[b.where_element(1)].filter_operator == ua::filter_operator::not_);
    CHECK(f.where_clause.elements[b.where_element(3)].filter_operator == ua::filter_operator::not_);
    CHECK(f.where_clause.elements[4].filter_operands[0].get_if<ua::element_operand>()->index == 7);
    CHECK(f.where_clause.elements[6].filter_operands[0].get_if<ua::element_operand>()->index == 8);
    for (std::size_t i = 0; i < f.where_clause.elements.size(); ++i)
      for (const auto& o : f.where_clause.elements[i].filter_operands)
        if (const auto* e = o.get_if<ua::element_operand>()) CHECK(e->index > i);
    const std::size_t none = static_cast<std::size_t>(-1);
    const std::size_t want[] = {none, none, none, 0, 1, 2, 3, 1, 3};
    for (std::size_t i = 0; i < 9; ++i) CHECK(b.condition_of_element(i) == want[i]);
    CHECK(b.condition_of_element(9) == none);
  }
}
