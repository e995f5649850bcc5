#!/usr/bin/env node
// node-opcua's low-level session calls drive the subscription services that ClientSubscription
// hides, against a server serving docs/demo-namespace.md with its writer running
// (`uactor run --writer-interval 50`). The script sends its own Publish requests (a "pump" per
// session) and decides what it acknowledges, so every value it checks is one it can predict.
//
//   node node_sub_services.js opc.tcp://127.0.0.1:PORT [--timeout S]
//
// Prints `ok <step>` or `FAIL <step>: <why>` per step, then a summary; exits 0 only when every step
// passed (1 otherwise, 2 on bad usage); a Bad service result must come as a ServiceFault. node-opcua's
// log goes to stderr. Bounded by --timeout (default 60 s). Steps (Part 4):
// - modify_subscription (§5.13.3): revised interval, keep-alive and lifetime counts (at least three
//   keep-alive counts), an unknown id is Bad_SubscriptionIdInvalid;
// - max_notifications_per_publish (§5.13.3): five values written in one Write come in messages of
//   2, 2 and 1 notifications (moreNotifications on the first two), none lost;
// - set_publishing_mode (§5.13.4): disabled, writes are held (keep-alives still come); enabled
//   again, the held values come, in order; an unknown id is Bad_SubscriptionIdInvalid per item;
// - modify_monitored_items (§5.12.3): a new client handle, queue size 5 and an absolute deadband
//   of 1.0 added later: small writes are dropped, 7 values in one Write keep the newest 5 (Overflow
//   on the first); then a sampling interval of 200 ms: 3 values in one Write give only the last;
// - modify_queue_size (§5.12.3, §5.12.1.5): five values held while publishing is disabled, the
//   queues cut from 10 to 3: discardOldest keeps the newest three (Overflow on the first), the other
//   policy keeps the first two and the newest (Overflow on it);
// - set_monitoring_mode (§5.12.4, §5.12.1.3): Disabled, the counter runs on unreported; Reporting
//   again, the current value comes first, then every change;
// - set_triggering (§5.12.5, §5.12.1.6): a counter item switched to Sampling reports once with each
//   report of its triggering item (a written Int32), in the same NotificationMessage; the link
//   removed, it is silent; a link to an item deleted since is gone with it; Reporting again, it
//   reports by itself;
// - republish (§5.13.6): a NotificationMessage left unacknowledged comes back by its sequence
//   number and is listed in availableSequenceNumbers; an unknown sequence number and an
//   acknowledged one are Bad_MessageNotAvailable;
// - transfer_subscriptions (§5.13.7): a second client's session takes over a subscription with
//   sendInitialValues true (the last values of its Reporting items come again, an IndexRange item's
//   as it was sent, the Sampling item stays silent), the old session gets StatusChangeNotification
//   Good_SubscriptionTransferred; transferred back with sendInitialValues false, nothing but new
//   changes come; transferred again with a value queued (publishing disabled), that value comes
//   once, not twice;
// - transfer_after_close: a session closed with deleteSubscriptions false leaves its subscription
//   to a transfer: the values written meanwhile all arrive, in order, and the message it never
//   acknowledged is listed in availableSequenceNumbers and can be republished.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;

const {
    OPCUAClient,
    AttributeIds,
    TimestampsToReturn,
    MonitoringMode,
    DataType,
    DataChangeFilter,
    DataChangeTrigger,
    DeadbandType,
    DataChangeNotification,
    StatusChangeNotification,
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
    process.stdout.write("FAIL " + step + ": " + String(why).replace(/\s*\n\s*/g, " | ") + "\n");
}

