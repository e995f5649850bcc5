// Subscriptions and monitored items through server_core (Part 4 §5.12, §5.13), with a passed-in
// clock: a Publish is queued and answered on publish_tick, a change reaches the monitored items
// of its node, the counters of the §5.13.1.1 state table run per publishing cycle.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/common/channel_crypto.hpp"
#include "runtime/namespaces/demo_namespace.hpp"
#include "engine/server/server_core.hpp"
#include "engine/server/services/discovery.hpp"
#include "protocol/message.hpp"
#include "security/certificate.hpp"
#include "security/password_hash.hpp"
#include "security/policy.hpp"
#include "security/session_crypto.hpp"
#include "tests/support/alloc_counter.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace server_subscription_test {

using namespace uactor;
namespace status = ua::status;

namespace {

constexpr std::uint32_t channel = 3;

actors::instant at(std::int64_t ms) {
  return {std::chrono::steady_clock::time_point{} + std::chrono::milliseconds(ms),
          ua::date_time::from_unix_ms(1'767'225'600'000 + ms)};
}

actors::server_core make_core(actors::subscription_limits limits = {}) {
  actors::server_core_config c;
  c.description.application_uri = "urn:test:uactor:server";
  c.description.endpoint_url = "opc.tcp://localhost:4840";
  c.sessions.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = ++n;
  };
  c.subscriptions = limits;
  return actors::make_demo_server_core(std::move(c), "test", at(0).utc);
}

ua::node_id scalar(const char* name) { return ua::node_id::string(1, std::string("Demo.Static.Scalar.") + name); }

ua::status_code result_of(const ua::extension_object& r) {
  if (const auto* f = r.get_if<ua::service_fault>()) return f->response_header.service_result;
  return status::good;
}

// A server with Basic256Sha256 SignAndEncrypt (channels `secured_a`, `secured_b`) besides None,
// users alice and bob: sessions acting for different users (Part 4 §5.13.7).
constexpr std::uint32_t secured_a = 5;
constexpr std::uint32_t secured_b = 6;
constexpr const char* client_uri = "urn:test:client";

const security::security_policy& basic256sha256() {
  return *security::find_policy(security::policy_uri_basic256sha256);
}

struct test_keys {
  security::application_identity server;
  security::application_identity client;  // for client_uri
};

const test_keys& keys() {
  static const test_keys k = [] {
    const auto make = [](const char* uri) {
      security::certificate_request r;
      r.application_uri = uri;
      r.host_names = {"localhost"};
      auto id = security::create_self_signed(r, at(0).utc);
      REQUIRE(id);
      return std::move(*id);
    };
    return test_keys{make("urn:test:uactor:server"), make(client_uri)};
  }();
  return k;
}

struct trust_all final : actors::certificate_checker {
  security::validation_result check(const security::certificate&, std::span<const security::certificate>,
                                    const security::validation_options&, ua::date_time) override {
    return {status::good, {}, {}};
  }
};

// How a test client opens its session: ApplicationUri, identity token, over a secured channel.
struct identity_options {
  std::string application_uri = client_uri;
  ua::extension_object token = ua::extension_object(ua::anonymous_identity_token{"anonymous"});
  bool secured = false;  // CreateSession/ActivateSession with the client certificate and signature
};

identity_options user(const char* name, const char* password) {
  ua::user_name_identity_token t;
  t.policy_id = ua::ua_string(services::user_name_policy_id);
  t.user_name = ua::ua_string(name);
  t.password = ua::byte_string(password);  // in clear: the channel encrypts (Part 4 §7.41.2.2)
  return {client_uri, ua::extension_object(std::move(t)), true};
}

identity_options anonymous(std::string uri = client_uri, bool secured = false) {
  identity_options o;
  o.application_uri = std::move(uri);
  o.secured = secured;
  return o;
}

actors::server_core make_secured_core(actors::subscription_limits limits = {}) {
  auto sec = std::make_shared<actors::server_security>();
  sec->offers = {actors::security_offer{&basic256sha256(), ua::message_security_mode::sign_and_encrypt},
                 actors::security_offer{}};
  sec->certificate = keys().server.cert;
  sec->private_key = keys().server.private_key;
  sec->checker = std::make_shared<trust_all>();
  auto users = std::make_shared<security::user_store>();
  users->add("alice", "alice-pw", 1000);
  users->add("bob", "bob-pw", 1000);
  sec->identities.users.set(std::move(users));
  for (const auto ch : {secured_a, secured_b})
    sec->channels.put(ch, {&basic256sha256(), ua::message_security_mode::sign_and_encrypt, keys().client.cert});

  actors::server_core_config c;
  c.description.application_uri = "urn:test:uactor:server";
  c.description.endpoint_url = "opc.tcp://localhost:4840";
  c.sessions.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = ++n;
  };
  c.sessions.security = sec;
  c.sessions.endpoints = services::make_endpoints(c.description, *sec);
  c.subscriptions = limits;
  return actors::make_demo_server_core(std::move(c), "test", at(0).utc);
}

// One session on a shared core.
struct client {
  actors::server_core& core;
  std::uint32_t chan = channel;
  ua::node_id token;
  std::uint32_t handle = 0;
  std::uint32_t request_id = 100;
  ua::byte_buffer out;
  ua::extension_object response;

  explicit client(actors::server_core& c, std::uint32_t ch = channel, const identity_options& o = {})
      : core(c), chan(ch) {
    open_session(o);
  }

  template <class T>
  ua::extension_object& call(T req, std::int64_t ms = 0) {
    req.request_header.request_handle = ++handle;
    req.request_header.authentication_token = token;
    const ua::extension_object msg(req);
    out.clear();
    core.handle(chan, ++request_id, req.request_header, msg, at(ms), out);
    REQUIRE(!out.empty());
    REQUIRE(ua::decode_message(out.bytes(), response) == status::good);
    return response;
  }

  template <class Response, class T>
  Response& call_as(T req, std::int64_t ms = 0) {
    auto* r = call(std::move(req), ms).template get_if<Response>();
    REQUIRE(r);
    return *r;
  }

  // The ServiceResult of a request refused as a whole: it comes as a ServiceFault (Part 4 §7.34).
  template <class T>
  ua::status_code fault_of(T req, std::int64_t ms = 0) {
    return call_as<ua::service_fault>(std::move(req), ms).response_header.service_result;
  }

  void open_session(const identity_options& o) {
    ua::create_session_request create;
    create.requested_session_timeout = 600'000;
    create.client_description.application_uri = ua::ua_string(o.application_uri);
    if (o.secured) {
      create.client_certificate = actors::to_byte_string(keys().client.cert.der());
      create.client_nonce = ua::byte_string(std::string(32, 'n'));
    }
    const auto& created = call_as<ua::create_session_response>(create);
    REQUIRE(created.response_header.service_result == status::good);
    token = created.authentication_token;
    server_nonce = created.server_nonce;
    activate(o);
  }

  // ActivateSession (again) with the identity of `o`; Good or the fault's status.
  ua::status_code activate(const identity_options& o) {
    ua::activate_session_request activate;
    activate.user_identity_token = o.token;
    if (o.secured) {
      activate.client_signature.algorithm = ua::ua_string(basic256sha256().signature_algorithm_uri);
      activate.client_signature.signature =
          security::sign(basic256sha256(), keys().client.private_key,
                         actors::signed_data(keys().server.cert.der(), actors::bytes_of(server_nonce)));
    }
    const auto& r = call(activate);
    if (const auto* a = r.get_if<ua::activate_session_response>()) server_nonce = a->server_nonce;
    return result_of(r);
  }

  ua::byte_string server_nonce;  // the last one, signed by the next ActivateSession

  // A Publish: true when answered at once (then in `response`), false when queued.
  bool publish(std::int64_t ms, std::vector<ua::subscription_acknowledgement> acks = {}, std::uint32_t timeout_hint = 0) {
    ua::publish_request req;
    req.request_header.request_handle = ++handle;
    req.request_header.authentication_token = token;
    req.request_header.timeout_hint = timeout_hint;
    req.subscription_acknowledgements = {acks.begin(), acks.end()};
    const ua::extension_object msg(req);
    out.clear();
    core.handle(chan, ++request_id, req.request_header, msg, at(ms), out);
    if (out.empty()) return false;
    REQUIRE(ua::decode_message(out.bytes(), response) == status::good);
    return true;
  }

  std::uint32_t subscribe(double interval = 100, std::uint32_t keep_alive = 3, std::uint32_t lifetime = 30,
                          std::uint32_t max_notifications = 0) {
    ua::create_subscription_request req;
    req.requested_publishing_interval = interval;
    req.requested_max_keep_alive_count = keep_alive;
    req.requested_lifetime_count = lifetime;
    req.max_notifications_per_publish = max_notifications;
    req.publishing_enabled = true;
    const auto& r = call_as<ua::create_subscription_response>(req);
    REQUIRE(r.response_header.service_result == status::good);
    return r.subscription_id;
  }

