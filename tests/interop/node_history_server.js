#!/usr/bin/env node
// A node-opcua server with one historized Double variable whose history is a known ramp, so that
// our client's HistoryRead (Part 4 §5.10.3, Part 11 §6.5.3 raw, §6.5.4 processed) can be checked
// against another stack (tests/interop/cli_history_interop.sh) and timed
// (bench/history/history_read_ab.sh).
//
//   node node_history_server.js [--port N] [--values N] [--start-ms MS] [--step-ms MS] [--max-seconds S]
//
//   --port N         0 (default) = a free port, found before the server starts (node_server.js's freePort)
//   --values N       values in the history (default 100, at most 5,000,000)
//   --start-ms MS    the first value's SourceTimestamp, ms since 1970 (default 1767225600000,
//                    2026-01-01T00:00:00Z)
//   --step-ms MS     the time between two values (default 1000)
//   --max-seconds S  exit by itself after S seconds (default 600)
//
// ns=1;s=History.Ramp holds value i at start + i * step (i = 0 .. N-1), status Good, Source and
// Server timestamps equal. node-opcua keeps history in memory (installHistoricalDataNode, at most
// maxOnlineValues values: set to N) and serves Average, Minimum, Maximum and Interpolative
// (node-opcua-aggregates' addAggregateSupport). Listens on 127.0.0.1, SecurityPolicy None,
// anonymous; prints exactly one line on stdout once it listens and the history is filled:
// `listening on opc.tcp://127.0.0.1:PORT`. Exits 0 on SIGTERM/SIGINT and at --max-seconds, 1 when
// it cannot start.
"use strict";

// node_server.js sends node-opcua's console.log to stderr: stdout carries only our line.
const { freePort, newLocalServer, stopOnSignals } = require("./node_server.js");

const { DataType, DataValue, StatusCodes } = require("node-opcua");
const { addAggregateSupport, installAggregateConfigurationOptions } = require("node-opcua-aggregates");

const NAMESPACE_URI = "urn:uactor:history-interop";
const MAX_VALUES = 5000000;

function parseArgs(argv) {
    const opts = { port: 0, values: 100, startMs: Date.UTC(2026, 0, 1), stepMs: 1000, maxSeconds: 600 };
    const names = { "--port": "port", "--values": "values", "--start-ms": "startMs", "--step-ms": "stepMs", "--max-seconds": "maxSeconds" };
    for (let i = 0; i < argv.length; ++i) {
        const key = names[argv[i]];
        if (!key) {
            throw new Error("unknown argument: " + argv[i]);
        }
        const n = Number(argv[++i]);
        if (!Number.isInteger(n) || n < 0) {
            throw new Error(argv[i - 1] + ": not an integer >= 0: " + argv[i]);
        }
        opts[key] = n;
    }
    if (opts.values < 1 || opts.values > MAX_VALUES) {
        throw new Error("--values must be 1.." + MAX_VALUES);
    }
    if (opts.stepMs < 1) {
        throw new Error("--step-ms must be >= 1");
    }
    return opts;
}

// The ramp goes straight into the variable's historian (no value_changed event per value): a
// million values take seconds this way.
function fillHistory(addressSpace, namespace, opts) {
    const ramp = namespace.addVariable({
        organizedBy: addressSpace.rootFolder.objects,
        nodeId: "s=History.Ramp",
        browseName: "Ramp",
        dataType: "Double",
        accessLevel: "CurrentRead"
    });
    if (ramp.nodeId.namespace !== 1) {
        throw new Error("History.Ramp is not in ns=1");
    }
    addAggregateSupport(addressSpace);
    addressSpace.installHistoricalDataNode(ramp, { maxOnlineValues: opts.values });
    installAggregateConfigurationOptions(ramp, {});
    for (let i = 0; i < opts.values; ++i) {
        const t = new Date(opts.startMs + i * opts.stepMs);
        ramp.varHistorian.push(new DataValue({
            value: { dataType: DataType.Double, value: i },
            statusCode: StatusCodes.Good,
            sourceTimestamp: t,
            serverTimestamp: t
        }));
    }
}

async function main() {
    let opts;
    try {
        opts = parseArgs(process.argv.slice(2));
    } catch (err) {
        process.stderr.write("node_history_server: " + err.message + "\n");
        process.exit(2);
    }
    const port = opts.port || (await freePort());
    const { server, removePki } = newLocalServer(port, "node-history-server", "uactor interop node-opcua history server", {});
    const stopping = stopOnSignals(server, removePki, opts.maxSeconds, () => {});

    try {
        await server.initialize();
        const addressSpace = server.engine.addressSpace;
        fillHistory(addressSpace, addressSpace.registerNamespace(NAMESPACE_URI), opts);
        await server.start();
    } catch (err) {
        process.stderr.write("node_history_server: cannot start: " + (err && err.stack ? err.stack : err) + "\n");
        removePki();
        process.exit(1);
    }
    if (!stopping()) {
        process.stdout.write("listening on opc.tcp://127.0.0.1:" + port + "\n");
    }
}

main();
