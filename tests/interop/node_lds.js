#!/usr/bin/env node
// node-opcua's Local Discovery Server (node-opcua-server-discovery's OPCUADiscoveryServer, Part 12
// §4.3) for our server's registration: tests/interop/discovery_interop.sh.
//
//   node node_lds.js --pki DIR [--trust FILE]... [--max-seconds S]
//
//   --pki DIR        its OPCUACertificateManager folder (own certificate made on first start, naming
//                    localhost and 127.0.0.1); unknown certificates are refused, as an LDS should
//   --trust FILE     an application certificate (DER or PEM) copied into DIR/trusted/certs; repeatable
//   --max-seconds S  exit by itself after S seconds (default 200)
//
// Listens on 127.0.0.1 on a free port; prints one line on stdout once it listens:
// `listening on opc.tcp://127.0.0.1:PORT`, and its certificate's path on stderr. Exits 0 on
// SIGTERM/SIGINT and at --max-seconds, 1 when it cannot start, 2 on bad usage.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;
console.warn = console.log;

const crypto = require("crypto");
const fs = require("fs");
const net = require("net");
const os = require("os");
const path = require("path");
const { OPCUACertificateManager } = require("node-opcua");
const { OPCUADiscoveryServer } = require("node-opcua-server-discovery");
const { readCertificate } = require("node-opcua-crypto");

function usage(msg) {
    process.stderr.write("node_lds: " + msg + "\n");
    process.exit(2);
}

function parseArgs(argv) {
    const o = { trust: [], maxSeconds: 200 };
    for (let i = 0; i < argv.length; ++i) {
        const a = argv[i];
        const value = () => {
            if (i + 1 >= argv.length) usage(a + " needs a value");
            return argv[++i];
        };
        switch (a) {
            case "--pki": o.pki = value(); break;
            case "--trust": o.trust.push(value()); break;
            case "--max-seconds": o.maxSeconds = Number(value()); break;
            default: usage("unknown argument: " + a);
        }
    }
    if (!o.pki) usage("--pki DIR is required");
    return o;
}

function freePort() {
    return new Promise((resolve, reject) => {
        const s = net.createServer();
        s.on("error", reject);
        s.listen(0, "127.0.0.1", () => {
            const port = s.address().port;
            s.close(() => resolve(port));
        });
    });
}

async function main() {
    const o = parseArgs(process.argv.slice(2));
    const dir = path.join(o.pki, "trusted", "certs");
    fs.mkdirSync(dir, { recursive: true });
    for (const f of o.trust) {
        const der = readCertificate(f);
        const thumbprint = crypto.createHash("sha1").update(der).digest("hex");
        fs.writeFileSync(path.join(dir, "trusted[" + thumbprint + "].der"), der);
    }
    const serverCertificateManager = new OPCUACertificateManager({
        rootFolder: o.pki, automaticallyAcceptUnknownCertificate: false
    });
    await serverCertificateManager.initialize();
    const applicationUri = "urn:" + os.hostname() + ":uactor:node-lds";
    const certificateFile = path.join(o.pki, "own/certs/certificate.pem");
    if (!fs.existsSync(certificateFile)) {
        await serverCertificateManager.createSelfSignedCertificate({
            applicationUri,
            dns: [os.hostname(), "localhost"],
            ip: ["127.0.0.1"],
            outputFile: certificateFile,
            subject: "/CN=uactor interop node-opcua LDS",
            startDate: new Date(),
            validity: 365
        });
    }
    const port = await freePort();
    const lds = new OPCUADiscoveryServer({
        port,
        hostname: "127.0.0.1",
        serverCertificateManager,
        certificateFile,
        serverInfo: { applicationUri, applicationName: { text: "uactor interop node-opcua LDS", locale: "en" } }
    });
    let stopping = false;
    const stop = (why) => {
        if (stopping) return;
        stopping = true;
        process.stderr.write("node_lds: stopping (" + why + ")\n");
        setTimeout(() => process.exit(0), 3000).unref();
        lds.shutdown().then(() => process.exit(0), () => process.exit(0));
    };
    process.on("SIGINT", () => stop("SIGINT"));
    process.on("SIGTERM", () => stop("SIGTERM"));
    setTimeout(() => stop("--max-seconds " + o.maxSeconds), o.maxSeconds * 1000).unref();
    try {
        await lds.start();
    } catch (err) {
        process.stderr.write("node_lds: cannot start: " + (err && err.stack ? err.stack : err) + "\n");
        process.exit(1);
    }
    process.stderr.write("node_lds: certificate " + certificateFile + "\n");
    process.stdout.write("listening on opc.tcp://127.0.0.1:" + port + "\n");
}

main();
