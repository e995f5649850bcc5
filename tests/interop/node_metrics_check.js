#!/usr/bin/env node
// /metrics and /health of `uactor run` (docs/configuration.md "Metrics") read as Prometheus would:
// the text parsed by parse-prometheus-text-format; node-opcua's client makes a known load, and the
// counters must have moved by exactly that:
// - READS Reads (and one that fails whole): uactor_requests_total{service="Read"}, the bad result,
//   and the bytes: received and sent equal what node-opcua wrote and read on its one connection;
// - then, with raw service calls (no publish engine of node-opcua's running on its own), one
//   CreateSubscription, one CreateMonitoredItems of 3 items, 2 Writes, 2 Browses, 2 Publishes:
//   each service's counter moved by exactly that and the total by their sum (nothing else was
//   sent), and the gauges say 1 session, 1 subscription, 3 monitored items; after
//   DeleteSubscriptions 0 and 0. Gauges are refreshed at the session host's housekeeping tick:
//   scraped again (bounded) until they agree. The machine under test must serve only this client.
//
//   node node_metrics_check.js HTTP_BASE OPCUA_URL READS
//
// Prints `ok <step>` / `FAIL <step>: <why>`; exits 0 only when all is well. Bounded by a 60 s timer.
"use strict";

const http = require("http");
const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
const parsePrometheus = require("parse-prometheus-text-format");
const { OPCUAClient, AttributeIds, MessageSecurityMode, SecurityPolicy } = require("node-opcua");

const [base, url, readsArg] = process.argv.slice(2);
const reads = Number(readsArg);
if (!base || !url || !(reads > 0)) {
    process.stderr.write("usage: node_metrics_check.js HTTP_BASE OPCUA_URL READS\n");
    process.exit(2);
}
setTimeout(() => { process.stdout.write("FAIL timeout\n"); process.exit(1); }, 60000).unref();

let failures = 0;
const ok = (what) => process.stdout.write("ok   " + what + "\n");
const fail = (what) => { process.stdout.write("FAIL " + what + "\n"); failures++; };

function get(path, method = "GET") {
    return new Promise((resolve, reject) => {
        const req = http.request(base + path, { method }, (res) => {
            let body = "";
            res.on("data", (d) => { body += d; });
            res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
        });
        req.on("error", reject);
        req.end();
    });
}

// The value of one sample: family `name`, the sample whose labels include `labels`.
function sample(families, name, labels) {
    const f = families.find((x) => x.name === name);
    if (!f) return undefined;
    const m = f.metrics.find((x) => Object.entries(labels).every(([k, v]) => (x.labels || {})[k] === v));
    return m === undefined ? undefined : Number(m.value);
}

async function scrape() {
    const r = await get("/metrics");
    if (r.status !== 200) throw new Error("/metrics answered " + r.status);
    if (!/^text\/plain; version=0\.0\.4/.test(r.headers["content-type"])) {
        throw new Error("/metrics Content-Type " + r.headers["content-type"]);
    }
    return parsePrometheus(r.body);
}

// Scrapes until `pred(families)` holds: at most 50 scrapes, 200 ms apart (the housekeeping tick
// is 1 s). Returns { ok, last }.
async function until(pred) {
    let last;
    for (let i = 0; i < 50; i++) {
        last = await scrape();
        if (pred(last)) return { ok: true, last };
        await new Promise((r) => setTimeout(r, 200));
    }
    return { ok: false, last };
}

const requestsOf = (families, service) => sample(families, "uactor_requests_total", { service }) || 0;
const allRequests = (families) => {
    const f = families.find((x) => x.name === "uactor_requests_total");
    return f ? f.metrics.reduce((sum, m) => sum + Number(m.value), 0) : 0;
};

