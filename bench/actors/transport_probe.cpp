// How the transport should meet the socket (docs/decisions/0007-transport.md): a framed
// request/response echo over loopback TCP, 127.0.0.1 only, ephemeral port. Each request and each
// response is a 100-byte UA-TCP chunk ("MSGF" + UInt32 size + payload); the server frames with
// ua::chunk_reader and answers each chunk with one chunk, written coalesced (one send per receive).
// Server variants:
//   caf_broker   one caf::io::broker per connection (acceptor broker, doorman on a socket bound to
//                127.0.0.1), receive_policy::at_most(8192), wr_buf + one flush per new_data_msg
//   caf_broker_hop  the same broker, each chunk sent to a per-connection actor on the scheduler
//                and the response sent back to the broker (wr_buf + flush per response)
//   epoll        one non-blocking epoll thread, 8 KB staging buffer per connection, one recv, put()
//   epoll_actor  the epoll thread hands each chunk to a per-connection CAF actor; the actor's
//                response comes back through a locked queue + eventfd (the thread crossing)
//   epoll_actor_tuned  the same with work-stealing.moderate-sleep-duration=0us
//   io_uring     one thread, one ring (docs/decisions/0038): a recv in flight per
//                connection into its staging buffer, the responses to a receive sent with one send;
//                every completion of a wait handled, then all new recvs and sends of all connections
//                submitted together with the next wait (io_uring_submit_and_wait_timeout): one
//                system call per loop instead of epoll_wait + recv + send per ready connection
//   io_uring_defer  the same ring with IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN
//                (completions run in the waiting thread's own io_uring_enter, not by interrupt)
// Client: one epoll thread outside CAF, closed loop, N connections x K requests in flight.
// Unit: round trips/s over the window, and CPU µs per round trip (getrusage, whole process, and the
// process minus the client thread = the server's share). Not a unit test; bounded in time.
// CAF runs with scheduler.max-threads=2. 20 runs of warm-up + window: about 80 s by default.
// Run: build/bench/actors/transport_probe [--seconds N]   (default 3 s window after 1 s warm-up)
//      [--only VARIANT] [--load CONNSxINFLIGHT]   (one variant, one load: e.g. under perf stat)
#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <liburing.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "protocol/byte_buffer.hpp"
#include "protocol/chunk_reader.hpp"
#include "protocol/uatcp.hpp"

namespace {

namespace ua = uactor::ua;
using clock_type = std::chrono::steady_clock;

constexpr std::size_t chunk_size = 100;  // request and response, header included
constexpr std::size_t staging_size = 8192;

void die(const char* what) {
  std::perror(what);
  std::exit(2);
}

void write_chunk(std::uint8_t* p) {
  ua::write_message_header(p, {ua::message_type::message, ua::chunk_type::final_chunk,
                               static_cast<std::uint32_t>(chunk_size)});
  std::memset(p + ua::message_header_size, 0x5a, chunk_size - ua::message_header_size);
}

void set_nodelay(int fd) {
  int one = 1;
  if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) die("TCP_NODELAY");
}

void set_nonblocking(int fd) {
  if (::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) die("O_NONBLOCK");
}

// A listening socket on 127.0.0.1, ephemeral port. TCP_NODELAY set here is inherited by the
// accepted sockets on Linux, which is how the CAF broker's connections get it too.
int listen_loopback(std::uint16_t& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) die("socket");
  set_nodelay(fd);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) die("bind");
  if (::listen(fd, 128) != 0) die("listen");
  socklen_t len = sizeof a;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) die("getsockname");
  port = ntohs(a.sin_port);
  return fd;
}

