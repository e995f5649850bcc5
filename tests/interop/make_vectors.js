#!/usr/bin/env node
// Generates OPC UA binary encoding test vectors with node-opcua.
//
//   node make_vectors.js [OUTDIR]      (default: <this dir>/vectors)
//
// Writes OUTDIR/<name>.bin for every vector and OUTDIR/manifest.json:
//   kind "builtin": the .bin is the OPC UA binary encoding (Part 6 §5.2) of one
//                   value of the built-in type named by "type";
//   kind "message": the .bin is the DefaultBinary encoding NodeId of the type
//                   followed by the encoded body (what follows the sequence
//                   header in a UA-TCP MSG chunk).
// Everything is fixed (timestamps, GUIDs, nonces): two runs give identical files.
//
// node-opcua is pinned (package.json, 2.186.4): 2.164+ load ES modules with
// require(), which needs Node 20.19 or newer (it fails on Node 18), and 2.183+
// declare engines node >= 22.13; Node 20.19+ runs them (scripts/setup.sh).
"use strict";

const fs = require("fs");
const path = require("path");

const { BinaryStream } = require("node-opcua-binary-stream");
const bt = require("node-opcua-basic-types");
const { getBuiltInType } = require("node-opcua-factory");
const { NodeId, NodeIdType, ExpandedNodeId } = require("node-opcua-nodeid");
const { StatusCodes, StatusCode, extraStatusCodeBits } = require("node-opcua-status-code");
const { Variant, DataType, VariantArrayType, encodeVariant } = require("node-opcua-variant");
const { DataValue, encodeDataValue, TimestampsToReturn } = require("node-opcua-data-value");
const {
    LocalizedText,
    QualifiedName,
    DiagnosticInfo,
    encodeLocalizedText,
    encodeQualifiedName,
    encodeDiagnosticInfo,
    AttributeIds,
    BrowseDirection,
    NodeClass
} = require("node-opcua-data-model");
const { encodeExtensionObject, OpaqueStructure } = require("node-opcua-extension-object");
const types = require("node-opcua-types");

// ---------------------------------------------------------------- fixed data

const T_FIXED = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678)); // 2024-01-02T03:04:05.678Z
const T_LATER = new Date(Date.UTC(2024, 0, 2, 3, 4, 6, 0)); // 2024-01-02T03:04:06.000Z
const T_ZERO = new Date(Date.UTC(1601, 0, 1, 0, 0, 0, 0)); // DateTime 0
const GUID_FIXED = "72962B91-FA75-4AE6-8D28-B404DC7DAF63";
const GUID_OTHER = "00112233-4455-6677-8899-AABBCCDDEEFF";

function bytes(n, f) {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = f(i) & 0xff;
    return b;
}
const CLIENT_NONCE = bytes(32, (i) => 0xa0 + i * 3); // fixed 32-byte nonce
const CLIENT_CERT = Buffer.from("3082010a0282010100c0ffee", "hex"); // a few fixed bytes
const CONTINUATION_POINT = Buffer.from("cafebabe00000001", "hex");
const AUTH_TOKEN_BYTES = new NodeId(NodeIdType.BYTESTRING, bytes(16, (i) => 0x10 + i), 0);
const AUTH_TOKEN_NUMERIC = new NodeId(NodeIdType.NUMERIC, 1000001, 1);

// ---------------------------------------------------------------- helpers

const vectors = [];
const BUILTIN_NAMES = new Set(
    (
        "Boolean SByte Byte Int16 UInt16 Int32 UInt32 Int64 UInt64 Float Double String DateTime Guid " +
        "ByteString XmlElement NodeId ExpandedNodeId StatusCode QualifiedName LocalizedText " +
        "ExtensionObject DataValue Variant DiagnosticInfo"
    ).split(" ")
);

function encodeWith(fn) {
    const stream = new BinaryStream(1 << 16);
    fn(stream);
    return Buffer.from(stream.buffer.subarray(0, stream.length));
}

function add(name, kind, type, buf) {
    if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`bad vector name ${name}`);
    if (vectors.some((v) => v.name === name)) throw new Error(`duplicate vector name ${name}`);
    vectors.push({ name, kind, type, buf });
}

/** kind "builtin": encoded with node-opcua's encoder for `type` */
function builtin(name, type, value, encoder) {
    if (!BUILTIN_NAMES.has(type)) throw new Error(`unknown builtin ${type}`);
    add(name, "builtin", type, encodeWith((s) => encoder(value, s)));
}

/** kind "builtin", type "Variant" */
function variant(name, options) {
    const v = new Variant(options);
    add(name, "builtin", "Variant", encodeWith((s) => encodeVariant(v, s)));
}

/** kind "message": DefaultBinary encoding NodeId + body */
function message(name, obj) {
    const encodingId = obj.schema.encodingDefaultBinary;
    if (!encodingId || encodingId.isEmpty()) throw new Error(`no DefaultBinary encoding for ${obj.schema.name}`);
    add(
        name,
        "message",
        obj.schema.name,
        encodeWith((s) => {
            bt.encodeNodeId(encodingId, s);
            obj.encode(s);
        })
    );
}

