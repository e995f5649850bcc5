#include "device.hpp"

#include <chrono>
#include <cstdio>

namespace scada {
namespace {

uactor::date_time now() {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
  return uactor::date_time::from_unix_ms(ms.count());
}

}  // namespace

device::device(uactor::server& server, std::vector<uactor::value_handle> tags, uactor::value_handle running,
               uactor::value_handle pushes, const options& o)
    : server_(server),
      tags_(std::move(tags)),
      running_node_(running),
      pushes_node_(pushes),
      interval_(o.interval),
      pushes_per_start_(o.pushes),
      running_(!o.paused),
      thread_([this] { run(); }) {}

device::~device() { stop(); }

void device::set_running(bool on) {
  {
    std::lock_guard lock(mutex_);
    if (on && !running_) since_start_ = 0;  // a new start: --pushes counts from here
    running_ = on;
  }
  wake_.notify_one();
}

void device::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void device::run() {
  std::uint32_t sequence = 0;
  auto next = std::chrono::steady_clock::now() + interval_;
  std::unique_lock lock(mutex_);
  for (;;) {
    if (wake_.wait_until(lock, next, [this] { return stopping_; })) return;
    next += interval_;
    if (!running_) continue;  // paused: the first push at the first beat after the start
    lock.unlock();
    const bool pushed = push(++sequence);
    lock.lock();
    if (!pushed) return;  // stopped while the server was behind, or the server is gone
    if (pushes_per_start_ != 0 && ++since_start_ == pushes_per_start_) {
      running_ = false;
      const uactor::value_update paused{running_node_, false, {}, now()};
      server_.write_values(std::span(&paused, 1));
      std::printf("device: pushed %llu batches of %zu tags (%llu values), paused\n",
                  static_cast<unsigned long long>(batches_.load()), tags_.size(),
                  static_cast<unsigned long long>(values_.load()));
      std::fflush(stdout);
    }
  }
}

// One batch: every tag gets the sequence number (a client can check it missed none), and
// Plant.Device.Pushes says how many batches there were. The batch is built once and reused: the
// Variants hold a double each, nothing is allocated per value.
bool device::push(std::uint32_t sequence) {
  std::vector<uactor::value_update>& batch = batch_;
  if (batch.size() != tags_.size() + 1) {
    batch.resize(tags_.size() + 1);
    for (std::size_t i = 0; i < tags_.size(); ++i) batch[i].node = tags_[i];
    batch.back().node = pushes_node_;
  }
  const uactor::date_time stamp = now();
  for (std::size_t i = 0; i < tags_.size(); ++i) {
    batch[i].value.emplace<double>() = static_cast<double>(sequence);
    batch[i].source_timestamp = stamp;
  }
  batch.back().value.emplace<std::uint32_t>() = sequence;
  batch.back().source_timestamp = stamp;

  for (;;) {
    const uactor::status_code sc = server_.write_values(batch);
    if (sc.is_good()) break;
    if (sc != uactor::status::bad_resource_unavailable) {
      std::fprintf(stderr, "device: write_values: %.*s, the device stops\n", static_cast<int>(sc.name().size()),
                   sc.name().data());
      return false;
    }
    // The server has too many batches not yet applied: back off and send the same batch again.
    ++behind_;
    std::unique_lock lock(mutex_);
    if (wake_.wait_for(lock, std::chrono::milliseconds(1), [this] { return stopping_; })) return false;
  }
  ++batches_;
  values_ += tags_.size();
  return true;
}

}  // namespace scada
