#include "engine/client/publish_pump.hpp"

#include <algorithm>

namespace uactor::actors {

publish_answer read_publish_answer(const client_response& r) noexcept {
  publish_answer a;
  if (r.status.is_bad() || !r.message) {
    a.failed = r.status.is_bad() ? r.status : ua::status::bad_unknown_response;
  } else if ((a.response = r.message->get_if<ua::publish_response>())) {
    a.failed = a.response->response_header.service_result;
    if (a.failed.is_bad()) a.response = nullptr;
  } else {
    const auto* f = r.message->get_if<ua::service_fault>();
    a.failed = f && f->response_header.service_result.is_bad() ? f->response_header.service_result
                                                               : ua::status::bad_unknown_response;
  }
  return a;
}

bool publish_pump::take(std::uint32_t request_id) noexcept {
  const auto it = std::find_if(outstanding_.begin(), outstanding_.end(),
                               [&](const slot& s) { return s.request_id == request_id; });
  if (it == outstanding_.end()) return false;
  outstanding_.erase(it);
  return true;
}

void publish_pump::expire(subscription_engine& engine, time_point now) {
  for (auto it = outstanding_.begin(); it != outstanding_.end();) {
    if (it->deadline <= now) {
      it = outstanding_.erase(it);
      engine.on_publish_failed(ua::status::bad_timeout, now);
    } else {
      ++it;
    }
  }
}

}  // namespace uactor::actors
