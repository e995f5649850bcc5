#!/usr/bin/env node
// A node-opcua server that serves the demo namespace of docs/demo-namespace.md, so that our
// client (and tests/interop/node_client.js) can be checked against another stack.
//
//   node node_server.js [--port N] [--writer-interval MS] [--events MS] [--alarms] [--max-seconds S]
//
//   --port N             0 (default) = a free port, found before the server starts
//                        (node-opcua writes the port into its endpoint descriptions before it
//                        listens, so it cannot be told port 0)
//   --writer-interval MS how often Demo.Dynamic.* change (default 1000)
//   --events MS          the Server object raises a BaseEventType event every MS ms (default 0:
//                        none): "minor event N" with Severity 300 and "major event N" with
//                        Severity 800 in turn, SourceName "uactor-interop"
//   --alarms             node-opcua's own Part 9 alarms (addressSpace.installAlarmsAndConditionsService):
//                        ns=1;s=Tank (an event notifier of the Server object) with ns=1;s=Tank.Level
//                        (Double, writable, 50) and ns=1;s=Tank.Level.Alarm, an
//                        ExclusiveLimitAlarmType on it (HighHigh 90, High 70, Low 20, LowLow 10, with
//                        ConfirmedState and Confirm); a client's Write of the level drives it
//                        (tests/interop/client_alarms_interop.sh); the same for ns=1;s=Tank2.Level
//                        and ns=1;s=Tank3.Level
//   --max-seconds S      exit by itself after S seconds (default 600) so that a test run
//                        can never hang on it
//   --standby            initialise (seconds: the nodeset), then listen only once a line comes
//                        on stdin: the replacement of a killed server, on its port within
//                        milliseconds (tests/interop/node_mirror_check.js)
//
// Listens on 127.0.0.1 only, SecurityPolicy None, anonymous. Prints exactly one line on stdout
// once it listens: `listening on opc.tcp://127.0.0.1:PORT`; node-opcua's own log lines go to
// stderr. Exits 0 on SIGTERM/SIGINT and at --max-seconds, 1 when it cannot start.
//
// node-opcua checks the Call arguments itself (count, types); see answerCallsAsTheSpecSays
// for the two answers corrected here.
//
// The table of static variables is exported (require("./node_server.js").staticVariables) so
// that node_client.js checks the very values this server serves.
"use strict";

const util = require("util");

// node-opcua logs with console.log; stdout carries only our `listening on` line.
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;

const fs = require("fs");
const net = require("net");
const os = require("os");
const path = require("path");

const {
    OPCUAServer,
    OPCUACertificateManager,
    nodesets,
    Variant,
    DataType,
    VariantArrayType,
    StatusCodes,
    SecurityPolicy,
    MessageSecurityMode,
    LocalizedText,
    QualifiedName,
    ExpandedNodeId,
    NodeIdType,
    coerceNodeId,
    coerceInt64,
    coerceUInt64,
    NodeClass,
    Argument
} = require("node-opcua");

const DEMO_NAMESPACE_URI = "urn:uactor:demo";

