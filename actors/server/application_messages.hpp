// The messages of the application's door into the session host (docs/embedding.md): value batches
// (one message per batch, the buffers recycled), jobs that run on the host with the address space
// (node changes, resolving, hooks), the application's answers and the deadline timer's tick.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>

#include "engine/server/access/role_decision.hpp"
#include "engine/server/application_calls.hpp"
#include "uactor/server.hpp"

namespace uactor::actors {

class server_core;

class value_batch_pool;

// A batch of values in flight to the host; back in its pool once applied.
struct value_batch {
  std::vector<value_update> values;
  std::weak_ptr<value_batch_pool> pool;

  // CAF's mailbox orders the sender's writes before the host's reads, but Debian's CAF is not
  // built for TSan, which cannot see that edge; without it, a batch filled by one application
  // thread and reused from the pool by another is reported as a race between the two (CI, stop
  // 25). The sender calls sent() before the send, the host received() first thing. No code
  // outside TSan builds.
  void sent() const {
#if defined(__SANITIZE_THREAD__)
    __tsan_release(const_cast<value_batch*>(this));
#endif
  }
  void received() const {
#if defined(__SANITIZE_THREAD__)
    __tsan_acquire(const_cast<value_batch*>(this));
#endif
  }
};
using value_batch_ptr = std::shared_ptr<value_batch>;

// Batch buffers that keep their capacity between batches, so that a warm batch allocates nothing.
// `in_flight` counts batches sent and not yet applied: the application's back-pressure signal.
class value_batch_pool : public std::enable_shared_from_this<value_batch_pool> {
public:
  explicit value_batch_pool(std::size_t max_in_flight) : max_in_flight_(max_in_flight) {}

  // A free batch, or null when max_in_flight batches wait to be applied.
  value_batch_ptr take() {
    std::lock_guard lock(mutex_);
    if (in_flight_ >= max_in_flight_) return nullptr;
    ++in_flight_;
    if (free_.empty()) {
      auto b = std::make_shared<value_batch>();
      b->pool = weak_from_this();
      return b;
    }
    auto b = std::move(free_.back());
    free_.pop_back();
    return b;
  }
  void give_back(value_batch_ptr b) {
    b->values.clear();
    std::lock_guard lock(mutex_);
    --in_flight_;
    free_.push_back(std::move(b));
  }

private:
  std::mutex mutex_;
  std::vector<value_batch_ptr> free_;
  std::size_t in_flight_ = 0;
  const std::size_t max_in_flight_;
};

// Events from the application (server::raise_events): one message per call.
struct event_batch {
  std::vector<event> events;
};
using event_batch_ptr = std::shared_ptr<const event_batch>;

// Work for the host on the address space, from the runtime's API calls (they wait for its result
// through what the function captures).
struct host_job {
  std::function<void(server_core&)> run;
};

using app_deadline_atom = caf::atom_constant<caf::atom("appdue")>;
// A role question's deadline (docs/decisions/0063); its answer comes as an authz::role_answer.
using role_deadline_atom = caf::atom_constant<caf::atom("roledue")>;

}  // namespace uactor::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::value_batch_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::event_batch_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::host_job)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::app_answer)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::authz::role_answer)
