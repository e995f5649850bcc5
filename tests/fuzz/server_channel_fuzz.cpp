// libFuzzer target for the server's UA-TCP handshake and chunk path (actors/server/
// secure_channel_state, Part 6 §7.1, §6.7): a fresh channel state, with the server security of
// channel_fixture.hpp (so that an OPN for Basic256Sha256 or Aes128_Sha256_RsaOaep reaches the
// asymmetric checks and decryption), is fed the input as what a socket delivers. The first byte
// chooses the sizes of the reads (channel_fixture.hpp, read_size); the rest is the byte stream,
// framed by the chunk_reader as the connection actor frames it. A request the state hands out is
// answered (a response or a ServiceFault), so that the chunker and the signing run too.
// Never a crash, an over-read, a leak; what the state writes always frames into whole chunks, a
// close is Bad unless a CloseSecureChannel ended the channel.
#include <cstdint>
#include <cstdio>
#include <string>
#include <cstdlib>

#include "engine/server/secure_channel_state.hpp"
#include "tests/fuzz/channel_fixture.hpp"

using namespace uactor;
using actors::secure_channel_state;
using event = secure_channel_state::event;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const bool trace = fuzz::trace();
  static const auto security = fuzz::make_server_security();
  actors::secure_channel_config config;
  config.channel_id = 7;
  config.security = security;
  const auto now = fuzz::fixed_now();
  secure_channel_state state(config, now);
  ua::chunk_reader reader(config.limits);
  ua::read_response read;
  read.results.resize(1);
  read.results[0].value = ua::variant(std::int32_t{43});
  read.results[0].has_value = true;

  const auto check_output = [&] {
    if (!fuzz::frames_cleanly(state.output().bytes())) std::abort();
    state.clear_output();
  };
  const bool framed = fuzz::deliver(reader, {data + 1, size - 1}, data[0], [&](const ua::chunk_view& chunk) {
    (void)state.open_needs_crypto(chunk);
    const auto ev = state.on_chunk(chunk, now);
    if (trace)
      std::fprintf(stderr, "chunk %c%c%c (%zu bytes): event %d, status %s\n", chunk.bytes[0], chunk.bytes[1],
                   chunk.bytes[2], chunk.bytes.size(), static_cast<int>(ev), std::string(state.close_status().name()).c_str());
    switch (ev) {
      case event::acknowledged:
        reader.set_receive_buffer_size(state.limits().receive_buffer_size);
        break;
      case event::request: {
        const auto& r = state.request();
        if (r.header == nullptr || r.message == nullptr || r.message->body() == nullptr) std::abort();
        // Every other request gets a Read response, the rest a ServiceFault: both paths out.
        if (r.header->request_handle % 2 == 0) {
          read.response_header.request_handle = r.header->request_handle;
          (void)state.send_response(r.request_id, read);
        } else {
          state.send_service_fault(r.request_id, r.header->request_handle, ua::status::bad_nothing_to_do, now.utc);
        }
        break;
      }
      case event::close:
        if (!state.closed()) std::abort();
        if (state.close_status().is_good() && chunk.type != ua::message_type::close) std::abort();
        break;
      case event::none:
        break;
    }
    check_output();
    return ev != event::close;
  });
  (void)framed;
  (void)state.on_tick(now);
  check_output();
  return 0;
}
