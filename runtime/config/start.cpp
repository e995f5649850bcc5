#include "runtime/config/start.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/common/tune_io.hpp"
#include "protocol/json_string.hpp"
#include "runtime/config/signal.hpp"
#include "uactor/runtime.hpp"

namespace uactor::config {

namespace {

// %* in a pattern: the message as the inside of a JSON string (RFC 8259 §7), escaped as the CLI's
// --json escapes (quotes, backslashes, control characters, invalid UTF-8): a user name or a
// browse name may hold any of them.
class json_escaped_message final : public spdlog::custom_flag_formatter {
public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    const std::string quoted = ua::json_string(std::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(quoted.data() + 1, quoted.data() + quoted.size() - 1);  // without its quotes
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<json_escaped_message>(); }
};

}  // namespace

void apply_logging(const logging_spec& l) {
  spdlog::sink_ptr sink;
  if (l.file.empty()) sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  else sink = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(l.file, l.max_size, l.max_files);
  auto logger = std::make_shared<spdlog::logger>("uactor", sink);
  if (l.format == "json") {
    // One JSON object a line, the message escaped.
    auto f = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
    f->add_flag<json_escaped_message>('*').set_pattern(
        R"({"time":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l","thread":%t,"message":"%*"})");
    logger->set_formatter(std::move(f));
  }
  logger->set_level(spdlog::level::from_str(l.level));
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
}