const nid = {
    num: (value, ns = 0) => new NodeId(NodeIdType.NUMERIC, value, ns),
    str: (value, ns) => new NodeId(NodeIdType.STRING, value, ns),
    guid: (value, ns) => new NodeId(NodeIdType.GUID, value, ns),
    bytes: (value, ns) => new NodeId(NodeIdType.BYTESTRING, value, ns)
};

function requestHeader(requestHandle, authenticationToken = AUTH_TOKEN_NUMERIC) {
    return new types.RequestHeader({
        authenticationToken,
        timestamp: T_FIXED,
        requestHandle,
        returnDiagnostics: 0,
        auditEntryId: null,
        timeoutHint: 10000,
        additionalHeader: null
    });
}

function responseHeader(requestHandle, serviceResult = StatusCodes.Good) {
    return new types.ResponseHeader({
        timestamp: T_LATER,
        requestHandle,
        serviceResult,
        // serviceDiagnostics: default (empty DiagnosticInfo, encoded as a single 0x00)
        stringTable: [],
        additionalHeader: null
    });
}

// ================================================================ builtins

// --- Boolean
builtin("boolean_true", "Boolean", true, bt.encodeBoolean);
builtin("boolean_false", "Boolean", false, bt.encodeBoolean);

// --- integers: min and max of every integer type
builtin("sbyte_min", "SByte", -128, bt.encodeSByte);
builtin("sbyte_max", "SByte", 127, bt.encodeSByte);
builtin("byte_min", "Byte", 0, bt.encodeByte);
builtin("byte_max", "Byte", 255, bt.encodeByte);
builtin("int16_min", "Int16", -32768, bt.encodeInt16);
builtin("int16_max", "Int16", 32767, bt.encodeInt16);
builtin("uint16_min", "UInt16", 0, bt.encodeUInt16);
builtin("uint16_max", "UInt16", 65535, bt.encodeUInt16);
builtin("int32_min", "Int32", -2147483648, bt.encodeInt32);
builtin("int32_max", "Int32", 2147483647, bt.encodeInt32);
builtin("uint32_min", "UInt32", 0, bt.encodeUInt32);
builtin("uint32_max", "UInt32", 4294967295, bt.encodeUInt32);
// node-opcua represents 64-bit integers as [high32, low32]
builtin("int64_min", "Int64", [0x80000000, 0x00000000], bt.encodeInt64);
builtin("int64_max", "Int64", [0x7fffffff, 0xffffffff], bt.encodeInt64);
builtin("uint64_min", "UInt64", [0, 0], bt.encodeUInt64);
builtin("uint64_max", "UInt64", [0xffffffff, 0xffffffff], bt.encodeUInt64);

// --- Float / Double
const FLOAT_DENORMAL = 1.401298464324817e-45; // 2^-149, smallest positive float32 subnormal
builtin("float_nan", "Float", NaN, bt.encodeFloat);
builtin("float_pos_inf", "Float", Infinity, bt.encodeFloat);
builtin("float_neg_inf", "Float", -Infinity, bt.encodeFloat);
builtin("float_neg_zero", "Float", -0, bt.encodeFloat);
builtin("float_denormal", "Float", FLOAT_DENORMAL, bt.encodeFloat);
builtin("double_pi", "Double", Math.PI, bt.encodeDouble);
builtin("double_nan", "Double", NaN, bt.encodeDouble);
builtin("double_pos_inf", "Double", Infinity, bt.encodeDouble);
builtin("double_neg_inf", "Double", -Infinity, bt.encodeDouble);
builtin("double_neg_zero", "Double", -0, bt.encodeDouble);
builtin("double_denormal", "Double", Number.MIN_VALUE, bt.encodeDouble); // 2^-1074

// --- String
builtin("string_hello", "String", "Hello, OPC UA!", bt.encodeString);
builtin("string_empty", "String", "", bt.encodeString);
builtin("string_null", "String", null, bt.encodeString);
builtin("string_utf8", "String", "Grüße, 日本語 €🚀", bt.encodeString);

// --- DateTime
builtin("datetime_zero", "DateTime", T_ZERO, bt.encodeDateTime);
builtin("datetime_fixed", "DateTime", T_FIXED, bt.encodeDateTime);
builtin("datetime_9999_12_31", "DateTime", new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 0)), bt.encodeDateTime);
{
    // Int64 max = 9223372036854775807 ticks of 100 ns since 1601
    // = 922337203685477 ms + 5807 ticks. A JS Date only holds milliseconds, so
    // the extra ticks go through node-opcua's high-accuracy DateTime encoder
    // (the one DataValue uses for timestamps + picoseconds): 5807 ticks = 580700000 ps.
    const dMax = new Date(922337203685477 - 11644473600000);
    builtin("datetime_max", "DateTime", dMax, (d, s) => bt.encodeHighAccuracyDateTime(d, 5807 * 100000, s));
}

