// The PublishSubscribe Object (Part 14 §9.1, engine/server/pubsub_object.hpp): a connection's
// nodes under i=14443 with their types and references, the Status States following what the
// connection's actor sees, the Diagnostics counters and TotalError/SubError, Enable/Disable and
// Reset, and a name that is taken.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <string_view>

#include "engine/server/pubsub_object.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"
#include "uactor/ua/types.hpp"

using namespace uactor;
using namespace uactor::ua;
using actors::pubsub_state_value;

namespace {

constexpr date_time t0{133'000'000'000'000'000};

pubsub::connection_config udp_connection() {
  pubsub::connection_config c;
  c.name = "udp";
  c.url = "opc.udp://239.0.0.1:4841";
  c.publisher_id = "1001";
  c.publisher_id_kind = pubsub::publisher_id_type::uint16;
  c.encoding = pubsub::message_encoding::uadp;
  pubsub::writer_group_config g;
  g.name = "Line1";
  g.id = 2;
  g.publishing_interval = std::chrono::milliseconds(100);
  pubsub::dataset_writer_config w;
  w.name = "Speeds";
  w.id = 11;
  w.encoding = pubsub::field_encoding::raw;
  w.key_frame_count = 5;
  g.writers.push_back(w);
  c.writer_groups.push_back(g);
  pubsub::dataset_reader_config r;
  r.name = "Back";
  r.publisher_id = "1001";
  r.writer_group_id = 2;
  r.writer_id = 11;
  r.fields = {"Speed", "Temperature"};
  r.message_receive_timeout = std::chrono::milliseconds(1000);
  r.targets.push_back({"Temperature", "ns=2;s=Remote.Temperature"});
  c.readers.push_back(r);
  return c;
}

struct fixture {
  address_space as;
  actors::pubsub_object object;
  std::shared_ptr<actors::pubsub_connection_counters> live =
      std::make_shared<actors::pubsub_connection_counters>(std::vector<std::size_t>{1}, 1);

  fixture() { load_namespace0(as); }

  status_code add(pubsub::connection_config c = udp_connection()) {
    actors::pubsub_object_connection s;
    s.config = std::move(c);
    s.fields = {{{{"Speed", node_id::string(1, "Line1.Speed"), 11, node_id(0, 11), -1},
                  {"Temperature", node_id::string(1, "Line1.Temperature"), 11, node_id(0, 11), -1}}}};
    s.resolved_address = "239.0.0.1:4841";
    s.live = live;
    return object.add_connection(as, 1, std::move(s), t0);
  }
  node_index node(std::string_view text) const { return as.find(node_id::string(1, std::string(text))); }
  // The target of `source`'s forward reference of type `ref` named `name`, or no_node.
  node_index child(node_index source, std::uint32_t ref, std::string_view name) const {
    for (const auto& r : as.forward_references(source))
      if (as.at(r.type).id.to_node_id() == node_id(0, ref) && as.at(r.target).browse_name == name) return r.target;
    return no_node;
  }
  node_index type_of(node_index n) const {
    for (const auto& r : as.forward_references(n))
      if (as.at(r.type).id.to_node_id() == node_id(0, ids::has_type_definition)) return r.target;
    return no_node;
  }
  const variant& value(node_index n) const {
    static const variant none;
    const auto* v = as.variable(n);
    return v && v->value.has_value ? v->value.value : none;
  }
  const variant& value(std::string_view text) const { return value(node(text)); }
  std::int32_t state(std::string_view owner) const {
    const auto* s = value(std::string(owner) + ".Status.State").get_if<std::int32_t>();
    return s ? *s : -1;
  }
  std::uint32_t counter(std::string_view path) const {
    const auto* v = value(path).get_if<std::uint32_t>();
    return v ? *v : 0xFFFF'FFFFu;
  }
  status_code call(std::string_view object_text, std::uint32_t method) {
    return object.call(node(object_text), as.find(node_id(0, method)), as, t0);
  }
};

}  // namespace

TEST_CASE("pubsub_object: a connection, its groups, writers, reader and PublishedDataSet under PublishSubscribe",
          "[pubsub][engine]") {
  fixture f;
  REQUIRE(f.add() == status::good);
  const node_index root = f.as.find(node_id(0, 14443));
  const node_index conn = f.child(root, ids::has_pub_sub_connection, "udp");
  REQUIRE(conn == f.node("PubSub.udp"));
  CHECK(f.as.at(f.type_of(conn)).id.to_node_id() == node_id(0, 14209));  // PubSubConnectionType
  CHECK(f.value("PubSub.udp.PublisherId") == variant(std::uint16_t{1001}));
  CHECK(f.value("PubSub.udp.TransportProfileUri") == variant(ua_string("http://opcfoundation.org/UA-Profile/Transport/pubsub-udp-uadp")));
  CHECK(f.value("PubSub.udp.Address.Url") == variant(ua_string("opc.udp://239.0.0.1:4841")));

  const node_index group = f.child(conn, 18804, "Line1");  // HasWriterGroup
  REQUIRE(group != no_node);
  CHECK(f.as.at(f.type_of(group)).id.to_node_id() == node_id(0, 17725));  // WriterGroupType
  CHECK(f.value("PubSub.udp.Line1.WriterGroupId") == variant(std::uint16_t{2}));
  CHECK(f.value("PubSub.udp.Line1.PublishingInterval") == variant(100.0));
  const node_index writer = f.child(group, 15296, "Speeds");  // HasDataSetWriter
  REQUIRE(writer != no_node);
  CHECK(f.value("PubSub.udp.Line1.Speeds.DataSetWriterId") == variant(std::uint16_t{11}));
  CHECK(f.value("PubSub.udp.Line1.Speeds.DataSetFieldContentMask") == variant(std::uint32_t{0x20}));  // RawData
  CHECK(f.value("PubSub.udp.Line1.Speeds.KeyFrameCount") == variant(std::uint32_t{5}));

  const node_index rgroup = f.child(conn, 18805, "ReaderGroup");  // HasReaderGroup
  REQUIRE(rgroup != no_node);
  const node_index reader = f.child(rgroup, 15297, "Back");  // HasDataSetReader
  REQUIRE(reader != no_node);
  CHECK(f.as.at(f.type_of(reader)).id.to_node_id() == node_id(0, 15306));
  CHECK(f.value("PubSub.udp.ReaderGroup.Back.MessageReceiveTimeout") == variant(1000.0));
  const auto* meta = f.value("PubSub.udp.ReaderGroup.Back.DataSetMetaData").get_if<extension_object>();
  REQUIRE(meta);
  REQUIRE(meta->get_if<data_set_meta_data_type>());
  REQUIRE(meta->get_if<data_set_meta_data_type>()->fields.size() == 2);
  CHECK(meta->get_if<data_set_meta_data_type>()->fields[1].name.view() == "Temperature");
  const auto* targets = f.value("PubSub.udp.ReaderGroup.Back.SubscribedDataSet.TargetVariables").get_if<ua_array<extension_object>>();
  REQUIRE(targets);
  REQUIRE(targets->size() == 1);
  CHECK((*targets)[0].get_if<field_target_data_type>()->target_node_id == node_id::string(2, "Remote.Temperature"));

  // The PublishedDataSet under PublishedDataSets, DataSetToWriter its writer.
  const node_index pds = f.child(f.as.find(node_id(0, 17371)), ids::has_component, "Speeds");
  REQUIRE(pds != no_node);
  CHECK(f.as.at(f.type_of(pds)).id.to_node_id() == node_id(0, 14534));  // PublishedDataItemsType
  CHECK(f.child(pds, 14936, "Speeds") == writer);
  const auto* published = f.value("PubSub.DataSets.udp.Line1.Speeds.PublishedData").get_if<ua_array<extension_object>>();
  REQUIRE(published);
  REQUIRE(published->size() == 2);
  CHECK((*published)[0].get_if<published_variable_data_type>()->published_variable == node_id::string(1, "Line1.Speed"));
  CHECK((*published)[0].get_if<published_variable_data_type>()->attribute_id == 13);
  const auto* pmeta = f.value("PubSub.DataSets.udp.Line1.Speeds.DataSetMetaData").get_if<extension_object>();
  REQUIRE(pmeta);
  REQUIRE(pmeta->get_if<data_set_meta_data_type>()->fields.size() == 2);
  CHECK(pmeta->get_if<data_set_meta_data_type>()->fields[0].built_in_type == 11);
  CHECK(pmeta->get_if<data_set_meta_data_type>()->configuration_version == configuration_version_data_type{1, 0});

  // The root's Status is Operational once a connection is there; its LiveValues count.
  CHECK(f.value(f.as.find(node_id(0, 17406))) == variant(std::int32_t{2}));
  CHECK(f.value(f.as.find(node_id(0, 17458))) == variant(std::uint16_t{1}));  // ConfiguredDataSetWriters
  CHECK(f.value(f.as.find(node_id(0, 17460))) == variant(std::uint16_t{1}));  // ConfiguredDataSetReaders
}

TEST_CASE("pubsub_object: the Status States follow the connection's actor: Error, Paused by the parent, the reader's own",
          "[pubsub][engine]") {
  fixture f;
  REQUIRE(f.add() == status::good);
  CHECK(f.state("PubSub.udp") == 4);  // PreOperational: not connected yet
  f.live->state = static_cast<std::int32_t>(pubsub_state_value::operational);
  f.object.sync(f.as, t0);
  CHECK(f.state("PubSub.udp") == 2);
  CHECK(f.state("PubSub.udp.Line1") == 2);
  CHECK(f.state("PubSub.udp.Line1.Speeds") == 2);
  CHECK(f.state("PubSub.udp.ReaderGroup") == 2);
  CHECK(f.state("PubSub.udp.ReaderGroup.Back") == 4);  // no DataSetMessage yet
  f.live->readers[0].state = static_cast<std::int32_t>(pubsub_state_value::operational);
  f.object.sync(f.as, t0);
  CHECK(f.state("PubSub.udp.ReaderGroup.Back") == 2);
  CHECK(f.value(f.as.find(node_id(0, 17464))) == variant(std::uint16_t{1}));  // OperationalDataSetReaders
  f.live->readers[0].state = static_cast<std::int32_t>(pubsub_state_value::error);
  f.object.sync(f.as, t0);
  CHECK(f.state("PubSub.udp.ReaderGroup.Back") == 3);
  // The broker (or socket) gone: the connection is in Error, what is under it Paused.
  f.live->state = static_cast<std::int32_t>(pubsub_state_value::error);
  f.object.sync(f.as, t0);
  CHECK(f.state("PubSub.udp") == 3);
  CHECK(f.state("PubSub.udp.Line1") == 1);
  CHECK(f.state("PubSub.udp.Line1.Speeds") == 1);
  CHECK(f.state("PubSub.udp.ReaderGroup.Back") == 1);
  CHECK(f.value(f.as.find(node_id(0, 17462))) == variant(std::uint16_t{0}));  // OperationalDataSetWriters
}

TEST_CASE("pubsub_object: Enable and Disable on a connection's Status, Bad_InvalidState when already so", "[pubsub][engine]") {
  fixture f;
  REQUIRE(f.add() == status::good);
  f.live->state = static_cast<std::int32_t>(pubsub_state_value::operational);
  CHECK(f.object.handles(f.node("PubSub.udp.Status")));
  CHECK_FALSE(f.object.handles(f.node("PubSub.udp.Line1.Status")));  // the optional methods: a connection's only
  CHECK(f.call("PubSub.udp.Status", actors::pubsub_object::enable_method) == status::bad_invalid_state);
  CHECK(f.call("PubSub.udp.Status", actors::pubsub_object::disable_method) == status::good);
  CHECK_FALSE(f.live->enabled.load());
  CHECK(f.state("PubSub.udp") == 0);            // Disabled
  CHECK(f.state("PubSub.udp.Line1") == 1);      // Paused by its parent
  CHECK(f.call("PubSub.udp.Status", actors::pubsub_object::disable_method) == status::bad_invalid_state);
  CHECK(f.call("PubSub.udp.Status", actors::pubsub_object::reset_method) == status::bad_method_invalid);
  CHECK(f.counter("PubSub.udp.Diagnostics.Counters.StateDisabledByMethod") == 1);
  CHECK(f.counter("PubSub.udp.Line1.Diagnostics.Counters.StatePausedByParent") == 1);
  CHECK(f.call("PubSub.udp.Status", actors::pubsub_object::enable_method) == status::good);
  CHECK(f.live->enabled.load());
  CHECK(f.counter("PubSub.udp.Diagnostics.Counters.StateOperationalByMethod") == 1);
  CHECK(f.counter("PubSub.udp.Line1.Diagnostics.Counters.StateOperationalByParent") == 1);
}

TEST_CASE("pubsub_object: Diagnostics counters, TotalError, SubError and Reset", "[pubsub][engine]") {
  fixture f;
  REQUIRE(f.add() == status::good);
  f.live->groups[0].sent = 7;
  f.live->groups[0].failed = 2;
  f.live->writers[0].failed = 2;
  f.live->network_messages_in = 30;
  f.live->decode_errors = 3;
  f.live->readers[0].failed = 1;
  f.live->readers[0].to_error = 1;
  f.live->readers[0].sequence = 70'000;  // the live value is the UInt16 on the wire
  f.live->readers[0].status = status::uncertain.value();
  f.live->readers[0].major = 1;
  f.object.sync(f.as, t0);
  CHECK(f.counter("PubSub.udp.Line1.Diagnostics.Counters.SentNetworkMessages") == 7);
  CHECK(f.counter("PubSub.udp.Line1.Diagnostics.Counters.FailedTransmissions") == 2);
  CHECK(f.counter("PubSub.udp.Line1.Diagnostics.TotalInformation") == 7);
  CHECK(f.counter("PubSub.udp.Line1.Diagnostics.TotalError") == 2);
  CHECK(f.counter("PubSub.udp.Line1.Speeds.Diagnostics.Counters.FailedDataSetMessages") == 2);
  CHECK(f.counter("PubSub.udp.ReaderGroup.Diagnostics.Counters.ReceivedNetworkMessages") == 30);
  CHECK(f.counter("PubSub.udp.ReaderGroup.Diagnostics.Counters.ReceivedInvalidNetworkMessages") == 3);
  CHECK(f.counter("PubSub.udp.ReaderGroup.Back.Diagnostics.Counters.FailedDataSetMessages") == 1);
  CHECK(f.counter("PubSub.udp.ReaderGroup.Back.Diagnostics.Counters.StateError") == 1);
  CHECK(f.counter("PubSub.udp.ReaderGroup.Back.Diagnostics.TotalError") == 2);
  CHECK(f.value("PubSub.udp.ReaderGroup.Back.Diagnostics.LiveValues.MessageSequenceNumber") == variant(std::uint16_t{70'000 - 65'536}));
  CHECK(f.value("PubSub.udp.ReaderGroup.Back.Diagnostics.LiveValues.StatusCode") == variant(status::uncertain));
  CHECK(f.value("PubSub.udp.ReaderGroup.Back.Diagnostics.LiveValues.MajorVersion") == variant(std::uint32_t{1}));
  CHECK(f.value("PubSub.udp.Diagnostics.LiveValues.ResolvedAddress") == variant(ua_string("239.0.0.1:4841")));
  // SubError: an error below (the groups' TotalError), not of the connection itself.
  CHECK(f.counter("PubSub.udp.Diagnostics.TotalError") == 0);
  CHECK(f.value("PubSub.udp.Diagnostics.SubError") == variant(true));
  CHECK(f.value("PubSub.udp.ReaderGroup.Back.Diagnostics.SubError") == variant(false));
  CHECK(f.value(f.as.find(node_id(0, 17422))) == variant(false));  // the root: its connection has no error of its own
  // TimeFirstChange: when the counter left 0.
  CHECK(f.value("PubSub.udp.Line1.Diagnostics.Counters.FailedTransmissions.TimeFirstChange") == variant(t0));
  CHECK(f.value("PubSub.udp.Line1.Diagnostics.Counters.StateError.TimeFirstChange").empty());
  CHECK(f.value("PubSub.udp.Line1.Diagnostics.Counters.FailedTransmissions.Classification") == variant(std::int32_t{1}));
  CHECK(f.value("PubSub.udp.Line1.Diagnostics.Counters.SentNetworkMessages.Classification") == variant(std::int32_t{0}));

  // Reset (§9.1.11.3): that Object's counters from 0, the others as they were.
  REQUIRE(f.object.handles(f.node("PubSub.udp.Line1.Diagnostics")));
  CHECK(f.call("PubSub.udp.Line1.Diagnostics", actors::pubsub_object::reset_method) == status::good);
  CHECK(f.counter("PubSub.udp.Line1.Diagnostics.Counters.SentNetworkMessages") == 0);
  CHECK(f.counter("PubSub.udp.Line1.Diagnostics.TotalError") == 0);
  CHECK(f.value("PubSub.udp.Line1.Diagnostics.Counters.FailedTransmissions.TimeFirstChange").empty());
  CHECK(f.counter("PubSub.udp.ReaderGroup.Diagnostics.Counters.ReceivedNetworkMessages") == 30);
  f.live->groups[0].sent = 9;
  f.object.sync(f.as, t0);
  CHECK(f.counter("PubSub.udp.Line1.Diagnostics.Counters.SentNetworkMessages") == 2);
  CHECK(f.call("PubSub.udp.Line1.Diagnostics", actors::pubsub_object::disable_method) == status::bad_method_invalid);
  // The root's Diagnostics (namespace 0's i=17409) has its own Reset, i=17421.
  REQUIRE(f.object.handles(f.as.find(node_id(0, 17409))));
  CHECK(f.object.call(f.as.find(node_id(0, 17409)), f.as.find(node_id(0, 17421)), f.as, t0) == status::good);
}

TEST_CASE("pubsub_object: a connection whose name is taken gets Bad_NodeIdExists and adds nothing", "[pubsub][engine]") {
  fixture f;
  const auto empty = f.as.size();
  REQUIRE(f.add() == status::good);
  const auto nodes = f.as.size();
  // One connection of one group, one writer and one reader: its nodes (and nothing more on a retry).
  // (Five Diagnostics, each counter with its four Properties, Part 14 §9.1.11.)
  CHECK(nodes - empty == 316);
  CHECK(f.add() == status::bad_node_id_exists);
  CHECK(f.as.size() == nodes);
  CHECK(f.object.connection_count() == 1);
  // A clash further down (a variable the plant made with a NodeId the object wants): nothing stays.
  auto c = udp_connection();
  c.name = "other";
  node_spec s;
  s.id = node_id::string(1, "PubSub.other.Line1.Speeds.Status");
  s.cls = node_class::object;
  s.browse_name = "taken";
  REQUIRE(f.as.add_node(std::move(s)));
  const auto live_nodes = [&] {
    std::size_t n = 0;
    for (node_index i = 0; i < f.as.size(); ++i) n += !f.as.at(i).removed;
    return n;
  };
  const auto before = live_nodes();
  CHECK(f.add(c) == status::bad_node_id_exists);
  CHECK(live_nodes() == before);
  CHECK(f.node("PubSub.other") == no_node);
  CHECK(f.object.connection_count() == 1);
}

TEST_CASE("pubsub_object: without namespace 0's PublishSubscribe, Bad_NodeIdUnknown", "[pubsub][engine]") {
  address_space as;
  actors::pubsub_object object;
  actors::pubsub_object_connection c;
  c.config = udp_connection();
  c.live = std::make_shared<actors::pubsub_connection_counters>();
  CHECK(object.add_connection(as, 1, std::move(c), t0) == status::bad_node_id_unknown);
}