namespace {

// The value of a writer's signal as the target's DataType holds it.
variant as_type(double v, ua::builtin_type t) {
  auto clamp_to = [v]<class T>(T) {
    const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
    const double hi = static_cast<double>(std::numeric_limits<T>::max());
    return static_cast<T>(std::clamp(std::round(v), lo, hi));
  };
  switch (t) {
    case ua::builtin_type::boolean: return variant(v != 0);
    case ua::builtin_type::sbyte: return variant(clamp_to(std::int8_t{}));
    case ua::builtin_type::byte: return variant(clamp_to(std::uint8_t{}));
    case ua::builtin_type::int16: return variant(clamp_to(std::int16_t{}));
    case ua::builtin_type::uint16: return variant(clamp_to(std::uint16_t{}));
    case ua::builtin_type::int32: return variant(clamp_to(std::int32_t{}));
    case ua::builtin_type::uint32: return variant(clamp_to(std::uint32_t{}));
    case ua::builtin_type::int64: return variant(static_cast<std::int64_t>(std::round(v)));
    case ua::builtin_type::uint64: return variant(static_cast<std::uint64_t>(std::max(0.0, std::round(v))));
    case ua::builtin_type::float_: return variant(static_cast<float>(v));
    default: return variant(v);
  }
}

using tick_atom = caf::atom_constant<caf::atom("cfgtick")>;

// What the writers count, shared by them: one tick an interval each is no hot path.
struct writer_counters {
  std::atomic<std::uint64_t> cycles{0};
  std::atomic<std::uint64_t> wait_ns{0};
  std::atomic<std::uint64_t> waits{0};
};

// One [[writers]] entry (docs/architecture.md, "Writers"): each tick one batch, through the same door as any
// application's values.

caf::behavior plant_writer(caf::event_based_actor* self, writer_spec spec, server* srv, std::vector<value_handle> handles,
                           std::shared_ptr<writer_counters> counters) {
  struct state {
    writer_spec spec;
    signal sig;
    server* srv;
    std::vector<value_handle> handles;
    std::vector<value_update> batch;
    std::chrono::steady_clock::time_point due{};  // of the tick sent last; none before the first
    state(writer_spec s, server* to, std::vector<value_handle> h)
        : spec(std::move(s)), sig(spec), srv(to), handles(std::move(h)) {}
  };
  auto st = std::make_shared<state>(std::move(spec), srv, std::move(handles));
  self->send(self, tick_atom::value);
  return {
      [self, st, counters](tick_atom) {
        const auto now = std::chrono::steady_clock::now();
        counters->cycles.fetch_add(1, std::memory_order_relaxed);
        // A writer's mailbox holds its own next tick and nothing else: its depth says nothing, how
        // late the tick runs (the timer, then the scheduler) is its message's wait.
        if (st->due != std::chrono::steady_clock::time_point{}) {
          const auto late = std::max(now - st->due, std::chrono::steady_clock::duration::zero());
          counters->wait_ns.fetch_add(static_cast<std::uint64_t>(std::chrono::nanoseconds(late).count()),
                                      std::memory_order_relaxed);
          counters->waits.fetch_add(1, std::memory_order_relaxed);
        }
        const double v = st->sig.next();
        st->batch.resize(st->handles.size());
        for (std::size_t i = 0; i < st->handles.size(); ++i)
          st->batch[i] = value_update{st->handles[i], as_type(v, st->spec.target_types[i]), {}, {}};
        if (const auto sc = st->srv->write_values(st->batch); sc.is_bad() && sc != ua::status::bad_server_halted)
          spdlog::warn("writer ({}): a tick's values were not taken: {}", st->spec.kind, sc.to_string());
        self->delayed_send(self, st->spec.interval, tick_atom::value);
        st->due = std::chrono::steady_clock::now() + st->spec.interval;
      },
  };
}

// [[nodesets]] and --nodeset go to uactor::server::load_nodeset, strict unless the entry says
// accept_older_models (docs/configuration.md): every error of the file in the message, nothing of
// it applied. Its warnings and counts are logged there (runtime/nodeset_loader.cpp).
bool load_nodeset(server& srv, const nodeset_file& file, std::string& error) {
  const auto report = srv.load_nodeset(file.path, file.options);
  if (report.ok()) return true;
  error = fmt::format("nodeset {} is refused:", file.path);
  for (const auto& e : report.errors) error += "\n  " + e;
  return false;
}

// [[limit_alarms]], [[off_normal_alarms]], [[discrete_alarms]], [[deviation_alarms]], [[rate_of_change_alarms]],
// [[trip_alarms]], [[discrepancy_alarms]] and their notifiers' HasEventSource references: what only the address space
// knows (an input of a NodeSet or namespace 0 that is missing or not numeric) refuses the start.
bool add_alarms(server& srv, const plant& p, std::string& error) {
  if (!p.event_sources.empty()) {
    std::vector<node_change> refs(p.event_sources.begin(), p.event_sources.end());
    const auto results = srv.apply(refs);
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (results[i].is_good()) continue;
      error = fmt::format("the notifier {} of {} could not reference it: {}", p.event_sources[i].source.to_string(),
                          p.event_sources[i].target.to_string(), results[i].to_string());
      return false;
    }
  }
  for (const auto& g : p.alarm_groups) {
    if (const auto sc = srv.add_alarm_group(g); sc.is_bad()) {
      error = fmt::format("alarm group {} could not be added: {}", g.id.to_string(), sc.to_string());
      return false;
    }
  }
  for (const auto& a : p.limit_alarms) {
    if (const auto sc = srv.add_limit_alarm(a); sc.is_bad()) {
      error = fmt::format("limit alarm {} (input {}) could not be added: {}", a.id.to_string(), a.input.to_string(),
                          sc.to_string());
      return false;
    }
  }
  for (const auto& a : p.off_normal_alarms) {
    if (const auto sc = srv.add_off_normal_alarm(a); sc.is_bad()) {
      error = fmt::format("off-normal alarm {} (input {}) could not be added: {}", a.id.to_string(), a.input.to_string(),
                          sc.to_string());
      return false;
    }
  }
  for (const auto& a : p.discrete_alarms) {
    if (const auto sc = srv.add_discrete_alarm(a); sc.is_bad()) {
      error = fmt::format("discrete alarm {} (input {}) could not be added: {}", a.id.to_string(), a.input.to_string(),
                          sc.to_string());
      return false;
    }
  }
  for (const auto& a : p.deviation_alarms) {
    if (const auto sc = srv.add_deviation_alarm(a); sc.is_bad()) {
      error = fmt::format("deviation alarm {} (input {}, setpoint {}) could not be added: {}", a.id.to_string(),
                          a.input.to_string(), a.setpoint.to_string(), sc.to_string());
      return false;
    }
  }
  for (const auto& a : p.rate_of_change_alarms) {
    if (const auto sc = srv.add_rate_of_change_alarm(a); sc.is_bad()) {
      error = fmt::format("rate-of-change alarm {} (input {}) could not be added: {}", a.id.to_string(),
                          a.input.to_string(), sc.to_string());
      return false;
    }
  }
  for (const auto& a : p.trip_alarms) {
    if (const auto sc = srv.add_trip_alarm(a); sc.is_bad()) {
      error = fmt::format("trip alarm {} (input {}) could not be added: {}", a.id.to_string(), a.input.to_string(),
                          sc.to_string());
      return false;
    }
  }
  for (const auto& a : p.discrepancy_alarms) {
    if (const auto sc = srv.add_discrepancy_alarm(a); sc.is_bad()) {
      error = fmt::format("discrepancy alarm {} (input {}, target {}) could not be added: {}", a.id.to_string(),
                          a.input.to_string(), a.target.to_string(), sc.to_string());
      return false;
    }
  }
  // [[files]] (docs/files.md): their parents may be nodes of the plant or of its NodeSets.
  for (const auto& f : p.files) {
    if (const auto sc = srv.add_file(f); sc.is_bad()) {
      error = fmt::format("file {} ({}) could not be added: {}", f.id.to_string(), f.path, sc.to_string());
      return false;
    }
  }
  return true;
}