// --- Guid
builtin("guid_fixed", "Guid", GUID_FIXED, bt.encodeGuid);

// --- ByteString
builtin("bytestring_fixed", "ByteString", Buffer.from("00017f80feff", "hex"), bt.encodeByteString);
builtin("bytestring_empty", "ByteString", Buffer.alloc(0), bt.encodeByteString);
builtin("bytestring_null", "ByteString", null, bt.encodeByteString);

// --- XmlElement (encoded like a String; node-opcua's registered XmlElement encoder)
const encodeXmlElement = getBuiltInType("XmlElement").encode;
builtin("xmlelement_fixed", "XmlElement", '<a xmlns="urn:x">1 &amp; 2</a>', encodeXmlElement);

// --- NodeId
builtin("nodeid_null", "NodeId", nid.num(0, 0), bt.encodeNodeId);
builtin("nodeid_two_byte", "NodeId", nid.num(255, 0), bt.encodeNodeId);
builtin("nodeid_four_byte", "NodeId", nid.num(65535, 1), bt.encodeNodeId);
builtin("nodeid_four_byte_ns0", "NodeId", nid.num(256, 0), bt.encodeNodeId);
builtin("nodeid_numeric_ns2", "NodeId", nid.num(100000, 2), bt.encodeNodeId);
builtin("nodeid_numeric_ns300", "NodeId", nid.num(1, 300), bt.encodeNodeId);
builtin("nodeid_numeric_max", "NodeId", nid.num(4294967295, 65535), bt.encodeNodeId);
builtin("nodeid_string", "NodeId", nid.str("the.answer", 1), bt.encodeNodeId);
builtin("nodeid_string_utf8", "NodeId", nid.str("Temperatur.Kühlwasser.温度", 2), bt.encodeNodeId);
builtin("nodeid_guid", "NodeId", nid.guid(GUID_FIXED, 1), bt.encodeNodeId);
builtin("nodeid_bytestring", "NodeId", nid.bytes(Buffer.from("deadbeef0102", "hex"), 3), bt.encodeNodeId);

// --- ExpandedNodeId
builtin(
    "expandednodeid_plain",
    "ExpandedNodeId",
    new ExpandedNodeId(NodeIdType.NUMERIC, 85, 0, null, 0),
    bt.encodeExpandedNodeId
);
builtin(
    "expandednodeid_namespace_uri",
    "ExpandedNodeId",
    new ExpandedNodeId(NodeIdType.NUMERIC, 1234, 0, "http://example.com/UA/", 0),
    bt.encodeExpandedNodeId
);
builtin(
    "expandednodeid_namespace_uri_small_numeric",
    "ExpandedNodeId",
    new ExpandedNodeId(NodeIdType.NUMERIC, 5, 0, "urn:small", 0),
    bt.encodeExpandedNodeId
);
builtin(
    "expandednodeid_server_index",
    "ExpandedNodeId",
    new ExpandedNodeId(NodeIdType.STRING, "remote.node", 2, null, 3),
    bt.encodeExpandedNodeId
);
builtin(
    "expandednodeid_uri_and_server_index",
    "ExpandedNodeId",
    new ExpandedNodeId(NodeIdType.GUID, GUID_OTHER, 0, "urn:uactor:test", 7),
    bt.encodeExpandedNodeId
);

// --- StatusCode
builtin("statuscode_good", "StatusCode", StatusCodes.Good, bt.encodeStatusCode);
builtin("statuscode_bad_node_id_unknown", "StatusCode", StatusCodes.BadNodeIdUnknown, bt.encodeStatusCode);
builtin(
    "statuscode_uncertain_with_info_bits",
    "StatusCode",
    StatusCode.makeStatusCode(
        StatusCodes.UncertainLastUsableValue,
        extraStatusCodeBits.InfoTypeDataValue | extraStatusCodeBits.LimitHigh | extraStatusCodeBits.Overflow
    ),
    bt.encodeStatusCode
);
builtin(
    "statuscode_good_with_structure_changed",
    "StatusCode",
    StatusCode.makeStatusCode(StatusCodes.Good, extraStatusCodeBits.StructureChanged),
    bt.encodeStatusCode
);

// --- QualifiedName
builtin("qualifiedname_ns0", "QualifiedName", new QualifiedName({ namespaceIndex: 0, name: "Objects" }), encodeQualifiedName);
builtin("qualifiedname_ns3_utf8", "QualifiedName", new QualifiedName({ namespaceIndex: 3, name: "Größe" }), encodeQualifiedName);
builtin("qualifiedname_null_name", "QualifiedName", new QualifiedName({ namespaceIndex: 0, name: null }), encodeQualifiedName);

