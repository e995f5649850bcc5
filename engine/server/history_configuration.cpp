#include "engine/server/history_configuration.hpp"

#include <algorithm>
#include <cmath>

#include "engine/server/node_builder.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors {

namespace history_configuration_nodes {

// The child of `parent` with this namespace-0 BrowseName over a forward hierarchical reference
// (HasComponent, HasProperty, HasHistoricalConfiguration), or no_node.
ua::node_index child_named(const ua::address_space& as, ua::node_index parent, std::string_view name) {
  if (parent == ua::no_node) return ua::no_node;
  for (const ua::reference& r : as.forward_references(parent)) {
    const ua::node& t = as.at(r.target);
    if (!t.removed && t.browse_ns == 0 && t.browse_name == name) return r.target;
  }
  return ua::no_node;
}

void set_property(ua::address_space& as, ua::node_index n, ua::variant v, ua::date_time now) {
  if (n == ua::no_node || !as.variable(n)) return;
  ua::data_value dv;
  if (!v.empty()) dv.set_value(std::move(v));
  dv.source_timestamp = dv.server_timestamp = now;
  dv.has_source_timestamp = dv.has_server_timestamp = true;
  as.set_value(n, std::move(dv));
}

// The values of a HistoricalDataConfigurationType instance (Part 11 §5.2.2).
void set_values(ua::address_space& as, ua::node_index object, const historical_configuration& c, ua::date_time now) {
  const history::aggregate_configuration& a = c.aggregate;
  const ua::node_index agg = child_named(as, object, "AggregateConfiguration");
  set_property(as, child_named(as, agg, "TreatUncertainAsBad"), ua::variant(a.treat_uncertain_as_bad), now);
  set_property(as, child_named(as, agg, "PercentDataBad"), ua::variant(a.percent_data_bad), now);
  set_property(as, child_named(as, agg, "PercentDataGood"), ua::variant(a.percent_data_good), now);
  set_property(as, child_named(as, agg, "UseSlopedExtrapolation"), ua::variant(a.use_sloped_extrapolation), now);
  set_property(as, child_named(as, object, "Stepped"), ua::variant(a.stepped), now);
  set_property(as, child_named(as, object, "Definition"), ua::variant(ua::ua_string(c.definition)), now);
  // What the recorder does (history_collection.hpp): it reads these back (collection_for).
  const collection_settings& k = c.collection;
  set_property(as, child_named(as, object, "MinTimeInterval"), ua::variant(k.min_time_interval_ms), now);
  set_property(as, child_named(as, object, "MaxTimeInterval"), ua::variant(k.max_time_interval_ms), now);
  set_property(as, child_named(as, object, "ExceptionDeviation"), ua::variant(k.exception_deviation), now);
  set_property(as, child_named(as, object, "ExceptionDeviationFormat"), ua::variant(static_cast<std::int32_t>(k.format)), now);
  set_property(as, child_named(as, object, "ServerTimestampSupported"), ua::variant(true), now);
}

template <class T>
void take_property(const ua::address_space& as, ua::node_index n, T& out) {
  if (n == ua::no_node) return;
  const ua::variable_data* v = as.variable(n);
  if (!v || !v->value.has_value) return;
  if (const auto* x = v->value.value.get_if<T>()) out = *x;
}

// Reads a configuration object's aggregate configuration and Stepped into `out`, property by
// property (one without a value keeps what `out` holds).
void read_values(const ua::address_space& as, ua::node_index object, history::aggregate_configuration& out) {
  const ua::node_index agg = child_named(as, object, "AggregateConfiguration");
  take_property(as, child_named(as, agg, "TreatUncertainAsBad"), out.treat_uncertain_as_bad);
  take_property(as, child_named(as, agg, "PercentDataBad"), out.percent_data_bad);
  take_property(as, child_named(as, agg, "PercentDataGood"), out.percent_data_good);
  take_property(as, child_named(as, agg, "UseSlopedExtrapolation"), out.use_sloped_extrapolation);
  take_property(as, child_named(as, object, "Stepped"), out.stepped);
}

// Reads a configuration object's collection properties into `out` (one without a value keeps
// what `out` holds).
void read_collection(const ua::address_space& as, ua::node_index object, collection_settings& out) {
  take_property(as, child_named(as, object, "MinTimeInterval"), out.min_time_interval_ms);
  take_property(as, child_named(as, object, "MaxTimeInterval"), out.max_time_interval_ms);
  take_property(as, child_named(as, object, "ExceptionDeviation"), out.exception_deviation);
  std::int32_t format = static_cast<std::int32_t>(out.format);
  take_property(as, child_named(as, object, "ExceptionDeviationFormat"), format);
  out.format = static_cast<deviation_format>(format);  // Unknown (4) and others: no deviation (collection_state)
}

// The variable's own "HA Configuration" over HasHistoricalConfiguration, or no_node.
ua::node_index own_configuration(const ua::address_space& as, ua::node_index variable) {
  const ua::node_index ref = as.find(ua::node_id(0, ua::ids::has_historical_configuration));
  if (ref == ua::no_node) return ua::no_node;
  for (const ua::reference& r : as.forward_references(variable))
    if (r.type == ref && !as.at(r.target).removed && as.at(r.target).browse_name == "HA Configuration") return r.target;
  return ua::no_node;
}

constexpr std::uint32_t default_ha_configuration = 32637;  // Server's DefaultHAConfiguration (Part 11 §5.7.3)

}  // namespace history_configuration_nodes

using namespace history_configuration_nodes;