// The static variables of docs/demo-namespace.md: name, DataType NodeId (ns=0), the Variant
// DataType of the value, the scalar value and the array value. Built fresh on each call (the
// values are objects the server may keep).
function staticVariables() {
    const guid = "72962B91-FA75-4AE6-8D28-B404DC7DAF63";
    const answer = coerceNodeId("ns=1;s=the.answer");
    const answerX = new ExpandedNodeId(NodeIdType.STRING, "the.answer", 1);
    return [
        { name: "Boolean", dataTypeId: 1, dataType: DataType.Boolean, scalar: true, array: [true, false, true] },
        { name: "SByte", dataTypeId: 2, dataType: DataType.SByte, scalar: -100, array: [-128, 0, 127] },
        { name: "Byte", dataTypeId: 3, dataType: DataType.Byte, scalar: 200, array: [0, 128, 255] },
        { name: "Int16", dataTypeId: 4, dataType: DataType.Int16, scalar: -30000, array: [-32768, 0, 32767] },
        { name: "UInt16", dataTypeId: 5, dataType: DataType.UInt16, scalar: 60000, array: [0, 1, 65535] },
        {
            name: "Int32", dataTypeId: 6, dataType: DataType.Int32,
            scalar: -2000000000, array: [-2147483648, 0, 2147483647]
        },
        { name: "UInt32", dataTypeId: 7, dataType: DataType.UInt32, scalar: 4000000000, array: [0, 1, 4294967295] },
        {
            name: "Int64", dataTypeId: 8, dataType: DataType.Int64,
            scalar: coerceInt64("-9000000000000000000"),
            array: ["-9223372036854775808", "0", "9223372036854775807"].map((s) => coerceInt64(s))
        },
        {
            name: "UInt64", dataTypeId: 9, dataType: DataType.UInt64,
            scalar: coerceUInt64("18000000000000000000"),
            array: ["0", "1", "18446744073709551615"].map((s) => coerceUInt64(s))
        },
        { name: "Float", dataTypeId: 10, dataType: DataType.Float, scalar: 3.5, array: [-1.5, 0, 1.5] },
        {
            name: "Double", dataTypeId: 11, dataType: DataType.Double,
            scalar: 2.718281828459045, array: [-1.25, 0, 1.25]
        },
        { name: "String", dataTypeId: 12, dataType: DataType.String, scalar: "uactor", array: ["a", "", "ü"] },
        {
            name: "DateTime", dataTypeId: 13, dataType: DataType.DateTime,
            scalar: new Date("2026-01-01T00:00:00Z"),
            array: [new Date("2000-01-01T00:00:00Z"), new Date("2026-01-01T00:00:00Z")]
        },
        {
            name: "Guid", dataTypeId: 14, dataType: DataType.Guid,
            scalar: guid, array: ["00000000-0000-0000-0000-000000000000", guid]
        },
        {
            name: "ByteString", dataTypeId: 15, dataType: DataType.ByteString,
            scalar: Buffer.from([1, 2, 3, 4]), array: [Buffer.from([0]), Buffer.from([0xff, 0xfe])]
        },
        {
            name: "XmlElement", dataTypeId: 16, dataType: DataType.XmlElement,
            scalar: "<a>uactor</a>", array: ["<a/>", "<b/>"]
        },
        {
            name: "NodeId", dataTypeId: 17, dataType: DataType.NodeId,
            scalar: answer, array: [coerceNodeId("i=85"), coerceNodeId("ns=1;i=1000")]
        },
        {
            name: "ExpandedNodeId", dataTypeId: 18, dataType: DataType.ExpandedNodeId,
            scalar: answerX,
            array: [new ExpandedNodeId(NodeIdType.NUMERIC, 85, 0), new ExpandedNodeId(NodeIdType.NUMERIC, 1000, 1)]
        },
        {
            name: "StatusCode", dataTypeId: 19, dataType: DataType.StatusCode,
            scalar: StatusCodes.BadNodeIdUnknown, array: [StatusCodes.Good, StatusCodes.BadNodeIdUnknown]
        },
        {
            name: "QualifiedName", dataTypeId: 20, dataType: DataType.QualifiedName,
            scalar: new QualifiedName({ namespaceIndex: 1, name: "uactor" }),
            array: [new QualifiedName({ namespaceIndex: 0, name: "a" }), new QualifiedName({ namespaceIndex: 1, name: "b" })]
        },
        {
            name: "LocalizedText", dataTypeId: 21, dataType: DataType.LocalizedText,
            scalar: new LocalizedText({ locale: "en", text: "uactor" }),
            array: [new LocalizedText({ locale: "en", text: "one" }), new LocalizedText({ locale: "de", text: "zwei" })]
        },
        {
            // DataType BaseDataType (i=24): the value is a Variant of any type (Part 3 §8.x).
            name: "Variant", dataTypeId: 24, dataType: DataType.Variant,
            scalar: new Variant({ dataType: DataType.Int32, value: 7 }),
            array: [new Variant({ dataType: DataType.Int32, value: 1 }), new Variant({ dataType: DataType.String, value: "two" })]
        }
    ];
}

// A scalar Variant for a table entry; a BaseDataType scalar is the inner Variant itself.
function scalarVariant(v) {
    if (v.dataType === DataType.Variant) {
        return new Variant({ dataType: v.scalar.dataType, arrayType: VariantArrayType.Scalar, value: v.scalar.value });
    }
    // arrayType given: node-opcua cannot tell an Int64 [high, low] pair from an array.
    return new Variant({ dataType: v.dataType, arrayType: VariantArrayType.Scalar, value: v.scalar });
}

