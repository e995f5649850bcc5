#!/usr/bin/env node
// A node-opcua client that checks a server serving docs/demo-namespace.md (our `uactor run`,
// or tests/interop/node_server.js).
//
//   node node_client.js opc.tcp://127.0.0.1:PORT [--timeout S]
//
// Prints one line per step on stdout, `ok <step>` or `FAIL <step>: <why>`, then a summary line,
// and exits 0 only when every step passed (1 otherwise, 2 on bad usage). node-opcua's own log
// lines go to stderr. Bounded: after --timeout seconds (default 60) it prints
// `FAIL timeout: ...` and exits 1.
//
// Policy None and an anonymous session only (security comes later). Written values are put back
// at the end of the write step, so the client can run again against the same server.
"use strict";

const util = require("util");

// node-opcua logs with console.log; stdout carries only our step lines.
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;

const fs = require("fs");
const os = require("os");
const path = require("path");

const {
    OPCUAClient,
    OPCUACertificateManager,
    MessageSecurityMode,
    SecurityPolicy,
    UserTokenType,
    AttributeIds,
    BrowseDirection,
    NodeClass,
    Variant,
    DataType,
    VariantArrayType,
    StatusCodes,
    LocalizedText,
    QualifiedName,
    ExpandedNodeId,
    NodeIdType,
    coerceNodeId,
    coerceInt64,
    makeBrowsePath,
    ServerState
} = require("node-opcua");

const { staticVariables, DEMO_NAMESPACE_URI } = require("./node_server.js");

// ---- reporting -------------------------------------------------------------------------------

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

class CheckError extends Error {}

// Collects every problem of one step, so that one FAIL line says all that is wrong.
class Problems {
    constructor() {
        this.list = [];
    }
    add(msg) {
        this.list.push(msg);
    }
    check(cond, msg) {
        if (!cond) {
            this.add(typeof msg === "function" ? msg() : msg);
        }
        return cond;
    }
    throwIfAny() {
        if (this.list.length > 0) {
            const shown = this.list.slice(0, 12);
            if (this.list.length > shown.length) {
                shown.push("... " + (this.list.length - shown.length) + " more");
            }
            throw new CheckError(shown.join("; "));
        }
    }
}

async function step(name, fn) {
    try {
        const detail = await fn();
        ok(detail ? name + " (" + detail + ")" : name);
        return true;
    } catch (err) {
        fail(name, err instanceof CheckError ? err.message : (err && err.message) || err);
        return false;
    }
}

// ---- value comparison --------------------------------------------------------------------------

function sc(code) {
    return code && code.name ? code.name + " (0x" + (code.value >>> 0).toString(16).padStart(8, "0") + ")" : String(code);
}

function int64ToBig(v, signed) {
    const u = (BigInt(v[0] >>> 0) << 32n) | BigInt(v[1] >>> 0);
    return signed ? BigInt.asIntN(64, u) : u;
}

// Equality of one element of `dataType` as node-opcua decodes it.
function sameElement(dataType, a, b) {
    if (a === null || a === undefined || b === null || b === undefined) {
        return a === b;
    }
    switch (dataType) {
        case DataType.Float:
            return Math.fround(a) === Math.fround(b);
        case DataType.Int64:
            return int64ToBig(a, true) === int64ToBig(b, true);
        case DataType.UInt64:
            return int64ToBig(a, false) === int64ToBig(b, false);
        case DataType.DateTime:
            return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
        case DataType.Guid:
            return String(a).toUpperCase() === String(b).toUpperCase();
        case DataType.ByteString:
            return Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b);
        case DataType.NodeId:
            return coerceNodeId(a).toString() === coerceNodeId(b).toString();
        case DataType.ExpandedNodeId:
            return a.toString() === b.toString();
        case DataType.StatusCode:
            return (a.value >>> 0) === (b.value >>> 0);
        case DataType.QualifiedName:
            return a.namespaceIndex === b.namespaceIndex && a.name === b.name;
        case DataType.LocalizedText:
            return (a.locale || null) === (b.locale || null) && (a.text || null) === (b.text || null);
        case DataType.Variant:
            return a.dataType === b.dataType && a.arrayType === b.arrayType && sameValue(a.dataType, a.arrayType, a.value, b.value);
        default:
            return a === b;
    }
}

function sameValue(dataType, arrayType, a, b) {
    if (arrayType === VariantArrayType.Array) {
        if (!a || !b || a.length !== b.length) {
            return false;
        }
        for (let i = 0; i < a.length; ++i) {
            if (!sameElement(dataType, a[i], b[i])) {
                return false;
            }
        }
        return true;
    }
    return sameElement(dataType, a, b);
}

function show(dataType, v) {
    const one = (e) => {
        if (dataType === DataType.Int64 && Array.isArray(e)) {
            return int64ToBig(e, true).toString();
        }
        if (dataType === DataType.UInt64 && Array.isArray(e)) {
            return int64ToBig(e, false).toString();
        }
        if (Buffer.isBuffer(e)) {
            return "0x" + e.toString("hex");
        }
        if (e instanceof Date) {
            return e.toISOString();
        }
        if (e && e.constructor && e.constructor.name === "Variant") {
            return DataType[e.dataType] + " " + show(e.dataType, e.value);
        }
        if (e && e.name !== undefined && e.value !== undefined && dataType === DataType.StatusCode) {
            return sc(e);
        }
        if (typeof e === "string") {
            return JSON.stringify(e);
        }
        return e && e.toString ? e.toString() : String(e);
    };
    if ((Array.isArray(v) || ArrayBuffer.isView(v)) && !(dataType === DataType.Int64 || dataType === DataType.UInt64) ||
        (Array.isArray(v) && Array.isArray(v[0]))) {
        return "[" + Array.from(v).map(one).join(", ") + "]";
    }
    return one(v);
}

// Typed arrays (Int32Array, Float64Array, ...) are what node-opcua decodes numeric arrays into.
function plainArray(v) {
    return ArrayBuffer.isView(v) && !Buffer.isBuffer(v) ? Array.from(v) : v;
}

// Checks a read Variant against an expected Variant-like { dataType, arrayType, value }.
function checkVariant(p, what, got, want) {
    if (!got) {
        p.add(what + ": no value");
        return;
    }
    if (got.dataType !== want.dataType) {
        p.add(what + ": Variant type " + DataType[got.dataType] + ", expected " + DataType[want.dataType]);
        return;
    }
    if (got.arrayType !== want.arrayType) {
        p.add(what + ": Variant " + VariantArrayType[got.arrayType] + ", expected " + VariantArrayType[want.arrayType]);
        return;
    }
    const value = plainArray(got.value);
    if (!sameValue(want.dataType, want.arrayType, value, want.value)) {
        p.add(what + ": value " + show(want.dataType, value) + ", expected " + show(want.dataType, want.value));
    }
}

