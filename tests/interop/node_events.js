#!/usr/bin/env node
// node-opcua's client subscribing to the events of the Server object (i=2253) of a uactor server
// that events_interop_test.cpp drives (docs/events.md).
//
//   node node_events.js opc.tcp://127.0.0.1:PORT --expect N [--timeout S]
//   node node_events.js opc.tcp://127.0.0.1:PORT --alarms [--states] [--timeout S]
//
// Two event items on the Server object, each with the select clauses EventId, EventType,
// SourceName, Message, Severity:
//   "filtered": where Severity >= 500 And Message Like '%pump%'
//   "invalid":  where InView(...) (not for events): its creation must fail with BadEventFilterInvalid
// Prints `ready` once the items are created (the test then raises its events), one line
//   `event <severity> <message> <sourceName> <eventType> <eventIdBytes>`
// per event of the filtered item, `done` after N of them and exits 0; `FAIL <why>` and 1 on any
// failure, 2 on bad usage. node-opcua's log goes to stderr.
//
// --alarms: one event item on the Server object with the condition fields (ConditionId,
// ActiveState.Id, AckedState.Id, ConfirmedState.Id, Retain, ...). Prints `ready`, then as the
// test drives a limit alarm: `active <severity> <message>` for the first active unacknowledged
// state, acknowledges it (`ack <status>`, then `ack-old-event <status>` with the same EventId, now
// stale), `acked` for the acknowledged state, confirms (`confirm <status>`), `confirmed retain=<r>`,
// then calls ConditionRefresh (`refresh <status>`) and prints `refresh-start`, `refreshed <name>
// active=<a> acked=<k>` per retained condition and `refresh-end`, then `done`.
// --states: the active line also names NonExclusiveLimitAlarmType's states (Part 9 §5.8.20):
// `active <severity> <message> hh=<HighHighState.Id> h=<HighState.Id> l=<LowState.Id> ll=<LowLowState.Id>`.
//
// --refresh-after-reconnect: ConditionRefresh on a new connection returns exactly the retained
// conditions (Part 9 §5.5.7). The test serves discrete alarms PumpA..PumpD on Booleans A..D (all
// false) and sets an input when this script prints `set <input> <true|false>`. On a first
// connection: A, B and C active; B back to normal unacknowledged (retained: unacknowledged); C
// acknowledged, confirmed and back to normal (Part 9 §5.5.2: Retain false); D never active. One
// `before <name> <ConditionId> <SourceNode> active= acked= confirmed= retain=` line per condition
// as last seen, then the connection is dropped (its session left behind on the server). On a new
// connection, session and subscription: ConditionRefresh, and one `refreshed ...` line (the same
// form) per event between RefreshStart and RefreshEnd, sorted by name, then `refresh-end` and `done`.
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
    StatusCodes,
    MessageSecurityMode,
    SecurityPolicy,
    constructEventFilter,
    ContentFilter,
    ContentFilterElement,
    FilterOperator,
    SimpleAttributeOperand,
    LiteralOperand,
    ElementOperand,
    resolveNodeId,
    callConditionRefresh
} = require("node-opcua");

const args = process.argv.slice(2);
if (args.length < 1 || !args[0].startsWith("opc.tcp://")) {
    process.stderr.write("usage: node node_events.js opc.tcp://HOST:PORT --expect N [--timeout S]\n");
    process.exit(2);
}
const endpoint = args[0];
const opt = (name, dflt) => {
    const i = args.indexOf(name);
    return i >= 0 && args[i + 1] ? Number(args[i + 1]) : dflt;
};
const expect = opt("--expect", 1);
const timeoutS = opt("--timeout", 60);
function fail(why) {
    process.stdout.write("FAIL " + why + "\n");
    process.exit(1);
}
setTimeout(() => fail("timeout: not done after " + timeoutS + " s"), timeoutS * 1000).unref();

