#include "tests/support/raw_peer.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace uactor::test {

namespace {

using clock = std::chrono::steady_clock;

int remaining_ms(clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(left);
}

// Waits for `events` on fd until the deadline: true when ready (or in error/hang-up, which the
// following call reports).
bool wait_for(int fd, short events, clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, remaining_ms(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return true;
  }
}

constexpr std::size_t max_chunk = 16u << 20;

}  // namespace

std::string_view to_string(io_result r) noexcept {
  switch (r) {
    case io_result::ok: return "ok";
    case io_result::closed: return "closed";
    case io_result::timeout: return "timeout";
    case io_result::error: return "error";
  }
  return "?";
}

std::string raw_chunk::type() const {
  if (data.size() < 3) return {};
  return std::string(reinterpret_cast<const char*>(data.data()), 3);
}

raw_peer::raw_peer(std::uint16_t port, milliseconds timeout, int receive_buffer) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return;
  // Before connect, so that the window the server sees is small from the start.
  if (receive_buffer > 0) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const auto deadline = clock::now() + timeout;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    if (errno != EINPROGRESS || !wait_for(fd, POLLOUT, deadline)) {
      ::close(fd);
      return;
    }
    int err = 0;
    socklen_t len = sizeof err;
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
      ::close(fd);
      return;
    }
  }
  fd_ = fd;
}

raw_peer::raw_peer(raw_peer&& o) noexcept : fd_(std::exchange(o.fd_, -1)), sent_(o.sent_) {}

raw_peer::~raw_peer() { close(); }

void raw_peer::close(bool reset) {
  if (fd_ < 0) return;
  if (reset) {
    linger l{1, 0};  // SO_LINGER 0: close sends an RST
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  }
  ::close(fd_);
  fd_ = -1;
}

io_result raw_peer::send(std::span<const std::uint8_t> data, milliseconds timeout) {
  if (fd_ < 0) return io_result::error;
  const auto deadline = clock::now() + timeout;
  std::size_t done = 0;
  while (done < data.size()) {
    const auto n = ::send(fd_, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      sent_ += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (clock::now() >= deadline || !wait_for(fd_, POLLOUT, deadline)) return io_result::timeout;
      continue;
    }
    return (errno == EPIPE || errno == ECONNRESET) ? io_result::closed : io_result::error;
  }
  return io_result::ok;
}

io_result raw_peer::send(std::string_view data, milliseconds timeout) {
  return send(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()), timeout);
}

io_result raw_peer::receive_some(std::size_t max, bytes& out, milliseconds timeout) {
  if (fd_ < 0) return io_result::error;
  const auto deadline = clock::now() + timeout;
  const std::size_t at = out.size();
  out.resize(at + max);
  for (;;) {
    const auto n = ::recv(fd_, out.data() + at, max, 0);
    if (n > 0) {
      out.resize(at + static_cast<std::size_t>(n));
      return io_result::ok;
    }
    if (n == 0) {
      out.resize(at);
      return io_result::closed;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (clock::now() < deadline && wait_for(fd_, POLLIN, deadline)) continue;
      out.resize(at);
      return io_result::timeout;
    }
    out.resize(at);
    return errno == ECONNRESET ? io_result::closed : io_result::error;
  }
}

io_result raw_peer::receive_exactly(std::size_t n, bytes& out, milliseconds timeout) {
  const auto deadline = clock::now() + timeout;
  const std::size_t want = out.size() + n;
  while (out.size() < want) {
    const auto r = receive_some(want - out.size(), out, std::chrono::duration_cast<milliseconds>(deadline - clock::now()));
    if (r != io_result::ok) return r;
  }
  return io_result::ok;
}

raw_chunk raw_peer::read_chunk(milliseconds timeout) {
  const auto deadline = clock::now() + timeout;
  raw_chunk c;
  c.result = receive_exactly(ua::message_header_size, c.data, timeout);
  if (c.result != io_result::ok) return c;
  const std::size_t size = static_cast<std::size_t>(c.data[4]) | static_cast<std::size_t>(c.data[5]) << 8 |
                           static_cast<std::size_t>(c.data[6]) << 16 | static_cast<std::size_t>(c.data[7]) << 24;
  if (size < ua::message_header_size || size > max_chunk) {
    c.result = io_result::error;
    return c;
  }
  c.result = receive_exactly(size - ua::message_header_size, c.data,
                             std::chrono::duration_cast<milliseconds>(deadline - clock::now()));
  return c;
}

io_result raw_peer::wait_closed(milliseconds timeout) {
  const auto deadline = clock::now() + timeout;
  bytes drop;
  for (;;) {
    drop.clear();
    const auto r = receive_some(65536, drop, std::chrono::duration_cast<milliseconds>(deadline - clock::now()));
    if (r != io_result::ok) return r;
  }
}

ua::status_code raw_peer::read_error(milliseconds timeout) {
  const auto c = read_chunk(timeout);
  if (c.result != io_result::ok) return ua::status::bad_no_data;
  if (c.type() != "ERR") return ua::status::bad_unexpected_error;
  ua::error_message err;
  if (const auto sc = ua::read_message(c.data, err); sc.is_bad()) return ua::status::bad_decoding_error;
  return err.error;
}

