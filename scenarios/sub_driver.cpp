#include "scenarios/sub_driver.hpp"

#include "scenarios/fault_injector.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "uactor/client.hpp"

namespace uactor::scenarios {
namespace {

// UTC now in OPC UA ticks (100 ns since 1601), as the server stamps SourceTimestamp.
std::int64_t utc_ticks_now() {
  const auto since_1970 = std::chrono::system_clock::now().time_since_epoch();
  return ua::date_time::unix_epoch_ticks +
         std::chrono::duration_cast<std::chrono::duration<std::int64_t, std::ratio<1, 10'000'000>>>(since_1970).count();
}

// Part 4 §7.39.1: InfoType DataValue (bit 10) with the Overflow bit (bit 7).
constexpr std::uint32_t overflow_info_bits = 0x0480;

class sub_driver final : public sub_load_driver {
public:
  sub_driver(const load_options& load, const sub_options& sub, std::string url)
      : load_(load), sub_(sub), url_(std::move(url)) {
    if (sub_.variables) seen_ = std::vector<std::atomic<std::uint64_t>>(load_.sessions * sub_.subs * load_.nodes);
    if (sub_.supervised) {
      tracker_ = std::make_unique<recovery_tracker>(load_.sessions);
      reading_ = std::make_unique<std::atomic<bool>[]>(load_.sessions);
    }
  }
  ~sub_driver() override { stop(); }

