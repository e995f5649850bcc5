#!/usr/bin/env node
// A node-opcua client that connects to a server with a security policy and mode (Part 4 §5.5,
// Part 6 §6.7), creates a session for an identity (anonymous, UserName, X509: Part 4 §7.41), reads
// ns=1;s=the.answer (Int32 43, docs/demo-namespace.md), writes ns=1;s=Demo.Static.Scalar.Int32 and
// reads it back, and closes.
//
//   node node_secure_client.js --endpoint URL --policy NAME --mode Sign|SignAndEncrypt|None
//        --pki DIR [--user U --password P | --x509 CERT KEY] [--cert CERT --key KEY]
//        [--application-uri URI] [--expect-fail STATUSNAME] [--timeout S] [--init-only]
//
//   --policy        None, Basic256Sha256, Aes128_Sha256_RsaOaep, Aes256_Sha256_RsaPss
//   --pki DIR       the client's OPCUACertificateManager folder (own/, trusted/, rejected/ ...);
//                   unknown server certificates are NOT accepted: put the server's certificate
//                   into DIR/trusted/certs first. The client's own certificate is created in
//                   DIR/own/certs/client_certificate.pem on first use.
//   --cert/--key    use this application instance certificate and key instead (PEM or DER; the
//                   failure-path certificates: expired, wrong ApplicationUri ...)
//   --application-uri  the ApplicationUri sent in CreateSession (and put into the certificate
//                   created on first use); default urn:uactor:node-secure-client
//   --x509 CERT KEY a user certificate (PEM or DER) and its private key (PEM) as the identity
//   --expect-fail S the run must fail, and with status S (e.g. BadSecurityChecksFailed): exit 0
//                   only then
//   --expect-step T with --expect-fail: and in step T (connect, session, ...)
//   --session-application-uri URI  send this ApplicationUri in CreateSession whatever the
//                   certificate says (node-opcua sends the certificate's own): to see a server
//                   refuse the mismatch (Part 4 §5.6.2)
//   --pretend-user-token-policy ID  act as if the endpoint offered a UserName token policy ID
//                   (no encryption): to send a UserName token where the server offers none (over
//                   None) and see the server refuse it, not node-opcua
//   --pretend-anonymous-policy ID  act as if the endpoint offered an Anonymous token policy ID: to
//                   send an anonymous token where the endpoint offers none and see the server
//                   refuse it, not node-opcua
//   --session-only  after the session, read ServerState instead of the demo's nodes
//   --write-double NODE V   with --session-only: write the Double V to NODE (and read it back)
//   --expect-double NODE V  with --session-only: NODE reads as the Double V
//   --expect-endpoints URL[,URL...]  with --session-only: GetEndpoints through this connection
//                   lists an endpoint at each URL (Part 4 §5.4.4: every endpoint of the server)
//   --hold-until F  with --session-only: keep the session, reading ServerState every 200 ms,
//                   until the file F exists
//   --init-only     create the PKI and the client's certificate, print its path, exit 0
//   --batch FILE    many runs in one process (loading node-opcua takes seconds on a busy
//                   machine): each non-empty line of FILE that does not start with # is
//                   `NAME ARGS...`, the arguments of one run, added to those of the command
//                   line. Prints `case NAME: ok ...` or `case NAME: FAIL ...` per line and
//                   exits 0 only when every case passed.
//
// Prints one line per step on stdout (`ok <step>` or `FAIL <step>: <why>`, or `failed as
// expected: ...`). Exit 0 on success, 1 on failure, 2 on bad usage. node-opcua's log goes to
// stderr. Bounded by --timeout (default 45 s).
"use strict";

const util = require("util");

// node-opcua logs with console.log; stdout carries only our step lines.
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;

const fs = require("fs");
const path = require("path");

