#!/usr/bin/env node
// node-opcua's ClientSubscription and ClientMonitoredItem against a server serving
// docs/demo-namespace.md with its writer running (`uactor run --writer-interval 50`).
//
//   node node_subscribe.js opc.tcp://127.0.0.1:PORT [--timeout S]
//
// Prints `ok <step>` or `FAIL <step>: <why>` per step, then a summary; exits 0 only when every
// step passed (1 otherwise, 2 on bad usage). node-opcua's log goes to stderr. Bounded by --timeout
// (default 60 s). Steps:
// - counter: Demo.Dynamic.Counter with sampling interval 0 delivers consecutive values, none missing;
// - writes: 30 values written one after the other into Demo.Static.Scalar.Int32 arrive in order, all;
// - deadband: an absolute deadband of 1.0 on Demo.Static.Scalar.Double drops the small changes;
// - overflow: a queue of 3 (discard oldest) and 10 writes in one Write request inside one publishing
//   interval deliver the newest 3, the oldest of them with the Overflow bit.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;

const {
    OPCUAClient,
    ClientSubscription,
    ClientMonitoredItem,
    AttributeIds,
    TimestampsToReturn,
    DataType,
    DataChangeFilter,
    DataChangeTrigger,
    DeadbandType,
    StatusCodes,
    MessageSecurityMode,
    SecurityPolicy
} = require("node-opcua");

let failures = 0;
let passes = 0;
function ok(step) {
    passes += 1;
    process.stdout.write("ok " + step + "\n");
}
function fail(step, why) {
    failures += 1;
    process.stdout.write("FAIL " + step + ": " + why + "\n");
}

const args = process.argv.slice(2);
if (args.length < 1 || !args[0].startsWith("opc.tcp://")) {
    process.stderr.write("usage: node node_subscribe.js opc.tcp://HOST:PORT [--timeout S]\n");
    process.exit(2);
}
const endpoint = args[0];
let timeoutS = 60;
const t = args.indexOf("--timeout");
if (t >= 0 && args[t + 1]) timeoutS = Number(args[t + 1]);
setTimeout(() => {
    process.stdout.write("FAIL timeout: not done after " + timeoutS + " s\n");
    process.exit(1);
}, timeoutS * 1000).unref();

const demo = (name) => "ns=1;s=" + name;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Waits until pred() holds, polling every 10 ms, at most `ms`.
async function until(pred, ms) {
    const end = Date.now() + ms;
    while (!pred()) {
        if (Date.now() > end) return false;
        await sleep(10);
    }
    return true;
}

function subscribe(session, interval) {
    return new Promise((resolve, reject) => {
        const sub = ClientSubscription.create(session, {
            requestedPublishingInterval: interval,
            requestedLifetimeCount: 600,
            requestedMaxKeepAliveCount: 10,
            maxNotificationsPerPublish: 0,
            publishingEnabled: true,
            priority: 1
        });
        sub.on("started", () => resolve(sub));
        sub.on("internal_error", reject);
    });
}

// A monitored item whose values are collected into `values` (DataValues, in arrival order).
function monitor(sub, nodeId, params) {
    const values = [];
    return new Promise((resolve, reject) => {
        const item = ClientMonitoredItem.create(sub, { nodeId, attributeId: AttributeIds.Value }, params,
                                                TimestampsToReturn.Both);
        item.on("changed", (dv) => values.push(dv));
        item.on("initialized", () => resolve({ item, values }));
        item.on("err", (e) => reject(new Error(String(e))));
    });
}

async function write(session, nodeId, dataType, values) {
    const nodesToWrite = values.map((v) => ({
        nodeId,
        attributeId: AttributeIds.Value,
        value: { value: { dataType, value: v } }
    }));
    const results = await session.write(nodesToWrite);
    for (const r of results) if (r.value !== StatusCodes.Good.value) throw new Error("write: " + r.toString());
}

async function step(name, fn) {
    try {
        await fn();
        ok(name);
    } catch (e) {
        fail(name, e && e.message ? e.message : String(e));
    }
}