  ua::create_monitored_items_response& monitor(std::uint32_t sub, std::vector<ua::monitored_item_create_request> items,
                                                ua::timestamps_to_return ts = ua::timestamps_to_return::both) {
    ua::create_monitored_items_request req;
    req.subscription_id = sub;
    req.timestamps_to_return = ts;
    req.items_to_create = {items.begin(), items.end()};
    return call_as<ua::create_monitored_items_response>(req);
  }

  std::uint32_t monitor_one(std::uint32_t sub, const ua::node_id& id, std::uint32_t client_handle,
                            double sampling = 0, std::uint32_t queue = 1, bool discard_oldest = true,
                            ua::extension_object filter = {},
                            ua::monitoring_mode mode = ua::monitoring_mode::reporting) {
    auto& r = monitor(sub, {item(id, client_handle, sampling, queue, discard_oldest, std::move(filter), mode)});
    REQUIRE(r.results.size() == 1);
    REQUIRE(r.results[0].status_code == status::good);
    return r.results[0].monitored_item_id;
  }

  static ua::monitored_item_create_request item(const ua::node_id& id, std::uint32_t client_handle, double sampling = 0,
                                                std::uint32_t queue = 1, bool discard_oldest = true,
                                                ua::extension_object filter = {},
                                                ua::monitoring_mode mode = ua::monitoring_mode::reporting) {
    ua::monitored_item_create_request c;
    c.item_to_monitor.node_id = id;
    c.item_to_monitor.attribute_id = 13;
    c.monitoring_mode = mode;
    c.requested_parameters.client_handle = client_handle;
    c.requested_parameters.sampling_interval = sampling;
    c.requested_parameters.queue_size = queue;
    c.requested_parameters.discard_oldest = discard_oldest;
    c.requested_parameters.filter = std::move(filter);
    return c;
  }
};

// The responses the core produced for queued requests since the last call, decoded.
std::vector<std::pair<std::uint32_t, ua::extension_object>> take_deferred(actors::server_core& core) {
  std::vector<std::pair<std::uint32_t, ua::extension_object>> r;
  for (const auto& d : core.deferred()) {
    ua::extension_object o;
    REQUIRE(ua::decode_message(d.message.bytes(), o) == status::good);
    r.emplace_back(d.request_id, std::move(o));
  }
  core.clear_deferred();
  return r;
}

std::vector<std::pair<std::uint32_t, ua::extension_object>> tick(actors::server_core& core, std::int64_t ms) {
  core.publish_tick(at(ms));
  return take_deferred(core);
}

// The data changes of a PublishResponse: (client handle, value) in order.
std::vector<ua::monitored_item_notification> changes(const ua::publish_response& p) {
  std::vector<ua::monitored_item_notification> r;
  for (const auto& eo : p.notification_message.notification_data)
    if (const auto* d = eo.get_if<ua::data_change_notification>())
      for (const auto& n : d->monitored_items) r.push_back(n);
  return r;
}

const ua::publish_response& as_publish(const ua::extension_object& o) {
  const auto* p = o.get_if<ua::publish_response>();
  REQUIRE(p);
  return *p;
}

void set(actors::server_core& core, const ua::node_id& id, ua::variant v, std::int64_t ms = 0) {
  const auto n = core.space().find(id);
  REQUIRE(n != ua::no_node);
  ua::data_value dv;
  dv.set_value(std::move(v));
  dv.source_timestamp = at(ms).utc;
  dv.has_source_timestamp = true;
  REQUIRE(core.space().set_value(n, std::move(dv)) == status::good);
}

ua::extension_object deadband(ua::deadband_type type, double value,
                              ua::data_change_trigger trigger = ua::data_change_trigger::status_value) {
  ua::data_change_filter f;
  f.trigger = trigger;
  f.deadband_type = static_cast<std::uint32_t>(type);
  f.deadband_value = value;
  return ua::extension_object(f);
}

}  // namespace

TEST_CASE("subscription: a Publish waits for the publishing cycle and carries the initial value, then each change",
          "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  c.monitor_one(sub, scalar("Double"), 7);
  CHECK_FALSE(c.publish(10));  // queued: nothing is due before the first cycle
  CHECK(tick(core, 50).empty());
  auto answers = tick(core, 100);
  REQUIRE(answers.size() == 1);
  CHECK(answers[0].first == c.request_id);
  const auto& p = as_publish(answers[0].second);
  CHECK(p.subscription_id == sub);
  CHECK(p.notification_message.sequence_number == 1);
  auto notes = changes(p);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].client_handle == 7);
  CHECK(notes[0].value.value == ua::variant(2.718281828459045));
  CHECK(p.available_sequence_numbers == ua::ua_array<std::uint32_t>{1});

  // A Write through the service notifies as well.
  CHECK_FALSE(c.publish(110, {{sub, 1}}));
  ua::write_request w;
  ua::write_value wv;
  wv.node_id = scalar("Double");
  wv.attribute_id = 13;
  wv.value.set_value(1.5);
  w.nodes_to_write.push_back(wv);
  CHECK(c.call_as<ua::write_response>(w, 120).results[0] == status::good);
  answers = tick(core, 200);
  REQUIRE(answers.size() == 1);
  const auto& p2 = as_publish(answers[0].second);
  CHECK(p2.notification_message.sequence_number == 2);
  CHECK(p2.results == ua::ua_array<ua::status_code>{status::good});  // the acknowledgement of 1
  CHECK(p2.available_sequence_numbers == ua::ua_array<std::uint32_t>{2});
  notes = changes(p2);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].value.value == ua::variant(1.5));
}

TEST_CASE("subscription: every change with sampling interval 0 arrives, in order", "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  c.monitor_one(sub, scalar("Int32"), 1, 0, 100);
  for (std::int32_t i = 0; i < 50; ++i) set(core, scalar("Int32"), i, 10 + i);
  CHECK_FALSE(c.publish(70));
  const auto answers = tick(core, 100);
  REQUIRE(answers.size() == 1);
  const auto notes = changes(as_publish(answers[0].second));
  REQUIRE(notes.size() == 51);  // the initial value and 50 changes
  for (std::int32_t i = 0; i < 50; ++i) CHECK(notes[i + 1].value.value == ua::variant(i));
}

TEST_CASE("subscription: a keep-alive after max_keep_alive_count empty cycles, with the next sequence number",
          "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100, 3);
  // No items: the first cycle sends a keep-alive (§5.13.1.1, the first message), then every 3rd.
  CHECK_FALSE(c.publish(0));
  auto a = tick(core, 100);
  REQUIRE(a.size() == 1);
  CHECK(as_publish(a[0].second).notification_message.notification_data.empty());
  CHECK(as_publish(a[0].second).notification_message.sequence_number == 1);
  CHECK(as_publish(a[0].second).subscription_id == sub);
  CHECK_FALSE(c.publish(110));
  CHECK(tick(core, 200).empty());
  CHECK(tick(core, 300).empty());
  a = tick(core, 400);
  REQUIRE(a.size() == 1);
  CHECK(as_publish(a[0].second).notification_message.notification_data.empty());
  CHECK(as_publish(a[0].second).notification_message.sequence_number == 1);  // not used up
}

TEST_CASE("subscription: a late keep-alive goes out with the next Publish at once", "[subscription]") {
  auto core = make_core();
  client c(core);
  c.subscribe(100, 2);
  CHECK(tick(core, 100).empty());  // due, but no Publish request: late
  REQUIRE(c.publish(150));
  CHECK(as_publish(c.response).notification_message.notification_data.empty());
}

TEST_CASE("subscription: the lifetime expires without Publish requests: Bad_Timeout status change and deletion",
          "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100, 1, 3);  // lifetime revised to at least 3 keep-alives = 3
  c.monitor_one(sub, scalar("Double"), 1);
  for (int i = 1; i <= 3; ++i) tick(core, i * 100);
  CHECK_FALSE(core.subscriptions().has_subscriptions());
  CHECK(core.subscriptions().monitored_item_count() == 0);
  REQUIRE(c.publish(350));
  const auto& p = as_publish(c.response);
  CHECK(p.subscription_id == sub);
  REQUIRE(p.notification_message.notification_data.size() == 1);
  const auto* sc = p.notification_message.notification_data[0].get_if<ua::status_change_notification>();
  REQUIRE(sc);
  CHECK(sc->status == status::bad_timeout);
  // Then the session has none left.
  REQUIRE(c.publish(360));
  CHECK(result_of(c.response) == status::bad_no_subscription);
  ua::delete_subscriptions_request del;
  del.subscription_ids = {sub};
  CHECK(c.call_as<ua::delete_subscriptions_response>(del).results[0] == status::bad_subscription_id_invalid);
}