// [[methods]]: built-in handlers, inline on the server's thread. They only queue a value batch,
// which reaches the host before the Call's answer (both are messages to it from this thread), so
// a client reading after the Call sees the new values.
bool bind_methods(server& srv, const plant& p, std::string& error) {
  for (const auto& m : p.methods) {
    std::vector<value_handle> handles;
    for (const auto& h : srv.resolve(m.targets)) {
      if (!h) {
        error = fmt::format("method {}: a target could not be resolved: {}", m.id.to_string(), h.error().to_string());
        return false;
      }
      handles.push_back(*h);
    }
    auto handler = [&srv, m, handles = std::move(handles)](const method_call& call, call_reply reply) {
      const auto& values = m.handler == "write" ? call.inputs : m.values;  // inputs checked against InputArguments
      std::vector<value_update> batch(handles.size());
      for (std::size_t i = 0; i < handles.size(); ++i) batch[i] = value_update{handles[i], values[i], {}, {}};
      const auto sc = srv.write_values(batch);
      reply(sc.is_good() ? sc : ua::status::bad_resource_unavailable);
    };
    if (const auto sc = srv.on_call(m.id, std::move(handler)); sc.is_bad()) {
      error = fmt::format("method {} could not be bound: {}", m.id.to_string(), sc.to_string());
      return false;
    }
  }
  return true;
}

}  // namespace

struct plant_runner::impl {
  std::unique_ptr<caf::actor_system_config> cfg;
  std::unique_ptr<caf::actor_system> system;
  std::unique_ptr<runtime> rt;
  uactor::server* srv = nullptr;
  std::vector<caf::actor> writers;
  std::vector<std::unique_ptr<app::mirror>> mirrors;  // closed before the server stops
  std::shared_ptr<writer_counters> writers_counted = std::make_shared<writer_counters>();
};

std::uint64_t plant_runner::writer_cycles() const noexcept { return impl_->writers_counted->cycles.load(std::memory_order_relaxed); }
std::uint64_t plant_runner::writer_wait_ns() const noexcept { return impl_->writers_counted->wait_ns.load(std::memory_order_relaxed); }
std::uint64_t plant_runner::writer_waits() const noexcept { return impl_->writers_counted->waits.load(std::memory_order_relaxed); }

plant_runner::plant_runner() : impl_(std::make_unique<impl>()) {}
plant_runner::~plant_runner() { stop(); }

server* plant_runner::server() const noexcept { return impl_->srv; }

