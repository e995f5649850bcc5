#!/usr/bin/env node
// node-opcua's client against `uactor run --config` with a discrete alarm that has the alarm
// parameters of Part 9 §5.8.2 (1.05) (alarm_parameters_interop.sh, docs/decisions/0065):
// OnDelay 1.5 s, OffDelay 1.5 s, ReAlarmTime 2 s, at most one re-alarm.
//
//   node node_alarm_parameters.js opc.tcp://127.0.0.1:PORT [--timeout S]
//
// Prints `ok ...` per step and `done` at the end (exit 0); `FAIL <why>` and exit 1 otherwise:
//   - browses the condition: OnDelay, OffDelay, ReAlarmTime (properties) and ReAlarmRepeatCount;
//     reads them (1500, 1500, 2000, 0);
//   - subscribes to the Server object's events with ActiveState/Id, AckedState/Id, Message,
//     ReAlarmRepeatCount, OnDelay selected; writes Pump.Trip = true: no active event before OnDelay,
//     then one (its OnDelay field 1500);
//   - acknowledges it: an AuditConditionAcknowledgeEventType (server.audit_events) with the
//     condition as SourceNode, "Method/Acknowledge", the acknowledged EventId and the comment;
//     ReAlarmTime later the alarm comes again, unacknowledged, ReAlarmRepeatCount 1
//     (the event and the Variable); no second re-alarm (the bound is one);
//   - writes Pump.Trip = false, true within OffDelay: no event; false again: the inactive event comes
//     no sooner than OffDelay after the last write.
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
    DataType,
    Variant,
    MessageSecurityMode,
    SecurityPolicy,
    BrowseDirection,
    makeBrowsePath,
    constructEventFilter
} = require("node-opcua");

const args = process.argv.slice(2);
if (args.length < 1 || !args[0].startsWith("opc.tcp://")) {
    process.stderr.write("usage: node node_alarm_parameters.js opc.tcp://HOST:PORT [--timeout S]\n");
    process.exit(2);
}
const endpoint = args[0];
const ti = args.indexOf("--timeout");
const timeoutS = ti >= 0 ? Number(args[ti + 1]) : 30;
const out = (line) => process.stdout.write(line + "\n");
let step = "start";
function fail(why) {
    out("FAIL " + why);
    process.exit(1);
}
setTimeout(() => fail("timeout after " + timeoutS + " s at step: " + step), timeoutS * 1000).unref();

