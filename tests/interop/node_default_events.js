#!/usr/bin/env node
// node-opcua's client against `uactor run` without a plant file (the embedded default,
// runtime/config/default.toml): an event view of the demo is not empty. Run by server_interop.sh.
//
//   node node_default_events.js opc.tcp://HOST:PORT [--timeout S]
//
// One event item on the Server object (i=2253, AttributeId EventNotifier), as UaExpert's event view
// and node-opcua's sample client make it. Within a few seconds (at most 15 s from the item's
// creation, whatever --timeout says) both demo alarms of docs/demo-namespace.md must come AND go:
//   - RampLimit (ns=1;s=Demo.Dynamic.Ramp.Alarm): ExclusiveLimitAlarmType, SourceNode
//     ns=1;s=Demo.Dynamic.Ramp, active in a limit state and inactive again;
//   - ToggleOffNormal (ns=1;s=Demo.Dynamic.Toggle.Alarm): OffNormalAlarmType, SourceNode
//     ns=1;s=Demo.Dynamic.Toggle, active and inactive again.
// Each event's EventType is checked to be a subtype of ConditionType (i=2782) by browsing the
// server's own type hierarchy upwards (inverse HasSubtype, Part 9 §5.5.2).
// Prints `ok ...` per step and `done` (exit 0); `FAIL <why>` and exit 1 otherwise.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;
console.warn = console.log;

const {
    OPCUAClient,
    ClientSubscription,
    ClientMonitoredItem,
    AttributeIds,
    TimestampsToReturn,
    BrowseDirection,
    MessageSecurityMode,
    SecurityPolicy,
    constructEventFilter
} = require("node-opcua");

const args = process.argv.slice(2);
if (args.length < 1 || !args[0].startsWith("opc.tcp://")) {
    process.stderr.write("usage: node node_default_events.js opc.tcp://HOST:PORT [--timeout S]\n");
    process.exit(2);
}
const endpoint = args[0];
const ti = args.indexOf("--timeout");
const timeoutS = ti >= 0 ? Number(args[ti + 1]) : 30;
const out = (line) => process.stdout.write(line + "\n");
function fail(why) {
    out("FAIL " + why);
    process.exit(1);
}
setTimeout(() => fail("timeout after " + timeoutS + " s"), timeoutS * 1000).unref();

// "A few seconds": the ramp's saw takes 5 s and the toggle's square 4 s (runtime/config/default.toml).
const FEW_SECONDS = 15;

const names = ["EventId", "EventType", "SourceNode", "SourceName", "ConditionId", "ConditionName", "Severity",
               "Message", "ActiveState.Id", "Retain"];
const CONDITION_TYPE = "ns=0;i=2782";
const HAS_SUBTYPE = "ns=0;i=45";
const expected = {
    "ns=1;s=Demo.Dynamic.Ramp.Alarm": { name: "RampLimit", type: "ns=0;i=9341", source: "ns=1;s=Demo.Dynamic.Ramp" },
    "ns=1;s=Demo.Dynamic.Toggle.Alarm": { name: "ToggleOffNormal", type: "ns=0;i=10637", source: "ns=1;s=Demo.Dynamic.Toggle" }
};
const seen = {};  // condition -> { active, inactive, events }
for (const id of Object.keys(expected)) seen[id] = { active: false, inactive: false, events: 0 };

function decode(values) {
    const ev = {};
    names.forEach((n, i) => (ev[n] = values[i] ? values[i].value : null));
    ev.type = ev.EventType ? ev.EventType.toString() : "";
    ev.source = ev.SourceNode ? ev.SourceNode.toString() : "";
    ev.condition = ev.ConditionId ? ev.ConditionId.toString() : "";
    ev.active = ev["ActiveState.Id"] === true;
    ev.message = (ev.Message && ev.Message.text) || "";
    return ev;
}

