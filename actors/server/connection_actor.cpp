#include "actors/server/connection_actor.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <array>
#include <cstring>
#include <memory>
#include <utility>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include "engine/common/clock.hpp"
#include "actors/common/native_socket.hpp"
#include "actors/common/self_send.hpp"
#include "actors/server/exchange.hpp"
#include "actors/wss/wss_native.hpp"
#include "protocol/chunk_reader.hpp"
#include "protocol/uatcp.hpp"

namespace uactor::actors {
namespace {

// The staging buffer: one receive takes a header and, for small chunks, the whole chunk and the
// next ones (docs/decisions/0007, "staged single-recv framing").
constexpr std::size_t staging_size = 8192;

// Responses not yet written to the socket (CAF's write buffers) above which the connection stops
// reading: a peer that sends requests and never reads its answers holds at most this much of the
// server's memory, plus its kernel buffers. Reading resumes once the backlog is down to half.
constexpr std::size_t max_unsent_bytes = 1u << 20;

using resume_reading_atom = caf::atom_constant<caf::atom("resumeread")>;

// An OpenSecureChannel answered on a crypto worker: the channel state travels with it and is
// the connection's again once the task is back (docs/decisions/0022).
struct channel_open_task final : crypto_task {
  channel_open_task() : crypto_task(kind::channel_open) {}
  void run() override { result = channel->on_chunk({ua::message_type::open, chunk_type, chunk.bytes()}, now); }

  std::shared_ptr<secure_channel_state> channel;
  ua::byte_buffer chunk;  // a copy: the receive buffer is reused meanwhile
  ua::chunk_type chunk_type = ua::chunk_type::final_chunk;
  instant now;
  secure_channel_state::event result = secure_channel_state::event::close;  // if run() throws
};

struct connection {
  connection(const connection_options& o, std::uint32_t channel_id, connection_links links)
      : channel_owner(std::make_shared<secure_channel_state>(
            with_id(o.channel, channel_id,
                    links.peer_address.empty() ? peer_address_of(links.native_socket) : links.peer_address),
            now_instant())),
        channel(*channel_owner),
        reader(o.channel.limits),
        host(std::move(links.host.actor)),
        inline_host(std::move(links.host.inline_state)),
        fd(links.native_socket),
        max_pending(o.max_pending_requests),
        housekeeping(o.housekeeping_interval),
        self_ticked(!links.ticked_by_listener),
        filling(std::make_shared<exchange_batch>()),
        counters(o.metrics && !o.wss ? o.metrics->open_connection(o.channel.endpoint) : nullptr),
        crypto(o.crypto),
        refuse(links.refuse) {
    filling->channel_id = channel_id;
    left_host = refuse;  // the host never knew it
    if (o.wss) {
      // opc.wss served natively: counted as the endpoint's once the upgrade is done (as the door
      // hands a connection over only then).
      wss = std::make_unique<wss_native_transport>(
          o.wss, links.peer_address.empty() ? peer_address_of(links.native_socket) : links.peer_address);
      metrics = o.metrics;
      endpoint = o.channel.endpoint;
    }
  }
  ~connection() {
    if (counters) counters->closed.store(true, std::memory_order_release);
  }

  static secure_channel_config with_id(secure_channel_config c, std::uint32_t id, std::string peer_address) {
    c.channel_id = id;
    c.peer_address = std::move(peer_address);
    return c;
  }

