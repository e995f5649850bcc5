#include "actors/server/session_host_actor.hpp"

#include <memory>
#include <unordered_map>
#include <vector>
#include <utility>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include "engine/common/clock.hpp"
#include "actors/common/self_send.hpp"
#include "actors/server/application_messages.hpp"
#include "actors/server/exchange.hpp"
#include "actors/server/historian_actor.hpp"

namespace uactor::actors {
namespace {

// What the host knows of a channel: the connection actor that owns it (learned from its batches)
// and the objects that carry deferred responses to it, reused once written.
struct channel_entry {
  caf::actor connection;
  std::vector<push_ptr> pushes;
};

constexpr std::size_t max_pushes_kept = 4;  // per channel; more in flight are not kept for reuse

// A CreateSession's or ActivateSession's crypto on a worker (docs/decisions/0022).
struct session_task final : crypto_task {
  session_task() : crypto_task(kind::session_check) {}
  void run() override { work->run(); }
  std::shared_ptr<session_crypto_work> work;
  std::uint64_t park_id = 0;
};

// A batch waiting for the task of its request `at`; the requests behind it wait with it.
struct parked_batch {
  batch_ptr batch;
  std::size_t at = 0;
  caf::actor connection;
};

}  // namespace

struct host_state {
  explicit host_state(std::shared_ptr<server_core> c, std::shared_ptr<crypto_pool> p)
      : core(std::move(c)), crypto(std::move(p)) {}
  std::shared_ptr<server_core> core;
  std::shared_ptr<crypto_pool> crypto;  // null: the session crypto runs here
  std::unordered_map<std::uint32_t, channel_entry> channels;
  std::unordered_map<std::uint64_t, parked_batch> parked;
  // Batches held behind an ActivateSession whose roles the application decides (docs/decisions/
  // 0063), by question; `at` is the request after it.
  std::unordered_map<std::uint64_t, parked_batch> role_parked;
  std::uint64_t next_park = 1;
  caf::actor_addr host;  // the publishing clock's ticks go to the host (weak: the host holds this state)
  bool tick_armed = false;
  log_limiter busy_log{5};  // the refusals for a full crypto queue, at most 5 lines a second
};

namespace {

push_ptr free_push(channel_entry& ch) {
  for (auto& p : ch.pushes)
    if (p->written.load(std::memory_order_acquire)) return p;
  auto p = std::make_shared<pushed_responses>();
  if (ch.pushes.size() < max_pushes_kept) ch.pushes.push_back(p);
  return p;
}

// Sends responses produced outside the batch at hand (queued Publish requests, requests that
// waited for the application) to the connections of their channels, one message per channel; a
// channel without a connection (closed meanwhile) loses them, as its peer is gone.
template <class Self>
void push_responses(Self*, host_state& st, std::span<const deferred_response> deferred) {
  for (std::size_t i = 0; i < deferred.size(); ++i) {
    const std::uint32_t channel = deferred[i].channel_id;
    bool seen = false;  // grouped already with an earlier entry of the same channel
    for (std::size_t k = 0; k < i && !seen; ++k) seen = deferred[k].channel_id == channel;
    if (seen) continue;
    const auto found = st.channels.find(channel);
    if (found == st.channels.end()) continue;
    push_ptr p = free_push(found->second);
    p->size = 0;
    for (std::size_t k = i; k < deferred.size(); ++k) {
      if (deferred[k].channel_id != channel) continue;
      if (p->size == p->items.size()) p->items.emplace_back();
      exchange& x = p->items[p->size++];
      x.request_id = deferred[k].request_id;
      x.response.clear();
      x.response.append(deferred[k].message.data(), deferred[k].message.size());
    }
    p->written.store(false, std::memory_order_relaxed);
    caf::anon_send(found->second.connection, std::move(p));  // without a sender: see send_back
  }
}

// The questions the services put to the application go to its executors, each with a deadline
// timer for the host (docs/embedding.md).
void ask_application(host_state& st) {
  auto& outbox = st.core->application().outbox();
  if (outbox.empty()) return;
  auto host = caf::actor_cast<caf::actor>(st.host);
  std::vector<application_calls::outgoing> questions;
  questions.swap(outbox);  // a hook that answers inline sends a message: nothing re-enters here
  for (auto& q : questions) {
    caf::delayed_anon_send(host, q.hook->deadline, app_deadline_atom::value);
    try {
      q.hook->dispatch(std::move(q.call));
    } catch (const std::exception& e) {
      spdlog::error("application: posting a callback failed: {}", e.what());
    }
  }
}

// The role questions of the ActivateSession just handled go to the application's executor, each
// with a deadline timer for the host (docs/decisions/0063).
void ask_roles(host_state& st) {
  auto& outbox = st.core->role_outbox();
  if (outbox.empty()) return;
  auto host = caf::actor_cast<caf::actor>(st.host);
  std::vector<authz::role_question> questions;
  questions.swap(outbox);
  const auto& hook = st.core->role_hook();
  for (auto& q : questions) {
    const std::uint64_t id = q.id;
    if (hook) {
      caf::delayed_anon_send(host, hook->deadline, role_deadline_atom::value);
      try {
        hook->dispatch(std::move(q));
        continue;
      } catch (const std::exception& e) {
        spdlog::error("application: posting the role callback failed: {}", e.what());
      }
    }
    authz::role_answer a;  // no callback to ask (removed meanwhile), or it could not be posted
    a.id = id;
    a.timed_out = true;
    a.failed = true;
    caf::anon_send(host, std::move(a));
  }
}

template <class Self>
void push_deferred(Self* self, host_state& st) {
  st.core->watches().flush();
  st.core->flush_history();
  ask_application(st);
  if (const auto d = st.core->deferred(); !d.empty()) {
    push_responses(self, st, d);
    st.core->clear_deferred();
  }
  auto& app = st.core->application();
  if (!app.completed().empty()) {
    push_responses(self, st, app.completed());
    app.clear_completed();
  }
  if (const auto h = st.core->history_completed(); !h.empty()) {
    push_responses(self, st, h);
    st.core->clear_history_completed();
  }
  // After the method's response (sent before this, or written by the inline caller before it reads
  // its mailbox): every connection checks its client certificate against the new trust list, and
  // sessions activated with an X509 user certificate no longer trusted are closed.
  if (st.core->take_trust_changed()) {
    st.core->recheck_sessions(now_instant());
    for (const auto& [id, ch] : st.channels)
      if (ch.connection) caf::anon_send(ch.connection, trust_changed_atom::value);
  }
}

// The publishing clock runs while there are subscriptions (docs/decisions/0010).
void arm_tick(host_state& st) {
  if (st.tick_armed || !st.core->has_subscriptions()) return;
  auto host = caf::actor_cast<caf::actor>(st.host);
  if (!host) return;  // the host is gone: no clock to run
  st.tick_armed = true;
  caf::delayed_anon_send(host, st.core->publish_tick_interval(), publish_tick_atom::value);
}

// The requests of the batch from `from` on answered into their exchanges, in order; `done` is the
// crypto of request `from`, back from a worker. A request whose crypto goes to a worker parks the
// batch: false, and the requests behind it wait (a Read right behind an ActivateSession must see
// the session activated, Part 4 §5.7.3). With the pool full the newcomer is refused with
// Bad_ServerTooBusy ("the Server does not have the resources to process the request at this
// time"), never queued without bound in front of the established sessions.
bool answer_from(host_state& st, const batch_ptr& ptr, std::size_t from, const session_crypto_work* done,
                 const caf::actor& connection) {
  exchange_batch& batch = *ptr;
  const instant now = now_instant();
  if (auto* m = st.core->metrics(); m && from == 0 && !done && batch.sent != std::chrono::steady_clock::time_point{}) {
    auto& h = m->host();
    const auto waited = static_cast<std::uint64_t>(std::chrono::nanoseconds(now.steady - batch.sent).count());
    h.wait_ns.add(waited);
    h.waits.add();
    if (waited > h.wait_max_ns.get()) h.wait_max_ns.set(waited);
  }
  for (std::size_t i = from; i < batch.size; ++i) {
    exchange& x = batch.items[i];
    x.response.clear();
    // An ActivateSession whose roles the application decides holds the batch (the requests
    // behind it must see the session's roles) until its answer or deadline.
    const auto held_for_roles = [&] {
      const std::uint64_t q = st.core->take_role_wait();
      if (!q) return false;
      st.role_parked.emplace(q, parked_batch{ptr, i + 1, connection});
      ask_roles(st);
      return true;
    };
    if (i == from && done) {
      st.core->handle(batch.channel_id, x.request_id, x.header, x.request, now, x.response, done);
      if (held_for_roles()) return false;
      continue;
    }
    if (st.crypto) {
      if (auto work = st.core->crypto_work(batch.channel_id, x.request, now)) {
        auto task = std::make_shared<session_task>();
        task->work = std::move(work);
        task->park_id = st.next_park++;
        task->reply_to = caf::actor_cast<caf::actor>(st.host);
        const auto id = task->park_id;
        const bool suspect = task->work->suspect;
        if (task->reply_to && st.crypto->submit(std::move(task), false, suspect)) {
          st.parked.emplace(id, parked_batch{ptr, i, connection});
          return false;
        }
        if (std::uint64_t left_out = 0; st.busy_log.allow(now.steady, left_out)) {
          if (suspect)
            spdlog::info("channel {}: a login refused (BadServerTooBusy): {} login checks of user names or addresses that "
                         "failed before wait already{}",
                         batch.channel_id, st.crypto->max_queued_suspects(),
                         left_out ? fmt::format(" ({} such lines left out)", left_out) : std::string());
          else
            spdlog::info("channel {}: a session request refused: {} crypto tasks wait already{}", batch.channel_id,
                         st.crypto->max_queued(), left_out ? fmt::format(" ({} such lines left out)", left_out) : std::string());
        }
        st.core->refuse(x.header, x.request, ua::status::bad_server_too_busy, now, x.response);
        continue;
      }
    }
    // An empty response: a Publish queued, answered later through push_deferred.
    st.core->handle(batch.channel_id, x.request_id, x.header, x.request, now, x.response);
    if (held_for_roles()) return false;
  }
  return true;
}

// An answered batch back to its connection, stamped for the connection's wait metric (one clock
// read a batch, as the connection's stamp on the way in). Without a sender (the connection never
// reads it): one still queued at a connection that ended would hold the host, a broker whose
// mailbox may hold that connection's channel_closed, and neither would be released (CAF 0.17's
// brokers keep their mailbox when they end; docs/decisions/0009).
template <class Self>
void send_back(Self*, const caf::actor& connection, batch_ptr&& batch) {
  batch->sent = std::chrono::steady_clock::now();
  caf::anon_send(connection, std::move(batch));
}

// Role questions settled: each held ActivateSession answered (refused, if so) and its batch goes on.
template <class Self>
void resume_role_waits(Self* self, host_state& st, const std::vector<authz::role_settled>& settled) {
  const instant now = now_instant();
  for (const auto& done : settled) {
    const auto it = st.role_parked.find(done.id);
    if (it == st.role_parked.end()) continue;  // its channel closed meanwhile
    parked_batch p = std::move(it->second);
    st.role_parked.erase(it);
    exchange& x = p.batch->items[p.at - 1];
    st.core->finish_activation(p.batch->channel_id, x.header, x.request, done.result, now, x.response);
    if (answer_from(st, p.batch, p.at, nullptr, p.connection)) send_back(self, p.connection, std::move(p.batch));
  }
}

// The same behaviour for both homes: a scheduler actor or a broker without connections.
template <class Self>
caf::behavior session_host(Self* self, std::shared_ptr<host_state> st, std::chrono::milliseconds housekeeping) {
  st->host = self->address();
  self->set_exception_handler([](caf::scheduled_actor*, std::exception_ptr& e) -> caf::error {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      spdlog::error("session host: {}", x.what());
    }
    return caf::exit_reason::unhandled_exception;
  });
  // The first tick before the first request: what it adds to the address space (the certificates'
  // conditions under the Server object) is there from the start, not a second later.
  st->core->on_tick(now_instant());
  delayed_send_to_self(self, housekeeping, housekeeping_atom::value);
  return {
    [self, st](batch_ptr& batch) {
      auto& ch = st->channels[batch->channel_id];
      auto sender = caf::actor_cast<caf::actor>(self->current_sender());
      if (ch.connection != sender) ch.connection = sender;
      if (answer_from(*st, batch, 0, nullptr, sender)) send_back(self, sender, std::move(batch));
      push_deferred(self, *st);
      arm_tick(*st);
    },
    // A session request's crypto is back: the batch goes on where it stopped.
    [self, st](crypto_task_ptr& t) {
      if (t->what() != crypto_task::kind::session_check) return;
      auto& task = static_cast<session_task&>(*t);
      const auto it = st->parked.find(task.park_id);
      if (it == st->parked.end()) return;  // its channel closed meanwhile
      parked_batch p = std::move(it->second);
      st->parked.erase(it);
      if (answer_from(*st, p.batch, p.at, task.work.get(), p.connection)) send_back(self, p.connection, std::move(p.batch));
      push_deferred(self, *st);
      arm_tick(*st);
    },
    // The application's door (docs/embedding.md).
    [st](value_batch_ptr& batch) {
      batch->received();
      const std::size_t dropped = st->core->apply_values(batch->values, now_instant());
      if (dropped) spdlog::warn("application: {} of {} values name no variable (removed?): dropped", dropped,
                                batch->values.size());
      if (auto pool = batch->pool.lock()) pool->give_back(std::move(batch));
      st->core->watches().flush();
      st->core->flush_history();
    },
    [st](const event_batch_ptr& batch) {
      const instant now = now_instant();
      for (const event& e : batch->events)
        if (const auto sc = st->core->raise_event(e, now); sc.is_bad())
          spdlog::warn("application: an event of type {} from {} was dropped: {}", e.type.to_string(),
                       e.source.to_string(), sc.to_string());
    },
    [self, st](host_job& job) {
      job.run(*st->core);
      push_deferred(self, *st);
      arm_tick(*st);
    },
    [self, st](app_answer& a) {
      st->core->answer(std::move(a), now_instant());
      push_deferred(self, *st);
    },
    // A HistoryRead back from the history reader (historian_actor.hpp).
    [self, st](history_read_job_ptr& job) {
      st->core->complete_history_read(*job, now_instant());
      push_deferred(self, *st);
    },
    // A HistoryUpdate back from the history reader.
    [self, st](history_update_job_ptr& job) {
      st->core->complete_history_update(*job, now_instant());
      push_deferred(self, *st);
    },
    // The application's role callback answered (role_reply), or a question's deadline passed.
    [self, st](authz::role_answer& a) {
      resume_role_waits(self, *st, st->core->answer_roles(std::move(a), now_instant()));
      push_deferred(self, *st);
      arm_tick(*st);
    },
    [self, st](role_deadline_atom) {
      resume_role_waits(self, *st, st->core->expire_roles(now_instant()));
      push_deferred(self, *st);
      arm_tick(*st);
    },
    [self, st](app_deadline_atom) {
      st->core->application().expire(now_instant());
      push_deferred(self, *st);
    },
    [self, st](publish_tick_atom) {
      st->tick_armed = false;
      st->core->publish_tick(now_instant());
      push_deferred(self, *st);
      arm_tick(*st);
    },
    [st](channel_audit_atom, const channel_audits& audits) {
      const instant now = now_instant();
      for (const auto& a : audits) st->core->audit_channel(a, now);
    },
    [st](channel_closed_atom, std::uint32_t channel_id) {
      st->channels.erase(channel_id);
      std::erase_if(st->parked, [channel_id](const auto& e) { return e.second.batch->channel_id == channel_id; });
      std::erase_if(st->role_parked, [channel_id](const auto& e) { return e.second.batch->channel_id == channel_id; });
      st->core->channel_closed(channel_id);
    },
    [self, st, housekeeping](housekeeping_atom) {
      st->core->on_tick(now_instant());
      if (auto* m = st->core->metrics()) {
        auto& h = m->host();
        // The messages taken into the queue and not yet handled. Not mailbox().size(): its fetch_more()
        // downcasts the queue's sentinel node (CAF 0.17, task_queue::back on an empty queue), which
        // UBSan reports as an invalid downcast and stops the server.
        h.mailbox_depth.set(self->mailbox().queue().total_task_size());
        h.wait_max_window.set(h.wait_max_ns.get());
        h.wait_max_ns.set(0);
      }
      push_deferred(self, *st);  // sessions that timed out answer their queued Publish requests
      delayed_send_to_self(self, housekeeping, housekeeping_atom::value);
    },
  };
}

}  // namespace

