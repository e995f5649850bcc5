#include "actors/server/crypto_workers.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <utility>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

namespace uactor::actors {
namespace {

using bind_lifetime_atom = caf::atom_constant<caf::atom("cryptobnd")>;

// One worker: a detached actor (its own thread, so that a 24 ms password check occupies neither
// the multiplexer nor a scheduler thread), niced so that on a machine with more runnable threads
// than cores the connections' thread is served first.
caf::behavior crypto_worker(caf::event_based_actor* self, std::shared_ptr<crypto_pool::counts> counts,
                            std::shared_ptr<std::atomic<std::size_t>> load, int nice) {
  self->set_down_handler([self](const caf::down_msg&) { self->quit(); });
  auto niced = std::make_shared<bool>(false);
  return {
      [self, counts, load, nice, niced](crypto_task_ptr& task) {
        if (!*niced) {
          // The thread's own niceness (Linux: per thread). Failing to lower it is harmless.
          *niced = true;
          if (nice != 0) (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), nice);
        }
        try {
          task->run();
        } catch (const std::exception& e) {
          spdlog::error("crypto worker: a task failed: {}", e.what());  // its result says failed
        }
        load->fetch_sub(1, std::memory_order_relaxed);
        counts->queued.fetch_sub(1, std::memory_order_relaxed);
        if (task->suspect) counts->suspects.fetch_sub(1, std::memory_order_relaxed);
        counts->completed.fetch_add(1, std::memory_order_relaxed);
        caf::actor to = std::move(task->reply_to);  // the task no longer holds its submitter
        if (to) self->send(to, std::move(task));
      },
      [self](bind_lifetime_atom, const caf::actor& owner) { self->monitor(owner); },
  };
}

}  // namespace

crypto_pool::crypto_pool(caf::actor_system& sys, crypto_pool_options options)
    : options_(options), counts_(std::make_shared<counts>()) {
  workers_.reserve(options_.workers);
  for (std::size_t i = 0; i < options_.workers; ++i) {
    worker_slot w;
    w.load = std::make_shared<std::atomic<std::size_t>>(0);
    w.actor = sys.spawn<caf::detached>(crypto_worker, counts_, w.load, options_.nice);
    workers_.push_back(std::move(w));
  }
}

crypto_pool::~crypto_pool() { stop(); }

std::size_t crypto_pool::max_queued_suspects() const noexcept {
  return options_.max_queued_suspects > 0 ? options_.max_queued_suspects : std::max<std::size_t>(options_.max_queued / 4, 1);
}

bool crypto_pool::submit(crypto_task_ptr task, bool always, bool suspect) {
  if (workers_.empty()) return false;
  if (suspect) {
    const std::size_t in_lane = counts_->suspects.fetch_add(1, std::memory_order_relaxed);
    if (in_lane >= max_queued_suspects()) {
      counts_->suspects.fetch_sub(1, std::memory_order_relaxed);
      counts_->refused.fetch_add(1, std::memory_order_relaxed);
      counts_->refused_suspects.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
  }
  const std::size_t before = counts_->queued.fetch_add(1, std::memory_order_relaxed);
  if (!always && before >= options_.max_queued) {
    counts_->queued.fetch_sub(1, std::memory_order_relaxed);
    counts_->refused.fetch_add(1, std::memory_order_relaxed);
    if (suspect) counts_->suspects.fetch_sub(1, std::memory_order_relaxed);
    return false;
  }
  task->suspect = suspect;
  worker_slot* best = &workers_.front();
  for (auto& w : workers_)
    if (w.load->load(std::memory_order_relaxed) < best->load->load(std::memory_order_relaxed)) best = &w;
  best->load->fetch_add(1, std::memory_order_relaxed);
  // A session check that is not suspect goes first (the urgent queue); a channel's OPN and the
  // suspects' checks wait in the normal one.
  if (task->what() == crypto_task::kind::session_check && !suspect)
    caf::anon_send<caf::message_priority::high>(best->actor, std::move(task));
  else
    caf::anon_send(best->actor, std::move(task));
  return true;
}

void crypto_pool::bind_lifetime(const caf::actor& owner) {
  for (auto& w : workers_) caf::anon_send(w.actor, bind_lifetime_atom::value, owner);
}

void crypto_pool::stop() {
  for (auto& w : workers_)
    if (w.actor) caf::anon_send_exit(w.actor, caf::exit_reason::user_shutdown);
}

}  // namespace uactor::actors