function arrayVariant(v) {
    return new Variant({ dataType: v.dataType, arrayType: VariantArrayType.Array, value: v.array });
}

function parseArgs(argv) {
    const opts = { port: 0, writerInterval: 1000, events: 0, alarms: false, maxSeconds: 600, standby: false };
    for (let i = 0; i < argv.length; ++i) {
        const a = argv[i];
        const next = () => {
            if (i + 1 >= argv.length) {
                throw new Error(a + " needs a value");
            }
            const n = Number(argv[++i]);
            if (!Number.isFinite(n) || n < 0) {
                throw new Error(a + ": not a number >= 0: " + argv[i]);
            }
            return n;
        };
        if (a === "--port") {
            opts.port = next();
        } else if (a === "--writer-interval") {
            opts.writerInterval = next();
        } else if (a === "--events") {
            opts.events = next();
        } else if (a === "--max-seconds") {
            opts.maxSeconds = next();
        } else if (a === "--alarms") {
            opts.alarms = true;
        } else if (a === "--standby") {
            opts.standby = true;
        } else {
            throw new Error("unknown argument: " + a);
        }
    }
    if (opts.writerInterval <= 0) {
        throw new Error("--writer-interval must be > 0");
    }
    return opts;
}

function freePort() {
    return new Promise((resolve, reject) => {
        const s = net.createServer();
        s.on("error", reject);
        s.listen(0, "127.0.0.1", () => {
            const port = s.address().port;
            s.close(() => resolve(port));
        });
    });
}

const RW = "CurrentRead | CurrentWrite";
const RO = "CurrentRead";

// Argument properties built by hand (not by addMethod's inputArguments) so that their NodeIds and
// ArrayDimensions ([0]) are those of docs/demo-namespace.md.
function addArgumentsProperty(ns, method, browseName, nodeId, args) {
    const value = new Variant({
        dataType: DataType.ExtensionObject,
        arrayType: VariantArrayType.Array,
        value: args.map((a) => new Argument({ name: a.name, dataType: a.dataType, valueRank: -1, arrayDimensions: null }))
    });
    const prop = ns.addVariable({
        propertyOf: method,
        nodeId: nodeId,
        browseName: { name: browseName, namespaceIndex: 0 },
        typeDefinition: "PropertyType",
        dataType: "Argument",
        valueRank: 1,
        arrayDimensions: [0],
        accessLevel: RO,
        userAccessLevel: RO,
        minimumSamplingInterval: -1,
        modellingRule: "Mandatory"
    });
    prop.setValueFromSource(value);
    return prop;
}

function addMethod(ns, parent, nodeId, browseName, argNodeIdBase, inputs, outputs, fn) {
    const method = ns.addMethod(parent, { nodeId: nodeId, browseName: browseName });
    addArgumentsProperty(ns, method, "InputArguments", argNodeIdBase + ".InputArguments", inputs);
    addArgumentsProperty(ns, method, "OutputArguments", argNodeIdBase + ".OutputArguments", outputs);
    method.bindMethod((inputArguments, context, callback) => {
        // node-opcua has checked the count and types against InputArguments already.
        const out = fn(inputArguments.map((v) => v.value));
        callback(null, {
            statusCode: StatusCodes.Good,
            outputArguments: out.map((o, i) => new Variant({ dataType: outputs[i].dataType, value: o }))
        });
    });
    return method;
}

