#include "runtime/mirror.hpp"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "uactor/ua/attribute_ids.hpp"
#include "uactor/runtime.hpp"

namespace uactor::app {

namespace {

constexpr std::uint32_t attribute(ua::attribute_id a) { return static_cast<std::uint32_t>(a); }
// What a local copy needs of each remote node (Part 3 §5.6.2), read in this order.
constexpr std::array copied_attributes{ua::attribute_id::browse_name, ua::attribute_id::display_name,
                                       ua::attribute_id::data_type,   ua::attribute_id::value_rank,
                                       ua::attribute_id::array_dimensions, ua::attribute_id::access_level};
constexpr std::size_t attributes_per_node = copied_attributes.size();
// Reads at start in slices: far below any server's MaxNodesPerRead (ours: 10,000).
constexpr std::size_t nodes_per_read = 100;

// Browse in slices too; references per node as servers commonly allow (more come by BrowseNext).
constexpr std::size_t nodes_per_browse = 100;
constexpr std::uint32_t references_per_node = 1'000;
// The client handle of the ModelChangeEvent item: never a variable's index.
constexpr std::uint32_t model_change_handle = 0xFFFF'FFFF;
const ua::node_id hierarchical_references{0, 33};       // Part 3 §7.3
const ua::node_id base_model_change_event_type{0, 2132};  // Part 3 §9.32, GeneralModelChangeEventType's supertype

constexpr std::string_view mirrors_namespace_uri = "urn:uactor:mirrors";

// A link failure of the remote, as our client says it: to a client of the gateway that is
// Bad_NoCommunication (the value's source cannot be reached), not a failure of its own connection.
bool link_failure(ua::status_code sc) {
  return sc == ua::status::bad_server_not_connected || sc == ua::status::bad_connection_closed ||
         sc == ua::status::bad_not_connected || sc == ua::status::bad_secure_channel_closed ||
         sc == ua::status::bad_communication_error || sc == ua::status::bad_shutdown;
}

// Adds a Read of each of `attributes` of `node` to `rr`.
void read_attributes(ua::read_request& rr, const ua::node_id& node, std::span<const ua::attribute_id> attributes) {
  for (auto a : attributes) {
    ua::read_value_id id;
    id.node_id = node;
    id.attribute_id = attribute(a);
    rr.nodes_to_read.push_back(std::move(id));
  }
}

// A remote node the mirror copies: a variable (its value mirrored) or an object of a subtree (a
// local folder, so that the tree stays browsable as the remote has it).
struct remote_node {
  ua::node_id id;
  ua::node_id parent;          // the remote parent; null: the mirror's own folder
  ua::node_id reference_type;  // from the parent, when the local tree has that type; null: the default
  bool is_variable = true;
  bool from_subtree = false;       // named nodes are never removed by a rescan
  ua::qualified_name browse_name;  // objects (a variable's is read with its other attributes)
  ua::localized_text display_name;
  bool is_property = false;  // a PropertyType variable (HasProperty), kept as one
};

// The hierarchical reference types kept from the remote (Organizes, HasProperty, HasComponent,
// HasOrderedComponent): every address space has them. Others (a subtype of the remote's own) fall
// back to the local default.
ua::node_id kept_reference(const ua::node_id& t) {
  if (t.namespace_index() == 0 && t.type() == ua::node_id_type::numeric)
    switch (t.numeric()) {
      case 35: case 46: case 47: case 49: return t;
      default: break;
    }
  return {};
}

// The remote's nodes to copy: the named ones, then every Object and Variable under the subtrees'
// roots (HierarchicalReferences forward, breadth first, so a parent comes before its children),
// each once, under the first parent it was found from. More than max_nodes from the subtrees, a
// root that is no Object or Variable, or a failed Browse: an error naming it.
ua::status_code discover(uactor::client& c, const mirror_spec& sp, std::vector<remote_node>& out, std::string& error) {
  std::set<std::string> seen;
  for (const auto& n : sp.nodes) {
    remote_node r;
    r.id = n;
    out.push_back(std::move(r));
    seen.insert(n.to_string());
  }
  if (sp.subtrees.empty()) return ua::status::good;
  constexpr std::array root_attributes{ua::attribute_id::node_class, ua::attribute_id::browse_name, ua::attribute_id::display_name};
  ua::read_request rr;
  for (const auto& root : sp.subtrees) read_attributes(rr, root, root_attributes);
  const auto expected_results = rr.nodes_to_read.size();
  auto r = c.read_sync(std::move(rr));
  if (!r) {
    error = fmt::format("reading the subtrees' roots at {}: {}", sp.endpoint, r.error().to_string());
    return r.error();
  }
  if (r->results.size() != expected_results) {
    error = "the remote answered the Read of the subtrees' roots with a wrong number of results";
    return ua::status::bad_unknown_response;
  }
  std::vector<std::size_t> frontier;  // indices into `out` whose children are browsed next
  for (std::size_t k = 0; k < sp.subtrees.size(); ++k) {
    const auto* a = &r->results[k * root_attributes.size()];
    if (a[0].status.is_bad()) {
      error = fmt::format("subtree {} at {}: {}", sp.subtrees[k].to_string(), sp.endpoint, a[0].status.to_string());
      return a[0].status;
    }
    const auto* node_class = a[0].value.get_if<std::int32_t>();
    const auto* browse = a[1].value.get_if<ua::qualified_name>();
    if (!node_class || !browse || (*node_class != static_cast<std::int32_t>(ua::node_class::object) &&
                                   *node_class != static_cast<std::int32_t>(ua::node_class::variable))) {
      error = fmt::format("subtree {} at {} is not an Object or a Variable", sp.subtrees[k].to_string(), sp.endpoint);
      return ua::status::bad_node_class_invalid;
    }
    if (!seen.insert(sp.subtrees[k].to_string()).second) continue;  // named as well, or twice
    remote_node n;
    n.id = sp.subtrees[k];
    n.is_variable = *node_class == static_cast<std::int32_t>(ua::node_class::variable);
    n.from_subtree = true;
    n.browse_name = *browse;
    if (const auto* d = a[2].value.get_if<ua::localized_text>()) n.display_name = *d;
    out.push_back(std::move(n));
    frontier.push_back(out.size() - 1);
  }
  std::size_t from_subtrees = frontier.size();
  const auto too_many = [&] {
    error = fmt::format("the subtrees at {} hold more than {} nodes (max_nodes): name smaller ones", sp.endpoint, sp.max_nodes);
    return ua::status::bad_too_many_operations;
  };
  if (from_subtrees > sp.max_nodes) return too_many();
  while (!frontier.empty()) {
    std::vector<std::size_t> next;
    for (std::size_t from = 0; from < frontier.size(); from += nodes_per_browse) {
      const auto count = std::min(nodes_per_browse, frontier.size() - from);
      ua::browse_request br;
      br.requested_max_references_per_node = references_per_node;
      for (std::size_t k = 0; k < count; ++k) {
        ua::browse_description d;
        d.node_id = out[frontier[from + k]].id;
        d.browse_direction = ua::browse_direction::forward;
        d.reference_type_id = hierarchical_references;
        d.include_subtypes = true;
        d.node_class_mask = static_cast<std::uint32_t>(ua::node_class::object) | static_cast<std::uint32_t>(ua::node_class::variable);
        d.result_mask = 63;  // all fields of the ReferenceDescription (Part 4 §5.9.2.2)
        br.nodes_to_browse.push_back(std::move(d));
      }
      auto b = c.browse_sync(std::move(br));
      if (!b || b->results.size() != count) {
        const auto sc = b ? ua::status::bad_unknown_response : b.error();
        error = fmt::format("browsing the subtrees at {}: {}", sp.endpoint, sc.to_string());
        return sc;
      }
      for (std::size_t k = 0; k < count; ++k) {
        const auto parent = out[frontier[from + k]].id;
        auto result = std::move(b->results[k]);
        for (;;) {
          if (result.status_code.is_bad()) {
            error = fmt::format("browsing {} at {}: {}", parent.to_string(), sp.endpoint, result.status_code.to_string());
            return result.status_code;
          }
          for (auto& ref : result.references) {
            // A node of another server, or by namespace URI (no server answers a local Browse so): not ours to copy.
            if (ref.node_id.server_index != 0 || !ref.node_id.namespace_uri.empty()) continue;
            if (!seen.insert(ref.node_id.id.to_string()).second) continue;
            if (++from_subtrees > sp.max_nodes) return too_many();
            remote_node n;
            n.id = ref.node_id.id;
            n.parent = parent;
            n.reference_type = kept_reference(ref.reference_type_id);
            n.is_variable = ref.node_class == ua::node_class::variable;
            n.from_subtree = true;
            n.browse_name = std::move(ref.browse_name);
            n.display_name = std::move(ref.display_name);
            n.is_property = ref.type_definition.id == ns0::property_type;
            out.push_back(std::move(n));
            next.push_back(out.size() - 1);
          }
          if (result.continuation_point.empty()) break;
          ua::browse_next_request bn;
          bn.continuation_points.push_back(std::move(result.continuation_point));
          auto more = c.browse_next_sync(std::move(bn));
          if (!more || more->results.size() != 1) {
            const auto sc = more ? ua::status::bad_unknown_response : more.error();
            error = fmt::format("BrowseNext of {} at {}: {}", parent.to_string(), sp.endpoint, sc.to_string());
            return sc;
          }
          result = std::move(more->results[0]);
        }
      }
    }
    frontier = std::move(next);
  }
  return ua::status::good;
}

}  // namespace

std::string mirror_namespace_uri(const std::string& name) { return "urn:uactor:mirror:" + name; }

ua::node_id mirror_node_id(std::uint16_t mirror_ns, const ua::node_id& remote) {
  return ua::node_id::string(mirror_ns, remote.to_string());
}

// Shared by the client's handlers (weakly: the client is the state's), the server's Write handlers
// (strongly: the server may outlive the mirror and call them after stop()) and the rescan thread
// (joined by stop()).
struct mirror::state {
  mirror_spec spec;
  server* srv = nullptr;
  std::uint16_t ns = 0;  // the mirror's namespace
  ua::node_id folder_id;
  std::mutex m;  // the client's callbacks, the server's Write handlers, the rescans and stop() meet here
  // Shared so that a request can be sent outside the lock while stop() closes it (a closed client
  // answers Bad_ConnectionClosed at once, on the caller's thread).
  std::shared_ptr<uactor::client> client;
  bool connected = false;
  std::uint32_t subscription_id = 0;  // a new one when the remote lost it (recreated)
  // By client handle: a variable's index in the order it was added (a removed one keeps its slot).
  std::vector<ua::node_id> remote;          // its remote NodeId
  std::vector<value_handle> handles;
  std::vector<ua::data_value> last;         // the last usable (not Bad) value
  std::vector<std::uint64_t> updated_in;    // the link generation of the last notification
  std::vector<bool> removed;                // gone from the remote's subtree (a rescan): ignored
  std::uint64_t generation = 0;             // +1 per reconnect
  std::vector<value_update> batch;          // reused: one write_values per NotificationMessage
  // Every node copied from a subtree, by the remote NodeId's text: the local NodeId, for the
  // rescans' comparison (named nodes stay whatever the remote's tree says).
  std::map<std::string, std::pair<ua::node_id, std::size_t>> from_subtrees;  // local id, client handle or npos
  // Rescans (subtrees only): a ModelChangeEvent or a recreated subscription asks; a thread of the
  // mirror's browses, since the client's synchronous calls must not run on the client's thread.
  std::thread rescanner;
  std::condition_variable rescan_cv;
  bool rescan_wanted = false;
  bool stopping = false;