// An Argument array (Part 3 §8.6): name, DataType, ValueRank -1 for each declared argument.
function checkArguments(p, what, got, args) {
    if (!p.check(got.dataType === DataType.ExtensionObject && got.arrayType === VariantArrayType.Array,
        () => what + ": expected an array of ExtensionObject, got " + String(got))) {
        return;
    }
    const list = got.value || [];
    if (!p.check(list.length === args.length, () => what + ": " + list.length + " Arguments, expected " + args.length)) {
        return;
    }
    args.forEach(([name, dataType], k) => {
        const a = list[k];
        p.check(a && a.schema && a.schema.name === "Argument" && a.name === name &&
            a.dataType && a.dataType.toString() === coerceNodeId(dataType).toString() && a.valueRank === -1,
            () => what + "[" + k + "]: " + (a && a.schema ? a.schema.name + " " + a.name + " " +
                (a.dataType ? a.dataType.toString() : "?") + " rank " + a.valueRank : String(a)) +
                ", expected Argument " + name + " ns=0;i=" + dataType + " rank -1");
    });
}

// ---- the demo namespace, as docs/demo-namespace.md says ----------------------------------------

// Every variable with what a read must return: DataType, ValueRank, AccessLevel and a check of
// the value.
function expectedVariables() {
    const out = [];
    for (const v of staticVariables()) {
        const isVariant = v.dataType === DataType.Variant;
        out.push({
            nodeId: "ns=1;s=Demo.Static.Scalar." + v.name,
            dataTypeId: v.dataTypeId, valueRank: -1, accessLevel: 0x63,
            value: isVariant
                ? { dataType: v.scalar.dataType, arrayType: VariantArrayType.Scalar, value: v.scalar.value }
                : { dataType: v.dataType, arrayType: VariantArrayType.Scalar, value: v.scalar }
        });
        out.push({
            nodeId: "ns=1;s=Demo.Static.Array." + v.name,
            dataTypeId: v.dataTypeId, valueRank: 1, arrayDimensions: [0], accessLevel: 0x63,
            value: { dataType: v.dataType, arrayType: VariantArrayType.Array, value: v.array }
        });
    }
    const now = () => Date.now();
    out.push({
        nodeId: "ns=1;s=Demo.Dynamic.Counter", historized: true, dataTypeId: 7, valueRank: -1, accessLevel: 1,
        check: (p, what, got) => p.check(got.dataType === DataType.UInt32 && got.arrayType === VariantArrayType.Scalar &&
            Number.isInteger(got.value) && got.value >= 0, what + ": expected a UInt32 scalar, got " + String(got))
    });
    out.push({
        nodeId: "ns=1;s=Demo.Dynamic.Sine", historized: true, dataTypeId: 11, valueRank: -1, accessLevel: 1,
        check: (p, what, got) => p.check(got.dataType === DataType.Double && got.arrayType === VariantArrayType.Scalar &&
            got.value >= -1 && got.value <= 1, what + ": expected a Double scalar in [-1, 1], got " + String(got))
    });
    out.push({
        nodeId: "ns=1;s=Demo.Dynamic.Time", historized: true, dataTypeId: 13, valueRank: -1, accessLevel: 1,
        // The time of a writer tick: within a minute of this machine's clock (same machine).
        check: (p, what, got) => p.check(got.dataType === DataType.DateTime && got.value instanceof Date &&
            Math.abs(got.value.getTime() - now()) < 60000,
            what + ": expected a DateTime within 60 s of now, got " + String(got))
    });
    out.push({
        nodeId: "ns=1;s=the.answer", dataTypeId: 6, valueRank: -1, accessLevel: 1,
        value: { dataType: DataType.Int32, arrayType: VariantArrayType.Scalar, value: 43 }
    });
    // InputArguments / OutputArguments: arrays of Argument (i=296) ExtensionObjects.
    for (const m of METHODS) {
        for (const [prop, args] of [["InputArguments", m.inputs], ["OutputArguments", m.outputs]]) {
            out.push({
                nodeId: m.argumentsBase + "." + prop, dataTypeId: 296, valueRank: 1, arrayDimensions: [0],
                check: (p, what, got) => checkArguments(p, what, got, args)
            });
        }
    }
    return out;
}

// ---- the steps -----------------------------------------------------------------------------------

const REF_ORGANIZES = "ns=0;i=35";
const REF_HAS_COMPONENT = "ns=0;i=47";
const TYPE_FOLDER = "ns=0;i=61";
const TYPE_BASE_OBJECT = "ns=0;i=58";
const TYPE_BASE_DATA_VARIABLE = "ns=0;i=63";
const HIERARCHICAL = "ns=0;i=33";
const REF_HAS_PROPERTY = "ns=0;i=46";
const TYPE_PROPERTY = "ns=0;i=68";

// The methods of docs/demo-namespace.md and their arguments.
const METHODS = [
    {
        name: "Add", nodeId: "ns=1;s=Demo.Methods.Add", argumentsBase: "ns=1;s=Demo.Methods.Add",
        inputs: [["a", DataType.Double], ["b", DataType.Double]], outputs: [["sum", DataType.Double]]
    },
    {
        name: "Echo", nodeId: "ns=1;s=Demo.Methods.Echo", argumentsBase: "ns=1;s=Demo.Methods.Echo",
        inputs: [["text", DataType.String], ["number", DataType.Int32]],
        outputs: [["text", DataType.String], ["number", DataType.Int32]]
    },
    {
        name: "HelloWorld", nodeId: "ns=1;i=62541", argumentsBase: "ns=1;s=HelloWorld",
        inputs: [["name", DataType.String]], outputs: [["greeting", DataType.String]]
    }
];

function browseDescription(nodeId) {
    return {
        nodeId: nodeId,
        browseDirection: BrowseDirection.Forward,
        referenceTypeId: HIERARCHICAL,
        includeSubtypes: true,
        nodeClassMask: 0,
        resultMask: 0x3f
    };
}

