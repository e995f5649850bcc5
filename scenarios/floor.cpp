#include "scenarios/floor.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>
#include <unordered_map>
#include <vector>

#include "runtime/process_stats.hpp"

namespace uactor::scenarios {
namespace {

void no_delay(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// Sends what it can of `out` from `sent`; true when everything went (else wait for EPOLLOUT).
bool flush(int fd, const std::string& out, std::size_t& sent) {
  while (sent < out.size()) {
    const auto n = send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;  // EAGAIN, or an error the next recv reports
    }
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

struct server_connection {
  std::size_t partial = 0;  // bytes of the next request already received
  std::string out;          // responses not yet sent (capacity kept)
  std::size_t sent = 0;
  bool want_write = false;
};

}  // namespace

int serve_floor(wire_sizes sizes) {
  if (sizes.request == 0 || sizes.response == 0) return 2;
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGUSR1);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigprocmask(SIG_BLOCK, &signals, nullptr);
  const int sfd = signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK);

  const int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (bind(lfd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(lfd, 1024) != 0 ||
      getsockname(lfd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::fprintf(stderr, "uactor-load --serve-floor: cannot listen: %s\n", std::strerror(errno));
    return 1;
  }
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = lfd;
  epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  ev.data.fd = sfd;
  epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
  std::printf("listening on tcp://127.0.0.1:%u\n", ntohs(addr.sin_port));
  std::fflush(stdout);

  const std::string response(sizes.response, '\0');
  std::unordered_map<int, server_connection> connections;
  std::vector<char> in(256 * 1024);
  epoll_event events[64];
  for (;;) {
    const int n = epoll_wait(ep, events, 64, -1);
    if (n < 0 && errno == EINTR) continue;
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == sfd) {
        signalfd_siginfo si{};
        while (read(sfd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
          if (si.ssi_signo != SIGUSR1) {
            for (auto& [cfd, c] : connections) close(cfd);
            return 0;
          }
          std::printf("stats %s\n", app::to_line(app::sample_process_stats()).c_str());
          std::fflush(stdout);
        }
        continue;
      }
      if (fd == lfd) {
        for (int cfd; (cfd = accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
          no_delay(cfd);
          connections[cfd].out.reserve(64 * 1024);
          epoll_event cev{};
          cev.events = EPOLLIN;
          cev.data.fd = cfd;
          epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &cev);
        }
        continue;
      }
      auto& c = connections[fd];
      bool closed = false;
      if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        // One recv per readiness, as a server that batches would do.
        const auto got = recv(fd, in.data(), in.size(), 0);
        if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
          closed = true;
        } else if (got > 0) {
          c.partial += static_cast<std::size_t>(got);
          if (c.sent == c.out.size()) {
            c.out.clear();
            c.sent = 0;
          }
          for (; c.partial >= sizes.request; c.partial -= sizes.request) c.out += response;
        }
      }
      if (!closed && c.sent < c.out.size()) {
        const bool all = flush(fd, c.out, c.sent);
        if (all != !c.want_write) {
          c.want_write = !all;
          epoll_event cev{};
          cev.events = EPOLLIN | (c.want_write ? EPOLLOUT : 0u);
          cev.data.fd = fd;
          epoll_ctl(ep, EPOLL_CTL_MOD, fd, &cev);
        }
      }
      if (closed) {
        epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
        close(fd);
        connections.erase(fd);
      }
    }
  }
}

namespace {

// The client side: one epoll thread for every connection (the kernel's floor, not a client design).
class floor_driver final : public load_driver {
public:
  floor_driver(const load_options& o, wire_sizes sizes, std::string host, unsigned port)
      : options_(o), sizes_(sizes), host_(std::move(host)), port_(port), request_(sizes.request, '\0') {}
  ~floor_driver() override { stop(); }