// --- LocalizedText
builtin(
    "localizedtext_locale_and_text",
    "LocalizedText",
    new LocalizedText({ locale: "en-US", text: "Hello" }),
    encodeLocalizedText
);
builtin("localizedtext_text_only", "LocalizedText", new LocalizedText({ text: "Hallo Welt" }), encodeLocalizedText);
builtin("localizedtext_locale_only", "LocalizedText", new LocalizedText({ locale: "de-DE" }), encodeLocalizedText);
builtin("localizedtext_neither", "LocalizedText", new LocalizedText({}), encodeLocalizedText);

// --- ExtensionObject
builtin(
    "extensionobject_read_value_id",
    "ExtensionObject",
    new types.ReadValueId({
        nodeId: nid.str("the.answer", 1),
        attributeId: AttributeIds.Value,
        indexRange: null,
        dataEncoding: new QualifiedName({ namespaceIndex: 0, name: null })
    }),
    encodeExtensionObject
);
builtin(
    "extensionobject_anonymous_identity_token",
    "ExtensionObject",
    new types.AnonymousIdentityToken({ policyId: "anonymous" }),
    encodeExtensionObject
);
builtin("extensionobject_no_body", "ExtensionObject", null, encodeExtensionObject);
builtin(
    "extensionobject_opaque_body",
    "ExtensionObject",
    new OpaqueStructure(nid.num(5001, 2), Buffer.from("0102030405", "hex")),
    encodeExtensionObject
);

// --- DataValue: mask combinations
function dataValue(name, options) {
    builtin(name, "DataValue", new DataValue(options), encodeDataValue);
}
const dvDouble = () => new Variant({ dataType: DataType.Double, value: 42.5 });
dataValue("datavalue_empty", {});
dataValue("datavalue_value_only", { value: dvDouble() });
dataValue("datavalue_value_status", {
    value: dvDouble(),
    statusCode: StatusCodes.UncertainInitialValue
});
dataValue("datavalue_status_only", { statusCode: StatusCodes.BadNodeIdUnknown });
dataValue("datavalue_value_source_timestamp", { value: dvDouble(), sourceTimestamp: T_FIXED });
dataValue("datavalue_value_source_timestamp_picoseconds", {
    value: dvDouble(),
    sourceTimestamp: T_FIXED,
    sourcePicoseconds: 12340 // => UInt16 1234 (10 ps units)
});
dataValue("datavalue_server_timestamp", { serverTimestamp: T_LATER });
dataValue("datavalue_server_timestamp_picoseconds", {
    serverTimestamp: T_LATER,
    serverPicoseconds: 99990 // => UInt16 9999
});
dataValue("datavalue_both_timestamps", {
    value: new Variant({ dataType: DataType.Int32, value: -7 }),
    sourceTimestamp: T_FIXED,
    serverTimestamp: T_LATER
});
dataValue("datavalue_all", {
    value: new Variant({ dataType: DataType.String, value: "all fields" }),
    statusCode: StatusCodes.GoodClamped,
    sourceTimestamp: T_FIXED,
    sourcePicoseconds: 10,
    serverTimestamp: T_LATER,
    serverPicoseconds: 345670 // 3 extra 100ns ticks folded into the timestamp, UInt16 4567
});

// --- DiagnosticInfo
function nestedDiagnostic() {
    const level3 = new DiagnosticInfo({
        symbolicId: 30,
        additionalInfo: "level 3",
        innerStatusCode: StatusCodes.BadInternalError
    });
    const level2 = new DiagnosticInfo({
        symbolicId: 20,
        localizedText: 21,
        innerStatusCode: StatusCodes.BadOutOfMemory,
        innerDiagnosticInfo: level3
    });
    const level1 = new DiagnosticInfo({
        namespaceURI: 11,
        locale: 12,
        additionalInfo: "level 1",
        innerDiagnosticInfo: level2
    });
    return new DiagnosticInfo({
        symbolicId: 1,
        namespaceURI: 2,
        locale: 3,
        localizedText: 4,
        additionalInfo: "top-level additional info",
        innerStatusCode: StatusCodes.BadNodeIdUnknown,
        innerDiagnosticInfo: level1
    });
}
builtin("diagnosticinfo_all_fields_nested", "DiagnosticInfo", nestedDiagnostic(), encodeDiagnosticInfo);
builtin("diagnosticinfo_empty", "DiagnosticInfo", new DiagnosticInfo({}), encodeDiagnosticInfo);
builtin(
    "diagnosticinfo_symbolic_id_and_status",
    "DiagnosticInfo",
    new DiagnosticInfo({ symbolicId: 0, innerStatusCode: StatusCodes.BadTimeout }),
    encodeDiagnosticInfo
);

// ================================================================ Variant