async function browseAll(session, nodeId) {
    const result = await session.browse(browseDescription(nodeId));
    if (result.statusCode.isNotGood()) {
        throw new CheckError("Browse " + nodeId + ": " + sc(result.statusCode));
    }
    let refs = result.references || [];
    let cp = result.continuationPoint;
    for (let n = 0; cp && cp.length > 0; ++n) {
        if (n > 1000) {
            throw new CheckError("Browse " + nodeId + ": more than 1000 continuation points");
        }
        const next = await session.browseNext(cp, false);
        if (next.statusCode.isNotGood()) {
            throw new CheckError("BrowseNext " + nodeId + ": " + sc(next.statusCode));
        }
        refs = refs.concat(next.references || []);
        cp = next.continuationPoint;
    }
    return refs;
}

function findRef(refs, ns, name) {
    return refs.find((r) => r.browseName && r.browseName.namespaceIndex === ns && r.browseName.name === name);
}

// Checks one reference of a browse result; returns its target NodeId string.
function checkRef(p, refs, where, want) {
    const r = findRef(refs, want.ns, want.name);
    const label = where + "/" + want.ns + ":" + want.name;
    if (!r) {
        p.add(label + ": not among the " + refs.length + " references [" +
            refs.map((x) => x.browseName.toString()).join(", ") + "]");
        return null;
    }
    p.check(r.isForward, label + ": reference is not forward");
    if (want.nodeId) {
        p.check(r.nodeId.toString() === coerceNodeId(want.nodeId).toString(),
            () => label + ": NodeId " + r.nodeId.toString() + ", expected " + want.nodeId);
    }
    p.check(r.nodeClass === want.nodeClass,
        () => label + ": NodeClass " + NodeClass[r.nodeClass] + ", expected " + NodeClass[want.nodeClass]);
    if (want.typeDefinition) {
        p.check(r.typeDefinition && r.typeDefinition.toString() === coerceNodeId(want.typeDefinition).toString(),
            () => label + ": TypeDefinition " + (r.typeDefinition ? r.typeDefinition.toString() : "none") +
                ", expected " + want.typeDefinition);
    }
    if (want.referenceTypeId) {
        p.check(r.referenceTypeId && r.referenceTypeId.toString() === coerceNodeId(want.referenceTypeId).toString(),
            () => label + ": ReferenceType " + (r.referenceTypeId ? r.referenceTypeId.toString() : "none") +
                ", expected " + want.referenceTypeId);
    }
    if (want.displayName) {
        p.check(r.displayName && r.displayName.text === want.displayName,
            () => label + ": DisplayName " + (r.displayName ? JSON.stringify(r.displayName.text) : "none") +
                ", expected " + JSON.stringify(want.displayName));
    }
    return r.nodeId.toString();
}