const {
    OPCUAClient,
    OPCUACertificateManager,
    MessageSecurityMode,
    SecurityPolicy,
    UserTokenType,
    AttributeIds,
    DataType,
    StatusCodes,
    EndpointDescription,
    UserTokenPolicy
} = require("node-opcua");
const { readCertificate } = require("node-opcua-crypto");
const { MessageBuilder } = require("node-opcua-secure-channel");
const { getStatusCodeFromCode } = require("node-opcua-status-code");

// A server refuses an OpenSecureChannel with an ERR message (Part 6 §7.1.5: Error, Reason);
// node-opcua's client hands it to MessageBuilder._report_error and then reports only "socket has
// been disconnected". Note what was reported, so that a refusal can be checked for its status.
const serverErrors = [];
const reportError = MessageBuilder.prototype._report_error;
MessageBuilder.prototype._report_error = function (statusCode, message) {
    const name = statusCode && statusCode.name ? statusCode.name
        : typeof statusCode === "number" ? (getStatusCodeFromCode(statusCode) || { name: "0x" + statusCode.toString(16) }).name
        : String(statusCode);
    serverErrors.push("channel error " + name + (message ? " \"" + message + "\"" : ""));
    return reportError.call(this, statusCode, message);
};

const DEFAULT_URI = "urn:uactor:node-secure-client";

let inBatch = false;
function usage(msg) {
    if (inBatch) {
        throw new Error("usage: " + msg);
    }
    process.stderr.write("node_secure_client: " + msg + "\n");
    process.exit(2);
}

function parseArgs(argv, base) {
    const o = Object.assign({ timeout: 45, applicationUri: DEFAULT_URI, policy: "None", mode: "None" }, base || {});
    for (let i = 0; i < argv.length; ++i) {
        const a = argv[i];
        const value = () => {
            if (i + 1 >= argv.length) {
                usage(a + " needs a value");
            }
            return argv[++i];
        };
        switch (a) {
            case "--endpoint": o.endpoint = value(); break;
            case "--policy": o.policy = value(); break;
            case "--mode": o.mode = value(); break;
            case "--pki": o.pki = value(); break;
            case "--user": o.user = value(); break;
            case "--password": o.password = value(); break;
            case "--x509": o.x509Cert = value(); o.x509Key = value(); break;
            case "--cert": o.cert = value(); break;
            case "--key": o.key = value(); break;
            case "--application-uri": o.applicationUri = value(); break;
            case "--expect-fail": o.expectFail = value(); break;
            case "--expect-step": o.expectStep = value(); break;
            case "--timeout": o.timeout = Number(value()); break;
            case "--pretend-user-token-policy": o.pretendPolicy = value(); break;
            case "--session-application-uri": o.sessionApplicationUri = value(); break;
            case "--init-only": o.initOnly = true; break;
            case "--batch": o.batch = value(); break;
            case "--hold-until": o.holdUntil = value(); break;
            case "--session-only": o.sessionOnly = true; break;
            case "--pretend-anonymous-policy": o.pretendAnonymous = value(); break;
            case "--write-double": o.writeDouble = { node: value(), value: Number(value()) }; break;
            case "--expect-double": o.expectDouble = { node: value(), value: Number(value()) }; break;
            case "--expect-endpoints": o.expectEndpoints = value().split(","); break;
            default: usage("unknown argument: " + a);
        }
    }
    if (!o.pki) {
        usage("--pki DIR is required");
    }
    if (!o.initOnly && !o.batch && !o.endpoint) {
        usage("--endpoint URL is required");
    }
    if (!(o.policy in SecurityPolicy)) {
        usage("unknown policy " + o.policy);
    }
    if (!(o.mode in MessageSecurityMode) || o.mode === "Invalid") {
        usage("unknown mode " + o.mode);
    }
    if ((o.user === undefined) !== (o.password === undefined)) {
        usage("--user and --password go together");
    }
    if ((o.cert === undefined) !== (o.key === undefined)) {
        usage("--cert and --key go together");
    }
    if (!Number.isFinite(o.timeout) || o.timeout <= 0) {
        usage("--timeout must be > 0");
    }
    return o;
}