const S = VariantArrayType.Scalar;
const A = VariantArrayType.Array;
variant("variant_null", { dataType: DataType.Null });
variant("variant_boolean_true", { dataType: DataType.Boolean, value: true });
variant("variant_sbyte_min", { dataType: DataType.SByte, value: -128 });
variant("variant_byte_max", { dataType: DataType.Byte, value: 255 });
variant("variant_int16_min", { dataType: DataType.Int16, value: -32768 });
variant("variant_uint16_max", { dataType: DataType.UInt16, value: 65535 });
variant("variant_int32_min", { dataType: DataType.Int32, value: -2147483648 });
variant("variant_uint32_max", { dataType: DataType.UInt32, value: 4294967295 });
variant("variant_int64_min", { dataType: DataType.Int64, arrayType: S, value: [0x80000000, 0] });
variant("variant_uint64_max", { dataType: DataType.UInt64, arrayType: S, value: [0xffffffff, 0xffffffff] });
variant("variant_float_nan", { dataType: DataType.Float, value: NaN });
variant("variant_double_neg_inf", { dataType: DataType.Double, value: -Infinity });
variant("variant_double_denormal", { dataType: DataType.Double, value: Number.MIN_VALUE });
variant("variant_string", { dataType: DataType.String, value: "Grüße" });
variant("variant_string_null", { dataType: DataType.String, value: null });
variant("variant_datetime_fixed", { dataType: DataType.DateTime, value: T_FIXED });
variant("variant_guid", { dataType: DataType.Guid, value: GUID_FIXED });
variant("variant_bytestring", { dataType: DataType.ByteString, value: Buffer.from("0badf00d", "hex") });
variant("variant_bytestring_null", { dataType: DataType.ByteString, value: null });
variant("variant_xmlelement", { dataType: DataType.XmlElement, value: "<v>42</v>" });
variant("variant_nodeid", { dataType: DataType.NodeId, value: nid.str("the.answer", 1) });
variant("variant_expandednodeid", {
    dataType: DataType.ExpandedNodeId,
    value: new ExpandedNodeId(NodeIdType.NUMERIC, 42, 0, "urn:uactor:test", 2)
});
variant("variant_statuscode", { dataType: DataType.StatusCode, value: StatusCodes.BadNodeIdUnknown });
variant("variant_qualifiedname", {
    dataType: DataType.QualifiedName,
    value: new QualifiedName({ namespaceIndex: 2, name: "Temperature" })
});
variant("variant_localizedtext", {
    dataType: DataType.LocalizedText,
    value: new LocalizedText({ locale: "fr-FR", text: "Température" })
});
variant("variant_extensionobject", {
    dataType: DataType.ExtensionObject,
    value: new types.ReadValueId({
        nodeId: nid.num(2258, 0),
        attributeId: AttributeIds.Value,
        indexRange: "0:3",
        dataEncoding: new QualifiedName({ namespaceIndex: 0, name: "Default Binary" })
    })
});
variant("variant_datavalue", {
    dataType: DataType.DataValue,
    value: new DataValue({
        value: new Variant({ dataType: DataType.UInt16, value: 7 }),
        statusCode: StatusCodes.GoodNoData,
        sourceTimestamp: T_FIXED
    })
});
variant("variant_diagnosticinfo", {
    dataType: DataType.DiagnosticInfo,
    value: new DiagnosticInfo({ symbolicId: 5, additionalInfo: "in a variant" })
});

// --- Variant arrays
variant("variant_array_int32", { dataType: DataType.Int32, arrayType: A, value: [1, -1, 2147483647, -2147483648] });
variant("variant_array_double", { dataType: DataType.Double, arrayType: A, value: [0.5, -0, NaN, Infinity] });
variant("variant_array_float", { dataType: DataType.Float, arrayType: A, value: [1.5, -2.25] });
variant("variant_array_byte", { dataType: DataType.Byte, arrayType: A, value: [0, 1, 254, 255] });
variant("variant_array_boolean", { dataType: DataType.Boolean, arrayType: A, value: [true, false, true] });
variant("variant_array_uint64", {
    dataType: DataType.UInt64,
    arrayType: A,
    value: [
        [0, 1],
        [0xffffffff, 0xffffffff]
    ]
});
variant("variant_array_string_with_nulls", {
    dataType: DataType.String,
    arrayType: A,
    value: ["alpha", null, "", "ωmega"]
});
variant("variant_array_bytestring", {
    dataType: DataType.ByteString,
    arrayType: A,
    value: [Buffer.from("01", "hex"), null, Buffer.alloc(0)]
});
variant("variant_array_localizedtext", {
    dataType: DataType.LocalizedText,
    arrayType: A,
    value: [new LocalizedText({ locale: "en", text: "one" }), new LocalizedText({ text: "two" })]
});
variant("variant_array_nodeid", {
    dataType: DataType.NodeId,
    arrayType: A,
    value: [nid.num(85), nid.num(65535, 1), nid.str("x", 2)]
});
variant("variant_array_variant", {
    dataType: DataType.Variant,
    arrayType: A,
    value: [
        new Variant({ dataType: DataType.Int32, value: 1 }),
        new Variant({ dataType: DataType.String, value: "two" }),
        new Variant({ dataType: DataType.Double, arrayType: A, value: [3, 4] })
    ]
});
variant("variant_array_extensionobject", {
    dataType: DataType.ExtensionObject,
    arrayType: A,
    value: [new types.AnonymousIdentityToken({ policyId: "anon" }), null]
});
variant("variant_array_int32_empty", { dataType: DataType.Int32, arrayType: A, value: [] });
variant("variant_array_int32_null", { dataType: DataType.Int32, arrayType: A, value: null });
variant("variant_matrix_int32_2x3", {
    dataType: DataType.Int32,
    arrayType: VariantArrayType.Matrix,
    dimensions: [2, 3],
    value: [1, 2, 3, 4, 5, 6]
});
variant("variant_matrix_string_2x2", {
    dataType: DataType.String,
    arrayType: VariantArrayType.Matrix,
    dimensions: [2, 2],
    value: ["a", "b", null, "d"]
});

