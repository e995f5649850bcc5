// The event and alarm paths of the session host (docs/decisions/0018), in memory, with a passed-in
// clock:
//   events.fanout/N       one raise_event (BaseEventType fields) reaching N subscribers, each an
//                         event item on the Server object with 5 select clauses and the where clause
//                         Severity >= 500 And Message Like '%trip%'; a publishing tick every 100
//                         events answers one queued Publish per subscriber (acknowledging the
//                         previous message), encoded. Half the events pass the where clause.
//                         Unit: ns and allocs per raised event, and per delivered event.
//   alarms.pass/N         one batch of N values through apply_values, each the input of a limit
//                         alarm (HH/H/L/LL with a deadband), half of them crossing High each pass
//                         (a transition and its event, with one event subscriber), a Publish and
//                         a tick every 10 passes. Unit: ns per pass, p50/p99 of apply_values,
//                         allocs per pass (all) and per evaluation (inside apply_values).
//                         /N/B: B the alarms' max_branches; nobody acknowledges, so with B > 0 every
//                         return to High makes a branch and, at the bound, drops the oldest
//                         (docs/decisions/0061): the chattering worst case. /N/0 is the state machine.
//   conditions.memory/N   N limit alarms (HH/H/L/LL) added to a server whose N inputs exist: the
//                         heap each condition takes (its Object, ~43 Variables and Objects, their
//                         references at both ends, the alarm record and its kept event; glibc's
//                         mallinfo2, in-use heap + mmap after minus before) and the nodes it adds
//                         (docs/decisions/0053). Unit: bytes and nodes per condition, us per add.
//                         /100000 is the size (~4.5 GB: run it alone, on a machine that has it).
//   conditions.refresh/N  N active limit alarms (half of them with a branch, docs/decisions/0061),
//                         one subscriber with an event item (8 condition fields, no where clause):
//                         ConditionRefresh called, then Publish answered until RefreshEnd is out.
//                         Unit: ms per refresh (the Call and the Publishes that carry it, encoded),
//                         events delivered per refresh, allocs per delivered event.
//   alarms.flood/C/S/M    the flood: 10,000 transitions a second (a publishing tick every
//                         1,000) to S sessions with a where clause (half delivered), A/B in one run:
//                         M=0 the application's events (raise_event, today's live event path), M=1
//                         limit-alarm transitions over C conditions. Unit: CPU ns per delivered
//                         event (the process's CPU clock), allocs per answered Publish and per transition.
// Run: build/bench/actors/event_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "runtime/namespaces/demo_namespace.hpp"
#include "engine/server/server_core.hpp"
#include "protocol/message.hpp"
#include "tests/support/alloc_counter.hpp"

using namespace uactor;

