// What the client commands of the `uactor` CLI share (cli/client_cli*.cpp): exit codes, the
// arguments every command takes, connecting (client_cli_connect.cpp), and the commands themselves.
// Private to runtime/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "uactor/reconnect.hpp"
#include "cli/client_cli.hpp"
#include "cli/client_cli_output.hpp"

namespace uactor {
class client;
}

namespace uactor::app::client_cli {

// Exit codes of the client commands (docs/cli.md).
inline constexpr int exit_good = 0;        // every operation Good
inline constexpr int exit_bad = 1;         // the server answered, and some item or the call was not Good
inline constexpr int exit_usage = 2;       // the command line is wrong: nothing was sent
inline constexpr int exit_connection = 3;  // no connection, channel or session (refused, untrusted, lost, timed out)

// Ends the command with `code` (CLI::RuntimeError, which CLI11_PARSE returns from main).
[[noreturn]] void finish(int code);
// Prints "uactor: <message>" to stderr and ends with exit_usage.
[[noreturn]] void usage(const std::string& message);

// What every client command takes: where, how secured, as whom, and how it prints.
struct common_args {
  std::string endpoint;
  int timeout_ms = 10'000;
  std::string security;       // none | sign | encrypt (empty: none, or encrypt with --policy)
  std::string policy;         // a Part 7 policy name or URI; empty: the server's most secure for the mode
  std::string user;           // UserName identity; the password from password_file, $UACTOR_PASSWORD, a prompt
  std::string password_file;
  std::string cert, key;      // X509 user identity (certificate DER or PEM, key PEM)
  std::string pki;            // the client's certificate store (default $UACTOR_PKI, else ./pki)
  bool accept_server_certificate = false;
  bool skip_host_name_check = false;
  bool json = false;
  bool local_time = false;
  bool verbose = false;       // the client library's log on stderr
  // Reverse connect (Part 6 §7.1.3, docs/reverse-connect.md): listen here for the server to dial
  // in (HOST:PORT; port 0: any, printed on stderr), accepting only a ReverseHello from server_uri.
  std::string reverse_listen;
  std::string server_uri;