TEST_CASE("subscription: a Publish without subscriptions gets Bad_NoSubscription", "[subscription]") {
  auto core = make_core();
  client c(core);
  REQUIRE(c.publish(0));
  CHECK(result_of(c.response) == status::bad_no_subscription);
}

TEST_CASE("subscription: queue overflow, discard oldest: the newest kept, the Overflow bit on the oldest kept",
          "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  c.monitor_one(sub, scalar("Int32"), 1, 0, 3, true);
  for (std::int32_t i = 1; i <= 5; ++i) set(core, scalar("Int32"), i, i);
  c.publish(10);
  const auto a = tick(core, 100);
  REQUIRE(a.size() == 1);
  const auto notes = changes(as_publish(a[0].second));
  REQUIRE(notes.size() == 3);
  CHECK(notes[0].value.value == ua::variant(std::int32_t{3}));
  CHECK(notes[1].value.value == ua::variant(std::int32_t{4}));
  CHECK(notes[2].value.value == ua::variant(std::int32_t{5}));
  CHECK((notes[0].value.status.value() & 0x0480) == 0x0480);  // InfoType DataValue + Overflow
  CHECK(notes[0].value.status.is_good());
  CHECK_FALSE(notes[1].value.has_status);
  CHECK_FALSE(notes[2].value.has_status);
}

TEST_CASE("subscription: queue overflow, discard newest: the last value replaced and flagged", "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  c.monitor_one(sub, scalar("Int32"), 1, 0, 3, false);
  for (std::int32_t i = 1; i <= 5; ++i) set(core, scalar("Int32"), i, i);
  c.publish(10);
  const auto a = tick(core, 100);
  REQUIRE(a.size() == 1);
  const auto notes = changes(as_publish(a[0].second));
  REQUIRE(notes.size() == 3);
  CHECK(notes[0].value.value == ua::variant(std::int32_t{-2000000000}));  // the initial value
  CHECK(notes[1].value.value == ua::variant(std::int32_t{1}));
  CHECK(notes[2].value.value == ua::variant(std::int32_t{5}));
  CHECK((notes[2].value.status.value() & 0x0480) == 0x0480);
  CHECK_FALSE(notes[0].value.has_status);
}

TEST_CASE("subscription: a queue of one keeps the newest, without the Overflow bit", "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  c.monitor_one(sub, scalar("Int32"), 1, 0, 1);
  for (std::int32_t i = 1; i <= 5; ++i) set(core, scalar("Int32"), i, i);
  c.publish(10);
  const auto notes = changes(as_publish(tick(core, 100).at(0).second));
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].value.value == ua::variant(std::int32_t{5}));
  CHECK_FALSE(notes[0].value.has_status);
}

TEST_CASE("subscription: an absolute deadband drops the small changes", "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  c.monitor_one(sub, scalar("Double"), 1, 0, 10, true, deadband(ua::deadband_type::absolute, 1.0));
  set(core, scalar("Double"), 3.0);   // +0.28 from 2.718...: dropped
  set(core, scalar("Double"), 3.8);   // +1.08 from the last reported: kept
  set(core, scalar("Double"), 4.7);   // +0.9: dropped
  set(core, scalar("Double"), 2.7);   // -1.1: kept
  c.publish(10);
  const auto notes = changes(as_publish(tick(core, 100).at(0).second));
  REQUIRE(notes.size() == 3);
  CHECK(notes[1].value.value == ua::variant(3.8));
  CHECK(notes[2].value.value == ua::variant(2.7));
}

TEST_CASE("subscription: a percent deadband is a share of the EURange, without one Bad_DeadbandFilterInvalid",
          "[subscription]") {
  auto core = make_core();
  auto& as = core.space();
  ua::node_spec v;
  v.id = ua::node_id::string(1, "Test.Level");
  v.cls = ua::node_class::variable;
  v.browse_ns = 1;
  v.browse_name = "Level";
  v.data_type = ua::node_id(0, 11);
  v.value.set_value(0.0);
  v.access_level = 3;
  v.user_access_level = 3;
  REQUIRE(as.add_node(std::move(v)));
  ua::node_spec r;
  r.id = ua::node_id::string(1, "Test.Level.EURange");
  r.cls = ua::node_class::variable;
  r.browse_name = "EURange";
  r.data_type = ua::node_id(0, 884);
  r.value.set_value(ua::extension_object(ua::range{0, 200}));
  REQUIRE(as.add_node(std::move(r)));
  REQUIRE(as.add_reference(ua::node_id::string(1, "Test.Level"), ua::node_id(0, 46),
                           ua::node_id::string(1, "Test.Level.EURange")) == status::good);

  client c(core);
  const auto sub = c.subscribe(100);
  c.monitor_one(sub, ua::node_id::string(1, "Test.Level"), 1, 0, 10, true, deadband(ua::deadband_type::percent, 5));
  set(core, ua::node_id::string(1, "Test.Level"), 9.0);   // 4.5 %: dropped
  set(core, ua::node_id::string(1, "Test.Level"), 11.0);  // 5.5 %: kept
  c.publish(10);
  const auto notes = changes(as_publish(tick(core, 100).at(0).second));
  REQUIRE(notes.size() == 2);
  CHECK(notes[1].value.value == ua::variant(11.0));

  auto& bad = c.monitor(sub, {client::item(scalar("Double"), 2, 0, 1, true, deadband(ua::deadband_type::percent, 5))});
  CHECK(bad.results[0].status_code == status::bad_deadband_filter_invalid);
}

// Part 8 §6.2, its PercentDeadband result codes: "a PercentDeadband is not supported, since an
// EURange is not configured" is Bad_DeadbandFilterInvalid, for a number and an enumeration alike;
// Bad_FilterNotAllowed stays for an AbsoluteDeadband on a non-Number (Part 4 §7.22.2).
TEST_CASE("subscription: a percent deadband without EURange is Bad_DeadbandFilterInvalid, numeric or enumeration",
          "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  const ua::node_id server_state(0, 2259);  // ServerStatus.State: a ServerState enumeration
  auto& r = c.monitor(sub, {
      client::item(scalar("UInt32"), 1, 0, 1, true, deadband(ua::deadband_type::percent, 5)),
      client::item(server_state, 2, 0, 1, true, deadband(ua::deadband_type::percent, 5)),
      client::item(scalar("String"), 3, 0, 1, true, deadband(ua::deadband_type::percent, 5)),
      client::item(server_state, 4, 0, 1, true, deadband(ua::deadband_type::absolute, 1)),
  });
  REQUIRE(r.results.size() == 4);
  CHECK(r.results[0].status_code == status::bad_deadband_filter_invalid);
  CHECK(r.results[1].status_code == status::bad_deadband_filter_invalid);
  CHECK(r.results[2].status_code == status::bad_deadband_filter_invalid);
  CHECK(r.results[3].status_code == status::bad_filter_not_allowed);
  CHECK(core.subscriptions().monitored_item_count() == 0);
}

TEST_CASE("subscription: hostile filters get their status: NaN, negative, >100 %, unknown type, non-numeric",
          "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto& r = c.monitor(sub, {
      client::item(scalar("Double"), 1, 0, 1, true, deadband(ua::deadband_type::absolute, nan)),
      client::item(scalar("Double"), 2, 0, 1, true, deadband(ua::deadband_type::absolute, -1)),
      client::item(scalar("Double"), 3, 0, 1, true, deadband(ua::deadband_type::percent, 101)),
      client::item(scalar("Double"), 4, 0, 1, true, deadband(static_cast<ua::deadband_type>(7), 1)),
      client::item(scalar("String"), 5, 0, 1, true, deadband(ua::deadband_type::absolute, 1)),
      client::item(scalar("Double"), 6, 0, 1, true, ua::extension_object(ua::event_filter{})),
      client::item(scalar("Double"), 7, 0, 1, true, ua::extension_object(ua::aggregate_filter{})),
      client::item(scalar("Double"), 8, 0, 1, true, ua::extension_object(ua::read_value_id{})),
      client::item(scalar("Double"), 9, 0, 1, true, deadband(ua::deadband_type::none, 0,
                                                              static_cast<ua::data_change_trigger>(9))),
  });
  REQUIRE(r.results.size() == 9);
  CHECK(r.results[0].status_code == status::bad_deadband_filter_invalid);
  CHECK(r.results[1].status_code == status::bad_deadband_filter_invalid);
  CHECK(r.results[2].status_code == status::bad_deadband_filter_invalid);
  CHECK(r.results[3].status_code == status::bad_deadband_filter_invalid);
  CHECK(r.results[4].status_code == status::bad_filter_not_allowed);
  CHECK(r.results[5].status_code == status::bad_filter_not_allowed);
  CHECK(r.results[6].status_code == status::bad_monitored_item_filter_unsupported);
  CHECK(r.results[7].status_code == status::bad_monitored_item_filter_invalid);
  CHECK(r.results[8].status_code == status::bad_monitored_item_filter_invalid);
  CHECK(core.subscriptions().monitored_item_count() == 0);
}

