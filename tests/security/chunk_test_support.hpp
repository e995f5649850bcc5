// Shared by the symmetric chunk tests (symmetric_test.cpp, ecc_edwards_test.cpp): one message laid
// out by the chunker for a symmetric_context, body bytes i * 7 + 1, SequenceNumbers from 5.
#pragma once

#include <cstddef>
#include <cstdint>

#include <catch2/catch.hpp>

#include "protocol/message_chunker.hpp"
#include "protocol/secure_chunk.hpp"
#include "security/symmetric.hpp"
#include "tests/support/bytes.hpp"

namespace uactor::test {

// One message of `body_size` bytes as the chunker lays it out for `ctx` (chunks of `chunk_size`):
// SecureChannelId 7, TokenId 3, RequestId 9, the first SequenceNumber 5.
inline ua::byte_buffer chunked(const security::symmetric_context& ctx, std::size_t body_size, std::uint32_t chunk_size,
                               std::size_t* chunk_count = nullptr) {
  ua::connection_limits limits;
  limits.send_buffer_size = chunk_size;
  const ua::message_chunker chunker(limits, ua::status::bad_response_too_large, ctx.chunk_security());
  bytes body(body_size);
  for (std::size_t i = 0; i < body_size; ++i) body[i] = static_cast<std::uint8_t>(i * 7 + 1);
  ua::chunk_target target;
  target.secure_channel_id = 7;
  target.token_id = 3;
  target.request_id = 9;
  ua::sequence_counter seq(true, 5);
  ua::byte_buffer out;
  const auto n = chunker.write(body, target, seq, out);
  REQUIRE(n);
  if (chunk_count) *chunk_count = *n;
  return out;
}

}  // namespace uactor::test