void set_default_ha_configuration(ua::address_space& as, bool on, const historical_configuration& c,
                                  double max_time_stored_ms, std::uint32_t max_count_stored, ua::date_time now) {
  const ua::node_index object = as.find(ua::node_id(0, default_ha_configuration));
  if (object == ua::no_node) return;
  if (on) {
    set_values(as, object, c, now);
    set_property(as, child_named(as, object, "MaxTimeStoredValues"), ua::variant(max_time_stored_ms), now);
    set_property(as, child_named(as, object, "MaxCountStoredValues"), ua::variant(max_count_stored), now);
    return;
  }
  for (const ua::node_index o : {object, child_named(as, object, "AggregateConfiguration")})
    for (const ua::reference& r : as.forward_references(o))
      if (as.variable(r.target) && as.at(r.target).cls == ua::node_class::variable) set_property(as, r.target, ua::variant{}, now);
}

ua::expected<archive_properties> set_ha_configuration(ua::address_space& as, ua::node_index variable,
                                                      const historical_configuration& c, ua::date_time now) {
  if (variable == ua::no_node || variable >= as.size() || as.at(variable).removed) return ua::status::bad_node_id_unknown;
  if (as.at(variable).cls != ua::node_class::variable) return ua::status::bad_node_class_invalid;
  ua::node_index object = own_configuration(as, variable);
  if (object == ua::no_node) {
    // Part 11 §5.2.4: BrowseName "HA Configuration" (namespace 0, as the spec's own instance i=11202).
    object_node o;
    o.parent = as.at(variable).id.to_node_id();
    o.id = child_node_id(o.parent, "HA Configuration");
    o.reference_type = ua::node_id(0, ua::ids::has_historical_configuration);
    o.browse_name = ua::qualified_name{0, ua::ua_string("HA Configuration")};
    o.type_definition = ua::node_id(0, ua::ids::historical_data_configuration_type);
    for (const char* name : {"Definition", "MaxTimeInterval", "MinTimeInterval", "ExceptionDeviation",
                             "ExceptionDeviationFormat", "StartOfArchive", "StartOfOnlineArchive",
                             "ServerTimestampSupported"})
      o.optional.push_back(ua::qualified_name{0, ua::ua_string(name)});
    if (const ua::status_code sc = apply_node_change(as, o, now); sc.is_bad()) return sc;
    object = own_configuration(as, variable);
    if (object == ua::no_node) return ua::status::bad_internal_error;
  }
  set_values(as, object, c, now);
  return archive_properties{child_named(as, object, "StartOfArchive"), child_named(as, object, "StartOfOnlineArchive")};
}

history::aggregate_configuration configuration_for(const ua::address_space& as, ua::node_index variable) {
  history::aggregate_configuration out;
  ua::node_index object = variable == ua::no_node ? ua::no_node : own_configuration(as, variable);
  if (object == ua::no_node) object = as.find(ua::node_id(0, default_ha_configuration));
  if (object != ua::no_node) read_values(as, object, out);
  return out;
}

collection_settings collection_for(const ua::address_space& as, ua::node_index variable) {
  collection_settings out;
  if (variable == ua::no_node || variable >= as.size() || as.at(variable).cls != ua::node_class::variable) return out;
  ua::node_index object = own_configuration(as, variable);
  if (object == ua::no_node) object = as.find(ua::node_id(0, default_ha_configuration));
  if (object != ua::no_node) read_collection(as, object, out);
  return out;
}

std::optional<double> deviation_range_span(const ua::address_space& as, ua::node_index variable, deviation_format f) {
  const char* name = f == deviation_format::percent_of_range      ? "InstrumentRange"
                     : f == deviation_format::percent_of_eu_range ? "EURange"
                                                                  : nullptr;
  if (!name || variable == ua::no_node) return std::nullopt;
  const ua::node_index property = child_named(as, variable, name);
  const ua::variable_data* v = property == ua::no_node ? nullptr : as.variable(property);
  const auto* eo = v && v->value.has_value ? v->value.value.get_if<ua::extension_object>() : nullptr;
  const auto* r = eo ? eo->get_if<ua::range>() : nullptr;
  if (!r) return std::nullopt;
  return std::fabs(r->high - r->low);
}

std::vector<ua::node_index> archive_starts::variables() const {
  std::vector<ua::node_index> out;
  out.reserve(starts_.size());
  for (const auto& [v, e] : starts_) out.push_back(v);
  return out;
}

void archive_starts::recorded(ua::node_index variable, std::int64_t ticks) {
  const auto it = starts_.find(variable);
  if (it == starts_.end() || (it->second.ticks != 0 && it->second.ticks <= ticks)) return;
  it->second.ticks = ticks;
  changed_.push_back(variable);
}

void archive_starts::answered(ua::node_index variable, std::optional<std::int64_t> ticks) {
  const auto it = starts_.find(variable);
  if (it == starts_.end()) return;
  const std::int64_t t = ticks.value_or(0);
  if (it->second.ticks == t) return;
  it->second.ticks = t;
  changed_.push_back(variable);
}

void archive_starts::apply(ua::address_space& as, ua::date_time now) {
  std::sort(changed_.begin(), changed_.end());
  changed_.erase(std::unique(changed_.begin(), changed_.end()), changed_.end());
  for (const ua::node_index v : changed_) {
    const auto it = starts_.find(v);
    if (it == starts_.end()) continue;
    const entry& e = it->second;
    ua::variant value;
    if (e.ticks != 0) value = ua::variant(ua::date_time{e.ticks});
    set_property(as, e.property, value, now);
    set_property(as, e.online, value, now);  // everything uactor keeps is online
  }
  changed_.clear();
}

}  // namespace uactor::actors