function buildNamespace(addressSpace, writerInterval) {
    const ns = addressSpace.registerNamespace(DEMO_NAMESPACE_URI);
    if (ns.index !== 1) {
        throw new Error(DEMO_NAMESPACE_URI + " got namespace index " + ns.index + ", not 1");
    }
    const objects = addressSpace.rootFolder.objects;

    const demo = ns.addFolder(objects, { nodeId: "s=Demo", browseName: "Demo" });
    const stat = ns.addFolder(demo, { nodeId: "s=Demo.Static", browseName: "Static" });
    const scalar = ns.addFolder(stat, { nodeId: "s=Demo.Static.Scalar", browseName: "Scalar" });
    const array = ns.addFolder(stat, { nodeId: "s=Demo.Static.Array", browseName: "Array" });
    const dyn = ns.addFolder(demo, { nodeId: "s=Demo.Dynamic", browseName: "Dynamic" });
    const methods = ns.addObject({
        componentOf: demo, nodeId: "s=Demo.Methods", browseName: "Methods", typeDefinition: "BaseObjectType"
    });
    const interop = ns.addObject({
        organizedBy: objects, nodeId: "i=1000", browseName: "InteropTests", typeDefinition: "BaseObjectType"
    });

    for (const v of staticVariables()) {
        const dataType = coerceNodeId(v.dataTypeId);
        const s = ns.addVariable({
            componentOf: scalar, nodeId: "s=Demo.Static.Scalar." + v.name, browseName: v.name,
            typeDefinition: "BaseDataVariableType", dataType: dataType, valueRank: -1,
            accessLevel: RW, userAccessLevel: RW, minimumSamplingInterval: 0
        });
        s.setValueFromSource(scalarVariant(v));
        const a = ns.addVariable({
            componentOf: array, nodeId: "s=Demo.Static.Array." + v.name, browseName: v.name,
            typeDefinition: "BaseDataVariableType", dataType: dataType, valueRank: 1, arrayDimensions: [0],
            accessLevel: RW, userAccessLevel: RW, minimumSamplingInterval: 0
        });
        a.setValueFromSource(arrayVariant(v));
    }

    const dynamic = {};
    const addDynamic = (name, dataTypeName) => {
        dynamic[name] = ns.addVariable({
            componentOf: dyn, nodeId: "s=Demo.Dynamic." + name, browseName: name,
            typeDefinition: "BaseDataVariableType", dataType: dataTypeName, valueRank: -1,
            accessLevel: RO, userAccessLevel: RO, minimumSamplingInterval: 0
        });
    };
    addDynamic("Counter", "UInt32");
    addDynamic("Sine", "Double");
    addDynamic("Time", "DateTime");
    let tick = 0;
    const write = () => {
        dynamic.Counter.setValueFromSource(new Variant({ dataType: DataType.UInt32, value: tick }));
        dynamic.Sine.setValueFromSource(new Variant({ dataType: DataType.Double, value: Math.sin(2 * Math.PI * tick / 60) }));
        dynamic.Time.setValueFromSource(new Variant({ dataType: DataType.DateTime, value: new Date() }));
    };
    write();
    const writer = setInterval(() => {
        tick = (tick + 1) >>> 0;
        write();
    }, writerInterval);

    const theAnswer = ns.addVariable({
        componentOf: demo, nodeId: "s=the.answer", browseName: "the.answer",
        typeDefinition: "BaseDataVariableType", dataType: "Int32", valueRank: -1,
        accessLevel: RO, userAccessLevel: RO, minimumSamplingInterval: 0
    });
    theAnswer.setValueFromSource(new Variant({ dataType: DataType.Int32, value: 43 }));

    const D = DataType;
    addMethod(ns, methods, "s=Demo.Methods.Add", "Add", "s=Demo.Methods.Add",
        [{ name: "a", dataType: D.Double }, { name: "b", dataType: D.Double }],
        [{ name: "sum", dataType: D.Double }],
        (i) => [i[0] + i[1]]);
    addMethod(ns, methods, "s=Demo.Methods.Echo", "Echo", "s=Demo.Methods.Echo",
        [{ name: "text", dataType: D.String }, { name: "number", dataType: D.Int32 }],
        [{ name: "text", dataType: D.String }, { name: "number", dataType: D.Int32 }],
        (i) => [i[0], i[1]]);
    addMethod(ns, interop, "i=62541", "HelloWorld", "s=HelloWorld",
        [{ name: "name", dataType: D.String }],
        [{ name: "greeting", dataType: D.String }],
        (i) => ["Hello " + i[0]]);
    return writer;
}

