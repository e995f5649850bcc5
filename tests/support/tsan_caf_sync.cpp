// ThreadSanitizer and CAF 0.17 as Debian ships it (linked only into TSan builds).
//
// Debian's libcaf_core and libcaf_io are not built with -fsanitize=thread: the atomics by which
// they hand a message from its sender to the thread that runs the receiver are invisible to TSan,
// so every object a message carries, every spawn's arguments and every actor's state touched from
// two workers in turn looks like a race. Suppressing races with a CAF frame anywhere in a stack
// hides those, and also every real race in an actor's handler (a handler runs under CAF's
// frames). Instead this file tells TSan of CAF's hand-offs, as annotations would in an
// instrumented CAF: each of these exported CAF functions is defined here, interposes the library's
// (the executable's definition wins at dynamic link time, also for the library's own calls through
// its PLT and vtables), marks the synchronisation on the actor's control block and calls the
// library's own (dlsym RTLD_NEXT):
//   - a message enqueued, an actor launched: release (what the sender did before is published);
//   - an actor resumed by a worker or by the multiplexer: acquire at the start, release at the
//     end (the next worker to run it sees what this run did), and acquire as it takes each
//     message (a run also takes the messages enqueued while it runs);
//   - a blocking actor (scoped_actor) that got a message: acquire;
//   - a reference dropped (an actor's strong or weak one, any other ref_counted object's): release
//     before the decrement, acquire after the decrement that reaches zero (whoever destroys the
//     object sees what every other holder did). These three are CAF's code repeated here, not
//     calls of the library's: the acquire must come between its decrement and its destruction.
// What stays visible: a race between a handler and a thread that shares memory with it without a
// message, and between two actors that share memory without one. docs/decisions/0044.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include <caf/abstract_actor.hpp>
#include <caf/actor_control_block.hpp>
#include <caf/blocking_actor.hpp>
#include <caf/config.hpp>
#include <caf/io/abstract_broker.hpp>
#include <caf/ref_counted.hpp>
#include <caf/scheduled_actor.hpp>

extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);

namespace {

template <class Fn>
Fn library_function(const char* mangled) {
  auto* f = reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, mangled));
  if (f == nullptr) {
    std::fprintf(stderr, "tsan_caf_sync: %s not found in CAF's libraries\n", mangled);
    std::abort();
  }
  return f;
}

void* sync_of(const caf::abstract_actor* actor) { return actor->ctrl(); }

}  // namespace

