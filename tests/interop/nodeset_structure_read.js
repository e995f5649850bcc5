// Values of structure types that loaded NodeSets define (docs/decisions/0015), read by node-opcua's client from
// our server and decoded by the DataTypeDefinitions the client reads from it; then written by the
// client and read back equal. server_interop.sh starts `uactor run --nodeset
// tests/fuzz/nodeset_seeds/small.NodeSet2.xml --nodeset tests/fuzz/nodeset_seeds/structures.NodeSet2.xml`:
//   urn:test:small       PumpStatus {Mode: PumpMode, Rpm: Double, Tags: String[]} at i=4003
//   urn:test:structures  Scene {Title, Main: ShapeBase (abstract), Extra: Number, Shapes: ShapeBase[]},
//                        a StructureWithSubtypedValues, at i=107; Holder {Label, Item: Circle
//                        allowing subtypes} at i=101; Grid (Int32 2x3 matrix) at i=102
// Not read here: Drawing (i=100), Scene's fields in a plain Structure. node-opcua 2.163.1 decodes a
// field of an abstract structure type only when the field allows subtypes (createField, in
// convert_data_type_definition_to_structuretype_schema.js, overwrites the allowSubTypes that
// resolveFieldType gives abstract types; decodeElement then throws "Cannot instantiate an abstract
// dataStructure"). tests/nodeset/importer_test.cpp checks Drawing's bytes.
//   node nodeset_structure_read.js ENDPOINT
"use strict";
const { OPCUAClient, AttributeIds, MessageSecurityMode, SecurityPolicy, DataType, StatusCodes, resolveNodeId } = require("node-opcua");
const { promoteOpaqueStructure } = require("node-opcua-client-dynamic-extension-object");

let failures = 0;
function check(what, got, want) {
    const g = JSON.stringify(got), w = JSON.stringify(want);
    console.log(`${g === w ? "ok  " : "FAIL"} ${what}: ${g}${g === w ? "" : ` (want ${w})`}`);
    if (g !== w) failures++;
}

// A Circle as node-opcua decodes it (an ExtensionObject in an abstract or subtype-allowing field).
const circle = (c) => (c ? { type: c.constructor.name, name: c.name, radius: c.radius } : c);
const scene = (d) => ({
    title: d.title, main: circle(d.main), extra: d.extra && { dataType: DataType[d.extra.dataType], value: d.extra.value },
    shapes: (d.shapes || []).map(circle),
});

async function readStructure(session, nodeId) {
    const dv = await session.read({ nodeId, attributeId: AttributeIds.Value });
    if (dv.statusCode !== StatusCodes.Good) throw new Error(`read ${nodeId}: ${dv.statusCode.toString()}`);
    await promoteOpaqueStructure(session, [dv]);
    return dv.value.value;
}

(async () => {
    const client = OPCUAClient.create({
        endpointMustExist: false, securityMode: MessageSecurityMode.None, securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 1 },
    });
    await client.connect(process.argv[2]);
    const session = await client.createSession();
    const namespaces = (await session.read({ nodeId: "i=2255", attributeId: AttributeIds.Value })).value.value;
    const ns = namespaces.indexOf("urn:test:small"), st = namespaces.indexOf("urn:test:structures");
    if (ns < 0 || st < 0) throw new Error(`urn:test:small or urn:test:structures not in the NamespaceArray: ${namespaces}`);

    const v = await readStructure(session, `ns=${ns};i=4003`);
    check("PumpStatus", { mode: v.mode, rpm: v.rpm, tags: v.tags }, { mode: 1, rpm: 1500, tags: ["x"] });

    // Fields of an abstract structure type, a Number and an array of the abstract type.
    const d = await readStructure(session, `ns=${st};i=107`);
    check("Scene", scene(d), {
        title: "stage", main: { type: "Circle", name: "moon", radius: 0.5 }, extra: { dataType: "Int32", value: 12 },
        shapes: [{ type: "Circle", name: "p", radius: 5 }],
    });
    // A field that allows subtypes (StructureWithSubtypedValues).
    const h = await readStructure(session, `ns=${st};i=101`);
    check("Holder", { label: h.label, item: circle(h.item) }, { label: "held", item: { type: "Circle", name: "c", radius: 3 } });
    // A Matrix value: its elements and its dimensions.
    const grid = (await session.read({ nodeId: `ns=${st};i=102`, attributeId: AttributeIds.Value })).value;
    check("Grid", { elements: Array.from(grid.value), dimensions: grid.dimensions }, { elements: [1, 2, 3, 4, 5, 6], dimensions: [2, 3] });

    // node-opcua's client writes a Scene (a structure of the loaded file, with Circles in its
    // abstract field and in its array) and reads it back equal.
    const circleType = resolveNodeId(`ns=${st};i=2`), sceneType = resolveNodeId(`ns=${st};i=8`);
    const written = await session.constructExtensionObject(sceneType, {
        title: "written",
        main: await session.constructExtensionObject(circleType, { name: "moon", radius: 4.25 }),
        extra: { dataType: DataType.Int32, value: -7 },
        shapes: [await session.constructExtensionObject(circleType, { name: "z", radius: 9 })],
    });
    const status = await session.write({
        nodeId: `ns=${st};i=107`, attributeId: AttributeIds.Value,
        value: { value: { dataType: DataType.ExtensionObject, value: written } },
    });
    check("Write Scene1", status.name, "Good");
    const back = await readStructure(session, `ns=${st};i=107`);
    check("Scene read back", scene(back), scene(written));
    // A structure of another type into the Scene variable: refused.
    const wrong = await session.write({
        nodeId: `ns=${st};i=107`, attributeId: AttributeIds.Value,
        value: { value: { dataType: DataType.ExtensionObject,
                          value: await session.constructExtensionObject(circleType, { name: "no", radius: 0 }) } },
    });
    check("Write a Circle into Scene1", wrong.name, "BadTypeMismatch");

    await session.close();
    await client.disconnect();
    console.log(failures === 0 ? "structure read: ok" : `structure read: FAILED (${failures})`);
    process.exit(failures === 0 ? 0 : 1);
})().catch((e) => { console.error(e); process.exit(1); });
