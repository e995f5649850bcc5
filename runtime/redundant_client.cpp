// The redundant client (include/uactor/redundant_client.hpp, docs/decisions/0041): Part 4
// §6.6.2.4.5's client side of non-transparent redundancy, built on uactor::client. One classic
// client per connected server, each with a subscription of its own on ServiceLevel (i=2267) that
// tells its level and, by closing or falling silent, its loss; a thread that applies those events,
// reconnects the servers, asks failover_policy which server to use and carries the switch out.
// The application's data reaches it through one atomic load per NotificationMessage: the handlers
// of the servers not in use drop theirs.
#include "uactor/redundant_client.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include "engine/client/failover_policy.hpp"

namespace uactor {

namespace {

using clock_type = std::chrono::steady_clock;
using actors::no_server;

constexpr std::uint32_t service_level_id = 2267;  // Server_ServiceLevel (Part 5 §6.3.1)

ua::read_request service_level_read() {
  ua::read_request r;
  ua::read_value_id id;
  id.node_id = ua::node_id(0, service_level_id);
  id.attribute_id = 13;  // Value
  r.nodes_to_read.push_back(id);
  return r;
}

int level_of(const ua::variant& v) {
  if (const auto* b = v.get_if<std::uint8_t>()) return *b;
  return -1;
}

}  // namespace

struct redundant_client::impl {
  // A subscription the application made: what each server gets.
  struct book_sub {
    std::uint32_t id = 0;  // the redundant client's
    subscription_settings settings;
    subscription_handlers handlers;
    std::vector<ua::monitored_item_create_request> items;
  };
  // That subscription on one server.
  struct server_sub {
    std::uint32_t id = 0;                 // the server's
    std::vector<std::uint32_t> item_ids;  // per book item (0: the server refused it)
    bool enabled = false;                 // the application's monitoring modes (else Disabled: warm backup)
  };
  struct server {
    std::string url;
    std::shared_ptr<client> c;  // null: not connected
    std::uint64_t generation = 0;  // bumped at each connect and disconnect: older events are ignored
    int level = -1;
    std::map<std::uint32_t, server_sub> subs;  // by book id
    clock_type::time_point next_try{};
  };
  struct event {
    std::size_t server = 0;
    std::uint64_t generation = 0;
    bool down = false;
    int level = -1;
    ua::status_code status;
  };

  redundant_client_options options;
  std::unique_ptr<caf::actor_system_config> cfg;
  std::unique_ptr<caf::actor_system> system;

  mutable std::mutex m;  // servers, book: the thread and the application's subscription calls
  std::vector<server> servers;
  std::vector<book_sub> book;
  std::uint32_t next_id = 1;
  std::vector<connection_event> outbox;  // told after m is released (a handler may call us)

  std::atomic<std::size_t> active{no_server};  // read by the data handlers
  std::size_t lost_active = no_server;          // the server in use that was lost, for `previous`
  std::atomic<std::uint64_t> dropped{0};        // messages of servers not in use
  mutable std::mutex active_m;
  std::shared_ptr<client> active_client;  // for the requests

  std::mutex qm;
  std::condition_variable qcv;
  std::deque<event> queue;
  bool stopping = false;
  std::thread thread;
  // Connections given up are closed here, not on the thread: a server that stalls (no RST) would
  // hold CloseSession up to the request timeout, and the switch with it. Joined at close().
  struct closer {
    std::thread t;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<closer> closers;  // under m
  bool closed = false;
  ua::status_code first_failure = ua::status::good;  // of connect(): the first server's that failed

  bool cold() const noexcept {
    return options.mode == redundancy_support::cold || options.mode == redundancy_support::none;
  }

  void push(event e) {
    {
      std::lock_guard lock(qm);
      queue.push_back(e);
    }
    qcv.notify_one();
  }

  std::shared_ptr<client> current() const {
    std::lock_guard lock(active_m);
    return active_client;
  }

  void set_active(std::size_t n) {
    active.store(n, std::memory_order_release);
    std::lock_guard lock(active_m);
    active_client = n == no_server ? nullptr : servers[n].c;
  }

  std::vector<actors::server_health> health() const {
    std::vector<actors::server_health> h(servers.size());
    for (std::size_t i = 0; i < servers.size(); ++i) h[i] = {servers[i].c != nullptr, servers[i].level};
    return h;
  }

  // ---- one server

