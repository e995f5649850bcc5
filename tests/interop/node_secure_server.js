#!/usr/bin/env node
// A node-opcua server with security, serving the demo namespace of docs/demo-namespace.md (built
// by tests/interop/node_server.js's own code), for our client's security interop test.
//
//   node node_secure_server.js --pki DIR [--port N] [--trust FILE]... [--trust-user FILE]...
//                              [--events MS] [--max-seconds S]
//
//   --pki DIR          DIR/PKI: the server's OPCUACertificateManager (own certificate created on
//                      first start in DIR/PKI/own/certs/certificate.pem, naming localhost,
//                      127.0.0.1 and the host name; trusted/, rejected/ ...);
//                      DIR/UserPKI: the one for X509 user tokens. Neither accepts unknown
//                      certificates (automaticallyAcceptUnknownCertificate false).
//   --trust FILE       a client application certificate (DER or PEM) copied into
//                      DIR/PKI/trusted/certs before the server starts; repeatable
//   --trust-user FILE  a user certificate copied into DIR/UserPKI/trusted/certs; repeatable
//   --port N           0 (default): a free port, found before the server starts
//   --events MS        raise an event every MS ms (node_server.js's --events; default 0: none)
//   --max-seconds S    exit by itself after S seconds (default 300)
//   --register-with URL  register with the Local Discovery Server at URL (node-opcua's
//                      registerServerMethod LDS: RegisterServer2 over its most secure endpoint, with
//                      this server's certificate; IsOnline false at shutdown)
//   --reverse-connect URL  also dial the reverse-connect client listening at URL (Part 6 §7.1.3,
//                      node-opcua's ReverseConnectManager; redials 500 ms after a loss); repeatable
//
// Endpoints: None/None (discovery; anonymous only there, as node-opcua allows), and each of
// Basic256Sha256, Aes128_Sha256_RsaOaep, Aes256_Sha256_RsaPss in Sign and SignAndEncrypt, with
// anonymous, UserName (user1 / password) and X509 user token policies. Listens on 127.0.0.1;
// prints exactly one line on stdout once it listens: `listening on opc.tcp://127.0.0.1:PORT`.
// node-opcua's log goes to stderr. Exits 0 on SIGTERM/SIGINT and at --max-seconds, 1 when it
// cannot start, 2 on bad usage.
"use strict";

const util = require("util");

// node-opcua logs with console.log; stdout carries only our `listening on` line.
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;

const crypto = require("crypto");
const fs = require("fs");
const Module = require("module");
const net = require("net");
const os = require("os");
const path = require("path");

const {
    OPCUAServer,
    OPCUACertificateManager,
    nodesets,
    SecurityPolicy,
    MessageSecurityMode,
    RegisterServerMethod
} = require("node-opcua");
const { readCertificate } = require("node-opcua-crypto");

