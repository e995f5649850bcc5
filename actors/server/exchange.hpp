// The messages between a connection and the session host (docs/decisions/0008), and the ticks
// of timers. Internal to actors/: the batch is shared by exactly one connection and, while it is
// away, the host; it comes back in the same object.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>

#include "engine/server/channel_audit.hpp"
#include "protocol/address_space.hpp"
#include "protocol/byte_buffer.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::actors {

// One request on its way from a connection to the session host and its response on the way back.
struct exchange {
  std::uint32_t request_id = 0;
  ua::request_header header;
  ua::extension_object request;  // swapped with the channel's, so both keep their storage
  ua::byte_buffer response;      // the encoded response message, filled by the host
};

// The requests of one connection that cross to the host in one message, and come back answered in
// the same object (docs/decisions/0008: one crossing each way per batch, nothing allocated per
// request once the batch has grown to the connection's working size).
struct exchange_batch {
  std::uint32_t channel_id = 0;
  std::vector<exchange> items;  // the first `size` are in use; the rest keep their storage
  std::size_t size = 0;
  // When it was sent, by the connection to the host and by the host back: the wait metrics.
  std::chrono::steady_clock::time_point sent{};

  exchange& next() {
    if (size == items.size()) items.emplace_back();
    return items[size++];
  }
};

using batch_ptr = std::shared_ptr<exchange_batch>;

// Responses the host produced outside a batch (queued Publish requests answered on the publishing
// clock, docs/decisions/0010), pushed to the connection that owns the channel. The host keeps the
// object and reuses it once the connection has written it (`written`, set by the connection).
struct pushed_responses {
  std::vector<exchange> items;  // request_id and response used; the first `size` are in use
  std::size_t size = 0;
  std::atomic<bool> written{true};
};

using push_ptr = std::shared_ptr<pushed_responses>;

// From a connection to the host when it ends: the host forgets the channel's actor and drops the
// Publish requests queued from it.
using channel_closed_atom = caf::atom_constant<caf::atom("chanclose")>;
// From a connection to the host: what its channel did that is audited (channel_audit), when the
// server's audit_events is on. One message per OpenSecureChannel or CloseSecureChannel.
using channel_audit_atom = caf::atom_constant<caf::atom("chanaudit")>;
using channel_audits = std::vector<channel_audit>;
using publish_tick_atom = caf::atom_constant<caf::atom("pubtick")>;
// From the host to every connection after a method changed the trust list: the channel checks its
// client certificate again and closes if it is no longer trusted (Part 12 §7.8.2.5).
using trust_changed_atom = caf::atom_constant<caf::atom("trustchg")>;


using housekeeping_atom = caf::atom_constant<caf::atom("housekeep")>;

}  // namespace uactor::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::batch_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::push_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::channel_audits)
