// Our client against another stack: a node-opcua server (tests/interop/node_server.js) serving
// docs/demo-namespace.md. Hidden from the normal run: client_interop_test.sh starts the server
// and runs this test with UACTOR_INTEROP_ENDPOINT set.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "uactor/client.hpp"

using namespace uactor;
namespace status = ua::status;

namespace {

std::string endpoint() {
  const char* e = std::getenv("UACTOR_INTEROP_ENDPOINT");
  if (!e || !*e) FAIL("UACTOR_INTEROP_ENDPOINT is not set: run tests/interop/client_interop_test.sh");
  return e;
}

ua::node_id demo(std::string_view s) { return ua::node_id::string(1, s); }

const ua::guid demo_guid{0x72962B91, 0xFA75, 0x4AE6, {0x8D, 0x28, 0xB4, 0x04, 0xDC, 0x7D, 0xAF, 0x63}};
constexpr std::int64_t y2026_ms = 1'767'225'600'000;  // 2026-01-01T00:00:00Z
constexpr std::int64_t y2000_ms = 946'684'800'000;    // 2000-01-01T00:00:00Z

// docs/demo-namespace.md, static variables: name, scalar value, array value.
std::vector<std::tuple<std::string, ua::variant, ua::variant>> demo_values() {
  using ua::ua_array;
  std::vector<std::tuple<std::string, ua::variant, ua::variant>> v;
  v.emplace_back("Boolean", true, ua_array<bool>{true, false, true});
  v.emplace_back("SByte", std::int8_t{-100}, ua_array<std::int8_t>{-128, 0, 127});
  v.emplace_back("Byte", std::uint8_t{200}, ua_array<std::uint8_t>{0, 128, 255});
  v.emplace_back("Int16", std::int16_t{-30000}, ua_array<std::int16_t>{-32768, 0, 32767});
  v.emplace_back("UInt16", std::uint16_t{60000}, ua_array<std::uint16_t>{0, 1, 65535});
  v.emplace_back("Int32", std::int32_t{-2000000000}, ua_array<std::int32_t>{-2147483647 - 1, 0, 2147483647});
  v.emplace_back("UInt32", std::uint32_t{4000000000u}, ua_array<std::uint32_t>{0, 1, 4294967295u});
  v.emplace_back("Int64", std::int64_t{-9000000000000000000}, ua_array<std::int64_t>{INT64_MIN, 0, INT64_MAX});
  v.emplace_back("UInt64", std::uint64_t{18000000000000000000ull}, ua_array<std::uint64_t>{0, 1, UINT64_MAX});
  v.emplace_back("Float", 3.5f, ua_array<float>{-1.5f, 0.0f, 1.5f});
  v.emplace_back("Double", 2.718281828459045, ua_array<double>{-1.25, 0.0, 1.25});
  v.emplace_back("String", ua::ua_string("uactor"), ua_array<ua::ua_string>{"a", "", "\xc3\xbc"});
  v.emplace_back("DateTime", ua::date_time::from_unix_ms(y2026_ms),
                 ua_array<ua::date_time>{ua::date_time::from_unix_ms(y2000_ms), ua::date_time::from_unix_ms(y2026_ms)});
  v.emplace_back("Guid", demo_guid, ua_array<ua::guid>{ua::guid{}, demo_guid});
  v.emplace_back("ByteString", ua::byte_string(std::string_view("\x01\x02\x03\x04", 4)),
                 ua_array<ua::byte_string>{ua::byte_string(std::string_view("\x00", 1)),
                                           ua::byte_string(std::string_view("\xff\xfe", 2))});
  v.emplace_back("XmlElement", ua::xml_element("<a>uactor</a>"), ua_array<ua::xml_element>{"<a/>", "<b/>"});
  v.emplace_back("NodeId", demo("the.answer"), ua_array<ua::node_id>{ua::node_id(0, 85), ua::node_id(1, 1000)});
  v.emplace_back("ExpandedNodeId", ua::expanded_node_id{demo("the.answer"), {}, 0},
                 ua_array<ua::expanded_node_id>{{ua::node_id(0, 85), {}, 0}, {ua::node_id(1, 1000), {}, 0}});
  v.emplace_back("StatusCode", status::bad_node_id_unknown, ua_array<ua::status_code>{status::good, status::bad_node_id_unknown});
  v.emplace_back("QualifiedName", ua::qualified_name{1, "uactor"}, ua_array<ua::qualified_name>{{0, "a"}, {1, "b"}});
  v.emplace_back("LocalizedText", ua::localized_text{"en", "uactor"},
                 ua_array<ua::localized_text>{{"en", "one"}, {"de", "zwei"}});
  v.emplace_back("Variant", std::int32_t{7}, ua_array<ua::variant>{std::int32_t{1}, ua::ua_string("two")});
  return v;
}

// The forward hierarchical references of a node, following continuation points.
std::vector<ua::reference_description> browse_all(client& c, const ua::node_id& node) {
  ua::browse_request req;
  ua::browse_description d;
  d.node_id = node;
  d.browse_direction = ua::browse_direction::forward;
  d.reference_type_id = ua::node_id(0, 33);
  d.include_subtypes = true;
  d.result_mask = 63;
  req.nodes_to_browse.push_back(d);
  auto r = c.browse_sync(req);
  REQUIRE(r.has_value());
  REQUIRE(r->results.size() == 1);
  REQUIRE(r->results[0].status_code == status::good);
  std::vector<ua::reference_description> out(r->results[0].references.begin(), r->results[0].references.end());
  auto point = r->results[0].continuation_point;
  while (!point.is_null() && !point.empty()) {
    ua::browse_next_request next;
    next.continuation_points.push_back(point);
    auto n = c.browse_next_sync(next);
    REQUIRE(n.has_value());
    REQUIRE(n->results.size() == 1);
    out.insert(out.end(), n->results[0].references.begin(), n->results[0].references.end());
    point = n->results[0].continuation_point;
  }
  return out;
}

ua::node_id child(client& c, const ua::node_id& parent, std::uint16_t ns, std::string_view name) {
  for (const auto& ref : browse_all(c, parent))
    if (ref.browse_name.namespace_index == ns && ref.browse_name.name.view() == name) return ref.node_id.id;
  FAIL("no child " << ns << ":" << name << " under " << parent.to_string());
  return {};
}

ua::read_request read_values(const std::vector<ua::node_id>& nodes) {
  ua::read_request r;
  for (const auto& n : nodes) {
    ua::read_value_id id;
    id.node_id = n;
    id.attribute_id = 13;
    r.nodes_to_read.push_back(id);
  }
  return r;
}

}  // namespace