TEST_CASE("subscription: trigger Status ignores value changes, StatusValueTimestamp reports a new timestamp",
          "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  c.monitor_one(sub, scalar("Int32"), 1, 0, 10, true,
                deadband(ua::deadband_type::none, 0, ua::data_change_trigger::status));
  c.monitor_one(sub, scalar("Int32"), 2, 0, 10, true,
                deadband(ua::deadband_type::none, 0, ua::data_change_trigger::status_value_timestamp));
  c.monitor_one(sub, scalar("Int32"), 3, 0, 10, true);  // StatusValue (the default)
  set(core, scalar("Int32"), 5, 1);
  set(core, scalar("Int32"), 5, 2);  // the same value, a new source timestamp
  c.publish(10);
  std::vector<std::uint32_t> handles;
  for (const auto& n : changes(as_publish(tick(core, 100).at(0).second))) handles.push_back(n.client_handle);
  std::sort(handles.begin(), handles.end());
  // 1: the initial value; 2: initial + 2 changes; 3: initial + 1 change.
  CHECK(handles == std::vector<std::uint32_t>{1, 2, 2, 2, 3, 3});
}

TEST_CASE("subscription: a sampling interval takes the latest value once per interval, 0 takes every change",
          "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(1000);
  auto& r = c.monitor(sub, {client::item(scalar("Int32"), 1, 100, 100), client::item(scalar("Int32"), 2, 0, 100)});
  CHECK(r.results[0].revised_sampling_interval == 100);
  CHECK(r.results[1].revised_sampling_interval == 0);
  for (std::int32_t i = 1; i <= 3; ++i) set(core, scalar("Int32"), i, 10 * i);
  tick(core, 50);    // not yet due: nothing sampled
  tick(core, 100);   // sampled: 3
  set(core, scalar("Int32"), 4, 150);
  set(core, scalar("Int32"), 5, 160);
  tick(core, 150);   // not yet due again (next at 200)
  tick(core, 200);   // sampled: 5
  c.publish(300);
  const auto a = tick(core, 1000);
  REQUIRE(a.size() == 1);
  std::vector<std::int32_t> sampled, every;
  for (const auto& n : changes(as_publish(a[0].second)))
    (n.client_handle == 1 ? sampled : every).push_back(*n.value.value.get_if<std::int32_t>());
  CHECK(sampled == std::vector<std::int32_t>{-2000000000, 3, 5});
  CHECK(every == std::vector<std::int32_t>{-2000000000, 1, 2, 3, 4, 5});
}

// Part 4 §5.13.1.2: 0 is the fastest practical rate. A pushed value (exception-based) is reported
// at every change, so 0 stays 0; CurrentTime changes continuously and is refreshed on the tick, so
// 0 (and 1 ms) become the tick, which ServerCapabilities.MinSupportedSampleRate states (Part 5 §6.3.2).
TEST_CASE("subscription: sampling interval 0 on CurrentTime is revised to the tick, which MinSupportedSampleRate reads",
          "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  const ua::node_id current_time(0, 2258);
  auto& r = c.monitor(sub, {client::item(current_time, 1, 0, 100), client::item(current_time, 2, 1, 100),
                            client::item(scalar("Int32"), 3, 0, 100)});
  REQUIRE(r.results.size() == 3);
  CHECK(r.results[0].status_code == status::good);
  CHECK(r.results[0].revised_sampling_interval == 10);
  CHECK(r.results[1].revised_sampling_interval == 10);
  CHECK(r.results[2].revised_sampling_interval == 0);

  ua::read_request read;
  ua::read_value_id rate;
  rate.node_id = ua::node_id(0, 2272);  // Server.ServerCapabilities.MinSupportedSampleRate
  rate.attribute_id = 13;
  read.nodes_to_read.push_back(rate);
  auto& answer = c.call_as<ua::read_response>(read);
  REQUIRE(answer.results.size() == 1);
  CHECK(answer.results[0].status.is_good());
  REQUIRE(answer.results[0].value.get_if<double>());
  CHECK(*answer.results[0].value.get_if<double>() == 10);

  // The item gets what it was promised: a new CurrentTime each tick, not one per second.
  c.publish(0);
  std::vector<std::pair<std::uint32_t, ua::extension_object>> out;
  for (std::int64_t ms = 10; ms <= 100; ms += 10)
    for (auto& a : tick(core, ms)) out.push_back(std::move(a));
  REQUIRE(out.size() == 1);
  std::vector<ua::date_time> times;
  for (const auto& n : changes(as_publish(out[0].second)))
    if (n.client_handle == 1) times.push_back(*n.value.value.get_if<ua::date_time>());
  CHECK(times.size() >= 9);
  CHECK(std::is_sorted(times.begin(), times.end()));
}

TEST_CASE("subscription: SetMonitoringMode disabled stops sampling, sampling queues silently, reporting reports",
          "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  const auto id = c.monitor_one(sub, scalar("Int32"), 1, 0, 10);
  auto mode = [&](ua::monitoring_mode m) {
    ua::set_monitoring_mode_request req;
    req.subscription_id = sub;
    req.monitoring_mode = m;
    req.monitored_item_ids = {id, 999};
    const auto& r = c.call_as<ua::set_monitoring_mode_response>(req);
    REQUIRE(r.results.size() == 2);
    CHECK(r.results[0] == status::good);
    CHECK(r.results[1] == status::bad_monitored_item_id_invalid);
  };
  mode(ua::monitoring_mode::disabled);  // the queued initial value goes
  set(core, scalar("Int32"), 1);
  c.publish(10);
  auto a = tick(core, 100);  // nothing to report: the first keep-alive
  REQUIRE(a.size() == 1);
  CHECK(changes(as_publish(a[0].second)).empty());

  mode(ua::monitoring_mode::sampling);  // samples the current value (1), does not report
  set(core, scalar("Int32"), 2);
  c.publish(110);
  CHECK(tick(core, 200).empty());
  mode(ua::monitoring_mode::reporting);  // the queued samples go out
  a = tick(core, 300);
  REQUIRE(a.size() == 1);
  std::vector<std::int32_t> values;
  for (const auto& n : changes(as_publish(a[0].second))) values.push_back(*n.value.value.get_if<std::int32_t>());
  CHECK(values == std::vector<std::int32_t>{1, 2});

  ua::set_monitoring_mode_request bad;
  bad.subscription_id = sub;
  bad.monitoring_mode = static_cast<ua::monitoring_mode>(5);
  bad.monitored_item_ids = {id};
  CHECK(c.fault_of(bad) == status::bad_monitoring_mode_invalid);
}

TEST_CASE("subscription: SetTriggering reports a sampling item when its triggering item reports", "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  const auto trigger = c.monitor_one(sub, scalar("Int32"), 1, 0, 10);
  const auto linked = c.monitor_one(sub, scalar("Double"), 2, 0, 10, true, {}, ua::monitoring_mode::sampling);
  ua::set_triggering_request st;
  st.subscription_id = sub;
  st.triggering_item_id = trigger;
  st.links_to_add = {linked, 4242};
  st.links_to_remove = {777};
  const auto& r = c.call_as<ua::set_triggering_response>(st);
  CHECK(r.add_results == ua::ua_array<ua::status_code>{status::good, status::bad_monitored_item_id_invalid});
  CHECK(r.remove_results == ua::ua_array<ua::status_code>{status::bad_monitored_item_id_invalid});

  c.publish(10);
  auto a = tick(core, 100);  // the trigger's initial value, no trigger yet for the linked one's? it fired at creation
  REQUIRE(a.size() == 1);
  set(core, scalar("Double"), 9.5, 110);  // the linked item samples, does not report
  c.publish(120);
  CHECK(tick(core, 200).empty());
  set(core, scalar("Int32"), 7, 210);  // the trigger reports: the linked item's queue goes with it
  a = tick(core, 300);
  REQUIRE(a.size() == 1);
  std::vector<std::uint32_t> handles;
  for (const auto& n : changes(as_publish(a[0].second))) handles.push_back(n.client_handle);
  CHECK(std::count(handles.begin(), handles.end(), 1u) == 1);
  CHECK(std::count(handles.begin(), handles.end(), 2u) >= 1);

  ua::set_triggering_request unknown = st;
  unknown.triggering_item_id = 123456;
  CHECK(c.fault_of(unknown) == status::bad_monitored_item_id_invalid);
  ua::set_triggering_request empty;
  empty.subscription_id = sub;
  empty.triggering_item_id = trigger;
  CHECK(c.fault_of(empty) == status::bad_nothing_to_do);
}

