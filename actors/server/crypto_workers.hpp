// Work too long for the shared thread (docs/decisions/0022): the asymmetric crypto of an
// OpenSecureChannel, the signatures of CreateSession and ActivateSession, the password check of a
// UserName login (PBKDF2, some 24 ms). A small pool of detached worker actors, each on its own
// thread at a lower priority than the multiplexer, runs such tasks and sends each back to the
// actor that submitted it, whose state it then applies. A bounded number of tasks may wait:
// beyond it the newcomer is refused (Bad_TcpServerTooBusy / Bad_ServerTooBusy), so that a
// connection storm queues bounded work and never stalls the established sessions.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>

namespace uactor::actors {

// One piece of work. run() happens on a worker thread and must only touch what the task owns (or
// what locks itself); the submitter does not touch that state until the task comes back to it.
class crypto_task {
public:
  enum class kind : std::uint8_t { channel_open, session_check };
  explicit crypto_task(kind k) noexcept : kind_(k) {}
  virtual ~crypto_task() = default;
  virtual void run() = 0;
  kind what() const noexcept { return kind_; }

  caf::actor reply_to;  // gets the task back (a crypto_task_ptr message) once run() returned
  bool suspect = false;  // set by submit: queued in the suspects' lane (crypto_pool::submit)

private:
  kind kind_;
};

using crypto_task_ptr = std::shared_ptr<crypto_task>;

struct crypto_pool_options {
  std::size_t workers = 2;      // 0: no pool, the work runs inline on the submitter's thread
  std::size_t max_queued = 64;  // tasks submitted and not finished, past which newcomers are refused
  // Of those, at most this many from the suspects' lane (login attempts of a user name or an
  // address that failed before; docs/security.md "Login attempts"). 0: max_queued / 4, at least 1.
  std::size_t max_queued_suspects = 0;
  int nice = 10;                // the workers' niceness: the multiplexer thread comes first on a busy box
};

class crypto_pool {
public:
  crypto_pool(caf::actor_system& sys, crypto_pool_options options);
  ~crypto_pool();
  crypto_pool(const crypto_pool&) = delete;
  crypto_pool& operator=(const crypto_pool&) = delete;

  // Hands `task` to the least busy worker. False, and nothing queued, when max_queued tasks are
  // waiting already, unless `always` (a token renewal of an open channel: refusing it would end an
  // established session).
  // A session check goes in one of two lanes: `suspect` (a login of a user name or address that
  // failed before) is queued at normal priority and refused past max_queued_suspects, so that a
  // storm of wrong passwords holds a quarter of the queue at most; the others go as CAF's urgent
  // messages, which a worker takes two to one before normal ones (CAF 0.17's categorized mailbox).
  bool submit(crypto_task_ptr task, bool always = false, bool suspect = false);

  // The workers end when `owner` does (the session host: spawn_server's servers stop with it).
  void bind_lifetime(const caf::actor& owner);
  // Ends the workers now (also done by the destructor).
  void stop();

  // Tasks submitted and not finished; refused and finished since the start.
  std::size_t queued() const noexcept { return counts_->queued.load(std::memory_order_relaxed); }
  std::uint64_t refused() const noexcept { return counts_->refused.load(std::memory_order_relaxed); }
  std::uint64_t completed() const noexcept { return counts_->completed.load(std::memory_order_relaxed); }
  std::size_t max_queued() const noexcept { return options_.max_queued; }
  std::size_t max_queued_suspects() const noexcept;
  std::size_t queued_suspects() const noexcept { return counts_->suspects.load(std::memory_order_relaxed); }
  std::uint64_t refused_suspects() const noexcept { return counts_->refused_suspects.load(std::memory_order_relaxed); }

  // Shared with the workers, which may outlive the pool by the task they are running.
  struct counts {
    std::atomic<std::size_t> queued{0};
    std::atomic<std::uint64_t> refused{0};
    std::atomic<std::uint64_t> completed{0};
    std::atomic<std::size_t> suspects{0};            // queued in the suspects' lane
    std::atomic<std::uint64_t> refused_suspects{0};  // refused because that lane was full
  };
  struct worker_slot {
    caf::actor actor;
    std::shared_ptr<std::atomic<std::size_t>> load;  // tasks queued at this worker
  };

private:
  crypto_pool_options options_;
  std::shared_ptr<counts> counts_;
  std::vector<worker_slot> workers_;
};

}  // namespace uactor::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::crypto_task_ptr)
