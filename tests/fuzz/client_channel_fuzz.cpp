// libFuzzer target for the client's response decoding (actors/client/channel_state, Part 6
// §7.1, §6.7): a fresh client channel (policy None, a ReceiveBufferSize of 8 KiB so that chunked
// responses stay small) that has sent its Hello is fed the input as what a hostile server sends:
// the first byte chooses the sizes of the reads (channel_fixture.hpp, read_size), the rest is the
// byte stream (ACK, OPN response, MSG responses of any body, chunked or aborted, ERR). After the
// ACK the client sends its OPN, once open a Read, and for every response the next request: as
// the client actor would. Never a crash, an over-read, a leak; a close always carries a Bad status,
// a response either a message or a Bad status.
#include <cstdint>
#include <cstdio>
#include <string>
#include <cstdlib>

#include "engine/client/channel_state.hpp"
#include "tests/fuzz/channel_fixture.hpp"

using namespace uactor;
using actors::client_channel_state;
using event = client_channel_state::event;

namespace {

// Decodes the responses of odd RequestIds into storage of its own (as a waiting call's), the rest
// into the channel's message: both ways a response lands.
struct odd_storage final : actors::response_storage {
  ua::extension_object slot;
  ua::extension_object* storage_for(std::uint32_t request_id) noexcept override {
    return request_id % 2 == 1 ? &slot : nullptr;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const bool trace = fuzz::trace();
  actors::client_channel_config config;
  config.endpoint_url = "opc.tcp://localhost:4840";
  config.limits.receive_buffer_size = 8192;
  config.limits.send_buffer_size = 8192;
  const auto now = fuzz::fixed_now();
  odd_storage storage;
  client_channel_state client(config);
  client.set_response_storage(&storage);
  ua::chunk_reader reader(config.limits);
  client.write_hello();
  client.clear_output();
  ua::read_request read;
  read.nodes_to_read.resize(1);

  const auto send_read = [&] {
    read.request_header.request_handle += 1;
    // Bad_RequestTooLarge when the server's ACK allowed less (MaxMessageSize is its to choose).
    (void)client.send_request(read);
  };
  (void)fuzz::deliver(reader, {data + 1, size - 1}, data[0], [&](const ua::chunk_view& chunk) {
    const auto ev = client.on_chunk(chunk, now);
    if (trace)
      std::fprintf(stderr, "chunk %c%c%c (%zu bytes): event %d, status %s %s\n", chunk.bytes[0], chunk.bytes[1],
                   chunk.bytes[2], chunk.bytes.size(), static_cast<int>(ev), std::string(client.close_status().name()).c_str(),
                   std::string(client.close_reason()).c_str());
    switch (ev) {
      case event::acknowledged:
        reader.set_receive_buffer_size(client.limits().receive_buffer_size);
        (void)client.write_open(now);  // refused (nothing written) past the ACK's MaxMessageSize
        break;
      case event::opened:
      case event::renewed:
        if (!client.is_open()) std::abort();
        send_read();
        break;
      case event::response: {
        const auto& r = client.response();
        if (r.status.is_good() == (r.message == nullptr)) std::abort();
        if (r.message != nullptr && r.message->body() == nullptr) std::abort();
        send_read();
        break;
      }
      case event::closed:
        if (!client.closed() || client.close_status().is_good()) std::abort();
        break;
      case event::none:
        break;
    }
    if (!fuzz::frames_cleanly(client.output().bytes())) std::abort();
    client.clear_output();
    return ev != event::closed;
  });
  if (client.is_open()) {
    client.write_close(now);
    if (!fuzz::frames_cleanly(client.output().bytes())) std::abort();
  }
  return 0;
}