TEST_CASE("subscription: retransmission queue, acknowledgements and Republish", "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  c.monitor_one(sub, scalar("Int32"), 1);
  for (int i = 1; i <= 3; ++i) {
    c.publish(i * 100 - 50);
    set(core, scalar("Int32"), i, i * 100 - 40);
    const auto a = tick(core, i * 100);
    REQUIRE(a.size() == 1);
    CHECK(as_publish(a[0].second).notification_message.sequence_number == static_cast<std::uint32_t>(i));
  }
  ua::republish_request rp;
  rp.subscription_id = sub;
  rp.retransmit_sequence_number = 2;
  const auto& again = c.call_as<ua::republish_response>(rp);
  CHECK(again.notification_message.sequence_number == 2);
  ua::publish_response wrapped;
  wrapped.notification_message = again.notification_message;
  CHECK(changes(wrapped).size() == 1);

  // Acknowledge 1 and 2, an unknown number and an unknown subscription.
  CHECK_FALSE(c.publish(310, {{sub, 1}, {sub, 2}, {sub, 99}, {sub + 100, 3}}));
  set(core, scalar("Int32"), 4, 320);
  const auto a = tick(core, 400);
  REQUIRE(a.size() == 1);
  const auto& p = as_publish(a[0].second);
  CHECK(p.results == ua::ua_array<ua::status_code>{status::good, status::good, status::bad_sequence_number_unknown,
                                                   status::bad_subscription_id_invalid});
  CHECK(p.available_sequence_numbers == ua::ua_array<std::uint32_t>{3, 4});
  rp.retransmit_sequence_number = 1;
  CHECK(c.fault_of(rp) == status::bad_message_not_available);
  rp.subscription_id = 4242;
  CHECK(c.fault_of(rp) == status::bad_subscription_id_invalid);
}

TEST_CASE("subscription: TransferSubscriptions moves a subscription, the old session is told", "[subscription]") {
  auto core = make_core();
  client a(core, 3);
  client b(core, 4);
  const auto sub = a.subscribe(100);
  a.monitor_one(sub, scalar("Int32"), 1);
  a.publish(10);
  tick(core, 100);  // the initial value, sequence 1, not acknowledged
  CHECK_FALSE(a.publish(110));

  ua::transfer_subscriptions_request t;
  t.subscription_ids = {sub, 4242};
  t.send_initial_values = true;
  {  // 1.05 Part 4 §5.14.7.4: to the session that owns it, Bad_NothingToDo, and nothing happens.
    const auto& own = a.call_as<ua::transfer_subscriptions_response>(t, 115);
    REQUIRE(own.results.size() == 2);
    CHECK(own.results[0].status_code == status::bad_nothing_to_do);
    CHECK(own.results[0].available_sequence_numbers.empty());
    CHECK(take_deferred(core).empty());
  }
  auto answered = [&] {
    auto& r = b.call_as<ua::transfer_subscriptions_response>(t, 120);
    REQUIRE(r.results.size() == 2);
    CHECK(r.results[0].status_code == status::good);
    CHECK(r.results[0].available_sequence_numbers == ua::ua_array<std::uint32_t>{1});
    CHECK(r.results[1].status_code == status::bad_subscription_id_invalid);
    return take_deferred(core);
  }();
  // a's queued Publish gets Good_SubscriptionTransferred.
  REQUIRE(answered.size() == 1);
  const auto& moved = as_publish(answered[0].second);
  REQUIRE(moved.notification_message.notification_data.size() == 1);
  CHECK(moved.notification_message.notification_data[0].get_if<ua::status_change_notification>()->status ==
        status::good_subscription_transferred);

  // b now publishes it, with the initial value again.
  b.publish(130);
  const auto c2 = tick(core, 200);
  REQUIRE(c2.size() == 1);
  CHECK(c2[0].first == b.request_id);
  CHECK(as_publish(c2[0].second).subscription_id == sub);
  CHECK(changes(as_publish(c2[0].second)).size() == 1);
  // and a has none left.
  REQUIRE(a.publish(210));
  CHECK(result_of(a.response) == status::bad_no_subscription);
}

// Part 4 §5.13.7: "The Server shall validate that the Client of that Session is operating on
// behalf of the same user"; otherwise Bad_UserAccessDenied for that subscription (§5.13.7.4).
TEST_CASE("subscription: check_transfer compares the kind and the name of the identities", "[subscription]") {
  using kind = actors::session_identity::kind;
  const actors::session_identity alice{kind::user_name, "alice", true};
  const actors::session_identity anon_secured{kind::anonymous, client_uri, true};
  const actors::session_identity anon_open{kind::anonymous, client_uri, false};
  CHECK(actors::check_transfer(alice, alice, false) == status::good);
  CHECK(actors::check_transfer(alice, {kind::user_name, "bob", true}, true) == status::bad_user_access_denied);
  CHECK(actors::check_transfer(alice, {kind::user_name, "Alice", true}, true) == status::bad_user_access_denied);
  // A certificate whose thumbprint is spelled like the user name is another kind of user.
  CHECK(actors::check_transfer(alice, {kind::certificate, "alice", true}, true) == status::bad_user_access_denied);
  CHECK(actors::check_transfer({kind::certificate, "AB12", true}, {kind::certificate, "AB12", true}, false) ==
        status::good);
  CHECK(actors::check_transfer({kind::certificate, "AB12", true}, {kind::certificate, "AB13", true}, true) ==
        status::bad_user_access_denied);
  // ANONYMOUS: the same ApplicationUri, and Sign or SignAndEncrypt unless waived.
  CHECK(actors::check_transfer(anon_secured, anon_secured, false) == status::good);
  CHECK(actors::check_transfer(anon_secured, {kind::anonymous, "urn:other", true}, true) ==
        status::bad_user_access_denied);
  CHECK(actors::check_transfer(anon_open, anon_open, true) == status::good);
  CHECK(actors::check_transfer(anon_open, anon_open, false) == status::bad_user_access_denied);
  CHECK(actors::check_transfer(anon_secured, anon_open, false) == status::bad_user_access_denied);
  CHECK(actors::check_transfer(anon_open, anon_secured, false) == status::bad_user_access_denied);
  CHECK(actors::check_transfer(anon_secured, {kind::user_name, client_uri, true}, true) ==
        status::bad_user_access_denied);
}

namespace {

ua::status_code transfer(client& to, std::uint32_t sub, std::int64_t ms) {
  ua::transfer_subscriptions_request t;
  t.subscription_ids = {sub};
  const auto& r = to.call_as<ua::transfer_subscriptions_response>(t, ms);
  REQUIRE(r.response_header.service_result == status::good);
  REQUIRE(r.results.size() == 1);
  return r.results[0].status_code;
}

// `from` publishes its subscription's change of Int32 to `value`; the Publish was queued first.
void check_still_delivers(actors::server_core& core, client& from, std::uint32_t sub, std::int32_t value,
                          std::int64_t ms) {
  CHECK_FALSE(from.publish(ms));
  set(core, scalar("Int32"), value, ms);
  const auto answered = tick(core, ms + 100);
  REQUIRE(answered.size() == 1);
  CHECK(answered[0].first == from.request_id);
  const auto& p = as_publish(answered[0].second);
  CHECK(p.subscription_id == sub);
  const auto ch = changes(p);
  REQUIRE(ch.size() == 1);
  CHECK(ch[0].value.value == ua::variant(value));
}

}  // namespace

TEST_CASE("subscription: TransferSubscriptions between two sessions of the same user name", "[subscription]") {
  auto core = make_secured_core();
  client a(core, secured_a, user("alice", "alice-pw"));
  client b(core, secured_b, user("alice", "alice-pw"));
  const auto sub = a.subscribe(100);
  a.monitor_one(sub, scalar("Int32"), 1);
  CHECK(transfer(b, sub, 10) == status::good);
  CHECK(core.subscriptions().subscription_count() == 1);
  // b has it now (its initial value first); a is told with its next Publish, then has none.
  CHECK_FALSE(b.publish(20));
  REQUIRE(tick(core, 100).size() == 1);
  REQUIRE(a.publish(110));
  const auto& told = as_publish(a.response).notification_message.notification_data;
  REQUIRE(told.size() == 1);
  CHECK(told[0].get_if<ua::status_change_notification>()->status == status::good_subscription_transferred);
  REQUIRE(a.publish(120));
  CHECK(result_of(a.response) == status::bad_no_subscription);
}