// node_server.js builds the demo namespace; it exports staticVariables only. Its builders are
// taken from its own source, unchanged, compiled as a module with two more exports (so that this
// server and node_server.js can never serve different nodes). When node_server.js exports
// buildNamespace itself, that is used.
function demoNamespaceBuilders() {
    const file = path.join(__dirname, "node_server.js");
    const exported = require(file);
    if (typeof exported.buildNamespace === "function" && typeof exported.answerCallsAsTheSpecSays === "function") {
        return exported;
    }
    const source = fs.readFileSync(file, "utf8").replace(/^#!.*\n/, "\n") +
        "\nmodule.exports.buildNamespace = buildNamespace;" +
        "\nmodule.exports.answerCallsAsTheSpecSays = answerCallsAsTheSpecSays;" +
        "\nmodule.exports.raiseEventsEvery = raiseEventsEvery;\n";
    const m = new Module(file + "#secure", module);
    m.filename = file;
    m.paths = Module._nodeModulePaths(__dirname);
    m._compile(source, file);
    return m.exports;
}

function usage(msg) {
    process.stderr.write("node_secure_server: " + msg + "\n");
    process.exit(2);
}

function parseArgs(argv) {
    const o = { port: 0, maxSeconds: 300, events: 0, trust: [], trustUser: [], reverse: [] };
    for (let i = 0; i < argv.length; ++i) {
        const a = argv[i];
        const value = () => {
            if (i + 1 >= argv.length) usage(a + " needs a value");
            return argv[++i];
        };
        const number = () => {
            const n = Number(value());
            if (!Number.isFinite(n) || n < 0) usage(a + ": not a number >= 0");
            return n;
        };
        switch (a) {
            case "--pki": o.pki = value(); break;
            case "--port": o.port = number(); break;
            case "--max-seconds": o.maxSeconds = number(); break;
            case "--events": o.events = number(); break;
            case "--trust": o.trust.push(value()); break;
            case "--trust-user": o.trustUser.push(value()); break;
            case "--reverse-connect": o.reverse.push(value()); break;
            case "--register-with": o.registerWith = value(); break;
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

// node-opcua-pki reads any *.der / *.pem in trusted/certs; the files are named by their SHA-1
// thumbprint (as node-opcua-pki names them) so that two certificates never share a name.
function trustInto(folder, files) {
    const dir = path.join(folder, "trusted", "certs");
    fs.mkdirSync(dir, { recursive: true });
    for (const f of files) {
        const der = readCertificate(f);
        const thumbprint = crypto.createHash("sha1").update(der).digest("hex");
        fs.writeFileSync(path.join(dir, "trusted[" + thumbprint + "].der"), der);
    }
}

async function main() {
    const o = parseArgs(process.argv.slice(2));
    const { buildNamespace, answerCallsAsTheSpecSays, raiseEventsEvery } = demoNamespaceBuilders();
    const port = o.port || (await freePort());

    const appPki = path.join(o.pki, "PKI");
    const userPki = path.join(o.pki, "UserPKI");
    trustInto(appPki, o.trust);
    trustInto(userPki, o.trustUser);
    const serverCertificateManager = new OPCUACertificateManager({
        rootFolder: appPki, automaticallyAcceptUnknownCertificate: false
    });
    const userCertificateManager = new OPCUACertificateManager({
        rootFolder: userPki, automaticallyAcceptUnknownCertificate: false
    });
    // The certificate names the hosts clients reach it by (Part 4 §6.1.3: our client checks the
    // endpoint URL's host against them). node-opcua's own default names only os.hostname().
    const applicationUri = "urn:" + os.hostname() + ":uactor:node-secure-server";
    const certificateFile = path.join(appPki, "own/certs/certificate.pem");
    if (!fs.existsSync(certificateFile)) {
        await serverCertificateManager.initialize();
        await serverCertificateManager.createSelfSignedCertificate({
            applicationUri,
            dns: [os.hostname(), "localhost"],
            ip: ["127.0.0.1"],
            outputFile: certificateFile,
            subject: "/CN=uactor interop node-opcua secure server",
            startDate: new Date(),
            validity: 365
        });
    }

    const server = new OPCUAServer({
        port: port,
        host: "127.0.0.1",
        hostname: "127.0.0.1",
        securityPolicies: [
            SecurityPolicy.None,
            SecurityPolicy.Basic256Sha256,
            SecurityPolicy.Aes128_Sha256_RsaOaep,
            SecurityPolicy.Aes256_Sha256_RsaPss
        ],
        securityModes: [MessageSecurityMode.None, MessageSecurityMode.Sign, MessageSecurityMode.SignAndEncrypt],
        allowAnonymous: true,
        userManager: {
            isValidUser: (userName, password) => userName === "user1" && password === "password"
        },
        skipOwnNamespace: true,
        nodeset_filename: [nodesets.standard],
        serverCertificateManager: serverCertificateManager,
        userCertificateManager: userCertificateManager,
        serverInfo: {
            applicationUri,
            productUri: "urn:uactor:node-secure-server",
            applicationName: { text: "uactor interop node-opcua secure server", locale: "en" }
        },
        buildInfo: { productName: "uactor interop node-opcua secure server" },
        registerServerMethod: o.registerWith ? RegisterServerMethod.LDS : RegisterServerMethod.HIDDEN,
        discoveryServerEndpointUrl: o.registerWith,
        reverseConnect: o.reverse.length
            ? { connections: o.reverse.map((u) => ({ endpointUrl: u })), reconnectDelay: 500, maxReconnectDelay: 2000 }
            : undefined
    });

    let writer = null;
    let events = null;
    let stopping = false;
    const stop = (why) => {
        if (stopping) return;
        stopping = true;
        process.stderr.write("node_secure_server: stopping (" + why + ")\n");
        if (writer) clearInterval(writer);
        if (events) clearInterval(events);
        // Bounded: a shutdown that hangs still ends the process.
        setTimeout(() => process.exit(0), 3000).unref();
        server.shutdown(0).then(() => process.exit(0), () => process.exit(0));
    };
    process.on("SIGINT", () => stop("SIGINT"));
    process.on("SIGTERM", () => stop("SIGTERM"));
    setTimeout(() => stop("--max-seconds " + o.maxSeconds), o.maxSeconds * 1000).unref();

    try {
        await server.initialize();
        writer = buildNamespace(server.engine.addressSpace, 1000);
        answerCallsAsTheSpecSays(server.engine.addressSpace, server.engine.addressSpaceAccessor);
        await server.start();
        events = raiseEventsEvery(server.engine.addressSpace, o.events);
    } catch (err) {
        process.stderr.write("node_secure_server: cannot start: " + (err && err.stack ? err.stack : err) + "\n");
        process.exit(1);
    }
    if (stopping) return;
    process.stderr.write("node_secure_server: certificate " + server.certificateFile + "\n");
    process.stderr.write("node_secure_server: ApplicationUri " + applicationUri + "\n");
    process.stdout.write("listening on opc.tcp://127.0.0.1:" + port + "\n");
}

main();
