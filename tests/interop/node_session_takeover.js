#!/usr/bin/env node
// node-opcua's clients try to take over a session of another client (Part 4 §5.7.3.1,
// docs/decisions/0045): client A creates a session as user1 over Basic256Sha256 SignAndEncrypt
// with a subscription; other clients send ActivateSession with A's AuthenticationToken
// (node-opcua's reactivateSession, which reuses a session object on another client) from their own
// channels. Every takeover must be refused while A's session keeps working (reads, notifications);
// the legitimate move (A's certificate, user1, a new SignAndEncrypt channel) must work and the old
// channel must then be refused; a change of user on the session's own channel must work.
//
//   node node_session_takeover.js --endpoint URL --pki DIR --cert CERT --key KEY
//        --other-cert CERT --other-key KEY [--timeout S]
//
//   --cert/--key              A's application instance certificate (trusted by the server)
//   --other-cert/--other-key  another client's certificate, also trusted by the server
//   --pki DIR                 the clients' certificate manager folder, the server's certificate
//                             in DIR/trusted/certs
//
// Prints `ok <case>` or `FAIL <case>: <why>` per case and `takeover: N of M cases passed`; exit 0
// only when every case passed. node-opcua's log goes to stderr. Bounded by --timeout (default 120 s).
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;

const path = require("path");
const {
    OPCUAClient,
    OPCUACertificateManager,
    MessageSecurityMode,
    SecurityPolicy,
    UserTokenType,
    AttributeIds,
    StatusCodes,
    ReadRequest,
    TimestampsToReturn,
    ClientSubscription,
    ClientMonitoredItem
} = require("node-opcua");

function parseArgs(argv) {
    const o = { timeout: 120 };
    for (let i = 0; i < argv.length; i++) {
        const v = () => argv[++i];
        switch (argv[i]) {
            case "--endpoint": o.endpoint = v(); break;
            case "--pki": o.pki = v(); break;
            case "--cert": o.cert = v(); break;
            case "--key": o.key = v(); break;
            case "--other-cert": o.otherCert = v(); break;
            case "--other-key": o.otherKey = v(); break;
            case "--timeout": o.timeout = Number(v()); break;
            default: throw new Error("unknown argument " + argv[i]);
        }
    }
    for (const k of ["endpoint", "pki", "cert", "key", "otherCert", "otherKey"])
        if (!o[k]) throw new Error("missing --" + k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase()));
    return o;
}

const o = parseArgs(process.argv.slice(2));
const user1 = { type: UserTokenType.UserName, userName: "user1", password: "password" };
const anonymous = { type: UserTokenType.Anonymous };
const answer = { nodeId: "ns=1;s=the.answer", attributeId: AttributeIds.Value };

let passed = 0, failed = 0;
const ok = (name) => { passed++; process.stdout.write("ok   " + name + "\n"); };
const fail = (name, why) => { failed++; process.stdout.write("FAIL " + name + ": " + why + "\n"); };

const clients = [];
async function connect(mode, policy, cert, key) {
    const client = OPCUAClient.create({
        applicationName: "uactor takeover test",
        applicationUri: "urn:uactor:node-secure-client",
        endpointMustExist: false,
        securityMode: mode,
        securityPolicy: policy,
        connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 200 },
        requestedSessionTimeout: 60000,
        keepSessionAlive: false,
        clientCertificateManager: certificateManager,
        certificateFile: cert && path.resolve(cert),
        privateKeyFile: key && path.resolve(key)
    });
    await client.connect(o.endpoint);
    clients.push(client);
    return client;
}
const secure = (cert, key) => connect(MessageSecurityMode.SignAndEncrypt, SecurityPolicy.Basic256Sha256, cert, key);

// ActivateSession for `session` through `client`'s channel with `identity` (node-opcua's
// reactivateSession sends the session object's userIdentityInfo; it is put back afterwards, and
// node-opcua leaves the session with its client when the server refuses).
async function reactivate(client, session, identity) {
    const own = session.userIdentityInfo;
    session.userIdentityInfo = identity;
    try {
        await client.reactivateSession(session);
        return "Good";
    } catch (err) {
        session.userIdentityInfo = own;
        const m = /Bad[A-Za-z]+/.exec(String(err && err.message));
        return m ? m[0] : "error: " + (err && err.message);
    }
}

// A Read sent through `client`'s channel with `session`'s token, whichever client the session
// object belongs to: the status the server gives it.
async function readThrough(client, session) {
    const request = new ReadRequest({
        nodesToRead: [answer],
        timestampsToReturn: TimestampsToReturn.Neither
    });
    request.requestHeader.authenticationToken = session.authenticationToken;
    return new Promise((resolve) => {
        client.performMessageTransaction(request, (err, response) => {
            if (err) {
                const m = /Bad[A-Za-z]+/.exec(String(err.message));
                return resolve(m ? m[0] : "error: " + err.message);
            }
            const sc = response.responseHeader.serviceResult;
            if (sc !== StatusCodes.Good) return resolve(sc.name);
            const dv = response.results[0];
            resolve(dv.statusCode === StatusCodes.Good ? "Good " + dv.value.value : dv.statusCode.name);
        });
    });
}

