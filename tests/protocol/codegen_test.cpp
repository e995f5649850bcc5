// Tests of tools/codegen/generate.py and its output: the committed protocol/generated/ is what
// the schema gives, and the generated structures work with the codec and the type registry.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "protocol/codec.hpp"
#include "uactor/ua/attribute_ids.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "tests/support/regenerate.hpp"

namespace fs = std::filesystem;
using namespace uactor::ua;

namespace {

// A ReadRequest for the current time of the server (ns=0;i=2258), Value attribute: small
// enough to write down byte by byte from Part 6 §5.2 and Part 4 §5.10.2.
read_request current_time_read() {
  read_request req;
  req.request_header.request_handle = 7;
  req.timestamps_to_return = timestamps_to_return::both;
  read_value_id item;
  item.node_id = node_id(0, ids::server_server_status_current_time);
  item.attribute_id = static_cast<std::uint32_t>(attribute_id::value);
  req.nodes_to_read.push_back(item);
  return req;
}

const std::vector<std::uint8_t> current_time_read_bytes = {
    // RequestHeader
    0x00, 0x00,                                      // AuthenticationToken: null NodeId (two-byte)
    0, 0, 0, 0, 0, 0, 0, 0,                          // Timestamp
    0x07, 0x00, 0x00, 0x00,                          // RequestHandle
    0x00, 0x00, 0x00, 0x00,                          // ReturnDiagnostics
    0xFF, 0xFF, 0xFF, 0xFF,                          // AuditEntryId: null
    0x00, 0x00, 0x00, 0x00,                          // TimeoutHint
    0x00, 0x00, 0x00,                                // AdditionalHeader: no body
    // ReadRequest
    0, 0, 0, 0, 0, 0, 0, 0,                          // MaxAge 0.0
    0x02, 0x00, 0x00, 0x00,                          // TimestampsToReturn Both
    0x01, 0x00, 0x00, 0x00,                          // NodesToRead: 1
    0x01, 0x00, 0xD2, 0x08,                          //   NodeId: four-byte, ns=0;i=2258
    0x0D, 0x00, 0x00, 0x00,                          //   AttributeId: Value
    0xFF, 0xFF, 0xFF, 0xFF,                          //   IndexRange: null
    0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF,              //   DataEncoding: ns 0, null name
};

}  // namespace

TEST_CASE("codegen: committed output matches the schema", "[protocol][codegen]") {
  uactor::test::check_regenerated_output("generate.py", "protocol/generated", "include/uactor/ua");
}

TEST_CASE("codegen: a read_request encodes field by field as Part 6 says", "[protocol][codegen]") {
  const auto req = current_time_read();
  CHECK(encode_to_bytes(req) == current_time_read_bytes);

  read_request back;
  REQUIRE(decode_from_bytes(current_time_read_bytes, back) == status::good);
  CHECK(back == req);
}

TEST_CASE("codegen: a read_request round-trips through the codec", "[protocol][codegen]") {
  read_request req = current_time_read();
  req.request_header.authentication_token = node_id::string(0, "session-token");
  req.request_header.timestamp = date_time::from_unix_ms(1'700'000'000'000);
  req.request_header.timeout_hint = 10'000;
  req.request_header.audit_entry_id = "audit";
  req.max_age = 500.0;
  read_value_id item;
  item.node_id = node_id::string(1, "the.answer");
  item.attribute_id = static_cast<std::uint32_t>(attribute_id::display_name);
  item.index_range = "1:2";
  item.data_encoding = qualified_name{0, "Default Binary"};
  req.nodes_to_read.push_back(item);

  const auto bytes = encode_to_bytes(req);
  read_request back;
  REQUIRE(decode_from_bytes(bytes, back) == status::good);
  CHECK(back == req);

  // Decoding into a used value gives the same result.
  REQUIRE(decode_from_bytes(bytes, back) == status::good);
  CHECK(back == req);
}

