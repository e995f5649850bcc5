#include "engine/client/reverse_hello_check.hpp"

namespace uactor::actors {

reverse_hello_read read_reverse_hello(std::span<const std::uint8_t> received) {
  reverse_hello_read r;
  const auto refuse = [&r](ua::status_code sc, std::string why) {
    r.progress = reverse_hello_progress::refused;
    r.status = sc;
    r.why = std::move(why);
    return r;
  };
  if (received.size() < ua::message_header_size) return r;
  const auto h = ua::parse_message_header(received.first<ua::message_header_size>());
  if (!h) return refuse(h.error(), "not an OPC UA message");
  // Part 6 §7.1.3: the first message on a reverse connection is the server's ReverseHello.
  if (h->type != ua::message_type::reverse_hello)
    return refuse(ua::status::bad_tcp_message_type_invalid, "the first message is " + std::string(ua::to_string(h->type)) + ", not RHE");
  if (h->message_size < ua::message_header_size + 8 || h->message_size > max_reverse_hello_size)
    return refuse(ua::status::bad_tcp_message_too_large, "an RHE of " + std::to_string(h->message_size) + " bytes");
  if (received.size() < h->message_size) return r;
  const auto sc = ua::read_message(received.first(h->message_size), r.hello);
  if (sc.is_bad()) return refuse(sc, "an RHE that does not decode");
  r.progress = reverse_hello_progress::complete;
  r.message_size = h->message_size;
  return r;
}

ua::status_code check_reverse_hello(const ua::reverse_hello& hello, std::string_view expected_server_uri,
                                    std::string_view expected_endpoint_url, std::string& why) {
  if (!expected_server_uri.empty() && hello.server_uri.view() != expected_server_uri) {
    why = "ServerUri " + std::string(hello.server_uri.view()) + ", expected " + std::string(expected_server_uri);
    return ua::status::bad_server_uri_invalid;
  }
  if (!expected_endpoint_url.empty() && hello.endpoint_url.view() != expected_endpoint_url) {
    why = "EndpointUrl " + std::string(hello.endpoint_url.view()) + ", expected " + std::string(expected_endpoint_url);
    return ua::status::bad_tcp_endpoint_url_invalid;
  }
  return ua::status::good;
}

}  // namespace uactor::actors
