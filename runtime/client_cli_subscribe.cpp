// The subscribe command of the `uactor` CLI: prints each data change until --count, --seconds or Ctrl-C.
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
  auto c = connect_or_exit(a);

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
  // Each change as read prints a value: NODE, value, status, SourceTimestamp (ms since 1970).
  h.on_data = [sh, ids, limit = sa.count](std::uint32_t, std::uint32_t, std::span<const ua::monitored_item_notification> changes) {
    for (const auto& ch : changes) {
      std::unique_lock lock(sh->mutex);
      if (limit && sh->seen >= limit) return;
      ++sh->seen;
      lock.unlock();
      const auto& dv = ch.value;
      const std::size_t i = ch.client_handle - 1;
      std::printf("%s\t%s\t%s\t%lld\n", i < ids.size() ? ids[i].to_string().c_str() : "?",
                  dv.has_value ? format_value(dv.value).c_str() : "-",
                  (dv.has_status ? dv.status : ua::status_code(ua::status::good)).to_string().c_str(),
                  dv.has_source_timestamp ? static_cast<long long>(dv.source_timestamp.to_unix_ms()) : 0LL);
      std::fflush(stdout);
    }
    sh->changed.notify_all();
  };
  h.on_status = [sh](const subscription_status& st) {
    if (st.what == subscription_event::closed && st.status.is_good()) return;  // our own close()
    const char* what = st.what == subscription_event::silent      ? "silent"
                       : st.what == subscription_event::recovered ? "recovered"
                       : st.what == subscription_event::data_lost ? "data lost"
                       : st.what == subscription_event::closed    ? "closed"
                                                                  : "status change";
    std::fprintf(stderr, "uactor: subscription %u: %s: %s\n", st.subscription_id, what, st.status.to_string().c_str());
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
  for (std::size_t i = 0; i < ids.size(); ++i)
    req.items_to_create.push_back(monitor_value(ids[i], static_cast<std::uint32_t>(i + 1), sa.sampling_ms, 10, true));
  auto items = c.create_monitored_items_sync(std::move(req));
  if (!items) service_failed(c, "CreateMonitoredItems", items.error());
  int code = exit_good;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto sc = i < items->results.size() ? items->results[i].status_code : ua::status::bad_unknown_response;
    if (sc.is_bad()) {
      std::printf("%s\t-\t%s\n", ids[i].to_string().c_str(), sc.to_string().c_str());
      code = exit_bad;
    }
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
