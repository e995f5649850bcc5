// The client's native opc.wss transport (docs/decisions/0077) against a raw TLS server that plays
// the server's part by hand: the upgrade request our client writes (RFC 6455 §4.1, Part 6
// §7.5.2's opcua+uacp), the answers it refuses (a wrong Sec-WebSocket-Accept, no subprotocol, an
// HTTP error, an answer header over 8 KB, an extension not asked for, no answer at all), its
// frames (masked, a fresh key per frame, §5.3), a ping answered, a masked server frame refused
// (§5.1), a server's close answered. Each case: what client::connect returns, and what the raw
// server read.
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch.hpp>
#include <openssl/evp.h>

#include "protocol/base64.hpp"
#include "protocol/uatcp.hpp"
#include "protocol/ws_frame.hpp"
#include "security/pki_store.hpp"
#include "tests/support/temp_folder.hpp"
#include "uactor/client.hpp"
#include "uactor/ua/status_codes.hpp"

// A namespace of its own (a unity batch shares file-local names, docs/decisions/0050).
namespace runtime_wss_client_test {

using namespace uactor;
using namespace std::chrono_literals;
using test::temp_folder;
namespace rw_asio = boost::asio;
namespace rw_http = boost::beast::http;
using rw_tcp = boost::asio::ip::tcp;
using rw_stream = boost::asio::ssl::stream<rw_tcp::socket>;

namespace {

std::string accept_for(const std::string& key) {
  const std::string in = key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(in.data(), in.size(), d, &n, EVP_sha1(), nullptr);
  return ua::base64_encode(std::span<const std::uint8_t>(d, n));
}

// One frame as the raw server reads it.
struct raw_frame {
  ua::ws_frame_header h;
  std::vector<std::uint8_t> payload;  // unmasked
};

// A TLS server for one connection on 127.0.0.1, its certificate made in `dir`; `script` runs on
// its thread with the TLS stream once the handshake is done, then the server reads until the
// client closes.
class raw_tls_server {
public:
  explicit raw_tls_server(const temp_folder& dir) {
    security::pki_store store(dir.path / "raw-server-pki");
    security::certificate_request req;
    req.application_uri = "urn:uactor:test:raw-wss";
    req.host_names = {"127.0.0.1"};
    auto own = store.load_or_create_own(req, "raw");
    if (!own) throw std::runtime_error("no certificate");
    const auto der = own->cert.der();
    const auto pem = own->private_key.to_private_pem();
    tls_.use_certificate(rw_asio::buffer(der.data(), der.size()), rw_asio::ssl::context::asn1);
    tls_.use_private_key(rw_asio::buffer(pem.data(), pem.size()), rw_asio::ssl::context::pem);
  }
  ~raw_tls_server() { join(); }
  void join() {
    if (thread_.joinable()) thread_.join();
  }

  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }
  std::string url() const { return "opc.wss://127.0.0.1:" + std::to_string(port()) + "/"; }

  template <class Script>
  void run(Script script) {
    thread_ = std::thread([this, script] {
      try {
        rw_tcp::socket s(io_);
        acceptor_.accept(s);
        rw_stream st(std::move(s), tls_);
        st.handshake(rw_asio::ssl::stream_base::server);
        script(st);
        // Until the client is gone.
        boost::system::error_code ec;
        std::uint8_t sink[4096];
        while (!ec) st.read_some(rw_asio::buffer(sink), ec);
      } catch (const std::exception&) {
        // the client went away: what the script saw is in its results
      }
    });
  }

