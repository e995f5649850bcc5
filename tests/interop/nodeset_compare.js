// The NodeSet comparison (docs/decisions/0015): the same companion NodeSets loaded into our server
// (ENDPOINT, started by server_interop.sh with --nodeset ...) and into a node-opcua server started here; both are
// browsed from the Root down (forward references), and every node of the companion namespaces
// (those the files declare) is compared, keyed by namespace URI and identifier: NodeClass,
// BrowseName, DisplayName, DataType, ValueRank, ArrayDimensions, TypeDefinition, DataTypeDefinition,
// the Value where one is given, and its references forward and inverse (type and target). Prints
// each difference; exit 0 when there is none.
//   node nodeset_compare.js ENDPOINT [--timeout S]
"use strict";
const fs = require("fs");
const path = require("path");
const net = require("net");
const {
    OPCUAServer, OPCUAClient, AttributeIds, BrowseDirection, NodeClass, MessageSecurityMode, SecurityPolicy,
    resolveNodeId,
} = require("node-opcua");

const dir = path.join(__dirname, "node_modules/node-opcua-nodesets/nodesets");
const files = (process.env.UACTOR_COMPARE_NODESETS || "Opc.Ua.Di.NodeSet2.xml,Opc.Ua.IA.NodeSet2.xml,Opc.Ua.Machinery.NodeSet2.xml")
    .split(",");
// The namespaces the files declare (<NamespaceUris>), and their OptionSet DataTypes (keys as crawl's).
const companionUris = new Set();
const optionSets = new Set();
for (const f of files) {
    const text = fs.readFileSync(path.join(dir, f), "utf8");
    const declared = /<NamespaceUris>([\s\S]*?)<\/NamespaceUris>/.exec(text);
    const uris = declared ? [...declared[1].matchAll(/<Uri>\s*([^<]*?)\s*<\/Uri>/g)].map((m) => m[1]) : [];
    uris.forEach((u) => companionUris.add(u));
    for (const m of text.matchAll(/<UADataType\s[^>]*NodeId="ns=(\d+);i=(\d+)"[^>]*>([\s\S]*?)<\/UADataType>/g))
        if (/IsOptionSet="true"/.test(m[3])) optionSets.add(`${uris[m[1] - 1]}|1|${m[2]}`);
}

function freePort() {
    return new Promise((resolve, reject) => {
        const s = net.createServer();
        s.on("error", reject);
        s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); });
    });
}

function stable(v) {
    if (v === null || v === undefined) return "null";
    if (Array.isArray(v) || ArrayBuffer.isView(v)) return "[" + Array.from(v).map(stable).join(",") + "]";
    if (typeof v === "object") {
        if (typeof v.toJSON === "function") return JSON.stringify(v.toJSON());
        return JSON.stringify(v);
    }
    return String(v);
}