// ---------------------------------------------------------------------------------------------

ua::status_code received::service_result() const {
  if (msg.empty() || !msg.body()) return ua::status::good;
  // Every response begins with its ResponseHeader (Part 4 §7.34): Timestamp, RequestHandle,
  // ServiceResult after the encoding id.
  ua::byte_buffer b;
  ua::encoder e(b);
  ua::encode_message(e, *msg.body());
  ua::decoder d(b.bytes());
  ua::node_id type_id;
  ua::decode(d, type_id);
  ua::date_time timestamp;
  ua::decode(d, timestamp);
  (void)d.read<std::uint32_t>();
  const auto sc = d.read<std::uint32_t>();
  return d.ok() ? ua::status_code(sc) : ua::status::bad_decoding_error;
}

std::string received::describe() const {
  if (result != io_result::ok) return std::string(to_string(result));
  if (!problem.empty()) return type + " " + problem;
  if (type == "ERR") return "ERR " + std::string(err.error.name()) + " (" + std::string(err.reason.view()) + ")";
  if (type == "MSG" || type == "OPN") {
    const auto sc = service_result();
    return type + (sc.is_bad() ? " " + std::string(sc.name()) : std::string(" Good"));
  }
  return type;
}

ua_codec::ua_codec(std::string url) : endpoint_url(std::move(url)) {
  limits.send_buffer_size = limits.receive_buffer_size = ours.receive_buffer_size;
}

ua::byte_buffer ua_codec::hello() const {
  ua::byte_buffer b;
  ua::write_message(b, ua::make_hello(ours, endpoint_url));
  return b;
}

ua::byte_buffer ua_codec::open(std::uint32_t lifetime_ms) {
  ua::open_secure_channel_request req;
  req.request_header.request_handle = ++handle;
  req.request_type = ua::security_token_request_type::issue;
  req.security_mode = ua::message_security_mode::none;
  req.requested_lifetime = lifetime_ms;
  ua::asymmetric_security_header asym;
  asym.security_policy_uri = ua::ua_string("http://opcfoundation.org/UA/SecurityPolicy#None");
  ua::byte_buffer encoded;
  ua::encoder e(encoded);
  ua::encode_message(e, req);
  return chunks(ua::message_type::open, encoded.bytes(), &asym);
}

ua::byte_buffer ua_codec::chunks(ua::message_type type, std::span<const std::uint8_t> encoded,
                                 const ua::asymmetric_security_header* asym, std::size_t chunk_size) {
  ua::connection_limits l = limits;
  if (chunk_size != 0) l.send_buffer_size = static_cast<std::uint32_t>(chunk_size);
  l.send_max_chunk_count = 0;    // the server's limits are what a hostile test probes
  l.send_max_message_size = 0;
  const ua::message_chunker chunker(l, ua::status::bad_request_too_large);
  const ua::chunk_target target{type, channel_id, token_id, asym, ++last_request_id};
  ua::byte_buffer out;
  (void)chunker.write(encoded, target, sequence, out);
  return out;
}

bool ua_codec::take(std::span<const std::uint8_t> chunk, received& r) {
  r.type = chunk.size() >= 3 ? std::string(reinterpret_cast<const char*>(chunk.data()), 3) : std::string();
  if (r.type == "ACK") {
    if (const auto sc = ua::read_message(chunk, r.ack); sc.is_bad()) r.problem = std::string(sc.name());
    auto accepted = ua::accept_acknowledge(r.ack, ua::make_hello(ours, endpoint_url));
    if (!accepted) r.problem = "ACK refused: " + std::string(accepted.error().name());
    else limits = *accepted;
    return true;
  }
  if (r.type == "ERR") {
    if (const auto sc = ua::read_message(chunk, r.err); sc.is_bad()) r.problem = std::string(sc.name());
    return true;
  }
  ua::secure_chunk sc;
  ua::asymmetric_security_header asym;
  if (const auto st = ua::parse_secure_chunk(chunk, sc, r.type == "OPN" ? &asym : nullptr); st.is_bad()) {
    r.problem = "unparsable chunk: " + std::string(st.name());
    return true;
  }
  auto a = assembler.add(sc);
  if (!a) {
    r.problem = "chunk refused: " + std::string(a.error().name());
    return true;
  }
  if (a->what != ua::message_assembler::outcome::complete) return false;
  r.channel_id = sc.secure_channel_id;
  r.token_id = sc.token_id;
  r.request_id = a->request_id;
  if (const auto st = ua::decode_message(a->body, r.msg); st.is_bad()) {
    r.problem = "undecodable response: " + std::string(st.name());
    return true;
  }
  if (const auto* resp = r.msg.get_if<ua::open_secure_channel_response>()) {
    channel_id = resp->security_token.channel_id;
    token_id = resp->security_token.token_id;
  }
  return true;
}

