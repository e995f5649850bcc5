// Sign / encrypt of MSG and CLO chunks with a secure channel's symmetric keys (Part 6 §6.7.2):
// HMAC-SHA256 signature and AES-CBC, or ChaCha20-Poly1305 for the AEAD policies (§6.7.2.1
// Figure 12). One context per direction and token, owned by the channel; everything is set up at
// construction, so protect/unprotect allocate nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "protocol/secure_chunk.hpp"
#include "security/key_derivation.hpp"
#include "security/policy.hpp"

namespace uactor::ua {
enum class message_security_mode : std::int32_t;  // uactor/ua/types.hpp
}

namespace uactor::security {

class symmetric_context {
public:
  // Throws std::invalid_argument for a mode other than None/Sign/SignAndEncrypt, or Sign/SignAndEncrypt
  // with policy None (programmer errors: the channel negotiated them). Mode None: protect and
  // unprotect do nothing.
  symmetric_context(const security_policy&, ua::message_security_mode mode, const symmetric_keys& keys);
  ~symmetric_context();
  symmetric_context(symmetric_context&&) noexcept;
  symmetric_context& operator=(symmetric_context&&) noexcept;

  // What the chunker and parse_sequence_part need: signature 32 when signing; blocks 16/16 and
  // encrypted = true when encrypting.
  ua::chunk_security chunk_security() const noexcept;
  const security_policy& policy() const noexcept { return *policy_; }
  bool signs() const noexcept { return sign_; }
  bool encrypts() const noexcept { return encrypt_; }

  // AEAD policies (ECC_curve25519, ECC_curve448; docs/decisions/0082): no padding in either mode,
  // the 16-byte tag where the signature goes. The nonce is the derived IV XORed with TokenId and
  // the chunk's SequenceNumber (§6.8.1 Table 69). SignAndEncrypt: the AAD is [0, header_size) and
  // [header_size, size - 16) is encrypted; Sign: the AAD is [0, size - 16), nothing is encrypted.
  //
  // Sender. `chunk`: one whole chunk as ua::message_chunker wrote it with chunk_security()
  // (header and TokenId = `header_size` bytes, sequence header, body, padding, a zeroed signature,
  // final MessageSize). Writes the HMAC of [0, size - 32) into the last 32 bytes, then, when
  // encrypting, encrypts [header_size, size) in place with AES-CBC from the derived IV (each chunk
  // starts from the same IV: Part 6 §6.7.5, RSA policies). Throws std::invalid_argument when the
  // sizes are not those of such a chunk (a programmer error).
  void protect(std::span<std::uint8_t> chunk, std::size_t header_size);

  // Receiver, in place on a mutable copy of one received chunk: checks the sizes first (whole
  // blocks after the header when encrypted, room for sequence header, padding and signature),
  // decrypts [header_size, size) when encrypted, checks the HMAC in constant time over
  // [0, size - 32), then the padding (every padding byte equals PaddingSize, §6.7.2.5).
  // Good or Bad_SecurityChecksFailed; nothing is decoded before the signature was checked.
  // After Good: ua::parse_sequence_part(chunk.subspan(header_size), chunk_security(), ...).
  // `expected_sequence`: the SequenceNumber this chunk must carry (the receiver's sequence check
  // knows it); only an AEAD policy with encryption needs it, to build the nonce before the
  // SequenceNumber is readable. A chunk that carries another number fails its tag.
  ua::status_code unprotect(std::span<std::uint8_t> chunk, std::size_t header_size, std::uint32_t expected_sequence = 0);

private:
  struct state;
  const security_policy* policy_;
  bool sign_ = false;
  bool encrypt_ = false;
  std::unique_ptr<state> s_;
};

}  // namespace uactor::security