// The subscription services, Write and Browse, as raw requests: node-opcua sends nothing of its own.
async function serviceLoad(session) {
    const call = (name, request) => new Promise((resolve, reject) =>
        session[name](request, (err, response) => (err ? reject(err) : resolve(response))));
    const items = [2259, 2258, 2255];  // ServerState, CurrentTime, NamespaceArray
    const sent = { CreateSubscription: 1, CreateMonitoredItems: 1, Write: 2, Browse: 2, Publish: 2 };

    const before = await scrape();
    const sub = await call("createSubscription", {
        requestedPublishingInterval: 100, requestedLifetimeCount: 60, requestedMaxKeepAliveCount: 3,
        maxNotificationsPerPublish: 0, publishingEnabled: true, priority: 0
    });
    await call("createMonitoredItems", {
        subscriptionId: sub.subscriptionId, timestampsToReturn: 2,
        itemsToCreate: items.map((i, k) => ({
            itemToMonitor: { nodeId: "ns=0;i=" + i, attributeId: AttributeIds.Value },
            monitoringMode: 2,  // Reporting
            requestedParameters: { clientHandle: k + 1, samplingInterval: 100, queueSize: 1, discardOldest: true }
        }))
    });
    for (let i = 0; i < 2; i++) {
        // ServerState is not writable: the Write is counted all the same (its result is per item).
        await session.write({ nodeId: "ns=0;i=2259", attributeId: AttributeIds.Value, value: { value: { dataType: "Int32", value: 0 } } });
        await session.browse("ns=0;i=85");
    }
    // The first answer carries the items' first values, the second a keep-alive (Part 4 §5.13.1.1).
    let acks = [];
    for (let i = 0; i < 2; i++) {
        const r = await call("publish", { subscriptionAcknowledgements: acks });
        acks = r.notificationMessage && r.notificationMessage.notificationData && r.notificationMessage.notificationData.length
            ? [{ subscriptionId: r.subscriptionId, sequenceNumber: r.notificationMessage.sequenceNumber }] : [];
    }

    const gauges = (want) => (s) => sample(s, "uactor_sessions", {}) === 1 &&
        sample(s, "uactor_subscriptions", {}) === want.subscriptions && sample(s, "uactor_monitored_items", {}) === want.items;
    const loaded = await until(gauges({ subscriptions: 1, items: items.length }));
    const after = loaded.last;
    if (loaded.ok) ok("gauges: 1 session, 1 subscription, " + items.length + " monitored items");
    else fail("gauges: sessions " + sample(after, "uactor_sessions", {}) + ", subscriptions " + sample(after, "uactor_subscriptions", {}) +
        ", monitored items " + sample(after, "uactor_monitored_items", {}) + "; expected 1, 1, " + items.length);
    let total = 0;
    for (const [service, n] of Object.entries(sent)) {
        const moved = requestsOf(after, service) - requestsOf(before, service);
        total += n;
        if (moved === n) ok("uactor_requests_total{service=\"" + service + "\"} moved by " + n);
        else fail("uactor_requests_total{service=\"" + service + "\"} moved by " + moved + ", expected " + n);
    }
    const moved = allRequests(after) - allRequests(before);
    if (moved === total) ok("uactor_requests_total over all services moved by " + total + " (nothing else was counted)");
    else fail("uactor_requests_total over all services moved by " + moved + ", expected " + total);

    await call("deleteSubscriptions", { subscriptionIds: [sub.subscriptionId] });
    const gone = await until(gauges({ subscriptions: 0, items: 0 }));
    if (gone.ok) ok("after DeleteSubscriptions: 0 subscriptions, 0 monitored items");
    else fail("after DeleteSubscriptions: subscriptions " + sample(gone.last, "uactor_subscriptions", {}) +
        ", monitored items " + sample(gone.last, "uactor_monitored_items", {}));
}