received ua_codec::next(raw_peer& peer, milliseconds timeout) {
  const auto deadline = clock::now() + timeout;
  for (;;) {
    received r;
    const auto c = peer.read_chunk(std::chrono::duration_cast<milliseconds>(deadline - clock::now()));
    if (c.result != io_result::ok) {
      r.result = c.result;
      return r;
    }
    if (take(c.data, r)) return r;
  }
}

std::vector<received> ua_codec::read_all(std::span<const std::uint8_t> stream) {
  std::vector<received> out;
  received r;
  while (!stream.empty()) {
    if (stream.size() < ua::message_header_size) break;
    const std::size_t size = static_cast<std::size_t>(stream[4]) | static_cast<std::size_t>(stream[5]) << 8 |
                             static_cast<std::size_t>(stream[6]) << 16 | static_cast<std::size_t>(stream[7]) << 24;
    if (size < ua::message_header_size || size > stream.size()) break;
    if (take(stream.first(size), r)) {
      out.push_back(std::move(r));
      r = received{};
    }
    stream = stream.subspan(size);
  }
  if (!stream.empty()) {
    received partial;
    partial.problem = "a partial chunk of " + std::to_string(stream.size()) + " bytes";
    out.push_back(std::move(partial));
  }
  return out;
}

std::string open_session(raw_peer& peer, ua_codec& codec, milliseconds timeout) {
  const auto deadline = clock::now() + timeout;
  auto left = [&] { return std::chrono::duration_cast<milliseconds>(deadline - clock::now()); };
  if (!peer.connected()) return "connect failed";
  if (peer.send(codec.hello(), left()) != io_result::ok) return "HEL not sent";
  if (auto r = codec.next(peer, left()); r.type != "ACK" || !r.problem.empty()) return "at HEL: " + r.describe();
  if (peer.send(codec.open(), left()) != io_result::ok) return "OPN not sent";
  if (auto r = codec.next(peer, left()); r.type != "OPN" || !r.problem.empty() || r.service_result().is_bad())
    return "at OPN: " + r.describe();

  ua::create_session_request cs;
  cs.client_description.application_uri = ua::ua_string("urn:uactor:tests:raw_peer");
  cs.client_description.application_type = ua::application_type::client;
  cs.endpoint_url = ua::ua_string(codec.endpoint_url);
  cs.session_name = ua::ua_string("raw_peer");
  cs.client_nonce = ua::byte_string(std::string(32, 'n'));
  cs.requested_session_timeout = 60'000;
  if (peer.send(codec.request(cs), left()) != io_result::ok) return "CreateSession not sent";
  auto r = codec.next(peer, left());
  const auto* created = r.msg.get_if<ua::create_session_response>();
  if (!created || r.service_result().is_bad()) return "at CreateSession: " + r.describe();
  codec.authentication_token = created->authentication_token;

  ua::ua_string policy_id("anonymous");
  for (const auto& ep : created->server_endpoints)
    for (const auto& p : ep.user_identity_tokens)
      if (p.token_type == ua::user_token_type::anonymous) policy_id = p.policy_id;
  ua::activate_session_request as;
  as.user_identity_token = ua::anonymous_identity_token{policy_id};
  if (peer.send(codec.request(as), left()) != io_result::ok) return "ActivateSession not sent";
  r = codec.next(peer, left());
  if (!r.msg.get_if<ua::activate_session_response>() || r.service_result().is_bad())
    return "at ActivateSession: " + r.describe();
  return {};
}

ua::read_request read_of_the_answer() {
  ua::read_request req;
  ua::read_value_id id;
  id.node_id = ua::node_id::string(1, "the.answer");
  id.attribute_id = 13;  // Value (Part 6 Annex A.1)
  req.nodes_to_read.push_back(id);
  return req;
}

std::string read_the_answer(std::uint16_t port, milliseconds timeout) {
  const auto deadline = clock::now() + timeout;
  auto left = [&] { return std::chrono::duration_cast<milliseconds>(deadline - clock::now()); };
  raw_peer peer(port, left());
  ua_codec codec;
  if (auto failed = open_session(peer, codec, left()); !failed.empty()) return failed;
  if (peer.send(codec.request(read_of_the_answer()), left()) != io_result::ok) return "Read not sent";
  const auto r = codec.next(peer, left());
  const auto* resp = r.msg.get_if<ua::read_response>();
  if (!resp || r.service_result().is_bad()) return "at Read: " + r.describe();
  if (resp->results.size() != 1) return "Read: " + std::to_string(resp->results.size()) + " results";
  if (resp->results[0].status.is_bad()) return "Read: " + std::string(resp->results[0].status.name());
  const auto* v = resp->results[0].value.get_if<std::int32_t>();
  if (!v) return "Read: not an Int32";
  // Part 6 §7.1.4: CloseSecureChannel, and the server closes the connection.
  ua::close_secure_channel_request clo;
  ua::byte_buffer encoded;
  ua::encoder e(encoded);
  ua::encode_message(e, clo);
  (void)peer.send(codec.chunks(ua::message_type::close, encoded.bytes()), left());
  if (const auto closed = peer.wait_closed(left()); closed != io_result::closed)
    return "after CLO: " + std::string(to_string(closed));
  return std::to_string(*v);
}

}  // namespace uactor::test