async function stepGetEndpoints(client) {
    const endpoints = await client.getEndpoints();
    const p = new Problems();
    if (!p.check(endpoints && endpoints.length > 0, "no endpoints")) {
        p.throwIfAny();
    }
    const none = endpoints.filter((e) => e.securityMode === MessageSecurityMode.None &&
        e.securityPolicyUri === SecurityPolicy.None);
    p.check(none.length > 0, () => "no None/None endpoint among [" + endpoints.map((e) =>
        MessageSecurityMode[e.securityMode] + " " + e.securityPolicyUri).join(", ") + "]");
    for (const e of none) {
        p.check(/^opc\.tcp:\/\//.test(e.endpointUrl || ""), () => "endpointUrl " + JSON.stringify(e.endpointUrl));
        p.check(e.transportProfileUri === "http://opcfoundation.org/UA-Profile/Transport/uatcp-uasc-uabinary",
            () => "None endpoint: transportProfileUri " + JSON.stringify(e.transportProfileUri));
        const tokens = e.userIdentityTokens || [];
        p.check(tokens.some((t) => t.tokenType === UserTokenType.Anonymous),
            () => "None endpoint " + e.endpointUrl + " has no anonymous token policy (" +
                tokens.map((t) => UserTokenType[t.tokenType]).join(", ") + ")");
        p.check(e.server && e.server.applicationUri, "None endpoint: empty server.applicationUri");
    }
    p.throwIfAny();
    return endpoints.length + " endpoint(s), " + none[0].endpointUrl;
}

async function stepBrowse(session) {
    const p = new Problems();
    const rootRefs = await browseAll(session, "ns=0;i=84");
    const objects = checkRef(p, rootRefs, "Root", {
        ns: 0, name: "Objects", nodeId: "ns=0;i=85", nodeClass: NodeClass.Object,
        typeDefinition: TYPE_FOLDER, referenceTypeId: REF_ORGANIZES
    });
    if (!objects) {
        p.throwIfAny();
    }
    const objRefs = await browseAll(session, objects);
    const demo = checkRef(p, objRefs, "Objects", {
        ns: 1, name: "Demo", nodeId: "ns=1;s=Demo", nodeClass: NodeClass.Object,
        typeDefinition: TYPE_FOLDER, referenceTypeId: REF_ORGANIZES, displayName: "Demo"
    });
    checkRef(p, objRefs, "Objects", {
        ns: 1, name: "InteropTests", nodeId: "ns=1;i=1000", nodeClass: NodeClass.Object,
        typeDefinition: TYPE_BASE_OBJECT, referenceTypeId: REF_ORGANIZES
    });
    checkRef(p, objRefs, "Objects", {
        ns: 0, name: "Server", nodeId: "ns=0;i=2253", nodeClass: NodeClass.Object
    });
    if (!demo) {
        p.throwIfAny();
    }
    const demoRefs = await browseAll(session, demo);
    const stat = checkRef(p, demoRefs, "Demo", {
        ns: 1, name: "Static", nodeId: "ns=1;s=Demo.Static", nodeClass: NodeClass.Object,
        typeDefinition: TYPE_FOLDER, referenceTypeId: REF_ORGANIZES
    });
    checkRef(p, demoRefs, "Demo", {
        ns: 1, name: "Dynamic", nodeId: "ns=1;s=Demo.Dynamic", nodeClass: NodeClass.Object,
        typeDefinition: TYPE_FOLDER, referenceTypeId: REF_ORGANIZES
    });
    checkRef(p, demoRefs, "Demo", {
        ns: 1, name: "Methods", nodeId: "ns=1;s=Demo.Methods", nodeClass: NodeClass.Object,
        typeDefinition: TYPE_BASE_OBJECT, referenceTypeId: REF_HAS_COMPONENT
    });
    checkRef(p, demoRefs, "Demo", {
        ns: 1, name: "the.answer", nodeId: "ns=1;s=the.answer", nodeClass: NodeClass.Variable,
        typeDefinition: TYPE_BASE_DATA_VARIABLE, referenceTypeId: REF_HAS_COMPONENT
    });
    const methodRefs = await browseAll(session, "ns=1;s=Demo.Methods");
    for (const m of ["Add", "Echo"]) {
        checkRef(p, methodRefs, "Methods", {
            ns: 1, name: m, nodeId: "ns=1;s=Demo.Methods." + m, nodeClass: NodeClass.Method,
            referenceTypeId: REF_HAS_COMPONENT
        });
    }
    const interopRefs = await browseAll(session, "ns=1;i=1000");
    checkRef(p, interopRefs, "InteropTests", {
        ns: 1, name: "HelloWorld", nodeId: "ns=1;i=62541", nodeClass: NodeClass.Method,
        referenceTypeId: REF_HAS_COMPONENT
    });
    for (const m of METHODS) {
        const argRefs = await browseAll(session, m.nodeId);
        for (const prop of ["InputArguments", "OutputArguments"]) {
            checkRef(p, argRefs, m.name, {
                ns: 0, name: prop, nodeId: m.argumentsBase + "." + prop, nodeClass: NodeClass.Variable,
                typeDefinition: TYPE_PROPERTY, referenceTypeId: REF_HAS_PROPERTY
            });
        }
    }
    const dynRefs = await browseAll(session, "ns=1;s=Demo.Dynamic");
    for (const name of ["Counter", "Sine", "Time"]) {
        checkRef(p, dynRefs, "Dynamic", {
            ns: 1, name: name, nodeId: "ns=1;s=Demo.Dynamic." + name, nodeClass: NodeClass.Variable,
            typeDefinition: TYPE_BASE_DATA_VARIABLE, referenceTypeId: REF_HAS_COMPONENT
        });
    }
    if (!stat) {
        p.throwIfAny();
    }
    const statRefs = await browseAll(session, stat);
    const scalar = checkRef(p, statRefs, "Static", {
        ns: 1, name: "Scalar", nodeId: "ns=1;s=Demo.Static.Scalar", nodeClass: NodeClass.Object,
        typeDefinition: TYPE_FOLDER, referenceTypeId: REF_ORGANIZES
    });
    checkRef(p, statRefs, "Static", {
        ns: 1, name: "Array", nodeId: "ns=1;s=Demo.Static.Array", nodeClass: NodeClass.Object,
        typeDefinition: TYPE_FOLDER, referenceTypeId: REF_ORGANIZES
    });
    if (!scalar) {
        p.throwIfAny();
    }
    const scalarRefs = await browseAll(session, scalar);
    const vars = staticVariables();
    for (const v of vars) {
        checkRef(p, scalarRefs, "Scalar", {
            ns: 1, name: v.name, nodeId: "ns=1;s=Demo.Static.Scalar." + v.name, nodeClass: NodeClass.Variable,
            typeDefinition: TYPE_BASE_DATA_VARIABLE, referenceTypeId: REF_HAS_COMPONENT, displayName: v.name
        });
    }
    p.check(scalarRefs.length === vars.length,
        () => "Scalar: " + scalarRefs.length + " references, expected " + vars.length);
    const arrayRefs = await browseAll(session, "ns=1;s=Demo.Static.Array");
    for (const v of vars) {
        checkRef(p, arrayRefs, "Array", {
            ns: 1, name: v.name, nodeId: "ns=1;s=Demo.Static.Array." + v.name, nodeClass: NodeClass.Variable,
            typeDefinition: TYPE_BASE_DATA_VARIABLE, referenceTypeId: REF_HAS_COMPONENT
        });
    }
    p.throwIfAny();
    return "Root/Objects/Demo/Static/Scalar, " + scalarRefs.length + " variables";
}

async function stepReadVariables(session) {
    const vars = expectedVariables();
    const attrs = [AttributeIds.DataType, AttributeIds.ValueRank, AttributeIds.AccessLevel,
        AttributeIds.UserAccessLevel, AttributeIds.ArrayDimensions, AttributeIds.Value,
        AttributeIds.NodeClass, AttributeIds.BrowseName];
    const nodesToRead = [];
    for (const v of vars) {
        for (const a of attrs) {
            nodesToRead.push({ nodeId: v.nodeId, attributeId: a });
        }
    }
    const results = await session.read(nodesToRead);
    const p = new Problems();
    if (!p.check(results.length === nodesToRead.length,
        () => results.length + " results for " + nodesToRead.length + " reads")) {
        p.throwIfAny();
    }
    let i = 0;
    for (const v of vars) {
        const [dt, vr, al, ual, dims, val, nc, bn] = results.slice(i, i + attrs.length);
        i += attrs.length;
        const w = v.nodeId;
        for (const [name, r] of [["DataType", dt], ["ValueRank", vr], ["AccessLevel", al],
            ["UserAccessLevel", ual], ["Value", val], ["NodeClass", nc], ["BrowseName", bn]]) {
            p.check(r.statusCode.isGood(), () => w + " " + name + ": " + sc(r.statusCode));
        }
        if (nc.statusCode.isGood()) {
            p.check(nc.value.dataType === DataType.Int32 && nc.value.value === NodeClass.Variable,
                () => w + " NodeClass: " + nc.value.toString() + ", expected Int32 2 (Variable)");
        }
        if (bn.statusCode.isGood()) {
            // 0:InputArguments / 0:OutputArguments, 1:<last part of the string id> otherwise.
            const property = /\.(Input|Output)Arguments$/.test(w);
            const want = property ? "0:" + w.replace(/^.*\./, "")
                : "1:" + (w === "ns=1;s=the.answer" ? "the.answer" : w.replace(/^.*\./, ""));
            const got = bn.value.value;
            p.check(bn.value.dataType === DataType.QualifiedName && got && got.namespaceIndex + ":" + got.name === want,
                () => w + " BrowseName: " + bn.value.toString() + ", expected " + want);
        }
        if (dt.statusCode.isGood()) {
            p.check(dt.value.dataType === DataType.NodeId &&
                dt.value.value.toString() === coerceNodeId(v.dataTypeId).toString(),
                () => w + " DataType: " + dt.value.toString() + ", expected ns=0;i=" + v.dataTypeId);
        }
        if (vr.statusCode.isGood()) {
            p.check(vr.value.dataType === DataType.Int32 && vr.value.value === v.valueRank,
                () => w + " ValueRank: " + vr.value.toString() + ", expected Int32 " + v.valueRank);
        }
        for (const [name, r] of [["AccessLevel", al], ["UserAccessLevel", ual]]) {
            if (r.statusCode.isGood() && v.accessLevel !== undefined) {
                // `uactor run`'s default historizes Demo.Dynamic.* and lets HistoryUpdate change
                // them (docs/history.md): the HistoryRead and HistoryWrite bits (0x04, 0x08) may
                // be set on those; node_server.js does not set them.
                const got = v.historized ? r.value.value & ~0x0C : r.value.value;
                p.check(r.value.dataType === DataType.Byte && got === v.accessLevel,
                    () => w + " " + name + ": " + r.value.toString() + ", expected Byte " + v.accessLevel +
                          (v.historized ? " (and HistoryRead)" : ""));
            }
        }
        if (v.arrayDimensions) {
            const d = dims.statusCode.isGood() ? plainArray(dims.value.value) : null;
            p.check(d && dims.value.dataType === DataType.UInt32 && d.length === v.arrayDimensions.length &&
                d.every((x, k) => x === v.arrayDimensions[k]),
                () => w + " ArrayDimensions: " + (dims.statusCode.isGood() ? dims.value.toString() : sc(dims.statusCode)) +
                    ", expected UInt32 [" + v.arrayDimensions.join(", ") + "]");
        }
        if (val.statusCode.isGood()) {
            if (v.check) {
                v.check(p, w, val.value);
            } else {
                checkVariant(p, w, val.value, v.value);
            }
        }
    }
    p.throwIfAny();
    return vars.length + " variables, " + nodesToRead.length + " attributes";
}

async function stepServerObject(session) {
    const results = await session.read([
        { nodeId: "ns=0;i=2255", attributeId: AttributeIds.Value }, // Server_NamespaceArray
        { nodeId: "ns=0;i=2259", attributeId: AttributeIds.Value }, // Server_ServerStatus_State
        { nodeId: "ns=0;i=2258", attributeId: AttributeIds.Value }, // Server_ServerStatus_CurrentTime
        { nodeId: "ns=0;i=2266", attributeId: AttributeIds.Value } // Server_ServerStatus_BuildInfo_BuildDate
    ]);
    const p = new Problems();
    const [nsArray, state, time, buildDate] = results;
    if (p.check(nsArray.statusCode.isGood(), () => "NamespaceArray: " + sc(nsArray.statusCode))) {
        const v = nsArray.value;
        p.check(v.dataType === DataType.String && v.arrayType === VariantArrayType.Array && v.value.length >= 2 &&
            v.value[0] === "http://opcfoundation.org/UA/" && v.value[1] === DEMO_NAMESPACE_URI,
            () => "NamespaceArray: " + v.toString() + ", expected [http://opcfoundation.org/UA/, " + DEMO_NAMESPACE_URI + ", ...]");
    }
    if (p.check(state.statusCode.isGood(), () => "ServerStatus.State: " + sc(state.statusCode))) {
        p.check(state.value.dataType === DataType.Int32 && state.value.value === ServerState.Running,
            () => "ServerStatus.State: " + state.value.toString() + ", expected Int32 0 (Running)");
    }
    if (p.check(time.statusCode.isGood(), () => "ServerStatus.CurrentTime: " + sc(time.statusCode))) {
        p.check(time.value.dataType === DataType.DateTime && time.value.value instanceof Date &&
            Math.abs(time.value.value.getTime() - Date.now()) < 60000,
            () => "ServerStatus.CurrentTime: " + time.value.toString() + ", expected a DateTime within 60 s of now");
    }
    // The commit's date (or the first build's), not DateTime's minimum.
    p.check(buildDate.statusCode.isGood() && buildDate.value.value instanceof Date &&
        buildDate.value.value.getTime() > Date.UTC(2025, 0, 1) && buildDate.value.value.getTime() <= Date.now() + 60000,
        () => "BuildInfo.BuildDate: " + buildDate.value.toString() + ", expected the date of this build's commit");
    p.throwIfAny();
    return "ns=1 " + DEMO_NAMESPACE_URI + ", Running";
}

// The values written, then read back; one per type at least for the types the brief names.
function writeCases() {
    const S = VariantArrayType.Scalar;
    const A = VariantArrayType.Array;
    return [
        { nodeId: "ns=1;s=Demo.Static.Scalar.Boolean", dataType: DataType.Boolean, arrayType: S, value: false },
        { nodeId: "ns=1;s=Demo.Static.Scalar.Int32", dataType: DataType.Int32, arrayType: S, value: 123456789 },
        { nodeId: "ns=1;s=Demo.Static.Scalar.Double", dataType: DataType.Double, arrayType: S, value: -0.125 },
        { nodeId: "ns=1;s=Demo.Static.Scalar.String", dataType: DataType.String, arrayType: S, value: "written by node-opcua ü" },
        {
            nodeId: "ns=1;s=Demo.Static.Scalar.DateTime", dataType: DataType.DateTime, arrayType: S,
            value: new Date("2030-06-15T12:34:56.789Z")
        },
        {
            nodeId: "ns=1;s=Demo.Static.Scalar.ByteString", dataType: DataType.ByteString, arrayType: S,
            value: Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00])
        },
        {
            nodeId: "ns=1;s=Demo.Static.Scalar.Int64", dataType: DataType.Int64, arrayType: S,
            value: coerceInt64("-1234567890123")
        },
        {
            nodeId: "ns=1;s=Demo.Static.Scalar.Guid", dataType: DataType.Guid, arrayType: S,
            value: "01234567-89AB-CDEF-0123-456789ABCDEF"
        },
        {
            nodeId: "ns=1;s=Demo.Static.Scalar.LocalizedText", dataType: DataType.LocalizedText, arrayType: S,
            value: new LocalizedText({ locale: "fr", text: "écrit" })
        },
        {
            nodeId: "ns=1;s=Demo.Static.Scalar.QualifiedName", dataType: DataType.QualifiedName, arrayType: S,
            value: new QualifiedName({ namespaceIndex: 1, name: "written" })
        },
        {
            nodeId: "ns=1;s=Demo.Static.Scalar.NodeId", dataType: DataType.NodeId, arrayType: S,
            value: coerceNodeId("ns=1;g=72962B91-FA75-4AE6-8D28-B404DC7DAF63")
        },
        {
            nodeId: "ns=1;s=Demo.Static.Scalar.ExpandedNodeId", dataType: DataType.ExpandedNodeId, arrayType: S,
            value: new ExpandedNodeId(NodeIdType.NUMERIC, 2253, 0)
        },
        // BaseDataType: a Variant of any type may be written (docs/demo-namespace.md).
        { nodeId: "ns=1;s=Demo.Static.Scalar.Variant", dataType: DataType.String, arrayType: S, value: "now a String" },
        { nodeId: "ns=1;s=Demo.Static.Array.Int32", dataType: DataType.Int32, arrayType: A, value: [5, -6, 7, 2147483647] },
        { nodeId: "ns=1;s=Demo.Static.Array.String", dataType: DataType.String, arrayType: A, value: ["x", "", "yz", "ü"] },
        { nodeId: "ns=1;s=Demo.Static.Array.Double", dataType: DataType.Double, arrayType: A, value: [0.5] },
        { nodeId: "ns=1;s=Demo.Static.Array.Boolean", dataType: DataType.Boolean, arrayType: A, value: [] }
    ];
}