// Every text an error carries (node-opcua wraps the server's status in messages, in
// err.response, in err.statusCode), so that a status name can be looked for in it.
function errorText(err) {
    const parts = [];
    const seen = new Set();
    const visit = (e, depth) => {
        if (!e || depth > 4 || seen.has(e)) {
            return;
        }
        seen.add(e);
        if (typeof e === "string") {
            parts.push(e);
            return;
        }
        if (e.message) parts.push(String(e.message));
        if (e.statusCode && e.statusCode.name) parts.push(e.statusCode.name);
        const sr = e.response && e.response.responseHeader && e.response.responseHeader.serviceResult;
        if (sr && sr.name) parts.push(sr.name);
        visit(e.cause, depth + 1);
        visit(e.originalError, depth + 1);
    };
    visit(err, 0);
    return parts.join(" | ").replace(/\s*\n\s*/g, " ");
}

// One run: connect, session, read, write, read back, close. Resolves to { ok, lines }: ok true
// when the run went as expected (all steps, or the expected failure).
async function runOnce(o, clientCertificateManager, say) {
    const options = {
        applicationName: "uactor node-secure-client",
        applicationUri: o.applicationUri,
        endpointMustExist: false,
        securityMode: MessageSecurityMode[o.mode],
        securityPolicy: SecurityPolicy[o.policy],
        // One attempt: a refusal is the answer, not something to retry.
        connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 200 },
        requestedSessionTimeout: 60000,
        keepSessionAlive: false,
        clientCertificateManager
    };
    if (o.cert) {
        options.certificateFile = path.resolve(o.cert);
        options.privateKeyFile = path.resolve(o.key);
    }
    const client = OPCUAClient.create(options);
    if (o.sessionApplicationUri) {
        client._getApplicationUri = () => o.sessionApplicationUri;
    }
    if (o.pretendPolicy) {
        const resolve = client.__resolveEndPoint.bind(client);
        client.__resolveEndPoint = function () {
            const found = resolve();
            if (found && this.endpoint) {
                this.endpoint = new EndpointDescription(this.endpoint);
                this.endpoint.userIdentityTokens = (this.endpoint.userIdentityTokens || []).concat([
                    new UserTokenPolicy({ policyId: o.pretendPolicy, tokenType: UserTokenType.UserName })
                ]);
            }
            return found;
        };
    }

    if (o.pretendAnonymous) {
        const resolve = client.__resolveEndPoint.bind(client);
        client.__resolveEndPoint = function () {
            const found = resolve();
            if (found && this.endpoint) {
                this.endpoint = new EndpointDescription(this.endpoint);
                this.endpoint.userIdentityTokens = (this.endpoint.userIdentityTokens || []).concat([
                    new UserTokenPolicy({ policyId: o.pretendAnonymous, tokenType: UserTokenType.Anonymous })
                ]);
            }
            return found;
        };
    }

    let userIdentity = { type: UserTokenType.Anonymous };
    if (o.user !== undefined) {
        userIdentity = { type: UserTokenType.UserName, userName: o.user, password: o.password };
    } else if (o.x509Cert) {
        userIdentity = {
            type: UserTokenType.Certificate,
            certificateData: readCertificate(o.x509Cert),
            privateKey: fs.readFileSync(o.x509Key, "utf8")
        };
    }
    const who = o.user !== undefined ? "user " + o.user : o.x509Cert ? "x509 " + shortName(o.x509Cert) : "anonymous";
    const what = o.policy + "/" + o.mode + " " + who + (o.cert ? " cert " + shortName(o.cert) : "");

    // node-opcua does not always carry the server's status in what connect() rejects with:
    // collect what it says on the way.
    const events = [];
    serverErrors.length = 0;
    client.on("connection_failed", (err) => events.push(errorText(err)));
    client.on("close", (err) => err && events.push(errorText(err)));

    let session = null;
    let step = "connect";
    let ok = false;
    const timer = { id: null };
    const timeout = new Promise((_, reject) => {
        timer.id = setTimeout(() => reject(new Error("timeout: no end after " + o.timeout + " s")), o.timeout * 1000);
    });
    const steps = async () => {
        step = "connect";
        await client.connect(o.endpoint);
        say("ok connect " + o.endpoint + " " + o.policy + "/" + o.mode);

        step = "session";
        session = await client.createSession(userIdentity);
        say("ok session " + what);

        if (o.sessionOnly) {
            // A server without the demo namespace (tests/interop/config_plant_interop.sh).
            step = "read ServerState";
            const state = await session.read({ nodeId: "ns=0;i=2259", attributeId: AttributeIds.Value });
            if (!state.statusCode.equals(StatusCodes.Good) || state.value.value !== 0) {
                throw new Error("ServerState: " + state.toString());
            }
            say("ok read ServerState Running");
            if (o.writeDouble) {
                step = "write";
                const { node, value } = o.writeDouble;
                const ws = await session.write({
                    nodeId: node, attributeId: AttributeIds.Value, value: { value: { dataType: DataType.Double, value } }
                });
                if (!ws.equals(StatusCodes.Good)) throw new Error("write " + node + " = " + value + ": " + ws.toString());
                say("ok write " + node + " Double " + value);
            }
            if (o.expectDouble) {
                step = "read";
                const { node, value } = o.expectDouble;
                const dv = await session.read({ nodeId: node, attributeId: AttributeIds.Value });
                if (!dv.statusCode.equals(StatusCodes.Good) || dv.value.value !== value) {
                    throw new Error("read " + node + ": " + dv.toString() + " (expected " + value + ")");
                }
                say("ok read " + node + " Double " + value);
            }
            if (o.expectEndpoints) {
                step = "endpoints";
                const endpoints = await client.getEndpoints();
                const urls = endpoints.map((e) => e.endpointUrl);
                for (const want of o.expectEndpoints) {
                    if (!urls.includes(want)) throw new Error("GetEndpoints lists " + urls.join(" ") + ", not " + want);
                }
                say("ok GetEndpoints lists " + [...new Set(urls)].join(" "));
            }
            if (o.holdUntil) {
                // The session kept, read every 200 ms, until the file appears (a server reload
                // meanwhile must not disturb it: tests/interop/config_reload_interop.sh).
                step = "hold";
                let reads = 0;
                while (!fs.existsSync(o.holdUntil)) {
                    const s = await session.read({ nodeId: "ns=0;i=2259", attributeId: AttributeIds.Value });
                    if (!s.statusCode.equals(StatusCodes.Good)) throw new Error("held session read: " + s.statusCode.toString());
                    reads++;
                    await new Promise((r) => setTimeout(r, 200));
                }
                say("ok held the session for " + reads + " reads");
            }
            step = "close";
            await session.close();
            session = null;
            await client.disconnect();
            say("ok close");
            return;
        }

        step = "read the.answer";
        const answer = await session.read({ nodeId: "ns=1;s=the.answer", attributeId: AttributeIds.Value });
        if (!answer.statusCode.equals(StatusCodes.Good) || answer.value.dataType !== DataType.Int32 || answer.value.value !== 43) {
            throw new Error("ns=1;s=the.answer: " + answer.toString());
        }
        say("ok read ns=1;s=the.answer Int32 43");

        step = "write";
        const nodeId = "ns=1;s=Demo.Static.Scalar.Int32";
        const v = -((Date.now() % 1000000) + 1);
        const ws = await session.write({
            nodeId, attributeId: AttributeIds.Value, value: { value: { dataType: DataType.Int32, value: v } }
        });
        if (!ws.equals(StatusCodes.Good)) {
            throw new Error("write " + nodeId + " = " + v + ": " + ws.toString());
        }
        say("ok write " + nodeId + " Int32 " + v);

        step = "read back";
        const back = await session.read({ nodeId, attributeId: AttributeIds.Value });
        if (!back.statusCode.equals(StatusCodes.Good) || back.value.value !== v) {
            throw new Error("read back " + nodeId + ": " + back.toString() + " (wrote " + v + ")");
        }
        say("ok read back " + nodeId + " Int32 " + v);

        step = "close";
        await session.close();
        session = null;
        await client.disconnect();
        say("ok close");
    };
    try {
        await Promise.race([steps(), timeout]);
        if (o.expectFail) {
            say("FAIL " + what + ": succeeded, expected " + o.expectFail);
        } else {
            say("ok all steps " + what);
            ok = true;
        }
    } catch (err) {
        const text = errorText(err) + (events.length ? " | events: " + events.join(" | ") : "") +
            (serverErrors.length ? " | " + serverErrors.join(" | ") : "");
        if (o.expectFail && o.expectStep && step !== o.expectStep) {
            say("FAIL " + step + " (" + what + "): failed in " + step + ", expected in " + o.expectStep + ": " + text);
        } else if (o.expectFail && text.includes(o.expectFail)) {
            say("ok failed as expected in " + step + " (" + what + "): " + o.expectFail + ": " + text);
            ok = true;
        } else if (o.expectFail) {
            say("FAIL " + step + " (" + what + "): failed, but not with " + o.expectFail + ": " + text);
        } else {
            say("FAIL " + step + " (" + what + "): " + text);
        }
    } finally {
        clearTimeout(timer.id);
        // Bounded clean-up: a connection the server dropped may never answer.
        const cleanUp = async () => {
            try {
                if (session) await session.close();
            } catch (_) { /* the failure is reported already */ }
            try {
                await client.disconnect();
            } catch (_) { /* idem */ }
        };
        await Promise.race([cleanUp(), new Promise((resolve) => setTimeout(resolve, 3000))]);
    }
    return ok;
}

