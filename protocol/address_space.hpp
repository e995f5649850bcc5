// The information model of Part 3: nodes of the eight node classes, their attributes and the
// references between them, in one store. The store owns everything it hands out; spans and
// references into it stay valid until the next add_node or add_reference.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "uactor/ua/builtin_types.hpp"
#include "uactor/ua/expected.hpp"
#include "uactor/ua/attribute_ids.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "uactor/ua/variant.hpp"

namespace uactor::ua {

// A node's position in the store: dense, assigned in the order nodes are added, never reused.
using node_index = std::uint32_t;
inline constexpr node_index no_node = 0xFFFF'FFFFu;

// A LocalizedText the store does not own the characters of: they live in the store's arena, or
// in static storage for namespace 0. A part whose data() is null is a null string.
struct text_view {
  std::string_view locale;
  std::string_view text;
  bool is_null() const noexcept { return locale.data() == nullptr && text.data() == nullptr; }
};

// A NodeId as the store keeps it (24 bytes instead of ua::node_id's 56): `text` holds the String
// or ByteString identifier, or the 16 bytes of a Guid, in the store's arena.
struct node_key {
  std::string_view text;
  std::uint32_t numeric = 0;
  std::uint16_t ns = 0;
  node_id_type type = node_id_type::numeric;

  bool matches(const node_id& id) const noexcept;
  // Into a reused node_id: no allocation for a numeric id, the string storage kept otherwise.
  void to_node_id(node_id& out) const;
  node_id to_node_id() const;
};

// One end of a reference as its node stores it: both ends store it, the source as
// forward and the target as inverse, so that Browse in either direction is a lookup.
// `serial` numbers the references of one node in the order they were added: within the forward
// ones and within the inverse ones it only ascends (new ones go last, removals keep the order), so
// a Browse continuation point is "after serial s" and stays right while references come and go
// (docs/decisions/0025).
struct reference {
  node_index type;       // the ReferenceType node
  node_index target;     // the node at the other end
  std::uint32_t serial;  // per node, ascending in the order added
  bool is_forward;
};

// The attributes of Variable and VariableType nodes (Part 3 §5.6.2, §5.6.5).
struct variable_data {
  data_value value;
  node_key data_type;  // need not be in the store yet (a user type added later)
  std::int32_t value_rank = -1;  // Scalar
  ua_array<std::uint32_t> array_dimensions;
  std::uint8_t access_level = 1;       // CurrentRead (the NodeSet default)
  std::uint8_t user_access_level = 1;
  bool historizing = false;
  double minimum_sampling_interval = 0;
  bool monitored = false;  // set_value tells the value_observer (subscriptions watch this node)
};

// Told of every Value that set_value stores for a node marked monitored: the subscriptions'
// change fan-out (docs/decisions/0010). Called synchronously, with the stored value; it must not
// change the store.
class value_observer {
public:
  virtual void value_changed(node_index n, const data_value& value) = 0;
  // Told of every Value that set_value stores for a Variable whose Historizing attribute is true
  // (Part 3 §5.6.2, Part 11 §5.2): the historian's recording; the same rules as value_changed.
  virtual void historized_value_changed(node_index n, const data_value& value) {
    (void)n;
    (void)value;
  }

protected:
  ~value_observer() = default;
};

// A node: the common attributes (Part 3 §5.2) and the small attributes of the other classes
// inline; the Variable/VariableType attributes, a ReferenceType's InverseName and a DataType's
// DataTypeDefinition are kept apart (`detail` indexes them) so that the nodes without them stay small.
struct node {
  node_key id;
  std::string_view browse_name;
  text_view display_name;
  text_view description;
  std::uint32_t write_mask = 0;
  std::uint32_t user_write_mask = 0;
  node_class cls = node_class::unspecified;
  std::uint32_t detail = 0;             // into variables, inverse names or definitions, by class
  std::uint32_t forward_count = 0;      // references: forward ones first, then inverse
  std::uint16_t browse_ns = 0;
  std::uint8_t event_notifier = 0;      // Object, View
  bool is_abstract = false;             // ObjectType, VariableType, ReferenceType, DataType
  bool symmetric = false;               // ReferenceType
  bool contains_no_loops = false;       // View
  bool executable = true;               // Method
  bool user_executable = true;          // Method
  bool removed = false;                 // remove_node: find() no longer finds it, its index stays taken
  std::uint32_t last_serial = 0;        // of the references: the serial given last
  std::uint32_t serial_epoch = 0;       // counts renumber_references: older positions are void
  std::vector<reference> references;
};

// What add_node takes. The strings are views: the store copies them into its arena, or keeps
// the views when the caller says they are static (namespace 0's string literals).
struct node_spec {
  node_id id;
  node_class cls = node_class::unspecified;
  std::uint16_t browse_ns = 0;
  std::string_view browse_name;
  text_view display_name;  // null: the browse name (Part 3 §5.2.5 lets a server choose)
  text_view description;
  std::uint32_t write_mask = 0;
  std::uint32_t user_write_mask = 0;
  bool is_abstract = false;
  bool symmetric = false;
  text_view inverse_name;
  std::uint8_t event_notifier = 0;
  bool contains_no_loops = false;
  bool executable = true;
  bool user_executable = true;
  // Variable, VariableType
  data_value value;
  node_id data_type{0, 24};  // BaseDataType
  std::int32_t value_rank = -1;
  ua_array<std::uint32_t> array_dimensions;
  std::uint8_t access_level = 1;
  std::uint8_t user_access_level = 1;
  double minimum_sampling_interval = 0;
  bool historizing = false;
  // DataType: a StructureDefinition or EnumDefinition body, or empty (abstract and simple types)
  extension_object data_type_definition;
};

enum class strings : std::uint8_t {
  copy,     // the store copies the strings of a node_spec into its arena
  static_,  // the strings are in static storage (string literals) and are kept as views
};

class address_space {
public:
  address_space();
  ~address_space();
  address_space(address_space&&) noexcept;
  address_space& operator=(address_space&&) noexcept;
  address_space(const address_space&) = delete;
  address_space& operator=(const address_space&) = delete;

