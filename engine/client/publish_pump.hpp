// The client's Publish requests (Part 4 §5.14.5): as many at the server as the subscription engine
// wants, which RequestIds are Publishes and when each is overdue, and what an answer says. Apart
// from the calls because a Publish is not a client_call: no callback, no table entry, one reused
// request, the answer read in place (docs/decisions/0011, 0023). Plain state: the caller sends.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "engine/client/channel_state.hpp"
#include "engine/client/request_headers.hpp"
#include "engine/client/subscription.hpp"
#include "engine/common/clock.hpp"
#include "uactor/ua/expected.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::actors {

// What the answer to a Publish says: the PublishResponse, or the status that failed it (the
// abort chunk's, a ServiceFault's, or Bad_UnknownResponse for another response type).
struct publish_answer {
  ua::status_code failed = ua::status::good;
  const ua::publish_response* response = nullptr;  // set unless failed is bad
};
publish_answer read_publish_answer(const client_response& r) noexcept;

class publish_pump {
public:
  using time_point = std::chrono::steady_clock::time_point;

  // `grace`: how long past its TimeoutHint a Publish may stay unanswered before another goes.
  explicit publish_pump(std::chrono::milliseconds grace = std::chrono::milliseconds(50)) : grace_(grace) {}

  void reserve(std::size_t outstanding) { outstanding_.reserve(outstanding); }

  // Sends Publish requests while the engine wants more: `send(const ua::publish_request&)`
  // returns the RequestId or why it could not go out (then the engine is told and the pump stops).
  // The TimeoutHint is the engine's, at least `request_timeout`.
  template <class Send>
  void pump(subscription_engine& engine, request_headers& headers, const instant& now,
            std::chrono::milliseconds request_timeout, Send&& send) {
    while (engine.publish_wanted() > 0) {
      // Part 4 §5.14.5: the server holds a Publish up to a keep-alive period; the hint is longer.
      const auto timeout = engine.publish_timeout(request_timeout);
      headers.stamp(request_.request_header, now.utc, timeout);
      engine.fill_publish(request_);
      const ua::expected<std::uint32_t> id = send(static_cast<const ua::publish_request&>(request_));
      if (!id) {
        engine.on_publish_failed(id.error(), now.steady);
        return;
      }
      outstanding_.push_back({*id, now.steady + timeout + grace_});
    }
  }

  // True when `request_id` is one of the outstanding Publish requests, which it no longer is.
  bool take(std::uint32_t request_id) noexcept;
  // Publish requests past their deadline are forgotten, each reported to the engine as Bad_Timeout
  // (not an error: the engine wants another).
  void expire(subscription_engine& engine, time_point now);
  // The link went: none is outstanding any more.
  void clear() noexcept { outstanding_.clear(); }
  bool empty() const noexcept { return outstanding_.empty(); }
  std::size_t outstanding() const noexcept { return outstanding_.size(); }

private:
  struct slot {
    std::uint32_t request_id;
    time_point deadline;
  };
  std::chrono::milliseconds grace_;
  ua::publish_request request_;  // reused: its acknowledgements' storage is kept
  std::vector<slot> outstanding_;
};

}  // namespace uactor::actors
