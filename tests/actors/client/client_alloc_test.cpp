// The client's steady state allocates nothing (docs/decisions/0023): prepared Read,
// Write, Browse and Call requests against `uactor run` (a child process, so that only this
// process, the client, is counted), with callbacks and blocking. Counted process-wide by
// tests/support/alloc_counter (every thread: the client's actor runs on CAF's), not timed.
// Needs the uactor program (UACTOR_BIN): run by ctest's client.allocations_against_uactor_run.
// Also: Browse/BrowseNext of a folder of 10,000 variables through the client, every reference once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "tests/support/alloc_counter.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/fault_proxy.hpp"
#include "tests/support/temp_folder.hpp"
#include "uactor/client.hpp"

using namespace uactor;
using test::uactor_bin;
using test::server_process;

namespace {


client_options options_for(const server_process& server) {
  client_options o;
  o.endpoint_url = server.url();
  // Longer than the test: the request timer (armed for the earliest deadline) does not fire
  // inside a counted window.
  o.request_timeout = std::chrono::seconds(120);
  o.connect_timeout = std::chrono::seconds(120);
  return o;
}

ua::read_request read_one() {
  ua::read_request r;
  r.nodes_to_read.resize(1);
  r.nodes_to_read[0].node_id = ua::node_id::string(1, "Demo.Static.Scalar.Double");
  r.nodes_to_read[0].attribute_id = 13;
  return r;
}

ua::write_request write_one() {
  ua::write_request r;
  r.nodes_to_write.resize(1);
  r.nodes_to_write[0].node_id = ua::node_id::string(1, "Demo.Static.Scalar.Double");
  r.nodes_to_write[0].attribute_id = 13;
  r.nodes_to_write[0].value.set_value(ua::variant(2.5));
  return r;
}

ua::browse_request browse_server_object() {
  ua::browse_request r;
  r.nodes_to_browse.resize(1);
  auto& d = r.nodes_to_browse[0];
  d.node_id = ua::node_id(0, 2253);
  d.browse_direction = ua::browse_direction::forward;
  d.reference_type_id = ua::node_id(0, 33);  // HierarchicalReferences
  d.include_subtypes = true;
  d.result_mask = 63;
  return r;
}

ua::call_request call_add() {
  ua::call_request r;
  r.methods_to_call.resize(1);
  auto& m = r.methods_to_call[0];
  m.object_id = ua::node_id::string(1, "Demo.Methods");
  m.method_id = ua::node_id::string(1, "Demo.Methods.Add");
  m.input_arguments.push_back(ua::variant(1.5));
  m.input_arguments.push_back(ua::variant(2.0));
  return r;
}

// `n` sends of one prepared request, each made by the callback of the one before (on the client's
// thread), waited for with storage made beforehand. Returns the sends that failed.
struct chain {
  std::mutex m;
  std::condition_variable cv;
  int left = 0;
  int failures = 0;
  bool done = false;

  template <class Prepared>
  int run(Prepared& p, int n) {
    {
      std::lock_guard lock(m);
      left = n;
      failures = 0;
      done = false;
    }
    REQUIRE(p.send() == ua::status::good);
    std::unique_lock lock(m);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return done; }));
    return failures;
  }

  // The callback of prepare(): counts (no REQUIRE off the test's thread), then sends again from
  // the client's thread.
  template <class Prepared>
  void on_answer(Prepared& p, bool ok) {
    std::unique_lock lock(m);
    if (!ok) ++failures;
    if (--left > 0) {
      lock.unlock();
      if (p.send().is_bad()) {
        lock.lock();
        ++failures;
        done = true;
        cv.notify_one();
      }
      return;
    }
    done = true;
    cv.notify_one();
  }
};

// Allocations of the whole process while `f` runs.
template <class F>
std::uint64_t allocations_during(F&& f) {
  const auto before = test::process_alloc_counts();
  f();
  return test::process_alloc_counts().allocations - before.allocations;
}

