// server::load_nodeset's half on the server's thread: the parsed file checked against the address
// space and applied (nodeset/importer.hpp), its namespaces registered in the NamespaceArray, its
// models remembered for the RequiredModels of later files. The caller owns everything passed in.
#pragma once

#include <string>
#include <vector>

#include "nodeset/importer.hpp"
#include "protocol/address_space.hpp"
#include "uactor/server.hpp"

namespace uactor::app {

// `models` holds the models loaded so far (namespace 0's first); the file's are appended on success.
nodeset_report apply_nodeset(ua::address_space& as, const nodeset::document& doc, std::vector<nodeset::model>& models,
                             const nodeset_options& options, ua::date_time now);

// The report of a file that did not parse (or could not be read): its errors.
nodeset_report refused_nodeset(const nodeset::document& doc);

}  // namespace uactor::app