bool plant_runner::start(const plant& p, std::string& error) {
  auto& m = *impl_;
  m.cfg = std::make_unique<caf::actor_system_config>();
  m.cfg->load<caf::io::middleman>();
  m.cfg->set("scheduler.max-threads", p.threads);  // docs/caf-0.17-measured.md: 2 on 2 cores
  actors::tune_io(*m.cfg);                         // docs/decisions/0013
  m.system = std::make_unique<caf::actor_system>(*m.cfg);
  m.rt = std::make_unique<runtime>(*m.system);
  const auto fail = [&](std::string why) {
    error = std::move(why);
    stop();
    return false;
  };
  // One server, every endpoint of the file a listener of it (docs/decisions/0033).
  auto plan = p.server;
  plan.open_at_start = false;  // opened at the end, with every node, script and writer in place
  auto s = m.rt->start_server(plan);
  if (!s) {
    std::string where;
    for (const auto& e : plan.resolved_endpoints())
      where += (where.empty() ? "" : ", ") + e.listen_address + ":" + std::to_string(e.port);
    return fail(fmt::format("cannot serve on {}: {}", where, s.error().to_string()));
  }
  uactor::server& srv = **s;
  for (std::size_t i = 0; i < p.namespaces.size(); ++i) {
    const auto index = srv.register_namespace(p.namespaces[i]);
    if (index != i + 2)
      return fail(fmt::format("namespaces[{}]: {} got index {}, the file's NodeIds expect {}", i, p.namespaces[i], index, i + 2));
  }
  // NodeSet files first (in order), before the server opens: the file's own nodes may hang below
  // their nodes, and no client sees a half-loaded address space.
  for (const auto& file : p.nodesets) {
    if (!load_nodeset(srv, file, error)) return fail(error);
  }
  if (!p.nodes.empty()) {
    const auto results = srv.apply(p.nodes);
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (results[i].is_good()) continue;
      // What the checker could not see (it applies the same nodes to the same namespaces): still
      // named at its line and column.
      const auto why = fmt::format("the node {} could not be added: {}", node_change_id(p.nodes[i]), results[i].to_string());
      if (i >= p.node_places.size()) return fail(why);
      auto at = p.node_places[i];
      at.message = why;
      return fail(at.to_string());
    }
  }
  // Alarms on the nodes above, before scripts and writers change their inputs (docs/events.md).
  if (!bind_methods(srv, p, error) || !add_alarms(srv, p, error)) return fail(error);
  // Scripts last: their inputs and outputs are the nodes above (docs/scripts.md).
  if (!p.scripts.scripts.empty()) {
    const auto report = srv.add_scripts(p.scripts);
    if (!report.ok()) {
      std::string why = "the scripts could not start:";
      for (const auto& e : report.errors) why += "\n  " + e;
      return fail(why);
    }
  }
  m.srv = &srv;
  for (const auto& w : p.writers) {
    std::vector<value_handle> handles;
    for (const auto& h : srv.resolve(w.targets)) {
      if (!h) return fail(fmt::format("a writer's target could not be resolved: {}", h.error().to_string()));
      handles.push_back(*h);
    }
    m.writers.push_back(p.writer_placement == "detached"
                            ? m.system->spawn<caf::detached>(plant_writer, w, &srv, std::move(handles), m.writers_counted)
                            : m.system->spawn(plant_writer, w, &srv, std::move(handles), m.writers_counted));
  }
  // Mirrors (docs/gateway.md) before the server opens: a client sees the mirrored nodes from its
  // first request. A remote that cannot be reached refuses the start (docs/decisions/0028).
  for (const auto& spec : p.mirrors) {
    auto mirror = app::mirror::start(*m.rt, srv, spec, error);
    if (!mirror) return fail(error);
    m.mirrors.push_back(std::move(*mirror));
  }
  // Roles and permissions once every node is in (docs/security.md "Roles and permissions"): a rule
  // whose node is still missing refuses the start, before any client connects.
  if (!p.server.roles.empty() || !p.server.permissions.empty()) {
    if (const auto errors = srv.set_access(p.server); !errors.empty()) {
      std::string why = "the roles and permissions could not be set:";
      for (const auto& e : errors) why += "\n  " + e;
      return fail(why);
    }
  }
  if (const auto sc = srv.open(); sc.is_bad())
    return fail(fmt::format("cannot accept connections on port {}: {}", srv.port(), sc.to_string()));
  return true;
}

void plant_runner::stop() {
  auto& m = *impl_;
  // ServiceLevel 0 and the shutdown delay while the writers still write (docs/decisions/0041).
  if (m.srv) m.srv->drain();
  // The writers hold the server by pointer and the runtime destroys it in stop(): they are gone
  // before it (a detached writer in the middle of a tick wrote into a freed server: a SIGSEGV at
  // the end of a config test under load).
  if (!m.writers.empty()) {
    for (auto& w : m.writers) caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
    caf::scoped_actor self{*m.system};
    self->wait_for(m.writers);
    m.writers.clear();
  }
  m.mirrors.clear();  // each closes its client, which lives in the runtime's system
  if (m.rt) m.rt->stop();
  m.srv = nullptr;
  if (m.system) m.system->await_all_actors_done();
  m.rt.reset();
  m.system.reset();
  m.cfg.reset();
}

}  // namespace uactor::config
