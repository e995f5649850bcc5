// The subscribe command of the `uactor` CLI: prints each data change until --count, --seconds or
// Ctrl-C, and the subscription's status changes (silent, recovered, data lost, closed).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "runtime/client_cli_internal.hpp"
#include "runtime/client_cli_structures.hpp"
#include "uactor/client.hpp"

namespace uactor::app::client_cli {

namespace {

std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) { interrupted.store(true); }

}  // namespace

int run_subscribe(const common_args& a, const subscribe_args& sa, const std::vector<std::string>& nodes) {
  if (nodes.empty()) usage("subscribe: give at least one NodeId");
  std::vector<ua::node_id> ids;
  for (const auto& n : nodes) ids.push_back(node_or_exit(n));
  auto style = a.style();
  std::uint32_t deadband_type = 0;  // Part 4 §7.22.2 DeadbandType: 1 absolute, 2 percent
  if (!sa.deadband_type.empty()) deadband_type = sa.deadband_type == "absolute" ? 1 : 2;
  if (sa.deadband != 0 && deadband_type == 0) usage("subscribe: --deadband needs --deadband-type absolute|percent");
  if (sa.deadband < 0 || (deadband_type == 2 && sa.deadband > 100)) usage("subscribe: --deadband out of range");
  const auto trigger = sa.trigger == "status"                   ? ua::data_change_trigger::status
                       : sa.trigger == "status-value-timestamp" ? ua::data_change_trigger::status_value_timestamp
                                                                : ua::data_change_trigger::status_value;
  // --reconnect: one line per connection event, beside the subscription's own (below).
  reconnect_options reconnect;
  reconnect.enabled = sa.reconnect;
  if (sa.reconnect) {
    reconnect.on_event = [json = style.json](const connection_event& e) {
      const char* what = e.what == connection_event_kind::lost           ? "connection lost"
                         : e.what == connection_event_kind::reconnecting ? "reconnecting"
                         : e.what == connection_event_kind::reconnected  ? "reconnected"
                                                                         : "gave up";
      const char* how = e.how == recovery_kind::reactivated   ? "session reactivated"
                        : e.how == recovery_kind::transferred ? "subscriptions transferred"
                                                              : "subscriptions recreated";
      const bool done = e.what == connection_event_kind::reconnected;
      if (json) {
        json_object o;
        o.text("event", what).number("attempt", e.attempt).status(e.status);
        if (done) o.text("how", how);
        std::printf("%s\n", o.str().c_str());
        std::fflush(stdout);
      } else {
        std::fprintf(stderr, "uactor: %s%s%s (attempt %u): %s\n", what, done ? ", " : "", done ? how : "", e.attempt,
                     e.status.to_string().c_str());
      }
    };
  }
  auto c = connect_or_exit(a, std::move(reconnect));
  // The values are printed on a client thread, which must not wait for the server: the
  // structures the nodes' DataTypes need are asked for now.
  server_structures structures(c);
  {
    ua::read_request rr;
    for (const auto& id : ids) {
      ua::read_value_id rv;
      rv.node_id = id;
      rv.attribute_id = 14;  // DataType
      rr.nodes_to_read.push_back(std::move(rv));
    }
    if (auto types = c.read_sync(std::move(rr)))
      for (const auto& dv : types->results)
        if (const auto* t = dv.value.get_if<ua::node_id>()) structures.prefetch(*t);
  }
  structures.go_offline();
  style.structures = &structures;

  struct shared {
    std::mutex mutex;
    std::condition_variable changed;
    std::uint64_t seen = 0;
    bool failed = false;
    bool ended = false;  // the subscription closed
  };
  auto sh = std::make_shared<shared>();
  subscription_settings settings;
  settings.publishing_interval = std::chrono::milliseconds(sa.interval_ms);
  subscription_handlers h;
  // Each change as it comes: NODE, value, status, SourceTimestamp (ISO 8601).
  h.on_data = [sh, ids, style, limit = sa.count](std::uint32_t, std::uint32_t,
                                                std::span<const ua::monitored_item_notification> changes) {
    for (const auto& ch : changes) {
      std::unique_lock lock(sh->mutex);
      if (limit && sh->seen >= limit) return;
      ++sh->seen;
      lock.unlock();
      const auto& dv = ch.value;
      const std::size_t i = ch.client_handle - 1;
      const std::string node = i < ids.size() ? ids[i].to_string() : "?";
      const ua::status_code sc = dv.has_status ? dv.status : ua::status_code(ua::status::good);
      std::string line;
      if (style.json) {
        json_object o;
        o.text("node", node).raw("value", dv.has_value ? json_value(dv.value, style) : "null").status(sc);
        o.raw("sourceTimestamp", dv.has_source_timestamp ? json_string(format_time(dv.source_timestamp, style.local_time)) : "null");
        o.raw("serverTimestamp", dv.has_server_timestamp ? json_string(format_time(dv.server_timestamp, style.local_time)) : "null");
        line = o.str();
      } else {
        line = node + "\t" + (dv.has_value ? format_value(dv.value, style) : "-") + "\t" + sc.to_string() + "\t" +
               (dv.has_source_timestamp ? format_time(dv.source_timestamp, style.local_time) : "-");
      }
      std::printf("%s\n", line.c_str());
      std::fflush(stdout);
    }
    sh->changed.notify_all();
  };
  h.on_status = [sh, style](const subscription_status& st) {
    if (st.what == subscription_event::closed && st.status.is_good()) return;  // our own close()
    const char* what = st.what == subscription_event::silent      ? "silent"
                       : st.what == subscription_event::recovered ? "recovered"
                       : st.what == subscription_event::data_lost ? "data lost"
                       : st.what == subscription_event::closed    ? "closed"
                       : st.what == subscription_event::transferred ? "transferred"
                       : st.what == subscription_event::recreated   ? "recreated"
                                                                    : "status change";
    // A person reads these beside the values on stderr; a script gets them in the stream it parses.
    if (style.json) {
      std::printf("%s\n", json_object()
                              .number("subscription", st.subscription_id)
                              .text("event", what)
                              .status(st.status)
                              .str()
                              .c_str());
      std::fflush(stdout);
    } else {
      std::fprintf(stderr, "uactor: subscription %u: %s: %s\n", st.subscription_id, what, st.status.to_string().c_str());
    }
    std::lock_guard lock(sh->mutex);
    if (st.what == subscription_event::data_lost || st.what == subscription_event::closed) sh->failed = true;
    if (st.what == subscription_event::closed) sh->ended = true;
    sh->changed.notify_all();
  };
  auto created = c.create_subscription_sync(settings, std::move(h));
  if (!created) service_failed(c, "CreateSubscription", created.error());
  ua::create_monitored_items_request req;
  req.subscription_id = created->subscription_id;
  req.timestamps_to_return = ua::timestamps_to_return::both;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    auto item = monitor_value(ids[i], static_cast<std::uint32_t>(i + 1), sa.sampling_ms, sa.queue_size, sa.discard_oldest);
    if (deadband_type != 0 || trigger != ua::data_change_trigger::status_value)
      item.requested_parameters.filter = data_change_filter(trigger, deadband_type, sa.deadband);
    req.items_to_create.push_back(std::move(item));
  }
  auto items = c.create_monitored_items_sync(std::move(req));
  if (!items) service_failed(c, "CreateMonitoredItems", items.error());
  int code = exit_good;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto sc = i < items->results.size() ? items->results[i].status_code : ua::status::bad_unknown_response;
    if (sc.is_bad()) {
      if (style.json)
        std::printf("%s\n", json_object().text("node", ids[i].to_string()).raw("value", "null").status(sc).str().c_str());
      else
        std::printf("%s\t-\t%s\n", ids[i].to_string().c_str(), sc.to_string().c_str());
      code = exit_bad;
    }
  }

  if (items->results.size() == ids.size() &&
      std::all_of(items->results.begin(), items->results.end(), [](const auto& r) { return r.status_code.is_bad(); })) {
    c.close();
    return exit_bad;  // nothing to wait for
  }

  interrupted.store(false);
  auto previous = std::signal(SIGINT, on_interrupt);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(sa.seconds));
  {
    std::unique_lock lock(sh->mutex);
    // A signal handler cannot notify a condition variable: wake up now and then to look.
    while (!interrupted.load() && !sh->ended && !(sa.count && sh->seen >= sa.count) &&
           !(sa.seconds > 0 && std::chrono::steady_clock::now() >= deadline))
      sh->changed.wait_for(lock, std::chrono::milliseconds(100));
    if (sh->failed) code = exit_bad;
  }
  std::signal(SIGINT, previous);
  c.close();
  return code;
}

}  // namespace uactor::app::client_cli
