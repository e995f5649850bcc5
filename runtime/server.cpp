#include "runtime/server.hpp"

#include <sys/random.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/common/clock.hpp"
#include "actors/server/demo_namespace.hpp"
#include "actors/server/load_namespace.hpp"
#include "actors/server/server_actors.hpp"
#include "actors/server/server_core.hpp"
#include "actors/server/server_security.hpp"
#include "actors/server/services/discovery.hpp"
#include "security/certificate.hpp"
#include "security/password_hash.hpp"
#include "security/pki_store.hpp"

namespace uactor::app {

namespace {

// Nonces and authentication tokens: the kernel's CSPRNG.
void fill_random(std::span<std::uint8_t> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const auto n = ::getrandom(out.data() + done, out.size() - done, 0);
    if (n > 0) done += static_cast<std::size_t>(n);
    else if (errno != EINTR) throw std::runtime_error("getrandom failed");
  }
}

caf::actor_system_config& configure(caf::actor_system_config& cfg) {
  cfg.load<caf::io::middleman>();
  // ../shared/notes/caf-0.17-on-this-machine.md: 2 scheduler threads were best on 2 cores.
  cfg.set("scheduler.max-threads", 2);
  actors::tune_io(cfg);  // docs/decisions/0013
  return cfg;
}

// The offers, the certificate (created in the PKI folder on first start), the trust checks and
// the users of the plan. Throws std::runtime_error on a bad configuration.
std::shared_ptr<actors::server_security> make_security(const server_plan& plan) {
  auto sec = std::make_shared<actors::server_security>();
  auto offers = actors::parse_security_offers(plan.security);
  if (!offers) throw std::runtime_error("--security: expected all, none, secure or POLICY:MODE items");
  sec->offers = std::move(*offers);
  sec->identities.anonymous = plan.anonymous;
  auto users = std::make_shared<security::user_store>();
  if (!plan.users_file.empty()) {
    auto loaded = security::user_store::load(plan.users_file);
    if (!loaded) throw std::runtime_error("cannot read the users file " + plan.users_file);
    *users = std::move(*loaded);
  }
  for (const auto& u : plan.users) {
    const auto colon = u.find(':');
    if (colon == std::string::npos || colon == 0) throw std::runtime_error("--user: expected USER:PASSWORD");
    users->add(u.substr(0, colon), u.substr(colon + 1));
  }
  if (users->size() > 0) sec->identities.users = std::move(users);
  else sec->identities.user_name = false;

  const bool secured = std::ranges::any_of(sec->offers, [](const auto& o) { return !o.policy->is_none(); });
  if (!secured) return sec;
  auto store = std::make_shared<security::pki_store>(plan.pki_dir.empty() ? default_pki_dir() : plan.pki_dir);
  security::certificate_request request;
  request.application_uri = plan.application_uri;
  request.host_names = {plan.host_name};
  if (plan.host_name != "localhost") request.host_names.push_back("localhost");
  auto own = store->load_or_create_own(request);
  if (!own) throw std::runtime_error("cannot load or create the server certificate in " + store->root().string() + ": " +
                                     own.error().to_string());
  if (own->cert.application_uri() != plan.application_uri)
    spdlog::warn("the server certificate in {} is made for {}, the server's ApplicationUri is {}: clients will refuse it; "
                 "remove own/ to make a new one", store->root().string(), own->cert.application_uri(), plan.application_uri);
  for (const auto& file : plan.trust) {
    auto cert = security::certificate::from_file(file);
    if (!cert) throw std::runtime_error("--trust: cannot read a certificate from " + file);
    store->trust(*cert);
  }
  sec->certificate = own->cert;
  sec->private_key = own->private_key;
  sec->checker = std::make_shared<actors::pki_checker>(std::move(store));
  return sec;
}

actors::server_core make_core(const server_plan& plan, std::uint16_t port,
                              const std::shared_ptr<actors::server_security>& security) {
  const actors::instant now = actors::now_instant();
  actors::server_core_config c;
  c.description.application_uri = plan.application_uri;
  c.description.endpoint_url = "opc.tcp://" + plan.host_name + ":" + std::to_string(port);
  c.limits.max_nodes_per_read = c.limits.max_nodes_per_write = c.limits.max_nodes_per_browse =
      c.limits.max_nodes_per_translate_browse_paths = plan.max_nodes_per_operation;
  c.sessions.max_sessions = plan.max_sessions;
  c.sessions.max_request_message_size = plan.max_message_size;
  c.sessions.random = fill_random;
  c.sessions.security = security;
  c.sessions.endpoints = services::make_endpoints(c.description, *security);
  auto core = actors::make_demo_server_core(std::move(c), UACTOR_VERSION, now.utc, {plan.demo_namespace_uri});
  if (plan.load_variables) actors::add_load_namespace(core.space(), plan.load_variables, now.utc);
  return core;
}

}  // namespace

struct server::impl {
  explicit impl(const server_plan& p) : plan(p), system(configure(config)) {}
  server_plan plan;
  caf::actor_system_config config;
  caf::actor_system system;
  actors::server_handle handle;
  bool stopped = false;
};

server::server(std::unique_ptr<impl> p) : impl_(std::move(p)) {}

server::~server() { stop(); }

ua::expected<std::unique_ptr<server>> server::start(const server_plan& plan) {
  std::shared_ptr<actors::server_security> security;
  try {
    security = make_security(plan);
  } catch (const std::exception& e) {
    spdlog::error("uactor: {}", e.what());
    return ua::status::bad_configuration_error;
  }
  auto p = std::make_unique<impl>(plan);
  actors::server_options o;
  o.listen_address = plan.listen_address;
  o.port = plan.port;
  o.max_connections = plan.max_connections;
  o.session_host = plan.session_host == "scheduler" ? actors::host_thread::scheduler : actors::host_thread::multiplexer;
  o.connection.channel.limits.receive_buffer_size = plan.receive_buffer_size;
  o.connection.channel.limits.send_buffer_size = plan.send_buffer_size;
  o.connection.channel.limits.max_message_size = plan.max_message_size;
  o.connection.channel.limits.max_chunk_count = plan.max_chunk_count;
  o.connection.channel.security = security;
  auto h = actors::spawn_server(p->system, o, [&](std::uint16_t port) { return make_core(plan, port, security); });
  if (!h) return h.error();
  p->handle = *h;
  // The demo's dynamic variables (docs/demo-namespace.md); the writer finds them on its first tick.
  actors::spawn_writer(p->system, p->handle, plan.writer_interval,
                       [w = std::optional<actors::demo_writer>{}](ua::address_space& as, std::uint64_t tick,
                                                                 ua::date_time now) mutable {
                         if (!w) w.emplace(as);
                         w->step(as, tick, now);
                       });
  // The load variables: a writer of their own, so that one step writes all N at the same tick.
  if (plan.load_variables)
    actors::spawn_writer(p->system, p->handle, plan.writer_interval,
                         [w = std::optional<actors::load_writer>{}, n = plan.load_variables](
                             ua::address_space& as, std::uint64_t tick, ua::date_time now) mutable {
                           if (!w) w.emplace(as, n);
                           w->step(as, tick, now);
                         });
  return std::unique_ptr<server>(new server(std::move(p)));
}

std::uint16_t server::port() const noexcept { return impl_->handle.port; }

std::string server::endpoint_url() const {
  return "opc.tcp://" + impl_->plan.host_name + ":" + std::to_string(port());
}

void server::stop() {
  if (impl_->stopped) return;
  impl_->stopped = true;
  actors::stop_server(impl_->handle);
  impl_->system.await_all_actors_done();
}

}  // namespace uactor::app
