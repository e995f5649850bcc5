#include "runtime/http/prometheus_text.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <deque>
#include <functional>
#include <iterator>
#include <string_view>

#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

namespace uactor::app {

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

class families {
public:
  // The family is filled through the reference afterwards, also after later add() calls (the
  // per-actor families below): a deque keeps it where it is, a vector would move it.
  MetricFamily& add(std::string name, std::string help, MetricType type) {
    return out_.emplace_back(MetricFamily{std::move(name), std::move(help), type, {}});
  }
  // One sample per endpoint of one field of server_metrics.
  void per_endpoint(const std::vector<endpoint_sample>& eps, std::string name, std::string help, MetricType type,
                    std::uint64_t server_metrics::*field) {
    auto& f = add(std::move(name), std::move(help), type);
    for (const auto& e : eps) f.metric.push_back(sample(type, static_cast<double>(e.metrics.*field), {{"endpoint", e.endpoint}}));
  }
  static ClientMetric sample(MetricType type, double v, std::vector<ClientMetric::Label> labels) {
    ClientMetric m;
    m.label = std::move(labels);
    if (type == MetricType::Counter) m.counter.value = v;
    else m.gauge.value = v;
    return m;
  }
  std::vector<MetricFamily> all() { return {std::make_move_iterator(out_.begin()), std::make_move_iterator(out_.end())}; }

private:
  std::deque<MetricFamily> out_;
};

}  // namespace

process_sample sample_process() {
  process_sample p;
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) == 0)
    p.cpu_seconds = static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
                    static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    unsigned long size = 0, resident = 0;
    if (std::fscanf(f, "%lu %lu", &size, &resident) == 2)
      p.resident_bytes = static_cast<std::uint64_t>(resident) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
    std::fclose(f);
  }
  return p;
}

