#!/usr/bin/env node
// node-opcua's client browses and reads the PublishSubscribe Object (Part 14 §9.1, ns=0;i=14443)
// of `uactor run --config examples/config/pubsub.toml` (docs/pubsub.md "The PublishSubscribe
// object"). Run by pubsub_mqtt_interop.sh, with the broker up, then after it is gone.
//
//   node node_pubsub_object.js opc.tcp://HOST:PORT up|down
//
// up: HasPubSubConnection from PublishSubscribe to "broker" and "udp" (PubSubConnectionType);
// HasWriterGroup to "Dynamic", HasDataSetWriter to "Demo", HasReaderGroup/HasDataSetReader to
// "Back"; every Status State Operational (2); SentNetworkMessages and ReceivedNetworkMessages
// counting; the PublishedDataSet "Demo" under PublishedDataSets with its DataSetMetaData (fields
// Counter, Sine, Time) and PublishedData; the root's State Operational; Disable called anonymously
// refused (BadUserAccessDenied).
// down: "broker" in Error (3), its WriterGroup and DataSetReader Paused (1), its StateError
// counted; "udp" and its reader still Operational.
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
const [endpoint, phase] = process.argv.slice(2);
if (!endpoint || !["up", "down"].includes(phase)) fail("usage: node_pubsub_object.js opc.tcp://HOST:PORT up|down");
setTimeout(() => fail("timeout"), 40000).unref();

const { OPCUAClient, AttributeIds, MessageSecurityMode, SecurityPolicy, BrowseDirection, StatusCodes } = require("node-opcua");

const id = (path) => "ns=1;s=PubSub." + path;

async function main() {
    const client = OPCUAClient.create({
        endpointMustExist: false,
        securityMode: MessageSecurityMode.None,
        securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 3, initialDelay: 200, maxDelay: 1000 }
    });
    await client.connect(endpoint);
    const session = await client.createSession();
    const browse = async (nodeId, referenceTypeId) => {
        const r = await session.browse({ nodeId, referenceTypeId, browseDirection: BrowseDirection.Forward, includeSubtypes: true,
                                         resultMask: 63 });
        if (r.statusCode.value !== 0) fail("browse " + nodeId + ": " + r.statusCode.toString());
        return r.references;
    };
    const named = (refs, name) => refs.find((r) => r.browseName.name === name);
    const read = async (nodeId) => {
        const v = await session.read({ nodeId, attributeId: AttributeIds.Value });
        if (v.statusCode.value !== 0) fail("read " + nodeId + ": " + v.statusCode.toString());
        return v.value.value;
    };
    const state = (path) => read(id(path + ".Status.State"));

    // The connections (HasPubSubConnection, i=14476) and their type.
    const conns = await browse("ns=0;i=14443", "ns=0;i=14476");
    for (const name of ["broker", "udp"]) {
        const c = named(conns, name);
        if (!c) fail("PublishSubscribe has no connection " + name + ": " + conns.map((r) => r.browseName.name).join(","));
        if (c.typeDefinition.toString() !== "ns=0;i=14209") fail(name + " TypeDefinition " + c.typeDefinition.toString());
    }
    out("ok   PublishSubscribe: connections broker and udp (PubSubConnectionType)");

    if (phase === "up") {
        const groups = await browse(id("broker"), "ns=0;i=18804");
        if (!named(groups, "Dynamic")) fail("broker has no WriterGroup Dynamic");
        if (!named(await browse(id("broker.Dynamic"), "ns=0;i=15296"), "Demo")) fail("Dynamic has no DataSetWriter Demo");
        if (!named(await browse(id("broker"), "ns=0;i=18805"), "ReaderGroup")) fail("broker has no ReaderGroup");
        if (!named(await browse(id("broker.ReaderGroup"), "ns=0;i=15297"), "Back")) fail("broker's ReaderGroup has no DataSetReader Back");
        out("ok   HasWriterGroup Dynamic, HasDataSetWriter Demo, HasReaderGroup, HasDataSetReader Back");
        for (const p of ["broker", "broker.Dynamic", "broker.Dynamic.Demo", "broker.ReaderGroup", "broker.ReaderGroup.Back",
                         "udp", "udp.ReaderGroup.BackUdp"]) {
            const s = await state(p);
            if (s !== 2) fail(p + " State " + s + " (Operational is 2)");
        }
        if ((await read("ns=0;i=17406")) !== 2) fail("PublishSubscribe's State is not Operational");
        out("ok   Status State Operational: the connections, group, writer, readers, and PublishSubscribe");
        const sent = await read(id("broker.Dynamic.Diagnostics.Counters.SentNetworkMessages"));
        const received = await read(id("broker.ReaderGroup.Diagnostics.Counters.ReceivedNetworkMessages"));
        const wgid = await read(id("broker.Dynamic.WriterGroupId"));
        if (!(sent > 3) || !(received > 3)) fail("counters: SentNetworkMessages " + sent + ", ReceivedNetworkMessages " + received);
        out("ok   Diagnostics: SentNetworkMessages " + sent + ", ReceivedNetworkMessages " + received + ", WriterGroupId " + wgid);
        // The PublishedDataSet and its DataSetMetaData (an ExtensionObject node-opcua decodes).
        const pds = named(await browse("ns=0;i=17371", "ns=0;i=47"), "Demo");
        if (!pds) fail("PublishedDataSets has no Demo");
        if (pds.typeDefinition.toString() !== "ns=0;i=14534") fail("Demo TypeDefinition " + pds.typeDefinition.toString());
        const meta = await read("ns=1;s=PubSub.DataSets.broker.Dynamic.Demo.DataSetMetaData");
        const names = (meta.fields || []).map((f) => f.name).sort().join(",");
        if (names !== "Counter,Sine,Time") fail("DataSetMetaData fields " + names + " " + JSON.stringify(meta));
        const published = await read("ns=1;s=PubSub.DataSets.broker.Dynamic.Demo.PublishedData");
        if (!Array.isArray(published) || published.length !== 3 || published[0].attributeId !== 13)
            fail("PublishedData " + JSON.stringify(published));
        out("ok   PublishedDataSets/Demo: PublishedDataItemsType, DataSetMetaData fields " + names + ", 3 PublishedData");
        // Disable without ConfigureAdmin.
        const r = await session.call({ objectId: id("broker.Status"), methodId: "ns=0;i=14646", inputArguments: [] });
        if (r.statusCode.value !== StatusCodes.BadUserAccessDenied.value) fail("anonymous Disable: " + r.statusCode.toString());
        if ((await state("broker")) !== 2) fail("broker not Operational after a refused Disable");
        out("ok   Disable called anonymously: BadUserAccessDenied, the connection still Operational");
    } else {
        const s = await state("broker");
        if (s !== 3) fail("broker State " + s + " without the broker (Error is 3)");
        for (const p of ["broker.Dynamic", "broker.Dynamic.Demo", "broker.ReaderGroup.Back"]) {
            const c = await state(p);
            if (c !== 1) fail(p + " State " + c + " (Paused is 1)");
        }
        const errors = await read(id("broker.Diagnostics.Counters.StateError"));
        if (!(errors >= 1)) fail("broker StateError " + errors);
        if ((await state("udp")) !== 2 || (await state("udp.ReaderGroup.BackUdp")) !== 2) fail("udp not Operational");
        out("ok   broker gone: the connection in Error (StateError " + errors + "), its group, writer and reader Paused; udp Operational");
    }
    await session.close();
    await client.disconnect();
    out("done");
    process.exit(0);
}

main().catch((e) => fail(e.stack || String(e)));
