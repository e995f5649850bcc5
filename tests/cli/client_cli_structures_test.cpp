// The client commands' decoding of structures by their DataTypeDefinition
// (cli/client_cli_structures.hpp): plain, optional fields, unions, inline structures, and
// hostile bodies (truncated at every byte, bytes left over, lengths past the limits, nesting
// without end) that must print by TypeId instead.
#include <catch2/catch.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "protocol/byte_buffer.hpp"
#include "protocol/codec.hpp"
#include "cli/client_cli_structures.hpp"

using namespace uactor;
using app::client_cli::decode_structure;
using app::client_cli::field_layout;
using app::client_cli::structure_layout;

namespace {

ua::structure_field field(std::string_view name, std::int32_t value_rank = -1, bool optional = false) {
  ua::structure_field f;
  f.name = ua::ua_string(name);
  f.value_rank = value_rank;
  f.is_optional = optional;
  return f;
}

// PumpStatus {Mode: Int32 (an enumeration), Rpm: Double, Tags: String[]}.
structure_layout pump_status() {
  structure_layout l;
  l.name = "PumpStatus";
  l.definition.default_encoding_id = ua::node_id(2, 4002);
  l.definition.fields = {field("Mode"), field("Rpm"), field("Tags", 1)};
  l.fields = {{ua::builtin_type::int32}, {ua::builtin_type::double_}, {ua::builtin_type::string}};
  return l;
}

template <class F>
std::vector<std::uint8_t> bytes_of(F&& write) {
  ua::byte_buffer buf;
  ua::encoder e(buf);
  write(e);
  return {buf.data(), buf.data() + buf.size()};
}

std::vector<std::uint8_t> pump_body() {
  return bytes_of([](ua::encoder& e) {
    encode(e, std::int32_t{1});
    encode(e, 1450.5);
    encode(e, ua::ua_array<ua::ua_string>{ua::ua_string("a"), ua::ua_string("b")});
  });
}

}  // namespace

TEST_CASE("client_cli: a structure decodes by field from its layout", "[runtime][cli]") {
  const auto layout = pump_status();
  const auto body = pump_body();
  auto f = decode_structure(body, layout);
  REQUIRE(f);
  REQUIRE(f->size() == 3);
  CHECK((*f)[0].first == "Mode");
  CHECK((*f)[0].second == ua::variant(std::int32_t{1}));
  CHECK((*f)[1].second == ua::variant(1450.5));
  CHECK((*f)[2].second == ua::variant(ua::ua_array<ua::ua_string>{ua::ua_string("a"), ua::ua_string("b")}));
}

TEST_CASE("client_cli: a structure body cut at any byte, or with a byte left over, does not decode", "[runtime][cli]") {
  const auto layout = pump_status();
  const auto body = pump_body();
  for (std::size_t cut = 0; cut < body.size(); ++cut)
    CHECK_FALSE(decode_structure(std::span(body).first(cut), layout));
  auto longer = body;
  longer.push_back(0);
  CHECK_FALSE(decode_structure(longer, layout));
}

TEST_CASE("client_cli: hostile structure bodies: a length past the limits, a field of no known type", "[runtime][cli]") {
  const auto layout = pump_status();
  // Tags claims 2^31-1 strings: refused by the decoder's limits before anything is allocated.
  const auto huge = bytes_of([](ua::encoder& e) {
    encode(e, std::int32_t{1});
    encode(e, 1.0);
    e.write(std::int32_t{0x7FFFFFFF});
  });
  CHECK_FALSE(decode_structure(huge, layout));
  // A negative length other than -1 (null).
  const auto negative = bytes_of([](ua::encoder& e) {
    encode(e, std::int32_t{1});
    encode(e, 1.0);
    e.write(std::int32_t{-7});
  });
  CHECK_FALSE(decode_structure(negative, layout));
  auto unknown = layout;
  unknown.fields[1].type = ua::builtin_type::null;
  CHECK_FALSE(decode_structure(pump_body(), unknown));
  // A layout whose field list does not match its definition.
  auto short_layout = layout;
  short_layout.fields.pop_back();
  CHECK_FALSE(decode_structure(pump_body(), short_layout));
}

