// The runtime's side of the historian (docs/history.md): the store a history_plan names, and the
// Variables its `historize` patterns make historize.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/server/history_configuration.hpp"
#include "history/history_store.hpp"
#include "protocol/address_space.hpp"
#include "uactor/server_plan.hpp"

namespace uactor {

// The plan's store, opened (created when missing). history::store_error names the file and why.
std::shared_ptr<history::history_store> open_history_store(const history_plan& plan);

// Sets Historizing (and the HistoryRead access bit) on every Variable whose NodeId text matches a
// pattern (exact, or a prefix before a trailing '*'). Returns how many; `unmatched` gets the
// patterns that matched none.
std::size_t historize_matching(ua::address_space& as, const std::vector<std::string>& patterns,
                               std::vector<std::string>& unmatched);

// The collection settings of the plan's defaults and configurations that are out of their bounds
// (history_configuration_plan), one message each ("history.defaults: ..."); empty when all are
// good. An application's plan is checked with it when the server opens, as the plant file's
// reader checks a plant file's with line and column.
std::vector<std::string> collection_errors(const history_plan& plan);

// The plan's configuration as the engine takes it.
actors::historical_configuration to_historical_configuration(const history_configuration_plan& p);

// The historizing Variables each of `configurations` names (the first entry that matches a
// Variable is its), with that configuration; `unmatched` gets the patterns that matched none.
std::vector<std::pair<ua::node_id, actors::historical_configuration>> configured_variables(
    const ua::address_space& as, const std::vector<history_configuration_plan>& configurations,
    std::vector<std::string>& unmatched);

// Sets the HistoryWrite access bit on every historizing Variable ([history] updates); returns how many.
std::size_t allow_history_updates(ua::address_space& as);

}  // namespace uactor