// Every node of the companion namespaces reachable from the Root, with its attributes and refs.
async function crawl(endpoint) {
    const client = OPCUAClient.create({
        endpointMustExist: false, securityMode: MessageSecurityMode.None, securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 1 }, requestedSessionTimeout: 60000,
    });
    await client.connect(endpoint);
    const session = await client.createSession();
    const nsArray = (await session.read({ nodeId: "i=2255", attributeId: AttributeIds.Value })).value.value;
    const key = (nodeId) => `${nsArray[nodeId.namespace]}|${nodeId.identifierType}|${nodeId.value}`;
    const seen = new Map();  // key -> nodeId
    const refs = new Map();  // key -> [ "type>target" forward, "type<target" inverse ]
    let frontier = [resolveNodeId("i=84")];
    const visited = new Set([key(frontier[0])]);
    while (frontier.length) {
        const next = [];
        for (let i = 0; i < frontier.length; i += 200) {
            const batch = frontier.slice(i, i + 200);
            const results = await session.browse(batch.map((nodeId) => ({
                nodeId, browseDirection: BrowseDirection.Both, includeSubtypes: true, nodeClassMask: 0, resultMask: 0x3f,
            })));
            for (let j = 0; j < batch.length; ++j) {
                const from = key(batch[j]);
                let r = results[j];
                const all = [...(r.references || [])];
                while (r.continuationPoint && r.continuationPoint.length) {
                    r = await session.browseNext(r.continuationPoint, false);
                    all.push(...(r.references || []));
                }
                if (companionUris.has(nsArray[batch[j].namespace]))
                    refs.set(from, all.map((x) => `${key(x.referenceTypeId)}${x.isForward ? ">" : "<"}${
                        nsArray[x.nodeId.namespace] !== undefined ? key(x.nodeId) : x.nodeId.toString()}`).sort());
                for (const x of all) {
                    if (x.nodeId.serverIndex || !x.isForward) continue;  // the tree is walked forward
                    const nodeId = resolveNodeId(x.nodeId.toString().replace(/^nsu=[^;]*;/, ""));
                    const k = key(nodeId);
                    if (visited.has(k)) continue;
                    visited.add(k);
                    if (companionUris.has(nsArray[nodeId.namespace])) seen.set(k, nodeId);
                    // Namespace 0 is walked through only where the companions hang (Objects, Types, Server).
                    next.push(nodeId);
                }
            }
        }
        frontier = next;
    }
    const attrs = [AttributeIds.NodeClass, AttributeIds.BrowseName, AttributeIds.DisplayName, AttributeIds.DataType,
        AttributeIds.ValueRank, AttributeIds.ArrayDimensions, AttributeIds.Value, AttributeIds.DataTypeDefinition];
    const hasTypeDefinition = `${nsArray[0]}|1|40>`;  // NodeIdType.NUMERIC is 1
    const nodes = new Map();
    const list = [...seen.entries()];
    for (let i = 0; i < list.length; i += 100) {
        const batch = list.slice(i, i + 100);
        const reads = [];
        for (const [, nodeId] of batch) for (const a of attrs) reads.push({ nodeId, attributeId: a });
        const dv = await session.read(reads);
        batch.forEach(([k], j) => {
            const v = dv.slice(j * attrs.length, (j + 1) * attrs.length).map((d) => d.statusCode.isGood() ? d.value.value : null);
            const cls = v[0];
            const withValue = cls === NodeClass.Variable || cls === NodeClass.VariableType;
            const typeDefinition = (refs.get(k) || []).filter((r) => r.startsWith(hasTypeDefinition));
            nodes.set(k, {
                NodeClass: NodeClass[cls],
                BrowseName: v[1] ? `${nsArray[v[1].namespaceIndex]}:${v[1].name}` : null,
                DisplayName: v[2] ? v[2].text : null,
                DataType: withValue && v[3] ? key(v[3]) : null,
                ValueRank: withValue ? v[4] : null,
                ArrayDimensions: withValue ? stable(v[5] && v[5].length ? v[5] : null) : null,
                Value: withValue ? stable(v[6]) : null,
                TypeDefinition: typeDefinition.length ? typeDefinition.map((r) => r.slice(hasTypeDefinition.length)).join(" ") : null,
                // NodeIds in it by namespace URI, as the keys (the indices differ between servers).
                DataTypeDefinition: cls === NodeClass.DataType ? stable(v[7]).replace(/ns=(\d+);/g, (m, i) => `${nsArray[i]};`) : null,
            });
        });
    }
    await session.close();
    await client.disconnect();
    return { nodes, refs };
}

