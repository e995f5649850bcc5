// FileType objects (Part 20 §4.2) through the Call service: modes, handles per session, limits,
// and the handles a session leaves behind when it ends.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "engine/server/files/file_objects.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::test {
namespace {

using actors::open_mode::append;
using actors::open_mode::erase_existing;
using actors::open_mode::read;
using actors::open_mode::write;

// The bytes of a file kept in memory; counts what Close stored.
struct memory_file final : actors::file_content {
  std::string bytes;
  int stores = 0;
  ua::status_code load(std::string& out) override {
    out = bytes;
    return ua::status::good;
  }
  ua::status_code store(std::string_view b) override {
    bytes.assign(b);
    ++stores;
    return ua::status::good;
  }
};

const ua::node_id recipe{1, 7001};

struct file_fixture {
  actors::server_core core = make_core();
  std::shared_ptr<memory_file> content = std::make_shared<memory_file>();

  explicit file_fixture(bool writable = true, actors::file_limits limits = {}) {
    core.files() = actors::file_objects(limits);
    content->bytes = "0123456789";
    actors::file_options o;
    o.writable = writable;
    REQUIRE(core.add_file(recipe, "Recipe", ua::node_id(0, ua::ids::objects_folder), content, o) == ua::status::good);
  }

  // The one result of calling FileType's `method` on the file.
  static ua::call_method_result call(core_session& s, std::uint32_t method, std::vector<ua::variant> in) {
    ua::call_request req;
    ua::call_method_request m;
    m.object_id = recipe;
    m.method_id = ua::node_id(0, method);
    m.input_arguments = {in.begin(), in.end()};
    req.methods_to_call.push_back(std::move(m));
    auto& resp = s.call_as<ua::call_response>(req);
    REQUIRE(resp.results.size() == 1);
    return resp.results[0];
  }
  static std::uint32_t open(core_session& s, std::uint8_t mode) {
    const auto r = call(s, ua::ids::file_type_open, {ua::variant(mode)});
    REQUIRE(r.status_code == ua::status::good);
    return *r.output_arguments.at(0).get_if<std::uint32_t>();
  }
  static ua::status_code open_status(core_session& s, std::uint8_t mode) {
    return call(s, ua::ids::file_type_open, {ua::variant(mode)}).status_code;
  }
  static ua::call_method_result read_bytes(core_session& s, std::uint32_t h, std::int32_t n) {
    return call(s, ua::ids::file_type_read, {ua::variant(h), ua::variant(n)});
  }
  static ua::status_code write_bytes(core_session& s, std::uint32_t h, std::string_view b) {
    ua::byte_string data;
    data.assign(b);
    return call(s, ua::ids::file_type_write, {ua::variant(h), ua::variant(std::move(data))}).status_code;
  }
  static ua::status_code close(core_session& s, std::uint32_t h) {
    return call(s, ua::ids::file_type_close, {ua::variant(h)}).status_code;
  }
  // The value of the file's property `name`.
  ua::variant property(std::string_view name) {
    const ua::node_index file = core.space().find(recipe);
    for (const auto& r : core.space().forward_references(file))
      if (core.space().at(r.target).browse_name == name) return core.space().variable(r.target)->value.value;
    FAIL("no property " << name);
    return {};
  }
};

std::string text_of(const ua::call_method_result& r) {
  return std::string(r.output_arguments.at(0).get_if<ua::byte_string>()->view());
}

}  // namespace

