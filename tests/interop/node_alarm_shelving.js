#!/usr/bin/env node
// node-opcua's client against `uactor run --config` with a discrete alarm (alarm_shelving_interop.sh):
// the condition as nodes (Part 9 §5.5, docs/decisions/0053) and shelving (§5.8.17).
//
//   node node_alarm_shelving.js opc.tcp://127.0.0.1:PORT [--timeout S]
//
// Prints `ok ...` per step and `done` at the end (exit 0); `FAIL <why>` and exit 1 otherwise:
//   - browses Pump -> its condition Pump.Trip.Alarm (a component of the equipment), the condition's
//     Variables and its ShelvingState's methods; reads EnabledState/Id, ActiveState/Id, AckedState/Id,
//     ConfirmedState/Id, Severity, Retain, MaxTimeShelved through TranslateBrowsePathsToNodeIds;
//   - subscribes to ActiveState/Id and ShelvingState/CurrentState, writes Pump.Trip = true: ActiveState/Id
//     changes to true;
//   - TimedShelve (2 s) on the ShelvingState: CurrentState TimedShelved, UnshelveTime > 0, an event with
//     SuppressedOrShelved true; then the server unshelves it by itself (CurrentState Unshelved);
//   - OneShotShelve then Unshelve: OneShotShelved, then Unshelved;
//   - TimedShelve beyond MaxTimeShelved: BadShelvingTimeOutOfRange; Unshelve while unshelved:
//     BadConditionNotShelved;
//   - Acknowledge through the method found under the condition, with the EventId read from its node;
//   - suppression and out of service (§5.8.2, docs/decisions/0061): reads SuppressedState/Id and
//     OutOfServiceState/Id, calls Suppress, Unsuppress, RemoveFromService2 (with a comment) and
//     PlaceInService found under the condition, each state seen in its Variables and
//     SuppressedOrShelved;
//   - branches (§5.5.2): Pump.Trip written false, true, false, true: the earlier states come as events
//     with a BranchId; the unacknowledged branch is acknowledged by its EventId (its event acknowledged,
//     the trunk's AckedState/Id still false), ConditionRefresh sends the branches again.
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
    constructEventFilter,
    StatusCodes,
    callConditionRefresh
} = require("node-opcua");

