#!/usr/bin/env node
// The gateway's subtrees (docs/gateway.md, [[mirrors]] subtrees) end to end against node-opcua:
// a node-opcua server in this process holds Plant/{Line1/{Speed, Temp, Speed's Unit property},
// Line2/{Speed}}; `uactor run` mirrors the subtree Plant; node-opcua's client browses and reads
// it through the gateway. Then the remote's model changes inside node-opcua's
// modelChangeTransaction (which raises a GeneralModelChangeEvent): a variable is added and one is
// deleted, and the gateway follows. A max_nodes below the tree's size refuses the start.
//
//   node node_mirror_subtree_check.js UACTOR_BINARY
//
// Prints `ok - STEP` / `not ok - STEP: why`; exits 0 when every step passed, 1 otherwise. Every
// wait is bounded; every child is killed on exit.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;
console.warn = console.log;

const childProcess = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const {
    OPCUAServer, OPCUACertificateManager, OPCUAClient, nodesets, DataType, Variant, StatusCodes, AttributeIds,
    MessageSecurityMode, SecurityPolicy, NodeId, NodeIdType, BrowseDirection
} = require("node-opcua");

const uactor = process.argv[2];
if (!uactor) {
    process.stderr.write("usage: node_mirror_subtree_check.js UACTOR_BINARY\n");
    process.exit(2);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "uactor-mirror-subtree-"));
