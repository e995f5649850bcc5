// Part 12 §4.3: a server registering with a Local Discovery Server.
#include "runtime/discovery_registrar.hpp"

#include <algorithm>
#include <exception>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "uactor/client.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::app {

namespace {

using lds_register_atom = caf::atom_constant<caf::atom("ldsreg")>;

// The state of the periodic registration: what it last saw (to log each change once) and the
// pause after failures in a row.
struct registrar_state {
  bool ok = false;
  bool reported = false;
  std::chrono::seconds failure_pause{5};
};

caf::behavior lds_registrar(caf::stateful_actor<registrar_state>* self, std::shared_ptr<const registrar_options> o) {
  // A blocking call that throws must not end the registration (an exception would kill the actor).
  self->set_exception_handler([](caf::scheduled_actor*, std::exception_ptr& e) -> caf::error {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      spdlog::error("discovery registration: {}", x.what());
    }
    return caf::exit_reason::unhandled_exception;
  });
  self->send(self, lds_register_atom::value);
  return {
      [self, o](lds_register_atom) {
        registration_result r;
        try {
          r = register_once(self->system(), *o, true);
        } catch (const std::exception& e) {
          r.status = ua::status::bad_unexpected_error;
          spdlog::error("discovery registration with {}: {}", o->discovery_url, e.what());
        }
        auto& st = self->state;
        if (r.status.is_good()) {
          if (!st.ok || !st.reported)
            spdlog::info("discovery: registered with {} ({}), renewing every {} s", o->discovery_url,
                         r.fell_back ? "RegisterServer: the LDS has no RegisterServer2" : "RegisterServer2",
                         o->period.count());
          st.ok = true;
          st.failure_pause = std::chrono::seconds(5);
          self->delayed_send(self, o->period, lds_register_atom::value);
        } else {
          if (st.ok || !st.reported)
            spdlog::warn("discovery: cannot register with {}: {}; trying again with backoff", o->discovery_url,
                         r.status.name());
          st.ok = false;
          self->delayed_send(self, st.failure_pause, lds_register_atom::value);
          st.failure_pause = std::min(st.failure_pause * 2, std::max(o->period, std::chrono::seconds(5)));
        }
        st.reported = true;
      },
  };
}

}  // namespace

registration_result register_once(caf::actor_system& sys, const registrar_options& o, bool online) {
  client_options co;
  co.endpoint_url = o.discovery_url;
  co.create_session = false;  // Part 4 §5.4.5: the registration needs a secure channel, no session
  co.connect_timeout = o.timeout;
  co.request_timeout = o.timeout;
  co.security.policy = o.policy;
  co.security.mode = o.mode;
  co.security.pki_dir = o.pki_dir;
  co.security.application_uri = std::string(o.server.server_uri.view());
  co.security.certificate_name = "uactor";  // the server's own certificate (runtime.cpp)
  co.security.check_server_host_name = o.check_host_name;
  auto c = client::connect(sys, std::move(co));
  if (!c) return {c.error()};

  ua::registered_server s = o.server;
  s.is_online = online;
  ua::register_server2_request r2;
  r2.server = s;
  ua::mdns_discovery_configuration mdns;
  mdns.mdns_server_name = ua::ua_string(o.mdns_server_name.empty() ? std::string(s.server_uri.view()) : o.mdns_server_name);
  for (const auto& cap : o.capabilities) mdns.server_capabilities.push_back(ua::ua_string(cap));
  r2.discovery_configuration.push_back(ua::extension_object(std::move(mdns)));
  registration_result out;
  auto a2 = c->register_server2_sync(std::move(r2));
  if (a2) out.status = a2->response_header.service_result;
  else out.status = a2.error();
  // Part 4 §5.4.6: a server falls back to RegisterServer when the LDS has no RegisterServer2.
  if (out.status == ua::status::bad_service_unsupported) {
    out.fell_back = true;
    ua::register_server_request r1;
    r1.server = std::move(s);
    auto a1 = c->register_server_sync(std::move(r1));
    out.status = a1 ? a1->response_header.service_result : a1.error();
  }
  c->close();
  return out;
}

caf::actor spawn_discovery_registrar(caf::actor_system& sys, std::shared_ptr<const registrar_options> o) {
  return sys.spawn<caf::detached>(lds_registrar, std::move(o));
}

}  // namespace uactor::app
