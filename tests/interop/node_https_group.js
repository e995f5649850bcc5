#!/usr/bin/env node
// DefaultHttpsGroup and DefaultUserTokenGroup (Part 12 §7.8.3.3; docs/security.md "Certificate
// groups", docs/decisions/0078) with node-opcua's client against `uactor run --wss-port`. The calls
// are those ClientPushCertificateManagement makes with a certificateGroupId (its package has no 2.186
// release: tests/interop/README.md), made with node-opcua's session itself.
//
//   node node_https_group.js --url URL --wss-port PORT --pki DIR --cert CERT --key KEY --work DIR
//                            --ca-cert PEM --ca-key PEM --user-cert PEM
//
// Steps, each printed `ok STEP` or `FAIL STEP: why`:
//  1. the groups' CertificateTypes (HttpsCertificateType; UserCredentialCertificateType);
//  2. a TLS connection to the opc.wss port is opened and offered the application certificate;
//  3. CreateSigningRequest on DefaultHttpsGroup with a new key; the request signed by the test CA
//     (openssl CLI); UpdateCertificate on the group with the CA as issuer; ApplyChanges;
//  4. a new TLS connection is offered the new certificate, the one from step 2 still upgrades to
//     opcua+uacp (a running connection continues); GetCertificates on the group names it;
//  5. the user token group's TrustList: AddCertificate of a user certificate goes into it and not
//     into the application trust list.
// Exit 0 when every step passed.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;

const fs = require("fs");
const path = require("path");
const tls = require("tls");
const crypto = require("crypto");
const { execFileSync } = require("child_process");
const {
    OPCUAClient, OPCUACertificateManager, MessageSecurityMode, SecurityPolicy, UserTokenType, DataType,
    StatusCodes, AttributeIds, VariantArrayType, NodeId
} = require("node-opcua");
const { TrustListDataType } = require("node-opcua-types");
const { BinaryStream } = require("node-opcua-binary-stream");

function parseArgs(argv) {
    const o = {};
    for (let i = 0; i < argv.length; i += 2) o[argv[i].replace(/^--/, "")] = argv[i + 1];
    for (const k of ["url", "wss-port", "pki", "cert", "key", "work", "ca-cert", "ca-key", "user-cert"]) {
        if (!o[k]) { process.stdout.write("usage: see the head of node_https_group.js\n"); process.exit(2); }
    }
    return o;
}

// ns=0 NodeIds (Part 12 §7.10, NodeIds.csv).
const ID = {
    serverConfiguration: "ns=0;i=12637",
    updateCertificate: "ns=0;i=13737",
    createSigningRequest: "ns=0;i=12737",
    applyChanges: "ns=0;i=12740",
    getCertificates: "ns=0;i=32333",
    httpsGroup: "ns=0;i=14088",
    httpsCertificateTypes: "ns=0;i=14121",
    httpsType: "ns=0;i=12558",
    userTokenGroup: "ns=0;i=14122",
    userTokenCertificateTypes: "ns=0;i=14155",
    userCredentialType: "ns=0;i=15181",
    userTrustList: "ns=0;i=14123",
    userAddCertificate: "ns=0;i=14151",
    userOpenWithMasks: "ns=0;i=14145",
    userRead: "ns=0;i=14134",
    userClose: "ns=0;i=14132",
    appTrustList: "ns=0;i=12642",
    appOpenWithMasks: "ns=0;i=12663",
    appRead: "ns=0;i=12652",
    appClose: "ns=0;i=12650"
};

let passed = 0, failed = 0;
function check(step, got, want) {
    if (String(got) === String(want)) { passed += 1; process.stdout.write("ok   " + step + ": " + got + "\n"); }
    else { failed += 1; process.stdout.write("FAIL " + step + ": got " + got + ", expected " + want + "\n"); }
}

const u32 = (v) => ({ dataType: DataType.UInt32, value: v });
const bytes = (b) => ({ dataType: DataType.ByteString, value: b });
const nodeId = (s) => ({ dataType: DataType.NodeId, value: NodeId.resolveNodeId(s) });
const derOf = (pemFile) => {
    const text = fs.readFileSync(pemFile, "utf8");
    const b64 = text.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");
    return Buffer.from(b64, "base64");
};
const hasCert = (list, der) => (list || []).some((c) => Buffer.compare(c, der) === 0);

