#include "actors/session_host_actor.hpp"

#include <memory>
#include <utility>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/exchange.hpp"

namespace uactor::actors {
namespace {

struct host_state {
  std::unique_ptr<server_core> core;
  static inline const char* name = "uactor.session_host";
};

caf::behavior session_host(caf::stateful_actor<host_state>* self, std::shared_ptr<server_core> core,
                           std::chrono::milliseconds housekeeping) {
  self->state.core = std::make_unique<server_core>(std::move(*core));
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
    [self](batch_ptr& batch) {
      const instant now = now_instant();
      auto& core = *self->state.core;
      for (std::size_t i = 0; i < batch->size; ++i) {
        exchange& x = batch->items[i];
        x.response.clear();
        core.handle(batch->channel_id, x.header, x.request, now, x.response);
      }
      self->send(caf::actor_cast<caf::actor>(self->current_sender()), std::move(batch));
    },
    [self](const writer_tick& t) { (*t.step)(self->state.core->space(), t.tick, utc_now()); },
    [self, housekeeping](housekeeping_atom) {
      self->state.core->on_tick(now_instant());
      self->delayed_send(self, housekeeping, housekeeping_atom::value);
    },
  };
}

}  // namespace

caf::actor spawn_session_host(caf::actor_system& sys, server_core core, std::chrono::milliseconds housekeeping) {
  return sys.spawn(session_host, std::make_shared<server_core>(std::move(core)), housekeeping);
}

}  // namespace uactor::actors
