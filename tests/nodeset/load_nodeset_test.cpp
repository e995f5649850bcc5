// server::load_nodeset through the embedding API: DI, IA and Machinery from node-opcua-nodesets
// into a running server, an object of a Machinery type instantiated with its mandatory (and a
// requested optional) children, and a bad file refused with its line, nothing of it added. Named
// "embedded server: ..." so that .ci/run runs it with the actor-system tests, leak detection off
// (docs/decisions/0009).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "uactor/ua/node_ids.hpp"
#include "uactor/runtime.hpp"

using namespace uactor;

namespace {

std::filesystem::path companion(const char* file) {
  return std::filesystem::path(UACTOR_SOURCE_DIR) / "tests/interop/node_modules/node-opcua-nodesets/nodesets" / file;
}

std::uint16_t index_of(const std::vector<std::string>& uris, std::uint16_t first, const std::string& uri) {
  const auto it = std::find(uris.begin(), uris.end(), uri);
  REQUIRE(it != uris.end());
  return static_cast<std::uint16_t>(first + (it - uris.begin()));
}

}  // namespace

TEST_CASE("embedded server: load_nodeset loads Machinery, whose types instantiate with their mandatory children", "[nodeset]") {
  if (!std::filesystem::exists(companion("Opc.Ua.Machinery.NodeSet2.xml"))) {
    WARN("skipped: node-opcua-nodesets not installed (scripts/setup.sh runs npm ci)");
    return;
  }
  runtime rt;
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  auto s = rt.start_server(plan);
  REQUIRE(s.has_value());
  server& srv = **s;
  const std::uint16_t first = srv.register_namespace("urn:test:before") + 1;  // the next free index

  // Machinery before DI and IA: refused, naming the missing model.
  const auto early = srv.load_nodeset(companion("Opc.Ua.Machinery.NodeSet2.xml").string());
  REQUIRE(!early.ok());
  CHECK(early.errors.front().find("RequiredModel http://opcfoundation.org/UA/DI/ 1.04.0 is not loaded") != std::string::npos);

  // This package's DI asks for namespace 0 1.05.04; this build has 1.05.07: no option needed.
  std::vector<std::string> registered;
  for (const char* f : {"Opc.Ua.Di.NodeSet2.xml", "Opc.Ua.IA.NodeSet2.xml", "Opc.Ua.Machinery.NodeSet2.xml"}) {
    const auto r = srv.load_nodeset(companion(f).string());
    INFO(f << ": " << (r.errors.empty() ? "" : r.errors.front()));
    REQUIRE(r.ok());
    CHECK(r.warnings.empty());
    CHECK(r.nodes > 100);
    registered.insert(registered.end(), r.registered_namespaces.begin(), r.registered_namespaces.end());
  }
  REQUIRE(registered.size() == 3);
  CHECK(registered[0] == "http://opcfoundation.org/UA/DI/");
  const std::uint16_t di = index_of(registered, first, "http://opcfoundation.org/UA/DI/");
  const std::uint16_t machinery = index_of(registered, first, "http://opcfoundation.org/UA/Machinery/");
  CHECK(srv.register_namespace("http://opcfoundation.org/UA/Machinery/") == machinery);

  // Each loaded namespace has one NamespaceMetadata Object under Server/Namespaces (Part 5
  // §6.3.13): the NodeSet's own, kept, and given the Default* Properties it lacked; the URI the
  // application registered gets one made by the server.
  {
    client_options o;
    o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(srv.port());
    auto c = rt.connect(o);
    REQUIRE(c.has_value());
    ua::browse_request b;
    auto& d = b.nodes_to_browse.emplace_back();
    d.node_id = node_id(0, ua::ids::server_namespaces);
    d.browse_direction = ua::browse_direction::forward;
    d.include_subtypes = true;
    d.result_mask = 63;
    const auto folder = c->browse_sync(b);
    REQUIRE(folder.has_value());
    std::vector<std::pair<std::string, node_id>> objects;
    for (const auto& r : folder->results.at(0).references)
      objects.emplace_back(std::string(r.browse_name.name.view()), r.node_id.id);
    for (const char* text : {"http://opcfoundation.org/UA/DI/", "http://opcfoundation.org/UA/Machinery/", "urn:test:before"}) {
      const std::string uri = text;
      INFO(uri);
      CHECK(std::count_if(objects.begin(), objects.end(), [&](const auto& o) { return o.first == uri; }) == 1);
      const auto it = std::find_if(objects.begin(), objects.end(), [&](const auto& o) { return o.first == uri; });
      REQUIRE(it != objects.end());
      d.node_id = it->second;
      const auto props = c->browse_sync(b);
      REQUIRE(props.has_value());
      const auto& refs = props->results.at(0).references;
      CHECK(std::count_if(refs.begin(), refs.end(), [](const auto& r) { return r.browse_name.name.view() == "DefaultUserRolePermissions"; }) == 1);
    }
    CHECK(std::find_if(objects.begin(), objects.end(), [](const auto& o) { return o.first == "urn:test:before"; })->second ==
          node_id::string(1, "Namespaces.urn:test:before"));
  }

  // A MachineIdentificationType object (Machinery i=1012, a MachineryItemIdentificationType):
  // its own mandatory ProductInstanceUri and the inherited Manufacturer and SerialNumber.
  object_node id;
  id.id = node_id::string(first - 1, "Press.Identification");
  id.parent = ns0::objects_folder;
  id.browse_name = qualified_name{di, ua::ua_string("Identification")};
  id.type_definition = node_id(machinery, 1012);
  REQUIRE(srv.apply(id) == ua::status::good);
  for (const char* child : {"Press.Identification.ProductInstanceUri", "Press.Identification.Manufacturer",
                            "Press.Identification.SerialNumber"}) {
    INFO(child);
    CHECK(srv.resolve(node_id::string(first - 1, child)).has_value());
  }
  // An optional one (Model) is not there unless asked for.
  CHECK(!srv.resolve(node_id::string(first - 1, "Press.Identification.Model")).has_value());
  object_node with_model = id;
  with_model.id = node_id::string(first - 1, "Press2.Identification");
  with_model.optional = {qualified_name{di, ua::ua_string("Model")}};
  REQUIRE(srv.apply(with_model) == ua::status::good);
  CHECK(srv.resolve(node_id::string(first - 1, "Press2.Identification.Model")).has_value());
  CHECK(srv.resolve(node_id::string(first - 1, "Press2.Identification.Manufacturer")).has_value());
  CHECK(!srv.resolve(node_id::string(first - 1, "Press2.Identification.ProductCode")).has_value());

  // A bad file: every error with its line; nothing of it added.
  const auto bad_path = std::filesystem::temp_directory_path() / "uactor_bad_nodeset.xml";
  {
    std::ofstream out(bad_path);
    out << "<?xml version=\"1.0\"?>\n<UANodeSet>\n<NamespaceUris><Uri>urn:test:bad</Uri></NamespaceUris>\n"
           "<UAVariable NodeId=\"ns=1;i=1\" BrowseName=\"1:Good\" DataType=\"i=6\"><References>"
           "<Reference ReferenceType=\"i=47\" IsForward=\"false\">i=85</Reference></References></UAVariable>\n"
           "<UAVariable NodeId=\"ns=1;i=2\" BrowseName=\"1:Bad\" DataType=\"Int32\"/>\n</UANodeSet>\n";
  }
  const auto bad = srv.load_nodeset(bad_path.string());
  std::filesystem::remove(bad_path);
  REQUIRE(bad.errors.size() == 1);
  CHECK(bad.errors[0] == bad_path.string() + ":5: ns=1;i=2: unknown alias 'Int32'");
  CHECK(bad.registered_namespaces.empty());
  CHECK(srv.register_namespace("urn:test:bad") == first + 3);  // the bad file registered nothing
  const auto missing = srv.load_nodeset("/nonexistent.xml");
  REQUIRE(missing.errors.size() == 1);
  CHECK(missing.errors[0] == "/nonexistent.xml:0: cannot open the file");
}
