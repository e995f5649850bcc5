// Part 14 §9.1 (the PubSub information model) for the [pubsub] connections that run.
// docs/decisions/0079.
#include "engine/server/pubsub_object.hpp"

#include <charconv>
#include <string_view>

#include "protocol/node_id_text.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"
#include "uactor/ua/types.hpp"

namespace uactor::actors {

using namespace uactor::ua;

namespace server_pubsub_object {

// Namespace 0's nodes (NodeIds.csv).
constexpr std::uint32_t publish_subscribe = 14443, published_data_sets = 17371, root_status_state = 17406,
                        root_diagnostics = 17409;
constexpr std::uint32_t has_pubsub_connection = 14476, has_writer_group = 18804, has_reader_group = 18805,
                        has_dataset_writer = 15296, has_dataset_reader = 15297, dataset_to_writer = 14936;
constexpr std::uint32_t connection_type = 14209, writer_group_type = 17725, reader_group_type = 17999,
                        dataset_writer_type = 15298, dataset_reader_type = 15306, status_type = 14643,
                        network_address_url_type = 21147, published_data_items_type = 14534,
                        target_variables_type = 15111, selection_list_type = 16309, counter_type = 19725;
constexpr std::uint32_t diag_connection = 19786, diag_writer_group = 19834, diag_reader_group = 19903,
                        diag_writer = 19968, diag_reader = 20027;
// DataTypes.
constexpr std::uint32_t t_boolean = 1, t_byte = 3, t_uint16 = 5, t_int32 = 6, t_uint32 = 7, t_string = 12,
                        t_date_time = 13, t_status_code = 19, t_base = 24, t_duration = 290, t_locale_id = 295,
                        t_message_security_mode = 302, t_key_value_pair = 14533, t_field_content_mask = 15583,
                        t_pubsub_state = 14647, t_diagnostics_level = 19723, t_classification = 19730;

node_id child_id(const node_id& parent, std::string_view path) {
  std::string text = parent.type() == node_id_type::string ? std::string(parent.text()) : parent.to_string();
  text += '.';
  text += path;
  return node_id::string(parent.namespace_index(), text);
}

// A child of `parent` by its BrowseName over a forward hierarchical reference, or no_node.
node_index child_of(const address_space& as, node_index parent, std::string_view name) {
  if (parent == no_node) return no_node;
  for (const auto& r : as.forward_references(parent))
    if (r.target != no_node && as.at(r.target).browse_name == name) return r.target;
  return no_node;
}

struct builder {
  address_space& as;
  date_time now;
  status_code& failed;              // the first failure of a connection's nodes
  std::vector<node_index>& added;   // removed again when one fails
  node_index has_type = as.find(node_id(0, ids::has_type_definition));