namespace caf {

using mailbox_element_ptr = std::unique_ptr<mailbox_element, detail::disposer>;

void scheduled_actor::enqueue(mailbox_element_ptr ptr, execution_unit* eu) {
  using fn = void (*)(scheduled_actor*, mailbox_element_ptr, execution_unit*);
  static const fn real = library_function<fn>(
      "_ZN3caf15scheduled_actor7enqueueESt10unique_ptrINS_15mailbox_elementENS_6detail8disposerEEPNS_14execution_unitE");
  __tsan_release(sync_of(this));
  real(this, std::move(ptr), eu);
}

void io::abstract_broker::enqueue(mailbox_element_ptr ptr, execution_unit* eu) {
  using fn = void (*)(io::abstract_broker*, mailbox_element_ptr, execution_unit*);
  static const fn real = library_function<fn>(
      "_ZN3caf2io15abstract_broker7enqueueESt10unique_ptrINS_15mailbox_elementENS_6detail8disposerEEPNS_14execution_unitE");
  __tsan_release(sync_of(this));
  real(this, std::move(ptr), eu);
}

void blocking_actor::enqueue(mailbox_element_ptr ptr, execution_unit* eu) {
  using fn = void (*)(blocking_actor*, mailbox_element_ptr, execution_unit*);
  static const fn real = library_function<fn>(
      "_ZN3caf14blocking_actor7enqueueESt10unique_ptrINS_15mailbox_elementENS_6detail8disposerEEPNS_14execution_unitE");
  __tsan_release(sync_of(this));
  real(this, std::move(ptr), eu);
}

void scheduled_actor::launch(execution_unit* eu, bool lazy, bool hide) {
  using fn = void (*)(scheduled_actor*, execution_unit*, bool, bool);
  static const fn real = library_function<fn>("_ZN3caf15scheduled_actor6launchEPNS_14execution_unitEbb");
  __tsan_release(sync_of(this));
  real(this, eu, lazy, hide);
}

void io::abstract_broker::launch(execution_unit* eu, bool lazy, bool hide) {
  using fn = void (*)(io::abstract_broker*, execution_unit*, bool, bool);
  static const fn real = library_function<fn>("_ZN3caf2io15abstract_broker6launchEPNS_14execution_unitEbb");
  __tsan_release(sync_of(this));
  real(this, eu, lazy, hide);
}

resumable::resume_result scheduled_actor::resume(execution_unit* eu, size_t max_throughput) {
  using fn = resumable::resume_result (*)(scheduled_actor*, execution_unit*, size_t);
  static const fn real = library_function<fn>("_ZN3caf15scheduled_actor6resumeEPNS_14execution_unitEm");
  __tsan_acquire(sync_of(this));
  const auto result = real(this, eu, max_throughput);
  __tsan_release(sync_of(this));  // alive: the scheduler holds its reference until resume returns
  return result;
}

resumable::resume_result io::abstract_broker::resume(execution_unit* eu, size_t max_throughput) {
  using fn = resumable::resume_result (*)(io::abstract_broker*, execution_unit*, size_t);
  static const fn real = library_function<fn>("_ZN3caf2io15abstract_broker6resumeEPNS_14execution_unitEm");
  __tsan_acquire(sync_of(this));
  const auto result = real(this, eu, max_throughput);
  __tsan_release(sync_of(this));  // alive: the multiplexer holds its reference until resume returns
  return result;
}

// A run takes the messages enqueued while it runs too: each one is acquired as it is taken.
invoke_message_result scheduled_actor::consume(mailbox_element& x) {
  using fn = invoke_message_result (*)(scheduled_actor*, mailbox_element&);
  static const fn real = library_function<fn>("_ZN3caf15scheduled_actor7consumeERNS_15mailbox_elementE");
  __tsan_acquire(sync_of(this));
  return real(this, x);
}

// A blocking actor's receive (a scoped_actor's request(...).receive) visits each message here.
intrusive::task_result blocking_actor::mailbox_visitor::operator()(mailbox_element& x) {
  using fn = intrusive::task_result (*)(blocking_actor::mailbox_visitor*, mailbox_element&);
  static const fn real =
      library_function<fn>("_ZN3caf14blocking_actor15mailbox_visitorclERNS_15mailbox_elementE");
  __tsan_acquire(sync_of(self));
  return real(this, x);
}

mailbox_element_ptr blocking_actor::dequeue() {
  using fn = mailbox_element_ptr (*)(blocking_actor*);
  static const fn real = library_function<fn>("_ZN3caf14blocking_actor7dequeueEv");
  auto result = real(this);
  __tsan_acquire(sync_of(this));
  return result;
}

// A reference dropped: CAF 0.17.6's own three functions (libcaf_core's actor_control_block.cpp
// and ref_counted.cpp, the same decrements and the same calls), not the library's, because the
// acquire has to sit between the decrement and the destruction, inside them: release before the
// decrement, and acquire only by the thread that takes the count to zero. Acquiring before the
// library's decrement (release, acquire, then the real function) left a window: a holder that
// wrote and dropped its reference between our acquire and our decrement was not ordered before
// the destruction we then ran. Seen in CI (decision 0044's addendum): a scoped_actor cleaned up on the main thread and
// destroyed by the middleman actor's private thread dropping the exit message's references.
static_assert(CAF_VERSION == 1706, "the three release functions below repeat CAF 0.17.6's: check them against this CAF");

void intrusive_ptr_release_weak(actor_control_block* x) {
  __tsan_release(x);
  if (x->weak_refs == 1 || x->weak_refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    __tsan_acquire(x);
    x->block_dtor(x);
  }
}

void intrusive_ptr_release(actor_control_block* x) {
  __tsan_release(x);
  if (x->strong_refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    __tsan_acquire(x);
    x->data_dtor(x->get());
    intrusive_ptr_release_weak(x);  // the implicit weak reference of the strong ones
  }
}

// The same for CAF's other reference-counted objects (messages, scribes, doormen).
void ref_counted::deref() const noexcept {
  auto* sync = const_cast<ref_counted*>(this);
  __tsan_release(sync);
  if (rc_ == 1) {
    __tsan_acquire(sync);
    request_deletion(false);
  } else if (rc_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    __tsan_acquire(sync);
    request_deletion(true);
  }
}

}  // namespace caf