// dir/cert.pem: the certificates of make_certs.js are all named cert.pem.
function shortName(file) {
    return path.basename(path.dirname(path.resolve(file))) + "/" + path.basename(file);
}

function splitWords(line) {
    return line.trim().split(/\s+/).filter((w) => w.length);
}

async function main() {
    const o = parseArgs(process.argv.slice(2));
    const keepAlive = setInterval(() => {}, 1000);
    const clientCertificateManager = new OPCUACertificateManager({
        rootFolder: o.pki, automaticallyAcceptUnknownCertificate: false
    });

    if (o.initOnly) {
        const client = OPCUAClient.create({
            applicationName: "uactor node-secure-client", applicationUri: o.applicationUri, clientCertificateManager
        });
        await clientCertificateManager.initialize();
        await client.createDefaultCertificate();
        process.stdout.write(client.certificateFile + "\n");
        // No dispose(): it waits for node-opcua-pki's folder watchers (seconds); exit ends them.
        process.exit(0);
    }

    if (!o.batch) {
        const ok = await runOnce(o, clientCertificateManager, (line) => process.stdout.write(line + "\n"));
        clearInterval(keepAlive);
        process.exit(ok ? 0 : 1);
    }

    inBatch = true;
    const base = Object.assign({}, o);
    delete base.batch;
    let failed = 0;
    let count = 0;
    for (const raw of fs.readFileSync(o.batch, "utf8").split("\n")) {
        const words = splitWords(raw);
        if (!words.length || words[0].startsWith("#")) {
            continue;
        }
        const name = words.shift();
        count += 1;
        const say = (line) => process.stdout.write("case " + name + ": " + line + "\n");
        let ok = false;
        try {
            const c = parseArgs(words, base);
            if (!c.endpoint) throw new Error("usage: no --endpoint");
            ok = await runOnce(c, clientCertificateManager, say);
        } catch (err) {
            say("FAIL internal: " + (err && err.stack ? err.stack : err));
        }
        if (!ok) failed += 1;
    }
    process.stdout.write("batch: " + (count - failed) + " of " + count + " cases passed\n");
    clearInterval(keepAlive);
    process.exit(failed === 0 && count > 0 ? 0 : 1);
}

main().catch((err) => {
    process.stdout.write("FAIL internal: " + (err && err.stack ? err.stack : err) + "\n");
    process.exit(1);
});