template <class Request, class Check>
void steady_state(client& c, Request request, const char* what, Check check) {
  using prepared_t = decltype(c.prepare(std::move(request)));
  chain ch;
  prepared_t p;
  p = c.prepare(std::move(request), [&](auto answer) { ch.on_answer(p, answer && check(**answer)); });
  INFO(what);
  REQUIRE(ch.run(p, 200) == 0);  // warm-up: every reused buffer sized
  const auto with_callbacks = allocations_during([&] { REQUIRE(ch.run(p, 1'000) == 0); });
  CHECK(with_callbacks == 0);
  for (int i = 0; i < 50; ++i) REQUIRE(p.send_sync());
  const auto blocking = allocations_during([&] {
    for (int i = 0; i < 500; ++i) {
      auto r = p.send_sync();
      REQUIRE(r);
      REQUIRE(check(**r));
    }
  });
  CHECK(blocking == 0);
}

}  // namespace

TEST_CASE("client: prepared Read, Write, Browse and Call allocate nothing per request in steady state, "
          "with callbacks and blocking",
          "[.client-alloc]") {
  if (!test::counts_allocations) return;  // sanitizer build: operator new is the sanitizer's
  server_process server(uactor_bin(), {"run", "--host", "127.0.0.1", "--port", "{port}"});
  REQUIRE(server.start());
  auto c = client::connect(options_for(server));
  REQUIRE(c);
  steady_state(*c, read_one(), "Read", [](const ua::read_response& r) {
    return r.results.size() == 1 && r.results[0].value.get_if<double>() != nullptr;
  });
  steady_state(*c, write_one(), "Write", [](const ua::write_response& r) {
    return r.results.size() == 1 && r.results[0].is_good();
  });
  steady_state(*c, browse_server_object(), "Browse", [](const ua::browse_response& r) {
    return r.results.size() == 1 && r.results[0].references.size() >= 10;
  });
  steady_state(*c, call_add(), "Call", [](const ua::call_response& r) {
    if (r.results.size() != 1 || r.results[0].status_code.is_bad() || r.results[0].output_arguments.size() != 1)
      return false;
    const auto* sum = r.results[0].output_arguments[0].get_if<double>();
    return sum && *sum == 3.5;
  });
  c->close();
}

// opc.wss through the client's native transport (docs/decisions/0077): TLS records, masked frames
// and the 101 all in reused buffers, so that a Read costs the client no allocation either.
TEST_CASE("client: prepared Read and Browse over opc.wss, the native transport, allocate nothing per request",
          "[.client-alloc]") {
  if (!test::counts_allocations) return;  // sanitizer build: operator new is the sanitizer's
  test::temp_folder dir("client-alloc-wss");
  const auto wss_port = test::free_port();
  server_process server(uactor_bin(), {"run", "--host", "127.0.0.1", "--port", "{port}", "--wss-port",
                                       std::to_string(wss_port), "--pki", (dir.path / "server-pki").string()});
  server.wait_for_output("listening on opc.wss://");
  REQUIRE(server.start());
  auto o = options_for(server);
  o.endpoint_url = "opc.wss://127.0.0.1:" + std::to_string(wss_port) + "/";
  o.wss_accept_any_certificate = true;
  o.wss_transport = "native";
  o.security.pki_dir = (dir.path / "client-pki").string();
  auto c = client::connect(o);
  REQUIRE(c);
  steady_state(*c, read_one(), "Read over opc.wss", [](const ua::read_response& r) {
    return r.results.size() == 1 && r.results[0].value.get_if<double>() != nullptr;
  });
  steady_state(*c, browse_server_object(), "Browse over opc.wss", [](const ua::browse_response& r) {
    return r.results.size() == 1 && r.results[0].references.size() >= 10;
  });
  c->close();
}

TEST_CASE("client: a prepared request refuses a second send while one is unanswered, takes a changed request, "
          "works in a second session, and answers Bad_ConnectionClosed after close()",
          "[.client-alloc]") {
  server_process server(uactor_bin(), {"run", "--host", "127.0.0.1", "--port", "{port}"});
  REQUIRE(server.start());
  auto c = client::connect(options_for(server));
  REQUIRE(c);
  std::mutex m;
  std::condition_variable cv;
  int answers = 0;
  int failed = 0;
  auto p = c->prepare(read_one(), [&](ua::expected<const ua::read_response*> r) {
    std::lock_guard lock(m);
    ++answers;
    if (!r) ++failed;
    cv.notify_one();
  });
  REQUIRE(p.send() == ua::status::good);
  // The answer cannot have come yet when the second send follows at once: it is refused, and
  // the first is still answered exactly once. (If the server were faster than this thread, the
  // second send would be taken: both outcomes are counted.)
  const auto second = p.send();
  const int expected = second.is_good() ? 2 : 1;
  if (second.is_bad()) REQUIRE(second == ua::status::bad_invalid_state);
  {
    std::unique_lock lock(m);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return answers == expected; }));
    REQUIRE(failed == 0);
  }
  REQUIRE(p.response());
  REQUIRE(p.request().nodes_to_read.size() == 1);
  // The request may change between sends: two values now.
  p.request().nodes_to_read.push_back(p.request().nodes_to_read[0]);
  auto r = p.send_sync();
  REQUIRE(r);
  REQUIRE((*r)->results.size() == 2);
  // A prepared request of a second session over the same channel.
  auto session = c->open_session_sync("second");
  REQUIRE(session);
  auto in_session = session->prepare(read_one());
  for (int i = 0; i < 3; ++i) {
    auto a = in_session.send_sync();
    REQUIRE(a);
    REQUIRE((*a)->results.size() == 1);
  }
  c->close();
  REQUIRE(in_session.send_sync().error() == ua::status::bad_connection_closed);
  auto after = p.send_sync();
  REQUIRE_FALSE(after);
  REQUIRE(after.error() == ua::status::bad_connection_closed);
}

