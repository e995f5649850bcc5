// The DNS message codec of mDNS (protocol/mdns/): hand-built messages in RFC 1035 §4.1's layout
// read field by field, compression (§4.1.4) both ways, and every bound refused with its offset.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "protocol/mdns/dns_name.hpp"
#include "protocol/mdns/dns_reader.hpp"
#include "protocol/mdns/dns_writer.hpp"

using namespace uactor::ua;

namespace {

using bytes = std::vector<std::uint8_t>;

void put_name(bytes& b, std::initializer_list<std::string_view> labels) {
  for (auto l : labels) {
    b.push_back(static_cast<std::uint8_t>(l.size()));
    b.insert(b.end(), l.begin(), l.end());
  }
  b.push_back(0);
}
void put16(bytes& b, std::uint16_t v) {
  b.push_back(static_cast<std::uint8_t>(v >> 8));
  b.push_back(static_cast<std::uint8_t>(v));
}
void put32(bytes& b, std::uint32_t v) {
  put16(b, static_cast<std::uint16_t>(v >> 16));
  put16(b, static_cast<std::uint16_t>(v));
}
bytes header(std::uint16_t flags, std::uint16_t qd, std::uint16_t an, std::uint16_t ns = 0, std::uint16_t ar = 0) {
  bytes b;
  put16(b, 0);
  put16(b, flags);
  put16(b, qd);
  put16(b, an);
  put16(b, ns);
  put16(b, ar);
  return b;
}

// A DNS-SD announcement of an OPC UA server as Part 12 Annex C has it: PTR, SRV, TXT and A, the
// instance's and the host's names compressed against the PTR's.
bytes announcement() {
  bytes b = header(dns::flag_response | dns::flag_authoritative, 0, 4);
  // PTR _opcua-tcp._tcp.local -> plant1._opcua-tcp._tcp.local
  put_name(b, {"_opcua-tcp", "_tcp", "local"});  // at 12
  put16(b, 12);
  put16(b, 1);
  put32(b, 4500);
  put16(b, 9);
  b.push_back(6);  // at 12 + 23 + 10 = 45: "plant1" then a pointer to 12
  b.insert(b.end(), {'p', 'l', 'a', 'n', 't', '1'});
  put16(b, 0xC000 | 12);
  // SRV plant1... (pointer to 45), cache flush, port 4840, target box.local
  put16(b, 0xC000 | 45);
  put16(b, 33);
  put16(b, 0x8001);
  put32(b, 120);
  put16(b, 6 + 4 + 2);
  put16(b, 0);
  put16(b, 0);
  put16(b, 4840);
  b.push_back(3);
  b.insert(b.end(), {'b', 'o', 'x'});
  put16(b, 0xC000 | 12 + 16);  // "local" of the PTR's name: 12 + 1+10 + 1+4
  // TXT path=/UA caps=LDS,DA
  put16(b, 0xC000 | 45);
  put16(b, 16);
  put16(b, 0x8001);
  put32(b, 4500);
  put16(b, 1 + 8 + 1 + 11);
  b.push_back(8);
  b.insert(b.end(), {'p', 'a', 't', 'h', '=', '/', 'U', 'A'});
  b.push_back(11);
  b.insert(b.end(), {'c', 'a', 'p', 's', '=', 'L', 'D', 'S', ',', 'D', 'A'});
  // A box.local 10.0.0.7
  b.push_back(3);
  b.insert(b.end(), {'b', 'o', 'x'});
  put16(b, 0xC000 | 12 + 16);
  put16(b, 1);
  put16(b, 0x8001);
  put32(b, 120);
  put16(b, 4);
  b.insert(b.end(), {10, 0, 0, 7});
  return b;
}

}  // namespace

TEST_CASE("a DNS-SD announcement is read field by field", "[mdns][dns]") {
  const bytes b = announcement();
  dns::message m;
  dns::error e;
  REQUIRE(dns::read_message(b, {}, m, e));
  CHECK(m.is_response());
  CHECK(m.standard());
  REQUIRE(m.answers.size() == 4);
  CHECK(m.answers[0].name == "_opcua-tcp._tcp.local");
  CHECK(m.answers[0].type == 12);
  CHECK_FALSE(m.answers[0].cache_flush);
  CHECK(m.answers[0].ttl == 4500);
  CHECK(m.answers[0].ptr == "plant1._opcua-tcp._tcp.local");
  CHECK(m.answers[1].name == "plant1._opcua-tcp._tcp.local");
  CHECK(m.answers[1].cache_flush);
  CHECK(m.answers[1].klass == dns::class_in);
  CHECK(m.answers[1].srv.port == 4840);
  CHECK(m.answers[1].srv.target == "box.local");
  CHECK(m.answers[2].txt == std::vector<std::string>{"path=/UA", "caps=LDS,DA"});
  CHECK(m.answers[3].name == "box.local");
  CHECK(m.answers[3].a == std::array<std::uint8_t, 4>{10, 0, 0, 7});
}

