// The ECC operations of the ECC security policies (Part 6 §6.8, Part 7 ECC_nistP256 ...): key
// pairs on the policy's named curve, EphemeralKeys as they travel (X | Y), ECDH, the HKDF key
// derivation of the secure channel (§6.8.1) and ECDSA signatures as OPC UA encodes them (r | s,
// each one coordinate long). Stateless functions; keys are shared by reference count (rsa_key
// holds any EVP_PKEY, RSA or EC). For ECC_curve25519 / ECC_curve448 each function does what the
// policy asks through security/ecc_edwards.hpp: Ed25519 / Ed448 keys and signatures, X25519 / X448
// EphemeralKeys as their raw public key.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "uactor/ua/expected.hpp"
#include "uactor/ua/status_codes.hpp"
#include "security/key_derivation.hpp"
#include "security/keys.hpp"
#include "security/policy.hpp"

typedef struct evp_md_st EVP_MD;  // NOLINT: OpenSSL's own spelling, no <openssl/evp.h> here

namespace uactor::security {

// The largest EphemeralKey (2 x 48 bytes) of our policies.
inline constexpr std::size_t max_ecc_point_size = 96;
// The largest ECC signature (Ed448: 114 bytes, RFC 8032 §5.2.6) and shared secret (X448: 56).
inline constexpr std::size_t max_ecc_signature_size = 114;
inline constexpr std::size_t max_ecc_secret_size = 56;

// The name of a curve in file names and logs: "nistP256", "nistP384", "brainpoolP256r1",
// "brainpoolP384r1", "curve25519", "curve448" (as Part 7 names the policies); the curve itself for another.
std::string_view curve_label(std::string_view curve) noexcept;
// Where own/ keeps the application certificate for `policy`'s curve: "<base>-ecc-<label>"
// ("uactor-ecc-nistP256"); `base` for an RSA policy.
std::string own_identity_name(std::string_view base, const security_policy& policy);

// A fresh key pair on `curve` (OpenSSL's group name: "prime256v1", "brainpoolP384r1", ..., or
// "ED25519" / "ED448"). Bad_InvalidArgument for a curve OpenSSL does not know, Bad_InternalError
// when it fails.
ua::expected<rsa_key> generate_ecc_key(std::string_view curve);

// The digest a certificate or CSR signed by `key` uses: SHA2-384 on the 384-bit curves, SHA2-256
// for RSA and the 256-bit curves (Part 7), none (null) for Ed25519 / Ed448 (PureEdDSA).
const EVP_MD* certificate_signature_digest(const rsa_key& key) noexcept;

// Whether `key` is an EC key on the policy's curve: what a certificate used with an ECC policy
// must hold (Part 4 §6.1.3 Security Policy Check; the caller answers Bad_CertificatePolicyCheckFailed).
// For an RSA policy: whether `key` is an RSA key.
bool key_fits_policy(const security_policy&, const rsa_key& key) noexcept;

// An EphemeralKey (Part 6 §6.8.1): the private key stays with its creator, `public_bytes` (X | Y,
// 2 x coordinate_size bytes, the uncompressed point without its 0x04 prefix; the raw X25519 /
// X448 public key for curve25519 / curve448) is the nonce.
struct ephemeral_key {
  rsa_key key;
  std::array<std::uint8_t, max_ecc_point_size> bytes{};
  std::size_t size = 0;
  std::span<const std::uint8_t> public_bytes() const noexcept { return {bytes.data(), size}; }
};
ua::expected<ephemeral_key> make_ephemeral_key(const security_policy&);
// The EphemeralKey of a key pair made elsewhere (a test vector's fixed scalar): Bad_InvalidArgument
// when it is not on the policy's curve.
ua::expected<ephemeral_key> ephemeral_key_of(const security_policy&, rsa_key key);

// The public key a peer sent as X | Y (raw for curve25519 / curve448). Bad_NonceInvalid when the
// length is not the policy's SecureChannelNonceLength; Bad_SecurityChecksFailed when the point is
// not on the curve (or is the point at infinity, or OpenSSL's public key check refuses it).
ua::expected<rsa_key> ecc_public_from_bytes(const security_policy&, std::span<const std::uint8_t> xy);

// ECDH (RFC 8422 §5.10): the shared secret, the X coordinate of own_private * peer_public, into
// `out` (coordinate_size bytes); X25519 / X448 (RFC 7748 §6) the same way. False when the keys are
// not on the same curve, OpenSSL fails, or the secret is all zeros (RFC 7748 §6.1: a point of
// small order).
bool ecdh_shared_secret(const rsa_key& own_private, const rsa_key& peer_public, std::span<std::uint8_t> out);

// HKDF (RFC 5869) with the policy's hash, extract then expand, `out.size()` bytes.
bool hkdf(policy_hash hash, std::span<const std::uint8_t> salt, std::span<const std::uint8_t> ikm,
          std::span<const std::uint8_t> info, std::span<std::uint8_t> out);

// Part 6 §6.8.1, steps 1 and 2: with L the length of the key material (signing key + encrypting
// key + IV, as a 16-bit little-endian integer),
//   ClientSalt = L | UTF8("opcua-client") | ClientNonce | ServerNonce
//   ServerSalt = L | UTF8("opcua-server") | ServerNonce | ClientNonce
// and the client's keys = HKDF(salt = ClientSalt, IKM = shared secret, info = ClientSalt, L), the
// server's the same with ServerSalt; each cut as in Tables 67 and 68 (signing key at 0, encrypting
// key after it, IV after both).
channel_keys derive_ecc_channel_keys(const security_policy&, std::span<const std::uint8_t> shared_secret,
                                     std::span<const std::uint8_t> client_nonce,
                                     std::span<const std::uint8_t> server_nonce);

// One side's whole derivation: ECDH of our EphemeralKey with the peer's nonce, then the keys.
// Bad_NonceInvalid / Bad_SecurityChecksFailed as ecc_public_from_bytes says for a bad peer nonce.
ua::expected<channel_keys> ecc_channel_keys(const security_policy&, const ephemeral_key& own,
                                            std::span<const std::uint8_t> peer_nonce,
                                            std::span<const std::uint8_t> client_nonce,
                                            std::span<const std::uint8_t> server_nonce);

// The policy's asymmetric signature over `data` into `out` (ecc_signature_size() bytes): ECDSA with
// the policy's hash encoded as OPC UA sends it, r | s, each left-padded to coordinate_size bytes;
// PureEdDSA (RFC 8032) for curve25519 / curve448. False when the key cannot sign.
bool ecc_sign(const security_policy&, const rsa_key& key, std::span<const std::uint8_t> data, std::span<std::uint8_t> out);
// False for a signature of another length, one that does not verify, or r / s out of range.
bool ecc_verify(const security_policy&, const rsa_key& key, std::span<const std::uint8_t> data,
                std::span<const std::uint8_t> signature);

}  // namespace uactor::security