double cpu_seconds(int who) {
  rusage r{};
  ::getrusage(who, &r);
  return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

// ---------------------------------------------------------------------------------------------
// The client: one epoll thread, `conns` blocking-send sockets, `in_flight` requests outstanding on
// each. Every full response read triggers one new request (sent together per recv).

struct snapshot {
  clock_type::time_point at;
  std::uint64_t round_trips = 0;
  double process_cpu = 0;
  double client_cpu = 0;
};

struct client_result {
  snapshot begin, end;
  bool ok = true;
};

class client {
public:
  client(std::uint16_t port, int conns, int in_flight) : in_flight_(in_flight) {
    for (int i = 0; i < conns; ++i) {
      const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0) die("socket");
      set_nodelay(fd);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      a.sin_port = htons(port);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) die("connect");
      fds_.push_back(fd);
    }
    requests_.resize(chunk_size * static_cast<std::size_t>(in_flight));
    for (int i = 0; i < in_flight; ++i) write_chunk(requests_.data() + chunk_size * static_cast<std::size_t>(i));
  }
  ~client() {
    for (int fd : fds_) ::close(fd);
  }

  // phase: 0 warm-up, 1 measuring, 2 stop. Runs on its own thread until phase 2 is seen.
  client_result run(const std::atomic<int>& phase) {
    client_result res;
    const int ep = ::epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) die("epoll_create1");
    std::vector<std::size_t> partial(fds_.size(), 0);
    for (std::size_t i = 0; i < fds_.size(); ++i) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = i;
      if (::epoll_ctl(ep, EPOLL_CTL_ADD, fds_[i], &ev) != 0) die("epoll_ctl");
      send_all(fds_[i], static_cast<std::size_t>(in_flight_));
    }
    std::uint64_t done = 0;
    int seen = 0;
    std::array<epoll_event, 64> evs{};
    std::array<std::uint8_t, 16384> buf{};
    const auto take = [&](snapshot& s) {
      s.at = clock_type::now();
      s.round_trips = done;
      s.process_cpu = cpu_seconds(RUSAGE_SELF);
      s.client_cpu = cpu_seconds(RUSAGE_THREAD);
    };
    const auto deadline = clock_type::now() + std::chrono::minutes(5);
    for (;;) {
      const int p = phase.load(std::memory_order_relaxed);
      if (p != seen) {
        if (p >= 1 && seen < 1) take(res.begin);
        if (p >= 2) { take(res.end); break; }
        seen = p;
      }
      if (clock_type::now() > deadline) { res.ok = false; break; }
      const int n = ::epoll_wait(ep, evs.data(), static_cast<int>(evs.size()), 5);
      for (int e = 0; e < n; ++e) {
        const std::size_t i = evs[static_cast<std::size_t>(e)].data.u64;
        const ssize_t got = ::recv(fds_[i], buf.data(), buf.size(), MSG_DONTWAIT);
        if (got <= 0) {
          if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
          std::fprintf(stderr, "client: connection %zu closed by the server\n", i);
          res.ok = false;
          take(res.end);
          ::close(ep);
          return res;
        }
        partial[i] += static_cast<std::size_t>(got);
        const std::size_t k = partial[i] / chunk_size;
        partial[i] %= chunk_size;
        done += k;
        if (k) send_all(fds_[i], k);
      }
    }
    ::close(ep);
    return res;
  }

private:
  void send_all(int fd, std::size_t n_chunks) {
    const std::size_t len = n_chunks * chunk_size;  // never more than in_flight chunks
    std::size_t off = 0;
    while (off < len) {
      const ssize_t s = ::send(fd, requests_.data() + off, len - off, MSG_NOSIGNAL);
      if (s < 0) {
        if (errno == EINTR) continue;
        die("client send");
      }
      off += static_cast<std::size_t>(s);
    }
  }

  int in_flight_;
  std::vector<int> fds_;
  std::vector<std::uint8_t> requests_;
};

// ---------------------------------------------------------------------------------------------
// Framing shared by the epoll variants: a connection's staging buffer, its reader, its output.

struct connection {
  int fd = -1;
  ua::chunk_reader reader{ua::transport_limits{}};
  std::array<std::uint8_t, staging_size> stage{};
  std::size_t staged = 0;  // leftover bytes (< 8: a header not yet whole) at the front
  ua::byte_buffer out;     // responses not yet sent (a partial send leaves bytes here)
  caf::actor handler;      // epoll_actor only
};

