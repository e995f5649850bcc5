#include "actors/client/client_call.hpp"

namespace uactor::actors {

void client_call::finish_answered() {
  if (!armed_.exchange(false, std::memory_order_acq_rel)) return;
  on_finished(ua::status::good);
}

void client_call::finish(ua::status_code failure) {
  if (!armed_.exchange(false, std::memory_order_acq_rel)) return;
  on_finished(failure.is_bad() ? failure : ua::status::bad_unexpected_error);
}

void client_call::last_reference_gone() noexcept {
  // A call dropped unanswered (it never reached a live actor, or the actor quit with it) still
  // gets its answer: the application never waits forever. The answer may take references again
  // (a callback that sends the call once more): then it is not gone after all.
  if (!finished()) {
    refs_.store(1, std::memory_order_relaxed);
    finish(ua::status::bad_connection_closed);
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  }
  recycle();
}

void function_call::on_finished(ua::status_code status) {
  auto done = std::move(done_);
  done_ = nullptr;
  if (!done) return;
  if (status.is_bad()) return done(status);
  done(std::move(response()));
}

}  // namespace uactor::actors
