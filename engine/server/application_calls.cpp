// The application bridge's plain part: docs/embedding.md, docs/decisions/0014.
#include "engine/server/application_calls.hpp"

#include <spdlog/spdlog.h>

#include "engine/server/services/operations.hpp"
#include "engine/server/services/read.hpp"
#include "engine/server/services/write.hpp"
#include "protocol/codec.hpp"
#include "uactor/ua/status_codes.hpp"
#include "protocol/message.hpp"

namespace uactor::actors {

using namespace uactor::ua;

namespace {

constexpr auto value_attribute = static_cast<std::uint32_t>(attribute_id::value);

const char* kind_name(app_call_kind k) {
  switch (k) {
    case app_call_kind::write: return "write";
    case app_call_kind::read: return "read";
    default: return "call";
  }
}

}  // namespace

void application_calls::set_hook(app_call_kind kind, node_index node, hook_ptr hook) {
  auto& table = hooks_[static_cast<std::size_t>(kind)];
  if (hook) table.insert_or_assign(node, std::move(hook));
  else table.erase(node);
}

const hook_ptr* application_calls::hook_ptr_of(app_call_kind kind, node_index node) const noexcept {
  const auto& table = hooks_[static_cast<std::size_t>(kind)];
  if (table.empty()) return nullptr;
  const auto it = table.find(node);
  return it == table.end() ? nullptr : &it->second;
}

void application_calls::drop_removed(const address_space& as) {
  for (auto& table : hooks_) std::erase_if(table, [&](const auto& e) { return as.at(e.first).removed; });
}

application_calls::waiting_request& application_calls::open(const request_context& ctx, app_call_kind kind,
                                                            std::uint32_t handle) {
  opening_ = next_request_++;
  waiting_request& w = requests_[opening_];
  w.ctx = ctx;
  w.ctx.user = nullptr;  // the session may end before the answers come
  w.kind = kind;
  w.request_handle = handle;
  return w;
}

application_calls::item& application_calls::ask(waiting_request& w, const app_hook& hook, const hook_ptr& owner,
                                                std::size_t result, const instant& now) {
  const auto deadline = now.steady + hook.deadline;
  if (w.outstanding == 0 || deadline > w.deadline) w.deadline = deadline;  // the latest of its items
  ++w.outstanding;
  item& it = w.items.emplace_back();
  it.call_id = next_call_++;
  it.result = result;
  calls_.emplace(it.call_id, opening_);
  outgoing& o = outbox_.emplace_back();
  o.call.id = it.call_id;
  o.hook = owner;
  return it;
}

bool application_calls::write(const request_context& ctx, const write_request& req, write_response& resp,
                              address_space& as, const instant& now, const services::service_limits& limits) {
  const auto hooked = [&](const write_value& wv) -> const hook_ptr* {
    if (wv.attribute_id != value_attribute) return nullptr;
    const node_index n = as.find(wv.node_id);
    return n == no_node ? nullptr : hook_ptr_of(app_call_kind::write, n);
  };
  bool any = false;
  if (has_hooks(app_call_kind::write))
    for (const auto& wv : req.nodes_to_write) any = any || hooked(wv) != nullptr;
  if (!any || req.nodes_to_write.size() > limits.max_nodes_per_write) {
    services::service_write(req, resp, as, now.utc, limits, ctx.access);
    return false;
  }
  resp.response_header.timestamp = now.utc;
  services::start_operations(req.request_header, resp, req.nodes_to_write.size(), limits.max_nodes_per_write);
  resp.results.assign(req.nodes_to_write.size(), status::good);
  waiting_request& w = open(ctx, app_call_kind::write, req.request_header.request_handle);
  for (std::size_t i = 0; i < req.nodes_to_write.size(); ++i) {
    const write_value& wv = req.nodes_to_write[i];
    const hook_ptr* h = hooked(wv);
    if (!h) {
      resp.results[i] = services::write_operation(wv, as, now.utc, ctx.access);
      continue;
    }
    node_index n = no_node;
    data_value next;
    if (const status_code sc = services::prepare_value_write(wv, as, now.utc, n, next, ctx.access); sc.is_bad()) {
      resp.results[i] = sc;  // the checks the server makes itself come first
      continue;
    }
    item& it = ask(w, **h, *h, i, now);
    it.node = n;
    it.id = wv.node_id;
    it.value = next;
    app_call& c = outbox_.back().call;
    c.kind = app_call_kind::write;
    c.node = wv.node_id;
    c.value = std::move(next);
    if (ctx.user) c.user = *ctx.user;
  }
  w.write = resp;
  if (w.outstanding == 0) finish(opening_, now);
  return true;
}

bool application_calls::read(const request_context& ctx, const read_request& req, read_response& resp,
                             const address_space& as, const instant& now, const services::service_limits& limits) {
  const auto hooked = [&](const read_value_id& id) -> const hook_ptr* {
    if (id.attribute_id != value_attribute) return nullptr;
    const node_index n = as.find(id.node_id);
    return n == no_node ? nullptr : hook_ptr_of(app_call_kind::read, n);
  };
  bool any = false;
  if (has_hooks(app_call_kind::read))
    for (const auto& id : req.nodes_to_read) any = any || hooked(id) != nullptr;
  services::service_read(req, resp, as, now.utc, limits, ctx.access);  // every item, the application's as stored
  if (!any || resp.response_header.service_result.is_bad()) return false;
  waiting_request& w = open(ctx, app_call_kind::read, req.request_header.request_handle);
  w.timestamps = req.timestamps_to_return;
  for (std::size_t i = 0; i < req.nodes_to_read.size(); ++i) {
    const read_value_id& id = req.nodes_to_read[i];
    const hook_ptr* h = hooked(id);
    // An item the server refuses itself (not readable, a bad IndexRange) is not asked for.
    const data_value& stored = resp.results[i];
    if (!h || (!stored.has_value && stored.has_status && stored.status.is_bad())) continue;
    item& it = ask(w, **h, *h, i, now);
    it.node = as.find(id.node_id);
    it.id = id.node_id;
    it.read_id = id;
    app_call& c = outbox_.back().call;
    c.kind = app_call_kind::read;
    c.node = id.node_id;
    if (ctx.user) c.user = *ctx.user;
  }
  w.read = resp;
  if (w.outstanding == 0) finish(opening_, now);
  return true;
}

bool application_calls::call(const request_context& ctx, const call_request& req, call_response& resp,
                             address_space& as, const services::method_table& methods, const instant& now,
                             const services::service_limits& limits) {
  const auto hooked = [&](const call_method_request& m) -> const hook_ptr* {
    const node_index n = as.find(m.method_id);
    return n == no_node ? nullptr : hook_ptr_of(app_call_kind::call, n);
  };
  bool any = false;
  if (has_hooks(app_call_kind::call))
    for (const auto& m : req.methods_to_call) any = any || hooked(m) != nullptr;
  if (!any || req.methods_to_call.size() > limits.max_nodes_per_method_call) {
    services::service_call(req, resp, as, methods, now.utc, limits, ctx.access);
    return false;
  }
  resp.response_header.timestamp = now.utc;
  services::start_operations(req.request_header, resp, req.methods_to_call.size(), limits.max_nodes_per_method_call);
  resp.results.resize(req.methods_to_call.size());
  waiting_request& w = open(ctx, app_call_kind::call, req.request_header.request_handle);
  for (std::size_t i = 0; i < req.methods_to_call.size(); ++i) {
    const call_method_request& m = req.methods_to_call[i];
    const hook_ptr* h = hooked(m);
    if (!h) {
      services::call_operation(m, as, methods, resp.results[i], ctx.access);
      continue;
    }
    node_index method = no_node;
    if (services::check_call(m, as, resp.results[i], method, ctx.access).is_bad()) continue;
    item& it = ask(w, **h, *h, i, now);
    it.node = method;
    it.id = m.method_id;
    app_call& c = outbox_.back().call;
    c.kind = app_call_kind::call;
    c.node = m.method_id;
    c.object = m.object_id;
    c.inputs.assign(m.input_arguments.begin(), m.input_arguments.end());
    if (ctx.user) c.user = *ctx.user;
  }
  w.call = resp;
  if (w.outstanding == 0) finish(opening_, now);
  return true;
}

void application_calls::settle(waiting_request& w, item& it, app_answer&& a, address_space& as, const instant& now) {
  it.done = true;
  --w.outstanding;
  switch (w.kind) {
    case app_call_kind::write: {
      status_code& result = w.write.results[it.result];
      // Accepted: stored now (the node may have gone meanwhile, then the store says so).
      result = a.status.is_good() ? as.set_value(it.node, std::move(it.value)) : a.status;
      break;
    }
    case app_call_kind::read: {
      data_value& out = w.read.results[it.result];
      if (!a.has_value) {
        out = data_value{};
        out.status = a.status.is_good() ? status::bad_internal_error : a.status;
        out.has_status = true;
        break;
      }
      a.value.server_timestamp = now.utc;
      a.value.has_server_timestamp = true;
      if (!a.value.has_source_timestamp) {
        a.value.source_timestamp = now.utc;
        a.value.has_source_timestamp = true;
      }
      if (const status_code sc = as.set_value(it.node, std::move(a.value)); sc.is_bad()) {
        out = data_value{};
        out.status = sc;
        out.has_status = true;
        break;
      }
      services::read_operation(it.read_id, w.timestamps, as, now.utc, out, w.ctx.access);
      break;
    }
    case app_call_kind::call: {
      call_method_result& out = w.call.results[it.result];
      out.output_arguments.clear();
      out.status_code = a.status;
      if (a.status.is_bad()) break;
      // One output per OutputArgument: anything else is the application's bug, not the client's.
      if (a.outputs.size() != services::method_arguments(as, it.node, "OutputArguments").size()) {
        spdlog::error("application: method {} answered {} outputs, it declares {}", as.at(it.node).id.to_node_id().to_string(),
                      a.outputs.size(), services::method_arguments(as, it.node, "OutputArguments").size());
        out.status_code = status::bad_internal_error;
        break;
      }
      out.output_arguments.assign(std::make_move_iterator(a.outputs.begin()), std::make_move_iterator(a.outputs.end()));
      break;
    }
  }
}

bool application_calls::answer(app_answer&& a, address_space& as, const instant& now) {
  const auto c = calls_.find(a.id);
  if (c == calls_.end()) return false;
  const std::uint64_t key = c->second;
  calls_.erase(c);
  waiting_request& w = requests_.at(key);
  for (item& it : w.items)
    if (it.call_id == a.id && !it.done) settle(w, it, std::move(a), as, now);
  if (w.outstanding == 0) finish(key, now);
  return true;
}

void application_calls::expire(const instant& now) {
  std::vector<std::uint64_t> due;
  for (auto& [key, w] : requests_)
    if (w.deadline <= now.steady) due.push_back(key);
  for (const std::uint64_t key : due) {
    waiting_request& w = requests_.at(key);
    for (item& it : w.items) {
      if (it.done) continue;
      calls_.erase(it.call_id);
      spdlog::warn("application: no answer to the {} of {} within its deadline: Bad_Timeout", kind_name(w.kind),
                   it.id.to_string());
      it.done = true;
      switch (w.kind) {
        case app_call_kind::write: w.write.results[it.result] = status::bad_timeout; break;
        case app_call_kind::read:
          w.read.results[it.result] = data_value{};
          w.read.results[it.result].status = status::bad_timeout;
          w.read.results[it.result].has_status = true;
          break;
        case app_call_kind::call:
          w.call.results[it.result].status_code = status::bad_timeout;
          w.call.results[it.result].output_arguments.clear();
          break;
      }
    }
    w.outstanding = 0;
    finish(key, now);
  }
}

void application_calls::finish(std::uint64_t key, const instant& now) {
  waiting_request& w = requests_.at(key);
  deferred_response& d = completed_.emplace_back();
  d.channel_id = w.ctx.channel_id;
  d.request_id = w.ctx.request_id;
  encoder e(d.message);
  const auto put = [&](auto& response) {
    response.response_header.request_handle = w.request_handle;
    response.response_header.timestamp = now.utc;
    encode_response(e, response);  // a Bad ServiceResult as a ServiceFault (Part 4 §7.34)
  };
  switch (w.kind) {
    case app_call_kind::write: put(w.write); break;
    case app_call_kind::read: put(w.read); break;
    case app_call_kind::call: put(w.call); break;
  }
  for (const item& it : w.items) calls_.erase(it.call_id);
  requests_.erase(key);
}

}  // namespace uactor::actors
