// NodeIds and ExpandedNodeIds as text (protocol/node_id_text.hpp, Part 6 §5.3.1.10 and §5.3.1.11):
// parse(to_string(x)) == x over every identifier type, and every malformed text refused with a
// reason.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "uactor/ua/status_codes.hpp"
#include "protocol/node_id_text.hpp"

using namespace uactor::ua;

namespace {

const guid sample_guid{0x72962B91, 0xFA75, 0x4AE6, {0x8D, 0x28, 0xB4, 0x04, 0xDC, 0x7D, 0xAF, 0x63}};

// One of each identifier type, in namespace 0, a small one and the largest, with the edge values.
std::vector<node_id> every_kind_of_node_id() {
  std::vector<node_id> ids;
  for (const std::uint16_t ns : {std::uint16_t{0}, std::uint16_t{1}, std::uint16_t{65535}}) {
    ids.emplace_back(ns, 0u);
    ids.emplace_back(ns, 85u);
    ids.emplace_back(ns, 4294967295u);
    ids.push_back(node_id::string(ns, "the.answer"));
    ids.push_back(node_id::string(ns, ""));
    ids.push_back(node_id::string(ns, " spaced; ns=2;i=5 = \xC3\xA9 "));  // kept as it is, to the end
    ids.push_back(node_id::string(ns, std::string(max_node_id_identifier, 'x')));
    ids.push_back(node_id::guid_id(ns, sample_guid));
    ids.push_back(node_id::guid_id(ns, guid{}));
    ids.push_back(node_id::opaque(ns, ""));
    ids.push_back(node_id::opaque(ns, std::string_view("\x01\x02\x03\xFF", 4)));
    ids.push_back(node_id::opaque(ns, std::string(max_node_id_identifier, '\x80')));
  }
  return ids;
}

status_code node_id_error(std::string_view text, std::string& why) {
  why.clear();
  return parse_node_id(text, &why).error();
}

}  // namespace

TEST_CASE("node_id text: the forms of Part 6 §5.3.1.10", "[protocol]") {
  CHECK(node_id(0, 85).to_string() == "i=85");
  CHECK(node_id(1, 1000).to_string() == "ns=1;i=1000");
  CHECK(node_id::string(1, "the.answer").to_string() == "ns=1;s=the.answer");
  CHECK(node_id::guid_id(2, sample_guid).to_string() == "ns=2;g=72962B91-FA75-4AE6-8D28-B404DC7DAF63");
  CHECK(node_id::opaque(3, "\x01\x02\x03").to_string() == "ns=3;b=AQID");

  CHECK(*parse_node_id("i=85") == node_id(0, 85));
  CHECK(*parse_node_id("ns=0;i=85") == node_id(0, 85));
  CHECK(*parse_node_id("ns=1;s=the.answer") == node_id::string(1, "the.answer"));
  CHECK(*parse_node_id("ns=2;g=72962b91-fa75-4ae6-8d28-b404dc7daf63") == node_id::guid_id(2, sample_guid));
  CHECK(*parse_node_id("ns=3;b=AQID") == node_id::opaque(3, "\x01\x02\x03"));
}

TEST_CASE("node_id text: parse(to_string(x)) == x for every identifier type", "[protocol]") {
  for (const node_id& id : every_kind_of_node_id()) {
    const std::string text = id.to_string();
    CAPTURE(text.substr(0, 80));
    const auto back = parse_node_id(text);
    REQUIRE(back);
    CHECK(*back == id);
    CHECK(back->type() == id.type());
  }
}

