#include "scenarios/fault_proxy.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <list>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace uactor::scenarios {

namespace {

using clock_type = std::chrono::steady_clock;

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

void close_with_reset(int fd) {
  linger l{1, 0};  // an RST instead of a FIN
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  ::close(fd);
}


}  // namespace

int connect_loopback(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  auto a = loopback(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// ------------------------------------------------------------------------------------------------
// fault_proxy

struct fault_proxy::impl {
  // One end of a proxied connection. `forwarding` false: black-holed or draining after a FIN (read
  // and dropped until the peer closes).
  struct end {
    int fd = -1;
    bool forwarding = true;
  };
  struct segment {
    clock_type::time_point due;
    std::vector<char> bytes;
    std::size_t offset = 0;
  };
  struct pair {
    end ends[2];                 // 0: the client's, 1: the server's
    std::deque<segment> out[2];  // what waits to be written to ends[i]
    std::size_t queued[2] = {0, 0};
    bool open() const { return ends[0].fd >= 0 || ends[1].fd >= 0; }
  };

  std::uint16_t target;
  int listener = -1;
  std::uint16_t port = 0;
  int wake[2] = {-1, -1};
  std::thread thread;

  std::mutex mutex;
  std::condition_variable done_cv;
  std::deque<std::function<void()>> commands;  // run on the proxy thread
  std::uint64_t commands_done = 0;
  std::uint64_t commands_posted = 0;
  bool stopping = false;

  // State of the proxy thread (read by the accessors under the mutex).
  std::list<pair> pairs;
  bool refusing = false;
  bool stalled = false;
  clock_type::time_point stall_until{};  // max(): until resume()
  std::chrono::milliseconds delay{0};
  std::size_t truncate_after = 0;
  bool truncating = false;
  std::size_t accepted = 0;
  std::uint64_t forwarded = 0;

  static constexpr std::size_t max_queued = 1 << 20;  // per direction: stop reading beyond it

  explicit impl(std::uint16_t t) : target(t) {
    listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    auto a = loopback(0);
    if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listener, 64) != 0)
      throw std::runtime_error("fault_proxy: cannot listen on 127.0.0.1");
    socklen_t len = sizeof a;
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
    set_nonblocking(listener);
    if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("fault_proxy: pipe");
    thread = std::thread([this] { run(); });
  }

  ~impl() {
    {
      std::lock_guard lock(mutex);
      stopping = true;
    }
    poke();
    thread.join();
    for (auto& p : pairs)
      for (auto& e : p.ends)
        if (e.fd >= 0) ::close(e.fd);
    ::close(listener);
    ::close(wake[0]);
    ::close(wake[1]);
  }

  void poke() {
    const char c = 1;
    [[maybe_unused]] auto n = ::write(wake[1], &c, 1);
  }

  // Runs `f` on the proxy thread and waits for it.
  void execute(std::function<void()> f) {
    std::unique_lock lock(mutex);
    commands.push_back(std::move(f));
    const auto ticket = ++commands_posted;
    poke();
    done_cv.wait(lock, [&] { return commands_done >= ticket; });
  }

  void close_end(pair& p, int i, bool reset) {
    auto& e = p.ends[i];
    if (e.fd < 0) return;
    if (reset) close_with_reset(e.fd);
    else ::close(e.fd);
    e.fd = -1;
    p.out[i].clear();
    p.queued[i] = 0;
  }

  void cut_pair(pair& p, cut_kind kind, cut_side side) {
    for (int i = 0; i < 2; ++i) {
      const bool chosen = side == cut_side::both || (side == cut_side::client ? i == 0 : i == 1);
      auto& e = p.ends[i];
      if (e.fd < 0) continue;
      p.out[i].clear();
      p.queued[i] = 0;
      e.forwarding = false;
      if (!chosen) continue;  // black-holed: read and dropped until its peer closes
      if (kind == cut_kind::rst) close_end(p, i, true);
      else ::shutdown(e.fd, SHUT_WR);  // FIN; then drained until the peer closes
    }
  }

  void accept_all() {
    for (;;) {
      const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      ++accepted;
      if (refusing) {
        close_with_reset(fd);
        continue;
      }
      const int server = connect_loopback(target);
      if (server < 0) {
        close_with_reset(fd);
        continue;
      }
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      set_nonblocking(fd);
      set_nonblocking(server);
      pair p;
      p.ends[0].fd = fd;
      p.ends[1].fd = server;
      pairs.push_back(std::move(p));
    }
  }

  // Reads what end `i` sent; queues it for the other end (or drops it).
  void read_from(pair& p, int i, clock_type::time_point now) {
    auto& e = p.ends[i];
    const int other = 1 - i;
    char buf[16384];
    for (;;) {
      const auto n = ::recv(e.fd, buf, sizeof buf, 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        // The peer closed: pass a FIN on once what was queued is written (or close at once when
        // black-holed).
        const bool reset = n < 0;
        close_end(p, i, false);
        if (p.ends[other].fd >= 0) {
          if (!p.ends[other].forwarding || reset) close_end(p, other, reset);
          else if (p.out[other].empty()) ::shutdown(p.ends[other].fd, SHUT_WR);
          else p.out[other].push_back(segment{now, {}, 0});  // empty segment: FIN marker
        }
        return;
      }
      if (n < 0) return;
      if (!e.forwarding || p.ends[other].fd < 0 || !p.ends[other].forwarding) continue;  // dropped
      std::size_t take = static_cast<std::size_t>(n);
      bool cut_after = false;
      if (i == 1 && truncating) {
        take = std::min(take, truncate_after);
        truncate_after -= take;
        if (truncate_after == 0) {
          truncating = false;
          cut_after = true;
        }
      }
      if (take > 0) {
        p.out[other].push_back(segment{now + delay, std::vector<char>(buf, buf + take), 0});
        p.queued[other] += take;
      }
      if (cut_after) {
        // Written at once (the client must get exactly these bytes), then both ends reset.
        flush(p, other, clock_type::time_point::max());
        close_end(p, 0, true);
        close_end(p, 1, true);
        return;
      }
      if (p.queued[other] >= max_queued) return;
    }
  }

  void flush(pair& p, int i, clock_type::time_point now) {
    auto& e = p.ends[i];
    while (e.fd >= 0 && !p.out[i].empty() && p.out[i].front().due <= now) {
      auto& s = p.out[i].front();
      if (s.bytes.empty()) {  // the FIN marker
        ::shutdown(e.fd, SHUT_WR);
        p.out[i].pop_front();
        continue;
      }
      const auto n = ::send(e.fd, s.bytes.data() + s.offset, s.bytes.size() - s.offset, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
        close_end(p, i, true);
        close_end(p, 1 - i, true);
        return;
      }
      s.offset += static_cast<std::size_t>(n);
      forwarded += static_cast<std::uint64_t>(n);
      p.queued[i] -= static_cast<std::size_t>(n);
      if (s.offset == s.bytes.size()) p.out[i].pop_front();
    }
  }

  void run() {
    std::vector<pollfd> fds;
    std::vector<std::pair<pair*, int>> owners;
    for (;;) {
      {
        std::unique_lock lock(mutex);
        while (!commands.empty()) {
          auto f = std::move(commands.front());
          commands.pop_front();
          f();
          ++commands_done;
        }
        done_cv.notify_all();
        if (stopping) return;
      }
      auto now = clock_type::now();
      if (stalled && now >= stall_until) stalled = false;
      {
        std::lock_guard lock(mutex);
        pairs.remove_if([](const pair& p) { return !p.open(); });
      }
      fds.clear();
      owners.clear();
      fds.push_back({wake[0], POLLIN, 0});
      fds.push_back({listener, POLLIN, 0});
      auto next_due = clock_type::time_point::max();
      for (auto& p : pairs) {
        for (int i = 0; i < 2; ++i) {
          if (p.ends[i].fd < 0) continue;
          short ev = 0;
          if (!stalled && p.queued[1 - i] < max_queued) ev |= POLLIN;
          if (!stalled && !p.out[i].empty()) {
            if (p.out[i].front().due <= now) ev |= POLLOUT;
            else next_due = std::min(next_due, p.out[i].front().due);
          }
          fds.push_back({p.ends[i].fd, ev, 0});
          owners.emplace_back(&p, i);
        }
      }
      int timeout_ms = -1;
      if (stalled && stall_until != clock_type::time_point::max()) next_due = std::min(next_due, stall_until);
      if (next_due != clock_type::time_point::max())
        timeout_ms = static_cast<int>(
            std::max<long long>(1, std::chrono::duration_cast<std::chrono::milliseconds>(next_due - now).count() + 1));
      ::poll(fds.data(), fds.size(), timeout_ms);
      if (fds[0].revents & POLLIN) {
        char drain[64];
        while (::read(wake[0], drain, sizeof drain) > 0) {
        }
      }
      std::lock_guard lock(mutex);  // the accessors read the counters
      if (fds[1].revents & POLLIN) accept_all();
      now = clock_type::now();
      for (std::size_t k = 2; k < fds.size(); ++k) {
        auto [p, i] = owners[k - 2];
        if (p->ends[i].fd != fds[k].fd) continue;  // closed meanwhile
        if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
          if (!stalled) read_from(*p, i, now);
          else if (fds[k].revents & (POLLHUP | POLLERR)) read_from(*p, i, now);
        }
      }
      if (!stalled)
        for (auto& p : pairs)
          for (int i = 0; i < 2; ++i) flush(p, i, now);
    }
  }
};