TEST_CASE("subscription: another user's TransferSubscriptions gets Bad_UserAccessDenied, the owner keeps publishing",
          "[subscription]") {
  auto core = make_secured_core();
  client a(core, secured_a, user("alice", "alice-pw"));
  client b(core, secured_b, user("bob", "bob-pw"));
  const auto sub = a.subscribe(100);
  a.monitor_one(sub, scalar("Int32"), 1);
  CHECK_FALSE(a.publish(10));
  REQUIRE(tick(core, 100).size() == 1);  // the initial value

  CHECK(transfer(b, sub, 110) == status::bad_user_access_denied);
  CHECK(take_deferred(core).empty());  // nothing told to a: no Good_SubscriptionTransferred
  check_still_delivers(core, a, sub, 42, 120);
  // b has nothing to publish.
  REQUIRE(b.publish(300));
  CHECK(result_of(b.response) == status::bad_no_subscription);

  // Left without a session (CloseSession without deleteSubscriptions), it still belongs to alice.
  ua::close_session_request close;
  close.delete_subscriptions = false;
  a.call_as<ua::close_session_response>(close, 310);
  CHECK(transfer(b, sub, 320) == status::bad_user_access_denied);
  client a2(core, secured_a, user("alice", "alice-pw"));
  CHECK(transfer(a2, sub, 330) == status::good);
}

TEST_CASE("subscription: anonymous and named sessions never take each other's subscriptions", "[subscription]") {
  auto core = make_secured_core();
  // Both on secured channels, with the ApplicationUri of the client certificate.
  client anon(core, secured_a, anonymous(client_uri, true));
  client alice(core, secured_b, user("alice", "alice-pw"));
  const auto anon_sub = anon.subscribe(100);
  const auto alice_sub = alice.subscribe(100);
  CHECK(transfer(alice, anon_sub, 10) == status::bad_user_access_denied);
  CHECK(transfer(anon, alice_sub, 20) == status::bad_user_access_denied);
  // Each still owns its own.
  ua::set_publishing_mode_request m;
  m.subscription_ids = {anon_sub};
  CHECK(anon.call_as<ua::set_publishing_mode_response>(m, 30).results[0] == status::good);
  m.subscription_ids = {alice_sub};
  CHECK(alice.call_as<ua::set_publishing_mode_response>(m, 30).results[0] == status::good);
  // A second anonymous session of the same application (secured) may take it.
  client anon2(core, secured_b, anonymous(client_uri, true));
  CHECK(transfer(anon2, anon_sub, 40) == status::good);
}

TEST_CASE("subscription: anonymous sessions transfer only within one ApplicationUri", "[subscription]") {
  auto core = make_core();
  client a(core, 3, anonymous("urn:test:app-a"));
  client other(core, 4, anonymous("urn:test:app-b"));
  client same(core, 5, anonymous("urn:test:app-a"));
  const auto sub = a.subscribe(100);
  a.monitor_one(sub, scalar("Int32"), 1);
  CHECK_FALSE(a.publish(10));
  REQUIRE(tick(core, 100).size() == 1);
  CHECK(transfer(other, sub, 110) == status::bad_user_access_denied);
  CHECK(take_deferred(core).empty());
  check_still_delivers(core, a, sub, 7, 120);
  // Over None, the same ApplicationUri is enough by default (allow_unsecured_anonymous_transfer).
  CHECK(transfer(same, sub, 300) == status::good);
}

TEST_CASE("subscription: with allow_unsecured_anonymous_transfer off, anonymous transfers need Sign or SignAndEncrypt",
          "[subscription]") {
  actors::subscription_limits strict;
  strict.allow_unsecured_anonymous_transfer = false;
  auto core = make_secured_core(strict);
  client open_a(core, 3, anonymous(client_uri, false));
  client open_b(core, 4, anonymous(client_uri, false));
  client sec_a(core, secured_a, anonymous(client_uri, true));
  client sec_b(core, secured_b, anonymous(client_uri, true));
  const auto open_sub = open_a.subscribe(100);
  const auto sec_sub = sec_a.subscribe(100);
  CHECK(transfer(open_b, open_sub, 10) == status::bad_user_access_denied);
  CHECK(transfer(sec_b, open_sub, 20) == status::bad_user_access_denied);  // the old session is not secured
  CHECK(transfer(open_b, sec_sub, 30) == status::bad_user_access_denied);  // the new one is not
  CHECK(transfer(sec_b, sec_sub, 40) == status::good);
}

TEST_CASE("subscription: a session activated again for another user hands its subscriptions to that user",
          "[subscription]") {
  auto core = make_secured_core();
  client s(core, secured_a, user("alice", "alice-pw"));
  const auto sub = s.subscribe(100);
  // Part 4 §5.7.3.1: ActivateSession may change the user of a session.
  REQUIRE(s.activate(user("bob", "bob-pw")) == status::good);
  client alice(core, secured_b, user("alice", "alice-pw"));
  CHECK(transfer(alice, sub, 10) == status::bad_user_access_denied);
  // A refused re-activation changes nothing.
  CHECK(s.activate(user("alice", "wrong")) == status::bad_user_access_denied);
  client bob(core, secured_b, user("bob", "bob-pw"));
  CHECK(transfer(bob, sub, 20) == status::good);
}

// Part 4 §5.13.7 sendInitialValues: "If a value is queued ..., the next value in the queue is sent.
// If no value is queued ..., the last value sent is repeated." Found with node_sub_services.js: a
// queued value came twice, and an IndexRange item's last value had its range applied a second time.
TEST_CASE("subscription: sendInitialValues sends a queued value once and repeats the last value as it was sent",
          "[subscription]") {
  auto core = make_core();
  client a(core, 3);
  client b(core, 4);
  const auto sub = a.subscribe(100);
  a.monitor_one(sub, scalar("Int32"), 1, 0, 10);
  auto ranged = client::item(ua::node_id::string(1, "Demo.Static.Array.Int32"), 2, 0, 10);
  ranged.item_to_monitor.index_range = ua::ua_string("1:2");  // [-2147483648, 0, 2147483647] -> [0, 2147483647]
  REQUIRE(a.monitor(sub, {ranged}).results[0].status_code == status::good);
  const ua::variant range_value(ua::ua_array<std::int32_t>{0, 2147483647});
  a.publish(10);
  auto first = tick(core, 100);
  REQUIRE(first.size() == 1);
  auto notes = changes(as_publish(first[0].second));
  REQUIRE(notes.size() == 2);
  CHECK(notes[1].value.value == range_value);

  set(core, scalar("Int32"), 5, 110);  // queued, not yet published
  ua::transfer_subscriptions_request t;
  t.subscription_ids = {sub};
  t.send_initial_values = true;
  REQUIRE(b.call_as<ua::transfer_subscriptions_response>(t, 120).results[0].status_code == status::good);
  take_deferred(core);  // a's Good_SubscriptionTransferred (none queued: nothing)
  CHECK_FALSE(b.publish(130));
  const auto answers = tick(core, 200);
  REQUIRE(answers.size() == 1);
  CHECK(answers[0].first == b.request_id);
  std::vector<std::int32_t> ints;
  std::vector<ua::variant> arrays;
  for (const auto& n : changes(as_publish(answers[0].second))) {
    if (n.client_handle == 1) ints.push_back(*n.value.value.get_if<std::int32_t>());
    if (n.client_handle == 2) arrays.push_back(n.value.value);
  }
  CHECK(ints == std::vector<std::int32_t>{5});
  REQUIRE(arrays.size() == 1);
  CHECK(arrays[0] == range_value);

  // The filter's reference stays the value sent: an unchanged array is still no change.
  set(core, ua::node_id::string(1, "Demo.Static.Array.Int32"), ua::variant(ua::ua_array<std::int32_t>{7, 0, 2147483647}), 210);
  CHECK_FALSE(b.publish(220));
  std::vector<std::pair<std::uint32_t, ua::extension_object>> quiet;
  for (int ms = 300; ms <= 500 && quiet.empty(); ms += 100) quiet = tick(core, ms);
  REQUIRE(quiet.size() == 1);
  CHECK(changes(as_publish(quiet[0].second)).empty());  // a keep-alive: the range [0, 2147483647] did not change
}