async function stepWrite(session) {
    const cases = writeCases();
    const p = new Problems();
    // Keep what is there, to put it back afterwards.
    const before = await session.read(cases.map((c) => ({ nodeId: c.nodeId, attributeId: AttributeIds.Value })));
    const statuses = await session.write(cases.map((c) => ({
        nodeId: c.nodeId,
        attributeId: AttributeIds.Value,
        value: { value: new Variant({ dataType: c.dataType, arrayType: c.arrayType, value: c.value }) }
    })));
    cases.forEach((c, k) => p.check(statuses[k] && statuses[k].isGood(),
        () => "write " + c.nodeId + " " + DataType[c.dataType] + ": " + sc(statuses[k])));
    const after = await session.read(cases.map((c) => ({ nodeId: c.nodeId, attributeId: AttributeIds.Value })));
    cases.forEach((c, k) => {
        if (!statuses[k] || !statuses[k].isGood()) {
            return;
        }
        if (p.check(after[k].statusCode.isGood(), () => "read back " + c.nodeId + ": " + sc(after[k].statusCode))) {
            checkVariant(p, "read back " + c.nodeId, after[k].value, c);
        }
    });
    // Put the values back (an empty Int64 read-back needs no special case: Variants are reused).
    const restore = [];
    cases.forEach((c, k) => {
        if (before[k].statusCode.isGood()) {
            restore.push({ nodeId: c.nodeId, attributeId: AttributeIds.Value, value: { value: before[k].value } });
        }
    });
    const restored = await session.write(restore);
    restore.forEach((r, k) => p.check(restored[k] && restored[k].isGood(),
        () => "restore " + r.nodeId + ": " + sc(restored[k])));
    p.throwIfAny();
    return cases.length + " values written, read back and restored";
}

