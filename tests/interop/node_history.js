#!/usr/bin/env node
// node-opcua's client reads the raw history of Demo.Dynamic.Ramp from `uactor run` without a plant
// file (the embedded default historizes ns=1;s=Demo.Dynamic.*, docs/history.md). Run by
// history_interop.sh through server_interop.sh.
//
//   node node_history.js opc.tcp://HOST:PORT [--timeout S]
//
// Steps: the Ramp's Historizing attribute is true and its AccessLevel has the HistoryRead bit;
// after a few seconds of recording (the ramp moves every 500 ms), a Read of its Value; then a
// HistoryRead (ReadRawModifiedDetails, no bounds) from the server's start to a second past the
// Read: at least 4 values, SourceTimestamps strictly increasing, and the value and SourceTimestamp
// the Read returned among them. Then a paged read (numValuesPerNode 2) follows its continuation
// points to the same values, and a backwards read returns them latest first. Then a processed read
// (ReadProcessedDetails, Average, 1 s intervals) over the recorded seconds: one value per interval,
// each within the ramp's 0 .. 90, Good or Uncertain with the Calculated bit; a Count in 0.1 ms
// intervals and 10,001 at-time reads in pages through continuation points (released: gone); and a
// ReadAtTime of a recorded value's time (that value, give or take its sub-millisecond part) and of
// the midpoint of two (Interpolated, between).
// Then HistoryUpdate (Part 11 §6.9, sent with performMessageTransaction: node-opcua's client has no
// historyUpdate of its own) at a time long before any recording: Insert (Good_EntryInserted), the
// same again (Bad_EntryExists), Replace (Good_EntryReplaced), a raw read finds the replacement, an
// IsReadModified read the inserted and the replaced value with their update types; DeleteAtTime
// (Good), the raw read then finds nothing; DeleteRawModified with isDeleteModified removes the
// modified values. Then event history (Part 11 §6.5.2): the Server object's EventNotifier has the
// HistoryRead bit, and a HistoryRead with ReadEventDetails (EventType, Severity, Time selected)
// returns the events the demo's alarms raised, in time order; an event is inserted at T
// (UpdateEventDetails Insert), its Severity replaced by EventId (Replace), then deleted
// (DeleteEventDetails). Then the historical configuration
// (Part 11 §5.2.4, §5.7.3): Toggle's HA Configuration (Stepped, StartOfArchive) and the Server's
// DefaultHAConfiguration.
// Prints `ok ...` per step and `done` (exit 0); `FAIL <why>` and exit 1 otherwise.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;
console.warn = console.log;

const {
    OPCUAClient,
    AttributeIds,
    MessageSecurityMode,
    SecurityPolicy,
    StatusCodes,
    TimestampsToReturn,
    HistoryReadRequest,
    ReadRawModifiedDetails,
    ReadProcessedDetails,
    ReadAtTimeDetails,
    DataValue,
    DataType,
    ReadEventDetails,
    constructEventFilter
} = require("node-opcua");
const {
    HistoryUpdateRequest,
    UpdateDataDetails,
    DeleteRawModifiedDetails,
    DeleteAtTimeDetails,
    UpdateEventDetails,
    DeleteEventDetails,
    HistoryEventFieldList,
    PerformUpdateType
} = require("node-opcua-types");
const { Variant } = require("node-opcua-variant");
const { resolveNodeId } = require("node-opcua-nodeid");

