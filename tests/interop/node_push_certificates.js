#!/usr/bin/env node
// Push certificate management (Part 12 §7.10; docs/security.md "Remote certificate management")
// and an application file (Part 20 FileType; docs/files.md) with node-opcua's client against
// `uactor run`. The calls are those node-opcua-server-configuration's ClientPushCertificateManagement
// and node-opcua-file-transfer's ClientFile make (Call on ServerConfiguration, its TrustList and the
// file Object): those packages have no 2.186 release, so the calls are made with node-opcua's
// session itself (tests/interop/README.md).
//
//   node node_push_certificates.js --url URL --pki DIR --cert CERT --key KEY --work DIR
//                                  --ca-cert PEM --ca-key PEM --file PATH
//
// Steps, each printed `ok STEP` or `FAIL STEP: why`:
//  1. a user without SecurityAdmin is refused every method (BadUserAccessDenied);
//  2. the admin reads the TrustList (OpenWithMasks, Read, Close: a TrustListDataType holding the
//     client's own certificate), adds a certificate, sees it, removes it, sees it gone;
//  3. refusals that change nothing: bytes that are no TrustListDataType, a certificate that is none,
//     a certificate for another ApplicationUri;
//  4. CreateSigningRequest; the request signed by the test CA with the openssl CLI; UpdateCertificate
//     with the CA as issuer; ApplyChanges;
//  5. a session opened before goes on reading; a new client's GetEndpoints and session see the new
//     certificate;
//  6. the application file: written (Open Write+EraseExisting, Write, Close) and read back (Open
//     Read, Read, Close), and the file on disk holds what was written;
//  4b. transactions (Part 12 §7.10.2): a second admin session may not add to, apply or cancel the
//     first one's (BadTransactionPending, BadSessionIdInvalid); one whose session closed is dropped
//     (ApplyChanges: BadNothingToDo); GetCertificates names the certificate in use before and after;
//  6b. a session activated with an X509 user certificate is closed once the certificate leaves the
//     trust list (Part 12 §7.8.2.5);
//  6c. ResetToServerDefaults: the trust list is the configured one, a new self-signed certificate.
// Exit 0 when every step passed.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;

const fs = require("fs");
const path = require("path");
const crypto = require("crypto");
const { execFileSync } = require("child_process");
const {
    OPCUAClient, OPCUACertificateManager, MessageSecurityMode, SecurityPolicy, UserTokenType, DataType,
    StatusCodes, makeBrowsePath, AttributeIds, VariantArrayType, NodeId
} = require("node-opcua");
const { TrustListDataType } = require("node-opcua-types");
const { BinaryStream } = require("node-opcua-binary-stream");

function parseArgs(argv) {
    const o = {};
    for (let i = 0; i < argv.length; i += 2) o[argv[i].replace(/^--/, "")] = argv[i + 1];
    for (const k of ["url", "pki", "cert", "key", "work", "ca-cert", "ca-key", "file"]) {
        if (!o[k]) { process.stdout.write("usage: see the head of node_push_certificates.js\n"); process.exit(2); }
    }
    return o;
}

// ns=0 NodeIds (Part 12 §7.10, NodeIds.csv).
const ID = {
    serverConfiguration: "ns=0;i=12637",
    updateCertificate: "ns=0;i=13737",
    createSigningRequest: "ns=0;i=12737",
    applyChanges: "ns=0;i=12740",
    cancelChanges: "ns=0;i=25708",
    getCertificates: "ns=0;i=32333",
    resetToServerDefaults: "ns=0;i=25709",
    getRejectedList: "ns=0;i=12777",
    defaultGroup: "ns=0;i=14156",
    rsaSha256Type: "ns=0;i=12560",
    trustList: "ns=0;i=12642",
    open: "ns=0;i=12647",
    close: "ns=0;i=12650",
    read: "ns=0;i=12652",
    write: "ns=0;i=12655",
    openWithMasks: "ns=0;i=12663",
    closeAndUpdate: "ns=0;i=12666",
    addCertificate: "ns=0;i=12668",
    removeCertificate: "ns=0;i=12670",
    serverStatusState: "ns=0;i=2259"
};

