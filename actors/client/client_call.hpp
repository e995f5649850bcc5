// One request of the client and the answer it waits for (client_call), shared by the application,
// the inbox and the connection actor. Apart from the actor because the application's side (the
// public client, prepared requests) makes and reuses calls without knowing the actor.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include <caf/intrusive_ptr.hpp>

#include "engine/client/subscription.hpp"
#include "uactor/ua/expected.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::actors {

// The answer to one request: the response as decoded (a ServiceFault too), or the status that
// replaced it: Bad_Timeout, Bad_ConnectionClosed, Bad_RequestTooLarge, an abort chunk's error.
using response_handler = std::function<void(ua::expected<ua::extension_object>)>;

class client_call;
// Calls are shared by intrusive count (one allocation, no control block): the application's
// handle, the inbox and the actor's table of pending calls each hold one while they need it.
using client_call_ptr = caf::intrusive_ptr<client_call>;

// One service request, made by the application or by the client itself. It is answered exactly
// once per send, on the actor's thread (CAF's multiplexer thread): with the response, decoded into
// the call's own response() storage, or with the status that took its place (Bad_ConnectionClosed
// when the call is dropped unanswered: the actor is gone, the connection broke).
//
// A call is reusable (docs/decisions/0023): its request, its response storage and the call object
// itself are kept from one send to the next, so that a request sent again allocates nothing. When
// the last reference goes, recycle() decides what happens to it: deleted (the default), or back to
// the pool it came from.
class client_call {
public:
  // A call answered through `done`, for the client's own requests (CreateSession, Republish, ...).
  template <class Request>
  static client_call_ptr make(Request request, response_handler done, std::chrono::milliseconds timeout);

  client_call(const client_call&) = delete;
  client_call& operator=(const client_call&) = delete;

  ua::request_header& header() noexcept { return *header_; }
  const ua::extension_object& request() const noexcept { return request_; }
  ua::extension_object& request() noexcept { return request_; }
  // Where the channel decodes the answer (reused: the same body type decodes in place).
  ua::extension_object& response() noexcept { return response_; }
  const ua::extension_object& response() const noexcept { return response_; }
  std::chrono::milliseconds timeout() const noexcept { return timeout_; }
  void set_timeout(std::chrono::milliseconds t) noexcept { timeout_ = t; }

  // Starts a send: the call is answered once more. False when it is still waiting for an answer.
  bool arm() noexcept { return !armed_.exchange(true, std::memory_order_acq_rel); }
  // The answer is in response(): runs on_finished(Good). Only the first finish of a send counts.
  void finish_answered();
  // No answer: runs on_finished(status) with a bad status.
  void finish(ua::status_code failure);
  bool finished() const noexcept { return !armed_.load(std::memory_order_acquire); }

  // Subscription bookkeeping, run by the actor on its thread: `before_send` just before the request
  // goes out (per-item handlers for CreateMonitoredItems), `on_answer` with the server's answer
  // before the callback (CreateSubscription registers the subscription and starts Publish, ...).
  // Neither runs when the call ends without an answer (timeout, closed connection).
  using engine_hook = std::function<void(subscription_engine&)>;
  using answer_hook = std::function<void(subscription_engine&, const ua::extension_object& answer)>;
  engine_hook before_send;
  answer_hook on_answer;
  // Another session of this connection (client::open_session): its AuthenticationToken goes into
  // the RequestHeader instead of the connection's own. Shared, so a call copies no token.
  std::shared_ptr<const ua::node_id> session_token;
  // Made by the application (not by the client itself): what the supervised client's book of
  // subscriptions learns from (docs/decisions/0017).
  bool from_application = false;

  friend void intrusive_ptr_add_ref(client_call* c) noexcept { c->refs_.fetch_add(1, std::memory_order_relaxed); }
  friend void intrusive_ptr_release(client_call* c) noexcept {
    if (c->refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) c->last_reference_gone();
  }

protected:
  explicit client_call(std::chrono::milliseconds timeout) : timeout_(timeout) {}
  virtual ~client_call() = default;

  // Sets the request's body to a T (reusing one that is a T already) and returns it.
  template <class Request>
  Request& request_as() {
    auto& r = request_.emplace<Request>();
    header_ = &r.request_header;
    return r;
  }
  // The answer of one send: Good with the response in response(), or the status that replaced it.
  virtual void on_finished(ua::status_code status) = 0;
  // The last reference is gone (the call is not armed any more): delete, or keep for reuse.
  virtual void recycle() noexcept { delete this; }
  // For a pool handing the call out again: one reference, the caller's.
  void revive() noexcept { refs_.store(1, std::memory_order_relaxed); }

private:
  void last_reference_gone() noexcept;

  std::atomic<std::uint32_t> refs_{0};
  std::atomic<bool> armed_{false};
  ua::extension_object request_;
  ua::request_header* header_ = nullptr;
  ua::extension_object response_;
  std::chrono::milliseconds timeout_;
};

// A call answered through a std::function taking the response by value (the client's own requests).
class function_call final : public client_call {
public:
  template <class Request>
  function_call(Request request, response_handler done, std::chrono::milliseconds timeout)
      : client_call(timeout), done_(std::move(done)) {
    request_as<Request>() = std::move(request);
  }

private:
  void on_finished(ua::status_code status) override;
  response_handler done_;
};

template <class Request>
client_call_ptr client_call::make(Request request, response_handler done, std::chrono::milliseconds timeout) {
  client_call_ptr c(new function_call(std::move(request), std::move(done), timeout));
  c->arm();
  return c;
}

}  // namespace uactor::actors
