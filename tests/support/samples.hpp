// The test set of valid encodings: node-opcua's vectors (tests/interop/vectors) and messages
// built here. Each sample can be decoded and re-encoded by the name of its type.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "protocol/codec.hpp"
#include "tests/support/bytes.hpp"

namespace uactor::test {

struct sample {
  std::string name;
  std::string kind;  // "builtin" (raw encoding of a built-in type) or "message"
  std::string type;  // "Variant", "ReadRequest", ...
  bytes encoded;
};

// node-opcua's vectors, read from tests/interop/vectors/manifest.json.
std::vector<sample> node_opcua_vectors();

// Messages built with our own types: ReadRequest/ReadResponse of several sizes and the like.
std::vector<sample> built_samples();

// Decodes `in` as the sample's kind and type and, when that succeeds, re-encodes it into `out`.
ua::status_code decode_and_reencode(const sample& s, std::span<const std::uint8_t> in, bytes& out,
                                    const ua::decode_limits& limits = {});

}  // namespace uactor::test