  output_style style() const;
};

// Connects for a command, or ends it: exit_usage for bad flags, exit_connection when the server
// cannot be reached, refuses, or its certificate is not trusted (the message says how to trust it).
// `reconnect`: the supervised client's options (docs/client-reconnect.md), off by default.
// `session`: false for the Discovery services, which need a channel only (Part 4 §5.4): the
// identity flags are then not asked for.
client connect_or_exit(const common_args& a, reconnect_options reconnect = {}, bool session = true);
// The NodeId written in `text`, or the end of the command with a usage message.
ua::node_id node_or_exit(const std::string& text);
// A service the command needs failed as a whole: closes `c` and ends with exit_bad
// (exit_connection when the connection went or timed out).
[[noreturn]] void service_failed(client& c, std::string_view what, ua::status_code sc);

// endpoints (client_cli_connect.cpp): what the server offers, one line (or object) per endpoint.
int run_endpoints(const common_args& a);
// The client library's log: off, or on stderr with --verbose (client_cli_connect.cpp).
void set_up_log(const common_args& a);

// discover (client_cli_discover.cpp, docs/discovery.md): what a (Local) Discovery Server knows,
// FindServers and FindServersOnNetwork, one line (or object) per server and per record.
int run_discover(const common_args& a);

// read, write, browse, call (client_cli_services.cpp): each prints one line per item and returns
// its exit code.
int run_read(const common_args& a, const std::vector<std::string>& nodes);

struct write_args {
  std::string node;
  std::string value;
  std::string type;  // a built-in type name (Double, Int32[], ...); empty: from the node's DataType
};
int run_write(const common_args& a, const write_args& w);

struct browse_args {
  std::string node;             // empty: i=85, Objects
  unsigned depth = 1;           // levels below the node
  std::string references = "hierarchical";  // or all
  std::size_t max_nodes = 10'000;            // a bound on the walk
};
int run_browse(const common_args& a, const browse_args& b);
int run_call(const common_args& a, const std::string& object, const std::string& method,
             const std::vector<std::string>& args);

// subscribe (client_cli_subscribe.cpp): prints each data change (or, with --events, each event)
// until --count, --seconds or Ctrl-C.
struct subscribe_args {
  std::uint64_t count = 0;       // 0: no limit
  double seconds = 0;            // 0: no limit
  unsigned interval_ms = 250;    // publishing interval
  double sampling_ms = -1;       // -1: the publishing interval
  std::uint32_t queue_size = 10;
  bool discard_oldest = true;
  double deadband = 0;           // with deadband_type
  std::string deadband_type;     // "", absolute, percent (Part 8 §6.2: of the EURange)
  std::string trigger = "status-value";  // status, status-value, status-value-timestamp
  bool reconnect = false;        // the supervised client: survive cut links and server restarts
  bool queue_given = false;      // --queue on the command line (events: else the server's default)
  // --events: the nodes' EventNotifier with an EventFilter (docs/events.md), one line per event.
  bool events = false;
  std::string select = "Time,SourceName,EventType,Severity,Message";  // paths, '/' nested
  std::string select_type;       // the event type the paths start from; empty: BaseEventType
  unsigned min_severity = 0;     // 0: no such where condition
  std::string event_type;        // a NodeId: OfType where condition; empty: none
  std::vector<std::string> where;  // "FIELD OP VALUE" where conditions (parse_where), ANDed
  bool value_options = false;    // --deadband, --deadband-type, --trigger or --sampling given
  bool event_options = false;    // --select, --select-type, --min-severity, --event-type or --where given
};

int run_subscribe(const common_args& a, const subscribe_args& sa, const std::vector<std::string>& nodes);
// --select's comma-separated event field paths ("Time,Severity,ActiveState/Id"); a usage error
// (naming `command`) for an empty path or element.
std::vector<std::string> select_paths(const std::string& text, const char* command = "subscribe");

// history (client_cli_history.cpp): a node's raw history, or an aggregate per interval, one value
// per line (text, --json or --csv).
struct history_args {
  std::string node;
  std::string start;               // empty: an hour before end
  std::string end = "now";
  std::uint64_t max_values = 0;    // 0: all (continuation points followed)
  std::uint32_t page_values = 0;   // raw and events: numValuesPerNode of each request; 0: as --max says
  bool bounds = false;             // raw: the bounding values too (Part 11 §4.6)
  std::string aggregate;           // a Part 13 name (Average) or its NodeId; empty: raw values
  double interval_ms = 60'000;     // with aggregate; 0: one interval over the range
  bool csv = false;
  bool modified = false;           // read (or --delete) the modified values (Part 11 §6.5.3.1)
  // HistoryUpdate (Part 11 §6.9): TIME=VALUE each, one kind per run; --delete the range
  // [start, end); --delete-at the values at these times.
  std::vector<std::string> insert, replace, update;
  bool remove = false;
  std::vector<std::string> delete_at;
  // --events (Part 11 §6.5.2 ReadEventDetails): NODE a notifier; the fields and where conditions
  // as subscribe --events takes them.
  bool events = false;
  std::string select = "Time,SourceName,EventType,Severity,Message";
  std::vector<std::string> where;
  // DeleteEventDetails (Part 11 §6.9.7): NODE a notifier; EventIds as --events prints them (hex).
  std::vector<std::string> delete_event;
  bool updates() const {
    return !insert.empty() || !replace.empty() || !update.empty() || remove || !delete_at.empty() || !delete_event.empty();
  }
};
int run_history(const common_args& a, const history_args& h);
int run_history_update(const common_args& a, const history_args& h);

// alarms (client_cli_alarms.cpp): list the conditions below a node with their state, acknowledge
// one, shelve or unshelve it (Part 9; docs/events.md "The condition as nodes").
struct alarms_args {
  std::string action;            // list, ack, confirm, comment, shelve, unshelve, suppress, unsuppress, ...
  std::string condition;         // the ConditionId (not for list)
  std::string event_id;          // ack, confirm, comment: the EventId (hex) of a branch's or an older state
  bool browse = false;           // list: walk the hierarchy (conditions as nodes) instead of ConditionRefresh
  std::string root;              // list --browse: where the walk starts (empty: Objects, i=85)
  std::size_t max_nodes = 10'000;  // list: a bound on the Objects walked
  double seconds = 0;            // shelve --for: TimedShelve
  bool one_shot = false;         // shelve --one-shot: OneShotShelve
  std::string comment;           // ack's comment; shelve and unshelve: the "2" methods with it
};
int run_alarms(const common_args& a, const alarms_args& al);

}  // namespace uactor::app::client_cli