// The supertypes of an ObjectType, from the server's address space: [type, parent, ..., BaseEventType].
async function supertypes(session, type) {
    const chain = [type];
    for (let id = type; chain.length < 20;) {
        const r = await session.browse({
            nodeId: id, browseDirection: BrowseDirection.Inverse, referenceTypeId: HAS_SUBTYPE,
            includeSubtypes: false, nodeClassMask: 0, resultMask: 0x3f
        });
        if (r.statusCode.isNotGood()) throw new Error("Browse of " + id + "'s supertype: " + r.statusCode.toString());
        const up = (r.references || [])[0];
        if (!up) break;
        id = up.nodeId.toString();
        chain.push(id);
    }
    return chain;
}

async function main() {
    const client = OPCUAClient.create({
        endpointMustExist: false,
        securityMode: MessageSecurityMode.None,
        securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 2, initialDelay: 200, maxDelay: 1000 }
    });
    await client.connect(endpoint);
    const session = await client.createSession();
    const subscription = ClientSubscription.create(session, {
        requestedPublishingInterval: 100,
        requestedLifetimeCount: 1000,
        requestedMaxKeepAliveCount: 20,
        publishingEnabled: true
    });
    await new Promise((resolve, reject) => {
        subscription.once("started", resolve);
        subscription.once("internal_error", reject);
    });
    const item = ClientMonitoredItem.create(
        subscription,
        { nodeId: "i=2253", attributeId: AttributeIds.EventNotifier },
        { samplingInterval: 0, queueSize: 1000, discardOldest: true, filter: constructEventFilter(names) },
        TimestampsToReturn.Both
    );
    await new Promise((resolve, reject) => {
        item.once("initialized", resolve);
        item.once("err", (e) => reject(new Error(`the event item on the Server object failed: ${e}`)));
    });
    const started = Date.now();
    const elapsed = () => ((Date.now() - started) / 1000).toFixed(1) + " s";
    out("ok an event item on the Server object (i=2253, EventNotifier)");
    setTimeout(() => fail(`not every demo alarm came and went within ${FEW_SECONDS} s: ${JSON.stringify(seen)}`),
               FEW_SECONDS * 1000).unref();

    const checkedTypes = new Map();  // EventType -> its supertypes, browsed once
    let first = true;
    async function handle(ev) {
        const want = expected[ev.condition];
        if (!want) return;  // another event: not this test's
        if (first) {
            out(`ok the first condition event after ${elapsed()}: ${ev.ConditionName} (${ev.type})`);
            first = false;
        }
        if (ev.type !== want.type) fail(`${want.name}'s EventType is ${ev.type}, expected ${want.type}`);
        if (!checkedTypes.has(ev.type)) {
            const chain = await supertypes(session, ev.type);
            if (!chain.includes(CONDITION_TYPE)) fail(`${ev.type} is no ConditionType subtype: ${chain.join(" < ")}`);
            checkedTypes.set(ev.type, chain);
            out(`ok ${ev.type} is a ConditionType subtype: ${chain.join(" < ")}`);
        }
        if (ev.source !== want.source) fail(`${want.name}'s SourceNode is ${ev.source}, expected ${want.source}`);
        if (ev.ConditionName !== want.name) fail(`${ev.condition}'s ConditionName is ${ev.ConditionName}`);
        if (!ev.EventId || ev.EventId.length === 0) fail(`${want.name}: an event without EventId`);
        const s = seen[ev.condition];
        s.events += 1;
        if (ev.active && !s.active) {
            s.active = true;
            out(`ok ${want.name} active after ${elapsed()}: SourceNode ${ev.source}, Severity ${ev.Severity}, "${ev.message}"`);
        } else if (!ev.active && s.active && !s.inactive) {
            s.inactive = true;
            out(`ok ${want.name} inactive again after ${elapsed()}`);
        }
        if (Object.values(seen).every((x) => x.active && x.inactive)) {
            out("done");
            await subscription.terminate();
            await session.close();
            await client.disconnect();
            process.exit(0);
        }
    }

    // One event after the other: a type's hierarchy is browsed before the next event is looked at.
    const queue = [];
    let busy = false;
    item.on("changed", (values) => {
        queue.push(decode(values));
        if (busy) return;
        busy = true;
        (async () => {
            while (queue.length) await handle(queue.shift());
            busy = false;
        })().catch((e) => fail(e.message));
    });
}

main().catch((e) => fail(e && e.message ? e.message : String(e)));
