#!/usr/bin/env node
// The `mqtt` npm package subscribes to what `uactor run --config examples/config/pubsub.toml`
// publishes through a mosquitto broker and checks the JSON messages field by field against Part 14
// §7.2.5 (1.05); node-opcua's client then reads the variables the same server's DataSetReader
// writes from the broker. Run by pubsub_mqtt_interop.sh.
//
//   node node_pubsub_check.js mqtt://HOST:PORT opc.tcp://HOST:PORT [--seconds S]
//   node node_pubsub_check.js --silent opc.tcp://HOST:PORT     (after the broker is gone)
//
// Checks: the DataSetMetaData retained on opcua/json/metadata/uactor-demo/Dynamic/Demo (ua-metadata,
// DataSetWriterId 1, fields Counter UInt32, Sine Double, Time DateTime); NetworkMessages on
// opcua/json/data/uactor-demo/Dynamic/Demo with a unique MessageId, MessageType ua-data,
// PublisherId, WriterGroupName, and DataSetMessages with DataSetWriterId 1, SequenceNumbers one apart,
// MetaDataVersion, an ISO Timestamp, key frames (every field) at most 10 cycles apart and delta frames
// (changed fields only) between, values as reversible Variants ({"UaType","Value"}), Counter rising;
// then FromBroker.Counter read over OPC UA is Good and near Demo.Dynamic.Counter. With --silent:
// FromBroker.Counter's status is BadNoCommunication.
// Prints `ok ...` per step and `done` (exit 0); `FAIL <why>` and exit 1 otherwise.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;
console.warn = console.log;

const out = (line) => process.stdout.write(line + "\n");
function fail(why) {
    out("FAIL " + why);
    process.exit(1);
}
const args = process.argv.slice(2);
const silent = args[0] === "--silent";
const si = args.indexOf("--seconds");
const seconds = si >= 0 ? Number(args[si + 1]) : 8;
setTimeout(() => fail("timeout"), (seconds + 40) * 1000).unref();

const DATA_TOPIC = "opcua/json/data/uactor-demo/Dynamic/Demo";
const META_TOPIC = "opcua/json/metadata/uactor-demo/Dynamic/Demo";
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,7})?Z$/;

async function readOverOpcUa(endpoint, nodes) {
    const { OPCUAClient, AttributeIds, MessageSecurityMode, SecurityPolicy } = require("node-opcua");
    const client = OPCUAClient.create({
        endpointMustExist: false,
        securityMode: MessageSecurityMode.None,
        securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 3, initialDelay: 200, maxDelay: 1000 }
    });
    await client.connect(endpoint);
    const session = await client.createSession();
    const values = await session.read(nodes.map((nodeId) => ({ nodeId, attributeId: AttributeIds.Value })));
    await session.close();
    await client.disconnect();
    return values;
}

function checkMetadata(m) {
    if (m.MessageType !== "ua-metadata") fail("metadata MessageType " + m.MessageType);
    if (typeof m.MessageId !== "string" || m.MessageId.length === 0) fail("metadata without MessageId");
    if (m.PublisherId !== "uactor-demo") fail("metadata PublisherId " + m.PublisherId);
    if (m.DataSetWriterId !== 1) fail("metadata DataSetWriterId " + m.DataSetWriterId);
    if (m.WriterGroupName !== "Dynamic" || m.DataSetWriterName !== "Demo") fail("metadata names " + m.WriterGroupName + "/" + m.DataSetWriterName);
    if (!ISO.test(m.Timestamp)) fail("metadata Timestamp " + m.Timestamp);
    const fields = {};
    for (const f of m.MetaData.Fields) fields[f.Name] = f;
    const want = { Counter: 7, Sine: 11, Time: 13 };
    for (const [name, type] of Object.entries(want)) {
        if (!fields[name]) fail("metadata has no field " + name + ": " + JSON.stringify(m.MetaData.Fields));
        if (fields[name].BuiltInType !== type) fail("metadata " + name + " BuiltInType " + fields[name].BuiltInType);
        if (fields[name].ValueRank !== -1) fail("metadata " + name + " ValueRank " + fields[name].ValueRank);
    }
    if (m.MetaData.ConfigurationVersion.MajorVersion !== 1) fail("metadata ConfigurationVersion " + JSON.stringify(m.MetaData.ConfigurationVersion));
}

function checkValue(name, v) {
    const type = { Counter: 7, Sine: 11, Time: 13 }[name];
    if (!type) fail("unexpected field " + name);
    if (typeof v !== "object" || v.UaType !== type) fail(name + " is not a reversible Variant of UaType " + type + ": " + JSON.stringify(v));
    if (type === 7 && !(Number.isInteger(v.Value) && v.Value >= 0)) fail("Counter value " + v.Value);
    if (type === 11 && !(typeof v.Value === "number" && v.Value >= -1 && v.Value <= 1)) fail("Sine value " + v.Value);
    if (type === 13 && !ISO.test(v.Value)) fail("Time value " + v.Value);
}

