// The RequestHeader fields the client fills on every request it sends (Part 4 §7.32): the
// session's AuthenticationToken, the time, a RequestHandle and the TimeoutHint. Apart from the
// calls and the publish pump because both stamp requests and must share one handle counter and
// one session token. Plain state of the connection actor: one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <utility>

#include "protocol/generated/type_codecs.hpp"

namespace uactor::actors {

class request_headers {
public:
  // The session's AuthenticationToken (empty before CreateSession answers, and after the session
  // is given up).
  const ua::node_id& session_token() const noexcept { return token_; }
  void set_session_token(ua::node_id token) { token_ = std::move(token); }

  // Fills `h` for a request of the session `token`, sent at `now`, that may be dropped by the
  // server after `timeout_hint` (Part 4 §7.32). Handles count up from 1 and skip 0 on the wrap.
  void stamp(ua::request_header& h, const ua::node_id& token, ua::date_time now,
             std::chrono::milliseconds timeout_hint) {
    h.authentication_token = token;
    h.timestamp = now;
    h.request_handle = next_handle_++;
    if (next_handle_ == 0) next_handle_ = 1;
    h.timeout_hint = static_cast<std::uint32_t>(timeout_hint.count());
  }
  // The same for a request of this connection's own session.
  void stamp(ua::request_header& h, ua::date_time now, std::chrono::milliseconds timeout_hint) {
    stamp(h, token_, now, timeout_hint);
  }

private:
  ua::node_id token_;
  std::uint32_t next_handle_ = 1;
};

}  // namespace uactor::actors
