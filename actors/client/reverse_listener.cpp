#include "actors/client/reverse_listener.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "engine/client/reverse_hello_check.hpp"

namespace uactor::actors {

namespace {

using steady = std::chrono::steady_clock;

std::string peer_of(int fd) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return "?";
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &a.sin_addr, text, sizeof text);
  return std::string(text) + ":" + std::to_string(ntohs(a.sin_port));
}

// A socket accepted, its RHE not yet whole.
struct pending_socket {
  int fd = -1;
  std::string peer;
  steady::time_point deadline;
  std::vector<std::uint8_t> received;
};

// A socket whose RHE passed, waiting for a client to take it.
struct ready_socket {
  int fd = -1;
  std::string peer;
  std::string server_uri;
  std::string endpoint_url;
};

struct taker {
  steady::time_point deadline;
  reverse_connect_listener::take_handler done;
};

}  // namespace

struct reverse_connect_listener::impl {
  reverse_listener_options options;
  int listen_fd = -1;
  int wake_fd = -1;  // an eventfd: take() and close() from other threads
  std::uint16_t bound_port = 0;
  std::thread thread;

  std::mutex mutex;  // takers and stopping, shared with the callers' threads
  std::deque<taker> new_takers;
  bool stopping = false;

  // The thread's own.
  std::vector<pending_socket> pending;
  std::deque<ready_socket> ready;
  std::deque<taker> takers;

  ~impl() {
    for (auto& p : pending) ::close(p.fd);
    for (auto& r : ready) ::close(r.fd);
    if (listen_fd >= 0) ::close(listen_fd);
    if (wake_fd >= 0) ::close(wake_fd);
  }

  void wake() const {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = ::write(wake_fd, &one, sizeof one);
  }

  void refuse(int fd, const std::string& peer, const std::string& why) const {
    spdlog::warn("reverse connect: closing the connection from {}: {}", peer, why);
    ::close(fd);
  }

  void run() {
    std::vector<pollfd> fds;
    for (;;) {
      {
        std::lock_guard lock(mutex);
        if (stopping) break;
        for (auto& t : new_takers) takers.push_back(std::move(t));
        new_takers.clear();
      }
      hand_out();
      expire(steady::now());
      fds.clear();
      fds.push_back({wake_fd, POLLIN, 0});
      fds.push_back({listen_fd, POLLIN, 0});
      for (const auto& p : pending) fds.push_back({p.fd, POLLIN, 0});
      for (const auto& r : ready) fds.push_back({r.fd, POLLIN, 0});  // readable: closed, or talking out of turn
      const int timeout = poll_timeout(steady::now());
      const int n = ::poll(fds.data(), fds.size(), timeout);
      if (n < 0) {
        if (errno == EINTR) continue;
        spdlog::error("reverse connect: poll: {}", std::strerror(errno));
        break;
      }
      if (fds[0].revents) {
        std::uint64_t v;
        [[maybe_unused]] const auto r = ::read(wake_fd, &v, sizeof v);
      }
      // Ready sockets first (their slots come after the pending ones), each erased from the back.
      const std::size_t ready_base = 2 + pending.size();
      for (std::size_t i = ready.size(); i-- > 0;)
        if (fds[ready_base + i].revents) {
          refuse(ready[i].fd, ready[i].peer, "closed or sent data before the client's Hello");
          ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(i));
        }
      for (std::size_t i = pending.size(); i-- > 0;)
        if (fds[2 + i].revents) read_pending(i);
      if (fds[1].revents & POLLIN) accept_all();
    }
    // Closing: the takers hear that no socket will come.
    std::deque<taker> left;
    {
      std::lock_guard lock(mutex);
      left.swap(new_takers);
    }
    for (auto& t : takers) left.push_back(std::move(t));
    takers.clear();
    for (auto& t : left) t.done(std::make_shared<socket_handoff>());
  }

  int poll_timeout(steady::time_point now) const {
    auto next = steady::time_point::max();
    for (const auto& p : pending) next = std::min(next, p.deadline);
    for (const auto& t : takers) next = std::min(next, t.deadline);
    if (next == steady::time_point::max()) return -1;
    if (next <= now) return 0;
    return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(next - now).count());
  }

  void expire(steady::time_point now) {
    for (std::size_t i = pending.size(); i-- > 0;)
      if (pending[i].deadline <= now) {
        refuse(pending[i].fd, pending[i].peer,
               "no ReverseHello within " + std::to_string(options.hello_timeout.count()) + " ms");
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
      }
    for (auto it = takers.begin(); it != takers.end();) {
      if (it->deadline <= now) {
        auto done = std::move(it->done);
        it = takers.erase(it);
        done(std::make_shared<socket_handoff>());
      } else {
        ++it;
      }
    }
  }

  void hand_out() {
    while (!ready.empty() && !takers.empty()) {
      auto h = std::make_shared<socket_handoff>();
      h->fd = ready.front().fd;
      h->server_uri = ready.front().server_uri;
      h->endpoint_url = ready.front().endpoint_url;
      spdlog::info("reverse connect: {} ({}) handed to the client", ready.front().server_uri, ready.front().peer);
      ready.pop_front();
      auto done = std::move(takers.front().done);
      takers.pop_front();
      done(std::move(h));
    }
  }

  void accept_all() {
    for (;;) {
      const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) spdlog::warn("reverse connect: accept: {}", std::strerror(errno));
        return;
      }
      auto peer = peer_of(fd);
      if (pending.size() >= options.max_pending) {
        refuse(fd, peer, std::to_string(pending.size()) + " connections wait for their ReverseHello already");
        continue;
      }
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      pending.push_back({fd, std::move(peer), steady::now() + options.hello_timeout, {}});
    }
  }

  void read_pending(std::size_t i) {
    auto& p = pending[i];
    std::uint8_t buf[2048];
    const auto n = ::recv(p.fd, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    const auto drop = [&](const std::string& why) {
      refuse(p.fd, p.peer, why);
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
    };
    if (n <= 0) return drop(n == 0 ? "closed before its ReverseHello" : std::string(std::strerror(errno)));
    p.received.insert(p.received.end(), buf, buf + n);
    const auto r = read_reverse_hello(p.received);
    if (r.progress == reverse_hello_progress::need_more) return;
    if (r.progress == reverse_hello_progress::refused) return drop(r.why + " (" + r.status.to_string() + ")");
    // Part 6 §7.1.3: the server waits for the client's Hello; nothing may follow the RHE.
    if (r.message_size != p.received.size()) return drop("data after the ReverseHello");
    std::string why;
    if (check_reverse_hello(r.hello, options.expected_server_uri, options.expected_endpoint_url, why).is_bad())
      return drop(why);
    spdlog::debug("reverse connect: ReverseHello from {} ({}, {})", p.peer, r.hello.server_uri.view(), r.hello.endpoint_url.view());
    ready.push_back({p.fd, std::move(p.peer), std::string(r.hello.server_uri.view()), std::string(r.hello.endpoint_url.view())});
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
    while (ready.size() > options.max_ready) {
      refuse(ready.front().fd, ready.front().peer, "a newer connection of a server waits; no client took this one");
      ready.pop_front();
    }
  }
};