TEST_CASE("file objects: a file reads in pieces, with its position, size and open count", "[engine][files]") {
  file_fixture f;
  core_session s(f.core, 1);
  CHECK(*f.property("Size").get_if<std::uint64_t>() == 10);
  CHECK(*f.property("Writable").get_if<bool>());
  const auto h = file_fixture::open(s, read);
  CHECK(*f.property("OpenCount").get_if<std::uint16_t>() == 1);
  CHECK(text_of(file_fixture::read_bytes(s, h, 4)) == "0123");
  auto pos = file_fixture::call(s, ua::ids::file_type_get_position, {ua::variant(h)});
  REQUIRE(pos.status_code == ua::status::good);
  CHECK(*pos.output_arguments.at(0).get_if<std::uint64_t>() == 4);
  CHECK(file_fixture::call(s, ua::ids::file_type_set_position, {ua::variant(h), ua::variant(std::uint64_t{8})})
            .status_code == ua::status::good);
  CHECK(text_of(file_fixture::read_bytes(s, h, 100)) == "89");
  // Part 20 §4.2.4: an empty ByteString says the end is reached.
  CHECK(text_of(file_fixture::read_bytes(s, h, 100)).empty());
  // Past the end: the position goes to the end.
  CHECK(file_fixture::call(s, ua::ids::file_type_set_position, {ua::variant(h), ua::variant(std::uint64_t{99})})
            .status_code == ua::status::good);
  pos = file_fixture::call(s, ua::ids::file_type_get_position, {ua::variant(h)});
  CHECK(*pos.output_arguments.at(0).get_if<std::uint64_t>() == 10);
  CHECK(file_fixture::close(s, h) == ua::status::good);
  CHECK(*f.property("OpenCount").get_if<std::uint16_t>() == 0);
  // A closed handle is no handle.
  CHECK(file_fixture::read_bytes(s, h, 1).status_code == ua::status::bad_invalid_argument);
  CHECK(file_fixture::close(s, h) == ua::status::bad_invalid_argument);
}

TEST_CASE("file objects: writes are stored at Close, erase and append as the mode says", "[engine][files]") {
  file_fixture f;
  core_session s(f.core, 1);
  auto h = file_fixture::open(s, write | erase_existing);
  CHECK(*f.property("Size").get_if<std::uint64_t>() == 10);  // the file as others see it: unchanged until Close
  CHECK(file_fixture::write_bytes(s, h, "abc") == ua::status::good);
  CHECK(f.content->stores == 0);
  CHECK(file_fixture::close(s, h) == ua::status::good);
  CHECK(f.content->bytes == "abc");
  CHECK(*f.property("Size").get_if<std::uint64_t>() == 3);

  h = file_fixture::open(s, write | append);
  CHECK(file_fixture::write_bytes(s, h, "def") == ua::status::good);
  CHECK(file_fixture::close(s, h) == ua::status::good);
  CHECK(f.content->bytes == "abcdef");

  // Without EraseExisting or Append: over the old bytes from the start.
  h = file_fixture::open(s, read | write);
  CHECK(file_fixture::write_bytes(s, h, "XY") == ua::status::good);
  CHECK(file_fixture::call(s, ua::ids::file_type_set_position, {ua::variant(h), ua::variant(std::uint64_t{0})})
            .status_code == ua::status::good);
  CHECK(text_of(file_fixture::read_bytes(s, h, 100)) == "XYcdef");
  CHECK(file_fixture::close(s, h) == ua::status::good);
  CHECK(f.content->bytes == "XYcdef");
}

TEST_CASE("file objects: the modes refuse what they do not allow", "[engine][files]") {
  file_fixture f;
  core_session s(f.core, 1);
  core_session other(f.core, 2);
  // Reserved bits, no Read or Write, EraseExisting or Append without Write.
  CHECK(file_fixture::open_status(s, 0x10 | read) == ua::status::bad_invalid_argument);
  CHECK(file_fixture::open_status(s, 0) == ua::status::bad_invalid_argument);
  CHECK(file_fixture::open_status(s, read | erase_existing) == ua::status::bad_invalid_argument);
  CHECK(file_fixture::open_status(s, read | append) == ua::status::bad_invalid_argument);

  const auto reader = file_fixture::open(s, read);
  CHECK(file_fixture::write_bytes(s, reader, "x") == ua::status::bad_not_writable);
  CHECK(file_fixture::read_bytes(s, reader, 0).status_code == ua::status::bad_invalid_argument);
  CHECK(file_fixture::read_bytes(s, reader, -5).status_code == ua::status::bad_invalid_argument);
  // Part 20 §4.2.3: no writer while the file is open; several readers.
  CHECK(file_fixture::open_status(other, write) == ua::status::bad_not_writable);
  const auto second_reader = file_fixture::open(other, read);
  // A handle belongs to its session.
  CHECK(file_fixture::read_bytes(other, reader, 1).status_code == ua::status::bad_invalid_argument);
  CHECK(file_fixture::close(other, reader) == ua::status::bad_invalid_argument);
  CHECK(file_fixture::close(s, reader) == ua::status::good);
  CHECK(file_fixture::close(other, second_reader) == ua::status::good);

  const auto writer = file_fixture::open(s, write);
  CHECK(file_fixture::read_bytes(s, writer, 1).status_code == ua::status::bad_invalid_state);
  CHECK(file_fixture::open_status(other, read) == ua::status::bad_not_readable);
  CHECK(file_fixture::close(s, writer) == ua::status::good);
}

