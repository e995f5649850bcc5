// The simulated device: a thread of the application that owns the plant's tags and pushes every
// tag once per interval as one batch (server::write_values). Stand-in for a PLC or field-bus
// driver: replace run()'s body with what the driver reads. The device owns its thread; the server
// must outlive the device (main.cpp stops the device first).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <uactor/server.hpp>

#include "options.hpp"

namespace scada {

class device {
public:
  // `tags` in the order of Plant.Tag<i>; `running` and `pushes` are Plant.Device's variables,
  // kept up to date by the device.
  device(uactor::server& server, std::vector<uactor::value_handle> tags, uactor::value_handle running,
         uactor::value_handle pushes, const options& o);
  ~device();  // stop()
  device(const device&) = delete;
  device& operator=(const device&) = delete;

  // Plant.Device.Running: from a client's Write (main.cpp) or the command line.
  void set_running(bool on);
  bool running() const noexcept { return running_; }

  void stop();

  // What was pushed so far, and how often the server said it was behind (the batch was then sent
  // again: no value is dropped).
  std::uint64_t batches() const noexcept { return batches_; }
  std::uint64_t values() const noexcept { return values_; }
  std::uint64_t behind() const noexcept { return behind_; }

private:
  void run();
  bool push(std::uint32_t sequence);

  uactor::server& server_;
  std::vector<uactor::value_handle> tags_;
  uactor::value_handle running_node_, pushes_node_;
  std::chrono::milliseconds interval_;
  std::uint64_t pushes_per_start_;

  std::atomic<bool> running_;
  std::atomic<std::uint64_t> batches_{0}, values_{0}, behind_{0};
  std::uint64_t since_start_ = 0;              // batches since the last start, under mutex_
  std::vector<uactor::value_update> batch_;  // the device thread's, reused for every push

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the rest exists
};

}  // namespace scada