TEST_CASE("codegen: a read_request cut at any byte is Bad_DecodingError", "[protocol][codegen]") {
  const auto& bytes = current_time_read_bytes;
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    INFO("cut at " << cut);
    read_request back;
    CHECK(decode_from_bytes(std::span(bytes.data(), cut), back) == status::bad_decoding_error);
  }
}

TEST_CASE("codegen: the registry finds ReadRequest by encoding id and by name", "[protocol][codegen]") {
  const extension_type* t = find_extension_type_by_encoding(631);
  REQUIRE(t != nullptr);
  CHECK(t == &read_request::extension_type_info);
  CHECK(std::string_view(t->name) == "ReadRequest");
  CHECK(t->data_type_id == ids::read_request);
  CHECK(t->binary_encoding_id == ids::read_request_encoding_default_binary);
  CHECK(find_extension_type_by_name("ReadRequest") == t);

  CHECK(find_extension_type_by_encoding(ids::read_request) == nullptr);  // a DataType id is not an encoding id
  CHECK(find_extension_type_by_encoding(0) == nullptr);
  CHECK(find_extension_type_by_name("NoSuchType") == nullptr);
  CHECK(find_extension_type_by_name("") == nullptr);

  const auto body = t->make();
  REQUIRE(body != nullptr);
  CHECK(&body->type() == t);
}

TEST_CASE("codegen: a read_request in an ExtensionObject decodes through the registry", "[protocol][codegen]") {
  const read_request req = current_time_read();
  const extension_object eo(req);
  CHECK(eo.type_id() == node_id(0, read_request::binary_encoding_id));

  extension_object back;
  REQUIRE(decode_from_bytes(encode_to_bytes(eo), back) == status::good);
  const read_request* p = back.get_if<read_request>();
  REQUIRE(p != nullptr);
  CHECK(*p == req);
  CHECK(back == eo);
}

TEST_CASE("codegen: every registered type round-trips its default value", "[protocol][codegen]") {
  std::size_t found = 0;
  for (std::uint32_t id = 0; id < (1u << 17); ++id) {
    const extension_type* t = find_extension_type_by_encoding(id);
    if (t == nullptr) continue;
    ++found;
    INFO(t->name);
    CHECK(t->binary_encoding_id == id);
    CHECK(find_extension_type_by_name(t->name) == t);

    const auto a = t->make();
    byte_buffer bytes;
    encoder e(bytes);
    a->encode(e);

    const auto b = t->make();
    decoder d(bytes.bytes());
    b->decode(d);
    CHECK(d.ok());
    CHECK(d.remaining() == 0);
    CHECK(b->equals(*a));
    CHECK(a->clone()->equals(*a));
  }
  CHECK(found >= 300);  // 322 structures with a binary encoding in the 1.05.07 schema
}

TEST_CASE("codegen: status codes print as StatusCode.csv spells them", "[protocol][codegen]") {
  CHECK(status::bad_node_id_unknown.value() == 0x80340000u);
  CHECK(status::bad_node_id_unknown.name() == "BadNodeIdUnknown");
  CHECK(status::bad_node_id_unknown.to_string() == "BadNodeIdUnknown (0x80340000)");
  CHECK(status::good.to_string() == "Good (0x00000000)");
  CHECK(status::bad_tcp_message_too_large.name() == "BadTcpMessageTooLarge");
  CHECK(status::good_subscription_transferred.name() == "GoodSubscriptionTransferred");
  // Info bits (the low 16) do not change the name, and are printed.
  CHECK(status_code{0x80340400u}.name() == "BadNodeIdUnknown");
  CHECK(status_code{0x80340400u}.to_string() == "BadNodeIdUnknown (0x80340400)");
  // A code StatusCode.csv does not know prints as its value alone.
  CHECK(status_code{0x80FF0000u}.name().empty());
  CHECK(status_code{0x80FF0000u}.to_string() == "0x80FF0000");
  CHECK(status_code{0x80FF0001u}.to_string() == "0x80FF0001");
  CHECK(status_code{0x80AB0000u}.to_string() == "BadInvalidArgument (0x80AB0000)");
  CHECK(status_code_name(0xFFFF0000u).empty());
}
