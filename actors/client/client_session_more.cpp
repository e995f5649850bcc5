// More sessions over the same channel (client::open_session), closed with it.

#include "actors/client/client_session.hpp"
#include "engine/client/session_security.hpp"

namespace uactor::actors {

void client_session::on_open_session(const std::shared_ptr<client_open_session>& opener) {
  auto& s = st();
  if (s.finished) return opener->finish(s.end_status);
  if (!s.closers.empty()) return opener->finish(ua::status::bad_connection_closed);
  if (s.recovering) return opener->finish(ua::status::bad_server_not_connected);
  if (!s.ready || !s.config.create_session) return opener->finish(ua::status::bad_invalid_state);
  ua::create_session_request req;
  prepare_create_session(s.config.security, req);
  req.client_description.product_uri = ua::ua_string("urn:uactor");
  req.client_description.application_name.text = ua::ua_string(s.config.session_name);
  req.client_description.application_type = ua::application_type::client;
  req.endpoint_url = ua::ua_string(s.config.endpoint_url);
  req.session_name = ua::ua_string(opener->name.empty() ? s.config.session_name : opener->name);
  req.requested_session_timeout = static_cast<double>(s.config.session_timeout.count());
  auto nonce = req.client_nonce;
  s.openers.push_back(opener);
  auto self = self_;
  auto call = client_call::make(
      std::move(req),
      [self, opener, nonce = std::move(nonce)](ua::expected<ua::extension_object> answer) {
        client_session cs(self);
        cs.on_more_created(opener, nonce, std::move(answer));
      },
      s.config.connect_timeout);
  // Part 4 §5.6.2: CreateSession carries no AuthenticationToken.
  call->session_token = std::make_shared<const ua::node_id>();
  send(call, now_instant());
  flush();
}

void client_session::opener_done(const std::shared_ptr<client_open_session>& opener, ua::expected<ua::node_id> r) {
  std::erase(st().openers, opener);
  opener->finish(std::move(r));
}

void client_session::on_more_created(const std::shared_ptr<client_open_session>& opener, const ua::byte_string& nonce,
                     ua::expected<ua::extension_object> answer) {
  auto& s = st();
  if (s.finished) return opener_done(opener, s.end_status);
  if (const auto sc = result_of(answer); sc.is_bad()) return opener_done(opener, sc);
  const auto* resp = answer->get_if<ua::create_session_response>();
  if (!resp) return opener_done(opener, ua::status::bad_unknown_response);
  if (resp->response_header.service_result.is_bad()) return opener_done(opener, resp->response_header.service_result);
  if (const auto sc = check_create_session(s.config.security, nonce, *resp); sc.is_bad()) return opener_done(opener, sc);
  ua::activate_session_request req;
  if (const auto sc = prepare_activate_session(s.config.security, *resp, req); sc.is_bad()) return opener_done(opener, sc);
  auto token = std::make_shared<const ua::node_id>(resp->authentication_token);
  auto self = self_;
  auto call = client_call::make(
      std::move(req),
      [self, opener, token](ua::expected<ua::extension_object> answer) {
        client_session cs(self);
        auto& st = cs.st();
        if (st.finished) return cs.opener_done(opener, st.end_status);
        auto sc = result_of(answer);
        if (sc.is_good()) {
          const auto* r = answer->get_if<ua::activate_session_response>();
          sc = !r ? ua::status::bad_unknown_response : r->response_header.service_result;
        }
        if (sc.is_bad()) return cs.opener_done(opener, sc);
        st.more_sessions.push_back(token);
        cs.opener_done(opener, *token);
      },
      s.config.connect_timeout);
  call->session_token = token;
  send(call, now_instant());
  flush();
}

}  // namespace uactor::actors
