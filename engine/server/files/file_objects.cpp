// Part 20 §4.2 FileType: handles per session over copies of a file_content (file_objects.hpp).
#include "engine/server/files/file_objects.hpp"

#include <algorithm>

#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors {

using namespace uactor::ua;

namespace {

// The forward child of `parent` with this BrowseName (namespace 0), or no_node.
node_index file_child_named(const address_space& as, node_index parent, std::string_view name) {
  for (const reference& r : as.forward_references(parent)) {
    const node& n = as.at(r.target);
    if (!n.removed && n.browse_ns == 0 && n.browse_name == name) return r.target;
  }
  return no_node;
}

// The property `name` of `object`, found or added as a new Variable (its NodeId a string NodeId
// under the object's when the object has one, else numeric from the object's).
expected<node_index> file_property(address_space& as, node_index object, std::string_view name,
                                   const node_id& data_type, variant initial) {
  if (const node_index found = file_child_named(as, object, name); found != no_node) return found;
  const node_id parent_id = as.at(object).id.to_node_id();
  // Namespace 0 is the OPC Foundation's: a node we add below one of its Objects goes into the
  // server's own namespace (1).
  const std::uint16_t ns = parent_id.namespace_index() == 0 ? 1 : parent_id.namespace_index();
  node_spec spec;
  spec.id = parent_id.type() == node_id_type::string
                ? node_id::string(ns, std::string(parent_id.text()) + "." + std::string(name))
                : node_id::string(ns, "File" + std::to_string(parent_id.numeric()) + "." + std::string(name));
  spec.cls = node_class::variable;
  spec.browse_ns = 0;
  spec.browse_name = name;
  spec.data_type = data_type;
  spec.value.value = std::move(initial);
  spec.value.has_value = true;
  spec.access_level = 1;
  spec.user_access_level = 1;
  const auto added = as.add_node(std::move(spec));
  if (!added) return added.error();
  as.add_reference(object, as.find(node_id(0, ids::has_property)), *added);
  as.add_reference(*added, as.find(node_id(0, ids::has_type_definition)), as.find(node_id(0, ids::property_type)));
  return *added;
}

void file_assign(address_space& as, node_index n, variant v) {
  if (n == no_node) return;
  data_value dv;
  dv.value = std::move(v);
  dv.has_value = true;
  as.set_value(n, std::move(dv));
}

}  // namespace

status_code file_objects::attach(node_index object, std::shared_ptr<file_content> content, file_options o,
                                 address_space& as) {
  if (object == no_node || object >= as.size()) return status::bad_node_id_unknown;
  if (as.at(object).cls != node_class::object) return status::bad_node_class_invalid;
  if (files_.contains(object)) return status::bad_node_id_exists;
  file f;
  f.content = std::move(content);
  f.options = o;
  std::string bytes;
  const std::uint64_t size = f.content && f.content->load(bytes).is_good() ? bytes.size() : 0;
  // Part 20 §4.2.1: the mandatory Variables, and MaxByteStringLength (1.05, optional) that says
  // what one Read returns at most.
  const auto size_node = file_property(as, object, "Size", node_id(0, ids::u_int64), variant(size));
  const auto writable = file_property(as, object, "Writable", node_id(0, ids::boolean), variant(o.writable));
  const auto user_writable = file_property(as, object, "UserWritable", node_id(0, ids::boolean), variant(o.writable));
  const auto open_count = file_property(as, object, "OpenCount", node_id(0, ids::u_int16), variant(std::uint16_t{0}));
  const auto max_length = file_property(as, object, "MaxByteStringLength", node_id(0, ids::u_int32),
                                        variant(limits_.max_read_length));
  for (const auto* e : {&size_node, &writable, &user_writable, &open_count, &max_length})
    if (!*e) return e->error();
  f.size = *size_node;
  f.writable = *writable;
  f.user_writable = *user_writable;
  f.open_count = *open_count;
  f.max_length = *max_length;
  // An instance made here has no Method nodes of its own: it shares FileType's (Part 3 §5.7: a
  // Method may be a component of several Objects), so that a client's TranslateBrowsePath of
  // "Open" under it finds one and Call (method of the object) accepts it.
  if (file_child_named(as, object, "Open") == no_node) {
    const node_index component = as.find(node_id(0, ids::has_component));
    for (const std::uint32_t m : {ids::file_type_open, ids::file_type_close, ids::file_type_read, ids::file_type_write,
                                  ids::file_type_get_position, ids::file_type_set_position})
      as.add_reference(object, component, as.find(node_id(0, m)));
  }
  publish_size(f, size, as);
  file_assign(as, f.writable, variant(o.writable));
  file_assign(as, f.user_writable, variant(o.writable));
  file_assign(as, f.max_length, variant(limits_.max_read_length));
  publish_open_count(f, as);
  files_.emplace(object, std::move(f));
  return status::good;
}