TEST_CASE("client: Browse and BrowseNext of a folder of 10,000 variables return every reference exactly once",
          "[.client-alloc]") {
  server_process server(uactor_bin(),
                        {"run", "--host", "127.0.0.1", "--port", "{port}", "--load-variables", "10000"});
  server.wait_for_output("listening on");  // the load variables are in the address space by then
  REQUIRE(server.start());
  auto c = client::connect(options_for(server));
  REQUIRE(c);
  ua::browse_request req = browse_server_object();
  req.nodes_to_browse[0].node_id = ua::node_id::string(1, "Load");
  req.requested_max_references_per_node = 1'000;
  auto browse = c->prepare(std::move(req));
  ua::browse_next_request next_req;
  next_req.continuation_points.resize(1);
  auto next = c->prepare(std::move(next_req));
  std::vector<int> seen(10'000, 0);
  auto count = [&](const ua::browse_result& r) {
    INFO(r.status_code.to_string());
    REQUIRE(r.status_code.is_good());
    for (const auto& d : r.references) {
      const auto name = d.node_id.id.text();
      REQUIRE(name.substr(0, 6) == "Load.V");
      const auto i = std::stoul(std::string(name.substr(6)));
      REQUIRE(i < seen.size());
      ++seen[i];
    }
  };
  for (int round = 0; round < 2; ++round) {  // twice: the second walk reuses every buffer
    std::fill(seen.begin(), seen.end(), 0);
    auto first = browse.send_sync();
    REQUIRE(first);
    REQUIRE((*first)->results.size() == 1);
    count((*first)->results[0]);
    ua::byte_string point = (*first)->results[0].continuation_point;
    int pages = 1;
    while (!point.is_null()) {
      REQUIRE(pages < 20);
      next.request().continuation_points[0] = point;
      auto r = next.send_sync();
      REQUIRE(r);
      REQUIRE((*r)->results.size() == 1);
      count((*r)->results[0]);
      point = (*r)->results[0].continuation_point;
      ++pages;
    }
    REQUIRE(pages == 10);
    REQUIRE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  }
  c->close();
}
