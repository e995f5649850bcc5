#!/usr/bin/env node
// node-opcua's client against servers started from plant files (docs/configuration.md).
//
//   node node_config_check.js tree URL            the address space below Objects (i=85), one
//                                                 sorted line per reference, and the Values of
//                                                 the non-dynamic variables: two servers that
//                                                 print the same serve the same
//   node node_config_check.js plant URL           examples/config/plant.toml on its None endpoint:
//                                                 5,000 tags a line, the writers' changes seen by
//                                                 a subscription, the [[methods]] called
//
// Prints `ok <step>` / `FAIL <step>: <why>` (plant) or the tree (tree); exits 0 only when all is
// well. node-opcua's log goes to stderr. Bounded by a 90 s timer.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;

const {
    OPCUAClient, ClientSubscription, ClientMonitoredItem, AttributeIds, TimestampsToReturn,
    BrowseDirection, MessageSecurityMode, SecurityPolicy, NodeClass, DataType, StatusCodes
} = require("node-opcua");

const [mode, url] = process.argv.slice(2);
if (!mode || !url) {
    process.stderr.write("usage: node_config_check.js tree|plant URL\n");
    process.exit(2);
}
setTimeout(() => { process.stdout.write("FAIL timeout\n"); process.exit(1); }, 90000).unref();

async function browseAll(session, nodeId) {
    const result = await session.browse({
        nodeId, browseDirection: BrowseDirection.Forward, referenceTypeId: "HierarchicalReferences",
        includeSubtypes: true, nodeClassMask: 0, resultMask: 0x3f
    });
    if (result.statusCode.isNotGood()) throw new Error("Browse " + nodeId + ": " + result.statusCode.toString());
    let refs = result.references || [];
    let cp = result.continuationPoint;
    while (cp && cp.length > 0) {
        const next = await session.browseNext(cp, false);
        refs = refs.concat(next.references || []);
        cp = next.continuationPoint;
    }
    return refs;
}

async function withSession(fn) {
    const client = OPCUAClient.create({
        endpointMustExist: false, securityMode: MessageSecurityMode.None, securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 200 }
    });
    await client.connect(url);
    const session = await client.createSession();
    try {
        return await fn(session);
    } finally {
        await session.close();
        await client.disconnect();
    }
}

// Values that change by themselves (writers, clocks) are left out of the comparison.
// ServerStatus i=2256, its StartTime i=2257 and CurrentTime i=2258; the trust list's
// LastUpdateTime i=12662 (each server's PKI is made at its start); the alarm metrics (counts and
// rates of the demo's alarms, which the writers drive, and their StartTime).
const changing = /Demo\.Dynamic|Load\.V|\.AlarmMetrics\.|^ns=0;i=(2256|2257|2258|12662)$/;

async function tree(session) {
    const lines = [];
    const seen = new Set();
    const queue = [["ns=0;i=85", 0]];
    const variables = [];
    while (queue.length > 0) {
        const [id, depth] = queue.shift();
        if (seen.has(id)) continue;
        seen.add(id);
        const refs = await browseAll(session, id);
        for (const r of refs) {
            const target = r.nodeId.toString();
            lines.push([id, r.referenceTypeId.toString(), target, r.browseName.toString(), NodeClass[r.nodeClass],
                        r.typeDefinition ? r.typeDefinition.toString() : ""].join(" "));
            if (r.nodeClass === NodeClass.Variable && !changing.test(target)) variables.push(target);
            if (depth < 8) queue.push([target, depth + 1]);
        }
    }
    const uniq = [...new Set(variables)].sort();
    for (let i = 0; i < uniq.length; i += 500) {
        const part = uniq.slice(i, i + 500);
        const values = await session.read(part.map((nodeId) => ({ nodeId, attributeId: AttributeIds.Value })));
        values.forEach((v, k) => lines.push("value " + part[k] + " " + v.statusCode.name + " " +
                                             JSON.stringify(v.value ? v.value.value : null, (key, x) =>
                                                 typeof x === "bigint" ? x.toString() : x)));
    }
    lines.sort();
    process.stdout.write(lines.join("\n") + "\n");
}

let failures = 0;
function check(step, cond, why) {
    if (cond) process.stdout.write("ok " + step + "\n");
    else { failures += 1; process.stdout.write("FAIL " + step + ": " + why + "\n"); }
}

