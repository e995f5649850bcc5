#include "actors/server/historian_actor.hpp"

#include <algorithm>
#include <deque>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/common/self_send.hpp"
#include "engine/common/clock.hpp"

namespace uactor::actors {

namespace {

struct historian_state {
  std::shared_ptr<history::history_store> store;
  historian_options options;
  std::shared_ptr<metrics_registry> metrics;  // may be null
  std::shared_ptr<std::atomic<std::int64_t>> queued;
  // Batches the store could not take because it was unavailable, oldest first; they still count
  // in `queued`, so the sink's bound holds for them too.
  std::deque<history_batch_ptr> waiting;
  std::chrono::milliseconds retry_pause{0};
};

enum class write_outcome { written, refused, unavailable };

write_outcome write_batch(historian_state& st, const history_batch& b) {
  const auto begin = std::chrono::steady_clock::now();
  try {
    st.store->append(b.records);
  } catch (const history::store_unavailable& e) {
    if (st.metrics) st.metrics->history().write_errors.add();
    if (st.waiting.empty())
      spdlog::warn("{}: {} values wait, retried in {} ms", e.what(), b.records.size(), st.options.retry_min.count());
    return write_outcome::unavailable;
  } catch (const history::store_error& e) {
    spdlog::error("{} ({} values lost)", e.what(), b.records.size());
    if (st.metrics) st.metrics->history().write_errors.add();
    return write_outcome::refused;
  }
  if (!st.metrics) return write_outcome::written;
  const auto ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - begin).count());
  auto& h = st.metrics->history();
  h.values_written.add(b.records.size());
  h.batches_written.add();
  h.write_ns.add(ns);
  if (ns > h.write_max_ns.get()) h.write_max_ns.set(ns);
  return write_outcome::written;
}

// Writes the waiting batches, oldest first, until the store is unavailable again (then the next
// retry comes after a longer pause) or none waits.
void write_waiting(caf::event_based_actor* self, historian_state& st) {
  std::size_t values = 0;
  while (!st.waiting.empty()) {
    const auto outcome = write_batch(st, *st.waiting.front());
    if (outcome == write_outcome::unavailable) {
      st.retry_pause = std::min(st.retry_pause * 2, st.options.retry_max);
      delayed_send_to_self(self, st.retry_pause, history_retry_atom::value);
      return;
    }
    if (outcome == write_outcome::written) values += st.waiting.front()->records.size();
    st.waiting.pop_front();
    st.queued->fetch_sub(1, std::memory_order_relaxed);
  }
  spdlog::info("history: the store is back; {} values that waited are written", values);
}

caf::behavior historian_actor(caf::event_based_actor* self, std::shared_ptr<historian_state> st) {
  self->set_down_handler([self](const caf::down_msg&) { self->quit(); });
  delayed_send_to_self(self, st->options.retention_interval, history_retention_atom::value);
  return {
      [self, st](const history_batch_ptr& b) {
        if (!st->waiting.empty()) {  // behind the batches that wait: order kept
          // Joined to the last one while it has room: the recorder's batches are as small as one
          // value, and the bound counts batches, so an outage keeps up to 1,000 values per slot.
          auto& last = st->waiting.back()->records;
          if (last.size() + b->records.size() <= st->options.max_waiting_batch_values) {
            last.insert(last.end(), std::make_move_iterator(b->records.begin()), std::make_move_iterator(b->records.end()));
            st->queued->fetch_sub(1, std::memory_order_relaxed);
          } else {
            st->waiting.push_back(b);
          }
          return;
        }
        if (write_batch(*st, *b) == write_outcome::unavailable) {
          st->waiting.push_back(b);
          st->retry_pause = st->options.retry_min;
          delayed_send_to_self(self, st->retry_pause, history_retry_atom::value);
          return;
        }
        st->queued->fetch_sub(1, std::memory_order_relaxed);
      },
      [self, st](history_retry_atom) { write_waiting(self, *st); },
      [self, st](history_retention_atom) {
        const auto& r = st->options.retention;
        if (r.max_age_days > 0 || r.max_values_per_node > 0) {
          try {
            if (const auto n = st->store->apply_retention(r, now_instant().utc.ticks); n > 0)
              spdlog::info("history: retention removed {} values", n);
          } catch (const history::store_error& e) {
            spdlog::error("{}", e.what());
          }
        }
        delayed_send_to_self(self, st->options.retention_interval, history_retention_atom::value);
      },
      [self](history_bind_atom, const caf::actor& owner) { self->monitor(owner); },
  };
}

// Runs each HistoryRead's reads and hands the job back to the host it is bound to. It takes its
// host slot as an argument: CAF 0.17 spawns an argument-less function actor through a null
// shared_ptr<tuple<>> (init_fun_factory.hpp:85), undefined behaviour that UBSan stops on.
caf::behavior history_reader_actor(caf::event_based_actor* self, std::shared_ptr<caf::actor> host) {
  self->set_down_handler([self](const caf::down_msg&) { self->quit(); });
  return {
      [host](history_read_job_ptr& job) {
        services::run_history_read(*job);
        if (*host) caf::anon_send(*host, std::move(job));
      },
      // HistoryUpdate's changes: on this thread too, so that the host never waits on the store;
      // the store's writes take the writer's connection (its lock orders them with the historian's).
      [host](history_update_job_ptr& job) {
        services::run_history_update(*job);
        if (*host) caf::anon_send(*host, std::move(job));
      },
      [self, host](history_bind_atom, const caf::actor& owner) {
        *host = owner;
        self->monitor(owner);
      },
  };
}

}  // namespace

historian spawn_historian(caf::actor_system& sys, std::shared_ptr<history::history_store> store,
                          historian_options options, std::shared_ptr<metrics_registry> metrics) {
  auto st = std::make_shared<historian_state>();
  st->store = std::move(store);
  st->options = options;
  st->metrics = metrics;
  // The queue's depth: in the metrics block when there is one (the gauge is the bound's count).
  if (metrics) st->queued = std::shared_ptr<std::atomic<std::int64_t>>(metrics, &metrics->history().queued);
  else st->queued = std::make_shared<std::atomic<std::int64_t>>(0);
  historian h;
  h.actor = sys.spawn<caf::detached>(historian_actor, st);
  h.reader = sys.spawn<caf::detached>(history_reader_actor, std::make_shared<caf::actor>());
  h.read = [reader = h.reader](std::shared_ptr<services::history_read_job> job) {
    caf::anon_send(reader, std::move(job));
  };
  h.update = [reader = h.reader](std::shared_ptr<services::history_update_job> job) {
    caf::anon_send(reader, std::move(job));
  };
  const auto max = static_cast<std::int64_t>(options.max_queued_batches);
  h.sink = [actor = h.actor, queued = st->queued, metrics, max](std::vector<history::record>&& records) {
    if (queued->load(std::memory_order_relaxed) >= max) {
      if (metrics) metrics->history().values_dropped.add(records.size());
      return false;
    }
    queued->fetch_add(1, std::memory_order_relaxed);
    auto b = std::make_shared<history_batch>();
    b->records = std::move(records);
    caf::anon_send(actor, std::move(b));
    return true;
  };
  return h;
}

}  // namespace uactor::actors
