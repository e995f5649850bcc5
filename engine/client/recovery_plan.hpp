// The steps of one recovery once the session works again on a new link (Part 4 §6.7): Republish
// what each subscription missed, in order and one request at a time, then create again the
// subscriptions the server lost; then the session is ready. Apart from recovery.hpp's decisions
// (what one answer means) because this carries the order and the progress between answers. Plain
// state: the actor sends what next() names and reports each answer back.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "uactor/reconnect.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::actors {

class recovery_plan {
public:
  struct step {
    enum class kind : std::uint8_t { republish, recreate, done };
    kind what = kind::done;
    std::uint32_t subscription_id = 0;
    std::uint32_t sequence_number = 0;  // republish: the number to ask for
  };

  // A new recovery (or the link went under this one): no steps, reactivated until told otherwise.
  void clear() noexcept;
  recovery_kind how() const noexcept { return how_; }
  void set_how(recovery_kind how) noexcept { how_ = how; }

  // Reactivated (Part 4 §6.7): Republish from `next_expected` until Bad_MessageNotAvailable; nothing
  // when the subscription expects no number yet (0).
  void republish_from(std::uint32_t subscription_id, std::uint32_t next_expected);
  // Transferred (Part 4 §5.14.7): these AvailableSequenceNumbers, in order (to_republish()).
  void republish_list(std::uint32_t subscription_id, std::vector<std::uint32_t> numbers);
  // Create the subscription again; the recovery then counts as recreated.
  void recreate(std::uint32_t subscription_id);

  // What to send now: the front Republish, else the front subscription to recreate, else done.
  step next();
  bool republishing() const noexcept { return !jobs_.empty(); }

  // The front Republish delivered its message; `next_expected` is the subscription's next number
  // now (with what was held behind the message delivered too).
  void republished(std::uint32_t next_expected);
  // The front Republish failed with `status`, not on the link (is_link_failure is the caller's):
  enum class refusal : std::uint8_t {
    recreate,  // Bad_SubscriptionIdInvalid: the server lost the subscription; it is to be recreated
    finished,  // reactivated: nothing more was sent (Bad_MessageNotAvailable, ...)
    lost,      // transferred: announced as available and gone now: the caller reports it lost
  };
  refusal republish_refused(ua::status_code status);
  // The front subscription to recreate is done with (created again, refused, or not ours).
  void recreated() noexcept;

private:
  struct republish_job {
    std::uint32_t subscription_id = 0;
    bool loop = false;                // reactivated: from next until Bad_MessageNotAvailable
    std::uint32_t next = 0;           // loop: the next number to ask for
    std::vector<std::uint32_t> list;  // transferred: the AvailableSequenceNumbers still wanted
    std::size_t at = 0;
  };
  std::deque<republish_job> jobs_;
  std::vector<std::uint32_t> to_recreate_;
  recovery_kind how_ = recovery_kind::reactivated;
};

}  // namespace uactor::actors
