#!/usr/bin/env node
// /metrics and /health of `uactor run` (docs/configuration.md "Metrics") read as Prometheus would:
// the text parsed by parse-prometheus-text-format; node-opcua's client makes a known number of
// Reads (and one that fails whole), and the counters must have moved by exactly that.
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

    const before = await scrape();
    const families = before.map((f) => f.name);
    for (const name of ["uactor_connections_open", "uactor_sent_bytes_total", "uactor_sessions", "uactor_actor_mailbox_depth",
        "process_cpu_seconds_total", "process_resident_memory_bytes", "uactor_writer_cycles_total"]) {
        if (families.includes(name)) ok("family " + name);
        else fail("family " + name + " missing");
    }
    const readsBefore = sample(before, "uactor_requests_total", labels("Read")) || 0;
    const badBefore = sample(before, "uactor_service_results_total", { service: "Read", status: "BadNothingToDo" }) || 0;
    const bytesBefore = sample(before, "uactor_received_bytes_total", {});
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
    const readsAfter = sample(after, "uactor_requests_total", labels("Read")) || 0;
    const badAfter = sample(after, "uactor_service_results_total", { service: "Read", status: "BadNothingToDo" }) || 0;
    const bytesAfter = sample(after, "uactor_received_bytes_total", {});
    if (readsAfter - readsBefore === reads + 1) ok("uactor_requests_total{service=\"Read\"} moved by " + (reads + 1));
    else fail("uactor_requests_total{service=\"Read\"}: " + readsBefore + " -> " + readsAfter + ", expected +" + (reads + 1));
    if (badAfter - badBefore === 1) ok("uactor_service_results_total{service=\"Read\",status=\"BadNothingToDo\"} moved by 1");
    else fail("BadNothingToDo results: " + badBefore + " -> " + badAfter);
    if (bytesAfter > bytesBefore) ok("uactor_received_bytes_total grew");
    else fail("uactor_received_bytes_total: " + bytesBefore + " -> " + bytesAfter);
    if (sample(after, "uactor_connections_open", {}) >= 1) ok("uactor_connections_open >= 1");
    else fail("uactor_connections_open: " + sample(after, "uactor_connections_open", {}));

    await session.close();
    await client.disconnect();
    process.exit(failures === 0 ? 0 : 1);
})().catch((e) => {
    process.stdout.write("FAIL " + (e && e.message ? e.message : e) + "\n");
    process.exit(1);
});
