// The order of a recovery's steps as plain state (engine/client/recovery_plan.hpp): Republish per
// subscription in order, one at a time, then the subscriptions to create again, then done.
#include <catch2/catch.hpp>

#include "engine/client/recovery_plan.hpp"

using namespace uactor;
using namespace uactor::actors;
using kind = recovery_plan::step::kind;

TEST_CASE("recovery_plan: reactivated, each subscription is republished from its next number until refused", "[client][recovery]") {
  recovery_plan plan;
  plan.republish_from(1, 5);
  plan.republish_from(2, 0);  // expects nothing yet: no job
  plan.republish_from(3, 9);
  auto s = plan.next();
  CHECK((s.what == kind::republish && s.subscription_id == 1 && s.sequence_number == 5));
  plan.republished(8);  // 5 came, and 6 and 7 held behind it
  s = plan.next();
  CHECK((s.what == kind::republish && s.subscription_id == 1 && s.sequence_number == 8));
  CHECK(plan.republish_refused(ua::status::bad_message_not_available) == recovery_plan::refusal::finished);
  s = plan.next();
  CHECK((s.what == kind::republish && s.subscription_id == 3 && s.sequence_number == 9));
  CHECK(plan.republish_refused(ua::status::bad_message_not_available) == recovery_plan::refusal::finished);
  CHECK(plan.next().what == kind::done);
  CHECK(plan.how() == recovery_kind::reactivated);
}

TEST_CASE("recovery_plan: transferred, the listed numbers are asked for in order and a missing one is lost", "[client][recovery]") {
  recovery_plan plan;
  plan.set_how(recovery_kind::transferred);
  plan.republish_list(4, {10, 11, 12});
  plan.republish_list(5, {});  // nothing available: no job
  CHECK(plan.next().sequence_number == 10);
  plan.republished(11);
  CHECK(plan.next().sequence_number == 11);
  CHECK(plan.republish_refused(ua::status::bad_message_not_available) == recovery_plan::refusal::lost);
  CHECK(plan.next().sequence_number == 12);
  plan.republished(13);
  CHECK(plan.next().what == kind::done);
  CHECK_FALSE(plan.republishing());
  CHECK(plan.how() == recovery_kind::transferred);
}

TEST_CASE("recovery_plan: a subscription the server lost while republishing is recreated after the Republish jobs",
          "[client][recovery]") {
  recovery_plan plan;
  plan.republish_from(1, 3);
  plan.republish_list(2, {7});
  CHECK(plan.republish_refused(ua::status::bad_subscription_id_invalid) == recovery_plan::refusal::recreate);
  CHECK(plan.how() == recovery_kind::recreated);
  auto s = plan.next();
  CHECK((s.what == kind::republish && s.subscription_id == 2));
  plan.republished(8);
  s = plan.next();
  CHECK((s.what == kind::recreate && s.subscription_id == 1));
  plan.recreated();
  CHECK(plan.next().what == kind::done);
}

TEST_CASE("recovery_plan: recreations go in the order given, and clear drops every step but keeps how", "[client][recovery]") {
  recovery_plan plan;
  plan.recreate(6);
  plan.recreate(2);
  CHECK(plan.next().subscription_id == 6);
  plan.recreated();
  CHECK(plan.next().subscription_id == 2);
  plan.republish_from(9, 1);
  plan.clear();
  CHECK(plan.next().what == kind::done);
  CHECK(plan.how() == recovery_kind::recreated);
  plan.recreated();  // nothing left: no effect
  CHECK(plan.next().what == kind::done);
}