async function stepWriteRefused(session) {
    const statuses = await session.write([
        {
            nodeId: "ns=1;s=the.answer", attributeId: AttributeIds.Value,
            value: { value: new Variant({ dataType: DataType.Int32, value: 42 }) }
        },
        {
            nodeId: "ns=1;s=Demo.Static.Scalar.Int32", attributeId: AttributeIds.Value,
            value: { value: new Variant({ dataType: DataType.String, value: "not an Int32" }) }
        },
        {
            nodeId: "ns=1;s=Demo.Static.Array.Int32", attributeId: AttributeIds.Value,
            value: { value: new Variant({ dataType: DataType.Double, arrayType: VariantArrayType.Array, value: [1.5] }) }
        }
    ]);
    const p = new Problems();
    const readOnly = statuses[0];
    p.check(readOnly && (readOnly.equals(StatusCodes.BadNotWritable) || readOnly.equals(StatusCodes.BadUserAccessDenied)),
        () => "write the.answer: " + sc(readOnly) + ", expected BadNotWritable or BadUserAccessDenied");
    p.check(statuses[1] && statuses[1].equals(StatusCodes.BadTypeMismatch),
        () => "write String to Scalar.Int32: " + sc(statuses[1]) + ", expected BadTypeMismatch");
    p.check(statuses[2] && statuses[2].equals(StatusCodes.BadTypeMismatch),
        () => "write Double[] to Array.Int32: " + sc(statuses[2]) + ", expected BadTypeMismatch");
    // And nothing changed.
    const [answer] = await session.read([{ nodeId: "ns=1;s=the.answer", attributeId: AttributeIds.Value }]);
    p.check(answer.statusCode.isGood() && answer.value.value === 43,
        () => "the.answer after the refused write: " + answer.value.toString());
    p.throwIfAny();
    return "the.answer " + sc(readOnly) + ", wrong type BadTypeMismatch";
}

// Writes as asyncua sends them (docs/decisions/0046): an explicit Good status, and a SourceTimestamp,
// which the demo's writable variables grant (StatusWrite, TimestampWrite).
async function stepWriteStatusAndTimestamp(session) {
    const node = "ns=1;s=Demo.Static.Scalar.Double";
    const [before] = await session.read([{ nodeId: node, attributeId: AttributeIds.Value }]);
    const stamp = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
    const statuses = await session.write([
        { nodeId: node, attributeId: AttributeIds.Value,
          value: { value: { dataType: DataType.Double, value: 1.25 }, statusCode: StatusCodes.Good } },
        { nodeId: node, attributeId: AttributeIds.Value,
          value: { value: { dataType: DataType.Double, value: 2.5 }, statusCode: StatusCodes.Good, sourceTimestamp: stamp } }
    ]);
    const p = new Problems();
    p.check(statuses[0] && statuses[0].isGood(), () => "write with an explicit Good status: " + sc(statuses[0]));
    p.check(statuses[1] && statuses[1].isGood(), () => "write with a SourceTimestamp: " + sc(statuses[1]));
    const [after] = await session.read([{ nodeId: node, attributeId: AttributeIds.Value }]);  // both timestamps
    p.check(after.value.value === 2.5 && after.sourceTimestamp && after.sourceTimestamp.getTime() === stamp.getTime(),
        () => "read back: " + after.toString());
    await session.write([{ nodeId: node, attributeId: AttributeIds.Value, value: { value: before.value } }]);
    p.throwIfAny();
    return "Good with a status, Good with a SourceTimestamp, kept";
}