async function main() {
    const client = OPCUAClient.create({
        endpointMustExist: false,
        securityMode: MessageSecurityMode.None,
        securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 1, initialDelay: 100, maxDelay: 200 }
    });
    await client.connect(endpoint);
    const session = await client.createSession();
    const sub = await subscribe(session, 100);

    await step("counter", async () => {
        const { item, values } = await monitor(sub, demo("Demo.Dynamic.Counter"),
                                               { samplingInterval: 0, queueSize: 100, discardOldest: true });
        if (!(await until(() => values.length >= 20, 10000))) throw new Error("only " + values.length + " values in 10 s");
        await item.terminate();
        const n = values.map((dv) => dv.value.value);
        for (let i = 1; i < n.length; ++i)
            if (n[i] !== n[i - 1] + 1) throw new Error("not consecutive: " + n.join(","));
    });

    await step("writes", async () => {
        const node = demo("Demo.Static.Scalar.Int32");
        await write(session, node, DataType.Int32, [0]);
        const { item, values } = await monitor(sub, node, { samplingInterval: 0, queueSize: 100, discardOldest: true });
        if (!(await until(() => values.length >= 1, 5000))) throw new Error("no initial value");
        for (let i = 1; i <= 30; ++i) await write(session, node, DataType.Int32, [i]);
        if (!(await until(() => values.length >= 31, 5000))) throw new Error("only " + values.length + " values");
        await sleep(300);  // nothing more may come
        await item.terminate();
        const got = values.map((dv) => dv.value.value);
        const want = Array.from({ length: 31 }, (_, i) => i);
        if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error("got " + got.join(","));
    });

    await step("deadband", async () => {
        const node = demo("Demo.Static.Scalar.Double");
        await write(session, node, DataType.Double, [0]);
        const filter = new DataChangeFilter({
            trigger: DataChangeTrigger.StatusValue,
            deadbandType: DeadbandType.Absolute,
            deadbandValue: 1.0
        });
        const { item, values } = await monitor(sub, node,
                                               { samplingInterval: 0, queueSize: 100, discardOldest: true, filter });
        if (!(await until(() => values.length >= 1, 5000))) throw new Error("no initial value");
        for (const v of [0.5, 1.5, 2.0, 2.6, 2.7, 10]) await write(session, node, DataType.Double, [v]);
        if (!(await until(() => values.length >= 4, 5000))) throw new Error("only " + values.length + " values");
        await sleep(300);
        await item.terminate();
        await write(session, node, DataType.Double, [2.718281828459045]);  // the demo's initial value
        const got = values.map((dv) => dv.value.value);
        if (JSON.stringify(got) !== JSON.stringify([0, 1.5, 2.6, 10])) throw new Error("got " + got.join(","));
    });

    await step("overflow", async () => {
        const slow = await subscribe(session, 1000);
        const node = demo("Demo.Static.Scalar.Int32");
        const { item, values } = await monitor(slow, node, { samplingInterval: 0, queueSize: 3, discardOldest: true });
        if (!(await until(() => values.length >= 1, 5000))) throw new Error("no initial value");
        // Ten changes in one Write request: one handler of the server, inside one publishing interval.
        await write(session, node, DataType.Int32, [101, 102, 103, 104, 105, 106, 107, 108, 109, 110]);
        if (!(await until(() => values.length >= 4, 5000))) throw new Error("only " + values.length + " values");
        await item.terminate();
        await slow.terminate();
        await write(session, node, DataType.Int32, [-2000000000]);  // the demo's initial value
        const got = values.slice(1).map((dv) => dv.value.value);
        if (JSON.stringify(got) !== JSON.stringify([108, 109, 110])) throw new Error("got " + got.join(","));
        const sc = values[1].statusCode;
        const full = typeof sc.value === "number" ? sc.value : 0;
        if (!((full & 0x480) === 0x480 || sc.hasOverflowBit)) throw new Error("no Overflow bit on 108: " + sc.toString());
        if (values[2].statusCode.hasOverflowBit) throw new Error("Overflow bit on 109");
    });

    await sub.terminate();
    await session.close();
    await client.disconnect();
}

main()
    .catch((e) => fail("connect", e && e.message ? e.message : String(e)))
    .finally(() => {
        process.stdout.write((failures ? "FAILED" : "PASSED") + ": " + passes + " ok, " + failures + " failed\n");
        process.exit(failures ? 1 : 0);
    });
