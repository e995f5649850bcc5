#!/usr/bin/env node
// node-opcua's reverse-connect client (ClientReverseConnect, Part 6 §7.1.3) for our server's
// reverse dialer: tests/interop/reverse_connect_interop.sh.
//
//   node node_reverse_client.js --pki DIR --server-uri URI [--server-cert DER|DIR] [--cert PEM --key PEM]
//                               [--case POLICY:MODE]... [--cut POLICY:MODE] [--timeout S]
//
// Listens (ClientReverseConnect) on 127.0.0.1, port chosen by the system, behind a small TCP
// relay of its own on another port: the relay is what the server dials, and what --cut cuts (both
// sockets of every relayed connection destroyed at once, as a dropped link would). Prints
// `reverse listening on opc.tcp://127.0.0.1:RELAYPORT` once both listen; the server is then
// started with --reverse-connect that URL.
//
// Each --case: a client with that policy and mode (the server's certificate given up front: a
// reverse client cannot ask for it, node-opcua says), connectReverse with the expected ServerUri,
// a session, Read of ServerState and Demo.Static.Scalar.Double, Browse of the Objects folder, a
// subscription to Demo.Dynamic.Counter until two values arrive, close. Prints `ok STEP` lines
// and `case NAME: ok` or `case NAME: FAIL why`.
// --cut: the same, then the relay cuts the connection; node-opcua waits for the server's next
// ReverseHello, recovers the session and the subscription, and two more values must arrive.
// Exit 0 when every case passed, 1 otherwise, 2 on bad usage.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;
console.warn = console.log;

const fs = require("fs");
const net = require("net");
const path = require("path");
const {
    OPCUAClient,
    OPCUACertificateManager,
    ClientReverseConnect,
    MessageSecurityMode,
    SecurityPolicy,
    AttributeIds,
    StatusCodes,
    TimestampsToReturn
} = require("node-opcua");
const { readCertificate } = require("node-opcua-crypto");

function usage(msg) {
    process.stderr.write("node_reverse_client: " + msg + "\n");
    process.exit(2);
}

function parseArgs(argv) {
    const o = { cases: [], timeout: 60 };
    for (let i = 0; i < argv.length; ++i) {
        const a = argv[i];
        const value = () => {
            if (i + 1 >= argv.length) usage(a + " needs a value");
            return argv[++i];
        };
        switch (a) {
            case "--pki": o.pki = value(); break;
            case "--server-uri": o.serverUri = value(); break;
            case "--server-cert": o.serverCert = value(); break;
            case "--cert": o.cert = value(); break;
            case "--key": o.key = value(); break;
            case "--case": o.cases.push({ spec: value(), cut: false }); break;
            case "--cut": o.cases.push({ spec: value(), cut: true }); break;
            case "--timeout": o.timeout = Number(value()); break;
            default: usage("unknown argument: " + a);
        }
    }
    if (!o.pki || !o.serverUri) usage("--pki and --server-uri are required");
    for (const c of o.cases) {
        const [policy, mode] = c.spec.split(":");
        if (!(policy in SecurityPolicy) || !(mode in MessageSecurityMode)) usage("bad case " + c.spec);
        if (mode !== "None" && (!o.serverCert || !o.cert)) usage(c.spec + " needs --server-cert, --cert and --key");
        c.policy = policy;
        c.mode = mode;
        c.name = c.spec + (c.cut ? "+cut" : "");
    }
    return o;
}

// The relay between the server's dial and the listener: each accepted socket is piped to a new
// connection to `target`; cut() destroys every pair.
function startRelay(targetPort) {
    const pairs = new Set();
    const server = net.createServer((inbound) => {
        const outbound = net.connect(targetPort, "127.0.0.1");
        const pair = { inbound, outbound };
        pairs.add(pair);
        const end = () => {
            pairs.delete(pair);
            inbound.destroy();
            outbound.destroy();
        };
        inbound.on("error", end).on("close", end);
        outbound.on("error", end).on("close", end);
        inbound.pipe(outbound);
        outbound.pipe(inbound);
    });
    return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => resolve({
            port: server.address().port,
            cut: () => {
                const n = pairs.size;
                for (const p of [...pairs]) {
                    p.inbound.destroy();
                    p.outbound.destroy();
                }
                pairs.clear();
                return n;
            },
            close: () => server.close()
        }));
    });
}

function withTimeout(promise, seconds, what) {
    let id;
    const t = new Promise((_, reject) => {
        id = setTimeout(() => reject(new Error("timeout after " + seconds + " s: " + what)), seconds * 1000);
    });
    return Promise.race([promise, t]).finally(() => clearTimeout(id));
}

// Resolves once `count` more data changes have arrived on `item`.
function values(item, count) {
    return new Promise((resolve) => {
        const seen = [];
        const on = (dv) => {
            seen.push(dv.value.value);
            if (seen.length >= count) {
                item.removeListener("changed", on);
                resolve(seen);
            }
        };
        item.on("changed", on);
    });
}

