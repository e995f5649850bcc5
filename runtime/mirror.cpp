#include "runtime/mirror.hpp"

#include <algorithm>
#include <array>
#include <mutex>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "protocol/generated/attribute_ids.hpp"
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

constexpr std::string_view mirrors_namespace_uri = "urn:uactor:mirrors";

// A link failure of the remote, as our client says it: to a client of the gateway that is
// Bad_NoCommunication (the value's source cannot be reached), not a failure of its own connection.
bool link_failure(ua::status_code sc) {
  return sc == ua::status::bad_server_not_connected || sc == ua::status::bad_connection_closed ||
         sc == ua::status::bad_not_connected || sc == ua::status::bad_secure_channel_closed ||
         sc == ua::status::bad_communication_error || sc == ua::status::bad_shutdown;
}

}  // namespace

std::string mirror_namespace_uri(const std::string& name) { return "urn:uactor:mirror:" + name; }

ua::node_id mirror_node_id(std::uint16_t mirror_ns, const ua::node_id& remote) {
  return ua::node_id::string(mirror_ns, remote.to_string());
}

// Shared by the client's handlers (weakly: the client is the state's) and the server's Write
// handlers (strongly: the server may outlive the mirror and call them after stop()).
struct mirror::state {
  mirror_spec spec;
  server* srv = nullptr;
  std::mutex m;  // the client's callbacks, the server's Write handlers and stop() meet here
  // Shared so that a request can be sent outside the lock while stop() closes it (a closed client
  // answers Bad_ConnectionClosed at once, on the caller's thread).
  std::shared_ptr<uactor::client> client;
  bool connected = false;
  std::vector<value_handle> handles;        // by client handle (the node's index in spec.nodes)
  std::vector<ua::data_value> last;         // the last usable (not Bad) value of each node
  std::vector<std::uint64_t> updated_in;    // the link generation of the last notification per node
  std::uint64_t generation = 0;             // +1 per reconnect
  std::vector<value_update> batch;          // reused: one write_values per NotificationMessage