let passed = 0, failed = 0;
function check(step, got, want) {
    if (String(got) === String(want)) { passed += 1; process.stdout.write("ok   " + step + ": " + got + "\n"); }
    else { failed += 1; process.stdout.write("FAIL " + step + ": got " + got + ", expected " + want + "\n"); }
}

function makeClient(o, cm) {
    return OPCUAClient.create({
        applicationName: "uactor push interop", applicationUri: "urn:uactor:node-secure-client", endpointMustExist: false,
        securityMode: MessageSecurityMode.SignAndEncrypt, securityPolicy: SecurityPolicy.Basic256Sha256,
        connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 200 },
        keepSessionAlive: false, clientCertificateManager: cm,
        certificateFile: path.resolve(o.cert), privateKeyFile: path.resolve(o.key)
    });
}

async function open(o, cm, user) {
    const client = makeClient(o, cm);
    await client.connect(o.url);
    const session = await client.createSession({ type: UserTokenType.UserName, userName: user, password: user + "-pw" });
    return { client, session };
}

async function call(session, objectId, methodId, inputArguments = []) {
    return session.call({ objectId, methodId, inputArguments });
}

const u32 = (v) => ({ dataType: DataType.UInt32, value: v });
const bytes = (b) => ({ dataType: DataType.ByteString, value: b });

async function readTrustList(session) {
    const opened = await call(session, ID.trustList, ID.openWithMasks, [u32(15)]);
    if (opened.statusCode !== StatusCodes.Good) throw new Error("OpenWithMasks: " + opened.statusCode.name);
    const handle = opened.outputArguments[0].value;
    const chunks = [];
    for (;;) {
        const r = await call(session, ID.trustList, ID.read, [u32(handle), { dataType: DataType.Int32, value: 4096 }]);
        if (r.statusCode !== StatusCodes.Good) throw new Error("Read: " + r.statusCode.name);
        const data = r.outputArguments[0].value;
        if (!data || data.length === 0) break;
        chunks.push(data);
    }
    await call(session, ID.trustList, ID.close, [u32(handle)]);
    const t = new TrustListDataType();
    t.decode(new BinaryStream(Buffer.concat(chunks)));
    return t;
}

// Open(Write + EraseExisting), Write, CloseAndUpdate: the status of CloseAndUpdate.
async function writeTrustList(session, buffer) {
    const opened = await call(session, ID.trustList, ID.open, [{ dataType: DataType.Byte, value: 6 }]);
    if (opened.statusCode !== StatusCodes.Good) return opened.statusCode.name;
    const handle = opened.outputArguments[0].value;
    const w = await call(session, ID.trustList, ID.write, [u32(handle), bytes(buffer)]);
    if (w.statusCode !== StatusCodes.Good) return "Write " + w.statusCode.name;
    const r = await call(session, ID.trustList, ID.closeAndUpdate, [u32(handle)]);
    return r.statusCode.name;
}

const derOf = (pemFile) => {
    const text = fs.readFileSync(pemFile, "utf8");
    const b64 = text.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");
    return Buffer.from(b64, "base64");
};
const hasCert = (list, der) => (list || []).some((c) => Buffer.compare(c, der) === 0);
const thumbprint = (der) => crypto.createHash("sha1").update(der).digest("hex").toUpperCase();
// The leaf of a DER chain (a SEQUENCE with a long-form length).
function leafOf(chain) {
    if (chain[0] !== 0x30) return chain;
    let len = chain[1], at = 2;
    if (len & 0x80) { const n = len & 0x7f; len = 0; for (let i = 0; i < n; ++i) len = (len << 8) | chain[2 + i]; at = 2 + n; }
    return chain.subarray(0, at + len);
}

