// The fault-injecting proxy of tests/support on its own, between a plain socket and an echo
// server, both on 127.0.0.1: what each end sees for every fault.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "tests/support/fault_proxy.hpp"

using namespace std::chrono_literals;
using uactor::test::cut_kind;
using uactor::test::cut_side;
using uactor::test::fault_proxy;

namespace {

enum class ended { open, eof, reset };

// Echoes what each connection sends; remembers how each one ended.
class echo_server {
public:
  echo_server() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 8);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { run(); });
  }
  ~echo_server() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  std::uint16_t port() const { return port_; }
  ended last_end() {
    std::lock_guard lock(mutex_);
    return last_;
  }
  // Waits (bounded) until the server's side of a connection has ended.
  ended wait_end(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (auto e = last_end(); e != ended::open) return e;
      std::this_thread::sleep_for(5ms);
    }
    return ended::open;
  }

private:
  void run() {
    std::vector<int> conns;
    while (!stop_) {
      std::vector<pollfd> fds{{fd_, POLLIN, 0}};
      for (int c : conns) fds.push_back({c, POLLIN, 0});
      ::poll(fds.data(), fds.size(), 20);
      if (fds[0].revents & POLLIN) conns.push_back(::accept(fd_, nullptr, nullptr));
      for (std::size_t k = 1; k < fds.size(); ++k) {
        if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        char buf[4096];
        const auto n = ::recv(fds[k].fd, buf, sizeof buf, 0);
        if (n > 0) {
          [[maybe_unused]] auto w = ::send(fds[k].fd, buf, static_cast<std::size_t>(n), MSG_NOSIGNAL);
          continue;
        }
        {
          std::lock_guard lock(mutex_);
          last_ = n == 0 ? ended::eof : ended::reset;
        }
        ::close(fds[k].fd);
        std::erase(conns, fds[k].fd);
      }
    }
    for (int c : conns) ::close(c);
  }

  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mutex_;
  ended last_ = ended::open;
};

// A socket connected to 127.0.0.1:port, or -errno.
int dial_or_errno(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    const int err = errno;
    ::close(fd);
    return -err;
  }
  return fd;
}

int dial(std::uint16_t port) { return std::max(dial_or_errno(port), -1); }

struct got {
  ended how = ended::open;  // open: data or nothing within the timeout
  std::string data;
};

// What arrives within `timeout`: data (as much as comes in that time), an EOF or an RST.
got receive(int fd, std::chrono::milliseconds timeout, std::size_t want = 1) {
  got g;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (g.data.size() < want) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buf[4096];
    const auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n > 0) {
      g.data.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    g.how = n == 0 ? ended::eof : ended::reset;
    break;
  }
  return g;
}

// How a connection to a proxy that resets it at once ends. The reset can arrive before the
// connecting thread returns from connect() (loopback, a loaded machine): then connect() itself
// fails with ECONNRESET, which is the same reset seen earlier.
ended dial_and_wait_end(std::uint16_t port) {
  const int fd = dial_or_errno(port);
  if (fd < 0) return fd == -ECONNRESET ? ended::reset : ended::open;
  const auto how = receive(fd, 2000ms).how;
  ::close(fd);
  return how;
}

void send_all(int fd, const std::string& s) { REQUIRE(::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size())); }

}  // namespace

TEST_CASE("fault_proxy: forwards both ways until cut, an RST to both ends", "[fault]") {
  echo_server echo;
  fault_proxy proxy(echo.port());
  const int fd = dial(proxy.port());
  REQUIRE(fd >= 0);
  send_all(fd, "hello");
  CHECK(receive(fd, 2000ms, 5).data == "hello");
  CHECK(proxy.open_connections() == 1);
  proxy.cut(cut_kind::rst, cut_side::both);
  CHECK(receive(fd, 2000ms).how == ended::reset);
  CHECK(echo.wait_end(2000ms) == ended::reset);
  ::close(fd);
}

TEST_CASE("fault_proxy: a FIN to the client only leaves the server's end open and unfed", "[fault]") {
  echo_server echo;
  fault_proxy proxy(echo.port());
  const int fd = dial(proxy.port());
  REQUIRE(fd >= 0);
  send_all(fd, "x");
  REQUIRE(receive(fd, 2000ms, 1).data == "x");
  proxy.cut(cut_kind::fin, cut_side::client);
  CHECK(receive(fd, 2000ms).how == ended::eof);
  // The server learns nothing: its connection stays open (a dead link, as it sees it).
  CHECK(echo.wait_end(200ms) == ended::open);
  ::close(fd);
  CHECK(echo.wait_end(2000ms) != ended::open);  // the client's close ends the black hole, then the server's end
}

