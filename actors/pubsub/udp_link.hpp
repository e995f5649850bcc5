// The UDP transport of PubSub (Part 14 §7.3.2): one socket that sends a WriterGroup's NetworkMessages
// to an opc.udp:// address (unicast, or multicast with the interface, TTL and loop configured), and,
// when the connection has readers, one that receives there on a thread of its own (it binds the
// port, joins the group when multicast). The thread only hands each datagram on: the pubsub actor
// decodes it (docs/decisions/0059). No CAF here.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <netinet/in.h>

#include "uactor/pubsub.hpp"

namespace uactor::actors {

class udp_link {
public:
  struct events {
    // A datagram, on the receiving thread. The vector is the callee's.
    std::function<void(std::vector<std::uint8_t>)> datagram;
    // A datagram larger than max_datagram arrived (and was dropped), on the receiving thread.
    std::function<void(std::size_t size)> oversize;
  };

  udp_link(const pubsub::udp_settings& settings, std::string host, std::uint16_t port, events ev);
  ~udp_link();  // stops the receiving thread and closes the sockets
  udp_link(const udp_link&) = delete;
  udp_link& operator=(const udp_link&) = delete;

  // Resolves the address and opens the sending socket; with `receive`, binds the receiving one
  // (joining the group) and starts its thread. False with `why`.
  bool open(bool send, bool receive, std::string& why);
  // Sends one datagram without blocking: 0, or the errno (EAGAIN when the socket's buffer is full).
  int send(std::span<const std::uint8_t> datagram);
  bool multicast() const noexcept { return multicast_; }
  // The port the receiving socket is bound to (the URL's; the one the kernel chose for port 0).
  std::uint16_t bound_port() const noexcept { return bound_port_; }

private:
  void receive_loop();

  pubsub::udp_settings settings_;
  std::string host_;
  std::uint16_t port_;
  events ev_;
  sockaddr_in to_{};
  bool multicast_ = false;
  int send_fd_ = -1;
  int recv_fd_ = -1;
  int stop_fd_ = -1;  // an eventfd that wakes the receiving thread to end
  std::uint16_t bound_port_ = 0;
  std::thread receiver_;
};

}  // namespace uactor::actors