  bool connect_server(std::size_t i) {
    auto& s = servers[i];
    client_options o = options.client;
    o.endpoint_url = s.url;
    o.reconnect.enabled = false;  // the redundant client reconnects: a lost server is left
    s.next_try = clock_type::now() + options.retry_interval;
    auto c = client::connect(*system, o);
    if (!c) {
      if (first_failure.is_good()) first_failure = c.error();
      spdlog::debug("redundant client: {} not connected: {}", s.url, c.error().to_string());
      return false;
    }
    auto cp = std::make_shared<client>(std::move(*c));
    const std::uint64_t gen = ++s.generation;
    // ServiceLevel, watched (Part 4 §6.6.2.4.5.3: "monitor the ServiceLevel"): a change is an
    // event; the subscription closed (connection lost) or silent past its keep-alive is a loss.
    subscription_settings w;
    w.publishing_interval = options.service_level_interval;
    w.max_keep_alive_count = 5;
    w.lifetime_count = 50;
    subscription_handlers h;
    h.on_data = [this, i, gen](std::uint32_t, std::uint32_t, std::span<const ua::monitored_item_notification> changes) {
      for (const auto& ch : changes) push({i, gen, false, level_of(ch.value.value), {}});
    };
    h.on_status = [this, i, gen](const subscription_status& st) {
      if (st.what == subscription_event::closed || st.what == subscription_event::silent)
        push({i, gen, true, -1, st.status.is_good() ? ua::status::bad_connection_closed : st.status});
    };
    auto sub = cp->create_subscription_sync(w, std::move(h));
    ua::status_code failed;
    if (sub) {
      ua::create_monitored_items_request req;
      req.subscription_id = sub->subscription_id;
      req.items_to_create.push_back(monitor_value(ua::node_id(0, service_level_id), 0, 0, 1));
      auto items = cp->create_monitored_items_sync(std::move(req));
      if (!items) failed = items.error();
      else if (items->results.empty() || items->results[0].status_code.is_bad())
        failed = items->results.empty() ? ua::status::bad_unexpected_error : items->results[0].status_code;
    } else {
      failed = sub.error();
    }
    auto level = cp->read_sync(service_level_read());
    if (failed.is_bad() || !level || level->results.empty()) {
      spdlog::warn("redundant client: {}: no ServiceLevel watch: {}", s.url,
                   (failed.is_bad() ? failed : level ? ua::status::bad_unexpected_error : level.error()).to_string());
      ++s.generation;
      return false;
    }
    s.level = level_of(level->results[0].value);
    s.c = std::move(cp);
    s.subs.clear();
    spdlog::info("redundant client: {} connected, ServiceLevel {}", s.url, s.level);
    return true;
  }

  void disconnect(std::size_t i) {
    auto& s = servers[i];
    ++s.generation;  // its last events (closed) are ignored
    auto c = std::move(s.c);
    s.level = -1;
    s.subs.clear();
    s.next_try = clock_type::now() + options.retry_interval;
    if (active.load(std::memory_order_acquire) == i) {
      lost_active = i;
      set_active(no_server);
    }
    if (c) {
      auto done = std::make_shared<std::atomic<bool>>(false);
      closers.push_back({std::thread([c = std::move(c), done] {
                           c->close();
                           done->store(true, std::memory_order_release);
                         }),
                         done});
    }
  }

  // The application's handlers, for server i: its data only while it is the server in use.
  subscription_handlers wrap(std::size_t i, const book_sub& b) {
    subscription_handlers h;
    const std::uint32_t id = b.id;
    if (b.handlers.on_data)
      h.on_data = [this, i, id, f = b.handlers.on_data](std::uint32_t, std::uint32_t seq,
                                                          std::span<const ua::monitored_item_notification> ch) {
        if (active.load(std::memory_order_acquire) == i) f(id, seq, ch);
        else dropped.fetch_add(1, std::memory_order_relaxed);
      };
    if (b.handlers.on_events)
      h.on_events = [this, i, id, f = b.handlers.on_events](std::uint32_t, std::uint32_t seq,
                                                              std::span<const ua::event_field_list> ev) {
        if (active.load(std::memory_order_acquire) == i) f(id, seq, ev);
        else dropped.fetch_add(1, std::memory_order_relaxed);
      };
    if (b.handlers.on_status)
      h.on_status = [this, i, id, f = b.handlers.on_status](const subscription_status& st) {
        // A server's subscription closing is a lost server (the watch tells it): not the application's.
        if (st.what == subscription_event::closed || active.load(std::memory_order_acquire) != i) return;
        auto copy = st;
        copy.subscription_id = id;
        f(copy);
      };
    return h;
  }

