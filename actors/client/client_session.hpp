// The client connection broker's state and the session that works on it (actors/client/connection_actor.cpp
// spawns the broker). One class, its methods by concept in the client_session_*.cpp files: the
// session's life (client_session.cpp), more sessions over one channel (_more), input and output
// (_io), the publish pump (_publish), the token renewal (_renewal), supervision and recovery
// (_recovery). Internal to actors/client.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include <caf/io/all.hpp>

#include "actors/client/call_table.hpp"
#include "actors/client/client_call.hpp"
#include "actors/client/client_inbox.hpp"
#include "actors/client/client_link.hpp"
#include "actors/client/connection_actor.hpp"
#include "actors/client/tcp_connector.hpp"
#include "engine/client/channel_state.hpp"
#include "engine/client/keep_alive.hpp"
#include "engine/client/publish_pump.hpp"
#include "engine/client/recovery.hpp"
#include "engine/client/recovery_plan.hpp"
#include "engine/client/request_headers.hpp"
#include "engine/client/request_sweep.hpp"
#include "engine/client/token_renewal.hpp"
#include "engine/common/clock.hpp"

namespace uactor::actors {

using client_timeout_atom = caf::atom_constant<caf::atom("uatimeout")>;
using client_renew_atom = caf::atom_constant<caf::atom("uarenew")>;
using client_deadline_atom = caf::atom_constant<caf::atom("uadeadline")>;
using client_reconnect_atom = caf::atom_constant<caf::atom("uarecon")>;

struct client_broker_state : response_storage {
  client_actor_config config;
  client_link link;  // the current connection and its channel: a new one after each reconnect
  // The requests waiting for their responses, and those held while recovering. One sweep timer
  // for all of them (not a timer message per request: that was an allocation and a mailbox message
  // per request, and ~timeout's worth of timer entries alive at any time under load), armed for the
  // earliest deadline it knows of, or every watch_interval() while subscriptions or supervision
  // want watching (docs/decisions/0023: a periodic timer was 3 allocations every 50 ms).
  call_table calls;
  request_sweep sweep;
  // The application's calls (docs/decisions/0023): the inbox, its wake-up socket, a batch buffer.
  std::shared_ptr<client_inbox> inbox;
  caf::io::connection_handle wake_hdl;
  std::vector<client_call_ptr> batch;

  // response_storage: the answer of a pending call decodes into the call's own storage.
  ua::extension_object* storage_for(std::uint32_t request_id) noexcept override {
    return calls.storage_for(request_id);
  }
  // Subscriptions (docs/decisions/0011): plain state of this actor, not an actor each. Publish
  // requests stay out of `calls` (publish_pump).
  subscription_engine subscriptions;
  publish_pump publishing{sweep_interval};
  request_headers headers;  // the session's AuthenticationToken and the RequestHandles
  ua::byte_string client_nonce;  // of CreateSession: the ServerSignature covers it
  // The sessions opened after the first over this channel (client::open_session), closed with it.
  std::vector<std::shared_ptr<const ua::node_id>> more_sessions;
  std::size_t closes_left = 0;  // CloseSession answers still awaited while closing
  bool ready = false;     // the application's requests may go out
  bool finished = false;  // shut down: nothing goes out any more
  ua::status_code end_status = ua::status::bad_connection_closed;  // what calls get once finished
  connected_handler connected;
  std::vector<std::shared_ptr<client_close>> closers;
  std::vector<std::shared_ptr<client_open_session>> openers;  // CreateSession/ActivateSession under way

  // ---- supervision (docs/decisions/0017): idle unless config.reconnect.enabled
  bool supervised = false;
  bool ever_ready = false;
  bool recovering = false;      // the link is down, or the session is being recovered on a new one
  std::uint32_t generation = 0;  // bumped at each loss: answers that belong to an older link are ignored
  std::uint32_t attempt = 0;     // connection attempts in this outage
  ua::status_code lost_status;
  keep_alive_check keep_alive;
  token_renewal renewal;
  // The last CreateSession answer, its ServerNonce updated by each ActivateSession: what the
  // signatures of a reactivation are made over (Part 4 §5.6.3).
  std::optional<ua::create_session_response> session;
  subscription_book book;  // what to create again when the server lost it
  recovery_plan recovery;      // the steps after the session is back: Republish, then recreate
  std::minstd_rand rng;

  static inline const char* name = "uactor_client";

  client_broker_state() = default;
  client_broker_state(const client_broker_state&) = delete;
  client_broker_state& operator=(const client_broker_state&) = delete;
  // An actor that ends without shutdown() (an exit message, the system going down) still answers
  // its calls (Bad_ConnectionClosed, from each call's destructor); `finished` first, so that the
  // internal calls' handlers see a state that is going and touch nothing.
  ~client_broker_state();
};

using client_broker = caf::io::stateful_broker<client_broker_state>;

// What the server says of a session it no longer has (Part 4 §7.34 / Table 177): on a Publish of
// a supervised client, a reason to recover the session rather than to close the subscriptions.
inline bool session_gone(ua::status_code s) noexcept {
  return s == ua::status::bad_session_id_invalid || s == ua::status::bad_session_closed ||
         s == ua::status::bad_session_not_activated || s == ua::status::bad_secure_channel_id_invalid ||
         s == ua::status::bad_secure_channel_closed;
}

// A view of the broker: holds nothing but the broker, so that a callback makes one where it needs it.
class client_session {
public:
  explicit client_session(client_broker* self) : self_(self) {}

