// The NodeSet2 importer: a small file of every node class and value kind, the bad files each with
// its message and line, truncated files, and the companion NodeSets of node-opcua-nodesets.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "nodeset/importer.hpp"
#include "protocol/byte_buffer.hpp"
#include "protocol/codec.hpp"
#include "uactor/ua/node_ids.hpp"
#include "protocol/generated/type_codecs.hpp"

using namespace uactor;
using namespace uactor::ua;

namespace {

const std::vector<std::string> ua_only{"http://opcfoundation.org/UA/"};

address_space with_ns0() {
  address_space as;
  load_namespace0(as);
  return as;
}

// Namespace 0 as a server holds it, once per test run (loading it takes a while in a debug build).
struct loaded {
  address_space as = with_ns0();
  std::vector<std::string> namespaces = ua_only;
  std::vector<nodeset::model> models{nodeset::namespace0_model()};
  bool accept_older = false;

  nodeset::import_result load(std::string text, std::string name = "small.xml") {
    const auto doc = nodeset::document::parse(std::move(name), std::move(text));
    nodeset::server_state st{namespaces, models, date_time{date_time::unix_epoch_ticks}, accept_older};
    auto r = nodeset::import(doc, as, st);
    if (r.ok()) {
      for (auto& u : r.new_namespaces) namespaces.push_back(u);
      for (auto& m : r.models) models.push_back(m);
    }
    return r;
  }
};

// Lines are counted from 1; the comment says which line each element is on.
const char* const small_file = R"(<?xml version="1.0" encoding="utf-8"?>
<UANodeSet xmlns="http://opcfoundation.org/UA/2011/03/UANodeSet.xsd" xmlns:uax="http://opcfoundation.org/UA/2008/02/Types.xsd">
  <NamespaceUris>
    <Uri>urn:test:small</Uri>
  </NamespaceUris>
  <Models>
    <Model ModelUri="urn:test:small" Version="1.0.0" PublicationDate="2024-01-01T00:00:00Z">
      <RequiredModel ModelUri="http://opcfoundation.org/UA/" Version="1.04.0" PublicationDate="2019-01-01T00:00:00Z" />
    </Model>
  </Models>
  <Aliases>
    <Alias Alias="Int32">i=6</Alias>
    <Alias Alias="HasComponent">i=47</Alias>
    <Alias Alias="HasProperty">i=46</Alias>
    <Alias Alias="HasSubtype">i=45</Alias>
    <Alias Alias="HasTypeDefinition">i=40</Alias>
    <Alias Alias="HasModellingRule">i=37</Alias>
    <Alias Alias="Organizes">i=35</Alias>
    <Alias Alias="HasEncoding">i=38</Alias>
  </Aliases>
  <UAObjectType NodeId="ns=1;i=1000" BrowseName="1:PumpType">
    <DisplayName>PumpType</DisplayName>
    <References>
      <Reference ReferenceType="HasSubtype" IsForward="false">i=58</Reference>
      <Reference ReferenceType="HasComponent">ns=1;i=1001</Reference>
    </References>
  </UAObjectType>
  <UAVariable NodeId="ns=1;i=1001" BrowseName="1:Speed" ParentNodeId="ns=1;i=1000" DataType="Int32" AccessLevel="3">
    <DisplayName>Speed</DisplayName>
    <References>
      <Reference ReferenceType="HasTypeDefinition">i=63</Reference>
      <Reference ReferenceType="HasModellingRule">i=78</Reference>
    </References>
    <Value><uax:Int32>42</uax:Int32></Value>
  </UAVariable>
  <UAObject NodeId="ns=1;s=Pump1" BrowseName="1:Pump1">
    <DisplayName Locale="en">Pump 1</DisplayName>
    <Description>The first pump</Description>
    <References>
      <Reference ReferenceType="Organizes" IsForward="false">i=85</Reference>
      <Reference ReferenceType="HasTypeDefinition">ns=1;i=1000</Reference>
    </References>
  </UAObject>
  <UAVariable NodeId="ns=1;i=2000" BrowseName="1:Names" DataType="i=12" ValueRank="1" ArrayDimensions="0">
    <DisplayName>Names</DisplayName>
    <References>
      <Reference ReferenceType="HasComponent" IsForward="false">ns=1;s=Pump1</Reference>
    </References>
    <Value><uax:ListOfString><uax:String>a</uax:String><uax:String>b</uax:String></uax:ListOfString></Value>
  </UAVariable>
  <UAVariable NodeId="ns=1;i=2001" BrowseName="1:Label" DataType="i=21">
    <DisplayName>Label</DisplayName>
    <Value><uax:LocalizedText><uax:Locale>de</uax:Locale><uax:Text>Pumpe</uax:Text></uax:LocalizedText></Value>
  </UAVariable>
  <UAVariable NodeId="ns=1;i=2002" BrowseName="1:Name" DataType="i=20">
    <DisplayName>Name</DisplayName>
    <Value><uax:QualifiedName><uax:NamespaceIndex>1</uax:NamespaceIndex><uax:Name>X</uax:Name></uax:QualifiedName></Value>
  </UAVariable>
  <UAVariable NodeId="ns=1;i=2003" BrowseName="1:Ref" DataType="i=17">
    <DisplayName>Ref</DisplayName>
    <Value><uax:NodeId><uax:Identifier>ns=1;i=1000</uax:Identifier></uax:NodeId></Value>
  </UAVariable>
  <UAVariable NodeId="ns=1;i=2004" BrowseName="1:Range" DataType="i=884">
    <DisplayName>Range</DisplayName>
    <Value>
      <uax:ExtensionObject>
        <uax:TypeId><uax:Identifier>i=885</uax:Identifier></uax:TypeId>
        <uax:Body><uax:Range><uax:Low>-1.5</uax:Low><uax:High>99</uax:High></uax:Range></uax:Body>
      </uax:ExtensionObject>
    </Value>
  </UAVariable>
  <UAMethod NodeId="ns=1;i=3000" BrowseName="1:Start">
    <DisplayName>Start</DisplayName>
    <References>
      <Reference ReferenceType="HasComponent" IsForward="false">ns=1;s=Pump1</Reference>
      <Reference ReferenceType="HasProperty">ns=1;i=3001</Reference>
    </References>
  </UAMethod>
  <UAVariable NodeId="ns=1;i=3001" BrowseName="InputArguments" DataType="i=296" ValueRank="1" ArrayDimensions="1">
    <DisplayName>InputArguments</DisplayName>
    <References>
      <Reference ReferenceType="HasTypeDefinition">i=68</Reference>
    </References>
    <Value>
      <uax:ListOfExtensionObject>
        <uax:ExtensionObject>
          <uax:TypeId><uax:Identifier>i=297</uax:Identifier></uax:TypeId>
          <uax:Body>
            <uax:Argument>
              <uax:Name>Rpm</uax:Name>
              <uax:DataType><uax:Identifier>i=6</uax:Identifier></uax:DataType>
              <uax:ValueRank>-1</uax:ValueRank>
              <uax:ArrayDimensions />
              <uax:Description><uax:Text>revolutions per minute</uax:Text></uax:Description>
            </uax:Argument>
          </uax:Body>
        </uax:ExtensionObject>
      </uax:ListOfExtensionObject>
    </Value>
  </UAVariable>
  <UADataType NodeId="ns=1;i=4000" BrowseName="1:PumpMode">
    <DisplayName>PumpMode</DisplayName>
    <References>
      <Reference ReferenceType="HasSubtype" IsForward="false">i=29</Reference>
    </References>
    <Definition Name="1:PumpMode">
      <Field Name="Off" Value="0" />
      <Field Name="On" Value="1" />
    </Definition>
  </UADataType>
  <UADataType NodeId="ns=1;i=4001" BrowseName="1:PumpStatus">
    <DisplayName>PumpStatus</DisplayName>
    <References>
      <Reference ReferenceType="HasSubtype" IsForward="false">i=22</Reference>
      <Reference ReferenceType="HasEncoding">ns=1;i=4002</Reference>
    </References>
    <Definition Name="1:PumpStatus">
      <Field Name="Mode" DataType="ns=1;i=4000" />
      <Field Name="Rpm" DataType="i=11" />
      <Field Name="Tags" DataType="i=12" ValueRank="1" />
    </Definition>
  </UADataType>
  <UAObject NodeId="ns=1;i=4002" BrowseName="Default Binary" SymbolicName="DefaultBinary">
    <DisplayName>Default Binary</DisplayName>
    <References>
      <Reference ReferenceType="HasTypeDefinition">i=76</Reference>
    </References>
  </UAObject>
  <UAVariable NodeId="ns=1;i=4003" BrowseName="1:Status" DataType="ns=1;i=4001">
    <DisplayName>Status</DisplayName>
    <Value>
      <uax:ExtensionObject>
        <uax:TypeId><uax:Identifier>ns=1;i=4001</uax:Identifier></uax:TypeId>
        <uax:Body><PumpStatus xmlns="urn:test:small"><Mode>On_1</Mode><Rpm>1500</Rpm><Tags><uax:String>x</uax:String></Tags></PumpStatus></uax:Body>
      </uax:ExtensionObject>
    </Value>
  </UAVariable>
  <UAReferenceType NodeId="ns=1;i=5000" BrowseName="1:Drives">
    <DisplayName>Drives</DisplayName>
    <InverseName>DrivenBy</InverseName>
    <References>
      <Reference ReferenceType="HasSubtype" IsForward="false">i=33</Reference>
    </References>
  </UAReferenceType>
  <UAView NodeId="ns=1;i=6000" BrowseName="1:Pumps" ContainsNoLoops="true">
    <DisplayName>Pumps</DisplayName>
  </UAView>
  <UAVariableType NodeId="ns=1;i=7000" BrowseName="1:SpeedType" DataType="Int32">
    <DisplayName>SpeedType</DisplayName>
    <References>
      <Reference ReferenceType="HasSubtype" IsForward="false">i=63</Reference>
    </References>
  </UAVariableType>
</UANodeSet>
)";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

