// The limits the attribute and view services enforce (docs/configuration.md, [server]). A plain value: the
// server configuration fills one and the session hands it to each service call.
#pragma once

#include <cstddef>
#include <cstdint>

namespace uactor::services {

struct service_limits {
  std::size_t max_nodes_per_read = 10'000;
  std::size_t max_nodes_per_write = 10'000;
  std::size_t max_nodes_per_browse = 10'000;
  std::size_t max_nodes_per_translate_browse_paths = 10'000;
  std::size_t max_nodes_per_method_call = 10'000;
  std::size_t max_nodes_per_register_nodes = 10'000;  // RegisterNodes and UnregisterNodes
  // Browse: references per node when the client asks for 0 ("no limit", Part 4 §5.8.2.2).
  std::uint32_t max_references_per_node = 1'000;
  // Browse continuation points one session may hold (Part 4 §7.9).
  std::size_t max_browse_continuation_points = 10;
};

}  // namespace uactor::services