const args = process.argv.slice(2);
if (args.length < 1 || !args[0].startsWith("opc.tcp://")) {
    process.stderr.write("usage: node node_sub_services.js opc.tcp://HOST:PORT [--timeout S]\n");
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
const INT32 = demo("Demo.Static.Scalar.Int32");
const DOUBLE = demo("Demo.Static.Scalar.Double");
const COUNTER = demo("Demo.Dynamic.Counter");
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

function check(cond, why) {
    if (!cond) throw new Error(typeof why === "function" ? why() : why);
}

const name = (sc) => (sc && sc.name) || String(sc);
const names = (list) => (list || []).map(name).join(",");

// The service result of a call that node-opcua rejects: its secure channel turns a ServiceFault
// into " serviceResult = Bad..."; a typed response with a Bad serviceResult becomes
// " ServiceResult is Bad... request was ...". `fault` tells which one came.
async function serviceResult(promise) {
    try {
        const resp = await promise;
        return { sc: name(resp.responseHeader.serviceResult), fault: false };
    } catch (e) {
        const msg = e && e.message ? e.message : String(e);
        const m = /\b(Bad\w+)/.exec(msg);
        return { sc: m ? m[1] : msg, fault: !/ServiceResult is/.test(msg) };
    }
}

// Part 4 §5.3, §7.34: a Bad serviceResult comes as a ServiceFault, never in the typed response.
function expectBad(what, r, want) {
    check(r.sc === want, what + ": " + r.sc + ", expected " + want);
    check(r.fault, what + " " + want + " came in the typed response, not in a ServiceFault (Part 4 §7.34)");
}

// Keeps `depth` Publish requests outstanding on one session and records what comes back:
// every data change (subscription, sequence number, client handle, DataValue), every status change,
// the keep-alives. Acknowledges each data message with the next request, unless its subscription
// is in `noAck`.
class Pump {
    constructor(session) {
        this.session = session;
        this.notes = [];
        this.statusChanges = [];
        this.keepAlives = [];
        this.messages = [];
        this.ackResults = [];  // [{ack, result}]
        this.acks = [];
        this.noAck = new Set();
        this.errors = [];
        this.running = false;
        this.inflight = 0;
    }
    start(depth = 3) {
        this.running = true;
        for (let i = 0; i < depth; ++i) this.loop();
    }
    async loop() {
        this.inflight += 1;
        while (this.running) {
            const acks = this.acks.splice(0);
            let resp;
            try {
                resp = await this.session.publish({ requestHeader: { timeoutHint: 10000 }, subscriptionAcknowledgements: acks });
            } catch (e) {
                this.errors.push(e && e.message ? e.message : String(e));
                if (this.running) await sleep(50);
                continue;
            }
            (resp.results || []).forEach((r, i) => this.ackResults.push({ ack: acks[i], result: name(r) }));
            this.take(resp);
        }
        this.inflight -= 1;
    }
    take(resp) {
        const m = resp.notificationMessage;
        const sub = resp.subscriptionId;
        const seq = m.sequenceNumber;
        const data = m.notificationData || [];
        let hasData = false;
        for (const nd of data) {
            if (nd instanceof DataChangeNotification) {
                hasData = true;
                for (const mi of nd.monitoredItems || [])
                    this.notes.push({ sub, seq, handle: mi.clientHandle, dv: mi.value, value: mi.value.value.value });
            } else if (nd instanceof StatusChangeNotification) {
                this.statusChanges.push({ sub, seq, status: name(nd.status) });
            }
        }
        if (data.length === 0) this.keepAlives.push({ sub, seq });
        if (hasData) {
            this.messages.push({ sub, seq, message: m, more: resp.moreNotifications,
                                 available: Array.from(resp.availableSequenceNumbers || []) });
            if (!this.noAck.has(sub)) this.acks.push({ subscriptionId: sub, sequenceNumber: seq });
        }
    }
    of(handle, from = 0) {
        return this.notes.slice(from).filter((n) => n.handle === handle);
    }
    values(handle, from = 0) {
        return this.of(handle, from).map((n) => n.value);
    }
    // Stops after the outstanding requests came back (keep-alives, or Bad_NoSubscription).
    async stop() {
        this.running = false;
        await until(() => this.inflight === 0, 5000);
    }
}

async function connect() {
    const client = OPCUAClient.create({
        endpointMustExist: false,
        securityMode: MessageSecurityMode.None,
        securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 1, initialDelay: 100, maxDelay: 200 }
    });
    await client.connect(endpoint);
    const session = await client.createSession();
    return { client, session };
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

async function readCounter(session) {
    const dv = await session.read({ nodeId: COUNTER, attributeId: AttributeIds.Value });
    return dv.value.value;
}

async function createSubscription(session, interval, lifetime, keepAlive) {
    const r = await session.createSubscription({
        requestedPublishingInterval: interval,
        requestedLifetimeCount: lifetime,
        requestedMaxKeepAliveCount: keepAlive,
        maxNotificationsPerPublish: 0,
        publishingEnabled: true,
        priority: 1
    });
    check(name(r.responseHeader.serviceResult) === "Good", "CreateSubscription: " + name(r.responseHeader.serviceResult));
    return r;
}

// One item per call: returns the MonitoredItemCreateResult.
async function createItem(session, subscriptionId, nodeId, handle, params = {}, mode = MonitoringMode.Reporting) {
    const r = await session.createMonitoredItems({
        subscriptionId,
        timestampsToReturn: TimestampsToReturn.Both,
        itemsToCreate: [{
            itemToMonitor: { nodeId, attributeId: AttributeIds.Value },
            monitoringMode: mode,
            requestedParameters: Object.assign({ clientHandle: handle, samplingInterval: 0, queueSize: 10, discardOldest: true }, params)
        }]
    });
    const res = r.results[0];
    check(name(res.statusCode) === "Good", "CreateMonitoredItems " + nodeId + ": " + name(res.statusCode));
    live.push({ session, subscriptionId, id: res.monitoredItemId });
    return res;
}

// The items a step created and has not deleted: deleted after it, so that a failed step does not
// leave items that change what the next steps see.
let live = [];

async function deleteItems(session, subscriptionId, ids) {
    live = live.filter((x) => !ids.includes(x.id));
    const r = await session.deleteMonitoredItems({ subscriptionId, monitoredItemIds: ids });
    check(names(r.results) === ids.map(() => "Good").join(","), "DeleteMonitoredItems: " + names(r.results));
}

async function step(stepName, fn) {
    try {
        await fn(stepName);
        ok(stepName);
    } catch (e) {
        fail(stepName, e && e.message ? e.message : String(e));
    }
    const left = live;
    live = [];
    for (const x of left)
        await x.session.deleteMonitoredItems({ subscriptionId: x.subscriptionId, monitoredItemIds: [x.id] }).catch(() => {});
}

async function main() {
    const c1 = await connect();
    const s1 = c1.session;
    const pump1 = new Pump(s1);
    let A = 0;  // the subscription of most steps

    await step("modify_subscription", async (st) => {
        const created = await createSubscription(s1, 100, 30, 10);
        A = created.subscriptionId;
        check(created.revisedPublishingInterval === 100 && created.revisedMaxKeepAliveCount === 10 &&
                  created.revisedLifetimeCount === 30,
              () => "CreateSubscription revised " + created.revisedPublishingInterval + "/" + created.revisedMaxKeepAliveCount +
                  "/" + created.revisedLifetimeCount);
        // §5.13.2.2: a lifetime under three keep-alive counts is revised up to it.
        const m = await s1.modifySubscription({
            subscriptionId: A,
            requestedPublishingInterval: 50,
            requestedLifetimeCount: 10,
            requestedMaxKeepAliveCount: 4,
            maxNotificationsPerPublish: 0,
            priority: 5
        });
        check(name(m.responseHeader.serviceResult) === "Good", "ModifySubscription: " + name(m.responseHeader.serviceResult));
        check(m.revisedPublishingInterval === 50 && m.revisedMaxKeepAliveCount === 4 && m.revisedLifetimeCount === 12,
              () => "ModifySubscription revised " + m.revisedPublishingInterval + "/" + m.revisedMaxKeepAliveCount + "/" +
                  m.revisedLifetimeCount + ", expected 50/4/12");
        const bad = await serviceResult(s1.modifySubscription({
            subscriptionId: 0x7FFFFF00, requestedPublishingInterval: 50, requestedLifetimeCount: 30,
            requestedMaxKeepAliveCount: 4, maxNotificationsPerPublish: 0, priority: 0
        }));
        expectBad("ModifySubscription of an unknown id", bad, "BadSubscriptionIdInvalid");
        pump1.start(3);
        // Keep-alives at 4 x 50 ms now: some must come while nothing is monitored.
        check(await until(() => pump1.keepAlives.some((k) => k.sub === A), 3000), "no keep-alive in 3 s");
    });

    await step("set_publishing_mode", async () => {
        await write(s1, INT32, DataType.Int32, [0]);
        const item = await createItem(s1, A, INT32, 10);
        check(await until(() => pump1.values(10).length >= 1, 3000), "no initial value");
        const r = await s1.setPublishingMode(false, [A, 0x7FFFFF00]);
        check(names(r) === "Good,BadSubscriptionIdInvalid", "SetPublishingMode(false) results " + names(r));
        const kept = pump1.keepAlives.length;
        await write(s1, INT32, DataType.Int32, [1]);
        await write(s1, INT32, DataType.Int32, [2]);
        // §5.13.4: no NotificationMessages while disabled, keep-alives still.
        check(await until(() => pump1.keepAlives.slice(kept).some((k) => k.sub === A), 3000), "no keep-alive while disabled");
        check(pump1.values(10).length === 1, () => "values while disabled: " + pump1.values(10).join(","));
        const r2 = await s1.setPublishingMode(true, A);
        check(name(r2) === "Good", "SetPublishingMode(true) " + name(r2));
        check(await until(() => pump1.values(10).length >= 3, 3000), () => "held values did not come: " + pump1.values(10).join(","));
        await sleep(150);
        check(JSON.stringify(pump1.values(10)) === "[0,1,2]", () => "got " + pump1.values(10).join(","));
        await deleteItems(s1, A, [item.monitoredItemId]);
    });

    await step("max_notifications_per_publish", async () => {
        await write(s1, INT32, DataType.Int32, [0]);
        const item = await createItem(s1, A, INT32, 15, { queueSize: 10 });
        check(await until(() => pump1.values(15).length >= 1, 3000), "no initial value");
        const modify = (max) => s1.modifySubscription({
            subscriptionId: A, requestedPublishingInterval: 50, requestedLifetimeCount: 12,
            requestedMaxKeepAliveCount: 4, maxNotificationsPerPublish: max, priority: 5
        });
        await modify(2);
        // §5.13.3: at most two per NotificationMessage; the rest follow (moreNotifications), none lost.
        await write(s1, INT32, DataType.Int32, [1, 2, 3, 4, 5]);
        check(await until(() => pump1.values(15).length >= 6, 3000), () => "got " + pump1.values(15).join(","));
        await sleep(150);
        check(JSON.stringify(pump1.values(15)) === "[0,1,2,3,4,5]", () => "got " + pump1.values(15).join(","));
        const seqs = [...new Set(pump1.of(15).slice(1).map((n) => n.seq))];
        const sizes = seqs.map((q) => pump1.of(15).filter((n) => n.seq === q).length);
        check(JSON.stringify(sizes) === "[2,2,1]", "notifications per message " + JSON.stringify(sizes));
        const more = seqs.map((q) => pump1.messages.find((m) => m.sub === A && m.seq === q).more);
        check(JSON.stringify(more) === "[true,true,false]", "moreNotifications " + JSON.stringify(more));
        await modify(0);
        await deleteItems(s1, A, [item.monitoredItemId]);
    });

    await step("modify_monitored_items", async (st) => {
        await write(s1, DOUBLE, DataType.Double, [0]);
        const item = await createItem(s1, A, DOUBLE, 20, { queueSize: 1 });
        check(await until(() => pump1.values(20).length >= 1, 3000), "no initial value");
        const filter = new DataChangeFilter({
            trigger: DataChangeTrigger.StatusValue,
            deadbandType: DeadbandType.Absolute,
            deadbandValue: 1.0
        });
        const modify = (id, params) => s1.modifyMonitoredItems({
            subscriptionId: A,
            timestampsToReturn: TimestampsToReturn.Both,
            itemsToModify: [{ monitoredItemId: id, requestedParameters: params }]
        });
        let r = await s1.modifyMonitoredItems({
            subscriptionId: A,
            timestampsToReturn: TimestampsToReturn.Both,
            itemsToModify: [
                { monitoredItemId: item.monitoredItemId,
                  requestedParameters: { clientHandle: 21, samplingInterval: 0, queueSize: 5, discardOldest: true, filter } },
                { monitoredItemId: 0x7FFFFF00,
                  requestedParameters: { clientHandle: 99, samplingInterval: 0, queueSize: 5, discardOldest: true } }
            ]
        });
        check(names(r.results.map((x) => x.statusCode)) === "Good,BadMonitoredItemIdInvalid",
              () => "ModifyMonitoredItems results " + names(r.results.map((x) => x.statusCode)));
        check(r.results[0].revisedQueueSize === 5 && r.results[0].revisedSamplingInterval === 0,
              () => "revised queue " + r.results[0].revisedQueueSize + ", sampling " + r.results[0].revisedSamplingInterval);
        // The deadband is measured from the last value reported (0): 0.5 is dropped, 2 passes.
        await write(s1, DOUBLE, DataType.Double, [0.5]);
        await write(s1, DOUBLE, DataType.Double, [2]);
        check(await until(() => pump1.values(21).length >= 1, 3000), "nothing after 2.0");
        // Seven values in one Write: one handler of the server, inside one publishing interval.
        await write(s1, DOUBLE, DataType.Double, [10, 20, 30, 40, 50, 60, 70]);
        check(await until(() => pump1.values(21).length >= 6, 3000), () => "got " + pump1.values(21).join(","));
        const overflowed = pump1.of(21)[1].dv.statusCode;
        const bits = typeof overflowed.value === "number" ? overflowed.value : 0;
        check((bits & 0x480) === 0x480 || overflowed.hasOverflowBit, "no Overflow bit on 30: " + overflowed.toString());
        // A sampling interval: the changes in between collapse into the value sampled.
        r = await modify(item.monitoredItemId, { clientHandle: 21, samplingInterval: 200, queueSize: 5, discardOldest: true });
        check(name(r.results[0].statusCode) === "Good" && r.results[0].revisedSamplingInterval === 200,
              () => "ModifyMonitoredItems(200 ms): " + name(r.results[0].statusCode) + " revised " + r.results[0].revisedSamplingInterval);
        await write(s1, DOUBLE, DataType.Double, [71, 72, 73]);
        check(await until(() => pump1.values(21).length >= 7, 3000), () => "nothing sampled: " + pump1.values(21).join(","));
        await sleep(400);
        const got = pump1.values(21);
        check(JSON.stringify(got) === "[2,30,40,50,60,70,73]", () => "got " + got.join(","));
        check(JSON.stringify(pump1.values(20)) === "[0]", () => "old client handle still used: " + pump1.values(20).join(","));
        const bad = await serviceResult(s1.modifyMonitoredItems({
            subscriptionId: 0x7FFFFF00, timestampsToReturn: TimestampsToReturn.Both,
            itemsToModify: [{ monitoredItemId: item.monitoredItemId, requestedParameters: { clientHandle: 1, samplingInterval: 0, queueSize: 1 } }]
        }));
        expectBad("ModifyMonitoredItems on an unknown subscription", bad, "BadSubscriptionIdInvalid");
        await deleteItems(s1, A, [item.monitoredItemId]);
        await write(s1, DOUBLE, DataType.Double, [2.718281828459045]);  // the demo's initial value
    });

    await step("modify_queue_size", async () => {
        await write(s1, INT32, DataType.Int32, [0]);
        const oldest = await createItem(s1, A, INT32, 70, { queueSize: 10, discardOldest: true });
        const newest = await createItem(s1, A, INT32, 71, { queueSize: 10, discardOldest: false });
        check(await until(() => pump1.values(70).length >= 1 && pump1.values(71).length >= 1, 3000), "no initial values");
        check(names(await s1.setPublishingMode(false, [A])) === "Good", "SetPublishingMode(false)");
        await write(s1, INT32, DataType.Int32, [1, 2, 3, 4, 5]);
        const r = await s1.modifyMonitoredItems({
            subscriptionId: A,
            timestampsToReturn: TimestampsToReturn.Both,
            itemsToModify: [
                { monitoredItemId: oldest.monitoredItemId,
                  requestedParameters: { clientHandle: 70, samplingInterval: 0, queueSize: 3, discardOldest: true } },
                { monitoredItemId: newest.monitoredItemId,
                  requestedParameters: { clientHandle: 71, samplingInterval: 0, queueSize: 3, discardOldest: false } }
            ]
        });
        check(r.results.every((x) => name(x.statusCode) === "Good" && x.revisedQueueSize === 3),
              () => "ModifyMonitoredItems " + r.results.map((x) => name(x.statusCode) + "/" + x.revisedQueueSize).join(","));
        check(names(await s1.setPublishingMode(true, [A])) === "Good", "SetPublishingMode(true)");
        check(await until(() => pump1.values(70).length >= 4 && pump1.values(71).length >= 4, 3000),
              () => "got " + pump1.values(70).join(",") + " / " + pump1.values(71).join(","));
        await sleep(150);
        const overflow = (n) => {
            const sc = n.dv.statusCode;
            return ((typeof sc.value === "number" ? sc.value : 0) & 0x480) === 0x480 || !!sc.hasOverflowBit;
        };
        const show = (h) => pump1.of(h).slice(1).map((n) => n.value + (overflow(n) ? "(overflow)" : "")).join(",");
        // §5.12.3: what exceeds the new size is discarded following the discard policy (§5.12.1.5).
        check(show(70) === "3(overflow),4,5", () => "discardOldest: " + show(70) + ", expected 3(overflow),4,5");
        check(show(71) === "1,2,5(overflow)", () => "discardOldest false: " + show(71) + ", expected 1,2,5(overflow)");
        await deleteItems(s1, A, [oldest.monitoredItemId, newest.monitoredItemId]);
    });

    await step("set_monitoring_mode", async () => {
        const item = await createItem(s1, A, COUNTER, 30, { queueSize: 100 });
        check(await until(() => pump1.values(30).length >= 3, 3000), "fewer than 3 counter values in 3 s");
        const r = await s1.setMonitoringMode({
            subscriptionId: A, monitoringMode: MonitoringMode.Disabled, monitoredItemIds: [item.monitoredItemId, 0x7FFFFF00]
        });
        check(names(r.results) === "Good,BadMonitoredItemIdInvalid", "SetMonitoringMode(Disabled) results " + names(r.results));
        const v = await readCounter(s1);  // the counter as it was when the item stopped, or later
        await sleep(500);
        const w = await readCounter(s1);
        check(w >= v + 3, "the counter did not move while disabled: " + v + " -> " + w);
        const late = pump1.values(30).filter((x) => x > v);
        check(late.length === 0, "values reported while Disabled: " + late.join(","));
        const from = pump1.notes.length;
        const r2 = await s1.setMonitoringMode({ subscriptionId: A, monitoringMode: MonitoringMode.Reporting, monitoredItemIds: [item.monitoredItemId] });
        check(names(r2.results) === "Good", "SetMonitoringMode(Reporting) " + names(r2.results));
        check(await until(() => pump1.values(30, from).length >= 3, 3000), "fewer than 3 values after Reporting again");
        const after = pump1.values(30, from);
        // §5.12.1.3: the first is the current value (at least what was read before), then every change.
        check(after[0] >= w, "first value after Reporting " + after[0] + " older than " + w);
        for (let i = 1; i < after.length; ++i) check(after[i] === after[i - 1] + 1, "not consecutive: " + after.join(","));
        await deleteItems(s1, A, [item.monitoredItemId]);
    });

    await step("set_triggering", async (st) => {
        await write(s1, INT32, DataType.Int32, [0]);
        const trigger = await createItem(s1, A, INT32, 40);
        const linked = await createItem(s1, A, COUNTER, 41, { queueSize: 1 });
        check(await until(() => pump1.values(40).length >= 1 && pump1.values(41).length >= 2, 3000), "no values before the link");
        const sm = await s1.setMonitoringMode({ subscriptionId: A, monitoringMode: MonitoringMode.Sampling, monitoredItemIds: [linked.monitoredItemId] });
        check(names(sm.results) === "Good", "SetMonitoringMode(Sampling) " + names(sm.results));
        // Responses come in order on the channel: nothing of item 41 may follow that answer.
        const mark = pump1.notes.length;
        const add = await s1.setTriggering({
            subscriptionId: A, triggeringItemId: trigger.monitoredItemId,
            linksToAdd: [linked.monitoredItemId, 0x7FFFFF00], linksToRemove: []
        });
        check(names(add.addResults) === "Good,BadMonitoredItemIdInvalid", "SetTriggering add results " + names(add.addResults));
        await sleep(300);
        check(pump1.of(41, mark).length === 0, () => "Sampling item reported by itself: " + pump1.values(41, mark).join(","));
        for (let k = 1; k <= 3; ++k) {
            const before = await readCounter(s1);
            await write(s1, INT32, DataType.Int32, [k]);
            check(await until(() => pump1.values(41, mark).length >= k && pump1.values(40, mark).length >= k, 3000),
                  () => "trigger " + k + ": trigger values " + pump1.values(40, mark).join(",") + ", linked " + pump1.values(41, mark).join(","));
            const tn = pump1.of(40, mark)[k - 1];
            const ln = pump1.of(41, mark)[k - 1];
            check(tn.value === k, "trigger value " + tn.value + ", expected " + k);
            check(ln.value >= before, "linked value " + ln.value + " older than the counter before the write (" + before + ")");
            check(ln.seq === tn.seq, "linked item in message " + ln.seq + ", trigger in " + tn.seq);
            await sleep(150);
        }
        await sleep(200);
        check(pump1.of(41, mark).length === 3, () => "linked values " + pump1.values(41, mark).join(",") + " for 3 triggers");
        const rm = await s1.setTriggering({
            subscriptionId: A, triggeringItemId: trigger.monitoredItemId, linksToAdd: [], linksToRemove: [linked.monitoredItemId]
        });
        check(names(rm.removeResults) === "Good", "SetTriggering remove " + names(rm.removeResults));
        await write(s1, INT32, DataType.Int32, [4]);
        check(await until(() => pump1.values(40, mark).includes(4), 3000), "trigger value 4 did not come");
        await sleep(300);
        check(pump1.of(41, mark).length === 3, () => "linked item reported after the link was removed: " + pump1.values(41, mark).join(","));
        const again = await s1.setTriggering({
            subscriptionId: A, triggeringItemId: trigger.monitoredItemId, linksToAdd: [], linksToRemove: [linked.monitoredItemId]
        });
        check(names(again.removeResults) === "BadMonitoredItemIdInvalid", "removing a removed link: " + names(again.removeResults));
        // §5.12.6: the links of a deleted item go with it.
        const gone = await createItem(s1, A, DOUBLE, 42, {}, MonitoringMode.Sampling);
        const link = await s1.setTriggering({
            subscriptionId: A, triggeringItemId: trigger.monitoredItemId, linksToAdd: [gone.monitoredItemId], linksToRemove: []
        });
        check(names(link.addResults) === "Good", "SetTriggering add " + names(link.addResults));
        await deleteItems(s1, A, [gone.monitoredItemId]);
        const stale = await s1.setTriggering({
            subscriptionId: A, triggeringItemId: trigger.monitoredItemId, linksToAdd: [], linksToRemove: [gone.monitoredItemId]
        });
        check(names(stale.removeResults) === "BadMonitoredItemIdInvalid", "removing the link to a deleted item: " + names(stale.removeResults));
        const bad = await serviceResult(s1.setTriggering({
            subscriptionId: A, triggeringItemId: 0x7FFFFF00, linksToAdd: [linked.monitoredItemId], linksToRemove: []
        }));
        expectBad("SetTriggering with an unknown triggering item", bad, "BadMonitoredItemIdInvalid");
        const rep = await s1.setMonitoringMode({ subscriptionId: A, monitoringMode: MonitoringMode.Reporting, monitoredItemIds: [linked.monitoredItemId] });
        check(names(rep.results) === "Good", "SetMonitoringMode(Reporting) " + names(rep.results));
        check(await until(() => pump1.of(41, mark).length >= 5, 3000), "linked item silent in Reporting");
        await deleteItems(s1, A, [trigger.monitoredItemId, linked.monitoredItemId]);
    });

    await step("republish", async (st) => {
        await write(s1, INT32, DataType.Int32, [0]);
        const item = await createItem(s1, A, INT32, 50);
        check(await until(() => pump1.values(50).length >= 1, 3000), "no initial value");
        await sleep(200);  // its acknowledgement goes out with the next Publish
        pump1.noAck.add(A);
        await write(s1, INT32, DataType.Int32, [500]);
        check(await until(() => pump1.values(50).includes(500), 3000), "500 did not come");
        const held = pump1.of(50).find((n) => n.value === 500).seq;
        const rp = await s1.republish({ subscriptionId: A, retransmitSequenceNumber: held });
        check(name(rp.responseHeader.serviceResult) === "Good", "Republish " + name(rp.responseHeader.serviceResult));
        const m = rp.notificationMessage;
        check(m.sequenceNumber === held, "Republish returned sequence " + m.sequenceNumber + ", asked " + held);
        const dcn = (m.notificationData || []).find((d) => d instanceof DataChangeNotification);
        check(dcn && dcn.monitoredItems.length === 1 && dcn.monitoredItems[0].clientHandle === 50 &&
                  dcn.monitoredItems[0].value.value.value === 500,
              "Republish returned another message: " + (dcn ? JSON.stringify(dcn.monitoredItems.map((x) => [x.clientHandle, x.value.value.value])) : "no data change"));
        // Still retained: listed with the next message.
        await write(s1, INT32, DataType.Int32, [501]);
        check(await until(() => pump1.values(50).includes(501), 3000), "501 did not come");
        const next = pump1.messages.find((x) => x.sub === A && x.seq === pump1.of(50).find((n) => n.value === 501).seq);
        check(next.available.includes(held), "availableSequenceNumbers " + next.available.join(",") + " without " + held);
        expectBad("Republish of an unknown sequence number",
                  await serviceResult(s1.republish({ subscriptionId: A, retransmitSequenceNumber: held + 1000 })), "BadMessageNotAvailable");
        expectBad("Republish on an unknown subscription",
                  await serviceResult(s1.republish({ subscriptionId: 0x7FFFFF00, retransmitSequenceNumber: held })), "BadSubscriptionIdInvalid");
        // Acknowledged, it is gone.
        pump1.noAck.delete(A);
        pump1.acks.push({ subscriptionId: A, sequenceNumber: held }, { subscriptionId: A, sequenceNumber: next.seq });
        check(await until(() => pump1.ackResults.some((x) => x.ack && x.ack.subscriptionId === A && x.ack.sequenceNumber === held), 3000),
              "the acknowledgement was not answered");
        const ackr = pump1.ackResults.find((x) => x.ack && x.ack.subscriptionId === A && x.ack.sequenceNumber === held);
        check(ackr.result === "Good", "acknowledgement of " + held + ": " + ackr.result);
        expectBad("Republish of an acknowledged message",
                  await serviceResult(s1.republish({ subscriptionId: A, retransmitSequenceNumber: held })), "BadMessageNotAvailable");
        await deleteItems(s1, A, [item.monitoredItemId]);
    });

    await step("transfer_subscriptions", async () => {
        const ARRAY = demo("Demo.Static.Array.Int32");
        await write(s1, INT32, DataType.Int32, [600]);
        await write(s1, DOUBLE, DataType.Double, [6.5]);
        const B = (await createSubscription(s1, 50, 100, 4)).subscriptionId;
        await createItem(s1, B, INT32, 60);
        await createItem(s1, B, DOUBLE, 62, {}, MonitoringMode.Sampling);
        // An IndexRange item: [-2147483648, 0, 2147483647] read as 1:2.
        const ranged = await s1.createMonitoredItems({
            subscriptionId: B,
            timestampsToReturn: TimestampsToReturn.Both,
            itemsToCreate: [{
                itemToMonitor: { nodeId: ARRAY, attributeId: AttributeIds.Value, indexRange: "1:2" },
                monitoringMode: MonitoringMode.Reporting,
                requestedParameters: { clientHandle: 63, samplingInterval: 0, queueSize: 10, discardOldest: true }
            }]
        });
        check(name(ranged.results[0].statusCode) === "Good", "IndexRange item: " + name(ranged.results[0].statusCode));
        const arr = (h, p) => p.values(h).map((v) => "[" + Array.from(v).join(",") + "]").join(" ");
        check(await until(() => pump1.values(60).length >= 1 && pump1.values(63).length >= 1, 3000), "no initial value on session 1");
        check(arr(63, pump1) === "[0,2147483647]", () => "IndexRange initial value " + arr(63, pump1));
        await sleep(300);  // B is quiet now (and its message acknowledged)
        const c2 = await connect();
        const s2 = c2.session;
        const pump2 = new Pump(s2);
        try {
            const tr = await s2.transferSubscriptions({ subscriptionIds: [B, 0x7FFFFF00], sendInitialValues: true });
            check(names(tr.results.map((x) => x.statusCode)) === "Good,BadSubscriptionIdInvalid",
                  () => "TransferSubscriptions results " + names(tr.results.map((x) => x.statusCode)));
            pump2.start(3);
            // §5.13.7: the last values sent come again; the Sampling item stays silent.
            check(await until(() => pump2.values(60).length >= 1 && pump2.values(63).length >= 1, 3000),
                  "no initial values on session 2");
            check(pump2.of(60)[0].sub === B && pump2.values(60)[0] === 600, () => "initial value " + pump2.values(60)[0]);
            check(arr(63, pump2) === "[0,2147483647]", () => "IndexRange value repeated as " + arr(63, pump2));
            check(await until(() => pump1.statusChanges.some((c) => c.sub === B), 3000), "session 1 got no StatusChangeNotification");
            const sc = pump1.statusChanges.find((c) => c.sub === B);
            check(sc.status === "GoodSubscriptionTransferred", "status change " + sc.status);
            await write(s1, INT32, DataType.Int32, [601]);
            check(await until(() => pump2.values(60).includes(601), 3000), "601 did not reach session 2");
            await sleep(200);
            check(JSON.stringify(pump2.values(60)) === "[600,601]", () => "session 2 got " + pump2.values(60).join(","));
            check(JSON.stringify(pump1.values(60)) === "[600]", () => "session 1 got " + pump1.values(60).join(","));
            check(pump2.of(62).length === 0, () => "the Sampling item reported " + pump2.values(62).join(","));

            // Back to session 1 without initial values: only new changes.
            const back = await s1.transferSubscriptions({ subscriptionIds: [B], sendInitialValues: false });
            check(names(back.results.map((x) => x.statusCode)) === "Good", () => "transfer back " + names(back.results.map((x) => x.statusCode)));
            check(await until(() => pump2.statusChanges.some((c) => c.sub === B), 3000), "session 2 got no StatusChangeNotification");
            check(pump2.statusChanges.find((c) => c.sub === B).status === "GoodSubscriptionTransferred",
                  "status change " + pump2.statusChanges.find((c) => c.sub === B).status);
            await sleep(300);
            check(JSON.stringify(pump1.values(60)) === "[600]", () => "sendInitialValues false, yet session 1 got " + pump1.values(60).join(","));
            await write(s1, INT32, DataType.Int32, [602]);
            check(await until(() => pump1.values(60).includes(602), 3000), "602 did not reach session 1");
            await sleep(200);
            check(JSON.stringify(pump2.values(60)) === "[600,601]", () => "session 2 still got " + pump2.values(60).join(","));

            // Again to session 2, with a value queued (publishing disabled): it comes once.
            check(names(await s1.setPublishingMode(false, [B])) === "Good", "SetPublishingMode(false)");
            await write(s1, INT32, DataType.Int32, [603]);
            await sleep(150);
            const from2 = pump2.notes.length;  // pump2 still sends its requests (Bad_NoSubscription until now)
            const again = await s2.transferSubscriptions({ subscriptionIds: [B], sendInitialValues: true });
            check(names(again.results.map((x) => x.statusCode)) === "Good", () => "transfer again " + names(again.results.map((x) => x.statusCode)));
            check(names(await s2.setPublishingMode(true, [B])) === "Good", "SetPublishingMode(true)");
            check(await until(() => pump2.values(60, from2).length >= 1 && pump2.values(63, from2).length >= 1, 3000),
                  "nothing on session 2 after the second transfer");
            await sleep(300);
            check(JSON.stringify(pump2.values(60, from2)) === "[603]", () => "queued value arrived as " + pump2.values(60, from2).join(","));
            check(pump2.values(63, from2).length === 1, () => "IndexRange item repeated " + pump2.values(63, from2).length + " times");
            const del = await s2.deleteSubscriptions({ subscriptionIds: [B] });
            check(names(del.results) === "Good", "DeleteSubscriptions " + names(del.results));
        } finally {
            await pump2.stop();
            await s2.close();
            await c2.client.disconnect();
        }
        await write(s1, INT32, DataType.Int32, [-2000000000]);  // the demo's initial values
        await write(s1, DOUBLE, DataType.Double, [2.718281828459045]);
    });

    await step("transfer_after_close", async () => {
        await write(s1, INT32, DataType.Int32, [800]);
        const c3 = await connect();
        const s3 = c3.session;
        const pump3 = new Pump(s3);
        let C = 0;
        try {
            C = (await createSubscription(s3, 50, 200, 4)).subscriptionId;
            await createItem(s3, C, INT32, 80);
            pump3.noAck.add(C);  // the initial value's message stays in the retransmission queue
            pump3.start(2);
            check(await until(() => pump3.values(80).length >= 1, 3000), "no initial value on session 3");
            const first = pump3.of(80)[0].seq;
            await pump3.stop();
            // Part 4 §5.6.4: without deleteSubscriptions the subscription outlives its session.
            await s3.close(false);
            await write(s1, INT32, DataType.Int32, [801]);
            await write(s1, INT32, DataType.Int32, [802]);
            const from = pump1.notes.length;
            const tr = await s1.transferSubscriptions({ subscriptionIds: [C], sendInitialValues: false });
            check(names(tr.results.map((x) => x.statusCode)) === "Good", () => "TransferSubscriptions " + names(tr.results.map((x) => x.statusCode)));
            const available = Array.from(tr.results[0].availableSequenceNumbers || []);
            check(available.includes(first), "availableSequenceNumbers " + available.join(",") + " without " + first);
            check(await until(() => pump1.values(80, from).length >= 2, 3000), () => "after the transfer: " + pump1.values(80, from).join(","));
            await sleep(200);
            check(JSON.stringify(pump1.values(80, from)) === "[801,802]", () => "after the transfer: " + pump1.values(80, from).join(","));
            const rp = await s1.republish({ subscriptionId: C, retransmitSequenceNumber: first });
            const dcn = (rp.notificationMessage.notificationData || []).find((d) => d instanceof DataChangeNotification);
            check(dcn && dcn.monitoredItems[0].value.value.value === 800, "Republish of the unacknowledged message: " +
                  (dcn ? dcn.monitoredItems.map((x) => x.value.value.value).join(",") : "no data change"));
        } finally {
            if (C) await s1.deleteSubscriptions({ subscriptionIds: [C] }).catch(() => {});
            await c3.client.disconnect();
        }
        await write(s1, INT32, DataType.Int32, [-2000000000]);
    });

    if (A) await s1.deleteSubscriptions({ subscriptionIds: [A] });
    await pump1.stop();
    const unexpected = pump1.errors.filter((e) => !/BadNoSubscription/.test(e));
    if (unexpected.length) fail("publish", "Publish errors on session 1: " + unexpected.slice(0, 3).join(" | "));
    await s1.close();
    await c1.client.disconnect();
}

main()
    .catch((e) => fail("connect", e && e.message ? e.message : String(e)))
    .finally(() => {
        process.stdout.write((failures ? "FAILED" : "PASSED") + ": " + passes + " ok, " + failures + " failed\n");
        process.exit(failures ? 1 : 0);
    });
