#include "engine/server/certificates/transaction_diagnostics.hpp"

#include <algorithm>

#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/types.hpp"

namespace uactor::actors {

namespace transaction_diagnostics_detail {

using namespace uactor::ua;
namespace ids = uactor::ua::ids;

// The instance NodeIds of NodeIds.csv (ServerConfiguration_TransactionDiagnostics_...).
constexpr std::uint32_t object_id = 32336;
constexpr std::uint32_t start_id = 32337, end_id = 32338, result_id = 32339, trust_lists_id = 32340,
                        groups_id = 32341, errors_id = 32342;

node_index child(const address_space& as, node_index parent, std::string_view name) {
  for (const reference& r : as.forward_references(parent))
    if (as.at(r.target).browse_name == name) return r.target;
  return no_node;
}

node_index property(address_space& as, node_index parent, std::uint32_t id, std::string_view name,
                    std::uint32_t data_type, std::int32_t value_rank) {
  if (const auto n = child(as, parent, name); n != no_node) return n;
  node_spec spec;
  spec.id = node_id(0, id);
  spec.cls = node_class::variable;
  spec.browse_name = name;
  spec.data_type = node_id(0, data_type);
  spec.value_rank = value_rank;
  spec.value.status = status::bad_out_of_service;  // §7.10.17: until a transaction starts
  spec.value.has_status = true;
  const auto added = as.add_node(std::move(spec));
  if (!added) return no_node;
  as.add_reference(parent, as.find(node_id(0, ids::has_property)), *added);
  as.add_reference(*added, as.find(node_id(0, ids::has_type_definition)), as.find(node_id(0, ids::property_type)));
  return *added;
}

void set(address_space& as, node_index n, variant v, status_code sc = status::good) {
  if (n == no_node) return;
  data_value dv;
  dv.value = std::move(v);
  dv.has_value = true;
  if (sc.is_bad()) {
    dv.status = sc;
    dv.has_status = true;
  }
  as.set_value(n, std::move(dv));
}

}  // namespace transaction_diagnostics_detail

namespace td = transaction_diagnostics_detail;

void transaction_diagnostics::install(ua::address_space& as, ua::node_index configuration) {
  if (configuration == ua::no_node) return;
  object_ = td::child(as, configuration, "TransactionDiagnostics");
  if (object_ == ua::no_node) {
    ua::node_spec spec;
    spec.id = ua::node_id(0, td::object_id);
    spec.cls = ua::node_class::object;
    spec.browse_name = "TransactionDiagnostics";
    const auto added = as.add_node(std::move(spec));
    if (!added) return;
    object_ = *added;
    as.add_reference(configuration, as.find(ua::node_id(0, ua::ids::has_component)), object_);
    as.add_reference(object_, as.find(ua::node_id(0, ua::ids::has_type_definition)),
                     as.find(ua::node_id(0, ua::ids::transaction_diagnostics_type)));
  }
  start_ = td::property(as, object_, td::start_id, "StartTime", 294 /* UtcTime */, -1);
  end_ = td::property(as, object_, td::end_id, "EndTime", 294, -1);
  result_ = td::property(as, object_, td::result_id, "Result", 19 /* StatusCode */, -1);
  trust_lists_ = td::property(as, object_, td::trust_lists_id, "AffectedTrustLists", 17 /* NodeId */, 1);
  groups_ = td::property(as, object_, td::groups_id, "AffectedCertificateGroups", 17, 1);
  errors_ = td::property(as, object_, td::errors_id, "Errors", ua::transaction_error_type::data_type_id, 1);
  // §7.10.17: Bad_OutOfService until a transaction starts (also where namespace 0 had the nodes).
  for (const auto n : {start_, end_, result_, trust_lists_, groups_, errors_}) {
    if (n == ua::no_node) continue;
    ua::data_value dv;
    dv.status = ua::status::bad_out_of_service;
    dv.has_status = true;
    as.set_value(n, std::move(dv));
  }
}

void transaction_diagnostics::started(ua::address_space& as, ua::date_time now) {
  trust_list_ids_.clear();
  group_ids_.clear();
  td::set(as, start_, ua::variant(now));
  td::set(as, end_, ua::variant(ua::date_time{}));  // DateTime.MinValue: not completed
  td::set(as, result_, ua::variant(ua::status::good), ua::status::bad_invalid_state);
  td::set(as, trust_lists_, ua::variant(trust_list_ids_));
  td::set(as, groups_, ua::variant(group_ids_));
  td::set(as, errors_, ua::variant(ua::ua_array<ua::extension_object>{}));
}

void transaction_diagnostics::affects_trust_list(ua::address_space& as, const ua::node_id& trust_list) {
  if (std::ranges::find(trust_list_ids_, trust_list) != trust_list_ids_.end()) return;
  trust_list_ids_.push_back(trust_list);
  td::set(as, trust_lists_, ua::variant(trust_list_ids_));
}

void transaction_diagnostics::affects_group(ua::address_space& as, const ua::node_id& group) {
  if (std::ranges::find(group_ids_, group) != group_ids_.end()) return;
  group_ids_.push_back(group);
  td::set(as, groups_, ua::variant(group_ids_));
}

void transaction_diagnostics::ended(ua::address_space& as, ua::date_time now, ua::status_code result,
                                    const ua::node_id& target, std::string_view why) {
  td::set(as, end_, ua::variant(now));
  td::set(as, result_, ua::variant(result));
  ua::ua_array<ua::extension_object> errors;
  if (result.is_bad()) {
    ua::transaction_error_type e;
    e.target_id = target;
    e.error = result;
    e.message.text = ua::ua_string(why);
    errors.emplace_back(std::move(e));
  }
  td::set(as, errors_, ua::variant(std::move(errors)));
}

}  // namespace uactor::actors