// The one error of a bad file, as text.
std::string only_error(const nodeset::import_result& r) {
  REQUIRE(r.errors.size() >= 1);
  return r.errors.front().to_string();
}

bool has_reference(const address_space& as, const node_id& source, std::uint32_t type, const node_id& target,
                   bool forward = true) {
  const node_index s = as.find(source), t = as.find(target), rt = as.find(node_id(0, type));
  if (s == no_node || t == no_node) return false;
  for (const reference& r : as.references(s))
    if (r.type == rt && r.target == t && r.is_forward == forward) return true;
  return false;
}

}  // namespace

TEST_CASE("nodeset: namespace0_model() is the model the generated namespace 0 says it is", "[nodeset]") {
  // RequiredModel checks compare against namespace0_model(), written by hand in importer.cpp; the
  // Server's OPCUANamespaceMetadata (Part 5 §6.3.13) comes from the NodeSet the tables were made of.
  const address_space as = with_ns0();
  const nodeset::model m = nodeset::namespace0_model();
  data_value uri, version, date;
  REQUIRE(as.read(node_id(0, ids::opcua_namespace_metadata_namespace_uri), attribute_id::value, uri) == status::good);
  REQUIRE(as.read(node_id(0, ids::opcua_namespace_metadata_namespace_version), attribute_id::value, version) ==
          status::good);
  REQUIRE(as.read(node_id(0, ids::opcua_namespace_metadata_namespace_publication_date), attribute_id::value, date) ==
          status::good);
  REQUIRE(uri.value.get_if<ua_string>() != nullptr);
  REQUIRE(version.value.get_if<ua_string>() != nullptr);
  REQUIRE(date.value.get_if<date_time>() != nullptr);
  CHECK(uri.value.get_if<ua_string>()->view() == m.uri);
  CHECK(version.value.get_if<ua_string>()->view() == m.version);
  CHECK(date.value.get_if<date_time>()->ticks == m.publication_date.ticks);
}

