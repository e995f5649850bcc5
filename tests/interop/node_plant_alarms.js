#!/usr/bin/env node
// node-opcua's client against `uactor run --config examples/config/alarms.toml`
// (alarms_config_interop.sh): the file's limit alarm (driven by a ramp writer) and its off-normal
// alarm (driven by a script alarm's Boolean output) seen as Part 9 events.
//
//   node node_plant_alarms.js opc.tcp://127.0.0.1:PORT [--timeout S]
//
// Two event items with the condition fields: on the Server object (every event) and on the Tank
// object (the file's event notifier, the limit alarm's `notifier`). Checks, printing `ok ...` per
// step and `done` at the end (exit 0); `FAIL <why>` and exit 1 otherwise:
//   - the limit alarm passes LowLow, Low, High, HighHigh and back to normal, each state with its
//     EventType (ExclusiveLimitAlarmType), ConditionId, SourceName, Severity and Message;
//   - the off-normal alarm (OffNormalAlarmType, NormalState a null NodeId) goes active and back;
//   - the off-normal alarm's inactive, unacknowledged state is acknowledged, then confirmed, each
//     seen as an event with AckedState / ConfirmedState;
//   - a Write of Tank.Setpoint is an AuditWriteUpdateEventType event (server.audit_events);
//   - a second node-opcua client's secure channel is an AuditOpenSecureChannelEventType event (Status
//     true, its SecureChannelId), its CloseSecureChannel an AuditChannelEventType event with the same id;
//   - ConditionRefresh: RefreshStart, the retained conditions (the limit alarm among them, never
//     acknowledged), RefreshEnd;
//   - the Tank item sees the limit alarm and not the off-normal alarm (no notifier of its own).
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
    MessageSecurityMode,
    SecurityPolicy,
    constructEventFilter,
    callConditionRefresh
} = require("node-opcua");