TEST_CASE("fault_proxy: an RST to the server only: the client sees a silent link", "[fault]") {
  echo_server echo;
  fault_proxy proxy(echo.port());
  const int fd = dial(proxy.port());
  REQUIRE(fd >= 0);
  send_all(fd, "x");
  REQUIRE(receive(fd, 2000ms, 1).data == "x");
  proxy.cut(cut_kind::rst, cut_side::server);
  CHECK(echo.wait_end(2000ms) == ended::reset);
  send_all(fd, "lost");
  const auto g = receive(fd, 300ms);
  CHECK(g.how == ended::open);
  CHECK(g.data.empty());
  ::close(fd);
}

TEST_CASE("fault_proxy: a stall holds the bytes, which arrive when it ends", "[fault]") {
  echo_server echo;
  fault_proxy proxy(echo.port());
  const int fd = dial(proxy.port());
  REQUIRE(fd >= 0);
  send_all(fd, "a");
  REQUIRE(receive(fd, 2000ms, 1).data == "a");
  proxy.stall();
  send_all(fd, "held");
  CHECK(receive(fd, 300ms).data.empty());
  proxy.resume();
  CHECK(receive(fd, 2000ms, 4).data == "held");
  SECTION("a timed stall ends by itself") {
    proxy.stall(200ms);
    const auto t0 = std::chrono::steady_clock::now();
    send_all(fd, "late");
    CHECK(receive(fd, 3000ms, 4).data == "late");
    CHECK(std::chrono::steady_clock::now() - t0 >= 190ms);
  }
  ::close(fd);
}

TEST_CASE("fault_proxy: a delay holds each piece at least that long", "[fault]") {
  echo_server echo;
  fault_proxy proxy(echo.port());
  proxy.set_delay(100ms);
  const int fd = dial(proxy.port());
  REQUIRE(fd >= 0);
  const auto t0 = std::chrono::steady_clock::now();
  send_all(fd, "slow");
  CHECK(receive(fd, 3000ms, 4).data == "slow");
  CHECK(std::chrono::steady_clock::now() - t0 >= 200ms);  // 100 ms each way
  ::close(fd);
}

TEST_CASE("fault_proxy: a truncated answer: exactly N bytes, then an RST", "[fault]") {
  echo_server echo;
  fault_proxy proxy(echo.port());
  const int fd = dial(proxy.port());
  REQUIRE(fd >= 0);
  proxy.truncate_server_to_client_after(3);
  send_all(fd, "abcdef");
  const auto g = receive(fd, 2000ms, 100);
  CHECK(g.data == "abc");
  CHECK(g.how == ended::reset);
  ::close(fd);
}

TEST_CASE("fault_proxy: refusing resets new connections, then pairs again", "[fault]") {
  echo_server echo;
  fault_proxy proxy(echo.port());
  proxy.set_refusing(true);
  CHECK(dial_and_wait_end(proxy.port()) == ended::reset);  // accepted by the kernel, then reset by the proxy
  proxy.set_refusing(false);
  const int fd = dial(proxy.port());
  REQUIRE(fd >= 0);
  send_all(fd, "ok");
  CHECK(receive(fd, 2000ms, 2).data == "ok");
  CHECK(proxy.accepted() == 2);
  ::close(fd);
}

TEST_CASE("fault_proxy: a server that is not there resets the client", "[fault]") {
  const auto port = uactor::test::free_port();
  fault_proxy proxy(port);
  CHECK(dial_and_wait_end(proxy.port()) == ended::reset);
}

// Needs the uactor program (UACTOR_BIN): run by ctest's supervisor.server_process.
TEST_CASE("server_process: kill -9 and a restart on the same port", "[.server-process]") {
  const char* bin = std::getenv("UACTOR_BIN");
  REQUIRE(bin != nullptr);
  uactor::test::server_process server(bin, {"run", "--host", "127.0.0.1", "--port", "{port}"});
  REQUIRE(server.start());
  REQUIRE(uactor::test::port_accepts(server.port(), 100ms));
  server.kill9();
  CHECK_FALSE(uactor::test::port_accepts(server.port(), 100ms));
  REQUIRE(server.start());
  CHECK(uactor::test::port_accepts(server.port(), 100ms));
}
