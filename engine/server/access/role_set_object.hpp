// The RoleSet Object under ServerCapabilities (Part 18 §4.2-4.4): one RoleType Object per role
// the server knows, whose Identities, Applications, ApplicationsExclude, Endpoints and
// EndpointsExclude show what the session manager enforces (the role_registry), and whose
// AddIdentity/RemoveIdentity/AddApplication/RemoveApplication/AddEndpoint/RemoveEndpoint change it.
// Plain state in the session host, no CAF; the server_core publishes what a method made.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/server/access/permission_table.hpp"
#include "engine/server/access/roles.hpp"
#include "protocol/address_space.hpp"

namespace uactor::actors::authz {

// Who calls a role's method: its roles and its channel's mode (Part 18 §4.4: SecurityAdmin over
// an encrypted channel).
struct role_caller {
  role_set roles{};
  ua::message_security_mode mode = ua::message_security_mode::none;
};

class role_set_object {
public:
  // Makes the address space show `reg`: namespace 0's role Objects get the members the 1.05.07
  // NodeSet leaves out (Anonymous and AuthenticatedUser have only Identities there; their other
  // members take the NodeIds of NodeIds.csv), a plant's role gets an Object ns=<its ns>;s=Role.<name>
  // with the members of SecurityAdmin's shape, the Objects of plant roles that `reg` no longer has
  // go, and every role's properties are set from `reg`. Bad_NodeIdUnknown when namespace 0 has no
  // RoleSet (then nothing is there to show).
  ua::status_code sync(ua::address_space& as, const role_registry& reg);
  bool installed() const noexcept { return role_set_ != ua::no_node; }

  // Namespace 0's published defaults for these nodes (Opc.Ua.NodeIds.permissions.csv): RoleSet and
  // each role Object browsable by Anonymous and everything to SecurityAdmin; each role's
  // properties and methods only SecurityAdmin's, over a signed and encrypted channel. For every
  // role Object there now (call after sync).
  std::vector<permission_rule> default_rules(const ua::address_space& as) const;

  // A role's ApplicationsExclude or EndpointsExclude property (Part 18 §4.4.1: writable, by
  // SecurityAdmin over SignAndEncrypt as the methods), or nullopt for any other node.
  struct exclude_property {
    role_id role = 0;
    bool endpoints = false;  // EndpointsExclude; else ApplicationsExclude
  };
  std::optional<exclude_property> exclude_of(ua::node_index n) const noexcept {
    const auto it = excludes_.find(n);
    if (it == excludes_.end()) return std::nullopt;
    return it->second;
  }
  bool has_excludes() const noexcept { return !excludes_.empty(); }
  // Whether `id` may name an exclude property, without a lookup: false for every NodeId unlike
  // theirs (a numeric id outside their range, a string id not ending in "Exclude", ...), so that a
  // Write looks its nodes up once (server_core::serve_write). True means: look it up.
  bool may_name_exclude(const ua::node_id& id) const noexcept;

  // Whether `object` is the RoleSet or a role Object, whose methods are answered here.
  bool handles(ua::node_index object) const noexcept {
    return (object == role_set_ && object != ua::no_node) || roles_.count(object) > 0;
  }

  // One method of a role Object, or RoleSet's AddRole or RemoveRole, after the Call service's own
  // checks. Bad_UserAccessDenied without SecurityAdmin, Bad_SecurityModeInsufficient below
  // SignAndEncrypt, then the method's own (Part 18 §4.4.5-4.4.10: Bad_InvalidArgument,
  // Bad_AlreadyExists, Bad_NotFound, Bad_RequestNotAllowed; §4.2.2-4.2.3: Bad_InvalidArgument,
  // Bad_NotSupported, Bad_NodeIdUnknown, Bad_RequestNotAllowed). On Good, `changed` is a new
  // registry to publish, and AddRole's RoleNodeId is in `out` (when given).
  ua::status_code call(const role_caller& who, ua::node_index object, ua::node_index method,
                       std::span<const ua::variant> in, const ua::address_space& as, const role_registry& current,
                       std::shared_ptr<role_registry>& changed, ua::ua_array<ua::variant>* out = nullptr) const;

private:
  ua::status_code call_role_set(ua::node_index method, std::span<const ua::variant> in, const ua::address_space& as,
                                const role_registry& current, std::shared_ptr<role_registry>& changed,
                                ua::ua_array<ua::variant>* out) const;
  struct role_nodes {
    role_id role = 0;
    ua::node_index identities = ua::no_node, applications = ua::no_node, applications_exclude = ua::no_node,
                   endpoints = ua::no_node, endpoints_exclude = ua::no_node;
  };
  void note_exclude_id(const ua::node_id& id) noexcept;
  ua::node_index role_set_ = ua::no_node;
  std::unordered_map<ua::node_index, role_nodes> roles_;  // by role Object
  std::unordered_map<ua::node_index, exclude_property> excludes_;
  // may_name_exclude's summary of the exclude properties' NodeIds.
  std::uint32_t exclude_numeric_lo_ = 0, exclude_numeric_hi_ = 0;
  int exclude_numeric_ns_ = 0;  // the namespace of every numeric one, or -1
  bool exclude_numeric_ = false, exclude_strings_end_in_exclude_ = true, exclude_other_ids_ = false;
  std::vector<ua::node_index> added_objects_;             // plant roles' Objects made here
};

}  // namespace uactor::actors::authz
