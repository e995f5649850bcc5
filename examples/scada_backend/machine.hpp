// A machine of the OPC UA for Machinery companion specification (OPC 40001-1): the DI, IA and
// Machinery NodeSet2 files loaded at start (server::load_nodeset), then one machine instantiated
// from their types through the same API as the plant's own nodes.
#pragma once

#include <string>

#include <uactor/runtime.hpp>

namespace scada {

// Loads Opc.Ua.Di.NodeSet2.xml, Opc.Ua.IA.NodeSet2.xml and Opc.Ua.Machinery.NodeSet2.xml from
// `nodesets_dir` and adds the machine Machines/Press1 (namespace `ns`) with its Identification;
// prints what it loaded. False (with the errors on stderr) when a file or a node is refused.
bool add_machine(uactor::server& server, const std::string& nodesets_dir, std::uint16_t ns);

}  // namespace scada