  node_index add(node_spec&& spec, node_index parent, std::uint32_t ref, std::uint32_t type_def) {
    if (failed.is_bad()) return no_node;
    auto n = as.add_node(std::move(spec));
    if (!n) {
      failed = n.error();
      return no_node;
    }
    added.push_back(*n);
    if (parent != no_node) as.add_reference(parent, as.find(node_id(0, ref)), *n);
    if (type_def) as.add_reference(*n, has_type, as.find(node_id(0, type_def)));
    return *n;
  }
  node_index object(const node_id& id, std::uint16_t browse_ns, std::string_view name, std::uint32_t type_def,
                    node_index parent, std::uint32_t ref = ids::has_component) {
    node_spec s;
    s.id = id;
    s.cls = node_class::object;
    s.browse_ns = browse_ns;
    s.browse_name = name;
    return add(std::move(s), parent, ref, type_def);
  }
  // A Variable of namespace 0's BrowseName `name` under `parent_id`: a Property (PropertyType,
  // HasProperty) or a component (`type_def`, HasComponent).
  node_index variable(const node_id& parent_id, node_index parent, std::string_view name, std::uint32_t data_type,
                      std::int32_t value_rank, variant value, bool property, std::uint32_t type_def = ids::base_data_variable_type) {
    node_spec s;
    s.id = child_id(parent_id, name);
    s.cls = node_class::variable;
    s.browse_ns = 0;
    s.browse_name = name;
    s.data_type = node_id(0, data_type);
    s.value_rank = value_rank;
    s.value.has_value = false;
    const node_index n = add(std::move(s), parent, property ? ids::has_property : ids::has_component,
                             property ? ids::property_type : type_def);
    if (n != no_node && !value.empty()) as.assign_value(n, value, now, now);
    return n;
  }
  node_index property(const node_id& parent_id, node_index parent, std::string_view name, std::uint32_t data_type,
                      variant value, std::int32_t value_rank = -1) {
    return variable(parent_id, parent, name, data_type, value_rank, std::move(value), true);
  }
};

// The PublisherId's value (Part 14 §6.2.7.1): its configured DataType; BaseDataType (Null) when empty.
variant publisher_id_value(const std::string& text, pubsub::publisher_id_type kind) {
  if (text.empty()) return {};
  std::uint64_t n = 0;
  if (kind != pubsub::publisher_id_type::string) {
    const auto r = std::from_chars(text.data(), text.data() + text.size(), n);
    if (r.ec != std::errc{} || r.ptr != text.data() + text.size()) return ua_string(text);
  }
  switch (kind) {
    case pubsub::publisher_id_type::byte: return static_cast<std::uint8_t>(n);
    case pubsub::publisher_id_type::uint16: return static_cast<std::uint16_t>(n);
    case pubsub::publisher_id_type::uint32: return static_cast<std::uint32_t>(n);
    case pubsub::publisher_id_type::uint64: return n;
    case pubsub::publisher_id_type::string: break;
  }
  return ua_string(text);
}

// Part 7's transport profiles: the connection's TransportProfileUri.
const char* transport_profile(const pubsub::connection_config& c) {
  if (c.url.starts_with("opc.udp:")) return "http://opcfoundation.org/UA-Profile/Transport/pubsub-udp-uadp";
  return c.encoding == pubsub::message_encoding::uadp ? "http://opcfoundation.org/UA-Profile/Transport/pubsub-mqtt-uadp"
                                                       : "http://opcfoundation.org/UA-Profile/Transport/pubsub-mqtt-json";
}

// DataSetFieldContentMask (Part 14 §6.2.4.2): bit 0 StatusCode, 1 SourceTimestamp, 2 ServerTimestamp,
// 5 RawData; none of them: Variant.
std::uint32_t content_mask(pubsub::field_encoding e) {
  switch (e) {
    case pubsub::field_encoding::variant: return 0;
    case pubsub::field_encoding::raw: return 0x20;
    case pubsub::field_encoding::data_value: return 0x07;
  }
  return 0;
}

variant key_value_pairs() { return ua_array<extension_object>{}; }

std::int32_t state_value(pubsub_state_value s) { return static_cast<std::int32_t>(s); }

}  // namespace server_pubsub_object

using namespace server_pubsub_object;

void pubsub_object::add_status(address_space& as, const node_id& parent_id, node_index parent,
                               std::function<pubsub_state_value()> read, std::shared_ptr<pubsub_connection_counters> connection,
                               date_time now) {
  builder b{as, now, failed_, added_};
  const node_id id = child_id(parent_id, "Status");
  const node_index object = b.object(id, 0, "Status", status_type, parent);
  const node_index state = b.variable(id, object, "State", t_pubsub_state, -1, state_value(read()), false);
  if (object == no_node || state == no_node) return;
  // The type's Enable and Disable (optional in PubSubStatusType): a connection's only.
  if (connection) {
    const node_index has_component = as.find(node_id(0, ids::has_component));
    as.add_reference(object, has_component, as.find(node_id(0, enable_method)));
    as.add_reference(object, has_component, as.find(node_id(0, disable_method)));
  }
  statuses_.push_back({object, state, std::move(read), std::move(connection)});
}

std::size_t pubsub_object::add_diagnostics(address_space& as, const node_id& parent_id, node_index parent, std::uint32_t type,
                                           std::vector<std::pair<const char*, counter>> counters,
                                           std::vector<std::pair<const char*, std::pair<std::uint32_t, std::function<variant()>>>> live,
                                           date_time now) {
  builder b{as, now, failed_, added_};
  const node_id id = child_id(parent_id, "Diagnostics");
  diagnostics d;
  d.object = b.object(id, 0, "Diagnostics", type, parent);
  // DiagnosticsLevel (§9.1.11.4): Basic, the only one served.
  b.variable(id, d.object, "DiagnosticsLevel", t_diagnostics_level, -1, std::int32_t{0}, false);
  auto counter_node = [&](const node_id& cid, node_index owner, std::string_view name, classification cls, counter& c) {
    c.var = b.variable(cid, owner, name, t_uint32, -1, std::uint32_t{0}, false, counter_type);
    const node_id vid = child_id(cid, name);
    b.property(vid, c.var, "Active", t_boolean, true);
    b.property(vid, c.var, "Classification", t_classification, static_cast<std::int32_t>(cls));
    b.property(vid, c.var, "DiagnosticsLevel", t_diagnostics_level, std::int32_t{0});
    c.time_first_change = b.property(vid, c.var, "TimeFirstChange", t_date_time, variant{});
    c.cls = cls;
  };
  counter info, error;
  counter_node(id, d.object, "TotalInformation", classification::information, info);
  counter_node(id, d.object, "TotalError", classification::error, error);
  d.total_information = info.var;
  d.total_error = error.var;
  if (const node_index reset = as.find(node_id(0, reset_method)); reset != no_node && d.object != no_node)
    as.add_reference(d.object, as.find(node_id(0, ids::has_component)), reset);
  d.sub_error = b.variable(id, d.object, "SubError", t_boolean, -1, false, false);
  const node_id counters_id = child_id(id, "Counters");
  const node_index counters_object = b.object(counters_id, 0, "Counters", ids::base_object_type, d.object);
  for (auto& [name, c] : counters) {
    counter_node(counters_id, counters_object, name, c.cls, c);
    d.counters.push_back(std::move(c));
  }
  const node_id live_id = child_id(id, "LiveValues");
  const node_index live_object = b.object(live_id, 0, "LiveValues", ids::base_object_type, d.object);
  for (auto& [name, v] : live) {
    live_value lv;
    lv.var = b.variable(live_id, live_object, name, v.first, -1, v.second(), false);
    lv.read = std::move(v.second);
    d.live.push_back(std::move(lv));
  }
  diags_.push_back(std::move(d));
  return diags_.size() - 1;
}

// The root's Status and Diagnostics are namespace 0's nodes (i=17405, i=17409): they take values.
void pubsub_object::install_root(address_space& as, date_time now) {
  root_installed_ = true;
  root_state_ = as.find(node_id(0, root_status_state));
  diagnostics d;
  d.object = as.find(node_id(0, root_diagnostics));
  d.total_information = child_of(as, d.object, "TotalInformation");
  d.total_error = child_of(as, d.object, "TotalError");
  d.sub_error = child_of(as, d.object, "SubError");
  if (const node_index level = child_of(as, d.object, "DiagnosticsLevel"); level != no_node)
    as.assign_value(level, std::int32_t{0}, now, now);
  const node_index counters = child_of(as, d.object, "Counters");
  // The root has no state of its own to change: its state counters stay 0.
  for (const char* name : {"StateError", "StateOperationalByMethod", "StateOperationalByParent", "StateOperationalFromError",
                           "StatePausedByParent", "StateDisabledByMethod"}) {
    counter c;
    c.var = child_of(as, counters, name);
    c.time_first_change = child_of(as, c.var, "TimeFirstChange");
    c.cls = std::string_view(name) == "StateError" ? classification::error : classification::information;
    c.read = [] { return std::uint64_t{0}; };
    d.counters.push_back(std::move(c));
  }
  // Its LiveValues are counted over the connections in sync() (no callback holds `this`).
  const node_index live = child_of(as, d.object, "LiveValues");
  root_live_ = {child_of(as, live, "ConfiguredDataSetWriters"), child_of(as, live, "ConfiguredDataSetReaders"),
                child_of(as, live, "OperationalDataSetWriters"), child_of(as, live, "OperationalDataSetReaders")};
  root_diags_ = diags_.size();
  diags_.push_back(std::move(d));
}

status_code pubsub_object::add_connection(address_space& as, std::uint16_t ns, pubsub_object_connection c, date_time now) {
  const node_index root = as.find(node_id(0, publish_subscribe));
  if (root == no_node) return status::bad_node_id_unknown;
  if (!c.live) return status::bad_invalid_argument;
  const auto& cfg = c.config;
  const node_id cid = node_id::string(ns, "PubSub." + cfg.name);
  if (as.find(cid) != no_node) return status::bad_node_id_exists;
  if (!root_installed_) install_root(as, now);
  const auto live = c.live;
  const auto statuses_before = statuses_.size();
  const auto diags_before = diags_.size();
  failed_ = status::good;
  added_.clear();
  builder b{as, now, failed_, added_};

  // PubSubConnectionType (§9.1.5).
  const node_index conn = b.object(cid, ns, cfg.name, connection_type, root, has_pubsub_connection);
  b.property(cid, conn, "PublisherId", t_base, publisher_id_value(cfg.publisher_id, cfg.publisher_id_kind));
  b.variable(cid, conn, "TransportProfileUri", t_string, -1, ua_string(transport_profile(cfg)), false, selection_list_type);
  b.property(cid, conn, "ConnectionProperties", t_key_value_pair, key_value_pairs(), 1);
  const node_id aid = child_id(cid, "Address");
  const node_index address = b.object(aid, 0, "Address", network_address_url_type, conn);
  b.variable(aid, address, "NetworkInterface", t_string, -1, ua_string(cfg.udp.multicast_interface), false, selection_list_type);
  b.variable(aid, address, "Url", t_string, -1, ua_string(cfg.url), false);
  if (failed_.is_bad()) {
    for (auto it = added_.rbegin(); it != added_.rend(); ++it) as.remove_node(*it);
    return failed_;
  }
  const auto conn_state = [live] {
    return live->enabled.load() ? (live->connection_state() == pubsub_state_value::disabled ? pubsub_state_value::pre_operational
                                                                                       : live->connection_state())
                                : pubsub_state_value::disabled;
  };
  add_status(as, cid, conn, conn_state, live, now);
  // A component under the connection follows it (§6.2.1): Paused while it is not Operational.
  const auto child_state = [conn_state] {
    const auto s = conn_state();
    return s == pubsub_state_value::operational || s == pubsub_state_value::pre_operational ? s : pubsub_state_value::paused;
  };
  const auto zero = [] { return std::uint64_t{0}; };
  const auto paused_by_parent = [live] { return live->to_error.load() + live->disabled_by_method.load(); };
  const auto operational_by_parent = [live] { return live->from_error.load() + live->enabled_by_method.load(); };
  using named = std::pair<const char*, counter>;
  const auto mk = [](classification cls, std::function<std::uint64_t()> read) {
    counter k;
    k.cls = cls;
    k.read = std::move(read);
    return k;
  };
  const auto I = classification::information, E = classification::error;
  // The six state counters of PubSubDiagnosticsType (§9.1.11.2): error, by method, by parent,
  // from error, paused by parent, disabled by method.
  const auto state_counters = [&](std::function<std::uint64_t()> to_error, std::function<std::uint64_t()> by_method,
                                  std::function<std::uint64_t()> by_parent, std::function<std::uint64_t()> from_error,
                                  std::function<std::uint64_t()> paused, std::function<std::uint64_t()> disabled) {
    return std::vector<named>{{"StateError", mk(E, std::move(to_error))},
                              {"StateOperationalByMethod", mk(I, std::move(by_method))},
                              {"StateOperationalByParent", mk(I, std::move(by_parent))},
                              {"StateOperationalFromError", mk(I, std::move(from_error))},
                              {"StatePausedByParent", mk(I, std::move(paused))},
                              {"StateDisabledByMethod", mk(I, std::move(disabled))}};
  };
  const std::size_t conn_diag = add_diagnostics(
      as, cid, conn, diag_connection,
      state_counters([live] { return live->to_error.load(); }, [live] { return live->enabled_by_method.load(); }, zero,
                     [live] { return live->from_error.load(); }, zero, [live] { return live->disabled_by_method.load(); }),
      {{"ResolvedAddress", {t_string, [a = c.resolved_address] { return variant(ua_string(a)); }}}}, now);

  // WriterGroups (§9.1.6.2) and their DataSetWriters (§9.1.7), each writer's PublishedDataSet (§9.1.4).
  const node_index folder = as.find(node_id(0, published_data_sets));
  for (std::size_t g = 0; g < cfg.writer_groups.size(); ++g) {
    const auto& gc = cfg.writer_groups[g];
    const node_id gid = child_id(cid, gc.name);
    const node_index group = b.object(gid, ns, gc.name, writer_group_type, conn, has_writer_group);
    b.property(gid, group, "SecurityMode", t_message_security_mode, std::int32_t{1});  // None: no message security
    b.property(gid, group, "MaxNetworkMessageSize", t_uint32, gc.max_network_message_size);
    b.property(gid, group, "GroupProperties", t_key_value_pair, key_value_pairs(), 1);
    b.property(gid, group, "WriterGroupId", t_uint16, gc.id);
    b.property(gid, group, "PublishingInterval", t_duration, static_cast<double>(gc.publishing_interval.count()));
    b.property(gid, group, "KeepAliveTime", t_duration, static_cast<double>(gc.keep_alive_time.count()));
    b.property(gid, group, "Priority", t_byte, std::uint8_t{0});
    b.property(gid, group, "LocaleIds", t_locale_id, ua_array<ua_string>{}, 1);
    b.property(gid, group, "HeaderLayoutUri", t_string, ua_string(""));
    add_status(as, gid, group, child_state, nullptr, now);
    const std::size_t writers = gc.writers.size();
    const std::size_t group_diag = add_diagnostics(
        as, gid, group, diag_writer_group,
        [&] {
          auto v = state_counters(zero, zero, operational_by_parent, zero, paused_by_parent, zero);
          v.push_back({"SentNetworkMessages", mk(I, [live, g] { return live->groups[g].sent.load(); })});
          v.push_back({"FailedTransmissions", mk(E, [live, g] { return live->groups[g].failed.load(); })});
          return v;
        }(),
        {{"ConfiguredDataSetWriters", {t_uint16, [writers] { return variant(static_cast<std::uint16_t>(writers)); }}},
         {"OperationalDataSetWriters",
          {t_uint16, [writers, child_state] {
             return variant(static_cast<std::uint16_t>(child_state() == pubsub_state_value::operational ? writers : 0));
           }}}},
        now);
    diags_[conn_diag].children.push_back(group_diag);
    for (std::size_t w = 0; w < writers; ++w) {
      const auto& wc = gc.writers[w];
      const node_id wid = child_id(gid, wc.name);
      const node_index writer = b.object(wid, ns, wc.name, dataset_writer_type, group, has_dataset_writer);
      b.property(wid, writer, "DataSetWriterId", t_uint16, wc.id);
      b.property(wid, writer, "DataSetFieldContentMask", t_field_content_mask, content_mask(wc.encoding));
      b.property(wid, writer, "KeyFrameCount", t_uint32, wc.key_frame_count);
      b.property(wid, writer, "DataSetWriterProperties", t_key_value_pair, key_value_pairs(), 1);
      add_status(as, wid, writer, child_state, nullptr, now);
      const std::size_t writer_diag = add_diagnostics(
          as, wid, writer, diag_writer,
          [&] {
            auto v = state_counters(zero, zero, operational_by_parent, zero, paused_by_parent, zero);
            v.push_back({"FailedDataSetMessages", mk(E, [live, g, w] { return live->writer(g, w) ? live->writer(g, w)->failed.load() : std::uint64_t{0}; })});
            return v;
          }(),
          {}, now);
      diags_[group_diag].children.push_back(writer_diag);
      // The PublishedDataSet (PublishedDataItemsType, §9.1.4.3): its variables and DataSetMetaData.
      const std::string pds_name = wc.dataset_name.empty() ? wc.name : wc.dataset_name;
      const node_id pid = node_id::string(ns, "PubSub.DataSets." + cfg.name + "." + gc.name + "." + wc.name);
      const node_index pds = b.object(pid, ns, pds_name, published_data_items_type, folder);
      data_set_meta_data_type meta;
      meta.name.assign(pds_name);
      meta.configuration_version = {1, 0};
      ua_array<extension_object> published;
      if (g < c.fields.size() && w < c.fields[g].size())
        for (const auto& f : c.fields[g][w]) {
          field_meta_data fm;
          fm.name.assign(f.name);
          fm.built_in_type = f.built_in_type;
          fm.data_type = f.data_type;
          fm.value_rank = f.value_rank;
          meta.fields.push_back(std::move(fm));
          published_variable_data_type pv;
          pv.published_variable = f.variable;
          pv.attribute_id = 13;  // Value
          published.push_back(extension_object(std::move(pv)));
        }
      b.property(pid, pds, "ConfigurationVersion", configuration_version_data_type::data_type_id,
                 extension_object(configuration_version_data_type{1, 0}));
      b.property(pid, pds, "DataSetMetaData", data_set_meta_data_type::data_type_id, extension_object(std::move(meta)));
      b.property(pid, pds, "PublishedData", published_variable_data_type::data_type_id, std::move(published), 1);
      if (pds != no_node && writer != no_node) as.add_reference(pds, as.find(node_id(0, dataset_to_writer)), writer);
    }
  }

  // One ReaderGroup (§9.1.6.3) with the connection's DataSetReaders (§9.1.8).
  if (!cfg.readers.empty()) {
    const node_id rgid = child_id(cid, "ReaderGroup");
    const node_index rgroup = b.object(rgid, ns, "ReaderGroup", reader_group_type, conn, has_reader_group);
    b.property(rgid, rgroup, "SecurityMode", t_message_security_mode, std::int32_t{1});
    b.property(rgid, rgroup, "MaxNetworkMessageSize", t_uint32,
               static_cast<std::uint32_t>(cfg.url.starts_with("opc.udp:") ? cfg.udp.max_datagram : (1u << 20)));
    b.property(rgid, rgroup, "GroupProperties", t_key_value_pair, key_value_pairs(), 1);
    add_status(as, rgid, rgroup, child_state, nullptr, now);
    const std::size_t readers = cfg.readers.size();
    const std::size_t rgroup_diag = add_diagnostics(
        as, rgid, rgroup, diag_reader_group,
        [&] {
          auto v = state_counters(zero, zero, operational_by_parent, zero, paused_by_parent, zero);
          v.push_back({"ReceivedNetworkMessages", mk(I, [live] { return live->network_messages_in.load(); })});
          v.push_back({"ReceivedInvalidNetworkMessages", mk(E, [live] { return live->decode_errors.load(); })});
          return v;
        }(),
        {{"ConfiguredDataSetReaders", {t_uint16, [readers] { return variant(static_cast<std::uint16_t>(readers)); }}},
         {"OperationalDataSetReaders",
          {t_uint16, [live, child_state] {
             std::uint16_t n = 0;
             if (child_state() == pubsub_state_value::operational)
               for (const auto& r : live->readers) n = static_cast<std::uint16_t>(n + (r.state.load() == state_value(pubsub_state_value::operational)));
             return variant(n);
           }}}},
        now);
    diags_[conn_diag].children.push_back(rgroup_diag);
    for (std::size_t r = 0; r < readers && r < live->readers.size(); ++r) {
      const auto& rc = cfg.readers[r];
      const std::string name = rc.name.empty() ? "Reader" + std::to_string(r + 1) : rc.name;
      const node_id rid = child_id(rgid, name);
      const node_index reader = b.object(rid, ns, name, dataset_reader_type, rgroup, has_dataset_reader);
      b.property(rid, reader, "PublisherId", t_base, publisher_id_value(rc.publisher_id, pubsub::publisher_id_type::string));
      b.property(rid, reader, "WriterGroupId", t_uint16, rc.writer_group_id);
      b.property(rid, reader, "DataSetWriterId", t_uint16, rc.writer_id);
      data_set_meta_data_type meta;
      meta.name.assign(name);
      meta.configuration_version = {1, 0};
      for (const auto& f : rc.fields) {
        field_meta_data fm;
        fm.name.assign(f);
        meta.fields.push_back(std::move(fm));
      }
      b.property(rid, reader, "DataSetMetaData", data_set_meta_data_type::data_type_id, extension_object(std::move(meta)));
      b.property(rid, reader, "DataSetFieldContentMask", t_field_content_mask, std::uint32_t{0});
      b.property(rid, reader, "MessageReceiveTimeout", t_duration, static_cast<double>(rc.message_receive_timeout.count()));
      b.property(rid, reader, "KeyFrameCount", t_uint32, std::uint32_t{0});
      b.property(rid, reader, "HeaderLayoutUri", t_string, ua_string(""));
      b.property(rid, reader, "DataSetReaderProperties", t_key_value_pair, key_value_pairs(), 1);
      const auto reader_state = [live, r, child_state] {
        const auto p = child_state();
        return p == pubsub_state_value::operational ? static_cast<pubsub_state_value>(live->readers[r].state.load()) : p;
      };
      add_status(as, rid, reader, reader_state, nullptr, now);
      const std::size_t reader_diag = add_diagnostics(
          as, rid, reader, diag_reader,
          [&] {
            auto v = state_counters([live, r] { return live->readers[r].to_error.load(); }, zero, operational_by_parent,
                                    [live, r] { return live->readers[r].from_error.load(); }, paused_by_parent, zero);
            v.push_back({"FailedDataSetMessages", mk(E, [live, r] { return live->readers[r].failed.load(); })});
            return v;
          }(),
          {{"MessageSequenceNumber", {t_uint16, [live, r] { return variant(static_cast<std::uint16_t>(live->readers[r].sequence.load())); }}},
           {"StatusCode", {t_status_code, [live, r] { return variant(status_code(live->readers[r].status.load())); }}},
           {"MajorVersion", {t_uint32, [live, r] { return variant(live->readers[r].major.load()); }}},
           {"MinorVersion", {t_uint32, [live, r] { return variant(live->readers[r].minor.load()); }}}},
          now);
      diags_[rgroup_diag].children.push_back(reader_diag);
      // SubscribedDataSet as TargetVariables (§9.1.8.2, §6.2.10.2).
      const node_id sid = child_id(rid, "SubscribedDataSet");
      const node_index subscribed = b.object(sid, 0, "SubscribedDataSet", target_variables_type, reader);
      ua_array<extension_object> targets;
      for (const auto& t : rc.targets) {
        field_target_data_type ft;
        if (auto id = parse_node_id(t.node)) ft.target_node_id = std::move(*id);
        ft.attribute_id = 13;  // Value
        targets.push_back(extension_object(std::move(ft)));
      }
      b.property(sid, subscribed, "TargetVariables", field_target_data_type::data_type_id, std::move(targets), 1);
    }
  }
  if (failed_.is_bad()) {
    // All or nothing: the nodes go, and the states and diagnostics that named them.
    for (auto it = added_.rbegin(); it != added_.rend(); ++it) as.remove_node(*it);
    statuses_.resize(statuses_before);
    diags_.resize(diags_before);
    return failed_;
  }
  added_.clear();
  diags_[root_diags_].children.push_back(conn_diag);
  connections_.push_back(std::move(c));
  sync(as, now);
  return status::good;
}

void pubsub_object::sync_diagnostics(address_space& as, diagnostics& d, date_time now) {
  std::uint64_t info = 0, errors = 0;
  const auto set = [&](node_index n, const variant& v) {
    if (n == no_node) return;
    const variable_data* var = as.variable(n);
    if (var && var->value.has_value && var->value.value == v) return;
    as.assign_value(n, v, now, now);
  };
  for (auto& c : d.counters) {
    const std::uint64_t raw = c.read ? c.read() : 0;
    if (raw < c.base) c.base = raw;  // the source started again
    const std::uint64_t v = raw - c.base;
    (c.cls == classification::error ? errors : info) += v;
    set(c.var, static_cast<std::uint32_t>(std::min<std::uint64_t>(v, 0xFFFF'FFFFu)));
    // TimeFirstChange (§9.1.11.5): when the counter first left 0 (since the start or a Reset).
    if (v > 0 && !c.changed) {
      c.changed = true;
      set(c.time_first_change, now);
    }
  }
  for (auto& l : d.live)
    if (l.read) set(l.var, l.read());
  set(d.total_information, static_cast<std::uint32_t>(std::min<std::uint64_t>(info, 0xFFFF'FFFFu)));
  set(d.total_error, static_cast<std::uint32_t>(std::min<std::uint64_t>(errors, 0xFFFF'FFFFu)));
  d.errors = errors;
}

void pubsub_object::sync(address_space& as, date_time now) {
  if (!root_installed_) return;
  const auto set = [&](node_index n, const variant& v) {
    if (n == no_node) return;
    const variable_data* var = as.variable(n);
    if (var && var->value.has_value && var->value.value == v) return;
    as.assign_value(n, v, now, now);
  };
  set(root_state_, state_value(connections_.empty() ? pubsub_state_value::disabled : pubsub_state_value::operational));
  // The root's LiveValues: DataSetWriters and DataSetReaders configured, and Operational now.
  std::uint16_t writers = 0, readers = 0, writers_up = 0, readers_up = 0;
  for (const auto& c : connections_) {
    const bool up = c.live->enabled.load() && c.live->connection_state() == pubsub_state_value::operational;
    for (const auto& g : c.config.writer_groups) {
      writers = static_cast<std::uint16_t>(writers + g.writers.size());
      if (up) writers_up = static_cast<std::uint16_t>(writers_up + g.writers.size());
    }
    for (const auto& r : c.live->readers) {
      ++readers;
      if (up && r.state.load() == state_value(pubsub_state_value::operational)) ++readers_up;
    }
  }
  set(root_live_[0], writers);
  set(root_live_[1], readers);
  set(root_live_[2], writers_up);
  set(root_live_[3], readers_up);
  for (auto& s : statuses_) set(s.state, state_value(s.read()));
  // Leaves first (they were added after their parents): SubError reads the next layer's TotalError.
  for (std::size_t i = diags_.size(); i-- > 0;) {
    auto& d = diags_[i];
    sync_diagnostics(as, d, now);
    bool sub = false;
    for (const std::size_t k : d.children) sub = sub || diags_[k].errors > 0;
    set(d.sub_error, sub);
  }
}

bool pubsub_object::handles(node_index object) const noexcept {
  if (object == no_node) return false;
  for (const auto& s : statuses_)
    if (s.object == object && s.connection) return true;
  for (const auto& d : diags_)
    if (d.object == object) return true;
  return false;
}

status_code pubsub_object::call(node_index object, node_index method, address_space& as, date_time now) {
  const node_id& m = as.at(method).id.to_node_id();
  const bool enable = m == node_id(0, enable_method), disable = m == node_id(0, disable_method);
  for (auto& s : statuses_) {
    if (s.object != object || !s.connection) continue;
    auto& live = *s.connection;
    if (!enable && !disable) return status::bad_method_invalid;
    // Part 14 §9.1.10.3/4: Enable on an enabled component, Disable on a disabled one.
    if (live.enabled.load() == enable) return status::bad_invalid_state;
    live.enabled.store(enable);
    (enable ? live.enabled_by_method : live.disabled_by_method).fetch_add(1);
    sync(as, now);
    return status::good;
  }
  for (auto& d : diags_) {
    if (d.object != object) continue;
    // The type's Reset, or the root's own (i=17421).
    if (as.at(method).browse_name != "Reset") return status::bad_method_invalid;
    // §9.1.11.3: every counter of the Object back to 0.
    for (auto& c : d.counters) {
      c.base = c.read ? c.read() : 0;
      c.changed = false;
      if (c.time_first_change != no_node) as.set_value(c.time_first_change, data_value{});
    }
    sync(as, now);
    return status::good;
  }
  return status::bad_node_id_unknown;
}

}  // namespace uactor::actors
