// Sign / encrypt of OPN chunks (Part 6 §6.7.2, §6.7.4): the sender signs with its private key and
// encrypts with the receiver's public key (from its certificate), RSA block by block. One context
// per OpenSecureChannel exchange, owned by the channel; keys are shared by reference count.
// ECC policies (Part 6 §6.8.1): the OPN is signed with ECDSA (r | s) and not encrypted; both keys
// are EC keys on the policy's curve.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "protocol/byte_buffer.hpp"
#include "protocol/secure_chunk.hpp"
#include "security/keys.hpp"
#include "security/openssl.hpp"
#include "security/policy.hpp"

namespace uactor::security {

// Good, or Bad_CertificatePolicyCheckFailed when the key's type (RSA, or EC on the policy's curve)
// or its length (MinAsymmetricKeyLength..MaxAsymmetricKeyLength) does not fit the policy (Part 7;
// Part 4 §6.1.3 lists both as policy checks).
ua::status_code check_key_length(const security_policy&, const rsa_key&) noexcept;

class asymmetric_context {
public:
  // Throws std::invalid_argument for policy None, a null key, an `own_private` without its
  // private part, or keys OpenSSL refuses for the policy (programmer errors: check_key_length
  // and the certificate checks come first).
  asymmetric_context(const security_policy&, rsa_key own_private, rsa_key peer_public);

  // For ua::message_chunker when we send: signature = own key bytes, cipher block = peer key
  // bytes, plain block = that - OAEP overhead (42 SHA-1, 66 SHA-256), ExtraPaddingSize when the
  // peer key (the encrypting one) is over 2048 bits (§6.7.2.5).
  ua::chunk_security send_security() const noexcept;
  // When we receive: signature = peer key bytes, blocks from our key.
  ua::chunk_security receive_security() const noexcept;
  const security_policy& policy() const noexcept { return *policy_; }

  // Sender: `plain` is one OPN chunk as message_chunker wrote it with send_security() (MessageSize
  // already the encrypted size, signature and the room after the plaintext zero); `header_size`
  // = 12 + asymmetric security header. Signs [0, header_size + plaintext - signature) with our key,
  // encrypts the plaintext after the header block by block with the peer's key and appends the
  // wire chunk (header copied) to `out`. Good, or Bad_InternalError when `plain` is not laid out
  // for send_security() or OpenSSL fails.
  ua::status_code protect(std::span<const std::uint8_t> plain, std::size_t header_size, ua::byte_buffer& out);

  // Receiver: checks the sizes (cipher text a whole, non-zero number of our key's blocks), decrypts
  // block by block with our key into `plain` (cleared; the header copied first), verifies the
  // signature with the peer's key, then the padding (§6.7.2.5). Good or Bad_SecurityChecksFailed.
  // Then ua::parse_sequence_part(plain.bytes().subspan(header_size), receive_security(), ...).
  ua::status_code unprotect(std::span<const std::uint8_t> chunk, std::size_t header_size, ua::byte_buffer& plain);

private:
  const security_policy* policy_;
  rsa_key own_;
  rsa_key peer_;
  evp_pkey_ctx_ptr encrypt_;  // peer's public key
  evp_pkey_ctx_ptr decrypt_;  // our private key
};

}  // namespace uactor::security