async function call(session, objectId, methodId, inputArguments = []) {
    return session.call({ objectId, methodId, inputArguments });
}

async function readList(session, tl, openWithMasks, read, close) {
    const opened = await call(session, tl, openWithMasks, [u32(15)]);
    if (opened.statusCode !== StatusCodes.Good) throw new Error("OpenWithMasks: " + opened.statusCode.name);
    const handle = opened.outputArguments[0].value;
    const chunks = [];
    for (;;) {
        const r = await call(session, tl, read, [u32(handle), { dataType: DataType.Int32, value: 4096 }]);
        if (r.statusCode !== StatusCodes.Good) throw new Error("Read: " + r.statusCode.name);
        const data = r.outputArguments[0].value;
        if (!data || data.length === 0) break;
        chunks.push(data);
    }
    await call(session, tl, close, [u32(handle)]);
    const t = new TrustListDataType();
    t.decode(new BinaryStream(Buffer.concat(chunks)));
    return t;
}

// A TLS connection to the opc.wss port (no verification: the certificate is what is looked at).
function tlsOpen(port) {
    return new Promise((resolve, reject) => {
        const s = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => resolve(s));
        s.once("error", reject);
    });
}
const peerDer = (s) => s.getPeerCertificate(false).raw;

// The HTTP upgrade to opcua+uacp over an open TLS connection: the status line's code.
function upgrade(s) {
    return new Promise((resolve) => {
        let got = "";
        const onData = (d) => {
            got += d.toString("latin1");
            if (got.includes("\r\n")) { s.off("data", onData); resolve(got.split(" ")[1]); }
        };
        s.on("data", onData);
        s.once("close", () => resolve("closed"));
        s.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
                "Sec-WebSocket-Key: " + crypto.randomBytes(16).toString("base64") + "\r\nSec-WebSocket-Version: 13\r\n" +
                "Sec-WebSocket-Protocol: opcua+uacp\r\n\r\n");
    });
}

