#include "scenarios/sub_driver.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <atomic>
#include <vector>

#include "actors/client.hpp"

namespace uactor::scenarios {
namespace {

// UTC now in OPC UA ticks (100 ns since 1601), as the server stamps SourceTimestamp.
std::int64_t utc_ticks_now() {
  const auto since_1970 = std::chrono::system_clock::now().time_since_epoch();
  return ua::date_time::unix_epoch_ticks +
         std::chrono::duration_cast<std::chrono::duration<std::int64_t, std::ratio<1, 10'000'000>>>(since_1970).count();
}

class sub_driver final : public load_driver {
public:
  sub_driver(const load_options& load, const sub_options& sub, std::string url)
      : load_(load), sub_(sub), url_(std::move(url)) {}
  ~sub_driver() override { stop(); }

  std::string start(recorder& rec) override {
    rec_ = &rec;
    config_.load<caf::io::middleman>();
    config_.set("scheduler.max-threads", 2);
    system_ = std::make_unique<caf::actor_system>(config_);
    const auto node = ua::node_id::string(1, "Demo.Dynamic.Counter");  // subscribed_node
    for (std::size_t i = 0; i < load_.sessions; ++i) {
      client_options co;
      co.endpoint_url = url_;
      co.security = load_.security;
      co.session_name = "uactor-load sub " + std::to_string(i);
      auto c = client::connect(*system_, co);
      if (!c) return "session " + std::to_string(i) + ": " + c.error().to_string();
      clients_.push_back(std::make_unique<client>(std::move(*c)));
      auto& cl = *clients_.back();
      for (std::size_t s = 0; s < sub_.subs; ++s) {
        subscription_settings settings;
        settings.publishing_interval = sub_.publishing_interval;
        // One pointer captured: std::function keeps it without an allocation.
        subscription_handlers h;
        if (!sub_.per_item)
          h.on_data = [this](std::uint32_t, std::uint32_t, std::span<const ua::monitored_item_notification> changes) {
            on_changes(changes);
          };
        h.on_status = [this](const subscription_status& st) { on_status(st); };
        auto created = cl.create_subscription_sync(settings, std::move(h));
        if (!created) return "CreateSubscription: " + created.error().to_string();
        ua::create_monitored_items_request req;
        req.subscription_id = created->subscription_id;
        req.timestamps_to_return = ua::timestamps_to_return::both;
        std::vector<item_handler> handlers;
        for (std::size_t n = 0; n < load_.nodes; ++n) {
          req.items_to_create.push_back(
              monitor_value(node, static_cast<std::uint32_t>(n + 1), sub_.sampling_interval_ms, 1, true));
          if (sub_.per_item)
            handlers.emplace_back([this](const ua::monitored_item_notification& c) { on_changes({&c, 1}); });
        }
        auto items = sub_.per_item ? cl.create_monitored_items_sync(std::move(req), std::move(handlers))
                                   : cl.create_monitored_items_sync(std::move(req));
        if (!items) return "CreateMonitoredItems: " + items.error().to_string();
        for (const auto& r : items->results)
          if (r.status_code.is_bad()) return "CreateMonitoredItems: an item: " + r.status_code.to_string();
      }
    }
    return {};
  }

  void stop() override {
    if (stopped_.exchange(true)) return;
    for (auto& c : clients_) c->close();
    clients_.clear();
    system_.reset();
  }

private:
  void on_changes(std::span<const ua::monitored_item_notification> changes) {
    const auto now = load_clock::now();
    const auto utc = utc_ticks_now();
    for (const auto& c : changes) {
      const bool ok = !c.value.has_status || c.value.status.is_good();
      // Latency: the writer's change (SourceTimestamp) to this callback.
      const std::int64_t ticks = c.value.has_source_timestamp ? utc - c.value.source_timestamp.ticks : 0;
      const auto latency = std::chrono::nanoseconds(std::max<std::int64_t>(ticks, 0) * 100);
      rec_->completed(now - std::chrono::duration_cast<load_clock::duration>(latency), now, ok);
    }
  }

  void on_status(const subscription_status& st) {
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
};

}  // namespace

std::unique_ptr<load_driver> make_sub_driver(const load_options& load, const sub_options& sub, std::string endpoint_url) {
  return std::make_unique<sub_driver>(load, sub, std::move(endpoint_url));
}

}  // namespace uactor::scenarios
