#include "actors/server/historian_actor.hpp"

#include <algorithm>
#include <deque>
#include <utility>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/common/self_send.hpp"
#include "history/spool_file.hpp"
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
  // Behind `waiting`, in order: the batches past options.spool_after (null: no spool). While it
  // holds any, new batches go behind them into it.
  std::unique_ptr<history::spool_file> spool;
  std::uint64_t spool_dropped = 0;
  std::uint64_t spool_drops_logged_at = 0;
  std::uint64_t damaged_counted = 0;  // of the spool's damaged_values(), in the metrics already
  bool retry_armed = false;
  // Batches joined while more queue up behind them (max_joined_values), written by the flush the
  // first of them sent itself, after what the mailbox held then, or when full. Never beside
  // `waiting`: a batch that cannot be written waits there as one.
  history_batch_ptr joining;
  std::int64_t joined_batches = 0;
  bool flush_armed = false;
};

// The spool's gauges, and what it has to say for the log.
void spool_changed(historian_state& st) {
  if (!st.spool) return;
  if (const auto notes = st.spool->take_notes(); !notes.empty()) spdlog::error("{}", notes);
  if (!st.metrics) return;
  auto& h = st.metrics->history();
  if (const auto damaged = st.spool->damaged_values(); damaged > st.damaged_counted) {
    h.spool_dropped.add(damaged - st.damaged_counted);
    st.damaged_counted = damaged;
  }
  h.spool_values.set(st.spool->values());
  h.spool_bytes.set(st.spool->bytes());
}

// A batch into the spool, or dropped past its bound (counted; logged at the first drop and then at
// each doubling, as the host's queue does).
void to_spool(historian_state& st, const history_batch& b) {
  if (!st.spool->push(b.records)) {
    st.spool_dropped += b.records.size();
    if (st.metrics) st.metrics->history().spool_dropped.add(b.records.size());
    if (st.spool_drops_logged_at == 0 || st.spool_dropped >= 2 * st.spool_drops_logged_at) {
      spdlog::warn("history: the spool {} is full ({} bytes), {} values dropped so far", st.spool->path(), st.spool->bytes(),
                   st.spool_dropped);
      st.spool_drops_logged_at = st.spool_dropped;
    }
  }
  spool_changed(st);
}

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

void arm_retry(caf::event_based_actor* self, historian_state& st, std::chrono::milliseconds pause) {
  if (st.retry_armed) return;
  st.retry_armed = true;
  delayed_send_to_self(self, pause, history_retry_atom::value);
}

// Writes the waiting batches, oldest first, then the spooled ones (one joined write per turn: new
// batches keep coming off the mailbox and go behind them into the spool), until the store is
// unavailable again (then the next retry comes after a longer pause) or none waits.
void write_waiting(caf::event_based_actor* self, historian_state& st) {
  std::size_t values = 0;
  while (!st.waiting.empty()) {
    const auto outcome = write_batch(st, *st.waiting.front());
    if (outcome == write_outcome::unavailable) {
      st.retry_pause = std::min(std::max(st.retry_pause * 2, st.options.retry_min), st.options.retry_max);
      arm_retry(self, st, st.retry_pause);
      return;
    }
    if (outcome == write_outcome::written) values += st.waiting.front()->records.size();
    st.waiting.pop_front();
    st.queued->fetch_sub(1, std::memory_order_relaxed);
  }
  if (st.spool && !st.spool->empty()) {
    // One write per turn: the spool's frames (as small as the recorder's batches) joined up to
    // max_waiting_batch_values, so that a transaction carries as many values as a waiting one.
    auto b = std::make_shared<history_batch>();
    while (!st.spool->empty() && (b->records.empty() || b->records.size() < st.options.max_waiting_batch_values)) {
      auto frame = st.spool->pop();
      b->records.insert(b->records.end(), std::make_move_iterator(frame.begin()), std::make_move_iterator(frame.end()));
    }
    spool_changed(st);
    if (!b->records.empty()) {
      const auto outcome = write_batch(st, *b);
      if (outcome == write_outcome::unavailable) {
        // To the memory queue (it is empty): the oldest still goes first.
        st.waiting.push_back(std::move(b));
        st.queued->fetch_add(1, std::memory_order_relaxed);
        st.retry_pause = std::min(std::max(st.retry_pause * 2, st.options.retry_min), st.options.retry_max);
        arm_retry(self, st, st.retry_pause);
        return;
      }
      if (outcome == write_outcome::written) values += b->records.size();
    }
    if (!st.spool->empty()) {
      arm_retry(self, st, std::chrono::milliseconds(0));  // the next turn, after what the mailbox holds
      return;
    }
    spdlog::info("history: the spool is written back");
  }
  if (values != 0) spdlog::info("history: the store is back; {} values that waited are written", values);
}