async function stepCall(session) {
    const D = DataType;
    const results = await session.call([
        {
            objectId: "ns=1;s=Demo.Methods", methodId: "ns=1;s=Demo.Methods.Add",
            inputArguments: [{ dataType: D.Double, value: 1.5 }, { dataType: D.Double, value: 2 }]
        },
        {
            objectId: "ns=1;i=1000", methodId: "ns=1;i=62541",
            inputArguments: [{ dataType: D.String, value: "uactor" }]
        },
        {
            objectId: "ns=1;s=Demo.Methods", methodId: "ns=1;s=Demo.Methods.Echo",
            inputArguments: [{ dataType: D.String, value: "echo ü" }, { dataType: D.Int32, value: -7 }]
        },
        {
            objectId: "ns=1;s=Demo.Methods", methodId: "ns=1;s=Demo.Methods.Add",
            inputArguments: [{ dataType: D.Double, value: 1.5 }]
        },
        {
            objectId: "ns=1;s=Demo.Methods", methodId: "ns=1;s=Demo.Methods.Add",
            inputArguments: [{ dataType: D.Double, value: 1 }, { dataType: D.Double, value: 2 }, { dataType: D.Double, value: 3 }]
        },
        {
            objectId: "ns=1;s=Demo.Methods", methodId: "ns=1;s=Demo.Methods.Add",
            inputArguments: [{ dataType: D.Double, value: 1.5 }, { dataType: D.String, value: "two" }]
        },
        {
            objectId: "ns=1;i=1000", methodId: "ns=1;s=Demo.Methods.Add",
            inputArguments: [{ dataType: D.Double, value: 1 }, { dataType: D.Double, value: 2 }]
        },
        {
            objectId: "ns=1;s=NoSuchObject", methodId: "ns=1;s=Demo.Methods.Add",
            inputArguments: [{ dataType: D.Double, value: 1 }, { dataType: D.Double, value: 2 }]
        }
    ]);
    const p = new Problems();
    const outputs = (r, label, want) => {
        if (!p.check(r.statusCode.isGood(), () => label + ": " + sc(r.statusCode))) {
            return;
        }
        const out = r.outputArguments || [];
        if (!p.check(out.length === want.length, () => label + ": " + out.length + " outputs, expected " + want.length)) {
            return;
        }
        want.forEach((w, k) => checkVariant(p, label + " output " + k, out[k], { arrayType: VariantArrayType.Scalar, ...w }));
    };
    outputs(results[0], "Add(1.5, 2)", [{ dataType: D.Double, value: 3.5 }]);
    outputs(results[1], "HelloWorld(\"uactor\")", [{ dataType: D.String, value: "Hello uactor" }]);
    outputs(results[2], "Echo(\"echo ü\", -7)", [{ dataType: D.String, value: "echo ü" }, { dataType: D.Int32, value: -7 }]);
    p.check(results[3].statusCode.equals(StatusCodes.BadArgumentsMissing),
        () => "Add(1.5): " + sc(results[3].statusCode) + ", expected BadArgumentsMissing");
    p.check(results[4].statusCode.equals(StatusCodes.BadTooManyArguments),
        () => "Add(1, 2, 3): " + sc(results[4].statusCode) + ", expected BadTooManyArguments");
    // Part 4 §5.11.2: the wrong type is Bad_InvalidArgument, Bad_TypeMismatch for that argument.
    const wrongType = results[5];
    const argResults = wrongType.inputArgumentResults || [];
    p.check(wrongType.statusCode.equals(StatusCodes.BadInvalidArgument) && argResults.length === 2 &&
        argResults[0].isGood() && argResults[1].equals(StatusCodes.BadTypeMismatch),
        () => "Add(1.5, \"two\"): " + sc(wrongType.statusCode) + " [" + argResults.map(sc).join(", ") +
            "], expected BadInvalidArgument [Good, BadTypeMismatch]");
    p.check(results[6].statusCode.equals(StatusCodes.BadMethodInvalid),
        () => "Add on InteropTests: " + sc(results[6].statusCode) + ", expected BadMethodInvalid");
    p.check(results[7].statusCode.equals(StatusCodes.BadNodeIdUnknown),
        () => "Add on an unknown object: " + sc(results[7].statusCode) + ", expected BadNodeIdUnknown");
    p.throwIfAny();
    return "Add = 3.5, HelloWorld, Echo; ArgumentsMissing, TooManyArguments, InvalidArgument, MethodInvalid, NodeIdUnknown";
}

// Part 4 §5.8.2: with requestedMaxReferencesPerNode = 1 every Browse/BrowseNext answer holds at
// most one reference; walking the continuation points yields the same references as one Browse.
async function stepBrowseNext(session) {
    const p = new Problems();
    const all = await browseAll(session, "ns=0;i=85");
    const saved = session.requestedMaxReferencesPerNode;
    const walked = [];
    let answers = 0;
    try {
        session.requestedMaxReferencesPerNode = 1;
        let r = await session.browse(browseDescription("ns=0;i=85"));
        for (;;) {
            answers += 1;
            if (!p.check(r.statusCode.isGood(), () => "answer " + answers + ": " + sc(r.statusCode))) {
                break;
            }
            const refs = r.references || [];
            p.check(refs.length <= 1, () => "answer " + answers + ": " + refs.length + " references, asked for at most 1");
            walked.push(...refs);
            if (!r.continuationPoint || r.continuationPoint.length === 0) {
                break;
            }
            if (answers > 1000) {
                p.add("more than 1000 continuation points");
                break;
            }
            r = await session.browseNext(r.continuationPoint, false);
        }
    } finally {
        session.requestedMaxReferencesPerNode = saved;
    }
    const key = (x) => x.referenceTypeId.toString() + " " + x.nodeId.toString();
    const a = all.map(key).sort();
    const b = walked.map(key).sort();
    p.check(a.length === b.length && a.every((x, k) => x === b[k]),
        () => "walked [" + b.join(", ") + "], one Browse gave [" + a.join(", ") + "]");
    p.check(all.length >= 2, () => "Objects has " + all.length + " references: too few to need continuation points");
    p.throwIfAny();
    return "Objects: " + walked.length + " references in " + answers + " answers";
}

