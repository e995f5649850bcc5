#!/usr/bin/env node
// The gateway (docs/gateway.md) end to end: node_server.js is the remote; two `uactor run`
// gateways mirror two of its variables, one from `--mirror` (on_loss bad), one from a plant file's
// [[mirrors]] (on_loss last_usable); node-opcua's client reads, browses, subscribes and writes
// through them. Then the remote is killed (SIGKILL) and restarted on the same port (a second
// node_server.js, initialised in advance with --standby, listens there once told): the mirrored
// values go Bad_NoCommunication (resp. Uncertain_LastUsableValue with the last value) and come
// back Good by themselves, values flowing again.
//
//   node node_mirror_check.js UACTOR_BINARY
//
// Prints `ok - STEP` / `not ok - STEP: why`; exits 0 when every step passed, 1 otherwise. Every
// wait is bounded; every child is killed on exit.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;
console.warn = console.log;

const childProcess = require("child_process");
const fs = require("fs");
const net = require("net");
const os = require("os");
const path = require("path");
// node-opcua is required once the remote is starting (main): loading it takes seconds, and so does
// the remote's start, which runs meanwhile.
let OPCUAClient, ClientSubscription, ClientMonitoredItem, AttributeIds, TimestampsToReturn, StatusCodes, DataType,
    MessageSecurityMode, SecurityPolicy, NodeId, NodeIdType, BrowseDirection;

const uactor = process.argv[2];
if (!uactor) {
    process.stderr.write("usage: node_mirror_check.js UACTOR_BINARY\n");
    process.exit(2);
}
const here = __dirname;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "uactor-mirror-"));
const children = new Set();
let failures = 0;

const t0 = Date.now();
const ok = (name) => process.stdout.write("ok - " + name + " (at " + (Date.now() - t0) + " ms)\n");
const fail = (name, why) => {
    ++failures;
    process.stdout.write("not ok - " + name + ": " + why + "\n");
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(pred, ms) {
    const end = Date.now() + ms;
    while (!pred()) {
        if (Date.now() > end) return false;
        await sleep(20);
    }
    return true;
}
function cleanup() {
    for (const c of children) {
        try { c.kill("SIGKILL"); } catch (e) { /* gone */ }
    }
    fs.rmSync(tmp, { recursive: true, force: true });
}
process.on("exit", cleanup);
setTimeout(() => {
    fail("the whole check", "still running after 170 s");
    process.exit(1);
}, 170000).unref();

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

// Starts a child, resolves with its `listening on URL` URL (the first such line), at most `ms`.
// `standby`: the child gets a stdin pipe (node_server.js --standby listens once a line comes); the
// promise's `child` is at `standby.child` at once.
function start(name, cmd, args, ms, standby) {
    return new Promise((resolve, reject) => {
        const log = fs.openSync(path.join(tmp, name + ".err"), "a");
        const c = childProcess.spawn(cmd, args, { cwd: tmp, stdio: [standby ? "pipe" : "ignore", "pipe", log] });
        if (standby) standby.child = c;
        children.add(c);
        c.on("exit", () => children.delete(c));
        let out = "";
        const timer = setTimeout(() => reject(new Error(name + " did not listen within " + ms + " ms: " + out)), ms);
        c.stdout.on("data", (d) => {
            out += d.toString();
            const m = /listening on (opc\.tcp:\/\/\S+)/.exec(out);
            if (m && timer) {
                clearTimeout(timer);
                resolve({ child: c, url: m[1] });
            }
        });
        c.on("exit", (code) => reject(new Error(name + " exited (" + code + "): " + out)));
    });
}

async function connect(url) {
    const client = OPCUAClient.create({
        endpointMustExist: false,
        securityMode: MessageSecurityMode.None,
        securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 1, initialDelay: 100, maxDelay: 200 }
    });
    await client.connect(url);
    const session = await client.createSession();
    return { client, session };
}

function subscribe(session) {
    return new Promise((resolve, reject) => {
        const sub = ClientSubscription.create(session, {
            requestedPublishingInterval: 50, requestedLifetimeCount: 600, requestedMaxKeepAliveCount: 10,
            maxNotificationsPerPublish: 0, publishingEnabled: true, priority: 1
        });
        sub.on("started", () => resolve(sub));
        sub.on("internal_error", reject);
    });
}