TEST_CASE("records of other types are skipped by their RDLENGTH", "[mdns][dns]") {
  bytes b = header(dns::flag_response, 0, 2);
  put_name(b, {"box", "local"});
  put16(b, 13);  // HINFO
  put16(b, 1);
  put32(b, 120);
  put16(b, 5);
  b.insert(b.end(), {1, 'x', 2, 'y', 'z'});
  put_name(b, {"box", "local"});
  put16(b, 28);  // AAAA
  put16(b, 1);
  put32(b, 120);
  put16(b, 16);
  for (int i = 0; i < 16; ++i) b.push_back(static_cast<std::uint8_t>(i));
  dns::message m;
  dns::error e;
  REQUIRE(dns::read_message(b, {}, m, e));
  CHECK(m.skipped == 1);
  REQUIRE(m.answers.size() == 1);
  CHECK(m.answers[0].aaaa[15] == 15);
}

TEST_CASE("a query with QU and QM questions", "[mdns][dns]") {
  bytes b = header(0, 2, 0);
  put_name(b, {"_opcua-tcp", "_tcp", "local"});
  put16(b, 12);
  put16(b, 0x8001);  // QU
  put16(b, 0xC00C);
  put16(b, 255);
  put16(b, 1);
  dns::message m;
  dns::error e;
  REQUIRE(dns::read_message(b, {}, m, e));
  REQUIRE(m.questions.size() == 2);
  CHECK(m.questions[0].unicast_response);
  CHECK(m.questions[0].klass == 1);
  CHECK_FALSE(m.questions[1].unicast_response);
  CHECK(m.questions[1].name == "_opcua-tcp._tcp.local");
  CHECK(m.questions[1].type == 255);
}

TEST_CASE("what is written reads back, compressed or not", "[mdns][dns]") {
  dns::message m;
  m.flags = dns::flag_response | dns::flag_authoritative;
  dns::record ptr;
  ptr.name = "_opcua-tcp._tcp.local";
  ptr.type = 12;
  ptr.ttl = 4500;
  ptr.ptr = "my\\.plant._opcua-tcp._tcp.local";  // a dot inside the instance label
  dns::record srv;
  srv.name = ptr.ptr;
  srv.type = 33;
  srv.cache_flush = true;
  srv.ttl = 120;
  srv.srv.port = 4841;
  srv.srv.target = "Box.local";
  dns::record txt;
  txt.name = ptr.ptr;
  txt.type = 16;
  txt.txt = {"path=/", "caps=LDS"};
  m.answers = {ptr, srv, txt};
  std::vector<std::uint8_t> packed, plain;
  std::string why;
  REQUIRE(dns::write_message(m, packed, why));
  REQUIRE(dns::write_message(m, plain, why, false));
  CHECK(packed.size() < plain.size());
  for (const auto* b : {&packed, &plain}) {
    dns::message r;
    dns::error e;
    REQUIRE(dns::read_message(*b, {}, r, e));
    REQUIRE(r.answers.size() == 3);
    CHECK(r.answers[0].ptr == "my\\.plant._opcua-tcp._tcp.local");
    CHECK(dns::first_label(r.answers[0].ptr) == "my.plant");
    CHECK(dns::after_first_label(r.answers[0].ptr) == "_opcua-tcp._tcp.local");
    CHECK(r.answers[1].srv.target == "Box.local");
    CHECK(r.answers[1].cache_flush);
    CHECK(r.answers[2].txt == txt.txt);
  }
  CHECK(dns::same_name("BOX.local", "box.LOCAL"));
}

TEST_CASE("the writer refuses what it cannot say", "[mdns][dns]") {
  dns::message m;
  dns::record r;
  r.type = 12;
  r.name = std::string(64, 'a') + ".local";  // a label of 64
  m.answers = {r};
  std::vector<std::uint8_t> out;
  std::string why;
  CHECK_FALSE(dns::write_message(m, out, why));
  CHECK(why.find("not a valid DNS name") != std::string::npos);
  m.answers[0].name = "a..local";
  CHECK_FALSE(dns::write_message(m, out, why));
  m.answers[0].name = "x.local";
  m.answers[0].type = 16;
  m.answers[0].txt = {std::string(256, 't')};
  CHECK_FALSE(dns::write_message(m, out, why));
  m.answers[0].txt = {std::string(200, 't')};
  m.answers.resize(50, m.answers[0]);
  CHECK_FALSE(dns::write_message(m, out, why));  // 50 x 200 > 9000
  CHECK(why.find("larger than 9000") != std::string::npos);
}

