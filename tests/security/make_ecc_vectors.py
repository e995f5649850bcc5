#!/usr/bin/env python3
# ECC test vectors for tests/security/ecc_test.cpp, computed with python3-cryptography (OpenSSL
# underneath, but none of uactor's code): uactor's security/ecc must match them.
#
#   python3 make_ecc_vectors.py [OUT]   (default: <this dir>/ecc_vectors.hpp)
#
# Per ECC policy (Part 7 ECC_nistP256, ECC_nistP384, ECC_brainpoolP256r1, ECC_brainpoolP384r1):
# - two EphemeralKeys from fixed private scalars, as OPC UA sends them (X | Y, Part 6 §6.8.1);
# - their ECDH shared secret;
# - the client and server keys of Part 6 §6.8.1 written from the spec's text here on its own:
#   ClientSalt = L | "opcua-client" | ClientNonce | ServerNonce (L: UInt16 little endian),
#   ServerSalt = L | "opcua-server" | ServerNonce | ClientNonce, HKDF(salt, IKM = secret, info = salt, L),
#   cut into signing key | encrypting key | IV (Tables 67, 68);
# - an ECDSA signature over fixed data with a fixed key, re-encoded from DER to r | s;
# - an EccEncryptedSecret (Part 4 §7.41.2.5 Table 186 over Table 183's layout; Part 6 §6.8.3),
#   the client's EphemeralKey the sender's, the server's the receiver's, the "signer" key the
#   sender's application key: SecretSalt = L | "opcua-secret" | SenderPublicKey | ReceiverPublicKey,
#   HKDF(salt, IKM = ECDH secret, info = salt, L = key + IV), AES-CBC over
#   Nonce | Secret | padding | PaddingSize, ECDSA r | s over all before the signature.
import hashlib
import pathlib
import sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

POLICIES = [
    # name, curve, hash, coordinate bytes, signing key, encrypting key, IV
    ("nistp256", ec.SECP256R1(), hashes.SHA256(), 32, 32, 16, 16),
    ("nistp384", ec.SECP384R1(), hashes.SHA384(), 48, 48, 32, 16),
    ("brainpoolp256r1", ec.BrainpoolP256R1(), hashes.SHA256(), 32, 32, 16, 16),
    ("brainpoolp384r1", ec.BrainpoolP384R1(), hashes.SHA384(), 48, 48, 32, 16),
]

DATA = bytes(range(0x20, 0x20 + 77))  # what the ECDSA vector signs
SECRET = "Passw\u00f6rd-ecc".encode()  # the EccEncryptedSecret's Secret
SECRET_NONCE = bytes(range(0xA0, 0xA0 + 32))  # its Nonce (a session's ServerNonce)
SIGNING_TIME = 133_000_000_000_000_000  # its SigningTime (DateTime ticks)
POLICY_URIS = {
    "nistp256": "http://opcfoundation.org/UA/SecurityPolicy#ECC_nistP256",
    "nistp384": "http://opcfoundation.org/UA/SecurityPolicy#ECC_nistP384",
    "brainpoolp256r1": "http://opcfoundation.org/UA/SecurityPolicy#ECC_brainpoolP256r1",
    "brainpoolp384r1": "http://opcfoundation.org/UA/SecurityPolicy#ECC_brainpoolP384r1",
}


def ua_bytes(b):  # UA Binary ByteString / String: Int32 length | bytes
    return len(b).to_bytes(4, "little", signed=True) + b


def secret_keys(h, secret, sender_pub, receiver_pub, enc_len, iv_len):
    total = enc_len + iv_len
    salt = total.to_bytes(2, "little") + b"opcua-secret" + sender_pub + receiver_pub
    material = HKDF(algorithm=h, length=total, salt=salt, info=salt).derive(secret)
    return material[:enc_len], material[enc_len:]


