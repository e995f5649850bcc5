// server::load_nodeset on the server's thread (docs/decisions/0015-nodeset-import.md).
#include "runtime/nodeset_loader.hpp"

#include <string>

#include <spdlog/spdlog.h>

#include "engine/server/server_object.hpp"
#include "uactor/ua/node_ids.hpp"

namespace uactor::app {

namespace {

std::vector<std::string> namespace_array(const ua::address_space& as) {
  std::vector<std::string> out;
  const ua::node_index n = as.find(ua::node_id(0, ua::ids::server_namespace_array));
  const ua::variable_data* v = n == ua::no_node ? nullptr : as.variable(n);
  if (const auto* uris = v ? v->value.value.get_if<ua::ua_array<ua::ua_string>>() : nullptr)
    for (const auto& u : *uris) out.emplace_back(u.view());
  if (out.empty()) out.emplace_back(nodeset::namespace0_model().uri);
  return out;
}

std::vector<std::string> texts(const std::vector<nodeset::error>& errors) {
  std::vector<std::string> out;
  out.reserve(errors.size());
  for (const auto& e : errors) out.push_back(e.to_string());
  return out;
}

}  // namespace

nodeset_report refused_nodeset(const nodeset::document& doc) {
  nodeset_report r;
  r.errors = texts(doc.errors());
  return r;
}

nodeset_report apply_nodeset(ua::address_space& as, const nodeset::document& doc, std::vector<nodeset::model>& models,
                             const nodeset_options& options, ua::date_time now) {
  const std::vector<std::string> namespaces = namespace_array(as);
  nodeset::server_state state{namespaces, models, now, options.accept_older_models};
  nodeset::import_result result = nodeset::import(doc, as, state);
  nodeset_report r;
  r.errors = texts(result.errors);
  r.warnings = texts(result.warnings);
  for (const auto& w : r.warnings) spdlog::warn("nodeset: {}", w);
  if (!result.ok()) {
    spdlog::error("nodeset {}: refused with {} errors, the first: {}", doc.file_name(), r.errors.size(), r.errors.front());
    return r;
  }
  // The importer gave the new URIs the indices after the current array, in this order, and this
  // runs in the same step on the server's thread: nothing registered one in between.
  for (const std::string& uri : result.new_namespaces) actors::register_namespace(as, uri, now);
  r.registered_namespaces = std::move(result.new_namespaces);
  for (auto& m : result.models) models.push_back(std::move(m));
  r.nodes = result.nodes;
  r.references = result.references;
  spdlog::info("nodeset {}: {} nodes, {} references", doc.file_name(), r.nodes, r.references);
  return r;
}

}  // namespace uactor::app