// Sends what `out` holds; returns false when the peer is gone. Leftover bytes stay (EAGAIN).
bool flush_out(connection& c) {
  std::size_t off = 0;
  while (off < c.out.size()) {
    const ssize_t s = ::send(c.fd, c.out.data() + off, c.out.size() - off, MSG_NOSIGNAL);
    if (s < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) break;
      return false;
    }
    off += static_cast<std::size_t>(s);
  }
  if (off == c.out.size()) {
    c.out.clear();
  } else if (off > 0) {
    const std::size_t left = c.out.size() - off;
    std::memmove(c.out.data(), c.out.data() + off, left);
    c.out.clear();
    c.out.extend(left);
  }
  return true;
}

// One recv into the staging buffer, complete chunks handed to on_chunk in place. False: closed.
template <class OnChunk>
bool receive(connection& c, OnChunk&& on_chunk) {
  const ssize_t got = ::recv(c.fd, c.stage.data() + c.staged, c.stage.size() - c.staged, 0);
  if (got == 0) return false;
  if (got < 0) return errno == EAGAIN || errno == EINTR;
  const std::size_t total = c.staged + static_cast<std::size_t>(got);
  const auto used = c.reader.put(std::span<const std::uint8_t>(c.stage.data(), total), on_chunk);
  if (!used) return false;
  c.staged = total - *used;
  if (c.staged) std::memmove(c.stage.data(), c.stage.data() + *used, c.staged);
  return true;
}

// ---------------------------------------------------------------------------------------------
// (b) epoll, and (c) epoll + per-connection actor. One thread, until `stop`.

struct bridge {  // (c): responses from the actors back to the I/O thread
  std::mutex m;
  std::vector<std::pair<int, std::vector<std::uint8_t>>> q;
  int efd = -1;
};

caf::behavior chunk_handler(caf::event_based_actor*, int fd, bridge* br) {
  return {[fd, br](const std::vector<std::uint8_t>& request) {
    std::vector<std::uint8_t> response(chunk_size);
    write_chunk(response.data());
    response[ua::message_header_size] = request.empty() ? 0 : request.back();
    bool wake = false;
    {
      std::lock_guard<std::mutex> lock(br->m);
      wake = br->q.empty();
      br->q.emplace_back(fd, std::move(response));
    }
    if (wake) {
      const std::uint64_t one = 1;
      if (::write(br->efd, &one, sizeof one) < 0) std::perror("eventfd write");
    }
  }};
}

