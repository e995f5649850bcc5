// The historian joins the batches that queue up behind a slow store into fewer, larger writes
// (historian_options::max_joined_values, docs/decisions/0083), keeping every value once and in
// order, also when the joined write finds the store unavailable.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include <caf/all.hpp>

#include "actors/server/historian_actor.hpp"
#include "history/sqlite_store.hpp"
#include "tests/support/temp_folder.hpp"

using namespace uactor;
using namespace std::chrono_literals;

namespace {

// A SQLite store whose appends take `delay` each and are counted by size; the appends numbered in
// `failing` (from 1, set before the historian starts) throw store_unavailable.
class slow_store final : public history::history_store {
public:
  slow_store(const std::string& path, std::chrono::milliseconds delay) : store_(path), delay_(delay) {}

  void append(std::span<const history::record> batch) override {
    std::this_thread::sleep_for(delay_);
    {
      std::lock_guard lock(mutex_);
      ++calls_;
      const bool fails = std::find(failing.begin(), failing.end(), calls_) != failing.end();
      attempts_.push_back({batch.size(), fails});
      if (fails) throw history::store_unavailable("history: the test's store is away");
    }
    store_.append(batch);
  }
  history::raw_page read_raw(const history::raw_query& q) override { return store_.read_raw(q); }
  std::vector<history::write_outcome> update(std::string_view node, std::span<const ua::data_value> values,
                                             history::write_mode mode, const history::change& who) override {
    return store_.update(node, values, mode, who);
  }
  std::uint64_t remove_range(std::string_view node, std::int64_t from, std::int64_t to, bool modified,
                             const history::change& who) override {
    return store_.remove_range(node, from, to, modified, who);
  }
  std::vector<bool> remove_at(std::string_view node, std::span<const std::int64_t> times, const history::change& who) override {
    return store_.remove_at(node, times, who);
  }
  std::vector<history::write_outcome> update_events(std::string_view node, std::span<const ua::data_value> events,
                                                    history::write_mode mode, const history::change& who) override {
    return store_.update_events(node, events, mode, who);
  }
  std::vector<bool> remove_events(std::string_view node, std::span<const ua::byte_string> ids,
                                  const history::change& who) override {
    return store_.remove_events(node, ids, who);
  }
  std::uint64_t apply_retention(const history::retention& r, std::int64_t now) override {
    return store_.apply_retention(r, now);
  }

  struct attempt {
    std::size_t values;
    bool failed;
  };
  std::vector<attempt> attempts() {
    std::lock_guard lock(mutex_);
    return attempts_;
  }
  std::vector<int> failing;

private:
  history::sqlite_store store_;
  std::chrono::milliseconds delay_;
  std::mutex mutex_;
  int calls_ = 0;
  std::vector<attempt> attempts_;
};

ua::data_value value_at(double v) {
  ua::data_value d;
  d.set_value(v);
  d.source_timestamp.ticks = 133'000'000'000'000'000 + static_cast<std::int64_t>(v) * ua::date_time::ticks_per_second;
  d.has_source_timestamp = true;
  return d;
}

// 200 batches of 10 values, as fast as the sink takes them; then waits (bounded) until the store
// holds them all, and returns them.
std::vector<double> record_through(actors::historian& h, slow_store& store, std::atomic<std::int64_t>& queued) {
  for (int b = 0, n = 0; b < 200; ++b) {
    std::vector<history::record> batch;
    for (int i = 0; i < 10; ++i, ++n) batch.push_back({"ns=1;s=Joined", value_at(n)});
    REQUIRE(h.sink(std::move(batch)));
  }
  history::raw_query q;
  q.node = "ns=1;s=Joined";
  q.from = 0;
  q.to = std::numeric_limits<std::int64_t>::max();
  std::vector<double> values;
  for (int i = 0; i < 400; ++i) {
    values.clear();
    for (const auto& v : store.read_raw(q).values) values.push_back(*v.value.get_if<double>());
    if (values.size() >= 2000 && queued.load() == 0) break;
    std::this_thread::sleep_for(25ms);
  }
  return values;
}

struct historian_fixture {
  test::temp_folder dir{"historian-join"};
  std::shared_ptr<slow_store> store = std::make_shared<slow_store>((dir.path / "h.sqlite").string(), 50ms);
  std::shared_ptr<actors::metrics_registry> metrics = std::make_shared<actors::metrics_registry>();
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};

  actors::historian start() {
    actors::historian_options options;
    options.max_queued_batches = 1'000;
    options.max_joined_values = 500;
    options.retry_min = 20ms;
    options.retry_max = 100ms;
    return actors::spawn_historian(sys, store, options, metrics);
  }
};

struct stop_on_exit {
  actors::historian& h;
  ~stop_on_exit() {
    caf::anon_send_exit(h.actor, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(h.reader, caf::exit_reason::user_shutdown);
  }
};

std::vector<double> ramp(int n) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(i);
  return out;
}

}  // namespace

TEST_CASE("historian: batches queued behind a slow store are joined into fewer writes, each value once and in order",
          "[history][historian]") {
  historian_fixture f;
  auto h = f.start();
  stop_on_exit stop{h};
  const auto values = record_through(h, *f.store, f.metrics->history().queued);
  CHECK(values == ramp(2000));
  CHECK(f.metrics->history().queued.load() == 0);
  const auto attempts = f.store->attempts();
  INFO("writes: " << attempts.size());
  // 200 batches of 10 in a few writes (about 5: the sink takes them all during the first 50 ms
  // write), joined up to 500 values (a write closes once it holds 500 or more: at most 500 + 10).
  CHECK(attempts.size() < 40);
  for (const auto& a : attempts) CHECK(a.values <= 510);
  CHECK(std::count_if(attempts.begin(), attempts.end(), [](const auto& a) { return a.values >= 500; }) >= 1);
}

TEST_CASE("historian: a joined write that finds the store away waits as one batch and arrives once",
          "[history][historian]") {
  historian_fixture f;
  f.store->failing = {2, 3};  // the second write and its first retry
  auto h = f.start();
  stop_on_exit stop{h};
  const auto values = record_through(h, *f.store, f.metrics->history().queued);
  CHECK(values == ramp(2000));
  CHECK(f.metrics->history().queued.load() == 0);
  CHECK(f.metrics->history().write_errors.get() == 2);
  const auto attempts = f.store->attempts();
  REQUIRE(attempts.size() >= 4);
  CHECK(attempts[1].failed);
  CHECK(attempts[1].values > 10);  // a joined write (more than one batch of 10)
  // Retried with what queued behind it joined (max_waiting_batch_values, 1,000).
  CHECK(attempts[2].values >= attempts[1].values);
}