async function publishedMessages(url) {
    const mqtt = require("mqtt");
    const client = mqtt.connect(url, { reconnectPeriod: 500, connectTimeout: 5000 });
    const data = [];
    let metadata = null;
    client.on("message", (topic, payload, packet) => {
        let m;
        try { m = JSON.parse(payload.toString("utf8")); } catch (e) { fail("not JSON on " + topic + ": " + e.message); }
        if (topic === META_TOPIC) {
            if (!packet.retain && metadata === null) out("note metadata came live, not retained");
            metadata = m;
        } else if (topic === DATA_TOPIC) {
            data.push(m);
        } else {
            fail("a message on an unexpected topic " + topic);
        }
    });
    await new Promise((resolve, reject) => {
        client.on("connect", resolve);
        client.on("error", reject);
    });
    await new Promise((resolve, reject) =>
        client.subscribe("opcua/json/#", { qos: 1 }, (err) => (err ? reject(err) : resolve())));
    out("ok subscribed to opcua/json/# at " + url);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    await new Promise((r) => client.end(false, {}, r));
    return { data, metadata };
}

(async () => {
    if (silent) {
        const [v] = await readOverOpcUa(args[1], ["ns=2;s=FromBroker.Counter"]);
        if (v.statusCode.name !== "BadNoCommunication") fail("FromBroker.Counter is " + v.statusCode.toString() + " after the broker went");
        out("ok FromBroker.Counter is BadNoCommunication with the publisher silent");
        out("done");
        process.exit(0);
    }
    const [url, endpoint] = args;
    const { data, metadata } = await publishedMessages(url);
    if (!metadata) fail("no DataSetMetaData on " + META_TOPIC);
    checkMetadata(metadata);
    out("ok DataSetMetaData retained: Counter UInt32, Sine Double, Time DateTime, version 1.0");
    if (data.length < seconds) fail("only " + data.length + " NetworkMessages in " + seconds + " s (500 ms interval)");
    const ids = new Set();
    let lastSeq = null, lastCounter = -1, sinceKey = null, keys = 0, deltas = 0, values = 0;
    for (const n of data) {
        if (typeof n.MessageId !== "string" || ids.has(n.MessageId)) fail("MessageId missing or repeated: " + n.MessageId);
        ids.add(n.MessageId);
        if (n.MessageType !== "ua-data") fail("MessageType " + n.MessageType);
        if (n.PublisherId !== "uactor-demo") fail("PublisherId " + n.PublisherId);
        if (n.WriterGroupName !== "Dynamic") fail("WriterGroupName " + n.WriterGroupName);
        if (!Array.isArray(n.Messages) || n.Messages.length !== 1) fail("Messages " + JSON.stringify(n.Messages));
        const m = n.Messages[0];
        if (m.DataSetWriterId !== 1) fail("DataSetWriterId " + m.DataSetWriterId);
        if (m.DataSetWriterName !== "Demo") fail("DataSetWriterName " + m.DataSetWriterName);
        if (!Number.isInteger(m.SequenceNumber)) fail("SequenceNumber " + m.SequenceNumber);
        if (lastSeq !== null && m.SequenceNumber !== lastSeq + 1) fail("SequenceNumber " + m.SequenceNumber + " after " + lastSeq);
        lastSeq = m.SequenceNumber;
        if (JSON.stringify(m.MetaDataVersion) !== JSON.stringify({ MajorVersion: 1, MinorVersion: 0 })) fail("MetaDataVersion " + JSON.stringify(m.MetaDataVersion));
        if (!ISO.test(m.Timestamp)) fail("Timestamp " + m.Timestamp);
        if ("Status" in m) fail("Status present on a Good DataSetMessage: " + m.Status);
        if (m.MessageType === "ua-keyframe") {
            const names = Object.keys(m.Payload).sort().join(",");
            if (names !== "Counter,Sine,Time") fail("key frame fields " + names);
            if (sinceKey !== null && sinceKey > 10) fail("a key frame " + sinceKey + " cycles after the last (KeyFrameCount 10)");
            sinceKey = 0;
            ++keys;
        } else if (m.MessageType === "ua-deltaframe") {
            if (Object.keys(m.Payload).length === 0) fail("an empty delta frame");
            if (sinceKey !== null) ++sinceKey;
            ++deltas;
        } else if (m.MessageType !== "ua-keepalive") {
            fail("DataSetMessage MessageType " + m.MessageType);
        }
        for (const [name, v] of Object.entries(m.Payload || {})) {
            checkValue(name, v);
            ++values;
        }
        if (m.Payload && m.Payload.Counter) {
            if (m.Payload.Counter.Value < lastCounter) fail("Counter went back: " + m.Payload.Counter.Value + " after " + lastCounter);
            lastCounter = m.Payload.Counter.Value;
        }
    }
    if (keys < 1 || deltas < 1) fail("key frames " + keys + ", delta frames " + deltas + ": expected both");
    out("ok " + data.length + " NetworkMessages (" + keys + " key frames, " + deltas + " delta frames, " + values +
        " values): MessageId unique, ua-data, PublisherId, WriterGroupName, DataSetWriterId, SequenceNumbers one apart, " +
        "MetaDataVersion, Timestamp, reversible Variants, Counter rising");

    const [back, source] = await readOverOpcUa(endpoint, ["ns=2;s=FromBroker.Counter", "ns=1;s=Demo.Dynamic.Counter"]);
    if (back.statusCode.value !== 0) fail("FromBroker.Counter status " + back.statusCode.toString());
    const diff = source.value.value - back.value.value;
    if (!(diff >= 0 && diff <= 4)) fail("FromBroker.Counter " + back.value.value + " vs Demo.Dynamic.Counter " + source.value.value);
    out("ok FromBroker.Counter " + back.value.value + " (Good) follows Demo.Dynamic.Counter " + source.value.value + " through the broker");
    out("done");
    process.exit(0);
})().catch((e) => fail(e && e.stack ? e.stack : String(e)));
