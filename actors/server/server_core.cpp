#include "actors/server/server_core.hpp"

#include <utility>

#include "actors/server/server_object.hpp"
#include "actors/server/services/read.hpp"
#include "actors/server/services/register_nodes.hpp"
#include "actors/server/services/write.hpp"
#include "protocol/codec.hpp"
#include "protocol/message.hpp"

namespace uactor::actors {

namespace {

session_config with_endpoints(session_config c, const services::server_description& d) {
  if (c.endpoints.empty()) c.endpoints = services::make_endpoints(d);
  return c;
}

template <class Response>
void encode_response(const Response& r, ua::byte_buffer& out) {
  ua::encoder e(out);
  ua::encode_message(e, r);
}

}  // namespace

server_core::server_core(server_core_config config, ua::address_space space, services::method_table methods)
    : config_(std::move(config)),
      space_(std::move(space)),
      methods_(std::move(methods)),
      sessions_(with_endpoints(config_.sessions, config_.description)),
      subscriptions_(std::make_unique<subscription_manager>(config_.subscriptions)) {
  space_.set_observer(subscriptions_.get());
}

void server_core::handle(std::uint32_t channel_id, std::uint32_t request_id, const ua::request_header& header,
                         const ua::extension_object& request, const instant& now, ua::byte_buffer& out) {
  const auto routed = sessions_.route(channel_id, header, request, now);
  if (routed.closed)
    subscriptions_->session_closed(routed.closed->session_id.numeric(), routed.closed->delete_subscriptions, now);
  if (routed.activated) subscriptions_->session_activated(routed.activated->session_id.numeric(), routed.activated->identity);
  if (routed.what == session_manager::routed::action::respond) {
    ua::encoder e(out);
    ua::encode_message(e, *routed.response);
    return;
  }
  run_service(routed.target, channel_id, request_id, header, request, now, out);
}

bool server_core::run_subscription_service(session& s, std::uint32_t channel_id, std::uint32_t request_id,
                                           const ua::extension_object& request, const instant& now,
                                           ua::byte_buffer& out) {
  auto& subs = *subscriptions_;
  const std::uint32_t id = s.session_id.numeric();
  const auto finish = [&](auto& response, const ua::request_header& header) {
    response.response_header.request_handle = header.request_handle;
    response.response_header.timestamp = now.utc;
    encode_response(response, out);
    return true;
  };
  if (const auto* req = request.get_if<ua::publish_request>()) {
    subs.publish(id, channel_id, request_id, *req, now, out);
    return true;
  }
  if (const auto* req = request.get_if<ua::create_monitored_items_request>()) {
    subs.create_monitored_items(id, *req, create_items_, space_, now);
    return finish(create_items_, req->request_header);
  }
  if (const auto* req = request.get_if<ua::create_subscription_request>()) {
    subs.create_subscription(id, s.identity, *req, create_subscription_, now);
    return finish(create_subscription_, req->request_header);
  }
  if (const auto* req = request.get_if<ua::republish_request>()) {
    subs.republish(id, *req, republish_);
    return finish(republish_, req->request_header);
  }
  if (const auto* req = request.get_if<ua::modify_subscription_request>()) {
    subs.modify_subscription(id, *req, modify_subscription_, now);
    return finish(modify_subscription_, req->request_header);
  }
  if (const auto* req = request.get_if<ua::set_publishing_mode_request>()) {
    subs.set_publishing_mode(id, *req, set_publishing_mode_);
    return finish(set_publishing_mode_, req->request_header);
  }
  if (const auto* req = request.get_if<ua::delete_subscriptions_request>()) {
    subs.delete_subscriptions(id, *req, delete_subscriptions_, now);
    return finish(delete_subscriptions_, req->request_header);
  }
  if (const auto* req = request.get_if<ua::transfer_subscriptions_request>()) {
    subs.transfer_subscriptions(id, s.identity, *req, transfer_subscriptions_, now);
    return finish(transfer_subscriptions_, req->request_header);
  }
  if (const auto* req = request.get_if<ua::modify_monitored_items_request>()) {
    subs.modify_monitored_items(id, *req, modify_items_, space_, now);
    return finish(modify_items_, req->request_header);
  }
  if (const auto* req = request.get_if<ua::set_monitoring_mode_request>()) {
    subs.set_monitoring_mode(id, *req, set_monitoring_mode_, space_, now);
    return finish(set_monitoring_mode_, req->request_header);
  }
  if (const auto* req = request.get_if<ua::set_triggering_request>()) {
    subs.set_triggering(id, *req, set_triggering_);
    return finish(set_triggering_, req->request_header);
  }
  if (const auto* req = request.get_if<ua::delete_monitored_items_request>()) {
    subs.delete_monitored_items(id, *req, delete_items_);
    return finish(delete_items_, req->request_header);
  }
  return false;
}

void server_core::publish_tick(const instant& now) { subscriptions_->publish_tick(space_, now); }

void server_core::run_service(session* s, std::uint32_t channel_id, std::uint32_t request_id,
                              const ua::request_header& header, const ua::extension_object& request,
                              const instant& now, ua::byte_buffer& out) {
  const auto& limits = config_.limits;
  // The services set their own service result; the handle and the time are the same for all.
  const auto finish = [&](auto& response) {
    response.response_header.request_handle = header.request_handle;
    response.response_header.timestamp = now.utc;
    encode_response(response, out);
  };
  // Without a session only the discovery services come here (session_manager::route).
  if (s == nullptr) {
    if (const auto* req = request.get_if<ua::get_endpoints_request>()) {
      services::service_get_endpoints(*req, get_endpoints_, endpoints(), now.utc);
      return finish(get_endpoints_);
    }
    if (const auto* req = request.get_if<ua::find_servers_request>()) {
      services::service_find_servers(*req, find_servers_, config_.description, now.utc);
      return finish(find_servers_);
    }
    return fault(header, ua::status::bad_service_unsupported, now, out);
  }
  if (const auto* req = request.get_if<ua::read_request>()) {
    services::service_read(*req, read_, space_, now.utc, limits);
    return finish(read_);
  }
  if (const auto* req = request.get_if<ua::write_request>()) {
    services::service_write(*req, write_, space_, now.utc, limits);
    return finish(write_);
  }
  if (const auto* req = request.get_if<ua::browse_request>()) {
    services::service_browse(*req, browse_, space_, s->browse_points, limits);
    return finish(browse_);
  }
  if (const auto* req = request.get_if<ua::browse_next_request>()) {
    services::service_browse_next(*req, browse_next_, space_, s->browse_points, limits);
    return finish(browse_next_);
  }
  if (const auto* req = request.get_if<ua::translate_browse_paths_to_node_ids_request>()) {
    services::service_translate_browse_paths(*req, translate_, space_, limits);
    return finish(translate_);
  }
  if (const auto* req = request.get_if<ua::call_request>()) {
    services::service_call(*req, call_, space_, methods_, now.utc, limits);
    return finish(call_);
  }
  if (const auto* req = request.get_if<ua::register_nodes_request>()) {
    services::service_register_nodes(*req, register_, now.utc, limits);
    return finish(register_);
  }
  if (const auto* req = request.get_if<ua::unregister_nodes_request>()) {
    services::service_unregister_nodes(*req, unregister_, now.utc, limits);
    return finish(unregister_);
  }
  if (run_subscription_service(*s, channel_id, request_id, request, now, out)) return;
  fault(header, ua::status::bad_service_unsupported, now, out);
}

void server_core::fault(const ua::request_header& header, ua::status_code result, const instant& now,
                        ua::byte_buffer& out) {
  fault_.response_header.request_handle = header.request_handle;
  fault_.response_header.timestamp = now.utc;
  fault_.response_header.service_result = result;
  encode_response(fault_, out);
}

void server_core::on_tick(const instant& now) {
  for (const closed_session& c : sessions_.expire(now.steady))
    subscriptions_->session_closed(c.session_id.numeric(), c.delete_subscriptions, now);
  // Per tick, not per Read: the update copies ServerStatus (strings and all).
  update_server_time(space_, now.utc);
}

}  // namespace uactor::actors
