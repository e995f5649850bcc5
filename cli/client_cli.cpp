// The client subcommands of the `uactor` CLI: their arguments and what every command shares
// (finishing with an exit code). Connecting and `endpoints`: client_cli_connect.cpp; read, write,
// browse, call: client_cli_services.cpp; subscribe: client_cli_subscribe.cpp; history:
// client_cli_history.cpp; alarms: client_cli_alarms.cpp; the text forms of
// values: client_cli_values.cpp (parsing) and client_cli_format.cpp (printing).
#include "cli/client_cli.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <vector>

#include "cli/client_cli_internal.hpp"

namespace uactor::app {

namespace client_cli {

[[noreturn]] void finish(int code) { throw CLI::RuntimeError(code); }

[[noreturn]] void usage(const std::string& message) {
  std::fprintf(stderr, "uactor: %s\n", message.c_str());
  finish(exit_usage);
}

ua::node_id node_or_exit(const std::string& text) {
  auto n = ua::parse_node_id(text);
  if (!n) usage("not a NodeId: " + text + " (e.g. ns=1;s=the.answer or i=85)");
  return *n;
}

namespace {

constexpr const char* exit_codes_footer =
    "Exit status: 0 every operation Good, 1 an item or the call not Good, 2 usage error, 3 no connection\n"
    "(refused, untrusted server certificate, lost, timed out). docs/cli.md has the details.";

void add_common(CLI::App* cmd, common_args& a) {
  cmd->add_option("endpoint", a.endpoint, "server endpoint, e.g. opc.tcp://localhost:4840");
  cmd->add_option("--timeout", a.timeout_ms, "connect and request timeout in ms");
  cmd->add_option("--security", a.security, "none (default), sign or encrypt (SignAndEncrypt)")
      ->check(CLI::IsMember({"none", "sign", "encrypt"}));
  cmd->add_option("--policy", a.policy,
                  "Basic256Sha256, Aes128_Sha256_RsaOaep, Aes256_Sha256_RsaPss, ECC_nistP256, ECC_nistP384, ECC_brainpoolP256r1 or "
                  "ECC_brainpoolP384r1, ECC_curve25519 or ECC_curve448 (default: the most secure the "
                  "server offers for the mode; alone, it means --security encrypt)");
  cmd->add_option("--user", a.user,
                  "log in as this user; the password from --password-file, $UACTOR_PASSWORD or a prompt");
  cmd->add_option("--password-file", a.password_file, "a file whose first line is the password of --user");
  cmd->add_option("--cert", a.cert, "an X509 user identity: the user's certificate (DER or PEM); with --key");
  cmd->add_option("--key", a.key, "the private key (PEM) of --cert");
  cmd->add_option("--pki", a.pki,
                  "the client's certificate store: own/ (made on first use), trusted/ (server certificates), "
                  "rejected/ (default $UACTOR_PKI, else ./pki)");
  cmd->add_flag("--accept-server-certificate", a.accept_server_certificate,
                "accept an untrusted server certificate for this run only, with a warning (tools and tests; "
                "uactor certs trust trusts it for good)");
  cmd->add_flag("--skip-host-name-check", a.skip_host_name_check,
                "do not require the endpoint URL's host among the server certificate's names (Part 4 "
                "§6.1.3; for a server reached through a tunnel or a NAT address)");
  cmd->add_option("--reverse-listen", a.reverse_listen,
                  "reverse connect: wait on HOST:PORT for the server to dial in with a ReverseHello (Part 6 "
                  "§7.1.3; port 0: any free port, printed on stderr); ENDPOINT is then the EndpointUrl the "
                  "ReverseHello must name, or - for any");
  cmd->add_option("--server-uri", a.server_uri,
                  "with --reverse-listen: accept only a ReverseHello with this ServerUri (the server's ApplicationUri)");
  cmd->add_flag("--json", a.json, "one JSON object per line on stdout");
  cmd->add_flag("--local-time", a.local_time, "times in the local time zone (default UTC)");
  cmd->add_flag("-v,--verbose", a.verbose, "the client's log (channel, session, subscriptions) on stderr");
  cmd->footer(exit_codes_footer);
}

void need_endpoint(const common_args& a, const char* what) {
  if (a.endpoint.empty()) usage(std::string(what) + ": give an endpoint, e.g. opc.tcp://localhost:4840");
}

}  // namespace

}  // namespace client_cli

void add_client_commands(CLI::App& app) {
  using namespace client_cli;
  // The parsed arguments live as long as the app (until main returns).
  struct args {
    common_args common;
    std::vector<std::string> nodes;
    write_args write;
    browse_args browse;
    std::string object;
    std::string method;
    std::vector<std::string> rest;
  };
  auto a = std::make_shared<args>();

  auto* endpoints = app.add_subcommand(
      "endpoints", "what a server offers: URL, policy, mode, token types, certificate: uactor endpoints ENDPOINT");
  add_common(endpoints, a->common);
  endpoints->callback([a] {
    need_endpoint(a->common, "endpoints");
    finish(run_endpoints(a->common));
  });

  auto* discover = app.add_subcommand(
      "discover", "what a discovery server knows: FindServers and FindServersOnNetwork: uactor discover ENDPOINT");
  add_common(discover, a->common);
  discover->callback([a] {
    need_endpoint(a->common, "discover");
    finish(run_discover(a->common));
  });

  auto* read = app.add_subcommand("read", "read the Value of nodes: uactor read ENDPOINT NODE...");
  add_common(read, a->common);
  read->add_option("nodes", a->nodes, "NodeIds, e.g. ns=1;s=the.answer");
  read->callback([a] {
    need_endpoint(a->common, "read");
    finish(run_read(a->common, a->nodes));
  });

  auto* write = app.add_subcommand("write", "write the Value of a node: uactor write ENDPOINT NODE VALUE");
  add_common(write, a->common);
  write->add_option("node", a->write.node, "NodeId");
  write->add_option("value", a->write.value, "the value, parsed to the node's DataType (or --type); arrays as [a, b]");
  write->add_option("--type", a->write.type,
                    "the built-in type to write, e.g. Double, Int32, String, LocalizedText; Int16[] for an array "
                    "(default: the node's DataType, read first)");
  write->callback([a] {
    if (a->common.endpoint.empty() || a->write.node.empty()) usage("write: give ENDPOINT NODE VALUE");
    finish(run_write(a->common, a->write));
  });

  auto* browse = app.add_subcommand("browse", "a node's references, as a tree: uactor browse ENDPOINT [NODE] [--depth N]");
  add_common(browse, a->common);
  browse->add_option("node", a->browse.node, "NodeId (default i=85, Objects)");
  browse->add_option("--depth", a->browse.depth, "levels to walk below the node")
      ->capture_default_str()
      ->check(CLI::Range(1u, 64u));
  browse->add_option("--references", a->browse.references,
                     "hierarchical (default: the tree of HierarchicalReferences) or all (every forward reference)")
      ->check(CLI::IsMember({"hierarchical", "all"}));
  browse->add_option("--max-nodes", a->browse.max_nodes, "stop the walk after this many references")->capture_default_str();
  browse->callback([a] {
    need_endpoint(a->common, "browse");
    finish(run_browse(a->common, a->browse));
  });

  auto* call = app.add_subcommand("call", "call a method: uactor call ENDPOINT OBJECT METHOD [ARG...]");
  add_common(call, a->common);
  call->add_option("object", a->object, "NodeId of the object");
  call->add_option("method", a->method, "NodeId of the method");
  call->add_option("args", a->rest, "input arguments, parsed to the InputArguments' types");
  call->callback([a] {
    if (a->common.endpoint.empty() || a->object.empty() || a->method.empty()) usage("call: give ENDPOINT OBJECT METHOD");
    finish(run_call(a->common, a->object, a->method, a->rest));
  });

  auto hist = std::make_shared<history_args>();
  auto* history = app.add_subcommand(
      "history", "a node's history (HistoryRead, HistoryUpdate): uactor history ENDPOINT NODE [--start T] [--end T] "
                 "[--aggregate NAME --interval MS] [--modified] [--insert|--replace|--update T=V ...] [--delete] [--delete-at T ...] [--events [--select F,..] [--where C]]");
  add_common(history, a->common);
  history->add_option("node", hist->node, "NodeId of a historizing variable");
  history->add_option("--start", hist->start, "from: 2026-12-01T08:00:00Z, now, or before now as -90s, -15m, -2h, -7d (default: an hour before --end)");
  history->add_option("--end", hist->end, "to (not included), as --start takes")->capture_default_str();
  history->add_option("--max", hist->max_values, "at most this many values (0: all)")->capture_default_str();
  history->add_option("--page", hist->page_values,
                      "raw and --events: at most this many values per HistoryRead (numValuesPerNode; the rest follows "
                      "through continuation points; 0: --max, else the server's choice)")
      ->capture_default_str();
  history->add_flag("--bounds", hist->bounds, "raw: also the values just outside the range (Part 11 §4.6)");
  history->add_option("--aggregate", hist->aggregate,
                      "one value per interval instead of raw values: a Part 13 aggregate (Average, Minimum, Maximum, "
                      "Count, TimeAverage, Interpolative, ...; docs/history.md lists them)");
  history->add_option("--interval", hist->interval_ms, "with --aggregate: the interval in ms (0: one over the range)")
      ->capture_default_str();
  history->add_flag("--csv", hist->csv, "CSV with a header line: sourceTimestamp,value,status,serverTimestamp");
  history->add_flag("--modified", hist->modified,
                    "the values HistoryUpdate inserted, replaced or deleted, with who and when (with --delete: delete those)");
  history->add_option("--insert", hist->insert, "HistoryUpdate: insert TIME=VALUE where no value is (repeatable)");
  history->add_option("--replace", hist->replace, "HistoryUpdate: replace the value at TIME with VALUE (TIME=VALUE, repeatable)");
  history->add_option("--update", hist->update, "HistoryUpdate: insert or replace TIME=VALUE (repeatable)");
  history->add_flag("--delete", hist->remove, "HistoryUpdate: delete the values from --start up to --end");
  history->add_option("--delete-at", hist->delete_at, "HistoryUpdate: delete the value at TIME (repeatable)");
  history->add_option("--delete-event", hist->delete_event,
                      "HistoryUpdate: delete the stored event with this EventId (hex, as --events --select EventId prints it; "
                      "NODE the notifier; repeatable)");
  history->add_flag("--events", hist->events, "NODE is a notifier (i=2253 the Server): its stored events (ReadEventDetails)");
  history->add_option("--select", hist->select, "with --events: the fields, comma-separated paths (Time,Severity,ActiveState/Id)")
      ->capture_default_str();
  history->add_option("--where", hist->where,
                      "with --events, repeatable (all must hold): FIELD OP VALUE, OP one of == != < <= > >= like "
                      "(e.g. 'Severity >= 500')");
  history->callback([a, hist] {
    need_endpoint(a->common, "history");
    finish(hist->updates() ? run_history_update(a->common, *hist) : run_history(a->common, *hist));
  });

  auto al = std::make_shared<alarms_args>();
  auto* alarms = app.add_subcommand(
      "alarms",
      "an operator's alarm commands: uactor alarms ENDPOINT list | ack|confirm|comment CONDITION [--event-id ID] | "
      "shelve CONDITION (--for S | --one-shot) | unshelve|suppress|unsuppress|out-of-service|in-service CONDITION");
  add_common(alarms, a->common);
  alarms->add_option("action", al->action,
                     "list, ack, confirm, comment, shelve, unshelve, suppress, unsuppress, out-of-service or in-service")
      ->check(CLI::IsMember({"list", "ack", "confirm", "comment", "shelve", "unshelve", "suppress", "unsuppress",
                             "out-of-service", "in-service"}));
  alarms->add_option("condition", al->condition, "the condition's NodeId (its ConditionId), e.g. ns=2;s=Tank.Level.Alarm");
  alarms->add_option("--event-id", al->event_id,
                     "ack, confirm, comment: the EventId (hex, as list prints it) of the state acted on, e.g. a branch's "
                     "(default: the condition's latest)");
  alarms->add_flag("--browse", al->browse, "list: walk the hierarchy for conditions (all of them, retained or not) "
                                           "instead of ConditionRefresh");
  alarms->add_option("--root", al->root, "list: the node whose hierarchy is searched for conditions (default i=85, Objects; implies --browse)");
  alarms->add_option("--max-nodes", al->max_nodes, "list: stop the walk after this many Objects")->capture_default_str();
  alarms->add_option("--for", al->seconds, "shelve: TimedShelve for this many seconds")->check(CLI::PositiveNumber);
  alarms->add_flag("--one-shot", al->one_shot, "shelve: OneShotShelve (until the alarm is next inactive)");
  alarms->add_option("--comment", al->comment,
                     "ack, confirm, comment: the comment; shelve, unshelve, suppress, ...: call the 1.05 methods that take "
                     "one (TimedShelve2, Suppress2, ...)");
  alarms->callback([a, al] {
    need_endpoint(a->common, "alarms");
    if (al->action.empty()) usage("alarms: give list, ack, confirm, comment, shelve, unshelve, suppress or unsuppress");
    finish(run_alarms(a->common, *al));
  });

  auto sub = std::make_shared<subscribe_args>();
  auto* subscribe = app.add_subcommand(
      "subscribe",
      "print each change of nodes' Values (or, with --events, each event) until Ctrl-C: uactor subscribe ENDPOINT "
      "NODE... [--count N] [--seconds S]");
  add_common(subscribe, a->common);
  subscribe->add_option("nodes", a->nodes, "NodeIds, e.g. ns=1;s=Demo.Dynamic.Counter");
  subscribe->add_option("--count", sub->count, "stop after this many changes");
  subscribe->add_option("--seconds", sub->seconds, "stop after this many seconds");
  subscribe->add_option("--interval", sub->interval_ms, "publishing interval in ms")->capture_default_str();
  subscribe->add_option("--sampling", sub->sampling_ms, "sampling interval in ms (-1: the publishing interval)")
      ->capture_default_str();
  subscribe->add_option("--queue", sub->queue_size, "queue size of each item (changes kept between publishes)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 100'000u));
  subscribe->add_flag("!--discard-newest", sub->discard_oldest,
                      "when the queue is full, drop the newest change (default: the oldest)");
  subscribe->add_option("--deadband", sub->deadband,
                        "a change smaller than this is not reported (with --deadband-type)");
  subscribe->add_option("--deadband-type", sub->deadband_type,
                        "absolute (in the value's unit) or percent (of the item's EURange; Part 8 §6.2)")
      ->check(CLI::IsMember({"absolute", "percent"}));
  subscribe->add_option("--trigger", sub->trigger,
                        "what counts as a change: status, status-value (default) or status-value-timestamp")
      ->check(CLI::IsMember({"status", "status-value", "status-value-timestamp"}));
  subscribe->add_flag("--reconnect", sub->reconnect,
                      "survive cut links and server restarts (the supervised client, docs/client-reconnect.md): "
                      "a line per connection event; exit 1 if data was lost");
  subscribe->add_flag("--events", sub->events,
                      "events instead of values: the nodes' EventNotifier (default the Server object i=2253), "
                      "one line per event (docs/events.md)");
  subscribe->add_option("--select", sub->select,
                        "with --events: the fields, comma-separated BaseEventType paths nested with '/' "
                        "(e.g. Time,Severity,Message,ActiveState/Id)")
      ->capture_default_str();
  subscribe->add_option("--select-type", sub->select_type,
                        "with --events: the event type the --select paths start from (a NodeId, default "
                        "BaseEventType i=2041; e.g. i=2915 for AlarmConditionType's ActiveState/Id)");
  subscribe->add_option("--min-severity", sub->min_severity, "with --events: only events of this Severity or higher")
      ->check(CLI::Range(1u, 1000u));
  subscribe->add_option("--event-type", sub->event_type,
                        "with --events: only events of this type or a subtype (a NodeId, e.g. i=9341)");
  subscribe->add_option("--where", sub->where,
                        "with --events, repeatable (all must hold): FIELD OP VALUE, FIELD a path as --select takes, "
                        "OP one of == != < <= > >= like, e.g. 'Severity >= 500', 'SourceName == Pump1', "
                        "'ActiveState/Id == true', 'Message like %trip%'")
      ->allow_extra_args(false);
  subscribe->callback([a, sub, subscribe] {
    sub->queue_given = subscribe->count("--queue") > 0;
    sub->value_options = subscribe->count("--deadband") + subscribe->count("--deadband-type") +
                             subscribe->count("--trigger") + subscribe->count("--sampling") >
                         0;
    sub->event_options = subscribe->count("--select") + subscribe->count("--select-type") + subscribe->count("--min-severity") +
                             subscribe->count("--event-type") + subscribe->count("--where") >
                         0;
    need_endpoint(a->common, "subscribe");
    finish(run_subscribe(a->common, *sub, a->nodes));
  });
}

}  // namespace uactor::app
