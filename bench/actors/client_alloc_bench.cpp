// The client's cost per request in steady state (docs/decisions/0023): Read (1 value),
// Write (1 value), Browse (the Server object, every field) and Call (Demo.Methods.Add), each
//   classic/cb     client::read(request, callback): the request built anew each time (as an
//                  application does), the response handed over by value
//   classic/sync   client::read_sync(request)
//   prepared/cb    client::prepare(request, callback) once, then send() from the callback
//   prepared/sync  prepared.send_sync()
// one request in flight, against `uactor run` as a child process (only the client is counted).
// Unit: per request, this process's heap allocations and bytes (runtime/alloc_hook.cpp, every
// thread) and CPU (user + system, getrusage); medians over --rounds.
// Run: build/bench/actors/client_alloc_bench build/cli/uactor [--rounds 3] [--requests 5000]
//      [--only read|write|browse|call]
// Instructions: valgrind --tool=callgrind build/bench/actors/client_alloc_bench build/cli/uactor
//   --rounds 1 --requests N --only read --mode prepared/cb (N = 1000 and 5000: the difference / 4000).
#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/process_stats.hpp"
#include "tests/support/fault_proxy.hpp"
#include "uactor/client.hpp"

using namespace uactor;

namespace {

ua::read_request read_one() {
  ua::read_request r;
  r.nodes_to_read.resize(1);
  r.nodes_to_read[0].node_id = ua::node_id::string(1, "Demo.Static.Scalar.Double");
  r.nodes_to_read[0].attribute_id = 13;
  return r;
}

ua::write_request write_one() {
  ua::write_request r;
  r.nodes_to_write.resize(1);
  r.nodes_to_write[0].node_id = ua::node_id::string(1, "Demo.Static.Scalar.Double");
  r.nodes_to_write[0].attribute_id = 13;
  r.nodes_to_write[0].value.set_value(ua::variant(2.5));
  return r;
}

ua::browse_request browse_server_object() {
  ua::browse_request r;
  r.nodes_to_browse.resize(1);
  auto& d = r.nodes_to_browse[0];
  d.node_id = ua::node_id(0, 2253);
  d.browse_direction = ua::browse_direction::forward;
  d.reference_type_id = ua::node_id(0, 33);
  d.include_subtypes = true;
  d.result_mask = 63;
  return r;
}

ua::call_request call_add() {
  ua::call_request r;
  r.methods_to_call.resize(1);
  auto& m = r.methods_to_call[0];
  m.object_id = ua::node_id::string(1, "Demo.Methods");
  m.method_id = ua::node_id::string(1, "Demo.Methods.Add");
  m.input_arguments.push_back(ua::variant(1.5));
  m.input_arguments.push_back(ua::variant(2.0));
  return r;
}

struct figures {
  double allocs = 0, bytes = 0, cpu_us = 0;
};

struct waiter {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::uint64_t failures = 0;
  void finish() {
    std::lock_guard lock(m);
    done = true;
    cv.notify_one();
  }
  void wait() {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return done; });
    done = false;
  }
};

template <class F>
figures measure(std::uint64_t n, F&& run) {
  const auto before = app::sample_process_stats();
  run(n);
  const auto d = app::sample_process_stats() - before;
  const double reqs = static_cast<double>(n);
  return {static_cast<double>(d.allocations) / reqs, static_cast<double>(d.allocated_bytes) / reqs,
          static_cast<double>(d.cpu_user_us + d.cpu_system_us) / reqs};
}

using mode_list = std::vector<std::pair<std::string, std::function<void(std::uint64_t)>>>;

