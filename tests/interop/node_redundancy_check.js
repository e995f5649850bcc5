#!/usr/bin/env node
// node-opcua's client reads what `uactor run --redundancy ...` says about its redundant set
// (docs/decisions/0041, Part 5 §6.3.7/§6.3.8, Part 4 §6.6.2): ServiceLevel (i=2267), the Server
// object's ServerRedundancy (i=2296) typed NonTransparentRedundancyType (i=2039), its
// RedundancySupport (i=3709) and ServerUriArray (i=11314) found by browsing; then it subscribes to
// ServiceLevel, sends the server SIGTERM, and must be notified of ServiceLevel 0 before its session
// ends (the server's shutdown delay).
//
//   node node_redundancy_check.js URL SUPPORT URI[,URI...] SERVICE_LEVEL SERVER_PID
//
// SUPPORT: the RedundancySupport number (1 cold, 2 warm, 3 hot). Prints `ok <step>` / `FAIL <step>`;
// exits 0 only when all is well. Bounded by a 40 s timer.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
const {
    OPCUAClient, AttributeIds, BrowseDirection, ClientSubscription, ClientMonitoredItem, TimestampsToReturn,
} = require("node-opcua");

const [url, supportArg, urisArg, levelArg, pidArg] = process.argv.slice(2);
if (!url || !supportArg || !urisArg || !levelArg || !pidArg) {
    process.stderr.write("usage: node_redundancy_check.js URL SUPPORT URI[,URI...] SERVICE_LEVEL SERVER_PID\n");
    process.exit(2);
}
setTimeout(() => { process.stdout.write("FAIL timeout\n"); process.exit(1); }, 40000).unref();

let failures = 0;
const ok = (what) => process.stdout.write("ok   " + what + "\n");
const fail = (what) => { process.stdout.write("FAIL " + what + "\n"); failures++; };
const check = (cond, what) => (cond ? ok(what) : fail(what));

(async () => {
    const client = OPCUAClient.create({ endpointMustExist: false, connectionStrategy: { maxRetry: 0 } });
    await client.connect(url);
    const session = await client.createSession();

    const level = await session.read({ nodeId: "i=2267", attributeId: AttributeIds.Value });
    check(level.statusCode.isGood() && level.value.value === Number(levelArg),
          `ServiceLevel i=2267 = ${level.value.value} (expected ${levelArg}), DataType ${level.value.dataType}`);

    const typeDef = await session.browse({
        nodeId: "i=2296", referenceTypeId: "HasTypeDefinition", browseDirection: BrowseDirection.Forward,
        includeSubtypes: true, resultMask: 63,
    });
    const types = typeDef.references.map((r) => r.nodeId.toString());
    check(types.length === 1 && types[0] === "ns=0;i=2039", `ServerRedundancy's type: ${types.join(" ")} (NonTransparentRedundancyType i=2039)`);

    const props = await session.browse({
        nodeId: "i=2296", referenceTypeId: "HasProperty", browseDirection: BrowseDirection.Forward,
        includeSubtypes: true, resultMask: 63,
    });
    const byName = {};
    for (const r of props.references) byName[r.browseName.name] = r.nodeId.toString();
    check(byName.RedundancySupport === "ns=0;i=3709", `ServerRedundancy has RedundancySupport (${byName.RedundancySupport})`);
    check(byName.ServerUriArray === "ns=0;i=11314", `ServerRedundancy has ServerUriArray (${byName.ServerUriArray})`);

    const [support, uris] = await session.read([
        { nodeId: byName.RedundancySupport || "i=3709", attributeId: AttributeIds.Value },
        { nodeId: byName.ServerUriArray || "i=11314", attributeId: AttributeIds.Value },
    ]);
    check(support.statusCode.isGood() && support.value.value === Number(supportArg),
          `RedundancySupport = ${support.value.value} (expected ${supportArg})`);
    const got = Array.from(uris.value.value || []);
    check(JSON.stringify(got) === JSON.stringify(urisArg.split(",")), `ServerUriArray = ${JSON.stringify(got)}`);

    // ServiceLevel subscribed, then the server stops: 0 (maintenance) must arrive while the session works.
    const sub = ClientSubscription.create(session, {
        requestedPublishingInterval: 100, requestedMaxKeepAliveCount: 10, requestedLifetimeCount: 100,
        maxNotificationsPerPublish: 0, publishingEnabled: true, priority: 0,
    });
    const seen = [];
    const item = ClientMonitoredItem.create(sub, { nodeId: "i=2267", attributeId: AttributeIds.Value },
        { samplingInterval: 0, queueSize: 10, discardOldest: true }, TimestampsToReturn.Both);
    item.on("changed", (dv) => seen.push(dv.value.value));
    const deadline = Date.now() + 10000;
    while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    check(seen.length > 0 && seen[0] === Number(levelArg), `subscribed: first ServiceLevel ${seen[0]}`);
    process.kill(Number(pidArg), "SIGTERM");
    const stopDeadline = Date.now() + 10000;
    while (!seen.includes(0) && Date.now() < stopDeadline) await new Promise((r) => setTimeout(r, 20));
    check(seen.includes(0), `after SIGTERM: ServiceLevel notified ${JSON.stringify(seen)}`);
    try { await client.disconnect(); } catch (e) { /* the server is going */ }
    process.exit(failures ? 1 : 0);
})().catch((e) => { process.stdout.write("FAIL " + (e && e.stack || e) + "\n"); process.exit(1); });
