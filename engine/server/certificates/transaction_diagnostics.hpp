// The TransactionDiagnostics Object of ServerConfiguration (Part 12 1.05 §7.10.3, its type
// TransactionDiagnosticsType §7.10.17): what the current or last push management transaction
// (docs/decisions/0064) did. Before any transaction every Property has the status
// Bad_OutOfService; a new transaction drops the last one's results (StartTime now, EndTime
// DateTime.MinValue, Result Bad_InvalidState until it ends); each change names the TrustList or
// the CertificateGroup it touches; ApplyChanges, CancelChanges, the session's end or
// ResetToServerDefaults end it with their result and, for a failure, one TransactionErrorType.
#pragma once

#include <string_view>

#include "protocol/address_space.hpp"
#include "uactor/ua/builtin_types.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors {

class transaction_diagnostics {
public:
  // Adds the Object (ns=0;i=32336) and its six Properties under `configuration` when namespace 0
  // lacks them (the NodeSet has them on the type only).
  void install(ua::address_space& as, ua::node_index configuration);
  bool installed() const noexcept { return object_ != ua::no_node; }

  void started(ua::address_space& as, ua::date_time now);
  // The transaction changes the TrustList / the CertificateGroup with this NodeId (each named once).
  void affects_trust_list(ua::address_space& as, const ua::node_id& trust_list);
  void affects_group(ua::address_space& as, const ua::node_id& group);
  // Ended with `result`; a Bad result names `target` (the TrustList or the group) and says why.
  void ended(ua::address_space& as, ua::date_time now, ua::status_code result, const ua::node_id& target = {},
             std::string_view why = {});

private:
  ua::node_index object_ = ua::no_node, start_ = ua::no_node, end_ = ua::no_node, result_ = ua::no_node;
  ua::node_index trust_lists_ = ua::no_node, groups_ = ua::no_node, errors_ = ua::no_node;
  ua::ua_array<ua::node_id> trust_list_ids_, group_ids_;
};

}  // namespace uactor::actors