// The first batch the store could not take: it waits, and the first retry comes after retry_min.
void start_waiting(caf::event_based_actor* self, historian_state& st, history_batch_ptr b) {
  st.waiting.push_back(std::move(b));
  st.retry_pause = st.options.retry_min;
  arm_retry(self, st, st.retry_pause);
}

void write_joined(caf::event_based_actor* self, historian_state& st) {
  auto b = std::move(st.joining);
  const auto batches = std::exchange(st.joined_batches, 0);
  if (write_batch(st, *b) == write_outcome::unavailable) {
    st.queued->fetch_sub(batches - 1, std::memory_order_relaxed);  // one slot of the queue now
    return start_waiting(self, st, std::move(b));
  }
  st.queued->fetch_sub(batches, std::memory_order_relaxed);
}

void join(caf::event_based_actor* self, historian_state& st, const history_batch_ptr& b) {
  if (!st.joining) {
    st.joining = b;
  } else {
    auto& all = st.joining->records;
    all.insert(all.end(), std::make_move_iterator(b->records.begin()), std::make_move_iterator(b->records.end()));
  }
  ++st.joined_batches;
  if (st.joining->records.size() >= st.options.max_joined_values) return write_joined(self, st);
  if (st.flush_armed) return;
  st.flush_armed = true;
  self->send(self, history_flush_atom::value);  // behind the batches queued now
}

caf::behavior historian_actor(caf::event_based_actor* self, std::shared_ptr<historian_state> st) {
  self->set_down_handler([self](const caf::down_msg&) { self->quit(); });
  delayed_send_to_self(self, st->options.retention_interval, history_retention_atom::value);
  return {
      [self, st](const history_batch_ptr& b) {
        if (st->spool && (!st->spool->empty() || st->waiting.size() >= st->options.spool_after)) {
          // Behind the spooled batches (order kept), or the memory queue is as full as it may
          // get: to the file. It no longer counts in the host's queue.
          to_spool(*st, *b);
          st->queued->fetch_sub(1, std::memory_order_relaxed);
          if (st->waiting.empty()) arm_retry(self, *st, std::chrono::milliseconds(0));  // the store took the rest: on with the spool
          return;
        }
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
        // Behind on the store (more batches queued than this one), or joining already: joined.
        if (st->joining || st->queued->load(std::memory_order_relaxed) > 1) return join(self, *st, b);
        if (write_batch(*st, *b) == write_outcome::unavailable) return start_waiting(self, *st, b);
        st->queued->fetch_sub(1, std::memory_order_relaxed);
      },
      [self, st](history_flush_atom) {
        st->flush_armed = false;
        if (st->joining) write_joined(self, *st);
      },
      [self, st](history_retry_atom) {
        st->retry_armed = false;
        write_waiting(self, *st);
      },
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
  if (!options.spool_path.empty() && options.spool_max_bytes > 0) {
    st->spool = std::make_unique<history::spool_file>(options.spool_path, options.spool_max_bytes);
    if (!st->spool->empty())
      spdlog::info("history: the spool {} holds {} values of an earlier run: written first", options.spool_path, st->spool->values());
    spool_changed(*st);
  }
  // The queue's depth: in the metrics block when there is one (the gauge is the bound's count).
  if (metrics) st->queued = std::shared_ptr<std::atomic<std::int64_t>>(metrics, &metrics->history().queued);
  else st->queued = std::make_shared<std::atomic<std::int64_t>>(0);
  historian h;
  h.actor = sys.spawn<caf::detached>(historian_actor, st);
  if (st->spool && !st->spool->empty()) caf::anon_send(h.actor, history_retry_atom::value);  // an earlier run's first
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