std::string prometheus_text(const std::vector<endpoint_sample>& eps, const process_sample& process) {
  families f;
  using C = MetricType;
  f.per_endpoint(eps, "uactor_connections_accepted_total", "opc.tcp connections accepted", C::Counter,
                 &server_metrics::connections_accepted);
  f.per_endpoint(eps, "uactor_connections_open", "opc.tcp connections open now", C::Gauge, &server_metrics::connections_open);
  // Each endpoint (listener) of a server, labelled with its own URL (docs/decisions/0033).
  // `scheme`: only the endpoints whose URL starts with it (empty: all).
  const auto per_listener = [&f, &eps](std::string name, std::string help, MetricType type,
                                       std::uint64_t endpoint_metrics::*field, std::string_view scheme = {}) {
    auto& fam = f.add(std::move(name), std::move(help), type);
    for (const auto& e : eps)
      for (std::size_t i = 0; i < e.endpoint_urls.size(); ++i) {
        if (!e.endpoint_urls[i].starts_with(scheme)) continue;
        const endpoint_metrics m = i < e.metrics.endpoints.size() ? e.metrics.endpoints[i] : endpoint_metrics{};
        fam.metric.push_back(families::sample(type, static_cast<double>(m.*field), {{"endpoint", e.endpoint_urls[i]}}));
      }
  };
  per_listener("uactor_endpoint_connections_accepted_total", "opc.tcp connections accepted by this endpoint", C::Counter,
               &endpoint_metrics::connections_accepted);
  per_listener("uactor_endpoint_connections_open", "opc.tcp connections open now on this endpoint", C::Gauge,
               &endpoint_metrics::connections_open);
  // The opc.wss doors' refusals before a connection is handed over (docs/wss.md): their endpoints only.
  per_listener("uactor_wss_tls_failures_total", "opc.wss: TLS handshakes failed or not done in time", C::Counter,
               &endpoint_metrics::wss_tls_failures, "opc.wss:");
  per_listener("uactor_wss_upgrades_refused_total",
               "opc.wss: connections without a good WebSocket upgrade (not opcua+uacp, an Origin not allowed, timed out)",
               C::Counter, &endpoint_metrics::wss_upgrades_refused, "opc.wss:");
  per_listener("uactor_wss_busy_refusals_total", "opc.wss: connections closed at once, wss_max_pending_handshakes under way",
               C::Counter, &endpoint_metrics::wss_busy_refusals, "opc.wss:");
  // Reverse connect (docs/reverse-connect.md): per target, labelled with the client's URL.
  const auto per_target = [&f, &eps](std::string name, std::string help, MetricType type,
                                     std::uint64_t reverse_connect_metrics::*field) {
    auto& fam = f.add(std::move(name), std::move(help), type);
    for (const auto& e : eps)
      for (const auto& r : e.metrics.reverse_connects)
        fam.metric.push_back(families::sample(type, static_cast<double>(r.*field), {{"endpoint", e.endpoint}, {"client", r.client_url}}));
  };
  per_target("uactor_reverse_connect_dials_total", "reverse connect: TCP connects to the client tried", C::Counter,
             &reverse_connect_metrics::dial_attempts);
  per_target("uactor_reverse_connect_connections_total", "reverse connect: connections made and ReverseHello sent",
             C::Counter, &reverse_connect_metrics::connections);
  per_target("uactor_reverse_connect_failures_total", "reverse connect: connects refused or failed", C::Counter,
             &reverse_connect_metrics::failures);
  per_target("uactor_reverse_connect_open", "reverse connect: connections to the client open now", C::Gauge,
             &reverse_connect_metrics::connections_open);
  // Certificate expiry (docs/security.md "Certificate expiry"): the server's own and its trust list's.
  {
    auto& fam = f.add("uactor_certificate_days_left", "days until the certificate expires (negative: expired)", C::Gauge);
    for (const auto& e : eps)
      for (const auto& c : e.metrics.certificates)
        fam.metric.push_back(families::sample(C::Gauge, c.days_left,
                                              {{"endpoint", e.endpoint}, {"group", c.group}, {"subject", c.subject},
                                               {"thumbprint", c.thumbprint}}));
  }
  f.per_endpoint(eps, "uactor_received_bytes_total", "bytes received on opc.tcp connections", C::Counter,
                 &server_metrics::bytes_received);
  f.per_endpoint(eps, "uactor_sent_bytes_total", "bytes sent on opc.tcp connections", C::Counter, &server_metrics::bytes_sent);
  f.per_endpoint(eps, "uactor_secure_channel_renewals_total", "OpenSecureChannel renewals", C::Counter,
                 &server_metrics::channel_renewals);
  f.per_endpoint(eps, "uactor_certificates_rejected_total", "client certificates refused by the trust checks", C::Counter,
                 &server_metrics::certificates_rejected);
  f.per_endpoint(eps, "uactor_sessions", "sessions (as of the last housekeeping tick)", C::Gauge, &server_metrics::sessions);
  f.per_endpoint(eps, "uactor_subscriptions", "subscriptions (as of the last housekeeping tick)", C::Gauge,
                 &server_metrics::subscriptions);
  f.per_endpoint(eps, "uactor_monitored_items", "monitored items (as of the last housekeeping tick)", C::Gauge,
                 &server_metrics::monitored_items);
  f.per_endpoint(eps, "uactor_publish_cycles_total", "ticks of the publishing clock", C::Counter,
                 &server_metrics::publish_cycles);
  // Part 9 §8.2: the Server's AlarmMetrics (docs/events.md "Alarm groups and metrics").
  f.per_endpoint(eps, "uactor_alarms_raised_total", "alarms that went active", C::Counter, &server_metrics::alarms_raised);
  f.per_endpoint(eps, "uactor_alarms_chattering_total",
                 "activations of an alarm active more than server.alarm_chattering_count times within the window",
                 C::Counter, &server_metrics::alarms_chattering);
  f.per_endpoint(eps, "uactor_alarm_rate", "alarms in the last 10 minutes (the Server's CurrentAlarmRate)", C::Gauge,
                 &server_metrics::alarm_rate);
  f.per_endpoint(eps, "uactor_alarm_rate_max", "the most alarms in 10 minutes since the start or the last Reset",
                 C::Gauge, &server_metrics::alarm_rate_max);
  f.per_endpoint(eps, "uactor_session_channel_moves_total", "sessions moved to another secure channel by ActivateSession",
                 C::Counter, &server_metrics::session_moves);
  f.per_endpoint(eps, "uactor_session_channel_moves_refused_total",
                 "ActivateSessions from another secure channel refused (another certificate or identity)", C::Counter,
                 &server_metrics::session_moves_refused);
  // The login guard (docs/security.md "Login attempts").
  {
    auto& refused = f.add("uactor_login_refusals_total",
                          "ActivateSessions refused by the login guard without checking their token, by reason", C::Counter);
    for (const auto& e : eps) {
      refused.metric.push_back(families::sample(C::Counter, static_cast<double>(e.metrics.login_refused_backoff),
                                                {{"endpoint", e.endpoint}, {"reason", "backoff"}}));
      refused.metric.push_back(families::sample(C::Counter, static_cast<double>(e.metrics.login_refused_user_locked),
                                                {{"endpoint", e.endpoint}, {"reason", "user_locked"}}));
      refused.metric.push_back(families::sample(C::Counter, static_cast<double>(e.metrics.login_refused_address_locked),
                                                {{"endpoint", e.endpoint}, {"reason", "address_locked"}}));
    }
  }
  f.per_endpoint(eps, "uactor_login_failures_total",
                 "ActivateSessions whose token was checked and wrong (a wrong password, an unknown user, a user certificate refused)",
                 C::Counter, &server_metrics::login_failures);
  f.per_endpoint(eps, "uactor_login_lockouts_total", "lockouts of a user name or a source address started", C::Counter,
                 &server_metrics::login_lockouts);
  f.per_endpoint(eps, "uactor_application_values_total", "values applied from the application (write_values)", C::Counter,
                 &server_metrics::values_applied);
  // The historian (docs/history.md): its queue, what it wrote, what was dropped.
  f.per_endpoint(eps, "uactor_history_queue_depth", "batches handed to the historian and not yet written", C::Gauge,
                 &server_metrics::history_queue_depth);
  f.per_endpoint(eps, "uactor_history_values_written_total", "values appended to the history store", C::Counter,
                 &server_metrics::history_values_written);
  f.per_endpoint(eps, "uactor_history_values_dropped_total", "values not recorded: the historian's queue was full",
                 C::Counter, &server_metrics::history_values_dropped);
  f.per_endpoint(eps, "uactor_history_batches_written_total", "batches (transactions) written to the history store",
                 C::Counter, &server_metrics::history_batches_written);
  f.per_endpoint(eps, "uactor_history_write_errors_total", "batches the history store refused (their values are lost)",
                 C::Counter, &server_metrics::history_write_errors);
  f.per_endpoint(eps, "uactor_history_spool_values", "values waiting in the historian's on-disk spool for the store",
                 C::Gauge, &server_metrics::history_spool_values);
  f.per_endpoint(eps, "uactor_history_spool_bytes", "bytes of the historian's on-disk spool waiting for the store",
                 C::Gauge, &server_metrics::history_spool_bytes);
  // PubSub (docs/pubsub.md): what the [pubsub] connections published and received.
  f.per_endpoint(eps, "uactor_pubsub_messages_sent_total", "PubSub NetworkMessages handed to the broker", C::Counter,
                 &server_metrics::pubsub_messages_sent);
  f.per_endpoint(eps, "uactor_pubsub_values_sent_total", "field values in the PubSub NetworkMessages sent", C::Counter,
                 &server_metrics::pubsub_values_sent);
  f.per_endpoint(eps, "uactor_pubsub_messages_dropped_total",
                 "PubSub NetworkMessages dropped: the queue while the broker was away was full, or the message was too large",
                 C::Counter, &server_metrics::pubsub_messages_dropped);
  f.per_endpoint(eps, "uactor_pubsub_reconnects_total", "PubSub connections to their broker made again after a loss",
                 C::Counter, &server_metrics::pubsub_reconnects);
  f.per_endpoint(eps, "uactor_pubsub_queue_depth", "PubSub NetworkMessages waiting for the broker", C::Gauge,
                 &server_metrics::pubsub_queue_depth);
  f.per_endpoint(eps, "uactor_pubsub_connections_up", "PubSub connections connected to their broker", C::Gauge,
                 &server_metrics::pubsub_connections_up);
  f.per_endpoint(eps, "uactor_pubsub_messages_received_total", "DataSetMessages taken by the DataSetReaders", C::Counter,
                 &server_metrics::pubsub_messages_received);
  f.per_endpoint(eps, "uactor_pubsub_values_received_total", "values written to TargetVariables", C::Counter,
                 &server_metrics::pubsub_values_received);
  f.per_endpoint(eps, "uactor_pubsub_decode_errors_total", "received PubSub messages that did not decode", C::Counter,
                 &server_metrics::pubsub_decode_errors);
  f.per_endpoint(eps, "uactor_pubsub_reader_timeouts_total", "DataSetReaders past their MessageReceiveTimeout", C::Counter,
                 &server_metrics::pubsub_reader_timeouts);
  f.per_endpoint(eps, "uactor_pubsub_sequence_gaps_total", "DataSetMessages missed, by SequenceNumber", C::Counter,
                 &server_metrics::pubsub_sequence_gaps);
  f.per_endpoint(eps, "uactor_pubsub_chunks_sent_total", "UADP chunk NetworkMessages sent (in the messages sent too)",
                 C::Counter, &server_metrics::pubsub_chunks_sent);
  f.per_endpoint(eps, "uactor_pubsub_chunked_received_total", "UADP DataSetMessages reassembled from chunks", C::Counter,
                 &server_metrics::pubsub_chunked_received);
  f.per_endpoint(eps, "uactor_pubsub_chunks_refused_total", "UADP chunks refused (in the decode errors too)", C::Counter,
                 &server_metrics::pubsub_chunks_refused);
  f.per_endpoint(eps, "uactor_pubsub_chunked_dropped_total",
                 "UADP chunked DataSetMessages dropped incomplete (timed out, or pushed out by newer ones)", C::Counter,
                 &server_metrics::pubsub_chunked_dropped);
  {
    auto& seconds = f.add("uactor_history_write_seconds_total", "time spent in the history store's appends", C::Counter);
    auto& longest = f.add("uactor_history_write_max_seconds", "the longest append to the history store since the start", C::Gauge);
    for (const auto& e : eps) {
      seconds.metric.push_back(families::sample(C::Counter, static_cast<double>(e.metrics.history_write_ns) / 1e9, {{"endpoint", e.endpoint}}));
      longest.metric.push_back(families::sample(C::Gauge, static_cast<double>(e.metrics.history_write_max_ns) / 1e9, {{"endpoint", e.endpoint}}));
    }
  }

  auto& requests = f.add("uactor_requests_total", "service requests received", C::Counter);
  auto& results = f.add("uactor_service_results_total", "responses whose ServiceResult was not Good", C::Counter);
  for (const auto& e : eps) {
    for (const auto& s : e.metrics.services) {
      requests.metric.push_back(families::sample(C::Counter, static_cast<double>(s.requests),
                                                 {{"endpoint", e.endpoint}, {"service", s.service}}));
      for (const auto& [status, n] : s.bad_results)
        results.metric.push_back(families::sample(
            C::Counter, static_cast<double>(n),
            {{"endpoint", e.endpoint}, {"service", s.service}, {"status", std::string(status.name())}}));
    }
  }

  // Per actor path (docs/architecture.md, section 2): the session host's mailbox and how long a batch of requests waited
  // in it (with session_host = "multiplexer" the connections answer in place: no waits to count);
  // the connection brokers summed (their mailboxes, the answered batches' waits); the writers' ticks
  // (how late they ran). docs/decisions/0019 says why not the crypto workers and script shards.
  auto& depth = f.add("uactor_actor_mailbox_depth", "messages taken into the actor's queue and not yet handled (sampled each second)", C::Gauge);
  auto& waits = f.add("uactor_actor_message_wait_seconds", "how long a message waited: a request batch for the session host, an answered batch for its connection, a writer's tick past its due time", C::Summary);
  const auto summary = [](std::uint64_t count, std::uint64_t ns, std::vector<ClientMetric::Label> labels) {
    ClientMetric w;
    w.label = std::move(labels);
    w.summary.sample_count = count;
    w.summary.sample_sum = static_cast<double>(ns) / 1e9;
    return w;
  };
  auto& wait_max = f.add("uactor_actor_message_wait_max_seconds", "the longest wait of the last second", C::Gauge);
  for (const auto& e : eps) {
    const std::vector<ClientMetric::Label> labels{{"actor", "session_host"}, {"endpoint", e.endpoint}};
    depth.metric.push_back(families::sample(C::Gauge, static_cast<double>(e.metrics.host_mailbox_depth), labels));
    waits.metric.push_back(summary(e.metrics.host_waits, e.metrics.host_wait_ns, labels));
    wait_max.metric.push_back(families::sample(C::Gauge, static_cast<double>(e.metrics.host_wait_max_ns) / 1e9, labels));
    const std::vector<ClientMetric::Label> brokers{{"actor", "connections"}, {"endpoint", e.endpoint}};
    depth.metric.push_back(families::sample(C::Gauge, static_cast<double>(e.metrics.connection_mailbox_depth), brokers));
    waits.metric.push_back(summary(e.metrics.connection_waits, e.metrics.connection_wait_ns, brokers));
  }
  waits.metric.push_back(summary(process.writer_waits, process.writer_wait_ns, {{"actor", "writers"}}));

  // Scripts (docs/scripts.md), summed over the endpoint's script plans.
  const auto per_scripts = [&](std::string name, std::string help, MetricType type, auto field, double scale = 1) {
    auto& fam = f.add(std::move(name), std::move(help), type);
    for (const auto& e : eps)
      fam.metric.push_back(families::sample(type, static_cast<double>(e.scripts.*field) * scale, {{"endpoint", e.endpoint}}));
  };
  per_scripts("uactor_script_evaluations_total", "script runs completed", C::Counter, &script_metrics::evaluations);
  per_scripts("uactor_script_errors_total", "script runs that failed (script errors and limits)", C::Counter,
              &script_metrics::errors);
  per_scripts("uactor_script_timeouts_total", "script runs past their soft deadline", C::Counter, &script_metrics::timeouts);
  per_scripts("uactor_script_kills_total", "worker processes killed for a run past its hard deadline", C::Counter,
              &script_metrics::kills);
  per_scripts("uactor_script_quarantines_total", "scripts quarantined after their strikes", C::Counter,
              &script_metrics::quarantines);
  per_scripts("uactor_script_victims_total", "script runs lost with a worker and run again", C::Counter,
              &script_metrics::victims);
  per_scripts("uactor_script_worker_deaths_total", "worker processes that ended", C::Counter, &script_metrics::worker_deaths);
  per_scripts("uactor_script_queue_depth", "script runs waiting for a worker", C::Gauge, &script_metrics::queue_depth);
  per_scripts("uactor_script_workers_up", "worker processes serving", C::Gauge, &script_metrics::workers_up);
  per_scripts("uactor_script_evaluation_seconds_total", "summed script run time", C::Counter, &script_metrics::eval_ns, 1e-9);
  // Shadow mode (docs/decisions/0043): 0 unless a script set runs as runner = "shadow".
  per_scripts("uactor_script_shadow_compared_total", "script runs compared with their out-of-process shadow", C::Counter,
              &script_metrics::shadow_compared);
  per_scripts("uactor_script_shadow_mismatches_total", "script runs whose shadow gave another value or status",
              C::Counter, &script_metrics::shadow_mismatches);
  per_scripts("uactor_script_shadow_timeouts_total", "script runs not compared: the shadow or the run passed a deadline",
              C::Counter, &script_metrics::shadow_timeouts);
  per_scripts("uactor_script_shadow_unavailable_total",
              "script runs the shadow did not run (lost with a worker, or beyond its queue)",
              C::Counter, &script_metrics::shadow_unavailable);
  // The same per worker shard (out of process).
  const auto per_shard = [&](std::string name, std::string help, MetricType type, auto field, double scale = 1) {
    auto& fam = f.add(std::move(name), std::move(help), type);
    for (const auto& e : eps)
      for (std::size_t w = 0; w < e.scripts.shards.size(); ++w)
        fam.metric.push_back(families::sample(type, static_cast<double>(e.scripts.shards[w].*field) * scale,
                                              {{"endpoint", e.endpoint}, {"shard", std::to_string(w)}}));
  };
  per_shard("uactor_script_shard_evaluations_total", "script runs completed by the shard", C::Counter,
            &script_shard_metrics::evaluations);
  per_shard("uactor_script_shard_errors_total", "script runs of the shard that failed", C::Counter,
            &script_shard_metrics::errors);
  per_shard("uactor_script_shard_timeouts_total", "runs of the shard past their soft deadline", C::Counter,
            &script_shard_metrics::timeouts);
  per_shard("uactor_script_shard_kills_total", "times the shard's worker was killed for a run past its hard deadline",
            C::Counter, &script_shard_metrics::kills);
  per_shard("uactor_script_shard_queue_depth", "script runs waiting for the shard", C::Gauge,
            &script_shard_metrics::queue_depth);
  per_shard("uactor_script_shard_evaluation_seconds_total", "summed run time on the shard", C::Counter,
            &script_shard_metrics::eval_ns, 1e-9);

  f.add("uactor_writer_cycles_total", "ticks of the plant's [[writers]]", C::Counter)
      .metric.push_back(families::sample(C::Counter, static_cast<double>(process.writer_cycles), {}));
  f.add("process_cpu_seconds_total", "user and system CPU time", C::Counter)
      .metric.push_back(families::sample(C::Counter, process.cpu_seconds, {}));
  f.add("process_resident_memory_bytes", "resident set size", C::Gauge)
      .metric.push_back(families::sample(C::Gauge, static_cast<double>(process.resident_bytes), {}));
  return prometheus::TextSerializer().Serialize(f.all());
}

}  // namespace uactor::app