const fields = ["EventId", "EventType", "SourceName", "Message", "Severity"];
const field = (name) =>
    new SimpleAttributeOperand({
        typeDefinitionId: "i=2041",
        browsePath: [{ namespaceIndex: 0, name }],
        attributeId: AttributeIds.Value
    });

function filteredWhere() {
    return new ContentFilter({
        elements: [
            new ContentFilterElement({
                filterOperator: FilterOperator.And,
                filterOperands: [new ElementOperand({ index: 1 }), new ElementOperand({ index: 2 })]
            }),
            new ContentFilterElement({
                filterOperator: FilterOperator.GreaterThanOrEqual,
                filterOperands: [field("Severity"), new LiteralOperand({ value: new Variant({ dataType: DataType.UInt16, value: 500 }) })]
            }),
            new ContentFilterElement({
                filterOperator: FilterOperator.Like,
                filterOperands: [field("Message"), new LiteralOperand({ value: new Variant({ dataType: DataType.String, value: "%pump%" }) })]
            })
        ]
    });
}

function invalidWhere() {
    return new ContentFilter({
        elements: [
            new ContentFilterElement({
                filterOperator: FilterOperator.InView,
                filterOperands: [new LiteralOperand({ value: new Variant({ dataType: DataType.NodeId, value: resolveNodeId("i=85") }) })]
            })
        ]
    });
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
        maxNotificationsPerPublish: 0,
        publishingEnabled: true,
        priority: 1
    });
    await new Promise((resolve, reject) => {
        subscription.once("started", resolve);
        subscription.once("internal_error", reject);
    });

    // The low-level call for the invalid filter: its status and EventFilterResult.
    const bad = await session.createMonitoredItems({
        subscriptionId: subscription.subscriptionId,
        timestampsToReturn: TimestampsToReturn.Both,
        itemsToCreate: [
            {
                itemToMonitor: { nodeId: "i=2253", attributeId: AttributeIds.EventNotifier },
                monitoringMode: 2,
                requestedParameters: {
                    clientHandle: 77,
                    samplingInterval: 0,
                    queueSize: 10,
                    discardOldest: true,
                    filter: constructEventFilter(fields, invalidWhere())
                }
            }
        ]
    });
    const badResult = bad.results[0];
    if (badResult.statusCode !== StatusCodes.BadEventFilterInvalid)
        fail("the InView where clause got " + badResult.statusCode.toString() + ", expected BadEventFilterInvalid");
    const elementResults = badResult.filterResult && badResult.filterResult.whereClauseResult
        ? badResult.filterResult.whereClauseResult.elementResults : [];
    if (!elementResults || elementResults.length !== 1 ||
        elementResults[0].statusCode !== StatusCodes.BadFilterOperatorUnsupported)
        fail("the InView element's result is not BadFilterOperatorUnsupported: " + JSON.stringify(badResult.filterResult));
    process.stderr.write("ok the InView where clause: BadEventFilterInvalid, element BadFilterOperatorUnsupported\n");

    const item = ClientMonitoredItem.create(
        subscription,
        { nodeId: "i=2253", attributeId: AttributeIds.EventNotifier },
        { samplingInterval: 0, queueSize: 100, discardOldest: true, filter: constructEventFilter(fields, filteredWhere()) },
        TimestampsToReturn.Both
    );
    await new Promise((resolve, reject) => {
        item.once("initialized", resolve);
        item.once("err", (e) => reject(new Error("the event item failed: " + e)));
    });
    let received = 0;
    item.on("changed", (values) => {
        const [eventId, eventType, sourceName, message, severity] = values;
        const idLength = eventId && eventId.value ? eventId.value.length : 0;
        process.stdout.write(
            `event ${severity.value} ${message.value.text} ${sourceName.value} ${eventType.value.toString()} ${idLength}\n`
        );
        received += 1;
        if (received === expect) {
            process.stdout.write("done\n");
            subscription
                .terminate()
                .then(() => session.close())
                .then(() => client.disconnect())
                .then(() => process.exit(0), () => process.exit(0));
        }
    });
    process.stdout.write("ready\n");
}

