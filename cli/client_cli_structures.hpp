// The structure_resolver of the client commands: decodes the ExtensionObjects the client has no
// generated type for by the DataTypeDefinition the server serves (Read of attribute 23, Browse of
// HasEncoding and HasSubtype), each type asked once. Private to cli/client_cli*.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/client_cli_output.hpp"

namespace uactor {
class client;
}

namespace uactor::app::client_cli {

// How a structure is laid out on the wire: its DataTypeDefinition and, per field, the built-in
// type it decodes as or the structure it holds inline (Part 6 §5.2.6).
struct structure_layout;
struct field_layout {
  ua::builtin_type type = ua::builtin_type::null;  // null: a type that cannot be decoded
  const structure_layout* structure = nullptr;     // an inline structure
};
struct structure_layout {
  std::string name;
  ua::structure_definition definition;
  std::vector<field_layout> fields;  // one per definition.fields
};

// A structure's body decoded by its layout: fields in order (optional fields that are absent and
// union fields not chosen are left out). Inline structures come back as ExtensionObjects of their
// DefaultBinary encoding id and bytes, for the resolver to decode again. nullopt for a body that is
// truncated, has bytes left over, nests deeper than 16, or holds a field of unknown type: the
// caller prints it by TypeId.
std::optional<field_list> decode_structure(std::span<const std::uint8_t> body, const structure_layout& layout);

class server_structures final : public structure_resolver {
public:
  explicit server_structures(client& c);  // `c` outlives this
  ~server_structures() override;

  std::optional<structure_view> fields(const ua::extension_object& x) override;

  // Asks the server now about a DataType (and the structures inside it), then never again:
  // for the subscribe command, whose values are printed on a client thread that must not wait for
  // the server (client.hpp). Unknown types then print by TypeId.
  void prefetch(const ua::node_id& data_type);
  void go_offline() noexcept { offline_ = true; }

private:
  const ua::data_value* read_attribute(const ua::node_id& node, std::uint32_t attribute, ua::data_value& out);
  std::optional<ua::node_id> inverse_target(const ua::node_id& node, std::uint32_t reference_type);
  const structure_layout* by_data_type(const ua::node_id& data_type, int depth);
  const structure_layout* by_encoding(const ua::node_id& encoding);
  field_layout kind_of(const ua::node_id& data_type, int depth);

  client* client_;
  bool offline_ = false;
  std::map<std::string, std::unique_ptr<structure_layout>> types_;  // by DataType NodeId; null: not a structure
  std::map<std::string, const structure_layout*> encodings_;        // by encoding NodeId
};

}  // namespace uactor::app::client_cli
