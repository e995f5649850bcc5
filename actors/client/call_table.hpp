// The client's calls between send and answer: in flight by RequestId, each with its deadline, and
// held while a supervised client's link is down. Owns how a call ends without an answer (timed
// out, the link lost, the client ended). Apart from client_session so that a call's way from sent
// to answered is in one place and the session only says when; one thread (the actor's).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <vector>

#include "actors/client/client_call.hpp"
#include "engine/client/pending_calls.hpp"

namespace uactor::actors {

class call_table {
public:
  using time_point = std::chrono::steady_clock::time_point;
  struct held_call {
    client_call_ptr call;
    time_point deadline;
  };

  // ---- in flight
  void add(std::uint32_t request_id, client_call_ptr call, time_point deadline);
  // The call waiting for `request_id`, no longer waiting; null when there is none (timed out).
  client_call_ptr take(std::uint32_t request_id);
  // Where the answer to `request_id` decodes: the waiting call's own storage (docs/decisions/0023).
  ua::extension_object* storage_for(std::uint32_t request_id) noexcept;
  time_point earliest_deadline();
  // The link went: every call in flight is answered `status` (the server may or may not have
  // carried it out).
  void fail_in_flight(ua::status_code status);

  // ---- held (made while recovering, sent once the session works again)
  void hold(client_call_ptr call, time_point deadline) { held_.push_back({std::move(call), deadline}); }
  std::size_t held() const noexcept { return held_.size(); }
  // The held calls, in the order they were made; none is held afterwards.
  std::deque<held_call> release_held();

  // Calls in flight and held past their deadline are answered Bad_Timeout (held ones in order).
  // An answer may send more calls: the table is consistent while they run.
  void expire(time_point now);
  // The client ends: every call in flight, then every held one, is answered `status`.
  void fail_all(ua::status_code status);
  // The actor is going without an end: the calls are let go (each answers from its own last
  // reference, docs/decisions/0023).
  void drop_all();

private:
  struct waiting {
    client_call_ptr call;
    time_point deadline;
  };
  pending_table<waiting> in_flight_;
  std::deque<held_call> held_;
  // Kept between uses (no allocation per sweep or per loss).
  std::vector<client_call_ptr> expired_;
  std::vector<std::uint32_t> expired_ids_;
  std::vector<waiting> dropped_;
};

}  // namespace uactor::actors
