#include "engine/client/keep_alive.hpp"

namespace uactor::actors {

ua::read_request keep_alive_check::request() {
  ua::read_request req;
  ua::read_value_id id;
  id.node_id = ua::node_id(0, 2259);  // Server_ServerStatus_State
  id.attribute_id = 13;               // Value
  req.nodes_to_read.push_back(std::move(id));
  return req;
}

}  // namespace uactor::actors
