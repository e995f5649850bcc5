// Many reverse connections held by one client listener (Part 6 §7.1.3, docs/reverse-connect.md):
// a child process serves with one reverse-connect target of --connections connections to this
// process's listener (the embedding API; policy None, loopback); this process opens the listener and
// --connections uactor::client sessions over it, one after the other, each taking the next socket
// the server dialled. It reports the time until all are held, this process's CPU and resident
// memory per connection, the server's, then holds them --hold s and reads CurrentTime over every
// one (each must answer). Run:
//   build/bench/runtime/reverse_connect_many [--connections 1000] [--hold 5] [--max-pending 16]
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "uactor/client.hpp"
#include "uactor/metrics.hpp"
#include "uactor/reverse_listener.hpp"
#include "uactor/runtime.hpp"

using namespace uactor;
using namespace std::chrono_literals;

namespace {

struct options {
  unsigned connections = 1000;
  unsigned hold_s = 5;
  unsigned max_pending = 16;
};

double process_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// VmRSS of this process, in KiB.
long rss_kib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

std::string read_line(FILE* in) {
  char buf[512];
  if (!std::fgets(buf, sizeof buf, in)) return {};
  std::string s(buf);
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

void say(FILE* out, const std::string& line) {
  std::fputs((line + "\n").c_str(), out);
  std::fflush(out);
}

// The child: a server that dials the parent's listener, until the parent says `stop`.
int serve(const options& o, FILE* to_parent, FILE* from_parent) {
  const std::string port_line = read_line(from_parent);
  if (port_line.rfind("port ", 0) != 0) return 1;
  runtime rt;
  const long rss0 = rss_kib();
  const double cpu0 = process_cpu_ms();
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  plan.application_uri = "urn:uactor:bench:reverse-server";
  reverse_connect_plan target;
  target.client_url = "opc.tcp://127.0.0.1:" + port_line.substr(5);
  target.max_connections = o.connections;
  target.backoff_min = 20ms;
  target.backoff_max = 500ms;
  plan.reverse_connect.push_back(target);
  auto started = rt.start_server(plan);
  if (!started) return say(to_parent, "failed " + started.error().to_string()), 1;
  server& srv = **started;
  say(to_parent, "up");
  while (true) {
    const std::string cmd = read_line(from_parent);
    if (cmd != "report") break;
    const auto m = srv.metrics();
    const auto& rc = m.reverse_connects.at(0);
    say(to_parent, "report rss_kib=" + std::to_string(rss_kib() - rss0) + " cpu_ms=" +
                       std::to_string(static_cast<long>(process_cpu_ms() - cpu0)) + " open=" +
                       std::to_string(rc.connections_open) + " dials=" + std::to_string(rc.dial_attempts) +
                       " failures=" + std::to_string(rc.failures));
  }
  return 0;
}

std::string ask_report(FILE* to_child, FILE* from_child) {
  say(to_child, "report");
  return read_line(from_child);
}

int hold(const options& o, FILE* from_child, FILE* to_child) {
  runtime rt;
  reverse_listen_options lo;
  lo.listen = "127.0.0.1:0";
  lo.expected_server_uri = "urn:uactor:bench:reverse-server";
  lo.max_pending = o.max_pending;
  auto listener = reverse_listener::open(lo);
  if (!listener) return std::fprintf(stderr, "listener: %s\n", listener.error().to_string().c_str()), 1;
  say(to_child, "port " + std::to_string((*listener)->port()));
  if (const auto up = read_line(from_child); up != "up") return std::fprintf(stderr, "server: %s\n", up.c_str()), 1;

  const long rss0 = rss_kib();
  const double cpu0 = process_cpu_ms();
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<client> clients;
  clients.reserve(o.connections);
  for (unsigned i = 0; i < o.connections; ++i) {
    client_options co;
    co.reverse_listener = *listener;
    co.expected_server_uri = lo.expected_server_uri;
    co.connect_timeout = 30s;
    auto c = rt.connect(co);
    if (!c) return std::fprintf(stderr, "session %u: %s\n", i, c.error().to_string().c_str()), 1;
    clients.push_back(std::move(*c));
  }
  const double all_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu_ms = process_cpu_ms() - cpu0;
  const long rss = rss_kib() - rss0;
  const std::string server_after = ask_report(to_child, from_child);

  std::this_thread::sleep_for(std::chrono::seconds(o.hold_s));
  unsigned answered = 0;
  for (auto& c : clients) {
    ua::read_request r;
    r.nodes_to_read.resize(1);
    r.nodes_to_read[0].node_id = ua::node_id(0, 2258);  // Server_ServerStatus_CurrentTime
    r.nodes_to_read[0].attribute_id = 13;
    const auto res = c.read_sync(std::move(r));
    if (res && res->results.size() == 1 && !res->results[0].status.is_bad()) ++answered;
  }
  const std::string server_held = ask_report(to_child, from_child);
  for (auto& c : clients) c.close();
  say(to_child, "stop");

  const double n = o.connections;
  std::printf("reverse_connect_many connections=%u max_pending=%u\n", o.connections, o.max_pending);
  std::printf("  all sessions held after %.2f s (%.0f sessions/s)\n", all_s, n / all_s);
  std::printf("  client process: %.2f ms CPU and %.1f KiB resident per connection (%.0f ms, %ld KiB in all)\n",
              cpu_ms / n, static_cast<double>(rss) / n, cpu_ms, rss);
  std::printf("  server after the last session: %s\n", server_after.c_str());
  std::printf("  after %u s held: %u of %u sessions answered a Read; server %s\n", o.hold_s, answered,
              o.connections, server_held.c_str());
  return answered == o.connections ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const unsigned v = static_cast<unsigned>(std::strtoul(argv[i + 1], nullptr, 10));
    if (!std::strcmp(argv[i], "--connections")) o.connections = v;
    else if (!std::strcmp(argv[i], "--hold")) o.hold_s = v;
    else if (!std::strcmp(argv[i], "--max-pending")) o.max_pending = v;
    else return std::fprintf(stderr, "usage: %s [--connections N] [--hold S] [--max-pending N]\n", argv[0]), 2;
  }
  if (o.connections == 0 || o.max_pending == 0) return std::fprintf(stderr, "connections, max-pending > 0\n"), 2;
  // Two processes before any thread starts: the child serves and dials, this one listens.
  int down[2], up[2];
  if (pipe(down) != 0 || pipe(up) != 0) return 1;
  const pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    close(down[1]);
    close(up[0]);
    std::_Exit(serve(o, fdopen(up[1], "w"), fdopen(down[0], "r")));  // no static destructors (0009)
  }
  close(down[0]);
  close(up[1]);
  FILE* to_child = fdopen(down[1], "w");
  FILE* from_child = fdopen(up[0], "r");
  const int rc = hold(o, from_child, to_child);
  std::fclose(to_child);
  int status = 0;
  waitpid(child, &status, 0);
  return rc;
}
