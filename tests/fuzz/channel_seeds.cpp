// Writes the seeds of the channel fuzz targets from our own client and server talking to each
// other (client_channel_state against secure_channel_state in memory, as channel_security_test
// pairs them): what the client sends seeds server_channel_fuzz, what the server answers seeds
// client_channel_fuzz, and request bodies in secured_chunk_fuzz's records seed that one.
//   channel_seeds --keys DIR   makes the fixed test identities (once; they are committed)
//   channel_seeds OUT          writes OUT/server_channel_seeds, OUT/client_channel_seeds and
//                              OUT/secured_chunk_seeds (tests/fuzz/make_channel_seeds.sh)
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "engine/client/channel_state.hpp"
#include "engine/server/secure_channel_state.hpp"
#include "protocol/message_chunker.hpp"
#include "tests/fuzz/channel_fixture.hpp"

using namespace uactor;
using cevent = actors::client_channel_state::event;
using sevent = actors::secure_channel_state::event;
namespace fs = std::filesystem;

namespace {

void write_file(const fs::path& p, std::span<const std::uint8_t> bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// A seed for a stream target: the split byte, then the stream.
void write_stream_seed(const fs::path& p, std::uint8_t split, std::span<const std::uint8_t> stream) {
  ua::byte_buffer b;
  b.append(&split, 1);
  b.append(stream.data(), stream.size());
  write_file(p, b.bytes());
}

int make_keys(const fs::path& dir) {
  fs::create_directories(dir);
  for (const std::string name : {"server", "client"}) {
    security::certificate_request r;
    r.application_uri = "urn:uactor:fuzz:" + name;
    r.common_name = "uactor fuzz " + name;
    r.host_names = {"localhost"};
    r.validity = std::chrono::hours(24 * 365 * 30);  // the targets do not check it; the seeds outlive it anyway
    auto id = security::create_self_signed(r, security::system_now());
    if (!id) return 1;
    write_file(dir / (name + "_cert.der"), id->cert.der());
    const auto pem = id->private_key.to_private_pem();
    write_file(dir / (name + "_key.pem"), {reinterpret_cast<const std::uint8_t*>(pem.data()), pem.size()});
  }
  return 0;
}

ua::transport_limits small_chunks() {
  ua::transport_limits l;
  l.receive_buffer_size = 8192;
  l.send_buffer_size = 8192;
  return l;
}

// Our client against our server, recording both directions.
struct session {
  std::unique_ptr<actors::secure_channel_state> server;
  std::unique_ptr<actors::client_channel_state> client;
  ua::chunk_reader server_reader{ua::transport_limits{}};
  ua::chunk_reader client_reader{small_chunks()};
  ua::byte_buffer to_server, to_client;  // everything each side sent
  // How the server answers a request: the test's stand-in for the session host.
  std::function<void(actors::secure_channel_state&)> answer;

  session(const security::security_policy& policy, ua::message_security_mode mode) {
    actors::secure_channel_config sc;
    sc.channel_id = 7;
    sc.security = fuzz::make_server_security();
    server = std::make_unique<actors::secure_channel_state>(sc, fuzz::fixed_now());
    actors::client_channel_config cc;
    cc.endpoint_url = "opc.tcp://localhost:4840";
    cc.limits = small_chunks();
    if (!policy.is_none())
      cc.security = {&policy, mode, fuzz::fixed_identity("client").cert, fuzz::fixed_identity("client").key,
                     fuzz::fixed_identity("server").cert, {}, {}};
    client = std::make_unique<actors::client_channel_state>(cc);
    client->write_hello();
    pump();
  }

  void pump() {
    const auto now = fuzz::fixed_now();
    for (int round = 0; round < 20 && (!client->output().empty() || !server->output().empty()); ++round) {
      if (!client->output().empty()) {
        ua::byte_buffer batch;
        std::swap(batch, client->output());
        to_server.append(batch.data(), batch.size());
        (void)server_reader.put(batch.bytes(), [&](const ua::chunk_view& v) {
          const auto ev = server->on_chunk(v, now);
          if (ev == sevent::acknowledged) server_reader.set_receive_buffer_size(server->limits().receive_buffer_size);
          if (ev == sevent::request && answer) answer(*server);
        });
      }
      if (!server->output().empty()) {
        ua::byte_buffer batch;
        std::swap(batch, server->output());
        to_client.append(batch.data(), batch.size());
        (void)client_reader.put(batch.bytes(), [&](const ua::chunk_view& v) {
          if (client->on_chunk(v, now) == cevent::acknowledged) {
            client_reader.set_receive_buffer_size(client->limits().receive_buffer_size);
            (void)client->write_open(now);
          }
        });
      }
    }
  }

  template <class Request>
  void call(Request req, std::uint32_t handle) {
    req.request_header.request_handle = handle;
    req.request_header.timestamp = fuzz::fixed_now().utc;
    (void)client->send_request(req);
    pump();
  }
};

ua::create_session_request create_session() {
  ua::create_session_request r;
  r.client_description.application_uri = ua::ua_string("urn:uactor:fuzz:client");
  r.client_description.application_name.text = ua::ua_string("fuzz client");
  r.endpoint_url = ua::ua_string("opc.tcp://localhost:4840");
  r.session_name = ua::ua_string("fuzz");
  r.requested_session_timeout = 60'000;
  return r;
}

ua::read_request read_two() {
  ua::read_request r;
  r.nodes_to_read.resize(2);
  r.nodes_to_read[0].node_id = ua::node_id(0, 2258);  // Server_ServerStatus_CurrentTime
  r.nodes_to_read[0].attribute_id = 13;
  r.nodes_to_read[1].node_id = ua::node_id(0, 2259);
  r.nodes_to_read[1].attribute_id = 13;
  return r;
}

ua::write_request big_write() {
  ua::write_request w;
  w.nodes_to_write.resize(1);
  w.nodes_to_write[0].node_id = ua::node_id(1, 42);
  w.nodes_to_write[0].attribute_id = 13;
  w.nodes_to_write[0].value.value = ua::variant(ua::ua_string(std::string(20'000, 'w')));
  w.nodes_to_write[0].value.has_value = true;
  return w;
}

// The server's answers: a CreateSession response, a Read response, a large Read response
// (chunked for the client's 8 KiB), and a ServiceFault, by request type.
void answer_requests(actors::secure_channel_state& s) {
  const auto& r = s.request();
  const auto handle = r.header->request_handle;
  if (r.message->get_if<ua::create_session_request>()) {
    ua::create_session_response resp;
    resp.response_header.request_handle = handle;
    resp.response_header.timestamp = fuzz::fixed_now().utc;
    resp.session_id = ua::node_id(1, 100);
    resp.authentication_token = ua::node_id(1, 101);
    resp.revised_session_timeout = 60'000;
    resp.max_request_message_size = 0;
    (void)s.send_response(r.request_id, resp);
  } else if (const auto* read = r.message->get_if<ua::read_request>()) {
    ua::read_response resp;
    resp.response_header.request_handle = handle;
    resp.response_header.timestamp = fuzz::fixed_now().utc;
    resp.results.resize(read->nodes_to_read.size());
    for (auto& v : resp.results) {
      v.value = handle == 3 ? ua::variant(ua::ua_string(std::string(20'000, 'r'))) : ua::variant(std::int32_t{43});
      v.has_value = true;
    }
    (void)s.send_response(r.request_id, resp);
  } else {
    s.send_service_fault(r.request_id, handle, ua::status::bad_service_unsupported, fuzz::fixed_now().utc);
  }
}

void server_and_client_seeds(const fs::path& out) {
  const fs::path server_dir = out / "server_channel_seeds", client_dir = out / "client_channel_seeds";
  fs::create_directories(server_dir);
  fs::create_directories(client_dir);
  {
    session s(security::policy_none(), ua::message_security_mode::none);
    s.answer = answer_requests;
    s.call(create_session(), 1);
    s.call(read_two(), 2);
    s.call(read_two(), 3);      // the large answer: three chunks to the client
    s.call(big_write(), 4);     // three chunks to the server; a ServiceFault back
    s.client->write_close(fuzz::fixed_now());
    s.pump();
    write_stream_seed(server_dir / "none_session", 0, s.to_server.bytes());
    write_stream_seed(server_dir / "none_session_3_byte_reads", 3, s.to_server.bytes());
    write_stream_seed(server_dir / "none_session_640_byte_reads", 40, s.to_server.bytes());
    write_stream_seed(client_dir / "none_session", 0, s.to_client.bytes());
    write_stream_seed(client_dir / "none_session_5_byte_reads", 5, s.to_client.bytes());
    write_stream_seed(client_dir / "none_session_1024_byte_reads", 64, s.to_client.bytes());

    // An abort chunk (Part 6 §6.7.3) for a request, after the open: the server's next sequence number.
    ua::byte_buffer aborted;
    ua::chunk_reader r(ua::transport_limits{});
    std::size_t first_two = 0;
    int chunks = 0;
    (void)r.put(s.to_client.bytes(), [&](const ua::chunk_view& v) {
      if (++chunks <= 2) first_two += v.bytes.size();  // ACK and OPN response
    });
    aborted.append(s.to_client.data(), first_two);
    ua::connection_limits lim;
    lim.send_buffer_size = 8192;
    const ua::message_chunker chunker(lim, ua::status::bad_response_too_large);
    ua::sequence_counter seq(true, 2);
    chunker.write_abort(ua::status::bad_timeout, "the server gave up", {ua::message_type::message, 7, 1, nullptr, 2}, seq,
                        aborted);
    write_stream_seed(client_dir / "none_open_then_abort", 0, aborted.bytes());

    // An ERR after the ACK (Part 6 §7.1.5), and an OPN answered with a ServiceFault.
    ua::byte_buffer err;
    err.append(s.to_client.data(), 28);  // the ACK
    ua::write_message(err, ua::error_message{ua::status::bad_tcp_server_too_busy, ua::ua_string("too busy")});
    write_stream_seed(client_dir / "ack_then_error", 0, err.bytes());
    ua::byte_buffer fault = ua::byte_buffer{};
    fault.append(s.to_client.data(), 28);
    ua::service_fault f;
    f.response_header.request_handle = 1;
    f.response_header.service_result = ua::status::bad_security_policy_rejected;
    ua::byte_buffer body;
    ua::encoder e(body);
    ua::encode_message(e, f);
    ua::asymmetric_security_header none;
    none.security_policy_uri = ua::ua_string(actors::security_policy_none_uri);
    ua::sequence_counter one;
    (void)chunker.write(body.bytes(), {ua::message_type::open, 0, 0, &none, 1}, one, fault);
    write_stream_seed(client_dir / "open_refused_with_service_fault", 0, fault.bytes());
  }
  // Secured OPNs for the server's asymmetric path (the MSGs behind them fail verification in a
  // replay: the server picks a new nonce each time).
  for (unsigned p = 0; p < 2; ++p)
    for (const auto mode : {ua::message_security_mode::sign, ua::message_security_mode::sign_and_encrypt}) {
      session s(fuzz::fuzz_policy(p), mode);
      s.answer = answer_requests;
      s.call(read_two(), 2);
      const std::string name = std::string(fuzz::fuzz_policy(p).name) +
                               (mode == ua::message_security_mode::sign ? "_sign" : "_sign_and_encrypt");
      write_stream_seed(server_dir / name, 0, s.to_server.bytes());
    }
  // Only a Hello; a Hello and garbage.
  session h(security::policy_none(), ua::message_security_mode::none);
  const auto stream = h.to_server.bytes();
  const std::size_t hello_size = stream[4] | std::size_t{stream[5]} << 8;  // MessageSize (Part 6 §7.1.2.2)
  write_stream_seed(server_dir / "hello_only", 0, stream.first(hello_size));
  ua::byte_buffer garbage;
  garbage.append(stream.data(), hello_size);
  const std::uint8_t junk[] = {'M', 'S', 'G', 'F', 24, 0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0};
  garbage.append(junk, sizeof junk);
  write_stream_seed(server_dir / "hello_then_msg_before_open", 0, garbage.bytes());
}

template <class Request>
std::vector<std::uint8_t> encoded(const Request& r) {
  ua::byte_buffer b;
  ua::encoder e(b);
  ua::encode_message(e, r);
  return {b.bytes().begin(), b.bytes().end()};
}

void secured_seeds(const fs::path& out) {
  const fs::path dir = out / "secured_chunk_seeds";
  fs::create_directories(dir);
  auto read = read_two();
  read.request_header.request_handle = 2;
  const auto read_body = encoded(read);
  read.request_header.request_handle = 1;
  const auto read_fault_body = encoded(read);
  auto write = big_write();
  write.request_header.request_handle = 4;
  const auto write_body = encoded(write);
  ua::close_secure_channel_request close;
  close.request_header.request_handle = 5;
  const auto close_body = encoded(close);

  // Selectors 0-3: the RSA policies; 4-7: the ECC lane (ECC_nistP256, ECC_nistP384); 8-11: the
  // AEAD lane (ECC_curve25519, ECC_curve448).
  for (unsigned which = 0; which < 12; ++which) {
    const bool aead = which >= 8;
    const auto& policy = aead ? fuzz::fuzz_ecc_policy(2u + (which & 1u))
                              : (which & 4u) ? fuzz::fuzz_ecc_policy(which & 1u) : fuzz::fuzz_policy(which & 1u);
    const bool encrypt = which & 2u;
    const std::string name = std::string(policy.name) + (encrypt ? "_sign_and_encrypt" : "_sign");
    const auto selector = static_cast<std::uint8_t>(which);
    // A raw plaintext as the chunker lays it out (sequence header 2, request 2, padding), for the
    // layout the policy and mode give; the target signs and encrypts it.
    ua::chunk_security cs;
    cs.signature_size = policy.symmetric_signature_length;
    if (encrypt && !policy.is_aead()) {  // AEAD: no padding (Part 6 §6.7.2.5.2)
      cs.plain_block_size = cs.cipher_block_size = policy.block_size;
      cs.encrypted = true;
    }
    ua::connection_limits lim;
    lim.send_buffer_size = 8192;
    const ua::message_chunker chunker(lim, ua::status::bad_request_too_large, cs);
    ua::byte_buffer chunk;
    ua::sequence_counter seq(true, 2);
    (void)chunker.write(read_body, {ua::message_type::message, 7, 1, nullptr, 2}, seq, chunk);
    const auto plaintext = chunk.bytes().subspan(actors::symmetric_header_size,
                                                 chunk.size() - actors::symmetric_header_size - cs.signature_size);

    ua::byte_buffer s;
    s.append(&selector, 1);
    fuzz::append_record(s, 1, plaintext);  // raw, sequence number 2
    fuzz::append_record(s, 0, read_fault_body);
    fuzz::append_record(s, 0, write_body);  // three chunks
    fuzz::append_record(s, 0, read_body);
    fuzz::append_record(s, 3, close_body);
    write_file(dir / (name + "_session"), s.bytes());

    ua::byte_buffer flipped;
    flipped.append(&selector, 1);
    fuzz::append_record(flipped, 0, read_body);
    fuzz::append_record(flipped, 0 | fuzz::flip_bit, read_body, 0x2000 | 40);
    write_file(dir / (name + "_flipped"), flipped.bytes());

    ua::byte_buffer unsigned_chunk;
    unsigned_chunk.append(&selector, 1);
    fuzz::append_record(unsigned_chunk, 2, plaintext);
    write_file(dir / (name + "_unsigned"), unsigned_chunk.bytes());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--keys") return make_keys(argv[2]);
  if (argc != 2) {
    std::fprintf(stderr, "usage: channel_seeds --keys DIR | channel_seeds OUT_DIR\n");
    return 2;
  }
  server_and_client_seeds(argv[1]);
  secured_seeds(argv[1]);
  return 0;
}