TEST_CASE("node_id text: malformed texts are refused with a reason", "[protocol]") {
  std::string why;
  const std::vector<std::string> malformed = {
      "", "85", "i=", "i=-1", "i=+85", "i=0x55", "i=4294967296", "i= 85", "i=85 ", " i=85", "x=85", "I=85",
      "ns=1", "ns=;i=1", "ns=65536;i=1", "ns=-1;i=1", "ns=1;", "ns=1;ns=2;i=1", "ns=1;85", "s", "g=",
      "g=72962B91-FA75-4AE6-8D28", "g={72962B91-FA75-4AE6-8D28-B404DC7DAF63}", "b=AQI", "b=AQID=", "b=AQ ID",
      "b=AQ!D", "nsu=urn:a;i=1", "svr=1;i=1", std::string("i=8\0", 4),
      "s=" + std::string(max_node_id_identifier + 1, 'x'),
      "b=" + std::string((max_node_id_identifier + 3) / 3 * 4, 'A')};
  for (const auto& text : malformed) {
    CAPTURE(text.substr(0, 80));
    CHECK(node_id_error(text, why) == status::bad_node_id_invalid);
    CHECK(!why.empty());
  }
  node_id_error("ns=70000;i=1", why);
  CHECK(why == "ns=70000: a namespace index is a decimal number from 0 to 65535");
  node_id_error("i=abc", why);
  CHECK(why == "i=abc: a numeric identifier is a decimal number from 0 to 4294967295");
  node_id_error("q=1", why);
  CHECK(why == "the identifier must be i=, s=, g= or b= (e.g. ns=1;s=the.answer or i=85)");
  node_id_error("b=AQI", why);
  CHECK(why == "an Opaque identifier: base64: 3 characters, not a multiple of 4 (missing '=' padding?)");
  node_id_error("nsu=urn:a;i=1", why);
  CHECK(why == "nsu= and svr= belong to an ExpandedNodeId, not a NodeId");
  // 4096 characters, not bytes: a two-byte UTF-8 character counts once.
  std::string accented;
  for (std::size_t i = 0; i < max_node_id_identifier; ++i) accented += "\xC3\xA9";
  CHECK(parse_node_id("s=" + accented));
}

TEST_CASE("expanded_node_id text: the forms of Part 6 §5.3.1.11, both ways", "[protocol]") {
  const auto local = expanded_node_id{node_id(2, 5), {}, 0};
  CHECK(to_string(local) == "ns=2;i=5");
  CHECK(*parse_expanded_node_id("ns=2;i=5") == local);

  const auto remote = expanded_node_id{node_id::string(0, "Tag1"), ua_string("urn:plant"), 3};
  CHECK(to_string(remote) == "svr=3;nsu=urn:plant;s=Tag1");
  CHECK(*parse_expanded_node_id("svr=3;nsu=urn:plant;s=Tag1") == remote);

  const auto indexed = expanded_node_id{node_id(4, 1), {}, 7};
  CHECK(to_string(indexed) == "svr=7;ns=4;i=1");
  CHECK(*parse_expanded_node_id("svr=7;ns=4;i=1") == indexed);
  CHECK(*parse_expanded_node_id("svr=0;i=1") == expanded_node_id{node_id(0, 1), {}, 0});

  // The reserved characters of the URI, '%' and ';', are percent-encoded; any %XX is decoded.
  const auto reserved = expanded_node_id{node_id(0, 1), ua_string("urn:a;b%c"), 0};
  CHECK(to_string(reserved) == "nsu=urn:a%3Bb%25c;i=1");
  CHECK(*parse_expanded_node_id("nsu=urn:a%3Bb%25c;i=1") == reserved);
  CHECK(parse_expanded_node_id("nsu=urn%3a%3bx;i=1")->namespace_uri == ua_string("urn:;x"));

  // With a URI, the text has no index (the spec's rule), so the index is not written.
  CHECK(to_string(expanded_node_id{node_id(5, 1), ua_string("urn:plant"), 0}) == "nsu=urn:plant;i=1");
}

TEST_CASE("expanded_node_id text: parse(to_string(x)) == x for every identifier type", "[protocol]") {
  for (const node_id& id : every_kind_of_node_id()) {
    std::vector<expanded_node_id> forms = {{id, {}, 0}, {id, {}, 4294967295u}};
    if (id.namespace_index() == 0) {
      forms.push_back({id, ua_string("urn:plant"), 0});
      forms.push_back({id, ua_string("http://x/%;y"), 1});
    }
    for (const auto& x : forms) {
      const std::string text = to_string(x);
      CAPTURE(text.substr(0, 80));
      const auto back = parse_expanded_node_id(text);
      REQUIRE(back);
      CHECK(*back == x);
    }
  }
}

TEST_CASE("expanded_node_id text: malformed texts are refused with a reason", "[protocol]") {
  const std::vector<std::string> malformed = {
      "", "svr=;i=1", "svr=x;i=1", "svr=4294967296;i=1", "svr=1", "svr=1;", "nsu=;i=1", "nsu=urn:a", "nsu=urn:a;",
      "nsu=urn%;i=1", "nsu=urn%3;i=1", "nsu=urn%zz;i=1", "nsu=urn:a;ns=1;i=1", "ns=1;nsu=urn:a;i=1",
      "ns=1;svr=1;i=1", "svr=1;svr=2;i=1", "svr=1;ns=70000;i=1", "nsu=urn:a;b=A"};
  for (const auto& text : malformed) {
    CAPTURE(text);
    std::string why;
    CHECK(parse_expanded_node_id(text, &why).error() == status::bad_node_id_invalid);
    CHECK(!why.empty());
  }
}