  // The upgrade request (the client's first bytes after TLS).
  static rw_http::request<rw_http::empty_body> read_request(rw_stream& st, boost::beast::flat_buffer& b) {
    rw_http::request<rw_http::empty_body> req;
    rw_http::read(st, b, req);
    return req;
  }
  static void write(rw_stream& st, const std::string& s) { rw_asio::write(st, rw_asio::buffer(s)); }
  static void write(rw_stream& st, const std::vector<std::uint8_t>& s) { rw_asio::write(st, rw_asio::buffer(s)); }
  static std::string switching(const std::string& accept, const char* protocol = "opcua+uacp", const char* extra = "") {
    std::string r = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
                    accept + "\r\n";
    if (protocol) r += std::string("Sec-WebSocket-Protocol: ") + protocol + "\r\n";
    return r + extra + "\r\n";
  }
  // The next frame, from what `b` holds and the stream.
  static raw_frame read_frame(rw_stream& st, boost::beast::flat_buffer& b) {
    for (;;) {
      const auto data = b.data();
      const std::span<const std::uint8_t> have(static_cast<const std::uint8_t*>(data.data()), data.size());
      raw_frame f;
      if (ua::decode_ws_frame_header(have, f.h) == ua::ws_header_result::complete &&
          have.size() >= f.h.header_size + f.h.payload_length) {
        f.payload.assign(have.begin() + static_cast<std::ptrdiff_t>(f.h.header_size),
                         have.begin() + static_cast<std::ptrdiff_t>(f.h.header_size + f.h.payload_length));
        if (f.h.masked) ua::ws_apply_mask(f.payload, f.h.mask);
        b.consume(f.h.header_size + f.payload.size());
        return f;
      }
      b.commit(st.read_some(b.prepare(4096)));
    }
  }

private:
  rw_asio::io_context io_;
  rw_asio::ssl::context tls_{rw_asio::ssl::context::tls_server};
  rw_tcp::acceptor acceptor_{io_, rw_tcp::endpoint(rw_asio::ip::make_address("127.0.0.1"), 0)};
  std::thread thread_;
};

client_options native_options(const raw_tls_server& server, const temp_folder& dir) {
  client_options o;
  o.endpoint_url = server.url();
  o.connect_timeout = 3s;
  o.request_timeout = 3s;
  o.security.pki_dir = (dir.path / "client-pki").string();
  o.wss_accept_any_certificate = true;
  o.wss_transport = "native";
  return o;
}

std::vector<std::uint8_t> frame(ua::ws_opcode op, std::span<const std::uint8_t> payload, const std::array<std::uint8_t, 4>* mask = nullptr) {
  std::array<std::uint8_t, ua::ws_max_header_size> h{};
  const auto n = ua::encode_ws_frame_header(h, true, op, payload.size(), mask);
  std::vector<std::uint8_t> out(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(n));
  const auto at = out.size();
  out.insert(out.end(), payload.begin(), payload.end());
  if (mask) ua::ws_apply_mask(std::span<std::uint8_t>(out.data() + at, payload.size()), *mask);
  return out;
}

}  // namespace