  std::string start(recorder& rec) override {
    rec_ = &rec;
    ep_ = epoll_create1(EPOLL_CLOEXEC);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port_));
    if (inet_pton(AF_INET, host_.c_str(), &addr.sin_addr) != 1) return "not an IPv4 address: " + host_;
    connections_.resize(options_.sessions);
    for (std::size_t i = 0; i < connections_.size(); ++i) {
      auto& c = connections_[i];
      c.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (connect(c.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
        return std::string("connect: ") + std::strerror(errno);
      no_delay(c.fd);
      fcntl(c.fd, F_SETFL, fcntl(c.fd, F_GETFL) | O_NONBLOCK);
      c.sent_at.resize(options_.inflight);
      c.out.reserve(64 * 1024);
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = i;
      epoll_ctl(ep_, EPOLL_CTL_ADD, c.fd, &ev);
    }
    if (options_.ready_to_load && !options_.ready_to_load()) return not_started;
    thread_ = std::thread([this] { run(); });
    return {};
  }

  void stop() override {
    stopping_.store(true);
    if (thread_.joinable()) thread_.join();
    for (auto& c : connections_)
      if (c.fd >= 0) close(c.fd);
    connections_.clear();
    if (ep_ >= 0) close(ep_);
    ep_ = -1;
  }

private:
  struct connection {
    int fd = -1;
    std::vector<load_clock::time_point> sent_at;  // a ring: responses come back in order
    std::size_t head = 0;
    std::size_t outstanding = 0;
    std::size_t partial = 0;
    std::string out;
    std::size_t sent = 0;
    bool want_write = false;
  };

  void send_requests(connection& c, std::size_t k, load_clock::time_point now) {
    if (c.sent == c.out.size()) {
      c.out.clear();
      c.sent = 0;
    }
    for (std::size_t j = 0; j < k; ++j) {
      c.sent_at[(c.head + c.outstanding) % c.sent_at.size()] = now;
      ++c.outstanding;
      c.out += request_;
    }
  }

  void update_interest(std::size_t index, connection& c, bool want_write) {
    if (want_write == c.want_write) return;
    c.want_write = want_write;
    epoll_event ev{};
    ev.events = EPOLLIN | (want_write ? EPOLLOUT : 0u);
    ev.data.u64 = index;
    epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &ev);
  }

  void run() {
    const auto start = load_clock::now();
    for (std::size_t i = 0; i < connections_.size(); ++i) {
      auto& c = connections_[i];
      send_requests(c, options_.inflight, start);
      update_interest(i, c, !flush(c.fd, c.out, c.sent));
    }
    std::vector<char> in(256 * 1024);
    epoll_event events[64];
    std::size_t outstanding = connections_.size() * options_.inflight;
    load_clock::time_point drain_deadline{};
    while (outstanding > 0) {
      if (stopping_.load(std::memory_order_relaxed)) {
        if (drain_deadline == load_clock::time_point{}) drain_deadline = load_clock::now() + std::chrono::seconds(10);
        if (load_clock::now() > drain_deadline) break;
      }
      const int n = epoll_wait(ep_, events, 64, 100);
      const auto now = load_clock::now();
      for (int e = 0; e < n; ++e) {
        const auto index = static_cast<std::size_t>(events[e].data.u64);
        auto& c = connections_[index];
        if (events[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
          const auto got = recv(c.fd, in.data(), in.size(), 0);
          if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) return;  // the server went away
          if (got > 0) {
            c.partial += static_cast<std::size_t>(got);
            std::size_t k = 0;
            for (; c.partial >= sizes_.response; c.partial -= sizes_.response, ++k) {
              rec_->completed(c.sent_at[c.head], now, true);
              c.head = (c.head + 1) % c.sent_at.size();
              --c.outstanding;
              --outstanding;
            }
            if (!stopping_.load(std::memory_order_relaxed) && k > 0) {
              send_requests(c, k, now);
              outstanding += k;
            }
          }
        }
        if (c.sent < c.out.size()) update_interest(index, c, !flush(c.fd, c.out, c.sent));
      }
    }
  }

  load_options options_;
  wire_sizes sizes_;
  std::string host_;
  unsigned port_;
  std::string request_;
  recorder* rec_ = nullptr;
  int ep_ = -1;
  std::vector<connection> connections_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
};

}  // namespace

std::unique_ptr<load_driver> make_floor_driver(const load_options& options, wire_sizes sizes, std::string host,
                                               unsigned port) {
  return std::make_unique<floor_driver>(options, sizes, std::move(host), port);
}

}  // namespace uactor::scenarios
