// The historical configuration of HistoricalDataNodes as nodes (Part 11 §5.2.2-§5.2.4, §5.7.3):
// the Server's DefaultHAConfiguration (ns0 i=32637) for the variables without one of their own,
// an "HA Configuration" Object under a variable (HasHistoricalConfiguration) for those with one.
// The nodes are the one copy: HistoryRead reads the aggregate configuration and Stepped back from
// them (configuration_for), so what a client browses is what the calculation uses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/server/history/aggregates.hpp"
#include "engine/server/history_collection.hpp"
#include "protocol/address_space.hpp"

namespace uactor::actors {

// Part 11 §5.2.2 HistoricalDataConfigurationType: what a plant file or an application sets.
// MinTimeInterval, MaxTimeInterval, ExceptionDeviation and its format say how values are
// collected; the recorder reads them back from the nodes (collection_for).
struct historical_configuration {
  history::aggregate_configuration aggregate;  // AggregateConfiguration, and Stepped
  std::string definition;                      // Definition: how the value is made ("" none)
  collection_settings collection;              // the four collection properties
};

// DefaultHAConfiguration's values (Part 11 §5.7.3) when history is on: `c`, ServerTimestampSupported,
// MaxTimeStoredValues (retention by age, ms; 0 none) and MaxCountStoredValues (by count; 0 none).
// Off: its values are emptied again. Skipped when namespace 0 lacks the nodes.
void set_default_ha_configuration(ua::address_space& as, bool on, const historical_configuration& c,
                                  double max_time_stored_ms, std::uint32_t max_count_stored, ua::date_time now);

// Gives Variable `variable` an "HA Configuration" Object of HistoricalDataConfigurationType
// (HasHistoricalConfiguration from the variable; NodeIds `<variable>.HA Configuration...` as
// node_builder's child_node_id makes them) with `c`, or sets `c` into the one it has. Returns its
// StartOfArchive property's index, or Bad_NodeIdUnknown, Bad_NodeClassInvalid (not a Variable),
// Bad_NodeIdExists (the id is another node's).
struct archive_properties {
  ua::node_index start = ua::no_node;
  ua::node_index online = ua::no_node;
};
ua::expected<archive_properties> set_ha_configuration(ua::address_space& as, ua::node_index variable,
                                                  const historical_configuration& c, ua::date_time now);

// The configuration HistoryRead uses for `variable` (Part 11 §5.7.3): its own HA Configuration's,
// else DefaultHAConfiguration's, property by property; a property without a value keeps Part 13's
// default (history::aggregate_configuration{}).
history::aggregate_configuration configuration_for(const ua::address_space& as, ua::node_index variable);

// The collection settings the recorder uses for `variable`, from the same nodes the same way
// (its HA Configuration's, else DefaultHAConfiguration's); all 0 for a node that is not a Variable
// (event records of notifiers are stored as they come).
collection_settings collection_for(const ua::address_space& as, ua::node_index variable);

// The width of the range a percent-of-range format takes: the variable's InstrumentRange
// (PercentOfRange) or EURange (PercentOfEURange) property (Part 8 §5.3.2.2), |high - low|;
// nullopt when the variable has none, or for another format.
std::optional<double> deviation_range_span(const ua::address_space& as, ua::node_index variable, deviation_format f);

// StartOfArchive (Part 11 §5.2.2: "the date before which there is no data in the archive") of the
// variables with an HA Configuration of their own, kept to what the store holds: the host asks the
// store (through the history reader) when the objects are made, after HistoryUpdates and on the
// housekeeping tick (retention); values it records earlier than the known start move it at once.
class archive_starts {
public:
  void add(ua::node_index variable, ua::node_index start_property, ua::node_index online_property) {
    starts_[variable] = {start_property, online_property, 0};
    changed_.push_back(variable);
  }
  bool empty() const noexcept { return starts_.empty(); }
  bool contains(ua::node_index variable) const noexcept { return starts_.count(variable) != 0; }
  std::vector<ua::node_index> variables() const;
  // A value recorded for `variable` at `ticks` (the record time): remembered, set by apply().
  void recorded(ua::node_index variable, std::int64_t ticks);
  // What the store answered: the first record's time, or none (StartOfArchive empty).
  void answered(ua::node_index variable, std::optional<std::int64_t> ticks);
  bool changed() const noexcept { return !changed_.empty(); }
  // Writes the changed starts into the StartOfArchive and StartOfOnlineArchive properties.
  void apply(ua::address_space& as, ua::date_time now);

private:
  struct entry {
    ua::node_index property;
    ua::node_index online;
    std::int64_t ticks;  // 0: nothing known in the archive
  };
  std::unordered_map<ua::node_index, entry> starts_;
  std::vector<ua::node_index> changed_;  // variables whose start moved since apply()
};

}  // namespace uactor::actors