void epoll_server(int listen_fd, int expected_conns, const std::atomic<bool>& stop, caf::actor_system* sys,
                  bridge& br) {
  const int ep = ::epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) die("epoll_create1");
  constexpr std::uint64_t listen_tag = ~std::uint64_t{0};
  constexpr std::uint64_t bridge_tag = listen_tag - 1;
  set_nonblocking(listen_fd);
  epoll_event lev{};
  lev.events = EPOLLIN;
  lev.data.u64 = listen_tag;
  if (::epoll_ctl(ep, EPOLL_CTL_ADD, listen_fd, &lev) != 0) die("epoll_ctl");
  if (sys) {
    epoll_event bev{};
    bev.events = EPOLLIN;
    bev.data.u64 = bridge_tag;
    if (::epoll_ctl(ep, EPOLL_CTL_ADD, br.efd, &bev) != 0) die("epoll_ctl");
  }
  std::vector<std::unique_ptr<connection>> conns;
  conns.reserve(static_cast<std::size_t>(expected_conns));
  std::vector<connection*> by_fd(65536, nullptr);
  std::array<epoll_event, 64> evs{};
  std::vector<std::pair<int, std::vector<std::uint8_t>>> responses;
  const auto close_conn = [&](connection& c) {
    ::epoll_ctl(ep, EPOLL_CTL_DEL, c.fd, nullptr);
    ::close(c.fd);
    by_fd[static_cast<std::size_t>(c.fd)] = nullptr;
    c.fd = -1;
  };
  const auto want_out = [&](connection& c) {
    epoll_event ev{};
    ev.events = EPOLLIN | (c.out.empty() ? 0u : static_cast<std::uint32_t>(EPOLLOUT));
    ev.data.u64 = static_cast<std::uint64_t>(c.fd);
    ::epoll_ctl(ep, EPOLL_CTL_MOD, c.fd, &ev);
  };
  while (!stop.load(std::memory_order_relaxed)) {
    const int n = ::epoll_wait(ep, evs.data(), static_cast<int>(evs.size()), 20);
    for (int e = 0; e < n; ++e) {
      const auto& ev = evs[static_cast<std::size_t>(e)];
      if (ev.data.u64 == listen_tag) {
        for (;;) {
          const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
          if (fd < 0) break;
          set_nodelay(fd);
          auto c = std::make_unique<connection>();
          c->fd = fd;
          if (sys) c->handler = sys->spawn(chunk_handler, fd, &br);
          by_fd[static_cast<std::size_t>(fd)] = c.get();
          epoll_event cev{};
          cev.events = EPOLLIN;
          cev.data.u64 = static_cast<std::uint64_t>(fd);
          if (::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev) != 0) die("epoll_ctl");
          conns.push_back(std::move(c));
        }
        continue;
      }
      if (ev.data.u64 == bridge_tag) {
        std::uint64_t cnt = 0;
        if (::read(br.efd, &cnt, sizeof cnt) < 0 && errno != EAGAIN) std::perror("eventfd read");
        {
          std::lock_guard<std::mutex> lock(br.m);
          responses.swap(br.q);
        }
        for (auto& [fd, bytes] : responses) {  // gather per connection, then one send each
          if (connection* c = by_fd[static_cast<std::size_t>(fd)]) c->out.append(bytes.data(), bytes.size());
        }
        for (auto& [fd, bytes] : responses) {
          connection* c = by_fd[static_cast<std::size_t>(fd)];
          if (!c || c->out.empty()) continue;
          if (!flush_out(*c)) { close_conn(*c); continue; }
          if (!c->out.empty()) want_out(*c);
        }
        responses.clear();
        continue;
      }
      connection* c = by_fd[static_cast<std::size_t>(ev.data.u64)];
      if (!c) continue;
      if (ev.events & EPOLLOUT) {
        if (!flush_out(*c)) { close_conn(*c); continue; }
        if (c->out.empty()) want_out(*c);
      }
      if (!(ev.events & (EPOLLIN | EPOLLHUP | EPOLLERR))) continue;
      bool alive;
      if (sys) {
        alive = receive(*c, [&](const ua::chunk_view& v) {
          caf::anon_send(c->handler, std::vector<std::uint8_t>(v.bytes.begin(), v.bytes.end()));
        });
      } else {
        alive = receive(*c, [&](const ua::chunk_view& v) {
          std::uint8_t* p = c->out.extend(chunk_size);
          write_chunk(p);
          p[ua::message_header_size] = v.bytes.back();
        });
        if (alive && !c->out.empty()) {
          alive = flush_out(*c);
          if (alive && !c->out.empty()) want_out(*c);
        }
      }
      if (!alive) close_conn(*c);
    }
  }
  for (auto& c : conns) {
    if (c->handler) caf::anon_send_exit(c->handler, caf::exit_reason::user_shutdown);
    if (c->fd >= 0) close_conn(*c);
  }
  ::close(ep);
}

// ---------------------------------------------------------------------------------------------
// (e) io_uring: one thread, one ring. Each connection has a recv in flight into its staging
// buffer and at most one send in flight from `sending`; responses framed meanwhile wait in `out`.
// A loop handles every completion there is, then submits what those completions queued together
// with the next wait.

struct uring_connection {
  connection c;
  ua::byte_buffer sending;   // the bytes of the send in flight (stable until it completes)
  std::size_t sent = 0;      // of `sending`, after a short send
  bool send_in_flight = false;
  bool closed = false;
  int pending = 0;           // operations in flight: freed once closed and 0
};

enum class uring_op : std::uint64_t { accept = 1, recv = 2, send = 3 };

std::uint64_t tag(uring_op op, std::size_t index) { return (static_cast<std::uint64_t>(index) << 2) | static_cast<std::uint64_t>(op); }