TEST_CASE("client_cli: a structure that contains itself stops at the nesting limit", "[runtime][cli]") {
  structure_layout self;
  self.name = "Loop";
  self.definition.fields = {field("Next")};
  self.fields = {{ua::builtin_type::extension_object, &self}};
  const std::vector<std::uint8_t> plenty(4096, 0);
  CHECK_FALSE(decode_structure(plenty, self));
  CHECK_FALSE(decode_structure({}, self));
}

TEST_CASE("client_cli: optional fields by the encoding mask, unions by the switch field", "[runtime][cli]") {
  structure_layout opt;
  opt.name = "WithOptional";
  opt.definition.structure_type = ua::structure_type::structure_with_optional_fields;
  opt.definition.fields = {field("Always"), field("Maybe", -1, true), field("Also", -1, true)};
  opt.fields = {{ua::builtin_type::uint16}, {ua::builtin_type::boolean}, {ua::builtin_type::byte}};
  // Part 6 §5.2.7: the mask's bit i is the i-th optional field; here only Also.
  const auto body = bytes_of([](ua::encoder& e) {
    e.write(std::uint32_t{0b10});
    encode(e, std::uint16_t{7});
    encode(e, std::uint8_t{9});
  });
  auto f = decode_structure(body, opt);
  REQUIRE(f);
  REQUIRE(f->size() == 2);
  CHECK((*f)[0].first == "Always");
  CHECK((*f)[1].first == "Also");
  CHECK((*f)[1].second == ua::variant(std::uint8_t{9}));

  structure_layout u;
  u.name = "Choice";
  u.definition.structure_type = ua::structure_type::union_;
  u.definition.fields = {field("Number"), field("Text")};
  u.fields = {{ua::builtin_type::int32}, {ua::builtin_type::string}};
  const auto text = bytes_of([](ua::encoder& e) {
    e.write(std::uint32_t{2});
    encode(e, ua::ua_string("hi"));
  });
  f = decode_structure(text, u);
  REQUIRE(f);
  REQUIRE(f->size() == 1);
  CHECK((*f)[0].first == "Text");
  const auto none = bytes_of([](ua::encoder& e) { e.write(std::uint32_t{0}); });
  f = decode_structure(none, u);
  REQUIRE(f);
  CHECK(f->empty());
  const auto past = bytes_of([](ua::encoder& e) {
    e.write(std::uint32_t{3});
    encode(e, std::int32_t{1});
  });
  CHECK_FALSE(decode_structure(past, u));
}

TEST_CASE("client_cli: an inline structure comes back as an ExtensionObject of its encoding and bytes", "[runtime][cli]") {
  const auto inner = pump_status();
  structure_layout outer;
  outer.name = "Station";
  outer.definition.fields = {field("Id"), field("Pump"), field("Spares", 1)};
  outer.fields = {{ua::builtin_type::uint32}, {ua::builtin_type::extension_object, &inner},
                  {ua::builtin_type::extension_object, &inner}};
  const auto pump = pump_body();
  const auto body = bytes_of([&](ua::encoder& e) {
    encode(e, std::uint32_t{12});
    e.write(pump.data(), pump.size());
    e.write(std::int32_t{2});
    e.write(pump.data(), pump.size());
    e.write(pump.data(), pump.size());
  });
  auto f = decode_structure(body, outer);
  REQUIRE(f);
  REQUIRE(f->size() == 3);
  const auto* x = (*f)[1].second.get_if<ua::extension_object>();
  REQUIRE(x);
  CHECK(x->type_id() == ua::node_id(2, 4002));
  CHECK(x->raw_body().view() == std::string_view(reinterpret_cast<const char*>(pump.data()), pump.size()));
  const auto* spares = (*f)[2].second.get_if<ua::ua_array<ua::extension_object>>();
  REQUIRE(spares);
  CHECK(spares->size() == 2);
}