// ================================================================ messages

// --- ReadRequest
message(
    "read_request_1",
    new types.ReadRequest({
        requestHeader: requestHeader(1),
        maxAge: 0,
        timestampsToReturn: TimestampsToReturn.Both,
        nodesToRead: [{ nodeId: nid.num(2258), attributeId: AttributeIds.Value }]
    })
);
message(
    "read_request_3",
    new types.ReadRequest({
        requestHeader: requestHeader(2, AUTH_TOKEN_BYTES),
        maxAge: 500.5,
        timestampsToReturn: TimestampsToReturn.Source,
        nodesToRead: [
            { nodeId: nid.str("Demo.Static.Arrays.Int32", 2), attributeId: AttributeIds.Value, indexRange: "1:3" },
            { nodeId: nid.num(2253), attributeId: AttributeIds.BrowseName },
            {
                nodeId: nid.guid(GUID_FIXED, 3),
                attributeId: AttributeIds.Value,
                dataEncoding: new QualifiedName({ namespaceIndex: 0, name: "Default Binary" })
            }
        ]
    })
);

// --- ReadResponse
function readResponseResults() {
    return [
        new DataValue({
            value: new Variant({ dataType: DataType.Double, value: 3.14159 }),
            sourceTimestamp: T_FIXED,
            serverTimestamp: T_LATER
        }),
        new DataValue({
            value: new Variant({ dataType: DataType.String, value: "running" }),
            serverTimestamp: T_LATER
        }),
        new DataValue({
            value: new Variant({ dataType: DataType.Int32, arrayType: A, value: [10, 20, 30] }),
            sourceTimestamp: T_FIXED,
            sourcePicoseconds: 500
        }),
        new DataValue({ statusCode: StatusCodes.BadNodeIdUnknown, serverTimestamp: T_LATER })
    ];
}
message(
    "read_response_mixed",
    new types.ReadResponse({
        responseHeader: responseHeader(2),
        results: readResponseResults(),
        diagnosticInfos: []
    })
);
{
    const rsp = new types.ReadResponse({
        responseHeader: new types.ResponseHeader({
            timestamp: T_LATER,
            requestHandle: 3,
            serviceResult: StatusCodes.Good,
            serviceDiagnostics: new DiagnosticInfo({ symbolicId: 0, localizedText: 1 }),
            stringTable: ["BadNodeIdUnknown", "The node id refers to a node that does not exist."],
            additionalHeader: null
        }),
        results: [new DataValue({ statusCode: StatusCodes.BadNodeIdUnknown })],
        diagnosticInfos: [new DiagnosticInfo({ symbolicId: 0, localizedText: 1, innerStatusCode: StatusCodes.BadInternalError })]
    });
    message("read_response_with_diagnostics", rsp);
}
{
    // null arrays (length -1) must be set after construction: the constructor
    // turns null into [] (length 0)
    const rsp = new types.ReadResponse({ responseHeader: responseHeader(4, StatusCodes.BadTooManyOperations) });
    rsp.results = null;
    rsp.diagnosticInfos = null;
    rsp.responseHeader.stringTable = null;
    message("read_response_null_arrays", rsp);
}

// --- WriteRequest
message(
    "write_request_2",
    new types.WriteRequest({
        requestHeader: requestHeader(5),
        nodesToWrite: [
            {
                nodeId: nid.str("Demo.Static.Scalar.Double", 2),
                attributeId: AttributeIds.Value,
                value: new DataValue({ value: new Variant({ dataType: DataType.Double, value: -12.75 }) })
            },
            {
                nodeId: nid.num(100000, 2),
                attributeId: AttributeIds.Value,
                indexRange: "2",
                value: new DataValue({
                    value: new Variant({ dataType: DataType.String, arrayType: A, value: ["x"] }),
                    statusCode: StatusCodes.Good,
                    sourceTimestamp: T_FIXED
                })
            }
        ]
    })
);