  // Room for `nodes` nodes in total, `variables` of them Variables or VariableTypes, so that
  // loading neither rehashes nor moves what it added.
  void reserve(std::size_t nodes, std::size_t variables = 0);

  // Bad_NodeIdInvalid (null id), Bad_NodeIdExists, Bad_NodeClassInvalid, Bad_BrowseNameInvalid
  // (empty); otherwise the new node's index. The value, array dimensions and data type
  // definition of the spec are moved from.
  expected<node_index> add_node(node_spec&& spec, strings s = strings::copy);

  // Stores the reference at both ends. Bad_SourceNodeIdInvalid, Bad_TargetNodeIdInvalid,
  // Bad_ReferenceTypeIdInvalid (not a ReferenceType node, or an abstract one),
  // Bad_DuplicateReferenceNotAllowed. References to other servers are not kept here.
  status_code add_reference(node_index source, node_index type, node_index target);
  status_code add_reference(const node_id& source, const node_id& type, const node_id& target);
  // Removes the reference (both ends), e.g. to retype an instance of namespace 0 (a HasTypeDefinition
  // replaced by a subtype's). Bad_NoMatch when there is no such forward reference. The serials of
  // the references left are kept: a Browse continuation point stays valid.
  status_code remove_reference(node_index source, node_index type, node_index target);

  // Removes node n and its references at both ends (Part 4 §5.8.4 DeleteNodes, one node). Its
  // index is never reused: at(n).removed says so, and find(), read() and set_value() treat it as
  // unknown. A monitored variable tells the observer a last value with Bad_NodeIdUnknown first.
  // Bad_NodeIdUnknown (no such node, or removed already).
  status_code remove_node(node_index n);

  // Numbers n's references 1, 2, ... again, in their order, and starts a new serial epoch (a
  // Browse continuation point into n becomes invalid). add_reference does it when n's serials
  // run out (after 2^32 - 1 references added to one node); public for the tests.
  void renumber_references(node_index n) noexcept;

