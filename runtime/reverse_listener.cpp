#include "uactor/reverse_listener.hpp"

#include <charconv>

#include "actors/client/reverse_listener.hpp"

namespace uactor {

ua::expected<std::pair<std::string, std::uint16_t>> parse_host_port(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return ua::status::bad_tcp_endpoint_url_invalid;
  unsigned port = 0;
  const char* first = text.data() + colon + 1;
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(first, last, port);
  if (ec != std::errc{} || end != last || port > 65535) return ua::status::bad_tcp_endpoint_url_invalid;
  return std::pair{text.substr(0, colon), static_cast<std::uint16_t>(port)};
}

ua::expected<std::shared_ptr<reverse_listener>> reverse_listener::open(const reverse_listen_options& options) {
  auto address = parse_host_port(options.listen);
  if (!address) return address.error();
  actors::reverse_listener_options o;
  o.address = address->first == "localhost" ? "127.0.0.1" : address->first;
  o.port = address->second;
  o.expected_server_uri = options.expected_server_uri;
  o.expected_endpoint_url = options.expected_endpoint_url;
  o.hello_timeout = options.hello_timeout;
  o.max_pending = options.max_pending;
  auto l = actors::reverse_connect_listener::open(std::move(o));
  if (!l) return l.error();
  return std::shared_ptr<reverse_listener>(new reverse_listener(std::move(*l)));
}

reverse_listener::reverse_listener(std::shared_ptr<actors::reverse_connect_listener> l) noexcept : listener_(std::move(l)) {}
reverse_listener::~reverse_listener() { close(); }
std::uint16_t reverse_listener::port() const noexcept { return listener_->port(); }
void reverse_listener::close() { listener_->close(); }

}  // namespace uactor
