#!/usr/bin/env node
// Makes the certificates the security interop scripts need, with node-opcua-pki (what a
// node-opcua application would make), in one process: loading node-opcua takes seconds.
//
//   node make_certs.js OUTDIR SPEC...
//   SPEC = NAME=URI[,START,DAYS]   START an ISO date (default now), DAYS the validity (default 365)
//
// For each SPEC: OUTDIR/NAME/ is an OPCUACertificateManager folder (its own key pair in
// own/private/private_key.pem); the self-signed certificate (Part 6 §6.2.2: SAN URI = URI,
// DNS = this host) goes to OUTDIR/NAME/cert.pem and OUTDIR/NAME/cert.der, the key to
// OUTDIR/NAME/key.pem. A START in the past with a short validity makes an expired certificate.
// Prints `NAME OUTDIR/NAME/cert.pem` per certificate; exit 0, or 1 with the reason on stderr.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;

const fs = require("fs");
const os = require("os");
const path = require("path");
const { OPCUACertificateManager } = require("node-opcua");
const { readCertificate } = require("node-opcua-crypto");

async function make(outDir, spec) {
    const m = /^([A-Za-z0-9_.-]+)=([^,]+)(?:,([^,]+),([0-9]+))?$/.exec(spec);
    if (!m) {
        throw new Error("bad SPEC " + spec + " (NAME=URI[,START,DAYS])");
    }
    const [, name, uri, start, days] = m;
    const dir = path.join(outDir, name);
    const cm = new OPCUACertificateManager({ rootFolder: dir, automaticallyAcceptUnknownCertificate: false });
    await cm.initialize();
    const pem = path.join(dir, "cert.pem");
    await cm.createSelfSignedCertificate({
        applicationUri: uri,
        subject: "/CN=" + name + "/O=uactor interop",
        dns: [os.hostname()],
        startDate: start ? new Date(start) : new Date(),
        validity: days ? Number(days) : 365,
        outputFile: pem
    });
    fs.writeFileSync(path.join(dir, "cert.der"), readCertificate(pem));
    fs.copyFileSync(cm.privateKey, path.join(dir, "key.pem"));
    process.stdout.write(name + " " + pem + "\n");
}

async function main() {
    const [outDir, ...specs] = process.argv.slice(2);
    if (!outDir || !specs.length) {
        process.stderr.write("usage: make_certs.js OUTDIR NAME=URI[,START,DAYS]...\n");
        process.exit(2);
    }
    for (const spec of specs) {
        await make(outDir, spec);
    }
    // No dispose(): it waits for folder watchers; exit ends them.
    process.exit(0);
}

main().catch((err) => {
    process.stderr.write("make_certs: " + (err && err.stack ? err.stack : err) + "\n");
    process.exit(1);
});
