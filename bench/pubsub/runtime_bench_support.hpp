// What the PubSub benches that run a real runtime share: CPU clocks (the process's, a thread's)
// and UDP sockets on 127.0.0.1 with a port the kernel picks.
#pragma once

#include <arpa/inet.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <ctime>

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

}  // namespace uactor::bench