TEST_CASE("nodeset: a small file of every node class is applied, namespaces mapped", "[nodeset]") {
  loaded s;
  s.namespaces.push_back("urn:other");  // the file's ns=1 becomes the server's 2
  const std::size_t before = s.as.size();
  const auto r = s.load(small_file);
  INFO((r.errors.empty() ? "" : r.errors.front().to_string()));
  REQUIRE(r.ok());
  CHECK(r.new_namespaces == std::vector<std::string>{"urn:test:small"});
  CHECK(r.nodes == 17);
  CHECK(s.as.size() == before + 17);
  REQUIRE(r.models.size() == 1);
  CHECK(r.models[0].uri == "urn:test:small");

  const node_index pump = s.as.find(node_id::string(2, "Pump1"));
  REQUIRE(pump != no_node);
  CHECK(s.as.at(pump).browse_ns == 2);
  CHECK(s.as.at(pump).browse_name == "Pump1");
  CHECK(s.as.at(pump).display_name.text == "Pump 1");
  CHECK(s.as.at(pump).display_name.locale == "en");
  // Inverse references given on one side only exist at both ends.
  CHECK(has_reference(s.as, node_id(0, 85), ids::organizes, node_id::string(2, "Pump1")));
  CHECK(has_reference(s.as, node_id::string(2, "Pump1"), ids::organizes, node_id(0, 85), false));
  CHECK(has_reference(s.as, node_id(0, 58), ids::has_subtype, node_id(2, 1000)));
  CHECK(s.as.is_subtype_of(node_id(2, 7000), node_id(0, 63)));

  data_value v;
  s.as.read(node_id(2, 1001), attribute_id::value, v);
  CHECK(v.value == variant(std::int32_t{42}));
  s.as.read(node_id(2, 1001), attribute_id::access_level, v);
  CHECK(v.value == variant(std::uint8_t{3}));
  s.as.read(node_id(2, 2000), attribute_id::value, v);
  CHECK(v.value == variant(ua_array<ua_string>{ua_string("a"), ua_string("b")}));
  s.as.read(node_id(2, 2001), attribute_id::value, v);
  CHECK(v.value == variant(localized_text{ua_string("de"), ua_string("Pumpe")}));
  s.as.read(node_id(2, 2002), attribute_id::value, v);
  CHECK(v.value == variant(qualified_name{2, ua_string("X")}));
  s.as.read(node_id(2, 2003), attribute_id::value, v);
  CHECK(v.value == variant(node_id(2, 1000)));
  s.as.read(node_id(2, 2004), attribute_id::value, v);
  const auto* range_eo = v.value.get_if<extension_object>();
  REQUIRE(range_eo);
  REQUIRE(range_eo->get_if<range>());
  CHECK(range_eo->get_if<range>()->low == -1.5);
  CHECK(range_eo->get_if<range>()->high == 99);

  s.as.read(node_id(2, 3001), attribute_id::value, v);
  const auto* args = v.value.get_if<ua_array<extension_object>>();
  REQUIRE(args);
  REQUIRE(args->size() == 1);
  const auto* arg = (*args)[0].get_if<argument>();
  REQUIRE(arg);
  CHECK(arg->name.view() == "Rpm");
  CHECK(arg->data_type == node_id(0, 6));
  CHECK(arg->value_rank == -1);
  CHECK(arg->description.text.view() == "revolutions per minute");

  // DataType definitions are stored: an EnumDefinition and a StructureDefinition with its encoding.
  s.as.read(node_id(2, 4000), attribute_id::data_type_definition, v);
  const auto* ed = v.value.get_if<extension_object>() ? v.value.get_if<extension_object>()->get_if<enum_definition>() : nullptr;
  REQUIRE(ed);
  REQUIRE(ed->fields.size() == 2);
  CHECK(ed->fields[1].name.view() == "On");
  CHECK(ed->fields[1].value == 1);
  s.as.read(node_id(2, 4001), attribute_id::data_type_definition, v);
  const auto* sd = v.value.get_if<extension_object>() ? v.value.get_if<extension_object>()->get_if<structure_definition>() : nullptr;
  REQUIRE(sd);
  CHECK(sd->default_encoding_id == node_id(2, 4002));
  CHECK(sd->base_data_type == node_id(0, 22));
  REQUIRE(sd->fields.size() == 3);
  CHECK(sd->fields[2].value_rank == 1);

  // A value of the file's own structure: its binary body under the DefaultBinary encoding id, as
  // a client reads it: Mode (Int32 1), Rpm (Double 1500), Tags (["x"]).
  s.as.read(node_id(2, 4003), attribute_id::value, v);
  const auto* status_eo = v.value.get_if<extension_object>();
  REQUIRE(status_eo);
  CHECK(status_eo->type_id() == node_id(2, 4002));
  CHECK(status_eo->body_encoding() == extension_object::encoding::byte_string);
  CHECK(status_eo->raw_body().size() == 4 + 8 + 4 + 4 + 1);

  s.as.read(node_id(2, 5000), attribute_id::inverse_name, v);
  CHECK(v.value == variant(localized_text{ua_string(), ua_string("DrivenBy")}));
  s.as.read(node_id(2, 6000), attribute_id::contains_no_loops, v);
  CHECK(v.value == variant(true));
}

TEST_CASE("nodeset: each bad file is refused with its line, its NodeId and what is wrong", "[nodeset]") {
  struct bad {
    std::string from, to, message;
  };
  const std::vector<bad> cases = {
      {"<UAView NodeId", "<UAView <NodeId", "small.xml:145: malformed XML: "},
      {"ReferenceType=\"HasTypeDefinition\">ns=1;i=1000", "ReferenceType=\"HasTypeDef\">ns=1;i=1000",
       "small.xml:41: ns=1;s=Pump1: unknown alias 'HasTypeDef'"},
      {"<UAVariable NodeId=\"ns=1;i=2002\"", "<UAVariable NodeId=\"ns=4;i=2002\"",
       "small.xml:55: ns=4;i=2002: NodeId 'ns=4;i=2002' names namespace index 4, which the file's NamespaceUris do not declare"},
      {"<UAVariable NodeId=\"ns=1;i=2003\"", "<UAVariable NodeId=\"ns=1;i=2002\"",
       "small.xml:59: ns=1;i=2002: duplicate NodeId: already defined at line 55"},
      {"<Reference ReferenceType=\"HasComponent\" IsForward=\"false\">ns=1;s=Pump1</Reference>",
       "<Reference ReferenceType=\"HasComponent\" IsForward=\"false\">ns=1;s=Pump2</Reference>",
       "small.xml:47: ns=1;i=2000: reference to ns=1;s=Pump2, which neither the file nor the server has"},
      {"<uax:Int32>42</uax:Int32>", "<uax:Int32>forty-two</uax:Int32>",
       "small.xml:34: ns=1;i=1001: <uax:Int32> does not decode: 'forty-two'"},
      {"<uax:Low>-1.5</uax:Low>", "<uax:Low>low</uax:Low>", "small.xml:68: ns=1;i=2004: <uax:Low> does not decode: 'low'"},
      {"ReferenceType=\"HasSubtype\" IsForward=\"false\">i=58", "ReferenceType=\"i=31\" IsForward=\"false\">i=58",
       "small.xml:24: ns=1;i=1000: reference type i=31 is not a concrete ReferenceType"},
      {"Version=\"1.04.0\" PublicationDate=\"2019-01-01T00:00:00Z\"", "Version=\"1.06.0\" PublicationDate=\"2029-01-01T00:00:00Z\"",
       "small.xml:8: RequiredModel http://opcfoundation.org/UA/ 1.06.0 is loaded in an older version (1.05.07): load the newer one first"},
      {"<RequiredModel ModelUri=\"http://opcfoundation.org/UA/\"", "<RequiredModel ModelUri=\"urn:missing\"",
       "small.xml:8: RequiredModel urn:missing 1.04.0 is not loaded: load it first"},
      {"DataType=\"ns=1;i=4001\"", "DataType=\"ns=1;i=4999\"",
       "small.xml:129: ns=1;i=4003: DataType ns=1;i=4999 is neither in the file nor in the server"},
      {"<UANodeSet xmlns", "<NodeSet xmlns", "small.xml:2: not a UANodeSet document (the root element is <NodeSet>)"},
      {"BrowseName=\"1:Names\"", "BrowseName=\"1:\"", "small.xml:44: ns=1;i=2000: BrowseName '1:' has an empty name"},
      {"<UAView NodeId=\"ns=1;i=6000\"", "<UAView NodeId=\"i=0\"", "small.xml:145: i=0: a null NodeId"},
  };
  for (const bad& b : cases) {
    loaded s;
    const std::size_t before = s.as.size(), refs = s.as.reference_count();
    std::string text = replace(small_file, b.from, b.to);
    if (b.to == "<NodeSet xmlns") text = replace(text, "</UANodeSet>", "</NodeSet>");
    const auto r = s.load(text);
    INFO(b.to);
    REQUIRE(!r.ok());
    CHECK(only_error(r).substr(0, b.message.size()) == b.message);
    // Nothing of the file is half-loaded.
    CHECK(s.as.size() == before);
    CHECK(s.as.reference_count() == refs);
  }
}

