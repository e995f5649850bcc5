// The client subcommands of the `uactor` CLI: their arguments, and what every command shares
// (finishing with an exit code, connecting). The commands: client_cli_services.cpp (read, write,
// browse, call), client_cli_subscribe.cpp; the text forms of values: client_cli_values.cpp.
#include "runtime/client_cli.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include <spdlog/spdlog.h>

#include "runtime/client_cli_internal.hpp"
#include "uactor/client.hpp"

namespace uactor::app {

namespace client_cli {

[[noreturn]] void finish(int code) { throw CLI::RuntimeError(code); }

[[noreturn]] void usage(const std::string& message) {
  std::fprintf(stderr, "uactor: %s\n", message.c_str());
  finish(exit_usage);
}

client connect_or_exit(const common_args& a) {
  // The terminal shows results and errors; the client's own log lines only when they warn.
  spdlog::set_level(spdlog::level::warn);
  client_options o;
  o.endpoint_url = a.endpoint;
  o.request_timeout = std::chrono::milliseconds(a.timeout_ms);
  o.connect_timeout = std::chrono::milliseconds(a.timeout_ms);
  o.session_name = "uactor cli";
  auto c = client::connect(std::move(o));
  if (!c) {
    std::fprintf(stderr, "uactor: cannot connect to %s: %s\n", a.endpoint.c_str(), c.error().to_string().c_str());
    finish(exit_usage);
  }
  return std::move(*c);
}

ua::node_id node_or_exit(const std::string& text) {
  auto n = parse_node_id(text);
  if (!n) usage("not a NodeId: " + text + " (e.g. ns=1;s=the.answer or i=85)");
  return *n;
}

[[noreturn]] void service_failed(client& c, std::string_view what, ua::status_code sc) {
  std::fprintf(stderr, "uactor: %.*s failed: %s\n", static_cast<int>(what.size()), what.data(), sc.to_string().c_str());
  c.close();
  finish(sc == ua::status::bad_connection_closed || sc == ua::status::bad_timeout ? exit_usage : exit_bad);
}

namespace {

void add_common(CLI::App* cmd, common_args& a) {
  cmd->add_option("endpoint", a.endpoint, "server endpoint, e.g. opc.tcp://localhost:4840");
  cmd->add_option("--timeout", a.timeout_ms, "connect and request timeout in ms");
}

}  // namespace

}  // namespace client_cli

void add_client_commands(CLI::App& app) {
  using namespace client_cli;
  // The parsed arguments live as long as the app (until main returns).
  struct args {
    common_args common;
    std::vector<std::string> nodes;
    std::string node;
    std::string value;
    std::string object;
    std::string method;
    std::vector<std::string> rest;
  };
  auto a = std::make_shared<args>();

  auto* read = app.add_subcommand("read", "read the Value of nodes: uactor read ENDPOINT NODE...");
  add_common(read, a->common);
  read->add_option("nodes", a->nodes, "NodeIds, e.g. ns=1;s=the.answer");
  read->callback([a] {
    if (a->common.endpoint.empty()) usage("read: give an endpoint");
    finish(run_read(a->common, a->nodes));
  });

  auto* write = app.add_subcommand("write", "write the Value of a node: uactor write ENDPOINT NODE VALUE");
  add_common(write, a->common);
  write->add_option("node", a->node, "NodeId");
  write->add_option("value", a->value, "the value, parsed to the node's DataType; arrays as [a, b]");
  write->callback([a] {
    if (a->common.endpoint.empty() || a->node.empty()) usage("write: give ENDPOINT NODE VALUE");
    finish(run_write(a->common, a->node, a->value));
  });

  auto* browse = app.add_subcommand("browse", "list a node's hierarchical references: uactor browse ENDPOINT [NODE]");
  add_common(browse, a->common);
  browse->add_option("node", a->node, "NodeId (default i=85, Objects)");
  browse->callback([a] {
    if (a->common.endpoint.empty()) usage("browse: give an endpoint");
    finish(run_browse(a->common, a->node));
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

  auto sub = std::make_shared<subscribe_args>();
  auto* subscribe = app.add_subcommand(
      "subscribe", "print each change of nodes' Values until Ctrl-C: uactor subscribe ENDPOINT NODE... [--count N] [--seconds S]");
  add_common(subscribe, a->common);
  subscribe->add_option("nodes", a->nodes, "NodeIds, e.g. ns=1;s=Demo.Dynamic.Counter");
  subscribe->add_option("--count", sub->count, "stop after this many changes");
  subscribe->add_option("--seconds", sub->seconds, "stop after this many seconds");
  subscribe->add_option("--interval", sub->interval_ms, "publishing interval in ms")->capture_default_str();
  subscribe->add_option("--sampling", sub->sampling_ms, "sampling interval in ms (-1: the publishing interval)")
      ->capture_default_str();
  subscribe->callback([a, sub] {
    if (a->common.endpoint.empty()) usage("subscribe: give an endpoint");
    finish(run_subscribe(a->common, *sub, a->nodes));
  });
}

}  // namespace uactor::app