// --server-cert names a file or a folder (the server's own/certs, made at its first start, after
// this client listens): waits up to 30 s for the file, or for a .der in the folder.
async function serverCertificateFile(given) {
    for (let i = 0; i < 300; ++i) {
        if (fs.existsSync(given)) {
            if (!fs.statSync(given).isDirectory()) return given;
            const der = fs.readdirSync(given).filter((f) => f.endsWith(".der"));
            if (der.length) return path.join(given, der[0]);
        }
        await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("no server certificate at " + given + " after 30 s");
}

async function runCase(o, c, rc, relay, certificateManager, say) {
    const options = {
        applicationName: "uactor node-reverse-client",
        applicationUri: "urn:uactor:node-secure-client",
        endpointMustExist: false,
        securityMode: MessageSecurityMode[c.mode],
        securityPolicy: SecurityPolicy[c.policy],
        connectionStrategy: { maxRetry: 20, initialDelay: 200, maxDelay: 1000 },
        requestedSessionTimeout: 60000,
        keepSessionAlive: true,
        clientCertificateManager: certificateManager
    };
    if (c.mode !== "None") {
        options.serverCertificate = readCertificate(await serverCertificateFile(o.serverCert));
        options.certificateFile = path.resolve(o.cert);
        options.privateKeyFile = path.resolve(o.key);
    }
    const client = OPCUAClient.create(options);
    let session = null;
    try {
        await withTimeout(client.connectReverse(rc, { serverUri: o.serverUri }), 30, "connectReverse");
        say("ok connect (reverse) " + c.spec);
        session = await withTimeout(client.createSession(), 20, "createSession");
        say("ok session");

        const state = await session.read({ nodeId: "ns=0;i=2259", attributeId: AttributeIds.Value });
        if (!state.statusCode.equals(StatusCodes.Good) || state.value.value !== 0) {
            throw new Error("ServerState: " + state.toString());
        }
        const dbl = await session.read({ nodeId: "ns=1;s=Demo.Static.Scalar.Double", attributeId: AttributeIds.Value });
        if (!dbl.statusCode.equals(StatusCodes.Good) || typeof dbl.value.value !== "number") {
            throw new Error("Demo.Static.Scalar.Double: " + dbl.toString());
        }
        say("ok read ServerState Running, Demo.Static.Scalar.Double " + dbl.value.value + " (at " + Date.now() + " ms)");

        const browsed = await session.browse("ns=0;i=85");
        const names = browsed.references.map((r) => r.browseName.toString());
        if (!browsed.statusCode.equals(StatusCodes.Good) || !names.includes("Server") || !names.includes("1:Demo")) {
            throw new Error("browse Objects: " + browsed.statusCode.toString() + " " + names.join(","));
        }
        say("ok browse Objects: " + names.join(","));

        const sub = await session.createSubscription2({
            requestedPublishingInterval: 100, requestedLifetimeCount: 600, requestedMaxKeepAliveCount: 10,
            maxNotificationsPerPublish: 100, publishingEnabled: true, priority: 1
        });
        const item = await sub.monitor(
            { nodeId: "ns=1;s=Demo.Dynamic.Counter", attributeId: AttributeIds.Value },
            { samplingInterval: 100, discardOldest: true, queueSize: 10 },
            TimestampsToReturn.Both
        );
        const first = await withTimeout(values(item, 2), 20, "two values of Demo.Dynamic.Counter");
        say("ok subscribe Demo.Dynamic.Counter: " + first.join(","));

        if (c.cut) {
            const restored = new Promise((resolve) => client.once("connection_reestablished", resolve));
            const n = relay.cut();
            say("ok cut " + n + " relayed connection(s)");
            await withTimeout(restored, 30, "the connection re-established after the cut");
            say("ok connection re-established (the server dialed again)");
            const after = await withTimeout(values(item, 2), 30, "two values after the cut");
            if (!(after[after.length - 1] > first[first.length - 1])) {
                throw new Error("the counter did not go on: before " + first + ", after " + after);
            }
            say("ok the subscription continues: " + after.join(","));
        }
        await sub.terminate();
        await session.close();
        session = null;
        await client.disconnect();
        return true;
    } catch (err) {
        say("FAIL " + (err && err.message ? err.message : err));
        if (session) await session.close().catch(() => {});
        await client.disconnect().catch(() => {});
        return false;
    }
}

async function main() {
    const o = parseArgs(process.argv.slice(2));
    const certificateManager = new OPCUACertificateManager({
        rootFolder: o.pki, automaticallyAcceptUnknownCertificate: true
    });
    await certificateManager.initialize();
    const rc = new ClientReverseConnect({ connectionUrl: "opc.tcp://127.0.0.1:0", acceptTimeout: 10000 });
    await rc.start();
    const relay = await startRelay(rc.listeningPort);
    process.stdout.write("reverse listening on opc.tcp://127.0.0.1:" + relay.port + "\n");

    const overall = setTimeout(() => {
        process.stdout.write("FAIL overall timeout (" + o.timeout + " s)\n");
        process.exit(1);
    }, o.timeout * 1000);
    let failures = 0;
    for (const c of o.cases) {
        const say = (line) => process.stdout.write("case " + c.name + ": " + line + "\n");
        const ok = await runCase(o, c, rc, relay, certificateManager, say);
        say(ok ? "ok" : "FAIL");
        if (!ok) ++failures;
    }
    clearTimeout(overall);
    relay.close();
    await rc.stop();
    process.exit(failures ? 1 : 0);
}

main().catch((err) => {
    process.stdout.write("FAIL " + (err && err.stack ? err.stack : err) + "\n");
    process.exit(1);
});