// Found by nodeset_fuzz: a node refused as a duplicate of a server node stayed in the importer's
// index, pointing past its nodes, and a reference to it read there (ASan: heap-buffer-overflow).
TEST_CASE("nodeset: a reference to a node the file redefines from the server is the server's", "[nodeset]") {
  loaded s;
  const std::size_t before = s.as.size();
  const auto r = s.load(R"(<?xml version="1.0" encoding="utf-8"?>
<UANodeSet xmlns="http://opcfoundation.org/UA/2011/03/UANodeSet.xsd">
  <NamespaceUris><Uri>urn:test:dup</Uri></NamespaceUris>
  <UAObject NodeId="ns=1;i=1" BrowseName="1:Thing"><DisplayName>Thing</DisplayName>
    <References><Reference ReferenceType="i=35" IsForward="false">i=2253</Reference>
      <Reference ReferenceType="i=40">i=58</Reference></References></UAObject>
  <UAObject NodeId="i=2253" BrowseName="Server"><DisplayName>Server</DisplayName>
    <References><Reference ReferenceType="i=40">i=58</Reference></References></UAObject>
</UANodeSet>
)");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].to_string() == "small.xml:7: i=2253: duplicate NodeId: the server already has this node");
  CHECK(s.as.size() == before);
}

TEST_CASE("nodeset: a NodeId the server has already is a duplicate, every error is reported", "[nodeset]") {
  loaded s;
  REQUIRE(s.load(small_file).ok());
  const std::size_t before = s.as.size();
  const auto again = s.load(small_file);
  REQUIRE(!again.ok());
  CHECK(again.errors.size() == 17);  // each node of the file
  CHECK(again.errors[0].to_string() == "small.xml:21: ns=1;i=1000: duplicate NodeId: the server already has this node");
  CHECK(s.as.size() == before);
}

TEST_CASE("nodeset: limits are errors that name the limit", "[nodeset]") {
  loaded s;
  nodeset::limits lim;
  lim.max_nodes = 5;
  const auto doc = nodeset::document::parse("small.xml", small_file, lim);
  const auto r = nodeset::import(doc, s.as, {s.namespaces, s.models, {}}, lim);
  REQUIRE(!r.ok());
  CHECK(only_error(r) == "small.xml:55: ns=1;i=2002: more than 5 nodes");
  lim.max_file_bytes = 100;
  const auto big = nodeset::document::parse("small.xml", small_file, lim);
  REQUIRE(!big.ok());
  CHECK(big.errors().front().what.find("more than the limit of 100") != std::string::npos);
  nodeset::limits shallow;
  shallow.max_value_depth = 1;
  const auto deep = nodeset::import(nodeset::document::parse("small.xml", small_file), s.as,
                                    {s.namespaces, s.models, {}}, shallow);
  REQUIRE(!deep.ok());
  CHECK(only_error(deep).find("a value nested deeper than 1") != std::string::npos);
}

TEST_CASE("nodeset: a file cut at any of many offsets is refused cleanly, nothing added", "[nodeset]") {
  const std::string text = small_file;
  loaded s;
  const std::size_t before = s.as.size();
  std::size_t refused = 0;
  for (std::size_t cut = 0; cut < text.size(); cut += 7) {
    const auto r = s.load(text.substr(0, cut));
    if (r.ok()) {  // only a cut after the root element's end tag can be whole
      CHECK(cut >= text.rfind("</UANodeSet>") + 12);
      continue;
    }
    ++refused;
    for (const auto& e : r.errors) CHECK(e.file == "small.xml");
    CHECK(s.as.size() == before);
  }
  CHECK(refused > 900);
}

namespace {

std::filesystem::path companion_dir() {
  return std::filesystem::path(UACTOR_SOURCE_DIR) / "tests/interop/node_modules/node-opcua-nodesets/nodesets";
}

}  // namespace

TEST_CASE("nodeset: the companion NodeSets of node-opcua-nodesets load", "[nodeset]") {
  if (!std::filesystem::is_directory(companion_dir())) {
    WARN("skipped: " << companion_dir() << " not installed (scripts/setup.sh runs npm ci)");
    return;
  }
  loaded s;
  const auto load = [&](const char* file) {
    const auto doc = nodeset::document::load((companion_dir() / file).string());
    nodeset::server_state st{s.namespaces, s.models, {}, s.accept_older};
    auto r = nodeset::import(doc, s.as, st);
    for (const auto& e : r.errors) UNSCOPED_INFO(e.to_string());
    if (r.ok()) {
      for (auto& u : r.new_namespaces) s.namespaces.push_back(u);
      for (auto& m : r.models) s.models.push_back(m);
    }
    return r;
  };
  // DI of this package requires namespace 0 1.05.04; this build's is 1.05.07: no warning.
  const std::size_t ns0_nodes = s.as.size();
  const auto di = load("Opc.Ua.Di.NodeSet2.xml");
  REQUIRE(di.ok());
  CHECK(di.warnings.empty());
  CHECK(di.nodes == 447);
  CHECK(s.namespaces.size() == 2);
  const auto ia = load("Opc.Ua.IA.NodeSet2.xml");
  REQUIRE(ia.ok());
  CHECK(ia.nodes == 122);
  const auto machinery = load("Opc.Ua.Machinery.NodeSet2.xml");
  REQUIRE(machinery.ok());
  CHECK(machinery.nodes == 180);
  const auto packml = load("Opc.Ua.PackML.NodeSet2.xml");
  REQUIRE(packml.ok());
  const auto robotics = load("Opc.Ua.Robotics.NodeSet2.xml");
  REQUIRE(robotics.ok());
  const auto isa95 = load("opc.ua.isa95-jobcontrol.nodeset2.xml");
  REQUIRE(isa95.ok());
  const auto jobs = load("Opc.Ua.Machinery.Jobs.Nodeset2.xml");
  REQUIRE(jobs.ok());
  const auto machine_tool = load("Opc.Ua.MachineTool.NodeSet2.xml");
  REQUIRE(machine_tool.ok());
  CHECK(s.as.size() == ns0_nodes + di.nodes + ia.nodes + machinery.nodes + packml.nodes + robotics.nodes +
                           isa95.nodes + jobs.nodes + machine_tool.nodes);
  WARN("ISA95-JOBCONTROL " << isa95.nodes << "/" << isa95.references << "; Machinery/Jobs " << jobs.nodes << "/"
                           << jobs.references << "; MachineTool " << machine_tool.nodes << "/" << machine_tool.references);
  WARN("DI " << di.nodes << " nodes " << di.references << " refs; IA " << ia.nodes << "/" << ia.references
             << "; Machinery " << machinery.nodes << "/" << machinery.references << "; PackML " << packml.nodes << "/"
             << packml.references << "; Robotics " << robotics.nodes << "/" << robotics.references);

  // Known nodes: DI's DeviceSet organized from Objects, DeviceType abstract under TopologyElementType.
  const std::uint16_t di_ns = 1;
  CHECK(s.namespaces[di_ns] == "http://opcfoundation.org/UA/DI/");
  CHECK(has_reference(s.as, node_id(0, 85), ids::organizes, node_id(di_ns, 5001)));
  const node_index device_type = s.as.find(node_id(di_ns, 1002));
  REQUIRE(device_type != no_node);
  CHECK(s.as.at(device_type).is_abstract);
  CHECK(s.as.is_subtype_of(node_id(di_ns, 1002), node_id(di_ns, 1001)));
  CHECK(s.as.at(device_type).browse_name == "DeviceType");
  // Machinery's Machines folder (i=1001) under Objects.
  const auto machinery_ns = static_cast<std::uint16_t>(
      std::find(s.namespaces.begin(), s.namespaces.end(), "http://opcfoundation.org/UA/Machinery/") - s.namespaces.begin());
  CHECK(has_reference(s.as, node_id(0, 85), ids::organizes, node_id(machinery_ns, 1001)));
}