TEST_CASE("opc.wss native client: the upgrade request it writes, and each answer it refuses", "[wss]") {
  temp_folder dir("wss-client-refusals");
  // The answers, each refused: the connection was never made (Bad_ConnectionRejected, as the door).
  const int kind = GENERATE(0, 1, 2, 3, 4, 5);
  INFO("answer " << kind);
  raw_tls_server server(dir);
  struct seen_t {
    std::string target, upgrade, protocol, version, key, host;
  };
  auto seen = std::make_shared<seen_t>();
  server.run([kind, seen](rw_stream& st) {
    boost::beast::flat_buffer b;
    const auto req = raw_tls_server::read_request(st, b);
    seen->target = std::string(req.target());
    seen->upgrade = std::string(req[rw_http::field::upgrade]);
    seen->protocol = std::string(req[rw_http::field::sec_websocket_protocol]);
    seen->version = std::string(req[rw_http::field::sec_websocket_version]);
    seen->key = std::string(req[rw_http::field::sec_websocket_key]);
    seen->host = std::string(req[rw_http::field::host]);
    const auto accept = accept_for(seen->key);
    switch (kind) {
      case 0: raw_tls_server::write(st, raw_tls_server::switching(accept_for("c29tZXRoaW5nIGVsc2U="))); break;  // wrong accept
      case 1: raw_tls_server::write(st, raw_tls_server::switching(accept, nullptr)); break;  // no subprotocol
      case 2: raw_tls_server::write(st, raw_tls_server::switching(accept, "opcua+uajson")); break;  // another one
      case 3: raw_tls_server::write(st, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"); break;
      case 4: raw_tls_server::write(st, raw_tls_server::switching(accept, "opcua+uacp", ("X-Pad: " + std::string(9000, 'a') + "\r\n").c_str())); break;
      case 5: raw_tls_server::write(st, raw_tls_server::switching(accept, "opcua+uacp", "Sec-WebSocket-Extensions: permessage-deflate\r\n")); break;
      default: break;
    }
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto c = client::connect(native_options(server, dir));
  REQUIRE_FALSE(c.has_value());
  CHECK(c.error() == ua::status::bad_connection_rejected);
  CHECK(std::chrono::steady_clock::now() - t0 < 2s);  // refused at once, not by the deadline
  server.join();
  CHECK(seen->target == "/");
  CHECK(seen->upgrade == "websocket");
  CHECK(seen->protocol == "opcua+uacp");  // Part 6 §7.5.2: the client shall request it
  CHECK(seen->version == "13");
  CHECK(seen->host == "127.0.0.1:" + std::to_string(server.port()));
  const auto key = ua::base64_decode(seen->key, 64);
  REQUIRE(key.has_value());
  CHECK(key->size() == 16);  // §4.1: 16 random bytes
}

TEST_CASE("opc.wss native client: no answer to the upgrade ends the connect at its deadline", "[wss]") {
  temp_folder dir("wss-client-silent");
  raw_tls_server server(dir);
  server.run([](rw_stream& st) {
    boost::beast::flat_buffer b;
    raw_tls_server::read_request(st, b);  // and nothing more
  });
  auto o = native_options(server, dir);
  o.connect_timeout = 1s;
  const auto t0 = std::chrono::steady_clock::now();
  auto c = client::connect(o);
  REQUIRE_FALSE(c.has_value());
  CHECK(c.error() == ua::status::bad_timeout);
  CHECK(std::chrono::steady_clock::now() - t0 >= 900ms);
}

TEST_CASE("opc.wss native client: masked frames with a fresh key each, a ping answered, a masked server frame refused",
          "[wss]") {
  temp_folder dir("wss-client-frames");
  raw_tls_server server(dir);
  struct seen_t {
    raw_frame hello, pong, close;
    bool done = false;
  };
  auto seen = std::make_shared<seen_t>();
  server.run([seen](rw_stream& st) {
    boost::beast::flat_buffer b;
    const auto req = raw_tls_server::read_request(st, b);
    // The 101 and a ping in one write: the client reads the frame that follows the answer.
    const std::string ping = "uactor?";
    auto out = raw_tls_server::switching(accept_for(std::string(req[rw_http::field::sec_websocket_key])));
    const auto p = frame(ua::ws_opcode::ping, {reinterpret_cast<const std::uint8_t*>(ping.data()), ping.size()});
    out.append(p.begin(), p.end());
    raw_tls_server::write(st, out);
    seen->hello = raw_tls_server::read_frame(st, b);  // written before the upgrade was done, sent after it
    seen->pong = raw_tls_server::read_frame(st, b);
    // §5.1: a server never masks; the client fails the connection (1002).
    const std::array<std::uint8_t, 4> key{1, 2, 3, 4};
    const std::uint8_t ack[28] = {'A', 'C', 'K', 'F', 28, 0, 0, 0};
    raw_tls_server::write(st, frame(ua::ws_opcode::binary, ack, &key));
    seen->close = raw_tls_server::read_frame(st, b);
    seen->done = true;
  });
  auto c = client::connect(native_options(server, dir));
  REQUIRE_FALSE(c.has_value());
  CHECK(c.error() == ua::status::bad_communication_error);
  server.join();
  REQUIRE(seen->done);
  // The Hello: one binary frame, masked, exactly the chunk (Part 6 §7.5.2).
  CHECK(seen->hello.h.opcode == ua::ws_opcode::binary);
  CHECK(seen->hello.h.masked);
  REQUIRE(seen->hello.payload.size() >= 8);
  CHECK(std::string(seen->hello.payload.begin(), seen->hello.payload.begin() + 4) == "HELF");
  CHECK(seen->hello.payload[4] + (seen->hello.payload[5] << 8) == static_cast<int>(seen->hello.payload.size()));
  // The pong: the ping's data, masked with another key.
  CHECK(seen->pong.h.opcode == ua::ws_opcode::pong);
  CHECK(seen->pong.h.masked);
  CHECK(std::string(seen->pong.payload.begin(), seen->pong.payload.end()) == "uactor?");
  CHECK(seen->pong.h.mask != seen->hello.h.mask);
  // The close: 1002, masked, a third key.
  CHECK(seen->close.h.opcode == ua::ws_opcode::close);
  CHECK(seen->close.h.masked);
  REQUIRE(seen->close.payload.size() == 2);
  CHECK((seen->close.payload[0] << 8 | seen->close.payload[1]) == ua::ws_close::protocol_error);
  CHECK(seen->close.h.mask != seen->pong.h.mask);
}

TEST_CASE("opc.wss native client: the server's close is answered with the same code", "[wss]") {
  temp_folder dir("wss-client-close");
  raw_tls_server server(dir);
  auto seen = std::make_shared<raw_frame>();
  server.run([seen](rw_stream& st) {
    boost::beast::flat_buffer b;
    const auto req = raw_tls_server::read_request(st, b);
    raw_tls_server::write(st, raw_tls_server::switching(accept_for(std::string(req[rw_http::field::sec_websocket_key]))));
    raw_tls_server::read_frame(st, b);  // the Hello
    const std::uint8_t going_away[2] = {0x03, 0xE9};  // 1001
    raw_tls_server::write(st, frame(ua::ws_opcode::close, going_away));
    *seen = raw_tls_server::read_frame(st, b);
  });
  auto c = client::connect(native_options(server, dir));
  REQUIRE_FALSE(c.has_value());
  CHECK(c.error() == ua::status::bad_connection_closed);
  server.join();
  CHECK(seen->h.opcode == ua::ws_opcode::close);
  CHECK(seen->h.masked);
  REQUIRE(seen->payload.size() == 2);
  CHECK((seen->payload[0] << 8 | seen->payload[1]) == 1001);
}

}  // namespace runtime_wss_client_test