// --- BrowseRequest
message(
    "browse_request_2",
    new types.BrowseRequest({
        requestHeader: requestHeader(6, AUTH_TOKEN_BYTES),
        view: new types.ViewDescription({ viewId: nid.num(5000, 1), timestamp: T_FIXED, viewVersion: 3 }),
        requestedMaxReferencesPerNode: 100,
        nodesToBrowse: [
            {
                nodeId: nid.num(85),
                browseDirection: BrowseDirection.Forward,
                referenceTypeId: nid.num(33), // HierarchicalReferences
                includeSubtypes: true,
                nodeClassMask: 0,
                resultMask: 0x3f
            },
            {
                nodeId: nid.str("Demo.Static", 2),
                browseDirection: BrowseDirection.Both,
                referenceTypeId: nid.num(40), // HasTypeDefinition
                includeSubtypes: false,
                nodeClassMask: NodeClass.Object | NodeClass.Variable,
                resultMask: 0x09 // ReferenceType | BrowseName
            }
        ]
    })
);

// --- BrowseResponse
{
    const browseResponse = new types.BrowseResponse({
        responseHeader: responseHeader(6),
        results: [
            {
                statusCode: StatusCodes.Good,
                continuationPoint: CONTINUATION_POINT,
                references: [
                    {
                        referenceTypeId: nid.num(35), // Organizes
                        isForward: true,
                        nodeId: new ExpandedNodeId(NodeIdType.NUMERIC, 2253, 0),
                        browseName: new QualifiedName({ namespaceIndex: 0, name: "Server" }),
                        displayName: new LocalizedText({ text: "Server" }),
                        nodeClass: NodeClass.Object,
                        typeDefinition: new ExpandedNodeId(NodeIdType.NUMERIC, 2004, 0)
                    },
                    {
                        referenceTypeId: nid.num(47), // HasComponent
                        isForward: true,
                        nodeId: new ExpandedNodeId(NodeIdType.STRING, "Demo.Static", 2),
                        browseName: new QualifiedName({ namespaceIndex: 2, name: "Static" }),
                        displayName: new LocalizedText({ locale: "en", text: "Static" }),
                        nodeClass: NodeClass.Variable,
                        typeDefinition: new ExpandedNodeId(NodeIdType.NUMERIC, 63, 0)
                    },
                    {
                        referenceTypeId: nid.num(35),
                        isForward: false,
                        nodeId: new ExpandedNodeId(NodeIdType.NUMERIC, 1, 0, "urn:remote:server", 1),
                        browseName: new QualifiedName({ namespaceIndex: 1, name: "Remote" }),
                        displayName: new LocalizedText({}),
                        nodeClass: NodeClass.Unspecified,
                        typeDefinition: new ExpandedNodeId(NodeIdType.NUMERIC, 0, 0)
                    }
                ]
            },
            { statusCode: StatusCodes.BadNodeIdUnknown, continuationPoint: null, references: [] }
        ],
        diagnosticInfos: []
    });
    // node-opcua 2.163's structure constructors coerce ExpandedNodeId fields and
    // drop namespaceUri/serverIndex: set that one after construction.
    browseResponse.results[0].references[2].nodeId = new ExpandedNodeId(NodeIdType.NUMERIC, 1, 0, "urn:remote:server", 1);
    message("browse_response_continuation", browseResponse);
}

// --- CreateSessionRequest
message(
    "create_session_request",
    new types.CreateSessionRequest({
        requestHeader: requestHeader(7, nid.num(0)),
        clientDescription: {
            applicationUri: "urn:uactor:test:client",
            productUri: "urn:uactor:test",
            applicationName: new LocalizedText({ locale: "en", text: "uactor test client" }),
            applicationType: types.ApplicationType.Client,
            gatewayServerUri: null,
            discoveryProfileUri: null,
            discoveryUrls: []
        },
        serverUri: "urn:uactor:test:server",
        endpointUrl: "opc.tcp://localhost:4840/uactor",
        sessionName: "uactor-session-1",
        clientNonce: CLIENT_NONCE,
        clientCertificate: CLIENT_CERT,
        requestedSessionTimeout: 60000,
        maxResponseMessageSize: 16777216
    })
);

// --- ActivateSessionRequest
message(
    "activate_session_request_anonymous",
    new types.ActivateSessionRequest({
        requestHeader: requestHeader(8, AUTH_TOKEN_BYTES),
        clientSignature: new types.SignatureData({ algorithm: null, signature: null }),
        clientSoftwareCertificates: [],
        localeIds: ["en-US", "de-DE"],
        userIdentityToken: new types.AnonymousIdentityToken({ policyId: "anonymous" }),
        userTokenSignature: new types.SignatureData({ algorithm: null, signature: null })
    })
);