  // The client's CAF thread, under m.
  void push(std::size_t i, const ua::data_value& dv) {
    if (removed[i]) return;
    if (!(dv.has_status && dv.status.is_bad())) last[i] = dv;
    updated_in[i] = generation;
    value_update u;
    u.node = handles[i];
    u.value = dv.value;
    u.status = dv.has_status ? dv.status : ua::status::good;
    u.source_timestamp = dv.has_source_timestamp ? dv.source_timestamp : ua::date_time{};
    batch.push_back(std::move(u));
  }
  void flush() {
    if (batch.empty()) return;
    if (const auto sc = srv->write_values(batch); sc.is_bad() && sc != ua::status::bad_server_halted)
      spdlog::warn("mirror {}: values not taken by the server: {}", spec.name, sc.to_string());
    batch.clear();
  }

  // Every mirrored value says that the remote is gone (Part 8 §6.3.2, Tables 28 and 29):
  // Bad_NoCommunication with a null value (Part 4 §7.7.5), or the last usable value as
  // Uncertain_LastUsableValue with the source timestamp it had (none yet: Bad_NoCommunication).
  void mark_lost() {
    batch.clear();
    for (std::size_t i = 0; i < handles.size(); ++i) {
      if (removed[i]) continue;
      value_update u;
      u.node = handles[i];
      if (spec.on_loss == mirror_loss::last_usable && last[i].has_value) {
        u.value = last[i].value;
        u.status = ua::status::uncertain_last_usable_value;
        u.source_timestamp = last[i].has_source_timestamp ? last[i].source_timestamp : ua::date_time{};
      } else {
        u.status = ua::status::bad_no_communication;
      }
      batch.push_back(std::move(u));
    }
    flush();
  }