def ecc_encrypted_secret(name, h, size, shared, sender_pub, receiver_pub, signer, enc_len, iv_len):
    key, iv = secret_keys(h, shared, sender_pub, receiver_pub, enc_len, iv_len)
    payload = ua_bytes(SECRET_NONCE) + ua_bytes(SECRET)
    data_len = len(payload) + 2
    pad = 0 if data_len % iv_len == 0 else iv_len - data_len % iv_len
    if pad + len(SECRET) < iv_len:
        pad += iv_len
    payload += bytes([pad & 0xFF]) * pad + pad.to_bytes(2, "little")
    enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    cipher = enc.update(payload) + enc.finalize()
    body = (ua_bytes(POLICY_URIS[name].encode()) + (-1).to_bytes(4, "little", signed=True)
            + SIGNING_TIME.to_bytes(8, "little")
            + (8 + len(sender_pub) + len(receiver_pub)).to_bytes(2, "little")
            + ua_bytes(sender_pub) + ua_bytes(receiver_pub) + cipher)
    head = bytes([0x01, 0x00]) + (17546).to_bytes(2, "little") + bytes([0x01])
    head += (len(body) + 2 * size).to_bytes(4, "little")
    r, sv = decode_dss_signature(signer.sign(head + body, ec.ECDSA(h)))
    return key, iv, head + body + r.to_bytes(size, "big") + sv.to_bytes(size, "big")


def scalar(label, curve):
    # A fixed private scalar below the curve order (all four orders exceed 2^250).
    return int.from_bytes(hashlib.sha256(label.encode()).digest(), "big") >> 8


def xy(private_key, size):
    n = private_key.public_key().public_numbers()
    return n.x.to_bytes(size, "big") + n.y.to_bytes(size, "big")


def keys(h, secret, label, first, second, sig_len, enc_len, iv_len):
    total = sig_len + enc_len + iv_len
    salt = total.to_bytes(2, "little") + label + first + second
    material = HKDF(algorithm=h, length=total, salt=salt, info=salt).derive(secret)
    return material[:sig_len], material[sig_len:sig_len + enc_len], material[sig_len + enc_len:]


def main():
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).with_name("ecc_vectors.hpp")
    lines = [
        "// Generated by tests/security/make_ecc_vectors.py (python3-cryptography); do not edit.",
        "// Hex unless named *_pem.",
        "#pragma once",
        "",
        "#include <string_view>",
        "",
        "namespace uactor::test::ecc_vectors {",
        "",
        f'inline constexpr std::string_view signed_data = "{DATA.hex()}";',
        f'inline constexpr std::string_view secret = "{SECRET.hex()}";',
        f'inline constexpr std::string_view secret_nonce = "{SECRET_NONCE.hex()}";',
        f'inline constexpr long long secret_signing_time = {SIGNING_TIME};',
    ]
    for name, curve, h, size, sig_len, enc_len, iv_len in POLICIES:
        client = ec.derive_private_key(scalar("uactor client " + name, curve), curve)
        server = ec.derive_private_key(scalar("uactor server " + name, curve), curve)
        cn, sn = xy(client, size), xy(server, size)
        secret = client.exchange(ec.ECDH(), server.public_key())
        assert secret == server.exchange(ec.ECDH(), client.public_key())
        c = keys(h, secret, b"opcua-client", cn, sn, sig_len, enc_len, iv_len)
        s = keys(h, secret, b"opcua-server", sn, cn, sig_len, enc_len, iv_len)
        signer = ec.derive_private_key(scalar("uactor signer " + name, curve), curve)
        r, sv = decode_dss_signature(signer.sign(DATA, ec.ECDSA(h)))
        sig = r.to_bytes(size, "big") + sv.to_bytes(size, "big")

        skey, siv, blob = ecc_encrypted_secret(name, h, size, secret, cn, sn, signer, enc_len, iv_len)

        def pem(k):
            return k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                   serialization.NoEncryption()).decode().replace("\n", "\\n")

        vals = {
            "client_private_pem": pem(client), "server_private_pem": pem(server), "client_nonce": cn.hex(),
            "server_nonce": sn.hex(), "shared_secret": secret.hex(), "client_signing": c[0].hex(),
            "client_encrypting": c[1].hex(), "client_iv": c[2].hex(), "server_signing": s[0].hex(),
            "server_encrypting": s[1].hex(), "server_iv": s[2].hex(), "signer_private_pem": pem(signer),
            "signature": sig.hex(), "secret_encrypting": skey.hex(), "secret_iv": siv.hex(),
            "ecc_encrypted_secret": blob.hex(),
        }
        lines.append("")
        for k, v in vals.items():
            lines.append(f'inline constexpr std::string_view {name}_{k} =\n    "{v}";')
    lines += ["", "}  // namespace uactor::test::ecc_vectors", ""]
    out.write_text("\n".join(lines))


main()
