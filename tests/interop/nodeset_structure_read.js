// Issue 13: a value of a structure type that a loaded NodeSet defines, read by node-opcua's
// client from our server and decoded by the DataTypeDefinition the client reads from it.
// server_interop.sh starts `uactor run --nodeset tests/fuzz/nodeset_seeds/small.NodeSet2.xml`
// (urn:test:small: PumpStatus {Mode: PumpMode, Rpm: Double, Tags: String[]} at ns=<urn>;i=4003).
//   node nodeset_structure_read.js ENDPOINT [--timeout S]
"use strict";
const { OPCUAClient, AttributeIds, MessageSecurityMode, SecurityPolicy } = require("node-opcua");
const { promoteOpaqueStructure } = require("node-opcua-client-dynamic-extension-object");

(async () => {
    const client = OPCUAClient.create({
        endpointMustExist: false, securityMode: MessageSecurityMode.None, securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 1 },
    });
    await client.connect(process.argv[2]);
    const session = await client.createSession();
    const ns = (await session.read({ nodeId: "i=2255", attributeId: AttributeIds.Value })).value.value.indexOf("urn:test:small");
    if (ns < 0) throw new Error("urn:test:small is not in the NamespaceArray");
    const dv = await session.read({ nodeId: `ns=${ns};i=4003`, attributeId: AttributeIds.Value });
    await promoteOpaqueStructure(session, [dv]);
    const v = dv.value.value;
    const got = { mode: v.mode, rpm: v.rpm, tags: v.tags };
    console.log("PumpStatus as node-opcua decodes it:", JSON.stringify(got));
    await session.close();
    await client.disconnect();
    const ok = got.mode === 1 && got.rpm === 1500 && JSON.stringify(got.tags) === '["x"]';
    console.log(ok ? "structure read: ok" : "structure read: FAILED");
    process.exit(ok ? 0 : 1);
})().catch((e) => { console.error(e); process.exit(1); });