status_code file_objects::add(const node_id& id, std::string_view name, const node_id& parent,
                              std::shared_ptr<file_content> content, file_options o, address_space& as) {
  if (name.empty()) return status::bad_invalid_argument;
  if (as.find(id) != no_node) return status::bad_node_id_exists;
  const node_index parent_index = as.find(parent);
  if (parent_index == no_node) return status::bad_parent_node_id_invalid;
  node_spec spec;
  spec.id = id;
  spec.cls = node_class::object;
  spec.browse_ns = id.namespace_index();
  spec.browse_name = name;
  const auto added = as.add_node(std::move(spec));
  if (!added) return added.error();
  as.add_reference(parent_index, as.find(node_id(0, ids::organizes)), *added);
  as.add_reference(*added, as.find(node_id(0, ids::has_type_definition)), as.find(node_id(0, ids::file_type)));
  const status_code sc = attach(*added, std::move(content), o, as);
  if (sc.is_bad()) as.remove_node(*added);
  return sc;
}

bool file_objects::is_file_call(const call_request& req, const address_space& as) const noexcept {
  if (files_.empty()) return false;
  for (const auto& m : req.methods_to_call) {
    const node_index n = as.find(m.object_id);
    if (n != no_node && files_.contains(n)) return true;
  }
  return false;
}

file_objects::handle* file_objects::find(std::uint32_t session, node_index object, std::uint32_t id) noexcept {
  const auto it = handles_.find(id);
  // Part 20 §4.2.3: a handle is valid in the session that opened it, on the file it opened.
  if (it == handles_.end() || it->second.session != session || it->second.object != object) return nullptr;
  return &it->second;
}

std::size_t file_objects::open_count(node_index object) const noexcept {
  const auto it = files_.find(object);
  return it == files_.end() ? 0 : std::size_t{it->second.readers} + it->second.writers;
}

void file_objects::publish_open_count(const file& f, address_space& as) {
  file_assign(as, f.open_count, variant(static_cast<std::uint16_t>(f.readers + f.writers)));
}

void file_objects::publish_size(const file& f, std::uint64_t size, address_space& as) {
  file_assign(as, f.size, variant(size));
}

void file_objects::refresh_size(node_index object, address_space& as) {
  const auto it = files_.find(object);
  if (it == files_.end() || !it->second.content) return;
  std::string bytes;
  if (it->second.content->load(bytes).is_good()) publish_size(it->second, bytes.size(), as);
}

expected<std::uint32_t> file_objects::open(std::uint32_t session, node_index object, std::uint8_t mode,
                                           address_space& as, const std::string* initial) {
  const auto it = files_.find(object);
  if (it == files_.end()) return status::bad_invalid_argument;
  file& f = it->second;
  // Part 20 §4.2.3: reserved bits zero; EraseExisting and Append only with Write; at least one of
  // Read and Write.
  const bool reading = mode & open_mode::read, writing = mode & open_mode::write;
  if ((mode & 0xF0) || (!reading && !writing) ||
      (!writing && (mode & (open_mode::erase_existing | open_mode::append))))
    return status::bad_invalid_argument;
  if (writing) {
    if (!f.options.writable) return status::bad_not_writable;
    // "A request to open for writing shall return Bad_NotWritable when the file is already opened."
    if (f.readers + f.writers > 0) return status::bad_not_writable;
  } else if (f.writers > 0) {
    // "A request to open for reading shall return Bad_NotReadable when the file is already opened
    // for writing."
    return status::bad_not_readable;
  }
  // Our limits: handles over the whole server and per session.
  if (handles_.size() >= limits_.max_handles) return status::bad_resource_unavailable;
  const auto mine = std::ranges::count_if(handles_, [session](const auto& h) { return h.second.session == session; });
  if (static_cast<std::size_t>(mine) >= limits_.max_handles_per_session) return status::bad_resource_unavailable;

  handle h;
  h.session = session;
  h.object = object;
  h.mode = mode;
  if (!(mode & open_mode::erase_existing)) {
    if (initial) {
      h.bytes = *initial;
    } else if (f.content) {
      if (const status_code sc = f.content->load(h.bytes); sc.is_bad()) return sc;
    }
    if (h.bytes.size() > max_size(f)) return status::bad_out_of_range;
  }
  if (mode & open_mode::append) h.position = h.bytes.size();
  std::uint32_t id = next_handle_++;
  while (id == 0 || handles_.contains(id)) id = next_handle_++;
  (writing ? f.writers : f.readers) += 1;
  publish_open_count(f, as);
  if (!writing || !(mode & open_mode::erase_existing)) publish_size(f, h.bytes.size(), as);
  handles_.emplace(id, std::move(h));
  return id;
}

void file_objects::forget(std::unordered_map<std::uint32_t, handle>::iterator it, address_space& as) {
  const auto f = files_.find(it->second.object);
  if (f != files_.end()) {
    auto& count = (it->second.mode & open_mode::write) ? f->second.writers : f->second.readers;
    if (count > 0) --count;
    publish_open_count(f->second, as);
  }
  handles_.erase(it);
}