  // The client's CAF thread, under m.
  void push(std::size_t i, const ua::data_value& dv) {
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
        // A subscription that was kept (reactivated, transferred) sends nothing for values that did
        // not change while we were away: read them all once. A notification that comes first wins
        // (updated_in), so that an older Read answer never overwrites a newer value.
        auto c = client;
        if (!c) break;
        ua::read_request rr;
        rr.timestamps_to_return = ua::timestamps_to_return::both;
        for (const auto& n : spec.nodes) {
          ua::read_value_id id;
          id.node_id = n;
          id.attribute_id = attribute(ua::attribute_id::value);
          rr.nodes_to_read.push_back(std::move(id));
        }
        const auto gen = generation;
        std::weak_ptr<state> weak = self;
        // Sent without the lock: a closed client answers at once, on this thread.
        lock.unlock();
        c->read(std::move(rr), [weak, gen](ua::expected<ua::read_response> r) {
          auto st = weak.lock();
          if (!st || !r) return;
          std::lock_guard relock(st->m);
          if (st->generation != gen || !st->connected) return;
          for (std::size_t i = 0; i < r->results.size() && i < st->handles.size(); ++i)
            if (st->updated_in[i] != gen) st->push(i, r->results[i]);
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
    {
      std::lock_guard lock(m);
      if (connected) c = client;
    }
    if (!c) return reply(ua::status::bad_no_communication);
    ua::write_request wr;
    ua::write_value wv;
    wv.node_id = spec.nodes[i];
    wv.attribute_id = attribute(ua::attribute_id::value);
    wv.value.set_value(w.value.value);  // the value only: servers may refuse written timestamps
    wr.nodes_to_write.push_back(std::move(wv));
    c->write(std::move(wr), [reply](ua::expected<ua::write_response> r) {
      if (!r) return reply(link_failure(r.error()) ? ua::status::bad_no_communication : r.error());
      reply(r->results.size() == 1 ? r->results[0] : ua::status::bad_unknown_response);
    });
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
  {
    std::lock_guard lock(state_->m);
    c = std::move(state_->client);
    state_->connected = false;
  }
  if (c) c->close();  // outside the lock: its callbacks take it
}

ua::expected<std::unique_ptr<mirror>> mirror::start(runtime& rt, server& srv, mirror_spec spec, std::string& error) {
  auto st = std::make_shared<state>();
  st->spec = std::move(spec);
  st->srv = &srv;
  const auto& sp = st->spec;
  const auto n = sp.nodes.size();
  st->last.resize(n);
  st->updated_in.assign(n, 0);

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

  // The attributes a local copy needs (Part 3 §5.6.2), in slices.
  std::vector<ua::data_value> attrs;
  attrs.reserve(n * attributes_per_node);
  for (std::size_t from = 0; from < n; from += nodes_per_read) {
    ua::read_request rr;
    for (std::size_t i = from; i < std::min(n, from + nodes_per_read); ++i)
      for (auto a : copied_attributes) {
        ua::read_value_id id;
        id.node_id = sp.nodes[i];
        id.attribute_id = attribute(a);
        rr.nodes_to_read.push_back(std::move(id));
      }
    const auto expected_results = rr.nodes_to_read.size();
    auto r = st->client->read_sync(std::move(rr));
    if (!r) return fail(fmt::format("reading the nodes' attributes at {}: {}", sp.endpoint, r.error().to_string()), r.error());
    if (r->results.size() != expected_results)
      return fail("the remote answered the Read with a wrong number of results", ua::status::bad_unknown_response);
    for (auto& dv : r->results) attrs.push_back(std::move(dv));
  }

  const auto ns = srv.register_namespace(mirror_namespace_uri(sp.name));
  const auto top_ns = srv.register_namespace(mirrors_namespace_uri);
  const auto top = ua::node_id::string(top_ns, "Mirrors");
  const auto folder_id = ua::node_id::string(ns, sp.name);
  std::vector<node_change> changes;
  changes.push_back(folder(top, ns0::objects_folder, "Mirrors"));
  changes.push_back(folder(folder_id, top, sp.name));
  std::vector<bool> writable(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    const auto* a = &attrs[i * attributes_per_node];
    if (a[0].status.is_bad())
      return fail(fmt::format("{} at {}: {}", sp.nodes[i].to_string(), sp.endpoint, a[0].status.to_string()), a[0].status);
    const auto* browse = a[0].value.get_if<ua::qualified_name>();
    const auto* data_type = a[2].value.get_if<ua::node_id>();
    const auto* rank = a[3].value.get_if<std::int32_t>();
    const auto* access_level = a[5].value.get_if<std::uint8_t>();
    if (!browse || !data_type || !rank || !access_level)
      return fail(fmt::format("{} at {} is not a Variable (no DataType, ValueRank or AccessLevel)", sp.nodes[i].to_string(),
                              sp.endpoint),
                  ua::status::bad_node_class_invalid);
    variable_node v;
    v.id = mirror_node_id(ns, sp.nodes[i]);
    v.parent = folder_id;
    v.browse_name = {ns, browse->name};
    if (const auto* d = a[1].value.get_if<ua::localized_text>()) v.display_name = *d;
    // A DataType of the remote's own namespaces means nothing here: BaseDataType takes any value.
    v.data_type = data_type->namespace_index() == 0 ? *data_type : ns0::base_data_type;
    v.value_rank = *rank;
    if (const auto* dims = a[4].value.get_if<ua::ua_array<std::uint32_t>>())
      v.array_dimensions.assign(dims->begin(), dims->end());
    v.access_level = *access_level & access::read_write;
    writable[i] = (v.access_level & access::write) != 0;
    v.value.status = ua::status::bad_waiting_for_initial_data;  // until the first notification
    v.value.has_status = true;
    changes.push_back(std::move(v));
  }
  const auto results = srv.apply(std::move(changes));
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].is_good() || (i == 0 && results[i] == ua::status::bad_node_id_exists)) continue;  // Mirrors: another mirror's
    const std::string what = i == 0 ? "the Mirrors folder" : i == 1 ? "its folder" : sp.nodes[i - 2].to_string();
    return fail(fmt::format("{} could not be added: {}", what, results[i].to_string()), results[i]);
  }
  std::vector<ua::node_id> local;
  for (const auto& r : sp.nodes) local.push_back(mirror_node_id(ns, r));
  for (auto& h : srv.resolve(local)) {
    if (!h) return fail("a mirrored node could not be resolved: " + h.error().to_string(), h.error());
    st->handles.push_back(*h);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!writable[i]) continue;
    callback_options co;  // inline: the handler only sends a request and returns
    co.deadline = sp.write_deadline;
    srv.on_write(local[i], [st, i](const write_call& w, write_reply reply) { st->forward_write(i, w, std::move(reply)); }, co);
  }

  // One subscription for all of them; the client handle is the node's index.
  subscription_settings ss;
  ss.publishing_interval = sp.publishing_interval;
  ss.max_keep_alive_count = 10;
  ss.lifetime_count = 100;
  subscription_handlers h;
  h.on_data = [weak](std::uint32_t, std::uint32_t, std::span<const ua::monitored_item_notification> changes_) {
    if (auto s = weak.lock()) s->on_data(changes_);
  };
  h.on_status = [weak](const subscription_status& s) {
    // data_lost: a restarted remote (the subscription is then recreated); closed Good: our stop().
    if ((s.what == subscription_event::data_lost || s.what == subscription_event::closed) && s.status.is_bad())
      if (auto st_ = weak.lock()) spdlog::warn("mirror {}: subscription {}: {}", st_->spec.name, s.subscription_id, s.status.to_string());
  };
  auto sub = st->client->create_subscription_sync(ss, std::move(h));
  if (!sub) return fail("CreateSubscription: " + sub.error().to_string(), sub.error());
  ua::create_monitored_items_request req;
  req.subscription_id = sub->subscription_id;
  req.timestamps_to_return = ua::timestamps_to_return::both;
  for (std::uint32_t i = 0; i < n; ++i)
    req.items_to_create.push_back(monitor_value(sp.nodes[i], i, static_cast<double>(sp.sampling_interval.count()), 10));
  auto created = st->client->create_monitored_items_sync(std::move(req));
  if (!created) return fail("CreateMonitoredItems: " + created.error().to_string(), created.error());
  for (std::size_t i = 0; i < created->results.size() && i < n; ++i)
    if (created->results[i].status_code.is_bad())
      return fail(fmt::format("{}: CreateMonitoredItems: {}", sp.nodes[i].to_string(), created->results[i].status_code.to_string()),
                  created->results[i].status_code);
  spdlog::info("mirror {}: {} node(s) of {} under Objects/Mirrors/{} ({})", sp.name, n, sp.endpoint, sp.name,
               mirror_namespace_uri(sp.name));
  return std::unique_ptr<mirror>(new mirror(std::move(st)));
}

}  // namespace uactor::app
