// The out-of-process runner (docs/decisions/0020): a supervisor actor and N worker processes. Each
// worker compiles the whole set (any worker can run any item); an item runs on its home shard
// (index mod N) or, while that one is down, on the next one up. One batch in flight per worker: the
// runs of a pass go out as one RunBatch frame, results stream back one per run, in order, so the
// clock of run k starts when the result of run k-1 arrives (run 0: when the batch is written to an
// idle worker). Past T its output is Bad_Timeout; past T + G the worker is SIGKILLed, the run struck,
// and the runs behind it are victims, run again elsewhere and never struck.
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/shards/runner.hpp"
#include "actors/shards/wall_clock.hpp"
#include "actors/shards/worker_process.hpp"
#include "scripting/frames.hpp"
#include "scripting/shadow.hpp"

namespace uactor::actors {

namespace {

// What a worker's reader thread saw: a frame's body, or the end of the stream (`eof`).
struct worker_event {
  std::uint32_t worker = 0;
  std::uint64_t incarnation = 0;
  bool eof = false;
  std::string error;  // a header refused
  std::vector<std::byte> body;
};
using worker_event_ptr = std::shared_ptr<worker_event>;

}  // namespace
}  // namespace uactor::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::worker_event_ptr)

namespace uactor::actors {

namespace {

using run_atom = caf::atom_constant<caf::atom("shrun")>;
using due_atom = caf::atom_constant<caf::atom("shdue")>;
using deadline_atom = caf::atom_constant<caf::atom("shdead")>;
using restart_atom = caf::atom_constant<caf::atom("shrest")>;
using load_due_atom = caf::atom_constant<caf::atom("shload")>;
using beat_atom = caf::atom_constant<caf::atom("shbeat")>;
using flush_atom = caf::atom_constant<caf::atom("shflush")>;

using clock = std::chrono::steady_clock;

enum class phase { down, loading, up };

struct worker_slot {
  worker_process proc;
  std::thread reader;
  std::uint64_t incarnation = 0;
  phase at = phase::down;
  std::vector<scripting::eval_request> queue;  // routed here, not yet sent
  std::vector<scripting::eval_request> batch;  // sent; results come back in this order
  // Shadow mode (compare), beside queue and batch: each run's published result and its pass's `now`.
  std::vector<scripting::eval_result> queue_published, batch_published;
  std::vector<double> queue_now;
  double batch_now = 0;
  std::size_t next = 0;                        // the run the worker is on
  std::uint64_t batch_id = 0;
  clock::time_point started{};                 // of batch[next]
  bool late = false;                           // batch[next] passed T
  bool timer_armed = false;                    // one deadline timer per worker at a time
  bool killing = false;                        // we killed it: a runaway, a silent or hostile worker
  bool down_logged = false;
  std::uint32_t failures = 0;                  // unexplained deaths in a row
  clock::time_point last_frame{};
};

struct supervisor_state {
  explicit supervisor_state(runner_setup s)
      : setup(std::move(s)), set(setup.items, setup.input_slots, setup.policy, clock::now()), slots(setup.workers) {}
  runner_setup setup;
  scripting::script_set set;
  std::vector<worker_slot> slots;
  std::vector<scripting::eval_request> ready;
  std::vector<scripting::output_value> out;
  std::vector<std::byte> frame;
  bool scheduled = false;
  bool flush_scheduled = false;
  std::optional<clock::time_point> timer;
  bool stopping = false;
  rate_limited_warning kill_warning{std::chrono::seconds(10)};
  rate_limited_warning mismatch_warning{std::chrono::seconds(10)};

