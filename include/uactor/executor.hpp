// Where the application's callbacks run: an executor is a function that takes a task and runs it
// somewhere of the application's choosing (its thread pool, its event loop, its actor). The server
// posts each callback through the executor given with the handler and never waits for it.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace uactor {

using task = std::function<void()>;
using executor = std::function<void(task)>;

// Runs the task at once, on the server's own thread. Only for handlers that answer in
// microseconds and never block (a table lookup, a range check): everything else waits behind them.
inline executor inline_executor() {
  return [](task t) { t(); };
}

// One thread of its own that runs the tasks posted to it in order. The destructor runs what is
// queued, then joins. Copy executor() out of it; the thread_executor must outlive those copies.
class thread_executor {
public:
  thread_executor() : thread_([this] { run(); }) {}
  ~thread_executor() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_one();
    thread_.join();
  }
  thread_executor(const thread_executor&) = delete;
  thread_executor& operator=(const thread_executor&) = delete;

  void post(task t) {
    {
      std::lock_guard lock(mutex_);
      tasks_.push_back(std::move(t));
    }
    ready_.notify_one();
  }
  executor get() {
    return [this](task t) { post(std::move(t)); };
  }

private:
  void run() {
    for (;;) {
      task t;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        t = std::move(tasks_.front());
        tasks_.pop_front();
      }
      t();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<task> tasks_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the rest exists
};

}  // namespace uactor