ua::expected<std::shared_ptr<reverse_connect_listener>> reverse_connect_listener::open(reverse_listener_options options) {
  auto p = std::make_unique<impl>();
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(options.port);
  if (::inet_pton(AF_INET, options.address.c_str(), &a.sin_addr) != 1) return ua::status::bad_tcp_endpoint_url_invalid;
  p->listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (p->listen_fd < 0) return ua::status::bad_resource_unavailable;
  int one = 1;
  ::setsockopt(p->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  socklen_t len = sizeof a;
  if (::bind(p->listen_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(p->listen_fd, 64) != 0 ||
      ::getsockname(p->listen_fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    spdlog::error("reverse connect: cannot listen on {}:{}: {}", options.address, options.port, std::strerror(errno));
    return ua::status::bad_resource_unavailable;
  }
  p->bound_port = ntohs(a.sin_port);
  p->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (p->wake_fd < 0) return ua::status::bad_resource_unavailable;
  if (options.max_pending == 0) options.max_pending = 1;
  p->options = std::move(options);
  spdlog::info("reverse connect: listening on {}:{}", p->options.address, p->bound_port);
  auto* raw = p.get();
  p->thread = std::thread([raw] { raw->run(); });
  return std::shared_ptr<reverse_connect_listener>(new reverse_connect_listener(std::move(p)));
}

reverse_connect_listener::reverse_connect_listener(std::unique_ptr<impl> p) : impl_(std::move(p)) {}
reverse_connect_listener::~reverse_connect_listener() { close(); }

std::uint16_t reverse_connect_listener::port() const noexcept { return impl_->bound_port; }
const reverse_listener_options& reverse_connect_listener::options() const noexcept { return impl_->options; }

void reverse_connect_listener::take(std::chrono::milliseconds wait, take_handler done) {
  {
    std::lock_guard lock(impl_->mutex);
    if (!impl_->stopping) {
      impl_->new_takers.push_back({steady::now() + wait, std::move(done)});
      done = nullptr;
    }
  }
  if (done) return done(std::make_shared<socket_handoff>());
  impl_->wake();
}

void reverse_connect_listener::take_for(const caf::actor& target, std::uint32_t generation, std::chrono::milliseconds wait) {
  take(wait, [target, generation](std::shared_ptr<socket_handoff> h) {
    caf::anon_send(target, client_socket_atom::value, generation, std::move(h));
  });
}

std::shared_ptr<socket_handoff> reverse_connect_listener::take_sync(std::chrono::milliseconds wait) {
  auto promise = std::make_shared<std::promise<std::shared_ptr<socket_handoff>>>();
  auto future = promise->get_future();
  take(wait, [promise](std::shared_ptr<socket_handoff> h) { promise->set_value(std::move(h)); });
  return future.get();
}

void reverse_connect_listener::close() {
  if (!impl_) return;
  {
    std::lock_guard lock(impl_->mutex);
    if (impl_->stopping) return;
    impl_->stopping = true;
  }
  impl_->wake();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace uactor::actors