TEST_CASE("interop: our client against a node-opcua server", "[.][interop-client]") {
  const auto url = endpoint();

  // GetEndpoints on a channel without a session (Part 4 §5.4.4).
  auto eps = get_endpoints(url);
  REQUIRE(eps.has_value());
  bool none = false;
  for (const auto& ep : eps->endpoints)
    none |= ep.security_policy_uri.view() == "http://opcfoundation.org/UA/SecurityPolicy#None";
  REQUIRE(none);

  client_options o;
  o.endpoint_url = url;
  o.session_name = "uactor interop";
  auto c = client::connect(o);
  REQUIRE(c.has_value());

  // Root -> Objects -> Demo -> Static -> Scalar / Array.
  const auto objects = child(*c, ua::node_id(0, 84), 0, "Objects");
  REQUIRE(objects == ua::node_id(0, 85));
  const auto demo_folder = child(*c, objects, 1, "Demo");
  REQUIRE(demo_folder == demo("Demo"));
  const auto stat = child(*c, demo_folder, 1, "Static");
  REQUIRE(child(*c, stat, 1, "Scalar") == demo("Demo.Static.Scalar"));
  REQUIRE(child(*c, stat, 1, "Array") == demo("Demo.Static.Array"));
  REQUIRE(child(*c, demo_folder, 1, "Methods") == demo("Demo.Methods"));

  // Every static variable, scalar and array, with its type and value.
  const auto expected = demo_values();
  std::vector<ua::node_id> nodes;
  for (const auto& [name, scalar, array] : expected) {
    nodes.push_back(demo("Demo.Static.Scalar." + name));
    nodes.push_back(demo("Demo.Static.Array." + name));
  }
  nodes.push_back(demo("the.answer"));
  auto r = c->read_sync(read_values(nodes));
  REQUIRE(r.has_value());
  REQUIRE(r->results.size() == nodes.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("Demo.Static.*." << std::get<0>(expected[i]));
    REQUIRE(r->results[2 * i].status == status::good);
    REQUIRE(r->results[2 * i].value == std::get<1>(expected[i]));
    REQUIRE(r->results[2 * i + 1].status == status::good);
    REQUIRE(r->results[2 * i + 1].value == std::get<2>(expected[i]));
  }
  REQUIRE(r->results.back().value == ua::variant(std::int32_t{43}));

  // Dynamic variables: their types (the values change).
  auto dyn = c->read_sync(read_values({demo("Demo.Dynamic.Counter"), demo("Demo.Dynamic.Sine"), demo("Demo.Dynamic.Time")}));
  REQUIRE(dyn.has_value());
  REQUIRE(dyn->results.at(0).value.type() == ua::builtin_type::uint32);
  REQUIRE(dyn->results.at(1).value.type() == ua::builtin_type::double_);
  REQUIRE(dyn->results.at(2).value.type() == ua::builtin_type::date_time);

  // Writes, scalar and array, then read back; a read-only node refuses.
  ua::write_request w;
  auto add = [&](const ua::node_id& n, ua::variant v) {
    ua::write_value wv;
    wv.node_id = n;
    wv.attribute_id = 13;
    wv.value.set_value(std::move(v));
    w.nodes_to_write.push_back(std::move(wv));
  };
  add(demo("Demo.Static.Scalar.Int32"), std::int32_t{12345});
  add(demo("Demo.Static.Scalar.String"), ua::ua_string("written by uactor"));
  add(demo("Demo.Static.Array.Double"), ua::ua_array<double>{0.5, 1.5, 2.5, 3.5});
  add(demo("Demo.Static.Array.String"), ua::ua_array<ua::ua_string>{"x", "y"});
  add(demo("the.answer"), std::int32_t{44});
  auto wr = c->write_sync(w);
  REQUIRE(wr.has_value());
  REQUIRE(wr->results.size() == 5);
  for (std::size_t i = 0; i < 4; ++i) REQUIRE(wr->results[i] == status::good);
  REQUIRE(wr->results[4] == status::bad_not_writable);
  std::vector<ua::node_id> written;
  for (const auto& wv : w.nodes_to_write) written.push_back(wv.node_id);
  auto back = c->read_sync(read_values(written));
  REQUIRE(back.has_value());
  for (std::size_t i = 0; i < 4; ++i) REQUIRE(back->results.at(i).value == w.nodes_to_write[i].value.value);
  REQUIRE(back->results.at(4).value == ua::variant(std::int32_t{43}));

  // Methods: Add and HelloWorld, and an argument missing.
  ua::call_request call;
  ua::call_method_request m;
  m.object_id = demo("Demo.Methods");
  m.method_id = demo("Demo.Methods.Add");
  m.input_arguments = {1.5, 2.25};
  call.methods_to_call.push_back(m);
  ua::call_method_request hello;
  hello.object_id = ua::node_id(1, 1000);
  hello.method_id = ua::node_id(1, 62541);
  hello.input_arguments = {ua::ua_string("uactor")};
  call.methods_to_call.push_back(hello);
  m.input_arguments = {1.5};
  call.methods_to_call.push_back(m);
  auto cr = c->call_sync(call);
  REQUIRE(cr.has_value());
  REQUIRE(cr->results.size() == 3);
  REQUIRE(cr->results[0].status_code == status::good);
  REQUIRE(cr->results[0].output_arguments == ua::ua_array<ua::variant>{3.75});
  REQUIRE(cr->results[1].status_code == status::good);
  REQUIRE(cr->results[1].output_arguments == ua::ua_array<ua::variant>{ua::ua_string("Hello uactor")});
  REQUIRE(cr->results[2].status_code == status::bad_arguments_missing);

  REQUIRE(c->close() == status::good);
}
