// What the supervised client tries after a loss (Part 4 §6.7), as pure functions and plain state:
// the backoff between attempts, what an answer of the recovery means for the next step, and the
// book of what the application created (to create it again when the server lost it). No CAF, no
// clock, no random source of its own: tests walk every branch with answers they make up.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "protocol/generated/type_codecs.hpp"

namespace uactor::actors {

struct backoff_policy {
  std::chrono::milliseconds initial{100};
  std::chrono::milliseconds max{10'000};
  double jitter = 0.25;  // +/- this share of the delay
};

// The delay before attempt `attempt` (0 = the first): initial x 2^attempt, capped at max, moved by
// (2 x random01 - 1) x jitter x delay; never negative. random01 in [0, 1).
std::chrono::milliseconds backoff_delay(const backoff_policy& policy, std::uint32_t attempt, double random01);

// A status that says the link (not the session or the service) failed: try another connection.
bool is_link_failure(ua::status_code status) noexcept;

// After ActivateSession of the old session on a new channel (Part 4 §5.6.3, §6.7).
enum class reactivate_outcome : std::uint8_t {
  resume,       // the session lives: Republish what was missed, then Publish again
  new_session,  // the server does not know it any more (Bad_SessionIdInvalid, ...): CreateSession
  reconnect,    // the new link failed too: back off and try again
};
reactivate_outcome after_reactivate(ua::status_code status) noexcept;

// After TransferSubscriptions, per subscription (Part 4 §5.14.7).
enum class transfer_outcome : std::uint8_t {
  republish,  // it moved into the new session: Republish its AvailableSequenceNumbers, in order
  recreate,   // gone (Bad_SubscriptionIdInvalid) or refused (Bad_UserAccessDenied, ...): create it again
  reconnect,  // the whole request failed on the link
};
transfer_outcome after_transfer(ua::status_code service_result, ua::status_code item_result) noexcept;

// The sequence numbers of `available` at or after `next_expected`, ascending along the wrap
// (Part 4 §7.26): what to republish after a transfer. The others were received already.
std::vector<std::uint32_t> to_republish(std::uint32_t next_expected, const ua::ua_array<std::uint32_t>& available);

// What the application created, to create it again with the same parameters, client handles,
// filters and queue sizes once the server has lost it. Learns from each request and its answer.
struct recorded_item {
  ua::monitored_item_create_request request;  // as created, modified since
  std::uint32_t monitored_item_id = 0;        // the server's, current
};
struct recorded_subscription {
  std::uint32_t id = 0;  // the server's, current
  ua::create_subscription_request request;
  std::vector<recorded_item> items;
};

class subscription_book {
public:
  // A request the client sent and the server's answer (good or not): the book keeps what was
  // created, modified and deleted. Other services are ignored.
  void record(const ua::extension_object& request, const ua::extension_object& answer);
  // DeleteSubscriptions as it goes out (the application dropped them whatever the answer).
  void forget(const ua::ua_array<std::uint32_t>& subscription_ids);
  // The subscription `old_id` was created again as `new_id`; its items get new ids by bind_item.
  void rekey(std::uint32_t old_id, std::uint32_t new_id);
  void bind_item(std::uint32_t subscription_id, std::uint32_t client_handle, std::uint32_t monitored_item_id);
  void drop_item(std::uint32_t subscription_id, std::uint32_t client_handle);
  const std::vector<recorded_subscription>& subscriptions() const noexcept { return subs_; }
  const recorded_subscription* find(std::uint32_t id) const noexcept;

private:
  recorded_subscription* find_mut(std::uint32_t id) noexcept;
  std::vector<recorded_subscription> subs_;
};

}  // namespace uactor::actors