  std::string start(recorder& rec) override {
    rec_ = &rec;
    configure_client_system(config_);
    system_ = std::make_unique<caf::actor_system>(config_);
    const auto counter = ua::node_id::string(1, "Demo.Dynamic.Counter");  // subscribed_node
    std::uint32_t g = 0;  // the item's number over all sessions and subscriptions
    for (std::size_t i = 0; i < load_.sessions; ++i) {
      client_options co;
      co.endpoint_url = url_;
      co.security = load_.security;
      co.session_name = "uactor-load sub " + std::to_string(i);
      if (sub_.supervised) {
        co.reconnect.enabled = true;
        co.reconnect.on_event = [this, i](const connection_event& e) {
          if (e.what == connection_event_kind::lost) tracker_->lost(i);
          else if (e.what == connection_event_kind::reconnected) tracker_->reconnected(i);
        };
      }
      auto c = client::connect(*system_, co);
      if (!c) return "session " + std::to_string(i) + ": " + c.error().to_string();
      clients_.push_back(std::make_unique<client>(std::move(*c)));
      auto& cl = *clients_.back();
      for (std::size_t s = 0; s < sub_.subs; ++s) {
        subscription_settings settings;
        settings.publishing_interval = sub_.publishing_interval;
        if (sub_.supervised)  // 30 s without a Publish before the server ends it (Part 4 §5.13.1.1)
          settings.lifetime_count = std::max<std::uint32_t>(
              settings.lifetime_count, static_cast<std::uint32_t>(30'000 / std::max<std::int64_t>(1, sub_.publishing_interval.count())));
        // At most two words captured (this and the session's index): std::function keeps them in
        // place (16 bytes in libstdc++) without an allocation.
        subscription_handlers h;
        if (!sub_.per_item)
          h.on_data = [this, client_index = static_cast<std::uint32_t>(i)](
                          std::uint32_t, std::uint32_t, std::span<const ua::monitored_item_notification> changes) {
            on_changes(changes, client_index);
          };
        h.on_status = [this](const subscription_status& st) { on_status(st); };
        auto created = cl.create_subscription_sync(settings, std::move(h));
        if (!created) return "CreateSubscription: " + created.error().to_string();
        ua::create_monitored_items_request req;
        req.subscription_id = created->subscription_id;
        req.timestamps_to_return = ua::timestamps_to_return::both;
        std::vector<item_handler> handlers;
        for (std::size_t n = 0; n < load_.nodes; ++n, ++g) {
          // The fast callback finds the item by its client handle (g + 1); per item, the handler
          // knows g (the client replaces the handles with its own).
          const auto node = sub_.variables ? ua::node_id::string(1, "Load.V" + std::to_string((sub_.first_item + g) % sub_.variables)) : counter;
          req.items_to_create.push_back(monitor_value(node, g + 1, sub_.sampling_interval_ms, sub_.queue_size, true));
          if (sub_.per_item)
            handlers.emplace_back([this, g, client_index = static_cast<std::uint32_t>(i)](const ua::monitored_item_notification& c) {
              on_changes({&c, 1}, client_index);
              if (!seen_.empty()) check(g, c.value);
            });
        }
        auto items = sub_.per_item ? cl.create_monitored_items_sync(std::move(req), std::move(handlers))
                                   : cl.create_monitored_items_sync(std::move(req));
        if (!items) return "CreateMonitoredItems: " + items.error().to_string();
        for (const auto& r : items->results)
          if (r.status_code.is_bad()) return "CreateMonitoredItems: an item: " + r.status_code.to_string();
      }
    }
    // The subscriptions publish already: only the window counts, as in a run of one process.
    if (load_.ready_to_load && !load_.ready_to_load()) return not_started;
    if (sub_.supervised) reader_ = std::thread([this] { read_loop(); });
    return {};
  }

  void stop() override {
    if (stopped_.exchange(true)) return;
    if (reader_.joinable()) reader_.join();
    for (auto& c : clients_) c->close();
    clients_.clear();
    system_.reset();
  }

  void start_counting() override {
    counting_.store(true, std::memory_order_relaxed);
    if (tracker_) tracker_->set_counting(true);
  }

  recovery_tracker* tracker() override { return tracker_.get(); }
  fault_requests requests() const override {
    fault_requests r;
    r.sent = reads_sent_.load();
    r.failed = reads_failed_.load();
    r.connection_closed = reads_closed_.load();
    r.data_lost_events = data_lost_.load();
    return r;
  }

  sub_completeness finish_counting(std::chrono::milliseconds writer_interval) override {
    sub_completeness r;
    if (seen_.empty()) {
      counting_.store(false, std::memory_order_relaxed);
      if (tracker_) tracker_->set_counting(false);
      return r;
    }
    // Every change the writer made up to the highest tick seen so far must arrive: each item's
    // subscription publishes it within a publishing interval (late by at most the server's 10 ms
    // tick), so a few intervals of both clocks are plenty.
    const std::uint64_t last = max_seen_.load(std::memory_order_relaxed);
    const auto grace = 3 * std::max(writer_interval, sub_.publishing_interval) + std::chrono::milliseconds(500);
    const auto deadline = load_clock::now() + grace;
    const auto behind = [&] {
      std::uint64_t n = 0;
      for (const auto& s : seen_)
        if (s.load(std::memory_order_relaxed) < last) ++n;  // seen_ holds value + 1
      return n;
    };
    while (behind() > 0 && load_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    counting_.store(false, std::memory_order_relaxed);
    if (tracker_) tracker_->set_counting(false);
    for (const auto& s : seen_) {
      const auto v = s.load(std::memory_order_relaxed);
      if (v >= last) continue;
      ++r.behind;
      r.lost += v == 0 ? 1 : last - v;  // never heard of: at least one change lost
    }
    r.lost += lost_.load();
    r.repeated = repeated_.load();
    r.overflows = overflows_.load();
    return r;
  }

private:
  void on_changes(std::span<const ua::monitored_item_notification> changes, std::uint32_t client_index) {
    const auto now = load_clock::now();
    if (tracker_) tracker_->notified(client_index, now);
    const auto utc = utc_ticks_now();
    for (const auto& c : changes) {
      const bool ok = !c.value.has_status || c.value.status.is_good();
      // Latency: the writer's change (SourceTimestamp) to this callback.
      const std::int64_t ticks = c.value.has_source_timestamp ? utc - c.value.source_timestamp.ticks : 0;
      const auto latency = std::chrono::nanoseconds(std::max<std::int64_t>(ticks, 0) * 100);
      rec_->completed(now - std::chrono::duration_cast<load_clock::duration>(latency), now, ok);
      if (!sub_.per_item && !seen_.empty() && c.client_handle >= 1 && c.client_handle <= seen_.size())
        check(c.client_handle - 1, c.value);
    }
  }

  // Item g got `v`: the writer's tick, one above the item's last value unless a change was lost.
  // Each item is only ever touched by its own connection's thread; relaxed atomics let
  // finish_counting read them from the harness's thread.
  void check(std::uint32_t g, const ua::data_value& v) {
    const auto* tick = v.has_value ? v.value.get_if<std::uint32_t>() : nullptr;
    if (!tick) return;  // a bad status: counted as an error by on_changes
    const std::uint64_t now = std::uint64_t{*tick} + 1;
    auto& slot = seen_[g];
    const auto before = slot.load(std::memory_order_relaxed);
    slot.store(now, std::memory_order_relaxed);
    if (auto m = max_seen_.load(std::memory_order_relaxed); now > m)
      while (!max_seen_.compare_exchange_weak(m, now, std::memory_order_relaxed) && now > m) {
      }
    if (!counting_.load(std::memory_order_relaxed)) return;
    if (v.has_status && (v.status.value() & overflow_info_bits) == overflow_info_bits)
      overflows_.fetch_add(1, std::memory_order_relaxed);
    if (before == 0) return;  // the item's first value
    if (now > before + 1) lost_.fetch_add(now - before - 1, std::memory_order_relaxed);
    else if (now <= before) repeated_.fetch_add(1, std::memory_order_relaxed);
  }

  // --faults: one Read of the Counter per session at a time, a new one every 100 ms: those in flight
  // when a link goes fail (Bad_ConnectionClosed), those made while it is down are held.
  void read_loop() {
    const auto counter = ua::node_id::string(1, "Demo.Dynamic.Counter");
    while (!stopped_.load()) {
      for (std::size_t i = 0; i < clients_.size(); ++i) {
        if (reading_[i].exchange(true)) continue;
        ua::read_request req;
        ua::read_value_id id;
        id.node_id = counter;
        id.attribute_id = 13;  // Value
        req.nodes_to_read.push_back(id);
        const bool counted = counting_.load(std::memory_order_relaxed);
        if (counted) reads_sent_.fetch_add(1);
        clients_[i]->read(std::move(req), [this, i, counted](ua::expected<ua::read_response> resp) {
          if (counted && !resp) {
            reads_failed_.fetch_add(1);
            if (resp.error() == ua::status::bad_connection_closed) reads_closed_.fetch_add(1);
          }
          reading_[i].store(false);
        });
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  void on_status(const subscription_status& st) {
    if (sub_.supervised) {
      // Silence during a fault is the fault; what the client gave up is data lost.
      if (st.what == subscription_event::data_lost) {
        data_lost_.fetch_add(1);
        rec_->completed(load_clock::now(), load_clock::now(), false);
      } else if (st.what == subscription_event::closed && !stopped_.load()) {
        rec_->completed(load_clock::now(), load_clock::now(), false);
      }
      return;
    }
    // Lost data, silence and an ended subscription count as errors; a status change is reported only.
    if (st.what == subscription_event::data_lost || st.what == subscription_event::silent ||
        (st.what == subscription_event::closed && !stopped_.load()))
      rec_->completed(load_clock::now(), load_clock::now(), false);
  }

  load_options load_;
  sub_options sub_;
  std::string url_;
  recorder* rec_ = nullptr;
  caf::actor_system_config config_;
  std::unique_ptr<caf::actor_system> system_;
  std::vector<std::unique_ptr<client>> clients_;
  std::atomic<bool> stopped_{false};
  // The completeness check (--variables): per item its last value + 1 (0: none yet).
  std::vector<std::atomic<std::uint64_t>> seen_;
  std::atomic<std::uint64_t> max_seen_{0};
  std::atomic<bool> counting_{false};
  std::atomic<std::uint64_t> lost_{0};
  std::atomic<std::uint64_t> repeated_{0};
  std::atomic<std::uint64_t> overflows_{0};
  // --faults.
  std::unique_ptr<recovery_tracker> tracker_;
  std::unique_ptr<std::atomic<bool>[]> reading_;  // per session: a Read in flight
  std::thread reader_;
  std::atomic<std::uint64_t> reads_sent_{0}, reads_failed_{0}, reads_closed_{0}, data_lost_{0};
};

}  // namespace

std::unique_ptr<sub_load_driver> make_sub_driver(const load_options& load, const sub_options& sub,
                                                 std::string endpoint_url) {
  return std::make_unique<sub_driver>(load, sub, std::move(endpoint_url));
}

}  // namespace uactor::scenarios