  client_broker_state& st() { return self_->state; }

  // Runs an event that may answer calls: their callbacks may make the next calls on this thread,
  // which wait in the inbox without a wake-up and go out right after the event.
  template <class F>
  void handle(F&& f) {
    {
      const client_inbox::handling scope(st().inbox.get());
      f(*this);
    }
    take_inbox();
  }

  // The session's life (client_session.cpp).
  void start(caf::io::connection_handle hdl);
  void open_link(caf::io::connection_handle hdl);
  void create_session(const instant& now);
  void on_session_created(ua::expected<ua::extension_object> answer);
  void on_session_activated(ua::expected<ua::extension_object> answer);
  void became_ready();
  void on_deadline(std::uint32_t gen);
  void on_close(const std::shared_ptr<client_close>& closer);
  void send_close_session(std::shared_ptr<const ua::node_id> token, const instant& now);
  void shutdown(ua::status_code why, std::string_view what);

  // More sessions over this channel (client_session_more.cpp).
  void on_open_session(const std::shared_ptr<client_open_session>& opener);
  void opener_done(const std::shared_ptr<client_open_session>& opener, ua::expected<ua::node_id> r);
  void on_more_created(const std::shared_ptr<client_open_session>& opener, const ua::byte_string& nonce,
                       ua::expected<ua::extension_object> answer);

  // Input, output, the calls and their sweep (client_session_io.cpp).
  void take_inbox();
  void flush();
  void on_data(const caf::io::new_data_msg& msg);
  void on_chunk(const ua::chunk_view& v, const instant& now);
  void on_response();
  void send(const client_call_ptr& call, const instant& now);
  std::chrono::milliseconds watch_every();
  void schedule_sweep(std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());
  void on_sweep_timer(std::int64_t at);
  void on_call(const client_call_ptr& call);
  void send_application_call(const client_call_ptr& call, const instant& now);
  void hold(const client_call_ptr& call);
  void on_sweep();

  // The publish pump (client_session_publish.cpp).
  bool on_publish_answer(client_response& r);
  void pump_publish(const instant& now);
  void send_republish(std::uint32_t sub, std::uint32_t seq, const instant& now);

  // The security token's renewal (client_session_renewal.cpp).
  void schedule_renewal(const instant& now);
  void on_renew(std::uint32_t gen);

  // Supervision and recovery (client_session_recovery.cpp).
  void emit(connection_event_kind what, ua::status_code status);
  void lose(ua::status_code why, std::string_view what);
  void fail(ua::status_code why, std::string_view what);
  void schedule_attempt(ua::status_code last);
  void on_reconnect_timer(std::uint32_t gen);
  void on_socket(std::uint32_t gen, const std::shared_ptr<socket_handoff>& h);
  void reactivate(const instant& now);
  void on_reactivated(ua::expected<ua::extension_object> answer);
  void recover_subscriptions();
  void on_transferred(ua::expected<ua::extension_object> answer);
  void next_recovery_step();
  void send_recovery_republish(std::uint32_t sub, std::uint32_t seq);
  void recreate(std::uint32_t old_id);
  void close_subscription(std::uint32_t id, ua::status_code why);
  void on_recreated(std::uint32_t old_id, ua::expected<ua::extension_object> answer);
  void finish_recovery();
  bool watch(std::chrono::steady_clock::time_point now);
  void send_keep_alive();

  // A request of the client's own (CreateSession, ActivateSession): its answer goes to `next`,
  // unless the link it went out on was given up meanwhile.
  template <class Request>
  void send_internal(Request req, void (client_session::*next)(ua::expected<ua::extension_object>), const instant& now) {
    auto self = self_;
    const auto gen = st().generation;
    auto call = client_call::make(
        std::move(req),
        [self, next, gen](ua::expected<ua::extension_object> answer) {
          client_session cs(self);
          if (!cs.st().finished && gen == cs.st().generation) (cs.*next)(std::move(answer));
        },
        st().config.connect_timeout);
    send(call, now);
  }

  static ua::status_code result_of(const ua::expected<ua::extension_object>& answer) {
    if (!answer) return answer.error();
    if (const auto* f = answer->get_if<ua::service_fault>())
      return f->response_header.service_result.is_bad() ? f->response_header.service_result
                                                        : ua::status::bad_unknown_response;
    return ua::status::good;
  }

private:
  client_broker* self_;
};

}  // namespace uactor::actors