function monitor(sub, nodeId) {
    const values = [];
    return new Promise((resolve, reject) => {
        const item = ClientMonitoredItem.create(sub, { nodeId, attributeId: AttributeIds.Value },
            { samplingInterval: 0, queueSize: 100, discardOldest: true }, TimestampsToReturn.Both);
        item.on("changed", (dv) => values.push(dv));
        item.on("initialized", () => resolve(values));
        item.on("err", (e) => reject(new Error(String(e))));
    });
}

async function step(name, fn) {
    try {
        await fn();
        ok(name);
    } catch (e) {
        fail(name, e && e.message ? e.message : String(e));
    }
}

const good = (dv) => dv.statusCode.value === StatusCodes.Good.value;
const last = (values) => values[values.length - 1];

async function mirrorNamespace(session, uri) {
    const dv = await session.read({ nodeId: "i=2255", attributeId: AttributeIds.Value });
    const index = dv.value.value.indexOf(uri);
    if (index < 0) throw new Error(uri + " not in the NamespaceArray " + JSON.stringify(dv.value.value));
    return index;
}

async function main() {
    const remotePort = await freePort();
    const remoteArgs = [path.join(here, "node_server.js"), "--port", String(remotePort), "--writer-interval", "100",
        "--max-seconds", "170"];
    const remoteStarting = start("remote", "node", remoteArgs, 90000);
    // The restart: a second node_server.js, initialised meanwhile, that listens on the same port
    // once told (after the SIGKILL of the first); node-opcua takes seconds to load its nodeset.
    const standby = {};
    const replacement = start("remote-restarted", "node", remoteArgs.concat(["--standby"]), 120000, standby);
    replacement.catch(() => {});
    ({
        OPCUAClient, ClientSubscription, ClientMonitoredItem, AttributeIds, TimestampsToReturn, StatusCodes, DataType,
        MessageSecurityMode, SecurityPolicy, NodeId, NodeIdType, BrowseDirection
    } = require("node-opcua"));
    let remote = await remoteStarting;
    const nodes = ["ns=1;s=Demo.Dynamic.Counter", "ns=1;s=Demo.Static.Scalar.Double"];

    fs.writeFileSync(path.join(tmp, "gateway.toml"), [
        "[server]", "demo = false", "security = [\"none\"]", "",
        "[[mirrors]]", "name = \"plc\"", "endpoint = \"" + remote.url + "\"",
        "nodes = [" + nodes.map((n) => "\"" + n + "\"").join(", ") + "]",
        "sampling_interval_ms = 50", "publishing_interval_ms = 50", "on_loss = \"last_usable\"", ""
    ].join("\n"));
    const gwA = await start("gateway-cli", uactor, ["run", "--host", "127.0.0.1", "--port", "0", "--security", "none",
        "--mirror", remote.url + "," + nodes.join(",")], 30000);
    const gwB = await start("gateway-config", uactor, ["run", "--config", path.join(tmp, "gateway.toml"), "--host",
        "127.0.0.1", "--port", "0"], 30000);

    await step("a NodeId the remote does not know refuses the start (exit 1, the node named)", async () => {
        const c = childProcess.spawnSync(uactor, ["run", "--host", "127.0.0.1", "--port", "0", "--security", "none",
            "--mirror", remote.url + ",ns=1;s=Demo.Nope"], { cwd: tmp, timeout: 20000, encoding: "utf8" });
        if (c.status !== 1 || !c.stderr.includes("mirror mirror1: ns=1;s=Demo.Nope at " + remote.url + ": BadNodeIdUnknown"))
            throw new Error("exit " + c.status + ": " + c.stderr.slice(-500));
    });

    const a = await connect(gwA.url);
    const b = await connect(gwB.url);
    const nsA = await mirrorNamespace(a.session, "urn:uactor:mirror:mirror1");
    const nsB = await mirrorNamespace(b.session, "urn:uactor:mirror:plc");
    const local = (ns, remoteId) => new NodeId(NodeIdType.STRING, remoteId, ns);
    const counterA = local(nsA, nodes[0]), doubleA = local(nsA, nodes[1]);
    const counterB = local(nsB, nodes[0]), doubleB = local(nsB, nodes[1]);

    await step("the mirror's folder holds the remote's variables by their browse names", async () => {
        const r = await a.session.browse({
            nodeId: new NodeId(NodeIdType.STRING, "mirror1", nsA), browseDirection: BrowseDirection.Forward,
            referenceTypeId: "HierarchicalReferences", includeSubtypes: true, resultMask: 63
        });
        const names = r.references.map((x) => x.browseName.name).sort();
        if (JSON.stringify(names) !== JSON.stringify(["Counter", "Double"])) throw new Error("children " + JSON.stringify(names));
    });
    await step("DataType and AccessLevel are the remote's", async () => {
        const r = await a.session.read([
            { nodeId: counterA, attributeId: AttributeIds.DataType }, { nodeId: counterA, attributeId: AttributeIds.AccessLevel },
            { nodeId: doubleA, attributeId: AttributeIds.DataType }, { nodeId: doubleA, attributeId: AttributeIds.AccessLevel }]);
        const got = r.map((dv) => dv.value.value.toString()).join(" ");
        if (got !== "ns=0;i=7 1 ns=0;i=11 3") throw new Error("DataType/AccessLevel " + got);
    });

    // The remote directly, to compare values and source timestamps.
    const direct = await connect(remote.url);
    const subR = await subscribe(direct.session);
    const valuesR = await monitor(subR, nodes[0]);
    const subA = await subscribe(a.session);
    const subB = await subscribe(b.session);
    const valuesA = await monitor(subA, counterA);
    const valuesB = await monitor(subB, counterB);

    await step("a subscription through the gateway sees the counter change, Good", async () => {
        if (!(await until(() => valuesA.filter(good).length >= 10 && valuesB.filter(good).length >= 10, 10000)))
            throw new Error("values through the gateways: " + valuesA.length + ", " + valuesB.length);
    });
    await step("values and source timestamps are the remote's", async () => {
        await sleep(300);
        const seen = new Map(valuesR.map((dv) => [String(dv.value.value), dv.sourceTimestamp.getTime()]));
        const checked = valuesA.filter((dv) => good(dv) && seen.has(String(dv.value.value)));
        if (checked.length < 5) throw new Error("only " + checked.length + " common values");
        for (const dv of checked) {
            if (seen.get(String(dv.value.value)) !== dv.sourceTimestamp.getTime())
                throw new Error("value " + dv.value.value + ": source timestamp " + dv.sourceTimestamp.toISOString() +
                                " at the gateway, " + new Date(seen.get(String(dv.value.value))).toISOString() + " at the remote");
        }
    });
    await step("a Write through the gateway reaches the remote", async () => {
        const sc = await a.session.write({ nodeId: doubleA, attributeId: AttributeIds.Value,
            value: { value: { dataType: DataType.Double, value: 12.5 } } });
        if (sc.value !== StatusCodes.Good.value) throw new Error("write: " + sc.toString());
        const dv = await direct.session.read({ nodeId: nodes[1], attributeId: AttributeIds.Value });
        if (dv.value.value !== 12.5) throw new Error("the remote holds " + dv.value.value);
        let mirrored = null;
        for (let i = 0; i < 50 && !(mirrored && mirrored.value.value === 12.5); ++i) {
            await sleep(20);
            mirrored = await b.session.read({ nodeId: doubleB, attributeId: AttributeIds.Value });
        }
        if (mirrored.value.value !== 12.5) throw new Error("the other gateway mirrors " + mirrored.value.value);
    });
    await step("a Write of a read-only remote variable is refused (BadNotWritable)", async () => {
        const sc = await a.session.write({ nodeId: counterA, attributeId: AttributeIds.Value,
            value: { value: { dataType: DataType.UInt32, value: 5 } } });
        if (sc.value !== StatusCodes.BadNotWritable.value) throw new Error("write: " + sc.toString());
    });
    await step("a Write of the wrong type is refused (BadTypeMismatch)", async () => {
        const sc = await b.session.write({ nodeId: doubleB, attributeId: AttributeIds.Value,
            value: { value: { dataType: DataType.String, value: "x" } } });
        if (sc.value !== StatusCodes.BadTypeMismatch.value) throw new Error("write: " + sc.toString());
    });
    await subR.terminate();
    await direct.session.close();
    await direct.client.disconnect();

    // SIGKILL: the remote closes nothing.
    const killedAt = Date.now();
    remote.child.kill("SIGKILL");
    await step("remote killed: the mirrored value goes BadNoCommunication (on_loss bad)", async () => {
        if (!(await until(() => last(valuesA).statusCode.value === StatusCodes.BadNoCommunication.value, 10000)))
            throw new Error("last status " + last(valuesA).statusCode.toString());
        process.stderr.write("bad after " + (Date.now() - killedAt) + " ms\n");
    });
    await step("remote killed: the last value stays, UncertainLastUsableValue (on_loss last_usable)", async () => {
        if (!(await until(() => last(valuesB).statusCode.value === StatusCodes.UncertainLastUsableValue.value, 10000)))
            throw new Error("last status " + last(valuesB).statusCode.toString());
        const lastGood = valuesB.filter(good).pop();
        if (last(valuesB).value.value !== lastGood.value.value)
            throw new Error("value " + last(valuesB).value.value + ", last good " + lastGood.value.value);
    });
    await step("a Write while the remote is down gets BadNoCommunication", async () => {
        const sc = await a.session.write({ nodeId: doubleA, attributeId: AttributeIds.Value,
            value: { value: { dataType: DataType.Double, value: 1.5 } } });
        if (sc.value !== StatusCodes.BadNoCommunication.value) throw new Error("write: " + sc.toString());
    });

    const badA = valuesA.length, badB = valuesB.length;
    standby.child.stdin.write("listen\n");
    remote = await replacement;
    const listeningAt = Date.now();
    await step("remote restarted: values are Good again and flow", async () => {
        const fresh = (values, from) => values.slice(from).filter(good).length;
        if (!(await until(() => fresh(valuesA, badA) >= 5 && fresh(valuesB, badB) >= 5, 20000)))
            throw new Error("Good values since the restart: " + fresh(valuesA, badA) + ", " + fresh(valuesB, badB));
        if (!good(last(valuesA)) || !good(last(valuesB))) throw new Error("last status not Good");
        process.stderr.write("good again " + (Date.now() - listeningAt) + " ms after the remote listened\n");
    });
    await step("remote restarted: an unchanging value is read again (the restarted remote's 2.718...)", async () => {
        let dv = null;
        for (let i = 0; i < 100 && !(dv && good(dv)); ++i) {
            if (dv) await sleep(50);
            dv = await a.session.read({ nodeId: doubleA, attributeId: AttributeIds.Value });
        }
        if (!good(dv) || dv.value.value !== 2.718281828459045) throw new Error(dv.toString());
    });
    await step("a Write after the restart reaches the remote again", async () => {
        const sc = await a.session.write({ nodeId: doubleA, attributeId: AttributeIds.Value,
            value: { value: { dataType: DataType.Double, value: 3.25 } } });
        if (sc.value !== StatusCodes.Good.value) throw new Error("write: " + sc.toString());
    });

    for (const s of [a, b]) {
        await s.session.close();
        await s.client.disconnect();
    }
    await step("the gateways stop on SIGINT with status 0", async () => {
        for (const gw of [gwA, gwB]) {
            const code = new Promise((resolve) => gw.child.on("exit", (c) => resolve(c)));
            gw.child.kill("SIGINT");
            const c = await Promise.race([code, sleep(10000).then(() => "timeout")]);
            if (c !== 0) throw new Error("exit " + c);
        }
    });
}

main().then(
    () => process.exit(failures ? 1 : 0),
    (e) => {
        fail("setup", e && e.stack ? e.stack : String(e));
        for (const f of ["remote", "remote-restarted", "gateway-cli", "gateway-config"]) {
            const p = path.join(tmp, f + ".err");
            if (fs.existsSync(p)) process.stderr.write("--- " + f + ":\n" + fs.readFileSync(p, "utf8").slice(-3000) + "\n");
        }
        process.exit(1);
    });
