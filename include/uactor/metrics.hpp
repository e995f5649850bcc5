// What a running server has counted (server::metrics(); `uactor run` serves it as /metrics,
// docs/configuration.md "Metrics"). Plain values summed at the moment of the call: counters only
// grow (from the server's start), gauges are the state now.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "uactor/nodes.hpp"

namespace uactor {

struct service_metrics {
  std::string service;          // "Read", "CreateSession", ... (the request type without "Request")
  std::uint64_t requests = 0;   // requests received
  // Responses whose ServiceResult was not Good (a ServiceFault, or a service that failed whole),
  // by status. Results of responses answered later (Publish, application callbacks) are not seen.
  std::vector<std::pair<status_code, std::uint64_t>> bad_results;
};

// The connections of one endpoint (server::endpoint_urls()' order).
struct endpoint_metrics {
  std::uint64_t connections_accepted = 0;  // counter
  std::uint64_t connections_open = 0;      // gauge
  // An opc.wss endpoint's door (docs/wss.md), before a connection is accepted: counters, 0 for opc.tcp.
  std::uint64_t wss_tls_failures = 0;      // TLS handshakes failed or not done in time
  std::uint64_t wss_upgrades_refused = 0;  // no (good) upgrade request: not WebSocket, no opcua+uacp, an Origin not allowed, timed out
  std::uint64_t wss_busy_refusals = 0;     // TCP connections closed at once: wss_max_pending_handshakes under way
};

// One reverse-connect target (Part 6 §7.1.3: the server dials the client; docs/reverse-connect.md).
struct reverse_connect_metrics {
  std::string client_url;           // the client's listener, as configured
  std::uint64_t dial_attempts = 0;  // counter: TCP connects tried
  std::uint64_t connections = 0;    // counter: connected and ReverseHello sent
  std::uint64_t failures = 0;       // counter: connects refused, timed out, or the RHE not sent
  std::uint64_t connections_open = 0;  // gauge
};

// A certificate of the server's own or of its trust list and the days until it expires
// (docs/security.md "Certificate expiry"), as of the last look (hourly).
struct certificate_expiry_metrics {
  std::string group;       // "own", "trusted", "issuer"
  std::string subject;     // "CN=uactor, O=uactor"
  std::string thumbprint;  // SHA-1, upper-case hex
  double days_left = 0;    // negative: expired
};

struct server_metrics {
  // Connections (the opc.tcp listener) and their secure channels.
  std::uint64_t connections_accepted = 0;  // counter
  std::uint64_t connections_open = 0;      // gauge
  std::uint64_t bytes_received = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t channel_renewals = 0;       // OpenSecureChannel Renew (Part 4 §5.5.2)
  std::uint64_t certificates_rejected = 0;  // client certificates refused by the trust checks
  // The session host (gauges as of its last housekeeping tick, every second or so).
  std::uint64_t sessions = 0;
  std::uint64_t subscriptions = 0;
  std::uint64_t monitored_items = 0;
  std::uint64_t publish_cycles = 0;      // ticks of the publishing clock (counter)
  // Alarms (Part 9 §8.2, the Server's AlarmMetrics; docs/events.md "Alarm groups and metrics"):
  // alarms that went active and activations of a chattering alarm since the start (counters), alarms
  // in the last 10 minutes and the most seen so (gauges; since the last Reset).
  std::uint64_t alarms_raised = 0;
  std::uint64_t alarms_chattering = 0;
  std::uint64_t alarm_rate = 0;
  std::uint64_t alarm_rate_max = 0;
  // ActivateSession from another secure channel (Part 4 §5.7.3.1), counters: sessions moved to
  // the new channel, and attempts refused (another certificate or identity: a takeover attempt).
  std::uint64_t session_moves = 0;
  std::uint64_t session_moves_refused = 0;
  // Logins (ActivateSession with a UserName or X509 token; docs/security.md "Login attempts"),
  // counters: refused without checking the token (the user name in its backoff, the user name
  // locked out, the source address locked out), tokens checked and wrong (a wrong password, an
  // unknown user, a user certificate refused), and lockouts started (user names and addresses).
  std::uint64_t login_refused_backoff = 0;
  std::uint64_t login_refused_user_locked = 0;
  std::uint64_t login_refused_address_locked = 0;
  std::uint64_t login_failures = 0;
  std::uint64_t login_lockouts = 0;
  std::uint64_t values_applied = 0;      // values the application pushed (write_values), counter
  std::uint64_t host_wait_ns = 0;        // summed: from a batch's send by its connection to its start at the host
  std::uint64_t host_waits = 0;          // batches measured
  std::uint64_t host_wait_max_ns = 0;    // the longest wait since the last housekeeping tick
  std::uint64_t host_mailbox_depth = 0;  // gauge, sampled at the housekeeping tick
  // The connection brokers, summed over the open ones (the waits also over the closed ones):
  // mailboxes sampled at the listener's housekeeping tick, and the wait of an answered batch from
  // the host's send to the broker's start on it (session host on the scheduler only: with the
  // multiplexer the answer is written in place).
  std::uint64_t connection_mailbox_depth = 0;  // gauge
  std::uint64_t connection_wait_ns = 0;
  std::uint64_t connection_waits = 0;
  // The historian (docs/history.md): its queue (gauge, batches), values written to the store,
  // values dropped because the queue was full, batches and the time their writes took.
  std::uint64_t history_queue_depth = 0;
  std::uint64_t history_values_written = 0;
  std::uint64_t history_values_dropped = 0;
  std::uint64_t history_batches_written = 0;
  std::uint64_t history_write_ns = 0;      // summed over the batches
  std::uint64_t history_write_max_ns = 0;  // the longest batch write since the start
  std::uint64_t history_write_errors = 0;  // batches the store refused
  std::uint64_t history_spool_values = 0;  // gauge: values waiting in the on-disk spool
  std::uint64_t history_spool_bytes = 0;   // gauge: the spool's bytes waiting
  // PubSub (docs/pubsub.md), summed over the [pubsub] connections: NetworkMessages and values
  // published, messages dropped (the queue while the broker was away, or too large), broker
  // reconnects, the queue (gauge); received DataSetMessages, values written to TargetVariables,
  // messages that did not decode, MessageReceiveTimeouts, SequenceNumber gaps.
  std::uint64_t pubsub_messages_sent = 0;
  std::uint64_t pubsub_values_sent = 0;
  std::uint64_t pubsub_messages_dropped = 0;
  std::uint64_t pubsub_reconnects = 0;
  std::uint64_t pubsub_queue_depth = 0;
  std::uint64_t pubsub_connections_up = 0;  // gauge: connections to their broker now
  std::uint64_t pubsub_messages_received = 0;
  std::uint64_t pubsub_values_received = 0;
  std::uint64_t pubsub_decode_errors = 0;
  std::uint64_t pubsub_reader_timeouts = 0;
  std::uint64_t pubsub_sequence_gaps = 0;
  // UADP chunks (Part 14 §7.2.4.4.4): chunk NetworkMessages sent; DataSetMessages reassembled from
  // chunks; chunks refused (also in pubsub_decode_errors); incomplete ones dropped (timed out or pushed out).
  std::uint64_t pubsub_chunks_sent = 0;
  std::uint64_t pubsub_chunked_received = 0;
  std::uint64_t pubsub_chunks_refused = 0;
  std::uint64_t pubsub_chunked_dropped = 0;
  std::vector<service_metrics> services;  // the services asked for at least once
  // Per endpoint, in server::endpoint_urls()' order, up to the last that accepted a connection
  // (the sums are connections_accepted and connections_open).
  std::vector<endpoint_metrics> endpoints;
  std::vector<reverse_connect_metrics> reverse_connects;  // one per target, in configuration order
  std::vector<certificate_expiry_metrics> certificates;   // the server's own and its trust list's
};

}  // namespace uactor