  // Items [from, end) of `b` on server i; their results. Disabled unless `enabled` (warm backup).
  ua::expected<ua::create_monitored_items_response> create_items(std::size_t i, const book_sub& b, server_sub& ss,
                                                                 std::size_t from, bool enabled) {
    ua::create_monitored_items_request req;
    req.subscription_id = ss.id;
    req.timestamps_to_return = ua::timestamps_to_return::both;
    for (std::size_t k = from; k < b.items.size(); ++k) {
      req.items_to_create.push_back(b.items[k]);
      if (!enabled) req.items_to_create.back().monitoring_mode = ua::monitoring_mode::disabled;
    }
    auto r = servers[i].c->create_monitored_items_sync(std::move(req));
    if (!r) return r;
    ss.item_ids.resize(from);
    for (const auto& res : r->results) ss.item_ids.push_back(res.status_code.is_good() ? res.monitored_item_id : 0);
    ss.item_ids.resize(b.items.size(), 0);
    return r;
  }

  // The subscription `b` on server i, with its items.
  ua::expected<ua::create_subscription_response> create_on(std::size_t i, const book_sub& b, bool enabled) {
    auto& s = servers[i];
    auto sub = s.c->create_subscription_sync(b.settings, wrap(i, b));
    if (!sub) return sub;
    server_sub ss;
    ss.id = sub->subscription_id;
    ss.enabled = enabled;
    if (!b.items.empty()) {
      if (auto r = create_items(i, b, ss, 0, enabled); !r) return r.error();
    }
    s.subs[b.id] = std::move(ss);
    return sub;
  }

  // Part 4 §5.12.4 SetMonitoringMode: the application's modes (enable) or Disabled.
  ua::status_code set_modes(std::size_t i, const book_sub& b, server_sub& ss, bool enable) {
    std::map<ua::monitoring_mode, ua::ua_array<std::uint32_t>> groups;
    for (std::size_t k = 0; k < b.items.size() && k < ss.item_ids.size(); ++k)
      if (ss.item_ids[k]) groups[enable ? b.items[k].monitoring_mode : ua::monitoring_mode::disabled].push_back(ss.item_ids[k]);
    for (auto& [mode, ids] : groups) {
      ua::set_monitoring_mode_request req;
      req.subscription_id = ss.id;
      req.monitoring_mode = mode;
      req.monitored_item_ids = std::move(ids);
      auto r = servers[i].c->set_monitoring_mode_sync(std::move(req));
      if (!r) return r.error();
    }
    ss.enabled = enable;
    return ua::status::good;
  }

  // The book on a server that came (back): warm, Disabled; hot, as the application made it.
  void reproduce(std::size_t i) {
    for (const auto& b : book)
      if (auto r = create_on(i, b, options.mode == redundancy_support::hot); !r)
        spdlog::warn("redundant client: subscription {} not created on {}: {}", b.id, servers[i].url, r.error().to_string());
  }

  // ---- the switch

  void switch_to(std::size_t n, failover_reason why, ua::status_code status) {
    const std::size_t old = active.load(std::memory_order_acquire);
    connection_event e;
    e.status = status;
    e.reason = why;
    const std::size_t left = old != no_server ? old : lost_active;
    e.previous = left == no_server ? connection_event::no_endpoint : left;
    lost_active = no_server;
    if (n == no_server) {
      set_active(no_server);
      e.what = connection_event_kind::lost;
      outbox.push_back(std::move(e));
      return;
    }
    set_active(n);  // first: the new server's first values are the application's
    auto& s = servers[n];
    // Table 111 "At Failover": cold creates the subscriptions, warm activates sampling and publishing.
    for (const auto& b : book) {
      auto it = s.subs.find(b.id);
      if (it != s.subs.end() && it->second.enabled) continue;
      if (it != s.subs.end()) {
        const auto sc = set_modes(n, b, it->second, true);
        if (sc.is_good()) continue;
        spdlog::warn("redundant client: enabling subscription {} on {}: {}; created again", b.id, s.url, sc.to_string());
        ua::delete_subscriptions_request del;
        del.subscription_ids.push_back(it->second.id);
        (void)s.c->delete_subscriptions_sync(std::move(del));
        s.subs.erase(it);
      }
      if (auto r = create_on(n, b, true); !r)
        spdlog::warn("redundant client: subscription {} not created on {}: {}", b.id, s.url, r.error().to_string());
    }
    e.what = connection_event_kind::switched;
    e.endpoint = n;
    e.endpoint_url = s.url;
    e.service_level = s.level;
    spdlog::info("redundant client: using {} (ServiceLevel {}, {})", s.url, s.level,
                 why == failover_reason::initial ? "initial" : why == failover_reason::service_level ? "ServiceLevel" : "connection lost");
    outbox.push_back(std::move(e));
    // The server left, when it still answers: warm, its items Disabled again; cold, closed.
    if (old != no_server && old != n && servers[old].c) {
      if (cold()) {
        disconnect(old);
      } else if (options.mode == redundancy_support::warm) {
        for (const auto& b : book)
          if (auto it = servers[old].subs.find(b.id); it != servers[old].subs.end())
            (void)set_modes(old, b, it->second, false);
      }
    }
  }

