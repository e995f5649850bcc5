// `uactor load --faults` at run time (docs/decisions/0042): the recovery tracker, which turns each
// client's events and notifications into recovery times, and the injector, a thread that carries
// out a fault_plan on the proxy, one fault at a time, each once every client has recovered from
// the last. Neither knows CAF or the client: the sub driver feeds the tracker from its handlers.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "scenarios/driver.hpp"
#include "scenarios/fault_plan.hpp"
#include "scenarios/fault_proxy.hpp"

namespace uactor::scenarios {

// Per client: after a fault, the time from the link returning (the cut itself: the proxy accepts
// again at once; a stall's end) to the client's first data change notification that came after a
// reconnect (a cut always costs the connection; a stall only when the client noticed it) and after
// the link returned. Thread-safe: each client's thread reports its own index; the hot path (a
// notification with nothing armed) is one relaxed load.
class recovery_tracker {
public:
  explicit recovery_tracker(std::size_t clients);

  void lost(std::size_t client);         // connection_event lost
  void reconnected(std::size_t client);  // connection_event reconnected
  void notified(std::size_t client, load_clock::time_point now) {
    if (!state_[client].armed.load(std::memory_order_relaxed)) return;
    notified_slow(client, now);
  }

  // A fault: every client owes one notification after `link_back`, and after a reconnect if
  // `needs_reconnect`.
  void arm(load_clock::time_point link_back, bool needs_reconnect);
  std::size_t pending() const;  // clients armed and not yet recovered
  // Gives the pending ones up (counted as unrecovered).
  void disarm();

  struct figures {
    std::vector<std::chrono::nanoseconds> samples;  // one per client per fault, in order
    std::uint64_t unrecovered = 0;
    std::uint64_t losses = 0;      // lost events while counting
    std::uint64_t reconnects = 0;  // reconnected events while counting
  };
  figures take() const;
  void set_counting(bool on) { counting_.store(on, std::memory_order_relaxed); }

private:
  void notified_slow(std::size_t client, load_clock::time_point now);
  struct client_state {
    std::atomic<bool> armed{false};
    bool down = false;
    std::uint64_t reconnects = 0;
    std::uint64_t reconnects_at_arm = 0;
    bool needs_reconnect = false;
    load_clock::time_point link_back{};
  };
  mutable std::mutex mutex_;
  std::unique_ptr<client_state[]> state_;
  std::size_t clients_;
  std::atomic<bool> counting_{false};
  figures figures_;
};

class fault_injector {
public:
  // Faults start one period after start() and go on until stop(); `max_recovery` bounds the wait
  // for every client to recover before the next fault (the rest are counted as unrecovered).
  fault_injector(fault_proxy& proxy, fault_plan plan, recovery_tracker& tracker,
                 std::chrono::milliseconds max_recovery = std::chrono::milliseconds(15'000));
  ~fault_injector();
  void start();
  // No new fault; waits for the one under way to end (a stall runs its length) and for the
  // recovery from it (bounded by max_recovery).
  void stop();

  struct counts {
    std::uint64_t cuts = 0;
    std::uint64_t stalls = 0;
  };
  counts injected() const;

private:
  void run();
  bool sleep_until(load_clock::time_point t);  // false: stopping
  fault_proxy& proxy_;
  fault_plan plan_;
  recovery_tracker& tracker_;
  std::chrono::milliseconds max_recovery_;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  counts counts_;
};

}  // namespace uactor::scenarios
