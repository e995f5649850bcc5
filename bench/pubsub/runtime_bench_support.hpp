// What the PubSub benches that run a real runtime share: CPU clocks (the process's, a thread's),
// UDP sockets on 127.0.0.1 with a port the kernel picks, and a server with WRITERS x FIELDS Double
// variables (writer w's field f: ns=2;i=1000000 + w * 100000 + f, browse name "v<f>").
#pragma once

#include <arpa/inet.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "uactor/runtime.hpp"
#include "uactor/ua/node_ids.hpp"

namespace uactor::bench {

inline double process_cpu_s() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

inline double thread_cpu_s() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

// A UDP socket bound to 127.0.0.1 and a port the kernel picked; `port` says which.
inline int bound_udp_socket(std::uint16_t& port, int receive_buffer = 8 << 20) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  port = ntohs(a.sin_port);
  return fd;
}

// A UDP port nobody holds now (the runtime binds it a moment later: good enough for a bench).
inline std::uint16_t free_udp_port() {
  std::uint16_t port = 0;
  ::close(bound_udp_socket(port, 0));
  return port;
}

inline node_id bench_variable(std::size_t writer, std::size_t field) {
  return node_id(2, static_cast<std::uint32_t>(1'000'000 + writer * 100'000 + field));
}
inline std::string field_name(std::size_t field) { return "v" + std::to_string(field); }

// A UADP connection to or from 127.0.0.1:port, PublisherId 1001 (a UInt16), nothing in it yet.
inline pubsub::connection_config uadp_connection(std::uint16_t port) {
  pubsub::connection_config c;
  c.name = "bench";
  c.url = "opc.udp://127.0.0.1:" + std::to_string(port);
  c.publisher_id = "1001";
  c.publisher_id_kind = pubsub::publisher_id_type::uint16;
  c.encoding = pubsub::message_encoding::uadp;
  return c;
}

// A server on 127.0.0.1 (any port, no security) that `plan_pubsub` may give a [pubsub]; the
// variables go in before it opens (the [pubsub] connection resolves them then). Exits on failure.
inline server& start_bench_server(runtime& rt, pubsub::pubsub_config plan_pubsub, std::size_t writers, std::size_t fields) {
  const auto die = [](const char* what, const status_code& sc) {
    std::fprintf(stderr, "%s: %s\n", what, sc.to_string().c_str());
    std::exit(1);
  };
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.host_name = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  plan.open_at_start = false;
  plan.pubsub = std::move(plan_pubsub);
  auto started = rt.start_server(plan);
  if (!started) die("start_server", started.error());
  server& srv = **started;
  if (srv.register_namespace("urn:bench:variables") != 2) die("namespace 2 expected", ua::status::bad_internal_error);
  std::vector<node_change> nodes;
  for (std::size_t w = 0; w < writers; ++w)
    for (std::size_t f = 0; f < fields; ++f) {
      variable_node v;
      v.id = bench_variable(w, f);
      v.parent = ns0::objects_folder;
      v.browse_name = qualified_name{2, ua::ua_string(field_name(f))};
      v.data_type = node_id(0, ua::ids::double_);
      v.value.set_value(0.0);
      nodes.push_back(std::move(v));
    }
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto sc : srv.apply(std::move(nodes)))
    if (sc.is_bad()) die("add", sc);
  const auto t1 = std::chrono::steady_clock::now();
  if (const auto sc = srv.open(); sc.is_bad()) die("open", sc);
  std::fprintf(stderr, "setup: %zu variables added in %.1f s, the server opened in %.1f s\n", writers * fields,
               std::chrono::duration<double>(t1 - t0).count(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
  return srv;
}

}  // namespace uactor::bench
