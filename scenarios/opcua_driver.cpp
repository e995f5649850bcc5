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
      co.wss_accept_any_certificate = true;  // opc.wss: the child's certificate, made at its start
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
      co.wss_accept_any_certificate = true;
      co.session_name = "uactor-load " + std::to_string(i);
      auto c = client::connect(*system_, co);
      if (!c) return "session " + std::to_string(i) + ": " + c.error().to_string();
      clients_.push_back(std::make_unique<client>(std::move(*c)));
    }
    slots_.resize(options_.sessions * options_.inflight);
    outstanding_ = slots_.size();
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      slots_[i].driver = this;
      const auto session = i / options_.inflight;
      if (shared_ && session > 0)
        prepare_on(*more_[session - 1], slots_[i]);
      else
        prepare_on(*clients_[session], slots_[i]);
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
    slots_.clear();  // the prepared requests before their clients
    for (auto& c : clients_) c->close();  // shared: closes every session of the channel
    more_.clear();
    clients_.clear();
    system_.reset();
  }

private:
  // One request in flight: its prepared request (docs/decisions/0023) is sent again from its own
  // answer's callback, so a send allocates nothing in the harness or the client.
  struct slot {
    opcua_driver* driver = nullptr;
    load_clock::time_point sent;
    prepared_read read;
    prepared_write write;
    prepared_browse browse;
  };

  // A client or one of its other sessions: the same three calls.
  template <class Session>
  void prepare_on(Session& c, slot& s) {
    slot* p = &s;
    switch (scenario_) {
      case opcua_scenario::read:
        s.read = c.prepare(read_, [p](ua::expected<const ua::read_response*> r) { p->driver->done(*p, r && all_good(**r)); });
        break;
      case opcua_scenario::write:
        s.write = c.prepare(write_, [p](ua::expected<const ua::write_response*> r) { p->driver->done(*p, r && all_good(**r)); });
        break;
      case opcua_scenario::browse:
        s.browse = c.prepare(browse_, [p](ua::expected<const ua::browse_response*> r) { p->driver->done(*p, r && all_good(**r)); });
        break;
    }
  }

  void issue(slot& s) {
    s.sent = load_clock::now();
    const auto sc = scenario_ == opcua_scenario::read    ? s.read.send()
                    : scenario_ == opcua_scenario::write ? s.write.send()
                                                         : s.browse.send();
    if (sc.is_bad()) done(s, false);  // no callback comes (a closed client)
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

}  // namespace uactor::scenarios