TEST_CASE("hostile DNS messages are refused with the offset", "[mdns][dns]") {
  dns::message m;
  dns::error e;
  SECTION("a header cut off") {
    const bytes b = {0, 0, 0x84, 0};
    CHECK_FALSE(dns::read_message(b, {}, m, e));
    CHECK(e.offset == 4);
  }
  SECTION("more than 9000 octets") {
    bytes b = header(0, 0, 0);
    b.resize(9001);
    CHECK_FALSE(dns::read_message(b, {}, m, e));
    CHECK(e.what.find("larger than 9000") != std::string::npos);
  }
  SECTION("counts past the bounds") {
    CHECK_FALSE(dns::read_message(header(0, 65, 0), {}, m, e));
    CHECK(e.offset == 4);
    CHECK_FALSE(dns::read_message(header(0, 0, 200, 50, 7), {}, m, e));
    CHECK(e.offset == 6);
    // Counts within bounds but more than the bytes hold.
    CHECK_FALSE(dns::read_message(header(0, 3, 0), {}, m, e));
    CHECK(e.offset == 12);
  }
  SECTION("a pointer to itself, forwards, and a loop of two") {
    bytes b = header(0, 1, 0);
    put16(b, 0xC00C);  // at 12, to 12
    CHECK_FALSE(dns::read_message(b, {}, m, e));
    CHECK(e.offset == 12);
    CHECK(e.what.find("backwards") != std::string::npos);
    b = header(0, 1, 0);
    put16(b, 0xC000 | 20);
    CHECK_FALSE(dns::read_message(b, {}, m, e));
    // 12: label "a" then a pointer to 12 (the label's own start): backwards by the rule's letter,
    // and a loop were it allowed: each hop counts, and the name's length stops it.
    b = header(0, 1, 0);
    b.insert(b.end(), {1, 'a', 0xC0, 12});
    CHECK_FALSE(dns::read_message(b, {}, m, e));
  }
  SECTION("a chain of pointers past the hop bound") {
    // Question 1 is "a" at 12; question k's name points at question k-1's: k-1 hops.
    bytes b = header(0, 5, 0);
    b.insert(b.end(), {1, 'a', 0});
    put16(b, 1);
    put16(b, 1);
    std::size_t last = 12;
    for (int k = 2; k <= 5; ++k) {
      const std::size_t at = b.size();
      put16(b, static_cast<std::uint16_t>(0xC000 | last));
      put16(b, 1);
      put16(b, 1);
      last = at;
    }
    dns::limits tight;
    tight.max_pointer_hops = 4;
    REQUIRE(dns::read_message(b, tight, m, e));
    CHECK(m.questions[4].name == "a");
    tight.max_pointer_hops = 3;
    CHECK_FALSE(dns::read_message(b, tight, m, e));
    CHECK(e.what.find("too many compression pointers") != std::string::npos);
  }
  SECTION("label types 01 and 10") {
    bytes b = header(0, 1, 0);
    b.push_back(0x41);
    CHECK_FALSE(dns::read_message(b, {}, m, e));
    CHECK(e.offset == 12);
    CHECK(e.what.find("label type") != std::string::npos);
  }
  SECTION("a name longer than 255") {
    bytes b = header(0, 1, 0);
    for (int i = 0; i < 5; ++i) {
      b.push_back(60);
      b.insert(b.end(), 60, 'x');
    }
    b.push_back(0);
    put16(b, 1);
    put16(b, 1);
    CHECK_FALSE(dns::read_message(b, {}, m, e));
    CHECK(e.what.find("255") != std::string::npos);
  }
  SECTION("record data past the message and wrong RDLENGTHs") {
    bytes b = header(dns::flag_response, 0, 1);
    put_name(b, {"x", "local"});
    put16(b, 1);
    put16(b, 1);
    put32(b, 120);
    put16(b, 4);
    b.insert(b.end(), {1, 2});
    CHECK_FALSE(dns::read_message(b, {}, m, e));
    CHECK(e.what.find("runs past the end") != std::string::npos);
    b.resize(b.size() - 2 - 2);
    put16(b, 3);
    b.insert(b.end(), {1, 2, 3});
    CHECK_FALSE(dns::read_message(b, {}, m, e));
    CHECK(e.what.find("not 4 octets") != std::string::npos);
  }
  SECTION("a TXT string past its record, a PTR shorter than its RDLENGTH") {
    bytes b = header(dns::flag_response, 0, 1);
    put_name(b, {"x", "local"});
    put16(b, 16);
    put16(b, 1);
    put32(b, 120);
    put16(b, 3);
    b.insert(b.end(), {5, 'a', 'b'});
    b.insert(b.end(), {'c', 'd', 'e'});
    CHECK_FALSE(dns::read_message(b, {}, m, e));
    CHECK(e.what.find("TXT string") != std::string::npos);
    CHECK(e.offset == 12 + 9 + 10);
    b = header(dns::flag_response, 0, 1);
    put_name(b, {"x", "local"});
    put16(b, 12);
    put16(b, 1);
    put32(b, 120);
    put16(b, 5);
    put_name(b, {"y"});  // 3 octets of 5
    b.insert(b.end(), {0, 0});
    CHECK_FALSE(dns::read_message(b, {}, m, e));
    CHECK(e.what.find("RDLENGTH") != std::string::npos);
  }
  SECTION("too many TXT strings") {
    bytes b = header(dns::flag_response, 0, 1);
    put_name(b, {"x", "local"});
    put16(b, 16);
    put16(b, 1);
    put32(b, 120);
    put16(b, 65);
    b.insert(b.end(), 65, 0);
    CHECK_FALSE(dns::read_message(b, {}, m, e));
    CHECK(e.what.find("too many strings") != std::string::npos);
  }
}