async function plant(session) {
    const line1 = await browseAll(session, "ns=2;s=Plant.Line1");
    const temps = line1.filter((r) => /^Temperature\d+$/.test(r.browseName.name));
    check("Plant.Line1 has 5,000 temperatures and the setpoint", temps.length === 5000 &&
          line1.some((r) => r.browseName.name === "Setpoint"), temps.length + " temperatures");
    const line2 = await browseAll(session, "ns=2;s=Plant.Line2");
    check("Plant.Line2 has 5,000 counters", line2.filter((r) => /^Count\d+$/.test(r.browseName.name)).length === 5000,
          line2.length + " references");
    const ns = await session.read({ nodeId: "ns=0;i=2255", attributeId: AttributeIds.Value });
    check("the NamespaceArray has urn:example:plant at 2", ns.value.value[2] === "urn:example:plant",
          JSON.stringify(ns.value.value));
    const sp = await session.read({ nodeId: "ns=2;s=Plant.Line1.Setpoint", attributeId: AttributeIds.Value });
    check("Setpoint starts at 42.5", sp.value.value === 42.5, String(sp.value.value));
    const range = await session.read({ nodeId: "ns=2;s=Plant.Line1.Setpoint.EURange", attributeId: AttributeIds.Value });
    check("Setpoint has its EURange 0..100", range.value.value && range.value.value.high === 100,
          JSON.stringify(range.value.value));

    const sub = ClientSubscription.create(session, {
        requestedPublishingInterval: 100, requestedLifetimeCount: 600, requestedMaxKeepAliveCount: 10,
        maxNotificationsPerPublish: 0, publishingEnabled: true, priority: 1
    });
    const seen = { "ns=2;s=Plant.Line1.Temperature4999": [], "ns=2;s=Plant.Line2.Count0": [],
                   "ns=2;s=Plant.Line2.Running": [] };
    for (const nodeId of Object.keys(seen)) {
        const item = ClientMonitoredItem.create(sub, { nodeId, attributeId: AttributeIds.Value },
            { samplingInterval: 0, discardOldest: true, queueSize: 100 }, TimestampsToReturn.Both);
        item.on("changed", (dv) => seen[nodeId].push(dv.value.value));
    }
    await new Promise((resolve) => setTimeout(resolve, 5000));
    await sub.terminate();
    const t = seen["ns=2;s=Plant.Line1.Temperature4999"];
    check("the sine writer's changes reach a subscription (200 ms: >= 10 in 5 s, within -20..120)",
          t.length >= 10 && t.every((v) => v >= -20 && v <= 120) && new Set(t).size >= 10, JSON.stringify(t));
    const c = seen["ns=2;s=Plant.Line2.Count0"];
    check("the counter writer's changes arrive in order, one apart (500 ms)",
          c.length >= 5 && c.every((v, i) => i === 0 || v === c[i - 1] + 1), JSON.stringify(c));
    const r = seen["ns=2;s=Plant.Line2.Running"];
    check("the square writer toggles Running (Boolean)", r.includes(true) && r.includes(false), JSON.stringify(r));

    // [[methods]]: SetSetpoint writes its argument (a Double, as InputArguments say), ResetSetpoint
    // the file's value; Setpoint is 42.5 again afterwards for the steps that follow.
    const callOn = async (method, inputArguments) => (await session.call({
        objectId: "ns=2;s=Plant.Line1", methodId: "ns=2;s=Plant.Line1." + method, inputArguments })).statusCode;
    const readSetpoint = async () =>
        (await session.read({ nodeId: "ns=2;s=Plant.Line1.Setpoint", attributeId: AttributeIds.Value })).value.value;
    const args = await session.read({ nodeId: "ns=2;s=Plant.Line1.SetSetpoint.InputArguments", attributeId: AttributeIds.Value });
    const arg = args.value.value && args.value.value[0];
    check("SetSetpoint's InputArguments: one Double named Setpoint",
          args.value.value.length === 1 && arg.name === "Setpoint" && arg.dataType.toString() === "ns=0;i=11",
          JSON.stringify(args.value.value));
    const set = await callOn("SetSetpoint", [{ dataType: DataType.Double, value: 55.5 }]);
    const afterSet = await readSetpoint();
    check("SetSetpoint(55.5) is Good and Setpoint reads 55.5", set.isGood() && afterSet === 55.5, set.name + ", " + afterSet);
    const wrong = await callOn("SetSetpoint", [{ dataType: DataType.String, value: "high" }]);
    check("SetSetpoint(\"high\") is BadInvalidArgument", wrong.name === "BadInvalidArgument", wrong.name);
    const reset = await callOn("ResetSetpoint", []);
    const afterReset = await readSetpoint();
    check("ResetSetpoint() is Good and Setpoint reads 42.5 again", reset.isGood() && afterReset === 42.5,
          reset.name + ", " + afterReset);

    // Writes as asyncua sends them (docs/decisions/0046): the value with an explicit Good status is
    // Good on a variable without StatusWrite; with a SourceTimestamp it needs TimestampWrite, which
    // the file does not grant (write_timestamps).
    const writeSetpoint = async (dataValue) => (await session.write({
        nodeId: "ns=2;s=Plant.Line1.Setpoint", attributeId: AttributeIds.Value, value: dataValue }));
    const withGood = await writeSetpoint({ value: { dataType: DataType.Double, value: 43.5 }, statusCode: StatusCodes.Good });
    check("a Write of the value with an explicit Good status is Good", withGood.isGood() && (await readSetpoint()) === 43.5,
          withGood.name);
    const withTime = await writeSetpoint({ value: { dataType: DataType.Double, value: 44.5 }, statusCode: StatusCodes.Good,
                                           sourceTimestamp: new Date() });
    check("a Write with a SourceTimestamp is BadWriteNotSupported without write_timestamps",
          withTime.name === "BadWriteNotSupported" && (await readSetpoint()) === 43.5, withTime.name);
    await callOn("ResetSetpoint", []);
}

(async () => {
    try {
        await withSession(mode === "tree" ? tree : plant);
    } catch (e) {
        process.stdout.write("FAIL " + mode + ": " + (e && e.message ? e.message : e) + "\n");
        process.exit(1);
    }
    process.exit(failures === 0 ? 0 : 1);
})();