// Part 4 §5.12.3: "If the number of notifications in the queue exceeds the new queue size, the
// notifications exceeding the size shall be discarded following the configured discard policy";
// §5.12.1.5 says which value gets the Overflow bit. Found with node_sub_services.js.
TEST_CASE("subscription: ModifyMonitoredItems cutting a queue discards by the discard policy, with the Overflow bit",
          "[subscription]") {
  for (const bool discard_oldest : {true, false}) {
    for (const std::uint32_t size : {3u, 1u}) {
      auto core = make_core();
      client c(core);
      const auto sub = c.subscribe(100);
      const auto id = c.monitor_one(sub, scalar("Int32"), 1, 0, 10, discard_oldest);
      ua::set_publishing_mode_request off;
      off.publishing_enabled = false;
      off.subscription_ids = {sub};
      c.call_as<ua::set_publishing_mode_response>(off);
      for (std::int32_t v = 1; v <= 5; ++v) set(core, scalar("Int32"), v, v);  // queued: initial, 1..5
      ua::modify_monitored_items_request m;
      m.subscription_id = sub;
      m.timestamps_to_return = ua::timestamps_to_return::both;
      ua::monitored_item_modify_request item;
      item.monitored_item_id = id;
      item.requested_parameters.client_handle = 1;
      item.requested_parameters.queue_size = size;
      item.requested_parameters.discard_oldest = discard_oldest;
      m.items_to_modify = {item};
      const auto& r = c.call_as<ua::modify_monitored_items_response>(m, 20);
      REQUIRE(r.results.size() == 1);
      CHECK(r.results[0].status_code == status::good);
      CHECK(r.results[0].revised_queue_size == size);
      ua::set_publishing_mode_request on = off;
      on.publishing_enabled = true;
      c.call_as<ua::set_publishing_mode_response>(on, 30);
      c.publish(40);
      const auto a = tick(core, 100);
      REQUIRE(a.size() == 1);
      std::vector<std::int32_t> values;
      std::vector<bool> overflow;
      for (const auto& n : changes(as_publish(a[0].second))) {
        values.push_back(*n.value.value.get_if<std::int32_t>());
        overflow.push_back((n.value.status.value() & 0x0480) == 0x0480);
      }
      INFO("discard_oldest " << discard_oldest << ", queue " << size);
      if (size == 1) {  // a queue of one keeps the newest, no Overflow bit (§5.12.1.5)
        CHECK(values == std::vector<std::int32_t>{5});
        CHECK(overflow == std::vector<bool>{false});
      } else if (discard_oldest) {
        CHECK(values == std::vector<std::int32_t>{3, 4, 5});
        CHECK(overflow == std::vector<bool>{true, false, false});
      } else {
        CHECK(values == std::vector<std::int32_t>{-2000000000, 1, 5});
        CHECK(overflow == std::vector<bool>{false, false, true});
      }
    }
  }
}

// Part 4 §5.12.6: when an item is deleted its triggering links go too; removing such a link
// afterwards is Bad_MonitoredItemIdInvalid, and dead links do not count against the limit.
TEST_CASE("subscription: a triggering link to a deleted item goes with it", "[subscription]") {
  actors::subscription_limits limits;
  limits.max_operations_per_call = 2;
  auto core = make_core(limits);
  client c(core);
  const auto sub = c.subscribe(100);
  const auto trigger = c.monitor_one(sub, scalar("Int32"), 1);
  const auto first = c.monitor_one(sub, scalar("Double"), 2, 0, 1, true, {}, ua::monitoring_mode::sampling);
  const auto second = c.monitor_one(sub, scalar("Float"), 3, 0, 1, true, {}, ua::monitoring_mode::sampling);
  ua::set_triggering_request st;
  st.subscription_id = sub;
  st.triggering_item_id = trigger;
  st.links_to_add = {first, second};
  CHECK(c.call_as<ua::set_triggering_response>(st).add_results ==
        ua::ua_array<ua::status_code>{status::good, status::good});
  ua::delete_monitored_items_request del;
  del.subscription_id = sub;
  del.monitored_item_ids = {first, second};
  CHECK(c.call_as<ua::delete_monitored_items_response>(del).results ==
        ua::ua_array<ua::status_code>{status::good, status::good});

  ua::set_triggering_request rm;
  rm.subscription_id = sub;
  rm.triggering_item_id = trigger;
  rm.links_to_remove = {first};
  CHECK(c.call_as<ua::set_triggering_response>(rm).remove_results ==
        ua::ua_array<ua::status_code>{status::bad_monitored_item_id_invalid});
  // Both dead links are gone: two new links fit under a limit of two.
  const auto third = c.monitor_one(sub, scalar("Int16"), 4, 0, 1, true, {}, ua::monitoring_mode::sampling);
  const auto fourth = c.monitor_one(sub, scalar("Int64"), 5, 0, 1, true, {}, ua::monitoring_mode::sampling);
  st.links_to_add = {third, fourth};
  CHECK(c.call_as<ua::set_triggering_response>(st).add_results ==
        ua::ua_array<ua::status_code>{status::good, status::good});
}

TEST_CASE("subscription: a Publish beyond the queue limit answers the oldest with Bad_TooManyPublishRequests",
          "[subscription]") {
  actors::subscription_limits limits;
  limits.max_publish_requests_per_session = 3;
  auto core = make_core(limits);
  client c(core);
  c.subscribe(100, 100);
  c.publish(0);  // the first cycle's keep-alive takes one later
  const auto first = c.request_id;
  c.publish(1);
  c.publish(2);
  CHECK(core.subscriptions().queued_publish_requests(1) == 3);
  CHECK_FALSE(c.publish(3));
  const auto a = take_deferred(core);
  REQUIRE(a.size() == 1);
  CHECK(a[0].first == first);
  CHECK(result_of(a[0].second) == status::bad_too_many_publish_requests);
  CHECK(core.subscriptions().queued_publish_requests(1) == 3);
}

TEST_CASE("subscription: a queued Publish past its timeoutHint gets Bad_Timeout", "[subscription]") {
  auto core = make_core();
  client c(core);
  c.subscribe(100, 100);
  c.publish(0);
  tick(core, 100);  // the first keep-alive used it
  c.publish(110, {}, 500);
  CHECK(tick(core, 500).empty());
  const auto a = tick(core, 620);
  REQUIRE(a.size() == 1);
  CHECK(result_of(a[0].second) == status::bad_timeout);
}