const alarm = "ns=2;s=Pump.Trip.Alarm";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
    const client = OPCUAClient.create({
        endpointMustExist: false,
        securityMode: MessageSecurityMode.None,
        securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 2, initialDelay: 200, maxDelay: 1000 }
    });
    await client.connect(endpoint);
    const session = await client.createSession();

    step = "browse";
    const refs = await session.browse({ nodeId: alarm, browseDirection: BrowseDirection.Forward,
                                        referenceTypeId: "HierarchicalReferences", includeSubtypes: true, resultMask: 63 });
    if (refs.statusCode.name !== "Good") fail("Browse the condition: " + refs.statusCode.name);
    const names = (refs.references || []).map((r) => r.browseName.name);
    const missing = ["OnDelay", "OffDelay", "ReAlarmTime", "ReAlarmRepeatCount"].filter((n) => !names.includes(n));
    if (missing.length) fail("the condition lacks " + missing.join(", "));
    out("ok browse: the condition has OnDelay, OffDelay, ReAlarmTime and ReAlarmRepeatCount");

    step = "read";
    const ids = {};
    for (const p of ["/OnDelay", "/OffDelay", "/ReAlarmTime", "/ReAlarmRepeatCount", "/ActiveState/Id"]) {
        const r = await session.translateBrowsePath(makeBrowsePath(alarm, p));
        if (r.statusCode.name !== "Good" || !r.targets || !r.targets.length) fail(`TranslateBrowsePath ${p}: ${r.statusCode.name}`);
        ids[p] = r.targets[0].targetId.toString();
    }
    const read = async (p) => {
        const dv = await session.read({ nodeId: ids[p], attributeId: AttributeIds.Value });
        if (dv.statusCode.name !== "Good") fail(`Read ${p}: ${dv.statusCode.name}`);
        return dv.value;
    };
    const onDelay = await read("/OnDelay"), offDelay = await read("/OffDelay"), reAlarm = await read("/ReAlarmTime");
    const count0 = await read("/ReAlarmRepeatCount");
    if (onDelay.value !== 1500 || onDelay.dataType !== DataType.Double) fail("OnDelay is " + onDelay.toString());
    if (offDelay.value !== 1500) fail("OffDelay is " + offDelay.toString());
    if (reAlarm.value !== 2000) fail("ReAlarmTime is " + reAlarm.toString());
    if (count0.value !== 0 || count0.dataType !== DataType.Int16) fail("ReAlarmRepeatCount is " + count0.toString());
    out("ok read: OnDelay 1500, OffDelay 1500, ReAlarmTime 2000 (Duration), ReAlarmRepeatCount 0 (Int16)");

    step = "subscribe";
    const subscription = ClientSubscription.create(session, {
        requestedPublishingInterval: 50,
        requestedLifetimeCount: 1000,
        requestedMaxKeepAliveCount: 20,
        publishingEnabled: true
    });
    await new Promise((resolve, reject) => {
        subscription.once("started", resolve);
        subscription.once("internal_error", reject);
    });
    const events = [];
    let waiters = [];
    const poke = () => {
        const w = waiters;
        waiters = [];
        w.forEach((f) => f());
    };
    const until = (what, pred) =>
        new Promise((resolve) => {
            step = what;
            const check = () => (pred() ? resolve() : waiters.push(check));
            check();
        });
    const item = ClientMonitoredItem.create(subscription, { nodeId: "i=2253", attributeId: AttributeIds.EventNotifier },
        { samplingInterval: 0, queueSize: 1000, discardOldest: true,
          filter: constructEventFilter(["ConditionName", "EventId", "ActiveState.Id", "AckedState.Id", "Message",
                                        "ReAlarmRepeatCount", "OnDelay", "EventType", "SourceNode", "SourceName",
                                        "ConditionEventId", "Status", "Comment"]) },
        TimestampsToReturn.Both);
    const audits = [];
    item.on("changed", (v) => {
        const type = v[7].value ? v[7].value.toString() : "";
        if (type === "ns=0;i=8944") {
            audits.push({ source: v[8].value ? v[8].value.toString() : "", sourceName: v[9].value, conditionEventId: v[10].value,
                          status: v[11].value, comment: v[12].value ? v[12].value.text : "" });
            poke();
            return;
        }
        if (v[0].value !== "PumpTripAlarm") return;
        events.push({ at: Date.now(), eventId: v[1].value, active: v[2].value === true, acked: v[3].value === true,
                      message: v[4].value ? v[4].value.text : "", count: v[5].value, onDelay: v[6].value });
        poke();
    });
    await new Promise((resolve) => item.once("initialized", resolve));
    out("ok subscribed to the Server object's events");

    const write = async (value) => {
        const w = await session.write({ nodeId: "ns=2;s=Pump.Trip", attributeId: AttributeIds.Value,
                                        value: { value: { dataType: DataType.Boolean, value } } });
        if (w.name !== "Good") fail("Write Pump.Trip: " + w.name);
        return Date.now();
    };

    // OnDelay: the trip must last 1.5 s before the alarm is active.
    step = "OnDelay";
    const before = events.length;
    const t0 = await write(true);
    await until("the active event", () => events.slice(before).some((e) => e.active));
    const first = events.slice(before).find((e) => e.active);
    const waited = first.at - t0;
    // The server takes it on its housekeeping tick after the delay: no sooner than OnDelay (less the
    // 50 ms publishing interval of slack on either side).
    if (waited < 1400) fail(`the active event came ${waited} ms after the trip, before OnDelay (1500 ms)`);
    if (events.slice(before).some((e) => e.at < first.at && e.active)) fail("an active event before OnDelay");
    if (first.onDelay !== 1500) fail("the event's OnDelay field is " + first.onDelay);
    out(`ok OnDelay: the active event came ${waited} ms after the trip, not before (OnDelay field ${first.onDelay})`);

    // Acknowledge, then ReAlarmTime brings it back unacknowledged.
    step = "Acknowledge";
    const ack = await session.call({ objectId: alarm, methodId: "ns=0;i=9111",
        inputArguments: [new Variant({ dataType: DataType.ByteString, value: first.eventId }),
                         new Variant({ dataType: DataType.LocalizedText, value: { text: "seen" } })] });
    if (ack.statusCode.name !== "Good") fail("Acknowledge: " + ack.statusCode.name);
    await until("the acknowledged event", () => events.some((e) => e.active && e.acked));
    // Part 9 §5.10.6 (server.audit_events): an AuditConditionAcknowledgeEventType for the call.
    await until("the Acknowledge's audit event", () => audits.length > 0);
    const audit = audits[0];
    if (audit.source !== alarm) fail("the audit event's SourceNode is " + audit.source);
    if (audit.sourceName !== "Method/Acknowledge") fail("the audit event's SourceName is " + audit.sourceName);
    if (audit.status !== true) fail("the audit event's Status is " + audit.status);
    if (!audit.conditionEventId || Buffer.compare(audit.conditionEventId, first.eventId) !== 0)
        fail("the audit event's ConditionEventId is not the acknowledged EventId");
    if (audit.comment !== "seen") fail("the audit event's Comment is " + audit.comment);
    out("ok AuditConditionAcknowledgeEventType: SourceNode the condition, Method/Acknowledge, ConditionEventId and Comment");
    const acked = events.length;
    await until("the re-alarm", () => events.slice(acked).some((e) => e.active && !e.acked));
    const again = events.slice(acked).find((e) => e.active && !e.acked);
    if (again.count !== 1) fail("the re-alarm's ReAlarmRepeatCount is " + again.count);
    if (!/re-alarm 1/.test(again.message)) fail("the re-alarm's Message is " + again.message);
    if ((await read("/ReAlarmRepeatCount")).value !== 1) fail("the ReAlarmRepeatCount Variable is not 1");
    out(`ok ReAlarmTime: alarmed again ${again.at - first.at} ms after the first, unacknowledged, ReAlarmRepeatCount 1 ("${again.message}")`);
    // re_alarm_max_count = 1: no second one (ReAlarmTime is 2 s; wait 3.5 s).
    await sleep(3500);
    if (events.some((e) => e.count === 2)) fail("a second re-alarm past re_alarm_max_count = 1");
    out("ok no second re-alarm (re_alarm_max_count = 1)");

    // OffDelay: a dip shorter than 1.5 s raises nothing; a longer one ends the alarm after it.
    step = "OffDelay";
    const dip = events.length;
    await write(false);
    await sleep(400);
    await write(true);
    await sleep(1800);
    if (events.length !== dip) fail("a dip shorter than OffDelay raised " + JSON.stringify(events.slice(dip)));
    if ((await read("/ActiveState/Id")).value !== true) fail("ActiveState/Id is false after a short dip");
    out("ok OffDelay: a 400 ms dip raised no event, the alarm stayed active");
    const t1 = await write(false);
    await until("the inactive event", () => events.slice(dip).some((e) => !e.active));
    const normal = events.slice(dip).find((e) => !e.active);
    if (normal.at - t1 < 1400) fail(`the inactive event came ${normal.at - t1} ms after the write, before OffDelay`);
    out(`ok OffDelay: inactive ${normal.at - t1} ms after the input went back to normal`);

    out("done");
    await subscription.terminate();
    await session.close();
    await client.disconnect();
    process.exit(0);
}

main().catch((e) => fail(e && e.stack ? e.stack : String(e)));