  // Under m.
  void want_rescan() {
    if (spec.subtrees.empty()) return;
    rescan_wanted = true;
    rescan_cv.notify_one();
  }

  void on_event(const connection_event& e, const std::shared_ptr<state>& self) {
    std::unique_lock lock(m);
    switch (e.what) {
      case connection_event_kind::lost:
        spdlog::warn("mirror {}: {} lost ({}); its values are {} until it is back", spec.name, spec.endpoint,
                     e.status.to_string(), spec.on_loss == mirror_loss::bad ? "BadNoCommunication" : "UncertainLastUsableValue");
        connected = false;
        mark_lost();
        break;
      case connection_event_kind::reconnected: {
        spdlog::info("mirror {}: {} is back (attempt {})", spec.name, spec.endpoint, e.attempt);
        connected = true;
        ++generation;
        // A restarted remote may have another tree (its ModelChangeEvents were missed meanwhile).
        if (e.how == recovery_kind::recreated) want_rescan();
        // A subscription that was kept (reactivated, transferred) sends nothing for values that did
        // not change while we were away: read them all once. A notification that comes first wins
        // (updated_in), so that an older Read answer never overwrites a newer value.
        auto c = client;
        if (!c) break;
        ua::read_request rr;
        rr.timestamps_to_return = ua::timestamps_to_return::both;
        std::vector<std::size_t> which;
        for (std::size_t i = 0; i < remote.size(); ++i) {
          if (removed[i]) continue;
          ua::read_value_id id;
          id.node_id = remote[i];
          id.attribute_id = attribute(ua::attribute_id::value);
          rr.nodes_to_read.push_back(std::move(id));
          which.push_back(i);
        }
        const auto gen = generation;
        std::weak_ptr<state> weak = self;
        // Sent without the lock: a closed client answers at once, on this thread.
        lock.unlock();
        c->read(std::move(rr), [weak, gen, which = std::move(which)](ua::expected<ua::read_response> r) {
          auto st = weak.lock();
          if (!st || !r) return;
          std::lock_guard relock(st->m);
          if (st->generation != gen || !st->connected) return;
          for (std::size_t k = 0; k < r->results.size() && k < which.size(); ++k)
            if (st->updated_in[which[k]] != gen) st->push(which[k], r->results[k]);
          st->flush();
        });
        return;
      }
      case connection_event_kind::gave_up: connected = false; break;
      case connection_event_kind::reconnecting: break;
      case connection_event_kind::switched: break;  // a redundant client's only
    }
  }

