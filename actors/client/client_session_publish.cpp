// The publish pump: the Publish requests kept at the server, their answers, and Republish of what
// was missed (Part 4 §5.14.5, §5.14.6).

#include "actors/client/client_session.hpp"

namespace uactor::actors {

// The answer to one of our Publish requests: read in place (the decoded PublishResponse stays in
// the channel's message for the next decode: no allocation in steady state), then the next Publish.
bool client_session::on_publish_answer(client_response& r) {
  auto& s = st();
  if (!s.publishing.take(r.request_id)) return false;
  // Closing: the server ends the held Publish requests (Bad_SessionClosed, Bad_NoSubscription);
  // the subscriptions are closed by shutdown() with the close's own status.
  if (!s.closers.empty()) return true;
  const auto now = std::chrono::steady_clock::now();
  const auto answer = read_publish_answer(r);
  if (answer.failed.is_bad()) {
    // Supervised: a session the server no longer has is recovered, not its subscriptions closed.
    if (s.supervised && session_gone(answer.failed)) {
      lose(answer.failed, "Publish");
      return true;
    }
    s.subscriptions.on_publish_failed(answer.failed, now);
  } else {
    s.subscriptions.on_publish_response(*answer.response, now);
  }
  if (!s.finished) pump_publish(now_instant());
  return true;
}

// Keeps the engine's number of Publish requests at the server, and asks for what was missed.
void client_session::pump_publish(const instant& now) {
  auto& s = st();
  if (!s.ready || s.finished || !s.closers.empty() || !s.config.create_session) return;
  auto& e = s.subscriptions;
  s.publishing.pump(e, s.headers, now, s.config.request_timeout,
                    [&](const ua::publish_request& p) { return s.link.channel().send_request(p); });
  std::uint32_t sub = 0;
  std::uint32_t seq = 0;
  while (!s.finished && s.ready && e.next_republish(sub, seq)) send_republish(sub, seq, now);
  schedule_sweep();
}

// Part 4 §5.14.6: one missed NotificationMessage asked for again.
void client_session::send_republish(std::uint32_t sub, std::uint32_t seq, const instant& now) {
  ua::republish_request req;
  req.subscription_id = sub;
  req.retransmit_sequence_number = seq;
  auto self = self_;
  const auto gen = st().generation;
  auto call = client_call::make(
      std::move(req),
      [self, sub, seq, gen](ua::expected<ua::extension_object> answer) {
        client_session cs(self);
        auto& e = cs.st().subscriptions;
        if (cs.st().finished) return;
        // The link failed under it: the recovery asks again from the next expected number.
        if (gen != cs.st().generation) return;
        if (const auto sc = result_of(answer); sc.is_bad()) return e.on_republish_failed(sub, seq, sc);
        const auto* r = answer->get_if<ua::republish_response>();
        if (!r) return e.on_republish_failed(sub, seq, ua::status::bad_unknown_response);
        if (r->response_header.service_result.is_bad())
          return e.on_republish_failed(sub, seq, r->response_header.service_result);
        e.on_republished(sub, r->notification_message, std::chrono::steady_clock::now());
      },
      st().config.request_timeout);
  send(call, now);
}

}  // namespace uactor::actors