fault_proxy::fault_proxy(std::uint16_t target_port) : impl_(std::make_unique<impl>(target_port)) {}
fault_proxy::~fault_proxy() = default;

std::uint16_t fault_proxy::port() const noexcept { return impl_->port; }
std::string fault_proxy::url() const { return "opc.tcp://127.0.0.1:" + std::to_string(impl_->port); }

void fault_proxy::cut(cut_kind kind, cut_side side) {
  impl_->execute([this, kind, side] {
    for (auto& p : impl_->pairs) impl_->cut_pair(p, kind, side);
  });
}
void fault_proxy::set_refusing(bool refusing) {
  impl_->execute([this, refusing] { impl_->refusing = refusing; });
}
void fault_proxy::stall(std::chrono::milliseconds duration) {
  impl_->execute([this, duration] {
    impl_->stalled = true;
    impl_->stall_until = duration.count() > 0 ? clock_type::now() + duration : clock_type::time_point::max();
  });
}
void fault_proxy::resume() {
  impl_->execute([this] { impl_->stalled = false; });
}
void fault_proxy::set_delay(std::chrono::milliseconds delay) {
  impl_->execute([this, delay] { impl_->delay = delay; });
}
void fault_proxy::truncate_server_to_client_after(std::size_t bytes) {
  impl_->execute([this, bytes] {
    impl_->truncate_after = bytes;
    impl_->truncating = true;
  });
}
std::size_t fault_proxy::accepted() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->accepted;
}
std::size_t fault_proxy::open_connections() const {
  std::lock_guard lock(impl_->mutex);
  return static_cast<std::size_t>(std::count_if(impl_->pairs.begin(), impl_->pairs.end(), [](const impl::pair& p) {
    return p.ends[0].fd >= 0 && p.ends[1].fd >= 0 && p.ends[0].forwarding && p.ends[1].forwarding;
  }));
}
std::uint64_t fault_proxy::bytes_forwarded() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->forwarded;
}

}  // namespace uactor::scenarios