  void shutdown() {
    stopping = true;
    for (auto& w : slots) {
      if (w.proc.fd >= 0) ::shutdown(w.proc.fd, SHUT_RDWR);
      kill_worker(w.proc);
      if (w.reader.joinable()) w.reader.join();
      reap_worker(w.proc);
    }
  }
};

// Blocking reads of one worker's socket into frames, each a message to the supervisor; ends with an
// eof message when the worker dies (or sends a header the reader refuses).
void read_frames(caf::actor sup, int fd, std::uint32_t worker, std::uint64_t incarnation, std::size_t max_frame) {
  scripting::frame_reader reader(max_frame);
  std::vector<std::byte> buf(64u << 10);
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    const auto sc = reader.put(std::span(buf.data(), static_cast<std::size_t>(n)), [&](std::span<const std::byte> body) {
      auto e = std::make_shared<worker_event>();
      e->worker = worker;
      e->incarnation = incarnation;
      e->body.assign(body.begin(), body.end());
      caf::anon_send(sup, std::move(e));
    });
    if (sc.is_bad()) {
      auto e = std::make_shared<worker_event>();
      e->worker = worker;
      e->incarnation = incarnation;
      e->eof = true;
      e->error = "a frame header refused: " + sc.to_string();
      caf::anon_send(sup, std::move(e));
      return;
    }
  }
  auto e = std::make_shared<worker_event>();
  e->worker = worker;
  e->incarnation = incarnation;
  e->eof = true;
  caf::anon_send(sup, std::move(e));
}

bool write_all(int fd, const std::vector<std::byte>& out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::send(fd, out.data() + done, out.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

class supervisor {
public:
  supervisor(caf::event_based_actor* self, std::shared_ptr<supervisor_state> st) : self_(self), st_(std::move(st)) {}

  void start(std::uint32_t w) {
    auto& slot = st_->slots[w];
    if (st_->stopping || slot.at != phase::down) return;
    worker_launch launch;
    launch.program = st_->setup.worker_program;
    launch.limits = st_->setup.limits;
    launch.address_space = st_->setup.worker_address_space;
    launch.heartbeat_ms = static_cast<std::uint32_t>(st_->setup.heartbeat.count());
    std::string error;
    slot.proc = start_worker(launch, error);
    if (slot.proc.pid < 0) {
      spdlog::error("scripts: shard {}: {}", w, error);
      ++slot.failures;
      self_->delayed_send(self_, std::max(restart_delay(slot.failures), std::chrono::milliseconds(100)),
                          restart_atom::value, w);
      return;
    }
    ++st_->setup.counters->worker_starts;
    st_->setup.counters->set_pid(w, slot.proc.pid);
    slot.incarnation++;
    slot.timer_armed = false;
    slot.at = phase::loading;
    slot.killing = false;
    slot.last_frame = clock::now();
    slot.reader = std::thread(read_frames, caf::actor_cast<caf::actor>(self_), slot.proc.fd, w, slot.incarnation,
                              scripting::default_max_frame);
    scripting::load_frame load;
    for (const auto& it : st_->setup.items) load.items.push_back(it.spec);
    st_->frame.clear();
    scripting::encode(load, st_->frame);
    if (!write_all(slot.proc.fd, st_->frame)) return kill(w, "the load could not be written");
    // Armed now: the worker compiles as soon as it reads, nothing queues before it.
    self_->delayed_send(self_, st_->setup.load_timeout, load_due_atom::value, w, slot.incarnation);
  }

  void kill(std::uint32_t w, const std::string& why) {
    auto& slot = st_->slots[w];
    if (slot.killing || slot.proc.pid < 0) return;
    if (std::uint64_t held_back = 0; st_->kill_warning.due(clock::now(), held_back))
      spdlog::warn("scripts: shard {} (pid {}) killed: {}{}", w, slot.proc.pid, why,
                   held_back ? fmt::format(" ({} more kills since the last warning)", held_back) : "");
    slot.killing = true;
    if (slot.at == phase::up) --st_->setup.counters->workers_up;
    slot.at = phase::down;
    kill_worker(slot.proc);
    lose_runs(w);
  }

  // The runs a dead or killed worker held: victims, routed again at the next pass.
  void lose_runs(std::uint32_t w) {
    auto& slot = st_->slots[w];
    if (st_->setup.compare) {
      // A shadow's lost run is not run again: its published twin has moved on. Counted, not compared.
      st_->setup.counters->shadow_unavailable += slot.batch.size() - std::min(slot.next, slot.batch.size()) + slot.queue.size();
    } else {
      for (std::size_t i = slot.next; i < slot.batch.size(); ++i) victim(slot.batch[i].item);
      for (const auto& r : slot.queue) victim(r.item);
    }
    dequeued(w, slot.queue.size());
    slot.batch.clear();
    slot.queue.clear();
    slot.batch_published.clear();
    slot.queue_published.clear();
    slot.queue_now.clear();
    slot.next = 0;
    schedule();
  }

  void victim(std::uint32_t item) {
    ++st_->setup.counters->victims;
    st_->set.victim(item);
  }

  void schedule() {
    if (st_->scheduled) return;
    st_->scheduled = true;
    self_->send(self_, run_atom::value);
  }

  std::optional<std::uint32_t> route(std::uint32_t item) const {
    const auto n = static_cast<std::uint32_t>(st_->slots.size());
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t w = (item + k) % n;
      if (st_->slots[w].at == phase::up) return w;
    }
    return std::nullopt;
  }

  // Shadow mode: the published runner's pass, routed as a pass of our own would be. The shadow's
  // script_set is not used (the published runner decides what runs); only its items' names are.
  void shadow_pass(const shadow_runs& in) {
    auto& st = *st_;
    auto& c = *st.setup.counters;
    const auto n = static_cast<std::uint32_t>(st.slots.size());
    for (std::size_t i = 0; i < in.runs.size() && i < in.published.size(); ++i) {
      // No shard up (loading at the start, restarting): the home shard's queue keeps the run until
      // it is (a calculation's first runs, missed, would leave its state behind for good), as far
      // as the queue's bound.
      const auto w = route(in.runs[i].item).value_or(in.runs[i].item % n);
      if (c.queue_depth >= st.setup.shadow_queue) {
        ++c.shadow_unavailable;
        continue;
      }
      auto& slot = st.slots[w];
      slot.queue.push_back(in.runs[i]);
      slot.queue_published.push_back(in.published[i]);
      slot.queue_now.push_back(in.now_seconds);
      ++c.queue_depth;
      ++shard(w).queue_depth;
    }
    for (std::uint32_t w = 0; w < st.slots.size(); ++w) send_batch(w);
  }

  void pass() {
    auto& st = *st_;
    if (st.setup.compare) {
      for (std::uint32_t w = 0; w < st.slots.size(); ++w) send_batch(w);
      return;
    }
    const auto now = clock::now();
    st.ready.clear();
    st.set.take_ready(now, st.ready, st.out);
    for (auto& r : st.ready) {
      if (const auto w = route(r.item)) {
        st.slots[*w].queue.push_back(std::move(r));
        ++st.setup.counters->queue_depth;
        ++shard(*w).queue_depth;
      } else {
        st.set.runner_down(r.item, st.out);  // no shard up: Bad_ResourceUnavailable, run on recovery
      }
    }
    for (std::uint32_t w = 0; w < st.slots.size(); ++w) send_batch(w);
    publish();
    if (const auto due = st.set.next_due(); due && (!st.timer || *due < *st.timer)) {
      st.timer = *due;
      self_->delayed_send(self_, std::max(*due - clock::now(), clock::duration{0}), due_atom::value);
    }
  }

  // Outputs leave once the mailbox holds no more results: the results of a streamed batch that
  // arrived together become one value batch.
  void publish() {
    if (st_->out.empty() || st_->flush_scheduled) return;
    st_->flush_scheduled = true;
    self_->send(self_, flush_atom::value);
  }
  void flush() {
    st_->flush_scheduled = false;
    if (!st_->out.empty()) st_->setup.publish(st_->out);
    st_->out.clear();
  }

  void send_batch(std::uint32_t w) {
    auto& slot = st_->slots[w];
    if (slot.at != phase::up || !slot.batch.empty() || slot.queue.empty()) return;
    if (st_->setup.compare) {
      // The runs of one published pass at most (they share its `now`), in order.
      std::size_t n = 1;
      while (n < slot.queue.size() && slot.queue_now[n] == slot.queue_now[0]) ++n;
      const auto first = [n](auto& v) { return std::make_move_iterator(v.begin() + static_cast<std::ptrdiff_t>(n)); };
      slot.batch.assign(std::make_move_iterator(slot.queue.begin()), first(slot.queue));
      slot.batch_published.assign(std::make_move_iterator(slot.queue_published.begin()), first(slot.queue_published));
      slot.batch_now = slot.queue_now[0];
      slot.queue.erase(slot.queue.begin(), slot.queue.begin() + static_cast<std::ptrdiff_t>(n));
      slot.queue_published.erase(slot.queue_published.begin(), slot.queue_published.begin() + static_cast<std::ptrdiff_t>(n));
      slot.queue_now.erase(slot.queue_now.begin(), slot.queue_now.begin() + static_cast<std::ptrdiff_t>(n));
      dequeued(w, n);
    } else {
      dequeued(w, slot.queue.size());
      slot.batch.swap(slot.queue);
      slot.batch_now = seconds_since_1970();
    }
    slot.next = 0;
    scripting::run_batch_frame f;
    f.batch = ++slot.batch_id;
    f.now_seconds = slot.batch_now;
    f.runs.reserve(slot.batch.size());
    for (auto& r : slot.batch) f.runs.push_back({r.item, r.active, r.inputs});
    st_->frame.clear();
    scripting::encode(f, st_->frame);
    if (!write_all(slot.proc.fd, st_->frame)) return kill(w, "a batch could not be written");
    start_clock(w);
  }

  void start_clock(std::uint32_t w) {
    auto& slot = st_->slots[w];
    slot.started = clock::now();
    slot.late = false;
    arm(w, slot.started + st_->setup.soft_deadline);
  }

  void arm(std::uint32_t w, clock::time_point when) {
    auto& slot = st_->slots[w];
    if (slot.timer_armed) return;  // it fires earlier and re-arms for the run then
    slot.timer_armed = true;
    self_->delayed_send(self_, std::max(when - clock::now(), clock::duration{0}), deadline_atom::value, w,
                        slot.incarnation);
  }

  void deadline(std::uint32_t w, std::uint64_t incarnation) {
    auto& st = *st_;
    auto& slot = st.slots[w];
    if (incarnation != slot.incarnation) return;  // a timer of a worker gone since
    slot.timer_armed = false;
    if (slot.at != phase::up || slot.next >= slot.batch.size()) return;
    const auto now = clock::now();
    const auto soft = slot.started + st.setup.soft_deadline;
    const auto hard = soft + st.setup.grace;
    const std::uint32_t item = slot.batch[slot.next].item;
    if (now >= hard) {
      ++st.setup.counters->kills;
      ++shard(w).kills;
      scripting::eval_result r;
      r.how = scripting::outcome::deadline;
      r.error = "ran past its deadline (" + std::to_string(st.setup.soft_deadline.count()) + " ms + " +
                std::to_string(st.setup.grace.count()) + " ms grace): its worker was killed";
      complete(w, item, r);
      ++slot.next;  // the culprit is done; the rest are victims
      kill(w, st.set.item(item).spec.name + " ran past its deadline");
      publish();
      return;
    }
    if (now >= soft && !slot.late) {
      slot.late = true;
      ++st.setup.counters->timeouts;
      ++shard(w).timeouts;
      if (!st.setup.compare) st.set.late(item, st.out);
      publish();
    }
    arm(w, slot.late ? hard : soft);
  }

  void complete(std::uint32_t w, std::uint32_t item, const scripting::eval_result& r) {
    auto& c = *st_->setup.counters;
    ++c.evaluations;
    ++shard(w).evaluations;
    if (r.how != scripting::outcome::ok) {
      ++c.errors;
      ++shard(w).errors;
    }
    if (st_->setup.compare) return compare(w, item, r);
    const bool was = st_->set.quarantined(item);
    std::string log;
    st_->set.completed(item, r, clock::now(), st_->out, log);
    if (!was && st_->set.quarantined(item)) ++c.quarantines;
    if (!log.empty()) spdlog::warn("scripts: {}", log);
  }

  // Shadow mode: the run now done (batch[next]) against its published twin.
  void compare(std::uint32_t w, std::uint32_t item, const scripting::eval_result& r) {
    auto& slot = st_->slots[w];
    auto& c = *st_->setup.counters;
    if (slot.next >= slot.batch_published.size()) return;
    const auto& published = slot.batch_published[slot.next];
    switch (scripting::compare_runs(published, r, slot.late)) {
      case scripting::shadow_verdict::same: ++c.shadow_compared; return;
      case scripting::shadow_verdict::timeout: ++c.shadow_timeouts; return;
      case scripting::shadow_verdict::mismatch: break;
    }
    ++c.shadow_compared;
    ++c.shadow_mismatches;
    if (std::uint64_t held_back = 0; st_->mismatch_warning.due(clock::now(), held_back))
      spdlog::warn("scripts: shadow mismatch: {}: published {}, shadow (shard {}) {}{}", st_->set.item(item).spec.name,
                   scripting::describe(published), w, scripting::describe(r),
                   held_back ? fmt::format(" ({} more mismatches since the last warning)", held_back) : "");
  }

  void event(const worker_event& e) {
    auto& st = *st_;
    if (e.worker >= st.slots.size()) return;
    auto& slot = st.slots[e.worker];
    if (e.incarnation != slot.incarnation) return;
    if (e.eof) return died(e.worker, e.error);
    slot.last_frame = clock::now();
    const auto type = static_cast<scripting::frame_type>(e.body[0]);
    if (type == scripting::frame_type::result) {
      auto f = scripting::decode_result(e.body);
      if (!f || slot.next >= slot.batch.size() || f->batch != slot.batch_id || f->item != slot.batch[slot.next].item)
        return kill(e.worker, "a result out of order or malformed");
      st.setup.counters->eval_ns += f->duration_ns;
      shard(e.worker).eval_ns += f->duration_ns;
      complete(e.worker, f->item, f->result);
      if (++slot.next < slot.batch.size()) {
        start_clock(e.worker);  // the worker started the next run when it wrote this result
      } else {
        slot.batch.clear();
        slot.batch_published.clear();
        slot.next = 0;
        slot.failures = 0;
        send_batch(e.worker);
      }
      // No batch in flight any more: no result can join these outputs, so they leave now rather
      // than after a message to ourselves (a mailbox hop: 3.5-4.4 against 1.7-2.3 µs from the
      // result's handler to the outputs published, bench/actors/scripts_idle_probe.patch).
      if (!st.setup.flush_by_message && idle()) flush();
      else publish();
      if (!st.setup.compare && st.set.has_dirty()) schedule();
      return;
    }
    if (type == scripting::frame_type::loaded) {
      auto f = scripting::decode_loaded(e.body);
      if (!f || slot.at != phase::loading) return kill(e.worker, "a malformed load answer");
      for (const auto& error : f->errors)
        if (!error.empty()) spdlog::error("scripts: shard {}: {}", e.worker, error);
      slot.at = phase::up;
      ++st.setup.counters->workers_up;
      if (slot.down_logged) spdlog::info("scripts: shard {} is back (pid {})", e.worker, slot.proc.pid);
      slot.down_logged = false;
      schedule();  // what a runner fault left Bad_ResourceUnavailable is due (runner_down) and runs now
      return;
    }
    if (type == scripting::frame_type::heartbeat) {
      if (!scripting::decode_heartbeat(e.body)) kill(e.worker, "a malformed heartbeat");
      return;
    }
    kill(e.worker, "a frame of unknown type " + std::to_string(static_cast<unsigned>(e.body[0])));
  }

  void died(std::uint32_t w, const std::string& error) {
    auto& st = *st_;
    auto& slot = st.slots[w];
    const bool ours = slot.killing;
    if (slot.at == phase::up) --st.setup.counters->workers_up;
    slot.at = phase::down;
    lose_runs(w);
    kill_worker(slot.proc);
    if (slot.reader.joinable()) slot.reader.join();
    const int status = reap_worker(slot.proc);
    st.setup.counters->set_pid(w, -1);
    ++st.setup.counters->worker_deaths;
    if (st.stopping) return;
    if (!ours) {
      ++slot.failures;
      if (!slot.down_logged) {
        std::string how = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                              : "exited with " + std::to_string(WEXITSTATUS(status));
        spdlog::error("scripts: shard {} died ({}{}); its runs go to other shards, restart in {} ms", w, how,
                      error.empty() ? "" : ", " + error, restart_delay(slot.failures).count());
        slot.down_logged = true;
      }
    }
    // A runaway's kill restarts at once (the culprit is struck); deaths in a row back off.
    const auto delay = ours ? std::chrono::milliseconds(0) : restart_delay(slot.failures);
    if (delay.count() == 0) start(w);
    else self_->delayed_send(self_, delay, restart_atom::value, w);
  }

  void load_due(std::uint32_t w, std::uint64_t incarnation) {
    auto& slot = st_->slots[w];
    if (incarnation == slot.incarnation && slot.at == phase::loading) {
      ++slot.failures;
      kill(w, "it did not load the scripts in " + std::to_string(st_->setup.load_timeout.count()) + " ms");
    }
  }

  void beat() {
    const auto now = clock::now();
    for (std::uint32_t w = 0; w < st_->slots.size(); ++w) {
      auto& slot = st_->slots[w];
      if (slot.at != phase::up || !slot.batch.empty()) continue;  // a busy one answers to its deadline
      if (now - slot.last_frame > 4 * st_->setup.heartbeat) {
        ++slot.failures;
        kill(w, "no heartbeat for " + std::to_string(4 * st_->setup.heartbeat.count()) + " ms");
      }
    }
    self_->delayed_send(self_, st_->setup.heartbeat, beat_atom::value);
  }

private:
  bool idle() const {
    for (const auto& slot : st_->slots)
      if (!slot.batch.empty()) return false;
    return true;
  }
  shard_counters& shard(std::uint32_t w) { return st_->setup.counters->shards[w]; }
  void dequeued(std::uint32_t w, std::size_t n) {
    st_->setup.counters->queue_depth -= n;
    shard(w).queue_depth -= n;
  }

  caf::event_based_actor* self_;
  std::shared_ptr<supervisor_state> st_;
};

caf::behavior shard_supervisor(caf::event_based_actor* self, std::shared_ptr<supervisor_state> st, caf::actor host) {
  auto sup = std::make_shared<supervisor>(self, st);
  self->monitor(host);
  self->set_down_handler([self](const caf::down_msg&) { self->quit(); });
  self->attach_functor([st] { st->shutdown(); });
  self->set_exception_handler([](caf::scheduled_actor*, std::exception_ptr& e) -> caf::error {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      spdlog::error("scripts: the shard supervisor stopped: {}", x.what());
    }
    return caf::exit_reason::unhandled_exception;
  });
  for (std::uint32_t w = 0; w < st->slots.size(); ++w) sup->start(w);
  self->delayed_send(self, st->setup.heartbeat, beat_atom::value);
  return {
      [sup, st](const input_changes_ptr& changes) {
        for (const auto& ch : *changes) st->set.input_changed(ch.slot, ch.value);
        sup->schedule();
      },
      [sup, st](run_atom) {
        st->scheduled = false;
        sup->pass();
      },
      [sup, st](due_atom) {
        st->timer.reset();
        sup->pass();
      },
      [sup](const worker_event_ptr& e) { sup->event(*e); },
      [sup](deadline_atom, std::uint32_t w, std::uint64_t incarnation) { sup->deadline(w, incarnation); },
      [sup](restart_atom, std::uint32_t w) { sup->start(w); },
      [sup](load_due_atom, std::uint32_t w, std::uint64_t incarnation) { sup->load_due(w, incarnation); },
      [sup](beat_atom) { sup->beat(); },
      [sup](flush_atom) { sup->flush(); },
      [sup](const shadow_runs_ptr& runs) { sup->shadow_pass(*runs); },
      [self](const caf::actor& published) { self->monitor(published); },  // a shadow ends with it
  };
}

}  // namespace

caf::actor spawn_shard_supervisor(caf::actor_system& sys, runner_setup setup, caf::actor host) {
  if (setup.workers == 0) setup.workers = 1;
  setup.counters->shards = std::make_unique<shard_counters[]>(setup.workers);
  setup.counters->shard_count = setup.workers;
  auto st = std::make_shared<supervisor_state>(std::move(setup));
  return sys.spawn(shard_supervisor, std::move(st), std::move(host));
}

}  // namespace uactor::actors
