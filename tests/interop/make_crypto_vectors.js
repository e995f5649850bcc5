#!/usr/bin/env node
// Crypto test vectors from node-opcua for tests/security (uactor's security/ must match them):
//
//   node make_crypto_vectors.js [OUT]   (default: <this dir>/../security/crypto_vectors.hpp)
//
// (node-opcua logs warnings on stdout, so the header is written to a file, not to stdout.)
//
// - P_SHA256 (node-opcua-crypto makePseudoRandomBuffer) of fixed secret and seed;
// - per RSA policy, the client and server keys node-opcua-secure-channel's computeDerivedKeys
//   derives from fixed nonces, and one MSG chunk signed (HMAC-SHA256) and encrypted (AES-CBC)
//   with the server keys, built with node-opcua-crypto's primitives the way a chunk is laid out
//   (Part 6 §6.7.2): deterministic, so our protect() must give the same bytes;
// - per RSA policy, one OPN chunk signed with the sender's key and encrypted block by block
//   with the receiver's public key by the policy's cryptoFactory. RSA keys are generated on each
//   run and OAEP/PSS are randomised, so this part differs between runs: our unprotect() must
//   accept whatever this script wrote.
"use strict";

const crypto = require("crypto");
const { makePseudoRandomBuffer, makePrivateKeyFromPem } = require("node-opcua-crypto");
const { getCryptoFactory, computeDerivedKeys, SecurityPolicy } = require("node-opcua-secure-channel");

const hex = (b) => Buffer.from(b).toString("hex");
const bytes = (n, f) => Buffer.from(Array.from({ length: n }, (_, i) => f(i) & 0xff));

const out = [];
const emit = (name, value) => out.push(`inline constexpr std::string_view ${name} =\n    "${value}";`);

// --- P_SHA256
const secret = bytes(32, (i) => i + 1);
const seed = bytes(32, (i) => 0xa0 + i);
emit("p_sha256_secret", hex(secret));
emit("p_sha256_seed", hex(seed));
emit("p_sha256_100", hex(makePseudoRandomBuffer(secret, seed, 100, "SHA256").subarray(0, 100)));

const client_nonce = bytes(32, (i) => 3 * i + 7);
const server_nonce = bytes(32, (i) => 251 - 5 * i);
emit("client_nonce", hex(client_nonce));
emit("server_nonce", hex(server_nonce));

const policies = [
  ["basic256sha256", SecurityPolicy.Basic256Sha256],
  ["aes128_sha256_rsaoaep", SecurityPolicy.Aes128_Sha256_RsaOaep],
  ["aes256_sha256_rsapss", SecurityPolicy.Aes256_Sha256_RsaPss],
];

function u32(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v >>> 0); return b; }
function ua_bytes(b) { return b === null ? u32(0xffffffff) : Buffer.concat([u32(b.length), b]); }

// Padding fields (§6.7.2.5) so that sequence header + body + padding fields + signature fill
// whole plain blocks: PaddingSize and the padding bytes all hold the count (ExtraPaddingSize when
// the cipher block is over 256 bytes).
function padding(plainLength, plainBlock, extra) {
  const fixed = plainLength + 1 + (extra ? 1 : 0);
  const count = (plainBlock - (fixed % plainBlock)) % plainBlock;
  const p = Buffer.alloc(count + 1 + (extra ? 1 : 0), count & 0xff);
  if (extra) p[p.length - 1] = count >> 8;
  return p;
}

const body = bytes(50, (i) => 0x40 + i);
emit("msg_body", hex(body));

const sender = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
const receiver = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
const pem = (k) => k.export({ type: "pkcs8", format: "pem" });
const pub_pem = (k) => k.export({ type: "spki", format: "pem" });
emit("opn_sender_private_pem", pem(sender.privateKey).replace(/\n/g, "\\n"));
emit("opn_receiver_private_pem", pem(receiver.privateKey).replace(/\n/g, "\\n"));

