// The service requests this server knows, one row each: its request type, whether it needs a
// session, and the handler that serves it (none: the request is answered Bad_ServiceUnsupported,
// Part 4 §7.34). The rows are in engine/server/service_table.cpp, in the order of Part 4 §5's
// Service Sets; a new service is one row there and one handler in server_core (as open62541's
// serviceDescriptions[]).
//
// One table, read by everything that asks "which service is this": the secure channel (which
// encodings it decodes as requests), session_manager::route (sessions or not), server_core::handle
// (the handler), and the metrics (a row's position is its request counter, server_metrics.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "engine/common/clock.hpp"
#include "protocol/byte_buffer.hpp"

namespace uactor::ua {
struct extension_type;
class extension_body;
class extension_object;
struct request_header;
}  // namespace uactor::ua

namespace uactor::actors {

class server_core;
struct session;

// What a session means to a service (Part 4 §5: the Session Service Set, and the Discovery
// services a client calls before it has a session).
enum class session_use : std::uint8_t {
  required,  // routed with its activated session; the AuthenticationToken is checked first
  none,      // Discovery: routed without a session
  managed,   // CreateSession, ActivateSession, CloseSession: answered by session_manager::route
};

// One request, for its handler: everything but the body and the server's own state.
struct service_call {
  session* s;  // null exactly when the row's session_use is `none`
  std::uint32_t channel_id;
  std::uint32_t request_id;
  const ua::request_header& header;
  const instant& now;
  ua::byte_buffer& out;  // the encoded response message goes here; left empty when answered later
};

struct service_descriptor {
  const ua::extension_type* request_type;  // e.g. &ua::read_request::extension_type_info
  std::uint32_t binary_encoding_id;        // the request's DefaultBinary encoding (namespace 0)
  session_use session;
  // The handler, with the body already known to be of request_type; null: not served here.
  void (*serve)(server_core&, const ua::extension_body&, const service_call&);
};

// The rows, in table order (which is also the order of the request counters).
std::span<const service_descriptor> service_table() noexcept;
// The row of a request, by its body's encoding id; null for an empty, unknown or XML body, or a
// structure that is not a service request. No allocation: a binary search over a sorted array.
const service_descriptor* find_service(std::uint32_t binary_encoding_id) noexcept;
const service_descriptor* find_service(const ua::extension_object& request) noexcept;
// A row's position in service_table(); service_table().size() for no row.
inline std::size_t service_position(const service_descriptor* d) noexcept {
  return d ? static_cast<std::size_t>(d - service_table().data()) : service_table().size();
}

}  // namespace uactor::actors
