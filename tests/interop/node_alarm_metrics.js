#!/usr/bin/env node
// node-opcua's client against `uactor run --config examples/config/alarms.toml`
// (alarms_config_interop.sh): alarm groups and AlarmMetrics (Part 9 §8), and the deviation and
// rate-of-change alarms' own properties (§5.8.22, §5.8.23), read by a client we did not write.
//
//   node node_alarm_metrics.js opc.tcp://127.0.0.1:PORT [--timeout S]
//
// Checks, printing `ok ...` per step and `done` at the end (exit 0); `FAIL <why>` and exit 1 otherwise:
//   - the Operator group (AlarmGroupType) browses over AlarmGroupMember to its three conditions;
//   - the Server object has an AlarmMetrics component (AlarmMetricsType); its AlarmCount and the
//     Operator group's grow while the file's writers drive the alarms; the rates have Rate 10;
//   - Reset on the group's AlarmMetrics (the type's method i=18666, as the Object references it)
//     answers Good: StartTime moves to now and AlarmCount drops below what it was;
//   - the deviation alarm's SetpointNode is Tank.Setpoint, the rate alarm's EngineeringUnits is the
//     file's EUInformation, and their type definitions are the Part 9 types.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;
console.warn = console.log;

const { OPCUAClient, AttributeIds, BrowseDirection, MessageSecurityMode, SecurityPolicy, StatusCodes, NodeClassMask } =
    require("node-opcua");

const args = process.argv.slice(2);
if (args.length < 1 || !args[0].startsWith("opc.tcp://")) {
    process.stderr.write("usage: node node_alarm_metrics.js opc.tcp://HOST:PORT [--timeout S]\n");
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
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

(async () => {
    const client = OPCUAClient.create({
        endpointMustExist: false,
        securityMode: MessageSecurityMode.None,
        securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 3, initialDelay: 200 }
    });
    await client.connect(endpoint);
    const session = await client.createSession();
    const read = async (nodeId, attributeId = AttributeIds.Value) => {
        const dv = await session.read({ nodeId, attributeId });
        if (dv.statusCode.value !== 0) fail(`read ${nodeId}: ${dv.statusCode.toString()}`);
        return dv.value.value;
    };
    const typeOf = async (nodeId) => {
        const r = await session.browse({ nodeId, referenceTypeId: "i=40", browseDirection: BrowseDirection.Forward });
        return r.references.map((x) => x.nodeId.toString());
    };

    // The group and its members (AlarmGroupMember i=16362).
    const members = await session.browse({ nodeId: "ns=2;s=Operator", referenceTypeId: "i=16362",
                                           browseDirection: BrowseDirection.Forward, includeSubtypes: false,
                                           nodeClassMask: NodeClassMask.Object });
    const ids = members.references.map((x) => x.nodeId.toString()).sort();
    const want = ["ns=2;s=Tank.Level.Alarm", "ns=2;s=Tank.Level.Deviation", "ns=2;s=Tank.Level.Rate"];
    if (JSON.stringify(ids) !== JSON.stringify(want)) fail("Operator's members: " + JSON.stringify(ids));
    if (!(await typeOf("ns=2;s=Operator")).includes("ns=0;i=16405")) fail("Operator is no AlarmGroupType");
    out("ok the Operator group browses to its three alarms over AlarmGroupMember");

    // The Server's AlarmMetrics: a component of the Server object (browsed from the metrics Object
    // inversely: the Server object's components span more than one Browse answer).
    const serverMetrics = "ns=1;s=Server.AlarmMetrics";
    const owner = await session.browse({ nodeId: serverMetrics, referenceTypeId: "i=47", browseDirection: BrowseDirection.Inverse });
    if (!owner.references.some((x) => x.nodeId.toString() === "ns=0;i=2253")) fail("the Server object has no AlarmMetrics component");
    if ((await read(serverMetrics, AttributeIds.BrowseName)).name !== "AlarmMetrics") fail("the Server's AlarmMetrics' BrowseName");
    if (!(await typeOf(serverMetrics)).includes("ns=0;i=17279")) fail("the Server's AlarmMetrics is no AlarmMetricsType");
    const groupMetrics = "ns=2;s=Operator.AlarmMetrics";
    const first = await read(serverMetrics + ".AlarmCount");
    const firstGroup = await read(groupMetrics + ".AlarmCount");
    let count = first, groupCount = firstGroup;
    for (let i = 0; i < 40 && (count <= first || groupCount <= firstGroup); ++i) {
        await sleep(250);
        count = await read(serverMetrics + ".AlarmCount");
        groupCount = await read(groupMetrics + ".AlarmCount");
    }
    if (!(count > first && groupCount > firstGroup)) fail(`AlarmCount did not grow: ${first} -> ${count}, ${firstGroup} -> ${groupCount}`);
    if (!(count >= groupCount)) fail(`the Server counts fewer alarms (${count}) than a group (${groupCount})`);
    if ((await read(serverMetrics + ".CurrentAlarmRate.Rate")) !== 10) fail("CurrentAlarmRate's Rate is not 10");
    const rate = await read(serverMetrics + ".CurrentAlarmRate");
    if (!(rate > 0)) fail("CurrentAlarmRate " + rate);
    out(`ok AlarmCount grows: Server ${first} -> ${count}, Operator ${firstGroup} -> ${groupCount}; CurrentAlarmRate ${rate} per 10 min`);

    // Reset (i=18666) on the group's metrics.
    const before = await read(groupMetrics + ".StartTime");
    const countBefore = await read(groupMetrics + ".AlarmCount");
    const called = await session.call({ objectId: groupMetrics, methodId: "i=18666", inputArguments: [] });
    if (called.statusCode !== StatusCodes.Good) fail("Reset: " + called.statusCode.toString());
    const after = await read(groupMetrics + ".StartTime");
    const countAfter = await read(groupMetrics + ".AlarmCount");
    if (!(after.getTime() > before.getTime())) fail(`StartTime did not move: ${before.toISOString()} -> ${after.toISOString()}`);
    if (!(countAfter < countBefore)) fail(`AlarmCount after Reset ${countAfter}, before ${countBefore}`);
    const wrong = await session.call({ objectId: "ns=2;s=Operator", methodId: "i=18666", inputArguments: [] });
    if (wrong.statusCode !== StatusCodes.BadMethodInvalid) fail("Reset on the group itself: " + wrong.statusCode.toString());
    out(`ok Reset: StartTime ${before.toISOString()} -> ${after.toISOString()}, AlarmCount ${countBefore} -> ${countAfter}`);

    // The deviation and rate-of-change alarms' own properties and types.
    const setpoint = await read("ns=2;s=Tank.Level.Deviation.SetpointNode");
    if (setpoint.toString() !== "ns=2;s=Tank.Setpoint") fail("SetpointNode " + setpoint.toString());
    if (!(await typeOf("ns=2;s=Tank.Level.Deviation")).includes("ns=0;i=9764")) fail("the deviation alarm's type");
    if (!(await typeOf("ns=2;s=Tank.Level.Rate")).includes("ns=0;i=10214")) fail("the rate alarm's type");
    const eu = await read("ns=2;s=Tank.Level.Rate.EngineeringUnits");
    if (!eu || eu.unitId !== 5067859 || eu.displayName.text !== "per second") fail("EngineeringUnits " + JSON.stringify(eu));
    out("ok SetpointNode, EngineeringUnits and the Part 9 types of the deviation and rate-of-change alarms");

    await session.close();
    await client.disconnect();
    out("done");
    process.exit(0);
})().catch((e) => fail(e && e.stack ? e.stack : String(e)));