const args = process.argv.slice(2);
if (args.length < 1 || !args[0].startsWith("opc.tcp://")) {
    process.stderr.write("usage: node node_plant_alarms.js opc.tcp://HOST:PORT [--timeout S]\n");
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
setTimeout(() => fail("timeout after " + timeoutS + " s: " + JSON.stringify(progress())), timeoutS * 1000).unref();

const names = ["EventId", "EventType", "ConditionId", "ConditionName", "SourceName", "Message", "Severity",
               "ActiveState.Id", "AckedState.Id", "ConfirmedState.Id", "Retain", "LimitState.CurrentState",
               "NormalState", "Status", "SecureChannelId"];
const limitAlarm = "ns=2;s=Tank.Level.Alarm";
const offNormalAlarm = "ns=2;s=Tank.Overfill.Alarm";
const wantSeverity = { LowLow: 900, Low: 700, High: 700, HighHigh: 900 };

const seenLimits = new Set();
let limitNormal = false;
let offNormal = { active: false, inactive: false };
let ackPhase = "wait";  // wait -> acking -> acked -> confirming -> confirmed
let audit = false;
const channels = { opened: new Set(), closed: new Set(), seen: false };  // SecureChannelIds of the second client's
let refresh = "no";     // no -> called -> started -> ended
const refreshed = [];
const tank = { limit: 0, offNormal: 0 };
function progress() {
    return { limits: [...seenLimits], limitNormal, offNormal, ackPhase, audit, channels: channels.seen, refresh, refreshed,
             tank };
}

function decode(values) {
    const ev = {};
    names.forEach((n, i) => (ev[n] = values[i] ? values[i].value : null));
    ev.type = ev.EventType ? ev.EventType.toString() : "";
    ev.condition = ev.ConditionId ? ev.ConditionId.toString() : "";
    ev.active = ev["ActiveState.Id"] === true;
    ev.acked = ev["AckedState.Id"] === true;
    ev.confirmed = ev["ConfirmedState.Id"] === true;
    ev.limit = (ev["LimitState.CurrentState"] && ev["LimitState.CurrentState"].text) || "";
    ev.message = (ev.Message && ev.Message.text) || "";
    return ev;
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
        requestedPublishingInterval: 50,
        requestedLifetimeCount: 1000,
        requestedMaxKeepAliveCount: 20,
        publishingEnabled: true
    });
    await new Promise((resolve, reject) => {
        subscription.once("started", resolve);
        subscription.once("internal_error", reject);
    });
    const monitor = async (nodeId) => {
        const item = ClientMonitoredItem.create(
            subscription,
            { nodeId, attributeId: AttributeIds.EventNotifier },
            { samplingInterval: 0, queueSize: 1000, discardOldest: true, filter: constructEventFilter(names) },
            TimestampsToReturn.Both
        );
        await new Promise((resolve, reject) => {
            item.once("initialized", resolve);
            item.once("err", (e) => reject(new Error(`the event item on ${nodeId} failed: ${e}`)));
        });
        return item;
    };
    const server = await monitor("i=2253");
    const area = await monitor("ns=2;s=Tank");

    area.on("changed", (values) => {
        const ev = decode(values);
        if (ev.condition === limitAlarm) tank.limit += 1;
        if (ev.condition === offNormalAlarm) tank.offNormal += 1;
    });

    let finished = false;
    async function finish() {
        if (finished) return;
        if (seenLimits.size < 4 || !limitNormal || !offNormal.active || !offNormal.inactive) return;
        if (ackPhase !== "confirmed" || !audit || !channels.seen || refresh !== "no") return;
        refresh = "called";
        const st = await callConditionRefresh(session, subscription.subscriptionId);
        if (st.name !== "Good") fail("ConditionRefresh: " + st.name);
        out("ok ConditionRefresh Good");
    }

    async function handle(ev) {
        if (ev.type === "ns=0;i=2100") {
            if (!audit) out("ok AuditWriteUpdateEventType for the Write of Tank.Setpoint");
            audit = true;
        } else if (ev.type === "ns=0;i=2060" || ev.type === "ns=0;i=2059") {
            if (ev.Status !== true) fail(`a refused channel audit (${ev.type}): ${ev.message}`);
            (ev.type === "ns=0;i=2060" ? channels.opened : channels.closed).add(ev.SecureChannelId);
            const both = [...channels.closed].find((id) => channels.opened.has(id));
            if (both !== undefined && !channels.seen) {
                channels.seen = true;
                out("ok AuditOpenSecureChannelEventType and AuditChannelEventType (close) for another client's channel");
            }
        } else if (ev.type === "ns=0;i=2787") {
            if (refresh === "called") refresh = "started";
        } else if (ev.type === "ns=0;i=2788") {
            if (refresh === "started") {
                refresh = "ended";
                if (!refreshed.includes("TankLevelAlarm")) fail("ConditionRefresh did not send the limit alarm: " + refreshed);
                out("ok ConditionRefresh: RefreshStart, " + refreshed.join(", ") + ", RefreshEnd");
                if (tank.limit === 0) fail("the Tank notifier saw no limit alarm event");
                if (tank.offNormal !== 0) fail("the Tank notifier saw the off-normal alarm, which has no notifier");
                out(`ok the Tank notifier: ${tank.limit} limit alarm event(s), no off-normal one`);
                finished = true;
                out("done");
                await subscription.terminate();
                await session.close();
                await client.disconnect();
                process.exit(0);
            }
        } else if (refresh === "started") {
            if (!ev.Retain) fail(`a refreshed condition is not retained: ${ev.ConditionName}`);
            refreshed.push(ev.ConditionName);
        } else if (ev.condition === limitAlarm) {
            if (ev.type !== "ns=0;i=9341") fail("the limit alarm's EventType is " + ev.type);
            if (ev.SourceName !== "Level") fail("the limit alarm's SourceName is " + ev.SourceName);
            if (ev.ConditionName !== "TankLevelAlarm") fail("the limit alarm's ConditionName is " + ev.ConditionName);
            if (ev.active && !seenLimits.has(ev.limit)) {
                if (!(ev.limit in wantSeverity)) fail(`an active limit alarm in state "${ev.limit}"`);
                if (ev.Severity !== wantSeverity[ev.limit]) fail(`${ev.limit} has severity ${ev.Severity}`);
                if (ev.message !== "TankLevelAlarm " + ev.limit) fail(`${ev.limit}'s message is "${ev.message}"`);
                if (ev.acked) fail(`${ev.limit}, a new state, is acknowledged`);
                seenLimits.add(ev.limit);
                out(`ok limit alarm ${ev.limit} severity=${ev.Severity} message="${ev.message}"`);
            } else if (!ev.active && ev.EventId && !limitNormal && seenLimits.size > 0) {
                if (ev.limit !== "") fail(`an inactive limit alarm in state "${ev.limit}"`);
                limitNormal = true;
                out(`ok limit alarm back to normal, retain=${ev.Retain} (not acknowledged)`);
            }
        } else if (ev.condition === offNormalAlarm) {
            if (ev.type !== "ns=0;i=10637") fail("the off-normal alarm's EventType is " + ev.type);
            if (!ev.NormalState || ev.NormalState.toString() !== "ns=0;i=0")
                fail("NormalState is " + (ev.NormalState ? ev.NormalState.toString() : "missing"));
            if (ev.active && !offNormal.active) {
                if (ev.Severity !== 800) fail("the active off-normal alarm has severity " + ev.Severity);
                offNormal.active = true;
                out(`ok off-normal alarm active severity=${ev.Severity} message="${ev.message}"`);
            } else if (!ev.active && offNormal.active && !offNormal.inactive) {
                offNormal.inactive = true;
                out(`ok off-normal alarm back to normal, acked=${ev.acked} retain=${ev.Retain}`);
            }
            // Acknowledge an inactive, unacknowledged state (the input stays normal 1.6 s of the 2 s
            // saw: its EventId is still the latest when the call arrives), then confirm it.
            if (ackPhase === "wait" && offNormal.inactive && !ev.active && !ev.acked && ev.Retain) {
                ackPhase = "acking";
                const st = await session.acknowledgeCondition(ev.ConditionId, ev.EventId, "seen by node-opcua");
                if (st.name !== "Good") fail("Acknowledge: " + st.name);
                out("ok Acknowledge Good");
                ackPhase = "acked";
            } else if (ackPhase === "acked" && ev.acked && !ev.confirmed) {
                ackPhase = "confirming";
                out("ok acknowledged state: AckedState true, ConfirmedState false");
                const st = await session.confirmCondition(ev.ConditionId, ev.EventId, "reset by node-opcua");
                if (st.name !== "Good") fail("Confirm: " + st.name);
                out("ok Confirm Good");
                ackPhase = "confirming-sent";
            } else if (ackPhase === "confirming-sent" && ev.acked && ev.confirmed) {
                ackPhase = "confirmed";
                out(`ok confirmed state: retain=${ev.Retain}`);
                if (ev.Retain) fail("an inactive, acknowledged and confirmed condition is retained");
            }
        }
        await finish();
    }

    // Events one after the other, each step's calls awaited before the next event.
    const queue = [];
    let busy = false;
    server.on("changed", (values) => {
        queue.push(decode(values));
        if (busy) return;
        busy = true;
        (async () => {
            while (queue.length) await handle(queue.shift());
            busy = false;
        })().catch((e) => fail(e.message));
    });

    const st = await session.write({
        nodeId: "ns=2;s=Tank.Setpoint",
        attributeId: AttributeIds.Value,
        value: { value: { dataType: DataType.Double, value: 61.5 } }
    });
    if (st.name !== "Good") fail("the Write of Tank.Setpoint: " + st.name);

    // A second client: its channel opened and closed are audit events the first one sees.
    const other = OPCUAClient.create({
        endpointMustExist: false,
        securityMode: MessageSecurityMode.None,
        securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 2, initialDelay: 200, maxDelay: 1000 }
    });
    await other.connect(endpoint);
    await other.disconnect();
}

main().catch((e) => fail(e.message));
