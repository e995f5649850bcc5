// The application's say in a session's roles (docs/decisions/0063): at ActivateSession, once the
// identity is proven, the session host asks the application's role callback (an LDAP or plant
// database lookup) and waits for its answer, asynchronously and under a deadline, before it
// answers the client. Plain values: the session manager raises the questions and settles the
// answers, the host carries them (actors/server/session_host_actor.cpp), the runtime hands them
// to the application (server::on_activate).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/server/subscriptions/session_identity.hpp"
#include "uactor/ua/status_code.hpp"
#include "uactor/ua/types.hpp"

namespace uactor::actors::authz {

// Who activates, as the identity mapping rules see them (session_facts, owned).
struct role_question {
  std::uint64_t id = 0;
  session_identity identity;     // the token's kind and its user name or certificate thumbprint
  std::string user_subject;      // an X509 user certificate's subject
  std::string application_uri;   // of the client's application instance certificate (empty over None)
  std::string endpoint_url;
  ua::message_security_mode security_mode = ua::message_security_mode::none;
  std::vector<std::string> roles;  // the roles the plant's rules give without the callback
};

// The application's answer. Role claims and groups stand where Part 18 §4.4.4 puts an access
// token's claims: a claim that names a role of the server grants it, Role and GroupId rules map
// the others (and these) to roles. A refusal answers the ActivateSession Bad_UserAccessDenied.
struct role_answer {
  std::uint64_t id = 0;
  bool refused = false;
  bool timed_out = false;  // set by the server when the deadline passed (or the callback failed)
  bool failed = false;     // with timed_out: the callback threw, or could not be handed the question
  std::vector<std::string> roles;
  std::vector<std::string> group_ids;
};

// What the application registered: how to hand it a question (posted to its executor; the answer
// comes back to the host) and what a deadline that passes means.
struct role_hook {
  std::function<void(role_question&&)> dispatch;
  std::chrono::milliseconds deadline{2'000};
  // false: the session gets the roles the plant's rules give it (without claims or groups);
  // true: the ActivateSession is refused (Bad_UserAccessDenied).
  bool refuse_on_timeout = false;
};
using role_hook_ptr = std::shared_ptr<const role_hook>;

// One wait settled, for the host to finish the ActivateSession it held: Good, or the refusal.
struct role_settled {
  std::uint64_t id = 0;
  ua::status_code result;
};

}  // namespace uactor::actors::authz