async function main() {
    const o = parseArgs(process.argv.slice(2));
    const keepAlive = setInterval(() => {}, 1000);
    const cm = new OPCUACertificateManager({ rootFolder: o.pki, automaticallyAcceptUnknownCertificate: true });
    await cm.initialize();
    const group = { dataType: DataType.NodeId, value: NodeId.resolveNodeId(ID.defaultGroup) };
    const type = { dataType: DataType.NodeId, value: NodeId.resolveNodeId(ID.rsaSha256Type) };
    const clientDer = derOf(o.cert);
    const otherDer = fs.readFileSync(path.join(o.work, "other.der"));

    // 1. Without SecurityAdmin: every method refused.
    const op = await open(o, cm, "operator");
    const refused = [
        ["GetRejectedList", ID.serverConfiguration, ID.getRejectedList, []],
        ["CreateSigningRequest", ID.serverConfiguration, ID.createSigningRequest,
         [group, type, { dataType: DataType.String, value: "" }, { dataType: DataType.Boolean, value: false }, bytes(null)]],
        ["UpdateCertificate", ID.serverConfiguration, ID.updateCertificate,
         [group, type, bytes(clientDer), { dataType: DataType.ByteString, arrayType: VariantArrayType.Array, value: [] },
          { dataType: DataType.String, value: "" }, bytes(null)]],
        ["ApplyChanges", ID.serverConfiguration, ID.applyChanges, []],
        ["GetCertificates", ID.serverConfiguration, ID.getCertificates, [group]],
        ["ResetToServerDefaults", ID.serverConfiguration, ID.resetToServerDefaults, []],
        ["TrustList.OpenWithMasks", ID.trustList, ID.openWithMasks, [u32(15)]],
        ["TrustList.Open", ID.trustList, ID.open, [{ dataType: DataType.Byte, value: 1 }]],
        ["TrustList.AddCertificate", ID.trustList, ID.addCertificate, [bytes(otherDer), { dataType: DataType.Boolean, value: true }]],
        ["TrustList.RemoveCertificate", ID.trustList, ID.removeCertificate,
         [{ dataType: DataType.String, value: thumbprint(clientDer) }, { dataType: DataType.Boolean, value: true }]]
    ];
    for (const [name, obj, method, args] of refused)
        check("operator " + name, (await call(op.session, obj, method, args)).statusCode.name, "BadUserAccessDenied");

    // 2. The admin reads the trust list, adds and removes a certificate.
    const admin = await open(o, cm, "admin");
    let list = await readTrustList(admin.session);
    check("TrustList holds the client certificate", hasCert(list.trustedCertificates, clientDer), true);
    check("AddCertificate", (await call(admin.session, ID.trustList, ID.addCertificate,
                                        [bytes(otherDer), { dataType: DataType.Boolean, value: true }])).statusCode.name, "Good");
    list = await readTrustList(admin.session);
    check("TrustList holds the added certificate", hasCert(list.trustedCertificates, otherDer), true);
    check("RemoveCertificate", (await call(admin.session, ID.trustList, ID.removeCertificate,
                                           [{ dataType: DataType.String, value: thumbprint(otherDer) },
                                            { dataType: DataType.Boolean, value: true }])).statusCode.name, "Good");
    list = await readTrustList(admin.session);
    check("TrustList without the removed certificate", hasCert(list.trustedCertificates, otherDer), false);

    // 3. Refusals that change nothing.
    check("CloseAndUpdate of bytes that are no TrustListDataType", await writeTrustList(admin.session, Buffer.from([1, 2, 3])),
          "BadDecodingError");
    const bad = new TrustListDataType({ specifiedLists: 1, trustedCertificates: [Buffer.from("not a certificate")] });
    const s = new BinaryStream(bad.binaryStoreSize());
    bad.encode(s);
    check("CloseAndUpdate of a certificate that is none", await writeTrustList(admin.session, s.buffer), "BadCertificateInvalid");
    list = await readTrustList(admin.session);
    check("TrustList unchanged after the refusals", hasCert(list.trustedCertificates, clientDer), true);
    check("UpdateCertificate for another ApplicationUri",
          (await call(admin.session, ID.serverConfiguration, ID.updateCertificate,
                      [group, type, bytes(clientDer), { dataType: DataType.ByteString, arrayType: VariantArrayType.Array, value: [] },
                       { dataType: DataType.String, value: "" }, bytes(null)])).statusCode.name, "BadCertificateUriInvalid");

    // GetCertificates (Part 12 §7.10.8): the RSA certificate in use, the one this channel got.
    const certsOf = async (session) => {
        const r = await call(session, ID.serverConfiguration, ID.getCertificates, [group]);
        return { status: r.statusCode.name, types: r.outputArguments && r.outputArguments[0].value,
                 certs: r.outputArguments && r.outputArguments[1].value };
    };
    const before = await certsOf(admin.session);
    check("GetCertificates", before.status, "Good");
    check("GetCertificates names RsaSha256ApplicationCertificateType", before.types && before.types.length === 1 &&
          before.types[0].toString(), "ns=0;i=12560");
    const inUse = admin.client._secureChannel && admin.client._secureChannel.getServerCertificate
        ? leafOf(admin.client._secureChannel.getServerCertificate()) : null;
    if (inUse) check("GetCertificates returns the channel's server certificate", Buffer.compare(before.certs[0], inUse) === 0, true);

    // 4. CSR, signed by the CA, UpdateCertificate, ApplyChanges.
    const held = await open(o, cm, "operator");  // a session opened before the change
    const csr = await call(admin.session, ID.serverConfiguration, ID.createSigningRequest,
                           [group, type, { dataType: DataType.String, value: "CN=uactor renewed, O=uactor interop" },
                            { dataType: DataType.Boolean, value: false }, bytes(null)]);
    check("CreateSigningRequest", csr.statusCode.name, "Good");
    fs.writeFileSync(path.join(o.work, "server.csr"), csr.outputArguments[0].value);
    execFileSync("openssl", ["x509", "-req", "-inform", "DER", "-in", path.join(o.work, "server.csr"), "-CA", o["ca-cert"],
                             "-CAkey", o["ca-key"], "-CAcreateserial", "-days", "30", "-copy_extensions", "copy",
                             "-extfile", path.join(o.work, "leaf.ext"), "-outform", "DER", "-out", path.join(o.work, "renewed.der")],
                 { stdio: "ignore" });
    const renewed = fs.readFileSync(path.join(o.work, "renewed.der"));
    const caDer = derOf(o["ca-cert"]);
    const upd = await call(admin.session, ID.serverConfiguration, ID.updateCertificate,
                           [group, type, bytes(renewed), { dataType: DataType.ByteString, arrayType: VariantArrayType.Array, value: [caDer] },
                            { dataType: DataType.String, value: "" }, bytes(null)]);
    check("UpdateCertificate", upd.statusCode.name, "Good");
    check("UpdateCertificate applyChangesRequired", upd.outputArguments && upd.outputArguments[0].value, true);
    // 4b. The transaction is the admin session's: another admin session may not touch it.
    const admin2 = await open(o, cm, "admin");
    const updArgs = [group, type, bytes(renewed), { dataType: DataType.ByteString, arrayType: VariantArrayType.Array, value: [caDer] },
                     { dataType: DataType.String, value: "" }, bytes(null)];
    check("UpdateCertificate from another session while a transaction waits",
          (await call(admin2.session, ID.serverConfiguration, ID.updateCertificate, updArgs)).statusCode.name, "BadTransactionPending");
    check("TrustList Open for writing from another session",
          (await call(admin2.session, ID.trustList, ID.open, [{ dataType: DataType.Byte, value: 6 }])).statusCode.name,
          "BadTransactionPending");
    check("ApplyChanges from another session",
          (await call(admin2.session, ID.serverConfiguration, ID.applyChanges, [])).statusCode.name, "BadSessionIdInvalid");
    check("CancelChanges from another session",
          (await call(admin2.session, ID.serverConfiguration, ID.cancelChanges, [])).statusCode.name, "BadSessionIdInvalid");
    check("GetCertificates before ApplyChanges: the old certificate",
          Buffer.compare((await certsOf(admin2.session)).certs[0], before.certs[0]) === 0, true);
    check("ApplyChanges", (await call(admin.session, ID.serverConfiguration, ID.applyChanges, [])).statusCode.name, "Good");
    check("GetCertificates after ApplyChanges: the new certificate",
          Buffer.compare((await certsOf(admin2.session)).certs[0], renewed) === 0, true);
    // A transaction whose session closes is dropped (Part 12 §7.10.9).
    check("UpdateCertificate in a second session's transaction",
          (await call(admin2.session, ID.serverConfiguration, ID.updateCertificate, updArgs)).statusCode.name, "Good");
    await admin2.session.close();
    await admin2.client.disconnect();
    check("ApplyChanges after that session closed: nothing waits",
          (await call(admin.session, ID.serverConfiguration, ID.applyChanges, [])).statusCode.name, "BadNothingToDo");

    // 5. The held session goes on; a new client sees the new certificate.
    const st = await held.session.read({ nodeId: ID.serverStatusState, attributeId: AttributeIds.Value });
    check("session opened before ApplyChanges reads", st.statusCode.name, "Good");
    const fresh = makeClient(o, cm);
    await fresh.connect(o.url);
    const eps = await fresh.getEndpoints();
    const secured = eps.find((e) => e.securityMode === MessageSecurityMode.SignAndEncrypt);
    check("GetEndpoints names the new certificate", secured && Buffer.compare(leafOf(secured.serverCertificate), renewed) === 0, true);
    const fs2 = await fresh.createSession({ type: UserTokenType.UserName, userName: "operator", password: "operator-pw" });
    const st2 = await fs2.read({ nodeId: ID.serverStatusState, attributeId: AttributeIds.Value });
    check("new session after ApplyChanges reads", st2.statusCode.name, "Good");
    const channelCert = fresh._secureChannel && fresh._secureChannel.getServerCertificate
        ? leafOf(fresh._secureChannel.getServerCertificate()) : null;
    if (channelCert) check("new channel's server certificate is the new one", Buffer.compare(channelCert, renewed) === 0, true);
    await fs2.close();
    await fresh.disconnect();

    // 6. The application file, with FileType's methods found under it by name.
    const fileId = "ns=1;s=Recipe";
    const paths = ["/Open", "/Close", "/Read", "/Write"].map((p) => makeBrowsePath(fileId, p));
    const found = await op.session.translateBrowsePath(paths);
    const [mOpen, mClose, mRead, mWrite] = found.map((r) => r.targets && r.targets[0] && r.targets[0].targetId);
    check("file methods found by TranslateBrowsePath", found.every((r) => r.statusCode === StatusCodes.Good), true);
    const text = Buffer.from("recipe 42: flour 500 g\n");
    let r = await call(op.session, fileId, mOpen, [{ dataType: DataType.Byte, value: 6 }]);
    check("file Open for writing", r.statusCode.name, "Good");
    let h = r.outputArguments[0].value;
    check("file Write", (await call(op.session, fileId, mWrite, [u32(h), bytes(text)])).statusCode.name, "Good");
    check("file Close", (await call(op.session, fileId, mClose, [u32(h)])).statusCode.name, "Good");
    r = await call(op.session, fileId, mOpen, [{ dataType: DataType.Byte, value: 1 }]);
    h = r.outputArguments[0].value;
    const rd = await call(op.session, fileId, mRead, [u32(h), { dataType: DataType.Int32, value: 1000 }]);
    check("file Read returns what was written", rd.outputArguments[0].value.toString(), text.toString());
    await call(op.session, fileId, mClose, [u32(h)]);
    check("file on disk", fs.readFileSync(o.file).toString(), text.toString());

    // 6b. Part 12 §7.8.2.5: a session activated with an X509 user certificate is closed once the
    // certificate is no longer trusted.
    check("AddCertificate of a user certificate",
          (await call(admin.session, ID.trustList, ID.addCertificate, [bytes(otherDer), { dataType: DataType.Boolean, value: true }]))
              .statusCode.name, "Good");
    const x509 = makeClient(o, cm);
    await x509.connect(o.url);
    const xs = await x509.createSession({ type: UserTokenType.Certificate, certificateData: otherDer,
                                          privateKey: fs.readFileSync(path.join(o.work, "other.key"), "utf8") });
    check("X509 user session reads", (await xs.read({ nodeId: ID.serverStatusState, attributeId: AttributeIds.Value })).statusCode.name,
          "Good");
    check("RemoveCertificate of the user certificate",
          (await call(admin.session, ID.trustList, ID.removeCertificate,
                      [{ dataType: DataType.String, value: thumbprint(otherDer) }, { dataType: DataType.Boolean, value: true }]))
              .statusCode.name, "Good");
    // The server closed the session (the script checks its log line): no request on it here, as
    // node-opcua answers BadSessionIdInvalid by activating the session again and again with the
    // refused certificate, which the login guard then counts against this address.
    await Promise.race([x509.disconnect().catch(() => {}), new Promise((r) => setTimeout(r, 3000))]);

    // 6c. ResetToServerDefaults (Part 12 §7.10.13): the trust list is the configured one (the client
    // certificate of --trust), the certificate a new self-signed one; sessions go on.
    check("ResetToServerDefaults",
          (await call(admin.session, ID.serverConfiguration, ID.resetToServerDefaults, [])).statusCode.name, "Good");
    const reset = await certsOf(admin.session);
    check("GetCertificates after the reset: neither the first nor the renewed certificate",
          reset.certs && Buffer.compare(reset.certs[0], renewed) !== 0 && Buffer.compare(reset.certs[0], before.certs[0]) !== 0, true);
    list = await readTrustList(admin.session);
    check("TrustList after the reset: the configured certificate only",
          (list.trustedCertificates || []).length === 1 && hasCert(list.trustedCertificates, clientDer) &&
          (list.issuerCertificates || []).length === 0, true);
    const st3 = await held.session.read({ nodeId: ID.serverStatusState, attributeId: AttributeIds.Value });
    check("a session from before the reset reads", st3.statusCode.name, "Good");

    // 7. Part 12 §7.8.2.5: after a trust list change the server checks the certificates of the open
    // channels again and closes those no longer trusted, after the method's response. Every session
    // here uses the client certificate: removing it answers Good, then the channels close.
    const lost = (c) => new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), 10000);
        const done = () => { clearTimeout(timer); resolve(true); };
        c.client.once("connection_lost", done);
        c.client.once("close", done);
    });
    const opLost = lost(op);
    check("RemoveCertificate of the client's own certificate",
        (await call(admin.session, ID.trustList, ID.removeCertificate,
            [{ dataType: DataType.String, value: thumbprint(clientDer) }, { dataType: DataType.Boolean, value: true }])).statusCode.name,
        "Good");
    check("another session's channel with that certificate closed by the server", await opLost, true);
    let reconnect = "connected";
    const again = makeClient(o, cm);
    try { await again.connect(o.url); } catch (e) { reconnect = "refused"; }
    check("a new channel with the removed certificate", reconnect, "refused");
    try { await again.disconnect(); } catch (e) { /* never connected */ }

    for (const c of [op, admin, held]) {
        try { await c.session.close(); } catch (e) { /* its channel was closed above */ }
        await c.client.disconnect();
    }
    process.stdout.write("push: " + passed + " of " + (passed + failed) + " checks passed\n");
    clearInterval(keepAlive);
    process.exit(failed === 0 ? 0 : 1);
}

main().catch((err) => { process.stdout.write("FAIL internal: " + (err && err.stack ? err.stack : err) + "\n"); process.exit(1); });