void uring_server(int listen_fd, int expected_conns, const std::atomic<bool>& stop, bool defer) {
  io_uring ring{};
  io_uring_params params{};
  if (defer) params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
  if (const int rc = io_uring_queue_init_params(256, &ring, &params); rc < 0) {
    std::fprintf(stderr, "io_uring_queue_init_params: %s\n", std::strerror(-rc));
    std::exit(2);
  }
  std::vector<std::unique_ptr<uring_connection>> conns;
  conns.reserve(static_cast<std::size_t>(expected_conns));
  const auto sqe = [&ring] {
    io_uring_sqe* e = io_uring_get_sqe(&ring);
    if (!e) {  // the queue is full: hand it to the kernel and take a fresh one
      io_uring_submit(&ring);
      e = io_uring_get_sqe(&ring);
    }
    if (!e) die("io_uring_get_sqe");
    return e;
  };
  const auto arm_accept = [&] {
    io_uring_sqe* e = sqe();
    io_uring_prep_accept(e, listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    io_uring_sqe_set_data64(e, tag(uring_op::accept, 0));
  };
  const auto arm_recv = [&](std::size_t i) {
    auto& u = *conns[i];
    io_uring_sqe* e = sqe();
    io_uring_prep_recv(e, u.c.fd, u.c.stage.data() + u.c.staged, u.c.stage.size() - u.c.staged, 0);
    io_uring_sqe_set_data64(e, tag(uring_op::recv, i));
    ++u.pending;
  };
  const auto arm_send = [&](std::size_t i) {
    auto& u = *conns[i];
    if (u.send_in_flight || u.closed) return;
    if (u.sent == u.sending.size()) {  // the last send is done: take what was framed since
      if (u.c.out.empty()) return;
      std::swap(u.sending, u.c.out);
      u.c.out.clear();
      u.sent = 0;
    }
    io_uring_sqe* e = sqe();
    io_uring_prep_send(e, u.c.fd, u.sending.data() + u.sent, u.sending.size() - u.sent, MSG_NOSIGNAL);
    io_uring_sqe_set_data64(e, tag(uring_op::send, i));
    u.send_in_flight = true;
    ++u.pending;
  };
  const auto close_conn = [&](uring_connection& u) {
    if (u.closed) return;
    u.closed = true;
    ::shutdown(u.c.fd, SHUT_RDWR);  // ends the recv in flight; the fd closes when nothing is
  };
  const auto settle = [&](uring_connection& u) {
    if (u.closed && u.pending == 0 && u.c.fd >= 0) {
      ::close(u.c.fd);
      u.c.fd = -1;
    }
  };
  arm_accept();
  __kernel_timespec wait{0, 20'000'000};
  while (!stop.load(std::memory_order_relaxed)) {
    io_uring_cqe* first = nullptr;
    const int rc = io_uring_submit_and_wait_timeout(&ring, &first, 1, &wait, nullptr);
    if (rc < 0 && rc != -ETIME && rc != -EINTR) {
      std::fprintf(stderr, "io_uring_submit_and_wait_timeout: %s\n", std::strerror(-rc));
      break;
    }
    unsigned head = 0, seen = 0;
    io_uring_cqe* cqe = nullptr;
    io_uring_for_each_cqe(&ring, head, cqe) {
      ++seen;
      const std::uint64_t data = io_uring_cqe_get_data64(cqe);
      const auto op = static_cast<uring_op>(data & 3);
      const std::size_t i = static_cast<std::size_t>(data >> 2);
      const int res = cqe->res;
      if (op == uring_op::accept) {
        if (res >= 0) {
          set_nodelay(res);
          auto u = std::make_unique<uring_connection>();
          u->c.fd = res;
          conns.push_back(std::move(u));
          arm_recv(conns.size() - 1);
        }
        arm_accept();
        continue;
      }
      auto& u = *conns[i];
      --u.pending;
      if (op == uring_op::recv) {
        if (res <= 0 || u.closed) {
          close_conn(u);
        } else {
          const std::size_t total = u.c.staged + static_cast<std::size_t>(res);
          const auto used = u.c.reader.put(std::span<const std::uint8_t>(u.c.stage.data(), total), [&](const ua::chunk_view& v) {
            std::uint8_t* p = u.c.out.extend(chunk_size);
            write_chunk(p);
            p[ua::message_header_size] = v.bytes.back();
          });
          if (!used) {
            close_conn(u);
          } else {
            u.c.staged = total - *used;
            if (u.c.staged) std::memmove(u.c.stage.data(), u.c.stage.data() + *used, u.c.staged);
            arm_send(i);
            arm_recv(i);
          }
        }
      } else {  // send
        u.send_in_flight = false;
        if (res < 0) close_conn(u);
        else {
          u.sent += static_cast<std::size_t>(res);
          arm_send(i);  // the rest of a short send, or what was framed meanwhile
        }
      }
      settle(u);
    }
    io_uring_cq_advance(&ring, seen);
  }
  for (auto& u : conns) {
    close_conn(*u);
    if (u->c.fd >= 0) ::close(u->c.fd);  // the ring's teardown cancels what is in flight
  }
  io_uring_queue_exit(&ring);
}

// ---------------------------------------------------------------------------------------------
// (a) CAF io brokers: an acceptor broker owning a doorman on our 127.0.0.1 socket, forking one
// broker per connection. The brokers run on the middleman's multiplexer thread.

struct broker_framing {
  ua::chunk_reader reader{ua::transport_limits{}};
  ua::byte_buffer carry;  // a header split across receives (< 8 bytes)
};

caf::behavior connection_broker(caf::io::broker* self, caf::io::connection_handle hdl) {
  auto st = std::make_shared<broker_framing>();
  self->configure_read(hdl, caf::io::receive_policy::at_most(staging_size));
  return {
    [=](const caf::io::new_data_msg& msg) {
      auto& out = self->wr_buf(hdl);
      const auto on_chunk = [&out](const ua::chunk_view& v) {
        const std::size_t at = out.size();
        out.resize(at + chunk_size);
        auto* p = reinterpret_cast<std::uint8_t*>(out.data() + at);
        write_chunk(p);
        p[ua::message_header_size] = v.bytes.back();
      };
      std::span<const std::uint8_t> in(reinterpret_cast<const std::uint8_t*>(msg.buf.data()), msg.buf.size());
      if (!st->carry.empty()) {
        st->carry.append(in.data(), in.size());
        in = st->carry.bytes();
      }
      const auto used = st->reader.put(in, on_chunk);
      if (!used) {
        self->close(hdl);
        self->quit();
        return;
      }
      const std::size_t left = in.size() - *used;  // < 8 bytes: a header not yet whole
      std::array<std::uint8_t, ua::message_header_size> keep{};
      std::memcpy(keep.data(), in.data() + *used, left);
      st->carry.clear();
      st->carry.append(keep.data(), left);
      self->flush(hdl);  // one write for every response to this receive
    },
    [=](const caf::io::connection_closed_msg&) { self->quit(); },
  };
}

// (d) the same broker, but each chunk goes to a per-connection "channel" actor on the scheduler,
// whose response comes back to the broker as a message: the broker <-> scheduler crossing that a
// transport broker with the secure channel in its own actor would pay.
caf::behavior channel_actor(caf::event_based_actor* self, caf::actor transport) {
  return {[self, transport](const std::vector<std::uint8_t>& request) {
    std::vector<std::uint8_t> response(chunk_size);
    write_chunk(response.data());
    response[ua::message_header_size] = request.empty() ? 0 : request.back();
    self->send(transport, std::move(response));
  }};
}

struct hop_state {
  broker_framing framing;
  caf::actor channel;
};

caf::behavior connection_broker_hop(caf::io::broker* self, caf::io::connection_handle hdl) {
  auto st = std::make_shared<hop_state>();
  st->channel = self->system().spawn(channel_actor, caf::actor_cast<caf::actor>(self));
  self->configure_read(hdl, caf::io::receive_policy::at_most(staging_size));
  const auto stop = [self, st] {
    self->send_exit(st->channel, caf::exit_reason::user_shutdown);
    st->channel = nullptr;
    self->quit();
  };
  return {
    [=](const caf::io::new_data_msg& msg) {
      auto& f = st->framing;
      const auto on_chunk = [&](const ua::chunk_view& v) {
        self->send(st->channel, std::vector<std::uint8_t>(v.bytes.begin(), v.bytes.end()));
      };
      std::span<const std::uint8_t> in(reinterpret_cast<const std::uint8_t*>(msg.buf.data()), msg.buf.size());
      if (!f.carry.empty()) {
        f.carry.append(in.data(), in.size());
        in = f.carry.bytes();
      }
      const auto used = f.reader.put(in, on_chunk);
      if (!used) {
        self->close(hdl);
        stop();
        return;
      }
      const std::size_t left = in.size() - *used;
      std::array<std::uint8_t, ua::message_header_size> keep{};
      std::memcpy(keep.data(), in.data() + *used, left);
      f.carry.clear();
      f.carry.append(keep.data(), left);
    },
    [=](const std::vector<std::uint8_t>& response) {
      auto& out = self->wr_buf(hdl);
      out.insert(out.end(), response.begin(), response.end());
      self->flush(hdl);
    },
    [=](const caf::io::connection_closed_msg&) { stop(); },
  };
}

caf::behavior acceptor_broker(caf::io::broker* self, int listen_fd, bool hop) {
  self->add_doorman(listen_fd);
  return {
    [=](const caf::io::new_connection_msg& msg) {
      if (hop)
        self->fork(connection_broker_hop, msg.handle);
      else
        self->fork(connection_broker, msg.handle);
    },
    [=](const caf::io::acceptor_closed_msg&) { self->quit(); },
  };
}

// ---------------------------------------------------------------------------------------------

struct row {
  std::string variant;
  int conns = 0, in_flight = 0;
  double rps = 0, cpu_us = 0, server_cpu_us = 0, cores = 0;
  bool ok = false;
};

client_result drive(std::uint16_t port, int conns, int in_flight, double warm, double window) {
  client cl(port, conns, in_flight);
  std::atomic<int> phase{0};
  client_result res;
  std::thread t([&] { res = cl.run(phase); });
  std::this_thread::sleep_for(std::chrono::duration<double>(warm));
  phase = 1;
  std::this_thread::sleep_for(std::chrono::duration<double>(window));
  phase = 2;
  t.join();
  return res;  // the client's sockets close here: the servers see their connections end
}

row summarise(const char* variant, int conns, int in_flight, const client_result& r) {
  row out{variant, conns, in_flight};
  const double secs = std::chrono::duration<double>(r.end.at - r.begin.at).count();
  const auto n = static_cast<double>(r.end.round_trips - r.begin.round_trips);
  const double cpu = r.end.process_cpu - r.begin.process_cpu;
  const double client_cpu = r.end.client_cpu - r.begin.client_cpu;
  out.ok = r.ok && n > 0 && secs > 0;
  if (out.ok) {
    out.rps = n / secs;
    out.cpu_us = cpu / n * 1e6;
    out.server_cpu_us = (cpu - client_cpu) / n * 1e6;
    out.cores = cpu / secs;
  }
  return out;
}

// A fresh configuration and actor system per run; the system is destroyed first (it waits for
// its actors).
struct caf_env {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  explicit caf_env(bool tuned = false) {
    cfg.load<caf::io::middleman>();
    cfg.set("scheduler.max-threads", 2);  // notes: 2 was best on 2 cores
    // notes: a worker that polls instead of sleeping halves the wake-up cost of a crossing
    if (tuned) cfg.set("work-stealing.moderate-sleep-duration", caf::timespan{0});
    sys = std::make_unique<caf::actor_system>(cfg);
  }
};

row run_caf_broker(bool hop, int conns, int in_flight, double warm, double window) {
  caf_env env;
  std::uint16_t port = 0;
  const int lfd = listen_loopback(port);
  set_nonblocking(lfd);
  auto acceptor = env.sys->middleman().spawn_broker(acceptor_broker, lfd, hop);
  const auto r = drive(port, conns, in_flight, warm, window);
  caf::anon_send_exit(acceptor, caf::exit_reason::user_shutdown);
  return summarise(hop ? "caf_broker_hop" : "caf_broker", conns, in_flight, r);
}

row run_uring(bool defer, int conns, int in_flight, double warm, double window) {
  std::uint16_t port = 0;
  const int lfd = listen_loopback(port);
  std::atomic<bool> stop{false};
  std::thread server([&] { uring_server(lfd, conns, stop, defer); });
  const auto r = drive(port, conns, in_flight, warm, window);
  stop = true;
  server.join();
  ::close(lfd);
  return summarise(defer ? "io_uring_defer" : "io_uring", conns, in_flight, r);
}

enum class epoll_mode { plain, actor, actor_tuned };

row run_epoll(epoll_mode mode, int conns, int in_flight, double warm, double window) {
  bridge br;  // outlives the actors, which may still answer after the I/O thread stopped
  std::unique_ptr<caf_env> env;
  if (mode != epoll_mode::plain) {
    env = std::make_unique<caf_env>(mode == epoll_mode::actor_tuned);
    br.efd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (br.efd < 0) die("eventfd");
  }
  std::uint16_t port = 0;
  const int lfd = listen_loopback(port);
  std::atomic<bool> stop{false};
  std::thread server([&] { epoll_server(lfd, conns, stop, env ? env->sys.get() : nullptr, br); });
  const auto r = drive(port, conns, in_flight, warm, window);
  stop = true;
  server.join();
  env.reset();  // waits for the handlers to finish
  if (br.efd >= 0) ::close(br.efd);
  ::close(lfd);
  const char* name = mode == epoll_mode::plain ? "epoll" : mode == epoll_mode::actor ? "epoll_actor" : "epoll_actor_tuned";
  return summarise(name, conns, in_flight, r);
}

}  // namespace