namespace {

actors::instant at(std::int64_t ms) {
  return {std::chrono::steady_clock::time_point{} + std::chrono::milliseconds(ms),
          ua::date_time::from_unix_ms(1'767'225'600'000 + ms)};
}

actors::server_core make_core(std::size_t variables, std::uint32_t max_queue_size = 1'000) {
  actors::server_core_config c;
  c.subscriptions.max_queue_size = max_queue_size;
  c.description.application_uri = "urn:bench:uactor:server";
  c.description.endpoint_url = "opc.tcp://localhost:4840";
  c.sessions.random = [g = std::mt19937_64{42}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = static_cast<std::uint8_t>(g());
  };
  auto core = actors::make_demo_server_core(std::move(c), "bench", at(0).utc);
  for (std::size_t i = 0; i < variables; ++i) {
    ua::node_spec v;
    v.id = ua::node_id(1, static_cast<std::uint32_t>(100'000 + i));
    v.cls = ua::node_class::variable;
    v.browse_ns = 1;
    v.browse_name = "V";
    v.data_type = ua::node_id(0, 11);
    v.value.set_value(50.0);
    if (!core.space().add_node(std::move(v))) throw std::runtime_error("add_node");
  }
  return core;
}

ua::simple_attribute_operand field(const char* name) {
  ua::simple_attribute_operand o;
  o.type_definition_id = ua::node_id(0, 2041);
  o.browse_path.push_back(ua::qualified_name{0, ua::ua_string(name)});
  o.attribute_id = 13;
  return o;
}

ua::event_filter where_filter() {
  ua::event_filter f;
  for (const char* n : {"EventId", "EventType", "SourceName", "Message", "Severity"}) f.select_clauses.push_back(field(n));
  ua::content_filter_element conj;
  conj.filter_operator = ua::filter_operator::and_;
  conj.filter_operands.push_back(ua::extension_object(ua::element_operand{1}));
  conj.filter_operands.push_back(ua::extension_object(ua::element_operand{2}));
  ua::content_filter_element gte;
  gte.filter_operator = ua::filter_operator::greater_than_or_equal;
  gte.filter_operands.push_back(ua::extension_object(field("Severity")));
  ua::literal_operand l;
  l.value = std::int32_t{500};
  gte.filter_operands.push_back(ua::extension_object(l));
  ua::content_filter_element like;
  like.filter_operator = ua::filter_operator::like;
  like.filter_operands.push_back(ua::extension_object(field("Message")));
  ua::literal_operand p;
  p.value = ua::ua_string("%trip%");
  like.filter_operands.push_back(ua::extension_object(p));
  f.where_clause.elements.push_back(conj);
  f.where_clause.elements.push_back(gte);
  f.where_clause.elements.push_back(like);
  return f;
}

// EventType, EventId, ConditionName, BranchId, ActiveState/Id, AckedState/Id, Severity, Message.
ua::event_filter condition_filter() {
  ua::event_filter f;
  for (const char* n : {"EventType", "EventId", "ConditionName", "BranchId", "Severity", "Message"})
    f.select_clauses.push_back(field(n));
  for (const char* n : {"ActiveState", "AckedState"}) {
    auto o = field(n);
    o.browse_path.push_back(ua::qualified_name{0, ua::ua_string("Id")});
    f.select_clauses.push_back(o);
  }
  return f;
}

struct session {
  actors::server_core& core;
  std::uint32_t chan;
  ua::node_id token;
  ua::byte_buffer out;
  ua::extension_object response;
  std::uint32_t request_id = 1;
  std::uint32_t sub = 0;

  // `conditions`: the item selects condition fields, no where clause, a queue for a whole refresh.
  // `filter`: the item's own (the flood's), in place of both.
  session(actors::server_core& c, std::uint32_t ch, bool conditions = false, const ua::event_filter* filter = nullptr)
      : core(c), chan(ch) {
    ua::create_session_request create;
    create.requested_session_timeout = 3'600'000;
    token = call(create).get_if<ua::create_session_response>()->authentication_token;
    ua::activate_session_request activate;
    activate.user_identity_token = ua::extension_object(ua::anonymous_identity_token{"anonymous"});
    call(activate);
    ua::create_subscription_request s;
    s.requested_publishing_interval = 100;
    s.requested_max_keep_alive_count = 10;
    s.requested_lifetime_count = 100'000;
    s.publishing_enabled = true;
    sub = call(s).get_if<ua::create_subscription_response>()->subscription_id;
    ua::create_monitored_items_request req;
    req.subscription_id = sub;
    ua::monitored_item_create_request m;
    m.item_to_monitor.node_id = ua::node_id(0, 2253);
    m.item_to_monitor.attribute_id = 12;
    m.monitoring_mode = ua::monitoring_mode::reporting;
    m.requested_parameters.queue_size = conditions ? 1'000'000 : 1000;
    m.requested_parameters.filter =
        ua::extension_object(filter ? *filter : conditions ? condition_filter() : where_filter());
    req.items_to_create.push_back(m);
    const auto* r = call(req).get_if<ua::create_monitored_items_response>();
    if (!r || r->results.size() != 1 || r->results[0].status_code.is_bad()) throw std::runtime_error("monitor");
  }

  template <class T>
  ua::extension_object& call(T req) {
    req.request_header.authentication_token = token;
    const ua::extension_object msg(req);
    out.clear();
    core.handle(chan, request_id++, req.request_header, msg, at(0), out);
    if (ua::decode_message(out.bytes(), response) != ua::status::good) throw std::runtime_error("decode");
    return response;
  }
};

struct publisher {
  ua::extension_object msg;
  ua::publish_request* req;
  explicit publisher(const session& s) : msg(ua::publish_request{}) {
    req = msg.get_if<ua::publish_request>();
    req->request_header.authentication_token = s.token;
    req->subscription_acknowledgements.resize(1);
    req->subscription_acknowledgements[0].subscription_id = s.sub;
  }
};

void events_fanout(benchmark::State& st) {
  const auto subscribers = static_cast<std::size_t>(st.range(0));
  auto core = make_core(0);
  std::vector<std::unique_ptr<session>> ss;
  std::vector<std::unique_ptr<publisher>> pubs;
  for (std::size_t i = 0; i < subscribers; ++i) {
    ss.push_back(std::make_unique<session>(core, static_cast<std::uint32_t>(i + 1)));
    pubs.push_back(std::make_unique<publisher>(*ss.back()));
  }
  event pass;
  pass.severity = 700;
  pass.message = ua::localized_text{ua::ua_string("en"), ua::ua_string("pump 1 tripped")};
  pass.source_name = "Pump1";
  event drop = pass;
  drop.severity = 300;
  ua::byte_buffer out;
  std::int64_t ms = 0;
  std::uint32_t seq = 0;
  std::size_t raised = 0;
  std::size_t published = 0;
  auto refill = [&] {
    for (std::size_t i = 0; i < subscribers; ++i) {
      pubs[i]->req->subscription_acknowledgements[0].sequence_number = seq;
      out.clear();
      core.handle(ss[i]->chan, ss[i]->request_id++, pubs[i]->req->request_header, pubs[i]->msg, at(ms), out);
    }
    ++seq;
  };
  auto one = [&] {
    core.raise_event(raised % 2 ? pass : drop, at(ms));
    if (++raised % 100 == 0) {
      ms += 100;
      core.publish_tick(at(ms));
      published += core.deferred().size();
      core.clear_deferred();
      refill();
    }
  };
  refill();
  for (int i = 0; i < 20'000; ++i) one();
  if (published == 0) throw std::runtime_error("nothing published");
  const test::alloc_scope allocs;
  const std::size_t before = raised;
  for (auto _ : st) one();
  const auto counted = static_cast<double>(allocs.counted().allocations);  // once: the counters map allocates
  const double events = static_cast<double>(raised - before);
  const double delivered = events / 2 * static_cast<double>(subscribers);
  st.counters["allocs/event"] = counted / events;
  st.counters["allocs/delivered"] = counted / delivered;
  st.counters["delivered/s"] = benchmark::Counter(delivered, benchmark::Counter::kIsRate);
}

void alarms_pass(benchmark::State& st) {
  const auto count = static_cast<std::size_t>(st.range(0));
  const auto max_branches = static_cast<std::uint32_t>(st.range(1));
  auto core = make_core(count);
  for (std::size_t i = 0; i < count; ++i) {
    limit_alarm a;
    a.id = ua::node_id(1, static_cast<std::uint32_t>(200'000 + i));
    a.input = ua::node_id(1, static_cast<std::uint32_t>(100'000 + i));
    a.name = "A";
    a.high_high = 90;
    a.high = 70;
    a.low = 20;
    a.low_low = 10;
    a.deadband = 1;
    a.max_branches = max_branches;
    if (core.add_limit_alarm(a, at(0)).is_bad()) throw std::runtime_error("add_limit_alarm");
  }
  session s(core, 1);  // one event subscriber (its where clause drops the alarms: Message has no "trip")
  publisher p(s);
  std::vector<value_update> batch(count);
  for (std::size_t i = 0; i < count; ++i) batch[i].node.index = core.space().find(ua::node_id(1, static_cast<std::uint32_t>(100'000 + i)));
  std::int64_t ms = 0;
  std::uint64_t pass = 0;
  ua::byte_buffer out;
  std::vector<double> us;
  us.reserve(1'000'000);
  std::uint64_t in_pass = 0;  // allocations inside apply_values (the evaluation and its events)
  auto one = [&] {
    ++pass;
    // Even alarms alternate between 50 (normal) and 80 (High); odd ones move within normal.
    for (std::size_t i = 0; i < count; ++i)
      batch[i].value = (i % 2 == 0) ? (pass % 2 ? 80.0 : 50.0) : 40.0 + static_cast<double>(pass % 7);
    const auto a0 = test::thread_alloc_counts().allocations;
    const auto t0 = std::chrono::steady_clock::now();
    core.apply_values(batch, at(ms));
    const auto t1 = std::chrono::steady_clock::now();
    in_pass += test::thread_alloc_counts().allocations - a0;
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    if (pass % 10 == 0) {
      ms += 100;
      out.clear();
      core.handle(s.chan, s.request_id++, p.req->request_header, p.msg, at(ms), out);
      core.publish_tick(at(ms));
      core.clear_deferred();
    }
  };
  for (int i = 0; i < 200; ++i) one();
  us.clear();
  in_pass = 0;
  const test::alloc_scope allocs;
  for (auto _ : st) one();
  const auto counted = static_cast<double>(allocs.counted().allocations);
  st.counters["allocs/pass"] = counted / static_cast<double>(st.iterations());
  st.counters["allocs/evaluation"] = static_cast<double>(in_pass) / static_cast<double>(st.iterations());
  std::sort(us.begin(), us.end());
  if (!us.empty()) {
    st.counters["p50_us"] = us[us.size() / 2];
    st.counters["p99_us"] = us[std::min(us.size() - 1, us.size() * 99 / 100)];
  }
}

void conditions_memory(benchmark::State& st) {
  const auto count = static_cast<std::size_t>(st.range(0));
  for (auto _ : st) {
    st.PauseTiming();
    auto core = make_core(count + 1);
    // One condition first, to learn how many nodes and Variables one takes: the store is then
    // reserved for exactly `count` more inside the measurement (no growth slack, none left out).
    limit_alarm probe;
    probe.id = ua::node_id::string(1, "Probe.Alarm");
    probe.input = ua::node_id(1, static_cast<std::uint32_t>(100'000 + count));
    probe.name = "Probe";
    probe.high = 70;
    probe.low = 20;
    probe.high_high = 90;
    probe.low_low = 10;
    const std::size_t n0 = core.space().size(), v0 = core.space().variable_count();
    if (core.add_limit_alarm(probe, at(0)).is_bad()) throw std::runtime_error("add_limit_alarm");
    const std::size_t per_nodes = core.space().size() - n0, per_vars = core.space().variable_count() - v0;
    const std::size_t nodes_before = core.space().size();
    malloc_trim(0);
    // In-use heap and mmap (glibc serves the store's big vectors from mmap; docs/performance.md
    // "Heap per node").
    const auto in_use = [] {
      const auto m = mallinfo2();
      return m.uordblks + m.hblkhd;
    };
    const std::size_t heap_before = in_use();
    core.space().reserve(nodes_before + count * per_nodes, core.space().variable_count() + count * per_vars);
    st.ResumeTiming();
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < count; ++i) {
      limit_alarm a;
      a.id = ua::node_id::string(1, "Area" + std::to_string(i % 100) + ".Tank" + std::to_string(i) + ".Level.Alarm");
      a.input = ua::node_id(1, static_cast<std::uint32_t>(100'000 + i));
      a.name = "TankLevelAlarm";
      a.high_high = 90;
      a.high = 70;
      a.low = 20;
      a.low_low = 10;
      a.deadband = 1;
      if (core.add_limit_alarm(a, at(0)).is_bad()) throw std::runtime_error("add_limit_alarm");
    }
    const auto t1 = std::chrono::steady_clock::now();
    st.PauseTiming();
    const std::size_t heap_after = in_use();
    const double n = static_cast<double>(count);
    st.counters["bytes/condition"] = (static_cast<double>(heap_after) - static_cast<double>(heap_before)) / n;
    st.counters["nodes/condition"] = static_cast<double>(core.space().size() - nodes_before) / n;
    st.counters["us/add"] = std::chrono::duration<double, std::micro>(t1 - t0).count() / n;
    st.ResumeTiming();
  }
}

void conditions_refresh(benchmark::State& st) {
  const auto count = static_cast<std::size_t>(st.range(0));
  // An item's queue holds a whole refresh (the server's default, 1,000 per item, would drop most).
  auto core = make_core(count, static_cast<std::uint32_t>(2 * count + 10));
  std::vector<value_update> batch(count);
  for (std::size_t i = 0; i < count; ++i) {
    limit_alarm a;
    a.id = ua::node_id(1, static_cast<std::uint32_t>(200'000 + i));
    a.input = ua::node_id(1, static_cast<std::uint32_t>(100'000 + i));
    a.name = "A";
    a.high = 70;
    a.low = 20;
    if (core.add_limit_alarm(a, at(0)).is_bad()) throw std::runtime_error("add_limit_alarm");
    batch[i].node.index = core.space().find(a.input);
  }
  // Active, back to normal unacknowledged and active again for the even ones (a branch each), then
  // active for all.
  const auto apply = [&](auto value_of, std::int64_t ms) {
    for (std::size_t i = 0; i < count; ++i) batch[i].value = value_of(i);
    core.apply_values(batch, at(ms));
  };
  apply([](std::size_t) { return 80.0; }, 0);
  apply([](std::size_t i) { return i % 2 == 0 ? 50.0 : 80.0; }, 0);
  apply([](std::size_t) { return 80.0; }, 0);
  session s(core, 1, true);
  publisher p(s);
  ua::call_request refresh;
  refresh.request_header.authentication_token = s.token;
  ua::call_method_request m;
  m.object_id = ua::node_id(0, 2782);
  m.method_id = ua::node_id(0, 3875);
  m.input_arguments = {ua::variant(s.sub)};
  refresh.methods_to_call.push_back(m);
  const ua::extension_object refresh_msg(refresh);
  std::int64_t ms = 0;
  ua::byte_buffer out;
  ua::extension_object decoded;
  std::uint64_t delivered = 0;
  // One Publish answered: the events it carried; whether RefreshEnd (i=2788) was among them.
  const auto drain_one = [&](bool& ended) {
    ms += 100;
    out.clear();
    core.handle(s.chan, s.request_id++, p.req->request_header, p.msg, at(ms), out);
    core.publish_tick(at(ms));
    const auto take = [&](std::span<const std::uint8_t> bytes) {
      if (ua::decode_message(bytes, decoded) != ua::status::good) throw std::runtime_error("decode");
      const auto* r = decoded.get_if<ua::publish_response>();
      if (!r) return;
      for (const auto& eo : r->notification_message.notification_data)
        if (const auto* l = eo.get_if<ua::event_notification_list>())
          for (const auto& e : l->events) {
            ++delivered;
            const auto* t = e.event_fields.empty() ? nullptr : e.event_fields[0].get_if<ua::node_id>();
            if (t && *t == ua::node_id(0, 2788)) ended = true;
          }
    };
    if (!out.empty()) take(out.bytes());
    for (const auto& d : core.deferred()) take(d.message.bytes());
    core.clear_deferred();
  };
  bool ended = false;
  for (int i = 0; i < 100 && !ended; ++i) drain_one(ended);  // the alarms' own events out of the way
  ended = false;
  delivered = 0;
  std::uint64_t refreshes = 0;
  const test::alloc_scope allocs;
  for (auto _ : st) {
    out.clear();
    core.handle(s.chan, s.request_id++, refresh.request_header, refresh_msg, at(ms), out);
    if (ua::decode_message(out.bytes(), decoded) != ua::status::good) throw std::runtime_error("decode");
    const auto* called = decoded.get_if<ua::call_response>();
    if (!called || called->results.size() != 1 || called->results[0].status_code.is_bad())
      throw std::runtime_error("ConditionRefresh refused");
    ended = false;
    for (int i = 0; i < 10'000 && !ended; ++i) drain_one(ended);
    if (!ended) throw std::runtime_error("no RefreshEnd after " + std::to_string(delivered) + " events");
    ++refreshes;
  }
  const auto counted = static_cast<double>(allocs.counted().allocations);
  st.counters["events/refresh"] = static_cast<double>(delivered) / static_cast<double>(refreshes);
  st.counters["allocs/event"] = counted / static_cast<double>(delivered);
}

// The flood (issue 33): 10,000 transitions a second to `subscribers` sessions, each an event item on
// the Server object with the where clause Severity >= 500 (where_filter's first half passes the
// alarms' High and drops their normal: half delivered). One iteration is one transition; every
// 1,000 (a 100 ms publishing interval) a publishing tick answers one queued Publish per session.
// Mode 0, the live event path of today: the application raises the event (raise_event, Severity 700
// or 300 alternately). Mode 1: a limit alarm's input crosses High and back (apply_values), the
// condition's event with its ~40 fields, over `alarms` conditions in turn.
void flood(benchmark::State& st) {
  const auto alarms = static_cast<std::size_t>(st.range(0));
  const auto subscribers = static_cast<std::size_t>(st.range(1));
  const bool conditions = st.range(2) == 1;
  auto core = make_core(conditions ? alarms : 0, 2'000);
  if (conditions)
    for (std::size_t i = 0; i < alarms; ++i) {
      limit_alarm a;
      a.id = ua::node_id(1, static_cast<std::uint32_t>(200'000 + i));
      a.input = ua::node_id(1, static_cast<std::uint32_t>(100'000 + i));
      a.name = "A";
      a.high = 70;
      a.max_branches = 0;
      if (core.add_limit_alarm(a, at(0)).is_bad()) throw std::runtime_error("add_limit_alarm");
    }
  std::vector<std::unique_ptr<session>> ss;
  std::vector<std::unique_ptr<publisher>> pubs;
  // where_filter's select clauses and the first half of its where clause: Severity >= 500.
  ua::event_filter f = where_filter();
  const ua::content_filter_element severity = f.where_clause.elements[1];
  f.where_clause.elements.clear();
  f.where_clause.elements.push_back(severity);
  for (std::size_t i = 0; i < subscribers; ++i) {
    ss.push_back(std::make_unique<session>(core, static_cast<std::uint32_t>(i + 1), false, &f));
    pubs.push_back(std::make_unique<publisher>(*ss.back()));
  }
  event pass;
  pass.severity = 700;
  pass.message = ua::localized_text{ua::ua_string("en"), ua::ua_string("A High")};
  pass.source_name = "V";
  event drop = pass;
  drop.severity = 300;
  value_update u;
  ua::byte_buffer out;
  ua::extension_object decoded;
  std::int64_t ms = 0;
  std::uint32_t seq = 0;
  std::uint64_t transitions = 0, published = 0, delivered = 0;
  std::vector<double> values(alarms, 50.0);
  std::vector<ua::node_index> inputs(alarms);
  for (std::size_t k = 0; k < alarms; ++k) inputs[k] = core.space().find(ua::node_id(1, static_cast<std::uint32_t>(100'000 + k)));
  auto refill = [&] {
    for (std::size_t i = 0; i < subscribers; ++i) {
      pubs[i]->req->subscription_acknowledgements[0].sequence_number = seq;
      out.clear();
      core.handle(ss[i]->chan, ss[i]->request_id++, pubs[i]->req->request_header, pubs[i]->msg, at(ms), out);
    }
    ++seq;
  };
  bool count_delivered = false;
  auto one = [&] {
    if (conditions) {
      // Alarm k: 50 -> 80 (High, delivered) on one pass over the alarms, back to 50 (dropped) on the next.
      const std::size_t k = transitions % alarms;
      values[k] = values[k] == 50.0 ? 80.0 : 50.0;
      u.node.index = inputs[k];
      u.value = values[k];
      core.apply_values(std::span(&u, 1), at(ms));
    } else {
      core.raise_event(transitions % 2 ? pass : drop, at(ms));
    }
    if (++transitions % 1'000 == 0) {
      ms += 100;
      core.publish_tick(at(ms));
      published += core.deferred().size();
      if (count_delivered)
        for (const auto& d : core.deferred()) {
          if (ua::decode_message(d.message.bytes(), decoded) != ua::status::good) throw std::runtime_error("decode");
          if (const auto* r = decoded.get_if<ua::publish_response>())
            for (const auto& eo : r->notification_message.notification_data)
              if (const auto* l = eo.get_if<ua::event_notification_list>()) delivered += l->events.size();
        }
      core.clear_deferred();
      refill();
    }
  };
  refill();
  for (std::size_t i = 0; i < std::max<std::size_t>(2 * alarms, 20'000); ++i) one();
  if (published == 0) throw std::runtime_error("nothing published");
  // Delivered events counted by decoding on a separate pass (not timed): the same shape of load.
  count_delivered = true;
  const std::uint64_t d0 = delivered;
  for (int i = 0; i < 20'000; ++i) one();
  const double delivered_per_transition = static_cast<double>(delivered - d0) / 20'000;
  count_delivered = false;
  if (delivered_per_transition <= 0) throw std::runtime_error("nothing delivered");
  const test::alloc_scope allocs;
  const std::uint64_t t0 = transitions, p0 = published;
  timespec c0{}, c1{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  for (auto _ : st) one();
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  const auto counted = static_cast<double>(allocs.counted().allocations);
  const double cpu_ns = static_cast<double>(c1.tv_sec - c0.tv_sec) * 1e9 + static_cast<double>(c1.tv_nsec - c0.tv_nsec);
  const double n = static_cast<double>(transitions - t0);
  const double publishes = static_cast<double>(published - p0);
  st.counters["delivered/transition"] = delivered_per_transition;
  st.counters["cpu_ns/delivered"] = cpu_ns / (n * delivered_per_transition);
  st.counters["allocs/publish"] = publishes > 0 ? counted / publishes : 0;
  st.counters["allocs/transition"] = counted / n;
}

}  // namespace

BENCHMARK(conditions_memory)->Name("conditions.memory")->Arg(10'000)->Arg(100'000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(conditions_refresh)->Name("conditions.refresh")->Arg(10'000)->Unit(benchmark::kMillisecond);
BENCHMARK(events_fanout)->Name("events.fanout")->Arg(1)->Arg(20);
BENCHMARK(alarms_pass)->Name("alarms.pass")->Args({1000, 0})->Args({1000, 16});
// A/B in one run: /C/S/0 the application's events, /C/S/1 alarm transitions (C conditions, S sessions).
BENCHMARK(flood)->Name("alarms.flood")->Args({10'000, 20, 0})->Args({10'000, 20, 1});
BENCHMARK_MAIN();
