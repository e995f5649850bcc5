#include "actors/client/call_table.hpp"

#include <algorithm>
#include <utility>

namespace uactor::actors {

void call_table::add(std::uint32_t request_id, client_call_ptr call, time_point deadline) {
  in_flight_.insert(request_id, waiting{std::move(call), deadline});
}

client_call_ptr call_table::take(std::uint32_t request_id) {
  waiting w;
  if (!in_flight_.take(request_id, w)) return nullptr;
  return std::move(w.call);
}

ua::extension_object* call_table::storage_for(std::uint32_t request_id) noexcept {
  auto* w = in_flight_.find(request_id);
  return w ? &w->call->response() : nullptr;
}

call_table::time_point call_table::earliest_deadline() {
  auto at = time_point::max();
  in_flight_.for_each([&](std::uint32_t, waiting& w) { at = std::min(at, w.deadline); });
  return at;
}

void call_table::fail_in_flight(ua::status_code status) {
  dropped_.clear();
  in_flight_.take_all(dropped_);
  for (auto& w : dropped_) w.call->finish(status);
  dropped_.clear();
}

std::deque<call_table::held_call> call_table::release_held() {
  auto held = std::move(held_);
  held_.clear();
  return held;
}

void call_table::expire(time_point now) {
  expired_.clear();
  // Collected first, removed after: the table is not changed while it is walked.
  expired_ids_.clear();
  in_flight_.for_each([&](std::uint32_t id, waiting& w) {
    if (w.deadline <= now) expired_ids_.push_back(id);
  });
  for (const auto id : expired_ids_) {
    waiting gone;
    if (in_flight_.take(id, gone)) expired_.push_back(std::move(gone.call));
  }
  while (!held_.empty() && held_.front().deadline <= now) {  // FIFO with one timeout: in order
    expired_.push_back(std::move(held_.front().call));
    held_.pop_front();
  }
  for (auto& call : expired_) call->finish(ua::status::bad_timeout);
  expired_.clear();
}

void call_table::fail_all(ua::status_code status) {
  std::vector<waiting> in_flight;
  in_flight_.take_all(in_flight);
  for (auto& w : in_flight) w.call->finish(status);
  auto held = release_held();
  for (auto& h : held) h.call->finish(status);
}

void call_table::drop_all() {
  std::vector<waiting> calls;
  in_flight_.take_all(calls);
  calls.clear();
  auto held = release_held();
  held.clear();
}

}  // namespace uactor::actors
