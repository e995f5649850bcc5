#include "actors/server/reverse_dialer.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <random>
#include <unordered_map>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/io/network/default_multiplexer.hpp>
#include <spdlog/spdlog.h>

#include "actors/client/endpoint_url.hpp"
#include "actors/client/tcp_connector.hpp"
#include "actors/common/exit_a_turn_later.hpp"
#include "actors/common/native_socket.hpp"
#include "actors/common/self_send.hpp"
#include "engine/client/recovery.hpp"
#include "protocol/uatcp.hpp"

namespace uactor::actors {

namespace {

using reverse_retry_atom = caf::atom_constant<caf::atom("rvretry")>;

// Logged once per change, not per attempt (a client away for a day is one line, not thousands).
enum class dial_state { idle, connected, failing };

struct dialer_state {
  reverse_connect_target target;
  endpoint_address address;
  reverse_dialer_links links;
  bool open = false;
  bool dialing = false;      // a connect is under way (one at a time)
  bool retry_armed = false;  // a reverse_retry_atom is due
  std::uint32_t generation = 0;
  std::uint32_t failures = 0;  // in a row: the backoff's exponent
  dial_state state = dial_state::idle;
  std::unordered_map<caf::actor_addr, caf::actor> connections;
  std::minstd_rand rng{std::random_device{}()};
};


class dialer {
public:
  dialer(caf::io::broker* self, std::shared_ptr<dialer_state> st) : self_(self), st_(std::move(st)) {}

  void dial_if_wanted() {
    auto& s = *st_;
    if (!s.open || s.dialing || s.retry_armed || s.connections.size() >= s.target.max_connections) return;
    s.dialing = true;
    if (s.links.counters) s.links.counters->dial_attempts.add();
    connect_off_thread(self_->system(), caf::actor_cast<caf::actor>(self_), s.address.host, s.address.port, ++s.generation);
  }

  void on_socket(std::uint32_t gen, const std::shared_ptr<socket_handoff>& h) {
    auto& s = *st_;
    if (gen != s.generation) return;  // the handoff closes a socket nobody waits for
    s.dialing = false;
    if (h->fd == caf::io::network::invalid_native_socket) return failed("cannot connect");
    if (!send_reverse_hello(h->fd)) return failed("cannot send the ReverseHello");
    const auto hdl = self_->add_scribe(h->release());
    std::uint32_t id = s.links.next_channel_id();
    if (id == 0) id = s.links.next_channel_id();  // 0 is not a channel id
    // Housekeeping ticks of its own: no listener ticks this connection.
    auto conn = self_->fork(serving_connection_broker, hdl, s.links.connection, id,
                            connection_links{s.links.host, native_socket_of(self_, hdl), false, {}});
    self_->monitor(conn);
    s.connections.emplace(conn.address(), conn);
    if (s.links.counters) {
      s.links.counters->connections.add();
      s.links.counters->open.set(s.connections.size());
    }
    s.failures = 0;
    if (s.state != dial_state::connected)
      spdlog::info("reverse connect: connected to {}, ReverseHello sent ({}, {})", s.target.client_url, s.target.server_uri,
                   s.target.endpoint_url);
    s.state = dial_state::connected;
    dial_if_wanted();
  }

  void on_down(const caf::down_msg& d) {
    auto& s = *st_;
    if (s.connections.erase(d.source) == 0) return;
    if (s.links.counters) s.links.counters->open.set(s.connections.size());
    spdlog::debug("reverse connect: a connection to {} ended", s.target.client_url);
    // A pause before the redial: a client that takes the socket and closes it at once (another
    // server expected) is not hammered.
    arm_retry(s.target.backoff_min);
  }

  void on_retry() {
    st_->retry_armed = false;
    dial_if_wanted();
  }

  void on_open() {
    st_->open = true;
    dial_if_wanted();
  }

private:
  // Part 6 §7.1.2.6. The socket is new and the message small (at most 8208 bytes): one send.
  bool send_reverse_hello(int fd) const {
    ua::byte_buffer out;
    ua::write_message(out, ua::reverse_hello{ua::ua_string(st_->target.server_uri), ua::ua_string(st_->target.endpoint_url)});
    const auto n = ::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
    return n == static_cast<ssize_t>(out.size());
  }

  void failed(const char* what) {
    auto& s = *st_;
    if (s.links.counters) s.links.counters->failures.add();
    const auto delay = next_delay();
    if (s.state != dial_state::failing)
      spdlog::warn("reverse connect: {} {} ; trying again with backoff ({} ms, up to {} ms between attempts)", what,
                   s.target.client_url, delay.count(), s.target.backoff_max.count());
    s.state = dial_state::failing;
    ++s.failures;
    arm_retry(delay);
  }

  std::chrono::milliseconds next_delay() {
    auto& s = *st_;
    const backoff_policy p{s.target.backoff_min, s.target.backoff_max, 0.25};
    const double r = std::uniform_real_distribution<double>(0.0, 1.0)(s.rng);
    return std::min(backoff_delay(p, s.failures, r), s.target.backoff_max);
  }

  void arm_retry(std::chrono::milliseconds delay) {
    auto& s = *st_;
    if (s.retry_armed) return;
    s.retry_armed = true;
    delayed_send_to_self(self_, delay, reverse_retry_atom::value);
  }

  caf::io::broker* self_;
  std::shared_ptr<dialer_state> st_;
};

}  // namespace

caf::behavior reverse_dialer(caf::io::broker* self, reverse_connect_target target, reverse_dialer_links links) {
  auto st = std::make_shared<dialer_state>();
  auto address = parse_endpoint_url(target.client_url);
  if (!address || address->wss) {  // reverse connect is a UA-TCP mapping (Part 6 §7.1.3)
    spdlog::error("reverse connect: {} is not an opc.tcp URL; not dialing it", target.client_url);
    self->quit();
    return {};
  }
  st->address = *address;
  st->target = std::move(target);
  if (st->target.max_connections == 0) st->target.max_connections = 1;
  st->links = std::move(links);
  exit_a_turn_later(self);  // the scribe added for a fork may fall in the turn of a stop
  self->set_down_handler([self, st](const caf::down_msg& d) { dialer(self, st).on_down(d); });
  // The connections end with the dialer (stop_server).
  self->attach_functor([st] {
    for (auto& [addr, conn] : st->connections) caf::anon_send_exit(conn, caf::exit_reason::user_shutdown);
    st->connections.clear();
  });
  dialer(self, st).on_open();
  return {
      [self, st](client_socket_atom, std::uint32_t gen, const std::shared_ptr<socket_handoff>& h) {
        dialer(self, st).on_socket(gen, h);
      },
      [self, st](reverse_retry_atom) { dialer(self, st).on_retry(); },
      [](const caf::io::new_data_msg&) {},  // the scribes are forked away at once
  };
}

}  // namespace uactor::actors