  // Asks the policy and acts on its answer.
  void step(ua::status_code lost_status) {
    const std::size_t a = active.load(std::memory_order_acquire);
    auto n = actors::choose_server(health(), a, options.healthy_service_level);
    const bool needs_better = n == no_server || servers[n].level < options.healthy_service_level;
    if (cold() && needs_better) {
      // Cold: the others are connected only now (Table 111), to learn their ServiceLevels.
      const auto now = clock_type::now();
      for (std::size_t i = 0; i < servers.size(); ++i)
        if (!servers[i].c && now >= servers[i].next_try) {
          if (connect_server(i) && servers[i].level >= options.healthy_service_level) break;
        }
      n = actors::choose_server(health(), a, options.healthy_service_level);
    }
    if (n != a) {
      const auto cause = actors::why_switch(health(), a);
      switch_to(n, a == no_server || cause == actors::switch_cause::not_connected ? failover_reason::connection_lost
                                                                                  : failover_reason::service_level,
                lost_status);
    }
    if (cold())  // one connection only
      for (std::size_t i = 0; i < servers.size(); ++i)
        if (i != active.load(std::memory_order_acquire) && servers[i].c) disconnect(i);
  }

  void emit() {
    std::vector<connection_event> out;
    {
      std::lock_guard lock(m);
      out.swap(outbox);
    }
    if (options.on_event)
      for (const auto& e : out) options.on_event(e);
  }

  void run() {
    const auto tick = std::min(options.retry_interval, std::chrono::milliseconds(100));
    std::unique_lock ql(qm);
    while (!stopping) {
      qcv.wait_for(ql, tick, [&] { return stopping || !queue.empty(); });
      if (stopping) break;
      std::deque<event> events;
      events.swap(queue);
      ql.unlock();
      {
        std::lock_guard lock(m);
        ua::status_code lost_status = ua::status::bad_connection_closed;
        for (const auto& e : events) {
          auto& s = servers[e.server];
          if (e.generation != s.generation || !s.c) continue;  // a server given up already
          if (e.down) {
            spdlog::info("redundant client: {} lost: {}", s.url, e.status.to_string());
            if (e.server == active.load(std::memory_order_acquire)) lost_status = e.status;
            disconnect(e.server);
          } else if (e.level >= 0) {
            s.level = e.level;
          }
        }
        // Warm and hot: every server connected, with the subscriptions.
        if (!cold()) {
          const auto now = clock_type::now();
          for (std::size_t i = 0; i < servers.size(); ++i)
            if (!servers[i].c && now >= servers[i].next_try && connect_server(i)) reproduce(i);
        }
        step(lost_status);
        join_closers(false);
      }
      emit();
      ql.lock();
    }
  }

  void stop_thread() {
    {
      std::lock_guard lock(qm);
      stopping = true;
    }
    qcv.notify_one();
    if (thread.joinable()) thread.join();
  }

  ua::status_code close() {
    if (closed) return ua::status::good;
    closed = true;
    stop_thread();
    std::vector<book_sub> subs;
    {
      std::lock_guard lock(m);
      set_active(no_server);
      for (std::size_t i = 0; i < servers.size(); ++i) disconnect(i);
      subs.swap(book);
    }
    join_closers(true);
    for (const auto& b : subs)
      if (b.handlers.on_status) b.handlers.on_status(subscription_status{b.id, subscription_event::closed, ua::status::good, 0, 0});
    return ua::status::good;
  }

  // The closing threads that are done (all: wait for every one).
  void join_closers(bool all) {
    std::vector<closer> left;
    for (auto& c : closers) {
      if (all || c.done->load(std::memory_order_acquire)) c.t.join();
      else left.push_back(std::move(c));
    }
    closers.swap(left);
  }

