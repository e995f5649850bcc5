// The node store of Part 3: one vector of nodes, an open-addressing index of node ids, both ends
// of every reference, and an arena for the strings of nodes added at run time.
#include "protocol/address_space.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "uactor/ua/status_codes.hpp"

namespace uactor::ua {
namespace {

static_assert(sizeof(guid) == 16, "a Guid is kept as its 16 bytes");

constexpr std::uint32_t has_subtype_id = 45;  // ns=0;i=45 HasSubtype
constexpr std::size_t arena_block = 64 * 1024;
constexpr char empty_text[] = "";             // an empty, not null, copied string points here

// The finaliser of MurmurHash3: sequential numeric ids spread over the whole table.
constexpr std::uint64_t mix(std::uint64_t x) noexcept {
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDull;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ull;
  x ^= x >> 33;
  return x;
}

std::uint64_t hash_of(std::uint16_t ns, node_id_type type, std::uint32_t numeric, std::string_view bytes) noexcept {
  if (type == node_id_type::numeric) return mix((std::uint64_t{ns} << 32) | numeric);
  std::uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a
  for (const char c : bytes) h = (h ^ static_cast<std::uint8_t>(c)) * 0x100000001B3ull;
  return mix(h ^ (std::uint64_t{ns} << 40) ^ (std::uint64_t(type) << 56));
}

std::string_view guid_bytes(const guid& g) noexcept {
  return {reinterpret_cast<const char*>(&g), sizeof g};
}

std::uint64_t hash_of(const node_id& id) noexcept {
  switch (id.type()) {
    case node_id_type::numeric: return hash_of(id.namespace_index(), id.type(), id.numeric(), {});
    case node_id_type::guid: return hash_of(id.namespace_index(), id.type(), 0, guid_bytes(id.guid_value()));
    default: return hash_of(id.namespace_index(), id.type(), 0, id.text());
  }
}

std::uint64_t hash_of(const node_key& k) noexcept { return hash_of(k.ns, k.type, k.numeric, k.text); }

bool valid_class(node_class c) noexcept {
  switch (c) {
    case node_class::object: case node_class::variable: case node_class::method:
    case node_class::object_type: case node_class::variable_type: case node_class::reference_type:
    case node_class::data_type: case node_class::view:
      return true;
    default:
      return false;
  }
}

bool has_variable_data(node_class c) noexcept {
  return c == node_class::variable || c == node_class::variable_type;
}

// The value of an attribute, into the alternative `out` already holds when it is a T.
template <class T>
T& put(data_value& out) {
  out.has_value = true;
  out.has_status = false;
  out.status = status_code{};
  return out.value.emplace<T>();
}

void put_string(ua_string& s, std::string_view v) {
  if (v.data() == nullptr) s.set_null();
  else s.assign(v);
}

void put_text(data_value& out, const text_view& t) {
  auto& lt = put<localized_text>(out);
  put_string(lt.locale, t.locale);
  put_string(lt.text, t.text);
}

status_code fail(data_value& out, status_code sc) {
  out.value.clear();
  out.has_value = false;
  out.status = sc;
  out.has_status = true;
  return sc;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// node_key

bool node_key::matches(const node_id& id) const noexcept {
  if (ns != id.namespace_index() || type != id.type()) return false;
  switch (type) {
    case node_id_type::numeric: return numeric == id.numeric();
    case node_id_type::guid: return text == guid_bytes(id.guid_value());
    default: return text == id.text();
  }
}

void node_key::to_node_id(node_id& out) const {
  switch (type) {
    case node_id_type::numeric: out.set_numeric(ns, numeric); break;
    case node_id_type::guid: {
      guid g;
      std::memcpy(&g, text.data(), sizeof g);
      out.set_guid(ns, g);
      break;
    }
    default: out.set_string(ns, text, type); break;
  }
}

node_id node_key::to_node_id() const {
  node_id id;
  to_node_id(id);
  return id;
}

// ---------------------------------------------------------------------------------------
// address_space: building

address_space::address_space() = default;
address_space::~address_space() = default;
address_space::address_space(address_space&&) noexcept = default;
address_space& address_space::operator=(address_space&&) noexcept = default;

void address_space::reserve(std::size_t n, std::size_t variables) {
  nodes_.reserve(n);
  variables_.reserve(variables);
  if (n * 2 > index_.size()) grow_index(n * 2);
}

std::string_view address_space::intern(std::string_view s, strings how) {
  if (s.data() == nullptr || how == strings::static_) return s;
  if (s.empty()) return {empty_text, 0};
  if (s.size() > block_left_) {
    const std::size_t size = std::max(arena_block, s.size());
    blocks_.push_back(std::make_unique<char[]>(size));
    block_pos_ = blocks_.back().get();
    block_left_ = size;
  }
  char* p = block_pos_;
  std::memcpy(p, s.data(), s.size());
  block_pos_ += s.size();
  block_left_ -= s.size();
  return {p, s.size()};
}

text_view address_space::intern(text_view t, strings how) {
  return {intern(t.locale, how), intern(t.text, how)};
}

node_key address_space::intern(const node_id& id) {
  node_key k;
  k.ns = id.namespace_index();
  k.type = id.type();
  switch (id.type()) {
    case node_id_type::numeric: k.numeric = id.numeric(); break;
    case node_id_type::guid: k.text = intern(guid_bytes(id.guid_value()), strings::copy); break;
    default: k.text = intern(id.text(), strings::copy); break;
  }
  return k;
}

void address_space::grow_index(std::size_t capacity) {
  std::size_t size = 64;
  while (size < capacity) size *= 2;
  index_.assign(size, no_node);
  index_mask_ = size - 1;
  for (node_index n = 0; n < nodes_.size(); ++n)
    if (!nodes_[n].removed) index_insert(n);
}

void address_space::index_insert(node_index n) {
  std::size_t i = hash_of(nodes_[n].id) & index_mask_;
  while (index_[i] != no_node) i = (i + 1) & index_mask_;
  index_[i] = n;
}

expected<node_index> address_space::add_node(node_spec&& spec, strings how) {
  if (spec.id.is_null()) return status::bad_node_id_invalid;
  if (find(spec.id) != no_node) return status::bad_node_id_exists;
  if (!valid_class(spec.cls)) return status::bad_node_class_invalid;
  if (spec.browse_name.empty()) return status::bad_browse_name_invalid;
  if ((nodes_.size() + 1) * 2 > index_.size()) grow_index((nodes_.size() + 1) * 2);

  const auto n = static_cast<node_index>(nodes_.size());
  node& x = nodes_.emplace_back();
  x.id = intern(spec.id);
  x.cls = spec.cls;
  x.browse_ns = spec.browse_ns;
  x.browse_name = intern(spec.browse_name, how);
  // A DisplayName that spells the BrowseName (most of a NodeSet file's do) shares its characters.
  if (spec.display_name.is_null()) x.display_name = text_view{{}, x.browse_name};
  else if (spec.display_name.text.data() && spec.display_name.text == spec.browse_name)
    x.display_name = text_view{intern(spec.display_name.locale, how), x.browse_name};
  else x.display_name = intern(spec.display_name, how);
  x.description = intern(spec.description, how);
  x.write_mask = spec.write_mask;
  x.user_write_mask = spec.user_write_mask;
  x.event_notifier = spec.event_notifier;
  x.is_abstract = spec.is_abstract;
  x.symmetric = spec.symmetric;
  x.contains_no_loops = spec.contains_no_loops;
  x.executable = spec.executable;
  x.user_executable = spec.user_executable;
  if (has_variable_data(spec.cls)) {
    x.detail = static_cast<std::uint32_t>(variables_.size());
    auto& v = variables_.emplace_back();
    v.value = std::move(spec.value);
    v.data_type = intern(spec.data_type);
    v.value_rank = spec.value_rank;
    v.array_dimensions = std::move(spec.array_dimensions);
    v.access_level = spec.access_level;
    v.user_access_level = spec.user_access_level;
    v.historizing = spec.historizing;
    v.minimum_sampling_interval = spec.minimum_sampling_interval;
  } else if (spec.cls == node_class::reference_type) {
    x.detail = static_cast<std::uint32_t>(inverse_names_.size());
    inverse_names_.push_back(intern(spec.inverse_name, how));
  } else if (spec.cls == node_class::data_type) {
    x.detail = static_cast<std::uint32_t>(definitions_.size());
    definitions_.push_back(std::move(spec.data_type_definition));
  }
  index_insert(n);
  if (x.id.ns == 0 && x.id.type == node_id_type::numeric && x.id.numeric == has_subtype_id) has_subtype_ = n;
  return n;
}

status_code address_space::add_reference(node_index source, node_index type, node_index target) {
  if (source >= nodes_.size() || nodes_[source].removed) return status::bad_source_node_id_invalid;
  if (target >= nodes_.size() || nodes_[target].removed) return status::bad_target_node_id_invalid;
  if (type >= nodes_.size() || nodes_[type].cls != node_class::reference_type || nodes_[type].is_abstract)
    return status::bad_reference_type_id_invalid;
  node& s = nodes_[source];
  // A duplicate has both ends: look on the side with fewer references (a folder of 100,000
  // variables gets its next one with a look at the new variable's none, not at its 100,000).
  const auto forward = forward_references(source);
  const auto inverse = inverse_references(target);
  if (forward.size() <= inverse.size()) {
    for (const auto& r : forward)
      if (r.type == type && r.target == target) return status::bad_duplicate_reference_not_allowed;
  } else {
    for (const auto& r : inverse)
      if (r.type == type && r.target == source) return status::bad_duplicate_reference_not_allowed;
  }
  // Each end gets its node's next serial; both sections stay in ascending serial order.
  s.references.insert(s.references.begin() + s.forward_count, reference{type, target, next_serial(source), true});
  ++s.forward_count;
  nodes_[target].references.push_back(reference{type, source, next_serial(target), false});
  ++reference_count_;
  return status::good;
}

status_code address_space::remove_reference(node_index source, node_index type, node_index target) {
  if (source >= nodes_.size() || target >= nodes_.size()) return status::bad_no_match;
  node& s = nodes_[source];
  const auto fwd = s.references.begin();
  const auto it = std::find_if(fwd, fwd + s.forward_count, [&](const reference& r) { return r.type == type && r.target == target; });
  if (it == fwd + s.forward_count) return status::bad_no_match;
  s.references.erase(it);
  --s.forward_count;
  node& t = nodes_[target];
  const auto inv = t.references.begin() + t.forward_count;
  const auto back = std::find_if(inv, t.references.end(), [&](const reference& r) { return r.type == type && r.target == source; });
  if (back != t.references.end()) t.references.erase(back);
  --reference_count_;
  return status::good;
}

status_code address_space::add_reference(const node_id& source, const node_id& type, const node_id& target) {
  const auto s = find(source);
  if (s == no_node) return status::bad_source_node_id_invalid;
  const auto t = find(target);
  if (t == no_node) return status::bad_target_node_id_invalid;
  const auto r = find(type);
  if (r == no_node) return status::bad_reference_type_id_invalid;
  return add_reference(s, r, t);
}

std::uint32_t address_space::next_serial(node_index n) noexcept {
  if (nodes_[n].last_serial == std::numeric_limits<std::uint32_t>::max()) renumber_references(n);
  return ++nodes_[n].last_serial;
}

void address_space::renumber_references(node_index n) noexcept {
  if (n >= nodes_.size()) return;
  node& x = nodes_[n];
  std::uint32_t serial = 0;
  for (auto& r : x.references) r.serial = ++serial;  // forward ones, then inverse ones: each part ascends
  x.last_serial = serial;
  ++x.serial_epoch;
}

status_code address_space::remove_node(node_index n) {
  if (n >= nodes_.size() || nodes_[n].removed) return status::bad_node_id_unknown;
  node& x = nodes_[n];
  if (has_variable_data(x.cls)) {
    variable_data& var = variables_[x.detail];
    if (var.monitored && observer_) {
      data_value gone;
      gone.status = status::bad_node_id_unknown;
      gone.has_status = true;
      observer_->value_changed(n, gone);
    }
    var.value = data_value{};
  }
  // The other end of each reference: a forward one of ours is an inverse one there, and back.
  for (std::size_t k = 0; k < x.references.size(); ++k) {
    const reference& r = x.references[k];
    if (r.target == n) continue;  // a reference to itself goes with the node
    node& other = nodes_[r.target];
    for (std::size_t j = 0; j < other.references.size(); ++j) {
      const reference& o = other.references[j];
      if (o.target != n || o.type != r.type || o.is_forward == r.is_forward) continue;
      if (j < other.forward_count) --other.forward_count;
      other.references.erase(other.references.begin() + static_cast<std::ptrdiff_t>(j));
      --reference_count_;
      break;
    }
  }
  x.references.clear();
  x.references.shrink_to_fit();
  x.forward_count = 0;
  // Backward-shift deletion keeps every probe sequence of the open-addressing index unbroken.
  std::size_t i = hash_of(x.id) & index_mask_;
  while (index_[i] != n) i = (i + 1) & index_mask_;
  for (std::size_t j = (i + 1) & index_mask_; index_[j] != no_node; j = (j + 1) & index_mask_) {
    const std::size_t home = hash_of(nodes_[index_[j]].id) & index_mask_;
    // Entry j may move into the hole at i when its home is not in the cyclic range (i, j].
    const bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (stays) continue;
    index_[i] = index_[j];
    i = j;
  }
  index_[i] = no_node;
  x.removed = true;
  return status::good;
}

status_code address_space::set_value(node_index n, data_value v) {
  if (n >= nodes_.size() || nodes_[n].removed) return status::bad_node_id_unknown;
  if (!has_variable_data(nodes_[n].cls)) return status::bad_attribute_id_invalid;
  variable_data& var = variables_[nodes_[n].detail];
  var.value = std::move(v);
  if (!observer_) return status::good;
  if (var.monitored) observer_->value_changed(n, var.value);
  if (var.historizing) observer_->historized_value_changed(n, var.value);
  return status::good;
}

status_code address_space::assign_value(node_index n, const variant& v, date_time source, date_time server) {
  if (n >= nodes_.size() || nodes_[n].removed) return status::bad_node_id_unknown;
  if (!has_variable_data(nodes_[n].cls)) return status::bad_attribute_id_invalid;
  variable_data& var = variables_[nodes_[n].detail];
  var.value.value = v;  // copy-assigned: the stored value keeps its storage when the type stays
  var.value.has_value = !v.empty();
  var.value.status = status::good;
  var.value.has_status = false;
  var.value.source_timestamp = source;
  var.value.server_timestamp = server;
  var.value.has_source_timestamp = var.value.has_server_timestamp = true;
  var.value.has_source_picoseconds = var.value.has_server_picoseconds = false;
  if (!observer_) return status::good;
  if (var.monitored) observer_->value_changed(n, var.value);
  if (var.historizing) observer_->historized_value_changed(n, var.value);
  return status::good;
}

status_code address_space::set_minimum_sampling_interval(node_index n, double ms) {
  if (n >= nodes_.size() || nodes_[n].removed) return status::bad_node_id_unknown;
  if (nodes_[n].cls != node_class::variable) return status::bad_attribute_id_invalid;
  variables_[nodes_[n].detail].minimum_sampling_interval = ms;
  return status::good;
}

status_code address_space::set_current_writable(node_index n, bool writable) {
  if (n >= nodes_.size() || nodes_[n].removed) return status::bad_node_id_unknown;
  if (nodes_[n].cls != node_class::variable) return status::bad_node_class_invalid;
  constexpr std::uint8_t current_write = 0x02;  // Part 3 §8.57 AccessLevelType
  variable_data& var = variables_[nodes_[n].detail];
  if (writable) {
    var.access_level |= current_write;
    var.user_access_level |= current_write;
  } else {
    var.access_level &= static_cast<std::uint8_t>(~current_write);
    var.user_access_level &= static_cast<std::uint8_t>(~current_write);
  }
  return status::good;
}

status_code address_space::set_history_writable(node_index n, bool writable) {
  if (n >= nodes_.size() || nodes_[n].removed) return status::bad_node_id_unknown;
  if (nodes_[n].cls != node_class::variable) return status::bad_node_class_invalid;
  constexpr std::uint8_t history_write = 0x08;  // Part 3 §8.57 AccessLevelType
  variable_data& var = variables_[nodes_[n].detail];
  if (writable) {
    var.access_level |= history_write;
    var.user_access_level |= history_write;
  } else {
    var.access_level &= static_cast<std::uint8_t>(~history_write);
    var.user_access_level &= static_cast<std::uint8_t>(~history_write);
  }
  return status::good;
}

status_code address_space::set_event_history(node_index n, bool on, bool writable) {
  if (n >= nodes_.size() || nodes_[n].removed) return status::bad_node_id_unknown;
  constexpr std::uint8_t history_read = 0x04;   // Part 3 §8.59 EventNotifierType
  constexpr std::uint8_t history_write = 0x08;
  if (nodes_[n].cls != node_class::object && nodes_[n].cls != node_class::view) return status::bad_node_class_invalid;
  std::uint8_t& bits = nodes_[n].event_notifier;
  if (on) bits |= history_read;
  else bits &= static_cast<std::uint8_t>(~history_read);
  if (on && writable) bits |= history_write;
  else bits &= static_cast<std::uint8_t>(~history_write);
  return status::good;
}

status_code address_space::set_historizing(node_index n, bool historizing) {
  if (n >= nodes_.size() || nodes_[n].removed) return status::bad_node_id_unknown;
  if (nodes_[n].cls != node_class::variable) return status::bad_node_class_invalid;
  constexpr std::uint8_t history_read = 0x04;  // Part 3 §8.57 AccessLevelType
  variable_data& var = variables_[nodes_[n].detail];
  var.historizing = historizing;
  if (historizing) {
    var.access_level |= history_read;
    var.user_access_level |= history_read;
  } else {
    var.access_level &= static_cast<std::uint8_t>(~history_read);
    var.user_access_level &= static_cast<std::uint8_t>(~history_read);
  }
  return status::good;
}

bool address_space::set_monitored(node_index n, bool monitored) noexcept {
  if (n >= nodes_.size() || !has_variable_data(nodes_[n].cls)) return false;
  variables_[nodes_[n].detail].monitored = monitored;
  return true;
}

status_code address_space::set_text(node_index n, attribute_id attr, const localized_text& t) {
  if (n >= nodes_.size()) return status::bad_node_id_unknown;
  const auto part = [](const ua_string& s) {
    return s.is_null() ? std::string_view{} : std::string_view(s.data(), s.size());
  };
  const text_view copied = intern(text_view{part(t.locale), part(t.text)}, strings::copy);
  switch (attr) {
    case attribute_id::display_name: nodes_[n].display_name = copied; return status::good;
    case attribute_id::description: nodes_[n].description = copied; return status::good;
    default: return status::bad_attribute_id_invalid;
  }
}

// ---------------------------------------------------------------------------------------
// address_space: lookups

node_index address_space::find(const node_id& id) const noexcept {
  if (index_.empty()) return no_node;
  std::size_t i = hash_of(id) & index_mask_;
  for (;;) {
    const node_index n = index_[i];
    if (n == no_node) return no_node;
    if (nodes_[n].id.matches(id)) return n;
    i = (i + 1) & index_mask_;
  }
}

const variable_data* address_space::variable(node_index n) const noexcept {
  return n < nodes_.size() && !nodes_[n].removed && has_variable_data(nodes_[n].cls) ? &variables_[nodes_[n].detail]
                                                                                      : nullptr;
}

node_index address_space::super_type(node_index type) const noexcept {
  if (type >= nodes_.size() || has_subtype_ == no_node) return no_node;
  for (const auto& r : inverse_references(type))
    if (r.type == has_subtype_) return r.target;
  return no_node;
}

bool address_space::is_subtype_of(node_index type, node_index super) const noexcept {
  if (type >= nodes_.size() || super >= nodes_.size()) return false;
  // One supertype each (HasSubtype, Part 3 §7.10); the bound keeps a cyclic model finite.
  for (std::size_t steps = 0; type != no_node && steps <= nodes_.size(); ++steps) {
    if (type == super) return true;
    type = super_type(type);
  }
  return false;
}

bool address_space::is_subtype_of(const node_id& type, const node_id& super) const noexcept {
  return is_subtype_of(find(type), find(super));
}

// ---------------------------------------------------------------------------------------
// address_space: Read of one attribute (Part 3 §5: the attributes of each node class)

status_code address_space::read(const node_id& id, attribute_id attr, data_value& out) const {
  const auto n = find(id);
  if (n == no_node) return fail(out, status::bad_node_id_unknown);
  return read(n, attr, out);
}

status_code address_space::read(node_index n, attribute_id attr, data_value& out) const {
  if (n >= nodes_.size() || nodes_[n].removed) return fail(out, status::bad_node_id_unknown);
  const node& x = nodes_[n];
  const node_class c = x.cls;
  const bool is_type = c == node_class::object_type || c == node_class::variable_type ||
                       c == node_class::reference_type || c == node_class::data_type;
  const variable_data* v = has_variable_data(c) ? &variables_[x.detail] : nullptr;
  switch (attr) {
    case attribute_id::node_id: x.id.to_node_id(put<node_id>(out)); return status::good;
    case attribute_id::node_class: put<std::int32_t>(out) = static_cast<std::int32_t>(c); return status::good;
    case attribute_id::browse_name: {
      auto& q = put<qualified_name>(out);
      q.namespace_index = x.browse_ns;
      put_string(q.name, x.browse_name);
      return status::good;
    }
    case attribute_id::display_name: put_text(out, x.display_name); return status::good;
    case attribute_id::description: put_text(out, x.description); return status::good;
    case attribute_id::write_mask: put<std::uint32_t>(out) = x.write_mask; return status::good;
    case attribute_id::user_write_mask: put<std::uint32_t>(out) = x.user_write_mask; return status::good;
    case attribute_id::is_abstract:
      if (!is_type) break;
      put<bool>(out) = x.is_abstract;
      return status::good;
    case attribute_id::symmetric:
      if (c != node_class::reference_type) break;
      put<bool>(out) = x.symmetric;
      return status::good;
    case attribute_id::inverse_name:
      if (c != node_class::reference_type) break;
      put_text(out, inverse_names_[x.detail]);
      return status::good;
    case attribute_id::contains_no_loops:
      if (c != node_class::view) break;
      put<bool>(out) = x.contains_no_loops;
      return status::good;
    case attribute_id::event_notifier:
      if (c != node_class::object && c != node_class::view) break;
      put<std::uint8_t>(out) = x.event_notifier;
      return status::good;
    case attribute_id::value:
      if (!v) break;
      out = v->value;  // copy-assignment keeps the storage of the alternative out holds
      return status::good;
    case attribute_id::data_type:
      if (!v) break;
      v->data_type.to_node_id(put<node_id>(out));
      return status::good;
    case attribute_id::value_rank:
      if (!v) break;
      put<std::int32_t>(out) = v->value_rank;
      return status::good;
    case attribute_id::array_dimensions: {
      if (!v) break;
      auto& a = put<ua_array<std::uint32_t>>(out);
      a.assign(v->array_dimensions.begin(), v->array_dimensions.end());
      if (v->array_dimensions.is_null()) a.set_null();
      else a.set_not_null();
      return status::good;
    }
    case attribute_id::access_level:
      if (c != node_class::variable) break;
      put<std::uint8_t>(out) = v->access_level;
      return status::good;
    case attribute_id::user_access_level:
      if (c != node_class::variable) break;
      put<std::uint8_t>(out) = v->user_access_level;
      return status::good;
    case attribute_id::minimum_sampling_interval:
      if (c != node_class::variable) break;
      put<double>(out) = v->minimum_sampling_interval;
      return status::good;
    case attribute_id::historizing:
      if (c != node_class::variable) break;
      put<bool>(out) = v->historizing;
      return status::good;
    case attribute_id::executable:
      if (c != node_class::method) break;
      put<bool>(out) = x.executable;
      return status::good;
    case attribute_id::user_executable:
      if (c != node_class::method) break;
      put<bool>(out) = x.user_executable;
      return status::good;
    case attribute_id::data_type_definition:
      // Part 3 §5.8.3: abstract and simple DataTypes have none.
      if (c != node_class::data_type || definitions_[x.detail].empty()) break;
      put<extension_object>(out) = definitions_[x.detail];  // a copy of the body: allocates
      return status::good;
    default:
      // RolePermissions, UserRolePermissions, AccessRestrictions and AccessLevelEx are
      // optional (Part 3 §5.2.9-5.2.11, §5.6.2) and not kept yet.
      break;
  }
  return fail(out, status::bad_attribute_id_invalid);
}

}  // namespace uactor::ua