async function expect(name, got, want) {
    if (got === want) ok(name + " (" + got + ")");
    else fail(name, "got " + got + ", expected " + want);
}

let certificateManager;
async function main() {
    certificateManager = new OPCUACertificateManager({ rootFolder: o.pki, automaticallyAcceptUnknownCertificate: false });
    await certificateManager.initialize();

    // A: user1 over SignAndEncrypt, a subscription on a demo variable a writer changes every tick.
    const a = await secure(o.cert, o.key);
    const session = await a.createSession(user1);
    const subscription = ClientSubscription.create(session, {
        requestedPublishingInterval: 100, requestedLifetimeCount: 600, requestedMaxKeepAliveCount: 10,
        maxNotificationsPerPublish: 100, publishingEnabled: true, priority: 1
    });
    let notifications = 0;
    const item = ClientMonitoredItem.create(subscription,
        { nodeId: "ns=1;s=Demo.Dynamic.Counter", attributeId: AttributeIds.Value },
        { samplingInterval: 0, queueSize: 10, discardOldest: true }, TimestampsToReturn.Both);
    item.on("changed", () => notifications++);
    await expect("A reads with its session", await readThrough(a, session), "Good 43");

    // Takeovers, each from a channel of its own with A's token.
    const none = await connect(MessageSecurityMode.None, SecurityPolicy.None);
    await expect("takeover from a None channel, anonymous", await reactivate(none, session, anonymous),
        "BadSecurityChecksFailed");
    const other = await secure(o.otherCert, o.otherKey);
    await expect("takeover from another client's SignAndEncrypt channel, anonymous",
        await reactivate(other, session, anonymous), "BadSecurityChecksFailed");
    await expect("takeover from another client's SignAndEncrypt channel, as user1 with the password",
        await reactivate(other, session, user1), "BadSecurityChecksFailed");
    const sameApp = await secure(o.cert, o.key);
    await expect("the same application on a new channel, anonymous instead of user1",
        await reactivate(sameApp, session, anonymous), "BadIdentityChangeNotSupported");
    await expect("the same application on a new channel, user1 with a wrong password",
        await reactivate(sameApp, session, { ...user1, password: "guess" }), "BadUserAccessDenied");
    // That failure makes the login guard refuse user1's next attempts for 200 ms unchecked
    // (docs/security.md "Login attempts"); the logins of user1 below come after it.
    await new Promise((r) => setTimeout(r, 400));
    await expect("the intruders' channels cannot use the session", await readThrough(none, session),
        "BadSecureChannelIdInvalid");

    // A's session is untouched: it reads, and its subscription still notifies.
    await expect("A still reads with its session", await readThrough(a, session), "Good 43");
    const before = notifications;
    const until = Date.now() + 5000;
    while (notifications === before && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    if (notifications > before) ok("A's subscription still notifies (" + (notifications - before) + " new)");
    else fail("A's subscription still notifies", "no notification within 5 s after the attempts");

    // A session over Sign, whose token crosses the wire in clear, from a None channel.
    const signer = await connect(MessageSecurityMode.Sign, SecurityPolicy.Basic256Sha256, o.cert, o.key);
    const signSession = await signer.createSession(user1);
    await expect("takeover of a Sign session from a None channel, anonymous",
        await reactivate(none, signSession, anonymous), "BadSecurityChecksFailed");
    await expect("the Sign session still reads", await readThrough(signer, signSession), "Good 43");

    // The legitimate move: A's certificate, user1, a new SignAndEncrypt channel.
    await expect("A moves its session to a new channel as user1", await reactivate(sameApp, session, user1), "Good");
    await expect("the session reads on its new channel", await readThrough(sameApp, session), "Good 43");
    await expect("the old channel is refused", await readThrough(a, session), "BadSecureChannelIdInvalid");

    // A change of user on the session's own channel (Part 4 §5.7.3.1).
    try {
        await signSession.changeUser(anonymous);
        ok("a change of user to anonymous on the session's own channel");
        await expect("the session reads as anonymous", await readThrough(signer, signSession), "Good 43");
    } catch (err) {
        fail("a change of user to anonymous on the session's own channel", err.message);
    }
}

const timer = setTimeout(() => {
    fail("the run", "timeout after " + o.timeout + " s");
    process.exit(1);
}, o.timeout * 1000);
main()
    .catch((err) => fail("the run", err.stack || err.message))
    .finally(async () => {
        for (const c of clients) await c.disconnect().catch(() => {});
        clearTimeout(timer);
        process.stdout.write("takeover: " + passed + " of " + (passed + failed) + " cases passed\n");
        process.exit(failed === 0 && passed > 0 ? 0 : 1);
    });
