#!/usr/bin/env node
// node-opcua's client against examples/scada_backend (docs/embedding.md), started by
// example_backend_interop.sh with `--paused --pushes N`: the device waits for this client to
// start it, pushes N batches and pauses again.
//
//   node node_scada_client.js opc.tcp://127.0.0.1:PORT --tags T --pushes N [--slow-ms S] [--timeout S] [--machinery]
//
// Steps: browse the Plant tree; read each kind of node (a tag, a setpoint and its EURange, the
// read-through Temperature, StartPump's arguments, the device's variables); write a setpoint in and
// out of range; call StartPump in and out of range; the read-through under a load of 200 Reads of
// tags that must not wait for it; subscribe to 1,000 tags, start the device, and receive every
// change it pushed (each tag's value is the push's sequence number: 0 before the first push, then
// 1 .. N, each exactly once and in order, for each of the 1,000 items); with --machinery, the
// machine of the Machinery companion types (Machines/Press1 and its Identification's nameplate).
// Prints `ok <step>` or `FAIL <step>: <why>` per step, `received C changes ...` for the script, then
// a summary; exits 0 only when every step passed (1 otherwise, 2 on bad usage). node-opcua's log
// goes to stderr. Bounded by --timeout (default 90 s).
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;

const fs = require("fs");
const os = require("os");
const path = require("path");

const {
    OPCUAClient,
    OPCUACertificateManager,
    ClientSubscription,
    ClientMonitoredItemGroup,
    MessageSecurityMode,
    SecurityPolicy,
    AttributeIds,
    BrowseDirection,
    NodeClass,
    DataType,
    StatusCodes,
    TimestampsToReturn
} = require("node-opcua");

const SCADA_URI = "urn:example:scada";
const HIERARCHICAL = "ns=0;i=33";
const MONITORED = 1000;

// ---- reporting --------------------------------------------------------------------------------------

let failures = 0;
let passes = 0;
function ok(step) {
    passes += 1;
    process.stdout.write("ok " + step + "\n");
}
function fail(step, why) {
    failures += 1;
    process.stdout.write("FAIL " + step + ": " + String(why).replace(/\s*\n\s*/g, " | ") + "\n");
}

class CheckError extends Error {}

class Problems {
    constructor() {
        this.list = [];
    }
    check(cond, msg) {
        if (!cond) this.list.push(typeof msg === "function" ? msg() : msg);
        return cond;
    }
    throwIfAny() {
        if (this.list.length > 0) {
            const shown = this.list.slice(0, 12);
            if (this.list.length > shown.length) shown.push("... " + (this.list.length - shown.length) + " more");
            throw new CheckError(shown.join("; "));
        }
    }
}

async function step(name, fn) {
    try {
        const detail = await fn();
        ok(detail ? name + " (" + detail + ")" : name);
        return true;
    } catch (err) {
        fail(name, err instanceof CheckError ? err.message : (err && err.stack) || err);
        return false;
    }
}

