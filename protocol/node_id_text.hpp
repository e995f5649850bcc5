// The text forms of NodeIds and ExpandedNodeIds (Part 6 §5.3.1.10, §5.3.1.11; the grammar of
// §5.1.12), both ways: "i=85", "ns=1;s=the.answer", "ns=2;g=72962B91-FA75-4AE6-8D28-B404DC7DAF63",
// "ns=3;b=AQID", "svr=1;nsu=urn:plant;s=Tag1". node_id::to_string (builtin_types.hpp) writes a
// NodeId; it is defined in node_id_text.cpp beside its inverse.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "uactor/ua/builtin_types.hpp"
#include "uactor/ua/expected.hpp"

namespace uactor::ua {

// Part 3 §8.2.4: a String identifier has at most 4096 characters, an Opaque one 4096 bytes.
inline constexpr std::size_t max_node_id_identifier = 4096;

// ["ns=" index ";"] ("i=" | "s=" | "g=" | "b=") identifier, exactly: no white space around it
// (a String identifier keeps its own), the index and a numeric identifier in decimal, a Guid as
// parse_guid reads it, an Opaque identifier in strict base64. parse_node_id(n.to_string()) == n
// for every NodeId. Bad_NodeIdInvalid otherwise (also for "nsu=" and "svr=", which only an
// ExpandedNodeId carries); `why`, when given, says what is wrong.
expected<node_id> parse_node_id(std::string_view text, std::string* why = nullptr);

// ["svr=" index ";"] ["ns=" index ";" | "nsu=" uri ";"] and a NodeId's identifier as above; in the
// URI, '%' and ';' are percent-encoded (%25, %3B), and any %XX is decoded. Bad_NodeIdInvalid
// otherwise, with `why` as above.
expected<expanded_node_id> parse_expanded_node_id(std::string_view text, std::string* why = nullptr);

// "svr=" and "nsu=" only when they are not 0 and null; with a NamespaceUri the index is left out
// (Part 6 §5.3.1.11: "the NamespaceIndex shall not be present if the URI is present").
std::string to_string(const expanded_node_id& id);

}  // namespace uactor::ua
