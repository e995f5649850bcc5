// The EccEncryptedSecret (Part 4 §7.41.2.5 in 1.05.04, §7.40.2.5 in 1.05.05; the key derivation of
// Part 6 §6.8.3): how a password (or an issued token's data) travels under an ECC security policy,
// which has no asymmetric encryption. The sender makes an EphemeralKey, ECDH with the receiver's
// EphemeralKey gives the shared secret, HKDF turns it into an AES key and IV, and the whole
// structure is signed with the sender's application key (ECDSA, r | s).
//
// On the wire (UA Binary, Part 4 Table 186 over the EncryptedSecret layout of Table 183):
//   TypeId NodeId (i=17546) | EncodingMask Byte (1) | Length UInt32 (bytes after it, signature included)
//   | SecurityPolicyUri String | Certificate ByteString (the signer's chain, or null: the client's
//   application certificate) | SigningTime DateTime | KeyDataLength UInt16
//   | KeyData = SenderPublicKey ByteString | ReceiverPublicKey ByteString   (not encrypted)
//   | encrypted payload = Nonce ByteString | Secret ByteString | PayloadPadding | PayloadPaddingSize UInt16
//   | Signature (r | s) over everything before it.
// Stateless functions; docs/decisions/0071.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "uactor/ua/builtin_types.hpp"
#include "uactor/ua/expected.hpp"
#include "uactor/ua/status_codes.hpp"
#include "security/ecc.hpp"
#include "security/keys.hpp"
#include "security/policy.hpp"

namespace uactor::security {

// The DataType NodeId of EccEncryptedSecret (ns=0).
inline constexpr std::uint32_t ecc_encrypted_secret_type_id = 17546;
// What a receiver takes at most (the whole structure): a password, a certificate chain of a few
// KiB and the fields around them fit many times over.
inline constexpr std::size_t max_ecc_encrypted_secret_size = 64 * 1024;
// The largest Secret inside it.
inline constexpr std::size_t max_ecc_secret_length = 16 * 1024;

// Part 6 §6.8.3: with L = EncryptingKeyLength + InitializationVectorLength (a 16-bit little-endian
// integer), SecretSalt = L | UTF8("opcua-secret") | SenderPublicKey | ReceiverPublicKey; the keying
// material = HKDF(salt = SecretSalt, IKM = shared secret, info = SecretSalt, L), cut into the
// encrypting key (at 0) and the IV (after it). No signing key: the signature is asymmetric.
struct ecc_secret_keys {
  std::array<std::uint8_t, 32> encrypting_key{};
  std::array<std::uint8_t, 16> iv{};
  std::size_t key_length = 0;  // the policy's encrypting_key_length: 16 or 32
  std::size_t iv_length = 0;   // the policy's InitializationVectorLength: 16, 12 for ChaCha20-Poly1305
};
ecc_secret_keys derive_ecc_secret_keys(const security_policy&, std::span<const std::uint8_t> shared_secret,
                                       std::span<const std::uint8_t> sender_public,
                                       std::span<const std::uint8_t> receiver_public);

// The sender's side: `secret` encrypted for the receiver whose EphemeralKey is `receiver_public`
// (X | Y), with our EphemeralKey `sender`, `nonce` (the session's last ServerNonce) in the payload,
// signed with `signing_key` (our application key on the policy's curve). `signing_certificate` goes
// in the Certificate field (empty: null, the receiver knows it). Null on a failure (a key not on
// the curve, a receiver key refused, a secret over max_ecc_secret_length).
ua::byte_string encrypt_ecc_secret(const security_policy&, const rsa_key& signing_key,
                                   std::span<const std::uint8_t> signing_certificate, ua::date_time signing_time,
                                   const ephemeral_key& sender, std::span<const std::uint8_t> receiver_public,
                                   std::span<const std::uint8_t> nonce, std::span<const std::uint8_t> secret);

// The receiver's side. `sender_public`: the key of the sender's application certificate (the
// client's, for a UserIdentityToken); `sender_certificate_der`: that certificate, which a non-null
// Certificate field must start with. `receiver`: our EphemeralKey whose public half the sender
// used; `nonce`: the ServerNonce the payload must hold.
// The checks, in order: the structure within `blob` and the bounds above (TypeId, EncodingMask 1,
// Length = what follows, SecurityPolicyUri = the policy's, KeyDataLength = the two keys' encoding,
// each key of the policy's length, ReceiverPublicKey = ours), the signature, then the decryption,
// the padding (every byte the size's low byte, the size within the payload), the Nonce and that
// nothing follows the Secret but the padding. Bad_IdentityTokenInvalid for a malformed structure,
// another nonce, a bad padding; Bad_SecurityChecksFailed for a signature that does not verify, a
// SenderPublicKey not on the curve, or a Certificate that is not the sender's. `why` says which.
ua::expected<ua::byte_string> decrypt_ecc_secret(const security_policy&, const rsa_key& sender_public,
                                                 std::span<const std::uint8_t> sender_certificate_der,
                                                 const ephemeral_key& receiver, std::span<const std::uint8_t> nonce,
                                                 std::span<const std::uint8_t> blob, std::string* why = nullptr);

// Whether `blob` starts as an EccEncryptedSecret (its TypeId and EncodingMask): how a receiver
// tells it from a password sent as it is.
bool looks_like_ecc_encrypted_secret(std::span<const std::uint8_t> blob) noexcept;

}  // namespace uactor::security
