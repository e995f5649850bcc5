#!/usr/bin/env node
// node-opcua's client against examples/config/scripts.toml served by `uactor run` (scripts out of
// process): it subscribes to the virtual tag DeltaP = P1 - P2 and the alarm HighDeltaP = P1 - P2 > 110,
// then writes 30 pairs (P1, P2) = (100 + 3k, k), each pair in one Write request, so DeltaP = 100 + 2k
// names the pair it was computed from.
//
//   node node_scripts.js opc.tcp://127.0.0.1:PORT [--timeout S]
//
// Checks: every DeltaP value received is 100 + 2k of a pair written (or the first 0), in the order
// written, the last one 158; HighDeltaP goes false -> true once, and each of its values equals the
// predicate of the newest DeltaP notified before it or with it (same pair or a later one); the
// calculation Ticks counts up. Prints `ok <step>` / `FAIL <step>: <why>`; exit 0 only when all pass.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;

const {
    OPCUAClient, ClientSubscription, ClientMonitoredItem, AttributeIds, TimestampsToReturn, DataType,
    StatusCodes, MessageSecurityMode, SecurityPolicy
} = require("node-opcua");

let failures = 0;
function ok(step) { process.stdout.write("ok " + step + "\n"); }
function fail(step, why) { failures += 1; process.stdout.write("FAIL " + step + ": " + why + "\n"); }

const args = process.argv.slice(2);
if (args.length < 1 || !args[0].startsWith("opc.tcp://")) {
    process.stderr.write("usage: node node_scripts.js opc.tcp://HOST:PORT [--timeout S]\n");
    process.exit(2);
}
const endpoint = args[0];
let timeoutS = 60;
const t = args.indexOf("--timeout");
if (t >= 0 && args[t + 1]) timeoutS = Number(args[t + 1]);
setTimeout(() => { process.stdout.write("FAIL timeout: not done after " + timeoutS + " s\n"); process.exit(1); },
           timeoutS * 1000).unref();

const node = (name) => "ns=2;s=Plant." + name;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(pred, ms) {
    const end = Date.now() + ms;
    while (!pred()) {
        if (Date.now() > end) return false;
        await sleep(10);
    }
    return true;
}

