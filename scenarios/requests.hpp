// The requests each load scenario sends, and the byte sizes of a Read on the wire (the floor
// scenario sends exactly as many bytes each way). The harness builds each request once and copies it.
#pragma once

#include <cstddef>
#include <string>

#include "protocol/generated/type_codecs.hpp"

namespace uactor::scenarios {

// The demo namespace has few variables (docs/demo-namespace.md), so every item of a request
// names the same node: a writable Double, so that read and write touch the same value.
inline constexpr const char* value_node = "ns=1;s=Demo.Static.Scalar.Double";
// Browse: the Server object (i=2253), forward hierarchical references, every result field.
inline constexpr const char* browse_node = "i=2253 (Server)";

ua::read_request make_read_request(std::size_t nodes);
ua::write_request make_write_request(std::size_t nodes);
ua::browse_request make_browse_request(std::size_t nodes);

struct wire_sizes {
  std::size_t request = 0;   // bytes of every MSG chunk of the request, headers included
  std::size_t response = 0;  // the same for the response
};

// A Read of `nodes` values (TimestampsToReturn Both, as make_read_request) and its ReadResponse
// of Double values with both timestamps, each encoded with the codec and chunked as MSG chunks of
// a channel with policy None and 65,535-byte chunks (the defaults).
wire_sizes read_wire_sizes(std::size_t nodes);

}  // namespace uactor::scenarios
