#include "actors/session_host_actor.hpp"

#include <memory>
#include <utility>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/exchange.hpp"

namespace uactor::actors {
namespace {

// The same behaviour for both homes: a scheduler actor or a broker without connections.
template <class Self>
caf::behavior session_host(Self* self, std::shared_ptr<server_core> core, std::chrono::milliseconds housekeeping) {
  self->set_exception_handler([](caf::scheduled_actor*, std::exception_ptr& e) -> caf::error {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      spdlog::error("session host: {}", x.what());
    }
    return caf::exit_reason::unhandled_exception;
  });
  self->delayed_send(self, housekeeping, housekeeping_atom::value);
  return {
    [self, core](batch_ptr& batch) {
      const instant now = now_instant();
      for (std::size_t i = 0; i < batch->size; ++i) {
        exchange& x = batch->items[i];
        x.response.clear();
        core->handle(batch->channel_id, x.header, x.request, now, x.response);
      }
      self->send(caf::actor_cast<caf::actor>(self->current_sender()), std::move(batch));
    },
    [core](const writer_tick& t) { (*t.step)(core->space(), t.tick, utc_now()); },
    [self, core, housekeeping](housekeeping_atom) {
      core->on_tick(now_instant());
      self->delayed_send(self, housekeeping, housekeeping_atom::value);
    },
  };
}

}  // namespace

caf::actor spawn_session_host(caf::actor_system& sys, server_core core, std::chrono::milliseconds housekeeping,
                              host_thread where) {
  auto shared = std::make_shared<server_core>(std::move(core));
  if (where == host_thread::multiplexer)
    return sys.middleman().spawn_broker(session_host<caf::io::broker>, std::move(shared), housekeeping);
  return sys.spawn(session_host<caf::event_based_actor>, std::move(shared), housekeeping);
}

}  // namespace uactor::actors