(async () => {
    for (const [path, want] of [["/health/live", 200], ["/health/ready", 200], ["/nope", 404]]) {
        const r = await get(path);
        if (r.status === want) ok(path + " " + want);
        else fail(path + ": " + r.status + ", expected " + want);
    }
    const post = await get("/metrics", "POST");
    if (post.status === 405 && post.headers.allow === "GET, HEAD") ok("POST /metrics 405 with Allow");
    else fail("POST /metrics: " + post.status + " allow=" + post.headers.allow);

    const client = OPCUAClient.create({
        endpointMustExist: false, securityMode: MessageSecurityMode.None, securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 200 }
    });
    await client.connect(url);
    const session = await client.createSession();
    const labels = (service) => ({ service });
    // The client's own byte counts, read at the scrape (nothing in flight then: no subscription).
    const clientBytes = () => ({ written: client.bytesWritten, read: client.bytesRead });

    const before = await scrape();
    const clientBefore = clientBytes();
    const families = before.map((f) => f.name);
    for (const name of ["uactor_connections_open", "uactor_sent_bytes_total", "uactor_sessions", "uactor_actor_mailbox_depth",
        "process_cpu_seconds_total", "process_resident_memory_bytes", "uactor_writer_cycles_total"]) {
        if (families.includes(name)) ok("family " + name);
        else fail("family " + name + " missing");
    }
    const readsBefore = sample(before, "uactor_requests_total", labels("Read")) || 0;
    const badBefore = sample(before, "uactor_service_results_total", { service: "Read", status: "BadNothingToDo" }) || 0;
    const bytesBefore = sample(before, "uactor_received_bytes_total", {});
    const sentBefore = sample(before, "uactor_sent_bytes_total", {});
    for (let i = 0; i < reads; i++) {
        const dv = await session.read({ nodeId: "ns=0;i=2259", attributeId: AttributeIds.Value });
        if (!dv.statusCode.isGood()) throw new Error("Read " + i + ": " + dv.statusCode.toString());
    }
    // A Read of nothing fails whole (Bad_NothingToDo, Part 4 §5.10.2): a bad ServiceResult to count.
    try {
        await session.read([]);
    } catch (e) {
        // node-opcua may refuse an empty list itself; then the server sees nothing and the
        // check below says so.
    }
    const after = await scrape();
    const clientAfter = clientBytes();
    const readsAfter = sample(after, "uactor_requests_total", labels("Read")) || 0;
    const badAfter = sample(after, "uactor_service_results_total", { service: "Read", status: "BadNothingToDo" }) || 0;
    const bytesAfter = sample(after, "uactor_received_bytes_total", {});
    if (readsAfter - readsBefore === reads + 1) ok("uactor_requests_total{service=\"Read\"} moved by " + (reads + 1));
    else fail("uactor_requests_total{service=\"Read\"}: " + readsBefore + " -> " + readsAfter + ", expected +" + (reads + 1));
    if (badAfter - badBefore === 1) ok("uactor_service_results_total{service=\"Read\",status=\"BadNothingToDo\"} moved by 1");
    else fail("BadNothingToDo results: " + badBefore + " -> " + badAfter);
    // Received: counted before the request is handled, so already in `after`. Sent: counted when
    // the broker's write completes, which may be just after node-opcua has the response: scraped
    // again (bounded) until it agrees.
    const wrote = clientAfter.written - clientBefore.written, got = clientAfter.read - clientBefore.read;
    if (bytesAfter - bytesBefore === wrote) ok("uactor_received_bytes_total moved by " + wrote + ", the bytes node-opcua wrote");
    else fail("uactor_received_bytes_total: " + bytesBefore + " -> " + bytesAfter + ", node-opcua wrote " + wrote);
    const sent = await until((s) => sample(s, "uactor_sent_bytes_total", {}) - sentBefore === got);
    if (sent.ok) ok("uactor_sent_bytes_total moved by " + got + ", the bytes node-opcua read");
    else fail("uactor_sent_bytes_total: " + sentBefore + " -> " + sample(sent.last, "uactor_sent_bytes_total", {}) + ", node-opcua read " + got);
    if (sample(after, "uactor_connections_open", {}) >= 1) ok("uactor_connections_open >= 1");
    else fail("uactor_connections_open: " + sample(after, "uactor_connections_open", {}));

    await serviceLoad(session);

    await session.close();
    await client.disconnect();
    process.exit(failures === 0 ? 0 : 1);
})().catch((e) => {
    process.stdout.write("FAIL " + (e && e.message ? e.message : e) + "\n");
    process.exit(1);
});