async function main() {
    const o = parseArgs(process.argv.slice(2));
    const wssPort = Number(o["wss-port"]);
    const keepAlive = setInterval(() => {}, 1000);
    const cm = new OPCUACertificateManager({ rootFolder: o.pki, automaticallyAcceptUnknownCertificate: true });
    await cm.initialize();
    const client = OPCUAClient.create({
        applicationName: "uactor https group interop", applicationUri: "urn:uactor:node-secure-client", endpointMustExist: false,
        securityMode: MessageSecurityMode.SignAndEncrypt, securityPolicy: SecurityPolicy.Basic256Sha256,
        connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 200 },
        keepSessionAlive: false, clientCertificateManager: cm,
        certificateFile: path.resolve(o.cert), privateKeyFile: path.resolve(o.key)
    });
    await client.connect(o.url);
    const session = await client.createSession({ type: UserTokenType.UserName, userName: "admin", password: "admin-pw" });

    // 1. CertificateTypes.
    const [https, user] = await session.read([
        { nodeId: ID.httpsCertificateTypes, attributeId: AttributeIds.Value },
        { nodeId: ID.userTokenCertificateTypes, attributeId: AttributeIds.Value }]);
    check("DefaultHttpsGroup CertificateTypes", (https.value.value || []).map((n) => n.toString()).join(","), ID.httpsType);
    check("DefaultUserTokenGroup CertificateTypes", (user.value.value || []).map((n) => n.toString()).join(","),
          ID.userCredentialType);

    // 2. A TLS connection from before: the application certificate.
    const application = fs.readFileSync(path.join(o.work, "pki", "own", "certs", "uactor.der"));
    const held = await tlsOpen(wssPort);
    check("TLS before the push: the application certificate", Buffer.compare(peerDer(held), application) === 0, true);

    // 3. CSR with a new key, signed by the CA, UpdateCertificate, ApplyChanges on DefaultHttpsGroup.
    const csr = await call(session, ID.serverConfiguration, ID.createSigningRequest,
                           [nodeId(ID.httpsGroup), nodeId(ID.httpsType), { dataType: DataType.String, value: "CN=plant gateway" },
                            { dataType: DataType.Boolean, value: true }, bytes(crypto.randomBytes(32))]);
    check("CreateSigningRequest (DefaultHttpsGroup)", csr.statusCode.name, "Good");
    fs.writeFileSync(path.join(o.work, "https.csr"), csr.outputArguments[0].value);
    execFileSync("openssl", ["x509", "-req", "-inform", "DER", "-in", path.join(o.work, "https.csr"), "-CA", o["ca-cert"],
                             "-CAkey", o["ca-key"], "-CAcreateserial", "-days", "30", "-copy_extensions", "copy",
                             "-extfile", path.join(o.work, "leaf.ext"), "-outform", "DER", "-out", path.join(o.work, "https.der")],
                 { stdio: "ignore" });
    const renewed = fs.readFileSync(path.join(o.work, "https.der"));
    const caDer = derOf(o["ca-cert"]);
    const upd = await call(session, ID.serverConfiguration, ID.updateCertificate,
                           [nodeId(ID.httpsGroup), nodeId(ID.httpsType), bytes(renewed),
                            { dataType: DataType.ByteString, arrayType: VariantArrayType.Array, value: [caDer] },
                            { dataType: DataType.String, value: "" }, bytes(null)]);
    check("UpdateCertificate (DefaultHttpsGroup)", upd.statusCode.name, "Good");
    const stillOld = await tlsOpen(wssPort);
    check("TLS before ApplyChanges: the application certificate", Buffer.compare(peerDer(stillOld), application) === 0, true);
    stillOld.destroy();
    check("ApplyChanges", (await call(session, ID.serverConfiguration, ID.applyChanges, [])).statusCode.name, "Good");

    // 4. New connections get the new certificate; the one from before goes on.
    const fresh = await tlsOpen(wssPort);
    check("TLS after ApplyChanges: the new certificate", Buffer.compare(peerDer(fresh), renewed) === 0, true);
    fresh.destroy();
    check("the TLS connection from before still upgrades to opcua+uacp", await upgrade(held), "101");
    held.destroy();
    const got = await call(session, ID.serverConfiguration, ID.getCertificates, [nodeId(ID.httpsGroup)]);
    check("GetCertificates (DefaultHttpsGroup)", got.statusCode.name, "Good");
    check("GetCertificates names the new certificate",
          got.outputArguments[1].value.length === 1 && Buffer.compare(got.outputArguments[1].value[0], renewed) === 0, true);
    // The UA endpoints keep the application certificate: this session's channel still reads.
    const state = await session.read({ nodeId: "ns=0;i=2259", attributeId: AttributeIds.Value });
    check("the admin session still reads", state.statusCode.name, "Good");

    // 5. The user token group's TrustList parts from the application's at its first change.
    const userDer = derOf(o["user-cert"]);
    const add = await call(session, ID.userTrustList, ID.userAddCertificate,
                           [bytes(userDer), { dataType: DataType.Boolean, value: true }]);
    check("AddCertificate (DefaultUserTokenGroup)", add.statusCode.name, "Good");
    const users = await readList(session, ID.userTrustList, ID.userOpenWithMasks, ID.userRead, ID.userClose);
    const apps = await readList(session, ID.appTrustList, ID.appOpenWithMasks, ID.appRead, ID.appClose);
    check("the user token trust list holds the user", hasCert(users.trustedCertificates, userDer), true);
    check("the user token trust list kept the application list's certificates",
          apps.trustedCertificates.every((c) => hasCert(users.trustedCertificates, c)), true);
    check("the application trust list does not hold the user", hasCert(apps.trustedCertificates, userDer), false);

    await session.close();
    await client.disconnect();
    clearInterval(keepAlive);
    process.stdout.write(`${passed} passed, ${failed} failed\n`);
    process.exit(failed === 0 ? 0 : 1);
}

main().catch((e) => { process.stdout.write("FAIL " + (e && e.stack || e) + "\n"); process.exit(1); });
