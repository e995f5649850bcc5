// The connection's input and output: chunks in, responses to their calls, the application's calls
// out (held while recovering), and the one sweep timer over every deadline.

#include <spdlog/spdlog.h>

#include "actors/client/client_session.hpp"
#include "actors/common/self_send.hpp"

namespace uactor::actors {

// Takes what the inbox holds now (one batch: calls made by the callbacks of this batch wake the
// actor again rather than extend it) and sends it.
void client_session::take_inbox() {
  auto& s = st();
  s.inbox->take(s.batch);
  if (s.batch.empty()) return;
  for (auto& call : s.batch) on_call(call);
  s.batch.clear();
  flush();
}

// What the channel has to send goes out, unless the client is finished.
void client_session::flush() {
  if (st().finished) return st().link.discard_output();
  st().link.flush();
}

void client_session::on_data(const caf::io::new_data_msg& msg) {
  auto& s = st();
  if (msg.handle == s.wake_hdl) return;  // handle() takes the inbox after this
  if (s.finished || !s.link.carries(msg.handle)) return;  // a late receive of a link given up
  const auto& data = msg.buf;
  const std::span<const std::uint8_t> in(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
  const auto now = now_instant();
  s.keep_alive.heard(now.steady);
  // A chunk may end the link (lose, shutdown): the link then hands on no more of them.
  const auto r = s.link.receive(in, [&](const ua::chunk_view& v) { on_chunk(v, now); });
  if (!r) return lose(r.error(), "framing");
  if (*r == client_link::received::given_up) return;
  flush();
}

void client_session::on_chunk(const ua::chunk_view& v, const instant& now) {
  auto& s = st();
  if (s.finished) return;
  auto& channel = s.link.channel();
  switch (channel.on_chunk(v, now)) {
    case client_channel_state::event::none:
      return;
    case client_channel_state::event::acknowledged:
      s.link.set_receive_buffer_size(channel.limits().receive_buffer_size);
      if (const auto sc = channel.write_open(now); sc.is_bad()) fail(sc, "OpenSecureChannel");
      return;
    case client_channel_state::event::opened:
      schedule_renewal(now);
      if (!s.config.create_session) became_ready();
      else if (s.recovering && s.session) reactivate(now);
      else create_session(now);
      return;
    case client_channel_state::event::renewed:
      s.renewal.done();
      schedule_renewal(now);
      return;
    case client_channel_state::event::response:
      on_response();
      return;
    case client_channel_state::event::closed:
      spdlog::info("uactor client: {} closed the channel: {} {}", s.config.endpoint_url,
                   channel.close_status().to_string(), channel.close_reason());
      lose(channel.close_status(), "channel closed");
      return;
  }
}

void client_session::on_response() {
  auto& s = st();
  auto& r = s.link.channel().response();
  if (on_publish_answer(r)) return;
  auto call = s.calls.take(r.request_id);
  if (!call) return;  // timed out already: the late answer is dropped
  // Matched by RequestId (Part 6 §6.7.2.4); the handle should agree (Part 4 §7.34).
  if (r.status.is_good() && r.request_handle != call->header().request_handle)
    spdlog::warn("uactor client: {}: response to request {} carries handle {}, not {}", s.config.endpoint_url,
                 r.request_id, r.request_handle, call->header().request_handle);
  if (r.status.is_bad() || !r.message) return call->finish(r.status.is_bad() ? r.status : ua::status::bad_unknown_response);
  // Decoded into the call's own storage (storage_for); a response that came while the call was
  // not pending any more went into the channel's message: moved over.
  if (r.message != &call->response()) call->response() = std::move(*r.message);
  if (s.supervised && call->from_application) s.book.record(call->request(), call->response());
  if (call->on_answer) {
    call->on_answer(s.subscriptions, call->response());
    pump_publish(now_instant());  // a new subscription wants its Publish requests
  }
  call->finish_answered();
}

// Fills the RequestHeader and sends; the call is answered now when it cannot go out.
void client_session::send(const client_call_ptr& call, const instant& now) {
  auto& s = st();
  // Part 4 §7.32: the server may drop a request older than its TimeoutHint.
  s.headers.stamp(call->header(), call->session_token ? *call->session_token : s.headers.session_token(), now.utc,
                  call->timeout());
  auto id = s.link.channel().send_request(*call->request().body());
  if (!id) {
    call->finish(id.error());
    return;
  }
  const auto deadline = now.steady + call->timeout();
  s.calls.add(*id, call, deadline);
  schedule_sweep(deadline);
}

// How often the sweep looks while something wants watching (request_sweep.hpp).
std::chrono::milliseconds client_session::watch_every() {
  auto& s = st();
  watched_periods w;
  w.urgent = s.calls.held() > 0 || s.subscriptions.paused();
  w.shortest_silence = s.subscriptions.shortest_silence();
  w.supervised = s.supervised;
  w.keep_alive_interval = s.config.reconnect.keep_alive_interval;
  w.request_timeout = s.config.request_timeout;
  return watch_interval(w);
}

// Arms the sweep for `deadline` (a request's), or for watch_interval() from now when something
// wants watching: supervision (the keep-alive, the held requests' timeouts, the renewal watch),
// subscriptions (silence) and Publish requests. A timer armed earlier already covers it.
void client_session::schedule_sweep(std::chrono::steady_clock::time_point deadline) {
  auto& s = st();
  if (s.finished) return;
  const bool watching = s.supervised || !s.publishing.empty() || !s.subscriptions.empty() || s.calls.held() > 0;
  const auto timer = s.sweep.arm(deadline, std::chrono::steady_clock::now(),
                                 watching ? std::optional(watch_every()) : std::nullopt);
  // Tagged with its time: a timer replaced by an earlier one is ignored when it fires.
  if (timer) delayed_send_to_self(self_, timer->wait, client_timeout_atom::value, timer->tag);
}

void client_session::on_sweep_timer(std::int64_t at) {
  if (st().sweep.fired(at)) on_sweep();
}

void client_session::on_call(const client_call_ptr& call) {
  auto& s = st();
  if (s.finished) return call->finish(s.end_status);
  if (!s.closers.empty()) return call->finish(ua::status::bad_connection_closed);
  if (s.recovering) return hold(call);
  if (!s.ready) return call->finish(ua::status::bad_invalid_state);
  send_application_call(call, now_instant());  // take_inbox flushes once for the whole batch
}

void client_session::send_application_call(const client_call_ptr& call, const instant& now) {
  auto& s = st();
  if (s.supervised)
    if (const auto* d = call->request().get_if<ua::delete_subscriptions_request>()) s.book.forget(d->subscription_ids);
  if (call->before_send) call->before_send(s.subscriptions);
  send(call, now);
}

// A request made while the connection is down: held with its timeout running, or failed now.
void client_session::hold(const client_call_ptr& call) {
  auto& s = st();
  const auto& o = s.config.reconnect;
  if (!o.hold_requests) return call->finish(ua::status::bad_server_not_connected);
  if (s.calls.held() >= o.max_held_requests) return call->finish(ua::status::bad_resource_unavailable);
  s.calls.hold(call, std::chrono::steady_clock::now() + call->timeout());
  schedule_sweep();
}

void client_session::on_sweep() {
  auto& s = st();
  const auto now = std::chrono::steady_clock::now();
  s.calls.expire(now);  // answers may send more: the table is consistent
  if (s.finished) return;
  // A Publish the server has not answered in its TimeoutHint and more: not an error, another goes.
  s.publishing.expire(s.subscriptions, now);
  s.subscriptions.check(now);
  if (s.finished) return;
  if (s.supervised && s.ready && !watch(now)) return;
  pump_publish(now_instant());
  flush();
  schedule_sweep(s.calls.earliest_deadline());
}

}  // namespace uactor::actors
