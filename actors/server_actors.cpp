#include "actors/server_actors.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "protocol/chunk_reader.hpp"
#include "protocol/uatcp.hpp"

namespace uactor::actors {
namespace {

// One request on its way from a connection to the session host and its response on the way back.
struct exchange {
  std::uint32_t request_id = 0;
  ua::request_header header;
  ua::extension_object request;  // swapped with the channel's, so both keep their storage
  ua::byte_buffer response;      // the encoded response message, filled by the host
};

// The requests of one connection that cross to the host in one message, and come back answered in
// the same object (docs/decisions/0008: one crossing each way per batch, nothing allocated per
// request once the batch has grown to the connection's working size).
struct exchange_batch {
  std::uint32_t channel_id = 0;
  std::vector<exchange> items;  // the first `size` are in use; the rest keep their storage
  std::size_t size = 0;

  exchange& next() {
    if (size == items.size()) items.emplace_back();
    return items[size++];
  }
};

using batch_ptr = std::shared_ptr<exchange_batch>;

struct writer_tick {
  std::shared_ptr<const writer_step> step;
  std::uint64_t tick = 0;
};

}  // namespace
}  // namespace uactor::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::batch_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::writer_tick)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::server_core*)

namespace uactor::actors {
namespace {

using housekeeping_atom = caf::atom_constant<caf::atom("housekeep")>;

// ---------------------------------------------------------------------------------------------
// The session host: owns server_core, answers batches in mailbox order.

struct host_state {
  std::unique_ptr<server_core> core;
  static inline const char* name = "uactor.session_host";
};

caf::behavior session_host(caf::stateful_actor<host_state>* self, std::shared_ptr<server_core> core,
                           std::chrono::milliseconds housekeeping) {
  self->state.core = std::make_unique<server_core>(std::move(*core));
  self->set_exception_handler([](caf::scheduled_actor*, std::exception_ptr& e) -> caf::error {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      spdlog::error("session host: {}", x.what());
    }
    return caf::exit_reason::unhandled_exception;
  });
  self->delayed_send(self, housekeeping, housekeeping_atom::value);
  return {
    [self](batch_ptr& batch) {
      const instant now = now_instant();
      auto& core = *self->state.core;
      for (std::size_t i = 0; i < batch->size; ++i) {
        exchange& x = batch->items[i];
        x.response.clear();
        core.handle(batch->channel_id, x.header, x.request, now, x.response);
      }
      self->send(caf::actor_cast<caf::actor>(self->current_sender()), std::move(batch));
    },
    [self](const writer_tick& t) { (*t.step)(self->state.core->space(), t.tick, utc_now()); },
    [self, housekeeping](housekeeping_atom) {
      self->state.core->on_tick(now_instant());
      self->delayed_send(self, housekeeping, housekeeping_atom::value);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// One connection: the transport (staged receive, coalesced writes) and its secure channel, on the
// multiplexer thread (docs/decisions/0007).

struct connection {
  connection(const server_options& o, std::uint32_t channel_id, caf::actor h)
      : channel(with_id(o.channel, channel_id), now_instant()),
        reader(o.channel.limits),
        host(std::move(h)),
        max_pending(o.max_pending_requests),
        housekeeping(o.housekeeping_interval),
        filling(std::make_shared<exchange_batch>()) {
    filling->channel_id = channel_id;
  }

  static secure_channel_config with_id(secure_channel_config c, std::uint32_t id) {
    c.channel_id = id;
    return c;
  }

  secure_channel_state channel;
  ua::chunk_reader reader;
  ua::byte_buffer carry;  // a header split across receives (fewer than 8 bytes)
  caf::actor host;
  std::size_t max_pending;
  std::chrono::milliseconds housekeeping;
  batch_ptr filling;   // requests collected while the previous batch is at the host
  batch_ptr spare;     // a batch back from the host, ready for reuse
  bool at_host = false;
  bool halted = false;
  bool closing = false;
};

using connection_ptr = std::shared_ptr<connection>;

// Appends what the channel wrote (ACK, OPN response, ServiceFault, ERR, responses) to the socket's
// write buffer: every chunk of one mailbox message leaves in one send.
void take_output(caf::io::broker* self, caf::io::connection_handle hdl, connection& c) {
  auto& out = c.channel.output();
  if (out.empty()) return;
  auto& wr = self->wr_buf(hdl);
  const auto* p = reinterpret_cast<const char*>(out.data());
  wr.insert(wr.end(), p, p + out.size());
  c.channel.clear_output();
}

void close_connection(caf::io::broker* self, caf::io::connection_handle hdl, connection& c) {
  take_output(self, hdl, c);
  self->flush(hdl);
  self->close(hdl);  // unwritten data still goes out (graceful shutdown)
  c.closing = true;
  self->quit();
}

void send_batch(caf::io::broker* self, connection& c) {
  if (c.at_host || c.filling->size == 0) return;
  self->send(c.host, c.filling);
  c.at_host = true;
  if (c.spare) {
    c.filling = std::move(c.spare);
  } else {
    const auto id = c.filling->channel_id;
    c.filling = std::make_shared<exchange_batch>();
    c.filling->channel_id = id;
  }
}

void on_chunk(connection& c, const ua::chunk_view& chunk, const instant& now) {
  switch (c.channel.on_chunk(chunk, now)) {
    case secure_channel_state::event::acknowledged:
      c.reader.set_receive_buffer_size(c.channel.limits().receive_buffer_size);
      break;
    case secure_channel_state::event::request: {
      auto& r = c.channel.request();
      exchange& x = c.filling->next();
      x.request_id = r.request_id;
      x.header = *r.header;
      std::swap(x.request, *r.message);
      break;
    }
    case secure_channel_state::event::close:
      c.closing = true;
      break;
    case secure_channel_state::event::none:
      break;
  }
}

void on_data(caf::io::broker* self, caf::io::connection_handle hdl, connection& c, std::span<const std::uint8_t> in) {
  if (!c.carry.empty()) {
    c.carry.append(in.data(), in.size());
    in = c.carry.bytes();
  }
  const instant now = now_instant();
  const auto used = c.reader.put(in, [&](const ua::chunk_view& chunk) -> ua::status_code {
    on_chunk(c, chunk, now);
    return c.closing ? ua::status::bad_secure_channel_closed : ua::status::good;  // stops the reader
  });
  if (c.closing) return close_connection(self, hdl, c);
  if (!used) {
    // Part 6 §7.1.3: a framing error gets an ERR, then the connection closes.
    spdlog::info("connection {}: {}", c.channel.channel_id(), used.error().to_string());
    ua::write_message(c.channel.output(), ua::error_message{used.error(), {}});
    return close_connection(self, hdl, c);
  }
  std::array<std::uint8_t, ua::message_header_size> keep{};
  const std::size_t left = in.size() - *used;  // fewer than 8: a header not yet whole
  std::memcpy(keep.data(), in.data() + *used, left);
  c.carry.clear();
  c.carry.append(keep.data(), left);

  send_batch(self, c);
  if (c.filling->size >= c.max_pending && !c.halted) {
    self->halt(hdl);  // back pressure: read again once the host has answered
    c.halted = true;
  }
  take_output(self, hdl, c);
  self->flush(hdl);
}

void on_answered(caf::io::broker* self, caf::io::connection_handle hdl, connection& c, batch_ptr& batch) {
  for (std::size_t i = 0; i < batch->size; ++i) {
    exchange& x = batch->items[i];
    c.channel.send_encoded(x.request_id, x.response.bytes());
  }
  batch->size = 0;
  c.spare = std::move(batch);
  c.at_host = false;
  send_batch(self, c);
  if (c.halted && c.filling->size < c.max_pending) {
    self->trigger(hdl);
    c.halted = false;
  }
  take_output(self, hdl, c);
  self->flush(hdl);
}

caf::behavior connection_broker(caf::io::broker* self, caf::io::connection_handle hdl, server_options options,
                                std::uint32_t channel_id, caf::actor host) {
  auto c = std::make_shared<connection>(options, channel_id, std::move(host));
  self->configure_read(hdl, caf::io::receive_policy::at_most(8192));  // the staging buffer
  self->delayed_send(self, c->housekeeping, housekeeping_atom::value);
  return {
    [self, hdl, c](const caf::io::new_data_msg& msg) {
      on_data(self, hdl, *c, {reinterpret_cast<const std::uint8_t*>(msg.buf.data()), msg.buf.size()});
    },
    [self, hdl, c](batch_ptr& batch) { on_answered(self, hdl, *c, batch); },
    [self, hdl, c](housekeeping_atom) {
      if (c->channel.on_tick(now_instant()) == secure_channel_state::event::close)
        return close_connection(self, hdl, *c);
      self->delayed_send(self, c->housekeeping, housekeeping_atom::value);
    },
    [self](const caf::io::connection_closed_msg&) { self->quit(); },
  };
}

// Past the maximum number of connections: an ERR, then the close (Part 6 §7.1.2.5).
caf::behavior refused_connection(caf::io::broker* self, caf::io::connection_handle hdl) {
  ua::byte_buffer err;
  ua::write_message(err, ua::error_message{ua::status::bad_tcp_not_enough_resources, ua::ua_string("too many connections")});
  auto& wr = self->wr_buf(hdl);
  const auto* p = reinterpret_cast<const char*>(err.data());
  wr.insert(wr.end(), p, p + err.size());
  self->flush(hdl);
  self->close(hdl);
  self->quit();
  return {[](const caf::io::new_data_msg&) {}};
}

// ---------------------------------------------------------------------------------------------
// The listener: accepts on our own socket (spawn_server would bind every interface), admits up to
// max_connections, assigns channel ids.

struct listener_state {
  std::unordered_map<caf::actor_addr, caf::actor> connections;
  std::uint32_t next_channel_id = 1;
};

caf::behavior listener(caf::io::broker* self, int fd, server_options options, caf::actor host) {
  auto st = std::make_shared<listener_state>();
  self->add_doorman(fd);
  self->set_down_handler([st](const caf::down_msg& d) { st->connections.erase(d.source); });
  // The connections end with the listener (stop_server, or the listener failing).
  self->attach_functor([st] {
    for (auto& [addr, conn] : st->connections) caf::anon_send_exit(conn, caf::exit_reason::user_shutdown);
  });
  return {
    [self, st, options, host](const caf::io::new_connection_msg& msg) {
      if (st->connections.size() >= options.max_connections) {
        spdlog::warn("refusing a connection: {} open, the maximum", st->connections.size());
        self->fork(refused_connection, msg.handle);
        return;
      }
      const std::uint32_t id = st->next_channel_id++;
      if (st->next_channel_id == 0) st->next_channel_id = 1;  // 0 is not a channel id
      auto conn = self->fork(connection_broker, msg.handle, options, id, host);
      self->monitor(conn);
      st->connections.emplace(conn.address(), conn);
    },
    [self](const caf::io::acceptor_closed_msg&) { self->quit(); },
  };
}

// A listening socket bound to the configured address (TCP_NODELAY is inherited by accepted sockets).
ua::expected<int> bind_listener(const std::string& address, std::uint16_t port, std::uint16_t& bound) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (::inet_pton(AF_INET, address.c_str(), &a.sin_addr) != 1) return ua::status::bad_tcp_endpoint_url_invalid;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ua::status::bad_resource_unavailable;
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 512) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    spdlog::error("cannot listen on {}:{}: {}", address, port, std::strerror(errno));
    ::close(fd);
    return ua::status::bad_resource_unavailable;
  }
  bound = ntohs(a.sin_port);
  return fd;
}

caf::behavior writer(caf::event_based_actor* self, caf::actor host, std::chrono::milliseconds interval,
                     std::shared_ptr<const writer_step> step) {
  self->monitor(host);
  self->set_down_handler([self](const caf::down_msg&) { self->quit(); });
  auto tick = std::make_shared<std::uint64_t>(0);
  self->send(self, housekeeping_atom::value);
  return {
    [=](housekeeping_atom) {
      self->send(host, writer_tick{step, (*tick)++});
      self->delayed_send(self, interval, housekeeping_atom::value);
    },
  };
}

}  // namespace

ua::expected<server_handle> spawn_server(caf::actor_system& sys, const server_options& options,
                                         const core_factory& make_core) {
  server_handle h;
  const auto fd = bind_listener(options.listen_address, options.port, h.port);
  if (!fd) return fd.error();
  h.host = sys.spawn(session_host, std::make_shared<server_core>(make_core(h.port)), options.housekeeping_interval);
  h.listener = sys.middleman().spawn_broker(listener, *fd, options, h.host);
  return h;
}

caf::actor spawn_writer(caf::actor_system& sys, const server_handle& server, std::chrono::milliseconds interval,
                        writer_step step) {
  return sys.spawn(writer, server.host, interval, std::make_shared<const writer_step>(std::move(step)));
}

void stop_server(const server_handle& server) {
  caf::anon_send_exit(server.listener, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(server.host, caf::exit_reason::user_shutdown);
}

}  // namespace uactor::actors