// ---- structures.NodeSet2.xml: abstract fields, subtypes, Matrix, DataValue, DiagnosticInfo -------

namespace {

std::string structures_file() {
  std::ifstream in(std::filesystem::path(UACTOR_SOURCE_DIR) / "tests/fuzz/nodeset_seeds/structures.NodeSet2.xml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The line (from 1) of the first occurrence of `marker` in `text`.
std::size_t line_of(const std::string& text, const std::string& marker) {
  const auto at = text.find(marker);
  REQUIRE(at != std::string::npos);
  return static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n')) + 1;
}

// A raw ExtensionObject body, read field by field.
struct body_reader {
  explicit body_reader(const byte_string& b)
      : d(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(b.data()), b.size())) {}
  template <class T>
  T next() {
    T v{};
    decode(d, v);
    return v;
  }
  decoder d;
};

}  // namespace

TEST_CASE("nodeset: fields of an abstract structure, a Number and a subtype-allowing field are ExtensionObjects and Variants",
          "[nodeset]") {
  loaded s;
  const auto r = s.load(structures_file(), "structures.xml");
  INFO((r.errors.empty() ? "" : r.errors.front().to_string()));
  REQUIRE(r.ok());
  const std::uint16_t ns = 1;
  data_value v;

  // Drawing {Title, Main: ShapeBase (abstract), Extra: Number, Shapes: ShapeBase[]} (Part 6 §5.1.7):
  // the abstract fields carry ExtensionObjects of the concrete Circle under its DefaultBinary id,
  // the Number a Variant.
  s.as.read(node_id(ns, 100), attribute_id::value, v);
  const auto* drawing = v.value.get_if<extension_object>();
  REQUIRE(drawing);
  CHECK(drawing->type_id() == node_id(ns, 5));
  body_reader b(drawing->raw_body());
  CHECK(b.next<ua_string>().view() == "plan");
  const auto main_shape = b.next<extension_object>();
  CHECK(main_shape.type_id() == node_id(ns, 3));
  body_reader circle(main_shape.raw_body());
  CHECK(circle.next<ua_string>().view() == "sun");
  CHECK(circle.next<double>() == 2.5);
  CHECK(circle.d.remaining() == 0);
  CHECK(b.next<variant>() == variant(0.75));
  const auto shapes = b.next<ua_array<extension_object>>();
  REQUIRE(shapes.size() == 2);
  CHECK(shapes[0].type_id() == node_id(ns, 3));  // the file named the DataType: the encoding is on the wire
  CHECK(shapes[1].type_id() == node_id(ns, 3));
  body_reader second(shapes[1].raw_body());
  CHECK(second.next<ua_string>().view() == "b");
  CHECK(second.next<double>() == 2.0);
  CHECK(b.d.ok());
  CHECK(b.d.remaining() == 0);

  // Holder {Label, Item: Circle with AllowSubTypes}: a StructureWithSubtypedValues, whose Item is an
  // ExtensionObject, and whose definition marks it IsOptional (Part 3 §8.51).
  s.as.read(node_id(ns, 6), attribute_id::data_type_definition, v);
  const auto* sd = v.value.get_if<extension_object>()->get_if<structure_definition>();
  REQUIRE(sd);
  CHECK(sd->structure_type == structure_type::structure_with_subtyped_values);
  REQUIRE(sd->fields.size() == 2);
  CHECK(!sd->fields[0].is_optional);
  CHECK(sd->fields[1].is_optional);
  s.as.read(node_id(ns, 101), attribute_id::value, v);
  body_reader h(v.value.get_if<extension_object>()->raw_body());
  CHECK(h.next<ua_string>().view() == "held");
  const auto item = h.next<extension_object>();
  CHECK(item.type_id() == node_id(ns, 3));
  CHECK(h.d.ok());
  CHECK(h.d.remaining() == 0);
  s.as.read(node_id(ns, 1), attribute_id::is_abstract, v);
  CHECK(v.value == variant(true));

  // Scene: Drawing's fields in a StructureWithSubtypedValues, Main and Shapes allowing subtypes: the
  // same encoding, and the form node-opcua's client decodes (tests/interop/nodeset_structure_read.js).
  s.as.read(node_id(ns, 8), attribute_id::data_type_definition, v);
  const auto* scene_sd = v.value.get_if<extension_object>()->get_if<structure_definition>();
  REQUIRE(scene_sd);
  CHECK(scene_sd->structure_type == structure_type::structure_with_subtyped_values);
  CHECK(scene_sd->fields[1].is_optional);
  CHECK(!scene_sd->fields[2].is_optional);
  s.as.read(node_id(ns, 107), attribute_id::value, v);
  body_reader sc(v.value.get_if<extension_object>()->raw_body());
  CHECK(sc.next<ua_string>().view() == "stage");
  CHECK(sc.next<extension_object>().type_id() == node_id(ns, 3));
  CHECK(sc.next<variant>() == variant(std::int32_t{12}));
  CHECK(sc.next<ua_array<extension_object>>().size() == 1);
  CHECK(sc.d.ok());
  CHECK(sc.d.remaining() == 0);
}

TEST_CASE("nodeset: Matrix, DataValue, DiagnosticInfo and Variant values decode (Part 6 §5.3.1)", "[nodeset]") {
  loaded s;
  const auto r = s.load(structures_file(), "structures.xml");
  REQUIRE(r.ok());
  const std::uint16_t ns = 1;
  data_value v;

  // A 2x3 matrix, the last index varying fastest; through the binary codec with its dimensions.
  s.as.read(node_id(ns, 102), attribute_id::value, v);
  variant grid{ua_array<std::int32_t>{1, 2, 3, 4, 5, 6}};
  grid.dimensions() = {2, 3};
  CHECK(v.value == grid);
  byte_buffer wire;
  encoder e(wire);
  encode(e, v.value);
  variant back;
  decoder d(std::span<const std::uint8_t>(wire.data(), wire.size()));
  decode(d, back);
  CHECK(d.ok());
  CHECK(back == grid);

  s.as.read(node_id(ns, 103), attribute_id::value, v);
  const auto* sample = v.value.get_if<boxed<data_value>>();
  REQUIRE(sample);
  data_value want;
  want.set_value(21.5);
  want.status = status_code{0x40000000};
  want.has_status = true;
  want.source_timestamp = date_time{date_time::unix_epoch_ticks + 1767323045LL * date_time::ticks_per_second};
  want.has_source_timestamp = true;
  want.source_picoseconds = 7;
  want.has_source_picoseconds = true;
  CHECK(**sample == want);

  s.as.read(node_id(ns, 104), attribute_id::value, v);
  const auto* diag = v.value.get_if<boxed<diagnostic_info>>();
  REQUIRE(diag);
  CHECK((*diag)->symbolic_id == 1);
  CHECK(!(*diag)->namespace_uri);
  CHECK((*diag)->additional_info.view() == "more");
  CHECK((*diag)->inner_status_code == status_code{0x80000000});
  REQUIRE((*diag)->inner_diagnostic_info);
  CHECK((*diag)->inner_diagnostic_info->locale == 2);

  s.as.read(node_id(ns, 105), attribute_id::value, v);
  CHECK(v.value == variant(ua_array<variant>{variant(ua_string("x")), variant(ua_array<std::uint8_t>{1, 2})}));

  s.as.read(node_id(ns, 106), attribute_id::value, v);
  data_value one;
  one.set_value(std::int32_t{1});
  CHECK(v.value == variant(ua_array<data_value>{one, data_value{}}));
}

TEST_CASE("nodeset: bad Matrix, DataValue, DiagnosticInfo and abstract-field values are refused with line and NodeId",
          "[nodeset]") {
  struct bad {
    std::string from, to, node, message;
    std::string at;  // a text on the line the error names; `to` when empty
  };
  const std::string ok_circle = "<uax:TypeId><uax:Identifier>ns=1;i=3</uax:Identifier></uax:TypeId>\n"
                                "              <uax:Body><Circle><Name>sun</Name><Radius>2.5</Radius></Circle></uax:Body>";
  const std::vector<bad> cases = {
      {"<uax:Int32>2</uax:Int32><uax:Int32>3</uax:Int32></uax:Dimensions>", "<uax:Int32>2</uax:Int32><uax:Int32>4</uax:Int32></uax:Dimensions>",
       "ns=1;i=102", "a Matrix of dimensions 2x4 has 6 elements, not 8", "<uax:Matrix>"},
      {"<uax:Int32>2</uax:Int32><uax:Int32>3</uax:Int32></uax:Dimensions>", "<uax:Int32>-2</uax:Int32><uax:Int32>3</uax:Int32></uax:Dimensions>",
       "ns=1;i=102", "a Matrix dimension of -2: a dimension is not negative", ""},
      {"<uax:Int32>2</uax:Int32><uax:Int32>3</uax:Int32></uax:Dimensions>",
       "<uax:Int32>65536</uax:Int32><uax:Int32>65536</uax:Int32></uax:Dimensions>", "ns=1;i=102",
       "a Matrix of dimensions 65536x65536: more than the limit of 1000000 elements", "<uax:Matrix>"},
      {"<uax:Dimensions><uax:Int32>2</uax:Int32><uax:Int32>3</uax:Int32></uax:Dimensions>", "<uax:Dimensions />",
       "ns=1;i=102", "a Matrix without dimensions", ""},
      {"<uax:Int32>6</uax:Int32>", "<uax:Int16>6</uax:Int16>", "ns=1;i=102",
       "a Matrix element <uax:Int16> among <uax:Int32> elements: a Matrix holds one built-in type", ""},
      {"<uax:Int32>5</uax:Int32>", "<uax:Int32>five</uax:Int32>", "ns=1;i=102", "<uax:Int32> does not decode: 'five'", ""},
      {"2026-01-02T03:04:05Z", "yesterday", "ns=1;i=103", "<uax:SourceTimestamp> does not decode: 'yesterday'", ""},
      {"<uax:Locale>2</uax:Locale>", "<uax:Locale>two</uax:Locale>", "ns=1;i=104", "<uax:Locale> does not decode: 'two'", ""},
      {ok_circle, "<uax:TypeId><uax:Identifier>ns=1;i=1</uax:Identifier></uax:TypeId>", "ns=1;i=100",
       "ExtensionObject of ns=1;i=1, an abstract DataType: a value is of a concrete one", ""},
      {ok_circle, "<uax:TypeId><uax:Identifier>i=885</uax:Identifier></uax:TypeId>", "ns=1;i=100",
       "ExtensionObject of i=884 in a field of DataType ns=1;i=1, which it does not derive from", ""},
      {ok_circle, "<Circle><Name>sun</Name><Radius>2.5</Radius></Circle>", "ns=1;i=100",
       "<Circle> where an ExtensionObject (<TypeId> and <Body>) is expected: a field of DataType ns=1;i=1 holds a "
       "structure of its own type or a subtype as an ExtensionObject",
       ""},
      {"<uax:TypeId><uax:Identifier>ns=1;i=2</uax:Identifier></uax:TypeId>", "<uax:Type />", "ns=1;i=100",
       "an ExtensionObject with a <Body> but no <TypeId>", "<uax:ExtensionObject>\n                <uax:Type />"},
      {"AllowSubTypes=\"true\"", "AllowSubTypes=\"true\" IsOptional=\"true\"", "ns=1;i=6",
       "field Item: IsOptional and AllowSubTypes together, which a StructureDefinition cannot express", ""},
  };
  const std::string file = structures_file();
  for (const bad& b : cases) {
    loaded s;
    const std::size_t before = s.as.size(), refs = s.as.reference_count();
    const std::string text = replace(file, b.from, b.to);
    const auto r = s.load(text, "structures.xml");
    INFO(b.to);
    REQUIRE(!r.ok());
    const std::string at = b.at.empty() ? b.to : b.at;
    CHECK(only_error(r) == "structures.xml:" + std::to_string(line_of(text, at)) + ": " + b.node + ": " + b.message);
    CHECK(s.as.size() == before);
    CHECK(s.as.reference_count() == refs);
  }
}

TEST_CASE("nodeset: structures.NodeSet2.xml cut at any of many offsets is refused cleanly, nothing added", "[nodeset]") {
  const std::string text = structures_file();
  loaded s;
  const std::size_t before = s.as.size(), refs = s.as.reference_count();
  std::size_t refused = 0;
  for (std::size_t cut = 0; cut < text.size(); cut += 11) {
    const auto r = s.load(text.substr(0, cut), "structures.xml");
    if (r.ok()) {
      CHECK(cut >= text.rfind("</UANodeSet>") + 12);
      continue;
    }
    ++refused;
    for (const auto& e : r.errors) CHECK(e.file == "structures.xml");
    CHECK(s.as.size() == before);
    CHECK(s.as.reference_count() == refs);
  }
  CHECK(refused > text.size() / 11 - 2);
}

TEST_CASE("nodeset: a structure field of ValueRank 2 is the inline matrix, its dimensions then its elements", "[nodeset]") {
  const std::string board = R"(<?xml version="1.0" encoding="utf-8"?>
<UANodeSet xmlns="http://opcfoundation.org/UA/2011/03/UANodeSet.xsd" xmlns:uax="http://opcfoundation.org/UA/2008/02/Types.xsd">
  <NamespaceUris><Uri>urn:test:board</Uri></NamespaceUris>
  <UADataType NodeId="ns=1;i=1" BrowseName="1:Board">
    <DisplayName>Board</DisplayName>
    <References>
      <Reference ReferenceType="i=45" IsForward="false">i=22</Reference>
      <Reference ReferenceType="i=38">ns=1;i=2</Reference>
    </References>
    <Definition Name="1:Board">
      <Field Name="Cells" DataType="i=6" ValueRank="2" ArrayDimensions="2,2" />
      <Field Name="Spare" DataType="i=6" ValueRank="2" />
    </Definition>
  </UADataType>
  <UAObject NodeId="ns=1;i=2" BrowseName="Default Binary"><DisplayName>Default Binary</DisplayName></UAObject>
  <UAVariable NodeId="ns=1;i=3" BrowseName="1:Board1" DataType="ns=1;i=1">
    <DisplayName>Board1</DisplayName>
    <Value>
      <uax:ExtensionObject>
        <uax:TypeId><uax:Identifier>ns=1;i=2</uax:Identifier></uax:TypeId>
        <uax:Body><Board><Cells><uax:Dimensions><uax:Int32>2</uax:Int32><uax:Int32>2</uax:Int32></uax:Dimensions>
          <uax:Elements><uax:Int32>1</uax:Int32><uax:Int32>2</uax:Int32><uax:Int32>3</uax:Int32><uax:Int32>4</uax:Int32></uax:Elements>
        </Cells></Board></uax:Body>
      </uax:ExtensionObject>
    </Value>
  </UAVariable>
</UANodeSet>
)";
  loaded s;
  const auto r = s.load(board, "board.xml");
  INFO((r.errors.empty() ? "" : r.errors.front().to_string()));
  REQUIRE(r.ok());
  data_value v;
  s.as.read(node_id(1, 3), attribute_id::value, v);
  const auto* eo = v.value.get_if<extension_object>();
  REQUIRE(eo);
  body_reader b(eo->raw_body());
  CHECK(b.next<ua_array<std::int32_t>>() == ua_array<std::int32_t>{2, 2});
  for (std::int32_t i = 1; i <= 4; ++i) CHECK(b.next<std::int32_t>() == i);  // no count: the product
  ua_array<std::int32_t> spare = b.next<ua_array<std::int32_t>>();             // missing: null dimensions
  CHECK(spare.is_null());
  CHECK(b.d.ok());
  CHECK(b.d.remaining() == 0);