// Two Call answers of node-opcua corrected to those of Part 4 §5.11.2 (which our server and
// docs/demo-namespace.md follow):
// - a method that is not a component of the object (nor declared on a type): node-opcua calls it anyway; the spec says
//   Bad_MethodInvalid ("the method id does not refer to a method for the specified object");
// - an input argument of the wrong type: node-opcua answers Bad_TypeMismatch as the method's
//   status; the spec says Bad_InvalidArgument, with Bad_TypeMismatch in inputArgumentResults.
// Events for our client's `subscribe --events` (tests/interop/cli_events_interop.sh): one every
// `interval` ms from the Server object, minor (300) and major (800) in turn. Returns the timer.
function raiseEventsEvery(addressSpace, interval) {
    if (!interval) return null;
    const serverObject = addressSpace.rootFolder.objects.server;
    let n = 0;
    return setInterval(() => {
        ++n;
        const major = n % 2 === 0;
        serverObject.raiseEvent("BaseEventType", {
            sourceName: { dataType: DataType.String, value: "uactor-interop" },
            message: { dataType: DataType.LocalizedText, value: { locale: "en", text: (major ? "major" : "minor") + " event " + n } },
            severity: { dataType: DataType.UInt16, value: major ? 800 : 300 }
        });
    }, interval);
}

// node-opcua's ExclusiveLimitAlarmType on a tank level that clients write (--alarms). node-opcua
// evaluates the limits on each change of the input and implements the Part 9 methods itself.
function buildAlarms(addressSpace) {
    addressSpace.installAlarmsAndConditionsService();
    const ns = addressSpace.getNamespace(DEMO_NAMESPACE_URI);
    const objects = addressSpace.rootFolder.objects;
    const tank = ns.addObject({
        nodeId: "s=Tank", browseName: "Tank", organizedBy: objects, eventNotifier: 0x01, notifierOf: objects.server
    });
    // Tank.Level for the scenario of one alarm; Tank2 and Tank3 beside it for the refresh after a
    // reconnect, which needs three.
    for (const name of ["Tank", "Tank2", "Tank3"]) {
        const level = ns.addVariable({
            nodeId: `s=${name}.Level`, browseName: `${name}Level`, componentOf: tank, eventSourceOf: tank,
            dataType: "Double", accessLevel: RW, userAccessLevel: RW, minimumSamplingInterval: 0,
            value: { dataType: DataType.Double, value: 50 }
        });
        ns.instantiateExclusiveLimitAlarm("ExclusiveLimitAlarmType", {
            nodeId: `s=${name}.Level.Alarm`, browseName: `${name}LevelAlarm`, conditionName: `${name}LevelAlarm`,
            componentOf: tank, conditionSource: level, inputNode: level,
            highHighLimit: 90, highLimit: 70, lowLimit: 20, lowLowLimit: 10,
            optionals: ["ConfirmedState", "Confirm"]
        });
    }
}

function answerCallsAsTheSpecSays(addressSpace, accessor) {
    const callMethod = accessor.callMethod.bind(accessor);
    accessor.callMethod = async (context, methodToCall) => {
        const object = addressSpace.findNode(methodToCall.objectId);
        const method = addressSpace.findNode(methodToCall.methodId);
        // A method declared on a type may be called on its instances by the type's MethodId (Part 9
        // §5.7.3: Acknowledge i=9111 on a ConditionId; node-opcua runs it on the object).
        const declaredOnType = method && method.parent && method.parent.nodeClass === NodeClass.ObjectType;
        if (object && object.nodeClass === NodeClass.Object && method && method.nodeClass === NodeClass.Method &&
            !declaredOnType && !object.getMethodById(methodToCall.methodId)) {
            return { statusCode: StatusCodes.BadMethodInvalid };
        }
        const result = await callMethod(context, methodToCall);
        if (result && result.statusCode && result.statusCode.equals(StatusCodes.BadTypeMismatch) &&
            Array.isArray(result.inputArgumentResults) &&
            result.inputArgumentResults.some((r) => r.equals(StatusCodes.BadTypeMismatch))) {
            result.statusCode = StatusCodes.BadInvalidArgument;
        }
        return result;
    };
}