int main(int argc, char** argv) {
  double window = 3.0;
  std::string only;          // --only V: one variant (to count its system calls under perf stat)
  int load_conns = 0, load_in_flight = 0;  // --load CxI: one load instead of the four
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc) {
      window = std::atof(argv[++i]);
    } else if (a == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else if (a == "--load" && i + 1 < argc && std::sscanf(argv[i + 1], "%dx%d", &load_conns, &load_in_flight) == 2 &&
               load_conns > 0 && load_conns <= 1000 && load_in_flight > 0 && load_in_flight <= 64) {
      ++i;
    } else {
      std::fprintf(stderr, "usage: %s [--seconds N] [--only VARIANT] [--load CONNSxINFLIGHT]\n", argv[0]);
      return 2;
    }
  }
  if (window <= 0 || window > 60) window = 3.0;
  const double warm = 1.0;
  std::vector<row> rows;
  std::vector<std::pair<int, int>> loads{{1, 1}, {1, 8}, {20, 1}, {20, 8}};
  if (load_conns) loads = {{load_conns, load_in_flight}};
  const auto want = [&only](const char* v) { return only.empty() || only == v; };
  for (const auto& [conns, in_flight] : loads) {
    if (want("epoll")) rows.push_back(run_epoll(epoll_mode::plain, conns, in_flight, warm, window));
    if (want("caf_broker")) rows.push_back(run_caf_broker(false, conns, in_flight, warm, window));
    if (want("caf_broker_hop")) rows.push_back(run_caf_broker(true, conns, in_flight, warm, window));
    if (want("epoll_actor")) rows.push_back(run_epoll(epoll_mode::actor, conns, in_flight, warm, window));
    if (want("epoll_actor_tuned")) rows.push_back(run_epoll(epoll_mode::actor_tuned, conns, in_flight, warm, window));
    if (want("io_uring")) rows.push_back(run_uring(false, conns, in_flight, warm, window));
    if (want("io_uring_defer")) rows.push_back(run_uring(true, conns, in_flight, warm, window));
    std::fprintf(stderr, "transport_probe: %d connection(s) x %d in flight done\n", conns, in_flight);
  }
  if (rows.empty()) {
    std::fprintf(stderr, "transport_probe: no variant named %s\n", only.c_str());
    return 2;
  }
  std::printf("transport_probe: %zu-byte request and response chunks, loopback, %.1f s window after %.1f s warm-up\n\n",
              chunk_size, window, warm);
  std::printf("| variant | conns | in flight | round trips/s | CPU µs/rt (process) | CPU µs/rt (server share) | CPU cores busy |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  bool all_ok = true;
  for (const auto& r : rows) {
    if (!r.ok) {
      all_ok = false;
      std::printf("| %s | %d | %d | failed | | | |\n", r.variant.c_str(), r.conns, r.in_flight);
      continue;
    }
    std::printf("| %s | %d | %d | %.0f | %.1f | %.1f | %.2f |\n", r.variant.c_str(), r.conns, r.in_flight, r.rps,
                r.cpu_us, r.server_cpu_us, r.cores);
  }
  return all_ok ? 0 : 1;
}