function sc(code) {
    return code && code.name ? code.name : String(code);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(pred, ms) {
    const end = Date.now() + ms;
    while (!pred()) {
        if (Date.now() > end) return false;
        await sleep(10);
    }
    return true;
}

// ---- the plant ----------------------------------------------------------------------------------------

let ns = -1;
const id = (s) => "ns=" + ns + ";s=" + s;

function browseDescription(nodeId) {
    return {
        nodeId,
        browseDirection: BrowseDirection.Forward,
        referenceTypeId: HIERARCHICAL,
        includeSubtypes: true,
        nodeClassMask: 0,
        resultMask: 0x3f
    };
}

async function browseAll(session, nodeId) {
    const result = await session.browse(browseDescription(nodeId));
    if (result.statusCode.isNotGood()) throw new CheckError("Browse " + nodeId + ": " + sc(result.statusCode));
    let refs = result.references || [];
    let cp = result.continuationPoint;
    for (let n = 0; cp && cp.length > 0; ++n) {
        if (n > 10000) throw new CheckError("Browse " + nodeId + ": more than 10000 continuation points");
        const next = await session.browseNext(cp, false);
        if (next.statusCode.isNotGood()) throw new CheckError("BrowseNext " + nodeId + ": " + sc(next.statusCode));
        refs = refs.concat(next.references || []);
        cp = next.continuationPoint;
    }
    return refs;
}

function byName(refs) {
    const m = new Map();
    for (const r of refs) m.set(r.browseName.name, r);
    return m;
}

async function stepNamespace(session) {
    const dv = await session.read({ nodeId: "ns=0;i=2255", attributeId: AttributeIds.Value });
    const uris = dv.value.value || [];
    ns = uris.indexOf(SCADA_URI);
    if (ns < 0) throw new CheckError(SCADA_URI + " not in the NamespaceArray " + JSON.stringify(uris));
    return SCADA_URI + " is ns=" + ns;
}

async function stepBrowse(session, o) {
    const p = new Problems();
    const objects = byName(await browseAll(session, "ns=0;i=85"));
    const plant = objects.get("Plant");
    if (!plant) throw new CheckError("no Plant under Objects");
    p.check(plant.nodeId.toString() === id("Plant"), () => "Plant is " + plant.nodeId.toString());
    p.check(plant.nodeClass === NodeClass.Object, () => "Plant's NodeClass " + plant.nodeClass);
    p.check(plant.typeDefinition.toString() === "ns=0;i=61", () => "Plant's type " + plant.typeDefinition.toString());
    p.check(plant.browseName.namespaceIndex === ns, () => "Plant's browse name in ns " + plant.browseName.namespaceIndex);

    const refs = await browseAll(session, id("Plant"));
    const children = byName(refs);
    let tags = 0;
    let setpoints = 0;
    for (const r of refs) {
        const name = r.browseName.name;
        if (/^Tag\d+$/.test(name)) {
            tags += 1;
            if (tags <= 3 || name === "Tag" + (o.tags - 1)) {
                p.check(r.nodeId.toString() === id("Plant." + name), () => name + " is " + r.nodeId.toString());
                p.check(r.nodeClass === NodeClass.Variable, () => name + "'s NodeClass " + r.nodeClass);
                p.check(r.typeDefinition.toString() === "ns=0;i=63", () => name + "'s type " + r.typeDefinition.toString());
            }
        } else if (/^Setpoint\d+$/.test(name)) {
            setpoints += 1;
        }
    }
    p.check(tags === o.tags, () => tags + " tags under Plant, expected " + o.tags);
    p.check(setpoints === 10, () => setpoints + " setpoints under Plant, expected 10");
    for (const name of ["Device", "SlowDevice", "Pump"]) {
        const r = children.get(name);
        if (p.check(r, "no " + name + " under Plant")) {
            p.check(r.nodeClass === NodeClass.Object, () => name + "'s NodeClass " + r.nodeClass);
            p.check(r.nodeId.toString() === id("Plant." + name), () => name + " is " + r.nodeId.toString());
        }
    }

    const expect = async (parent, names) => {
        const got = byName(await browseAll(session, id(parent)));
        for (const [name, cls] of names) {
            const r = got.get(name);
            if (p.check(r, () => "no " + name + " under " + parent + " (" + [...got.keys()].join(", ") + ")")) {
                p.check(r.nodeClass === cls, () => parent + "/" + name + "'s NodeClass " + r.nodeClass);
            }
        }
        return got;
    };
    await expect("Plant.Setpoint0", [["EURange", NodeClass.Variable]]);
    await expect("Plant.Device", [["Running", NodeClass.Variable], ["Pushes", NodeClass.Variable]]);
    await expect("Plant.SlowDevice", [["Temperature", NodeClass.Variable]]);
    await expect("Plant.SlowDevice.Temperature", [["EngineeringUnits", NodeClass.Variable]]);
    await expect("Plant.Pump", [["StartPump", NodeClass.Method], ["Speed", NodeClass.Variable]]);
    const args = await expect("Plant.Pump.StartPump", [["InputArguments", NodeClass.Variable], ["OutputArguments", NodeClass.Variable]]);
    const inputs = args.get("InputArguments");
    if (inputs) {
        p.check(inputs.nodeId.toString() === id("Plant.Pump.StartPump.InputArguments"),
            () => "InputArguments is " + inputs.nodeId.toString());
        p.check(inputs.typeDefinition.toString() === "ns=0;i=68", () => "InputArguments' type " + inputs.typeDefinition.toString());
    }
    p.throwIfAny();
    return refs.length + " nodes under Plant: " + tags + " tags, " + setpoints + " setpoints, Device, SlowDevice, Pump";
}

function readValue(session, nodeId) {
    return session.read({ nodeId, attributeId: AttributeIds.Value });
}

async function readAttributes(session, nodeId, attributes) {
    const values = await session.read(attributes.map((attributeId) => ({ nodeId, attributeId })));
    const out = {};
    attributes.forEach((a, i) => (out[a] = values[i]));
    return out;
}

async function stepRead(session, o) {
    const p = new Problems();
    const A = AttributeIds;
    const want = (label, dv, dataType, check) => {
        if (!p.check(dv.statusCode.isGood(), () => label + ": " + sc(dv.statusCode))) return;
        if (dataType !== undefined) {
            p.check(dv.value.dataType === dataType, () => label + ": DataType " + DataType[dv.value.dataType] + ", expected " + DataType[dataType]);
        }
        if (check) p.check(check(dv.value.value), () => label + ": value " + util.inspect(dv.value.value, { depth: 3 }));
    };

    const tag = await readAttributes(session, id("Plant.Tag" + (o.tags - 1)),
        [A.Value, A.DataType, A.AccessLevel, A.UserAccessLevel, A.ValueRank, A.NodeClass]);
    want("Tag: Value", tag[A.Value], DataType.Double, (v) => v === 0);
    want("Tag: DataType", tag[A.DataType], DataType.NodeId, (v) => v.toString() === "ns=0;i=11");
    want("Tag: AccessLevel", tag[A.AccessLevel], DataType.Byte, (v) => v === 1);
    want("Tag: ValueRank", tag[A.ValueRank], DataType.Int32, (v) => v === -1);
    p.check(tag[A.Value].sourceTimestamp instanceof Date, "Tag: no SourceTimestamp");

    const sp = await readAttributes(session, id("Plant.Setpoint0"), [A.Value, A.DataType, A.AccessLevel, A.Description]);
    want("Setpoint: Value", sp[A.Value], DataType.Double, (v) => v === 50);
    want("Setpoint: DataType", sp[A.DataType], DataType.NodeId, (v) => v.toString() === "ns=0;i=11");
    want("Setpoint: AccessLevel", sp[A.AccessLevel], DataType.Byte, (v) => (v & 3) === 3);
    want("Setpoint: Description", sp[A.Description], DataType.LocalizedText, (v) => /0\.\.100/.test(v.text));

    const range = await readValue(session, id("Plant.Setpoint0.EURange"));
    want("EURange", range, DataType.ExtensionObject, (v) => v && v.low === 0 && v.high === 100);

    const t0 = Date.now();
    const temp = await readValue(session, id("Plant.SlowDevice.Temperature"));
    const ms = Date.now() - t0;
    want("Temperature", temp, DataType.Double, (v) => v >= 14 && v <= 26);
    p.check(ms >= o.slowMs - 5, () => "Temperature answered in " + ms + " ms, the device takes " + o.slowMs);
    p.check(temp.sourceTimestamp instanceof Date && Math.abs(temp.sourceTimestamp.getTime() - Date.now()) < 10000,
        () => "Temperature: SourceTimestamp " + temp.sourceTimestamp);
    const units = await readValue(session, id("Plant.SlowDevice.Temperature.EngineeringUnits"));
    want("EngineeringUnits", units, DataType.ExtensionObject, (v) => v && v.unitId === 4408652);

    const inputs = await readValue(session, id("Plant.Pump.StartPump.InputArguments"));
    want("InputArguments", inputs, DataType.ExtensionObject,
        (v) => Array.isArray(v) && v.length === 1 && v[0].name === "Speed" && v[0].dataType.toString() === "ns=0;i=11" && v[0].valueRank === -1);
    const outputs = await readValue(session, id("Plant.Pump.StartPump.OutputArguments"));
    want("OutputArguments", outputs, DataType.ExtensionObject,
        (v) => Array.isArray(v) && v.length === 1 && v[0].name === "Started" && v[0].dataType.toString() === "ns=0;i=1");
    const executable = await readAttributes(session, id("Plant.Pump.StartPump"), [A.Executable, A.UserExecutable]);
    want("StartPump: Executable", executable[A.Executable], DataType.Boolean, (v) => v === true);

    want("Device.Running", await readValue(session, id("Plant.Device.Running")), DataType.Boolean, (v) => v === false);
    want("Device.Pushes", await readValue(session, id("Plant.Device.Pushes")), DataType.UInt32, (v) => v === 0);
    p.throwIfAny();
    return "a tag, a setpoint, EURange, Temperature in " + ms + " ms, EngineeringUnits, StartPump's arguments, the device";
}

function write(session, nodeId, dataType, value) {
    return session.write({ nodeId, attributeId: AttributeIds.Value, value: { value: { dataType, value } } });
}

async function stepWrite(session) {
    const p = new Problems();
    const sp = id("Plant.Setpoint3");
    let r = await write(session, sp, DataType.Double, 42.5);
    p.check(r.equals(StatusCodes.Good), () => "Setpoint3 = 42.5: " + sc(r));
    let back = await readValue(session, sp);
    p.check(back.value.value === 42.5, () => "Setpoint3 read back " + back.value.value + " after writing 42.5");
    for (const bad of [150, -0.5, 100.001]) {
        r = await write(session, sp, DataType.Double, bad);
        p.check(r.equals(StatusCodes.BadOutOfRange), () => "Setpoint3 = " + bad + ": " + sc(r) + ", expected BadOutOfRange");
    }
    back = await readValue(session, sp);
    p.check(back.value.value === 42.5, () => "Setpoint3 read back " + back.value.value + " after the refused writes, expected 42.5");
    for (const edge of [0, 100]) {
        r = await write(session, sp, DataType.Double, edge);
        p.check(r.equals(StatusCodes.Good), () => "Setpoint3 = " + edge + " (the range's edge): " + sc(r));
    }
    // What the server refuses before the backend is asked.
    r = await write(session, sp, DataType.String, "fifty");
    p.check(r.equals(StatusCodes.BadTypeMismatch), () => "Setpoint3 = \"fifty\": " + sc(r) + ", expected BadTypeMismatch");
    r = await write(session, id("Plant.Tag0"), DataType.Double, 1);
    p.check(r.equals(StatusCodes.BadNotWritable) || r.equals(StatusCodes.BadUserAccessDenied),
        () => "Tag0 (read-only) = 1: " + sc(r) + ", expected BadNotWritable");
    // Several setpoints in one Write: each item its own answer.
    const results = await session.write([1, 200, 2].map((v, i) => ({
        nodeId: id("Plant.Setpoint" + (5 + i)), attributeId: AttributeIds.Value, value: { value: { dataType: DataType.Double, value: v } }
    })));
    p.check(results[0].equals(StatusCodes.Good) && results[1].equals(StatusCodes.BadOutOfRange) && results[2].equals(StatusCodes.Good),
        () => "Setpoint5..7 = 1, 200, 2 in one Write: " + results.map(sc).join(", "));
    p.throwIfAny();
    return "42.5 Good and read back, 150 / -0.5 / 100.001 BadOutOfRange, 0 and 100 Good";
}

async function stepCall(session) {
    const p = new Problems();
    const call = (speed) => session.call({
        objectId: id("Plant.Pump"), methodId: id("Plant.Pump.StartPump"),
        inputArguments: [{ dataType: DataType.Double, value: speed }]
    });
    let r = await call(1500);
    if (p.check(r.statusCode.isGood(), () => "StartPump(1500): " + sc(r.statusCode))) {
        const out = r.outputArguments || [];
        p.check(out.length === 1 && out[0].dataType === DataType.Boolean && out[0].value === true,
            () => "StartPump(1500) answered " + util.inspect(out));
    }
    // The backend pushes the speed (write_values) before it answers; the batch and the answer
    // travel apart, so give the value a moment.
    let speed = null;
    for (const end = Date.now() + 2000; Date.now() < end; await sleep(20)) {
        speed = (await readValue(session, id("Plant.Pump.Speed"))).value.value;
        if (speed === 1500) break;
    }
    p.check(speed === 1500, () => "Plant.Pump.Speed is " + speed + " 2 s after StartPump(1500)");
    for (const bad of [5000, -1]) {
        r = await call(bad);
        p.check(r.statusCode.equals(StatusCodes.BadOutOfRange), () => "StartPump(" + bad + "): " + sc(r.statusCode) + ", expected BadOutOfRange");
    }
    r = await session.call({
        objectId: id("Plant.Pump"), methodId: id("Plant.Pump.StartPump"),
        inputArguments: [{ dataType: DataType.String, value: "fast" }]
    });
    p.check(r.statusCode.equals(StatusCodes.BadInvalidArgument) || r.statusCode.equals(StatusCodes.BadTypeMismatch),
        () => "StartPump(\"fast\"): " + sc(r.statusCode) + ", expected BadInvalidArgument");
    p.throwIfAny();
    return "StartPump(1500) true and Speed 1500, StartPump(5000) and (-1) BadOutOfRange";
}

// The read-through must not hold up other requests: while Reads of Temperature are pending one
// after the other (the slow device answers each after --slow-ms), 4 workers on the same session
// read tags, one Read each at a time, 200 in all. A tag Read that starts while a slow Read is
// pending and is answered before it overtook it; a server that waited for the device (or answered
// a session's requests in order) lets none overtake, so at least half must. Counted, not timed:
// the latencies are reported, not compared (on two shared cores under ASan a tag Read alone took
// over 50 ms). A round where the machine stalled (node's garbage collector) is repeated, at most 3
// rounds. (200 Reads sent at once would not measure the server: node-opcua encodes them all before
// it decodes the first answer, ~0.3 ms each here.)
async function stepReadThrough(session, o) {
    const WORKERS = 4;
    const READS = 200;
    const load = async (withSlow) => {
        const t0 = process.hrtime.bigint();
        const since = () => Number(process.hrtime.bigint() - t0) / 1e6;
        let loadDone = false;
        const slowReads = [];  // {start, end, status}
        const slowLoop = withSlow ? (async () => {
            while (!loadDone) {
                const start = since();
                const dv = await readValue(session, id("Plant.SlowDevice.Temperature"));
                slowReads.push({ start, end: since(), status: dv.statusCode });
            }
        })() : null;
        if (withSlow) await sleep(2);  // the slow Read is at the server first
        const reads = [];  // {start, end, status}
        let next = 0;
        const worker = async () => {
            while (next < READS) {
                const i = next++;
                const start = since();
                const dv = await readValue(session, id("Plant.Tag" + ((i * 37) % o.tags)));
                reads.push({ start, end: since(), status: dv.statusCode });
            }
        };
        await Promise.all(Array.from({ length: WORKERS }, worker));
        loadDone = true;
        if (slowLoop) await slowLoop;
        const latency = reads.map((r) => r.end - r.start).sort((a, b) => a - b);
        const overtook = (r) => slowReads.some((s) => s.start <= r.start && r.end < s.end);
        return {
            reads: reads.length,
            bad: reads.filter((r) => !r.status.isGood()).map((r) => sc(r.status))[0] || null,
            max: latency[latency.length - 1],
            p50: latency[Math.floor(latency.length / 2)],
            overtook: reads.filter(overtook).length,
            slow: slowReads
        };
    };
    await load(false);  // warm up
    const baseline = await load(false);
    const rounds = [];
    for (let round = 0; round < 3; ++round) {
        const r = await load(true);
        rounds.push(r);
        if (r.bad) throw new CheckError("a tag Read failed: " + r.bad);
        const slowBad = r.slow.find((x) => !x.status.isGood());
        if (slowBad) throw new CheckError("a slow Read: " + sc(slowBad.status));
        const slowMs = r.slow.map((x) => x.end - x.start);
        const fastest = Math.min(...slowMs);
        if (fastest < o.slowMs - 5) throw new CheckError("a slow Read answered in " + fastest.toFixed(1) + " ms, the device takes " + o.slowMs);
        if (r.overtook >= 0.5 * READS) {
            return r.overtook + " of " + READS + " tag Reads (4 at a time) overtook one of the " + r.slow.length + " slow Reads of " + fastest.toFixed(0) + ".." +
                Math.max(...slowMs).toFixed(0) + " ms: p50 " + r.p50.toFixed(1) + " ms, max " + r.max.toFixed(1) +
                " ms; without the slow Reads p50 " + baseline.p50.toFixed(1) + ", max " + baseline.max.toFixed(1) + " ms" +
                (round ? "; round " + (round + 1) : "");
        }
    }
    throw new CheckError("the tag Reads waited for the slow ones: " + rounds.map((r) => r.overtook + " of " + READS +
        " overtook a slow Read (max " + r.max.toFixed(1) + " ms)").join("; ") + " in 3 rounds; at least half must");
}

function subscribe(session) {
    return new Promise((resolve, reject) => {
        const sub = ClientSubscription.create(session, {
            requestedPublishingInterval: 100,
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

// 1,000 tags spread over all of them; each change is checked against the sequence.
async function stepSubscribe(session, o, totals) {
    const sub = await subscribe(session);
    const items = [];
    const seen = [];  // per item: the values, in arrival order
    for (let k = 0; k < MONITORED; ++k) {
        const i = Math.floor((k * o.tags) / MONITORED);
        items.push({ nodeId: id("Plant.Tag" + i), attributeId: AttributeIds.Value });
        seen.push([]);
    }
    const problems = new Problems();
    let changes = 0;
    const group = ClientMonitoredItemGroup.create(sub, items,
        { samplingInterval: 0, queueSize: 1000, discardOldest: false }, TimestampsToReturn.Both);
    group.on("changed", (item, dv, index) => {
        changes += 1;
        if (!dv.statusCode.isGood()) problems.check(false, "item " + index + ": " + dv.statusCode.toString());
        seen[index].push(dv.value.value);
    });
    await new Promise((resolve, reject) => {
        group.on("initialized", resolve);
        group.on("err", (e) => reject(new Error(String(e))));
    });
    const created = group.monitoredItems.filter((m) => m.statusCode && m.statusCode.isGood()).length;
    if (created !== MONITORED) throw new CheckError(created + " of " + MONITORED + " monitored items created");
    // Every item's initial value (the device is paused: 0) before the device starts.
    if (!await until(() => seen.every((s) => s.length >= 1), 10000)) {
        throw new CheckError(seen.filter((s) => s.length === 0).length + " items without an initial value after 10 s");
    }
    const initial = changes;
    const r = await write(session, id("Plant.Device.Running"), DataType.Boolean, true);
    if (!r.equals(StatusCodes.Good)) throw new CheckError("Running = true: " + sc(r));
    const t0 = Date.now();
    const expected = o.pushes * o.intervalMs + 10000;
    const complete = await until(() => seen.every((s) => s[s.length - 1] === o.pushes), expected);
    await sleep(500);  // anything after the last push would be a duplicate
    const elapsed = Date.now() - t0;

    let missing = 0;
    let extra = 0;
    for (let k = 0; k < MONITORED; ++k) {
        const s = seen[k];
        const want = Array.from({ length: o.pushes + 1 }, (_, n) => n);
        const same = s.length === want.length && s.every((v, n) => v === want[n]);
        if (!same) {
            const got = new Set(s);
            missing += want.filter((v) => !got.has(v)).length;
            extra += Math.max(0, s.length - (want.length - want.filter((v) => !got.has(v)).length));
            problems.check(false, () => items[k].nodeId + " saw " + s.length + " values [" + s.slice(0, 8).join(", ") +
                (s.length > 8 ? ", ... " + s[s.length - 1] : "") + "], expected 0, 1, ..., " + o.pushes);
        }
    }
    const pushes = await readValue(session, id("Plant.Device.Pushes"));
    const running = await readValue(session, id("Plant.Device.Running"));
    problems.check(pushes.value.value === o.pushes, () => "Plant.Device.Pushes is " + pushes.value.value + ", expected " + o.pushes);
    problems.check(running.value.value === false, () => "Plant.Device.Running is " + running.value.value + " after the last push");
    problems.check(complete, () => "not every item reached " + o.pushes + " within " + expected + " ms");
    totals.changes = changes - initial;
    totals.missing = missing;
    totals.extra = extra;
    process.stdout.write("received " + totals.changes + " changes on " + MONITORED + " items for " + o.pushes +
        " pushes (device count " + pushes.value.value + "), " + missing + " missing, " + extra + " extra\n");
    await sub.terminate();
    problems.throwIfAny();
    return MONITORED + " items x " + o.pushes + " pushes = " + totals.changes + " changes, each in order, none missing, in " + elapsed + " ms";
}

// ---- the Machinery machine (--machinery) -------------------------------------------------------------

const DI_URI = "http://opcfoundation.org/UA/DI/";
const MACHINERY_URI = "http://opcfoundation.org/UA/Machinery/";

// Found as a Machinery client finds machines (OPC 40001-1 §9.2): Objects/Machines organizes them,
// each machine's Identification is an AddIn of type MachineIdentificationType, its nameplate the
// variables of that type, of its supertypes and of their interfaces.
async function stepMachine(session) {
    const p = new Problems();
    const uris = (await session.read({ nodeId: "ns=0;i=2255", attributeId: AttributeIds.Value })).value.value || [];
    const di = uris.indexOf(DI_URI), machinery = uris.indexOf(MACHINERY_URI);
    if (di < 0 || machinery < 0) throw new CheckError("DI or Machinery not in the NamespaceArray " + JSON.stringify(uris));
    const machines = byName(await browseAll(session, "ns=" + machinery + ";i=1001"));
    const press = machines.get("Press1");
    if (!press) throw new CheckError("Machines does not organize Press1: " + JSON.stringify([...machines.keys()]));
    const children = await browseAll(session, press.nodeId.toString());
    const identification = children.find((r) => r.browseName.name === "Identification" && r.browseName.namespaceIndex === di);
    if (!identification) throw new CheckError("Press1 has no DI:Identification");
    p.check(identification.referenceTypeId.toString() === "ns=0;i=17604",
        () => "Identification is referenced by " + identification.referenceTypeId.toString() + ", not HasAddIn (i=17604)");
    p.check(identification.typeDefinition.toString() === "ns=" + machinery + ";i=1012",
        () => "Identification's type is " + identification.typeDefinition.toString() + ", not MachineIdentificationType");
    const nameplate = byName(await browseAll(session, identification.nodeId.toString()));
    const want = { Manufacturer: "ACME Presses", SerialNumber: "P-0001", ProductInstanceUri: "urn:acme:press:P-0001",
                   Model: "HP 400", YearOfConstruction: 2024 };
    for (const [name, value] of Object.entries(want)) {
        const ref = nameplate.get(name);
        if (!p.check(ref, "Identification has no " + name)) continue;
        const dv = await session.read({ nodeId: ref.nodeId, attributeId: AttributeIds.Value });
        const got = dv.value.value && dv.value.value.text !== undefined ? dv.value.value.text : dv.value.value;
        p.check(dv.statusCode.isGood() && got === value, () => name + " = " + JSON.stringify(got) + " (" + sc(dv.statusCode) + "), want " + JSON.stringify(value));
    }
    p.throwIfAny();
    return nameplate.size + " nameplate variables, DI ns=" + di + ", Machinery ns=" + machinery;
}

// ---- main ------------------------------------------------------------------------------------------------

function parseArgs(argv) {
    const o = { endpoint: null, timeout: 90, tags: 10000, pushes: 20, slowMs: 50, intervalMs: 100 };
    for (let i = 0; i < argv.length; ++i) {
        const num = () => Number(argv[++i]);
        if (argv[i] === "--timeout") o.timeout = num();
        else if (argv[i] === "--tags") o.tags = num();
        else if (argv[i] === "--pushes") o.pushes = num();
        else if (argv[i] === "--slow-ms") o.slowMs = num();
        else if (argv[i] === "--interval-ms") o.intervalMs = num();
        else if (argv[i] === "--machinery") o.machinery = true;
        else if (!o.endpoint && /^opc\.tcp:\/\//.test(argv[i])) o.endpoint = argv[i];
        else return null;
    }
    return o.endpoint && o.timeout > 0 && o.tags >= MONITORED && o.pushes > 0 ? o : null;
}

async function main() {
    const o = parseArgs(process.argv.slice(2));
    if (!o) {
        process.stderr.write("usage: node node_scada_client.js opc.tcp://HOST:PORT [--tags T>=1000] [--pushes N>0] [--slow-ms S] [--interval-ms I] [--timeout S] [--machinery]\n");
        process.exit(2);
    }
    const pki = fs.mkdtempSync(path.join(os.tmpdir(), "uactor-scada-client-"));
    const finish = (code) => {
        fs.rmSync(pki, { recursive: true, force: true });
        process.exit(code);
    };
    setTimeout(() => {
        fail("timeout", "not done after " + o.timeout + " s");
        finish(1);
    }, o.timeout * 1000).unref();

    const client = OPCUAClient.create({
        applicationName: "uactor interop scada client",
        endpointMustExist: false,
        securityMode: MessageSecurityMode.None,
        securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 200 },
        requestedSessionTimeout: 60000,
        keepSessionAlive: false,
        clientCertificateManager: new OPCUACertificateManager({
            rootFolder: path.join(pki, "PKI"), automaticallyAcceptUnknownCertificate: true
        })
    });
    const keepAlive = setInterval(() => {}, 1000);
    let session = null;
    const connected = await step("connect " + o.endpoint + " and create a session", async () => {
        await client.connect(o.endpoint);
        session = await client.createSession();
    });
    const totals = {};
    if (connected && await step("NamespaceArray has " + SCADA_URI, () => stepNamespace(session))) {
        const steps = [
            ["Browse Objects > Plant and its objects", stepBrowse],
            ["Read each kind of node", stepRead],
            ["Write setpoints in and out of range", stepWrite],
            ["Call StartPump in and out of range", stepCall],
            ["Read-through under a concurrent Read load on tags", stepReadThrough],
            ["Subscribe to 1000 tags and receive every push", (s) => stepSubscribe(s, o, totals)]
        ];
        if (o.machinery) steps.push(["Find the Machinery machine and read its nameplate", stepMachine]);
        for (const [name, fn] of steps) await step(name, () => fn(session, o));
    }
    if (session) await step("CloseSession", () => session.close());
    if (connected) await step("disconnect", () => client.disconnect());
    clearInterval(keepAlive);
    process.stdout.write((failures === 0 ? "PASS" : "FAILED") + ": " + passes + " ok, " + failures + " failed\n");
    finish(failures === 0 ? 0 : 1);
}

main().catch((err) => {
    fail("internal", err && err.stack ? err.stack : err);
    process.exit(1);
});
