// tests/support/tsan_caf_sync.cpp itself (compiled only into the TSan build of uactor_actor_tests):
// what it tells TSan of a reference count must order a real hand-off. docs/decisions/0044.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include <caf/all.hpp>

namespace {

// Both holders write a field of their own and drop their reference, at once; whoever drops the
// last one destroys the object, which writes both fields. The reference count is the only thing
// between them, as for a scoped_actor's cleanup on one thread and its destruction on another.
struct two_holders final : caf::ref_counted {
  int first = 0;
  int second = 0;
  ~two_holders() override { first = second = -1; }
};

}  // namespace

TEST_CASE("tsan shim: the last of two holders dropping a reference at once sees the other's writes", "[tsan]") {
  // Many rounds, both threads released at once: the window the shim once left (its acquire
  // before CAF's decrement) is a few instructions wide, and a race there ends this binary
  // (halt_on_error). Bounded: each round waits at most a second for the other thread.
  constexpr int rounds = 20'000;
  std::atomic<two_holders*> object{nullptr};
  std::atomic<int> go{0};
  std::atomic<int> done{0};
  const auto wait_for = [](const std::atomic<int>& x, int value) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (x.load(std::memory_order_acquire) < value && std::chrono::steady_clock::now() < deadline) {
    }
    return x.load(std::memory_order_acquire) >= value;
  };
  std::thread other([&] {
    for (int i = 1; i <= rounds; ++i) {
      if (!wait_for(go, i)) return;
      auto* x = object.load(std::memory_order_acquire);
      x->second = 1;
      x->deref();
      done.store(i, std::memory_order_release);
    }
  });
  int finished = 0;
  for (int i = 1; i <= rounds; ++i) {
    auto* x = new two_holders;  // one reference
    x->ref();                   // the other thread's
    object.store(x, std::memory_order_release);
    go.store(i, std::memory_order_release);
    x->first = 1;
    x->deref();
    if (!wait_for(done, i)) break;
    finished = i;
  }
  other.join();
  CHECK(finished == rounds);
}