  ~impl() {
    stop_thread();
    join_closers(true);
  }

  book_sub* find(std::uint32_t id) {
    for (auto& b : book)
      if (b.id == id) return &b;
    return nullptr;
  }
};

ua::expected<redundant_client> redundant_client::connect(redundant_client_options options) {
  if (options.endpoint_urls.empty()) return ua::status::bad_invalid_argument;
  auto p = std::make_unique<impl>();
  p->options = std::move(options);
  p->cfg = std::make_unique<caf::actor_system_config>();
  p->system = std::make_unique<caf::actor_system>(configure_client_system(*p->cfg));
  for (const auto& url : p->options.endpoint_urls) p->servers.push_back({url, nullptr, 0, -1, {}, {}});
  {
    std::lock_guard lock(p->m);
    // Cold: the servers one by one until a healthy one; warm and hot: all of them.
    for (std::size_t i = 0; i < p->servers.size(); ++i) {
      if (!p->connect_server(i)) continue;
      if (p->cold() && p->servers[i].level >= p->options.healthy_service_level) break;
    }
    const auto n = actors::choose_server(p->health(), no_server, p->options.healthy_service_level);
    if (n == no_server) {
      for (std::size_t i = 0; i < p->servers.size(); ++i) p->disconnect(i);
      return p->first_failure.is_good() ? ua::status::bad_no_communication : p->first_failure;
    }
    p->switch_to(n, failover_reason::initial, ua::status::good);
    if (p->cold())
      for (std::size_t i = 0; i < p->servers.size(); ++i)
        if (i != n && p->servers[i].c) p->disconnect(i);
  }
  p->emit();
  auto* raw = p.get();
  p->thread = std::thread([raw] { raw->run(); });
  return redundant_client(std::move(p));
}

redundant_client::redundant_client(std::unique_ptr<impl> p) noexcept : impl_(std::move(p)) {}
redundant_client::redundant_client(redundant_client&&) noexcept = default;
redundant_client& redundant_client::operator=(redundant_client&&) noexcept = default;
redundant_client::~redundant_client() {
  if (impl_) impl_->close();
}

ua::status_code redundant_client::close() { return impl_ ? impl_->close() : ua::status::good; }

std::size_t redundant_client::active_endpoint() const noexcept {
  const auto a = impl_->active.load(std::memory_order_acquire);
  return a == no_server ? connection_event::no_endpoint : a;
}

std::uint64_t redundant_client::dropped_backup_messages() const noexcept {
  return impl_->dropped.load(std::memory_order_relaxed);
}

std::vector<int> redundant_client::service_levels() const {
  std::lock_guard lock(impl_->m);
  std::vector<int> out;
  for (const auto& s : impl_->servers) out.push_back(s.c ? s.level : -1);
  return out;
}

namespace {

template <class Request, class Response, class Send>
void forward(const std::shared_ptr<client>& c, Request r, client_callback<Response> done, Send send) {
  if (!c) return done(ua::status::bad_server_not_connected);
  send(*c, std::move(r), std::move(done));
}

}  // namespace

void redundant_client::read(ua::read_request r, client_callback<ua::read_response> done) {
  forward(impl_->current(), std::move(r), std::move(done), [](client& c, auto&& q, auto&& d) { c.read(std::move(q), std::move(d)); });
}
void redundant_client::write(ua::write_request r, client_callback<ua::write_response> done) {
  forward(impl_->current(), std::move(r), std::move(done), [](client& c, auto&& q, auto&& d) { c.write(std::move(q), std::move(d)); });
}
void redundant_client::call(ua::call_request r, client_callback<ua::call_response> done) {
  forward(impl_->current(), std::move(r), std::move(done), [](client& c, auto&& q, auto&& d) { c.call(std::move(q), std::move(d)); });
}
void redundant_client::browse(ua::browse_request r, client_callback<ua::browse_response> done) {
  forward(impl_->current(), std::move(r), std::move(done), [](client& c, auto&& q, auto&& d) { c.browse(std::move(q), std::move(d)); });
}
ua::expected<ua::read_response> redundant_client::read_sync(ua::read_request r) {
  auto c = impl_->current();
  if (!c) return ua::status::bad_server_not_connected;
  return c->read_sync(std::move(r));
}
ua::expected<ua::write_response> redundant_client::write_sync(ua::write_request r) {
  auto c = impl_->current();
  if (!c) return ua::status::bad_server_not_connected;
  return c->write_sync(std::move(r));
}
ua::expected<ua::call_response> redundant_client::call_sync(ua::call_request r) {
  auto c = impl_->current();
  if (!c) return ua::status::bad_server_not_connected;
  return c->call_sync(std::move(r));
}
ua::expected<ua::browse_response> redundant_client::browse_sync(ua::browse_request r) {
  auto c = impl_->current();
  if (!c) return ua::status::bad_server_not_connected;
  return c->browse_sync(std::move(r));
}

ua::expected<ua::create_subscription_response> redundant_client::create_subscription_sync(subscription_settings settings,
                                                                                         subscription_handlers handlers) {
  auto& p = *impl_;
  std::lock_guard lock(p.m);
  const auto a = p.active.load(std::memory_order_acquire);
  if (a == no_server || !p.servers[a].c) return ua::status::bad_server_not_connected;
  impl::book_sub b;
  b.id = p.next_id++;
  b.settings = settings;
  b.handlers = std::move(handlers);
  auto r = p.create_on(a, b, true);
  if (!r) return r;
  r->subscription_id = b.id;
  if (!p.cold())
    for (std::size_t i = 0; i < p.servers.size(); ++i)
      if (i != a && p.servers[i].c)
        if (auto other = p.create_on(i, b, p.options.mode == redundancy_support::hot); !other)
          spdlog::warn("redundant client: subscription {} not created on {}: {}", b.id, p.servers[i].url, other.error().to_string());
  p.book.push_back(std::move(b));
  return r;
}

ua::expected<ua::create_monitored_items_response> redundant_client::create_monitored_items_sync(
    ua::create_monitored_items_request request) {
  auto& p = *impl_;
  std::lock_guard lock(p.m);
  auto* b = p.find(request.subscription_id);
  if (!b) return ua::status::bad_subscription_id_invalid;
  const auto a = p.active.load(std::memory_order_acquire);
  if (a == no_server || !p.servers[a].c) return ua::status::bad_server_not_connected;
  auto it = p.servers[a].subs.find(b->id);
  if (it == p.servers[a].subs.end()) return ua::status::bad_subscription_id_invalid;
  const std::size_t from = b->items.size();
  for (const auto& item : request.items_to_create) b->items.push_back(item);
  auto r = p.create_items(a, *b, it->second, from, true);
  if (!r) {
    b->items.resize(from);
    it->second.item_ids.resize(from);
    return r;
  }
  // The items the server in use refused are the application's to see, not to keep.
  std::vector<ua::monitored_item_create_request> kept(b->items.begin(), b->items.begin() + static_cast<std::ptrdiff_t>(from));
  std::vector<std::uint32_t> ids(it->second.item_ids.begin(), it->second.item_ids.begin() + static_cast<std::ptrdiff_t>(from));
  for (std::size_t k = 0; k < r->results.size(); ++k)
    if (r->results[k].status_code.is_good()) {
      kept.push_back(b->items[from + k]);
      ids.push_back(r->results[k].monitored_item_id);
    }
  b->items = std::move(kept);
  it->second.item_ids = std::move(ids);
  if (!p.cold())
    for (std::size_t i = 0; i < p.servers.size(); ++i) {
      if (i == a || !p.servers[i].c) continue;
      auto other = p.servers[i].subs.find(b->id);
      if (other == p.servers[i].subs.end()) continue;
      if (auto o = p.create_items(i, *b, other->second, from, other->second.enabled); !o)
        spdlog::warn("redundant client: items of subscription {} not created on {}: {}", b->id, p.servers[i].url,
                     o.error().to_string());
    }
  return r;
}

ua::expected<ua::delete_subscriptions_response> redundant_client::delete_subscriptions_sync(
    ua::delete_subscriptions_request request) {
  auto& p = *impl_;
  std::lock_guard lock(p.m);
  ua::delete_subscriptions_response resp;
  for (const auto id : request.subscription_ids) {
    auto at = std::find_if(p.book.begin(), p.book.end(), [id](const auto& b) { return b.id == id; });
    if (at == p.book.end()) {
      resp.results.push_back(ua::status::bad_subscription_id_invalid);
      continue;
    }
    for (auto& s : p.servers) {
      auto it = s.subs.find(id);
      if (it == s.subs.end() || !s.c) continue;
      ua::delete_subscriptions_request del;
      del.subscription_ids.push_back(it->second.id);
      (void)s.c->delete_subscriptions_sync(std::move(del));
      s.subs.erase(it);
    }
    p.book.erase(at);
    resp.results.push_back(ua::status::good);
  }
  return resp;
}

}  // namespace uactor