// Per-item answers of Read and Browse (Part 4 §5.10.2, §5.8.2, §7.27 NumericRange).
async function stepItemErrors(session) {
    const p = new Problems();
    const reads = await session.read([
        { nodeId: "ns=1;s=NoSuchNode", attributeId: AttributeIds.Value },
        { nodeId: "ns=1;s=Demo", attributeId: AttributeIds.Value },
        { nodeId: "ns=1;s=Demo.Static.Array.Int32", attributeId: AttributeIds.Value, indexRange: "1:2" },
        { nodeId: "ns=1;s=Demo.Static.Array.Int32", attributeId: AttributeIds.Value, indexRange: "10:12" }
    ]);
    p.check(reads[0].statusCode.equals(StatusCodes.BadNodeIdUnknown),
        () => "Read Value of an unknown node: " + sc(reads[0].statusCode) + ", expected BadNodeIdUnknown");
    p.check(reads[1].statusCode.equals(StatusCodes.BadAttributeIdInvalid),
        () => "Read Value of the Demo folder: " + sc(reads[1].statusCode) + ", expected BadAttributeIdInvalid");
    if (p.check(reads[2].statusCode.isGood(), () => "Read Array.Int32[1:2]: " + sc(reads[2].statusCode))) {
        checkVariant(p, "Read Array.Int32[1:2]", reads[2].value,
            { dataType: DataType.Int32, arrayType: VariantArrayType.Array, value: [0, 2147483647] });
    }
    p.check(reads[3].statusCode.equals(StatusCodes.BadIndexRangeNoData),
        () => "Read Array.Int32[10:12]: " + sc(reads[3].statusCode) + ", expected BadIndexRangeNoData");
    const browsed = await session.browse(browseDescription("ns=1;s=NoSuchNode"));
    p.check(browsed.statusCode.equals(StatusCodes.BadNodeIdUnknown),
        () => "Browse an unknown node: " + sc(browsed.statusCode) + ", expected BadNodeIdUnknown");
    const next = await session.browseNext(Buffer.from([0xde, 0xad, 0xbe, 0xef]), false);
    p.check(next.statusCode.equals(StatusCodes.BadContinuationPointInvalid),
        () => "BrowseNext with a made-up continuation point: " + sc(next.statusCode) +
            ", expected BadContinuationPointInvalid");
    p.throwIfAny();
    return "BadNodeIdUnknown, BadAttributeIdInvalid, IndexRange, BadContinuationPointInvalid";
}

async function stepTranslate(session) {
    const results = await session.translateBrowsePath([
        makeBrowsePath("ns=0;i=84", "/Objects/1:Demo/1:Static"),
        makeBrowsePath("ns=0;i=84", "/Objects/1:Demo/1:Static/1:Scalar/1:Int32"),
        makeBrowsePath("ns=0;i=84", "/Objects/1:Demo/1:NoSuchNode")
    ]);
    const p = new Problems();
    const target = (r, label, want) => {
        if (!p.check(r.statusCode.isGood(), () => label + ": " + sc(r.statusCode))) {
            return;
        }
        const t = r.targets || [];
        p.check(t.length === 1 && t[0].targetId.toString() === want &&
            t[0].remainingPathIndex === 0xffffffff,
            () => label + ": targets [" + t.map((x) => x.targetId.toString() + " rest " + x.remainingPathIndex).join(", ") +
                "], expected [" + want + "]");
    };
    target(results[0], "/Objects/1:Demo/1:Static", "ns=1;s=Demo.Static");
    target(results[1], "/Objects/1:Demo/1:Static/1:Scalar/1:Int32", "ns=1;s=Demo.Static.Scalar.Int32");
    p.check(results[2].statusCode.equals(StatusCodes.BadNoMatch),
        () => "/Objects/1:Demo/1:NoSuchNode: " + sc(results[2].statusCode) + ", expected BadNoMatch");
    p.throwIfAny();
    return "/Objects/1:Demo/1:Static = ns=1;s=Demo.Static";
}

// ---- main ------------------------------------------------------------------------------------------

function parseArgs(argv) {
    const opts = { endpoint: null, timeout: 60 };
    for (let i = 0; i < argv.length; ++i) {
        if (argv[i] === "--timeout" && i + 1 < argv.length) {
            opts.timeout = Number(argv[++i]);
        } else if (!opts.endpoint && /^opc\.tcp:\/\//.test(argv[i])) {
            opts.endpoint = argv[i];
        } else {
            return null;
        }
    }
    return opts.endpoint && opts.timeout > 0 ? opts : null;
}

async function main() {
    const opts = parseArgs(process.argv.slice(2));
    if (!opts) {
        process.stderr.write("usage: node node_client.js opc.tcp://HOST:PORT [--timeout S]\n");
        process.exit(2);
    }
    const pki = fs.mkdtempSync(path.join(os.tmpdir(), "uactor-node-client-"));
    const removePki = () => fs.rmSync(pki, { recursive: true, force: true });
    const finish = (code) => {
        removePki();
        process.exit(code);
    };
    setTimeout(() => {
        fail("timeout", "not done after " + opts.timeout + " s");
        finish(1);
    }, opts.timeout * 1000).unref();

    const client = OPCUAClient.create({
        applicationName: "uactor interop node-opcua client",
        endpointMustExist: false,
        securityMode: MessageSecurityMode.None,
        securityPolicy: SecurityPolicy.None,
        // One attempt: a server that is not there is a failure, not something to wait for.
        connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 200 },
        requestedSessionTimeout: 60000,
        keepSessionAlive: false,
        clientCertificateManager: new OPCUACertificateManager({
            rootFolder: path.join(pki, "PKI"), automaticallyAcceptUnknownCertificate: true
        })
    });
    // Keep the process alive until the steps end (the timer above is unref'ed).
    const keepAlive = setInterval(() => {}, 1000);

    let connected = await step("connect " + opts.endpoint, async () => {
        await client.connect(opts.endpoint);
    });
    if (connected) {
        await step("GetEndpoints", () => stepGetEndpoints(client));
    }
    let session = null;
    if (connected) {
        await step("CreateSession + ActivateSession (anonymous)", async () => {
            session = await client.createSession();
            return "session " + session.sessionId.toString();
        });
    }
    const steps = [
        ["Browse Root > Objects > Demo > Static > Scalar", stepBrowse],
        ["Read the demo variables (DataType, ValueRank, AccessLevel, ArrayDimensions, Value)", stepReadVariables],
        ["Read Server NamespaceArray, ServerStatus.State, CurrentTime", stepServerObject],
        ["Write and read back", stepWrite],
        ["Write refused (read-only, wrong type)", stepWriteRefused],
        ["Write with status and SourceTimestamp", stepWriteStatusAndTimestamp],
        ["Call Add, HelloWorld, Echo and the refused calls", stepCall],
        ["BrowseNext Objects with requestedMaxReferencesPerNode = 1", stepBrowseNext],
        ["TranslateBrowsePathsToNodeIds", stepTranslate],
        ["Read and Browse item errors, IndexRange", stepItemErrors]
    ];
    for (const [name, fn] of steps) {
        if (session) {
            await step(name, () => fn(session));
        } else {
            fail(name, "no session");
        }
    }
    if (session) {
        await step("CloseSession", () => session.close());
    } else {
        fail("CloseSession", "no session");
    }
    if (connected) {
        await step("disconnect", () => client.disconnect());
    }
    clearInterval(keepAlive);
    process.stdout.write((failures === 0 ? "PASS" : "FAILED") + ": " + passes + " ok, " + failures + " failed\n");
    finish(failures === 0 ? 0 : 1);
}

main().catch((err) => {
    fail("internal", err && err.stack ? err.stack : err);
    process.exit(1);
});