// The four ways of one service. `make` builds the request; `classic` and `classic_sync` call the
// by-value API.
template <class Request, class Make, class Classic, class ClassicSync>
mode_list modes(client& c, Make make, Classic classic, ClassicSync classic_sync) {
  using prepared_t = decltype(c.prepare(make()));
  auto w = std::make_shared<waiter>();
  auto left = std::make_shared<std::uint64_t>(0);
  auto prepared = std::make_shared<prepared_t>();
  *prepared = c.prepare(make(), [w, left, prepared](auto answer) {
    if (!answer) ++w->failures;
    if (--*left == 0) return w->finish();
    if (prepared->send().is_bad()) ++w->failures;
  });
  auto prepared_sync = std::make_shared<prepared_t>(c.prepare(make()));
  mode_list out;
  out.emplace_back("classic/cb", [&c, w, left, make, classic](std::uint64_t n) {
    *left = n;
    std::function<void(bool)> next;
    next = [&](bool ok) {
      if (!ok) ++w->failures;
      if (--*left == 0) return w->finish();
      classic(c, make(), next);
    };
    classic(c, make(), next);
    w->wait();
  });
  out.emplace_back("classic/sync", [&c, w, make, classic_sync](std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i)
      if (!classic_sync(c, make())) ++w->failures;
  });
  out.emplace_back("prepared/cb", [w, left, prepared](std::uint64_t n) {
    *left = n;
    if (prepared->send().is_bad()) ++w->failures;
    w->wait();
  });
  out.emplace_back("prepared/sync", [w, prepared_sync](std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i)
      if (!prepared_sync->send_sync()) ++w->failures;
  });
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: client_alloc_bench UACTOR [--rounds N] [--requests N] [--only SERVICE] [--mode MODE]\n");
    return 2;
  }
  int rounds = 3;
  std::uint64_t requests = 5'000;
  std::string only, only_mode;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--requests")) requests = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--only")) only = argv[i + 1];
    else if (!std::strcmp(argv[i], "--mode")) only_mode = argv[i + 1];
  }
  test::server_process server(argv[1], {"run", "--host", "127.0.0.1", "--port", "{port}"});
  if (!server.start()) {
    std::fprintf(stderr, "cannot start %s\n", argv[1]);
    return 1;
  }
  client_options o;
  o.endpoint_url = server.url();
  auto c = client::connect(o);
  if (!c) {
    std::fprintf(stderr, "cannot connect\n");
    return 1;
  }
  using cb = std::function<void(bool)>;
  std::vector<std::pair<std::string, mode_list>> services;
  services.emplace_back("read", modes<ua::read_request>(
                                    *c, read_one,
                                    [](client& k, ua::read_request r, cb& next) {
                                      k.read(std::move(r), [&next](ua::expected<ua::read_response> a) { next(bool(a)); });
                                    },
                                    [](client& k, ua::read_request r) { return bool(k.read_sync(std::move(r))); }));
  services.emplace_back("write", modes<ua::write_request>(
                                     *c, write_one,
                                     [](client& k, ua::write_request r, cb& next) {
                                       k.write(std::move(r), [&next](ua::expected<ua::write_response> a) { next(bool(a)); });
                                     },
                                     [](client& k, ua::write_request r) { return bool(k.write_sync(std::move(r))); }));
  services.emplace_back("browse", modes<ua::browse_request>(
                                      *c, browse_server_object,
                                      [](client& k, ua::browse_request r, cb& next) {
                                        k.browse(std::move(r), [&next](ua::expected<ua::browse_response> a) { next(bool(a)); });
                                      },
                                      [](client& k, ua::browse_request r) { return bool(k.browse_sync(std::move(r))); }));
  services.emplace_back("call", modes<ua::call_request>(
                                    *c, call_add,
                                    [](client& k, ua::call_request r, cb& next) {
                                      k.call(std::move(r), [&next](ua::expected<ua::call_response> a) { next(bool(a)); });
                                    },
                                    [](client& k, ua::call_request r) { return bool(k.call_sync(std::move(r))); }));
  std::printf("%-8s %-14s %12s %12s %12s   (median of %d x %llu, one in flight)\n", "service", "mode", "allocs/req",
              "bytes/req", "cpu_us/req", rounds, static_cast<unsigned long long>(requests));
  for (auto& [name, ms] : services) {
    if (!only.empty() && only != name) continue;
    for (auto& [mode, run] : ms) {
      if (!only_mode.empty() && only_mode != mode) continue;
      run(std::max<std::uint64_t>(requests / 10, 100));  // warm-up: every reused buffer sized
      std::vector<double> a, b, cpu;
      for (int r = 0; r < rounds; ++r) {
        const auto f = measure(requests, run);
        a.push_back(f.allocs);
        b.push_back(f.bytes);
        cpu.push_back(f.cpu_us);
      }
      std::printf("%-8s %-14s %12.3f %12.1f %12.2f\n", name.c_str(), mode.c_str(), median(a), median(b), median(cpu));
    }
  }
  c->close();
  return 0;
}
