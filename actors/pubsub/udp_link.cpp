#include "actors/pubsub/udp_link.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace uactor::actors {

namespace {

std::string udp_errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

void udp_close(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

udp_link::udp_link(const pubsub::udp_settings& settings, std::string host, std::uint16_t port, events ev)
    : settings_(settings), host_(std::move(host)), port_(port), ev_(std::move(ev)) {}

udp_link::~udp_link() {
  if (receiver_.joinable()) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = ::write(stop_fd_, &one, sizeof one);
    receiver_.join();
  }
  udp_close(send_fd_);
  udp_close(recv_fd_);
  udp_close(stop_fd_);
}

bool udp_link::open(bool send, bool receive, std::string& why) {
  to_.sin_family = AF_INET;
  to_.sin_port = htons(port_);
  if (::inet_pton(AF_INET, host_.c_str(), &to_.sin_addr) != 1) {
    // A host name: resolved once, at start (IPv4; Part 14 §7.3.2 also allows IPv6, not here).
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_DGRAM;
    addrinfo* res = nullptr;
    if (const int rc = ::getaddrinfo(host_.c_str(), nullptr, &hints, &res); rc != 0 || !res) {
      why = "cannot resolve " + host_ + ": " + ::gai_strerror(rc);
      return false;
    }
    to_.sin_addr = reinterpret_cast<const sockaddr_in*>(res->ai_addr)->sin_addr;
    ::freeaddrinfo(res);
  }
  multicast_ = IN_MULTICAST(ntohl(to_.sin_addr.s_addr));
  in_addr interface{};
  interface.s_addr = htonl(INADDR_ANY);
  if (!settings_.multicast_interface.empty() && ::inet_pton(AF_INET, settings_.multicast_interface.c_str(), &interface) != 1) {
    why = "multicast_interface \"" + settings_.multicast_interface + "\" is not an IPv4 address";
    return false;
  }
  if (send) {
    send_fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (send_fd_ < 0) return why = udp_errno_text("socket"), false;
    if (multicast_) {
      const unsigned char ttl = static_cast<unsigned char>(settings_.multicast_ttl);
      const unsigned char loop = settings_.multicast_loop ? 1 : 0;
      if (::setsockopt(send_fd_, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof ttl) != 0)
        return why = udp_errno_text("IP_MULTICAST_TTL"), false;
      if (::setsockopt(send_fd_, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof loop) != 0)
        return why = udp_errno_text("IP_MULTICAST_LOOP"), false;
      if (!settings_.multicast_interface.empty() &&
          ::setsockopt(send_fd_, IPPROTO_IP, IP_MULTICAST_IF, &interface, sizeof interface) != 0)
        return why = udp_errno_text("IP_MULTICAST_IF"), false;
    }
  }
  if (receive) {
    recv_fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (recv_fd_ < 0) return why = udp_errno_text("socket"), false;
    // Several readers (of this process or others) may listen to one multicast group and port.
    const int on = 1;
    ::setsockopt(recv_fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (settings_.receive_buffer > 0)
      ::setsockopt(recv_fd_, SOL_SOCKET, SO_RCVBUF, &settings_.receive_buffer, sizeof settings_.receive_buffer);
    sockaddr_in local = to_;  // unicast: the URL's address is ours; multicast: bind the group
    if (::bind(recv_fd_, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0)
      return why = udp_errno_text(("bind " + host_ + ":" + std::to_string(port_)).c_str()), false;
    sockaddr_in bound{};
    socklen_t len = sizeof bound;
    ::getsockname(recv_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
    bound_port_ = ntohs(bound.sin_port);
    if (multicast_) {
      ip_mreq join{};
      join.imr_multiaddr = to_.sin_addr;
      join.imr_interface = interface;
      if (::setsockopt(recv_fd_, IPPROTO_IP, IP_ADD_MEMBERSHIP, &join, sizeof join) != 0)
        return why = udp_errno_text(("joining " + host_).c_str()), false;
    }
    stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
    if (stop_fd_ < 0) return why = udp_errno_text("eventfd"), false;
    receiver_ = std::thread([this] { receive_loop(); });
  }
  return true;
}

int udp_link::send(std::span<const std::uint8_t> datagram) {
  if (send_fd_ < 0) return EBADF;
  const auto n = ::sendto(send_fd_, datagram.data(), datagram.size(), MSG_DONTWAIT | MSG_NOSIGNAL,
                          reinterpret_cast<const sockaddr*>(&to_), sizeof to_);
  if (n < 0) return errno;
  return 0;
}

void udp_link::receive_loop() {
  // One byte more than the largest datagram taken: MSG_TRUNC says how large a larger one was.
  std::vector<std::uint8_t> buffer(settings_.max_datagram + 1);
  pollfd fds[2] = {{recv_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
  for (;;) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents) return;
    if (!(fds[0].revents & POLLIN)) continue;
    // Every datagram already queued, before polling again.
    for (;;) {
      const auto n = ::recv(recv_fd_, buffer.data(), buffer.size(), MSG_DONTWAIT | MSG_TRUNC);
      if (n < 0) break;  // EAGAIN: drained
      const auto size = static_cast<std::size_t>(n);
      if (size > settings_.max_datagram) {
        if (ev_.oversize) ev_.oversize(size);
        continue;
      }
      if (ev_.datagram) ev_.datagram(std::vector<std::uint8_t>(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(size)));
    }
  }
}

}  // namespace uactor::actors