const args = process.argv.slice(2);
if (args.length < 1 || !args[0].startsWith("opc.tcp://")) {
    process.stderr.write("usage: node node_alarm_shelving.js opc.tcp://HOST:PORT [--timeout S]\n");
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

const pump = "ns=2;s=Pump";
const alarm = "ns=2;s=Pump.Trip.Alarm";

async function browse(session, nodeId) {
    const r = await session.browse({
        nodeId,
        browseDirection: BrowseDirection.Forward,
        referenceTypeId: "HierarchicalReferences",
        includeSubtypes: true,
        resultMask: 63
    });
    if (r.statusCode.name !== "Good") fail(`Browse ${nodeId}: ${r.statusCode.name}`);
    return r.references || [];
}

function named(refs, name) {
    return refs.find((r) => r.browseName.name === name);
}

async function resolve(session, path) {
    const r = await session.translateBrowsePath(makeBrowsePath(alarm, path));
    if (r.statusCode.name !== "Good" || !r.targets || r.targets.length === 0) fail(`TranslateBrowsePath ${path}: ${r.statusCode.name}`);
    return r.targets[0].targetId.toString();
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

    // Browse: the equipment holds its condition; the condition its state and methods.
    step = "browse";
    const pumpRefs = await browse(session, pump);
    const cond = named(pumpRefs, "PumpTripAlarm");
    if (!cond || cond.nodeId.toString() !== alarm) fail("Pump has no component PumpTripAlarm: " + pumpRefs.map((r) => r.browseName.toString()));
    if (cond.typeDefinition.toString() !== "ns=0;i=10523") fail("the condition's TypeDefinition is " + cond.typeDefinition.toString());
    const condRefs = await browse(session, alarm);
    const want = ["EnabledState", "ActiveState", "AckedState", "ConfirmedState", "Severity", "LastSeverity", "Comment", "Retain",
                  "Quality", "ShelvingState", "SuppressedOrShelved", "MaxTimeShelved", "Acknowledge", "Confirm", "AddComment",
                  "Enable", "Disable"];
    const missing = want.filter((n) => !named(condRefs, n));
    if (missing.length) fail("the condition lacks " + missing.join(", "));
    out(`ok browse: Pump -> ${alarm} (DiscreteAlarmType) with ${condRefs.length} components and properties`);
    const shelvingState = named(condRefs, "ShelvingState").nodeId.toString();
    const shelvingRefs = await browse(session, shelvingState);
    const method = (name) => {
        const r = named(shelvingRefs, name);
        if (!r) fail("ShelvingState has no method " + name);
        return r.nodeId.toString();
    };
    const timedShelve = method("TimedShelve"), oneShotShelve = method("OneShotShelve"), unshelve = method("Unshelve");
    const acknowledge = named(condRefs, "Acknowledge").nodeId.toString();
    out("ok browse: ShelvingState with TimedShelve, OneShotShelve, Unshelve");

    // Read the state Variables, found by browse path.
    step = "read";
    const paths = ["/EnabledState/Id", "/ActiveState/Id", "/AckedState/Id", "/ConfirmedState/Id", "/Severity", "/Retain",
                   "/MaxTimeShelved", "/ShelvingState/CurrentState", "/ShelvingState/UnshelveTime", "/EventId",
                   "/SuppressedOrShelved", "/SuppressedState", "/SuppressedState/Id", "/OutOfServiceState",
                   "/OutOfServiceState/Id"];
    const ids = {};
    for (const p of paths) ids[p] = await resolve(session, p);
    const read = async (p) => {
        const dv = await session.read({ nodeId: ids[p], attributeId: AttributeIds.Value });
        if (dv.statusCode.name !== "Good") fail(`Read ${p}: ${dv.statusCode.name}`);
        return dv.value.value;
    };
    if ((await read("/EnabledState/Id")) !== true) fail("EnabledState/Id is not true");
    if ((await read("/ActiveState/Id")) !== false) fail("ActiveState/Id is not false at start");
    if ((await read("/AckedState/Id")) !== true) fail("AckedState/Id is not true at start");
    if ((await read("/MaxTimeShelved")) !== 60000) fail("MaxTimeShelved is " + (await read("/MaxTimeShelved")));
    const shelf0 = await read("/ShelvingState/CurrentState");
    if (!shelf0 || shelf0.text !== "Unshelved") fail("CurrentState is " + JSON.stringify(shelf0));
    out(`ok read: EnabledState/Id true, ActiveState/Id false, AckedState/Id true, Severity ${await read("/Severity")}, ` +
        `Retain ${await read("/Retain")}, MaxTimeShelved 60000, ShelvingState Unshelved`);

    // Subscribe to two Variables and to the events.
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
    const seen = { active: [], shelf: [], flagged: 0, branches: [] };
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
    const watch = async (nodeId, into) => {
        const item = ClientMonitoredItem.create(subscription, { nodeId, attributeId: AttributeIds.Value },
            { samplingInterval: 0, queueSize: 100, discardOldest: true }, TimestampsToReturn.Both);
        item.on("changed", (dv) => {
            into.push(dv.value.value);
            poke();
        });
        await new Promise((resolve, reject) => {
            item.once("initialized", resolve);
            item.once("err", (e) => reject(new Error(`the item on ${nodeId} failed: ${e}`)));
        });
    };
    await watch(ids["/ActiveState/Id"], seen.active);
    await watch(ids["/ShelvingState/CurrentState"], seen.shelf);
    const events = ClientMonitoredItem.create(subscription, { nodeId: "i=2253", attributeId: AttributeIds.EventNotifier },
        { samplingInterval: 0, queueSize: 1000, discardOldest: true,
          filter: constructEventFilter(["ConditionName", "SuppressedOrShelved", "ShelvingState.CurrentState", "BranchId",
                                        "EventId", "ActiveState.Id", "AckedState.Id", "Retain"]) },
        TimestampsToReturn.Both);
    events.on("changed", (values) => {
        if (values[0].value === "PumpTripAlarm" && values[1].value === true) seen.flagged += 1;
        const branch = values[3].value ? values[3].value.toString() : "ns=0;i=0";
        if (values[0].value === "PumpTripAlarm" && branch !== "ns=0;i=0")
            seen.branches.push({ branch, eventId: values[4].value, active: values[5].value === true,
                                 acked: values[6].value === true, retain: values[7].value === true });
        poke();
    });
    await new Promise((resolve) => events.once("initialized", resolve));
    await until("the initial values", () => seen.active.length >= 1 && seen.shelf.length >= 1);
    out("ok subscribed to ActiveState/Id and ShelvingState/CurrentState");

    step = "write";
    const w = await session.write({ nodeId: "ns=2;s=Pump.Trip", attributeId: AttributeIds.Value,
                                    value: { value: { dataType: DataType.Boolean, value: true } } });
    if (w.name !== "Good") fail("Write Pump.Trip: " + w.name);
    await until("ActiveState/Id true", () => seen.active.includes(true));
    out("ok ActiveState/Id went true (a data change of the condition's Variable)");

    const call = async (objectId, methodId, inputArguments) => {
        const r = await session.call({ objectId, methodId, inputArguments });
        return r.statusCode.name;
    };
    const lastShelf = () => (seen.shelf.length ? seen.shelf[seen.shelf.length - 1].text : "");

    // Timed shelving, ended by the server.
    step = "TimedShelve";
    let st = await call(shelvingState, timedShelve, [new Variant({ dataType: DataType.Double, value: 2000 })]);
    if (st !== "Good") fail("TimedShelve: " + st);
    await until("TimedShelved", () => lastShelf() === "TimedShelved");
    const left = await read("/ShelvingState/UnshelveTime");
    if (!(left > 0 && left <= 2000)) fail("UnshelveTime is " + left);
    if ((await read("/SuppressedOrShelved")) !== true) fail("SuppressedOrShelved is not true while shelved");
    await until("a shelved event", () => seen.flagged > 0);
    out(`ok TimedShelve(2000): TimedShelved, UnshelveTime ${left}, an event with SuppressedOrShelved true`);
    const t0 = Date.now();
    await until("the automatic unshelve", () => lastShelf() === "Unshelved");
    out(`ok the server unshelved it by itself after ${Date.now() - t0} ms more`);

    step = "OneShotShelve";
    st = await call(alarm, oneShotShelve, []);  // with the ConditionId as the ObjectId (§5.8.17.4)
    if (st !== "Good") fail("OneShotShelve: " + st);
    await until("OneShotShelved", () => lastShelf() === "OneShotShelved");
    st = await call(shelvingState, unshelve, []);
    if (st !== "Good") fail("Unshelve: " + st);
    await until("Unshelved", () => lastShelf() === "Unshelved");
    out("ok OneShotShelve, then Unshelve");

    step = "refusals";
    st = await call(shelvingState, timedShelve, [new Variant({ dataType: DataType.Double, value: 120000 })]);
    if (st !== "BadShelvingTimeOutOfRange") fail("TimedShelve beyond MaxTimeShelved: " + st);
    st = await call(shelvingState, unshelve, []);
    if (st !== "BadConditionNotShelved") fail("Unshelve while unshelved: " + st);
    out("ok TimedShelve(120000) BadShelvingTimeOutOfRange, Unshelve when unshelved BadConditionNotShelved");

    step = "Acknowledge";
    const eventId = await read("/EventId");
    st = await call(alarm, acknowledge, [new Variant({ dataType: DataType.ByteString, value: eventId }),
                                         new Variant({ dataType: DataType.LocalizedText, value: { text: "seen" } })]);
    if (st !== "Good") fail("Acknowledge with the EventId of the node: " + st);
    if ((await read("/AckedState/Id")) !== true) fail("AckedState/Id is not true after Acknowledge");
    out("ok Acknowledge with the EventId read from the condition's EventId Variable; AckedState/Id true");

    // Suppression and out of service: the methods the condition references.
    step = "suppression";
    if ((await read("/SuppressedState/Id")) !== false) fail("SuppressedState/Id is not false at start");
    if ((await read("/OutOfServiceState/Id")) !== false) fail("OutOfServiceState/Id is not false at start");
    const condMethod = (name) => {
        const r = named(condRefs, name);
        if (!r) fail("the condition has no method " + name);
        return r.nodeId.toString();
    };
    st = await call(alarm, condMethod("Suppress"), []);
    if (st !== "Good") fail("Suppress: " + st);
    const suppressedText = await read("/SuppressedState");
    if ((await read("/SuppressedState/Id")) !== true || !suppressedText || suppressedText.text !== "Suppressed")
        fail("SuppressedState after Suppress: " + JSON.stringify(suppressedText));
    if ((await read("/SuppressedOrShelved")) !== true) fail("SuppressedOrShelved is not true while suppressed");
    st = await call(alarm, condMethod("Unsuppress"), []);
    if (st !== "Good") fail("Unsuppress: " + st);
    if ((await read("/SuppressedState/Id")) !== false) fail("SuppressedState/Id is not false after Unsuppress");
    st = await call(alarm, condMethod("RemoveFromService2"),
                    [new Variant({ dataType: DataType.LocalizedText, value: { text: "sensor swap" } })]);
    if (st !== "Good") fail("RemoveFromService2: " + st);
    const oos = await read("/OutOfServiceState");
    if ((await read("/OutOfServiceState/Id")) !== true || !oos || oos.text !== "Out of Service")
        fail("OutOfServiceState after RemoveFromService2: " + JSON.stringify(oos));
    if ((await read("/SuppressedOrShelved")) !== true) fail("SuppressedOrShelved is not true while out of service");
    st = await call(alarm, condMethod("PlaceInService"), []);
    if (st !== "Good") fail("PlaceInService: " + st);
    if ((await read("/OutOfServiceState/Id")) !== false) fail("OutOfServiceState/Id is not false after PlaceInService");
    if ((await read("/SuppressedOrShelved")) !== false) fail("SuppressedOrShelved is not false at the end");
    out("ok Suppress, Unsuppress, RemoveFromService2, PlaceInService: SuppressedState, OutOfServiceState, SuppressedOrShelved");

    // Branches: back to normal and active again before the earlier states were done with.
    step = "branches";
    const writeTrip = async (value) => {
        const r = await session.write({ nodeId: "ns=2;s=Pump.Trip", attributeId: AttributeIds.Value,
                                        value: { value: { dataType: DataType.Boolean, value } } });
        if (r.name !== "Good") fail("Write Pump.Trip: " + r.name);
    };
    for (const v of [false, true, false, true]) {
        const before = seen.active.length;
        await writeTrip(v);
        await until(`ActiveState/Id ${v}`, () => seen.active.length > before && seen.active[seen.active.length - 1] === v);
    }
    // The first branch is the acknowledged, unconfirmed state; the second the unacknowledged one.
    await until("two branches", () => new Set(seen.branches.map((b) => b.branch)).size >= 2);
    const open = seen.branches.find((b) => !b.acked && b.retain);
    if (!open) fail("no unacknowledged branch among " + JSON.stringify(seen.branches));
    out(`ok ${new Set(seen.branches.map((b) => b.branch)).size} branches with their own BranchId (${open.branch})`);
    const count = seen.branches.length;
    st = await call(alarm, acknowledge, [new Variant({ dataType: DataType.ByteString, value: open.eventId }),
                                         new Variant({ dataType: DataType.LocalizedText, value: { text: "the earlier one" } })]);
    if (st !== "Good") fail("Acknowledge of the branch by its EventId: " + st);
    await until("the branch's acknowledged event", () => seen.branches.slice(count).some((b) => b.branch === open.branch && b.acked));
    if ((await read("/AckedState/Id")) !== false) fail("the trunk's AckedState/Id changed with the branch's Acknowledge");
    out("ok Acknowledge of the branch by its EventId: the branch acknowledged, the trunk not");
    const known = new Set(seen.branches.map((b) => b.eventId.toString("hex")));
    const beforeRefresh = seen.branches.length;
    const refreshed = await callConditionRefresh(session, subscription.subscriptionId);
    if (refreshed.name !== "Good") fail("ConditionRefresh: " + refreshed.name);
    await until("the branches again in the refresh",
                () => new Set(seen.branches.slice(beforeRefresh).filter((b) => known.has(b.eventId.toString("hex")))
                                  .map((b) => b.branch)).size >= 2);
    out("ok ConditionRefresh sent the branches again with their latest EventIds");

    out("done");
    await subscription.terminate();
    await session.close();
    await client.disconnect();
    process.exit(0);
}

main().catch((e) => fail(e && e.stack ? e.stack : String(e)));