TEST_CASE("file objects: a file that is not writable opens for reading only", "[engine][files]") {
  file_fixture f(false);
  core_session s(f.core, 1);
  CHECK_FALSE(*f.property("Writable").get_if<bool>());
  CHECK(file_fixture::open_status(s, write) == ua::status::bad_not_writable);
  CHECK(file_fixture::close(s, file_fixture::open(s, read)) == ua::status::good);
}

TEST_CASE("file objects: limits on handles, size and read length", "[engine][files]") {
  actors::file_limits limits;
  limits.max_handles_per_session = 2;
  limits.max_handles = 3;
  limits.max_file_size = 12;
  limits.max_read_length = 4;
  file_fixture f(true, limits);
  core_session s(f.core, 1);
  core_session t(f.core, 2);
  CHECK(*f.property("MaxByteStringLength").get_if<std::uint32_t>() == 4);
  const auto a = file_fixture::open(s, read);
  file_fixture::open(s, read);
  CHECK(file_fixture::open_status(s, read) == ua::status::bad_resource_unavailable);  // per session
  file_fixture::open(t, read);
  core_session u(f.core, 3);
  CHECK(file_fixture::open_status(u, read) == ua::status::bad_resource_unavailable);  // the server's
  // The server returns at most MaxByteStringLength per Read.
  CHECK(text_of(file_fixture::read_bytes(s, a, 100)) == "0123");
}

TEST_CASE("file objects: a write past the size limit is refused and the file stays", "[engine][files]") {
  actors::file_limits limits;
  limits.max_file_size = 12;
  file_fixture f(true, limits);
  core_session s(f.core, 1);
  const auto h = file_fixture::open(s, write | append);
  CHECK(file_fixture::write_bytes(s, h, "ab") == ua::status::good);
  CHECK(file_fixture::write_bytes(s, h, "c") == ua::status::bad_out_of_range);
  CHECK(file_fixture::close(s, h) == ua::status::good);
  CHECK(f.content->bytes == "0123456789ab");
}

TEST_CASE("file objects: the handles of a session that ends are freed and its writes dropped", "[engine][files]") {
  file_fixture f;
  auto s = std::make_unique<core_session>(f.core, 1);
  const auto h = file_fixture::open(*s, write | erase_existing);
  CHECK(file_fixture::write_bytes(*s, h, "lost") == ua::status::good);
  CHECK(*f.property("OpenCount").get_if<std::uint16_t>() == 1);
  ua::close_session_request close;
  close.delete_subscriptions = true;
  s->call(close);
  CHECK(f.core.files().handles() == 0);
  CHECK(*f.property("OpenCount").get_if<std::uint16_t>() == 0);
  CHECK(f.content->bytes == "0123456789");
  CHECK(f.content->stores == 0);
  // Another session may write now.
  core_session t(f.core, 2);
  CHECK(file_fixture::close(t, file_fixture::open(t, write)) == ua::status::good);
}

TEST_CASE("file objects: the file Object browses to FileType's methods by name", "[engine][files]") {
  file_fixture f;
  const auto& as = f.core.space();
  const ua::node_index file = as.find(recipe);
  int methods = 0;
  for (const auto& r : as.forward_references(file))
    if (as.at(r.target).cls == ua::node_class::method) ++methods;
  CHECK(methods == 6);
  // A second attach of the same Object is refused.
  CHECK(f.core.files().attach(file, f.content, {}, f.core.space()) == ua::status::bad_node_id_exists);
}

}  // namespace uactor::test
