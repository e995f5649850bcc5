#include "tests/support/server_fixture.hpp"

#include <sys/random.h>

#include <cerrno>
#include <stdexcept>
#include <thread>

#include <caf/all.hpp>
#include <catch2/catch.hpp>
#include <caf/io/all.hpp>

#include "actors/common/tune_io.hpp"
#include "engine/common/clock.hpp"
#include "runtime/namespaces/demo_namespace.hpp"
#include "engine/server/server_object.hpp"
#include "protocol/address_space.hpp"

namespace uactor::test {

namespace {

void fill_random(std::span<std::uint8_t> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const auto n = ::getrandom(out.data() + done, out.size() - done, 0);
    if (n > 0) done += static_cast<std::size_t>(n);
    else if (errno != EINTR) throw std::runtime_error("getrandom failed");
  }
}

}  // namespace

actors::server_core make_demo_core(std::uint16_t port) {
  const actors::instant now = actors::now_instant();
  actors::server_core_config c;
  c.description.application_uri = "urn:localhost:uactor:server";
  c.description.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(port);
  c.sessions.random = fill_random;
  return actors::make_demo_server_core(std::move(c), "test", now.utc);
}

actors::server_options small_server_options() {
  actors::server_options o;
  o.listen_address = "127.0.0.1";
  o.port = 0;
  o.max_connections = 4;
  o.connection.channel.hello_timeout = std::chrono::milliseconds(500);
  o.connection.housekeeping_interval = std::chrono::milliseconds(50);
  return o;
}

caf::actor_system_config& server_fixture::configure(caf::actor_system_config& cfg) {
  cfg.load<caf::io::middleman>();
  cfg.set("scheduler.max-threads", 2);
  actors::tune_io(cfg);  // as runtime/server.cpp configures the server
  return cfg;
}

server_fixture::server_fixture(actors::server_options options)
    : options_(std::move(options)), system_(configure(config_)) {
  auto h = actors::spawn_server(system_, options_, make_demo_core);
  if (!h) throw std::runtime_error("server_fixture: spawn_server failed: " + std::string(h.error().name()));
  handle_ = *h;
}

server_fixture::~server_fixture() {
  stop();
  // Our handles go now; the system's own references go with the system (destroyed before
  // released_, which checks what is left).
  for (const auto& l : handle_.listeners) released_.ended.push_back(caf::actor_cast<caf::weak_actor_ptr>(l));
  released_.ended.push_back(caf::actor_cast<caf::weak_actor_ptr>(handle_.host));
  handle_.listener = nullptr;
  handle_.listeners.clear();
  handle_.host = nullptr;
}

server_fixture::released_check::~released_check() {
  for (std::size_t i = 0; i < ended.size(); ++i) {
    INFO((i + 1 == ended.size() ? "the session host" : "listener " + std::to_string(i)) << " is still alive");
    CHECK_FALSE(ended[i].lock());
  }
}

void server_fixture::stop() {
  if (stopped_) return;
  stopped_ = true;
  actors::stop_server(handle_);
  system_.await_all_actors_done();
}

std::size_t server_fixture::running_actors() const {
  return const_cast<caf::actor_system&>(system_).registry().running();  // registry() is not const in 0.17
}

std::size_t server_fixture::wait_running_at_most(std::size_t n, std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto now_running = running_actors();
    if (now_running <= n || std::chrono::steady_clock::now() >= deadline) return now_running;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // polling with a deadline
  }
}

}  // namespace uactor::test
