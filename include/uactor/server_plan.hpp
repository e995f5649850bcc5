// The server configuration with the defaults of docs/configuration.md, and its description as
// `uactor run` prints it. Plain data: the actors read it, the config loader fills it.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "uactor/pubsub.hpp"
#include "uactor/redundancy.hpp"

namespace uactor {

// One endpoint of the server (Part 4 §7.14): a listener with the URL it advertises, the security
// policies and modes it offers, and the user token types (Part 4 §7.42) a session opened through it
// may activate with. Every endpoint serves the server's one address space.
struct endpoint_plan {
  // In the endpoint URL; empty: the server's host_name when the plant set one, else what the
  // listen address says (docs/configuration.md `host_name`): the machine's host name on 0.0.0.0,
  // the address on loopback, on a specific address the host name only when it resolves to it.
  std::string host_name;
  std::string listen_address = "0.0.0.0";
  std::uint16_t port = 4840;      // 0: an ephemeral port (server::ports() says which)
  std::vector<std::string> security{"all"};  // as server_plan::security
  // "anonymous", "username", "x509". UserName and X509 are never offered over None (the password
  // would travel in clear, the token unsigned), UserName only when the server has users.
  std::vector<std::string> user_tokens{"anonymous", "username", "x509"};
  bool wss = false;  // an opc.wss endpoint (server_plan::wss made it; docs/wss.md)
};

// opc.wss (Part 6 §7.5, docs/wss.md, `[server] wss_port`, `uactor run --wss-port`): one endpoint
// opc.wss://<host>:<port>/ beside the others, serving UA Secure Conversation over WebSocket frames
// (subprotocol opcua+uacp) over TLS; the UA security policies apply on top of TLS.
struct wss_plan {
  std::uint16_t port = 4843;      // 0: an ephemeral port (server::ports() says which: the last one)
  std::string listen_address;     // empty: the server's listen_address
  std::vector<std::string> security;  // empty: the first endpoint's (as server_plan::security)
  // Origins a browser may open the WebSocket from ("https://hmi.example:8443", "null" for file:
  // pages, "*" for all); empty: none. Requests without Origin (not a browser's) always pass.
  std::vector<std::string> allowed_origins;
  // The TLS certificate and key (PEM files, the chain after the leaf); empty: the application
  // certificate and key of the PKI (own/), made on first start when missing.
  std::string certificate;
  std::string private_key;
  std::chrono::milliseconds handshake_timeout{10'000};  // TLS and the HTTP upgrade, from the TCP accept
  std::uint32_t max_pending_handshakes = 64;              // beyond: new TCP connections closed at once
  // What serves it (docs/decisions/0073): "native" (TLS and the WebSocket inside the connection
  // brokers) or "door" (a TLS + WebSocket door on a thread of its own handing socket pairs to the
  // connection path, 0057); empty: the environment's UACTOR_WSS_TRANSPORT, else "native".
  std::string transport;
};

// Part 11 §5.2.3 ExceptionDeviationFormat (the spec's numbers): what ExceptionDeviation is in.
enum class history_deviation_format : std::int32_t {
  absolute_value = 0,       // in the value's own units
  percent_of_value = 1,     // percent of the last stored value
  percent_of_range = 2,     // percent of the variable's InstrumentRange
  percent_of_eu_range = 3,  // percent of the variable's EURange
};

// A HistoricalDataConfiguration (Part 11 §5.2.2, docs/history.md "Historical configuration"): how
// HistoryRead calculates a variable's processed and at-time values when the client asks for the
// server's defaults (Part 13 §4.2.1.2 AggregateConfiguration), whether it is Stepped, and how its
// values are collected (docs/history.md "Collection": all 0, every change is stored).
struct history_configuration_plan {
  // [[history.configurations]]: NodeIds of historizing Variables, or prefixes ending in '*'; each
  // gets an "HA Configuration" Object of its own. Unused for [history.defaults].
  std::vector<std::string> nodes;
  bool stepped = false;          // held until the next value (a state, a setpoint), not sloped
  std::string definition;        // how the value is made, for the reader ("" none)
  bool treat_uncertain_as_bad = true;
  std::uint8_t percent_data_bad = 100;   // 0..100
  std::uint8_t percent_data_good = 100;  // 0..100
  bool use_sloped_extrapolation = false;
  // Collection: a value less than min_time_interval_ms after the last stored one is not stored;
  // one closer to it than exception_deviation (a number, in exception_deviation_format's terms) is
  // not stored; max_time_interval_ms after the last stored value the held value is stored again.
  // Durations in ms (0: none; max_time_interval_ms 0 or at least 1,000 and not below the minimum),
  // the deviation >= 0 (at most 100 in a percent format). Others are refused when the server opens.
  double min_time_interval_ms = 0;
  double max_time_interval_ms = 0;
  double exception_deviation = 0;
  history_deviation_format exception_deviation_format = history_deviation_format::absolute_value;
};

// The historian (docs/history.md): where the values of historizing Variables are kept, for how
// long, and which nodes historize besides those marked so one by one. No path (SQLite) and no
// connection (PostgreSQL): no history (HistoryRead answers Bad_HistoryOperationUnsupported).
struct history_plan {
  std::string backend = "sqlite";      // "sqlite" or "postgresql"
  std::string path;                    // the SQLite file (created when missing)
  // PostgreSQL: a libpq connection string or URI ("host=/run/postgresql dbname=plant"); the tables
  // are created when missing. Two servers of a redundant pair may share one database.
  std::string connection;
  std::uint32_t retention_days = 0;    // 0: kept whatever their age
  std::uint64_t max_values_per_node = 0;  // the newest this many are kept per node; 0: all
  // NodeIds whose Variables historize (Historizing true, the HistoryRead access bit), applied when
  // the server opens; a trailing '*' matches every NodeId that starts with what precedes it
  // ("ns=1;s=Demo.Dynamic.*").
  std::vector<std::string> historize;
  // HistoryUpdate (docs/history.md "HistoryUpdate"): when true, every historizing Variable gets the
  // HistoryWrite access bit when the server opens, so that clients (as their roles allow) may
  // insert, replace and delete its history. False: HistoryUpdate answers Bad_NotWritable.
  bool updates = false;
  // Event history (docs/history.md "Event history"): NodeIds of notifiers (Objects or Views, the
  // Server object "i=2253") whose events are recorded, applied when the server opens; their
  // EventNotifier gets the HistoryRead bit and ReadEventDetails reads them back.
  std::vector<std::string> events;
  // PostgreSQL: while the database is unavailable and the memory queue is full, batches go to this
  // file (relative paths from the working folder), at most spool_max_mb MiB, and are written in
  // order when the database is back; past it they are dropped and counted (docs/history.md "When
  // storage is down"). spool_max_mb 0: no spool. A spool an earlier run left is written first.
  std::string spool_path = "uactor-history.spool";
  std::uint64_t spool_max_mb = 256;
  // [history.defaults]: the Server's DefaultHAConfiguration, for every historizing Variable
  // without one of its own (Part 11 §5.7.3).
  history_configuration_plan defaults;
  // [[history.configurations]]: Variables with a configuration of their own; the first entry
  // whose `nodes` match a Variable is its.
  std::vector<history_configuration_plan> configurations;
};

// Reverse connect (Part 6 §7.1.3, docs/reverse-connect.md): a client the server dials, for plants
// where the server may not accept connections. The server sends a ReverseHello (its
// application_uri and endpoint_url) and serves the socket as an accepted connection.
struct reverse_connect_plan {
  std::string client_url;    // opc.tcp://host:port of the client's reverse-connect listener
  std::string endpoint_url;  // announced in the ReverseHello; empty: the server's first endpoint's URL
  std::uint32_t max_connections = 1;  // kept open to this client at once
  std::chrono::milliseconds backoff_min{500};     // first retry after a failed dial, and the pause before a redial
  std::chrono::milliseconds backoff_max{30'000};  // the longest pause between attempts (jitter +/- 25 %, capped here)
};

// Discovery (Part 12 §4.3, docs/discovery.md, `[discovery]`): the server's registration with a
// Local Discovery Server, and the server acting as one.
struct discovery_plan {
  // The LDS to register with (opc.tcp://host:port); empty: no registration. The channel is secured
  // with the server's own certificate (the LDS must trust it; its certificate goes into our trusted/).
  std::string register_with;
  std::string register_security = "encrypt";  // sign or encrypt: an LDS refuses None (Part 4 §5.4.5)
  std::string register_policy = "Basic256Sha256";
  std::chrono::seconds register_period{600};  // Part 12 §4.3.4: every 10 minutes
  std::vector<std::string> capabilities;      // ServerCapabilities in RegisterServer2 (Part 12 Annex A)
  // Act as an LDS: RegisterServer and RegisterServer2 accepted from trusted servers over secured
  // channels, FindServers and FindServersOnNetwork answered from what it knows.
  bool lds = false;
  std::uint32_t max_registrations = 100;
  std::chrono::seconds registration_expiry{660};  // a server that has not renewed for this long is dropped
};

// Failed logins (docs/security.md "Login attempts", `[security.login]`): ActivateSession's UserName
// and X509 tokens counted per user name and per source address.
struct login_plan {
  bool enabled = true;
  std::uint32_t max_failures = 5;          // a user name's failures before its lockout
  std::uint32_t backoff_ms = 200;          // after a user name's failure k: refused for backoff_ms * 2^(k-1)
  std::uint32_t address_max_failures = 20;  // a source address's failures (all names) before its lockout
  std::uint32_t lockout_seconds = 300;     // how long a lockout lasts; failures older than this are forgotten
  std::uint32_t table_size = 10'000;       // user names and addresses tracked (each), the oldest evicted
  // Source addresses never counted nor locked out, in CIDR notation ("10.0.0.0/8", "192.0.2.7",
  // "fd00::/8"): a gateway that many users share. Their user names are limited all the same.
  std::vector<std::string> exempt_addresses;
};

// [[roles]] (docs/security.md "Roles and permissions"): a role (Part 3 §4.9: Anonymous,
// AuthenticatedUser, Observer, Operator, Engineer, Supervisor, ConfigureAdmin, SecurityAdmin, or a
// plant's own) and the identities it is granted to (Part 18 §4.4.2): "Anonymous",
// "AuthenticatedUser", "UserName:<name>", "Thumbprint:<SHA-1 hex of a user certificate>".
struct role_plan {
  std::string name;
  std::vector<std::string> identities;
  // Anonymous and AuthenticatedUser keep their default mapping (anonymous sessions, checked users)
  // unless this is false: then only `identities` grant them.
  bool keep_default_identities = true;
  // Part 18 §4.4.1: the client applications (ApplicationUris of their certificates) and the
  // endpoint URLs the role is limited to, or, with `*_exclude`, kept from. The defaults (empty
  // exclude lists) limit nothing.
  std::vector<std::string> applications;
  bool applications_exclude = true;
  std::vector<std::string> endpoints;
  bool endpoints_exclude = true;
};

// [[permissions]]: what each role may do (Part 3 §8.55 PermissionType names: Browse, Read, Write,
// Call, ReceiveEvents, ReadRolePermissions, WriteAttribute, ..., or All) on a subtree, inherited
// downward (the nearest rule above a node wins), or on a whole namespace (its default).
struct permission_plan {
  std::string node;           // "ns=2;s=Plant.Line1" or a browse path "/Objects/2:Plant"; empty: a namespace
  std::string namespace_uri;  // the namespace whose default this is (when `node` is empty)
  std::vector<std::pair<std::string, std::vector<std::string>>> roles;  // role name, its permissions
  std::vector<std::string> restrictions;  // AccessRestrictions: SigningRequired, EncryptionRequired, ...
};

struct server_plan {
  // Advertised in the endpoint URLs and the ApplicationUri. default_server_plan() puts the machine's
  // host name here; left so, each endpoint's listen address decides what its URL names (see
  // endpoint_plan::host_name), any other name is advertised as is.
  std::string host_name;
  std::string listen_address = "0.0.0.0";
  std::uint16_t port = 4840;
  std::string application_uri;    // urn:<host name>:uactor:server
  std::string application_name = "uactor";  // the ApplicationDescription's ApplicationName
  // The product (ApplicationDescription.ProductUri, the Server object's BuildInfo).
  std::string product_uri = "urn:uactor";
  std::string product_name = "uactor";
  std::string manufacturer_name = "uactor";
  // Namespace index 1 (the server's own: session ids live there, and the demo nodes when served).
  std::string demo_namespace_uri = "urn:uactor:demo";
  bool demo = false;              // serve the demo namespace of docs/demo-namespace.md (`uactor run` does)
  // Accept connections once start_server returns (the demo's nodes in); false: the port is bound
  // but connects are refused until server::open(), so that the application's nodes come first.
  bool open_at_start = true;
  std::uint32_t max_connections = 1000;
  std::uint32_t max_sessions = 1000;
  std::uint32_t receive_buffer_size = 65535;
  std::uint32_t send_buffer_size = 65535;
  std::uint32_t max_message_size = 16u << 20;
  std::uint32_t max_chunk_count = 4096;
  std::uint32_t max_nodes_per_operation = 10000;
  // The other limits the server enforces on a peer (docs/configuration.md, [server]).
  std::chrono::milliseconds hello_timeout{10'000};        // a connection that never says Hello is closed
  std::chrono::milliseconds max_token_lifetime{3'600'000}; // RevisedLifetime of a secure channel token at most
  std::chrono::milliseconds max_session_timeout{3'600'000};// RevisedSessionTimeout at most
  std::uint32_t max_browse_continuation_points = 10;       // per session (ServerCapabilities says it)
  std::uint32_t max_string_length = 16u << 20;            // bytes of a String or ByteString in a request
  std::uint32_t max_array_length = 1'000'000;              // elements of an array in a request
  std::uint32_t max_nesting_depth = 100;                   // Variant, ExtensionObject, DiagnosticInfo in a request
  std::chrono::milliseconds writer_interval{1000};  // the demo writer's tick
  // The load namespace (docs/demo-namespace.md): this many variables ns=1;s=Load.V<i>, all changed
  // every writer tick (0: none).
  std::uint32_t load_variables = 0;
  // Where the session host runs (docs/decisions/0008): "multiplexer" (with the connections, no
  // crossing between threads per request) or "scheduler" (on a CAF worker).
  std::string session_host = "multiplexer";
  // The asymmetric channel crypto, session signatures and password checks run on this many worker
  // threads (docs/decisions/0022; 0: inline, on the connections' thread), with at most
  // crypto_queue such tasks waiting before a newcomer is refused (Bad_TcpServerTooBusy /
  // Bad_ServerTooBusy).
  std::uint32_t crypto_workers = 2;
  std::uint32_t crypto_queue = 64;
  int crypto_nice = 10;  // the workers' niceness (Linux, per thread): the connections' thread comes first
  std::string profile = "default";                  // default | interop (the open62541 interop spec's server)

  // Security (Part 4 §5.5, Part 7). What the endpoints offer: "all" (None, and each policy in Sign
  // and SignAndEncrypt), "none", "secure" (all but None), or POLICY:MODE items such as
  // "Basic256Sha256:SignAndEncrypt" (MODE Sign or SignAndEncrypt; POLICY as in Part 7).
  std::vector<std::string> security{"all"};
  std::string pki_dir;                 // own/, trusted/, issuers/, rejected/ (default_pki_dir())
  std::vector<std::string> trust;      // certificate files to trust at start (copied into trusted/certs)
  // Names and addresses the certificate the server makes names besides the endpoints' hosts,
  // the addresses they listen on and loopback (`[pki] san`): DNS aliases, NAT addresses.
  std::vector<std::string> certificate_names;
  // ServerConfiguration's MaxTrustListSize (Part 12 §7.10.5): the bytes a trust list pushed by a
  // certificate manager may have (`[pki] max_trust_list_size`).
  std::uint32_t max_trust_list_size = 1u << 20;
  std::string users_file;              // `user:hash` lines (uactor hash-password); UserName tokens
  std::vector<std::string> users;      // "user:password" given on the command line (tests, interop)
  std::vector<std::string> user_hashes;  // "user:hash" (uactor hash-password), as the config file's [[users]]
  bool anonymous = true;               // offer the anonymous identity (on the default endpoint)
  // The endpoints, each with its own listener (docs/embedding.md "Several endpoints"). Empty: one
  // endpoint made of host_name, listen_address, port, security and anonymous above (what `uactor
  // run --port ... --security ...` serves).
  std::vector<endpoint_plan> endpoints;
  // Audit events (ActivateSession, Write) to every event subscriber of the Server object. Off by
  // default: without roles any client could read them, user names of refused logins included.
  bool audit_events = false;
  // Chattering alarms (Part 9 §8, docs/events.md "Alarm groups and metrics"): an alarm that goes
  // active more than alarm_chattering_count times within alarm_chattering_window is counted
  // (/metrics uactor_alarms_chattering_total); 0: not looked for.
  std::uint32_t alarm_chattering_count = 0;
  std::chrono::milliseconds alarm_chattering_window{60'000};
  login_plan login;  // failed logins: backoff and lockout per user name and source address
  // Roles and their identities, and what they may do on which nodes (docs/security.md "Roles and
  // permissions"). Without permissions every session may do what the nodes' AccessLevel allows.
  std::vector<role_plan> roles;
  std::vector<permission_plan> permissions;
  // Non-transparent redundancy (Part 4 §6.6.2): the Server object's ServerRedundancy
  // (RedundancySupport, ServerUriArray), the ServiceLevel at start and its drop on stop
  // (docs/decisions/0041).
  redundancy_plan redundancy;
  history_plan history;
  // PubSub (docs/pubsub.md): MQTT connections that publish variables as JSON and subscribe
  // datasets into variables. Empty: none.
  pubsub::pubsub_config pubsub;
  // Clients to dial (reverse connect), each kept connected while the server runs.
  std::vector<reverse_connect_plan> reverse_connect;
  discovery_plan discovery;  // registration with an LDS, or acting as one
  std::optional<wss_plan> wss;  // an opc.wss endpoint after the others (resolved_endpoints)

  // The first endpoint's URL (opc.tcp://<advertised host>:<port>).
  std::string endpoint_url() const;
  // `endpoints`, or the one endpoint the single-endpoint fields describe (host names as given).
  std::vector<endpoint_plan> resolved_endpoints() const;
};

// opc.tcp://<host>:<port> of an endpoint, the host as endpoint_plan::host_name says. May resolve
// the machine's host name (an endpoint on a specific address): start-up work, not for a request path.
std::string endpoint_url(const server_plan& server, const endpoint_plan& endpoint);

// $UACTOR_PKI, else ./pki: where `uactor run` and `uactor certs` keep certificates.
std::string default_pki_dir();

// The defaults for this machine (its host name).
server_plan default_server_plan();

// A human-readable description of what the server will serve; each endpoint's user tokens as
// GetEndpoints will offer them (offered_user_tokens).
std::string describe(const server_plan& plan);

// The user token types `endpoint` offers: its user_tokens less UserName without users (no users,
// user_hashes or users_file) and less UserName and X509 without a secured policy (not over None).
std::vector<std::string> offered_user_tokens(const server_plan& plan, const endpoint_plan& endpoint);

// `namespaces        0 http://opcfoundation.org/UA/, 1 urn:uactor:demo, ...`: the running server's
// NamespaceArray (server::namespace_array()), known only once its NodeSets and namespaces are in.
std::string describe_namespaces(const std::vector<std::string>& namespace_array);

}  // namespace uactor