session_host_ref spawn_session_host_ref(caf::actor_system& sys, server_core core, std::chrono::milliseconds housekeeping,
                                        host_thread where, std::shared_ptr<crypto_pool> crypto) {
  auto st = std::make_shared<host_state>(std::make_shared<server_core>(std::move(core)), std::move(crypto));
  if (where == host_thread::multiplexer)
    return {sys.middleman().spawn_broker(session_host<caf::io::broker>, st, housekeeping), st};
  return {sys.spawn(session_host<caf::event_based_actor>, std::move(st), housekeeping), nullptr};
}

caf::actor spawn_session_host(caf::actor_system& sys, server_core core, std::chrono::milliseconds housekeeping,
                              host_thread where, std::shared_ptr<crypto_pool> crypto) {
  return spawn_session_host_ref(sys, std::move(core), housekeeping, where, std::move(crypto)).actor;
}

bool answer_inline(caf::io::broker* self, host_state& st, const batch_ptr& batch) {
  auto& ch = st.channels[batch->channel_id];
  // Compared by pointer: no reference count touched per batch (actor_cast to a raw pointer
  // dereferences, so a channel's first batch, with no connection yet, is checked first).
  if (!ch.connection || caf::actor_cast<caf::abstract_actor*>(ch.connection) != self)
    ch.connection = caf::actor_cast<caf::actor>(self);
  const bool complete = answer_from(st, batch, 0, nullptr, ch.connection);
  push_deferred(self, st);
  arm_tick(st);
  return complete;
}

}  // namespace uactor::actors