  void on_data(std::span<const ua::monitored_item_notification> changes) {
    std::lock_guard lock(m);
    for (const auto& c : changes)
      if (c.client_handle < handles.size()) push(c.client_handle, c.value);
    flush();
  }

  // A client's Write of a mirrored node, forwarded (Part 4 §5.10.4): the remote's result is ours.
  void forward_write(std::size_t i, const write_call& w, write_reply reply) {
    std::shared_ptr<uactor::client> c;
    ua::node_id target;
    {
      std::lock_guard lock(m);
      if (connected) c = client;
      target = remote[i];
    }
    if (!c) return reply(ua::status::bad_no_communication);
    ua::write_request wr;
    ua::write_value wv;
    wv.node_id = std::move(target);
    wv.attribute_id = attribute(ua::attribute_id::value);
    wv.value.set_value(w.value.value);  // the value only: servers may refuse written timestamps
    wr.nodes_to_write.push_back(std::move(wv));
    c->write(std::move(wr), [reply](ua::expected<ua::write_response> r) {
      if (!r) return reply(link_failure(r.error()) ? ua::status::bad_no_communication : r.error());
      reply(r->results.size() == 1 ? r->results[0] : ua::status::bad_unknown_response);
    });
  }

  ua::node_id local_id(const ua::node_id& remote_id) const { return mirror_node_id(ns, remote_id); }
  ua::node_id local_parent(const remote_node& n) const { return n.parent.is_null() ? folder_id : local_id(n.parent); }