  // Replaces a Variable's or VariableType's value; Bad_NodeIdUnknown or Bad_AttributeIdInvalid.
  // A node marked monitored tells the observer, after the value is stored; a historizing one too.
  status_code set_value(node_index n, data_value v);
  // The same for a Good value with both timestamps, copied into the stored value, whose storage
  // (strings, arrays) is reused when the type stays: a value rewritten often (a condition's state
  // Variables) allocates nothing once warm.
  status_code assign_value(node_index n, const variant& v, date_time source, date_time server);
  // Replaces a Variable's MinimumSamplingInterval (Part 3 §5.6.2; 0: changes are reported as they
  // happen), e.g. for a namespace-0 variable the server sets itself. Bad_NodeIdUnknown or
  // Bad_AttributeIdInvalid (not a Variable).
  status_code set_minimum_sampling_interval(node_index n, double ms);
  // Makes a Variable historize, or stop (Part 3 §5.6.2 Historizing), with the HistoryRead bit of
  // its AccessLevel and UserAccessLevel (Part 3 §8.57) to match. Bad_NodeIdUnknown or
  // Bad_NodeClassInvalid (not a Variable).
  status_code set_historizing(node_index n, bool historizing);
  // Sets or clears the HistoryWrite bit of a Variable's AccessLevel and UserAccessLevel (Part 3
  // §8.57): whether HistoryUpdate may change its history.
  status_code set_history_writable(node_index n, bool writable);
  // Sets or clears the CurrentWrite bit of a Variable's AccessLevel and UserAccessLevel (Part 3
  // §8.57): whether the Write service may change its Value (a RoleType's ApplicationsExclude,
  // Part 18 §4.4.1). Bad_NodeIdUnknown or Bad_NodeClassInvalid (not a Variable).
  status_code set_current_writable(node_index n, bool writable);
  // Sets or clears the HistoryRead bit of an Object's or View's EventNotifier (Part 3 §8.59): its
  // events' history can be read; with `writable` (and `on`) the HistoryWrite bit too: HistoryUpdate
  // may change it (cleared otherwise).
  status_code set_event_history(node_index n, bool on, bool writable = false);
  // The one observer of value changes (null: none); it must outlive its registration.
  void set_observer(value_observer* o) noexcept { observer_ = o; }
  // Marks a Variable (or VariableType) as watched, or not; false for the other classes.
  bool set_monitored(node_index n, bool monitored) noexcept;
  // Replaces the DisplayName or Description of a node (the Write service checks the WriteMask);
  // the text is copied into the arena. Bad_NodeIdUnknown or Bad_AttributeIdInvalid (another attribute).
  status_code set_text(node_index n, attribute_id attr, const localized_text& t);

  // The node with this id, or no_node. A hash lookup; allocates nothing.
  node_index find(const node_id& id) const noexcept;
  // The node at an index find or a reference gave; index < size().
  const node& at(node_index n) const noexcept { return nodes_[n]; }
  std::size_t size() const noexcept { return nodes_.size(); }
  std::size_t reference_count() const noexcept { return reference_count_; }  // each counted once
  std::size_t variable_count() const noexcept { return variables_.size(); }  // Variables and VariableTypes

  // The Variable/VariableType attributes of n; null for the other classes.
  const variable_data* variable(node_index n) const noexcept;

  std::span<const reference> references(node_index n) const noexcept { return nodes_[n].references; }
  std::span<const reference> forward_references(node_index n) const noexcept {
    return references(n).first(nodes_[n].forward_count);
  }
  std::span<const reference> inverse_references(node_index n) const noexcept {
    return references(n).subspan(nodes_[n].forward_count);
  }

  // The supertype of a type node (its inverse HasSubtype), or no_node.
  node_index super_type(node_index type) const noexcept;
  // True when `type` is `super_type` or derives from it over HasSubtype (Part 3 §7.10);
  // either may be no_node (then false).
  bool is_subtype_of(node_index type, node_index super_type) const noexcept;
  bool is_subtype_of(const node_id& type, const node_id& super_type) const noexcept;

  // Reads one attribute into `out` (Part 4 §5.10.2): the value and has_value, or the status
  // (Bad_NodeIdUnknown, Bad_AttributeIdInvalid for an attribute the node class lacks) with
  // has_status. The storage `out` already holds is reused: reading scalar attributes into a
  // reused data_value allocates nothing. Timestamps are the service's to set. Returns the status.
  status_code read(node_index n, attribute_id attr, data_value& out) const;
  status_code read(const node_id& id, attribute_id attr, data_value& out) const;

private:
  node_key intern(const node_id& id);
  std::string_view intern(std::string_view s, strings how);
  text_view intern(text_view t, strings how);
  void grow_index(std::size_t capacity);
  void index_insert(node_index n);
  std::uint32_t next_serial(node_index n) noexcept;

  std::vector<node> nodes_;
  std::vector<variable_data> variables_;
  std::vector<text_view> inverse_names_;
  std::vector<extension_object> definitions_;
  // Open addressing, linear probing, of node indices (no_node = empty); size a power of two.
  std::vector<node_index> index_;
  std::size_t index_mask_ = 0;
  std::size_t reference_count_ = 0;
  node_index has_subtype_ = no_node;  // ns=0;i=45, once added
  value_observer* observer_ = nullptr;
  // The arena of copied strings: blocks that never move, never freed before the store.
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* block_pos_ = nullptr;
  std::size_t block_left_ = 0;
};

// Adds the nodes and references of namespace 0 (Opc.Ua.NodeSet2.xml), generated into
// protocol/ns0/ by tools/codegen/nodeset.py. Throws std::logic_error when the store already
// holds one of its nodes (a programmer error: load it once, first).
void load_namespace0(address_space& as);

}  // namespace uactor::ua
