// Events through the subscriptions (Part 4 §5.12.1.5 event queues, Part 3 §6.4 notifiers): which
// event items see an event, their queues and the EventQueueOverflowEventType event. The filter
// itself is event_filter.cpp; the items are created in monitored_items.cpp. docs/decisions/0018.
#include "engine/server/subscriptions/subscription_manager.hpp"

#include <algorithm>
#include <utility>

#include "engine/server/subscriptions/subscription_manager_internal.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors {

using namespace uactor::ua;

namespace {

using ua::ids::has_event_source;
using ua::ids::has_notifier;
using ua::ids::event_queue_overflow_event_type;
// How far up the notifier hierarchy an event travels, and how many notifiers it may reach: a
// hierarchy with a loop (references are the application's) stops here.
constexpr std::size_t max_notifiers = 64;

}  // namespace

std::vector<std::uint32_t> subscription_manager::subscriptions_of(std::uint32_t session) const {
  std::vector<std::uint32_t> out;
  const auto it = sessions_.find(session);
  if (it == sessions_.end()) return out;
  for (const subscription* s : it->second->subs) out.push_back(s->id);
  return out;
}

bool subscription_manager::owns_item(std::uint32_t session, std::uint32_t subscription_id, std::uint32_t item_id) noexcept {
  subscription* s = find_subscription(session, subscription_id);
  if (!s) return false;
  if (item_id == 0) return true;
  const auto it = items_.find(item_id);
  return it != items_.end() && it->second->sub == s && it->second->events;
}

void subscription_manager::raise_event(const event_record& e, const address_space& as, std::uint32_t only,
                                       std::uint32_t only_item, bool unfiltered) {
  if (event_item_count_ == 0) return;
  notifiers_.clear();
  const node_index server = as.find(node_id(0, ids::server));
  if (server != no_node) notifiers_.push_back(server);
  if (e.source != no_node && e.source != server) notifiers_.push_back(e.source);
  // Part 3 §7.16-7.17: the notifiers above the source, over inverse HasEventSource (and its
  // subtype HasNotifier), breadth first, each once.
  const node_index source_ref = as.find(node_id(0, has_event_source));
  const node_index notifier_ref = as.find(node_id(0, has_notifier));
  for (std::size_t k = server == no_node ? 0 : 1; k < notifiers_.size() && notifiers_.size() < max_notifiers; ++k) {
    for (const reference& r : as.inverse_references(notifiers_[k])) {
      if (r.type != source_ref && r.type != notifier_ref) continue;
      if (std::find(notifiers_.begin(), notifiers_.end(), r.target) != notifiers_.end()) continue;
      notifiers_.push_back(r.target);
      if (notifiers_.size() >= max_notifiers) break;
    }
  }
  for (const node_index n : notifiers_) {
    if (n >= event_watchers_.size()) continue;
    for (item* it : event_watchers_[n]) {
      if (it->mode == monitoring_mode::disabled) continue;
      if (only != 0 && it->sub->id != only) continue;
      if (only_item != 0 && it->id != only_item) continue;
      // Part 3 §8.55 ReceiveEvents: the owner's roles must allow events of the source, not only of
      // the notifier the item watches (an operator's Server item sees its own areas' alarms).
      if (e.source != no_node && !it->sub->access.may(e.source, actors::authz::permission::receive_events)) continue;
      if (!unfiltered && !it->filter->matches(e, as)) continue;
      enqueue_event(*it, e);
    }
  }
}

// §5.12.1.5 for events: a full queue discards the oldest (the overflow event goes first) or the
// new event (the overflow event goes last); one overflow event waits at a time.
void subscription_manager::enqueue_event(item& it, const event_record& e) {
  const std::size_t cap = it.queue_size;
  event_field_list* slot = nullptr;
  if (it.count < cap) {
    const std::size_t at = (it.head + it.count) % cap;
    if (at == it.event_queue.size()) it.event_queue.emplace_back();
    slot = &it.event_queue[at];
    ++it.count;
  } else {
    if (!it.overflow) {
      it.overflow = true;
      const variant* t = e.find(field::receive_time);
      const date_time* when = t ? t->get_if<date_time>() : nullptr;
      it.overflow_time = when ? *when : date_time{};  // the time of the first event it stands for
    }
    if (it.discard_oldest) {
      it.head = (it.head + 1) % cap;
      slot = &it.event_queue[(it.head + it.count - 1) % cap];
    }
  }
  if (slot) {
    slot->client_handle = it.client_handle;
    it.filter->select(e, slot->event_fields);
  }
  if (it.mode == monitoring_mode::reporting) mark_ready(it, false);
}

// A message's event list to `n` entries, their field storage kept: take_event swaps an entry's
// storage into the event queue, so an entry made empty by a plain resize (more events than the
// recycled message had) would make the queue's next select allocate. The storage of the entries a
// shorter message drops waits here for the next longer one.
void subscription_manager::resize_events(ua_array<event_field_list>& events, std::size_t n) {
  for (std::size_t i = n; i < events.size(); ++i) spare_fields_.push_back(std::move(events[i].event_fields));
  const std::size_t had = events.size();
  events.resize(n);
  for (std::size_t i = had; i < n && !spare_fields_.empty(); ++i) {
    events[i].event_fields = std::move(spare_fields_.back());
    spare_fields_.pop_back();
  }
}

// The next notification of an event item into `out` (its storage swapped with the queue's).
void subscription_manager::take_event(item& it, event_field_list& out) {
  out.client_handle = it.client_handle;
  const bool overflow_now = it.overflow && (it.discard_oldest || it.count == 0);
  if (overflow_now) {
    // The overflow event is not subject to the where clause (Part 4 §5.12.1.5): only the select.
    overflow_event_.type = no_node;
    overflow_event_.set(field::event_type).emplace<node_id>() = node_id(0, event_queue_overflow_event_type);
    overflow_event_.set(field::source_node).emplace<node_id>() = node_id(0, ids::server);
    overflow_event_.set(field::source_name).emplace<ua_string>().assign("Internal/EventQueueOverflow");
    overflow_event_.set(field::time).emplace<date_time>() = it.overflow_time;
    overflow_event_.set(field::receive_time).emplace<date_time>() = it.overflow_time;
    overflow_event_.set(field::severity).emplace<std::uint16_t>() = 1;
    auto& msg = overflow_event_.set(field::message).emplace<localized_text>();
    msg.text.assign("Event queue overflow");
    // A distinct EventId per overflow: the item's id and the time.
    auto& id = overflow_event_.set(field::event_id).emplace<byte_string>();
    char raw[16] = {};
    for (int b = 0; b < 4; ++b) raw[b] = static_cast<char>(it.id >> (8 * b));
    for (int b = 0; b < 8; ++b) raw[8 + b] = static_cast<char>(it.overflow_time.ticks >> (8 * b));
    raw[4] = 'o';
    id.assign(raw, sizeof raw);
    it.filter->select(overflow_event_, out.event_fields);
    it.overflow = false;
    return;
  }
  std::swap(out.event_fields, it.event_queue[it.head].event_fields);
  it.head = (it.head + 1) % it.queue_size;
  --it.count;
}

}  // namespace uactor::actors