  loaded t;
  const auto three = t.load(replace(board, "<uax:Int32>2</uax:Int32><uax:Int32>2</uax:Int32>",
                                    "<uax:Int32>2</uax:Int32><uax:Int32>2</uax:Int32><uax:Int32>1</uax:Int32>"),
                            "board.xml");
  REQUIRE(!three.ok());
  CHECK(only_error(three) == "board.xml:21: ns=1;i=3: a Matrix of 3 dimensions in field Cells of ValueRank 2");
}

TEST_CASE("nodeset: ExpandedNodeId, Guid, DateTime, ByteString, XmlElement, Float, Int64, LocalizedText values and an OptionSet",
          "[nodeset]") {
  // Each value in the XML form of Part 6 §5.3.1; the OptionSet a UInt32 subtype whose fields are
  // bit numbers (Part 3 §8.52), its value the mask.
  const std::string file = R"(<?xml version="1.0" encoding="utf-8"?>
<UANodeSet xmlns="http://opcfoundation.org/UA/2011/03/UANodeSet.xsd" xmlns:uax="http://opcfoundation.org/UA/2008/02/Types.xsd">
  <NamespaceUris><Uri>urn:test:kinds</Uri></NamespaceUris>
  <UADataType NodeId="ns=1;i=50" BrowseName="1:Features">
    <References><Reference ReferenceType="i=45" IsForward="false">i=7</Reference></References>
    <Definition Name="1:Features" IsOptionSet="true">
      <Field Name="Heating" Value="0" />
      <Field Name="Cooling" Value="1"><Description>cools</Description></Field>
      <Field Name="Drying" Value="2" />
    </Definition>
  </UADataType>
  <UAVariable NodeId="ns=1;i=1" BrowseName="1:Target" DataType="i=18">
    <Value><uax:ExpandedNodeId><uax:Identifier>nsu=urn:test:kinds;s=Somewhere</uax:Identifier></uax:ExpandedNodeId></Value>
  </UAVariable>
  <UAVariable NodeId="ns=1;i=2" BrowseName="1:Id" DataType="i=14">
    <Value><uax:Guid><uax:String>72962B91-FA75-4AE6-8D28-B404DC7DAF63</uax:String></uax:Guid></Value>
  </UAVariable>
  <UAVariable NodeId="ns=1;i=3" BrowseName="1:When" DataType="i=13">
    <Value><uax:DateTime>2024-05-01T12:30:15.5Z</uax:DateTime></Value>
  </UAVariable>
  <UAVariable NodeId="ns=1;i=4" BrowseName="1:Blob" DataType="i=15">
    <Value><uax:ByteString>AQID/w==</uax:ByteString></Value>
  </UAVariable>
  <UAVariable NodeId="ns=1;i=5" BrowseName="1:Doc" DataType="i=16">
    <Value><uax:XmlElement><a x="1">b</a></uax:XmlElement></Value>
  </UAVariable>
  <UAVariable NodeId="ns=1;i=6" BrowseName="1:Ratio" DataType="i=10" ValueRank="1">
    <Value><uax:ListOfFloat><uax:Float>1.5</uax:Float><uax:Float>-INF</uax:Float><uax:Float>NaN</uax:Float></uax:ListOfFloat></Value>
  </UAVariable>
  <UAVariable NodeId="ns=1;i=7" BrowseName="1:Big" DataType="i=8">
    <Value><uax:Int64>-9000000000</uax:Int64></Value>
  </UAVariable>
  <UAVariable NodeId="ns=1;i=8" BrowseName="1:Installed" DataType="ns=1;i=50">
    <Value><uax:UInt32>5</uax:UInt32></Value>
  </UAVariable>
  <UAVariable NodeId="ns=1;i=9" BrowseName="1:Ids" DataType="i=14" ValueRank="1">
    <Value><uax:ListOfGuid><uax:Guid><uax:String>00000000-0000-0000-0000-000000000001</uax:String></uax:Guid></uax:ListOfGuid></Value>
  </UAVariable>
  <UADataType NodeId="ns=1;i=60" BrowseName="1:ToolArgument">
    <References><Reference ReferenceType="i=45" IsForward="false">i=296</Reference></References>
    <Definition Name="1:ToolArgument"><Field Name="Unit" DataType="i=12" /></Definition>
  </UADataType>
  <UAVariable NodeId="ns=1;i=10" BrowseName="1:Label" DataType="i=21">
    <Value><uax:LocalizedText><uax:Locale>
      </uax:Locale><uax:Text>Site</uax:Text></uax:LocalizedText></Value>
  </UAVariable>
</UANodeSet>
)";
  loaded s;
  s.namespaces.push_back("urn:test:before");  // the file's ns=1 becomes 2
  const auto r = s.load(file, "kinds.xml");
  INFO((r.errors.empty() ? "" : r.errors.front().to_string()));
  REQUIRE(r.ok());
  const std::uint16_t ns = 2;
  data_value v;

  s.as.read(node_id(ns, 1), attribute_id::value, v);
  const auto* target = v.value.get_if<expanded_node_id>();
  REQUIRE(target);
  CHECK(target->id == node_id::string(ns, "Somewhere"));  // nsu= mapped to this server's index
  CHECK(target->server_index == 0);

  s.as.read(node_id(ns, 2), attribute_id::value, v);
  const auto* g = v.value.get_if<guid>();
  REQUIRE(g);
  CHECK(g->to_string() == "72962B91-FA75-4AE6-8D28-B404DC7DAF63");
  CHECK(g->data1 == 0x72962B91u);
  CHECK(g->data4[0] == 0x8D);

  s.as.read(node_id(ns, 3), attribute_id::value, v);
  REQUIRE(v.value.get_if<date_time>());
  CHECK(v.value.get_if<date_time>()->ticks == date_time::unix_epoch_ticks + 1714566615LL * date_time::ticks_per_second + 5'000'000);

  s.as.read(node_id(ns, 4), attribute_id::value, v);
  REQUIRE(v.value.get_if<byte_string>());
  CHECK(v.value.get_if<byte_string>()->view() == std::string_view("\x01\x02\x03\xff", 4));

  s.as.read(node_id(ns, 5), attribute_id::value, v);
  REQUIRE(v.value.get_if<xml_element>());
  CHECK(v.value.get_if<xml_element>()->view() == R"(<a x="1">b</a>)");

  s.as.read(node_id(ns, 6), attribute_id::value, v);
  const auto* ratios = v.value.get_if<ua_array<float>>();
  REQUIRE(ratios);
  REQUIRE(ratios->size() == 3);
  CHECK((*ratios)[0] == 1.5f);
  CHECK((*ratios)[1] == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan((*ratios)[2]));

  s.as.read(node_id(ns, 7), attribute_id::value, v);
  CHECK(v.value == variant(std::int64_t{-9'000'000'000}));

  s.as.read(node_id(ns, 8), attribute_id::value, v);
  CHECK(v.value == variant(std::uint32_t{5}));  // Heating and Drying
  s.as.read(node_id(ns, 50), attribute_id::data_type_definition, v);
  const auto* def = v.value.get_if<extension_object>();
  REQUIRE(def);
  const auto* options = def->get_if<enum_definition>();  // Part 3 §8.49: an OptionSet's is an EnumDefinition
  REQUIRE(options);
  REQUIRE(options->fields.size() == 3);
  CHECK(options->fields[0].name.view() == "Heating");
  CHECK(options->fields[1].value == 1);
  CHECK(options->fields[1].description.text.view() == "cools");
  CHECK(options->fields[2].value == 2);

  s.as.read(node_id(ns, 9), attribute_id::value, v);
  const auto* ids = v.value.get_if<ua_array<guid>>();
  REQUIRE(ids);
  REQUIRE(ids->size() == 1);
  CHECK(ids->front().data4[7] == 1);

  // A subtype of Argument: Argument's five fields, then its own (Part 3 §8.48).
  s.as.read(node_id(ns, 60), attribute_id::data_type_definition, v);
  const auto* sub = v.value.get_if<extension_object>()->get_if<structure_definition>();
  REQUIRE(sub);
  CHECK(sub->base_data_type == node_id(0, 296));
  REQUIRE(sub->fields.size() == 6);
  CHECK(sub->fields[0].name.view() == "Name");
  CHECK(sub->fields[5].name.view() == "Unit");

  s.as.read(node_id(ns, 10), attribute_id::value, v);  // a <Locale> of white space only: no locale
  REQUIRE(v.value.get_if<localized_text>());
  CHECK(v.value.get_if<localized_text>()->locale.is_null());
  CHECK(v.value.get_if<localized_text>()->text.view() == "Site");

  // Each kind malformed: refused with its line and NodeId.
  for (const auto& [from, to, what] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"nsu=urn:test:kinds;s=Somewhere", "nsu=urn:test:nowhere;s=X", "names an unknown namespace"},
           {"72962B91-FA75-4AE6-8D28-B404DC7DAF63", "72962B91-FA75", "ns=1;i=2"},
           {"2024-05-01T12:30:15.5Z", "2024-13-01T12:30:15Z", "ns=1;i=3"},
           {"AQID/w==", "AQ*D", "ns=1;i=4"},
           {"<uax:Int64>-9000000000</uax:Int64>", "<uax:Int64>99999999999999999999</uax:Int64>", "ns=1;i=7"},
           {"<uax:Float>1.5</uax:Float>", "<uax:Float>fast</uax:Float>", "ns=1;i=6"}}) {
    INFO(to);
    std::string bad = file;
    bad.replace(bad.find(from), from.size(), to);
    loaded fresh;
    const auto refused = fresh.load(bad, "kinds.xml");
    REQUIRE(refused.errors.size() == 1);
    CHECK(refused.errors[0].to_string().find(what) != std::string::npos);
    CHECK(refused.nodes == 0);
  }
}
