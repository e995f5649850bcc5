#!/usr/bin/env node
// node-opcua's client, which reconnects by itself, subscribed to one UInt32 that counts up (--node,
// default ns=1;s=Demo.Dynamic.Counter; sampling 0, queue 1000) of a server reached through the fault proxy of tests/support (the test cuts the
// link meanwhile). Prints one line per connection event (`lost`, `reconnected`), then, after
// --seconds, a summary: `summary values=N gaps=G repeats=R reconnections=C republished=P
// recovered=V unrecoverable=U duplicate_messages=D`, over the values of the messages by sequence
// number (see below), where a gap is a step of more than +1 between consecutive values and a
// repeat a step of 0 or less; V messages node-opcua skipped were had by Republish at the end, U
// could not be, D arrived twice under one number (node-opcua's doing).
//
//   node node_reconnect_client.js opc.tcp://127.0.0.1:PORT --seconds S [--node NODEID]
//
// Exits 0 when it connected and subscribed (the caller judges the summary), 1 otherwise.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;
console.warn = console.log;

const { OPCUAClient, ClientSubscription, ClientMonitoredItem, AttributeIds, TimestampsToReturn, RepublishRequest } =
    require("node-opcua");

const endpoint = process.argv[2];
let seconds = 15;
const s = process.argv.indexOf("--seconds");
if (s >= 0) seconds = Number(process.argv[s + 1]);
const n = process.argv.indexOf("--node");
const nodeId = n >= 0 ? process.argv[n + 1] : "ns=1;s=Demo.Dynamic.Counter";
setTimeout(() => {
    process.stdout.write("FAIL timeout\n");
    process.exit(1);
}, (seconds + 30) * 1000).unref();

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
    const client = OPCUAClient.create({
        endpointMustExist: false,
        connectionStrategy: { initialDelay: 50, maxDelay: 500, maxRetry: 1000 },
        keepSessionAlive: true,
        requestedSessionTimeout: 60000
    });
    let reconnections = 0;
    let republished = 0;
    client.on("connection_lost", () => process.stdout.write("lost\n"));
    let values = [];
    client.on("connection_reestablished", () => {
        reconnections += 1;
        process.stdout.write("reconnected\n");
        process.stdout.write("values " + values.length + "\n");
    });
    await client.connect(endpoint);
    const session = await client.createSession();
    session.on("session_restored", () => {
        process.stdout.write("session_restored\n");
        // node-opcua 2.163's client, when ActivateSession on the new channel succeeds, republishes
        // and emits session_restored, but never sends Publish requests again: the ones pending at
        // the cut ended with "Connection Break" (not renewed), and only its recreate-session path
        // calls publishEngine.suspend(false), which replenishes them
        // (node-opcua-client/dist/private/reconnection/reconnection.js). Against node-opcua's own
        // server too. What this test judges is our server's side of the recovery, so the queue is
        // replenished here, as that other path does.
        session.getPublishEngine().replenish_publish_request_queue();
    });
    const sub = ClientSubscription.create(session, {
        requestedPublishingInterval: 50,
        requestedLifetimeCount: 1000,
        requestedMaxKeepAliveCount: 10,
        maxNotificationsPerPublish: 0,
        publishingEnabled: true,
        priority: 1
    });
    await new Promise((resolve, reject) => {
        sub.on("started", resolve);
        sub.on("internal_error", reject);
    });
    const item = ClientMonitoredItem.create(sub, { nodeId, attributeId: AttributeIds.Value },
                                            { samplingInterval: 0, queueSize: 1000, discardOldest: true },
                                            TimestampsToReturn.Both);
    item.on("changed", (dv) => values.push(Number(dv.value.value)));
    // What the server sent, by NotificationMessage sequence number (Part 4 §5.13.1.5). node-opcua
    // 2.163 neither republishes a number it skipped (a Publish answered on the new channel before
    // its Republish loop, which starts after the newest number it has) nor ignores a message it
    // already had. So the messages are kept here by number, each once, and the numbers missing at
    // the end are asked for with Republish: what the summary judges is the server (nothing lost,
    // nothing sent twice under two numbers), not node-opcua's bookkeeping.
    const messages = new Map(); // sequence number -> the values of its data changes
    let duplicateMessages = 0;
    const valuesOf = (m) => (m.notificationData || []).flatMap((d) => (d && d.monitoredItems ? d.monitoredItems : [])
        .map((x) => Number(x.value.value.value)));
    const onMessage = sub.onNotificationMessage.bind(sub);
    sub.onNotificationMessage = (m) => {
        const vals = valuesOf(m);
        if (vals.length) {
            if (messages.has(m.sequenceNumber)) duplicateMessages += 1;
            else messages.set(m.sequenceNumber, vals);
        }
        return onMessage(m);
    };
    await new Promise((resolve) => item.on("initialized", resolve));
    process.stdout.write("subscribed\n");
    // node-opcua counts what it recovered through Republish in the subscription's "received" path;
    // the server's answer shows in the log only, so count its Republish requests here.
    const republish = session.republish.bind(session);
    session.republish = (...a) => {
        republished += 1;
        return republish(...a);
    };
    for (let t = 0; t < seconds; t++) {
        await sleep(1000);
        process.stdout.write("values " + values.length + "\n");
    }
    let recovered = 0;
    let unrecoverable = 0;
    const numbers = [...messages.keys()].sort((a, b) => a - b);
    for (let n = numbers[0]; numbers.length && n < numbers[numbers.length - 1]; n++) {
        if (messages.has(n)) continue;
        const r = await new Promise((resolve) => session.republish(
            new RepublishRequest({ subscriptionId: sub.subscriptionId, retransmitSequenceNumber: n }),
            (err, response) => resolve(err ? null : response)));
        const vals = r && r.responseHeader.serviceResult.value === 0 ? valuesOf(r.notificationMessage) : [];
        if (vals.length) {
            messages.set(n, vals);
            recovered += 1;
        } else {
            unrecoverable += 1;
        }
    }
    const received = [...messages.keys()].sort((a, b) => a - b).flatMap((n) => messages.get(n));
    let gaps = 0;
    let repeats = 0;
    for (let i = 1; i < received.length; i++) {
        const d = received[i] - received[i - 1];
        if (d > 1) gaps += 1;
        else if (d < 1) repeats += 1;
    }
    process.stdout.write(`summary values=${received.length} gaps=${gaps} repeats=${repeats} ` +
                         `reconnections=${reconnections} republished=${republished} recovered=${recovered} ` +
                         `unrecoverable=${unrecoverable} duplicate_messages=${duplicateMessages}\n`);
    await sub.terminate().catch(() => {});
    await session.close().catch(() => {});
    await client.disconnect();
    process.exit(0);
}

main().catch((e) => {
    process.stdout.write("FAIL " + (e && e.message ? e.message : String(e)) + "\n");
    process.exit(1);
});