  // Adds `found` (remote nodes, parents first) to the server, its Write handlers and the
  // subscription. Synchronous client calls: never on the client's thread.
  ua::status_code add(uactor::client& c, const std::vector<remote_node>& found, const std::shared_ptr<state>& self,
                      std::string& error) {
    // The attributes a local variable needs (Part 3 §5.6.2), in slices.
    std::vector<const remote_node*> variables;
    for (const auto& n : found)
      if (n.is_variable) variables.push_back(&n);
    std::vector<ua::data_value> attrs;
    attrs.reserve(variables.size() * attributes_per_node);
    for (std::size_t from = 0; from < variables.size(); from += nodes_per_read) {
      ua::read_request rr;
      for (std::size_t i = from; i < std::min(variables.size(), from + nodes_per_read); ++i)
        read_attributes(rr, variables[i]->id, copied_attributes);
      const auto expected_results = rr.nodes_to_read.size();
      auto r = c.read_sync(std::move(rr));
      if (!r) {
        error = fmt::format("reading the nodes' attributes at {}: {}", spec.endpoint, r.error().to_string());
        return r.error();
      }
      if (r->results.size() != expected_results) {
        error = "the remote answered the Read with a wrong number of results";
        return ua::status::bad_unknown_response;
      }
      for (auto& dv : r->results) attrs.push_back(std::move(dv));
    }

    std::vector<node_change> changes;
    std::vector<bool> writable;
    std::size_t v = 0;
    for (const auto& n : found) {
      if (!n.is_variable) {
        // An object of the remote's tree is a folder here: its type's mandatory children would be
        // copies of what the subtree brings anyway.
        auto f = folder(local_id(n.id), local_parent(n), "");
        f.browse_name = {ns, n.browse_name.name};
        f.display_name = n.display_name;
        if (!n.reference_type.is_null()) f.reference_type = n.reference_type;
        changes.push_back(std::move(f));
        continue;
      }
      const auto* a = &attrs[v++ * attributes_per_node];
      if (a[0].status.is_bad()) {
        error = fmt::format("{} at {}: {}", n.id.to_string(), spec.endpoint, a[0].status.to_string());
        return a[0].status;
      }
      const auto* browse = a[0].value.get_if<ua::qualified_name>();
      const auto* data_type = a[2].value.get_if<ua::node_id>();
      const auto* rank = a[3].value.get_if<std::int32_t>();
      const auto* access_level = a[5].value.get_if<std::uint8_t>();
      if (!browse || !data_type || !rank || !access_level) {
        error = fmt::format("{} at {} is not a Variable (no DataType, ValueRank or AccessLevel)", n.id.to_string(), spec.endpoint);
        return ua::status::bad_node_class_invalid;
      }
      variable_node var;
      var.id = local_id(n.id);
      var.parent = local_parent(n);
      if (!n.reference_type.is_null()) var.reference_type = n.reference_type;
      if (n.is_property) var.type_definition = ns0::property_type;
      var.browse_name = {ns, browse->name};
      if (const auto* d = a[1].value.get_if<ua::localized_text>()) var.display_name = *d;
      // A DataType of the remote's own namespaces means nothing here: BaseDataType takes any value.
      var.data_type = data_type->namespace_index() == 0 ? *data_type : ns0::base_data_type;
      var.value_rank = *rank;
      if (const auto* dims = a[4].value.get_if<ua::ua_array<std::uint32_t>>())
        var.array_dimensions.assign(dims->begin(), dims->end());
      var.access_level = *access_level & access::read_write;
      writable.push_back((var.access_level & access::write) != 0);
      var.value.status = ua::status::bad_waiting_for_initial_data;  // until the first notification
      var.value.has_status = true;
      changes.push_back(std::move(var));
    }
    const auto results = srv->apply(std::move(changes));
    for (std::size_t i = 0; i < results.size() && i < found.size(); ++i)
      if (results[i].is_bad()) {
        error = fmt::format("{} could not be added: {}", found[i].id.to_string(), results[i].to_string());
        return results[i];
      }
    std::vector<ua::node_id> local;
    for (const auto* n : variables) local.push_back(local_id(n->id));
    std::vector<value_handle> resolved;
    for (auto& h : srv->resolve(local)) {
      if (!h) {
        error = "a mirrored node could not be resolved: " + h.error().to_string();
        return h.error();
      }
      resolved.push_back(*h);
    }

    // Handles before items: a notification may come before create_monitored_items returns.
    std::size_t first = 0;
    std::uint32_t sub = 0;
    {
      std::lock_guard lock(m);
      first = remote.size();
      sub = subscription_id;
      for (std::size_t i = 0; i < variables.size(); ++i) {
        remote.push_back(variables[i]->id);
        handles.push_back(resolved[i]);
        last.emplace_back();
        updated_in.push_back(0);
        removed.push_back(false);
      }
      for (const auto& n : found)
        if (n.from_subtree) from_subtrees[n.id.to_string()] = {local_id(n.id), std::string::npos};
      for (std::size_t i = 0; i < variables.size(); ++i)
        if (variables[i]->from_subtree) from_subtrees[variables[i]->id.to_string()].second = first + i;
    }
    for (std::size_t i = 0; i < variables.size(); ++i) {
      if (!writable[i]) continue;
      callback_options co;  // inline: the handler only sends a request and returns
      co.deadline = spec.write_deadline;
      const auto handle = first + i;
      srv->on_write(local[i], [self, handle](const write_call& w, write_reply reply) { self->forward_write(handle, w, std::move(reply)); },
                    co);
    }
    if (variables.empty()) return ua::status::good;
    ua::create_monitored_items_request req;
    req.subscription_id = sub;
    req.timestamps_to_return = ua::timestamps_to_return::both;
    for (std::size_t i = 0; i < variables.size(); ++i)
      req.items_to_create.push_back(monitor_value(variables[i]->id, static_cast<std::uint32_t>(first + i),
                                                  static_cast<double>(spec.sampling_interval.count()), 10));
    auto created = c.create_monitored_items_sync(std::move(req));
    if (!created) {
      error = "CreateMonitoredItems: " + created.error().to_string();
      return created.error();
    }
    for (std::size_t i = 0; i < created->results.size() && i < variables.size(); ++i)
      if (created->results[i].status_code.is_bad()) {
        error = fmt::format("{}: CreateMonitoredItems: {}", variables[i]->id.to_string(), created->results[i].status_code.to_string());
        return created->results[i].status_code;
      }
    return ua::status::good;
  }