// --- PublishResponse
message(
    "publish_response_data_change",
    new types.PublishResponse({
        responseHeader: responseHeader(9),
        subscriptionId: 7,
        availableSequenceNumbers: [3, 4, 5],
        moreNotifications: false,
        notificationMessage: new types.NotificationMessage({
            sequenceNumber: 5,
            publishTime: T_LATER,
            notificationData: [
                new types.DataChangeNotification({
                    monitoredItems: [
                        {
                            clientHandle: 1,
                            value: new DataValue({
                                value: new Variant({ dataType: DataType.Double, value: 21.5 }),
                                sourceTimestamp: T_FIXED,
                                serverTimestamp: T_LATER
                            })
                        },
                        {
                            clientHandle: 2,
                            value: new DataValue({
                                value: new Variant({ dataType: DataType.Boolean, value: true }),
                                statusCode: StatusCode.makeStatusCode(StatusCodes.Good, extraStatusCodeBits.Overflow),
                                sourceTimestamp: T_FIXED
                            })
                        },
                        {
                            clientHandle: 3,
                            value: new DataValue({ statusCode: StatusCodes.BadNotConnected, serverTimestamp: T_LATER })
                        }
                    ],
                    diagnosticInfos: []
                })
            ]
        }),
        results: [],
        diagnosticInfos: []
    })
);

// ================================================================ self-check
// Every vector must survive node-opcua's own decode -> encode unchanged (the
// property the C++ test checks). A failure here means the vector is not
// canonical for node-opcua itself; it is reported and the script exits 1.

const { decodeVariant } = require("node-opcua-variant");
const { decodeDataValue } = require("node-opcua-data-value");
const { decodeLocalizedText, decodeQualifiedName, decodeDiagnosticInfo } = require("node-opcua-data-model");
const { decodeExtensionObject } = require("node-opcua-extension-object");

const codecs = {
    // decodeDateTime drops sub-millisecond ticks; the high-accuracy pair keeps them
    DateTime: [
        (s) => bt.decodeHighAccuracyDateTime(s),
        ([date, picoseconds], s) => bt.encodeHighAccuracyDateTime(date, picoseconds, s)
    ],
    QualifiedName: [decodeQualifiedName, encodeQualifiedName],
    LocalizedText: [decodeLocalizedText, encodeLocalizedText],
    ExtensionObject: [decodeExtensionObject, encodeExtensionObject],
    DataValue: [decodeDataValue, encodeDataValue],
    Variant: [decodeVariant, encodeVariant],
    DiagnosticInfo: [decodeDiagnosticInfo, encodeDiagnosticInfo]
};
function codecFor(type) {
    if (codecs[type]) return codecs[type];
    const t = getBuiltInType(type);
    return [t.decode, t.encode];
}

function roundTrip(v) {
    const stream = new BinaryStream(Buffer.from(v.buf));
    let reencoded;
    if (v.kind === "builtin") {
        const [decode, encode] = codecFor(v.type);
        const value = decode(stream);
        reencoded = encodeWith((s) => encode(value, s));
    } else {
        const encodingId = bt.decodeNodeId(stream);
        const obj = new types[v.type]();
        if (obj.schema.encodingDefaultBinary.toString() !== encodingId.toString()) {
            throw new Error(`encoding id mismatch ${encodingId.toString()}`);
        }
        obj.decode(stream);
        reencoded = encodeWith((s) => {
            bt.encodeNodeId(obj.schema.encodingDefaultBinary, s);
            obj.encode(s);
        });
    }
    if (stream.length !== v.buf.length) throw new Error(`decoder consumed ${stream.length} of ${v.buf.length} bytes`);
    if (!reencoded.equals(v.buf)) {
        throw new Error(`re-encoded bytes differ:\n  vector   ${v.buf.toString("hex")}\n  reencode ${reencoded.toString("hex")}`);
    }
}

let selfCheckFailures = 0;
for (const v of vectors) {
    try {
        roundTrip(v);
    } catch (err) {
        selfCheckFailures++;
        console.error(`self-check: ${v.name}: ${err.message}`);
    }
}

// ================================================================ output

function writeAll(outDir) {
    fs.mkdirSync(outDir, { recursive: true });
    // remove stale outputs of a previous run (only our own file kinds)
    for (const f of fs.readdirSync(outDir)) {
        if (f.endsWith(".bin") || f === "manifest.json") fs.unlinkSync(path.join(outDir, f));
    }
    for (const v of vectors) {
        fs.writeFileSync(path.join(outDir, `${v.name}.bin`), v.buf);
    }
    const lines = vectors.map(
        (v) => `{"name": ${JSON.stringify(v.name)}, "kind": ${JSON.stringify(v.kind)}, "type": ${JSON.stringify(v.type)}}`
    );
    fs.writeFileSync(path.join(outDir, "manifest.json"), `[\n${lines.join(",\n")}\n]\n`);
}

const outDir = process.argv[2] ? path.resolve(process.argv[2]) : path.join(__dirname, "vectors");
writeAll(outDir);
const nb = vectors.filter((v) => v.kind === "builtin").length;
const nm = vectors.filter((v) => v.kind === "message").length;
console.log(`wrote ${vectors.length} vectors (${nb} builtin, ${nm} message) to ${outDir}`);
if (selfCheckFailures) {
    console.error(`${selfCheckFailures} vector(s) do not round-trip through node-opcua's own decoder`);
    process.exit(1);
}
