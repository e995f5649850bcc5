// Whether an AttributeId names an attribute of Part 3 §5.9 (NodeId .. AccessLevelEx); Read and
// Write answer any other with Bad_AttributeIdInvalid (Part 4 §5.10.2.4, §5.10.4.4).
#pragma once

#include <cstdint>

#include "uactor/ua/attribute_ids.hpp"

namespace uactor::services {

constexpr bool known_attribute(std::uint32_t a) noexcept {
  return a >= static_cast<std::uint32_t>(ua::attribute_id::node_id) &&
         a <= static_cast<std::uint32_t>(ua::attribute_id::access_level_ex);
}

}  // namespace uactor::services