  // The remote's model changed (or it restarted): browse again, add what is new, remove from here
  // what left the remote's subtrees. A failure is logged and leaves the mirror as it was.
  void rescan(uactor::client& c, const std::shared_ptr<state>& self) {
    std::vector<remote_node> found;
    std::string error;
    if (discover(c, spec, found, error).is_bad()) {
      spdlog::warn("mirror {}: browsing the remote's changed model failed: {}", spec.name, error);
      return;
    }
    std::vector<remote_node> fresh;
    std::vector<std::pair<ua::node_id, std::size_t>> gone;
    {
      std::lock_guard lock(m);
      std::set<std::string> now;
      for (auto& n : found) {
        if (!n.from_subtree) continue;
        auto key = n.id.to_string();
        if (!from_subtrees.contains(key)) fresh.push_back(std::move(n));
        now.insert(std::move(key));
      }
      for (auto it = from_subtrees.begin(); it != from_subtrees.end();) {
        if (now.contains(it->first)) {
          ++it;
          continue;
        }
        if (it->second.second != std::string::npos) removed[it->second.second] = true;
        gone.push_back(it->second);
        it = from_subtrees.erase(it);
      }
    }
    if (!gone.empty()) {
      std::vector<node_change> removals;
      for (const auto& g : gone) removals.push_back(node_removal{g.first, false});
      // A node already gone with its parent answers Bad_NodeIdUnknown: nothing left to do.
      for (const auto& sc : srv->apply(std::move(removals)))
        if (sc.is_bad() && sc != ua::status::bad_node_id_unknown)
          spdlog::warn("mirror {}: a node that left the remote's tree could not be removed: {}", spec.name, sc.to_string());
    }
    if (!fresh.empty() && add(c, fresh, self, error).is_bad()) {
      spdlog::warn("mirror {}: the remote's new nodes could not all be mirrored: {}", spec.name, error);
      return;
    }
    if (!gone.empty() || !fresh.empty())
      spdlog::info("mirror {}: the remote's tree changed: {} node(s) added, {} removed", spec.name, fresh.size(), gone.size());
  }