for (const [name, uri] of policies) {
  const f = getCryptoFactory(uri);
  const keys = computeDerivedKeys(f, server_nonce, client_nonce);
  for (const [side, k] of [["client", keys.derivedClientKeys], ["server", keys.derivedServerKeys]]) {
    emit(`${name}_${side}_signing`, hex(k.signingKey));
    emit(`${name}_${side}_encrypting`, hex(k.encryptingKey));
    emit(`${name}_${side}_iv`, hex(k.initializationVector));
  }

  // MSG, SignAndEncrypt, with the server's keys: channel 7, token 3, sequence 5, request 9.
  const k = keys.derivedServerKeys;
  const seq = Buffer.concat([u32(5), u32(9)]);
  const pad = padding(seq.length + body.length + k.signatureLength, k.encryptingBlockSize, false);
  const plain = Buffer.concat([seq, body, pad]);
  const size = 16 + plain.length + k.signatureLength;
  const head = Buffer.concat([Buffer.from("MSGF"), u32(size), u32(7), u32(3)]);
  const unsigned = Buffer.concat([head, plain]);
  const sig = crypto.createHmac("sha256", k.signingKey).update(unsigned).digest();
  const cipher = crypto.createCipheriv(f.symmetricEncryptionAlgorithm, k.encryptingKey, k.initializationVector);
  cipher.setAutoPadding(false);
  const enc = Buffer.concat([cipher.update(Buffer.concat([plain, sig])), cipher.final()]);
  emit(`${name}_msg_sign_and_encrypt`, hex(Buffer.concat([head, enc])));

  // The same chunk, Sign only (no padding).
  const plain_s = Buffer.concat([seq, body]);
  const head_s = Buffer.concat([Buffer.from("MSGF"), u32(16 + plain_s.length + 32), u32(7), u32(3)]);
  const sig_s = crypto.createHmac("sha256", k.signingKey).update(Buffer.concat([head_s, plain_s])).digest();
  emit(`${name}_msg_sign`, hex(Buffer.concat([head_s, plain_s, sig_s])));

  // OPN from `sender` to `receiver`: asymmetric header with a stand-in certificate (the layout is
  // what matters here), sequence 1, request 1, the same body.
  const asym = Buffer.concat([ua_bytes(Buffer.from(uri)), ua_bytes(bytes(40, (i) => i)), ua_bytes(bytes(20, (i) => 0xee))]);
  const sig_size = 256, cipher_block = 256, plain_block = 256 - f.blockPaddingSize;
  const seq_o = Buffer.concat([u32(1), u32(1)]);
  const pad_o = padding(seq_o.length + body.length + sig_size, plain_block, false);
  const plain_o = Buffer.concat([seq_o, body, pad_o]);
  const blocks = (plain_o.length + sig_size) / plain_block;
  if (!Number.isInteger(blocks)) throw new Error("OPN padding");
  const head_o = Buffer.concat([Buffer.from("OPNF"), u32(12 + asym.length + blocks * cipher_block), u32(0), asym]);
  const priv = makePrivateKeyFromPem(pem(sender.privateKey));
  const sig_o = f.asymmetricSign(Buffer.concat([head_o, plain_o]), priv);
  if (sig_o.length !== sig_size) throw new Error("OPN signature size");
  const enc_o = f.asymmetricEncrypt(Buffer.concat([plain_o, sig_o]), pub_pem(receiver.publicKey));
  emit(`${name}_opn_header_size`, String(12 + asym.length));
  emit(`${name}_opn`, hex(Buffer.concat([head_o, enc_o])));
}

const target = process.argv[2] || require("path").join(__dirname, "..", "security", "crypto_vectors.hpp");
require("fs").writeFileSync(target, `// Generated by tests/interop/make_crypto_vectors.js with node-opcua ${JSON.parse(require("fs").readFileSync(require("path").join(__dirname, "node_modules/node-opcua-secure-channel/package.json"))).version}
// (node-opcua-crypto ${JSON.parse(require("fs").readFileSync(require("path").join(__dirname, "node_modules/node-opcua-crypto/package.json"))).version}); do not edit. Hex unless named *_pem or *_size.
#pragma once

#include <string_view>

namespace uactor::test::crypto_vectors {

${out.join("\n")}

}  // namespace uactor::test::crypto_vectors
`);
