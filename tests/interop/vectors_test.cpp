// Vectors from a stack we did not write: node-opcua's encodings (tests/interop/make_vectors.js)
// decode with our decoder and re-encode to the same bytes.
#include <catch2/catch.hpp>
#include <set>

#include "tests/support/samples.hpp"

using namespace uactor;

TEST_CASE("interop: node-opcua's encodings decode and re-encode byte for byte", "[interop][protocol]") {
  const auto vectors = test::node_opcua_vectors();
  REQUIRE(vectors.size() > 50);
  std::set<std::string> types;
  test::bytes out;
  for (const auto& v : vectors) {
    INFO(v.name << " (" << v.type << "): " << test::to_hex(v.encoded));
    REQUIRE(test::decode_and_reencode(v, v.encoded, out) == ua::status::good);
    CHECK(test::to_hex(out) == test::to_hex(v.encoded));
    types.insert(v.type);
  }
  // Every built-in type and every message the issue names is in the set.
  for (const char* t : {"Boolean", "SByte", "Byte", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64", "Float",
                        "Double", "String", "DateTime", "Guid", "ByteString", "XmlElement", "NodeId", "ExpandedNodeId",
                        "StatusCode", "QualifiedName", "LocalizedText", "ExtensionObject", "DataValue", "Variant",
                        "DiagnosticInfo", "ReadRequest", "ReadResponse", "WriteRequest", "BrowseRequest",
                        "BrowseResponse", "CreateSessionRequest", "ActivateSessionRequest", "PublishResponse"}) {
    INFO(t);
    CHECK(types.count(t) == 1);
  }
}