TEST_CASE("subscription: 10,000 monitored items in one CreateMonitoredItems", "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100, 10, 30, 0);
  std::vector<ua::monitored_item_create_request> items;
  for (std::uint32_t i = 0; i < 10'000; ++i) items.push_back(client::item(scalar(i % 2 ? "Int32" : "Double"), i));
  const auto& r = c.monitor(sub, items);
  REQUIRE(r.results.size() == 10'000);
  CHECK(std::all_of(r.results.begin(), r.results.end(), [](const auto& x) { return x.status_code == status::good; }));
  CHECK(core.subscriptions().monitored_item_count() == 10'000);
  c.publish(10);
  const auto a = tick(core, 100);
  REQUIRE(a.size() == 1);
  CHECK(changes(as_publish(a[0].second)).size() == 10'000);  // every initial value

  items.push_back(items.back());
  ua::create_monitored_items_request too_many;
  too_many.subscription_id = sub;
  too_many.items_to_create = {items.begin(), items.end()};
  CHECK(c.fault_of(too_many) == status::bad_too_many_operations);
}

TEST_CASE("subscription: max_notifications_per_publish splits a cycle's notifications (moreNotifications)",
          "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100, 10, 30, 4);
  c.monitor_one(sub, scalar("Int32"), 1, 0, 10);
  for (std::int32_t i = 1; i <= 5; ++i) set(core, scalar("Int32"), i);
  c.publish(10);
  c.publish(11);
  const auto a = tick(core, 100);
  REQUIRE(a.size() == 2);
  CHECK(as_publish(a[0].second).more_notifications);
  CHECK(changes(as_publish(a[0].second)).size() == 4);
  CHECK_FALSE(as_publish(a[1].second).more_notifications);
  CHECK(changes(as_publish(a[1].second)).size() == 2);
}

TEST_CASE("subscription: limits: subscriptions per session, monitored items per subscription and server",
          "[subscription]") {
  actors::subscription_limits limits;
  limits.max_subscriptions_per_session = 2;
  limits.max_monitored_items_per_subscription = 3;
  limits.max_monitored_items = 4;
  auto core = make_core(limits);
  client c(core);
  const auto s1 = c.subscribe();
  const auto s2 = c.subscribe();
  ua::create_subscription_request third;
  CHECK(c.fault_of(third) == status::bad_too_many_subscriptions);
  auto& r1 = c.monitor(s1, {client::item(scalar("Int32"), 1), client::item(scalar("Int32"), 2),
                             client::item(scalar("Int32"), 3), client::item(scalar("Int32"), 4)});
  CHECK(r1.results[2].status_code == status::good);
  CHECK(r1.results[3].status_code == status::bad_too_many_monitored_items);
  auto& r2 = c.monitor(s2, {client::item(scalar("Int32"), 1), client::item(scalar("Int32"), 2)});
  CHECK(r2.results[0].status_code == status::good);
  CHECK(r2.results[1].status_code == status::bad_too_many_monitored_items);  // the server's 4
}

TEST_CASE("subscription: hostile requests: unknown ids, NaN and negative intervals, huge counts", "[subscription]") {
  auto core = make_core();
  client c(core);
  ua::create_subscription_request cs;
  cs.requested_publishing_interval = std::numeric_limits<double>::quiet_NaN();
  cs.requested_lifetime_count = 0xFFFF'FFFFu;
  cs.requested_max_keep_alive_count = 0xFFFF'FFFFu;
  cs.max_notifications_per_publish = 0xFFFF'FFFFu;
  const auto& r = c.call_as<ua::create_subscription_response>(cs);
  CHECK(r.response_header.service_result == status::good);
  CHECK(r.revised_publishing_interval == 20);
  CHECK(r.revised_max_keep_alive_count == 10'000);
  CHECK(r.revised_lifetime_count >= 3 * r.revised_max_keep_alive_count);
  const auto sub = r.subscription_id;

  cs.requested_publishing_interval = -5;
  cs.requested_max_keep_alive_count = 0;
  cs.requested_lifetime_count = 0;
  const auto& r2 = c.call_as<ua::create_subscription_response>(cs);
  CHECK(r2.revised_publishing_interval == 20);
  CHECK(r2.revised_max_keep_alive_count == 10);
  CHECK(r2.revised_lifetime_count == 30);

  cs.requested_publishing_interval = 1e300;
  CHECK(c.call_as<ua::create_subscription_response>(cs).revised_publishing_interval == 3'600'000);

  auto& items = c.monitor(sub, {client::item(scalar("Int32"), 1, -7, 0xFFFF'FFFFu),
                                client::item(scalar("Int32"), 2, std::numeric_limits<double>::quiet_NaN(), 0),
                                client::item(ua::node_id(7, 4242u), 3),
                                client::item(scalar("Int32"), 4, 1e-9)});
  CHECK(items.results[0].revised_sampling_interval == 20);  // the publishing interval
  CHECK(items.results[0].revised_queue_size == 1'000);
  CHECK(items.results[1].revised_sampling_interval == 20);
  CHECK(items.results[1].revised_queue_size == 1);
  CHECK(items.results[2].status_code == status::bad_node_id_unknown);
  CHECK(items.results[3].revised_sampling_interval == 10);

  ua::monitored_item_create_request bad_attr = client::item(scalar("Int32"), 5);
  bad_attr.item_to_monitor.attribute_id = 99;
  ua::monitored_item_create_request bad_range = client::item(scalar("Int32"), 6);
  bad_range.item_to_monitor.index_range = "x:y";
  ua::monitored_item_create_request bad_mode = client::item(scalar("Int32"), 7);
  bad_mode.monitoring_mode = static_cast<ua::monitoring_mode>(3);
  auto& more = c.monitor(sub, {bad_attr, bad_range, bad_mode});
  CHECK(more.results[0].status_code == status::bad_attribute_id_invalid);
  CHECK(more.results[1].status_code == status::bad_index_range_invalid);
  CHECK(more.results[2].status_code == status::bad_monitoring_mode_invalid);

  ua::create_monitored_items_request unknown_sub;
  unknown_sub.subscription_id = 4242;
  unknown_sub.items_to_create = {client::item(scalar("Int32"), 1)};
  CHECK(c.fault_of(unknown_sub) == status::bad_subscription_id_invalid);
  ua::create_monitored_items_request bad_ts;
  bad_ts.subscription_id = sub;
  bad_ts.timestamps_to_return = static_cast<ua::timestamps_to_return>(9);
  bad_ts.items_to_create = {client::item(scalar("Int32"), 1)};
  CHECK(c.fault_of(bad_ts) == status::bad_timestamps_to_return_invalid);
  ua::create_monitored_items_request none;
  none.subscription_id = sub;
  CHECK(c.fault_of(none) == status::bad_nothing_to_do);

  ua::modify_subscription_request ms;
  ms.subscription_id = 4242;
  CHECK(c.fault_of(ms) == status::bad_subscription_id_invalid);
  ua::delete_monitored_items_request dm;
  dm.subscription_id = sub;
  dm.monitored_item_ids = {4242};
  CHECK(c.call_as<ua::delete_monitored_items_response>(dm).results[0] == status::bad_monitored_item_id_invalid);
  ua::set_publishing_mode_request sp;
  sp.subscription_ids = {sub, 4242};
  CHECK(c.call_as<ua::set_publishing_mode_response>(sp).results ==
        ua::ua_array<ua::status_code>{status::good, status::bad_subscription_id_invalid});
  ua::delete_subscriptions_request ds;
  ds.subscription_ids.assign(10'001, sub);
  CHECK(c.fault_of(ds) == status::bad_too_many_operations);

  // Another session cannot touch them.
  client other(core, 9);
  ms.subscription_id = sub;
  CHECK(other.fault_of(ms) == status::bad_subscription_id_invalid);
}

TEST_CASE("subscription: CloseSession deletes the subscriptions and answers queued Publish requests",
          "[subscription]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  c.monitor_one(sub, scalar("Int32"), 1);
  c.publish(10);
  CHECK(take_deferred(core).empty());  // the initial value is not due yet: still queued
  CHECK(core.subscriptions().queued_publish_requests(1) == 1);
  ua::close_session_request close;
  close.delete_subscriptions = true;
  c.call_as<ua::close_session_response>(close, 20);
  CHECK_FALSE(core.subscriptions().has_subscriptions());
  CHECK(core.subscriptions().monitored_item_count() == 0);
  const auto a = take_deferred(core);
  REQUIRE(a.size() == 1);
  CHECK(result_of(a[0].second) == status::bad_session_closed);
  // The node's changes now reach nobody.
  set(core, scalar("Int32"), 1);
}

TEST_CASE("subscription: without deleteSubscriptions they wait for a transfer until their lifetime ends",
          "[subscription]") {
  auto core = make_core();
  client a(core, 3);
  const auto sub = a.subscribe(100, 1, 5);
  ua::close_session_request close;
  close.delete_subscriptions = false;
  a.call_as<ua::close_session_response>(close, 10);
  CHECK(core.subscriptions().has_subscriptions());
  client b(core, 4);
  ua::transfer_subscriptions_request t;
  t.subscription_ids = {sub};
  CHECK(b.call_as<ua::transfer_subscriptions_response>(t, 20).results[0].status_code == status::good);
  CHECK(b.publish(30) == false);
  const auto ans = tick(core, 100);
  REQUIRE(ans.size() == 1);
  CHECK(ans[0].first == b.request_id);

  // Orphaned again: the lifetime (5 cycles) ends it.
  b.call_as<ua::close_session_response>(close, 110);
  for (int i = 2; i <= 7; ++i) tick(core, i * 100);
  CHECK_FALSE(core.subscriptions().has_subscriptions());
}

TEST_CASE("subscription: a channel that closes drops the Publish requests queued from it", "[subscription]") {
  auto core = make_core();
  client c(core);
  c.subscribe(100);
  c.publish(10);
  CHECK(core.subscriptions().queued_publish_requests(1) == 1);
  core.channel_closed(channel);
  CHECK(core.subscriptions().queued_publish_requests(1) == 0);
  CHECK(tick(core, 100).empty());
}

TEST_CASE("subscription: a change fanned out to monitored items and published allocates nothing in steady state",
          "[subscription]") {
  if (!test::counts_allocations) return;
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100, 10, 1000);
  std::vector<ua::monitored_item_create_request> items;
  for (std::uint32_t i = 0; i < 100; ++i) items.push_back(client::item(scalar("Double"), i, 0, 2));
  c.monitor(sub, items);
  const auto n = core.space().find(scalar("Double"));
  std::uint32_t acked = 0;
  auto round = [&](int r) {
    for (int k = 0; k < 10; ++k) {
      ua::data_value dv;
      dv.set_value(static_cast<double>(r * 10 + k));
      dv.source_timestamp = at(r).utc;
      dv.has_source_timestamp = true;
      core.space().set_value(n, std::move(dv));
    }
  };
  // Warm up: queues, the retransmission queue, the response buffers reach their working size.
  ua::publish_request pub;
  pub.request_header.authentication_token = c.token;
  pub.subscription_acknowledgements.resize(1);
  ua::extension_object msg(pub);
  auto* p = msg.get_if<ua::publish_request>();
  ua::byte_buffer out;
  auto cycle = [&](int r) {
    round(r);
    p->subscription_acknowledgements[0] = {sub, acked};
    out.clear();
    core.handle(channel, 1, p->request_header, msg, at(r * 100 + 50), out);
    core.publish_tick(at(r * 100 + 100));
    REQUIRE(core.deferred().size() == 1);
    core.clear_deferred();
    acked = acked + 1;
  };
  acked = 0;
  for (int r = 0; r < 30; ++r) cycle(r);
  const test::alloc_scope counter;
  for (int r = 30; r < 60; ++r) cycle(r);
  CHECK(counter.counted().allocations == 0);
}

}  // namespace server_subscription_test