const children = new Set();
let failures = 0;
const ok = (name) => process.stdout.write("ok - " + name + "\n");
const fail = (name, why) => {
    ++failures;
    process.stdout.write("not ok - " + name + ": " + why + "\n");
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
process.on("exit", () => {
    for (const c of children) {
        try { c.kill("SIGKILL"); } catch (e) { /* gone */ }
    }
    fs.rmSync(tmp, { recursive: true, force: true });
});
setTimeout(() => {
    fail("the whole check", "still running after 110 s");
    process.exit(1);
}, 110000).unref();

async function step(name, fn) {
    try {
        await fn();
        ok(name);
    } catch (e) {
        fail(name, e && e.message ? e.message : e && e.stack ? e.stack : String(e));
    }
}

// Starts `uactor run`, resolves with its `listening on URL`, at most `ms`.
function startGateway(name, args, ms) {
    return new Promise((resolve, reject) => {
        const log = fs.openSync(path.join(tmp, name + ".err"), "a");
        const c = childProcess.spawn(uactor, args, { cwd: tmp, stdio: ["ignore", "pipe", log] });
        children.add(c);
        c.on("exit", () => children.delete(c));
        let out = "";
        const timer = setTimeout(() => reject(new Error(name + " did not listen within " + ms + " ms")), ms);
        c.stdout.on("data", (d) => {
            out += d.toString();
            const m = /listening on (opc\.tcp:\/\/\S+)/.exec(out);
            if (m) {
                clearTimeout(timer);
                resolve({ child: c, url: m[1] });
            }
        });
        c.on("exit", (code) => reject(new Error(name + " exited (" + code + "): " + out)));
    });
}

function plantFile(name, remoteUrl, extra) {
    const file = path.join(tmp, name + ".toml");
    fs.writeFileSync(file, [
        "[server]", "demo = false", "security = [\"none\"]", "",
        "[[mirrors]]", "name = \"plant\"", "endpoint = \"" + remoteUrl + "\"", "subtrees = [\"ns=1;s=Plant\"]",
        "sampling_interval_ms = 50", "publishing_interval_ms = 50"
    ].concat(extra || []).join("\n") + "\n");
    return file;
}

async function main() {
    const server = new OPCUAServer({
        port: 0, host: "127.0.0.1", hostname: "127.0.0.1",
        securityPolicies: [SecurityPolicy.None], securityModes: [MessageSecurityMode.None], allowAnonymous: true,
        skipOwnNamespace: true, nodeset_filename: [nodesets.standard],
        serverCertificateManager: new OPCUACertificateManager({
            rootFolder: path.join(tmp, "PKI"), automaticallyAcceptUnknownCertificate: true
        }),
        userCertificateManager: new OPCUACertificateManager({
            rootFolder: path.join(tmp, "UserPKI"), automaticallyAcceptUnknownCertificate: true
        })
    });
    await server.initialize();
    const addressSpace = server.engine.addressSpace;
    const ns = addressSpace.registerNamespace("urn:uactor:subtree-test");
    const plant = ns.addFolder(addressSpace.rootFolder.objects, { nodeId: "s=Plant", browseName: "Plant" });
    // A NodeVersion makes node-opcua raise ModelChangeEvents for changes under the node (Part 3 §9.32.4).
    const line1 = ns.addObject({ organizedBy: plant, nodeId: "s=Plant.Line1", browseName: "Line1", nodeVersion: "1" });
    const line2 = ns.addObject({ organizedBy: plant, nodeId: "s=Plant.Line2", browseName: "Line2", nodeVersion: "1" });
    let speed1 = 1.5;
    const speed = ns.addVariable({
        componentOf: line1, nodeId: "s=Plant.Line1.Speed", browseName: "Speed", dataType: "Double",
        minimumSamplingInterval: 50, value: { get: () => new Variant({ dataType: DataType.Double, value: speed1 }) }
    });
    ns.addVariable({
        propertyOf: speed, nodeId: "s=Plant.Line1.Speed.Unit", browseName: "Unit", dataType: "String",
        value: { dataType: DataType.String, value: "m/s" }
    });
    const temp = ns.addVariable({
        componentOf: line1, nodeId: "s=Plant.Line1.Temp", browseName: "Temp", dataType: "Double",
        value: { dataType: DataType.Double, value: 21.5 }
    });
    ns.addVariable({
        componentOf: line2, nodeId: "s=Plant.Line2.Speed", browseName: "Speed", dataType: "Double",
        value: { dataType: DataType.Double, value: 2.5 }
    });
    await server.start();
    const remoteUrl = "opc.tcp://127.0.0.1:" + server.endpoints[0].port;
    const nsIndex = addressSpace.getNamespaceIndex("urn:uactor:subtree-test");
    if (nsIndex !== 1) throw new Error("the test namespace is " + nsIndex + ", not 1");

    await step("a subtree bigger than max_nodes refuses the start (exit 1, the limit named)", async () => {
        // Not spawnSync: the remote is this process and must go on answering.
        const c = await new Promise((resolve) => {
            const child = childProcess.spawn(uactor, ["run", "--config", plantFile("small", remoteUrl, ["max_nodes = 4"]),
                "--host", "127.0.0.1", "--port", "0"], { cwd: tmp, stdio: ["ignore", "ignore", "pipe"] });
            children.add(child);
            let stderr = "";
            child.stderr.on("data", (d) => { stderr += d.toString(); });
            const timer = setTimeout(() => child.kill("SIGKILL"), 30000);
            child.on("exit", (status) => {
                clearTimeout(timer);
                children.delete(child);
                resolve({ status, stderr });
            });
        });
        if (c.status !== 1 || !c.stderr.includes("mirror plant: the subtrees at " + remoteUrl + " hold more than 4 nodes (max_nodes)"))
            throw new Error("exit " + c.status + ": " + c.stderr.slice(-500));
    });

    const gw = await startGateway("gateway", ["run", "--config", plantFile("gateway", remoteUrl), "--host", "127.0.0.1",
        "--port", "0"], 30000);
    const client = OPCUAClient.create({
        endpointMustExist: false, securityMode: MessageSecurityMode.None, securityPolicy: SecurityPolicy.None,
        connectionStrategy: { maxRetry: 1, initialDelay: 100, maxDelay: 200 }
    });
    await client.connect(gw.url);
    const session = await client.createSession();
    const nsArray = (await session.read({ nodeId: "i=2255", attributeId: AttributeIds.Value })).value.value;
    const mirrorNs = nsArray.indexOf("urn:uactor:mirror:plant");
    if (mirrorNs < 0) throw new Error("no mirror namespace in " + JSON.stringify(nsArray));
    const local = (remoteId) => new NodeId(NodeIdType.STRING, remoteId, mirrorNs);
    const children_ = async (nodeId) => {
        const r = await session.browse({ nodeId, browseDirection: BrowseDirection.Forward,
            referenceTypeId: "HierarchicalReferences", includeSubtypes: true, resultMask: 63 });
        return r.references.map((x) => x.browseName.name).sort().join(",");
    };
    const readValue = async (remoteId) => session.read({ nodeId: local(remoteId), attributeId: AttributeIds.Value });
    const waitFor = async (what, pred, ms) => {
        const end = Date.now() + ms;
        let last = null;
        while (Date.now() < end) {
            last = await pred();
            if (last === true) return;
            await sleep(50);
        }
        throw new Error(what + ": " + last);
    };

    await step("the remote's tree is there: Plant, its lines, their variables and properties", async () => {
        const got = [await children_(new NodeId(NodeIdType.STRING, "plant", mirrorNs)), await children_(local("ns=1;s=Plant")),
            await children_(local("ns=1;s=Plant.Line1")), await children_(local("ns=1;s=Plant.Line1.Speed")),
            await children_(local("ns=1;s=Plant.Line2"))].join(" | ");
        if (got !== "Plant | Line1,Line2 | NodeVersion,Speed,Temp | Unit | NodeVersion,Speed") throw new Error("browsed " + got);
    });
    await step("the property stays a property (HasProperty, PropertyType)", async () => {
        const r = await session.browse({ nodeId: local("ns=1;s=Plant.Line1.Speed"), browseDirection: BrowseDirection.Forward,
            referenceTypeId: "HasProperty", includeSubtypes: false, resultMask: 63 });
        if (r.references.length !== 1 || r.references[0].typeDefinition.toString() !== "ns=0;i=68")
            throw new Error(JSON.stringify(r.references.map((x) => x.typeDefinition.toString())));
    });
    await step("the mirrored values are the remote's and follow it", async () => {
        await waitFor("Temp, Unit", async () => {
            const t = await readValue("ns=1;s=Plant.Line1.Temp"), u = await readValue("ns=1;s=Plant.Line1.Speed.Unit");
            return (t.value.value === 21.5 && u.value.value === "m/s") || t.toString() + " " + u.toString();
        }, 10000);
        speed1 = 7.25;
        await waitFor("Speed", async () => {
            const s = await readValue("ns=1;s=Plant.Line1.Speed");
            return s.value.value === 7.25 || s.toString();
        }, 10000);
    });

    await step("a variable added on the remote (a model change) appears at the gateway with its value", async () => {
        addressSpace.modelChangeTransaction(() => {
            ns.addVariable({
                componentOf: line2, nodeId: "s=Plant.Line2.Pressure", browseName: "Pressure", dataType: "Double",
                value: { dataType: DataType.Double, value: 4.75 }
            });
        });
        await waitFor("Pressure", async () => {
            const p = await readValue("ns=1;s=Plant.Line2.Pressure");
            return p.value.value === 4.75 || p.toString();
        }, 15000);
        const got = await children_(local("ns=1;s=Plant.Line2"));
        if (got !== "NodeVersion,Pressure,Speed") throw new Error("Line2 holds " + got);
    });
    await step("a variable deleted on the remote (a model change) leaves the gateway", async () => {
        addressSpace.modelChangeTransaction(() => {
            addressSpace.deleteNode(temp);
        });
        await waitFor("Temp gone", async () => {
            const t = await readValue("ns=1;s=Plant.Line1.Temp");
            return t.statusCode.value === StatusCodes.BadNodeIdUnknown.value || t.toString();
        }, 15000);
        const got = await children_(local("ns=1;s=Plant.Line1"));
        if (got !== "NodeVersion,Speed") throw new Error("Line1 holds " + got);
        const s = await readValue("ns=1;s=Plant.Line1.Speed");
        if (s.value.value !== 7.25) throw new Error("Speed is now " + s.toString());
    });

    await session.close();
    await client.disconnect();
    await step("the gateway stops on SIGINT with status 0", async () => {
        const code = new Promise((resolve) => gw.child.on("exit", (c) => resolve(c)));
        gw.child.kill("SIGINT");
        const c = await Promise.race([code, sleep(10000).then(() => "timeout")]);
        if (c !== 0) throw new Error("exit " + c);
    });
    await server.shutdown(0);
}

main().then(
    () => process.exit(failures ? 1 : 0),
    (e) => {
        fail("setup", e && e.stack ? e.stack : String(e));
        const p = path.join(tmp, "gateway.err");
        if (fs.existsSync(p)) process.stderr.write("--- gateway:\n" + fs.readFileSync(p, "utf8").slice(-3000) + "\n");
        process.exit(1);
    });
