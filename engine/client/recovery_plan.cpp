#include "engine/client/recovery_plan.hpp"

#include <utility>

namespace uactor::actors {

void recovery_plan::clear() noexcept {
  jobs_.clear();
  to_recreate_.clear();
}

void recovery_plan::republish_from(std::uint32_t subscription_id, std::uint32_t next_expected) {
  if (next_expected == 0) return;
  republish_job j;
  j.subscription_id = subscription_id;
  j.loop = true;
  j.next = next_expected;
  jobs_.push_back(std::move(j));
}

void recovery_plan::republish_list(std::uint32_t subscription_id, std::vector<std::uint32_t> numbers) {
  if (numbers.empty()) return;
  republish_job j;
  j.subscription_id = subscription_id;
  j.list = std::move(numbers);
  jobs_.push_back(std::move(j));
}

void recovery_plan::recreate(std::uint32_t subscription_id) {
  to_recreate_.push_back(subscription_id);
  how_ = recovery_kind::recreated;
}

recovery_plan::step recovery_plan::next() {
  while (!jobs_.empty()) {
    const auto& j = jobs_.front();
    if (!j.loop && j.at >= j.list.size()) {
      jobs_.pop_front();
      continue;
    }
    return {step::kind::republish, j.subscription_id, j.loop ? j.next : j.list[j.at]};
  }
  if (!to_recreate_.empty()) return {step::kind::recreate, to_recreate_.front(), 0};
  return {};
}

void recovery_plan::republished(std::uint32_t next_expected) {
  if (jobs_.empty()) return;
  auto& j = jobs_.front();
  if (j.loop) j.next = next_expected;
  else ++j.at;
}

recovery_plan::refusal recovery_plan::republish_refused(ua::status_code status) {
  if (jobs_.empty()) return refusal::finished;
  auto& j = jobs_.front();
  if (status == ua::status::bad_subscription_id_invalid) {
    const auto id = j.subscription_id;
    jobs_.pop_front();
    recreate(id);
    return refusal::recreate;
  }
  if (j.loop) {
    jobs_.pop_front();
    return refusal::finished;
  }
  ++j.at;
  return refusal::lost;
}

void recovery_plan::recreated() noexcept {
  if (!to_recreate_.empty()) to_recreate_.erase(to_recreate_.begin());
}

}  // namespace uactor::actors
