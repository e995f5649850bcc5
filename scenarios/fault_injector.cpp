#include "scenarios/fault_injector.hpp"

#include <algorithm>

namespace uactor::scenarios {

recovery_tracker::recovery_tracker(std::size_t clients)
    : state_(std::make_unique<client_state[]>(clients)), clients_(clients) {}

void recovery_tracker::lost(std::size_t client) {
  std::lock_guard lock(mutex_);
  state_[client].down = true;
  if (counting_.load(std::memory_order_relaxed)) ++figures_.losses;
}

void recovery_tracker::reconnected(std::size_t client) {
  std::lock_guard lock(mutex_);
  auto& s = state_[client];
  s.down = false;
  ++s.reconnects;
  if (counting_.load(std::memory_order_relaxed)) ++figures_.reconnects;
}

void recovery_tracker::notified_slow(std::size_t client, load_clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto& s = state_[client];
  if (!s.armed.load(std::memory_order_relaxed)) return;
  // Before the link returned: a message already on its way when the fault struck.
  if (now < s.link_back || s.down) return;
  if (s.needs_reconnect && s.reconnects == s.reconnects_at_arm) return;  // the old link, before the cut took
  figures_.samples.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(now - s.link_back));
  s.armed.store(false, std::memory_order_relaxed);
}

void recovery_tracker::arm(load_clock::time_point link_back, bool needs_reconnect) {
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < clients_; ++i) {
    auto& s = state_[i];
    if (s.armed.load(std::memory_order_relaxed)) ++figures_.unrecovered;  // still owed from the last fault
    s.link_back = link_back;
    s.needs_reconnect = needs_reconnect;
    s.reconnects_at_arm = s.reconnects;
    s.armed.store(true, std::memory_order_relaxed);
  }
}

std::size_t recovery_tracker::pending() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (std::size_t i = 0; i < clients_; ++i) n += state_[i].armed.load(std::memory_order_relaxed) ? 1 : 0;
  return n;
}

void recovery_tracker::disarm() {
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < clients_; ++i)
    if (state_[i].armed.exchange(false, std::memory_order_relaxed)) ++figures_.unrecovered;
}

recovery_tracker::figures recovery_tracker::take() const {
  std::lock_guard lock(mutex_);
  return figures_;
}

fault_injector::fault_injector(fault_proxy& proxy, fault_plan plan, recovery_tracker& tracker,
                               std::chrono::milliseconds max_recovery)
    : proxy_(proxy), plan_(std::move(plan)), tracker_(tracker), max_recovery_(max_recovery) {}

fault_injector::~fault_injector() { stop(); }

void fault_injector::start() {
  if (thread_.joinable() || plan_.empty()) return;
  thread_ = std::thread([this] { run(); });
}

void fault_injector::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

fault_injector::counts fault_injector::injected() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

bool fault_injector::sleep_until(load_clock::time_point t) {
  std::unique_lock lock(mutex_);
  return !cv_.wait_until(lock, t, [this] { return stopping_; });
}

void fault_injector::run() {
  const auto start = load_clock::now();
  std::vector<load_clock::time_point> due;
  for (const auto& f : plan_.faults) due.push_back(start + f.every);
  for (;;) {
    // The fault due first; faults never overlap: one due while another is under way waits for it.
    const auto next = static_cast<std::size_t>(std::min_element(due.begin(), due.end()) - due.begin());
    if (!sleep_until(due[next])) return;
    const auto& f = plan_.faults[next];
    const auto at = load_clock::now();
    if (f.type == fault_type::cut) {
      tracker_.arm(at, true);  // the proxy takes new connections again at once: the link is back
      proxy_.cut(f.how, f.side);
      std::lock_guard lock(mutex_);
      ++counts_.cuts;
    } else {
      // Armed with the stall's end: what arrives before it was already under way.
      tracker_.arm(at + f.length, false);
      proxy_.stall(f.length);
      {
        std::lock_guard lock(mutex_);
        ++counts_.stalls;
      }
      // The stall ends by itself, even when stopping meanwhile: a stall cut short by the end of
      // the window would measure a shorter fault than the one planned.
      std::this_thread::sleep_until(at + f.length);
    }
    // Every client recovers before the next fault (bounded), even when stopping.
    const auto deadline = load_clock::now() + max_recovery_;
    while (tracker_.pending() > 0 && load_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (tracker_.pending() > 0) tracker_.disarm();
    due[next] = std::max(due[next] + f.every, load_clock::now());
    std::lock_guard lock(mutex_);
    if (stopping_) return;
  }
}

}  // namespace uactor::scenarios