// A node-opcua server on 127.0.0.1:PORT, SecurityPolicy None, anonymous, namespace 1 left to the
// caller; NAME makes its ApplicationUri urn:HOST:uactor:NAME, TITLE is its ApplicationName. Its PKI (node-opcua makes a
// self-signed server certificate even for policy None) goes into a temporary folder, never into
// the user's home: removePki() deletes it. `options` adds to or overrides the server's options.
function newLocalServer(port, name, title, options) {
    const pki = fs.mkdtempSync(path.join(os.tmpdir(), "uactor-" + name + "-"));
    const removePki = () => fs.rmSync(pki, { recursive: true, force: true });
    const server = new OPCUAServer({
        port: port,
        host: "127.0.0.1",
        hostname: "127.0.0.1",
        securityPolicies: [SecurityPolicy.None],
        securityModes: [MessageSecurityMode.None],
        allowAnonymous: true,
        // Our namespace must be index 1: node-opcua would otherwise register its application
        // URI there.
        skipOwnNamespace: true,
        nodeset_filename: [nodesets.standard],
        serverCertificateManager: new OPCUACertificateManager({
            rootFolder: path.join(pki, "PKI"), automaticallyAcceptUnknownCertificate: true
        }),
        userCertificateManager: new OPCUACertificateManager({
            rootFolder: path.join(pki, "UserPKI"), automaticallyAcceptUnknownCertificate: true
        }),
        serverInfo: {
            applicationUri: "urn:" + os.hostname() + ":uactor:" + name,
            productUri: "urn:uactor:" + name,
            applicationName: { text: title, locale: "en" }
        },
        ...options
    });
    return { server, removePki };
}

// Stops `server` on SIGINT, SIGTERM and after maxSeconds: onStop() first, then a shutdown bounded
// to 3 s, the PKI removed, exit 0. Returns a function that says whether it is stopping.
function stopOnSignals(server, removePki, maxSeconds, onStop) {
    let stopping = false;
    const stop = (why) => {
        if (stopping) {
            return;
        }
        stopping = true;
        process.stderr.write("node-opcua server: stopping (" + why + ")\n");
        onStop();
        const exit = () => {
            removePki();
            process.exit(0);
        };
        setTimeout(exit, 3000).unref();  // a shutdown that hangs still ends the process
        server.shutdown(0).then(exit, exit);
    };
    process.on("SIGINT", () => stop("SIGINT"));
    process.on("SIGTERM", () => stop("SIGTERM"));
    // Unref'ed so that it keeps nothing alive by itself; the server does.
    setTimeout(() => stop("--max-seconds " + maxSeconds), maxSeconds * 1000).unref();
    return () => stopping;
}

async function main() {
    let opts;
    try {
        opts = parseArgs(process.argv.slice(2));
    } catch (err) {
        process.stderr.write("node_server: " + err.message + "\n");
        process.exit(2);
    }
    const port = opts.port || (await freePort());

    const { server, removePki } = newLocalServer(port, "node-server", "uactor interop node-opcua server", {
        buildInfo: { productName: "uactor interop node-opcua server" },
        // A sampling interval of 0 then means every change (exception-based), as in our server and
        // node-opcua before 2.183; with the default (50 ms) 2.186 coalesces changes over that window.
        serverCapabilities: { minSupportedSampleRate: 0 },
        // Our client's TransferSubscriptions is tested between two anonymous sessions over None;
        // 2.183+ refuse that by default (Part 4 §5.13.7: Sign or SignAndEncrypt and the same
        // ApplicationUri for an anonymous transfer), as 2.163 did not.
        allowAnonymousSubscriptionTransferOnUnsecuredChannel: true
    });

    let writer = null;
    let events = null;
    const stopping = stopOnSignals(server, removePki, opts.maxSeconds, () => {
        if (writer) {
            clearInterval(writer);
        }
        if (events) {
            clearInterval(events);
        }
    });

    try {
        await server.initialize();
        writer = buildNamespace(server.engine.addressSpace, opts.writerInterval);
        answerCallsAsTheSpecSays(server.engine.addressSpace, server.engine.addressSpaceAccessor);
        if (opts.alarms) {
            buildAlarms(server.engine.addressSpace);
        }
        if (opts.standby) {
            await new Promise((resolve) => process.stdin.once("data", resolve));
            process.stdin.pause();
        }
        await server.start();
        events = raiseEventsEvery(server.engine.addressSpace, opts.events);
    } catch (err) {
        process.stderr.write("node_server: cannot start: " + (err && err.stack ? err.stack : err) + "\n");
        removePki();
        process.exit(1);
    }
    if (stopping()) {
        return;
    }
    process.stdout.write("listening on opc.tcp://127.0.0.1:" + port + "\n");
}

module.exports = { staticVariables, DEMO_NAMESPACE_URI, raiseEventsEvery, freePort, newLocalServer, stopOnSignals };

if (require.main === module) {
    main();
}