// A connection, a session, a 50 ms subscription and one event item on the Server object selecting
// `fields`; `onValues` gets each event's values in that order.
async function subscribeEvents(fields, clientOptions, onValues) {
    const client = OPCUAClient.create({
        endpointMustExist: false,
        securityMode: MessageSecurityMode.None,
        securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 2, initialDelay: 200, maxDelay: 1000 },
        ...clientOptions
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
    const item = ClientMonitoredItem.create(
        subscription,
        { nodeId: "i=2253", attributeId: AttributeIds.EventNotifier },
        { samplingInterval: 0, queueSize: 100, discardOldest: true, filter: constructEventFilter(fields) },
        TimestampsToReturn.Both
    );
    await new Promise((resolve, reject) => {
        item.once("initialized", resolve);
        item.once("err", (e) => reject(new Error("the event item failed: " + e)));
    });
    item.on("changed", onValues);
    return { client, session, subscription };
}

async function alarms() {
    const names = ["EventId", "EventType", "ConditionId", "ConditionName", "Message", "Severity", "ActiveState.Id",
                   "AckedState.Id", "ConfirmedState.Id", "Retain", "HighHighState.Id", "HighState.Id", "LowState.Id",
                   "LowLowState.Id"];
    const withStates = args.includes("--states");
    // Events are handled one after the other, each step's calls awaited before the next event.
    const queue = [];
    let busy = false;
    let phase = "active";
    const out = (line) => process.stdout.write(line + "\n");
    const { client, session, subscription } = await subscribeEvents(names, {}, (values) => {
        queue.push(values);
        if (busy) return;
        busy = true;
        (async () => {
            while (queue.length) await handle(queue.shift());
            busy = false;
        })().catch((e) => fail(e.message));
    });
    async function handle(v) {
        const ev = {};
        names.forEach((n, i) => (ev[n] = v[i] ? v[i].value : null));
        const type = ev.EventType ? ev.EventType.toString() : "";
        const active = ev["ActiveState.Id"] === true;
        const acked = ev["AckedState.Id"] === true;
        const confirmed = ev["ConfirmedState.Id"] === true;
        if (phase === "active" && active && !acked) {
            const states = withStates ? ` hh=${ev["HighHighState.Id"]} h=${ev["HighState.Id"]} l=${ev["LowState.Id"]}` +
                                        ` ll=${ev["LowLowState.Id"]}` : "";
            out(`active ${ev.Severity} ${ev.Message.text}${states}`);
            const st = await session.acknowledgeCondition(ev.ConditionId, ev.EventId, "seen by node-opcua");
            out(`ack ${st.name}`);
            const again = await session.acknowledgeCondition(ev.ConditionId, ev.EventId, "again");
            out(`ack-old-event ${again.name}`);
            phase = "acked";
        } else if (phase === "acked" && acked && !confirmed) {
            out("acked");
            const st = await session.confirmCondition(ev.ConditionId, ev.EventId, "fixed");
            out(`confirm ${st.name}`);
            phase = "confirmed";
        } else if (phase === "confirmed" && confirmed) {
            out(`confirmed retain=${ev.Retain}`);
            phase = "refresh";
            const st = await callConditionRefresh(session, subscription.subscriptionId);
            out(`refresh ${st.name}`);
        } else if (phase === "refresh" && type === "ns=0;i=2787") {
            out("refresh-start");
            phase = "refreshing";
        } else if (phase === "refreshing" && type === "ns=0;i=2788") {
            out("refresh-end");
            out("done");
            await subscription.terminate();
            await session.close();
            await client.disconnect();
            process.exit(0);
        } else if (phase === "refreshing") {
            out(`refreshed ${ev.ConditionName} active=${active} acked=${acked}`);
        }
    }
    out("ready");
}

// Part 9 §5.5.2 fields; ConditionId by the NodeId attribute of ConditionType (constructEventFilter).
const conditionFields = ["EventId", "EventType", "ConditionId", "ConditionName", "SourceNode", "ActiveState.Id",
                         "AckedState.Id", "ConfirmedState.Id", "Retain"];
const refreshStartType = "ns=0;i=2787", refreshEndType = "ns=0;i=2788";

// The conditionFields of each event by name.
const subscribeConditions = (clientOptions, onEvent) =>
    subscribeEvents(conditionFields, clientOptions, (values) => {
        const ev = {};
        conditionFields.forEach((n, i) => (ev[n] = values[i] ? values[i].value : null));
        onEvent(ev);
    });

const conditionLine = (what, ev) =>
    `${what} ${ev.ConditionName} ${ev.ConditionId} ${ev.SourceNode} active=${ev["ActiveState.Id"]} ` +
    `acked=${ev["AckedState.Id"]} confirmed=${ev["ConfirmedState.Id"]} retain=${ev.Retain}`;

async function refreshAfterReconnect() {
    const out = (line) => process.stdout.write(line + "\n");
    // The first connection: the latest event of each condition, and waits on them.
    const latest = {};
    let waiters = [];
    const until = (name, test) => new Promise((resolve) => {
        waiters.push({ check: () => latest[name] && test(latest[name]), resolve });
        waiters = waiters.filter((w) => !(w.check() && (w.resolve(), true)));
    });
    const first = await subscribeConditions({ keepPendingSessionsOnDisconnect: true }, (ev) => {
        if (!ev.ConditionName) return;
        latest[ev.ConditionName.toString()] = ev;
        waiters = waiters.filter((w) => !(w.check() && (w.resolve(), true)));
    });
    const active = (e) => e["ActiveState.Id"] === true;
    for (const n of ["A", "B", "C"]) out(`set ${n} true`);
    for (const n of ["PumpA", "PumpB", "PumpC"]) await until(n, active);
    out("set B false");
    await until("PumpB", (e) => !active(e));
    let st = await first.session.acknowledgeCondition(latest.PumpC.ConditionId, latest.PumpC.EventId, "seen");
    out(`ack PumpC ${st.name}`);
    await until("PumpC", (e) => e["AckedState.Id"] === true);
    st = await first.session.confirmCondition(latest.PumpC.ConditionId, latest.PumpC.EventId, "fixed");
    out(`confirm PumpC ${st.name}`);
    await until("PumpC", (e) => e["ConfirmedState.Id"] === true);
    out("set C false");
    await until("PumpC", (e) => !active(e));
    for (const n of Object.keys(latest).sort()) out(conditionLine("before", latest[n]));
    // Dropped: no CloseSession, the old session and its subscription stay behind on the server.
    await first.client.disconnect();

    const refreshed = [];
    let phase = "wait";
    let done;
    const ended = new Promise((resolve) => (done = resolve));
    const second = await subscribeConditions({}, (ev) => {
        const type = ev.EventType ? ev.EventType.toString() : "";
        if (type === refreshStartType && phase === "wait") phase = "refreshing";
        else if (type === refreshEndType && phase === "refreshing") done();
        else if (phase === "refreshing") refreshed.push(ev);
        else out(`unexpected ${type} ${ev.ConditionName}`);  // nothing comes before the refresh
    });
    st = await callConditionRefresh(second.session, second.subscription.subscriptionId);
    out(`refresh ${st.name}`);
    await ended;
    refreshed.sort((a, b) => String(a.ConditionName).localeCompare(String(b.ConditionName)));
    for (const ev of refreshed) out(conditionLine("refreshed", ev));
    out("refresh-end");
    out("done");
    await second.subscription.terminate();
    await second.session.close();
    await second.client.disconnect();
    process.exit(0);
}

(args.includes("--refresh-after-reconnect") ? refreshAfterReconnect() : args.includes("--alarms") ? alarms() : main())
    .catch((e) => fail(e.message));