const args = process.argv.slice(2);
if (args.length < 1 || !args[0].startsWith("opc.tcp://")) {
    process.stderr.write("usage: node node_history.js opc.tcp://HOST:PORT [--timeout S]\n");
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

const RAMP = "ns=1;s=Demo.Dynamic.Ramp";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function rawRead(session, start, end, num, point) {
    const request = new HistoryReadRequest({
        historyReadDetails: new ReadRawModifiedDetails({
            isReadModified: false, startTime: start, endTime: end, numValuesPerNode: num, returnBounds: false
        }),
        nodesToRead: [{ nodeId: RAMP, continuationPoint: point }],
        releaseContinuationPoints: false,
        timestampsToReturn: TimestampsToReturn.Both
    });
    const response = await session.historyRead(request);
    if (response.responseHeader.serviceResult.value !== 0) fail("HistoryRead: " + response.responseHeader.serviceResult.toString());
    return response.results[0];
}

async function historyRead(session, details) {
    const request = new HistoryReadRequest({
        historyReadDetails: details,
        nodesToRead: [{ nodeId: RAMP }],
        releaseContinuationPoints: false,
        timestampsToReturn: TimestampsToReturn.Both
    });
    const response = await session.historyRead(request);
    if (response.responseHeader.serviceResult.value !== 0) fail("HistoryRead: " + response.responseHeader.serviceResult.toString());
    const result = response.results[0];
    if (result.statusCode.isNotGood()) fail("HistoryRead result " + result.statusCode.toString());
    return result.historyData.dataValues;
}

// Part 11 §6.3.2: the severity and the HistoryInfo bits (Calculated 1, Interpolated 2).
const severity = (v) => v.statusCode.value >>> 30;
const historyBits = (v) => v.statusCode.value & 0x3;

(async () => {
    const started = new Date(Date.now() - 60 * 60 * 1000);  // the file may hold an earlier run's values too
    const client = OPCUAClient.create({
        endpointMustExist: false,
        securityMode: MessageSecurityMode.None,
        securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 3, initialDelay: 200, maxDelay: 1000 }
    });
    await client.connect(endpoint);
    const session = await client.createSession();
    out("ok connected");

    const attrs = await session.read([
        { nodeId: RAMP, attributeId: AttributeIds.Historizing },
        { nodeId: RAMP, attributeId: AttributeIds.AccessLevel }
    ]);
    if (attrs[0].value.value !== true) fail("Historizing of the Ramp is " + attrs[0].value.value);
    if ((attrs[1].value.value & 0x04) === 0) fail("the Ramp's AccessLevel " + attrs[1].value.value + " has no HistoryRead bit");
    out("ok Historizing true, AccessLevel has HistoryRead");

    await sleep(3000);  // a few seconds of recording
    const current = (await session.read({ nodeId: RAMP, attributeId: AttributeIds.Value }));
    await sleep(300);   // the historian writes off the request path
    const end = new Date(Date.now() + 1000);
    const result = await rawRead(session, started, end, 0, undefined);
    if (result.statusCode.value !== 0) fail("HistoryRead result " + result.statusCode.toString());
    const values = result.historyData.dataValues;
    if (values.length < 4) fail("only " + values.length + " values in the Ramp's history");
    for (let i = 1; i < values.length; ++i) {
        if (!(values[i].sourceTimestamp.getTime() > values[i - 1].sourceTimestamp.getTime() ||
              (values[i].sourceTimestamp.getTime() === values[i - 1].sourceTimestamp.getTime() &&
               values[i].sourcePicoseconds > values[i - 1].sourcePicoseconds)))
            fail("timestamps do not increase at " + i + ": " + values[i - 1].sourceTimestamp.toISOString() + " then " +
                 values[i].sourceTimestamp.toISOString());
    }
    out("ok " + values.length + " values, source timestamps increasing");
    const same = values.find((v) => v.sourceTimestamp.getTime() === current.sourceTimestamp.getTime());
    if (!same) fail("the Read's SourceTimestamp " + current.sourceTimestamp.toISOString() + " is not in the history");
    if (same.value.value !== current.value.value)
        fail("the history holds " + same.value.value + " where the Read returned " + current.value.value);
    out("ok the Read's value " + current.value.value + " at " + current.sourceTimestamp.toISOString() + " is in the history");

    // Paged: two at a time through continuation points, the same values.
    const recent = new Date(values[values.length - 4].sourceTimestamp.getTime());
    const lastTime = new Date(values[values.length - 1].sourceTimestamp.getTime() + 1);
    const paged = [];
    let point;
    for (let pages = 0; pages < 10; ++pages) {
        const r = await rawRead(session, recent, lastTime, 2, point);
        if (r.statusCode.isNotGood()) fail("paged HistoryRead result " + r.statusCode.toString());
        for (const v of r.historyData.dataValues) paged.push(v.value.value);
        point = r.continuationPoint;
        if (!point || point.length === 0) break;
    }
    const tail = values.slice(values.length - 4).map((v) => v.value.value);
    if (JSON.stringify(paged) !== JSON.stringify(tail)) fail("paged " + JSON.stringify(paged) + " != " + JSON.stringify(tail));
    out("ok paged through continuation points: " + JSON.stringify(paged));

    // Backwards: startTime after endTime (a JavaScript Date has milliseconds, the server's times
    // 100 ns ticks: the ends are a millisecond outside the values).
    const back = await rawRead(session, lastTime, new Date(recent.getTime() - 1), 0, undefined);
    const backValues = back.historyData.dataValues.map((v) => v.value.value);
    if (JSON.stringify(backValues) !== JSON.stringify(tail.slice().reverse()))
        fail("backwards " + JSON.stringify(backValues) + " != " + JSON.stringify(tail.slice().reverse()));
    out("ok backwards: " + JSON.stringify(backValues));

    // Processed: Average per second over whole recorded seconds (Part 11 §6.5.4; ns0 i=2342).
    const firstMs = Math.ceil(values[0].sourceTimestamp.getTime() / 1000) * 1000;
    const lastMs = Math.floor(values[values.length - 1].sourceTimestamp.getTime() / 1000) * 1000;
    if (lastMs - firstMs < 2000) fail("fewer than 2 recorded seconds");
    const averages = await historyRead(session, new ReadProcessedDetails({
        startTime: new Date(firstMs), endTime: new Date(lastMs), processingInterval: 1000,
        aggregateType: ["i=2342"],
        aggregateConfiguration: { useServerCapabilitiesDefaults: true }
    }));
    if (averages.length !== (lastMs - firstMs) / 1000) fail(averages.length + " averages for " + (lastMs - firstMs) / 1000 + " s");
    averages.forEach((v, i) => {
        if (v.sourceTimestamp.getTime() !== firstMs + 1000 * i) fail("average " + i + " at " + v.sourceTimestamp.toISOString());
        if (severity(v) > 1 || historyBits(v) !== 1) fail("average " + i + " status " + v.statusCode.toString());
        if (!(v.value.value >= 0 && v.value.value <= 90)) fail("average " + i + " is " + v.value.value);
    });
    out("ok processed Average, " + averages.length + " intervals of 1 s: " + JSON.stringify(averages.map((v) => v.value.value)));

    // Processed and at-time reads in pages (Part 11 §6.5.4, §6.5.5; Part 4 §5.10.3): a Count in
    // 0.1 ms intervals over the recorded seconds is more than the server's 10,000 per node and
    // response: each page comes with a continuation point and the same request with it brings the
    // next; the counts add up to the raw values of the range. 10,001 times at once likewise.
    async function pagedRead(details) {
        let point;
        const all = [];
        let pages = 0;
        while (pages < 100) {
            const response = await session.historyRead(new HistoryReadRequest({
                historyReadDetails: details,
                nodesToRead: [{ nodeId: RAMP, continuationPoint: point }],
                releaseContinuationPoints: false,
                timestampsToReturn: TimestampsToReturn.Both
            }));
            const r = response.results[0];
            if (r.statusCode.isNotGood()) fail("paged HistoryRead page " + pages + ": " + r.statusCode.toString());
            ++pages;
            for (const v of r.historyData.dataValues) all.push(v);
            point = r.continuationPoint;
            if (!point || point.length === 0) break;
        }
        return { values: all, pages };
    }
    const countDetails = () => new ReadProcessedDetails({
        startTime: new Date(firstMs), endTime: new Date(lastMs), processingInterval: 0.1,
        aggregateType: ["i=2352"],  // Count
        aggregateConfiguration: { useServerCapabilitiesDefaults: true }
    });
    const counted = await pagedRead(countDetails());
    const intervals = (lastMs - firstMs) * 10;
    if (counted.values.length !== intervals || counted.pages !== Math.ceil(intervals / 10000))
        fail("paged Count: " + counted.values.length + " intervals in " + counted.pages + " pages, " + intervals + " expected");
    const inRange = values.filter((v) => v.sourceTimestamp.getTime() >= firstMs && v.sourceTimestamp.getTime() < lastMs).length;
    const total = counted.values.reduce((sum, v) => sum + (v.value.value || 0), 0);
    if (total !== inRange) fail("paged Count adds up to " + total + ", the range holds " + inRange + " raw values");
    out("ok processed Count in " + counted.pages + " pages of continuation points: " + intervals + " intervals, " + total + " values");
    const times = [];
    for (let k = 0; k <= 10000; ++k) times.push(new Date(firstMs + Math.floor(k * (lastMs - firstMs) / 10000)));
    const atPaged = await pagedRead(new ReadAtTimeDetails({ reqTimes: times, useSimpleBounds: true }));
    if (atPaged.values.length !== 10001 || atPaged.pages !== 2) fail("paged at time: " + atPaged.values.length + " values in " + atPaged.pages + " pages");
    out("ok at time in " + atPaged.pages + " pages: " + atPaged.values.length + " values");
    // A point released with releaseContinuationPoints is gone.
    const firstPage = await session.historyRead(new HistoryReadRequest({
        historyReadDetails: countDetails(), nodesToRead: [{ nodeId: RAMP }], timestampsToReturn: TimestampsToReturn.Both
    }));
    const held = firstPage.results[0].continuationPoint;
    if (!held || held.length === 0) fail("no continuation point on the Count's first page");
    const released = await session.historyRead(new HistoryReadRequest({
        historyReadDetails: countDetails(), nodesToRead: [{ nodeId: RAMP, continuationPoint: held }],
        releaseContinuationPoints: true, timestampsToReturn: TimestampsToReturn.Both
    }));
    if (released.results[0].statusCode.isNotGood()) fail("release: " + released.results[0].statusCode.toString());
    const stale = await session.historyRead(new HistoryReadRequest({
        historyReadDetails: countDetails(), nodesToRead: [{ nodeId: RAMP, continuationPoint: held }],
        timestampsToReturn: TimestampsToReturn.Both
    }));
    if (stale.results[0].statusCode.value !== StatusCodes.BadContinuationPointInvalid.value)
        fail("a released point: " + stale.results[0].statusCode.toString());
    out("ok a released point is " + stale.results[0].statusCode.toString());

    // At time: a recorded value's own time, and the midpoint of two recorded values (Part 11 §6.5.5).
    const a = values[values.length - 3], b = values[values.length - 2];
    const mid = new Date(Math.floor((a.sourceTimestamp.getTime() + b.sourceTimestamp.getTime()) / 2));
    const at = await historyRead(session, new ReadAtTimeDetails({ reqTimes: [a.sourceTimestamp, mid], useSimpleBounds: true }));
    if (at.length !== 2) fail(at.length + " values at 2 times");
    // A JavaScript Date holds milliseconds, the server's times 100 ns ticks: the recorded time
    // comes back as that value or one interpolated within a millisecond of it.
    if (Math.abs(at[0].value.value - a.value.value) > 0.5 || severity(at[0]) !== 0 || (historyBits(at[0]) & 1) !== 0)
        fail("at a recorded time: " + at[0].value.value + " " + at[0].statusCode.toString() + ", recorded " + a.value.value);
    const lo = Math.min(a.value.value, b.value.value), hi = Math.max(a.value.value, b.value.value);
    if (severity(at[1]) > 1 || historyBits(at[1]) !== 2 || !(at[1].value.value >= lo && at[1].value.value <= hi))
        fail("at the midpoint: " + at[1].value.value + " " + at[1].statusCode.toString() + ", between " + lo + " and " + hi);
    out("ok at time: " + at[0].value.value + " recorded, " + at[1].value.value + " interpolated");

    // HistoryUpdate: the embedded default lets any session change Demo.Dynamic's history.
    if ((attrs[1].value.value & 0x08) === 0) fail("the Ramp's AccessLevel " + attrs[1].value.value + " has no HistoryWrite bit");
    const T = new Date(Date.UTC(2020, 0, 1, 0, 0, 0, 123));
    const around = [new Date(T.getTime() - 1), new Date(T.getTime() + 1)];
    const at_T = (v) => new DataValue({ value: { dataType: DataType.Double, value: v }, sourceTimestamp: T, serverTimestamp: new Date() });
    async function historyUpdate(details) {
        const response = await session.performMessageTransaction(new HistoryUpdateRequest({ historyUpdateDetails: [details] }));
        if (response.responseHeader.serviceResult.value !== 0) fail("HistoryUpdate: " + response.responseHeader.serviceResult.toString());
        return response.results[0];
    }
    const update = async (how, v, expected, name) => {
        const r = await historyUpdate(new UpdateDataDetails({ nodeId: RAMP, performInsertReplace: how, updateValues: [at_T(v)] }));
        if (r.statusCode.isNotGood() || r.operationResults.length !== 1 || r.operationResults[0].value !== expected.value)
            fail(name + ": " + r.statusCode.toString() + " " + r.operationResults.map((s) => s.toString()).join(","));
        out("ok " + name + ": " + r.operationResults[0].toString());
    };
    await update(PerformUpdateType.Insert, 1234.5, StatusCodes.GoodEntryInserted, "insert");
    await update(PerformUpdateType.Insert, 1.0, StatusCodes.BadEntryExists, "insert again");
    await update(PerformUpdateType.Replace, 777.25, StatusCodes.GoodEntryReplaced, "replace");
    const raw = await rawRead(session, around[0], around[1], 0, undefined);
    const rawValues = (raw.historyData.dataValues || []).map((v) => v.value.value);
    if (JSON.stringify(rawValues) !== "[777.25]") fail("after the replace, raw " + JSON.stringify(rawValues));
    const modifiedRead = async () => {
        const response = await session.historyRead(new HistoryReadRequest({
            historyReadDetails: new ReadRawModifiedDetails({
                isReadModified: true, startTime: around[0], endTime: around[1], numValuesPerNode: 0, returnBounds: false
            }),
            nodesToRead: [{ nodeId: RAMP }],
            timestampsToReturn: TimestampsToReturn.Both
        }));
        const r = response.results[0];
        if (r.statusCode.isBad()) fail("modified HistoryRead: " + r.statusCode.toString());
        const d = r.historyData || {};
        return { values: (d.dataValues || []).map((v) => v.value.value),
                 types: (d.modificationInfos || []).map((m) => m.updateType) };
    };
    const modified = await modifiedRead();
    if (JSON.stringify(modified.values) !== "[1234.5,1234.5]" || JSON.stringify(modified.types) !== "[1,2]")
        fail("modified " + JSON.stringify(modified));
    out("ok modified values " + JSON.stringify(modified.values) + ", update types " + JSON.stringify(modified.types));
    const del = await historyUpdate(new DeleteAtTimeDetails({ nodeId: RAMP, reqTimes: [T] }));
    if (del.statusCode.isNotGood() || del.operationResults.length !== 1 || del.operationResults[0].value !== 0)
        fail("DeleteAtTime: " + del.statusCode.toString() + " " + del.operationResults.map((s) => s.toString()).join(","));
    const gone = await rawRead(session, around[0], around[1], 0, undefined);
    if ((gone.historyData.dataValues || []).length !== 0) fail("after DeleteAtTime the value is still there");
    out("ok DeleteAtTime: the value is gone (" + gone.statusCode.toString() + ")");
    const delModified = await historyUpdate(new DeleteRawModifiedDetails({
        nodeId: RAMP, isDeleteModified: true, startTime: around[0], endTime: around[1]
    }));
    if (delModified.statusCode.isNotGood()) fail("DeleteRawModified: " + delModified.statusCode.toString());
    if ((await modifiedRead()).values.length !== 0) fail("modified values left after DeleteRawModified");
    out("ok DeleteRawModified (isDeleteModified): no modified values left");

    // Event history: the embedded default records the Server object's events.
    const notifier = await session.read({ nodeId: "i=2253", attributeId: AttributeIds.EventNotifier });
    if ((notifier.value.value & 0x04) === 0) fail("the Server object's EventNotifier " + notifier.value.value + " has no HistoryRead bit");
    const readEvents = async () => {
        const response = await session.historyRead(new HistoryReadRequest({
            historyReadDetails: new ReadEventDetails({
                startTime: started, endTime: new Date(Date.now() + 1000), numValuesPerNode: 0,
                filter: constructEventFilter(["EventType", "Severity", "Time"])
            }),
            nodesToRead: [{ nodeId: "i=2253" }],
            timestampsToReturn: TimestampsToReturn.Both
        }));
        if (response.responseHeader.serviceResult.value !== 0) fail("event HistoryRead: " + response.responseHeader.serviceResult.toString());
        const r = response.results[0];
        if (r.statusCode.isBad()) fail("event HistoryRead result " + r.statusCode.toString());
        return (r.historyData && r.historyData.events) || [];
    };
    let events = await readEvents();
    for (let tries = 0; events.length === 0 && tries < 10; ++tries) {  // the ramp's alarms come every few seconds
        await sleep(1000);
        events = await readEvents();
    }
    if (events.length === 0) fail("no events in the Server object's history");
    for (let i = 0; i < events.length; ++i) {
        const f = events[i].eventFields;
        if (f.length !== 3) fail("event " + i + " has " + f.length + " fields");
        if (!(f[1].value >= 1 && f[1].value <= 1000)) fail("event " + i + " severity " + f[1].value);
        if (i > 0 && f[2].value.getTime() < events[i - 1].eventFields[2].value.getTime()) fail("event times do not increase at " + i);
    }
    out("ok event history: " + events.length + " events of the Server object, first of type " + events[0].eventFields[0].value.toString());

    // Event history updates (Part 11 §6.9.4, §6.9.7): `updates = true` gives the Server object's
    // EventNotifier the HistoryWrite bit; an event inserted long before any recording (the server
    // gives its EventId), its Severity replaced by EventId, then deleted by EventId.
    if ((notifier.value.value & 0x08) === 0) fail("the Server object's EventNotifier " + notifier.value.value + " has no HistoryWrite bit");
    const eventsAround = async () => {
        const response = await session.historyRead(new HistoryReadRequest({
            historyReadDetails: new ReadEventDetails({
                startTime: around[0], endTime: around[1], numValuesPerNode: 0,
                filter: constructEventFilter(["EventId", "Severity", "Message"])
            }),
            nodesToRead: [{ nodeId: "i=2253" }],
            timestampsToReturn: TimestampsToReturn.Both
        }));
        const r = response.results[0];
        if (r.statusCode.isBad()) fail("event HistoryRead around T: " + r.statusCode.toString());
        return ((r.historyData && r.historyData.events) || []).map((e) => e.eventFields);
    };
    const inserted = await historyUpdate(new UpdateEventDetails({
        nodeId: "i=2253", performInsertReplace: PerformUpdateType.Insert,
        filter: constructEventFilter(["EventType", "Time", "Severity", "Message"]),
        eventData: [new HistoryEventFieldList({ eventFields: [
            new Variant({ dataType: DataType.NodeId, value: resolveNodeId("i=2041") }),
            new Variant({ dataType: DataType.DateTime, value: T }),
            new Variant({ dataType: DataType.UInt16, value: 321 }),
            new Variant({ dataType: DataType.LocalizedText, value: { text: "backfilled by node-opcua" } })] })]
    }));
    if (inserted.statusCode.isNotGood() || inserted.operationResults.length !== 1 || inserted.operationResults[0].value !== StatusCodes.GoodEntryInserted.value)
        fail("UpdateEventDetails Insert: " + inserted.statusCode.toString() + " " + inserted.operationResults.map((s) => s.toString()).join(","));
    let around_T = await eventsAround();
    if (around_T.length !== 1 || around_T[0][1].value !== 321 || around_T[0][2].value.text !== "backfilled by node-opcua")
        fail("the inserted event: " + JSON.stringify(around_T));
    const eventId = around_T[0][0].value;
    const replaced = await historyUpdate(new UpdateEventDetails({
        nodeId: "i=2253", performInsertReplace: PerformUpdateType.Replace,
        filter: constructEventFilter(["EventId", "Severity"]),
        eventData: [new HistoryEventFieldList({ eventFields: [
            new Variant({ dataType: DataType.ByteString, value: eventId }),
            new Variant({ dataType: DataType.UInt16, value: 654 })] })]
    }));
    if (replaced.operationResults.length !== 1 || replaced.operationResults[0].value !== StatusCodes.GoodEntryReplaced.value)
        fail("UpdateEventDetails Replace: " + replaced.statusCode.toString() + " " + replaced.operationResults.map((s) => s.toString()).join(","));
    around_T = await eventsAround();
    if (around_T.length !== 1 || around_T[0][1].value !== 654 || around_T[0][2].value.text !== "backfilled by node-opcua")
        fail("the replaced event: " + JSON.stringify(around_T));
    const deleted = await historyUpdate(new DeleteEventDetails({ nodeId: "i=2253", eventIds: [eventId, Buffer.from("no such event")] }));
    if (deleted.statusCode.isNotGood() || deleted.operationResults.length !== 2 || deleted.operationResults[0].value !== 0 ||
        deleted.operationResults[1].value !== StatusCodes.BadNoEntryExists.value)
        fail("DeleteEventDetails: " + deleted.statusCode.toString() + " " + deleted.operationResults.map((s) => s.toString()).join(","));
    if ((await eventsAround()).length !== 0) fail("the event is still there after DeleteEventDetails");
    out("ok event history updates: inserted (Severity 321), replaced by EventId (654), deleted by EventId");

    // Historical configuration (Part 11 §5.2.4, §5.7.3): Toggle's own "HA Configuration", found by
    // browsing HasHistoricalConfiguration, says Stepped and when its archive starts; the Ramp has
    // none of its own and takes the Server's DefaultHAConfiguration.
    const TOGGLE = "ns=1;s=Demo.Dynamic.Toggle";
    const configs = await session.browse({
        nodeId: TOGGLE, referenceTypeId: "i=56", browseDirection: 0 /* Forward */, includeSubtypes: true, resultMask: 63
    });
    const ha = (configs.references || []).find((r) => r.browseName.name === "HA Configuration");
    if (!ha) fail("Toggle has no HA Configuration over HasHistoricalConfiguration");
    if (ha.typeDefinition.toString() !== "ns=0;i=2318") fail("HA Configuration's type is " + ha.typeDefinition.toString());
    const path = async (start, names) => {
        const r = await session.translateBrowsePath({
            startingNode: start,
            relativePath: { elements: names.map((n) => ({ referenceTypeId: "i=33", isInverse: false, includeSubtypes: true, targetName: { namespaceIndex: 0, name: n } })) }
        });
        if (r.statusCode.isNotGood() || !r.targets || r.targets.length === 0) fail("no " + names.join("/") + " below " + start.toString());
        const v = await session.read({ nodeId: r.targets[0].targetId, attributeId: AttributeIds.Value });
        return v.value.value;
    };
    if ((await path(ha.nodeId, ["Stepped"])) !== true) fail("Toggle's Stepped is not true");
    if ((await path(ha.nodeId, ["AggregateConfiguration", "PercentDataGood"])) !== 100) fail("Toggle's PercentDataGood is not 100");
    const startOfArchive = await path(ha.nodeId, ["StartOfArchive"]);
    if (!(startOfArchive instanceof Date) || startOfArchive.getTime() > Date.now()) fail("Toggle's StartOfArchive " + startOfArchive);
    const rampConfigs = await session.browse({ nodeId: RAMP, referenceTypeId: "i=56", browseDirection: 0, includeSubtypes: true });
    if ((rampConfigs.references || []).length !== 0) fail("the Ramp has a configuration of its own");
    if ((await path("i=2253", ["DefaultHAConfiguration", "Stepped"])) !== false) fail("DefaultHAConfiguration's Stepped is not false");
    if ((await path("i=2253", ["DefaultHAConfiguration", "AggregateConfiguration", "TreatUncertainAsBad"])) !== true)
        fail("DefaultHAConfiguration's TreatUncertainAsBad is not true");
    out("ok HA Configuration: Toggle Stepped, its archive from " + startOfArchive.toISOString() + "; DefaultHAConfiguration for the Ramp");

    await session.close();
    await client.disconnect();
    out("done");
    process.exit(0);
})().catch((e) => fail(e.message));
