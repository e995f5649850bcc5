// Who a session acts for, as TransferSubscriptions compares it (Part 4 §5.13.7): session_manager
// sets it at each ActivateSession, subscription_manager keeps it per subscription (its owner).
#pragma once

#include <cstdint>
#include <string>

#include "uactor/ua/status_codes.hpp"
#include "uactor/ua/status_code.hpp"

namespace uactor::actors {

struct session_identity {
  enum class kind : std::uint8_t { anonymous, user_name, certificate };
  kind token = kind::anonymous;
  // The user name, the X509 user certificate's thumbprint (hex), or for an anonymous session the
  // client's ApplicationUri from CreateSession (unauthenticated unless the channel is secured).
  std::string name;
  bool secured = false;  // activated on a Sign or SignAndEncrypt channel

  friend bool operator==(const session_identity&, const session_identity&) = default;
};

// For the log: "user 'user1'", "X509 user 3A5F...", "anonymous (urn:client)".
inline std::string describe(const session_identity& id) {
  switch (id.token) {
    case session_identity::kind::user_name: return "user '" + id.name + "'";
    case session_identity::kind::certificate: return "X509 user " + id.name;
    case session_identity::kind::anonymous: break;
  }
  return "anonymous (" + id.name + ")";
}

// Part 4 §5.13.7: the new session must act for the same user; for ANONYMOUS the ApplicationUri
// must be the same and the MessageSecurityMode Sign or SignAndEncrypt. `allow_unsecured_anonymous`
// waives only that last condition (docs/decisions/0010). Good or Bad_UserAccessDenied.
inline ua::status_code check_transfer(const session_identity& owner, const session_identity& caller,
                                      bool allow_unsecured_anonymous) noexcept {
  if (owner.token != caller.token || owner.name != caller.name) return ua::status::bad_user_access_denied;
  if (owner.token == session_identity::kind::anonymous && !allow_unsecured_anonymous &&
      !(owner.secured && caller.secured))
    return ua::status::bad_user_access_denied;
  return ua::status::good;
}

}  // namespace uactor::actors
