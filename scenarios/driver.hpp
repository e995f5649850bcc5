// What drives the closed-loop load (one implementation per scenario) and what records its
// completions. The recorder is shared by every thread that completes requests; it counts only
// while the measurement window is open.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "uactor/client_security.hpp"
#include "scenarios/latency_histogram.hpp"

namespace uactor::scenarios {

using load_clock = std::chrono::steady_clock;

class recorder {
public:
  // One request completed, `ok` or with a bad status; `sent` is when it was sent.
  void completed(load_clock::time_point sent, load_clock::time_point now, bool ok) noexcept {
    all_.fetch_add(1, std::memory_order_relaxed);
    if (!measuring_.load(std::memory_order_relaxed)) return;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now - sent).count();
    std::lock_guard lock(mutex_);
    if (ok) {
      ++ok_;
      latency_.record(static_cast<std::uint64_t>(ns));
    } else {
      ++errors_;
    }
  }
  void set_measuring(bool on) noexcept { measuring_.store(on, std::memory_order_relaxed); }
  // Every completion since the start, measured or not (the progress line).
  std::uint64_t all() const noexcept { return all_.load(std::memory_order_relaxed); }

  struct window {
    latency_histogram latency;
    std::uint64_t ok = 0;
    std::uint64_t errors = 0;
  };
  window take() {
    std::lock_guard lock(mutex_);
    return {latency_, ok_, errors_};
  }
  // Forgets the window so far (a scenario with two windows in one run).
  void reset() {
    std::lock_guard lock(mutex_);
    latency_ = {};
    ok_ = 0;
    errors_ = 0;
  }

private:
  std::atomic<bool> measuring_{false};
  std::atomic<std::uint64_t> all_{0};
  std::mutex mutex_;
  latency_histogram latency_;
  std::uint64_t ok_ = 0;
  std::uint64_t errors_ = 0;
};

struct load_options {
  std::size_t sessions = 20;
  std::size_t inflight = 1;
  std::size_t nodes = 100;
  uactor::client_security_options security;  // every session's (--security)
  // Called once every session is connected, before the first request (a load agent waits there
  // for the run's common start time: scenarios/agent.cpp). false: give up, start() says so.
  std::function<bool()> ready_to_load;
};

inline constexpr const char* not_started = "stopped before the start time";

class load_driver {
public:
  virtual ~load_driver() = default;
  // Connects every session and starts `inflight` requests on each; "" or what went wrong.
  virtual std::string start(recorder& rec) = 0;
  // Sends no new request, waits (bounded) for those in flight, disconnects.
  virtual void stop() = 0;
};

}  // namespace uactor::scenarios
