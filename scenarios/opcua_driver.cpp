#include "scenarios/opcua_driver.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <condition_variable>
#include <mutex>
#include <vector>

#include "uactor/client.hpp"
#include "runtime/process_stats.hpp"
#include "scenarios/requests.hpp"

namespace uactor::scenarios {
namespace {

bool all_good(const ua::read_response& r) {
  for (const auto& v : r.results)
    if (v.has_status && v.status.is_bad()) return false;
  return true;
}
bool all_good(const ua::write_response& r) {
  for (const auto& sc : r.results)
    if (sc.is_bad()) return false;
  return true;
}
bool all_good(const ua::browse_response& r) {
  for (const auto& b : r.results)
    if (b.status_code.is_bad()) return false;
  return true;
}

class opcua_driver final : public load_driver {
public:
  opcua_driver(opcua_scenario scenario, const load_options& o, std::string url, bool shared)
      : scenario_(scenario), options_(o), url_(std::move(url)), shared_(shared) {
    read_ = make_read_request(o.nodes);
    write_ = make_write_request(o.nodes);
    browse_ = make_browse_request(o.nodes);
  }
  ~opcua_driver() override { stop(); }

  std::string start(recorder& rec) override {
    rec_ = &rec;
    configure_client_system(config_);
    system_ = std::make_unique<caf::actor_system>(config_);
    if (shared_) {
      // One connection and channel; its first session and sessions - 1 more over it.
      client_options co;
      co.endpoint_url = url_;
      co.security = options_.security;
      co.session_name = "uactor-load 0";
      auto c = client::connect(*system_, co);
      if (!c) return "session 0: " + c.error().to_string();
      clients_.push_back(std::make_unique<client>(std::move(*c)));
      for (std::size_t i = 1; i < options_.sessions; ++i) {
        auto s = clients_[0]->open_session_sync("uactor-load " + std::to_string(i));
        if (!s) return "session " + std::to_string(i) + ": " + s.error().to_string();
        more_.push_back(std::make_unique<client_session>(std::move(*s)));
      }
    }
    for (std::size_t i = 0; !shared_ && i < options_.sessions; ++i) {
      client_options co;
      co.endpoint_url = url_;
      co.security = options_.security;
      co.session_name = "uactor-load " + std::to_string(i);
      auto c = client::connect(*system_, co);
      if (!c) return "session " + std::to_string(i) + ": " + c.error().to_string();
      clients_.push_back(std::make_unique<client>(std::move(*c)));
    }
    slots_.resize(options_.sessions * options_.inflight);
    outstanding_ = slots_.size();
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      slots_[i].driver = this;
      slots_[i].session = i / options_.inflight;
    }
    if (options_.ready_to_load && !options_.ready_to_load()) return not_started;
    for (auto& s : slots_) issue(s);
    return {};
  }

  void stop() override {
    stopping_.store(true);
    {
      std::unique_lock lock(mutex_);
      drained_.wait_for(lock, std::chrono::seconds(15), [this] { return outstanding_ == 0; });
    }
    for (auto& c : clients_) c->close();  // shared: closes every session of the channel
    more_.clear();
    clients_.clear();
    system_.reset();
  }

private:
  struct slot {
    opcua_driver* driver = nullptr;
    std::size_t session = 0;
    load_clock::time_point sent;
  };

  // The callback captures one pointer, so std::function keeps it without an allocation.
  void issue(slot& s) {
    s.sent = load_clock::now();
    if (shared_ && s.session > 0) return issue_on(*more_[s.session - 1], s);
    issue_on(*clients_[s.session], s);
  }

  // A client or one of its other sessions: the same three calls.
  template <class Session>
  void issue_on(Session& c, slot& s) {
    slot* p = &s;
    switch (scenario_) {
      case opcua_scenario::read:
        c.read(read_, [p](ua::expected<ua::read_response> r) { p->driver->done(*p, r && all_good(*r)); });
        break;
      case opcua_scenario::write:
        c.write(write_, [p](ua::expected<ua::write_response> r) { p->driver->done(*p, r && all_good(*r)); });
        break;
      case opcua_scenario::browse:
        c.browse(browse_, [p](ua::expected<ua::browse_response> r) { p->driver->done(*p, r && all_good(*r)); });
        break;
    }
  }

  void done(slot& s, bool ok) {
    rec_->completed(s.sent, load_clock::now(), ok);
    // A failed request ends its slot's loop: a refused or dead connection would otherwise spin
    // (the client may answer synchronously once closed); the error count shows it.
    if (ok && !stopping_.load(std::memory_order_relaxed)) return issue(s);
    std::lock_guard lock(mutex_);
    if (--outstanding_ == 0) drained_.notify_all();
  }

  opcua_scenario scenario_;
  load_options options_;
  std::string url_;
  bool shared_ = false;
  ua::read_request read_;
  ua::write_request write_;
  ua::browse_request browse_;
  recorder* rec_ = nullptr;
  caf::actor_system_config config_;
  std::unique_ptr<caf::actor_system> system_;
  std::vector<std::unique_ptr<client>> clients_;
  std::vector<std::unique_ptr<client_session>> more_;  // shared: sessions 1.. over clients_[0]
  std::vector<slot> slots_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable drained_;
  std::size_t outstanding_ = 0;
};

}  // namespace

std::unique_ptr<load_driver> make_opcua_driver(opcua_scenario scenario, const load_options& options,
                                               std::string endpoint_url, bool shared_channel) {
  return std::make_unique<opcua_driver>(scenario, options, std::move(endpoint_url), shared_channel);
}

std::size_t request_copy_allocations(opcua_scenario scenario, std::size_t nodes) {
  const auto read = make_read_request(nodes);
  const auto write = make_write_request(nodes);
  const auto browse = make_browse_request(nodes);
  // Only this thread runs now (before any session starts), so the process-wide count is ours.
  const auto before = app::sample_process_stats();
  switch (scenario) {
    case opcua_scenario::read: { auto copy = read; (void)copy; break; }
    case opcua_scenario::write: { auto copy = write; (void)copy; break; }
    case opcua_scenario::browse: { auto copy = browse; (void)copy; break; }
  }
  return static_cast<std::size_t>(app::sample_process_stats().allocations - before.allocations);
}

}  // namespace uactor::scenarios