  void rescan_loop(const std::shared_ptr<state>& self) {
    std::unique_lock lock(m);
    for (;;) {
      rescan_cv.wait(lock, [&] { return stopping || rescan_wanted; });
      if (stopping) return;
      rescan_wanted = false;
      auto c = client;
      lock.unlock();
      if (c) rescan(*c, self);
      lock.lock();
    }
  }
};

mirror::mirror(std::shared_ptr<state> s) noexcept : state_(std::move(s)) {}
mirror::~mirror() { stop(); }

const mirror_spec& mirror::spec() const noexcept { return state_->spec; }

bool mirror::connected() const noexcept {
  std::lock_guard lock(state_->m);
  return state_->connected;
}

void mirror::stop() {
  std::shared_ptr<uactor::client> c;
  std::thread rescanner;
  {
    std::lock_guard lock(state_->m);
    c = std::move(state_->client);
    state_->connected = false;
    state_->stopping = true;
    rescanner = std::move(state_->rescanner);
  }
  state_->rescan_cv.notify_all();
  if (c) c->close();  // outside the lock: its callbacks take it; a rescan's requests end at once
  if (rescanner.joinable()) rescanner.join();
}

ua::expected<std::unique_ptr<mirror>> mirror::start(runtime& rt, server& srv, mirror_spec spec, std::string& error) {
  auto st = std::make_shared<state>();
  st->spec = std::move(spec);
  st->srv = &srv;
  const auto& sp = st->spec;

  client_options o;
  o.endpoint_url = sp.endpoint;
  o.session_name = "uactor mirror " + sp.name;
  o.connect_timeout = sp.connect_timeout;
  // The remote Write answers before our client's deadline runs out (Bad_Timeout otherwise).
  o.request_timeout = std::max(std::chrono::milliseconds(100), sp.write_deadline - std::chrono::milliseconds(500));
  o.reconnect.enabled = true;
  o.reconnect.max_delay = std::chrono::milliseconds(2'000);  // a PLC back is seen within ~2 s
  o.reconnect.hold_requests = false;  // a Write while down is Bad_NoCommunication at once
  std::weak_ptr<state> weak = st;
  o.reconnect.on_event = [weak](const connection_event& e) {
    if (auto s = weak.lock()) s->on_event(e, s);
  };
  auto c = rt.connect(std::move(o));
  if (!c) {
    error = fmt::format("mirror {}: cannot connect to {}: {}", sp.name, sp.endpoint, c.error().to_string());
    return c.error();
  }
  st->client = std::make_shared<uactor::client>(std::move(*c));
  {
    std::lock_guard lock(st->m);
    st->connected = true;  // before anything can be lost: a `lost` from now on says otherwise
  }
  auto fail = [&](std::string why, ua::status_code sc) -> ua::expected<std::unique_ptr<mirror>> {
    error = fmt::format("mirror {}: {}", sp.name, why);
    st->client->close();
    return sc;
  };

  std::vector<remote_node> found;
  std::string why;
  if (auto sc = discover(*st->client, sp, found, why); sc.is_bad()) return fail(why, sc);

  st->ns = srv.register_namespace(mirror_namespace_uri(sp.name));
  const auto top_ns = srv.register_namespace(mirrors_namespace_uri);
  const auto top = ua::node_id::string(top_ns, "Mirrors");
  st->folder_id = ua::node_id::string(st->ns, sp.name);
  const auto folders = srv.apply({folder(top, ns0::objects_folder, "Mirrors"), folder(st->folder_id, top, sp.name)});
  if (folders[0].is_bad() && folders[0] != ua::status::bad_node_id_exists)  // Mirrors: another mirror's
    return fail("the Mirrors folder could not be added: " + folders[0].to_string(), folders[0]);
  if (folders[1].is_bad()) return fail("its folder could not be added: " + folders[1].to_string(), folders[1]);

  // One subscription for all of them; the client handle is the variable's index.
  subscription_settings ss;
  ss.publishing_interval = sp.publishing_interval;
  ss.max_keep_alive_count = 10;
  ss.lifetime_count = 100;
  subscription_handlers h;
  h.on_data = [weak](std::uint32_t, std::uint32_t, std::span<const ua::monitored_item_notification> changes_) {
    if (auto s = weak.lock()) s->on_data(changes_);
  };
  h.on_status = [weak](const subscription_status& s) {
    auto st_ = weak.lock();
    if (!st_) return;
    if (s.what == subscription_event::recreated) {
      std::lock_guard lock(st_->m);
      st_->subscription_id = s.subscription_id;
    }
    // data_lost: a restarted remote (the subscription is then recreated); closed Good: our stop().
    if ((s.what == subscription_event::data_lost || s.what == subscription_event::closed) && s.status.is_bad())
      spdlog::warn("mirror {}: subscription {}: {}", st_->spec.name, s.subscription_id, s.status.to_string());
  };
  h.on_events = [weak](std::uint32_t, std::uint32_t, std::span<const ua::event_field_list>) {
    // Only ModelChangeEvents come (the item's where clause): browse again, on the rescan thread.
    if (auto s = weak.lock()) {
      std::lock_guard lock(s->m);
      s->want_rescan();
    }
  };
  auto sub = st->client->create_subscription_sync(ss, std::move(h));
  if (!sub) return fail("CreateSubscription: " + sub.error().to_string(), sub.error());
  {
    std::lock_guard lock(st->m);
    st->subscription_id = sub->subscription_id;
  }
  if (auto sc = st->add(*st->client, found, st, why); sc.is_bad()) return fail(why, sc);

  std::size_t variables = 0;
  for (const auto& n : found) variables += n.is_variable ? 1 : 0;
  if (!sp.subtrees.empty()) {
    // The remote's ModelChangeEvents (Part 3 §9.32) on its Server object tell us to browse again.
    // A remote without them: the tree as it was at start, and again after it restarted.
    ua::create_monitored_items_request req;
    req.subscription_id = sub->subscription_id;
    req.items_to_create.push_back(monitor_events(ua::node_id(0, server_object_id), model_change_handle,
                                                 event_filter_builder().select("EventType").of_type(base_model_change_event_type).build(),
                                                 100));
    auto created = st->client->create_monitored_items_sync(std::move(req));
    const auto sc = !created ? created.error()
                    : created->results.size() != 1 ? ua::status_code(ua::status::bad_unknown_response)
                                                   : created->results[0].status_code;
    if (sc.is_bad())
      spdlog::info("mirror {}: {} offers no ModelChangeEvents ({}): the subtrees as browsed now, and again after a restart",
                   sp.name, sp.endpoint, sc.to_string());
    st->rescanner = std::thread([st] { st->rescan_loop(st); });
  }
  spdlog::info("mirror {}: {} variable(s) and {} object(s) of {} under Objects/Mirrors/{} ({})", sp.name, variables,
               found.size() - variables, sp.endpoint, sp.name, mirror_namespace_uri(sp.name));
  return std::unique_ptr<mirror>(new mirror(std::move(st)));
}

}  // namespace uactor::app
