// The application bridge's plain part (docs/embedding.md): which
// nodes the application answers for, the questions the services put to it, and the requests that
// wait for the answers until their deadlines. No CAF: the session host carries questions out and
// answers in; server_core routes Write, Read and Call through here when the application has hooks.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/common/clock.hpp"
#include "engine/server/services/access_attributes.hpp"
#include "engine/server/services/call.hpp"
#include "engine/server/services/service_limits.hpp"
#include "engine/server/subscriptions/subscription_manager.hpp"
#include "protocol/address_space.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::actors {

enum class app_call_kind : std::uint8_t { write, read, call };

// One question to the application.
struct app_call {
  std::uint64_t id = 0;
  app_call_kind kind = app_call_kind::write;
  ua::node_id node;                 // write, read: the variable; call: the method
  ua::node_id object;               // call: the object it is called on
  ua::data_value value;             // write: what the variable holds once accepted
  std::vector<ua::variant> inputs;  // call
  std::string user;                 // the session's UserName identity, or empty
};

// Its answer, from any thread, through the host's mailbox.
struct app_answer {
  std::uint64_t id = 0;
  ua::status_code status;
  bool has_value = false;             // read: `value` is the answer (else `status` is the failure)
  ua::data_value value;
  std::vector<ua::variant> outputs;   // call
};

// What the application registered for a node: how to hand it a question (post it to the
// application's executor; the answer comes back as an app_answer) and how long to wait.
struct app_hook {
  std::function<void(app_call&&)> dispatch;
  std::chrono::milliseconds deadline{5'000};
};
using hook_ptr = std::shared_ptr<const app_hook>;

// The requests a Write, Read or Call service got from: where its answer goes, who asked.
struct request_context {
  std::uint32_t channel_id = 0;
  std::uint32_t request_id = 0;
  const std::string* user = nullptr;  // the session's UserName, or null
  services::node_access access;       // what the session may do (its roles): checked before asking
};

class application_calls {
public:
  void set_hook(app_call_kind kind, ua::node_index node, hook_ptr hook);
  // Hooks of nodes removed from the store go with them.
  void drop_removed(const ua::address_space& as);

  // The services with the application's items in them. Each returns false when no item of the
  // request is the application's: `resp` then holds the whole answer, as the plain service gives
  // it (at once, without a lookup, while the application answers for no node of that kind). True:
  // the questions are in the outbox and the response comes out of completed() once
  // every question is answered or its deadline has passed.
  bool write(const request_context& ctx, const ua::write_request& req, ua::write_response& resp,
             ua::address_space& as, const instant& now, const services::service_limits& limits);
  bool read(const request_context& ctx, const ua::read_request& req, ua::read_response& resp,
            const ua::address_space& as, const instant& now, const services::service_limits& limits);
  bool call(const request_context& ctx, const ua::call_request& req, ua::call_response& resp,
            ua::address_space& as, const services::method_table& methods, const instant& now,
            const services::service_limits& limits);

  // An answer. False for one that came too late (its request timed out) or twice.
  bool answer(app_answer&& a, ua::address_space& as, const instant& now);
  // Every waiting request past its deadline is answered: its unanswered items get Bad_Timeout.
  void expire(const instant& now);

  struct outgoing {
    app_call call;
    hook_ptr hook;
  };
  // Questions raised since the caller last cleared it, each with the hook that answers it.
  std::vector<outgoing>& outbox() noexcept { return outbox_; }
  // Responses finished since the last clear_completed(), for their channels.
  std::span<const deferred_response> completed() const noexcept { return completed_; }
  void clear_completed() noexcept { completed_.clear(); }

private:
  struct item {
    std::uint64_t call_id = 0;
    std::size_t result = 0;    // index in the response's results
    ua::node_index node = ua::no_node;
    ua::node_id id;            // the node asked about, for the log
    ua::data_value value;      // write: what to store
    ua::read_value_id read_id; // read: the item, read again once the answer is stored
    bool done = false;
  };
  struct waiting_request {
    request_context ctx;
    app_call_kind kind = app_call_kind::write;
    std::uint32_t request_handle = 0;
    std::chrono::steady_clock::time_point deadline{};
    ua::timestamps_to_return timestamps = ua::timestamps_to_return::both;
    std::size_t outstanding = 0;
    std::vector<item> items;
    ua::write_response write;
    ua::read_response read;
    ua::call_response call;
  };

  waiting_request& open(const request_context& ctx, app_call_kind kind, std::uint32_t handle);
  item& ask(waiting_request& w, const app_hook& hook, const hook_ptr& owner, std::size_t result, const instant& now);
  const hook_ptr* hook_ptr_of(app_call_kind kind, ua::node_index node) const noexcept;
  bool has_hooks(app_call_kind kind) const noexcept { return !hooks_[static_cast<std::size_t>(kind)].empty(); }
  void settle(waiting_request& w, item& it, app_answer&& a, ua::address_space& as, const instant& now);
  void finish(std::uint64_t key, const instant& now);

  std::unordered_map<ua::node_index, hook_ptr> hooks_[3];
  std::unordered_map<std::uint64_t, waiting_request> requests_;  // by key
  std::unordered_map<std::uint64_t, std::uint64_t> calls_;       // question id -> request key
  std::vector<outgoing> outbox_;
  std::vector<deferred_response> completed_;
  std::uint64_t next_call_ = 1;
  std::uint64_t next_request_ = 1;
  std::uint64_t opening_ = 0;  // the key of the request being opened
};

}  // namespace uactor::actors