  std::shared_ptr<secure_channel_state> channel_owner;  // shared with a channel_open_task while away
  secure_channel_state& channel;
  ua::chunk_reader reader;
  ua::byte_buffer carry;  // a header split across receives (fewer than 8 bytes)
  caf::actor host;
  std::shared_ptr<host_state> inline_host;  // set: batches are answered in place (answer_inline)
  int fd;                                   // >= 0: output is sent directly while CAF's buffer is empty
  std::size_t max_pending;
  std::chrono::milliseconds housekeeping;
  bool self_ticked;    // arms its own housekeeping timer (else the listener ticks it)
  batch_ptr filling;   // requests collected while the previous batch is at the host
  batch_ptr spare;     // a batch back from the host, ready for reuse
  std::size_t receive_size = staging_size;  // what the next receive may take
  bool at_host = false;
  bool halted = false;  // out of the read loop: too many requests waiting, or too much output unsent
  bool closing = false;
  std::size_t unsent = 0;  // bytes handed to the socket's write buffer and not yet written
  bool write_backlog = false;
  bool read_since_trigger = true;  // data arrived since the last trigger(): its read event is registered
  bool left_host = false;          // channel_closed sent
  std::shared_ptr<connection_counters> counters;  // null: not counted
  std::uint32_t counted_renewals = 0;             // the channel's counts already in `counters`
  std::uint32_t counted_refusals = 0;
  std::shared_ptr<crypto_pool> crypto;  // null: OpenSecureChannel crypto inline
  // An OPN to answer on a worker, taken from the chunk at hand; submitted once the reader returned.
  std::shared_ptr<channel_open_task> open_task;
  // The channel is at a worker: nothing here touches it; what would is held until it is back.
  bool channel_away = false;
  bool recheck_held = false;       // the trust list changed meanwhile: checked when it is back
  batch_ptr held_batch;            // answered by the host meanwhile
  std::vector<push_ptr> held_pushes;  // pushed by the host meanwhile
  // opc.wss served natively (docs/decisions/0073): the socket's bytes go through it both ways.
  std::unique_ptr<wss_native_transport> wss;
  ua::byte_buffer ws_chunks;                   // the chunk bytes of one receive's messages
  std::shared_ptr<metrics_registry> metrics;   // for `counters`, once the upgrade is done
  std::uint16_t endpoint = 0;
  bool refuse = false;  // past max_connections: an ERR once the upgrade is done (connection_links::refuse)
};

// What the channel did since the last call, into the connection's counters.
void count_channel(connection& c) {
  if (!c.counters) return;
  if (const auto r = c.channel.renewals(); r != c.counted_renewals) {
    c.counters->renewals.add(r - c.counted_renewals);
    c.counted_renewals = r;
  }
  if (const auto r = c.channel.certificate_refusals(); r != c.counted_refusals) {
    c.counters->certificates_rejected.add(r - c.counted_refusals);
    c.counted_refusals = r;
  }
}

// What one non-blocking send() took: 0 when the socket is full (EAGAIN) or failed; then the
// scribe gets all of it, and meets the failure itself (a connection_closed_msg, as without us).
std::size_t send_now(int fd, std::span<const std::uint8_t> bytes) {
  for (;;) {
    const auto n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR) return 0;
  }
}

// Writes what the channel wrote (ACK, OPN response, ServiceFault, ERR, responses): every chunk of
// one mailbox message leaves in one send. Directly on the socket while CAF's write buffer is
// empty (c.unsent == 0: data_transferred_msg reports what CAF still holds, synchronously, from its
// write handler), so that nothing of ours overtakes bytes CAF still holds; what the kernel does
// not take goes to the scribe's buffer and leaves after the bytes before it (docs/decisions/0013).
void send_bytes(caf::io::broker* self, caf::io::connection_handle hdl, connection& c, std::span<const std::uint8_t> out) {
  if (out.empty()) return;
  std::size_t done = 0;
  if (c.fd >= 0 && c.unsent == 0) done = send_now(c.fd, out);
  if (done < out.size()) {
    auto& wr = self->wr_buf(hdl);
    const auto* p = reinterpret_cast<const char*>(out.data());
    wr.insert(wr.end(), p + done, p + out.size());
    c.unsent += out.size() - done;
  }
}

// What the native wss transport has to send (TLS, the upgrade's answer, frames, a close).
void send_wss_output(caf::io::broker* self, caf::io::connection_handle hdl, connection& c) {
  auto& out = c.wss->out();
  send_bytes(self, hdl, c, out.bytes());
  out.clear();
}

void take_output(caf::io::broker* self, caf::io::connection_handle hdl, connection& c) {
  auto& out = c.channel.output();
  if (c.wss) {
    // opc.wss: every chunk of the drain its own binary frame, all in one SSL_write and one send.
    if (!out.empty()) {
      if (c.counters) c.counters->bytes_sent.add(out.size());
      if (!c.wss->send_chunks(out.bytes())) c.wss->close(1011);  // RFC 6455 §7.4.1: an internal error
      c.channel.clear_output();
      if (c.wss->current_phase() == wss_native_transport::phase::closed) c.closing = true;
    }
    send_wss_output(self, hdl, c);
    return;
  }
  if (out.empty()) return;
  if (c.counters) c.counters->bytes_sent.add(out.size());
  send_bytes(self, hdl, c, out.bytes());
  c.channel.clear_output();
}

// Back pressure (a hostile peer gets a closed connection, never unbounded memory): stop
// reading while the host has max_pending requests of ours waiting, or while more than
// max_unsent_bytes of answers wait for the peer to read them.
void update_reading(caf::io::broker* self, caf::io::connection_handle hdl, connection& c) {
  if (c.unsent > max_unsent_bytes) c.write_backlog = true;
  else if (c.unsent <= max_unsent_bytes / 2) c.write_backlog = false;
  const bool stop = c.write_backlog || c.filling->size >= c.max_pending || c.channel_away;
  // CAF 0.17's halt() and trigger() only queue a change of the read event, applied at the end of
  // the multiplexer's loop iteration; stream::activate (trigger) does nothing while the stream
  // still has its reader, which the applied removal drops. So within one iteration:
  // - halt then trigger: the trigger is lost and reading stops for good (seen: a batch back from
  //   the host in the same epoll round as the data that halted). The trigger is therefore sent as
  //   a message to ourselves, and repeated at each housekeeping tick (a no-op while reading).
  // - trigger then halt: the two queued changes cancel, the stream keeps its reader without a
  //   read event, and no later trigger can revive it. So a halt waits until data has arrived
  //   since the last trigger (on_data halts then); until then nothing is read anyway.
  if (stop && !c.halted) {
    if (!c.read_since_trigger) return;
    self->halt(hdl);
    c.halted = true;
  } else if (!stop && c.halted) {
    c.halted = false;
    send_to_self(self, resume_reading_atom::value);
  }
}

void resume_reading(caf::io::broker* self, caf::io::connection_handle hdl, connection& c) {
  if (c.halted || c.closing) return;
  self->trigger(hdl);
  c.read_since_trigger = false;
}

// What the channel did that is audited goes to the host, which raises the events (only recorded
// when the server's audit_events is on; one message per OpenSecureChannel or CloseSecureChannel).
void send_audits(caf::io::broker* self, connection& c) {
  if (!c.channel.has_audits()) return;
  channel_audits a;
  c.channel.take_audits(a);
  self->send(c.host, channel_audit_atom::value, std::move(a));
}

// The host forgets the channel (its actor handle, the Publish requests queued from it).
void leave_host(caf::io::broker* self, connection& c) {
  if (c.left_host) return;
  c.left_host = true;
  self->send(c.host, channel_closed_atom::value, c.channel.channel_id());
}

void close_connection(caf::io::broker* self, caf::io::connection_handle hdl, connection& c) {
  send_audits(self, c);  // before channel_closed: the host still knows the channel
  take_output(self, hdl, c);
  if (c.wss) {
    c.wss->close(1000);  // the close frame after the last chunk (an ERR, a CLO's end), then close_notify
    send_wss_output(self, hdl, c);
  }
  self->flush(hdl);
  self->close(hdl);  // unwritten data still goes out (graceful shutdown)
  c.closing = true;
  leave_host(self, c);
  self->quit();
}

// The answered requests of a batch go to the channel (chunked, in order); the batch is empty again.
void write_answers(connection& c, exchange_batch& batch) {
  for (std::size_t i = 0; i < batch.size; ++i) {
    exchange& x = batch.items[i];
    if (x.response.empty()) continue;  // a Publish the host answers later (on_pushed)
    c.channel.send_encoded(x.request_id, x.response.bytes());
  }
  batch.size = 0;
}

void send_batch(caf::io::broker* self, connection& c) {
  if (c.at_host || c.filling->size == 0) return;
  if (c.inline_host) {
    // The host runs on this thread: its work done here, without the two mailbox messages and the
    // two multiplexer rounds of a crossing (docs/decisions/0013).
    if (answer_inline(self, *c.inline_host, c.filling)) {
      write_answers(c, *c.filling);
      return;
    }
    // A request waits for a crypto worker: the host keeps the batch and sends it back answered.
  } else {
    c.filling->sent = std::chrono::steady_clock::now();
    self->send(c.host, c.filling);
  }
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
  if (c.crypto && c.channel.open_needs_crypto(chunk)) {
    // Part 6 §6.7.2 / Part 4 §5.5.2: nothing behind an OPN is read before it is answered; the
    // reader stops here and keeps the rest for when the channel is back.
    auto t = std::make_shared<channel_open_task>();
    t->chunk.append(chunk.bytes.data(), chunk.bytes.size());
    t->chunk_type = chunk.chunk;
    t->now = now;
    c.open_task = std::move(t);
    c.reader.pause();
    return;
  }
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

void submit_open(caf::io::broker* self, caf::io::connection_handle hdl, connection& c);

// Frames and handles what arrived (and what was kept from before); answers what it can.
void process_input(caf::io::broker* self, caf::io::connection_handle hdl, connection& c, std::span<const std::uint8_t> in) {
  if (!c.carry.empty()) {
    c.carry.append(in.data(), in.size());
    in = c.carry.bytes();
  }
  const instant now = now_instant();
  const auto used = c.reader.put(in, [&](const ua::chunk_view& chunk) -> ua::status_code {
    on_chunk(c, chunk, now);
    return c.closing ? ua::status::bad_secure_channel_closed : ua::status::good;  // stops the reader
  });
  count_channel(c);
  send_audits(self, c);
  if (c.closing) return close_connection(self, hdl, c);
  if (!used) {
    // Part 6 §7.1.3: a framing error gets an ERR, then the connection closes.
    spdlog::info("connection {}: {}", c.channel.channel_id(), used.error().to_string());
    ua::write_message(c.channel.output(), ua::error_message{used.error(), {}});
    return close_connection(self, hdl, c);
  }
  const std::size_t left = in.size() - *used;  // a header not yet whole, or what follows an OPN sent to a worker
  if (left <= ua::message_header_size) {
    std::array<std::uint8_t, ua::message_header_size> keep{};
    if (left > 0) std::memcpy(keep.data(), in.data() + *used, left);  // in.data() may be null when empty
    c.carry.clear();
    c.carry.append(keep.data(), left);
  } else {
    ua::byte_buffer rest(left);
    rest.append(in.data() + *used, left);
    c.carry = std::move(rest);
  }

  // A chunk larger than the staging buffer is completed with one receive of the size it still
  // misses; then back to the staging size.
  const std::size_t want = std::max(staging_size, c.reader.missing());
  if (want != c.receive_size) {
    self->configure_read(hdl, caf::io::receive_policy::at_most(want));
    c.receive_size = want;
  }

  send_batch(self, c);
  take_output(self, hdl, c);
  if (c.open_task) submit_open(self, hdl, c);
  if (c.closing) return;
  update_reading(self, hdl, c);  // read again once the host has answered and the peer has read
  self->flush(hdl);
}

// The native wss transport's part of a receive: TLS, the upgrade, the frames; false when the
// connection ended (closed here). `in` becomes the chunk bytes of the received messages.
bool unwrap_wss(caf::io::broker* self, caf::io::connection_handle hdl, connection& c, std::span<const std::uint8_t>& in) {
  c.ws_chunks.clear();
  const bool was_open = c.wss->open();
  const bool go_on = c.wss->on_bytes(in, c.ws_chunks);
  if (!was_open && c.wss->open()) {
    if (c.refuse) {
      // Part 6 §7.1.2.5: Bad_TcpNotEnoughResources in an ERR, framed, then the close.
      ua::write_message(c.channel.output(),
                        ua::error_message{ua::status::bad_tcp_not_enough_resources, ua::ua_string("too many connections")});
      close_connection(self, hdl, c);
      return false;
    }
    if (c.metrics) c.counters = c.metrics->open_connection(c.endpoint);
    // The Hello timeout from the upgrade, not the TCP accept (the handshake has its own bound).
    c.channel.restart_hello_timeout(std::chrono::steady_clock::now());
  }
  send_wss_output(self, hdl, c);
  if (!go_on) {
    self->flush(hdl);
    self->close(hdl);  // unwritten data still goes out
    c.closing = true;
    leave_host(self, c);
    self->quit();
    return false;
  }
  in = c.ws_chunks.bytes();
  return true;
}

void on_data(caf::io::broker* self, caf::io::connection_handle hdl, connection& c, std::span<const std::uint8_t> in) {
  c.read_since_trigger = true;
  if (c.wss) {
    if (c.closing || !unwrap_wss(self, hdl, c, in)) return;
    if (in.empty()) return self->flush(hdl);
  }
  if (c.counters) c.counters->bytes_received.add(in.size());
  if (c.channel_away) {
    // Read before the halt took effect: kept, in order, for when the channel is back.
    c.carry.append(in.data(), in.size());
    return;
  }
  process_input(self, hdl, c, in);
}

// The channel goes to a worker with its OPN. Too much such work waiting: a new channel is refused
// (Part 6 §7.1.5, Bad_TcpServerTooBusy: "the Server cannot process the request because it is too
// busy"); a renewal always waits its turn, refusing it would end an established session.
void submit_open(caf::io::broker* self, caf::io::connection_handle hdl, connection& c) {
  auto t = std::move(c.open_task);
  const bool renewal = c.channel.current_phase() == secure_channel_state::phase::open;
  t->channel = c.channel_owner;
  t->reply_to = caf::actor_cast<caf::actor>(self);
  c.channel_away = true;
  if (c.crypto->submit(t, renewal)) return;
  c.channel_away = false;
  t->channel.reset();
  spdlog::info("connection {}: OpenSecureChannel refused: {} channel handshakes wait for the crypto workers",
               c.channel.channel_id(), c.crypto->max_queued());
  c.channel.refuse_open(ua::status::bad_tcp_server_too_busy, "too many secure channels being opened");
  close_connection(self, hdl, c);
}

// The channel is back from its worker: its answer (or ERR) out, then what was held meanwhile,
// then the bytes that came behind the OPN.
void on_open_done(caf::io::broker* self, caf::io::connection_handle hdl, connection& c, channel_open_task& t) {
  c.channel_away = false;
  t.channel.reset();
  if (c.closing) return;
  count_channel(c);
  send_audits(self, c);
  if (t.result == secure_channel_state::event::close) return close_connection(self, hdl, c);
  if (std::exchange(c.recheck_held, false) && c.channel.recheck_peer(now_instant()) == secure_channel_state::event::close)
    return close_connection(self, hdl, c);
  take_output(self, hdl, c);
  if (auto b = std::move(c.held_batch)) {
    write_answers(c, *b);
    c.spare = std::move(b);
    c.at_host = false;
  }
  for (auto& p : c.held_pushes) {
    for (std::size_t i = 0; i < p->size; ++i) c.channel.send_encoded(p->items[i].request_id, p->items[i].response.bytes());
    p->written.store(true, std::memory_order_release);
  }
  c.held_pushes.clear();
  process_input(self, hdl, c, {});
}

void on_answered(caf::io::broker* self, caf::io::connection_handle hdl, connection& c, batch_ptr& batch) {
  if (c.counters) {  // the host stamped `sent` when it sent the batch back
    c.counters->wait_ns.add(static_cast<std::uint64_t>(
        std::chrono::nanoseconds(std::chrono::steady_clock::now() - batch->sent).count()));
    c.counters->waits.add();
  }
  batch->sent = {};  // an inline host (answer_inline) must not count this stamp as its own wait
  if (c.channel_away) {
    c.held_batch = std::move(batch);
    return;
  }
  write_answers(c, *batch);
  c.spare = std::move(batch);
  c.at_host = false;
  send_batch(self, c);
  take_output(self, hdl, c);
  update_reading(self, hdl, c);
  self->flush(hdl);
}

// Responses the host answered outside a batch (queued Publish requests, docs/decisions/0010).
void on_pushed(caf::io::broker* self, caf::io::connection_handle hdl, connection& c, const push_ptr& p) {
  if (c.channel_away && !c.closing) {
    c.held_pushes.push_back(p);
    return;
  }
  if (!c.closing) {
    for (std::size_t i = 0; i < p->size; ++i) c.channel.send_encoded(p->items[i].request_id, p->items[i].response.bytes());
  }
  p->written.store(true, std::memory_order_release);  // the host may reuse it
  if (c.closing) return;
  take_output(self, hdl, c);
  update_reading(self, hdl, c);
  self->flush(hdl);
}

caf::behavior connection_broker_impl(caf::io::broker* self, caf::io::connection_handle hdl, connection_options options,
                                     std::uint32_t channel_id, connection_links links) {
  auto c = std::make_shared<connection>(options, channel_id, std::move(links));
  self->configure_read(hdl, caf::io::receive_policy::at_most(staging_size));
  self->ack_writes(hdl, true);  // data_transferred_msg: how much output is still unsent
  const auto next_tick = [self, c] {
    if (c->self_ticked) delayed_send_to_self(self, c->housekeeping, housekeeping_atom::value);
  };
  next_tick();
  return {
    [self, hdl, c](const caf::io::new_data_msg& msg) {
      on_data(self, hdl, *c, {reinterpret_cast<const std::uint8_t*>(msg.buf.data()), msg.buf.size()});
    },
    [self, hdl, c](batch_ptr& batch) { on_answered(self, hdl, *c, batch); },
    [self, hdl, c](const push_ptr& p) { on_pushed(self, hdl, *c, p); },
    [self, hdl, c](crypto_task_ptr& t) {
      if (t->what() == crypto_task::kind::channel_open) on_open_done(self, hdl, *c, static_cast<channel_open_task&>(*t));
    },
    [self, hdl, c, next_tick](housekeeping_atom) {
      // As the session host samples its own (total_task_size, not mailbox().size(): CAF 0.17).
      if (c->counters) c->counters->mailbox_depth.set(self->mailbox().queue().total_task_size());
      if (c->channel_away) return next_tick();  // its timers wait until it is back
      if (c->wss && c->wss->handshake_expired(std::chrono::steady_clock::now())) return close_connection(self, hdl, *c);
      // Until an opc.wss upgrade is done its handshake deadline governs; the Hello timeout runs
      // from the upgrade (restart_hello_timeout in unwrap_wss).
      if ((!c->wss || c->wss->open()) && c->channel.on_tick(now_instant()) == secure_channel_state::event::close)
        return close_connection(self, hdl, *c);
      resume_reading(self, hdl, *c);  // revives a read event lost to a halt/trigger race (update_reading)
      next_tick();
    },
    [self, hdl, c](const caf::io::data_transferred_msg& msg) {
      c->unsent = static_cast<std::size_t>(msg.remaining);
      if (c->halted && !c->closing) update_reading(self, hdl, *c);
    },
    [self, hdl, c](resume_reading_atom) { resume_reading(self, hdl, *c); },
    [self, hdl, c](trust_changed_atom) {
      if (c->closing) return;
      if (c->channel_away) {
        c->recheck_held = true;
        return;
      }
      if (c->channel.recheck_peer(now_instant()) == secure_channel_state::event::close) {
        count_channel(*c);
        close_connection(self, hdl, *c);
      }
    },
    [self, c](const caf::io::connection_closed_msg&) {
      if (c->wss) c->wss->peer_gone();
      leave_host(self, *c);
      self->quit();
    },
  };
}

}  // namespace

caf::behavior connection_broker(caf::io::broker* self, caf::io::connection_handle hdl, connection_options options,
                                std::uint32_t channel_id, caf::actor host) {
  return connection_broker_impl(self, hdl, std::move(options), channel_id, connection_links{{std::move(host), nullptr}, -1, false, {}});
}

caf::behavior serving_connection_broker(caf::io::broker* self, caf::io::connection_handle hdl,
                                        connection_options options, std::uint32_t channel_id, connection_links links) {
  return connection_broker_impl(self, hdl, std::move(options), channel_id, std::move(links));
}

}  // namespace uactor::actors