(async () => {
    const ours = process.argv[2];
    const port = await freePort();
    const server = new OPCUAServer({
        port, nodeset_filename: [path.join(dir, "Opc.Ua.NodeSet2.xml"), ...files.map((f) => path.join(dir, f))],
    });
    await server.start();
    const theirs = server.getEndpointUrl().replace(/\/\/[^:/]+:/, "//127.0.0.1:");
    const [a, b] = [await crawl(ours), await crawl(theirs)];
    await server.shutdown();
    // node-opcua's deviations from the files, counted, not failed:
    const explained = {
        // A Variable the file gives no <Value>: node-opcua makes up its DataType's default value.
        "a default Value node-opcua makes up": (f, o, t) => f === "Value" && o === "null",
        // A Variable without a DataType attribute: UANodeSet.xsd's default is i=24 (BaseDataType);
        // node-opcua reports a null NodeId.
        "DataType i=24, the xsd's default": (f, o, t) => f === "DataType" && o.endsWith("UA/|1|24") && t.endsWith("UA/|1|0"),
        // NamespaceMetadata's NamespacePublicationDate: node-opcua replaces the file's date by its own (null).
        "NamespacePublicationDate node-opcua resets": (f, o, t) => f === "Value" && t === '"1601-01-01T00:00:00.000Z"',
        // Argument.ArrayDimensions: node-opcua (2.186) serves [0] for an Argument of ValueRank 1 (none
        // given, or LADS's 1) and none for the others (<UInt32>0</UInt32> given); and it trims the
        // texts of values (an Argument's Description ending in a space).
        "Argument ArrayDimensions node-opcua rewrites, texts it trims": (f, o, t) =>
            f === "Value" && o.replace(/"valueRank":(-?\d+),"arrayDimensions":\[[\d,]*\]/g,
                (m, rank) => `"valueRank":${rank},"arrayDimensions":${rank === "1" ? "[0]" : "[]"}`)
                .replace(/ +"/g, '"') === t,
        // NamespaceMetadata's ModelVersion, a String in the files (DI): node-opcua serves the DataType
        // NamespaceMetadataType declares for it since 1.05.04, SemanticVersionString (i=24263).
        "ModelVersion DataType node-opcua takes from the type": (f, o, t, n) =>
            f === "DataType" && /:ModelVersion$/.test(n.BrowseName) && o.endsWith("UA/|1|12") && t.endsWith("UA/|1|24263"),
        // ValueRank 1 and no ArrayDimensions in the file: node-opcua reports [0] (unknown length).
        "ArrayDimensions [0] node-opcua makes up": (f, o, t) => f === "ArrayDimensions" && o === "null" && /^\[0(,0)*\]$/.test(t),
        // A String of a value that is white space around its text (a pretty-printed <Name>
        // </Name>): node-opcua trims it; and an empty <Text/> of a LocalizedText it makes null.
        "String white space node-opcua trims, empty Text it nulls": (f, o, t) =>
            f === "Value" && (o.trim() === t ||
                o.replace(/(\\[nrt]| )+"/g, '"').replace(/"(\\[nrt]| )+/g, '"').replace(/,"text":""/g, "") === t),
        // A MultiStateValueDiscrete's ValueAsText: node-opcua computes it from the Value (none given:
        // "Unknown"), the file gives the text of the declared default.
        "ValueAsText node-opcua computes": (f, o, t, n) => f === "Value" && /:ValueAsText$/.test(n.BrowseName),
        // In a DataTypeDefinition: an enumeration <Field> without <DisplayName> (ours gives the field's
        // Name as its DisplayName, as EnumValues does; node-opcua none), a field's Description Locale
        // (node-opcua drops it) and trailing spaces (it trims them), a structure field without
        // DataType (the xsd's default i=24; node-opcua a null NodeId).
        "definition: DisplayName the file leaves out, Description Locale and spaces, field DataType i=24": (f, o, t) =>
            f === "DataTypeDefinition" && o.replace(/"displayName":\{"text":"[^"]*"\}/g, '"displayName":{}')
                .replace(/"description":\{"locale":"[^"]*",/g, '"description":{')
                .replace(/ +"/g, '"') ===
            t.replace(/"dataType":"http:\/\/opcfoundation.org\/UA\/;i=0"/g, '"dataType":"http://opcfoundation.org/UA/;i=24"')
                .replace(/ +"/g, '"'),
        // An OptionSet (IsOptionSet, a UInt32 subtype): node-opcua serves no DataTypeDefinition.
        "OptionSet DataTypeDefinition node-opcua does not serve": (f, o, t, n, k) =>
            f === "DataTypeDefinition" && t === "null" && optionSets.has(k),
    };
    const counts = Object.fromEntries(Object.keys(explained).map((e) => [e, 0]));
    const inverseWhy = "inverse HasTypeDefinition node-opcua does not browse";
    const inverseTypeDefinition = "http://opcfoundation.org/UA/|1|40<";
    counts[inverseWhy] = 0;
    // A NodeSet's NamespaceMetadata Object gets the optional Default* Properties it lacks from our
    // server (Part 5 §6.3.13, docs/decisions/0075): HasProperty (i=46) to nodes of its own.
    const metadataWhy = "Default* Properties our server adds to a NamespaceMetadata Object";
    const addedMetadata = (r) =>
        r.startsWith("http://opcfoundation.org/UA/|1|46>") && /\.Default(Role|UserRole)Permissions$|\.DefaultAccessRestrictions$/.test(r);
    counts[metadataWhy] = 0;
    const diffs = [];
    for (const [k, n] of b.nodes) {
        const m = a.nodes.get(k);
        if (!m) { diffs.push(`${k}: missing in ours`); continue; }
        for (const f of Object.keys(n)) {
            const [o, t] = [stable(m[f]), stable(n[f])];
            if (o === t) continue;
            const why = Object.keys(explained).find((e) => explained[e](f, o, t, n, k));
            if (why) ++counts[why];
            else diffs.push(`${k}: ${f} ours ${o} node-opcua ${t}`);
        }
        const ra = new Set(a.refs.get(k) || []), rb = new Set(b.refs.get(k) || []);
        const onlyOurs = [...ra].filter((r) => !rb.has(r)), onlyTheirs = [...rb].filter((r) => !ra.has(r));
        // An instance's HasTypeDefinition seen from its type (the inverse end, Part 3 §7.13 makes it
        // browsable): node-opcua's Browse leaves it out.
        const hiddenInverse = onlyOurs.filter((r) => r.startsWith(inverseTypeDefinition));
        counts[inverseWhy] += hiddenInverse.length;
        const added = onlyOurs.filter(addedMetadata);
        counts[metadataWhy] += added.length;
        const rest = onlyOurs.filter((r) => !r.startsWith(inverseTypeDefinition) && !addedMetadata(r));
        if (rest.length || onlyTheirs.length)
            diffs.push(`${k}: references only in ours [${rest.join(" ")}], only in node-opcua's [${onlyTheirs.join(" ")}]`);
    }
    for (const k of a.nodes.keys()) if (!b.nodes.has(k)) diffs.push(`${k}: only in ours`);
    console.log(`compared ${b.nodes.size} nodes of node-opcua with ${a.nodes.size} of ours: ${diffs.length} differences`);
    for (const [e, c] of Object.entries(counts)) console.log(`  explained: ${c} x ${e}`);
    for (const d of diffs.slice(0, Number(process.env.UACTOR_COMPARE_SHOW || 40))) console.log("  " + d);
    process.exit(diffs.length ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