async function main() {
    const client = OPCUAClient.create({
        endpointMustExist: false, securityMode: MessageSecurityMode.None, securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 1, initialDelay: 100, maxDelay: 200 }
    });
    await client.connect(endpoint);
    const session = await client.createSession();
    const write = async (p1, p2) => {
        const results = await session.write([
            { nodeId: node("P1"), attributeId: AttributeIds.Value, value: { value: { dataType: DataType.Double, value: p1 } } },
            { nodeId: node("P2"), attributeId: AttributeIds.Value, value: { value: { dataType: DataType.Double, value: p2 } } }
        ]);
        for (const r of results) if (r.value !== StatusCodes.Good.value) throw new Error("write: " + r.toString());
    };
    await write(0, 0);
    // A second run finds the last one's values (158, true) until the scripts have seen (0, 0):
    // subscribe once they have, so that the first values notified are this run's.
    const followed = async () => {
        const [d, h] = await session.read([{ nodeId: node("DeltaP"), attributeId: AttributeIds.Value },
                                           { nodeId: node("HighDeltaP"), attributeId: AttributeIds.Value }]);
        return d.value.value === 0 && h.value.value === false;
    };
    for (const end = Date.now() + 10000; !(await followed()); await sleep(10))
        if (Date.now() > end) throw new Error("DeltaP and HighDeltaP did not follow the write of (0, 0)");
    const sub = await new Promise((resolve, reject) => {
        const s = ClientSubscription.create(session, {
            requestedPublishingInterval: 20, requestedLifetimeCount: 600, requestedMaxKeepAliveCount: 10,
            maxNotificationsPerPublish: 0, publishingEnabled: true, priority: 1
        });
        s.on("started", () => resolve(s));
        s.on("internal_error", reject);
    });
    // One arrival log for both items, in the order the client got them.
    const arrivals = [];
    const monitor = (name) => new Promise((resolve, reject) => {
        const item = ClientMonitoredItem.create(sub, { nodeId: node(name), attributeId: AttributeIds.Value },
                                                { samplingInterval: 0, queueSize: 1000, discardOldest: true },
                                                TimestampsToReturn.Both);
        item.on("changed", (dv) => arrivals.push({ name, dv }));
        item.on("initialized", () => resolve(item));
        item.on("err", (e) => reject(new Error(String(e))));
    });
    await monitor("DeltaP");
    await monitor("HighDeltaP");
    await monitor("Ticks");
    const of = (name) => arrivals.filter((a) => a.name === name).map((a) => a.dv);
    if (!(await until(() => of("DeltaP").some((dv) => dv.value.value === 0), 10000))) throw new Error("no initial DeltaP");

    for (let k = 0; k < 30; ++k) await write(100 + 3 * k, k);
    const last = () => { const d = of("DeltaP"); return d.length ? d[d.length - 1].value.value : null; };
    const settled = await until(() => last() === 158 && of("HighDeltaP").some((dv) => dv.value.value === true), 10000);

    // DeltaP: good values, each of a pair written, in order.
    const deltas = of("DeltaP").filter((dv) => dv.statusCode.value === StatusCodes.Good.value).map((dv) => dv.value.value);
    const bad = deltas.filter((v) => !(v === 0 || (v >= 100 && v <= 158 && (v - 100) % 2 === 0)));
    if (!settled) fail("delta-p", "did not reach 158: " + deltas.join(","));
    else if (bad.length) fail("delta-p", "values of no pair written: " + bad.join(","));
    else if (deltas.some((v, i) => i > 0 && v < deltas[i - 1])) fail("delta-p", "out of order: " + deltas.join(","));
    else ok("delta-p (" + deltas.length + " values, every one p1 - p2 of a pair written, in order)");

    // HighDeltaP: false, then true once; each value the predicate of the DeltaP it goes with.
    const highs = of("HighDeltaP").map((dv) => dv.value.value);
    const flips = highs.filter((v, i) => i > 0 && v !== highs[i - 1]).length;
    let newestDelta = null, consistent = true, why = "";
    for (const a of arrivals) {
        if (a.name === "DeltaP" && a.dv.statusCode.value === StatusCodes.Good.value) newestDelta = a.dv.value.value;
        if (a.name !== "HighDeltaP" || newestDelta === null) continue;
        // The alarm may run before or after the tag in a pass: it matches the newest DeltaP or a pair
        // written after it (never one before).
        const v = a.dv.value.value;
        if (v === true && newestDelta > 110) continue;
        if (v === false && newestDelta <= 110) continue;
        if (v === true && newestDelta <= 110 && newestDelta + 2 > 110) continue;  // the next pair's
        consistent = false;
        why = "HighDeltaP " + v + " with DeltaP " + newestDelta;
    }
    if (highs[0] !== false || highs[highs.length - 1] !== true || flips !== 1)
        fail("high-delta-p", "expected false then true once: " + highs.join(","));
    else if (!consistent) fail("high-delta-p", why);
    else ok("high-delta-p (false -> true once, at DeltaP > 110)");

    if (await until(() => of("Ticks").some((dv) => dv.value.value >= 2), 5000)) ok("ticks (a calculation keeps its state)");
    else fail("ticks", "Ticks did not reach 2: " + of("Ticks").map((dv) => dv.value.value).join(","));

    await sub.terminate();
    await session.close();
    await client.disconnect();
}

main().then(() => {
    process.stdout.write(failures ? failures + " step(s) failed\n" : "all steps passed\n");
    process.exit(failures ? 1 : 0);
}, (e) => {
    process.stdout.write("FAIL " + (e && e.stack ? e.stack : String(e)) + "\n");
    process.exit(1);
});