status_code file_objects::close(std::uint32_t session, node_index object, std::uint32_t id, address_space& as) {
  handle* h = find(session, object, id);
  if (!h) return status::bad_invalid_argument;
  status_code sc = status::good;
  const file& f = files_.at(object);
  if ((h->mode & open_mode::write) && f.options.store_on_close && f.content) {
    sc = f.content->store(h->bytes);
    if (sc.is_good()) publish_size(f, h->bytes.size(), as);
  }
  forget(handles_.find(id), as);
  return sc;
}

expected<std::string> file_objects::take(std::uint32_t session, node_index object, std::uint32_t id,
                                         address_space& as) {
  handle* h = find(session, object, id);
  if (!h) return status::bad_invalid_argument;
  if (!(h->mode & open_mode::write)) return status::bad_invalid_state;
  std::string bytes = std::move(h->bytes);
  forget(handles_.find(id), as);
  return bytes;
}

void file_objects::session_closed(std::uint32_t session, address_space& as) {
  for (auto it = handles_.begin(); it != handles_.end();) {
    const auto next = std::next(it);
    if (it->second.session == session) forget(it, as);
    it = next;
  }
}

std::size_t file_objects::close_all(node_index object, address_space& as) {
  std::size_t closed = 0;
  for (auto it = handles_.begin(); it != handles_.end();) {
    const auto next = std::next(it);
    if (it->second.object == object) {
      forget(it, as);
      ++closed;
    }
    it = next;
  }
  return closed;
}

bool file_objects::open_for_writing(node_index object) const noexcept {
  const auto f = files_.find(object);
  return f != files_.end() && f->second.writers > 0;
}

status_code file_objects::call(std::uint32_t session, node_index object, node_index method,
                               std::span<const variant> in, std::vector<variant>& out, address_space& as) {
  const std::string_view name = as.at(method).browse_name;
  const auto u32 = [&in](std::size_t i) -> std::optional<std::uint32_t> {
    if (i >= in.size()) return std::nullopt;
    if (const auto* v = in[i].get_if<std::uint32_t>()) return *v;
    return std::nullopt;
  };
  if (name == "Open") {
    const auto* mode = in.empty() ? nullptr : in[0].get_if<std::uint8_t>();
    if (!mode) return status::bad_invalid_argument;
    auto opened = open(session, object, *mode, as);
    if (!opened) return opened.error();
    out.emplace_back(*opened);
    return status::good;
  }
  const auto id = u32(0);
  if (!id) return status::bad_invalid_argument;
  if (name == "Close") return close(session, object, *id, as);
  handle* h = find(session, object, *id);
  // Part 20 §4.2.4-§4.2.8: an unknown handle is Bad_InvalidArgument.
  if (!h) return status::bad_invalid_argument;
  if (name == "Read") {
    const auto* length = in.size() > 1 ? in[1].get_if<std::int32_t>() : nullptr;
    if (!length || *length <= 0) return status::bad_invalid_argument;  // "Only positive values are allowed."
    if (!(h->mode & open_mode::read)) return status::bad_invalid_state;
    // "The Server is allowed to return less data than specified length": at most MaxByteStringLength.
    const std::uint64_t n = std::min<std::uint64_t>(
        {static_cast<std::uint64_t>(*length), limits_.max_read_length,
         h->position < h->bytes.size() ? h->bytes.size() - h->position : 0});
    byte_string data;
    data.assign(h->bytes.data() + std::min<std::uint64_t>(h->position, h->bytes.size()), n);
    h->position += n;
    out.emplace_back(std::move(data));
    return status::good;
  }
  if (name == "Write") {
    const auto* data = in.size() > 1 ? in[1].get_if<byte_string>() : nullptr;
    if (!data) return status::bad_invalid_argument;
    if (!(h->mode & open_mode::write)) return status::bad_not_writable;
    const std::uint64_t end = h->position + data->size();
    if (end > max_size(files_.at(object))) return status::bad_out_of_range;  // our size limit
    if (h->bytes.size() < end) h->bytes.resize(end);
    std::copy(data->view().begin(), data->view().end(), h->bytes.begin() + static_cast<std::ptrdiff_t>(h->position));
    h->position = end;
    return status::good;
  }
  if (name == "GetPosition") {
    out.emplace_back(h->position);
    return status::good;
  }
  if (name == "SetPosition") {
    const auto* position = in.size() > 1 ? in[1].get_if<std::uint64_t>() : nullptr;
    if (!position) return status::bad_invalid_argument;
    // Part 20 §4.2.8: "If the position is higher than the file size the position is set to the end
    // of the file."
    h->position = std::min<std::uint64_t>(*position, h->bytes.size());
    return status::good;
  }
  return status::bad_not_implemented;
}

}  // namespace uactor::actors
